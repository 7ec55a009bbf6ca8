/*
 * done() runs exactly once, after every item has finished, even when items
 * take very different times and when done() frees the job; and done() may
 * submit a further job (as device-side enqueue will).
 */
#include <time.h>

#include "sched_test.h"

struct chain {
    struct kiln_sched_job job;
    struct kiln_sched *s;
    atomic_size_t finished_items; /* relaxed; counted after each item's work */
    atomic_int done_calls;        /* relaxed */
    atomic_int *links_left;       /* acq_rel */
    int depth;
};

static void slow_run(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    struct chain *c = (struct chain *)job;
    (void)w;
    for (size_t i = first; i < first + count; i++) {
        if (i % 7 == 0) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
        atomic_fetch_add_explicit(&c->finished_items, 1, memory_order_relaxed);
    }
}

static void chain_done(struct kiln_sched_job *job)
{
    struct chain *c = (struct chain *)job;
    CHECK(atomic_fetch_add_explicit(&c->done_calls, 1, memory_order_relaxed) == 0);
    CHECK(atomic_load_explicit(&c->finished_items, memory_order_relaxed) == job->num_items);
    if (c->depth > 0) {
        struct chain *next = calloc(1, sizeof *next);
        CHECK(next);
        *next = (struct chain){.job = {.num_items = job->num_items % 5 + 1 + (size_t)c->depth,
                                       .run = slow_run,
                                       .done = chain_done},
                               .s = c->s,
                               .links_left = c->links_left,
                               .depth = c->depth - 1};
        kiln_sched_submit(c->s, &next->job);
    }
    atomic_int *left = c->links_left;
    free(c);
    atomic_fetch_sub_explicit(left, 1, memory_order_acq_rel);
}

int main(void)
{
    static const int counts[] = {-1, 3, 0};
    unsetenv("KILN_NUM_THREADS");
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        struct kiln_sched_config cfg = {.num_threads = counts[k]};
        struct kiln_sched *s;
        atomic_int links_left = 0;
        CHECK(kiln_sched_create(&cfg, &s) == 0);
        for (int j = 0; j < 20; j++) {
            struct chain *c = calloc(1, sizeof *c);
            CHECK(c);
            c->job = (struct kiln_sched_job){
                .num_items = (size_t)(1 + j * 37), .run = slow_run, .done = chain_done};
            c->s = s;
            c->links_left = &links_left;
            c->depth = j % 4;
            atomic_fetch_add_explicit(&links_left, 1 + c->depth, memory_order_relaxed);
            kiln_sched_submit(s, &c->job);
        }
        while (atomic_load_explicit(&links_left, memory_order_acquire) != 0)
            if (!kiln_sched_help(s, NULL))
                sched_yield();
        kiln_sched_destroy(s);
    }
    return 0;
}
