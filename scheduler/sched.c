/*
 * The scheduler: a pool of pinned worker threads that deals jobs of independent
 * items in chunks claimed with atomics (kiln_sched.h is the interface,
 * docs/scheduler.md the design note).
 *
 * Protocol
 * --------
 * Parties: any number of submitting threads, num_workers workers, and any
 * number of threads inside kiln_sched_help(). All of them take chunks the same
 * way (pick, then claim_chunk/run_chunks below).
 *
 * s->lock guards the list of jobs in flight (s->head, s->tail, job->link),
 * s->sleepers, s->started, s->start_err, s->stop and s->spare. It is a leaf
 * lock: nothing else is locked while it is held, and run() and done() are
 * never called with it held. The list holds a job from kiln_sched_submit()
 * until the thread that finishes it unlinks it, just before done().
 *
 * job->next (atomic, relaxed) is the next unclaimed item. A claim is one
 * fetch_add of the chunk size; whoever gets a first < num_items owns
 * [first, min(first + chunk, num_items)). Relaxed is enough: the atomicity of
 * the read-modify-write alone makes the ranges disjoint, and the job's other
 * fields reached the claimer through s->lock (see "first claim" below). Failed
 * claims push next past num_items, by at most num_items per thread racing at
 * the end of a job; jobs above KILN_SCHED_FAST_ITEMS, where that could wrap,
 * claim with a relaxed compare-and-swap loop instead, which never overshoots.
 *
 * job->remaining (atomic, acq_rel) counts items not yet finished. Each chunk's
 * runner subtracts its count after run() returned: the release half publishes
 * what run() wrote, and the thread whose subtraction reaches zero acquires
 * every other runner's writes, so done() sees all of them.
 *
 * Lifetime. done() may free the job, so nobody may touch a job after the
 * subtraction that could let it finish. Two rules make that hold:
 *  - The first claim on a job is made under s->lock while the job is in the
 *    list; the finisher must take s->lock to unlink it before calling done(),
 *    so the job is alive during that claim (it may fail, which is harmless).
 *  - Every later claim is made while the claimer still owns an unfinished
 *    chunk, i.e. before it subtracts that chunk from remaining: the job cannot
 *    finish while the claim runs. The claim is sequenced before the release
 *    subtraction, so it also happens before the finisher's done().
 *
 * s->gen (atomic, relaxed) changes, under s->lock only, whenever there is new
 * work or the pool stops. Idle workers spin on it without the lock for a few
 * microseconds, then take the lock, look again and sleep on s->work_cv, after
 * counting themselves in s->sleepers. A submitter bumps gen and reads
 * s->sleepers under the lock, so a worker either sees the new gen before it
 * sleeps or is counted and signalled: no lost wake-up. gen only says "look
 * again"; what a worker then reads it reads under the lock. With gen the
 * submitter sets s->tickets (atomic, relaxed), how many spinners it asks to
 * look; a spinner that sees gen move takes a ticket or, finding none, keeps
 * spinning, and looks under the lock when its spin ends (spin_for_work).
 *
 * fork_generation (atomic, relaxed) is bumped in a forked child by a
 * pthread_atfork handler; a pool whose recorded generation differs is in a
 * child and has no workers there (see "fork" in docs/scheduler.md).
 *
 * Nested jobs (kiln_sched_submit_nested: small jobs a running job submits,
 * such as the children of device-side enqueue) go to the submitting worker's
 * own stack, w->nested, instead of the shared list, and are run whole by one
 * thread. w->nested_lock (a spin lock, held for a push or a pop only) guards
 * the stack; the owner pushes and pops at the top, and an idle worker or a
 * helping thread takes from the bottom of another worker's stack (the oldest
 * job, in a recursive tree the largest) when the shared list has nothing
 * claimable. The push's unlock (release) pairs with the
 * taker's lock (acquire), so the taker sees the job as its submitter wrote it.
 * s->nested_count (atomic, relaxed) counts the jobs on all stacks: spinning
 * workers watch it beside s->gen, and a push wakes a sleeper through the
 * shared path (under s->lock) only when some worker sleeps.
 */
#include "kiln_sched.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kiln_alloc.h"

/* Most workers a pool may have; KILN_NUM_THREADS above this is ignored. */
#define KILN_SCHED_MAX_THREADS 4096
/* Largest num_items claimed with fetch_add; see the claim bound above. Larger jobs use a
 * compare-and-swap loop that never overshoots. */
#define KILN_SCHED_FAST_ITEMS ((size_t)1 << 48)
/* Arena alignment: the widest vector and two cache lines. */
#define KILN_SCHED_ARENA_ALIGN 128
/* How long an idle worker spins before it sleeps, in nanoseconds. */
#define KILN_SCHED_SPIN_NS 10000
/* How long a one-item job submitted from outside the pool waits for its submitter (usually in
 * clFinish, about to help) before a spinning worker goes for it (see kiln_sched_submit). */
#define KILN_SCHED_LONE_GRACE_NS 2000
/* Cache line, to keep the spinners' word away from the lock. */
#define KILN_SCHED_LINE 64

