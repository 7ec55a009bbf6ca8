/*
 * The command graph: every enqueued command waits for its wait list and, in an
 * in-order queue, for the command before it; once its dependencies are met it is
 * launched on its device through the device's operations (kiln_device.h), which
 * report its end through the launch record's completion callback.
 *
 * Counting: cmd->pending starts at 1 (a guard held while dependencies are being
 * attached) plus one per unfinished dependency. Whoever brings it to zero makes the
 * command ready. Ready commands go through a per-thread list so that a chain of
 * completions never recurses (a completion may make the next command ready, whose
 * completion makes the next ready, ...).
 *
 * A command holds its event, its queue (through the event), its kernel and the
 * memory objects it touches until it completes (OpenCL 3.0 §5.4.1 deferred release).
 */
#include "rt_command.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_mem.h"
#include "rt_object.h"
#include "rt_program.h"
#include "rt_queue.h"
#include "rt_recycle.h"

#include "kiln_abi.h"
#include "kiln_alloc.h"
#include "kiln_device.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

static void command_free(struct kiln_rt_command *cmd);

static _Thread_local struct kiln_rt_command *ready_head, *ready_tail;
static _Thread_local bool draining;

cl_int kiln_rt_command_create(cl_command_queue q, enum kiln_rt_cmd_kind kind, cl_command_type type,
                              struct kiln_rt_command **out)
{
    struct kiln_rt_command *cmd = kiln_rt_recycle_get(&q->cmd_blocks);
    if (!cmd)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "command");
    cl_int err = kiln_rt_event_create(q->context, q, type, &cmd->event);
    if (err != CL_SUCCESS) {
        kiln_rt_recycle_put(&q->cmd_blocks, cmd);
        return err;
    }
    /* The event's first API reference goes to the caller of the enqueue, or is
     * released at submission when nobody asked for the event; the command holds it
     * internally until it is freed. */
    kiln_rt_obj_hold(&cmd->event->obj);
    cmd->kind = kind;
    cmd->queue = q;
    atomic_init(&cmd->pending, 1);
    atomic_init(&cmd->dep_fail, 0);
    *out = cmd;
    return CL_SUCCESS;
}

void kiln_rt_command_discard(struct kiln_rt_command *cmd)
{
    kiln_rt_obj_release(&cmd->event->obj);
    command_free(cmd);
}

/*
 * The objects a command holds go before its event completes: a host thread that sees the
 * event complete (clFinish, a blocking read after it) and then releases the last handle of
 * a kernel must find the kernel gone, or clBuildProgram on its program would still refuse
 * (kernel objects attached). Safe to call twice.
 */
static void command_drop_held(struct kiln_rt_command *cmd)
{
    for (int i = 0; i < 2; i++)
        if (cmd->mems[i]) {
            kiln_rt_obj_drop(&cmd->mems[i]->obj);
            cmd->mems[i] = NULL;
        }
    if (cmd->kind == KILN_CMD_NDRANGE) {
        if (cmd->u.nd.kernel) {
            kiln_rt_obj_drop(&cmd->u.nd.kernel->obj);
            cmd->u.nd.kernel = NULL;
        }
        for (unsigned i = 0; i < cmd->u.nd.num_held; i++)
            kiln_rt_obj_drop(&cmd->u.nd.held[i]->obj);
        cmd->u.nd.num_held = 0;
        kiln_rt_enqueue_release(&cmd->u.nd);
    }
    if (cmd->kind == KILN_CMD_NATIVE) {
        for (cl_uint i = 0; i < cmd->u.native.num_held; i++)
            kiln_rt_obj_drop(&cmd->u.native.held[i]->obj);
        cmd->u.native.num_held = 0;
    }
}

static void command_free(struct kiln_rt_command *cmd)
{
    command_drop_held(cmd);
    if (cmd->kind == KILN_CMD_NDRANGE && (unsigned char *)cmd->u.nd.work.args != cmd->inline_args)
        free(cmd->u.nd.work.args); /* the held list and the argument store with it */
    if (cmd->kind == KILN_CMD_NATIVE) {
        free(cmd->u.native.held);
        free(cmd->u.native.work.args);
    }
    if (cmd->kind == KILN_CMD_SVM_FREE)
        free(cmd->u.svm_free.ptrs); /* a command that never ran */
    if (cmd->deps != cmd->inline_deps)
        free(cmd->deps);
    free(cmd->owned);
    /* The event holds the queue, so the block goes back before the event may go. */
    cl_event ev = cmd->event;
    kiln_rt_recycle_put(&cmd->queue->cmd_blocks, cmd);
    kiln_rt_obj_drop(&ev->obj);
}

