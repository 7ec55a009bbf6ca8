/*
 * The scheduler: a pool of pinned worker threads that runs jobs made of
 * independent items (work-groups of an NDRange, slices of a copy).
 *
 * It knows nothing of OpenCL. A job is dealt to the workers in contiguous chunks
 * of item indices claimed with atomics; the thread that finishes the last chunk
 * calls job->done exactly once. Several jobs may be in flight at once.
 *
 * With zero workers (KILN_NUM_THREADS=0) kiln_sched_submit() runs the whole job,
 * done() included, on the calling thread before it returns, through the same code.
 *
 * After fork() a pool created in the parent has no workers in the child:
 * kiln_sched_submit() there runs the job synchronously on the caller,
 * kiln_sched_help() returns 0 and kiln_sched_destroy() releases nothing
 * (docs/scheduler.md).
 */
#ifndef KILN_SCHEDULER_KILN_SCHED_H
#define KILN_SCHEDULER_KILN_SCHED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct kiln_sched;

/* What a running chunk may use: private to the thread running it for the chunk's duration. */
struct kiln_sched_worker {
    unsigned index;  /* 0..num_workers-1; num_workers for the calling thread */
    void *local_mem; /* arena of local_mem_size bytes, 128-byte aligned */
    size_t local_mem_size;
};

struct kiln_sched_job;
typedef void (*kiln_sched_run_fn)(struct kiln_sched_job *job, size_t first, size_t count,
                                  const struct kiln_sched_worker *w);
typedef void (*kiln_sched_done_fn)(struct kiln_sched_job *job);

struct kiln_sched_job {
    /* Set by the submitter before kiln_sched_submit(); not changed afterwards. */
    size_t num_items;        /* > 0 */
    size_t min_chunk;        /* smallest chunk worth dealing; 0 means 1 */
    kiln_sched_run_fn run;   /* runs items [first, first+count) */
    kiln_sched_done_fn done; /* once, after every item ran; may free the job */
    void *user;              /* for run/done */
    /* Private to the scheduler. */
    atomic_size_t next;          /* next unclaimed item */
    atomic_size_t remaining;     /* items not yet finished */
    struct kiln_sched_job *link; /* under the scheduler's lock */
};

struct kiln_sched_config {
    int num_threads;       /* < 0: one per physical core (KILN_NUM_THREADS overrides); 0: none */
    size_t local_mem_size; /* arena bytes per worker */
    const char *name;      /* thread name prefix, e.g. "kiln-wg" */
    /*
     * Optional core subset: OS CPU indices the workers take in order, one each.
     * With num_cpus > 0, num_threads < 0 means one worker per listed CPU
     * (KILN_NUM_THREADS does not apply) and num_threads > num_cpus is EINVAL.
     * num_cpus == 0 keeps the default layout over every core.
     */
    const int *cpus;
    unsigned num_cpus;
};

/*
 * Start the pool. Workers are pinned one per physical core (hwloc), named
 * "<name>-<i>", and each allocates its arena before kiln_sched_create() returns;
 * a failure in any worker is reported here. Returns 0 or an errno value.
 */
int kiln_sched_create(const struct kiln_sched_config *cfg, struct kiln_sched **out);
/* Stop and join every worker. No job may be in flight. */
void kiln_sched_destroy(struct kiln_sched *s);
unsigned kiln_sched_num_workers(const struct kiln_sched *s);
/*
 * Hand a job over; it runs asynchronously unless the pool has zero workers.
 * The job must stay valid until its done() runs. run() and done() are called with no scheduler lock
 * held, on a worker, on a thread inside kiln_sched_help(), or (zero workers) on the caller; both
 * may call kiln_sched_submit().
 */
void kiln_sched_submit(struct kiln_sched *s, struct kiln_sched_job *job);

/*
 * Like kiln_sched_submit() for a small job submitted from inside a running job's run() or
 * done(): on one of the pool's workers, the job goes to that worker's own stack and is run
 * whole (all its items, then done()) by one thread: that worker when it is next free, or an
 * idle worker or a helping thread that takes it first. Elsewhere it is kiln_sched_submit().
 */
void kiln_sched_submit_nested(struct kiln_sched *s, struct kiln_sched_job *job);

/*
 * Whether a small job that the thread running a job's run() with worker w could run itself
 * is better handed to the pool with kiln_sched_submit_nested(): when w is a worker's, that
 * worker's own stack is empty, and more workers of s are idle (spinning or asleep) than
 * nested jobs wait on the workers' stacks, so an idle worker would take it at once. A hint
 * read without locks; false in a pool of zero workers.
 */
bool kiln_sched_wants_nested(struct kiln_sched *s, const struct kiln_sched_worker *w);

/*
 * Run chunks on the calling thread instead of sleeping (clFinish,
 * clWaitForEvents). Claims chunks of `prefer` while it is still in flight and
 * has unclaimed items, otherwise of the oldest job that has some, and runs them
 * until that job has nothing left to claim. `prefer` may be NULL or a job that
 * has already completed (even freed): it is only compared, never dereferenced
 * unless it is still in flight.
 *
 * Returns the number of items it ran; 0 means nothing was claimable now (every
 * remaining chunk is already running elsewhere), and the caller should wait on
 * its own completion signal. When the caller's thread finishes a job's last
 * chunk, that job's done() runs inside this call. Call with no lock held that
 * done() might take. Returns 0 at once with zero workers (nothing is queued).
 */
size_t kiln_sched_help(struct kiln_sched *s, const struct kiln_sched_job *prefer);

/* The OS index of the CPU worker i is pinned to, or -1 when it is not pinned. */
int kiln_sched_worker_cpu(const struct kiln_sched *s, unsigned i);

/*
 * Load the host topology the way every part of Kiln must: with hwloc's I/O
 * discovery off and its OpenCL, CUDA, NVML, RSMI, Level Zero and GL plugins
 * neither loaded nor used, so hwloc never brings an OpenCL ICD loader into the
 * driver. Returns 0 and a loaded topology the caller destroys with
 * hwloc_topology_destroy(), or an errno value.
 */
struct hwloc_topology;
int kiln_sched_topology_load(struct hwloc_topology **out);

#endif
