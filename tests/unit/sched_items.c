/*
 * Every item of every job runs exactly once and done() comes once, after all
 * of them: many jobs of odd sizes (one item included), several in flight at
 * once, with various chunk floors, some freed by their own done().
 */
#include <stdint.h>

#include "sched_test.h"

static const size_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 64, 127, 1000, 4099, 65537};
static const size_t floors[] = {0, 1, 3, 17, 1000000};

static void round_of_jobs(struct kiln_sched *s)
{
    enum { N = sizeof sizes / sizeof sizes[0] };
    struct count_job *jobs[N];
    atomic_int pending = 0;

    for (size_t f = 0; f < sizeof floors / sizeof floors[0]; f++) {
        for (int i = 0; i < N; i++) {
            jobs[i] = count_job_new(sizes[i], floors[f]);
            jobs[i]->pending = &pending;
            jobs[i]->free_in_done = i % 2; /* odd ones free themselves */
            atomic_fetch_add_explicit(&pending, 1, memory_order_relaxed);
        }
        for (int i = 0; i < N; i++)
            kiln_sched_submit(s, &jobs[i]->job);
        for (int i = 0; i < N; i += 2) {
            count_job_wait(s, jobs[i]);
            CHECK(atomic_load_explicit(&jobs[i]->done_calls, memory_order_relaxed) == 1);
            CHECK(atomic_load_explicit(&jobs[i]->all_ran, memory_order_relaxed) == 1);
        }
        while (atomic_load_explicit(&pending, memory_order_acquire) != 0)
            if (!kiln_sched_help(s, NULL))
                sched_yield();
        for (int i = 0; i < N; i += 2)
            count_job_free(jobs[i]);
    }
}

/* A job too large to enumerate: run() only adds up the counts it is given. */
struct huge_job {
    struct kiln_sched_job job;
    atomic_size_t sum;   /* relaxed */
    atomic_int finished; /* release by done */
};

static void huge_run(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    struct huge_job *h = (struct huge_job *)job;
    (void)w;
    CHECK(count > 0 && first < job->num_items && count <= job->num_items - first);
    atomic_fetch_add_explicit(&h->sum, count, memory_order_relaxed);
}

static void huge_done(struct kiln_sched_job *job)
{
    struct huge_job *h = (struct huge_job *)job;
    CHECK(atomic_load_explicit(&h->sum, memory_order_relaxed) == job->num_items);
    CHECK(!atomic_exchange_explicit(&h->finished, 1, memory_order_release));
}

static void huge_jobs(struct kiln_sched *s)
{
    /* One each side of the size where claims switch from fetch_add to compare-and-swap. */
    static const size_t n[] = {((size_t)1 << 48) - 1, ((size_t)1 << 48) + 1, SIZE_MAX / 2 + 7};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        static struct huge_job h;
        memset(&h, 0, sizeof h);
        h.job = (struct kiln_sched_job){.num_items = n[i], .run = huge_run, .done = huge_done};
        kiln_sched_submit(s, &h.job);
        while (!atomic_load_explicit(&h.finished, memory_order_acquire))
            if (!kiln_sched_help(s, &h.job))
                sched_yield();
    }
}

int main(void)
{
    static const int counts[] = {-1, 1, 2, 3, 0};
    unsetenv("KILN_NUM_THREADS");
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        struct kiln_sched_config cfg = {.num_threads = counts[c], .local_mem_size = 256};
        struct kiln_sched *s;
        CHECK(kiln_sched_create(&cfg, &s) == 0);
        for (int r = 0; r < 5; r++)
            round_of_jobs(s);
        huge_jobs(s);
        kiln_sched_destroy(s);
    }
    return 0;
}
