/*
 * Entry points for features Kiln's device does not offer yet. Each answers what
 * the OpenCL 3.0 specification prescribes for a device without the feature (for
 * instance CL_INVALID_OPERATION from clCreateImage when no device supports images),
 * after the same handle checks a full implementation would make. docs/status.md
 * lists every one of them and why. Images are in image.c.
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
