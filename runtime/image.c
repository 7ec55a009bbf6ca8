/*
 * Image objects and their host API (OpenCL 3.0 §5.3): clCreateImage[WithProperties],
 * clCreateImage2D/3D, clGetSupportedImageFormats, clGetImageInfo, and the image commands
 * clEnqueueRead/Write/Copy/FillImage, clEnqueueCopyImageToBuffer, clEnqueueCopyBufferToImage
 * and clEnqueueMapImage (unmapping is clEnqueueUnmapMemObject's, mem.c).
 *
 * Design (docs/images.md). An image is a memory object (struct _cl_mem) whose `image` points
 * to the descriptor kernels read (include/kiln_image.h). Host and device share memory, so an
 * image is laid out once, linearly: pixel (x, y, z) at data + x * elem_size + y * row_pitch +
 * z * slice_pitch, a 1D array's layers slice_pitch apart. A new image is tightly packed;
 * CL_MEM_USE_HOST_PTR uses the application's memory in place with the application's
 * pitches, a 1D image buffer or a 2D image from a buffer the buffer's memory, and a 2D image
 * from a 2D image that image's memory, so the descriptor always describes the real bytes
 * and mapping is zero-copy.
 *
 * Every transfer is a box of pixels in the image. It becomes the device's rectangle copy
 * (kiln_dev_rect, run by rows on the workers like clEnqueueCopyBufferRect): a box of
 * region[0] * elem_size bytes by region[1] rows by region[2] slices, whose row and slice
 * strides each side states. For a 1D array the rows are layers, so its "row" stride is its
 * slice pitch. A fill packs its colour into one pixel at enqueue, writes one row of pixels
 * and copies that row to every row of the box (a source with zero strides).
 *
 * Under KILN_IMAGES=0 (rt_device.h) the device has no images: creation answers
 * CL_INVALID_OPERATION and no format is listed, as on a device without image support.
 */
#include "rt_image.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_mem.h"
#include "rt_object.h"
#include "rt_queue.h"

#include "kiln_alloc.h"
#include "kiln_image.h"

#include <stdlib.h>
#include <string.h>

static bool is_image_type(cl_mem_object_type t)
{
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    case CL_MEM_OBJECT_IMAGE2D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE3D:
        return true;
    default:
        return false;
    }
}