struct worker {
    struct kiln_sched *s;         /* set before the thread starts; read-only */
    pthread_t thread;             /* creator and destroyer only */
    struct kiln_sched_worker pub; /* written by the worker before it reports; then read-only */
    int cpu;                      /* like pub: OS CPU index it is pinned to, or -1 */
    atomic_flag nested_lock;      /* guards nested */
    /* This worker's nested jobs, newest first, through link: changed under nested_lock; read
     * without it (relaxed) only to see whether it is worth taking the lock. */
    _Atomic(struct kiln_sched_job *) nested;
};

/* An arena for a thread that is not a worker (zero-worker mode, helpers). */
struct arena {
    struct arena *next; /* under s->lock while on s->spare */
    struct kiln_sched_worker pub;
};

struct kiln_sched {
    pthread_mutex_t lock;
    pthread_cond_t work_cv;  /* idle workers wait here for a new s->gen */
    pthread_cond_t start_cv; /* the creator waits here for the handshake */
    pthread_cond_t arena_cv; /* zero-worker callers wait here for a spare arena */

    struct kiln_sched_job *head, *tail; /* under lock: jobs in flight, oldest first */
    /* Changed under lock: workers waiting on work_cv. Atomic (seq_cst) because a nested push
     * reads it without the lock (see kiln_sched_submit_nested). */
    atomic_uint sleepers;
    unsigned started;    /* under lock: workers that reported */
    int start_err;       /* under lock: first worker failure, errno */
    bool stop;           /* under lock */
    struct arena *spare; /* under lock: arenas for non-worker threads */
    /* Under lock: the newest job submitted with a late ticket (see kiln_sched_submit) while
     * it is unclaimed, else NULL. */
    struct kiln_sched_job *lone;
    bool helper_arena_made; /* under lock: an arena exists (spare or in use) */

    /* Read-only after kiln_sched_create(). */
    unsigned num_workers;
    size_t local_mem_size;
    unsigned fork_gen; /* fork_generation at creation */
    char name[16];     /* thread name prefix */
    struct worker *workers;

    /* Changed under lock only; read without it by spinning workers (relaxed). */
    _Alignas(KILN_SCHED_LINE) atomic_uint gen;
    /* Relaxed: idle workers spinning on gen; the first spins hard, the others yield. Read
     * with gen by the same workers, so it shares gen's line. */
    atomic_uint spinners;
    /* Relaxed: jobs on the workers' nested stacks, which spinning workers watch too. */
    atomic_uint nested_count;
    /* How many spinning workers the newest submit asks to look at the list: set under lock with
     * gen, taken one at a time by spinners that saw gen move (see spin_for_work). */
    atomic_int tickets;
    /* 1 while s->lone waits for a spinner: set under lock at the submit, cleared under lock
     * when the job is claimed or by the one spinner that takes it (see spin_for_work). */
    atomic_int late;
    char pad[KILN_SCHED_LINE - 5 * sizeof(atomic_uint)];
};

static atomic_uint fork_generation; /* relaxed; bumped in a forked child */
/* The pool whose worker this thread is, or NULL. */
static _Thread_local struct kiln_sched *own_pool;
/* This thread's struct worker in own_pool, or NULL. */
static _Thread_local struct worker *own_worker;
/* The pool whose job's done() this worker is running, or NULL. done() returns promptly (it may
 * not block: OpenCL callbacks may not wait), and the worker then goes back to its pool's list,
 * so a job submitted from inside done() needs no wake-up for its first chunk. */
static _Thread_local struct kiln_sched *done_pool;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void lock(struct kiln_sched *s)
{
    if (pthread_mutex_lock(&s->lock) != 0)
        abort();
}

static void unlock(struct kiln_sched *s)
{
    if (pthread_mutex_unlock(&s->lock) != 0)
        abort();
}