cl_int kiln_rt_check_wait_list(cl_command_queue q, cl_uint num_events, const cl_event *wait_list)
{
    if ((num_events == 0) != (wait_list == NULL))
        return KILN_ERR(CL_INVALID_EVENT_WAIT_LIST, "num_events_in_wait_list %u with list %p",
                        num_events, (void *)wait_list);
    for (cl_uint i = 0; i < num_events; i++) {
        if (!kiln_rt_obj_is(wait_list[i], KILN_TAG_EVENT))
            return KILN_ERR(CL_INVALID_EVENT_WAIT_LIST, "entry %u is not an event", i);
        if (wait_list[i]->context != q->context)
            return KILN_ERR(CL_INVALID_CONTEXT, "event %u belongs to another context", i);
    }
    return CL_SUCCESS;
}

/* ---- running ------------------------------------------------------------------- */

static void complete(struct kiln_rt_command *cmd, cl_int status)
{
    command_drop_held(cmd);
    kiln_rt_event_finish(cmd->event, status);
    command_free(cmd);
}

/* The device's completion callback: the work ended, its printf output is already out. */
static void launch_done(struct kiln_dev_launch *l, cl_int status)
{
    struct kiln_rt_command *cmd =
        (struct kiln_rt_command *)((char *)l - offsetof(struct kiln_rt_command, launch));
    if (l->note)
        KILN_LOG(KILN_DBG_WARN, "%s", l->note);
    complete(cmd, status);
}

/* clEnqueueSVMFree's command: its callback (the application's, or svm.c's), then the copy. */
static void svm_free_run(struct kiln_rt_svm_free *f, cl_command_queue q)
{
    f->fn(q, f->num, f->ptrs, f->user_data);
    free(f->ptrs);
    f->ptrs = NULL;
}

