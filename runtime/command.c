/*
 * The command graph: every enqueued command waits for its wait list and, in an
 * in-order queue, for the command before it; once its dependencies are met it is
 * launched on the device's worker pool (or, when tiny, run on the calling thread).
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
#include "rt_printf.h"
#include "rt_program.h"
#include "rt_queue.h"
#include "rt_recycle.h"
#include "rt_svm.h"

#include "kiln_abi.h"
#include "kiln_alloc.h"
#include "kiln_sched.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <emmintrin.h>

/* Commands below this many bytes of host work run on the thread that readies them. */
#define INLINE_BYTES (256u * 1024)
/* Copies and fills are dealt to workers in slices of this size. */
#define SLICE_BYTES (2u * 1024 * 1024)

static void kiln_rt_command_free(struct kiln_rt_command *cmd);

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
    kiln_rt_command_free(cmd);
}

static void kiln_rt_command_free(struct kiln_rt_command *cmd)
{
    for (int i = 0; i < 2; i++)
        if (cmd->mems[i])
            kiln_rt_obj_drop(&cmd->mems[i]->obj);
    if (cmd->kind == KILN_CMD_NDRANGE) {
        if (cmd->u.nd.kernel)
            kiln_rt_obj_drop(&cmd->u.nd.kernel->obj);
        for (unsigned i = 0; i < cmd->u.nd.num_held; i++)
            kiln_rt_obj_drop(&cmd->u.nd.held[i]->obj);
        free(cmd->u.nd.scratch);
        free(cmd->u.nd.printf_buf);
        if ((unsigned char *)cmd->u.nd.args != cmd->inline_args)
            free(cmd->u.nd.args); /* the held list and the argument store with it */
    }
    if (cmd->kind == KILN_CMD_NATIVE) {
        for (cl_uint i = 0; i < cmd->u.native.num_held; i++)
            kiln_rt_obj_drop(&cmd->u.native.held[i]->obj);
        free(cmd->u.native.held);
        free(cmd->u.native.args);
    }
    if (cmd->kind == KILN_CMD_SVM_FREE)
        free(cmd->u.svm_free.ptrs); /* a command that never ran */
    if (cmd->deps != cmd->inline_deps)
        free(cmd->deps);
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
    /* The kernel's printf output is out and flushed before the event says complete. */
    if (cmd->kind == KILN_CMD_NDRANGE && cmd->u.nd.printf_buf && status == CL_COMPLETE)
        kiln_rt_printf_flush(cmd->u.nd.printf_buf);
    kiln_rt_event_finish(cmd->event, status);
    kiln_rt_command_free(cmd);
}

/* The size of group `id` along one dimension: the last group may be partial. */
static size_t group_extent(const struct kiln_wg_ctx *ctx, int d, size_t id)
{
    size_t left = ctx->global_size[d] - id * ctx->enqueued_local_size[d];
    return left < ctx->enqueued_local_size[d] ? left : ctx->enqueued_local_size[d];
}

/*
 * The calling thread's stack, [*lo, *hi): the kernel library's to_private looks for
 * private variables there (kiln_abi.h). Asked once per thread; 0, 0 if unknown.
 */
static void thread_stack(kiln_abi_ptr *lo, kiln_abi_ptr *hi)
{
    static _Thread_local unsigned char *stack_lo, *stack_hi;
    static _Thread_local bool known;
    if (!known) {
        pthread_attr_t attr;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                stack_lo = addr;
                stack_hi = stack_lo + size;
            }
            pthread_attr_destroy(&attr);
        }
        known = true;
    }
    *lo = stack_lo;
    *hi = stack_hi;
}

/*
 * Runs groups [first, first + count) in linear order, x fastest. The ids are
 * divided out once per chunk and then stepped, so a group costs one call of
 * the work-group function and no division: small groups stay cheap.
 */