static void cond_wait(pthread_cond_t *cv, struct kiln_sched *s)
{
    if (pthread_cond_wait(cv, &s->lock) != 0)
        abort();
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_fork_child(void)
{
    atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
}

static void register_fork_handler(void)
{
    /* glibc drops the handler by itself if the library is unloaded. */
    if (pthread_atfork(NULL, NULL, on_fork_child) != 0)
        abort();
}

static bool in_forked_child(const struct kiln_sched *s)
{
    return atomic_load_explicit(&fork_generation, memory_order_relaxed) != s->fork_gen;
}

/*
 * hwloc dlopens every plugin it finds the first time a topology is created in
 * the process, before any per-topology setting applies. The OpenCL plugin
 * links the ICD loader, the CUDA/NVML/RSMI/Level Zero/GL ones their vendor
 * stacks, so they are kept out through hwloc's plugin blacklist, which it reads
 * from the environment at that moment. Appends to a blacklist the user set.
 * Runs once per process (env_once); setenv is not safe against a concurrent
 * getenv, which is why this happens once, at the first topology load.
 */
static const char *const io_plugins[] = {"hwloc_opencl", "hwloc_cuda",      "hwloc_nvml",
                                         "hwloc_rsmi",   "hwloc_levelzero", "hwloc_gl"};
static const char *const io_components[] = {"opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"};

static void keep_io_plugins_out(void)
{
    const char *cur = getenv("HWLOC_PLUGINS_BLACKLIST");
    size_t len = cur ? strlen(cur) : 0, cap = len + 1;
    for (size_t i = 0; i < sizeof io_plugins / sizeof io_plugins[0]; i++)
        cap += strlen(io_plugins[i]) + 1;
    char *list = kiln_malloc(cap);
    if (!list)
        return; /* the component blacklist and I/O filter below still apply */
    size_t at = 0;
    if (cur) {
        memcpy(list, cur, len);
        at = len;
    }
    bool changed = false;
    for (size_t i = 0; i < sizeof io_plugins / sizeof io_plugins[0]; i++) {
        if (cur && strstr(cur, io_plugins[i]))
            continue;
        at += (size_t)sprintf(list + at, "%s%s", at ? "," : "", io_plugins[i]);
        changed = true;
    }
    list[at] = '\0';
    if (changed)
        (void)setenv("HWLOC_PLUGINS_BLACKLIST", list, 1);
    free(list);
}

int kiln_sched_topology_load(struct hwloc_topology **out)
{
    hwloc_topology_t t;

    if (pthread_once(&env_once, keep_io_plugins_out) != 0)
        abort();
    if (hwloc_topology_init(&t) != 0)
        return errno ? errno : ENOMEM;
    /* No PCI or OS devices at all: the I/O discovery phases then have nothing to do. */
    (void)hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    /* And should a plugin have been loaded anyway (another hwloc user in the process
     * loaded it first), it is not used for this topology. Unknown names fail; fine. */
    for (size_t i = 0; i < sizeof io_components / sizeof io_components[0]; i++)
        (void)hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                            io_components[i]);
    if (hwloc_topology_load(t) != 0) {
        int err = errno ? errno : EIO;
        hwloc_topology_destroy(t);
        return err;
    }
    *out = t;
    return 0;
}

/*
 * The CPUs workers are pinned to, in the order workers take them: the first PU
 * of every core, then the second PU of every core, and so on. Returns the
 * number of physical cores (>= 1) and fills *cpus (malloc'd, *ncpus entries;
 * NULL and 0 when the topology is unknown).
 */
static unsigned cpu_order(int **cpus, unsigned *ncpus)
{
    hwloc_topology_t t;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned fallback = online > 0 ? (unsigned)online : 1;

    *cpus = NULL;
    *ncpus = 0;
    if (kiln_sched_topology_load(&t) != 0)
        return fallback;
    int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int npus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    int *list = npus > 0 ? kiln_malloc((size_t)npus * sizeof *list) : NULL;
    if (!list) {
        hwloc_topology_destroy(t);
        return ncores > 0 ? (unsigned)ncores : fallback;
    }
    unsigned n = 0;
    if (ncores <= 0) {
        for (int i = 0; i < npus; i++)
            list[n++] = (int)hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i)->os_index;
    } else {
        for (unsigned round = 0; n < (unsigned)npus; round++) {
            unsigned before = n;
            for (int c = 0; c < ncores && n < (unsigned)npus; c++) {
                hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)c);
                hwloc_obj_t pu =
                    hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU, round);
                if (pu)
                    list[n++] = (int)pu->os_index;
            }
            if (n == before)
                break; /* PUs outside every core: leave them out */
        }
    }
    hwloc_topology_destroy(t);
    *cpus = list;
    *ncpus = n;
    return ncores > 0 ? (unsigned)ncores : (npus > 0 ? (unsigned)npus : fallback);
}

/* KILN_NUM_THREADS as a count, or -1 when unset or not a number in 0..MAX. */
static int env_num_threads(void)
{
    const char *v = getenv("KILN_NUM_THREADS");
    char *end;

    if (!v || !*v)
        return -1;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < 0 || n > KILN_SCHED_MAX_THREADS)
        return -1;
    return (int)n;
}

/* Bytes to allocate for an arena of `size`: a whole number of alignment units, at least one. */
static size_t arena_bytes(size_t size)
{
    if (size == 0)
        return KILN_SCHED_ARENA_ALIGN;
    if (size > SIZE_MAX - KILN_SCHED_ARENA_ALIGN)
        return SIZE_MAX / KILN_SCHED_ARENA_ALIGN * KILN_SCHED_ARENA_ALIGN; /* then fails cleanly */
    return (size + KILN_SCHED_ARENA_ALIGN - 1) / KILN_SCHED_ARENA_ALIGN * KILN_SCHED_ARENA_ALIGN;
}

/* A fresh arena for a non-worker thread; NULL when out of memory. */
static struct arena *arena_new(struct kiln_sched *s)
{
    struct arena *a = kiln_malloc(sizeof *a);
    if (!a)
        return NULL;
    a->next = NULL;
    a->pub.index = s->num_workers;
    a->pub.local_mem_size = s->local_mem_size;
    a->pub.local_mem = kiln_aligned_alloc(KILN_SCHED_ARENA_ALIGN, arena_bytes(s->local_mem_size));
    if (!a->pub.local_mem) {
        free(a);
        return NULL;
    }
    /* Zeroed like a worker's: a device may keep state there that must start empty. */
    memset(a->pub.local_mem, 0, s->local_mem_size);
    return a;
}

