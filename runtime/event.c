/*
 * Events: command events and user events (clWaitForEvents, clGetEventInfo,
 * clGetEventProfilingInfo, clRetain/ReleaseEvent, clCreateUserEvent,
 * clSetUserEventStatus, clSetEventCallback).
 *
 * Status moves QUEUED -> SUBMITTED -> RUNNING -> COMPLETE, or to a negative error,
 * once. Finishing an event wakes its waiters (threads in kiln_rt_event_wait) and
 * releases the commands that depend on it (command.c) after its lock is dropped.
 */
#include "rt_command.h"
#include "rt_callback.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_object.h"
#include "rt_queue.h"
#include "rt_recycle.h"

#include "kiln_alloc.h"
#include "kiln_device.h"

#include <pthread.h>
#include <stdlib.h>

static void free_callbacks(struct kiln_rt_callback *cb)
{
    while (cb) {
        struct kiln_rt_callback *next = cb->next;
        free(cb);
        cb = next;
    }
}

/*
 * Call the callbacks of a detached list, in registration order, with no lock held.
 * `status` is the event's status: a negative one is passed on as it is, otherwise
 * each callback gets the status it registered for (OpenCL 3.0 §5.11).
 */
static void call_callbacks(cl_event e, struct kiln_rt_callback *cb, cl_int status)
{
    while (cb) {
        struct kiln_rt_callback *next = cb->next;
        ((void(CL_CALLBACK *)(cl_event, cl_int, void *))cb->fn)(e, status < 0 ? status : cb->type,
                                                                cb->user_data);
        free(cb);
        cb = next;
    }
}

/* Under e->lock: unlink the callbacks whose status has been reached or passed. */
static struct kiln_rt_callback *take_callbacks(cl_event e, cl_int status)
{
    struct kiln_rt_callback *due = NULL, **due_tail = &due;
    struct kiln_rt_callback **p = &e->callbacks;
    while (*p) {
        struct kiln_rt_callback *cb = *p;
        if (status <= cb->type) {
            *p = cb->next;
            cb->next = NULL;
            *due_tail = cb;
            due_tail = &cb->next;
        } else {
            p = &cb->next;
        }
    }
    e->callbacks_tail = p;
    return due;
}

static void event_destroy(struct kiln_object *obj)
{
    cl_event e = (cl_event)obj;
    free_callbacks(e->callbacks); /* registered for a status never reached */
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
    cl_context ctx = e->context;
    cl_command_queue q = e->queue;
    if (q) {
        /* Back to the queue's blocks first: the queue outlives the put through our hold. */
        kiln_rt_recycle_put(&q->event_blocks, e);
        kiln_rt_obj_drop(&q->obj);
    } else {
        free(e);
        kiln_rt_obj_drop(&ctx->obj);
    }
}

cl_int kiln_rt_event_create(cl_context ctx, cl_command_queue q, cl_command_type type, cl_event *out)
{
    cl_event e = q ? kiln_rt_recycle_get(&q->event_blocks) : kiln_calloc(1, sizeof(*e));
    if (!e)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "event");
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    e->callbacks_tail = &e->callbacks;
    kiln_rt_obj_init(&e->obj, KILN_TAG_EVENT, event_destroy);
    /* A command's event holds its queue, which holds the context: one count fewer to
     * move per command, on a line the application thread and the workers share. */
    e->context = ctx;
    e->queue = q;
    kiln_rt_obj_hold(q ? &q->obj : &ctx->obj);
    atomic_init(&e->has_callbacks, false);
    e->type = type;
    atomic_init(&e->status, q ? CL_QUEUED : CL_SUBMITTED);
    /* Timestamps only where they can be asked for: reading the clock costs per command. */
    e->profiled = q && (q->props & CL_QUEUE_PROFILING_ENABLE);
    e->t_queued = e->profiled ? kiln_rt_now_ns() : 0;
    *out = e;
    return CL_SUCCESS;
}

/*
 * Without profiling and callbacks a starting command needs no lock: it stores RUNNING
 * and is done. The store and clSetEventCallback's store of has_callbacks are seq_cst,
 * each followed by a seq_cst load of the other word, so at least one side sees the
 * other: either this finds has_callbacks and takes the callbacks under the lock, or the
 * registration finds RUNNING and calls its callback at once. Nothing else moves the status
 * meanwhile: the launching thread starts the event before it submits the command's job,
 * and the event is finished only after that job (or instead of it).
 */