static void run_groups(struct kiln_sched_job *job, size_t first, size_t count,
                       const struct kiln_sched_worker *w)
{
    struct kiln_rt_command *cmd = job->user;
    const struct kiln_rt_ndrange *nd = &cmd->u.nd;
    struct kiln_wg_ctx ctx = nd->base;
    ctx.local_mem = w->local_mem;
    ctx.group_shared = (unsigned char *)w->local_mem + w->local_mem_size - KILN_GROUP_SHARED_SIZE;
    if (nd->scratch)
        ctx.scratch = nd->scratch + (size_t)w->index * ctx.scratch_size;
    thread_stack(&ctx.stack_lo, &ctx.stack_hi);
    const size_t gx = nd->groups[0], gy = nd->groups[1];
    ctx.group_id[0] = first % gx;
    ctx.group_id[1] = (first / gx) % gy;
    ctx.group_id[2] = first / (gx * gy);
    for (int d = 0; d < 3; d++)
        ctx.local_size[d] = group_extent(&ctx, d, ctx.group_id[d]);
    for (size_t n = 0; n < count; n++) {
        nd->wg((void *const *)nd->args, &ctx);
        if (++ctx.group_id[0] < gx) {
            if (ctx.group_id[0] == gx - 1)
                ctx.local_size[0] = group_extent(&ctx, 0, gx - 1);
            continue;
        }
        ctx.group_id[0] = 0;
        ctx.local_size[0] = group_extent(&ctx, 0, 0);
        if (++ctx.group_id[1] == gy) {
            ctx.group_id[1] = 0;
            ctx.group_id[2]++;
            ctx.local_size[2] = group_extent(&ctx, 2, ctx.group_id[2]);
        }
        ctx.local_size[1] = group_extent(&ctx, 1, ctx.group_id[1]);
    }
}

static void run_bytes(struct kiln_sched_job *job, size_t first, size_t count,
                      const struct kiln_sched_worker *w)
{
    (void)w;
    struct kiln_rt_command *cmd = job->user;
    struct kiln_rt_copy *c = &cmd->u.copy;
    size_t begin = first * SLICE_BYTES;
    size_t end = (first + count) * SLICE_BYTES;
    if (end > c->size)
        end = c->size;
    if (cmd->kind != KILN_CMD_FILL) {
        memmove(c->dst + begin, c->src + begin, end - begin);
        return;
    }
    /*
     * SLICE_BYTES and the size are multiples of every pattern size (1..128, powers of
     * two), so a slice is whole patterns. A one-byte pattern is memset; any other is copied
     * into a 128-byte block (a whole number of patterns) and the block is written with
     * non-temporal 16-byte stores, which keep a large fill from reading the destination
     * into the cache first; the unaligned head and the tail go through memcpy.
     */
    const size_t ps = c->pattern_size;
    if (ps == 1) {
        memset(c->dst + begin, *(const unsigned char *)c->pattern, end - begin);
        return;
    }
    /* Two copies of the 128-byte period, so a 16-byte load at any phase stays inside. */
    unsigned char block[256] __attribute__((aligned(16)));
    for (size_t i = 0; i < sizeof(block); i += ps)
        memcpy(block + i, c->pattern, ps);
    const size_t period = 128;
    size_t off = begin;
    /* The phase of the pattern at dst + off is off % ps, 0 here: off is a multiple of ps. */
    size_t head = (size_t)(-(uintptr_t)(c->dst + off)) & 15;
    if (head > end - off)
        head = end - off;
    memcpy(c->dst + off, block, head);
    off += head;
    if (end - off >= period) {
        __m128i v[8];
        for (int i = 0; i < 8; i++)
            v[i] = _mm_loadu_si128((const __m128i *)(block + (head + 16 * (size_t)i) % period));
        for (; end - off >= period; off += period)
            for (int i = 0; i < 8; i++)
                _mm_stream_si128((__m128i *)(c->dst + off) + i, v[i]);
        _mm_sfence();
    }
    for (; off < end; off++)
        c->dst[off] = block[(off - begin) % period];
}

/* Rectangles: one item per row, rows numbered slice by slice. */
static void run_rows(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    (void)w;
    struct kiln_rt_command *cmd = job->user;
    const struct kiln_rt_rect *r = &cmd->u.rect;
    size_t y = first % r->region[1], z = first / r->region[1];
    for (size_t n = 0; n < count; n++) {
        memmove(r->dst + z * r->dst_slice + y * r->dst_row,
                r->src + z * r->src_slice + y * r->src_row, r->region[0]);
        if (++y == r->region[1]) {
            y = 0;
            z++;
        }
    }
}