static bool is_array(cl_mem_object_type t)
{
    return t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

/* Types with rows (a height). */
static bool has_rows(cl_mem_object_type t)
{
    return t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
           t == CL_MEM_OBJECT_IMAGE3D;
}

/* Types whose slice pitch means something: the slices of a 3D image, the layers of arrays. */
static bool has_slices(cl_mem_object_type t)
{
    return t == CL_MEM_OBJECT_IMAGE3D || is_array(t);
}

/* ---- creation ------------------------------------------------------------------- */

/*
 * The flags of an image (OpenCL 3.0 §5.3.1): the same rules as a buffer's; over a buffer or
 * image (`parent` not NULL) the host-pointer flags are inherited and may not be given, and
 * access and host-access flags not given are inherited and may not widen the parent's.
 */
static cl_int image_flags(cl_mem_flags flags, cl_mem parent, cl_mem_flags *out)
{
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_mem_flags host =
        CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    const cl_mem_flags ptr_flags =
        CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
    const cl_mem_flags known = access | host | ptr_flags | CL_MEM_KERNEL_READ_AND_WRITE;
    if (flags & ~known)
        return KILN_ERR(CL_INVALID_VALUE, "unknown memory flags 0x%llx", (unsigned long long)flags);
    if (__builtin_popcountll(flags & access) > 1)
        return KILN_ERR(CL_INVALID_VALUE, "more than one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    if (__builtin_popcountll(flags & host) > 1)
        return KILN_ERR(CL_INVALID_VALUE,
                        "more than one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
        return KILN_ERR(CL_INVALID_VALUE, "USE_HOST_PTR with ALLOC_HOST_PTR or COPY_HOST_PTR");
    if (parent) {
        const cl_mem_flags pf = parent->flags;
        if (flags & ptr_flags)
            return KILN_ERR(CL_INVALID_VALUE, "USE_HOST_PTR, ALLOC_HOST_PTR and COPY_HOST_PTR "
                                              "are inherited from mem_object, not given");
        if ((pf & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
            return KILN_ERR(CL_INVALID_VALUE, "mem_object is WRITE_ONLY: the image cannot read");
        if ((pf & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
            return KILN_ERR(CL_INVALID_VALUE, "mem_object is READ_ONLY: the image cannot write");
        if ((pf & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY))
            return KILN_ERR(CL_INVALID_VALUE, "mem_object is HOST_WRITE_ONLY: no host reads");
        if ((pf & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY))
            return KILN_ERR(CL_INVALID_VALUE, "mem_object is HOST_READ_ONLY: no host writes");
        if ((pf & CL_MEM_HOST_NO_ACCESS) &&
            (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
            return KILN_ERR(CL_INVALID_VALUE, "mem_object is HOST_NO_ACCESS");
        if (!(flags & access))
            flags |= pf & access;
        if (!(flags & host))
            flags |= pf & host;
        flags |= pf & ptr_flags;
    }
    if (!(flags & access))
        flags |= CL_MEM_READ_WRITE;
    *out = flags;
    return CL_SUCCESS;
}

/* An image's shape once its descriptor is checked: the kiln_image fields and the bytes. */
struct shape {
    size_t width, height, depth, layers; /* unused dimensions are 1 */
    size_t row, slice;                   /* pitches in bytes (kiln_image.h) */
    size_t bytes;                        /* spanned from the first pixel */
};

/* Whether the channel orders of a 2D image and the image it views may differ (§5.3.1): only
 * between the sRGB and linear forms of one order, and between CL_DEPTH and CL_R. */
static bool orders_compatible(cl_channel_order a, cl_channel_order b)
{
    static const cl_channel_order pairs[][2] = {
        {CL_sRGBA, CL_RGBA}, {CL_sBGRA, CL_BGRA}, {CL_sRGB, CL_RGB},
        {CL_sRGBx, CL_RGBx}, {CL_DEPTH, CL_R},
    };
    if (a == b)
        return true;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if ((a == pairs[i][0] && b == pairs[i][1]) || (a == pairs[i][1] && b == pairs[i][0]))
            return true;
    return false;
}

/*
 * Check the descriptor of an image of `elem` bytes per pixel (format known valid) and work
 * out its shape: CL_INVALID_IMAGE_DESCRIPTOR for values the specification rules out,
 * CL_INVALID_IMAGE_FORMAT_DESCRIPTOR for a 2D image over an image of an incompatible
 * format, CL_INVALID_IMAGE_SIZE for sizes past the device's limits or mem_object's bytes.
 */
static cl_int check_desc(cl_context ctx, const cl_image_format *fmt, size_t elem,
                         const cl_image_desc *d, const void *host_ptr, struct shape *s)
{
    if (!d)
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is NULL");
    const cl_mem_object_type t = d->image_type;
    const cl_mem parent = d->mem_object;
    if (!is_image_type(t))
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "image_type 0x%x is not an image type", t);
    if (d->num_mip_levels || d->num_samples)
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "num_mip_levels %u, num_samples %u (0 only)",
                        d->num_mip_levels, d->num_samples);
    if (d->image_width == 0 || (has_rows(t) && d->image_height == 0) ||
        (t == CL_MEM_OBJECT_IMAGE3D && d->image_depth == 0) ||
        (is_array(t) && d->image_array_size == 0))
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                        "width %zu, height %zu, depth %zu, array size %zu: a used dimension is 0",
                        d->image_width, d->image_height, d->image_depth, d->image_array_size);
    if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER && !parent)
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "a 1D image buffer needs a buffer");
    if (parent && t != CL_MEM_OBJECT_IMAGE1D_BUFFER && t != CL_MEM_OBJECT_IMAGE2D)
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                        "mem_object given for an image type other than 1D buffer and 2D");
    if (parent) {
        if (!kiln_rt_obj_is(parent, KILN_TAG_MEM))
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "mem_object is not a memory object");
        if (parent->context != ctx)
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "mem_object is of another context");
        const bool buffer = parent->type == CL_MEM_OBJECT_BUFFER;
        if (!buffer && !(t == CL_MEM_OBJECT_IMAGE2D && parent->type == CL_MEM_OBJECT_IMAGE2D))
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR, "mem_object must be a buffer%s",
                            t == CL_MEM_OBJECT_IMAGE2D ? " or a 2D image" : "");
    }

    *s = (struct shape){d->image_width, 1, 1, 1, 0, 0, 0};
    if (has_rows(t))
        s->height = d->image_height;
    if (t == CL_MEM_OBJECT_IMAGE3D)
        s->depth = d->image_depth;
    if (is_array(t))
        s->layers = d->image_array_size;

    /* Limits: CL_DEVICE_IMAGE2D_MAX_* for 1D and 2D widths too, as the CTS reads them. */
    const size_t wmax = t == CL_MEM_OBJECT_IMAGE3D          ? KILN_RT_IMAGE3D_MAX
                        : t == CL_MEM_OBJECT_IMAGE1D_BUFFER ? kiln_rt_image_max_buffer(ctx->device)
                                                            : KILN_RT_IMAGE2D_MAX;
    const size_t hmax = t == CL_MEM_OBJECT_IMAGE3D ? KILN_RT_IMAGE3D_MAX : KILN_RT_IMAGE2D_MAX;
    if (s->width > wmax || s->height > hmax || s->depth > KILN_RT_IMAGE3D_MAX ||
        s->layers > KILN_RT_IMAGE_MAX_ARRAY)
        return KILN_ERR(CL_INVALID_IMAGE_SIZE,
                        "%zu x %zu x %zu, %zu layers: above the device's limits (width %zu, "
                        "height %zu, depth %zu, %zu layers)",
                        s->width, s->height, s->depth, s->layers, wmax, hmax, KILN_RT_IMAGE3D_MAX,
                        KILN_RT_IMAGE_MAX_ARRAY);

    const size_t tight_row = s->width * elem;
    const size_t row_in = d->image_row_pitch, slice_in = d->image_slice_pitch;
    if (parent && parent->type != CL_MEM_OBJECT_BUFFER) {
        /* A 2D image over a 2D image: the same pixels, other channel order at most. */
        const struct kiln_image *src = parent->image;
        if (src->data_type != fmt->image_channel_data_type ||
            !orders_compatible(src->order, fmt->image_channel_order))
            return KILN_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                            "the format is not compatible with mem_object's (order 0x%x, type "
                            "0x%x)",
                            src->order, src->data_type);
        if ((size_t)src->width != s->width || (size_t)src->height != s->height ||
            (row_in && row_in != src->row_pitch))
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                            "width, height or row pitch differ from mem_object's (%d x %d, row "
                            "pitch %llu)",
                            src->width, src->height, (unsigned long long)src->row_pitch);
        s->row = src->row_pitch;
        s->bytes = parent->size;
        return CL_SUCCESS;
    }
    if (!host_ptr && !parent && (row_in || slice_in))
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                        "row pitch %zu, slice pitch %zu: both must be 0 without host_ptr", row_in,
                        slice_in);
    if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        if (tight_row > parent->size)
            return KILN_ERR(CL_INVALID_IMAGE_SIZE,
                            "%zu pixels of %zu bytes do not fit the buffer's %zu bytes", s->width,
                            elem, parent->size);
        s->row = tight_row;
        s->bytes = tight_row;
        return CL_SUCCESS;
    }
    if (parent) { /* a 2D image from a buffer (cl_khr_image2d_from_buffer) */
        const size_t align = KILN_RT_IMAGE_PITCH_ALIGNMENT * elem;
        s->row = row_in ? row_in : tight_row;
        if (s->row < tight_row || s->row % align)
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                            "row pitch %zu: less than width * %zu or not a multiple of "
                            "CL_DEVICE_IMAGE_PITCH_ALIGNMENT pixels (%zu bytes)",
                            s->row, elem, align);
        if (s->row * s->height > parent->size)
            return KILN_ERR(CL_INVALID_IMAGE_SIZE,
                            "row pitch %zu x height %zu is more than the buffer's %zu bytes",
                            s->row, s->height, parent->size);
        s->bytes = s->row * s->height;
        return CL_SUCCESS;
    }
    /* Over the application's memory (USE_HOST_PTR, COPY_HOST_PTR) or a new allocation. */
    s->row = row_in ? row_in : tight_row;
    if (s->row < tight_row || s->row % elem)
        return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                        "row pitch %zu: less than width * element size (%zu) or not a multiple "
                        "of the element size %zu",
                        s->row, tight_row, elem);
    if (has_slices(t)) {
        const size_t min_slice = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? s->row : s->row * s->height;
        s->slice = slice_in ? slice_in : min_slice;
        if (s->slice < min_slice || s->slice % s->row)
            return KILN_ERR(CL_INVALID_IMAGE_DESCRIPTOR,
                            "slice pitch %zu: less than %zu or not a multiple of the row pitch "
                            "%zu",
                            s->slice, min_slice, s->row);
        s->bytes = s->slice * (t == CL_MEM_OBJECT_IMAGE3D ? s->depth : s->layers);
    } else {
        s->bytes = s->row * s->height;
    }
    if (s->bytes > ctx->device->max_alloc)
        return KILN_ERR(CL_INVALID_IMAGE_SIZE, "%zu bytes, above CL_DEVICE_MAX_MEM_ALLOC_SIZE",
                        s->bytes);
    return CL_SUCCESS;
}

