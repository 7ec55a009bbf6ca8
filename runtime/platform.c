/*
 * The platform: one per process, static, never destroyed (clGetPlatformIDs,
 * clGetPlatformInfo, clUnloadPlatformCompiler).
 */
#include "rt_device.h"
#include "rt_debug.h"
#include "rt_info.h"
#include "rt_object.h"

#include "kiln_rt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kiln_device.h"

#define KILN_PLATFORM_NAME "Kiln"

struct _cl_platform_id kiln_rt_platform;

static const cl_name_version platform_exts[] = {
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_extended_versioning"},
};

void kiln_rt_init(const cl_icd_dispatch *dispatch)
{
    kiln_rt_dispatch = dispatch;
    kiln_rt_obj_init(&kiln_rt_platform.obj, KILN_TAG_PLATFORM, NULL);

    const struct kiln_cpu_info *cpu = kiln_cpu_info_get();
    struct _cl_device_id *d = &kiln_rt_device;
    kiln_rt_obj_init(&d->obj, KILN_TAG_DEVICE, NULL);
    d->platform = &kiln_rt_platform;
    d->compute_units = cpu->physical_cores ? cpu->physical_cores : 1;
    static unsigned all_cores[KILN_CPU_MAX_CORES];
    for (unsigned i = 0; i < d->compute_units; i++)
        all_cores[i] = i;
    d->cores = all_cores;
    d->global_mem_size = cpu->global_mem_size;
    /* OpenCL 3.0 §4.2: at least max(1/4 of global memory, 128 MiB). */
    d->max_alloc = d->global_mem_size / 4;
    if (d->max_alloc < (128u << 20))
        d->max_alloc = 128u << 20;
    d->local_mem_size = 64 * 1024;
    d->ops = &kiln_cpu_ops;
    d->dev = d->ops->root((size_t)d->local_mem_size);
    d->max_wg_size = 4096;
    snprintf(d->name, sizeof(d->name), "%s", cpu->name[0] ? cpu->name : "CPU");
    snprintf(d->vendor, sizeof(d->vendor), "%s", cpu->vendor[0] ? cpu->vendor : "Kiln");
}

cl_int kiln_rt_check_platform(cl_platform_id p)
{
    /* NULL selects Kiln's platform: the behaviour OpenCL 3.0 §4.1 leaves to the implementation. */
    if (p == NULL || p == &kiln_rt_platform)
        return CL_SUCCESS;
    return KILN_ERR(CL_INVALID_PLATFORM, "%p is not Kiln's platform", (void *)p);
}

cl_ulong kiln_rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}

cl_int kiln_rt_platform_ids(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
        return KILN_ERR(CL_INVALID_VALUE, "num_entries %u with platforms %p, num_platforms %p",
                        num_entries, (void *)platforms, (void *)num_platforms);
    if (platforms)
        platforms[0] = &kiln_rt_platform;
    if (num_platforms)
        *num_platforms = 1;
    return CL_SUCCESS;
}

cl_int kiln_rt_platform_is(cl_platform_id p)
{
    if (p != &kiln_rt_platform)
        return KILN_ERR(CL_INVALID_PLATFORM, "%p is not Kiln's platform", (void *)p);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                    cl_uint *num_platforms)
{
    return kiln_rt_platform_ids(num_entries, platforms, num_platforms);
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                     size_t param_value_size, void *param_value,
                                     size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_platform(platform);
    if (err != CL_SUCCESS)
        return err;
    const void *v = NULL;
    size_t n = 0;
    cl_version ver = CL_MAKE_VERSION(3, 0, 0);
    cl_ulong timer_res = 1;
    char ext[256] = "";
    switch (param_name) {
    case CL_PLATFORM_PROFILE:
        return kiln_rt_info_str("FULL_PROFILE", param_value_size, param_value,
                                param_value_size_ret);
    case CL_PLATFORM_VERSION:
        return kiln_rt_info_str("OpenCL 3.0 Kiln " KILN_RT_VERSION, param_value_size, param_value,
                                param_value_size_ret);
    case CL_PLATFORM_NAME:
        return kiln_rt_info_str(KILN_PLATFORM_NAME, param_value_size, param_value,
                                param_value_size_ret);
    case CL_PLATFORM_VENDOR:
        return kiln_rt_info_str("Kiln", param_value_size, param_value, param_value_size_ret);
    case CL_PLATFORM_ICD_SUFFIX_KHR:
        return kiln_rt_info_str("Kiln", param_value_size, param_value, param_value_size_ret);
    case CL_PLATFORM_EXTENSIONS:
        for (size_t i = 0; i < sizeof(platform_exts) / sizeof(platform_exts[0]); i++) {
            if (i)
                strcat(ext, " ");
            strcat(ext, platform_exts[i].name);
        }
        return kiln_rt_info_str(ext, param_value_size, param_value, param_value_size_ret);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
        v = platform_exts;
        n = sizeof(platform_exts);
        break;
    case CL_PLATFORM_NUMERIC_VERSION:
        v = &ver;
        n = sizeof(ver);
        break;
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
        v = &timer_res;
        n = sizeof(timer_res);
        break;
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown platform query 0x%x", param_name);
    }
    return kiln_rt_info(v, n, param_value_size, param_value, param_value_size_ret);
}

cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform)
{
    if (platform == NULL)
        return KILN_ERR(CL_INVALID_PLATFORM, "platform is NULL");
    /* The compiler library stays loaded: unloading is a hint (OpenCL 3.0 §5.8.6). */
    return kiln_rt_check_platform(platform);
}

cl_int CL_API_CALL clUnloadCompiler(void)
{
    return CL_SUCCESS;
}
