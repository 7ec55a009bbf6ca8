/*
 * The CPU device's own declarations, shared by its files (never leaves device-cpu/).
 */
#ifndef KILN_DEVICE_CPU_CPU_INTERNAL_H
#define KILN_DEVICE_CPU_CPU_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kiln_device.h"
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

/* ---- printf output (printf.c) ---------------------------------------------------- */

/* A zeroed printf buffer with room for `capacity` bytes of records, or NULL. */
struct kiln_printf_buffer *kiln_cpu_printf_buffer_create(size_t capacity);
/*
 * Formats the buffer's records in order to stdout and flushes it. False when some of
 * the output was dropped for want of memory.
 */
bool kiln_cpu_printf_flush(const struct kiln_printf_buffer *buf);

#endif
