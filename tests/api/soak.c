/*
 * Stress without loss: eight host threads each run random, seeded episodes against Kiln and
 * check every result against a host model.
 *
 * An episode works in one context (the thread's, kept from its last episode or new, or now
 * and then one that all threads share, with an in-order and an out-of-order queue that
 * several threads enqueue to at once): two or three queues, in-order or out-of-order;
 * buffers and sub-buffers; kernels from a small set of program
 * sources (built once per context, so every build after the first hits the kernel cache);
 * a random sequence of kernels, copies, fills, reads, writes, markers, barriers, user events
 * and event callbacks, with wait lists that mix events of other queues and user events.
 * Objects are released while their commands are still queued: kernels right after their
 * launch, events right after their enqueue, in their own callback or never asked for,
 * buffers after their last read and before their sub-buffers, queues and contexts before
 * their commands can run (OpenCL 3.0 §5.4.1, §5.5.3, §5.7.1: the runtime keeps them until
 * the commands finish). Some user events are set by a callback of another command.
 *
 * The model: every command waits (through its wait list, its in-order queue, or a marker)
 * for the commands before it that touch the same buffer, so the final contents are
 * determined. A user event is set to CL_COMPLETE or to a negative status chosen when it is
 * made; a command whose wait list holds an event that ends negative ends negative and writes
 * nothing, and so on down the wait lists; the implicit order of an in-order queue does not
 * carry failure (docs/runtime.md, "Commands and events"). Checked at the end of each episode:
 * every read against the model (untouched where the read failed), the final contents of
 * every buffer, every event's final status, every callback called once with the right
 * status, every destructor callback of a buffer and of a context called. Every object is
 * released, so a LeakSanitizer build reports any leak of Kiln's.
 *
 * Usage: test_api_soak [ITERATIONS [SECONDS [SEED]]]: each thread stops after ITERATIONS
 * episodes or SECONDS seconds, whichever comes first. The seed is printed; a failing run
 * is repeated, as far as the threads' interleaving allows, with the same seed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kiln_test.h"

enum {
    THREADS = 8,
    MAX_QUEUES = 3,
    MAX_ROOTS = 4,
    MAX_VIEWS = 12,
    MAX_EVENTS = 512,
    MAX_READS = 6, /* reads of one buffer since its last write that a write waits for */
    MAX_WAIT = 32,
    MAX_CHECKS = 96,
    MAX_CALLBACKS = 256,
    MAX_KEEP = 96,
    SUB_ALIGN = 32, /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes, in uints */
};

static const uint32_t SENTINEL = 0xdeadbeefu;

/* The small set of sources: every context builds the same ones. */
static const char *const sources[] = {
    "__kernel void add(__global uint *p, uint v) { p[get_global_id(0)] += v; }\n",
    "__kernel void mad(__global uint *d, __global const uint *s, uint a)\n"
    "{ size_t i = get_global_id(0); d[i] = d[i] * a + s[i]; }\n",
    "__kernel void iota(__global uint *p, uint base)\n"
    "{ p[get_global_id(0)] = base + (uint)get_global_id(0); }\n"
    "__kernel void rev(__global uint *d, __global const uint *s, uint n)\n"
    "{ size_t i = get_global_id(0); d[i] = s[n - 1 - i]; }\n",
};
enum { K_ADD, K_MAD, K_IOTA, K_REV, NUM_KERNELS };
static const struct {
    const char *name;
    int source;
} kernels[NUM_KERNELS] = {{"add", 0}, {"mad", 1}, {"iota", 2}, {"rev", 2}};
enum { NUM_SOURCES = sizeof(sources) / sizeof(sources[0]) };

static cl_platform_id platform;
static cl_device_id device;
static long iterations = 1000000;
static double seconds = 30;
static struct timespec start;
/* One context that every thread uses now and then, with its programs and two queues, in
 * order and out of order, that several threads enqueue to at once. */
static cl_context shared_ctx;
static cl_program shared_progs[NUM_SOURCES];
static cl_command_queue shared_q[2];
static atomic_int shared_ctx_freed;

static double elapsed(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
}

/* xorshift64*: the same sequence from the same seed on every host. */
static uint32_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (uint32_t)((*s * 0x2545f4914f6cdd1dull) >> 32);
}

/* A number in [0, n). */
static uint32_t below(uint64_t *s, uint32_t n)
{
    return n ? rnd(s) % n : 0;
}

/* A command a later one must come after: its event (held here) or, with none asked
 * for, its in-order queue; `failed` is the model's final status of that command. */
struct dep {
    bool used;
    cl_event ev;
    int q;
    bool failed;
};

struct root {
    bool live;
    cl_mem mem;
    int view; /* the view of `mem`, which may be released before the root's sub-buffers */
    uint32_t *model;
    size_t n;
    struct dep write;
    struct dep reads[MAX_READS];
    int num_reads;
};

struct view {
    bool live;
    cl_mem mem; /* the root's own handle or a sub-buffer */
    int root;
    size_t off, n;
};

/* An event the application still holds, and what its final status must be. */
struct tracked {
    cl_event ev;
    bool failed;
    bool user;
    bool set;
    cl_int user_status; /* user events: the status they will be set to */
};

/* A read into host memory: `want` from the model, or untouched (SENTINEL) if it failed. */
struct check {
    uint32_t *host;
    uint32_t *want;
    size_t n;
    bool failed;
    const char *what;
};

struct episode;
struct callback {
    struct episode *ep;
    cl_int type;
    bool failed;
    bool user;
    cl_int user_status;
    bool release;   /* the application's reference to the event went to the callback */
    cl_event chain; /* a user event the callback sets to chain_status and releases, or NULL */
    cl_int chain_status;
    atomic_int calls;
};

