/*
 * The device-operations interface: what the runtime asks a device to do, and the
 * self-contained descriptions of the work it hands over (docs/device.md).
 *
 * The runtime keeps everything OpenCL's objects decide: validation, commands and
 * events, their order, the memory objects and kernels a command holds. A device
 * only runs work. It sees raw pointers, sizes and the work-group function, never a
 * cl_mem or a cl_kernel, and reports the end of each piece of work through the
 * completion callback of its launch record (struct kiln_dev_launch).
 *
 * The runtime embeds the work descriptions and the launch record in its command, so
 * a launch costs the device no allocation of its own beyond what the work needs (a
 * printf buffer, kernel scratch).
 */
#ifndef KILN_DEVICE_CPU_KILN_DEVICE_H
#define KILN_DEVICE_CPU_KILN_DEVICE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln_abi.h"
#include "kiln_sched.h"

/* ---- host facts (cpu_info.c): what the runtime reports and partitions by ------- */

/*
 * The levels of the memory hierarchy a device can be partitioned by
 * (CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN), outermost first.
 */
enum kiln_cpu_level {
    KILN_CPU_NUMA,
    KILN_CPU_L4,
    KILN_CPU_L3,
    KILN_CPU_L2,
    KILN_CPU_L1,
    KILN_CPU_LEVELS
};

#define KILN_CPU_MAX_CORES 1024

/* One physical core: one compute unit of the device. */
struct kiln_cpu_core {
    int pu; /* OS index of its first hardware thread, where its worker is pinned */
    /*
     * Which NUMA node, L4, L3, L2 and L1 data cache holds it: hwloc's logical index of that
     * object, so two cores with equal entries share it; -1 when the machine shows no such level.
     */
    int domain[KILN_CPU_LEVELS];
};

/* Facts about the host read from hwloc once (hwloc's OpenCL/CUDA plugins off). */
struct kiln_cpu_info {
    char name[128];                      /* CPU model name, e.g. "AMD EPYC" */
    char vendor[64];                     /* e.g. "AuthenticAMD" */
    unsigned physical_cores;             /* hwloc cores, >= 1 */
    unsigned hw_threads;                 /* hwloc PUs, >= physical_cores */
    uint64_t global_mem_size;            /* bytes of RAM */
    uint64_t l1d_size, l2_size, l3_size; /* bytes, 0 when unknown */
    unsigned cacheline_size;             /* bytes */
    unsigned max_clock_mhz;              /* 0 when unknown */
    /* Bytes of the widest vector register for float and for integer arithmetic: 64 with
     * AVX-512F, 32 with AVX (float) and AVX2 (integers), else 16 (SSE2). */
    unsigned float_vector_bytes, int_vector_bytes;
    /* The cores in hwloc's logical order, physical_cores of them (at most KILN_CPU_MAX_CORES). */
    struct kiln_cpu_core cores[KILN_CPU_MAX_CORES];
};

/* Fill *info; never fails (falls back to sysconf values). Thread-safe, cached. */
const struct kiln_cpu_info *kiln_cpu_info_get(void);

/* ---- the device operations ------------------------------------------------------ */

/* A device's own state (its worker pool among it): opaque to the runtime. */
struct kiln_dev;

/* CL_DEVICE_PRINTF_BUFFER_SIZE: the record bytes of each command's printf buffer. */
#define KILN_DEV_PRINTF_BUFFER_SIZE ((size_t)1 << 20)

/*
 * An NDRange: groups[0] * groups[1] * groups[2] work-groups of `wg`, each called with
 * `args` and a copy of `base` whose group_id and local_size the device fills, and whose
 * local_mem, group_shared, scratch, printf_buffer and stack bounds it points at its own
 * memory. The runtime fills every field above `scratch`; the last two are the device's
 * for the duration of the launch.
 */
/*
 * Device-side enqueue (device-cpu/enqueue.c, docs/device.md): a kernel the device launches
 * by itself, the block kernel of an enqueue_kernel call.
 */
