/*
 * Entry points for features Kiln's device does not offer yet. Each answers what
 * the OpenCL 3.0 specification prescribes for a device without the feature (for
 * instance CL_INVALID_OPERATION from clCreateImage when no device supports images),
 * after the same handle checks a full implementation would make. docs/status.md
 * lists every one of them and why.
 */
#include "rt_debug.h"
#include "rt_context.h"
#include "rt_device.h"
#include "rt_mem.h"
#include "rt_queue.h"

#include <time.h>

#define NOT_YET(code, what) KILN_ERR(code, "%s is not supported by Kiln yet", what)

/* ---- host timers (real) --------------------------------------------------------- */

cl_int CL_API_CALL clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp)
{
    cl_int err = kiln_rt_check_device(device);
    if (err == CL_SUCCESS && host_timestamp == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "host_timestamp is NULL");
    if (err == CL_SUCCESS)
        *host_timestamp = kiln_rt_now_ns();
    return err;
}

cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                                           cl_ulong *host_timestamp)
{
    cl_int err = kiln_rt_check_device(device);
    if (err == CL_SUCCESS && (device_timestamp == NULL || host_timestamp == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "a timestamp pointer is NULL");
    if (err == CL_SUCCESS) {
        /* Device and host share CLOCK_MONOTONIC: the same instant on both. */
        *host_timestamp = kiln_rt_now_ns();
        *device_timestamp = *host_timestamp;
    }
    return err;
}

/* ---- images ---------------------------------------------------------------- */

static cl_mem no_image(cl_context context, cl_int *errcode_ret)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_OPERATION, "the device does not support images");
    kiln_set_errcode(errcode_ret, err);
    return NULL;
}

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                 const cl_image_format *format, const cl_image_desc *desc,
                                 void *host_ptr, cl_int *errcode_ret)
{
    (void)flags, (void)format, (void)desc, (void)host_ptr;
    return no_image(context, errcode_ret);
}

cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context,
                                               const cl_mem_properties *properties,
                                               cl_mem_flags flags, const cl_image_format *format,
                                               const cl_image_desc *desc, void *host_ptr,
                                               cl_int *errcode_ret)
{
    (void)properties, (void)flags, (void)format, (void)desc, (void)host_ptr;
    return no_image(context, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *format, size_t width, size_t height,
                                   size_t row_pitch, void *host_ptr, cl_int *errcode_ret)
{
    (void)flags, (void)format, (void)width, (void)height, (void)row_pitch, (void)host_ptr;
    return no_image(context, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *format, size_t width, size_t height,
                                   size_t depth, size_t row_pitch, size_t slice_pitch,
                                   void *host_ptr, cl_int *errcode_ret)
{
    (void)flags, (void)format, (void)width, (void)height, (void)depth, (void)row_pitch,
        (void)slice_pitch, (void)host_ptr;
    return no_image(context, errcode_ret);
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                              cl_mem_object_type type, cl_uint num_entries,
                                              cl_image_format *formats, cl_uint *num_formats)
{
    (void)flags, (void)type;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && num_entries == 0 && formats != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "num_entries is 0 and image_formats is not NULL");
    /* A device without images supports no formats: an empty list, not an error. */
    if (err == CL_SUCCESS && num_formats)
        *num_formats = 0;
    return err;
}

cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name, size_t size, void *value,
                                  size_t *size_ret)
{
    (void)param_name, (void)size, (void)value, (void)size_ret;
    cl_int err = kiln_rt_check_mem(image);
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "not an image: Kiln has no images yet");
    return err;
}

/* Every image command: the queue is checked, then no memory object can be an image. */
static cl_int no_image_cmd(cl_command_queue q)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "Kiln has no images yet");
    return err;
}

cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                      const size_t *origin, const size_t *region, size_t row,
                                      size_t slice, void *ptr, cl_uint n, const cl_event *list,
                                      cl_event *event)
{
    (void)image, (void)blocking, (void)origin, (void)region, (void)row, (void)slice, (void)ptr,
        (void)n, (void)list, (void)event;
    return no_image_cmd(q);
}

cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                       const size_t *origin, const size_t *region, size_t row,
                                       size_t slice, const void *ptr, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    (void)image, (void)blocking, (void)origin, (void)region, (void)row, (void)slice, (void)ptr,
        (void)n, (void)list, (void)event;
    return no_image_cmd(q);
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                      const size_t *src_origin, const size_t *dst_origin,
                                      const size_t *region, cl_uint n, const cl_event *list,
                                      cl_event *event)
{
    (void)src, (void)dst, (void)src_origin, (void)dst_origin, (void)region, (void)n, (void)list,
        (void)event;
    return no_image_cmd(q);
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue q, cl_mem image, const void *color,
                                      const size_t *origin, const size_t *region, cl_uint n,
                                      const cl_event *list, cl_event *event)
{
    (void)image, (void)color, (void)origin, (void)region, (void)n, (void)list, (void)event;
    return no_image_cmd(q);
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                              const size_t *origin, const size_t *region,
                                              size_t dst_offset, cl_uint n, const cl_event *list,
                                              cl_event *event)
{
    (void)src, (void)dst, (void)origin, (void)region, (void)dst_offset, (void)n, (void)list,
        (void)event;
    return no_image_cmd(q);
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                              size_t src_offset, const size_t *origin,
                                              const size_t *region, cl_uint n, const cl_event *list,
                                              cl_event *event)
{
    (void)src, (void)dst, (void)src_offset, (void)origin, (void)region, (void)n, (void)list,
        (void)event;
    return no_image_cmd(q);
}

void *CL_API_CALL clEnqueueMapImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                    cl_map_flags flags, const size_t *origin, const size_t *region,
                                    size_t *row_pitch, size_t *slice_pitch, cl_uint n,
                                    const cl_event *list, cl_event *event, cl_int *errcode_ret)
{
    (void)image, (void)blocking, (void)flags, (void)origin, (void)region, (void)row_pitch,
        (void)slice_pitch, (void)n, (void)list, (void)event;
    kiln_set_errcode(errcode_ret, no_image_cmd(q));
    return NULL;
}