struct thread {
    int id;
    uint64_t rng;
    cl_context ctx;
    cl_program progs[NUM_SOURCES];
    atomic_int contexts_freed;
    int contexts_made;
    long episodes;
    long commands;
    long failed;    /* commands the model says fail after a negative user event */
    long callbacks; /* event callbacks checked */
};

struct episode {
    struct thread *t;
    uint64_t *rng;
    bool shared;       /* in shared_ctx, with one of the shared queues */
    cl_context ctx;    /* the thread's context or shared_ctx */
    cl_program *progs; /* the thread's programs or shared_progs */
    cl_command_queue q[MAX_QUEUES];
    bool ooo[MAX_QUEUES];
    int nq;
    struct root roots[MAX_ROOTS];
    int nroots;
    struct view views[MAX_VIEWS];
    int nviews;
    struct tracked ev[MAX_EVENTS];
    int nev;
    int unset_users;
    struct check checks[MAX_CHECKS];
    int nchecks;
    struct callback cbs[MAX_CALLBACKS];
    int ncbs;
    atomic_int cb_calls;
    atomic_int mems_freed;
    int mems_made;
    void *keep[MAX_KEEP]; /* sources of writes, alive until the episode ends */
    int nkeep;
    cl_kernel cached[NUM_KERNELS];
};

/* A wait list under construction and whether the command it holds back must fail. */
struct waitlist {
    cl_event e[MAX_WAIT];
    cl_uint n;
    bool failed;
};

static void CL_CALLBACK on_event(cl_event e, cl_int status, void *user)
{
    struct callback *cb = user;
    if (cb->user && cb->failed)
        KT_CHECK(status == cb->user_status, "user event callback: status %d, want %d", status,
                 cb->user_status);
    else if (cb->failed)
        KT_CHECK(status < 0, "callback of a failed command: status %d", status);
    else
        KT_CHECK(status == cb->type, "callback for %d: status %d", cb->type, status);
    /* From a worker, most likely: an API call inside a callback. The callback holds a
     * reference of its own for the call: the thread that made the event may see its status
     * and release its reference before clSetUserEventStatus returns. */
    if (cb->chain) {
        KT_EXPECT(clSetUserEventStatus(cb->chain, cb->chain_status), CL_SUCCESS);
        KT_EXPECT(clReleaseEvent(cb->chain), CL_SUCCESS);
    }
    /* The last reference, maybe, while the command has yet to run or to let go of it. */
    if (cb->release)
        KT_EXPECT(clReleaseEvent(e), CL_SUCCESS);
    atomic_fetch_add(&cb->calls, 1);
    atomic_fetch_add(&cb->ep->cb_calls, 1);
}

static void CL_CALLBACK on_mem_freed(cl_mem m, void *user)
{
    (void)m;
    atomic_fetch_add(&((struct episode *)user)->mems_freed, 1);
}

static void CL_CALLBACK on_context_freed(cl_context c, void *user)
{
    (void)c;
    atomic_fetch_add(&((struct thread *)user)->contexts_freed, 1);
}

