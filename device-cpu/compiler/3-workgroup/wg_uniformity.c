/*
 * The region transform's uniformity analysis (wg_transform.c): which allocas can stay one
 * copy for the whole work-group. The whole story is below.
 */
#include "wg_regions.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Which allocas live across a barrier hold the same value for every work-item
 * of the group, so that one shared alloca serves them all instead of a slot per
 * work-item: the loop nests of the later regions then see a loop-invariant value
 * (a reservation id, a trip count, a pointer into local memory) that O3 keeps in
 * a register.
 *
 * A value is uniform when it is a constant, an argument, a global, computed in
 * the prologue, or an instruction without side effects whose operands are all
 * uniform: arithmetic, comparisons, casts, selects, address arithmetic, and
 * intrinsic calls that touch no memory. A plain load is uniform when its
 * address is, and the memory is the group's or the launch's: global, constant
 * or local memory (a work-item may not read there what another one wrote since
 * the last barrier: that would be a race), the work-group function's arguments
 * and ctx (so __kiln_ctx() is uniform), globals, or a uniform alloca. Everything
 * else varies: the local id (a call), atomics, volatile accesses, other calls,
 * phis.
 *
 * An alloca is uniform when each use is a whole load or store of it, and each
 * store writes a uniform value from a block that every work-item of the group
 * runs or none does. A block is divergent when a branch on a varying condition
 * decides whether it runs: it is reachable from that branch without passing its
 * immediate post-dominator, where the paths join again. The analysis starts
 * from every alloca uniform and demotes until nothing changes.
 *
 * A uniform alloca that some region both reads (the value it had at the region's
 * start) and stores to needs more than one shared copy: work-items run one after
 * another, so work-item 1 would read work-item 0's store (a uniform loop counter
 * advanced after a barrier is the typical case). It gets a stand-in per region
 * (SHARED_SNAPSHOT; kiln_cc_regions_rebuild() copies it in and back).
 */

/* Blocks beyond which the post-dominator sets (n^2 bits) are not computed. */
#define UNIFORM_MAX_BLOCKS 8192u
#define NO_BLOCK           UINT32_MAX

struct uniformity {
    const struct regions *r;
    struct kiln_cc_ptr_map memo;    /* value -> 1 uniform, 2 varying, during one pass */
    struct kiln_cc_ptr_map demoted; /* alloca -> 1 once found varying */
    unsigned char *divergent;       /* per block */
    unsigned *ipdom;                /* per block: immediate post-dominator, or NO_BLOCK */
    bool changed;
};

static bool uniform_value(struct uniformity *u, LLVMValueRef v, unsigned depth);

/* Whether `a` is an alloca whose every use is a whole load or store of it. */
static bool plain_alloca(LLVMValueRef a)
{
    for (LLVMUseRef use = LLVMGetFirstUse(a); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a && LLVMGetOperand(user, 0) != a)
            continue;
        if (kiln_cc_is_lifetime_marker(user))
            continue;
        return false;
    }
    return true;
}

static bool uniform_alloca(struct uniformity *u, LLVMValueRef a)
{
    return LLVMIsAAllocaInst(a) && !kiln_cc_ptr_map_get(&u->demoted, a) && plain_alloca(a);
}

/* A call of __kiln_ctx(): the ctx parameter once the hooks are replaced. */
static bool is_ctx_call(LLVMValueRef v)
{
    LLVMValueRef f = LLVMIsACallInst(v) ? kiln_cc_called_function(v) : NULL;
    return f && strcmp(LLVMGetValueName(f), KILN_CC_HOOK_CTX) == 0;
}

/* Whether memory at a uniform address holds the same value for every work-item. */
static bool uniform_memory(struct uniformity *u, LLVMValueRef ptr, unsigned depth)
{
    if (kiln_cc_shared_space(LLVMGetPointerAddressSpace(LLVMTypeOf(ptr))))
        return uniform_value(u, ptr, depth + 1);
    /* Private or generic: follow the address back to where it points. */
    LLVMValueRef root = ptr;
    for (unsigned i = 0; i < 64; i++) {
        if (LLVMIsAGetElementPtrInst(root) || LLVMIsABitCastInst(root) ||
            LLVMIsAAddrSpaceCastInst(root)) {
            unsigned n = (unsigned)LLVMGetNumOperands(root);
            for (unsigned k = 1; k < n; k++)
                if (!uniform_value(u, LLVMGetOperand(root, k), depth + 1))
                    return false;
            root = LLVMGetOperand(root, 0);
            continue;
        }
        if (LLVMIsAConstantExpr(root) && (LLVMGetConstOpcode(root) == LLVMAddrSpaceCast ||
                                          LLVMGetConstOpcode(root) == LLVMGetElementPtr)) {
            root = LLVMGetOperand(root, 0);
            continue;
        }
        break;
    }
    if (LLVMIsAArgument(root) || LLVMIsAGlobalValue(root) || is_ctx_call(root))
        return true;
    return root == ptr && uniform_alloca(u, root);
}

