/*
 * The CPU device's operations table (kiln_device.h): what the runtime calls to run
 * work on the host's cores.
 */
#include "cpu_internal.h"

const struct kiln_dev_ops kiln_cpu_ops = {
    .root = kiln_cpu_pool_root,
    .create = kiln_cpu_pool_create,
    .release = kiln_cpu_pool_release,
    .ndrange = kiln_cpu_exec_ndrange,
    .copy = kiln_cpu_exec_copy,
    .fill = kiln_cpu_exec_fill,
    .rect = kiln_cpu_exec_rect,
    .native = kiln_cpu_exec_native,
    .help = kiln_cpu_pool_help,
    .queue_create = kiln_cpu_queue_create,
    .queue_release = kiln_cpu_queue_release,
};