/* Wait for `counter` to reach `want`, up to a minute (sanitizer builds are slow). */
static bool wait_count(atomic_int *counter, int want)
{
    for (int i = 0; i < 60000 && atomic_load(counter) < want; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return atomic_load(counter) == want;
}

static void track(struct episode *ep, cl_event e, bool failed)
{
    KT_REQUIRE(ep->nev < MAX_EVENTS, "too many events");
    ep->ev[ep->nev++] = (struct tracked){.ev = e, .failed = failed};
}

/* Register a callback on `e` (the model says how it must end); false if there is no room. */
static bool add_callback(struct episode *ep, cl_event e, cl_int type, bool failed, bool user,
                         cl_int user_status, bool release, cl_event chain, cl_int chain_status)
{
    if (ep->ncbs == MAX_CALLBACKS)
        return false;
    struct callback *cb = &ep->cbs[ep->ncbs++];
    cb->ep = ep;
    cb->type = type;
    cb->failed = failed;
    cb->user = user;
    cb->user_status = user_status;
    cb->release = release;
    cb->chain = chain;
    cb->chain_status = chain_status;
    atomic_init(&cb->calls, 0);
    KT_REQUIRE_OK(clSetEventCallback(e, type, on_event, cb));
    return true;
}

/* A marker with an empty wait list on queue `qi`: it ends after every earlier command
 * of the queue and never fails (implicit dependencies carry no failure). */
static cl_event marker_on(struct episode *ep, int qi)
{
    cl_event m = NULL;
    KT_REQUIRE_OK(clEnqueueMarkerWithWaitList(ep->q[qi], 0, NULL, &m));
    track(ep, m, false);
    return m;
}

static void wl_push(struct waitlist *wl, cl_event e, bool failed)
{
    KT_REQUIRE(wl->n < MAX_WAIT, "wait list too long");
    wl->e[wl->n++] = e;
    wl->failed |= failed;
}

/*
 * Order a command on queue `qi` after `d`. Same in-order queue: nothing to add (or, at
 * random, the event too). No event held, or a failed one that must not fail this command
 * (`safe`, or at random to keep failures from spreading through a whole episode): a marker
 * on d's queue stands for it.
 */
static void wl_after(struct episode *ep, struct waitlist *wl, struct dep *d, int qi, bool safe)
{
    if (!d->used)
        return;
    if (!ep->ooo[qi] && d->q == qi && (safe || !d->ev || below(ep->rng, 2)))
        return;
    if (!d->ev || (d->failed && (safe || below(ep->rng, 2)))) {
        cl_event m = marker_on(ep, d->q);
        if (!d->ev) {
            KT_REQUIRE_OK(clRetainEvent(m));
            d->ev = m;
            d->failed = false;
        }
        wl_push(wl, m, false);
        return;
    }
    wl_push(wl, d->ev, d->failed);
}

static void dep_clear(struct dep *d)
{
    if (d->ev)
        KT_EXPECT(clReleaseEvent(d->ev), CL_SUCCESS);
    *d = (struct dep){0};
}

static void dep_set(struct dep *d, cl_event e, int qi, bool failed)
{
    if (e)
        KT_REQUIRE_OK(clRetainEvent(e));
    *d = (struct dep){.used = true, .ev = e, .q = qi, .failed = failed};
}

/* A few random events of this episode (other queues', user events) to wait for too. */
static void wl_random(struct episode *ep, struct waitlist *wl)
{
    if (ep->nev == 0 || below(ep->rng, 3))
        return;
    int n = 1 + (int)below(ep->rng, 3);
    for (int i = 0; i < n; i++) {
        struct tracked *t = &ep->ev[below(ep->rng, (uint32_t)ep->nev)];
        if (!t->ev)
            continue;
        wl_push(wl, t->ev, t->user ? t->user_status < 0 : t->failed);
    }
}

/* The wait list of a command that reads `rd` and writes `wr` (root indices, -1 none). */
static void wl_for(struct episode *ep, struct waitlist *wl, int qi, const int *rd, int nrd,
                   const int *wr, int nwr, bool safe)
{
    for (int i = 0; i < nrd; i++)
        wl_after(ep, wl, &ep->roots[rd[i]].write, qi, safe);
    for (int i = 0; i < nwr; i++) {
        struct root *r = &ep->roots[wr[i]];
        wl_after(ep, wl, &r->write, qi, safe);
        for (int k = 0; k < r->num_reads; k++)
            wl_after(ep, wl, &r->reads[k], qi, safe);
    }
    if (!safe)
        wl_random(ep, wl);
}

/* After the command's enqueue: it is the new writer of `wr` and a reader of `rd`. */
static void record(struct episode *ep, cl_event e, int qi, bool failed, const int *rd, int nrd,
                   const int *wr, int nwr)
{
    for (int i = 0; i < nwr; i++) {
        struct root *r = &ep->roots[wr[i]];
        dep_clear(&r->write);
        for (int k = 0; k < r->num_reads; k++)
            dep_clear(&r->reads[k]);
        r->num_reads = 0;
        dep_set(&r->write, e, qi, failed);
    }
    for (int i = 0; i < nrd; i++) {
        struct root *r = &ep->roots[rd[i]];
        KT_REQUIRE(r->num_reads < MAX_READS, "reads");
        dep_set(&r->reads[r->num_reads++], e, qi, failed);
    }
}

/*
 * The event a command returns: none (only on an in-order queue, whose order stands in for
 * it), or one tracked to the end, or one released at once, the command still queued, after
 * a callback may have been set on it.
 */
static bool want_event(struct episode *ep, int qi)
{
    return ep->ooo[qi] || below(ep->rng, 4) != 0;
}

static void after_enqueue(struct episode *ep, cl_event e, bool failed)
{
    ep->t->commands++;
    ep->t->failed += failed;
    if (!e)
        return;
    static const cl_int types[] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
    uint32_t r = below(ep->rng, 8);
    if (r < 2)
        add_callback(ep, e, types[below(ep->rng, 3)], failed, false, 0, false, NULL, 0);
    /* The callback releases the event: the application keeps no reference. */
    if (r == 3 && add_callback(ep, e, types[below(ep->rng, 3)], failed, false, 0, true, NULL, 0))
        return;
    if (r == 1 || r == 2 || r == 3) {
        KT_EXPECT(clReleaseEvent(e), CL_SUCCESS);
        return;
    }
    track(ep, e, failed);
}

/* A random live view and a random range [*off, *off + *n) of it, n >= 1. */
static int pick_range(struct episode *ep, size_t *off, size_t *n)
{
    int live[MAX_VIEWS], nl = 0;
    for (int i = 0; i < ep->nviews; i++)
        if (ep->views[i].live)
            live[nl++] = i;
    if (nl == 0)
        return -1;
    int v = live[below(ep->rng, (uint32_t)nl)];
    size_t vn = ep->views[v].n;
    *n = 1 + below(ep->rng, (uint32_t)vn);
    *off = below(ep->rng, (uint32_t)(vn - *n + 1));
    return v;
}

/* A random live queue. */
static int pick_queue(struct episode *ep)
{
    return (int)below(ep->rng, (uint32_t)ep->nq);
}

static cl_program build(cl_context ctx, int s)
{
    cl_int err;
    const char *src = sources[s];
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    KT_REQUIRE_OK(err);
    KT_REQUIRE_OK(clBuildProgram(p, 1, &device, NULL, NULL, NULL));
    return p;
}

static cl_program program(struct episode *ep, int s)
{
    if (!ep->progs[s])
        ep->progs[s] = build(ep->ctx, s);
    return ep->progs[s];
}

/* A kernel: the episode's own (set anew for each launch), or a fresh one the caller
 * releases right after the launch. Now and then the program goes first: the kernel holds it. */
static cl_kernel kernel(struct episode *ep, int k, bool *fresh)
{
    *fresh = below(ep->rng, 2);
    if (!*fresh && ep->cached[k])
        return ep->cached[k];
    cl_int err;
    int s = kernels[k].source;
    cl_kernel kern = clCreateKernel(program(ep, s), kernels[k].name, &err);
    KT_REQUIRE_OK(err);
    if (!ep->shared && below(ep->rng, 16) == 0) {
        KT_EXPECT(clReleaseProgram(ep->progs[s]), CL_SUCCESS);
        ep->progs[s] = NULL;
    }
    if (!*fresh)
        ep->cached[k] = kern;
    return kern;
}

static void set_arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    KT_REQUIRE_OK(clSetKernelArg(k, i, size, v));
}

