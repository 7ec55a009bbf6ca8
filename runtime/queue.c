/*
 * Command queues: host queues (in-order and out-of-order), markers and barriers, clFlush
 * and clFinish; and the host side of device queues (CL_QUEUE_ON_DEVICE), which
 * KILN_DEVICE_ENQUEUE=0 turns off (rt_device.h).
 *
 * Commands start as soon as their dependencies are met, so clFlush has nothing to
 * push. In an in-order queue clFinish waits for the newest command, which completes
 * after every earlier one; in an out-of-order queue it waits for a marker that
 * depends on every command still outstanding (command.c keeps that list).
 *
 * A device queue is created, queried, retained and released like a host queue, but
 * the host enqueues nothing to it: kiln_rt_check_queue, which every host command,
 * clFlush and clFinish check their queue with, refuses it. Each context lists its
 * live device queues (context->device_queues, under the context's lock), which is how
 * the default device queue is found and shared and how a queue_t kernel argument is
 * validated without reading the bytes the application passed.
 */
#include "rt_queue.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_object.h"
#include "rt_recycle.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Wait for every command enqueued so far in q (clFinish). */
static cl_int finish(cl_command_queue q);

static void drop_outstanding(cl_command_queue q)
{
    for (size_t i = 0; i < q->num_outstanding; i++)
        kiln_rt_obj_drop(&q->outstanding[i]->obj);
    q->num_outstanding = 0;
}

/* Take device queue q off its context's list (its API count reached zero). */
static void devq_unlist(cl_command_queue q)
{
    cl_context ctx = q->context;
    pthread_mutex_lock(&ctx->lock);
    for (cl_command_queue *p = &ctx->device_queues; *p; p = &(*p)->device_queue.next) {
        if (*p == q) {
            *p = q->device_queue.next;
            break;
        }
    }
    q->device_queue.next = NULL;
    q->device_queue.is_default = false;
    pthread_mutex_unlock(&ctx->lock);
}

/* The default device queue of ctx for dev, or NULL. Called with ctx->lock held. */
static cl_command_queue devq_default_locked(cl_context ctx, cl_device_id dev)
{
    for (cl_command_queue q = ctx->device_queues; q; q = q->device_queue.next)
        if (q->device == dev && q->device_queue.is_default)
            return q;
    return NULL;
}

