/*
 * Device-side enqueue on the CPU device: the device queue inside the scheduler. Kernels
 * call these operations through the table in ctx->enqueue (include/kiln_enqueue.h); a
 * child launch never goes back through the host API. docs/device.md has the design.
 *
 * Commands. Every launch that can enqueue is a command (struct kiln_enq_cmd): the host's
 * NDRange (the root of a tree) and every kernel or marker a kernel enqueued. A command
 * completes once its own work and every command it enqueued have completed; its event
 * then completes, and its parent loses one pending count. A failure (a wait event that
 * failed, memory a launch could not get) fails the command and, through it, every
 * ancestor up to the host's event.
 *
 * Protocol
 * --------
 * cmd->pending (atomic, acq_rel): 1 for the command's own work plus one per child not yet
 * complete. The parent's count is raised before the child can run, by the group that
 * enqueues it, and so cannot reach 0 early. A group takes PENDING_CREDIT counts at once at
 * its first enqueue (site->credit) and gives back the unused ones when it returns, so its
 * children cost no atomic on the parent's line until they complete; the command's own count
 * is held meanwhile, so the give-back never reaches 0. The thread that takes it to 0 completes the
 * command: the release of every other decrement publishes what that work wrote, so the
 * completer acquires all of it before the event and the parent see the end.
 *
 * cmd->gate (atomic, acq_rel): what must happen before the command starts: one per wait
 * event not yet complete, plus one for its flag. The flag's count is dropped at once
 * (CLK_ENQUEUE_FLAGS_NO_WAIT), when the enqueuing group has returned (WAIT_WORK_GROUP),
 * or when every group of the parent has (WAIT_KERNEL). The thread that takes the gate to 0
 * starts the command, having acquired the releases of all who dropped theirs: the parent's
 * stores before the enqueue and the wait events' completions are visible to the child.
 *
 * cmd->after_kernel (atomic pointer): the WAIT_KERNEL children of a command, a stack pushed
 * with a release compare-and-swap by its groups. The last group's end is ordered after
 * every push by the scheduler's count of finished items, so the thread finishing the
 * command's groups takes the whole stack with one exchange and opens each child's gate.
 * A group's WAIT_WORK_GROUP children are a plain list in its site (the group runs on one
 * thread), opened when its work-group function returns.
 *
 * Events. A device's events come from a fixed pool of KILN_DEV_MAX_ON_DEVICE_EVENTS
 * (CL_DEVICE_MAX_ON_DEVICE_EVENTS), free ones on a stack whose head carries a tag against
 * ABA. event->waiters (atomic pointer) is a stack of commands and profiling captures
 * waiting for it, pushed with a release compare-and-swap unless it holds CLOSED. The completer
 * takes them in two rounds: it exchanges in CLOSING (acq_rel), writes the captures it took,
 * then exchanges in CLOSED (acq_rel) and writes the captures pushed meanwhile (onto CLOSING,
 * which ends that second list), and only then opens the gates of the commands of both lists.
 * A push that finds CLOSED serves itself at once: the exchange it acquired came after every
 * capture was written, so a command that waits on the event, however late it comes, never
 * starts before a capture of the event is written. event->refs counts the kernel's handle and the
 * command's own hold; at 0 the event goes back to the pool.
 *
 * Queue room. A device queue has CL_QUEUE_SIZE bytes; each pending child or marker takes
 * CMD_QUEUE_BYTES plus its block literal, wait list and __local sizes from queue->used (atomic,
 * relaxed: a bound, not an ordering) until it completes, and an enqueue that would exceed the size
 * fails with CLK_DEVICE_QUEUE_FULL. Nothing ever waits for room, so a full queue never blocks a
 * worker.
 */
#include "cpu_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln_alloc.h"
#include "kiln_enqueue.h"

/* The most `local void *` parameters a block may have. */
#define MAX_LOCAL_ARGS 64
/* The largest block literal a child may carry. */
#define MAX_BLOCK_BYTES (64u * 1024)
/* Children of at most this many work-groups run whole on one thread (kiln_sched_submit_nested). */
#define NESTED_GROUPS 4
/* Local size chosen for a dimension when the ndrange gives none, at most. */
#define AUTO_LOCAL 64
/* Counts a group takes on its command's pending at once, for the children it enqueues. */
#define PENDING_CREDIT ((size_t)1 << 20)
/* What a pending command takes of its device queue's CL_QUEUE_SIZE, besides its tail. */
#define CMD_QUEUE_BYTES 64
/* An event's waiter list once it has completed. */
#define CLOSED ((struct waiter *)1)
/* An event's waiter list while its completer writes the captures it took first. */
#define CLOSING ((struct waiter *)2)
/* clk_event_t CLK_NULL_EVENT. */
#define NULL_EVENT ((void *)UINTPTR_MAX)

struct kiln_dev_queue {
    struct kiln_dev *dev;
    size_t size;        /* CL_QUEUE_SIZE */
    atomic_size_t used; /* bytes of pending commands enqueued to it */
};

struct waiter {
    struct waiter *next;
    struct kiln_enq_cmd *cmd; /* a command waiting for the event, or NULL */
    uint64_t *capture;        /* or where capture_event_profiling_info writes */
};

struct event {
    atomic_int status; /* CL_SUBMITTED, then CL_COMPLETE or a negative error */
    atomic_uint refs;  /* 0: free */
    _Atomic(struct waiter *) waiters;
    _Atomic uint64_t start, end, complete; /* CL_PROFILING_COMMAND_* times, ns */
    atomic_uint next_free;                 /* pool index + 1 of the next free event */
    struct kiln_enq_pool *pool;            /* the pool it belongs to */
};

