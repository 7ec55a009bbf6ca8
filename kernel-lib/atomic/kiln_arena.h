/*
 * Private header of the atomic family: whether a pointer lies in the calling worker's
 * __local arena, before the collectives' area ([ctx->local_mem, ctx->group_shared),
 * kiln_abi.h), which is where every __local object of the work-group lives.
 */
#ifndef KILN_KERNEL_LIB_ATOMIC_KILN_ARENA_H
#define KILN_KERNEL_LIB_ATOMIC_KILN_ARENA_H

#include "kiln_lib.h"

/* Whether address a lies in [lo, hi). */
static inline bool kiln_within(ulong a, ulong lo, ulong hi)
{
    return a - lo < hi - lo;
}

static inline bool kiln_in_local_arena(const volatile void *p)
{
    const struct kiln_wg_ctx *c = __kiln_ctx();
    return kiln_within((ulong)p, c->local_mem, c->group_shared);
}

#endif
