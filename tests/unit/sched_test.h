/*
 * Helpers shared by the scheduler's unit tests: checks that fail loudly, a
 * counting job that records how often each item ran and how done() was
 * called, and readers of /proc/self/task.
 */
#ifndef KILN_TESTS_UNIT_SCHED_TEST_H
#define KILN_TESTS_UNIT_SCHED_TEST_H

#include <dirent.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln_sched.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A job whose items count their runs. */
struct count_job {
    struct kiln_sched_job job;
    atomic_uint *hits;     /* one counter per item; relaxed */
    atomic_int done_calls; /* relaxed */
    atomic_int all_ran;    /* set by done(): 1 when every item ran exactly once */
    atomic_int finished;   /* release by done(), acquire by the waiter */
    atomic_int *pending;   /* optional: decremented when the job completes (acq_rel) */
    int free_in_done;      /* done() frees the job and its counters */
};

static inline void count_run(struct kiln_sched_job *job, size_t first, size_t count,
                             const struct kiln_sched_worker *w)
{
    struct count_job *c = (struct count_job *)job;
    (void)w;
    CHECK(count > 0 && first + count <= job->num_items);
    for (size_t i = first; i < first + count; i++)
        atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
}

static inline void count_done(struct kiln_sched_job *job)
{
    struct count_job *c = (struct count_job *)job;
    int ok = 1;
    for (size_t i = 0; i < job->num_items; i++)
        ok &= atomic_load_explicit(&c->hits[i], memory_order_relaxed) == 1;
    CHECK(atomic_fetch_add_explicit(&c->done_calls, 1, memory_order_relaxed) == 0);
    CHECK(ok);
    if (c->free_in_done) {
        atomic_int *pending = c->pending;
        free(c->hits);
        free(c);
        atomic_fetch_sub_explicit(pending, 1, memory_order_acq_rel);
        return;
    }
    atomic_store_explicit(&c->all_ran, ok, memory_order_relaxed);
    if (c->pending)
        atomic_fetch_sub_explicit(c->pending, 1, memory_order_acq_rel);
    atomic_store_explicit(&c->finished, 1, memory_order_release);
}

static inline struct count_job *count_job_new(size_t n, size_t min_chunk)
{
    struct count_job *c = calloc(1, sizeof *c);
    CHECK(c);
    c->hits = calloc(n, sizeof *c->hits);
    CHECK(c->hits);
    c->job.num_items = n;
    c->job.min_chunk = min_chunk;
    c->job.run = count_run;
    c->job.done = count_done;
    c->job.user = c;
    return c;
}

static inline void count_job_free(struct count_job *c)
{
    free(c->hits);
    free(c);
}

/* Wait for c to finish, helping the pool meanwhile. */
static inline void count_job_wait(struct kiln_sched *s, struct count_job *c)
{
    while (!atomic_load_explicit(&c->finished, memory_order_acquire))
        if (!kiln_sched_help(s, &c->job))
            sched_yield();
}

/* Number of threads of this process. */
static inline int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    CHECK(d);
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/*
 * Whether the thread count comes back to `want` within a second. A joined
 * thread can linger in /proc/self/task for a moment: the kernel wakes the
 * joiner before it has reaped the thread.
 */
static inline int thread_count_settles(int want)
{
    for (int i = 0; i < 1000; i++) {
        if (thread_count() == want)
            return 1;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/*
 * Calls fn(tid, comm, arg) for each thread of this process whose name starts
 * with `prefix`; returns how many there were.
 */
static inline int for_each_named(const char *prefix, void (*fn)(int, const char *, void *),
                                 void *arg)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    CHECK(d);
    while ((e = readdir(d))) {
        char path[300], comm[32] = "";
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* exited meanwhile */
        if (fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        if (strncmp(comm, prefix, strlen(prefix)) != 0)
            continue;
        n++;
        if (fn)
            fn(atoi(e->d_name), comm, arg);
    }
    closedir(d);
    return n;
}

/*
 * The number of threads once a first pool has come and gone: sanitizer
 * runtimes start a helper thread of their own at the first pthread_create.
 */
static inline int thread_baseline(void)
{
    struct kiln_sched_config cfg = {.num_threads = 1};
    struct kiln_sched *s;
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    kiln_sched_destroy(s);
    for (int i = 0; i < 1000 && for_each_named("kiln-wg-", NULL, NULL) != 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return thread_count();
}

#endif