static bool uniform_value(struct uniformity *u, LLVMValueRef v, unsigned depth)
{
    if (LLVMIsAConstant(v) || LLVMIsAArgument(v) || LLVMIsAGlobalValue(v) || LLVMIsAMDNode(v) ||
        LLVMIsAMDString(v) || LLVMIsABasicBlock(v))
        return true;
    if (!LLVMIsAInstruction(v))
        return false;
    if (LLVMGetInstructionParent(v) == u->r->entry && !LLVMIsAAllocaInst(v))
        return true; /* the prologue runs once for the group */
    uintptr_t known = (uintptr_t)kiln_cc_ptr_map_get(&u->memo, v);
    if (known)
        return known == 1;
    if (depth > 64)
        return false;
    bool ok = false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMLoad:
        ok = !LLVMGetVolatile(v) && LLVMGetOrdering(v) == LLVMAtomicOrderingNotAtomic &&
             uniform_memory(u, LLVMGetOperand(v, 0), depth);
        break;
    case LLVMCall:
        if (is_ctx_call(v)) {
            ok = true;
            break;
        }
        ok = kiln_cc_pure_intrinsic(v);
        for (unsigned k = 0; ok && k < (unsigned)LLVMGetNumArgOperands(v); k++)
            ok = uniform_value(u, LLVMGetOperand(v, k), depth + 1);
        break;
    case LLVMExtractElement:
    case LLVMInsertElement:
    case LLVMShuffleVector:
    case LLVMExtractValue:
    case LLVMInsertValue:
    case LLVMFreeze:
        ok = true;
        break;
    default:
        ok = kiln_cc_plain_opcode(LLVMGetInstructionOpcode(v));
        break;
    }
    if (ok && !LLVMIsACallInst(v) && !LLVMIsALoadInst(v))
        for (unsigned k = 0, n = (unsigned)LLVMGetNumOperands(v); ok && k < n; k++)
            ok = uniform_value(u, LLVMGetOperand(v, k), depth + 1);
    kiln_cc_ptr_map_put(&u->memo, v, (void *)(uintptr_t)(ok ? 1 : 2));
    return ok;
}

/* Post-dominator sets by iteration (the virtual exit is node n), then each block's nearest. */
static bool post_dominators(struct uniformity *u)
{
    const struct regions *r = u->r;
    size_t n = r->num_blocks, words = (n + 1 + 63) / 64;
    uint64_t *pdom = malloc((n + 1) * words * sizeof(*pdom));
    unsigned *count = calloc(n + 1, sizeof(*count));
    if (!pdom || !count) {
        free(pdom);
        free(count);
        return false;
    }
    for (size_t b = 0; b <= n; b++)
        memset(pdom + b * words, b == n ? 0 : 0xff, words * sizeof(*pdom));
    pdom[n * words + n / 64] |= (uint64_t)1 << (n % 64);
    for (bool again = true; again;) {
        again = false;
        for (size_t b = n; b-- > 0;) {
            uint64_t *set = pdom + b * words;
            for (size_t w = 0; w < words; w++) {
                uint64_t x = ~(uint64_t)0;
                if (!r->num_succ[b])
                    x &= pdom[n * words + w];
                for (unsigned s = 0; s < r->num_succ[b]; s++)
                    x &= pdom[(size_t)r->succ[b][s] * words + w];
                if (w == b / 64)
                    x |= (uint64_t)1 << (b % 64);
                if (x != set[w]) {
                    set[w] = x;
                    again = true;
                }
            }
        }
    }
    for (size_t b = 0; b <= n; b++)
        for (size_t w = 0; w < words; w++)
            count[b] += (unsigned)__builtin_popcountll(pdom[b * words + w]);
    for (size_t b = 0; b < n; b++) {
        u->ipdom[b] = NO_BLOCK;
        const uint64_t *set = pdom + b * words;
        /* A block that cannot reach an exit keeps the full set: no join is known. */
        if (count[b] > n + 1 || !(set[n / 64] >> (n % 64) & 1))
            continue;
        for (size_t p = 0; p < n; p++)
            if (p != b && (set[p / 64] >> (p % 64) & 1) && count[p] + 1 == count[b])
                u->ipdom[b] = (unsigned)p;
    }
    free(pdom);
    free(count);
    return true;
}

/* Marks the blocks whose running depends on a varying branch. */
static bool find_divergence(struct uniformity *u)
{
    const struct regions *r = u->r;
    size_t n = r->num_blocks;
    unsigned *stack = malloc((n + 1) * sizeof(*stack));
    unsigned char *seen = malloc(n + 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return false;
    }
    memset(u->divergent, 0, n);
    for (size_t b = 0; b < n; b++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[b]);
        LLVMOpcode op = LLVMGetInstructionOpcode(t);
        bool varying = false;
        if (op == LLVMBr && LLVMIsConditional(t))
            varying = !uniform_value(u, LLVMGetCondition(t), 0);
        else if (op == LLVMSwitch)
            varying = !uniform_value(u, LLVMGetOperand(t, 0), 0);
        else if (op != LLVMBr && op != LLVMRet && op != LLVMUnreachable)
            varying = r->num_succ[b] > 1;
        if (!varying)
            continue;
        memset(seen, 0, n);
        size_t sp = 0;
        for (unsigned s = 0; s < r->num_succ[b]; s++)
            if (r->succ[b][s] != u->ipdom[b] && !seen[r->succ[b][s]]) {
                seen[r->succ[b][s]] = 1;
                stack[sp++] = r->succ[b][s];
            }
        while (sp) {
            unsigned v = stack[--sp];
            u->divergent[v] = 1;
            for (unsigned s = 0; s < r->num_succ[v]; s++) {
                unsigned t2 = r->succ[v][s];
                if (t2 != u->ipdom[b] && !seen[t2]) {
                    seen[t2] = 1;
                    stack[sp++] = t2;
                }
            }
        }
    }
    free(stack);
    free(seen);
    return true;
}