/* Copy `s`'s pixels from the application's layout at src (pitches `in`) into dst (tight). */
static void copy_in(unsigned char *dst, const struct shape *tight, const unsigned char *src,
                    const struct shape *in, size_t elem, cl_mem_object_type t)
{
    const size_t rows = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : tight->height;
    const size_t slices = t == CL_MEM_OBJECT_IMAGE3D ? tight->depth : tight->layers;
    for (size_t z = 0; z < slices; z++)
        for (size_t y = 0; y < rows; y++)
            memcpy(dst + z * tight->slice + y * tight->row, src + z * in->slice + y * in->row,
                   tight->width * elem);
}

/*
 * Make the image object once everything is checked: `flags` effective, `s` its shape over
 * host_ptr (USE_HOST_PTR) or mem_object, else tightly packed in a new allocation (filled
 * from host_ptr under COPY_HOST_PTR). CL_OUT_OF_HOST_MEMORY or
 * CL_MEM_OBJECT_ALLOCATION_FAILURE.
 */
static cl_int image_create(cl_context ctx, cl_mem_flags flags, const struct kiln_rt_format *f,
                           const cl_image_desc *d, void *host_ptr, struct shape s, cl_mem *out)
{
    const cl_mem_object_type t = d->image_type;
    const cl_mem parent = d->mem_object;
    struct kiln_image *img = kiln_calloc(1, sizeof(*img));
    if (!img)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "image descriptor");
    const struct shape given = s;
    /* An image over mem_object inherits COPY_HOST_PTR but copies nothing. */
    const bool copy = !parent && (flags & CL_MEM_COPY_HOST_PTR);
    if (!parent && !(flags & CL_MEM_USE_HOST_PTR)) {
        /* A new allocation is tightly packed whatever pitches host_ptr came with. */
        s.row = s.width * f->elem_size;
        if (has_slices(t)) {
            s.slice = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? s.row : s.row * s.height;
            s.bytes = s.slice * (t == CL_MEM_OBJECT_IMAGE3D ? s.depth : s.layers);
        } else {
            s.bytes = s.row * s.height;
        }
    }
    cl_mem m = NULL;
    cl_int err;
    if (parent) /* the parent's bytes, as USE_HOST_PTR would take them */
        err = kiln_rt_mem_create(ctx, t, CL_MEM_USE_HOST_PTR, s.bytes, parent->data, &m);
    else
        err = kiln_rt_mem_create(ctx, t, flags & ~(cl_mem_flags)CL_MEM_COPY_HOST_PTR, s.bytes,
                                 flags & CL_MEM_USE_HOST_PTR ? host_ptr : NULL, &m);
    if (err != CL_SUCCESS) {
        free(img);
        return err;
    }
    m->flags = flags;
    if (parent) {
        m->parent = parent; /* an image over a buffer or image holds it (STYLE H5) */
        kiln_rt_obj_hold(&parent->obj);
        m->host_ptr = parent->host_ptr;
    }
    if (copy)
        copy_in(m->data, &s, host_ptr, &given, f->elem_size, t);
    img->data = m->data;
    img->type = t;
    img->order = f->order;
    img->data_type = f->type;
    img->elem_size = f->elem_size;
    img->num_channels = f->num_channels;
    img->width = (kiln_image_i32)s.width;
    img->height = (kiln_image_i32)s.height;
    img->depth = (kiln_image_i32)s.depth;
    img->array_size = (kiln_image_i32)s.layers;
    img->row_pitch = s.row;
    img->slice_pitch = has_slices(t) ? s.slice : 0;
    m->image = img;
    KILN_LOG(KILN_DBG_MEM, "image %p: type 0x%x, %zu x %zu x %zu, %zu layers, order 0x%x type 0x%x",
             (void *)m, t, s.width, s.height, s.depth, s.layers, f->order, f->type);
    *out = m;
    return CL_SUCCESS;
}