cl_command_queue kiln_rt_devq_hold(cl_context ctx, cl_device_id dev, cl_command_queue q)
{
    cl_command_queue found = NULL;
    pthread_mutex_lock(&ctx->lock);
    if (!q)
        found = devq_default_locked(ctx, dev);
    for (cl_command_queue p = ctx->device_queues; q && p && !found; p = p->device_queue.next)
        if (p == q)
            found = p;
    /* Listed means not yet at its last release, which unlists it under this lock. */
    if (found)
        kiln_rt_obj_hold(&found->obj);
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

bool kiln_rt_devq_is_live(cl_context ctx, cl_command_queue q)
{
    bool found = false;
    pthread_mutex_lock(&ctx->lock);
    for (cl_command_queue p = ctx->device_queues; p && !found; p = p->device_queue.next)
        found = p == q;
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

cl_int kiln_rt_check_queue(cl_command_queue q)
{
    cl_int err = kiln_rt_check_any_queue(q);
    if (err == CL_SUCCESS && q->on_device)
        err = KILN_ERR(CL_INVALID_COMMAND_QUEUE,
                       "%p is a device queue: the host cannot enqueue to it, flush or finish it",
                       (void *)q);
    return err;
}

static void queue_destroy(struct kiln_object *obj)
{
    cl_command_queue q = (cl_command_queue)obj;
    /* No command can reach the device's queue any more: launches hold their queues. */
    if (q->device_queue.dev)
        q->device->ops->queue_release(q->device_queue.dev);
    if (q->last)
        kiln_rt_obj_drop(&q->last->obj);
    drop_outstanding(q);
    free(q->outstanding);
    kiln_rt_recycler_fini(&q->cmd_blocks);
    kiln_rt_recycler_fini(&q->event_blocks);
    pthread_mutex_destroy(&q->lock);
    kiln_rt_device_drop(q->device);
    kiln_rt_obj_drop(&q->context->obj);
    free(q->prop_list);
    free(q);
}

/* The application let go of the queue: nothing can be enqueued any more, so the
 * newest event need not be kept for ordering. Commands in flight keep the queue
 * alive through their events. */
static void queue_last_ref(struct kiln_object *obj)
{
    cl_command_queue q = (cl_command_queue)obj;
    if (q->on_device)
        devq_unlist(q);
    pthread_mutex_lock(&q->lock);
    cl_event last = q->last;
    q->last = NULL;
    cl_event *outstanding = q->outstanding;
    size_t num = q->num_outstanding;
    q->outstanding = NULL;
    q->num_outstanding = q->cap_outstanding = 0;
    pthread_mutex_unlock(&q->lock);
    if (last)
        kiln_rt_obj_drop(&last->obj);
    for (size_t i = 0; i < num; i++)
        kiln_rt_obj_drop(&outstanding[i]->obj);
    free(outstanding);
}

/*
 * The properties bit-field of either create call (OpenCL 3.0 §5.1, the table of
 * clCreateCommandQueueWithProperties): CL_QUEUE_ON_DEVICE_DEFAULT "can only be used with
 * CL_QUEUE_ON_DEVICE"; "If CL_QUEUE_ON_DEVICE is set, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
 * must also be set". Breaking those is an invalid value; a device queue on a device that
 * does not report them is a valid value the device does not support.
 */
static cl_int check_queue_props(cl_command_queue_properties props)
{
    const cl_command_queue_properties known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                              CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
                                              CL_QUEUE_ON_DEVICE_DEFAULT;
    if (props & ~known)
        return KILN_ERR(CL_INVALID_VALUE, "unknown queue properties 0x%llx",
                        (unsigned long long)props);
    if ((props & CL_QUEUE_ON_DEVICE_DEFAULT) && !(props & CL_QUEUE_ON_DEVICE))
        return KILN_ERR(CL_INVALID_VALUE, "CL_QUEUE_ON_DEVICE_DEFAULT without CL_QUEUE_ON_DEVICE");
    if ((props & CL_QUEUE_ON_DEVICE) && !kiln_rt_devenq_enabled())
        return KILN_ERR(CL_INVALID_QUEUE_PROPERTIES,
                        "the device does not report device-side queues (KILN_DEVICE_ENQUEUE=0)");
    if ((props & CL_QUEUE_ON_DEVICE) && !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return KILN_ERR(CL_INVALID_VALUE,
                        "CL_QUEUE_ON_DEVICE without CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE");
    return CL_SUCCESS;
}

static cl_int queue_create(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                           const cl_queue_properties *list, size_t list_len, cl_command_queue *out)
{
    cl_command_queue q = kiln_calloc(1, sizeof(*q));
    if (!q)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "queue");
    if (list_len) {
        q->prop_list = kiln_malloc(list_len * sizeof(*list));
        if (!q->prop_list) {
            free(q);
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "queue properties");
        }
        memcpy(q->prop_list, list, list_len * sizeof(*list));
        q->num_prop_list = list_len;
    }
    pthread_mutex_init(&q->lock, NULL);
    kiln_rt_recycler_init(&q->cmd_blocks, sizeof(struct kiln_rt_command));
    kiln_rt_recycler_init(&q->event_blocks, sizeof(struct _cl_event));
    kiln_rt_obj_init(&q->obj, KILN_TAG_QUEUE, queue_destroy);
    q->obj.last_ref = queue_last_ref;
    q->context = ctx;
    kiln_rt_obj_hold(&ctx->obj);
    q->device = dev;
    kiln_rt_device_hold(dev);
    q->props = props;
    q->on_device = (props & CL_QUEUE_ON_DEVICE) != 0;
    *out = q;
    return CL_SUCCESS;
}

/* The API count plus one, unless it already reached zero (the queue is being released). */
static bool retain_if_live(cl_command_queue q)
{
    unsigned refs = atomic_load_explicit(&q->obj.refs, memory_order_relaxed);
    while (refs != 0)
        if (atomic_compare_exchange_weak_explicit(&q->obj.refs, &refs, refs + 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            return true;
    return false;
}

/*
 * Put the new device queue q on its context's list, or, when it asks to be the default
 * and the device already has one, hand back that one instead (OpenCL 3.0 §5.1: such a call
 * "will return the default device queue that has already been created and increment its
 * retain count by 1"). *out is the queue the caller returns; when it is not q, q is released
 * here. CL_OUT_OF_RESOURCES when the device already has CL_DEVICE_MAX_ON_DEVICE_QUEUES
 * device queues in the context.
 */
static cl_int devq_register(cl_command_queue q, bool want_default, cl_command_queue *out)
{
    cl_context ctx = q->context;
    cl_command_queue existing = NULL;
    cl_uint count = 0;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    if (want_default) {
        existing = devq_default_locked(ctx, q->device);
        if (existing && !retain_if_live(existing))
            existing = NULL;
    }
    /* The default device queue is not counted: CL_DEVICE_MAX_ON_DEVICE_QUEUES others may
     * exist beside it (the conformance suite creates the default and then that many). */
    for (cl_command_queue p = ctx->device_queues; p && !existing; p = p->device_queue.next)
        count += p->device == q->device && !p->device_queue.is_default;
    if (!existing && !want_default && count >= KILN_RT_DEVQ_MAX_QUEUES)
        err = KILN_ERR(CL_OUT_OF_RESOURCES,
                       "the device already has %u device queues besides the default in this "
                       "context (CL_DEVICE_MAX_ON_DEVICE_QUEUES)",
                       count);
    if (!existing && err == CL_SUCCESS) {
        q->device_queue.is_default = want_default;
        q->device_queue.next = ctx->device_queues;
        ctx->device_queues = q;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (existing || err != CL_SUCCESS) {
        q->on_device = false; /* never listed: nothing to take off the list */
        kiln_rt_obj_release(&q->obj);
    }
    *out = err == CL_SUCCESS ? (existing ? existing : q) : NULL;
    return err;
}

static cl_int check_ctx_device(cl_context ctx, cl_device_id dev)
{
    cl_int err = kiln_rt_check_context(ctx);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_device(dev);
    if (err == CL_SUCCESS)
        err = kiln_rt_context_has_device(ctx, dev);
    return err;
}

cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context, cl_device_id device,
                                                  cl_command_queue_properties properties,
                                                  cl_int *errcode_ret)
{
    cl_command_queue q = NULL;
    cl_int err = check_ctx_device(context, device);
    /* OpenCL 3.0 §5.1: its table lists only these two; anything else is not valid. */
    if (err == CL_SUCCESS && (properties & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)))
        err = KILN_ERR(CL_INVALID_VALUE, "clCreateCommandQueue cannot make a device queue");
    if (err == CL_SUCCESS)
        err = check_queue_props(properties);
    if (err == CL_SUCCESS)
        err = queue_create(context, device, properties, NULL, 0, &q);
    kiln_set_errcode(errcode_ret, err);
    return q;
}

cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                   const cl_queue_properties *properties, cl_int *errcode_ret)
{
    cl_command_queue q = NULL;
    cl_command_queue_properties props = 0;
    cl_queue_properties size = 0;
    bool has_size = false;
    size_t len = 0;
    cl_int err = check_ctx_device(context, device);
    for (size_t i = 0; err == CL_SUCCESS && properties && properties[i]; i += 2) {
        if (properties[i] == CL_QUEUE_PROPERTIES) {
            props = (cl_command_queue_properties)properties[i + 1];
        } else if (properties[i] == CL_QUEUE_SIZE) {
            size = properties[i + 1];
            has_size = true;
        } else {
            err = KILN_ERR(CL_INVALID_VALUE, "unknown queue property 0x%lx",
                           (unsigned long)properties[i]);
        }
        len = i + 3;
    }
    if (err == CL_SUCCESS)
        err = check_queue_props(props);
    /* §5.1: CL_QUEUE_SIZE "can only be specified if CL_QUEUE_ON_DEVICE is set" and "must be
     * a value <= CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE"; a queue of 0 bytes could hold nothing. */
    if (err == CL_SUCCESS && has_size && !(props & CL_QUEUE_ON_DEVICE))
        err = KILN_ERR(CL_INVALID_VALUE, "CL_QUEUE_SIZE without CL_QUEUE_ON_DEVICE");
    if (err == CL_SUCCESS && has_size && (size == 0 || size > KILN_RT_DEVQ_MAX_SIZE))
        err = KILN_ERR(CL_INVALID_VALUE,
                       "CL_QUEUE_SIZE %llu: not between 1 and CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE "
                       "(%u)",
                       (unsigned long long)size, KILN_RT_DEVQ_MAX_SIZE);
    if (err == CL_SUCCESS)
        err =
            queue_create(context, device, props, properties, properties ? (len ? len : 1) : 0, &q);
    if (err == CL_SUCCESS && q->on_device) {
        q->device_queue.size = has_size ? (cl_uint)size : KILN_RT_DEVQ_PREFERRED_SIZE;
        err = q->device->ops->queue_create(q->device->dev, q->device_queue.size,
                                           &q->device_queue.dev);
        if (err != CL_SUCCESS) {
            q->on_device = false; /* never listed: nothing to take off the list */
            kiln_rt_obj_release(&q->obj);
            q = NULL;
            err = KILN_ERR(err, "no memory for the device queue");
        }
    }
    if (err == CL_SUCCESS && q->on_device)
        err = devq_register(q, (props & CL_QUEUE_ON_DEVICE_DEFAULT) != 0, &q);
    kiln_set_errcode(errcode_ret, err);
    return q;
}

cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context context, cl_device_id device,
                                                  cl_command_queue command_queue)
{
    cl_int err = check_ctx_device(context, device);
    if (err == CL_SUCCESS && !kiln_rt_devenq_enabled())
        err = KILN_ERR(CL_INVALID_OPERATION,
                       "the device does not report a replaceable default device queue "
                       "(KILN_DEVICE_ENQUEUE=0)");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_any_queue(command_queue);
    if (err == CL_SUCCESS && !command_queue->on_device)
        err = KILN_ERR(CL_INVALID_COMMAND_QUEUE, "%p is a host queue, not a device queue",
                       (void *)command_queue);
    if (err == CL_SUCCESS && (command_queue->context != context || command_queue->device != device))
        err =
            KILN_ERR(CL_INVALID_COMMAND_QUEUE,
                     "device queue %p belongs to another context or device", (void *)command_queue);
    if (err == CL_SUCCESS) {
        pthread_mutex_lock(&context->lock);
        for (cl_command_queue p = context->device_queues; p; p = p->device_queue.next)
            if (p->device == device)
                p->device_queue.is_default = p == command_queue;
        pthread_mutex_unlock(&context->lock);
    }
    return err;
}

cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q)
{
    cl_int err = kiln_rt_check_any_queue(q);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&q->obj);
    return err;
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q)
{
    cl_int err = kiln_rt_check_any_queue(q);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&q->obj); /* commands in flight hold it through their events */
    return err;
}

cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param_name,
                                         size_t param_value_size, void *param_value,
                                         size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_any_queue(q);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    cl_command_queue dflt;
    switch (param_name) {
    case CL_QUEUE_CONTEXT:
        return kiln_rt_info(&q->context, sizeof(q->context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_QUEUE_DEVICE:
        return kiln_rt_info(&q->device, sizeof(q->device), param_value_size, param_value,
                            param_value_size_ret);
    case CL_QUEUE_REFERENCE_COUNT:
        u = atomic_load_explicit(&q->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_PROPERTIES:
        return kiln_rt_info(&q->props, sizeof(q->props), param_value_size, param_value,
                            param_value_size_ret);
    case CL_QUEUE_PROPERTIES_ARRAY:
        return kiln_rt_info(q->prop_list, q->num_prop_list * sizeof(cl_queue_properties),
                            param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_DEVICE_DEFAULT:
        /* §5.1: "the current default command-queue for the underlying device", asked of a
         * host queue too; NULL when there is none. Not retained. */
        pthread_mutex_lock(&q->context->lock);
        dflt = devq_default_locked(q->context, q->device);
        pthread_mutex_unlock(&q->context->lock);
        return kiln_rt_info(&dflt, sizeof(dflt), param_value_size, param_value,
                            param_value_size_ret);
    case CL_QUEUE_SIZE:
        if (!q->on_device)
            return KILN_ERR(CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE of a host queue");
        return kiln_rt_info(&q->device_queue.size, sizeof(q->device_queue.size), param_value_size,
                            param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown queue query 0x%x", param_name);
    }
}

cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue q,
                                             cl_command_queue_properties properties, cl_bool enable,
                                             cl_command_queue_properties *old)
{
    (void)properties;
    (void)enable;
    (void)old;
    cl_int err = kiln_rt_check_any_queue(q);
    if (err != CL_SUCCESS)
        return err;
    return KILN_ERR(CL_INVALID_OPERATION, "clSetCommandQueueProperty is deprecated since 1.1");
}

cl_int CL_API_CALL clFlush(cl_command_queue q)
{
    return kiln_rt_check_queue(q);
}

cl_int CL_API_CALL clFinish(cl_command_queue q)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = finish(q);
    return err;
}

static cl_int enqueue_marker(cl_command_queue q, cl_command_type type, cl_uint n,
                             const cl_event *list, cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_MARKER, type, &cmd);
    if (err == CL_SUCCESS)
        err = kiln_rt_command_submit(cmd, n, list, event, false);
    return err;
}

static cl_int finish(cl_command_queue q)
{
    if (q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        /* A marker with an empty wait list waits for every earlier command. */
        struct kiln_rt_command *cmd = NULL;
        cl_int err = kiln_rt_command_create(q, KILN_CMD_MARKER, CL_COMMAND_MARKER, &cmd);
        if (err == CL_SUCCESS)
            err = kiln_rt_command_submit(cmd, 0, NULL, NULL, true);
        /* Earlier commands that failed do not make clFinish fail. */
        return err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? CL_SUCCESS : err;
    }
    pthread_mutex_lock(&q->lock);
    cl_event last = q->last;
    if (last)
        kiln_rt_obj_hold(&last->obj);
    pthread_mutex_unlock(&q->lock);
    if (last) {
        kiln_rt_event_wait(last);
        kiln_rt_obj_drop(&last->obj);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *list,
                                               cl_event *event)
{
    return enqueue_marker(q, CL_COMMAND_MARKER, n, list, event);
}

cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event *list,
                                                cl_event *event)
{
    return enqueue_marker(q, CL_COMMAND_BARRIER, n, list, event);
}

cl_int CL_API_CALL clEnqueueMarker(cl_command_queue q, cl_event *event)
{
    if (event == NULL && kiln_rt_check_queue(q) == CL_SUCCESS)
        return KILN_ERR(CL_INVALID_VALUE, "event is NULL");
    return enqueue_marker(q, CL_COMMAND_MARKER, 0, NULL, event);
}

cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue q)
{
    return enqueue_marker(q, CL_COMMAND_BARRIER, 0, NULL, NULL);
}

cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *list)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (n == 0 || list == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_events %u, event_list %p", n, (void *)list);
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++) {
        if (!kiln_rt_obj_is(list[i], KILN_TAG_EVENT))
            err = KILN_ERR(CL_INVALID_EVENT, "entry %u is not an event", i);
        else if (list[i]->context != q->context)
            err = KILN_ERR(CL_INVALID_CONTEXT, "event %u belongs to another context", i);
    }
    if (err == CL_SUCCESS)
        err = enqueue_marker(q, CL_COMMAND_BARRIER, n, list, NULL);
    return err;
}