struct kiln_dev_kernel {
    kiln_wg_fn wg;           /* NULL for an entry that is not a block kernel */
    size_t local_mem_static; /* kernel-scope __local bytes, before the __local arguments */
    size_t scratch_fixed;    /* scratch: fixed + per_item * work-items in the group */
    size_t scratch_per_item;
    unsigned num_args; /* the block literal, then one per `local void *` parameter */
    bool uses_printf;
};

/* CL_DEVICE_MAX_ON_DEVICE_EVENTS: the events of one device's pool (enqueue.c). */
#define KILN_DEV_MAX_ON_DEVICE_EVENTS 4096

/* A device queue (CL_QUEUE_ON_DEVICE): what kernels enqueue to; opaque to the runtime. */
struct kiln_dev_queue;

/* What the groups of a kernel that can enqueue need, shared by its whole tree of launches. */
struct kiln_dev_enqueue {
    const struct kiln_dev_kernel *kernels; /* the program's kernel table, by index */
    unsigned num_kernels;
    /* The device queues a kernel of this launch may name: the default device queue (first,
     * or NULL when the device has none) and those of its queue_t arguments. */
    struct kiln_dev_queue *const *queues;
    unsigned num_queues;
    size_t max_group_size; /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t group_multiple; /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    bool debug;            /* built with -g: enqueue failures are reported precisely */
};

struct kiln_dev_ndrange {
    kiln_wg_fn wg; /* the work-group function the compiler made */
    struct kiln_wg_ctx base;
    void **args; /* the argument block, one pointer per kernel argument */
    size_t groups[3];
    bool uses_printf; /* the kernel may call printf: the device gives it a buffer */
    /* Groups of one column read the same data (kiln_cc_kernel's column_reuse): the device
     * may run them in column bands. */
    bool column_bands;
    /* The device's: base.scratch_size bytes per worker and one more, or NULL. */
    unsigned char *scratch;
    /* The device's: the printf buffer (base.printf_buffer) when uses_printf, or NULL. */
    struct kiln_printf_buffer *printf_buf;
    /* The runtime's: set for a kernel that can enqueue kernels, NULL otherwise. It stays
     * valid until done: a launch is done only once every kernel it enqueued is. */
    const struct kiln_dev_enqueue *enq;
    /* The device's: the launch's place in the tree of device-side launches, or NULL. */
    struct kiln_enq_cmd *node;
};

/* `size` bytes from src to dst (copy; the ranges may overlap), or a fill of dst. */
struct kiln_dev_bytes {
    unsigned char *dst;
    const unsigned char *src; /* copy only */
    size_t size;              /* fill: a multiple of pattern_size */
    const void *pattern;      /* fill: points into pattern_store */
    size_t pattern_size;      /* fill: a power of two, 1 to 128 */
    unsigned char pattern_store[128];
};

/* A box of region[2] slices of region[1] rows of region[0] bytes, src to dst. */
struct kiln_dev_rect {
    unsigned char *dst;
    const unsigned char *src;
    size_t region[3];
    size_t dst_row, dst_slice; /* pitches in bytes */
    size_t src_row, src_slice;
};

/* clEnqueueNativeKernel: the application's function on its argument block. */
struct kiln_dev_native {
    void(CL_CALLBACK *fn)(void *);
    void *args; /* the runtime's copy, with memory object handles already replaced */
};

/*
 * One launch: the device's per-launch state, embedded in the runtime's command, and
 * the runtime's completion callback. The runtime sets `done` before each launch and
 * reads `note` in it; the rest is the device's and stays untouched by the runtime.
 */
struct kiln_dev_launch {
    /*
     * Called exactly once per accepted launch, with CL_COMPLETE, after the work has
     * ended and its effects (memory, printf output) are visible. No device lock is
     * held; it may run on a worker, on a thread helping through `help`, or on the
     * thread that called the launch op, before that op returns. It may free the
     * memory holding this record and the work description.
     */
    void (*done)(struct kiln_dev_launch *l, cl_int status);
    /*
     * Set by the device: with a failed launch op, why (a static string); inside done,
     * a warning for the log (e.g. printf output dropped), or NULL.
     */
    const char *note;
    struct kiln_sched_job job; /* the device's */
};

