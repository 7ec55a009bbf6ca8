/*
 * The CPU device and its sub-devices: clGetDeviceIDs, clGetDeviceInfo (sub-devices are
 * made and counted in subdevice.c).
 *
 * Values come from hwloc through device-cpu (kiln_cpu_info_get). The rule: report
 * only what works. Optional features whose tests do not exist yet read as absent
 * (no images, no fp16); docs/status.md lists them.
 *
 * The extensions and OpenCL C features reported here are the one list of what a kernel
 * sees: the compiler is handed them (kiln_rt_device_extensions, kiln_rt_device_features) and
 * gives user kernels exactly their macros. cl_khr_fp16 is reported unless KILN_FP16=0
 * (docs/envvars.md), which shows a device without half precision; images (their limits,
 * extensions and features, docs/images.md) likewise unless KILN_IMAGES=0.
 */
#include "rt_device.h"
#include "rt_debug.h"
#include "rt_info.h"
#include "rt_object.h"

#include "kiln_cc.h"
#include "kiln_device.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "kiln_pipe.h"

struct _cl_device_id kiln_rt_device;

static const cl_name_version device_exts[] = {
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_byte_addressable_store"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_extended_versioning"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_global_int32_base_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_global_int32_extended_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_local_int32_base_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_local_int32_extended_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_int64_base_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_int64_extended_atomics"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_fp64"},
};

/* cl_khr_fp16, reported unless KILN_FP16=0. */
static const cl_name_version fp16_ext = {CL_MAKE_VERSION(1, 0, 0), "cl_khr_fp16"};

/* The image extensions, reported unless KILN_IMAGES=0 (docs/images.md). */
static const cl_name_version image_exts[] = {
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_3d_image_writes"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_depth_images"},
    {CL_MAKE_VERSION(1, 0, 0), "cl_khr_image2d_from_buffer"},
};

