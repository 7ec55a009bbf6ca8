/*
 * What a kernel's image and sampler arguments are (DESIGN.md §7). This header is
 * written in the common subset of C11 and OpenCL C 3.0: the runtime fills the
 * descriptor (runtime/image.c) and the kernel library reads it
 * (kernel-lib/images/).
 *
 * Image. An image2d_t (or any image type) argument is a pointer to the image's
 * struct kiln_image, which lives as long as the image object and never moves. Its
 * pixels start at `data`; pixel (x, y, z) of a 3D image, or (x, layer) of a 1D
 * array, or (x, y, layer) of a 2D array, is at
 *     data + x * elem_size + y * row_pitch + z * slice_pitch
 * (a 1D array's layer steps by slice_pitch, which is then its row pitch). Unused
 * dimensions are 1 (height, depth, array_size) and pitches of unused dimensions
 * are 0. A 1D image buffer's and a 2D image from a buffer's `data` is the buffer's
 * memory. Every field is fixed at creation.
 *
 * Sampler. A sampler_t argument, and a program-scope or literal sampler (Clang
 * turns those into __translate_sampler_initializer(bits) calls), is not a pointer
 * to anything: its pointer value is the sampler's bit pattern below, the same bits
 * as OpenCL C's CLK_* constants (opencl-c-base.h), so a sampler the compiler can
 * see folds into the code that reads with it.
 */
#ifndef KILN_INCLUDE_KILN_IMAGE_H
#define KILN_INCLUDE_KILN_IMAGE_H

#if defined(__OPENCL_C_VERSION__)
#define KILN_IMAGE_GLOBAL __global
typedef uint kiln_image_u32;
typedef int kiln_image_i32;
typedef ulong kiln_image_u64;
#else
#include <stdint.h>
#define KILN_IMAGE_GLOBAL
typedef uint32_t kiln_image_u32;
typedef int32_t kiln_image_i32;
typedef uint64_t kiln_image_u64;
#endif

struct kiln_image {
    KILN_IMAGE_GLOBAL unsigned char *data;
    kiln_image_u32 type;         /* CL_MEM_OBJECT_IMAGE2D ... (cl.h's values) */
    kiln_image_u32 order;        /* CL_RGBA ... (cl.h); what get_image_channel_order returns */
    kiln_image_u32 data_type;    /* CL_UNORM_INT8 ...; get_image_channel_data_type */
    kiln_image_u32 elem_size;    /* bytes per pixel */
    kiln_image_u32 num_channels; /* channels stored per pixel (CL_RGBx: 4; CL_DEPTH: 1) */
    kiln_image_i32 width;        /* pixels; >= 1 */
    kiln_image_i32 height;       /* rows; 1 for 1D images and 1D arrays */
    kiln_image_i32 depth;        /* slices; 1 unless 3D */
    kiln_image_i32 array_size;   /* layers; 1 unless an array */
    kiln_image_u32 reserved;     /* 0 */
    kiln_image_u64 row_pitch;    /* bytes between rows (1D: width * elem_size) */
    kiln_image_u64 slice_pitch;  /* bytes between slices or layers; 0 for 1D and 2D */
};

/* The sampler's bits: OpenCL C's CLK_* values (opencl-c-base.h). */
#define KILN_SAMPLER_NORMALIZED_COORDS  0x01u /* CLK_NORMALIZED_COORDS_TRUE */
#define KILN_SAMPLER_ADDRESS_MASK       0x0eu
#define KILN_SAMPLER_ADDRESS_NONE       0x00u /* CLK_ADDRESS_NONE */
#define KILN_SAMPLER_ADDRESS_CLAMP_EDGE 0x02u /* CLK_ADDRESS_CLAMP_TO_EDGE */
#define KILN_SAMPLER_ADDRESS_CLAMP      0x04u /* CLK_ADDRESS_CLAMP */
#define KILN_SAMPLER_ADDRESS_REPEAT     0x06u /* CLK_ADDRESS_REPEAT */
#define KILN_SAMPLER_ADDRESS_MIRRORED   0x08u /* CLK_ADDRESS_MIRRORED_REPEAT */
#define KILN_SAMPLER_FILTER_MASK        0x30u
#define KILN_SAMPLER_FILTER_NEAREST     0x10u /* CLK_FILTER_NEAREST */
#define KILN_SAMPLER_FILTER_LINEAR      0x20u /* CLK_FILTER_LINEAR */

#endif
