/*
 * The context object (context.c). Its lock is a leaf (docs/locking.md).
 */
#ifndef KILN_RUNTIME_RT_CONTEXT_H
#define KILN_RUNTIME_RT_CONTEXT_H

#include <CL/cl.h>
#include <pthread.h>
#include <stddef.h>

#include "rt_object.h"

struct kiln_rt_callback;
struct kiln_rt_svm;

struct _cl_context {
    struct kiln_object obj;
    cl_device_id device;   /* devices[0] */
    cl_device_id *devices; /* held, without duplicates */
    cl_uint num_devices;
    cl_context_properties *props; /* copy, 0-terminated, NULL when none given */
    size_t num_props;             /* entries in props including the terminator */
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
    pthread_mutex_t lock;           /* leaf: guards dtors, svm and device_queues */
    struct kiln_rt_callback *dtors; /* under lock: destructor callbacks, newest first */
    struct kiln_rt_svm *svm;        /* under lock: clSVMAlloc allocations, newest first */
    /* under lock: the device queues whose API count is not zero, linked through
     * device_queue.next, newest first; each device's default among them is flagged
     * (queue.c). Not held: a queue leaves the list when its API count reaches zero. */
    cl_command_queue device_queues;
};

/* CL_SUCCESS when `d` is a device of `c`, else CL_INVALID_DEVICE with a message. */
cl_int kiln_rt_context_has_device(cl_context c, cl_device_id d);

#endif