/* Every creation entry point after its own arguments: properties may be NULL. */
static cl_mem create_image(cl_context ctx, const cl_mem_properties *props, bool has_props,
                           cl_mem_flags flags, const cl_image_format *fmt, const cl_image_desc *d,
                           void *host_ptr, cl_int *errcode_ret)
{
    cl_mem mem = NULL;
    const struct kiln_rt_format *f = NULL;
    struct shape s = {0};
    cl_int err = kiln_rt_check_context(ctx);
    if (err == CL_SUCCESS && !kiln_rt_images_enabled())
        err = KILN_ERR(CL_INVALID_OPERATION, "the device does not support images");
    /* OpenCL 3.0 defines no image property Kiln supports: only an empty list is valid. */
    if (err == CL_SUCCESS && props && props[0] != 0)
        err = KILN_ERR(CL_INVALID_PROPERTY, "unknown image property 0x%llx",
                       (unsigned long long)props[0]);
    cl_mem parent = d && kiln_rt_obj_is(d->mem_object, KILN_TAG_MEM) ? d->mem_object : NULL;
    /* The host-pointer checks are of the flags given: a parent's are inherited after them. */
    const bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
    if (err == CL_SUCCESS)
        err = image_flags(flags, parent, &flags);
    if (err == CL_SUCCESS && (!fmt || !kiln_rt_format_valid(fmt)))
        err = fmt ? KILN_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                             "channel order 0x%x with data type 0x%x", fmt->image_channel_order,
                             fmt->image_channel_data_type)
                  : KILN_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "image_format is NULL");
    if (err == CL_SUCCESS) {
        f = kiln_rt_format_find(fmt);
        /* A valid pair Kiln lacks is checked as if of 4-byte pixels: the descriptor's
         * errors come before CL_IMAGE_FORMAT_NOT_SUPPORTED (§5.3.1). */
        err = check_desc(ctx, fmt, f ? f->elem_size : 4, d, host_ptr, &s);
    }
    if (err == CL_SUCCESS) {
        if (wants_ptr && !host_ptr)
            err = KILN_ERR(CL_INVALID_HOST_PTR, "USE_HOST_PTR or COPY_HOST_PTR with a NULL "
                                                "host_ptr");
        else if (!wants_ptr && host_ptr)
            err = KILN_ERR(CL_INVALID_HOST_PTR,
                           "host_ptr given without USE_HOST_PTR or COPY_HOST_PTR");
        else if (parent && host_ptr)
            err = KILN_ERR(CL_INVALID_HOST_PTR, "host_ptr given with mem_object");
    }
    if (err == CL_SUCCESS) {
        cl_image_format list[128];
        unsigned n = kiln_rt_format_list(flags, d->image_type, list, 128);
        bool listed = false;
        for (unsigned i = 0; f && i < n; i++)
            listed |= list[i].image_channel_order == f->order &&
                      list[i].image_channel_data_type == f->type;
        if (!listed)
            err = KILN_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED,
                           "channel order 0x%x, data type 0x%x for image type 0x%x with flags "
                           "0x%llx",
                           fmt->image_channel_order, fmt->image_channel_data_type, d->image_type,
                           (unsigned long long)flags);
    }
    if (err == CL_SUCCESS)
        err = image_create(ctx, flags, f, d, host_ptr, s, &mem);
    if (err == CL_SUCCESS)
        mem->has_props = has_props;
    kiln_set_errcode(errcode_ret, err);
    return mem;
}

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                 const cl_image_format *format, const cl_image_desc *desc,
                                 void *host_ptr, cl_int *errcode_ret)
{
    return create_image(context, NULL, false, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context,
                                               const cl_mem_properties *properties,
                                               cl_mem_flags flags, const cl_image_format *format,
                                               const cl_image_desc *desc, void *host_ptr,
                                               cl_int *errcode_ret)
{
    return create_image(context, properties, properties != NULL, flags, format, desc, host_ptr,
                        errcode_ret);
}

/* The OpenCL 1.1 entry points, deprecated: a descriptor of the same image. */
cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *format, size_t width, size_t height,
                                   size_t row_pitch, void *host_ptr, cl_int *errcode_ret)
{
    cl_image_desc d = {0};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = width;
    d.image_height = height;
    d.image_row_pitch = row_pitch;
    return create_image(context, NULL, false, flags, format, &d, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *format, size_t width, size_t height,
                                   size_t depth, size_t row_pitch, size_t slice_pitch,
                                   void *host_ptr, cl_int *errcode_ret)
{
    cl_image_desc d = {0};
    d.image_type = CL_MEM_OBJECT_IMAGE3D;
    d.image_width = width;
    d.image_height = height;
    d.image_depth = depth;
    d.image_row_pitch = row_pitch;
    d.image_slice_pitch = slice_pitch;
    return create_image(context, NULL, false, flags, format, &d, host_ptr, errcode_ret);
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                              cl_mem_object_type type, cl_uint num_entries,
                                              cl_image_format *formats, cl_uint *num_formats)
{
    const cl_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |
                               CL_MEM_KERNEL_READ_AND_WRITE | CL_MEM_HOST_WRITE_ONLY |
                               CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_USE_HOST_PTR |
                               CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (flags & ~known))
        err = KILN_ERR(CL_INVALID_VALUE, "unknown memory flags 0x%llx", (unsigned long long)flags);
    if (err == CL_SUCCESS && kiln_rt_images_enabled() && !is_image_type(type))
        err = KILN_ERR(CL_INVALID_VALUE, "image_type 0x%x is not an image type", type);
    if (err == CL_SUCCESS && num_entries == 0 && formats != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "num_entries is 0 and image_formats is not NULL");
    if (err != CL_SUCCESS)
        return err;
    /* A device without images supports no formats: an empty list, not an error. */
    unsigned n = 0;
    if (kiln_rt_images_enabled()) {
        /* No access flag means CL_MEM_READ_WRITE (§5.3.2). */
        if (!(flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |
                       CL_MEM_KERNEL_READ_AND_WRITE)))
            flags |= CL_MEM_READ_WRITE;
        n = kiln_rt_format_list(flags, type, formats, formats ? num_entries : 0);
    }
    if (num_formats)
        *num_formats = n;
    return CL_SUCCESS;
}