/* OpenCL C 2.0 makes device-side enqueue mandatory: listed only when that is reported. */
static const cl_name_version c_versions[] = {
    {CL_MAKE_VERSION(1, 0, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"},
    {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"},
};
static const cl_name_version c_versions_with_20[] = {
    {CL_MAKE_VERSION(1, 0, 0), "OpenCL C"}, {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"}, {CL_MAKE_VERSION(2, 0, 0), "OpenCL C"},
    {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"},
};

static const cl_name_version c_features[] = {
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_int64"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp64"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_generic_address_space"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_program_scope_global_variables"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_work_group_collective_functions"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_acq_rel"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_seq_cst"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_device"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_all_devices"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_pipes"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_subgroups"},
};

/* The image features, reported unless KILN_IMAGES=0. */
static const cl_name_version image_features[] = {
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_images"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_read_write_images"},
    {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_3d_image_writes"},
};

/* A feature switch read from the environment: on unless the variable is exactly "0". */
static bool switch_on(const char *name)
{
    const char *env = getenv(name);
    return !(env && strcmp(env, "0") == 0);
}

/* Whether images are reported, KILN_IMAGES=0 not being set when first asked (rt_device.h). */
static bool images_on;
static pthread_once_t images_once = PTHREAD_ONCE_INIT;

static void read_images(void)
{
    images_on = switch_on("KILN_IMAGES");
}

bool kiln_rt_images_enabled(void)
{
    if (pthread_once(&images_once, read_images) != 0)
        abort();
    return images_on;
}

size_t kiln_rt_image_max_buffer(cl_device_id d)
{
    /* 16 bytes: the largest pixel (CL_RGBA, CL_FLOAT or a 32-bit integer type). */
    const size_t most = (size_t)1 << 27, fit = (size_t)(d->max_alloc / 16);
    return fit < most ? fit : most;
}

/* Whether device-side enqueue is reported, KILN_DEVICE_ENQUEUE=0 not being set when first
 * asked (rt_device.h). */
static bool devenq_on;
static pthread_once_t devenq_once = PTHREAD_ONCE_INIT;

static void read_devenq(void)
{
    devenq_on = switch_on("KILN_DEVICE_ENQUEUE");
}

bool kiln_rt_devenq_enabled(void)
{
    pthread_once(&devenq_once, read_devenq);
    return devenq_on;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* __opencl_c_device_enqueue, reported unless KILN_DEVICE_ENQUEUE=0. */
static const cl_name_version devenq_feature = {CL_MAKE_VERSION(3, 0, 0),
                                               "__opencl_c_device_enqueue"};

/*
 * The reported lists, fixed at the first use: device_exts and, unless KILN_FP16=0, fp16_ext,
 * unless KILN_IMAGES=0, image_exts; c_features and, unless KILN_DEVICE_ENQUEUE=0,
 * devenq_feature, unless KILN_IMAGES=0, image_features.
 */
static pthread_once_t language_once = PTHREAD_ONCE_INIT;
static cl_name_version exts[COUNT(device_exts) + 1 + COUNT(image_exts)];
static size_t num_exts;
static cl_name_version features[COUNT(c_features) + 1 + COUNT(image_features)];
static size_t num_features;
static bool fp16;
static char exts_string[512], features_string[1024];

static void join_names(char *buf, size_t cap, const cl_name_version *v, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strncat(buf, " ", cap - strlen(buf) - 1);
        strncat(buf, v[i].name, cap - strlen(buf) - 1);
    }
}

static void language_init(void)
{
    fp16 = switch_on("KILN_FP16");
    memcpy(exts, device_exts, sizeof(device_exts));
    num_exts = COUNT(device_exts);
    if (fp16)
        exts[num_exts++] = fp16_ext;
    if (kiln_rt_images_enabled()) {
        memcpy(exts + num_exts, image_exts, sizeof(image_exts));
        num_exts += COUNT(image_exts);
    }
    join_names(exts_string, sizeof(exts_string), exts, num_exts);
    memcpy(features, c_features, sizeof(c_features));
    num_features = COUNT(c_features);
    if (kiln_rt_devenq_enabled())
        features[num_features++] = devenq_feature;
    if (kiln_rt_images_enabled()) {
        memcpy(features + num_features, image_features, sizeof(image_features));
        num_features += COUNT(image_features);
    }
    join_names(features_string, sizeof(features_string), features, num_features);
}

static void language_get(void)
{
    if (pthread_once(&language_once, language_init) != 0)
        abort();
}

const char *kiln_rt_device_extensions(void)
{
    language_get();
    return exts_string;
}

const char *kiln_rt_device_features(void)
{
    language_get();
    return features_string;
}

cl_int kiln_rt_check_device_type(cl_device_type type)
{
    const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
    if (type != CL_DEVICE_TYPE_ALL && (type & ~known || type == 0))
        return KILN_ERR(CL_INVALID_DEVICE_TYPE, "device_type 0x%llx", (unsigned long long)type);
    if (!(type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT)))
        return KILN_ERR(CL_DEVICE_NOT_FOUND, "Kiln has only a CPU device");
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                  cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices)
{
    cl_int err = kiln_rt_check_platform(platform);
    if (err != CL_SUCCESS)
        return err;
    if ((num_entries == 0 && devices) || (!devices && !num_devices))
        return KILN_ERR(CL_INVALID_VALUE, "num_entries %u with devices %p, num_devices %p",
                        num_entries, (void *)devices, (void *)num_devices);
    err = kiln_rt_check_device_type(device_type);
    if (err != CL_SUCCESS)
        return err;
    if (devices)
        devices[0] = &kiln_rt_device;
    if (num_devices)
        *num_devices = 1;
    return CL_SUCCESS;
}

/* The answer of one query: a pointer and size handed to kiln_rt_info(). */
struct answer {
    const void *ptr;
    size_t size;
    union {
        cl_uint u32;
        cl_ulong u64;
        size_t sz;
        const void *ptr;
    } v;
};

/*
 * CL_DEVICE_PREFERRED/NATIVE_VECTOR_WIDTH_*: the elements of `elem` bytes one vector register
 * of `reg` bytes holds, at most 16 (the widest OpenCL C vector). Programs size their explicit
 * vectors from these (docs/compiler.md, "Vector widths").
 */
static cl_uint lanes(unsigned reg, unsigned elem)
{
    unsigned n = reg / elem;
    return n > 16 ? 16 : n;
}

static void put_u32(struct answer *a, cl_uint v)
{
    a->v.u32 = v;
    a->ptr = &a->v.u32;
    a->size = sizeof(v);
}

static void put_u64(struct answer *a, cl_ulong v)
{
    a->v.u64 = v;
    a->ptr = &a->v.u64;
    a->size = sizeof(v);
}

static void put_size(struct answer *a, size_t v)
{
    a->v.sz = v;
    a->ptr = &a->v.sz;
    a->size = sizeof(v);
}

static void put_ptr(struct answer *a, const void *v)
{
    a->v.ptr = v;
    a->ptr = &a->v.ptr;
    a->size = sizeof(v);
}

static void put_bytes(struct answer *a, const void *p, size_t n)
{
    a->ptr = p;
    a->size = n;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size,
                                   void *value, size_t *size_ret)
{
    cl_int err = kiln_rt_check_device(device);
    if (err != CL_SUCCESS)
        return err;
    const struct kiln_cpu_info *cpu = kiln_cpu_info_get();
    const cl_device_id d = device;
    const bool devenq = kiln_rt_devenq_enabled();
    const bool images = kiln_rt_images_enabled();
    size_t wi_sizes[3] = {d->max_wg_size, d->max_wg_size, d->max_wg_size};
    const cl_device_partition_property partitions[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                       CL_DEVICE_PARTITION_BY_COUNTS,
                                                       CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, 0};
    /* A device of one compute unit cannot be split (OpenCL 3.0 §4.2: then none, one 0). */
    const bool splits = d->compute_units > 1;
    struct answer a = {0};
    language_get();

    switch (param) {
    case CL_DEVICE_TYPE:
        put_u64(&a, CL_DEVICE_TYPE_CPU);
        break;
    case CL_DEVICE_VENDOR_ID:
        put_u32(&a, 0);
        break;
    case CL_DEVICE_MAX_COMPUTE_UNITS:
        put_u32(&a, d->compute_units);
        break;
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
        put_u32(&a, 3);
        break;
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
        put_size(&a, d->max_wg_size);
        break;
    case CL_DEVICE_MAX_WORK_ITEM_SIZES:
        put_bytes(&a, wi_sizes, sizeof(wi_sizes));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
        put_u32(&a, lanes(cpu->int_vector_bytes, 1));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
        put_u32(&a, lanes(cpu->int_vector_bytes, 2));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
        put_u32(&a, lanes(cpu->int_vector_bytes, 4));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
        put_u32(&a, lanes(cpu->float_vector_bytes, 4));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
        put_u32(&a, lanes(cpu->int_vector_bytes, 8));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
        put_u32(&a, lanes(cpu->float_vector_bytes, 8));
        break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
        /* as float's: half arithmetic is done in float lanes */
        put_u32(&a, fp16 ? lanes(cpu->float_vector_bytes, 4) : 0);
        break;
    case CL_DEVICE_MAX_CLOCK_FREQUENCY:
        put_u32(&a, cpu->max_clock_mhz);
        break;
    case CL_DEVICE_ADDRESS_BITS:
        put_u32(&a, 64);
        break;
    case CL_DEVICE_MAX_READ_IMAGE_ARGS:
        put_u32(&a, images ? KILN_RT_MAX_READ_IMAGE_ARGS : 0);
        break;
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
        put_u32(&a, images ? KILN_RT_MAX_WRITE_IMAGE_ARGS : 0);
        break;
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
        put_u32(&a, images ? KILN_RT_MAX_READ_WRITE_IMAGE_ARGS : 0);
        break;
    case CL_DEVICE_MAX_SAMPLERS:
        put_u32(&a, images ? KILN_RT_MAX_SAMPLERS : 0);
        break;
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
        put_u32(&a, images ? KILN_RT_IMAGE_PITCH_ALIGNMENT : 0);
        break;
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
        put_u32(&a, images ? KILN_RT_IMAGE_BASE_ALIGNMENT : 0);
        break;
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
        put_u32(&a, 0);
        break;
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
        /* one work-item per sub-group (docs/kernel-lib.md) */
        put_u32(&a, (cl_uint)d->max_wg_size);
        break;
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
        put_u32(&a, splits ? d->compute_units : 0);
        break;
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
        put_size(&a, images ? KILN_RT_IMAGE2D_MAX : 0);
        break;
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH:
        put_size(&a, images ? KILN_RT_IMAGE3D_MAX : 0);
        break;
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
        put_size(&a, images ? kiln_rt_image_max_buffer(d) : 0);
        break;
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
        put_size(&a, images ? KILN_RT_IMAGE_MAX_ARRAY : 0);
        break;
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
        put_size(&a, KILN_CC_MAX_VARIABLE_SIZE);
        break;
    case CL_DEVICE_PRINTF_BUFFER_SIZE:
        put_size(&a, KILN_DEV_PRINTF_BUFFER_SIZE);
        break;
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
        put_u64(&a, d->max_alloc);
        break;
    case CL_DEVICE_MAX_PIPE_ARGS:
        put_u32(&a, KILN_CC_MAX_PIPE_ARGS);
        break;
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
        /* Live reserve_* reservations per pipe side (kiln_pipe.h; the specification
         * counts per work-item, and one work-item alone on a pipe gets them all). */
        put_u32(&a, KILN_PIPE_MAX_RESERVATIONS);
        break;
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
        put_u32(&a, KILN_PIPE_MAX_PACKET_SIZE);
        break;
    case CL_DEVICE_IMAGE_SUPPORT:
        put_u32(&a, images ? CL_TRUE : CL_FALSE);
        break;
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
        /* a group's work-items, each a sub-group, run one after another */
        put_u32(&a, CL_FALSE);
        break;
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
        put_u32(&a, CL_TRUE);
        break;
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
    case CL_DEVICE_PIPE_SUPPORT:
        put_u32(&a, CL_TRUE);
        break;
    case CL_DEVICE_MAX_PARAMETER_SIZE:
        put_size(&a, KILN_RT_MAX_PARAMETER_SIZE);
        break;
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
        put_u32(&a, 128 * 8); /* bits: buffers are 128-byte aligned */
        break;
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
        put_u32(&a, 128);
        break;
    case CL_DEVICE_SINGLE_FP_CONFIG:
        put_u64(&a, CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST);
        break;
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        /* What cl_khr_fp64 requires (OpenCL 3.0 §4.2); every rounding mode is there for the
         * explicit-mode conversions. */
        put_u64(&a, CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF |
                        CL_FP_INF_NAN | CL_FP_DENORM);
        break;
    case CL_DEVICE_HALF_FP_CONFIG:
        /* What cl_khr_fp16 requires at least (OpenCL 3.0 §4.2, "CL_DEVICE_HALF_FP_CONFIG"). */
        put_u64(&a, fp16 ? CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM : 0);
        break;
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
        put_u32(&a, CL_READ_WRITE_CACHE);
        break;
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
        put_u32(&a, cpu->cacheline_size ? cpu->cacheline_size : 64);
        break;
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
        put_u64(&a, cpu->l3_size ? cpu->l3_size : cpu->l2_size);
        break;
    case CL_DEVICE_GLOBAL_MEM_SIZE:
        put_u64(&a, d->global_mem_size);
        break;
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
        put_u64(&a, KILN_RT_MAX_CONSTANT_BUFFER_SIZE);
        break;
    case CL_DEVICE_MAX_CONSTANT_ARGS:
        put_u32(&a, KILN_RT_MAX_CONSTANT_ARGS);
        break;
    case CL_DEVICE_LOCAL_MEM_TYPE:
        put_u32(&a, CL_GLOBAL);
        break;
    case CL_DEVICE_LOCAL_MEM_SIZE:
        put_u64(&a, d->local_mem_size);
        break;
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
        put_size(&a, 1);
        break;
    case CL_DEVICE_EXECUTION_CAPABILITIES:
        put_u64(&a, CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL);
        break;
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
        put_u64(&a, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        break;
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
        put_u64(&a,
                devenq ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE : 0);
        break;
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
        put_u32(&a, devenq ? KILN_RT_DEVQ_PREFERRED_SIZE : 0);
        break;
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
        put_u32(&a, devenq ? KILN_RT_DEVQ_MAX_SIZE : 0);
        break;
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
        put_u32(&a, devenq ? KILN_RT_DEVQ_MAX_QUEUES : 0);
        break;
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
        put_u32(&a, devenq ? KILN_RT_DEVQ_MAX_EVENTS : 0);
        break;
    case CL_DEVICE_NAME:
        put_bytes(&a, d->name, strlen(d->name) + 1);
        break;
    case CL_DEVICE_VENDOR:
        put_bytes(&a, d->vendor, strlen(d->vendor) + 1);
        break;
    case CL_DRIVER_VERSION:
        put_bytes(&a, kiln_rt_driver_version(), strlen(kiln_rt_driver_version()) + 1);
        break;
    case CL_DEVICE_PROFILE:
        put_bytes(&a, "FULL_PROFILE", strlen("FULL_PROFILE") + 1);
        break;
    case CL_DEVICE_VERSION:
        put_bytes(&a, "OpenCL 3.0 Kiln", strlen("OpenCL 3.0 Kiln") + 1);
        break;
    case CL_DEVICE_OPENCL_C_VERSION:
        put_bytes(&a, "OpenCL C 1.2 Kiln", strlen("OpenCL C 1.2 Kiln") + 1);
        break;
    case CL_DEVICE_EXTENSIONS:
        put_bytes(&a, exts_string, strlen(exts_string) + 1);
        break;
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        put_bytes(&a, exts, num_exts * sizeof(exts[0]));
        break;
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
        if (devenq)
            put_bytes(&a, c_versions_with_20, sizeof(c_versions_with_20));
        else
            put_bytes(&a, c_versions, sizeof(c_versions));
        break;
    case CL_DEVICE_OPENCL_C_FEATURES:
        language_get();
        put_bytes(&a, features, num_features * sizeof(features[0]));
        break;
    case CL_DEVICE_ILS_WITH_VERSION:
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
        put_bytes(&a, NULL, 0);
        break;
    case CL_DEVICE_IL_VERSION:
    case CL_DEVICE_BUILT_IN_KERNELS:
        put_bytes(&a, "", strlen("") + 1);
        break;
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
        put_bytes(&a, "v0000-01-01-00", strlen("v0000-01-01-00") + 1);
        break;
    case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: /* cl_khr_extended_versioning */
        put_u32(&a, CL_MAKE_VERSION(1, 2, 0));
        break;
    case CL_DEVICE_NUMERIC_VERSION:
        put_u32(&a, CL_MAKE_VERSION(3, 0, 0));
        break;
    case CL_DEVICE_PLATFORM:
        put_ptr(&a, d->platform);
        break;
    case CL_DEVICE_PARENT_DEVICE:
        put_ptr(&a, d->parent);
        break;
    case CL_DEVICE_PARTITION_PROPERTIES:
        if (splits)
            put_bytes(&a, partitions, sizeof(partitions));
        else
            put_bytes(&a, partitions + 3, sizeof(partitions[0]));
        break;
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
        put_u64(&a, splits ? kiln_rt_device_affinity_domains(d) : 0);
        break;
    case CL_DEVICE_PARTITION_TYPE:
        put_bytes(&a, d->partition, d->partition_len * sizeof(*d->partition));
        break;
    case CL_DEVICE_REFERENCE_COUNT:
        /* Root devices always answer 1 (they are not counted). */
        put_u32(&a, d->parent ? atomic_load_explicit(&d->obj.refs, memory_order_relaxed) : 1);
        break;
    case CL_DEVICE_SVM_CAPABILITIES:
        /* One address space and coherent caches: every kind is plain memory (svm.c). */
        put_u64(&a, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                        CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS);
        break;
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
        /* every order and scope (kernel-lib/atomic: every scope is the system scope);
         * work_item is a fence scope only */
        put_u64(&a, CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                        CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                        CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
        break;
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
        put_u64(&a, CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                        CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM |
                        CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                        CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
        break;
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        put_size(&a, 16);
        break;
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
        put_u64(&a, devenq ? CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT : 0);
        break;
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown device query 0x%x", param);
    }
    return kiln_rt_info(a.ptr, a.size, size, value, size_ret);
}
