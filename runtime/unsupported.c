/*
 * Entry points for features Kiln's device does not offer yet. Each answers what
 * the OpenCL 3.0 specification prescribes for a device without the feature (for
 * instance CL_INVALID_OPERATION from clCreateImage when no device supports images),
 * after the same handle checks a full implementation would make. docs/status.md
 * lists every one of them and why. Images are in image.c, behind KILN_IMAGES=1.
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

/* ---- samplers ----------------------------------------------------------------- */

static cl_sampler no_sampler(cl_context context, cl_int *errcode_ret)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_OPERATION, "the device does not support images");
    kiln_set_errcode(errcode_ret, err);
    return NULL;
}

cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized,
                                       cl_addressing_mode addressing, cl_filter_mode filter,
                                       cl_int *errcode_ret)
{
    (void)normalized, (void)addressing, (void)filter;
    return no_sampler(context, errcode_ret);
}

cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                     const cl_sampler_properties *properties,
                                                     cl_int *errcode_ret)
{
    (void)properties;
    return no_sampler(context, errcode_ret);
}

cl_int CL_API_CALL clRetainSampler(cl_sampler sampler)
{
    (void)sampler;
    return KILN_ERR(CL_INVALID_SAMPLER, "Kiln has no samplers yet");
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler)
{
    (void)sampler;
    return KILN_ERR(CL_INVALID_SAMPLER, "Kiln has no samplers yet");
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name, size_t size,
                                    void *value, size_t *size_ret)
{
    (void)sampler, (void)param_name, (void)size, (void)value, (void)size_ret;
    return KILN_ERR(CL_INVALID_SAMPLER, "Kiln has no samplers yet");
}