/* ---- queries -------------------------------------------------------------------- */

cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name, size_t size, void *value,
                                  size_t *size_ret)
{
    cl_int err = kiln_rt_check_mem(image);
    if (err == CL_SUCCESS && !image->image)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "not an image");
    if (err != CL_SUCCESS)
        return err;
    const struct kiln_image *img = image->image;
    const cl_mem_object_type t = image->type;
    size_t z;
    cl_uint u = 0;
    switch (param_name) {
    case CL_IMAGE_FORMAT: {
        const cl_image_format f = {img->order, img->data_type};
        return kiln_rt_info(&f, sizeof(f), size, value, size_ret);
    }
    case CL_IMAGE_ELEMENT_SIZE:
        z = img->elem_size;
        break;
    case CL_IMAGE_ROW_PITCH:
        z = (size_t)img->row_pitch;
        break;
    case CL_IMAGE_SLICE_PITCH:
        z = (size_t)img->slice_pitch;
        break;
    case CL_IMAGE_WIDTH:
        z = (size_t)img->width;
        break;
    case CL_IMAGE_HEIGHT: /* 0 for the types without rows (§5.3.7) */
        z = has_rows(t) ? (size_t)img->height : 0;
        break;
    case CL_IMAGE_DEPTH:
        z = t == CL_MEM_OBJECT_IMAGE3D ? (size_t)img->depth : 0;
        break;
    case CL_IMAGE_ARRAY_SIZE:
        z = is_array(t) ? (size_t)img->array_size : 0;
        break;
    case CL_IMAGE_BUFFER: {
        /* The buffer a 1D image buffer or 2D image was made from, else NULL. */
        cl_mem buf =
            image->parent && image->parent->type == CL_MEM_OBJECT_BUFFER ? image->parent : NULL;
        return kiln_rt_info(&buf, sizeof(buf), size, value, size_ret);
    }
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES:
        return kiln_rt_info(&u, sizeof(u), size, value, size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown image query 0x%x", param_name);
    }
    return kiln_rt_info(&z, sizeof(z), size, value, size_ret);
}

