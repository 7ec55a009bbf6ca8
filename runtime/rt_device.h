/*
 * The platform and device objects (platform.c, device.c, subdevice.c) and the limits the
 * device reports that other objects enforce.
 */
#ifndef KILN_RUNTIME_RT_DEVICE_H
#define KILN_RUNTIME_RT_DEVICE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

#include "rt_object.h"
#include "kiln_device.h"

struct kiln_dev;
struct kiln_dev_ops;

struct _cl_platform_id {
    struct kiln_object obj;
};

struct _cl_device_id {
    struct kiln_object obj;
    cl_platform_id platform;
    const struct kiln_dev_ops *ops; /* what runs its commands (kiln_device.h) */
    struct kiln_dev *dev;           /* the device layer's state for it: its worker pool */
    cl_uint compute_units;
    /*
     * Its compute units: indices into kiln_cpu_info's core table, compute_units of them.
     * A sub-device's pool runs one worker on each of these cores and nowhere else
     * (given to ops->create).
     */
    unsigned *cores;
    cl_device_id parent; /* held; NULL for the root device */
    /* How it was made (CL_DEVICE_PARTITION_TYPE), 0-terminated; NULL for the root device. */
    cl_device_partition_property *partition;
    size_t partition_len; /* entries, the terminator included */
    cl_ulong global_mem_size;
    cl_ulong max_alloc;
    cl_ulong local_mem_size;
    size_t max_wg_size;
    char name[160];
    char vendor[64];
};

/*
 * The extensions (as CL_DEVICE_EXTENSIONS) and the OpenCL C feature names (of
 * CL_DEVICE_OPENCL_C_FEATURES) the device reports, space-separated; fixed for the process.
 * The compiler gives user kernels exactly these (compiler.c).
 */
const char *kiln_rt_device_extensions(void);
const char *kiln_rt_device_features(void);

extern struct _cl_platform_id kiln_rt_platform;
extern struct _cl_device_id kiln_rt_device;

/* Kiln's version: CL_PLATFORM_VERSION's last word. */
#define KILN_RT_VERSION "0.1.0"
/*
 * CL_DRIVER_VERSION: KILN_RT_VERSION, then "+" and eight hex digits that change with what the
 * compiler's binaries are made for (the CPU, the compiler's build), so that programs keying
 * their caches of binaries on it (hashcat) build again after an update instead of failing on
 * CL_INVALID_BINARY. KILN_RT_VERSION alone when the compiler cannot be loaded (runtime/compiler.c).
 */
const char *kiln_rt_driver_version(void);

/*
 * Kernel argument limits the device reports, enforced at enqueue (kernel.c) with
 * CL_OUT_OF_RESOURCES. Nothing in a CPU needs them smaller; they are the values reported,
 * and a kernel that goes past one fails as it would on a device where it matters:
 * CL_DEVICE_MAX_CONSTANT_ARGS, __constant pointer arguments of one kernel;
 * CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, the bytes behind each __constant argument (1 MiB, so
 * that a 1 MiB table works; the specification's minimum is 64 KiB);
 * CL_DEVICE_MAX_PARAMETER_SIZE, the sum of the argument sizes of one kernel (each
 * pointer, pipe and __local argument counted as 8 bytes, each by-value argument as its size).
 */
#define KILN_RT_MAX_CONSTANT_ARGS        8u
#define KILN_RT_MAX_CONSTANT_BUFFER_SIZE ((cl_ulong)1 << 20)
#define KILN_RT_MAX_PARAMETER_SIZE       ((size_t)1024)