/* One pass: demote every alloca that a varying or divergent store writes. */
static void demote_allocas(struct uniformity *u)
{
    const struct regions *r = u->r;
    for (LLVMValueRef a = LLVMGetFirstInstruction(r->entry); a; a = LLVMGetNextInstruction(a)) {
        if (!LLVMIsAAllocaInst(a) || kiln_cc_ptr_map_get(&u->demoted, a))
            continue;
        bool ok = plain_alloca(a);
        for (LLVMUseRef use = LLVMGetFirstUse(a); ok && use; use = LLVMGetNextUse(use)) {
            LLVMValueRef st = LLVMGetUser(use);
            if (!LLVMIsAStoreInst(st))
                continue;
            LLVMBasicBlockRef bb = LLVMGetInstructionParent(st);
            if (bb != r->entry && u->divergent[kiln_cc_regions_block_index(r, bb)])
                ok = false;
            else
                ok = !LLVMGetVolatile(st) && uniform_value(u, LLVMGetOperand(st, 0), 0);
        }
        if (!ok) {
            kiln_cc_ptr_map_put(&u->demoted, a, (void *)1);
            u->changed = true;
        }
    }
}

/*
 * Whether some region both stores to `a` and may read, before any store of its
 * own, the value `a` had when the region began.
 */
static bool read_then_written(const struct regions *r, LLVMValueRef a, unsigned char *seen,
                              unsigned *stack)
{
    size_t n = r->num_blocks;
    for (unsigned g = 0; g <= r->num_barriers; g++) {
        bool written = false, read_in = false;
        memset(seen, 0, n);
        size_t sp = 0;
        unsigned start = r->region_start[g];
        seen[start] = 1;
        stack[sp++] = start;
        /* seen: 1 reached with the entry value possibly live, 2 reached at all */
        while (sp) {
            unsigned v = stack[--sp];
            bool live = seen[v] == 1;
            for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[v]); in;
                 in = LLVMGetNextInstruction(in)) {
                if (LLVMIsAStoreInst(in) && LLVMGetOperand(in, 1) == a) {
                    written = true;
                    live = false;
                } else if (LLVMIsALoadInst(in) && LLVMGetOperand(in, 0) == a && live) {
                    read_in = true;
                }
            }
            if (kiln_cc_regions_is_barrier_block(r, v))
                continue;
            for (unsigned s = 0; s < r->num_succ[v]; s++) {
                unsigned t = r->succ[v][s];
                unsigned char mark = live ? 1 : 2;
                if (seen[t] == 0 || (mark == 1 && seen[t] == 2)) {
                    seen[t] = mark;
                    stack[sp++] = t;
                }
            }
        }
        if (written && read_in)
            return true;
    }
    return false;
}

/*
 * Sets shared[i] for the i-th alloca of the entry block that can be one
 * alloca for the whole group. False when out of memory (nothing is shared).
 */
bool kiln_cc_regions_find_shared(struct regions *r, LLVMValueRef *allocas, size_t num,
                                 unsigned char *shared)
{
    size_t n = r->num_blocks;
    memset(shared, 0, num * sizeof(*shared));
    if (n > UNIFORM_MAX_BLOCKS)
        return true;
    struct uniformity u = {.r = r};
    u.divergent = calloc(n + 1, 1);
    u.ipdom = calloc(n + 1, sizeof(*u.ipdom));
    unsigned char *seen = malloc(n + 1);
    unsigned *stack = malloc((2 * n + 2) * sizeof(*stack));
    bool ok = u.divergent && u.ipdom && seen && stack && post_dominators(&u);
    while (ok) {
        u.changed = false;
        ok = find_divergence(&u);
        if (ok)
            demote_allocas(&u);
        kiln_cc_ptr_map_free(&u.memo);
        if (!u.changed)
            break;
    }
    for (size_t i = 0; ok && i < num; i++)
        if (uniform_alloca(&u, allocas[i]))
            shared[i] = read_then_written(r, allocas[i], seen, stack) ? SHARED_SNAPSHOT : SHARED;
    kiln_cc_ptr_map_free(&u.memo);
    kiln_cc_ptr_map_free(&u.demoted);
    if (ok) {
        r->divergent = u.divergent; /* the region loops' next-region names use it */
        u.divergent = NULL;
    }
    free(u.divergent);
    free(u.ipdom);
    free(seen);
    free(stack);
    return ok;
}