/*
 * An arena for a calling thread: a spare one, else a new one.
 *
 * Every such arena carries the worker index num_workers, and per-index areas (a kernel's
 * barrier scratch) belong to one thread at a time within a job. With zero workers each job
 * runs whole on the thread that submits it, so callers may each have an arena (`wait`: a new
 * one, or, out of memory, wait for one to come back; creation made one, so one exists).
 * Helpers (kiln_sched_help, !wait) may claim chunks of a job workers are running, so only
 * one arena ever serves them: while it is in use, or when it cannot be made, NULL.
 * Takes and drops s->lock.
 */
static struct arena *arena_take(struct kiln_sched *s, bool wait)
{
    struct arena *a;

    lock(s);
    while (!(a = s->spare)) {
        if (!wait && s->helper_arena_made) {
            unlock(s);
            return NULL;
        }
        s->helper_arena_made = true;
        unlock(s);
        a = arena_new(s);
        if (a || !wait) {
            if (!a) {
                lock(s);
                s->helper_arena_made = false;
                unlock(s);
            }
            return a;
        }
        lock(s);
        while (!s->spare)
            cond_wait(&s->arena_cv, s);
    }
    s->spare = a->next;
    unlock(s);
    return a;
}

static void arena_give(struct kiln_sched *s, struct arena *a)
{
    lock(s);
    a->next = s->spare;
    s->spare = a;
    unlock(s);
    if (pthread_cond_signal(&s->arena_cv) != 0)
        abort();
}

/*
 * Claim the next chunk of `job`: large while much is left, smaller towards the
 * end (a share of what is unclaimed for each of `parties`), never below
 * min_chunk. Returns its first item and sets *count, or sets *count to 0 when
 * nothing is left. The caller guarantees the job is alive (see the protocol).
 */
static size_t claim_chunk(struct kiln_sched_job *job, unsigned parties, size_t *count)
{
    size_t n = job->num_items;
    size_t next = atomic_load_explicit(&job->next, memory_order_relaxed);

    *count = 0;
    if (next >= n)
        return 0;
    size_t floor = job->min_chunk ? job->min_chunk : 1;
    if (floor > n - next)
        floor = n - next;
    size_t chunk = (n - next) / (2 * (size_t)parties);
    if (chunk < floor)
        chunk = floor;
    size_t first;
    if (n <= KILN_SCHED_FAST_ITEMS) {
        first = atomic_fetch_add_explicit(&job->next, chunk, memory_order_relaxed);
        if (first >= n)
            return 0;
    } else {
        /* So large that overshooting could wrap `next`: claim without overshoot. */
        first = next;
        do {
            if (first >= n)
                return 0;
            if (chunk > n - first)
                chunk = n - first;
        } while (!atomic_compare_exchange_weak_explicit(
            &job->next, &first, first + chunk, memory_order_relaxed, memory_order_relaxed));
    }
    *count = n - first < chunk ? n - first : chunk;
    return first;
}

static void unlink_locked(struct kiln_sched *s, struct kiln_sched_job *job)
{
    struct kiln_sched_job **pp = &s->head, *prev = NULL;

    while (*pp && *pp != job) {
        prev = *pp;
        pp = &(*pp)->link;
    }
    if (!*pp)
        abort(); /* a listed job must be in the list */
    *pp = job->link;
    if (s->tail == job)
        s->tail = prev;
    job->link = NULL;
}

/*
 * Run [first, first + count) of `job` and then every further chunk this thread
 * can claim from it. The thread that finishes the last item unlinks the job
 * (when `listed`) and calls done(). Returns the number of items run here.
 * Called without s->lock.
 */
static size_t run_chunks(struct kiln_sched *s, struct kiln_sched_job *job, size_t first,
                         size_t count, const struct kiln_sched_worker *w, bool listed)
{
    unsigned parties = s->num_workers ? s->num_workers : 1;
    size_t ran = 0;

    for (;;) {
        job->run(job, first, count, w);
        ran += count;
        /* Claim before giving the finished chunk back: the job stays alive. */
        size_t next_count;
        size_t next_first = claim_chunk(job, parties, &next_count);
        size_t left = atomic_fetch_sub_explicit(&job->remaining, count, memory_order_acq_rel);
        if (left == count) {
            if (listed) {
                lock(s);
                unlink_locked(s, job);
                unlock(s);
            }
            struct kiln_sched *outer = done_pool;
            done_pool = own_pool == s ? s : NULL;
            job->done(job); /* may free job */
            done_pool = outer;
            return ran;
        }
        if (!next_count)
            return ran; /* job may be gone by now: do not touch it */
        first = next_first;
        count = next_count;
    }
}

/*
 * Under s->lock: claim a first chunk from `prefer` if it is in flight, else
 * from the oldest job with unclaimed items. Returns the job or NULL.
 */
/* Job j has just had a chunk claimed under s->lock: a late ticket for it is no longer wanted. */
static struct kiln_sched_job *claimed_locked(struct kiln_sched *s, struct kiln_sched_job *j)
{
    if (s->lone == j) {
        s->lone = NULL;
        atomic_store_explicit(&s->late, 0, memory_order_relaxed);
    }
    return j;
}