/* One of the two-buffer kernels or copies: a range of one root to a range of another. */
static bool pick_pair(struct episode *ep, int *dv, size_t *doff, int *sv, size_t *soff, size_t *n)
{
    size_t dn, sn;
    *dv = pick_range(ep, doff, &dn);
    *sv = pick_range(ep, soff, &sn);
    if (*dv < 0 || *sv < 0 || ep->views[*dv].root == ep->views[*sv].root)
        return false;
    *n = dn < sn ? dn : sn;
    return true;
}

static void op_kernel(struct episode *ep)
{
    int which = (int)below(ep->rng, NUM_KERNELS);
    int qi = pick_queue(ep);
    int dv, sv = -1;
    size_t doff, soff = 0, n;
    if (which == K_MAD || which == K_REV) {
        if (!pick_pair(ep, &dv, &doff, &sv, &soff, &n))
            return;
    } else if ((dv = pick_range(ep, &doff, &n)) < 0) {
        return;
    }
    /* Now and then a local size of 16 over whole groups: launches of the same size and
     * offset kind repeat, so the kernel gets a local-size variant built (docs/compiler.md)
     * while other threads launch it. */
    size_t local = 0;
    if (n >= 16 && below(ep->rng, 3) == 0) {
        local = 16;
        n -= n % 16;
    }
    struct view *d = &ep->views[dv];
    int wr = d->root, rd = sv >= 0 ? ep->views[sv].root : -1;
    if (rd >= 0 && ep->roots[rd].num_reads == MAX_READS)
        return;
    bool fresh;
    cl_kernel k = kernel(ep, which, &fresh);
    uint32_t v = rnd(ep->rng);
    set_arg(k, 0, sizeof(cl_mem), &d->mem);
    uint32_t *m = ep->roots[wr].model + d->off;
    const uint32_t *s = sv >= 0 ? ep->roots[rd].model + ep->views[sv].off : NULL;
    /* add and iota index by global id, so they reach [doff, doff + n) through the global
     * offset; mad and rev, with two views, work on the first n elements of both. */
    size_t goff = doff, gsize = n;
    if (which == K_MAD || which == K_REV) {
        set_arg(k, 1, sizeof(cl_mem), &ep->views[sv].mem);
        goff = 0;
        doff = 0;
    }
    if (which == K_REV)
        v = (uint32_t)n;
    set_arg(k, which == K_ADD || which == K_IOTA ? 1 : 2, sizeof(v), &v);

    struct waitlist wl = {0};
    wl_for(ep, &wl, qi, rd >= 0 ? &rd : NULL, rd >= 0, &wr, 1, false);
    cl_event e = NULL;
    bool ask = want_event(ep, qi);
    KT_REQUIRE_OK(clEnqueueNDRangeKernel(ep->q[qi], k, 1, goff ? &goff : NULL, &gsize,
                                         local ? &local : NULL, wl.n, wl.n ? wl.e : NULL,
                                         ask ? &e : NULL));
    if (fresh)
        KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    if (!wl.failed) {
        for (size_t i = 0; i < n; i++) {
            switch (which) {
            case K_ADD:
                m[doff + i] += v;
                break;
            case K_IOTA:
                m[doff + i] = v + (uint32_t)(i + doff);
                break;
            case K_MAD:
                m[i] = m[i] * v + s[i];
                break;
            case K_REV:
                m[i] = s[n - 1 - i];
                break;
            }
        }
    }
    record(ep, e, qi, wl.failed, rd >= 0 ? &rd : NULL, rd >= 0, &wr, 1);
    after_enqueue(ep, e, wl.failed);
}

static void op_copy(struct episode *ep)
{
    int dv, sv, qi = pick_queue(ep);
    size_t doff, soff, n;
    if (!pick_pair(ep, &dv, &doff, &sv, &soff, &n))
        return;
    int wr = ep->views[dv].root, rd = ep->views[sv].root;
    if (ep->roots[rd].num_reads == MAX_READS)
        return;
    struct waitlist wl = {0};
    wl_for(ep, &wl, qi, &rd, 1, &wr, 1, false);
    cl_event e = NULL;
    bool ask = want_event(ep, qi);
    KT_REQUIRE_OK(clEnqueueCopyBuffer(ep->q[qi], ep->views[sv].mem, ep->views[dv].mem, soff * 4,
                                      doff * 4, n * 4, wl.n, wl.n ? wl.e : NULL, ask ? &e : NULL));
    if (!wl.failed)
        memcpy(ep->roots[wr].model + ep->views[dv].off + doff,
               ep->roots[rd].model + ep->views[sv].off + soff, n * 4);
    record(ep, e, qi, wl.failed, &rd, 1, &wr, 1);
    after_enqueue(ep, e, wl.failed);
}

static void op_fill(struct episode *ep)
{
    int qi = pick_queue(ep);
    size_t off, n;
    int v = pick_range(ep, &off, &n);
    if (v < 0)
        return;
    /* One, two or four uints a pattern; the range rounded to whole patterns. */
    size_t per = (size_t)1 << below(ep->rng, 3);
    off -= off % per;
    n -= n % per;
    if (n == 0)
        return;
    uint32_t pattern[4];
    for (size_t i = 0; i < per; i++)
        pattern[i] = rnd(ep->rng);
    int wr = ep->views[v].root;
    struct waitlist wl = {0};
    wl_for(ep, &wl, qi, NULL, 0, &wr, 1, false);
    cl_event e = NULL;
    bool ask = want_event(ep, qi);
    KT_REQUIRE_OK(clEnqueueFillBuffer(ep->q[qi], ep->views[v].mem, pattern, per * 4, off * 4, n * 4,
                                      wl.n, wl.n ? wl.e : NULL, ask ? &e : NULL));
    if (!wl.failed)
        for (size_t i = 0; i < n; i++)
            ep->roots[wr].model[ep->views[v].off + off + i] = pattern[i % per];
    record(ep, e, qi, wl.failed, NULL, 0, &wr, 1);
    after_enqueue(ep, e, wl.failed);
}

