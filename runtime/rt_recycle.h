/*
 * Free lists of fixed-size blocks (recycle.c): where a queue's commands and events are
 * allocated from.
 */
#ifndef KILN_RUNTIME_RT_RECYCLE_H
#define KILN_RUNTIME_RT_RECYCLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct kiln_rt_block;

/* A free list of blocks of one size, filled by any thread, emptied by takers. */
struct kiln_rt_recycler {
    _Atomic(struct kiln_rt_block *) shared; /* pushed with compare-and-swap */
    atomic_size_t count;                    /* relaxed: blocks kept, roughly */
    pthread_mutex_t lock;                   /* takers only */
    struct kiln_rt_block *taken;            /* under lock */
    size_t size;
};

void kiln_rt_recycler_init(struct kiln_rt_recycler *r, size_t size);
/* Free every kept block; no other thread may use r any more. */
void kiln_rt_recycler_fini(struct kiln_rt_recycler *r);
/* A zeroed block of r->size bytes (malloc alignment), or NULL when out of memory. */
void *kiln_rt_recycle_get(struct kiln_rt_recycler *r);
/* Give a block from kiln_rt_recycle_get back; any thread. NULL is ignored. */
void kiln_rt_recycle_put(struct kiln_rt_recycler *r, void *p);

#endif
