/*
 * Images (image.c) and their formats (image_format.c): the table of channel orders and
 * data types the device supports, and the packing of a fill colour into one pixel.
 * docs/images.md lists the table; the kernel library converts exactly these formats.
 */
#ifndef KILN_RUNTIME_RT_IMAGE_H
#define KILN_RUNTIME_RT_IMAGE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* What a format may be used for, beyond kernel reads (which every listed format allows). */
enum kiln_rt_format_use {
    KILN_FMT_WRITE = 1u << 0,      /* CL_MEM_WRITE_ONLY, and READ_WRITE for writes */
    KILN_FMT_READ_WRITE = 1u << 1, /* CL_MEM_KERNEL_READ_AND_WRITE */
    KILN_FMT_DEPTH = 1u << 2,      /* CL_DEPTH: 2D images and 2D arrays only */
};

struct kiln_rt_format {
    cl_channel_order order;
    cl_channel_type type;
    unsigned char elem_size;    /* bytes per pixel */
    unsigned char num_channels; /* channels stored per pixel (struct kiln_image) */
    unsigned char use;          /* enum kiln_rt_format_use */
};

/* The supported format `f`, or NULL (CL_IMAGE_FORMAT_NOT_SUPPORTED). */
const struct kiln_rt_format *kiln_rt_format_find(const cl_image_format *f);
/*
 * Whether `f` is a channel order and data type the specification pairs (OpenCL 3.0
 * §5.3.1.1): a pair it does not is CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, a valid pair Kiln
 * lacks is CL_IMAGE_FORMAT_NOT_SUPPORTED.
 */
bool kiln_rt_format_valid(const cl_image_format *f);
/*
 * The supported formats for an image of `type` created with `flags` (access flags as
 * clGetSupportedImageFormats takes them), in table order: up to `cap` go to out (which
 * may be NULL when cap is 0); returns how many there are in all.
 */
unsigned kiln_rt_format_list(cl_mem_flags flags, cl_mem_object_type type, cl_image_format *out,
                             unsigned cap);
/*
 * One pixel of format `f` holding the fill colour `color` as clEnqueueFillImage takes it
 * (OpenCL 3.0 §5.3.4: a float4 for normalised, half and float types, an int4 or uint4 for
 * the signed and unsigned integer ones; a single float for CL_DEPTH), converted with the
 * specification's rounding and saturation; f->elem_size bytes go to out.
 */
void kiln_rt_format_pack(const struct kiln_rt_format *f, const void *color, unsigned char *out);

#endif