static void launch(struct kiln_rt_command *cmd)
{
    if (atomic_load_explicit(&cmd->dep_fail, memory_order_acquire)) {
        complete(cmd, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return;
    }
    kiln_rt_event_start(cmd->event);
    const cl_device_id d = cmd->queue->device;
    struct kiln_dev_launch *l = &cmd->launch;
    l->done = launch_done;
    cl_int err = CL_SUCCESS;
    switch (cmd->kind) {
    case KILN_CMD_NDRANGE:
        err = d->ops->ndrange(d->dev, &cmd->u.nd.work, l);
        break;
    case KILN_CMD_READ:
    case KILN_CMD_WRITE:
    case KILN_CMD_COPY:
        err = d->ops->copy(d->dev, &cmd->u.copy, l);
        break;
    case KILN_CMD_FILL:
        err = d->ops->fill(d->dev, &cmd->u.copy, l);
        break;
    case KILN_CMD_RECT:
        err = d->ops->rect(d->dev, &cmd->u.rect, l);
        break;
    case KILN_CMD_NATIVE:
        err = d->ops->native(d->dev, &cmd->u.native.work, l);
        break;
    case KILN_CMD_MAP:
    case KILN_CMD_UNMAP:
    case KILN_CMD_MARKER:
    case KILN_CMD_MIGRATE:
        /* Mapping is zero-copy and host and device share memory: nothing to run. */
        complete(cmd, CL_COMPLETE);
        return;
    case KILN_CMD_SVM_FREE:
        /* The callback runs here, on the thread that launches the command, no lock held. */
        svm_free_run(&cmd->u.svm_free, cmd->queue);
        complete(cmd, CL_COMPLETE);
        return;
    }
    /* Refused: nothing ran and done will not be called. */
    if (err != CL_SUCCESS)
        complete(cmd, KILN_ERR(err, "the device refused the command: %s", l->note));
}

static void make_ready(struct kiln_rt_command *cmd)
{
    cmd->next_ready = NULL;
    if (ready_tail)
        ready_tail->next_ready = cmd;
    else
        ready_head = cmd;
    ready_tail = cmd;
    if (draining)
        return;
    draining = true;
    while (ready_head) {
        struct kiln_rt_command *c = ready_head;
        ready_head = c->next_ready;
        if (!ready_head)
            ready_tail = NULL;
        launch(c);
    }
    draining = false;
}

static void pending_put(struct kiln_rt_command *cmd)
{
    /* acq_rel: the last dependency's effects are visible to whoever launches */
    if (atomic_fetch_sub_explicit(&cmd->pending, 1, memory_order_acq_rel) == 1)
        make_ready(cmd);
}

void kiln_rt_command_dep_met(struct kiln_rt_dep *dep, cl_int status)
{
    if (status < 0 && dep->propagate_failure)
        atomic_store_explicit(&dep->cmd->dep_fail, 1, memory_order_release);
    pending_put(dep->cmd);
}

/* Attach one edge; returns false when the event had already ended (no edge kept). */
static void depend(struct kiln_rt_command *cmd, struct kiln_rt_dep *dep, cl_event e, bool propagate)
{
    dep->cmd = cmd;
    dep->propagate_failure = propagate;
    pthread_mutex_lock(&e->lock);
    cl_int st = atomic_load_explicit(&e->status, memory_order_acquire);
    if (st > CL_COMPLETE) {
        atomic_fetch_add_explicit(&cmd->pending, 1, memory_order_relaxed);
        dep->next = e->waiters;
        e->waiters = dep;
    }
    pthread_mutex_unlock(&e->lock);
    if (st < 0 && propagate)
        atomic_store_explicit(&cmd->dep_fail, 1, memory_order_release);
}

/* Under q->lock: drop the events of outstanding commands that have ended. Dropping
 * cannot destroy the queue (the caller holds it) and an event's destroy takes no
 * lock and calls nothing back. */
static void prune_outstanding(cl_command_queue q)
{
    size_t kept = 0;
    for (size_t i = 0; i < q->num_outstanding; i++) {
        cl_event e = q->outstanding[i];
        if (atomic_load_explicit(&e->status, memory_order_acquire) <= CL_COMPLETE)
            kiln_rt_obj_drop(&e->obj);
        else
            q->outstanding[kept++] = e;
    }
    q->num_outstanding = kept;
}

/*
 * Under q->lock, for an out-of-order queue: attach the queue's implicit
 * dependencies of cmd and record its event. OpenCL 3.0 §5.13: a marker or barrier
 * with an empty wait list waits for every earlier command; a barrier also makes
 * every later command wait for it. Other commands wait only for the newest
 * barrier. `deps` has room for the outstanding events plus one.
 */
static cl_int order_out_of_order(struct kiln_rt_command *cmd, bool after_all, bool barrier,
                                 struct kiln_rt_dep *deps)
{
    cl_command_queue q = cmd->queue;
    /* Room for this command's event first, so that a failure attaches nothing. */
    if (q->num_outstanding == q->cap_outstanding) {
        size_t cap = q->cap_outstanding ? 2 * q->cap_outstanding : 16;
        cl_event *grown = kiln_realloc(q->outstanding, cap * sizeof(*grown));
        if (!grown)
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "out-of-order queue bookkeeping");
        q->outstanding = grown;
        q->cap_outstanding = cap;
    }
    size_t used = 0;
    if (q->last)
        depend(cmd, &deps[used++], q->last, false);
    if (after_all)
        for (size_t i = 0; i < q->num_outstanding; i++)
            depend(cmd, &deps[used++], q->outstanding[i], false);
    if (barrier && after_all) {
        for (size_t i = 0; i < q->num_outstanding; i++)
            kiln_rt_obj_drop(&q->outstanding[i]->obj);
        q->num_outstanding = 0;
    }
    kiln_rt_obj_hold(&cmd->event->obj);
    q->outstanding[q->num_outstanding++] = cmd->event;
    if (barrier) {
        if (q->last)
            kiln_rt_obj_drop(&q->last->obj);
        kiln_rt_obj_hold(&cmd->event->obj);
        q->last = cmd->event;
    }
    return CL_SUCCESS;
}

