/*
 * The CPU device's own declarations, shared by its files (never leaves device-cpu/).
 */
#ifndef KILN_DEVICE_CPU_CPU_INTERNAL_H
#define KILN_DEVICE_CPU_CPU_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kiln_device.h"
#include "kiln_enqueue.h"
#include "kiln_sched.h"

/* ---- worker pools (pools.c) ------------------------------------------------------ */

/* One device's state: its worker pool, started on first use. */
struct kiln_dev {
    struct kiln_sched *sched; /* under pools.c's lock; set once */
    /* sched once it exists (release), so each launch and wait reads it without the lock */
    _Atomic(struct kiln_sched *) sched_ready;
    size_t local_mem_size;
    int *cpus; /* a sub-device's: the OS CPU of each compute unit; NULL for the whole machine */
    unsigned num_cpus;
    /* The events of device-side enqueue (enqueue.c), made on first use (release). */
    _Atomic(struct kiln_enq_pool *) enq_pool;
};

/*
 * The device's pool, started on first use. CL_SUCCESS, or CL_OUT_OF_HOST_MEMORY or
 * CL_OUT_OF_RESOURCES with *why set to a static reason.
 */
cl_int kiln_cpu_pool_get(struct kiln_dev *dev, struct kiln_sched **out, const char **why);
struct kiln_dev *kiln_cpu_pool_root(size_t local_mem_size);
cl_int kiln_cpu_pool_create(const struct kiln_dev_config *cfg, struct kiln_dev **out);
cl_int kiln_cpu_pool_release(struct kiln_dev *dev);
size_t kiln_cpu_pool_help(struct kiln_dev *dev);

/* ---- execution (exec.c) ---------------------------------------------------------- */

cl_int kiln_cpu_exec_ndrange(struct kiln_dev *dev, struct kiln_dev_ndrange *nd,
                             struct kiln_dev_launch *l);
cl_int kiln_cpu_exec_copy(struct kiln_dev *dev, struct kiln_dev_bytes *b,
                          struct kiln_dev_launch *l);
cl_int kiln_cpu_exec_fill(struct kiln_dev *dev, struct kiln_dev_bytes *b,
                          struct kiln_dev_launch *l);
cl_int kiln_cpu_exec_rect(struct kiln_dev *dev, struct kiln_dev_rect *r, struct kiln_dev_launch *l);
cl_int kiln_cpu_exec_native(struct kiln_dev *dev, struct kiln_dev_native *n,
                            struct kiln_dev_launch *l);

/* Runs groups [first, first + count) of the job's struct kiln_dev_ndrange. */
void kiln_cpu_run_groups(struct kiln_sched_job *job, size_t first, size_t count,
                         const struct kiln_sched_worker *w);
/*
 * The order groups run in, which the specification leaves open. Row by row (x fastest, then
 * y, then z) by default. For a kernel whose groups of one column read the same data
 * (`column_bands`, from the compiler's column_reuse: a tiled multiply's columns of B), each z
 * slice of the grid is cut into bands of KILN_CPU_BAND group columns (the last may be
 * narrower); a band runs row by row, x fastest, top to bottom, then the next band. The groups
 * that share a column then follow each other while its data is still in the cache, instead of
 * every column coming round once per row of groups. Row by row is the one band as wide as the
 * grid; a grid of KILN_CPU_BAND columns or fewer, or of one row, runs in the same order either
 * way. docs/device.md has the figures.
 */
#define KILN_CPU_BAND 8
struct kiln_cpu_walk {
    size_t band;       /* the width of every band but the last: KILN_CPU_BAND, or the grid's */
    size_t band_first; /* the current band's first column */
    size_t band_width; /* and its columns */
};
/* Sets ctx's group id and size to group `first` of the order (in bands or row by row), or to
 * the next one. */
void kiln_cpu_group_first(struct kiln_wg_ctx *ctx, struct kiln_cpu_walk *walk, bool bands,
                          size_t first);
void kiln_cpu_group_next(struct kiln_wg_ctx *ctx, struct kiln_cpu_walk *walk);
/* The calling thread's stack, [*lo, *hi); both 0 when unknown. */
void kiln_cpu_thread_stack(kiln_abi_ptr *lo, kiln_abi_ptr *hi);

/* ---- device-side enqueue (enqueue.c) --------------------------------------------- */

/* A group's ctx->enqueue: the ABI's part, then the device's. Lives on the group's stack. */
struct kiln_cpu_enq_site {
    struct kiln_enq_site pub;
    struct kiln_enq_cmd *cmd;         /* the command the group belongs to */
    struct kiln_enq_cmd *after_group; /* its WAIT_WORK_GROUP children */
    size_t credit;                    /* counts taken on cmd->pending for children to come */
    /* While a child runs inline in the group (enqueue.c): that child's WAIT_KERNEL children,
     * held here until its last group returns; NULL otherwise (they go to cmd->after_kernel). */
    struct kiln_enq_cmd **after_inline;
    unsigned inline_depth;                  /* inline children open on the stack */
    const struct kiln_sched_worker *worker; /* whose arena the group uses */
    kiln_abi_ptr stack_lo, stack_hi;        /* the thread's stack, as in the group's ctx */
};

/* A launch of a kernel that can enqueue becomes the root of a tree of commands. */
cl_int kiln_cpu_enq_root(struct kiln_dev *dev, struct kiln_sched *sched,
                         struct kiln_dev_ndrange *nd, struct kiln_dev_launch *l);
/* Before and after each group of such a launch, on the thread that runs it. */
void kiln_cpu_enq_group_begin(struct kiln_cpu_enq_site *s, struct kiln_enq_cmd *c,
                              const struct kiln_sched_worker *w, const struct kiln_wg_ctx *ctx);
void kiln_cpu_enq_group_end(struct kiln_cpu_enq_site *s);
/* Every group of the launch has returned; its printf output and scratch are gone. */
void kiln_cpu_enq_groups_done(struct kiln_enq_cmd *c);
/* Frees a device's event pool (the device is going away). */
void kiln_cpu_enq_pool_free(struct kiln_dev *dev);
cl_int kiln_cpu_queue_create(struct kiln_dev *dev, size_t size, struct kiln_dev_queue **out);
void kiln_cpu_queue_release(struct kiln_dev_queue *q);

/* ---- printf output (printf.c) ---------------------------------------------------- */

/* A zeroed printf buffer with room for `capacity` bytes of records, or NULL. */
struct kiln_printf_buffer *kiln_cpu_printf_buffer_create(size_t capacity);
/*
 * Formats the buffer's records in order to stdout and flushes it. False when some of
 * the output was dropped for want of memory.
 */
bool kiln_cpu_printf_flush(const struct kiln_printf_buffer *buf);

#endif