/* Whether a listed job has an item nobody has claimed; under s->lock. */
static bool unclaimed_locked(const struct kiln_sched *s)
{
    for (const struct kiln_sched_job *j = s->head; j; j = j->link)
        if (atomic_load_explicit(&j->next, memory_order_relaxed) < j->num_items)
            return true;
    return false;
}

static struct kiln_sched_job *pick_locked(struct kiln_sched *s, const struct kiln_sched_job *prefer,
                                          size_t *first, size_t *count)
{
    unsigned parties = s->num_workers ? s->num_workers : 1;
    struct kiln_sched_job *j;

    if (prefer) {
        for (j = s->head; j; j = j->link) {
            if (j == prefer) {
                *first = claim_chunk(j, parties, count);
                if (*count)
                    return claimed_locked(s, j);
                break;
            }
        }
    }
    for (j = s->head; j; j = j->link) {
        *first = claim_chunk(j, parties, count);
        if (*count)
            return claimed_locked(s, j);
    }
    return NULL;
}

static void nested_lock(struct worker *w)
{
    while (atomic_flag_test_and_set_explicit(&w->nested_lock, memory_order_acquire))
        cpu_relax();
}

static void nested_unlock(struct worker *w)
{
    atomic_flag_clear_explicit(&w->nested_lock, memory_order_release);
}

/*
 * A nested job of worker w taken off its stack, or NULL: the newest for w itself (its data is
 * warm in this core's caches), the oldest for a thief (in a recursive tree of jobs the oldest
 * is the nearest the root, the largest piece of work).
 */
static struct kiln_sched_job *nested_pop(struct kiln_sched *s, struct worker *w, bool oldest)
{
    if (!atomic_load_explicit(&w->nested, memory_order_relaxed))
        return NULL; /* a quick look; the lock below decides */
    nested_lock(w);
    struct kiln_sched_job *job = atomic_load_explicit(&w->nested, memory_order_relaxed);
    if (job && oldest && job->link) {
        struct kiln_sched_job *prev = job;
        while (prev->link->link)
            prev = prev->link;
        job = prev->link;
        prev->link = NULL;
    } else if (job)
        atomic_store_explicit(&w->nested, job->link, memory_order_relaxed);
    nested_unlock(w);
    if (job)
        atomic_fetch_sub_explicit(&s->nested_count, 1, memory_order_relaxed);
    return job;
}

/* A nested job: the calling worker's own newest, else another worker's oldest, looking from
 * the next worker on (so thieves do not all try worker 0 first); NULL when none. */
static struct kiln_sched_job *nested_take(struct kiln_sched *s, struct worker *self)
{
    if (!atomic_load_explicit(&s->nested_count, memory_order_relaxed))
        return NULL;
    struct kiln_sched_job *job = self ? nested_pop(s, self, false) : NULL;
    unsigned at = self ? (unsigned)(self - s->workers) : 0;
    for (unsigned i = 1; !job && i <= s->num_workers; i++) {
        struct worker *v = &s->workers[(at + i) % s->num_workers];
        job = v == self ? NULL : nested_pop(s, v, true);
    }
    return job;
}

/* Runs a nested job whole on this thread. */
static void nested_run(struct kiln_sched *s, struct kiln_sched_job *job,
                       const struct kiln_sched_worker *w)
{
    job->run(job, 0, job->num_items, w);
    struct kiln_sched *outer = done_pool;
    done_pool = own_pool == s ? s : NULL;
    job->done(job); /* may free job */
    done_pool = outer;
}