/* A device's event pool, made on its first device-side enqueue. */
struct kiln_enq_pool {
    struct event events[KILN_DEV_MAX_ON_DEVICE_EVENTS];
    /* low 32 bits: index + 1 of the first free event (0: none); high 32: a tag */
    _Atomic uint64_t free_head;
};

struct kiln_enq_cmd {
    atomic_size_t pending;
    atomic_int status; /* CL_COMPLETE, or the first failure */
    atomic_uint gate;
    _Atomic(struct kiln_enq_cmd *) after_kernel;
    struct kiln_enq_cmd *next; /* in an after_kernel stack or a group's list */
    struct kiln_enq_cmd *parent;
    struct event *event; /* held; NULL when nobody asked for one */
    const struct kiln_dev_enqueue *enq;
    struct kiln_dev *dev;
    struct kiln_sched *sched;
    struct kiln_dev_queue *queue;   /* whose room it takes; NULL for the root */
    size_t bytes;                   /* of the queue's room */
    size_t record;                  /* bytes of this record (record_free) */
    struct kiln_dev_launch *launch; /* the root's: the runtime's launch record */
    bool marker;
    /* A child kernel: its launch. */
    struct kiln_sched_job job;
    struct kiln_dev_ndrange nd;
    void *block_ptr; /* argument 0's value: the copy of the block literal */
    unsigned num_waiters;
    /* num_waiters waiters, then for a kernel its 1 + n argument pointers, the n __local
     * offsets, and the block literal's bytes (16-byte aligned) */
    struct waiter waiters[];
};

/* The tail of a command: where its arguments and block copy lie after the waiters. */
struct tail {
    void **argv;
    size_t *local_off;
    unsigned char *block;
};

static size_t tail_bytes(unsigned num_waiters, unsigned num_local, size_t block_bytes)
{
    size_t at = num_waiters * sizeof(struct waiter) + (1 + num_local) * sizeof(void *) +
                num_local * sizeof(size_t);
    return (at + 15) / 16 * 16 + block_bytes;
}

static struct tail tail_of(struct kiln_enq_cmd *c, unsigned num_local)
{
    struct tail t;
    unsigned char *at = (unsigned char *)&c->waiters[c->num_waiters];
    t.argv = (void **)at;
    t.local_off = (size_t *)(t.argv + 1 + num_local);
    size_t off = (size_t)((unsigned char *)(t.local_off + num_local) - (unsigned char *)c->waiters);
    t.block = (unsigned char *)c->waiters + (off + 15) / 16 * 16;
    return t;
}

#define site kiln_cpu_enq_site

/*
 * Command records of up to RECORD_BYTES are recycled through a per-thread free list (at most
 * RECORD_CACHE each), so a steady stream of small children costs no allocator call: a record
 * freed on one worker serves that worker's next enqueue. The list is private to its thread;
 * its blocks are freed when the thread exits (cache_key's destructor). Records made on one
 * thread and freed on another move between the lists through a shared one, in batches of
 * RECORD_BATCH under central_lock, which keeps up to CENTRAL_MAX records for later launches
 * instead of handing them back to the C library (whose trimming would fault the pages in
 * again at every burst of children).
 */
#define RECORD_BYTES 1024
#define RECORD_CACHE 256
#define RECORD_BATCH 64
#define CENTRAL_MAX  8192

static pthread_mutex_t central_lock = PTHREAD_MUTEX_INITIALIZER;
static void *central_head;        /* under central_lock */
static atomic_uint central_count; /* changed under central_lock; read without it (relaxed)
                                   * only to see whether the lock is worth taking */

struct record_cache {
    void *head; /* each free block starts with the next one's address */
    unsigned count;
};

static _Thread_local struct record_cache cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_key_made;

static void cache_drop(void *arg)
{
    struct record_cache *c = arg;
    while (c->head) {
        void *next = *(void **)c->head;
        free(c->head);
        c->head = next;
    }
    c->count = 0;
}

static void cache_key_make(void)
{
    cache_key_made = pthread_key_create(&cache_key, cache_drop) == 0;
}

static void *record_alloc(size_t bytes)
{
    if (bytes > RECORD_BYTES)
        return kiln_malloc(bytes);
    if (!cache.head && atomic_load_explicit(&central_count, memory_order_relaxed)) {
        pthread_mutex_lock(&central_lock);
        for (unsigned i = 0; i < RECORD_BATCH && central_head; i++) {
            void *r = central_head;
            central_head = *(void **)r;
            atomic_fetch_sub_explicit(&central_count, 1, memory_order_relaxed);
            *(void **)r = cache.head;
            cache.head = r;
            cache.count++;
        }
        pthread_mutex_unlock(&central_lock);
    }
    if (cache.head) {
        void *r = cache.head;
        cache.head = *(void **)r;
        cache.count--;
        return r;
    }
    return kiln_malloc(RECORD_BYTES);
}