/* ---- commands ------------------------------------------------------------------- */

/* One side of a transfer: the box's first byte, and the strides of region[1] and [2]. */
struct side {
    unsigned char *base;
    size_t row, slice;
};

static cl_int check_image_in_queue(cl_command_queue q, cl_mem m, const char *what)
{
    cl_int err = kiln_rt_check_mem(m);
    if (err == CL_SUCCESS && !m->image)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "%s is not an image", what);
    if (err == CL_SUCCESS && m->context != q->context)
        err = KILN_ERR(CL_INVALID_CONTEXT, "%s and the queue have different contexts", what);
    return err;
}

static cl_int check_buffer_in_queue(cl_command_queue q, cl_mem m, const char *what)
{
    cl_int err = kiln_rt_check_mem(m);
    if (err == CL_SUCCESS && m->type != CL_MEM_OBJECT_BUFFER)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "%s is not a buffer", what);
    if (err == CL_SUCCESS && m->context != q->context)
        err = KILN_ERR(CL_INVALID_CONTEXT, "%s and the queue have different contexts", what);
    return err;
}

/*
 * Check a box of pixels (origin, region as the image commands take them: region[1] counts
 * the layers of a 1D array, region[2] those of a 2D array) against image `m` and describe it:
 * CL_INVALID_VALUE for a NULL pointer, a zero extent, or a box that leaves the image or uses
 * a dimension the type lacks (§5.3.3).
 */
static cl_int image_box(cl_mem m, const size_t *origin, const size_t *region, const char *what,
                        struct side *out)
{
    const struct kiln_image *img = m->image;
    const cl_mem_object_type t = m->type;
    if (!origin || !region)
        return KILN_ERR(CL_INVALID_VALUE, "%s origin %p or region %p is NULL", what,
                        (const void *)origin, (const void *)region);
    if (region[0] == 0 || region[1] == 0 || region[2] == 0)
        return KILN_ERR(CL_INVALID_VALUE, "region {%zu, %zu, %zu} has a zero extent", region[0],
                        region[1], region[2]);
    size_t lim[3] = {(size_t)img->width, 1, 1};
    if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY)
        lim[1] = (size_t)img->array_size;
    else if (has_rows(t))
        lim[1] = (size_t)img->height;
    if (t == CL_MEM_OBJECT_IMAGE3D)
        lim[2] = (size_t)img->depth;
    else if (t == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        lim[2] = (size_t)img->array_size;
    for (int i = 0; i < 3; i++)
        if (origin[i] >= lim[i] || region[i] > lim[i] - origin[i])
            return KILN_ERR(CL_INVALID_VALUE,
                            "%s box: origin {%zu, %zu, %zu} region {%zu, %zu, %zu} leaves the "
                            "image's {%zu, %zu, %zu}",
                            what, origin[0], origin[1], origin[2], region[0], region[1], region[2],
                            lim[0], lim[1], lim[2]);
    out->row = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? (size_t)img->slice_pitch : (size_t)img->row_pitch;
    out->slice = (size_t)img->slice_pitch;
    out->base =
        img->data + origin[0] * img->elem_size + origin[1] * out->row + origin[2] * out->slice;
    return CL_SUCCESS;
}

/*
 * The host side of a read or write of a box of `m` (§5.3.3): row pitch 0 is tight, else at
 * least region[0] pixels; the slice pitch (for a 1D array, the layer pitch) 0 is tight, else
 * at least one slice, and must be 0 for 1D and 2D images. CL_INVALID_VALUE.
 */
static cl_int host_box(cl_mem m, void *ptr, const size_t *region, size_t row, size_t slice,
                       struct side *out)
{
    const cl_mem_object_type t = m->type;
    const size_t tight = region[0] * m->image->elem_size;
    if (!ptr)
        return KILN_ERR(CL_INVALID_VALUE, "ptr is NULL");
    if (row == 0)
        row = tight;
    else if (row < tight)
        return KILN_ERR(CL_INVALID_VALUE, "row pitch %zu is less than region[0] * %u bytes", row,
                        m->image->elem_size);
    if (!has_slices(t) && slice != 0)
        return KILN_ERR(CL_INVALID_VALUE, "slice pitch %zu for a 1D or 2D image (0 only)", slice);
    const size_t min_slice = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row : row * region[1];
    if (slice == 0)
        slice = min_slice;
    else if (slice < min_slice)
        return KILN_ERR(CL_INVALID_VALUE, "slice pitch %zu is less than %zu", slice, min_slice);
    out->base = ptr;
    out->row = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice : row;
    out->slice = slice;
    return CL_SUCCESS;
}

/* The host-access flags of `m` allow a read (to_host) or a write: else CL_INVALID_OPERATION. */
static cl_int check_host_access(cl_mem m, bool to_host)
{
    const cl_mem_flags denied = to_host ? CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS
                                        : CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    if (m->flags & denied)
        return KILN_ERR(CL_INVALID_OPERATION, "the image's host-access flags forbid a %s",
                        to_host ? "read" : "write");
    return CL_SUCCESS;
}

