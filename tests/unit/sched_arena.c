/*
 * Every thread that runs a chunk gets an arena of exactly local_mem_size
 * usable bytes, 128-byte aligned, private to it: one per worker index, and a
 * separate one (index num_workers) for a helping caller.
 */
#include <pthread.h>
#include <stdint.h>

#include "sched_test.h"

enum { SIZE = 1000, MAXW = 64 };

struct arena_job {
    struct kiln_sched_job job;
    _Atomic(void *) arena_of[MAXW + 1]; /* relaxed */
    atomic_int bad;                     /* relaxed */
    atomic_int finished;                /* release by done */
    unsigned num_workers;               /* helpers have this index and may differ */
};

static void arena_run(struct kiln_sched_job *job, size_t first, size_t count,
                      const struct kiln_sched_worker *w)
{
    struct arena_job *a = (struct arena_job *)job;
    unsigned char *mem = w->local_mem;
    (void)first;
    (void)count;
    if (!mem || (uintptr_t)mem % 128 != 0 || w->local_mem_size != SIZE || w->index > MAXW) {
        atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
        return;
    }
    void *expect = NULL;
    if (!atomic_compare_exchange_strong_explicit(&a->arena_of[w->index], &expect, mem,
                                                 memory_order_relaxed, memory_order_relaxed) &&
        expect != mem && w->index < a->num_workers)
        atomic_store_explicit(&a->bad, 1, memory_order_relaxed); /* a worker's arena moved */
    /* Use every byte, and check nobody else does meanwhile (ASan sees overruns). */
    unsigned char tag = (unsigned char)(first * 7 + 1);
    memset(mem, tag, SIZE);
    for (size_t i = 0; i < SIZE; i++)
        if (mem[i] != tag)
            atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
}

static void arena_done(struct kiln_sched_job *job)
{
    struct arena_job *a = (struct arena_job *)job;
    atomic_store_explicit(&a->finished, 1, memory_order_release);
}

int main(void)
{
    static const int counts[] = {-1, 3, 0};
    unsetenv("KILN_NUM_THREADS");
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        struct kiln_sched_config cfg = {.num_threads = counts[k], .local_mem_size = SIZE};
        struct kiln_sched *s;
        CHECK(kiln_sched_create(&cfg, &s) == 0);
        unsigned n = kiln_sched_num_workers(s);
        CHECK(n <= MAXW);
        for (int r = 0; r < 20; r++) {
            static struct arena_job a;
            memset(&a, 0, sizeof a);
            a.job =
                (struct kiln_sched_job){.num_items = 5000, .run = arena_run, .done = arena_done};
            a.num_workers = n;
            kiln_sched_submit(s, &a.job);
            while (!atomic_load_explicit(&a.finished, memory_order_acquire))
                if (!kiln_sched_help(s, &a.job))
                    sched_yield();
            CHECK(!atomic_load_explicit(&a.bad, memory_order_relaxed));
            for (unsigned i = 0; i < n; i++)
                for (unsigned j = 0; j < i; j++) {
                    void *pi = atomic_load_explicit(&a.arena_of[i], memory_order_relaxed);
                    void *pj = atomic_load_explicit(&a.arena_of[j], memory_order_relaxed);
                    CHECK(!pi || pi != pj);
                }
        }
        kiln_sched_destroy(s);
    }
    return 0;
}
