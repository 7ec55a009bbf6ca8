/*
 * Free lists of fixed-size blocks for the objects every enqueue makes: a command and
 * its event. In a busy queue the application thread allocates them and a worker
 * frees them, which sends every free back across threads into the C library's
 * locked arenas; a queue keeps its own blocks instead.
 *
 * Protocol
 * --------
 * r->shared (atomic) is a stack that any thread pushes one block onto with a
 * compare-and-swap (release: the block's last writes go with it). Nobody pops
 * single blocks from it: a taker swaps the whole stack out at once (acquire), which
 * leaves no ABA window, and keeps what it took in r->taken under r->lock, which
 * only takers touch. r->count (relaxed) approximates the blocks kept on both
 * lists; puts beyond KILN_RT_RECYCLE_KEEP go back to the C library.
 *
 * Under AddressSanitizer nothing is kept, so a use after free stays visible.
 */
#include "rt_recycle.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Blocks a list keeps: enough for a deep burst of small launches, bounded in memory. None under
 * AddressSanitizer, so that a use after release is a use after free it reports. GCC defines
 * __SANITIZE_ADDRESS__; Clang 19 answers __has_feature(address_sanitizer) instead. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_RT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(KILN_RT_ASAN)
#define KILN_RT_RECYCLE_KEEP 0
#else
#define KILN_RT_RECYCLE_KEEP 1024
#endif

struct kiln_rt_block {
    struct kiln_rt_block *next;
};

void kiln_rt_recycler_init(struct kiln_rt_recycler *r, size_t size)
{
    atomic_init(&r->shared, NULL);
    atomic_init(&r->count, 0);
    pthread_mutex_init(&r->lock, NULL);
    r->taken = NULL;
    r->size = size < sizeof(struct kiln_rt_block) ? sizeof(struct kiln_rt_block) : size;
}

static void free_list(struct kiln_rt_block *b)
{
    while (b) {
        struct kiln_rt_block *next = b->next;
        free(b);
        b = next;
    }
}

void kiln_rt_recycler_fini(struct kiln_rt_recycler *r)
{
    free_list(atomic_exchange_explicit(&r->shared, NULL, memory_order_acquire));
    free_list(r->taken);
    r->taken = NULL;
    pthread_mutex_destroy(&r->lock);
}

void *kiln_rt_recycle_get(struct kiln_rt_recycler *r)
{
    pthread_mutex_lock(&r->lock);
    if (!r->taken)
        r->taken = atomic_exchange_explicit(&r->shared, NULL, memory_order_acquire);
    struct kiln_rt_block *b = r->taken;
    if (b)
        r->taken = b->next;
    pthread_mutex_unlock(&r->lock);
    if (!b)
        return kiln_calloc(1, r->size);
    atomic_fetch_sub_explicit(&r->count, 1, memory_order_relaxed);
    memset(b, 0, r->size);
    return b;
}

void kiln_rt_recycle_put(struct kiln_rt_recycler *r, void *p)
{
    if (!p)
        return;
    /* "count + 1 >": with KILN_RT_RECYCLE_KEEP 0, "count >= 0" would trip -Wtype-limits. */
    if (atomic_load_explicit(&r->count, memory_order_relaxed) + 1 > KILN_RT_RECYCLE_KEEP) {
        free(p);
        return;
    }
    atomic_fetch_add_explicit(&r->count, 1, memory_order_relaxed);
    struct kiln_rt_block *b = p;
    b->next = atomic_load_explicit(&r->shared, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&r->shared, &b->next, b, memory_order_release,
                                                  memory_order_relaxed))
        ;
}