static void op_write(struct episode *ep)
{
    int qi = pick_queue(ep);
    size_t off, n;
    int v = pick_range(ep, &off, &n);
    if (v < 0 || ep->nkeep == MAX_KEEP)
        return;
    uint32_t *src = malloc(n * 4);
    KT_REQUIRE(src, "out of memory");
    for (size_t i = 0; i < n; i++)
        src[i] = rnd(ep->rng);
    ep->keep[ep->nkeep++] = src;
    int wr = ep->views[v].root;
    struct waitlist wl = {0};
    wl_for(ep, &wl, qi, NULL, 0, &wr, 1, false);
    /* Blocking only when no user event is left unset: it could wait for one forever. */
    bool blocking = ep->unset_users == 0 && below(ep->rng, 3) == 0;
    cl_event e = NULL;
    bool ask = want_event(ep, qi);
    KT_EXPECT(clEnqueueWriteBuffer(ep->q[qi], ep->views[v].mem, blocking, off * 4, n * 4, src, wl.n,
                                   wl.n ? wl.e : NULL, ask ? &e : NULL),
              wl.failed && blocking ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
    if (!wl.failed)
        memcpy(ep->roots[wr].model + ep->views[v].off + off, src, n * 4);
    record(ep, e, qi, wl.failed, NULL, 0, &wr, 1);
    after_enqueue(ep, e, wl.failed);
}

static void check_read(struct check *c)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < c->n; i++) {
        uint32_t want = c->failed ? SENTINEL : c->want[i];
        if (c->host[i] != want && bad++ == 0)
            first = i;
    }
    KT_CHECK(bad == 0, "%s of %zu uints%s: %zu wrong, the first at %zu: 0x%08x, want 0x%08x",
             c->what, c->n, c->failed ? " (failed: must stay untouched)" : "", bad, first,
             c->host[first], c->failed ? SENTINEL : c->want[first]);
}

