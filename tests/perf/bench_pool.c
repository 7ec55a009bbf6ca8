/* A pool of named worker threads for kiln-bench's plain-C ceiling: each call to bench_pool_run
 * hands every worker the same function and waits until all of them have returned.
 *
 * Protocol: `generation` (under lock) counts the jobs posted; a worker runs a job when the
 * generation differs from the last one it ran, then decrements `pending` (under lock) and the
 * last one signals `done`. Stopping sets `stop` and broadcasts `start`. Workers are started
 * with a handshake (an empty first job), and creation fails as a whole, never leaving a thread
 * running. */
#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_pool {
    pthread_mutex_t lock;
    pthread_cond_t start; /* signalled when generation changes or stop is set */
    pthread_cond_t done;  /* signalled when pending reaches 0 */
    unsigned generation;  /* under lock */
    unsigned pending;     /* under lock: workers still running the current job */
    int stop;             /* under lock */
    void (*fn)(void *arg, unsigned i, unsigned count); /* under lock */
    void *arg;                                         /* under lock */
    unsigned count;                                    /* workers started; fixed after create */
    pthread_t *thread;                                 /* count entries */
};

struct worker_start {
    struct bench_pool *pool;
    unsigned index;
};

static void *worker_main(void *p)
{
    struct worker_start *start = p;
    struct bench_pool *pool = start->pool;
    unsigned index = start->index;
    free(start);

    char name[16];
    snprintf(name, sizeof(name), "kiln-bench-%u", index);
    pthread_setname_np(pthread_self(), name);

    /* Generation 0 is "no job yet": the first job is new to every worker, however late the
     * worker starts. */
    unsigned seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (pool->generation == seen && !pool->stop)
            pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->stop)
            break;
        seen = pool->generation;
        void (*fn)(void *, unsigned, unsigned) = pool->fn;
        void *arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);

        fn(arg, index, pool->count);

        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void stop_and_join(struct bench_pool *pool, unsigned started)
{
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < started; i++)
        if (pthread_join(pool->thread[i], NULL) != 0)
            abort();
}

/* The start handshake: an empty job that returns only once every worker is running. */
static void handshake(void *arg, unsigned i, unsigned count)
{
    (void)arg;
    (void)i;
    (void)count;
}

int bench_pool_create(unsigned count, struct bench_pool **out)
{
    struct bench_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL)
        goto out;
    pool->thread = calloc(count, sizeof(pthread_t));
    if (pool->thread == NULL)
        goto out_free_pool;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->start, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->count = count;

    unsigned started = 0;
    for (; started < count; started++) {
        struct worker_start *start = malloc(sizeof(*start));
        if (start == NULL)
            goto out_join;
        start->pool = pool;
        start->index = started;
        if (pthread_create(&pool->thread[started], NULL, worker_main, start) != 0) {
            free(start);
            goto out_join;
        }
    }
    bench_pool_run(pool, handshake, NULL);
    *out = pool;
    return 0;

out_join:
    fprintf(stderr, "kiln-bench: could not start worker thread %u of %u\n", started, count);
    stop_and_join(pool, started);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->start);
    pthread_mutex_destroy(&pool->lock);
    free(pool->thread);
out_free_pool:
    free(pool);
out:
    return -1;
}

void bench_pool_run(struct bench_pool *pool, void (*fn)(void *arg, unsigned i, unsigned count),
                    void *arg)
{
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->pending = pool->count;
    pool->generation++;
    pthread_cond_broadcast(&pool->start);
    while (pool->pending > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

unsigned bench_pool_size(const struct bench_pool *pool)
{
    return pool->count;
}

void bench_pool_destroy(struct bench_pool *pool)
{
    stop_and_join(pool, pool->count);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->start);
    pthread_mutex_destroy(&pool->lock);
    free(pool->thread);
    free(pool);
}