/*
 * Submit the rectangle copy of `region` pixels of `elem` bytes from src to dst, holding
 * mem_a and mem_b (either may be NULL) until it completes; `owned` (malloc'd, or NULL) is
 * freed with the command. Takes `owned` whatever happens.
 */
static cl_int submit_box(cl_command_queue q, cl_command_type type, const struct side *dst,
                         const struct side *src, const size_t *region, size_t elem, cl_mem mem_a,
                         cl_mem mem_b, void *owned, cl_bool blocking, cl_uint n,
                         const cl_event *list, cl_event *event)
{
    struct kiln_rt_command *cmd = NULL;
    cl_int err = kiln_rt_command_create(q, KILN_CMD_RECT, type, &cmd);
    if (err != CL_SUCCESS) {
        free(owned);
        return err;
    }
    cmd->owned = owned;
    struct kiln_dev_rect *r = &cmd->u.rect;
    r->dst = dst->base;
    r->src = src->base;
    r->region[0] = region[0] * elem;
    r->region[1] = region[1];
    r->region[2] = region[2];
    r->dst_row = dst->row;
    r->dst_slice = dst->slice;
    r->src_row = src->row;
    r->src_slice = src->slice;
    kiln_rt_command_hold(cmd, mem_a, mem_b);
    return kiln_rt_command_submit(cmd, n, list, event, blocking);
}

/* clEnqueueReadImage (to_host) and clEnqueueWriteImage. */
static cl_int image_io(cl_command_queue q, cl_mem image, bool to_host, cl_bool blocking,
                       const size_t *origin, const size_t *region, size_t row, size_t slice,
                       void *ptr, cl_uint n, const cl_event *list, cl_event *event)
{
    struct side is, hs;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, image, "image");
    if (err == CL_SUCCESS)
        err = image_box(image, origin, region, "image", &is);
    if (err == CL_SUCCESS)
        err = host_box(image, ptr, region, row, slice, &hs);
    if (err == CL_SUCCESS)
        err = check_host_access(image, to_host);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS && to_host)
        err = submit_box(q, CL_COMMAND_READ_IMAGE, &hs, &is, region, image->image->elem_size, image,
                         NULL, NULL, blocking, n, list, event);
    else if (err == CL_SUCCESS)
        err = submit_box(q, CL_COMMAND_WRITE_IMAGE, &is, &hs, region, image->image->elem_size,
                         image, NULL, NULL, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                      const size_t *origin, const size_t *region, size_t row,
                                      size_t slice, void *ptr, cl_uint n, const cl_event *list,
                                      cl_event *event)
{
    return image_io(q, image, true, blocking, origin, region, row, slice, ptr, n, list, event);
}

cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                       const size_t *origin, const size_t *region, size_t row,
                                       size_t slice, const void *ptr, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    return image_io(q, image, false, blocking, origin, region, row, slice, (void *)ptr, n, list,
                    event);
}

/* Whether two boxes of one image, at origins a and b of the same region, share a pixel. */
static bool boxes_overlap(const size_t *a, const size_t *b, const size_t *region)
{
    for (int i = 0; i < 3; i++)
        if ((a[i] < b[i] ? b[i] - a[i] : a[i] - b[i]) >= region[i])
            return false;
    return true;
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                      const size_t *src_origin, const size_t *dst_origin,
                                      const size_t *region, cl_uint n, const cl_event *list,
                                      cl_event *event)
{
    struct side ss, ds;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, src, "src_image");
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, dst, "dst_image");
    if (err == CL_SUCCESS &&
        (src->image->order != dst->image->order || src->image->data_type != dst->image->data_type))
        err = KILN_ERR(CL_IMAGE_FORMAT_MISMATCH, "the images' formats differ");
    if (err == CL_SUCCESS)
        err = image_box(src, src_origin, region, "source", &ss);
    if (err == CL_SUCCESS)
        err = image_box(dst, dst_origin, region, "destination", &ds);
    if (err == CL_SUCCESS && src == dst && boxes_overlap(src_origin, dst_origin, region))
        err = KILN_ERR(CL_MEM_COPY_OVERLAP, "source and destination boxes of one image overlap");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_box(q, CL_COMMAND_COPY_IMAGE, &ds, &ss, region, src->image->elem_size, src,
                         dst, NULL, CL_FALSE, n, list, event);
    return err;
}

/* The tightly packed box of `region` pixels at byte `offset` of `buffer`: CL_INVALID_VALUE
 * when it runs past the end. */
