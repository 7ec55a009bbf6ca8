/*
 * Several threads helping with one job at once never run chunks under the same worker
 * index at the same time: per-index areas (a kernel's barrier scratch) stay private. With
 * the pool's workers busy, four threads call kiln_sched_help() on a job of slow items; each
 * item marks its index busy while it runs and fails if it finds it busy already.
 */
#include <pthread.h>
#include <time.h>

#include "sched_test.h"

enum { ITEMS = 400, HELPERS = 4 };

static atomic_int busy[64]; /* by worker index: a chunk is running under it */
static atomic_int clashes;  /* two runs under one index at once */
static atomic_size_t done_items;
static atomic_int finished;

static void slow_run(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    (void)job, (void)first;
    CHECK(w->index < 64);
    if (atomic_exchange_explicit(&busy[w->index], 1, memory_order_acq_rel))
        atomic_fetch_add_explicit(&clashes, 1, memory_order_relaxed);
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
    atomic_store_explicit(&busy[w->index], 0, memory_order_release);
    atomic_fetch_add_explicit(&done_items, count, memory_order_relaxed);
}

static void job_done(struct kiln_sched_job *job)
{
    (void)job;
    atomic_store_explicit(&finished, 1, memory_order_release);
}

static struct kiln_sched *pool;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&finished, memory_order_acquire))
        if (!kiln_sched_help(pool, NULL))
            sched_yield();
    return NULL;
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = 1, .local_mem_size = 256};
    static struct kiln_sched_job job = {
        .num_items = ITEMS, .min_chunk = 1, .run = slow_run, .done = job_done};
    CHECK(kiln_sched_create(&cfg, &pool) == 0);
    pthread_t t[HELPERS];
    kiln_sched_submit(pool, &job);
    for (int i = 0; i < HELPERS; i++)
        CHECK(pthread_create(&t[i], NULL, helper, NULL) == 0);
    for (int i = 0; i < HELPERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(atomic_load(&done_items) == ITEMS);
    CHECK(atomic_load(&clashes) == 0);
    kiln_sched_destroy(pool);
    return 0;
}
