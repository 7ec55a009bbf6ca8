/*
 * A thread waiting for a job can run its chunks: with the only worker held
 * up by another job, kiln_sched_help() runs every item of the waited-for job
 * on the caller (index num_workers), prefers the job it is given, and then
 * reports that nothing is left to claim.
 */
#include <pthread.h>

#include "sched_test.h"

struct blocker {
    struct kiln_sched_job job;
    atomic_int running; /* set by run (release) */
    atomic_int release; /* set by main (release) */
    atomic_int finished;
};

static void block_run(struct kiln_sched_job *job, size_t first, size_t count,
                      const struct kiln_sched_worker *w)
{
    struct blocker *b = (struct blocker *)job;
    (void)first;
    (void)count;
    (void)w;
    atomic_store_explicit(&b->running, 1, memory_order_release);
    while (!atomic_load_explicit(&b->release, memory_order_acquire))
        sched_yield();
}

static void block_done(struct kiln_sched_job *job)
{
    struct blocker *b = (struct blocker *)job;
    atomic_store_explicit(&b->finished, 1, memory_order_release);
}

static pthread_t caller;
static atomic_int off_caller; /* relaxed */

static void caller_run(struct kiln_sched_job *job, size_t first, size_t count,
                       const struct kiln_sched_worker *w)
{
    if (!pthread_equal(pthread_self(), caller) || w->index != 1)
        atomic_store_explicit(&off_caller, 1, memory_order_relaxed);
    count_run(job, first, count, w);
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = 1, .local_mem_size = 256};
    struct kiln_sched *s;
    static struct blocker b = {.job = {.num_items = 1, .run = block_run, .done = block_done}};

    caller = pthread_self();
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    kiln_sched_submit(s, &b.job);
    while (!atomic_load_explicit(&b.running, memory_order_acquire))
        sched_yield();

    struct count_job *other = count_job_new(10, 0);
    struct count_job *c = count_job_new(1000, 3);
    c->job.run = caller_run;
    kiln_sched_submit(s, &other->job);
    kiln_sched_submit(s, &c->job);
    /* c is newer than other, yet preferred; all 1000 items run here, then done(). */
    size_t ran = 0, got;
    while (ran < 1000 && (got = kiln_sched_help(s, &c->job)) != 0)
        ran += got;
    CHECK(ran == 1000);
    CHECK(atomic_load_explicit(&c->finished, memory_order_acquire));
    CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
    CHECK(!atomic_load_explicit(&off_caller, memory_order_relaxed));
    CHECK(atomic_load_explicit(&other->finished, memory_order_acquire) == 0);
    /* A stale preference (c is done) falls back to the oldest job with work. */
    CHECK(kiln_sched_help(s, &c->job) == 10);
    CHECK(atomic_load_explicit(&other->finished, memory_order_acquire));
    CHECK(kiln_sched_help(s, NULL) == 0); /* the blocker's one item is taken */

    atomic_store_explicit(&b.release, 1, memory_order_release);
    while (!atomic_load_explicit(&b.finished, memory_order_acquire))
        sched_yield();
    count_job_free(c);
    count_job_free(other);
    kiln_sched_destroy(s);
    return 0;
}