/* Takes one of s->tickets; false when none is left. */
static bool ticket_take(struct kiln_sched *s)
{
    int t = atomic_load_explicit(&s->tickets, memory_order_relaxed);
    while (t > 0)
        if (atomic_compare_exchange_weak_explicit(&s->tickets, &t, t - 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return true;
    return false;
}

/*
 * Spin until there is something to look at (true) or the spin budget is spent (false); a spin
 * that is not `hard` yields the CPU between looks. s->gen moving away from *gen is something
 * when a ticket comes with it: a submit asks for as many spinners as its job has chunks for
 * (a one-item launch, one), and the others stay where they are instead of all taking s->lock
 * at once. A spinner that saw gen move without a ticket moves *gen along and spins a whole
 * budget again from there; once a budget passes with no move it returns true, so that it
 * looks at the list under the lock before it sleeps: a job is never left behind by every
 * spinner, and while submits keep coming the spinners without tickets never take the lock.
 */
static bool spin_for_work(struct kiln_sched *s, unsigned *gen, bool hard)
{
    uint64_t start = now_ns();
    bool passed = false;

    for (unsigned i = 1;; i++) {
        unsigned now = atomic_load_explicit(&s->gen, memory_order_relaxed);
        if (now != *gen) {
            if (ticket_take(s))
                return true;
            *gen = now;
            passed = true;
            start = now_ns();
        }
        if (atomic_load_explicit(&s->nested_count, memory_order_relaxed))
            return true;
        if (hard)
            cpu_relax();
        else
            sched_yield();
        if (!hard || (i & 63) == 0) {
            uint64_t spun = now_ns() - start;
            /* A late ticket: the lone job's submitter has had its grace and not claimed it. */
            if (passed && spun > KILN_SCHED_LONE_GRACE_NS &&
                atomic_load_explicit(&s->late, memory_order_relaxed) &&
                atomic_exchange_explicit(&s->late, 0, memory_order_relaxed))
                return true;
            if (spun > KILN_SCHED_SPIN_NS)
                return passed;
        }
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct kiln_sched *s = w->s;
    char full[32], name[16];
    int err = 0;

    if (w->cpu >= 0) {
        size_t setsize = CPU_ALLOC_SIZE(w->cpu + 1);
        cpu_set_t *set = CPU_ALLOC(w->cpu + 1);
        if (set) {
            CPU_ZERO_S(setsize, set);
            CPU_SET_S(w->cpu, setsize, set);
        }
        /* Unpinned rather than failed: a cpuset that shrank under us is no reason to stop. */
        if (!set || pthread_setaffinity_np(pthread_self(), setsize, set) != 0)
            w->cpu = -1;
        CPU_FREE(set);
    }
    /* Named after pinning, so a named worker is always on its CPU. Linux keeps 15
     * characters of a thread name: cut the full one there. */
    snprintf(full, sizeof full, "%s-%u", s->name, w->pub.index);
    memcpy(name, full, sizeof name - 1);
    name[sizeof name - 1] = '\0';
    (void)pthread_setname_np(pthread_self(), name);
    /* Allocated, and touched, on the worker's own CPU so the pages are local to it. */
    w->pub.local_mem =
        kiln_aligned_alloc(KILN_SCHED_ARENA_ALIGN, arena_bytes(w->pub.local_mem_size));
    if (!w->pub.local_mem)
        err = ENOMEM;
    else
        memset(w->pub.local_mem, 0, w->pub.local_mem_size);

    lock(s);
    s->started++;
    if (err && !s->start_err)
        s->start_err = err;
    unlock(s);
    if (pthread_cond_signal(&s->start_cv) != 0)
        abort();
    if (err)
        return NULL;
    own_pool = s;
    own_worker = w;

    for (;;) {
        struct kiln_sched_job *job;
        size_t first, count;

        /* Nested jobs first: the newest, whose data is warm in this core's caches. */
        if ((job = nested_take(s, w)) != NULL) {
            nested_run(s, job, &w->pub);
            continue;
        }
        lock(s);
        while (!(job = pick_locked(s, NULL, &first, &count))) {
            if (s->stop) {
                unlock(s);
                return NULL;
            }
            unsigned gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
            if (atomic_load_explicit(&s->nested_count, memory_order_relaxed))
                break;
            unlock(s);
            /* One idle worker spins hard; the others yield their CPU between looks, so a
             * burst of small launches, which keeps one worker busy, does not lose the
             * enqueuing thread's time to a second spinner on its CPU. */
            bool hard = atomic_fetch_add_explicit(&s->spinners, 1, memory_order_relaxed) == 0;
            bool moved = spin_for_work(s, &gen, hard);
            atomic_fetch_sub_explicit(&s->spinners, 1, memory_order_relaxed);
            lock(s);
            while (!moved && !s->stop &&
                   atomic_load_explicit(&s->gen, memory_order_relaxed) == gen) {
                /* Counted before the last look at nested_count, both seq_cst: a nested push
                 * either is seen here or sees this sleeper and wakes it. */
                atomic_fetch_add(&s->sleepers, 1);
                if (!atomic_load(&s->nested_count))
                    cond_wait(&s->work_cv, s);
                atomic_fetch_sub(&s->sleepers, 1);
                if (atomic_load_explicit(&s->nested_count, memory_order_relaxed))
                    break;
            }
        }
        unlock(s);
        if (job)
            run_chunks(s, job, first, count, &w->pub, true);
    }
}

/* Stop and join workers [0, n), then free what they own. */
static void stop_workers(struct kiln_sched *s, unsigned n)
{
    lock(s);
    s->stop = true;
    atomic_store_explicit(&s->tickets, (int)s->num_workers, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->gen, 1, memory_order_relaxed);
    unlock(s);
    if (pthread_cond_broadcast(&s->work_cv) != 0)
        abort();
    for (unsigned i = 0; i < n; i++) {
        if (pthread_join(s->workers[i].thread, NULL) != 0)
            abort();
        free(s->workers[i].pub.local_mem);
    }
}

static void free_pool(struct kiln_sched *s)
{
    while (s->spare) {
        struct arena *a = s->spare;
        s->spare = a->next;
        free(a->pub.local_mem);
        free(a);
    }
    pthread_cond_destroy(&s->arena_cv);
    pthread_cond_destroy(&s->start_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->lock);
    free(s->workers);
    free(s);
}

/* Start workers and wait for each to report; on failure stop what started. */
static int start_workers(struct kiln_sched *s, const int *cpus, unsigned ncpus)
{
    unsigned made = 0;
    int err = 0;

    for (; made < s->num_workers; made++) {
        struct worker *w = &s->workers[made];
        w->s = s;
        atomic_flag_clear(&w->nested_lock);
        atomic_init(&w->nested, NULL);
        w->pub.index = made;
        w->pub.local_mem_size = s->local_mem_size;
        w->cpu = made < ncpus ? cpus[made] : -1;
        err = pthread_create(&w->thread, NULL, worker_main, w);
        if (err)
            break;
    }
    lock(s);
    while (s->started < made)
        cond_wait(&s->start_cv, s);
    if (!err)
        err = s->start_err;
    unlock(s);
    if (err)
        stop_workers(s, made);
    return err;
}

int kiln_sched_create(const struct kiln_sched_config *cfg, struct kiln_sched **out)
{
    if (!cfg || !out || cfg->num_threads > KILN_SCHED_MAX_THREADS)
        return EINVAL;
    if (pthread_once(&fork_once, register_fork_handler) != 0)
        abort();

    int *cpus;
    unsigned ncpus;
    int n = cfg->num_threads;
    if (cfg->num_cpus > 0) {
        /* A core subset: exactly the listed CPUs, in the caller's order. */
        if (!cfg->cpus || cfg->num_cpus > KILN_SCHED_MAX_THREADS ||
            (n >= 0 && (unsigned)n > cfg->num_cpus))
            return EINVAL;
        for (unsigned i = 0; i < cfg->num_cpus; i++)
            if (cfg->cpus[i] < 0)
                return EINVAL;
        cpus = kiln_malloc(cfg->num_cpus * sizeof *cpus);
        if (!cpus)
            return ENOMEM;
        memcpy(cpus, cfg->cpus, cfg->num_cpus * sizeof *cpus);
        ncpus = cfg->num_cpus;
        if (n < 0)
            n = (int)ncpus;
    } else {
        unsigned cores = cpu_order(&cpus, &ncpus);
        if (n < 0)
            n = env_num_threads();
        if (n < 0)
            n = (int)(cores < KILN_SCHED_MAX_THREADS ? cores : KILN_SCHED_MAX_THREADS);
    }

    int err = ENOMEM;
    struct kiln_sched *s = kiln_aligned_alloc(KILN_SCHED_LINE, sizeof *s);
    if (!s)
        goto out_free_cpus;
    memset(s, 0, sizeof *s);
    s->num_workers = (unsigned)n;
    s->local_mem_size = cfg->local_mem_size;
    s->fork_gen = atomic_load_explicit(&fork_generation, memory_order_relaxed);
    atomic_init(&s->gen, 0);
    atomic_init(&s->tickets, 0);
    atomic_init(&s->late, 0);
    snprintf(s->name, sizeof s->name, "%s", cfg->name && *cfg->name ? cfg->name : "kiln-wg");
    s->workers = kiln_calloc(n ? (size_t)n : 1, sizeof *s->workers);
    if (!s->workers)
        goto out_free_sched;
    if ((err = pthread_mutex_init(&s->lock, NULL)))
        goto out_free_workers;
    if ((err = pthread_cond_init(&s->work_cv, NULL)))
        goto out_destroy_lock;
    if ((err = pthread_cond_init(&s->start_cv, NULL)))
        goto out_destroy_work_cv;
    if ((err = pthread_cond_init(&s->arena_cv, NULL)))
        goto out_destroy_start_cv;

    if (n == 0) {
        /* The zero-worker handshake: the caller's first arena exists before we return. */
        s->spare = arena_new(s);
        s->helper_arena_made = s->spare != NULL;
        err = s->spare ? 0 : ENOMEM;
    } else {
        err = start_workers(s, cpus, ncpus);
    }
    if (err) {
        free_pool(s);
        goto out_free_cpus;
    }
    free(cpus);
    *out = s;
    return 0;

out_destroy_start_cv:
    pthread_cond_destroy(&s->start_cv);
out_destroy_work_cv:
    pthread_cond_destroy(&s->work_cv);
out_destroy_lock:
    pthread_mutex_destroy(&s->lock);
out_free_workers:
    free(s->workers);
out_free_sched:
    free(s);
out_free_cpus:
    free(cpus);
    return err;
}

void kiln_sched_destroy(struct kiln_sched *s)
{
    if (!s)
        return;
    if (in_forked_child(s))
        return; /* the workers and the lock's state belong to the parent: leave them */
    stop_workers(s, s->num_workers);
    free_pool(s);
}

unsigned kiln_sched_num_workers(const struct kiln_sched *s)
{
    return s->num_workers;
}

int kiln_sched_worker_cpu(const struct kiln_sched *s, unsigned i)
{
    return i < s->num_workers ? s->workers[i].cpu : -1;
}

/* Run a whole job on the calling thread, without touching s->lock's list. */
static void run_here(struct kiln_sched *s, struct kiln_sched_job *job, struct arena *a)
{
    size_t first, count;

    first = claim_chunk(job, 1, &count);
    run_chunks(s, job, first, count, &a->pub, false);
}

void kiln_sched_submit(struct kiln_sched *s, struct kiln_sched_job *job)
{
    if (job->num_items == 0) {
        /* Nothing to deal (num_items > 0 is a precondition; done() keeps the contract). */
        job->done(job);
        return;
    }
    atomic_store_explicit(&job->next, 0, memory_order_relaxed);
    atomic_store_explicit(&job->remaining, job->num_items, memory_order_relaxed);
    job->link = NULL;

    if (in_forked_child(s)) {
        /* No workers here, and the lock may have been held at fork(): use neither. */
        struct arena *a = arena_new(s);
        if (!a) {
            fputs("kiln: out of memory running a job after fork()\n", stderr);
            abort();
        }
        run_here(s, job, a);
        free(a->pub.local_mem);
        free(a);
        return;
    }
    if (s->num_workers == 0) {
        struct arena *a = arena_take(s, true);
        run_here(s, job, a);
        arena_give(s, a);
        return;
    }

    size_t floor = job->min_chunk ? job->min_chunk : 1;
    size_t want = (job->num_items + floor - 1) / floor;
    unsigned wake;
    /* From inside done() on one of our workers (a finished command readying the next), that
     * worker takes the first chunk itself: one chunk fewer to wake a sleeper for, and a
     * one-chunk job, the common tiny launch, costs no wake-up at all. */
    if (done_pool == s)
        want--;

    lock(s);
    /* A lone one-item job from outside the pool (a small launch, its submitter soon in clFinish,
     * which helps) gets a late ticket instead: a spinner goes for it only if it is still
     * unclaimed KILN_SCHED_LONE_GRACE_NS after the submit. A worker racing the waiting thread
     * for it made an empty launch's enqueue and finish cost 3.8 us with 16 workers, 0.5 with
     * none. With other unclaimed work listed, the job gets its ticket at once as before. */
    bool late = want == 1 && done_pool != s && !unclaimed_locked(s);
    if (s->tail)
        s->tail->link = job;
    else
        s->head = job;
    s->tail = job;
    /* Tickets for as many spinners as the job has chunks for others to run, replacing any
     * left over: a ticket a helping thread made needless must not call spinners later. */
    atomic_store_explicit(&s->tickets,
                          late                    ? 0
                          : want < s->num_workers ? (int)want
                                                  : (int)s->num_workers,
                          memory_order_relaxed);
    if (late) {
        s->lone = job;
        atomic_store_explicit(&s->late, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&s->gen, 1, memory_order_relaxed);
    wake = s->sleepers;
    unlock(s);
    /* Spinning workers find the job through s->gen; sleeping ones need a signal.
     * Waking after the unlock lets them take the lock at once. */
    if (want == 0)
        return;
    if (wake <= want) {
        if (wake && pthread_cond_broadcast(&s->work_cv) != 0)
            abort();
    } else {
        for (size_t i = 0; i < want; i++)
            if (pthread_cond_signal(&s->work_cv) != 0)
                abort();
    }
}

size_t kiln_sched_help(struct kiln_sched *s, const struct kiln_sched_job *prefer)
{
    struct kiln_sched_job *job;
    struct arena *a;
    size_t first, count, ran = 0;

    if (s->num_workers == 0 || in_forked_child(s))
        return 0;
    a = arena_take(s, false);
    if (!a)
        return 0; /* no memory for an arena: the workers will get there */
    lock(s);
    job = pick_locked(s, prefer, &first, &count);
    unlock(s);
    if (job) {
        ran = run_chunks(s, job, first, count, &a->pub, true);
    } else if ((job = nested_take(s, NULL)) != NULL) {
        ran = job->num_items;
        nested_run(s, job, &a->pub);
    }
    arena_give(s, a);
    return ran;
}

bool kiln_sched_wants_nested(struct kiln_sched *s, const struct kiln_sched_worker *pub)
{
    struct worker *w = pub->index < s->num_workers ? &s->workers[pub->index] : NULL;
    if (w && &w->pub == pub && atomic_load_explicit(&w->nested, memory_order_relaxed))
        return false; /* an idle worker has one of ours to take already */
    return atomic_load_explicit(&s->spinners, memory_order_relaxed) +
               atomic_load_explicit(&s->sleepers, memory_order_relaxed) >
           atomic_load_explicit(&s->nested_count, memory_order_relaxed);
}

void kiln_sched_submit_nested(struct kiln_sched *s, struct kiln_sched_job *job)
{
    struct worker *w = own_pool == s ? own_worker : NULL;
    if (!w || job->num_items == 0 || in_forked_child(s)) {
        kiln_sched_submit(s, job);
        return;
    }
    nested_lock(w);
    job->link = atomic_load_explicit(&w->nested, memory_order_relaxed);
    atomic_store_explicit(&w->nested, job, memory_order_relaxed);
    nested_unlock(w);
    /* seq_cst with the sleeper's count and look (worker_main): spinners see nested_count;
     * a worker about to sleep either sees it or is counted here and woken. Taking the lock
     * before the signal makes sure a counted sleeper is already waiting. */
    atomic_fetch_add(&s->nested_count, 1);
    if (!atomic_load(&s->sleepers))
        return;
    lock(s);
    unlock(s);
    if (pthread_cond_signal(&s->work_cv) != 0)
        abort();
}
