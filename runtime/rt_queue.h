/*
 * The command queue object (queue.c). Lock order: docs/locking.md.
 */
#ifndef KILN_RUNTIME_RT_QUEUE_H
#define KILN_RUNTIME_RT_QUEUE_H

#include <CL/cl.h>
#include <pthread.h>
#include <stddef.h>

#include "rt_object.h"
#include "rt_recycle.h"

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
};

#endif