void kiln_rt_command_hold(struct kiln_rt_command *cmd, cl_mem mem_a, cl_mem mem_b)
{
    cl_mem mems[2] = {mem_a, mem_b};
    for (int i = 0; i < 2; i++)
        if (mems[i]) {
            cmd->mems[i] = mems[i];
            kiln_rt_obj_hold(&mems[i]->obj);
        }
}

cl_int kiln_rt_command_submit(struct kiln_rt_command *cmd, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event_ret, bool blocking)
{
    cl_command_queue q = cmd->queue;
    const bool ooo = q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    const bool after_all = cmd->kind == KILN_CMD_MARKER && num_events == 0;
    const bool barrier = cmd->event->type == CL_COMMAND_BARRIER;

    /* Out of order, the implicit edges are known only under the queue's lock: take
     * it first and size the edges for them (lock order: queue, then event). */
    size_t implicit = 1;
    if (ooo) {
        pthread_mutex_lock(&q->lock);
        prune_outstanding(q);
        if (after_all)
            implicit += q->num_outstanding;
    }
    cmd->num_deps = (size_t)num_events + implicit;
    cmd->deps = cmd->num_deps <= KILN_RT_INLINE_DEPS
                    ? cmd->inline_deps
                    : kiln_calloc(cmd->num_deps, sizeof(*cmd->deps));
    cl_int err = CL_SUCCESS;
    if (!cmd->deps)
        err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "command dependencies");
    if (err == CL_SUCCESS && ooo)
        err = order_out_of_order(cmd, after_all, barrier, &cmd->deps[num_events]);
    if (err != CL_SUCCESS) { /* no edge was attached: the command can go */
        if (ooo)
            pthread_mutex_unlock(&q->lock);
        kiln_rt_command_discard(cmd);
        return err;
    }
    cl_event ev = cmd->event;
    /* The caller's reference and the blocking wait need the event beyond completion. */
    if (!event_ret)
        kiln_rt_obj_release(&ev->obj);
    if (blocking)
        kiln_rt_obj_hold(&ev->obj);

    for (cl_uint i = 0; i < num_events; i++)
        depend(cmd, &cmd->deps[i], wait_list[i], true);

    cl_event prev = NULL;
    if (ooo) {
        pthread_mutex_unlock(&q->lock);
    } else {
        pthread_mutex_lock(&q->lock);
        prev = q->last;
        if (prev)
            depend(cmd, &cmd->deps[num_events], prev, false);
        kiln_rt_obj_hold(&ev->obj);
        q->last = ev;
        pthread_mutex_unlock(&q->lock);
    }
    if (prev)
        kiln_rt_obj_drop(&prev->obj);

    pending_put(cmd); /* the guard: may launch, and even free, cmd */

    cl_int result = CL_SUCCESS;
    if (blocking) {
        if (kiln_rt_event_wait(ev) < 0)
            result = KILN_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                              "a blocking command did not complete");
        kiln_rt_obj_drop(&ev->obj);
    }
    if (event_ret)
        *event_ret = ev;
    return result;
}

/* Build and submit a byte-moving command. mem_a and mem_b are held until it completes. */
cl_int kiln_rt_submit_bytes(cl_command_queue q, enum kiln_rt_cmd_kind kind, cl_command_type type,
                            void *dst, const void *src, size_t size, cl_mem mem_a, cl_mem mem_b,
                            const void *pattern, size_t pattern_size, cl_bool blocking, cl_uint n,
                            const cl_event *list, cl_event *event)
{
    struct kiln_rt_command *cmd = NULL;
    cl_int err = kiln_rt_command_create(q, kind, type, &cmd);
    if (err != CL_SUCCESS)
        return err;
    cmd->u.copy.dst = dst;
    cmd->u.copy.src = src;
    cmd->u.copy.size = size;
    if (pattern) {
        memcpy(cmd->u.copy.pattern_store, pattern, pattern_size);
        cmd->u.copy.pattern = cmd->u.copy.pattern_store;
        cmd->u.copy.pattern_size = pattern_size;
    }
    kiln_rt_command_hold(cmd, mem_a, mem_b);
    return kiln_rt_command_submit(cmd, n, list, event, blocking);
}