/*
 * Device-side enqueue (OpenCL 3.0 §5.1, "On-device command-queues"): the host API of device
 * queues is in runtime/queue.c and runtime/devenqueue.c, the device's queue in
 * device-cpu/enqueue.c, the kernel builtins in kernel-lib/enqueue. The device reports
 * CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT and these limits, unless
 * KILN_DEVICE_ENQUEUE=0 is set (read once; docs/envvars.md), which reports none of it:
 *
 * - preferred size 256 KiB: a pending enqueue takes 64 bytes of a device queue plus its block
 *   literal, wait list and __local sizes (device-cpu/enqueue.c), so 256 KiB holds two to three
 *   thousand, more than a kernel's work-items usually have in flight;
 * - maximum size 64 MiB: room for 10^5 and more children pending from one parent; the queue
 *   reserves no memory of its own, and a size the application gets wrong (a byte count taken
 *   for a count of entries) is still refused instead of promising gigabytes;
 * - 4 device queues per device and context besides the default one: a kernel that names them
 *   all passes them as queue_t arguments, and the conformance suite's enqueue_multi_queue
 *   passes CL_DEVICE_MAX_ON_DEVICE_QUEUES - 1 of them to one kernel (8 bytes each, within
 *   CL_DEVICE_MAX_PARAMETER_SIZE) and makes as many events per work-item;
 * - 4096 events (CL_DEVICE_MAX_ON_DEVICE_EVENTS, at least 1024): the pool one device keeps
 *   (device-cpu/enqueue.c), about 300 KiB once a kernel first enqueues.
 */
#define KILN_RT_DEVQ_PREFERRED_SIZE (256u * 1024u)
#define KILN_RT_DEVQ_MAX_SIZE       (64u * 1024u * 1024u)
#define KILN_RT_DEVQ_MAX_QUEUES     4u
#define KILN_RT_DEVQ_MAX_EVENTS     KILN_DEV_MAX_ON_DEVICE_EVENTS

/* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE of every kernel. */
#define KILN_RT_WG_MULTIPLE 16

/* False under KILN_DEVICE_ENQUEUE=0; otherwise the device reports device-side queues (above). */
bool kiln_rt_devenq_enabled(void);

/*
 * Images (OpenCL 3.0 §5.3, docs/images.md). The device reports CL_DEVICE_IMAGE_SUPPORT, the
 * image extensions and features and these limits unless KILN_IMAGES=0 is set (read once;
 * docs/envvars.md), which shows a device without images. The limits are the full profile's
 * minimums except where a CPU has no reason to stop there:
 *
 * - 128 read, 64 write and 64 read-write image arguments, 16 samplers: the minimums; an image
 *   argument is a pointer like a buffer's, so the numbers only bound what a kernel may name;
 * - 2D images 16384 x 16384, 3D 2048^3, arrays of 2048 layers: the minimums (an image's
 *   bytes are further bounded by CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_INVALID_IMAGE_SIZE);
 * - 1D image buffers of 2^27 pixels, or fewer where CL_DEVICE_MAX_MEM_ALLOC_SIZE would not
 *   hold that many 16-byte pixels (kiln_rt_image_max_buffer);
 * - pitch and base address alignment of 1 pixel: a row of a 2D image from a buffer may start
 *   at any whole pixel (the kernel library never needs more than the pixel's own alignment).
 */
#define KILN_RT_MAX_READ_IMAGE_ARGS       128u
#define KILN_RT_MAX_WRITE_IMAGE_ARGS      64u
#define KILN_RT_MAX_READ_WRITE_IMAGE_ARGS 64u
#define KILN_RT_MAX_SAMPLERS              16u
#define KILN_RT_IMAGE2D_MAX               ((size_t)16384)
#define KILN_RT_IMAGE3D_MAX               ((size_t)2048)
#define KILN_RT_IMAGE_MAX_ARRAY           ((size_t)2048)
#define KILN_RT_IMAGE_PITCH_ALIGNMENT     1u
#define KILN_RT_IMAGE_BASE_ALIGNMENT      1u

/* False when KILN_IMAGES=0: whether the device reports images (above). */
bool kiln_rt_images_enabled(void);
/* CL_DEVICE_IMAGE_MAX_BUFFER_SIZE of `d`, in pixels. */
size_t kiln_rt_image_max_buffer(cl_device_id d);

cl_int kiln_rt_check_platform(cl_platform_id p);
/* The affinity domains `d` can be partitioned by (CL_DEVICE_PARTITION_AFFINITY_DOMAIN). */
cl_device_affinity_domain kiln_rt_device_affinity_domains(cl_device_id d);
/* Internal references to a device: counted for sub-devices, nothing for the root device. */
void kiln_rt_device_hold(cl_device_id d);
void kiln_rt_device_drop(cl_device_id d);
/* CL_SUCCESS when `type` selects Kiln's device, else CL_INVALID_DEVICE_TYPE or CL_DEVICE_NOT_FOUND.
 */
cl_int kiln_rt_check_device_type(cl_device_type type);
cl_ulong kiln_rt_now_ns(void);

#endif
