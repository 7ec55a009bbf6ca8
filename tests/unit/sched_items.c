/*
 * Every item of every job runs exactly once and done() comes once, after all
 * of them: many jobs of odd sizes (one item included), several in flight at
 * once, with various chunk floors, some freed by their own done().
 */
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
        kiln_sched_destroy(s);
    }
    return 0;
}
