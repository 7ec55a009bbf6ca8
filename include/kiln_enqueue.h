/*
 * Device-side enqueue: what the kernel library's enqueue built-ins
 * (kernel-lib/enqueue/enqueue.cl) and the CPU device's device queue
 * (device-cpu/enqueue.c) share. Read by C and by OpenCL C, like kiln_abi.h.
 *
 * A work-group function of a kernel that can enqueue finds in ctx->enqueue a
 * struct kiln_enq_site, which the device fills for the group it runs. Its first
 * field is the device's table of operations (struct kiln_enq_ops): plain C
 * functions the library calls through function pointers, so kernels bind to no
 * symbol of the host process and the loader stays as strict as it is. Every
 * operation gets the site first: the group, the command and the device it was
 * called from.
 *
 * Kernels name a block's kernel by its index in the program's kernel table: the
 * compiler replaces the invoke-kernel pointer Clang passes to
 * __enqueue_kernel_* with that index (docs/compiler.md, "Device-side
 * enqueue"), and the runtime hands the device the table.
 *
 * Status codes are OpenCL C's CLK_* values; the library turns every failure into
 * CLK_ENQUEUE_FAILURE unless the program was built with -g.
 */
#ifndef KILN_INCLUDE_KILN_ENQUEUE_H
#define KILN_INCLUDE_KILN_ENQUEUE_H

#include "kiln_abi.h"

/* Clang's ndrange_t, field for field. */
struct kiln_enq_ndrange {
    kiln_abi_u32 dim;
    kiln_abi_u32 pad;
    kiln_abi_size offset[3];
    kiln_abi_size size[3];
    kiln_abi_size local_size[3]; /* all 0: the device chooses */
};

/* What a kernel passes for an enqueue_kernel call. */
struct kiln_enq_call {
    kiln_abi_ptr queue;         /* queue_t: a device queue's handle, or 0 */
    kiln_abi_ptr ndrange;       /* const struct kiln_enq_ndrange * */
    kiln_abi_ptr block;         /* the block literal: its first 4 bytes are its size */
    kiln_abi_ptr events;        /* const clk_event_t[num_events], or 0 */
    kiln_abi_ptr event_ret;     /* clk_event_t *, or 0 */
    kiln_abi_ptr local_sizes;   /* const size_t[num_local], or 0 */
    kiln_abi_size kernel_index; /* the block kernel's index in the program */
    kiln_abi_u32 flags;         /* CLK_ENQUEUE_FLAGS_* */
    kiln_abi_u32 num_events;
    kiln_abi_u32 num_local;
    kiln_abi_u32 pad;
};

/*
 * The device's operations. C function pointers; OpenCL C sees them as integers and
 * casts them to the function types of kernel-lib/enqueue/enqueue.cl. `site` is the
 * group's struct kiln_enq_site, queues and events the device's own handles.
 */
#if defined(__OPENCL_C_VERSION__)
struct kiln_enq_ops {
    kiln_abi_ptr enqueue, marker, default_queue, retain, release, user_event, set_status, valid,
        profile, kernel_size;
};
#else
struct kiln_enq_ops {
    /* CLK_SUCCESS or a CLK_* error */
    int (*enqueue)(void *site, const struct kiln_enq_call *call);
    int (*marker)(void *site, void *queue, kiln_abi_u32 num_events, void *const *events,
                  void **ret);
    /* the default device queue, or 0 */
    void *(*default_queue)(void *site);
    void (*retain)(void *site, void *event);
    void (*release)(void *site, void *event);
    /* a user event in CL_SUBMITTED, or CLK_NULL_EVENT (all ones) */
    void *(*user_event)(void *site);
    /* CL_COMPLETE or a negative error */
    void (*set_status)(void *site, void *event, int status);
    /* 1 for an event of this device that is alive */
    int (*valid)(void *site, void *event);
    /* CLK_PROFILING_COMMAND_EXEC_TIME: two u64 written once the event completes */
    void (*profile)(void *site, void *event, int name, uint64_t *value);
    /* `which` 0: the kernel's work-group size limit, 1: its preferred multiple */
    kiln_abi_size (*kernel_size)(void *site, kiln_abi_size kernel_index, int which);
};
#endif

/* ctx->enqueue of a group: the device's own fields follow the table. */
struct kiln_enq_site {
    kiln_abi_ptr ops;   /* const struct kiln_enq_ops * */
    kiln_abi_u32 debug; /* 1: report CLK_* errors precisely (the program was built with -g) */
    kiln_abi_u32 pad;
};

/* CLK_* status codes (OpenCL C), for the C side. */
#define KILN_CLK_SUCCESS                  0
#define KILN_CLK_ENQUEUE_FAILURE          (-101)
#define KILN_CLK_INVALID_QUEUE            (-102)
#define KILN_CLK_INVALID_NDRANGE          (-160)
#define KILN_CLK_INVALID_EVENT_WAIT_LIST  (-57)
#define KILN_CLK_DEVICE_QUEUE_FULL        (-161)
#define KILN_CLK_INVALID_ARG_SIZE         (-51)
#define KILN_CLK_EVENT_ALLOCATION_FAILURE (-100)
#define KILN_CLK_OUT_OF_RESOURCES         (-5)

#define KILN_CLK_FLAGS_NO_WAIT         0u
#define KILN_CLK_FLAGS_WAIT_KERNEL     1u
#define KILN_CLK_FLAGS_WAIT_WORK_GROUP 2u

#endif