/* Read a range into host memory; `safe` (a buffer's last read): it must not fail. */
static void read_range(struct episode *ep, int v, size_t off, size_t n, bool safe, const char *what)
{
    int qi = pick_queue(ep);
    int rd = ep->views[v].root;
    struct root *r = &ep->roots[rd];
    KT_REQUIRE(ep->nchecks < MAX_CHECKS, "checks");
    /* A buffer read by too many commands since its last write: this read waits for all of
     * them and takes the writer's place, which orders just as well. */
    bool as_write = r->num_reads == MAX_READS;
    struct waitlist wl = {0};
    wl_for(ep, &wl, qi, as_write ? NULL : &rd, !as_write, as_write ? &rd : NULL, as_write, safe);
    KT_CHECK(!safe || !wl.failed, "a safe read would fail");
    struct check *c = &ep->checks[ep->nchecks++];
    c->n = n;
    c->what = what;
    c->failed = wl.failed;
    c->host = malloc(n * 4);
    c->want = malloc(n * 4);
    KT_REQUIRE(c->host && c->want, "out of memory");
    for (size_t i = 0; i < n; i++)
        c->host[i] = SENTINEL;
    memcpy(c->want, r->model + ep->views[v].off + off, n * 4);
    bool blocking = !safe && ep->unset_users == 0 && below(ep->rng, 3) == 0;
    cl_event e = NULL;
    bool ask = want_event(ep, qi);
    KT_EXPECT(clEnqueueReadBuffer(ep->q[qi], ep->views[v].mem, blocking, off * 4, n * 4, c->host,
                                  wl.n, wl.n ? wl.e : NULL, ask ? &e : NULL),
              wl.failed && blocking ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
    if (blocking)
        check_read(c);
    record(ep, e, qi, wl.failed, as_write ? NULL : &rd, !as_write, as_write ? &rd : NULL, as_write);
    after_enqueue(ep, e, wl.failed);
}

static void op_read(struct episode *ep)
{
    size_t off, n;
    int v = pick_range(ep, &off, &n);
    if (v >= 0 && ep->nchecks < MAX_CHECKS - MAX_VIEWS)
        read_range(ep, v, off, n, false, "a read");
}

/* A marker or a barrier with a random wait list (or none) on a random queue. */
static void op_marker(struct episode *ep)
{
    int qi = pick_queue(ep);
    struct waitlist wl = {0};
    wl_random(ep, &wl);
    bool barrier = below(ep->rng, 2);
    cl_event e = NULL;
    bool ask = below(ep->rng, 4) != 0;
    if (barrier)
        KT_REQUIRE_OK(
            clEnqueueBarrierWithWaitList(ep->q[qi], wl.n, wl.n ? wl.e : NULL, ask ? &e : NULL));
    else
        KT_REQUIRE_OK(
            clEnqueueMarkerWithWaitList(ep->q[qi], wl.n, wl.n ? wl.e : NULL, ask ? &e : NULL));
    after_enqueue(ep, e, wl.failed);
}

static void op_user_event(struct episode *ep)
{
    if (ep->nev == MAX_EVENTS)
        return;
    cl_int err;
    cl_event u = clCreateUserEvent(ep->ctx, &err);
    KT_REQUIRE_OK(err);
    /* One in four ends with an error of the application's choosing. */
    cl_int status = below(ep->rng, 4) == 0 ? -1 - (cl_int)below(ep->rng, 1000) : CL_COMPLETE;
    ep->ev[ep->nev++] = (struct tracked){.ev = u, .user = true, .user_status = status};
    ep->unset_users++;
    if (below(ep->rng, 4) == 0)
        add_callback(ep, u, CL_COMPLETE, status < 0, true, status, false, NULL, 0);
}

static void set_user(struct episode *ep, struct tracked *t)
{
    KT_EXPECT(clSetUserEventStatus(t->ev, t->user_status), CL_SUCCESS);
    t->set = true;
    ep->unset_users--;
    /* A second status is refused. */
    if (below(ep->rng, 8) == 0)
        KT_EXPECT(clSetUserEventStatus(t->ev, CL_COMPLETE), CL_INVALID_OPERATION);
}

/*
 * A user event that a callback of an earlier command sets: the command's CL_COMPLETE
 * callback, on whichever thread completes it. The command cannot wait for the new event,
 * so every chain ends at a command or a user event that this thread sets.
 */
static void op_chain_user(struct episode *ep)
{
    if (ep->nev == 0 || ep->nev == MAX_EVENTS)
        return;
    struct tracked *x = &ep->ev[below(ep->rng, (uint32_t)ep->nev)];
    if (x->user)
        return;
    cl_int err;
    cl_event u = clCreateUserEvent(ep->ctx, &err);
    KT_REQUIRE_OK(err);
    cl_int status = below(ep->rng, 4) == 0 ? -1 - (cl_int)below(ep->rng, 1000) : CL_COMPLETE;
    ep->ev[ep->nev++] = (struct tracked){.ev = u, .user = true, .set = true, .user_status = status};
    KT_REQUIRE_OK(clRetainEvent(u)); /* the callback's */
    if (!add_callback(ep, x->ev, CL_COMPLETE, x->failed, false, 0, false, u, status)) {
        KT_EXPECT(clSetUserEventStatus(u, status), CL_SUCCESS);
        KT_EXPECT(clReleaseEvent(u), CL_SUCCESS);
    }
}

static void op_set_user(struct episode *ep)
{
    if (ep->unset_users == 0)
        return;
    int skip = (int)below(ep->rng, (uint32_t)ep->unset_users);
    for (int i = 0; i < ep->nev; i++) {
        struct tracked *t = &ep->ev[i];
        if (t->user && !t->set && skip-- == 0) {
            set_user(ep, t);
            return;
        }
    }
}

/* A wait in the middle: a queue's clFinish, or clWaitForEvents on events of several queues
 * (an error if one of them failed). Not while a user event is unset: it might never end. */
static void op_finish(struct episode *ep)
{
    if (ep->unset_users != 0)
        return;
    if (below(ep->rng, 2) || ep->nev == 0) {
        KT_EXPECT(clFinish(ep->q[pick_queue(ep)]), CL_SUCCESS);
        return;
    }
    cl_event list[4];
    cl_uint n = 0;
    bool failed = false;
    for (int i = 0, want = 1 + (int)below(ep->rng, 4); i < want; i++) {
        struct tracked *t = &ep->ev[below(ep->rng, (uint32_t)ep->nev)];
        list[n++] = t->ev;
        failed |= t->user ? t->user_status < 0 : t->failed;
    }
    KT_EXPECT(clWaitForEvents(n, list),
              failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
}

static void op_sub_buffer(struct episode *ep)
{
    if (ep->nviews == MAX_VIEWS || ep->nroots == 0)
        return;
    int ri = (int)below(ep->rng, (uint32_t)ep->nroots);
    struct root *r = &ep->roots[ri];
    if (!r->live || !ep->views[r->view].live || r->n < 2 * SUB_ALIGN)
        return;
    size_t origin = SUB_ALIGN * below(ep->rng, (uint32_t)(r->n / SUB_ALIGN));
    size_t n = 1 + below(ep->rng, (uint32_t)(r->n - origin));
    cl_buffer_region reg = {origin * 4, n * 4};
    cl_int err;
    cl_mem sub =
        clCreateSubBuffer(r->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    KT_REQUIRE_OK(err);
    ep->views[ep->nviews++] =
        (struct view){.live = true, .mem = sub, .root = ri, .off = origin, .n = n};
}

/* Release one handle of a buffer that has another: a sub-buffer, or the buffer's own handle
 * while a sub-buffer (which holds it) goes on being used, its commands perhaps queued. */
static void op_release_view(struct episode *ep)
{
    int v = (int)below(ep->rng, (uint32_t)ep->nviews);
    struct view *w = &ep->views[v];
    int others = 0;
    for (int i = 0; i < ep->nviews; i++)
        others += i != v && ep->views[i].live && ep->views[i].root == w->root;
    if (!w->live || others == 0)
        return;
    KT_EXPECT(clReleaseMemObject(w->mem), CL_SUCCESS);
    w->live = false;
}

static void add_root(struct episode *ep)
{
    struct root *r = &ep->roots[ep->nroots];
    /* Mostly small; now and then big enough that copies and fills go to the workers. */
    r->n = below(ep->rng, 16) == 0 ? 96 * 1024 : SUB_ALIGN * (1 + below(ep->rng, 64));
    r->model = malloc(r->n * 4);
    KT_REQUIRE(r->model, "out of memory");
    for (size_t i = 0; i < r->n; i++)
        r->model[i] = rnd(ep->rng);
    cl_int err;
    r->mem =
        clCreateBuffer(ep->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, r->n * 4, r->model, &err);
    KT_REQUIRE_OK(err);
    KT_REQUIRE_OK(clSetMemObjectDestructorCallback(r->mem, on_mem_freed, ep));
    ep->mems_made++;
    r->live = true;
    r->view = ep->nviews;
    ep->views[ep->nviews++] =
        (struct view){.live = true, .mem = r->mem, .root = ep->nroots, .off = 0, .n = r->n};
    ep->nroots++;
}

/*
 * A buffer's end: one last read of each of its handles still held, whole, which must not
 * fail, then every handle released, the reads most likely still queued.
 */
static void retire_root(struct episode *ep, int ri)
{
    struct root *r = &ep->roots[ri];
    for (int v = 0; v < ep->nviews; v++)
        if (ep->views[v].live && ep->views[v].root == ri)
            read_range(ep, v, 0, ep->views[v].n, true, "a buffer's final contents");
    for (int v = 0; v < ep->nviews; v++) {
        struct view *w = &ep->views[v];
        if (w->live && w->root == ri) {
            KT_EXPECT(clReleaseMemObject(w->mem), CL_SUCCESS);
            w->live = false;
        }
    }
    r->live = false;
    dep_clear(&r->write);
    for (int k = 0; k < r->num_reads; k++)
        dep_clear(&r->reads[k]);
    r->num_reads = 0;
}

static void op_retire(struct episode *ep)
{
    int ri = (int)below(ep->rng, (uint32_t)ep->nroots);
    int live = 0;
    for (int i = 0; i < ep->nroots; i++)
        live += ep->roots[i].live;
    if (ep->roots[ri].live && live > 1 && ep->nchecks < MAX_CHECKS - MAX_VIEWS)
        retire_root(ep, ri);
}

/* The thread lets go of its context and programs, perhaps with commands still queued. */
static void drop_context(struct thread *t)
{
    for (int s = 0; s < NUM_SOURCES; s++)
        if (t->progs[s]) {
            KT_EXPECT(clReleaseProgram(t->progs[s]), CL_SUCCESS);
            t->progs[s] = NULL;
        }
    KT_EXPECT(clReleaseContext(t->ctx), CL_SUCCESS);
    t->ctx = NULL;
}

static void CL_CALLBACK on_shared_context_freed(cl_context c, void *user)
{
    (void)c, (void)user;
    atomic_fetch_add(&shared_ctx_freed, 1);
}

static void new_context(struct thread *t)
{
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    t->ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    KT_REQUIRE_OK(err);
    KT_REQUIRE_OK(clSetContextDestructorCallback(t->ctx, on_context_freed, t));
    t->contexts_made++;
}

static void episode(struct thread *t, struct episode *ep)
{
    memset(ep, 0, sizeof(*ep));
    ep->t = t;
    ep->rng = &t->rng;
    if (!t->ctx)
        new_context(t);
    /* One episode in four works in the shared context; its first queue is a shared one. */
    ep->shared = below(ep->rng, 4) == 0;
    ep->ctx = ep->shared ? shared_ctx : t->ctx;
    ep->progs = ep->shared ? shared_progs : t->progs;
    cl_int err;
    ep->nq = 2 + (int)below(ep->rng, 2);
    for (int i = 0; i < ep->nq; i++) {
        if (ep->shared && i == 0) {
            int which = (int)below(ep->rng, 2);
            ep->q[i] = shared_q[which];
            ep->ooo[i] = which == 1;
            continue;
        }
        ep->ooo[i] = below(ep->rng, 2);
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                       (ep->ooo[i] ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0) |
                                           (below(ep->rng, 4) == 0 ? CL_QUEUE_PROFILING_ENABLE : 0),
                                       0};
        ep->q[i] = clCreateCommandQueueWithProperties(ep->ctx, device, props, &err);
        KT_REQUIRE_OK(err);
    }
    int nroots = 2 + (int)below(ep->rng, MAX_ROOTS - 1);
    for (int i = 0; i < nroots; i++)
        add_root(ep);

    int ops = 10 + (int)below(ep->rng, 40);
    for (int i = 0; i < ops; i++) {
        uint32_t r = below(ep->rng, 100);
        if (r < 30)
            op_kernel(ep);
        else if (r < 40)
            op_copy(ep);
        else if (r < 48)
            op_fill(ep);
        else if (r < 56)
            op_write(ep);
        else if (r < 68)
            op_read(ep);
        else if (r < 76)
            op_marker(ep);
        else if (r < 84)
            op_user_event(ep);
        else if (r < 89)
            op_set_user(ep);
        else if (r < 91)
            op_chain_user(ep);
        else if (r < 93)
            op_sub_buffer(ep);
        else if (r < 94)
            op_release_view(ep);
        else if (r < 97)
            op_retire(ep);
        else
            op_finish(ep);
    }

    /* The end: every buffer's contents read back, its handles released. */
    for (int i = 0; i < ep->nroots; i++)
        if (ep->roots[i].live)
            retire_root(ep, i);
    /* Some queues released now, while their commands may wait for user events still unset;
     * a marker's event says when each is done. */
    cl_command_queue finish_later[MAX_QUEUES];
    int nlater = 0;
    for (int i = 0; i < ep->nq; i++) {
        if (ep->shared && i == 0) {
            /* Not this thread's to release or to finish: the marker says when its part is
             * done (and waits for the other threads' commands before it). */
            (void)marker_on(ep, i);
        } else if (below(ep->rng, 2)) {
            (void)marker_on(ep, i);
            KT_EXPECT(clReleaseCommandQueue(ep->q[i]), CL_SUCCESS);
        } else {
            finish_later[nlater++] = ep->q[i];
        }
        ep->q[i] = NULL;
    }
    for (int i = 0; i < NUM_KERNELS; i++)
        if (ep->cached[i])
            KT_EXPECT(clReleaseKernel(ep->cached[i]), CL_SUCCESS);
    /* One episode in three ends its context here, while commands wait for user events: the
     * next episode makes a new one. */
    if (!ep->shared && below(ep->rng, 3) == 0)
        drop_context(t);
    /* The rest of the user events, in a random order. */
    while (ep->unset_users)
        op_set_user(ep);
    for (int i = 0; i < nlater; i++) {
        KT_EXPECT(clFinish(finish_later[i]), CL_SUCCESS);
        KT_EXPECT(clReleaseCommandQueue(finish_later[i]), CL_SUCCESS);
    }
    /* Every event ends as the model says. */
    for (int i = 0; i < ep->nev; i++) {
        struct tracked *e = &ep->ev[i];
        bool failed = e->user ? e->user_status < 0 : e->failed;
        KT_EXPECT(clWaitForEvents(1, &e->ev),
                  failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
        cl_int st = 1;
        KT_EXPECT(clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                  CL_SUCCESS);
        if (e->user)
            KT_CHECK(st == e->user_status, "thread %d: user event status %d, want %d", t->id, st,
                     e->user_status);
        else if (failed)
            KT_CHECK(st < 0, "thread %d: a command after a failed event: status %d", t->id, st);
        else
            KT_CHECK(st == CL_COMPLETE, "thread %d: status %d, want CL_COMPLETE", t->id, st);
        KT_EXPECT(clReleaseEvent(e->ev), CL_SUCCESS);
    }
    for (int i = 0; i < ep->nchecks; i++) {
        check_read(&ep->checks[i]);
        free(ep->checks[i].host);
        free(ep->checks[i].want);
    }
    /* Callbacks and destructor callbacks may still be on their way on the workers. */
    t->callbacks += ep->ncbs;
    KT_CHECK(wait_count(&ep->cb_calls, ep->ncbs), "thread %d: %d of %d event callbacks", t->id,
             atomic_load(&ep->cb_calls), ep->ncbs);
    for (int i = 0; i < ep->ncbs; i++)
        KT_CHECK(atomic_load(&ep->cbs[i].calls) == 1, "thread %d: callback %d called %d times",
                 t->id, i, atomic_load(&ep->cbs[i].calls));
    KT_CHECK(wait_count(&ep->mems_freed, ep->mems_made), "thread %d: %d of %d buffers freed", t->id,
             atomic_load(&ep->mems_freed), ep->mems_made);
    for (int i = 0; i < ep->nroots; i++)
        free(ep->roots[i].model);
    for (int i = 0; i < ep->nkeep; i++)
        free(ep->keep[i]);
}

static void *run_thread(void *arg)
{
    struct thread *t = arg;
    struct episode *ep = malloc(sizeof(*ep));
    KT_REQUIRE(ep, "out of memory");
    for (t->episodes = 0; t->episodes < iterations && (t->episodes == 0 || elapsed() < seconds);
         t->episodes++)
        episode(t, ep);
    free(ep);
    if (t->ctx)
        drop_context(t);
    KT_CHECK(wait_count(&t->contexts_freed, t->contexts_made), "thread %d: %d of %d contexts freed",
             t->id, atomic_load(&t->contexts_freed), t->contexts_made);
    return NULL;
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    if (argc > 1)
        iterations = strtol(argv[1], NULL, 0);
    if (argc > 2)
        seconds = strtod(argv[2], NULL);
    if (argc > 3)
        seed = strtoull(argv[3], NULL, 0);
    KT_REQUIRE(argc <= 4 && iterations > 0 && seconds > 0,
               "usage: test_api_soak [ITERATIONS [SECONDS [SEED]]]");
    printf("soak: %d threads, at most %ld episodes or %.0f s each, seed %" PRIu64 "\n", THREADS,
           iterations, seconds, seed);
    fflush(stdout);
    platform = kt_kiln_platform();
    KT_REQUIRE_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
    cl_uint align = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align), &align, NULL));
    KT_REQUIRE(align <= SUB_ALIGN * 32, "CL_DEVICE_MEM_BASE_ADDR_ALIGN %u bits", align);

    cl_int err;
    shared_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    KT_REQUIRE_OK(err);
    KT_REQUIRE_OK(clSetContextDestructorCallback(shared_ctx, on_shared_context_freed, NULL));
    for (int s = 0; s < NUM_SOURCES; s++)
        shared_progs[s] = build(shared_ctx, s);
    for (int i = 0; i < 2; i++) {
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                       i ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0};
        shared_q[i] = clCreateCommandQueueWithProperties(shared_ctx, device, props, &err);
        KT_REQUIRE_OK(err);
    }

    clock_gettime(CLOCK_MONOTONIC, &start);
    static struct thread threads[THREADS];
    pthread_t tids[THREADS];
    for (int i = 0; i < THREADS; i++) {
        threads[i].id = i;
        /* Distinct, non-zero xorshift states from the one seed. */
        threads[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull;
        if (!threads[i].rng)
            threads[i].rng = 1;
        atomic_init(&threads[i].contexts_freed, 0);
        KT_REQUIRE(pthread_create(&tids[i], NULL, run_thread, &threads[i]) == 0, "thread %d", i);
    }
    long episodes = 0, commands = 0, failed = 0, callbacks = 0;
    for (int i = 0; i < THREADS; i++) {
        KT_REQUIRE(pthread_join(tids[i], NULL) == 0, "join %d", i);
        episodes += threads[i].episodes;
        commands += threads[i].commands;
        failed += threads[i].failed;
        callbacks += threads[i].callbacks;
    }
    for (int i = 0; i < 2; i++) {
        KT_EXPECT(clFinish(shared_q[i]), CL_SUCCESS);
        KT_EXPECT(clReleaseCommandQueue(shared_q[i]), CL_SUCCESS);
    }
    for (int s = 0; s < NUM_SOURCES; s++)
        KT_EXPECT(clReleaseProgram(shared_progs[s]), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(shared_ctx), CL_SUCCESS);
    KT_CHECK(wait_count(&shared_ctx_freed, 1), "the shared context was not freed");
    printf("soak: %ld episodes, %ld commands (%ld failed after a user event's error), %ld event "
           "callbacks, in %.1f s\n",
           episodes, commands, failed, callbacks, elapsed());
    return kt_finish("soak");
}