void kiln_rt_event_start(cl_event e)
{
    if (!e->profiled) {
        atomic_store_explicit(&e->status, CL_RUNNING, memory_order_seq_cst);
        if (!atomic_load_explicit(&e->has_callbacks, memory_order_seq_cst))
            return;
    }
    cl_ulong now = e->profiled ? kiln_rt_now_ns() : 0;
    pthread_mutex_lock(&e->lock);
    e->t_submit = e->t_start = now;
    atomic_store_explicit(&e->status, CL_RUNNING, memory_order_seq_cst);
    /* SUBMITTED's callbacks first, then RUNNING's. */
    struct kiln_rt_callback *submitted = take_callbacks(e, CL_SUBMITTED);
    struct kiln_rt_callback *running = take_callbacks(e, CL_RUNNING);
    pthread_mutex_unlock(&e->lock);
    call_callbacks(e, submitted, CL_SUBMITTED);
    call_callbacks(e, running, CL_RUNNING);
}

bool kiln_rt_event_finish(cl_event e, cl_int status)
{
    cl_ulong now = e->profiled ? kiln_rt_now_ns() : 0;
    pthread_mutex_lock(&e->lock);
    if (atomic_load_explicit(&e->status, memory_order_relaxed) <= CL_COMPLETE) {
        pthread_mutex_unlock(&e->lock);
        return false;
    }
    if (!e->t_submit)
        e->t_submit = now;
    if (!e->t_start)
        e->t_start = now;
    e->t_end = now;
    /* release: everything the command wrote happens before a waiter sees the status */
    atomic_store_explicit(&e->status, status, memory_order_release);
    struct kiln_rt_dep *waiters = e->waiters;
    e->waiters = NULL;
    struct kiln_rt_callback *due = take_callbacks(e, status);
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);

    /* The callbacks run before the dependent commands are released: the caller
     * holds the event until this returns. */
    call_callbacks(e, due, status);

    while (waiters) {
        struct kiln_rt_dep *next = waiters->next;
        kiln_rt_command_dep_met(waiters, status);
        waiters = next;
    }
    return true;
}

cl_int kiln_rt_event_wait(cl_event e)
{
    cl_int st = atomic_load_explicit(&e->status, memory_order_acquire);
    if (st <= CL_COMPLETE)
        return st;
    /*
     * Rather than sleep while work is queued, run it: a small command then completes on
     * this thread without waiting for a worker to wake up (DESIGN.md §5). Only when nothing
     * is left to claim, or another waiting thread is already helping, sleep.
     */
    if (e->queue) {
        const cl_device_id d = e->queue->device;
        while (atomic_load_explicit(&e->status, memory_order_acquire) > CL_COMPLETE &&
               d->ops->help(d->dev) > 0)
            ;
    }
    pthread_mutex_lock(&e->lock);
    while ((st = atomic_load_explicit(&e->status, memory_order_acquire)) > CL_COMPLETE)
        pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    return st;
}

cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
    if (num_events == 0 || event_list == NULL)
        return KILN_ERR(CL_INVALID_VALUE, "num_events %u, event_list %p", num_events,
                        (void *)event_list);
    for (cl_uint i = 0; i < num_events; i++) {
        cl_int err = kiln_rt_check_event(event_list[i]);
        if (err != CL_SUCCESS)
            return err;
        if (event_list[i]->context != event_list[0]->context)
            return KILN_ERR(CL_INVALID_CONTEXT, "event %u belongs to another context", i);
    }
    cl_int result = CL_SUCCESS;
    for (cl_uint i = 0; i < num_events; i++)
        if (kiln_rt_event_wait(event_list[i]) < 0)
            result = KILN_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                              "event %u ended with an error", i);
    return result;
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name, size_t param_value_size,
                                  void *param_value, size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_event(event);
    if (err != CL_SUCCESS)
        return err;
    cl_int st;
    cl_uint u;
    switch (param_name) {
    case CL_EVENT_COMMAND_QUEUE:
        return kiln_rt_info(&event->queue, sizeof(event->queue), param_value_size, param_value,
                            param_value_size_ret);
    case CL_EVENT_CONTEXT:
        return kiln_rt_info(&event->context, sizeof(event->context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_EVENT_COMMAND_TYPE:
        return kiln_rt_info(&event->type, sizeof(event->type), param_value_size, param_value,
                            param_value_size_ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        st = atomic_load_explicit(&event->status, memory_order_acquire);
        return kiln_rt_info(&st, sizeof(st), param_value_size, param_value, param_value_size_ret);
    case CL_EVENT_REFERENCE_COUNT:
        u = atomic_load_explicit(&event->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown event query 0x%x", param_name);
    }
}

cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name,
                                           size_t param_value_size, void *param_value,
                                           size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_event(event);
    if (err != CL_SUCCESS)
        return err;
    if (!event->queue || !(event->queue->props & CL_QUEUE_PROFILING_ENABLE))
        return KILN_ERR(CL_PROFILING_INFO_NOT_AVAILABLE,
                        "the event's queue was created without CL_QUEUE_PROFILING_ENABLE");
    if (atomic_load_explicit(&event->status, memory_order_acquire) != CL_COMPLETE)
        return KILN_ERR(CL_PROFILING_INFO_NOT_AVAILABLE, "the command has not completed");
    cl_ulong t;
    pthread_mutex_lock(&event->lock);
    switch (param_name) {
    case CL_PROFILING_COMMAND_QUEUED:
        t = event->t_queued;
        break;
    case CL_PROFILING_COMMAND_SUBMIT:
        t = event->t_submit;
        break;
    case CL_PROFILING_COMMAND_START:
        t = event->t_start;
        break;
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE:
        t = event->t_end;
        break;
    default:
        pthread_mutex_unlock(&event->lock);
        return KILN_ERR(CL_INVALID_VALUE, "unknown profiling query 0x%x", param_name);
    }
    pthread_mutex_unlock(&event->lock);
    return kiln_rt_info(&t, sizeof(t), param_value_size, param_value, param_value_size_ret);
}

cl_int CL_API_CALL clRetainEvent(cl_event event)
{
    cl_int err = kiln_rt_check_event(event);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&event->obj);
    return err;
}

cl_int CL_API_CALL clReleaseEvent(cl_event event)
{
    cl_int err = kiln_rt_check_event(event);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&event->obj);
    return err;
}

cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
    cl_event e = NULL;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = kiln_rt_event_create(context, NULL, CL_COMMAND_USER, &e);
    kiln_set_errcode(errcode_ret, err);
    return e;
}

cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int execution_status)
{
    cl_int err = kiln_rt_check_event(event);
    if (err != CL_SUCCESS)
        return err;
    if (event->type != CL_COMMAND_USER)
        return KILN_ERR(CL_INVALID_EVENT, "not a user event");
    if (execution_status > CL_COMPLETE)
        return KILN_ERR(CL_INVALID_VALUE, "status %d is neither CL_COMPLETE nor negative",
                        execution_status);
    if (!kiln_rt_event_finish(event, execution_status))
        return KILN_ERR(CL_INVALID_OPERATION, "the user event's status was already set");
    return CL_SUCCESS;
}

cl_int CL_API_CALL clSetEventCallback(cl_event event, cl_int type,
                                      void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                                      void *user_data)
{
    cl_int err = kiln_rt_check_event(event);
    if (err == CL_SUCCESS &&
        (fn == NULL || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE)))
        err = KILN_ERR(CL_INVALID_VALUE, "pfn_notify %p, type %d", (void *)fn, type);
    struct kiln_rt_callback *cb = NULL;
    if (err == CL_SUCCESS && !(cb = kiln_calloc(1, sizeof(*cb))))
        err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "callback record");
    if (err != CL_SUCCESS)
        return err;
    cb->fn = (void (*)(void))fn;
    cb->user_data = user_data;
    cb->type = type;
    atomic_store_explicit(&event->has_callbacks, true, memory_order_seq_cst);
    pthread_mutex_lock(&event->lock);
    cl_int st = atomic_load_explicit(&event->status, memory_order_seq_cst);
    if (st > type) {
        *event->callbacks_tail = cb;
        event->callbacks_tail = &cb->next;
        cb = NULL;
    }
    pthread_mutex_unlock(&event->lock);
    /* Already reached or passed: call it now, on this thread, with no lock held. */
    if (cb)
        call_callbacks(event, cb, st);
    return CL_SUCCESS;
}
