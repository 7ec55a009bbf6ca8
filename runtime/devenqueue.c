/*
 * Device-side enqueue, the runtime's part of a launch: a kernel that can enqueue kernels
 * (kiln_cc_kernel.enqueues) gets the device a description of what its whole tree of
 * launches may use (struct kiln_dev_enqueue, kiln_device.h): its program's kernel table
 * as the device sees it, the device queues it may name, and the limits its queries
 * answer. The device does the rest, below the runtime (device-cpu/enqueue.c).
 *
 * The launch holds the device queues it names until it completes, and a launch completes
 * only after every kernel enqueued from it: the queues outlive every child.
 */
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_program.h"
#include "rt_queue.h"

#include <stdlib.h>
#include <string.h>

#include "kiln_alloc.h"

/* The block kernels' entries of p's table (the others stay empty); under p->lock. */
static struct kiln_dev_kernel *dev_kernels(cl_program p, const struct kiln_cc_interface *cc)
{
    if (p->dev_kernels)
        return p->dev_kernels;
    unsigned n = cc->table_size(p->built);
    struct kiln_dev_kernel *t = kiln_calloc(n ? n : 1, sizeof(*t));
    if (!t)
        return NULL;
    for (unsigned i = 0; i < n; i++) {
        const struct kiln_cc_kernel *k = cc->kernel(p->built, i);
        if (!k->block)
            continue;
        t[i].wg = k->wg;
        t[i].local_mem_static = k->local_mem_static;
        t[i].scratch_fixed = k->scratch_fixed;
        t[i].scratch_per_item = k->scratch_per_item;
        t[i].num_args = k->num_args;
        t[i].uses_printf = k->uses_printf != 0;
    }
    p->dev_kernels = t;
    return t;
}

/* Whether the program's options hold the word -g (OpenCL C: precise enqueue errors). */
static bool built_with_g(const char *options)
{
    for (const char *s = options; s && (s = strstr(s, "-g")) != NULL; s += 2)
        if ((s == options || s[-1] == ' ' || s[-1] == '\t') &&
            (s[2] == '\0' || s[2] == ' ' || s[2] == '\t'))
            return true;
    return false;
}

cl_int kiln_rt_enqueue_prepare(cl_command_queue q, cl_kernel k, struct kiln_rt_ndrange *nd)
{
    const struct kiln_cc_interface *cc = NULL;
    cl_int err = kiln_rt_compiler(&cc);
    if (err != CL_SUCCESS)
        return err;
    unsigned num_queue_args = 0;
    for (unsigned i = 0; i < k->cc->num_args; i++)
        num_queue_args += k->cc->args[i].kind == KILN_CC_ARG_QUEUE;
    unsigned n = 1 + num_queue_args;
    /* One allocation: the held API queues, then the device's queue pointers. */
    nd->held_queues = kiln_calloc(n, sizeof(cl_command_queue) + sizeof(struct kiln_dev_queue *));
    if (!nd->held_queues)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "device queues of the launch");
    struct kiln_dev_queue **queues = (struct kiln_dev_queue **)(nd->held_queues + n);
    cl_context ctx = k->program->context;
    /* Entry 0, the default device queue, may be missing: get_default_queue() is then
     * CLK_NULL_QUEUE and an enqueue to it fails. */
    cl_command_queue def = kiln_rt_devq_hold(ctx, q->device, NULL);
    nd->held_queues[nd->num_held_queues++] = def;
    queues[0] = def ? def->device_queue.dev : NULL;
    for (unsigned i = 0; i < k->cc->num_args; i++) {
        if (k->cc->args[i].kind != KILN_CC_ARG_QUEUE)
            continue;
        cl_command_queue held = kiln_rt_devq_hold(ctx, q->device, k->args[i].queue);
        if (!held)
            return KILN_ERR(CL_INVALID_KERNEL_ARGS,
                            "queue_t argument %u of %s: its device queue was released", i,
                            k->cc->name);
        queues[nd->num_held_queues] = held->device_queue.dev;
        nd->held_queues[nd->num_held_queues++] = held;
    }
    pthread_mutex_lock(&k->program->lock);
    const struct kiln_dev_kernel *table = dev_kernels(k->program, cc);
    bool debug = built_with_g(k->program->options);
    unsigned table_size = cc->table_size(k->program->built);
    pthread_mutex_unlock(&k->program->lock);
    if (!table)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "the program's kernel table for the device");
    nd->enq = (struct kiln_dev_enqueue){
        .kernels = table,
        .num_kernels = table_size,
        .queues = queues,
        .num_queues = nd->num_held_queues,
        .max_group_size = q->device->max_wg_size,
        .group_multiple = KILN_RT_WG_MULTIPLE,
        .debug = debug,
    };
    nd->work.enq = &nd->enq;
    return CL_SUCCESS;
}

void kiln_rt_enqueue_release(struct kiln_rt_ndrange *nd)
{
    for (unsigned i = 0; i < nd->num_held_queues; i++)
        if (nd->held_queues[i])
            kiln_rt_obj_drop(&nd->held_queues[i]->obj);
    free(nd->held_queues);
    nd->held_queues = NULL;
    nd->num_held_queues = 0;
}
