/*
 * Late tickets (docs/scheduler.md, "Spinning and sleeping"): a one-item job submitted from
 * outside the pool, with nothing else unclaimed, calls no spinner at once; a spinner goes for
 * it only when it is still unclaimed after a grace of a few microseconds, so that a thread
 * about to wait for it (clFinish) runs it itself. Whether anyone helps or not, every such job
 * must run exactly once and finish:
 *
 *  - submitted back to back and waited for without helping, while the workers spin (they
 *    ran the previous job microseconds before), so only the late ticket can start it;
 *  - the same after a pause long enough for every worker to go to sleep;
 *  - waited for by helping, the way clFinish does;
 *  - submitted while a larger job is still unclaimed (it then gets its ticket at once), and
 *    while another lone job waits for its late ticket.
 */
#include <unistd.h>

#include "sched_test.h"

enum { ROUNDS = 2000 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits without helping; fails after 10 seconds (a job nobody runs). */
static void wait_alone(struct count_job *c)
{
    double start = now_s();
    while (!atomic_load_explicit(&c->finished, memory_order_acquire)) {
        CHECK(now_s() - start < 10.0);
        sched_yield();
    }
    CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = 2, .local_mem_size = 256};
    struct kiln_sched *s;

    CHECK(kiln_sched_create(&cfg, &s) == 0);
    CHECK(kiln_sched_num_workers(s) == 2);

    /* Back to back, no help: the workers are spinning when each job comes. */
    for (int r = 0; r < ROUNDS; r++) {
        struct count_job *c = count_job_new(1, 1);
        kiln_sched_submit(s, &c->job);
        wait_alone(c);
        count_job_free(c);
    }
    /* After the workers went to sleep (their spin is 10 us; 20 ms is far past it). */
    for (int r = 0; r < 20; r++) {
        usleep(20000);
        struct count_job *c = count_job_new(1, 1);
        kiln_sched_submit(s, &c->job);
        wait_alone(c);
        count_job_free(c);
    }
    /* Waited for by helping. */
    size_t by_helper = 0;
    for (int r = 0; r < ROUNDS; r++) {
        struct count_job *c = count_job_new(1, 1);
        kiln_sched_submit(s, &c->job);
        while (!atomic_load_explicit(&c->finished, memory_order_acquire)) {
            size_t ran = kiln_sched_help(s, &c->job);
            by_helper += ran;
            if (!ran)
                sched_yield();
        }
        CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
        count_job_free(c);
    }
    printf("helping thread ran %zu of %d lone jobs\n", by_helper, ROUNDS);
    /* Lone jobs beside unclaimed work and beside each other, none helped. */
    for (int r = 0; r < 200; r++) {
        struct count_job *big = count_job_new(4096, 4096), *a = count_job_new(1, 1),
                         *b = count_job_new(1, 1);
        kiln_sched_submit(s, &a->job);
        kiln_sched_submit(s, &big->job);
        kiln_sched_submit(s, &b->job);
        wait_alone(a);
        wait_alone(big);
        wait_alone(b);
        count_job_free(a);
        count_job_free(big);
        count_job_free(b);
    }
    kiln_sched_destroy(s);
    return 0;
}