static void record_free(void *r, size_t bytes)
{
    if (bytes > RECORD_BYTES) {
        free(r);
        return;
    }
    if (cache.count >= RECORD_CACHE) {
        /* A batch from the top of this thread's list to the shared one, or to the C library
         * once the shared one is full. */
        void *batch = NULL;
        for (unsigned i = 0; i < RECORD_BATCH; i++) {
            void *b = cache.head;
            cache.head = *(void **)b;
            cache.count--;
            *(void **)b = batch;
            batch = b;
        }
        pthread_mutex_lock(&central_lock);
        bool room = atomic_load_explicit(&central_count, memory_order_relaxed) + RECORD_BATCH <=
                    CENTRAL_MAX;
        while (room && batch) {
            void *b = batch;
            batch = *(void **)b;
            *(void **)b = central_head;
            central_head = b;
            atomic_fetch_add_explicit(&central_count, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(&central_lock);
        while (batch) {
            void *b = batch;
            batch = *(void **)b;
            free(b);
        }
    }
    if (!cache.head && !cache.count) {
        /* The first block this thread keeps: free the list when the thread exits. */
        pthread_once(&cache_once, cache_key_make);
        if (!cache_key_made || pthread_setspecific(cache_key, &cache) != 0) {
            free(r);
            return;
        }
    }
    *(void **)r = cache.head;
    cache.head = r;
    cache.count++;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cmd_done(struct kiln_enq_cmd *c);
static void gate_open(struct kiln_enq_cmd *c);

/* ---- the event pool ---------------------------------------------------------------- */

static struct kiln_enq_pool *pool_of(struct kiln_dev *dev)
{
    struct kiln_enq_pool *p = atomic_load_explicit(&dev->enq_pool, memory_order_acquire);
    if (p)
        return p;
    struct kiln_enq_pool *made = kiln_malloc(sizeof(*made));
    if (!made)
        return NULL;
    for (unsigned i = 0; i < KILN_DEV_MAX_ON_DEVICE_EVENTS; i++) {
        struct event *e = &made->events[i];
        atomic_init(&e->status, CL_COMPLETE);
        atomic_init(&e->refs, 0);
        atomic_init(&e->waiters, CLOSED);
        atomic_init(&e->next_free, i + 1 < KILN_DEV_MAX_ON_DEVICE_EVENTS ? i + 2 : 0);
        e->pool = made;
    }
    atomic_init(&made->free_head, 1);
    /* Publish (release) the initialised pool; a loser frees its own. */
    if (!atomic_compare_exchange_strong_explicit(&dev->enq_pool, &p, made, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(made);
        return p;
    }
    return made;
}

static struct event *event_alloc(struct kiln_enq_pool *p, unsigned refs)
{
    uint64_t head = atomic_load_explicit(&p->free_head, memory_order_acquire);
    for (;;) {
        uint32_t first = (uint32_t)head;
        if (!first)
            return NULL;
        struct event *e = &p->events[first - 1];
        uint32_t next = atomic_load_explicit(&e->next_free, memory_order_relaxed);
        uint64_t want = ((head >> 32) + 1) << 32 | next;
        /* acquire: the event's last release back to the pool happened before this use */
        if (atomic_compare_exchange_weak_explicit(&p->free_head, &head, want, memory_order_acquire,
                                                  memory_order_acquire)) {
            atomic_store_explicit(&e->status, CL_SUBMITTED, memory_order_relaxed);
            atomic_store_explicit(&e->waiters, NULL, memory_order_relaxed);
            atomic_store_explicit(&e->start, 0, memory_order_relaxed);
            atomic_store_explicit(&e->end, 0, memory_order_relaxed);
            atomic_store_explicit(&e->complete, 0, memory_order_relaxed);
            atomic_store_explicit(&e->refs, refs, memory_order_release);
            return e;
        }
    }
}

static void event_free(struct kiln_enq_pool *p, struct event *e)
{
    uint32_t index = (uint32_t)(e - p->events) + 1;
    uint64_t head = atomic_load_explicit(&p->free_head, memory_order_relaxed);
    do {
        atomic_store_explicit(&e->next_free, (uint32_t)head, memory_order_relaxed);
        /* release: everything done with the event before it goes back */
    } while (!atomic_compare_exchange_weak_explicit(&p->free_head, &head,
                                                    ((head >> 32) + 1) << 32 | index,
                                                    memory_order_release, memory_order_relaxed));
}

/* The event a kernel passed, if it is a live event of this device's pool; else NULL. */
static struct event *event_of(struct kiln_dev *dev, void *handle)
{
    struct kiln_enq_pool *p = atomic_load_explicit(&dev->enq_pool, memory_order_acquire);
    uintptr_t h = (uintptr_t)handle, base = (uintptr_t)(p ? p->events : NULL);
    if (!p || h < base || h >= base + sizeof(p->events) || (h - base) % sizeof(struct event))
        return NULL;
    struct event *e = (struct event *)handle;
    return atomic_load_explicit(&e->refs, memory_order_acquire) ? e : NULL;
}

static void event_release(struct event *e)
{
    if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        event_free(e->pool, e);
}

static void capture_write(struct event *e, uint64_t *value)
{
    uint64_t start = atomic_load_explicit(&e->start, memory_order_relaxed);
    uint64_t end = atomic_load_explicit(&e->end, memory_order_relaxed);
    uint64_t complete = atomic_load_explicit(&e->complete, memory_order_relaxed);
    value[0] = end > start ? end - start : 0;
    value[1] = complete > start ? complete - start : 0;
}

/* Writes the profiling captures of a waiter list that ends at NULL or CLOSING. */
static void captures_write(struct event *e, struct waiter *list)
{
    for (struct waiter *c = list; c && c != CLOSING; c = c->next)
        if (!c->cmd)
            capture_write(e, c->capture);
}

/* Completes e with `status` once; serves its waiters. */
static void event_complete(struct event *e, int status)
{
    int was = CL_SUBMITTED;
    if (!atomic_compare_exchange_strong_explicit(&e->status, &was, status, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    uint64_t t = now_ns();
    if (!atomic_load_explicit(&e->start, memory_order_relaxed))
        atomic_store_explicit(&e->start, t, memory_order_relaxed);
    if (!atomic_load_explicit(&e->end, memory_order_relaxed))
        atomic_store_explicit(&e->end, t, memory_order_relaxed);
    atomic_store_explicit(&e->complete, t, memory_order_relaxed);
    /* acq_rel: take every push so far (acquire) and publish the status and times (release) */
    struct waiter *first = atomic_exchange_explicit(&e->waiters, CLOSING, memory_order_acq_rel);
    /* Profiling captures first: a command waiting on e may read what they write (as soon as
     * its gate opens it may run on another worker), and so may one that comes after CLOSED. */
    captures_write(e, first);
    /* acq_rel: take the pushes made onto CLOSING; publish the captures to late pushers */
    struct waiter *late = atomic_exchange_explicit(&e->waiters, CLOSED, memory_order_acq_rel);
    captures_write(e, late);
    unsigned holds = 0; /* each waiting command holds e until it is served */
    struct waiter *lists[2] = {first, late};
    for (int l = 0; l < 2; l++) {
        struct waiter *w = lists[l];
        while (w && w != CLOSING) {
            struct waiter *next = w->next;
            if (w->cmd) {
                holds++;
                if (status < 0) {
                    int ok = CL_COMPLETE;
                    atomic_compare_exchange_strong_explicit(
                        &w->cmd->status, &ok, KILN_CLK_INVALID_EVENT_WAIT_LIST,
                        memory_order_relaxed, memory_order_relaxed);
                }
                gate_open(w->cmd);
            } else {
                free(w);
            }
            w = next;
        }
    }
    while (holds--)
        event_release(e);
}

/* Adds w to e's waiters; false when e has completed already (then w was not added). */
static bool event_wait(struct event *e, struct waiter *w)
{
    struct waiter *head = atomic_load_explicit(&e->waiters, memory_order_acquire);
    do {
        if (head == CLOSED)
            return false;
        w->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&e->waiters, &head, w, memory_order_release,
                                                    memory_order_acquire));
    return true;
}

/* ---- commands ---------------------------------------------------------------------- */

static void fail(struct kiln_enq_cmd *c, int status)
{
    int ok = CL_COMPLETE;
    atomic_compare_exchange_strong_explicit(&c->status, &ok, status, memory_order_relaxed,
                                            memory_order_relaxed);
}

/* The command's own work and every child have ended. */
static void cmd_complete(struct kiln_enq_cmd *c)
{
    int status = atomic_load_explicit(&c->status, memory_order_relaxed);
    struct kiln_enq_cmd *parent = c->parent;
    if (c->event) {
        event_complete(c->event, status < 0 ? status : CL_COMPLETE);
        event_release(c->event);
    }
    if (c->queue)
        atomic_fetch_sub_explicit(&c->queue->used, c->bytes, memory_order_relaxed);
    if (!parent) {
        struct kiln_dev_launch *l = c->launch;
        record_free(c, c->record);
        l->note = status < 0 ? "a kernel it enqueued failed" : NULL;
        l->done(l, status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_COMPLETE);
        return;
    }
    if (status < 0)
        fail(parent, status);
    record_free(c, c->record);
    cmd_done(parent);
}

static void cmd_done(struct kiln_enq_cmd *c)
{
    if (atomic_fetch_sub_explicit(&c->pending, 1, memory_order_acq_rel) == 1)
        cmd_complete(c);
}

static void child_groups_done(struct kiln_sched_job *job);

/* Starts c: its gate is open. */
static void cmd_start(struct kiln_enq_cmd *c)
{
    if (c->event)
        atomic_store_explicit(&c->event->start, now_ns(), memory_order_relaxed);
    if (c->marker || atomic_load_explicit(&c->status, memory_order_relaxed) < 0) {
        cmd_done(c);
        return;
    }
    struct kiln_dev_ndrange *nd = &c->nd;
    if (nd->uses_printf) {
        nd->printf_buf = kiln_cpu_printf_buffer_create(KILN_DEV_PRINTF_BUFFER_SIZE);
        if (!nd->printf_buf) {
            fail(c, KILN_CLK_OUT_OF_RESOURCES);
            cmd_done(c);
            return;
        }
        nd->base.printf_buffer = nd->printf_buf;
    }
    if (nd->base.scratch_size) {
        size_t parties = (size_t)kiln_sched_num_workers(c->sched) + 1;
        nd->scratch = kiln_aligned_alloc(KILN_SCRATCH_ALIGN, parties * nd->base.scratch_size);
        if (!nd->scratch) {
            free(nd->printf_buf);
            nd->printf_buf = NULL;
            fail(c, KILN_CLK_OUT_OF_RESOURCES);
            cmd_done(c);
            return;
        }
    }
    c->job.user = nd;
    c->job.run = kiln_cpu_run_groups;
    c->job.done = child_groups_done;
    c->job.min_chunk = 1;
    /* A small child runs whole on the worker that readied it (or one that takes it): no
     * shared list, no lock. A larger one is dealt to every worker like a host launch. */
    if (c->job.num_items <= NESTED_GROUPS)
        kiln_sched_submit_nested(c->sched, &c->job);
    else
        kiln_sched_submit(c->sched, &c->job);
}

static void gate_open(struct kiln_enq_cmd *c)
{
    if (atomic_fetch_sub_explicit(&c->gate, 1, memory_order_acq_rel) == 1)
        cmd_start(c);
}

/* Opens the gates of a list of children linked through `next`. */
static void open_list(struct kiln_enq_cmd *c)
{
    while (c) {
        struct kiln_enq_cmd *next = c->next;
        gate_open(c);
        c = next;
    }
}

/* Every group of command c has returned: its WAIT_KERNEL children may start. */
void kiln_cpu_enq_groups_done(struct kiln_enq_cmd *c)
{
    if (c->event)
        atomic_store_explicit(&c->event->end, now_ns(), memory_order_relaxed);
    open_list(atomic_exchange_explicit(&c->after_kernel, NULL, memory_order_acquire));
    cmd_done(c);
}

static void child_groups_done(struct kiln_sched_job *job)
{
    struct kiln_enq_cmd *c =
        (struct kiln_enq_cmd *)((char *)job - offsetof(struct kiln_enq_cmd, job));
    struct kiln_dev_ndrange *nd = &c->nd;
    if (nd->printf_buf) {
        kiln_cpu_printf_flush(nd->printf_buf);
        free(nd->printf_buf);
        nd->printf_buf = NULL;
    }
    free(nd->scratch);
    nd->scratch = NULL;
    kiln_cpu_enq_groups_done(c);
}

/* ---- the kernel's operations ------------------------------------------------------- */

static bool queue_allowed(const struct kiln_dev_enqueue *enq, void *queue)
{
    for (unsigned i = 0; queue && i < enq->num_queues; i++)
        if (enq->queues[i] == queue)
            return true;
    return false;
}

/* Checks an ndrange and fills a launch's sizes into b, its other fields 0; a CLK_* status. */
static int setup_ranges(struct kiln_wg_ctx *b, const struct kiln_dev_enqueue *enq,
                        const struct kiln_enq_ndrange *r)
{
    if (r->dim < 1 || r->dim > 3)
        return KILN_CLK_INVALID_NDRANGE;
    /* Field by field: cheaper than a memset (rep stos) on the path of every child. The size
     * check makes a field added to the context fail the build here until it is listed. */
    _Static_assert(sizeof(struct kiln_wg_ctx) == 19 * sizeof(kiln_abi_size) +
                                                     2 * sizeof(kiln_abi_u32) +
                                                     8 * sizeof(kiln_abi_ptr),
                   "setup_ranges sets every field of struct kiln_wg_ctx");
    for (unsigned d = 0; d < 3; d++)
        b->local_size[d] = b->group_id[d] = 0;
    b->chunk_more = 0;
    b->local_mem = b->scratch = b->group_shared = b->printf_buffer = NULL;
    b->stack_lo = b->stack_hi = b->enqueue = b->combine = NULL;
    b->scratch_size = 0;
    bool chosen = true;
    for (unsigned d = 0; d < r->dim; d++)
        chosen &= r->local_size[d] == 0;
    size_t items = 1;
    b->work_dim = r->dim;
    for (unsigned d = 0; d < 3; d++) {
        bool in = d < r->dim;
        size_t global = in ? r->size[d] : 1, local = in ? r->local_size[d] : 1;
        if (global == 0 || (!chosen && local == 0))
            return KILN_CLK_INVALID_NDRANGE;
        if (chosen) {
            /* The largest divisor of the size up to AUTO_LOCAL in x: whole groups. */
            local = d == 0 && global <= AUTO_LOCAL ? global : 1;
            for (size_t l = AUTO_LOCAL; d == 0 && global > AUTO_LOCAL && l > 1 && local == 1; l--)
                if (global % l == 0)
                    local = l;
        }
        if (local > global)
            local = global;
        b->global_offset[d] = in ? r->offset[d] : 0;
        b->global_size[d] = global;
        b->enqueued_local_size[d] = local;
        b->num_groups[d] = local == global ? 1 : (global + local - 1) / local;
        items *= local;
    }
    if (items > enq->max_group_size)
        return KILN_CLK_INVALID_NDRANGE;
    return KILN_CLK_SUCCESS;
}

/* Lays out the block's __local arguments after its kernel-scope ones; a CLK_* status. */
static int setup_args(struct kiln_enq_cmd *c, const struct kiln_dev_kernel *k, unsigned n,
                      const size_t *sizes, size_t local_limit)
{
    struct tail t = tail_of(c, n);
    t.argv[0] = &c->block_ptr;
    size_t at = k->local_mem_static;
    for (unsigned i = 0; i < n; i++) {
        if (sizes[i] == 0)
            return KILN_CLK_INVALID_ARG_SIZE;
        at = (at + KILN_LOCAL_ALIGN - 1) / KILN_LOCAL_ALIGN * KILN_LOCAL_ALIGN;
        t.local_off[i] = at;
        if (sizes[i] > local_limit || at + sizes[i] > local_limit)
            return KILN_CLK_OUT_OF_RESOURCES;
        at += sizes[i];
        t.argv[1 + i] = &t.local_off[i];
    }
    c->nd.args = t.argv;
    return KILN_CLK_SUCCESS;
}

/* A new command of the enqueuing group's tree, taking `bytes` of the queue's room. */
static int cmd_new(struct site *s, struct kiln_dev_queue *q, size_t tail, unsigned num_waiters,
                   struct kiln_enq_cmd **out)
{
    size_t bytes = CMD_QUEUE_BYTES + tail;
    if (atomic_fetch_add_explicit(&q->used, bytes, memory_order_relaxed) + bytes > q->size) {
        atomic_fetch_sub_explicit(&q->used, bytes, memory_order_relaxed);
        return KILN_CLK_DEVICE_QUEUE_FULL;
    }
    struct kiln_enq_cmd *c = record_alloc(sizeof(struct kiln_enq_cmd) + tail);
    if (!c) {
        atomic_fetch_sub_explicit(&q->used, bytes, memory_order_relaxed);
        return KILN_CLK_OUT_OF_RESOURCES;
    }
    memset(c, 0, sizeof(*c));
    c->record = sizeof(struct kiln_enq_cmd) + tail;
    struct kiln_enq_cmd *parent = s->cmd;
    atomic_init(&c->pending, 1);
    atomic_init(&c->status, CL_COMPLETE);
    atomic_init(&c->gate, num_waiters + 1);
    atomic_init(&c->after_kernel, NULL);
    c->parent = parent;
    c->enq = parent->enq;
    c->dev = parent->dev;
    c->sched = parent->sched;
    c->queue = q;
    c->bytes = bytes;
    c->num_waiters = num_waiters;
    *out = c;
    return KILN_CLK_SUCCESS;
}

/* Checks a wait list: every event alive and of this device; a CLK_* status. */
static int check_waits(struct site *s, unsigned n, void *const *events)
{
    if ((n == 0) != (events == NULL))
        return KILN_CLK_INVALID_EVENT_WAIT_LIST;
    for (unsigned i = 0; i < n; i++)
        if (!event_of(s->cmd->dev, events[i]))
            return KILN_CLK_INVALID_EVENT_WAIT_LIST;
    return KILN_CLK_SUCCESS;
}

/*
 * The common end of enqueue and marker: the event the kernel asked for, the parent's
 * count, the waits, then the flag's share of the gate.
 */
static int cmd_submit(struct site *s, struct kiln_enq_cmd *c, unsigned n, void *const *events,
                      void **ret, unsigned flags)
{
    if (ret) {
        struct kiln_enq_pool *p = pool_of(c->dev);
        c->event = p ? event_alloc(p, 2) : NULL; /* the kernel's handle and the command's */
        if (!c->event) {
            atomic_fetch_sub_explicit(&c->queue->used, c->bytes, memory_order_relaxed);
            record_free(c, c->record);
            return KILN_CLK_EVENT_ALLOCATION_FAILURE;
        }
        *ret = c->event;
    }
    if (!s->credit) {
        atomic_fetch_add_explicit(&s->cmd->pending, PENDING_CREDIT, memory_order_relaxed);
        s->credit = PENDING_CREDIT;
    }
    s->credit--;
    for (unsigned i = 0; i < n; i++) {
        struct waiter *w = &c->waiters[i];
        w->cmd = c;
        w->capture = NULL;
        struct event *e = (struct event *)events[i];
        /* Held while c waits, as a released event must stay for the commands waiting on it
         * (the completer drops the hold); let go at once when it has completed already. */
        atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
        if (!event_wait(e, w)) {
            if (atomic_load_explicit(&e->status, memory_order_acquire) < 0)
                fail(c, KILN_CLK_INVALID_EVENT_WAIT_LIST);
            event_release(e);
            gate_open(c);
        }
    }
    if (flags == KILN_CLK_FLAGS_WAIT_KERNEL && s->after_inline) {
        c->next = *s->after_inline;
        *s->after_inline = c;
    } else if (flags == KILN_CLK_FLAGS_WAIT_KERNEL) {
        struct kiln_enq_cmd *head =
            atomic_load_explicit(&s->cmd->after_kernel, memory_order_relaxed);
        do
            c->next = head;
        while (!atomic_compare_exchange_weak_explicit(&s->cmd->after_kernel, &head, c,
                                                      memory_order_release, memory_order_relaxed));
    } else if (flags == KILN_CLK_FLAGS_WAIT_WORK_GROUP) {
        c->next = s->after_group;
        s->after_group = c;
    } else {
        gate_open(c);
    }
    return KILN_CLK_SUCCESS;
}

/* ---- children run inline ------------------------------------------------------------ */

/* How many inline children may be open on one thread's stack at once, and how much of the
 * stack must be left when one starts. */
#define INLINE_DEPTH      256
#define INLINE_STACK_ROOM ((size_t)1 << 20)

/*
 * Whether a child may run inline: at once, whole, on the enqueuing work-item's thread and
 * stack, inside the enqueue_kernel call. A CLK_ENQUEUE_FLAGS_NO_WAIT child with no wait list
 * and no event may start at any time after the enqueue, so running it before the call
 * returns meets its flag; since nobody holds an event of it, its completion is seen only
 * through its parent's, which counts the child's own children instead (the site's command).
 * It must not share what the enqueuing group is using: no __local memory (the arena is the
 * group's), no scratch (so no barriers, and with them no collectives, whose area is the
 * group's too) and no printf buffer. It must have few groups (a larger child is dealt to
 * the workers) and room on this thread's own stack (a work-item on a fiber, whose stack is
 * small, never runs one). Last, a child of the group's own work-items is pushed instead
 * when the worker's stack is empty and more workers are idle than nested jobs wait
 * (kiln_sched_wants_nested): a tree of launches spreads over the pool by its top levels,
 * and each worker runs its part of the tree without records or atomics.
 */
static bool inline_allowed(struct site *s, const struct kiln_dev_kernel *k,
                           const struct kiln_enq_call *call, const struct kiln_wg_ctx *ranges)
{
    if (call->flags != KILN_CLK_FLAGS_NO_WAIT || call->num_events || call->event_ret ||
        call->num_local || k->local_mem_static || k->scratch_fixed || k->scratch_per_item ||
        k->uses_printf || s->inline_depth >= INLINE_DEPTH)
        return false;
    if (ranges->num_groups[0] * ranges->num_groups[1] * ranges->num_groups[2] > NESTED_GROUPS)
        return false;
    unsigned char *sp = __builtin_frame_address(0), *lo = s->stack_lo;
    if (!lo || sp >= (unsigned char *)s->stack_hi || sp < lo + INLINE_STACK_ROOM)
        return false;
    /* Only a child of the group's own work-items is pushed: in a recursive tree that is the
     * largest piece of work this site holds, while a child of an inline child is smaller. */
    return s->inline_depth > 0 || !kiln_sched_wants_nested(s->cmd->sched, s->worker);
}

/*
 * Runs every group of an inline child with the enqueuing group's site: the child's own
 * children count on the site's command and take its credit. Its WAIT_WORK_GROUP children
 * are opened as each of its groups returns, its WAIT_KERNEL children after its last group.
 */
static void run_inline(struct site *s, const struct kiln_dev_kernel *k,
                       const struct kiln_enq_call *call, struct kiln_wg_ctx *ctx)
{
    void *block = (void *)call->block; /* the caller's literal stays put until we return */
    void *argv[1] = {&block};
    ctx->enqueue = s;
    ctx->stack_lo = s->stack_lo;
    ctx->stack_hi = s->stack_hi;
    struct kiln_enq_cmd *outer_group = s->after_group, **outer_inline = s->after_inline;
    struct kiln_enq_cmd *after_kernel = NULL;
    s->after_inline = &after_kernel;
    s->inline_depth++;
    size_t groups = ctx->num_groups[0] * ctx->num_groups[1] * ctx->num_groups[2];
    struct kiln_cpu_walk walk;
    kiln_cpu_group_first(ctx, &walk, false, 0);
    for (size_t g = 0; g < groups; g++) {
        s->after_group = NULL;
        k->wg(argv, ctx);
        open_list(s->after_group);
        kiln_cpu_group_next(ctx, &walk);
    }
    s->inline_depth--;
    s->after_group = outer_group;
    s->after_inline = outer_inline;
    open_list(after_kernel);
}

static int op_enqueue(void *site, const struct kiln_enq_call *call)
{
    struct site *s = site;
    const struct kiln_dev_enqueue *enq = s->cmd->enq;
    struct kiln_dev_queue *q = call->queue;
    if (!queue_allowed(enq, q))
        return KILN_CLK_INVALID_QUEUE;
    if (call->flags > KILN_CLK_FLAGS_WAIT_WORK_GROUP)
        return KILN_CLK_ENQUEUE_FAILURE;
    if (call->kernel_index >= enq->num_kernels || !enq->kernels[call->kernel_index].wg)
        return KILN_CLK_ENQUEUE_FAILURE;
    int st = check_waits(s, call->num_events, call->events);
    if (st != KILN_CLK_SUCCESS)
        return st;
    const struct kiln_dev_kernel *k = &enq->kernels[call->kernel_index];
    uint32_t block_bytes;
    memcpy(&block_bytes, call->block, sizeof(block_bytes));
    if (block_bytes < 16 || block_bytes > MAX_BLOCK_BYTES || call->num_local != k->num_args - 1 ||
        call->num_local > MAX_LOCAL_ARGS)
        return KILN_CLK_INVALID_ARG_SIZE;
    struct kiln_wg_ctx ranges;
    if ((st = setup_ranges(&ranges, enq, call->ndrange)) != KILN_CLK_SUCCESS)
        return st;
    if (inline_allowed(s, k, call, &ranges)) {
        run_inline(s, k, call, &ranges);
        return KILN_CLK_SUCCESS;
    }
    struct kiln_enq_cmd *c;
    size_t tail = tail_bytes(call->num_events, call->num_local, block_bytes);
    if ((st = cmd_new(s, q, tail, call->num_events, &c)) != KILN_CLK_SUCCESS)
        return st;
    struct tail t = tail_of(c, call->num_local);
    memcpy(t.block, call->block, block_bytes);
    c->block_ptr = t.block;
    c->nd.wg = k->wg;
    c->nd.uses_printf = k->uses_printf;
    c->nd.enq = enq;
    c->nd.node = c;
    c->nd.base = ranges;
    for (unsigned d = 0; d < 3; d++)
        c->nd.groups[d] = ranges.num_groups[d];
    st = setup_args(c, k, call->num_local, call->local_sizes, c->dev->local_mem_size);
    if (st != KILN_CLK_SUCCESS) {
        atomic_fetch_sub_explicit(&q->used, c->bytes, memory_order_relaxed);
        record_free(c, c->record);
        return st;
    }
    struct kiln_wg_ctx *b = &c->nd.base;
    if (k->scratch_fixed || k->scratch_per_item) {
        size_t items =
            b->enqueued_local_size[0] * b->enqueued_local_size[1] * b->enqueued_local_size[2];
        size_t bytes = k->scratch_fixed + k->scratch_per_item * items;
        b->scratch_size =
            (bytes + KILN_SCRATCH_ALIGN - 1) / KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN;
    }
    c->job.num_items = c->nd.groups[0] * c->nd.groups[1] * c->nd.groups[2];
    return cmd_submit(s, c, call->num_events, call->events, call->event_ret, call->flags);
}

static int op_marker(void *site, void *queue, kiln_abi_u32 n, void *const *events, void **ret)
{
    struct site *s = site;
    if (!queue_allowed(s->cmd->enq, queue))
        return KILN_CLK_INVALID_QUEUE;
    int st = n ? check_waits(s, n, events) : KILN_CLK_INVALID_EVENT_WAIT_LIST;
    if (st != KILN_CLK_SUCCESS)
        return st;
    struct kiln_enq_cmd *c;
    if ((st = cmd_new(s, queue, tail_bytes(n, 0, 0), n, &c)) != KILN_CLK_SUCCESS)
        return st;
    c->marker = true;
    return cmd_submit(s, c, n, events, ret, KILN_CLK_FLAGS_NO_WAIT);
}

static void *op_default_queue(void *site)
{
    const struct kiln_dev_enqueue *enq = ((struct site *)site)->cmd->enq;
    return enq->num_queues ? enq->queues[0] : NULL;
}

static void op_retain(void *site, void *handle)
{
    struct event *e = event_of(((struct site *)site)->cmd->dev, handle);
    if (e)
        atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

static void op_release(void *site, void *handle)
{
    struct event *e = event_of(((struct site *)site)->cmd->dev, handle);
    if (e)
        event_release(e);
}

static void *op_user_event(void *site)
{
    struct kiln_enq_pool *p = pool_of(((struct site *)site)->cmd->dev);
    struct event *e = p ? event_alloc(p, 1) : NULL;
    if (!e)
        return NULL_EVENT;
    atomic_store_explicit(&e->start, now_ns(), memory_order_relaxed);
    return e;
}

static void op_set_status(void *site, void *handle, int status)
{
    struct event *e = event_of(((struct site *)site)->cmd->dev, handle);
    if (e && (status == CL_COMPLETE || status < 0))
        event_complete(e, status);
}

static int op_valid(void *site, void *handle)
{
    return event_of(((struct site *)site)->cmd->dev, handle) != NULL;
}

static void op_profile(void *site, void *handle, int name, uint64_t *value)
{
    struct event *e = event_of(((struct site *)site)->cmd->dev, handle);
    if (!e || name != 1 /* CLK_PROFILING_COMMAND_EXEC_TIME */)
        return;
    struct waiter *w = kiln_malloc(sizeof(*w));
    if (!w)
        return;
    w->cmd = NULL;
    w->capture = value;
    if (!event_wait(e, w)) {
        capture_write(e, value);
        free(w);
    }
}

static kiln_abi_size op_kernel_size(void *site, kiln_abi_size index, int which)
{
    const struct kiln_dev_enqueue *enq = ((struct site *)site)->cmd->enq;
    (void)index;
    return which == 0 ? enq->max_group_size : enq->group_multiple;
}

static const struct kiln_enq_ops cpu_enq_ops = {
    .enqueue = op_enqueue,
    .marker = op_marker,
    .default_queue = op_default_queue,
    .retain = op_retain,
    .release = op_release,
    .user_event = op_user_event,
    .set_status = op_set_status,
    .valid = op_valid,
    .profile = op_profile,
    .kernel_size = op_kernel_size,
};

/* ---- what exec.c and ops.c call ---------------------------------------------------- */

void kiln_cpu_enq_group_begin(struct site *s, struct kiln_enq_cmd *c,
                              const struct kiln_sched_worker *w, const struct kiln_wg_ctx *ctx)
{
    s->pub.ops = (kiln_abi_ptr)&cpu_enq_ops;
    s->pub.debug = c->enq->debug;
    s->cmd = c;
    s->after_group = NULL;
    s->credit = 0;
    s->after_inline = NULL;
    s->inline_depth = 0;
    s->worker = w;
    s->stack_lo = ctx->stack_lo;
    s->stack_hi = ctx->stack_hi;
}

void kiln_cpu_enq_group_end(struct site *s)
{
    struct kiln_enq_cmd *list = s->after_group;
    s->after_group = NULL;
    if (s->credit) {
        /* The command's own count is still held: this never takes pending to 0. */
        atomic_fetch_sub_explicit(&s->cmd->pending, s->credit, memory_order_relaxed);
        s->credit = 0;
    }
    open_list(list);
}

cl_int kiln_cpu_enq_root(struct kiln_dev *dev, struct kiln_sched *sched,
                         struct kiln_dev_ndrange *nd, struct kiln_dev_launch *l)
{
    struct kiln_enq_cmd *c = record_alloc(sizeof(*c));
    if (!c) {
        l->note = "no memory for the launch's device-side enqueue state";
        return CL_OUT_OF_HOST_MEMORY;
    }
    memset(c, 0, sizeof(*c));
    c->record = sizeof(*c);
    atomic_init(&c->pending, 1);
    atomic_init(&c->status, CL_COMPLETE);
    atomic_init(&c->gate, 0);
    atomic_init(&c->after_kernel, NULL);
    c->enq = nd->enq;
    c->dev = dev;
    c->sched = sched;
    c->launch = l;
    nd->node = c;
    return CL_SUCCESS;
}

cl_int kiln_cpu_queue_create(struct kiln_dev *dev, size_t size, struct kiln_dev_queue **out)
{
    struct kiln_dev_queue *q = kiln_malloc(sizeof(*q));
    if (!q)
        return CL_OUT_OF_HOST_MEMORY;
    q->dev = dev;
    q->size = size;
    atomic_init(&q->used, 0);
    *out = q;
    return CL_SUCCESS;
}

void kiln_cpu_queue_release(struct kiln_dev_queue *q)
{
    free(q);
}

void kiln_cpu_enq_pool_free(struct kiln_dev *dev)
{
    free(atomic_exchange_explicit(&dev->enq_pool, NULL, memory_order_acquire));
}