/* A native kernel: one item, the application's function on its argument copy. */
static void run_native(struct kiln_sched_job *job, size_t first, size_t count,
                       const struct kiln_sched_worker *w)
{
    (void)first, (void)count, (void)w;
    struct kiln_rt_command *cmd = job->user;
    cmd->u.native.fn(cmd->u.native.args);
}

static void job_done(struct kiln_sched_job *job)
{
    complete(job->user, CL_COMPLETE);
}

static void launch(struct kiln_rt_command *cmd)
{
    if (atomic_load_explicit(&cmd->dep_fail, memory_order_acquire)) {
        complete(cmd, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return;
    }
    kiln_rt_event_start(cmd->event);
    struct kiln_sched *sched = NULL;
    cl_int err = kiln_rt_device_sched(cmd->queue->device, &sched);
    if (err != CL_SUCCESS) {
        complete(cmd, err);
        return;
    }
    struct kiln_sched_job *job = &cmd->job;
    job->user = cmd;
    job->done = job_done;
    switch (cmd->kind) {
    case KILN_CMD_NDRANGE:
        if (cmd->u.nd.kernel->cc->uses_printf) {
            cmd->u.nd.printf_buf = kiln_rt_printf_buffer_create(KILN_RT_PRINTF_BUFFER_SIZE);
            if (!cmd->u.nd.printf_buf) {
                complete(cmd, KILN_ERR(CL_OUT_OF_HOST_MEMORY, "a printf buffer of %zu bytes",
                                       (size_t)KILN_RT_PRINTF_BUFFER_SIZE));
                return;
            }
            cmd->u.nd.base.printf_buffer = cmd->u.nd.printf_buf;
        }
        if (cmd->u.nd.base.scratch_size) {
            /* One area per worker and one for a calling thread that helps. */
            size_t parties = (size_t)kiln_sched_num_workers(sched) + 1;
            cmd->u.nd.scratch =
                kiln_aligned_alloc(KILN_SCRATCH_ALIGN, parties * cmd->u.nd.base.scratch_size);
            if (!cmd->u.nd.scratch) {
                complete(cmd, KILN_ERR(CL_OUT_OF_HOST_MEMORY, "%zu bytes of kernel scratch",
                                       parties * cmd->u.nd.base.scratch_size));
                return;
            }
        }
        job->num_items = cmd->u.nd.groups[0] * cmd->u.nd.groups[1] * cmd->u.nd.groups[2];
        job->min_chunk = 1;
        job->run = run_groups;
        break;
    case KILN_CMD_READ:
    case KILN_CMD_WRITE:
    case KILN_CMD_COPY:
    case KILN_CMD_FILL:
        job->num_items = (cmd->u.copy.size + SLICE_BYTES - 1) / SLICE_BYTES;
        job->min_chunk = 1;
        job->run = run_bytes;
        if (cmd->u.copy.size < INLINE_BYTES) {
            struct kiln_sched_worker none = {0};
            run_bytes(job, 0, job->num_items, &none);
            complete(cmd, CL_COMPLETE);
            return;
        }
        break;
    case KILN_CMD_RECT:
        job->num_items = cmd->u.rect.region[1] * cmd->u.rect.region[2];
        job->min_chunk = SLICE_BYTES / cmd->u.rect.region[0] + 1;
        job->run = run_rows;
        if (job->num_items * cmd->u.rect.region[0] < INLINE_BYTES) {
            struct kiln_sched_worker none = {0};
            run_rows(job, 0, job->num_items, &none);
            complete(cmd, CL_COMPLETE);
            return;
        }
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
        kiln_rt_svm_free_run(cmd);
        complete(cmd, CL_COMPLETE);
        return;
    case KILN_CMD_NATIVE:
        job->num_items = 1;
        job->min_chunk = 1;
        job->run = run_native;
        break;
    }
    if (job->num_items == 0) {
        complete(cmd, CL_COMPLETE);
        return;
    }
    kiln_sched_submit(sched, job);
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
