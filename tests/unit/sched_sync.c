/*
 * Zero workers: kiln_sched_submit() runs the whole job, done() included, on
 * the calling thread before it returns, with the caller's arena (index 0),
 * and starts no thread. KILN_NUM_THREADS does not override an explicit 0.
 */
#include <pthread.h>

#include "sched_test.h"

static pthread_t caller;
static atomic_int wrong_thread; /* relaxed */
static int done_seen;           /* caller thread only */

static void sync_run(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    if (!pthread_equal(pthread_self(), caller) || w->index != 0 || !w->local_mem ||
        w->local_mem_size != 512)
        atomic_store_explicit(&wrong_thread, 1, memory_order_relaxed);
    count_run(job, first, count, w);
}

static void sync_done(struct kiln_sched_job *job)
{
    if (!pthread_equal(pthread_self(), caller))
        atomic_store_explicit(&wrong_thread, 1, memory_order_relaxed);
    done_seen++;
    count_done(job);
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = 0, .local_mem_size = 512};
    struct kiln_sched *s;

    setenv("KILN_NUM_THREADS", "4", 1);
    caller = pthread_self();
    int before = thread_count();
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    CHECK(kiln_sched_num_workers(s) == 0);
    CHECK(thread_count() == before);
    for (size_t n = 1; n < 3000; n = n * 3 + 1) {
        struct count_job *c = count_job_new(n, n % 4);
        c->job.run = sync_run;
        c->job.done = sync_done;
        int seen = done_seen;
        kiln_sched_submit(s, &c->job);
        CHECK(done_seen == seen + 1); /* before submit returned */
        CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
        CHECK(kiln_sched_help(s, &c->job) == 0);
        count_job_free(c);
    }
    CHECK(!atomic_load_explicit(&wrong_thread, memory_order_relaxed));
    CHECK(thread_count() == before);
    kiln_sched_destroy(s);
    return 0;
}