static cl_int buffer_box(cl_mem buffer, size_t offset, const size_t *region, size_t elem,
                         struct side *out)
{
    const size_t row = region[0] * elem, slice = row * region[1];
    const size_t bytes = slice * region[2];
    if (offset > buffer->size || bytes > buffer->size - offset)
        return KILN_ERR(CL_INVALID_VALUE, "offset %zu + %zu bytes exceeds the buffer's %zu bytes",
                        offset, bytes, buffer->size);
    out->base = buffer->data + offset;
    out->row = row;
    out->slice = slice;
    return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                              const size_t *origin, const size_t *region,
                                              size_t dst_offset, cl_uint n, const cl_event *list,
                                              cl_event *event)
{
    struct side is, bs;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, src, "src_image");
    if (err == CL_SUCCESS)
        err = check_buffer_in_queue(q, dst, "dst_buffer");
    if (err == CL_SUCCESS && src->parent == dst)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "src_image was created from dst_buffer");
    if (err == CL_SUCCESS)
        err = image_box(src, origin, region, "source", &is);
    if (err == CL_SUCCESS)
        err = buffer_box(dst, dst_offset, region, src->image->elem_size, &bs);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_box(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, &bs, &is, region,
                         src->image->elem_size, src, dst, NULL, CL_FALSE, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                              size_t src_offset, const size_t *origin,
                                              const size_t *region, cl_uint n, const cl_event *list,
                                              cl_event *event)
{
    struct side bs, is;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_buffer_in_queue(q, src, "src_buffer");
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, dst, "dst_image");
    if (err == CL_SUCCESS && dst->parent == src)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "dst_image was created from src_buffer");
    if (err == CL_SUCCESS)
        err = image_box(dst, origin, region, "destination", &is);
    if (err == CL_SUCCESS)
        err = buffer_box(src, src_offset, region, dst->image->elem_size, &bs);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_box(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, &is, &bs, region,
                         dst->image->elem_size, src, dst, NULL, CL_FALSE, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue q, cl_mem image, const void *color,
                                      const size_t *origin, const size_t *region, cl_uint n,
                                      const cl_event *list, cl_event *event)
{
    struct side is;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, image, "image");
    if (err == CL_SUCCESS && !color)
        err = KILN_ERR(CL_INVALID_VALUE, "fill_color is NULL");
    if (err == CL_SUCCESS)
        err = image_box(image, origin, region, "image", &is);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err != CL_SUCCESS)
        return err;
    const struct kiln_image *img = image->image;
    const cl_image_format fmt = {img->order, img->data_type};
    const struct kiln_rt_format *f = kiln_rt_format_find(&fmt);
    /* One row of the fill colour: the source of every row of the box (zero strides). */
    unsigned char *row = kiln_malloc(region[0] * img->elem_size);
    if (!row)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "a row of %zu pixels", region[0]);
    kiln_rt_format_pack(f, color, row);
    for (size_t x = 1; x < region[0]; x++)
        memcpy(row + x * img->elem_size, row, img->elem_size);
    const struct side rs = {row, 0, 0};
    return submit_box(q, CL_COMMAND_FILL_IMAGE, &is, &rs, region, img->elem_size, image, NULL, row,
                      CL_FALSE, n, list, event);
}

void *CL_API_CALL clEnqueueMapImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                    cl_map_flags flags, const size_t *origin, const size_t *region,
                                    size_t *row_pitch, size_t *slice_pitch, cl_uint n,
                                    const cl_event *list, cl_event *event, cl_int *errcode_ret)
{
    void *ptr = NULL;
    struct side is;
    struct kiln_rt_mapping *map = NULL;
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = check_image_in_queue(q, image, "image");
    if (err == CL_SUCCESS && (flags & ~known || ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                                                 (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        err = KILN_ERR(CL_INVALID_VALUE, "map flags 0x%llx", (unsigned long long)flags);
    if (err == CL_SUCCESS)
        err = image_box(image, origin, region, "image", &is);
    if (err == CL_SUCCESS && !row_pitch)
        err = KILN_ERR(CL_INVALID_VALUE, "image_row_pitch is NULL");
    if (err == CL_SUCCESS && !slice_pitch && has_slices(image->type))
        err = KILN_ERR(CL_INVALID_VALUE, "image_slice_pitch is NULL for a 3D image or an array");
    if (err == CL_SUCCESS && (flags & CL_MAP_READ))
        err = check_host_access(image, true);
    if (err == CL_SUCCESS && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)))
        err = check_host_access(image, false);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS) {
        map = kiln_calloc(1, sizeof(*map));
        if (!map)
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "mapping record");
    }
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_MAP, CL_COMMAND_MAP_IMAGE, &cmd);
    if (err == CL_SUCCESS) {
        /* Zero-copy: the box's first pixel, with the image's own pitches. */
        ptr = is.base;
        map->ptr = ptr;
        map->offset = (size_t)(is.base - image->data);
        map->size = is.slice * (region[2] - 1) + is.row * (region[1] - 1) +
                    region[0] * image->image->elem_size;
        map->flags = flags;
        pthread_mutex_lock(&image->lock);
        map->next = image->maps;
        image->maps = map;
        pthread_mutex_unlock(&image->lock);
        map = NULL;
        atomic_fetch_add_explicit(&image->map_count, 1, memory_order_relaxed);
        *row_pitch = (size_t)image->image->row_pitch;
        if (slice_pitch)
            *slice_pitch = (size_t)image->image->slice_pitch;
        cmd->mems[0] = image;
        kiln_rt_obj_hold(&image->obj);
        err = kiln_rt_command_submit(cmd, n, list, event, blocking);
    }
    free(map);
    if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        ptr = NULL;
    kiln_set_errcode(errcode_ret, err);
    return ptr;
}