/* What a device's state is made for (`create`). */
struct kiln_dev_config {
    size_t local_mem_size; /* bytes of __local memory each work-group may use */
    /* The compute units: indices into kiln_cpu_info's core table, one worker each. */
    const unsigned *cores;
    unsigned num_cores;
};

/*
 * The operations of a device. Unless an entry says otherwise, an operation:
 * - may assume what the runtime validated for the command: sizes within the buffers,
 *   a kernel with every argument set, a local size that divides the range where it must;
 * - is entered with no runtime lock held (a runtime lock is never held across a call);
 * - may run on any thread: the application's, a worker of any pool, a helping waiter;
 * - reports a launch in one of two ways: it returns CL_SUCCESS and calls l->done once
 *   (possibly before it returns), or it returns an error code, sets l->note to why,
 *   runs nothing and never calls l->done. Every launch starts the device's worker pool
 *   when it has none yet, and is refused with CL_OUT_OF_HOST_MEMORY or
 *   CL_OUT_OF_RESOURCES when the pool cannot start.
 * `dev` is the state `root` or `create` gave the runtime for the command's device.
 */
struct kiln_dev_ops {
    /* The whole machine's state, for the root device. Static: never fails, never released. */
    struct kiln_dev *(*root)(size_t local_mem_size);
    /*
     * A sub-device's state over cfg->cores (copied). Its worker pool starts with its
     * first launch. CL_OUT_OF_HOST_MEMORY when out of memory.
     */
    cl_int (*create)(const struct kiln_dev_config *cfg, struct kiln_dev **out);
    /*
     * Drops a state from `create`. No launch may be in flight on it. May be called on
     * one of its own pool's workers (the last command to complete there drops the
     * device): the pool is then stopped from a thread of its own. CL_OUT_OF_RESOURCES
     * when that thread could not start: the pool and the state then stay.
     */
    cl_int (*release)(struct kiln_dev *dev);

    /*
     * Runs an NDRange; `nd` stays valid and unchanged (but for the device's fields)
     * until done. The printf output is written and flushed before done is called.
     * Also refused with CL_OUT_OF_HOST_MEMORY when the printf buffer or the scratch
     * cannot be allocated.
     */
    cl_int (*ndrange)(struct kiln_dev *dev, struct kiln_dev_ndrange *nd, struct kiln_dev_launch *l);
    /* Copies b->size bytes from b->src to b->dst; a small copy runs on the caller. */
    cl_int (*copy)(struct kiln_dev *dev, struct kiln_dev_bytes *b, struct kiln_dev_launch *l);
    /* Fills b->size bytes of b->dst with b->pattern; a small fill runs on the caller. */
    cl_int (*fill)(struct kiln_dev *dev, struct kiln_dev_bytes *b, struct kiln_dev_launch *l);
    /* Copies a rectangle (region[0] > 0); a small one runs on the caller. */
    cl_int (*rect)(struct kiln_dev *dev, struct kiln_dev_rect *r, struct kiln_dev_launch *l);
    /* Calls n->fn(n->args) once, on a worker (on the caller when the pool has none). */
    cl_int (*native)(struct kiln_dev *dev, struct kiln_dev_native *n, struct kiln_dev_launch *l);

    /*
     * Runs queued work of this device on the calling thread instead of letting it
     * sleep (clFinish, clWaitForEvents). Returns how many items it ran; 0 when nothing
     * was claimable now, and the caller should then sleep on its own signal. Entered
     * with no lock that a completion callback might take.
     */
    size_t (*help)(struct kiln_dev *dev);

    /*
     * A device queue of `size` bytes (CL_QUEUE_SIZE): kernels' enqueues to it fail with
     * CLK_DEVICE_QUEUE_FULL rather than exceed it. CL_OUT_OF_HOST_MEMORY when out of memory.
     */
    cl_int (*queue_create)(struct kiln_dev *dev, size_t size, struct kiln_dev_queue **out);
    /* Drops a device queue. No launch that may enqueue to it may be in flight. */
    void (*queue_release)(struct kiln_dev_queue *q);
};

/* The CPU device (device-cpu/). */
extern const struct kiln_dev_ops kiln_cpu_ops;

#endif
