/*
 * Fiber runtime: what the work-group functions of the fiber strategy
 * (wg_fibers.c) call. The loader (elf_load.c) binds these functions by address, since
 * the process cannot look them up by name (libkiln-cc.so exports one symbol).
 *
 * kiln.fiber.run(args, ctx, item) runs one work-group: every work-item gets a
 * stack of KILN_FIBER_STACK bytes in ctx->scratch and starts in item(args, ctx,
 * group, x, y, z). kiln.fiber.barrier(group) switches to the next work-item in
 * linear order; the last one switches back to the first, which is how a barrier
 * completes. A finished work-item hands over to the next unfinished one, and the
 * last to finish returns to the worker's own stack. Nothing is allocated: the
 * group record sits at the start of the scratch area (KILN_FIBER_FIXED bytes), the
 * stacks follow, each with a small header at its low end whose canary catches a
 * work-item that overran its stack.
 */
#include "cc_common.h"
#include "kiln_abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CANARY 0x6b696c6e66696272ULL

struct fiber_group;
typedef void (*item_fn)(void *const *args, struct kiln_wg_ctx *ctx, struct fiber_group *g,
                        uint64_t x, uint64_t y, uint64_t z);

struct fiber_group {
    void *main_sp;
    item_fn fn;
    void *const *args;
    struct kiln_wg_ctx *ctx;
    char *stacks;
    uint64_t n, current, finished;
    uint64_t size_x, size_y;
};

/* At the low end of every work-item's stack. */
struct fiber_item {
    void *sp;
    uint64_t done;
    uint64_t canary;
};

_Static_assert(sizeof(struct fiber_group) <= KILN_FIBER_FIXED, "group record too large");

void kiln_fiber_switch(void **save_sp, void *to_sp);
void kiln_fiber_trampoline(void);
void *kiln_fiber_main(struct fiber_group *g, uint64_t i);

static struct fiber_item *item(struct fiber_group *g, uint64_t i)
{
    return (struct fiber_item *)(g->stacks + i * KILN_FIBER_STACK);
}

/* The next unfinished work-item after i, in ring order; i itself if it is the only one. */
static uint64_t next_item(struct fiber_group *g, uint64_t i)
{
    uint64_t j = i;
    do
        j = j + 1 == g->n ? 0 : j + 1;
    while (j != i && item(g, j)->done);
    return j;
}

static void check_canary(struct fiber_group *g, uint64_t i)
{
    if (item(g, i)->canary == CANARY)
        return;
    fprintf(stderr, "kiln: fatal: work-item %llu overran its %d-byte fiber stack\n",
            (unsigned long long)i, KILN_FIBER_STACK);
    abort();
}

/* Runs work-item i; returns the stack pointer to continue on. */
void *kiln_fiber_main(struct fiber_group *g, uint64_t i)
{
    uint64_t x = i % g->size_x, y = i / g->size_x % g->size_y, z = i / g->size_x / g->size_y;
    g->fn(g->args, g->ctx, g, x, y, z);
    struct fiber_item *it = item(g, i);
    check_canary(g, i);
    it->done = 1;
    if (++g->finished == g->n)
        return g->main_sp;
    g->current = next_item(g, i);
    return item(g, g->current)->sp;
}

static void fiber_barrier(struct fiber_group *g)
{
    uint64_t i = g->current, j = next_item(g, i);
    if (j == i)
        return;
    g->current = j;
    kiln_fiber_switch(&item(g, i)->sp, item(g, j)->sp);
}

static void fiber_run(void *const *args, struct kiln_wg_ctx *ctx, item_fn fn)
{
    uint64_t n = ctx->local_size[0] * ctx->local_size[1] * ctx->local_size[2];
    struct fiber_group *g = ctx->scratch;
    uint32_t mxcsr;
    uint16_t fcw;

    if (n == 0)
        return;
    __asm__("stmxcsr %0" : "=m"(mxcsr));
    __asm__("fnstcw %0" : "=m"(fcw));
    *g = (struct fiber_group){.fn = fn,
                              .args = args,
                              .ctx = ctx,
                              .stacks = (char *)ctx->scratch + KILN_FIBER_FIXED,
                              .n = n,
                              .size_x = ctx->local_size[0],
                              .size_y = ctx->local_size[1]};
    for (uint64_t i = 0; i < n; i++) {
        struct fiber_item *it = item(g, i);
        uint64_t *frame = (uint64_t *)((char *)it + KILN_FIBER_STACK) - 8;
        frame[0] = mxcsr | (uint64_t)fcw << 32;
        frame[1] = 0;            /* r15 */
        frame[2] = 0;            /* r14 */
        frame[3] = i;            /* r13 */
        frame[4] = (uintptr_t)g; /* r12 */
        frame[5] = 0;            /* rbx */
        frame[6] = 0;            /* rbp */
        frame[7] = (uintptr_t)kiln_fiber_trampoline;
        *it = (struct fiber_item){.sp = frame, .canary = CANARY};
    }
    kiln_fiber_switch(&g->main_sp, item(g, 0)->sp);
}

const struct kiln_cc_runtime_symbol kiln_cc_runtime_symbols[KILN_CC_NUM_RUNTIME_SYMBOLS] = {
    {KILN_CC_FIBER_RUN, (void (*)(void))fiber_run},
    {KILN_CC_FIBER_BARRIER, (void (*)(void))fiber_barrier},
};
