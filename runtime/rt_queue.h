/*
 * The command queue object (queue.c). Lock order: docs/locking.md.
 */
#ifndef KILN_RUNTIME_RT_QUEUE_H
#define KILN_RUNTIME_RT_QUEUE_H

#include <CL/cl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "rt_object.h"
#include "rt_recycle.h"

struct kiln_dev_queue;

/*
 * What a device-side queue (CL_QUEUE_ON_DEVICE, OpenCL 3.0 §5.1) has beyond the common part.
 * The host never enqueues to it (every host command and clFlush/clFinish on it is
 * CL_INVALID_COMMAND_QUEUE); kernels reach it through queue_t arguments and
 * get_default_queue(). docs/runtime.md, "Device queues".
 */
struct kiln_rt_devq {
    cl_uint size;    /* CL_QUEUE_SIZE in bytes, fixed at creation */
    bool is_default; /* under context->lock: the default device queue of its context and device */
    /* under context->lock: the next of the context's live device queues (context.c) */
    cl_command_queue next;
    /* The device's queue that device-side enqueues go to (kiln_device.h): made at creation,
     * freed in queue_destroy, once no command can use it (launches hold their queues). */
    struct kiln_dev_queue *dev;
};

struct _cl_command_queue {
    struct kiln_object obj;
    cl_context context; /* held */
    cl_device_id device;
    cl_command_queue_properties props;
    cl_queue_properties *prop_list; /* as given to ...WithProperties, or NULL */
    size_t num_prop_list;
    pthread_mutex_t lock;
    /* under lock: in-order, the newest command's event; out-of-order, the newest
     * barrier's event, which every later command waits for (held), or NULL */
    cl_event last;
    /* out-of-order only, under lock: events of commands enqueued since the last
     * barrier that waited for everything (held); completed ones are pruned at
     * each enqueue */
    cl_event *outstanding;
    size_t num_outstanding, cap_outstanding;
    /* Blocks of this queue's commands and of their events (recycle.c). */
    struct kiln_rt_recycler cmd_blocks, event_blocks;
    bool on_device;                   /* CL_QUEUE_ON_DEVICE: device_queue below is in use */
    struct kiln_rt_devq device_queue; /* zero for a host queue */
};

/*
 * Whether `q` is a device queue of context `ctx` (for `queue_t` kernel arguments): the pointer
 * is compared with the context's live device queues and never read, so any bytes the
 * application passes are safe. Takes ctx->lock.
 */
bool kiln_rt_devq_is_live(cl_context ctx, cl_command_queue q);
/*
 * Holds (kiln_rt_obj_hold) and returns device queue q of ctx if it is still live, or with q
 * NULL the default device queue of dev in ctx; NULL when there is none.
 */
cl_command_queue kiln_rt_devq_hold(cl_context ctx, cl_device_id dev, cl_command_queue q);

#endif
