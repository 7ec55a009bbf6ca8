/*
 * Several submitting threads keep several jobs each in flight at once; some
 * wait by helping, some by yielding only.
 */
#include <pthread.h>

#include "sched_test.h"

enum { SUBMITTERS = 4, ROUNDS = 60, IN_FLIGHT = 4 };

struct submitter {
    struct kiln_sched *s;
    unsigned seed;
    int help;
};

static void *submit_loop(void *arg)
{
    struct submitter *sub = arg;
    struct count_job *jobs[IN_FLIGHT];

    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < IN_FLIGHT; i++) {
            size_t n = 1 + (size_t)(rand_r(&sub->seed) % 3001);
            jobs[i] = count_job_new(n, (size_t)(rand_r(&sub->seed) % 5));
            kiln_sched_submit(sub->s, &jobs[i]->job);
        }
        for (int i = 0; i < IN_FLIGHT; i++) {
            if (sub->help) {
                count_job_wait(sub->s, jobs[i]);
            } else {
                while (!atomic_load_explicit(&jobs[i]->finished, memory_order_acquire))
                    sched_yield();
            }
            CHECK(atomic_load_explicit(&jobs[i]->done_calls, memory_order_relaxed) == 1);
            CHECK(atomic_load_explicit(&jobs[i]->all_ran, memory_order_relaxed) == 1);
            count_job_free(jobs[i]);
        }
    }
    return NULL;
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = -1, .local_mem_size = 64};
    struct kiln_sched *s;
    pthread_t t[SUBMITTERS];
    struct submitter subs[SUBMITTERS];

    unsetenv("KILN_NUM_THREADS");
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    for (int i = 0; i < SUBMITTERS; i++) {
        subs[i] = (struct submitter){.s = s, .seed = 12345u + (unsigned)i, .help = i % 2};
        CHECK(pthread_create(&t[i], NULL, submit_loop, &subs[i]) == 0);
    }
    for (int i = 0; i < SUBMITTERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    kiln_sched_destroy(s);
    return 0;
}
