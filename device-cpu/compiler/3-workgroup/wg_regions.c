/*
 * Region transform: the work-group function of a kernel that calls barrier().
 *
 * Work-items run one after another, so a barrier is where every work-item of the
 * group must have finished the code before it before any goes on. The wrapper of
 * such a kernel (built flat by wg_wrapper.c: unpack the arguments, call the
 * kernel, return; then everything inlined) is rewritten here:
 *
 *  1. sroa, sccp and instsimplify; generic accesses made through their named
 *     pointers (kiln_cc_named_spaces) and work-item ids recomputed at each use in
 *     another block or past a barrier (rematerialize_ids, below); reg2mem, every
 *     block split right after each barrier call, reg2mem again: now the only values
 *     that cross a block boundary live in allocas of the entry block, and each
 *     barrier ends its block with a branch to its continuation.
 *  2. The entry block is the prologue: argument unpacking, run once per group.
 *     Region 0 starts at its successor, region i + 1 at the continuation of
 *     barrier i. A region is every block reachable from its start without going
 *     past a barrier; a block reachable from several starts is cloned into each.
 *  3. Each alloca that may hold a value from before a barrier to after it (some
 *     use can reach barrier i and some use is reachable from its continuation),
 *     or whose address is stored, gets a slot per work-item in ctx->scratch,
 *     laid out one array per alloca (work-item w's copy at base + w * size) so
 *     that neighbouring work-items are neighbours in memory. The others stay
 *     allocas shared by the work-items, which is safe: no work-item's use of them
 *     spans a barrier, and within one region work-items do not interleave. So do
 *     those holding the same value in every work-item (the uniformity analysis
 *     below); one that a region reads on entry and also stores gets a stand-in
 *     per region, copied in for each work-item's turn and written back after it.
 *  4. Each region becomes a z/y/x loop nest over this group's local size, with
 *     its blocks cloned inside. A barrier leaves the clone towards the next
 *     work-item, naming its continuation; the return names "done". A region
 *     with a single way out goes straight to the next region; otherwise each
 *     work-item stores the name in its own i32 after the slots, and a dispatcher
 *     switches on work-item 0's once the loop nest is over (all work-items name
 *     the same, as OpenCL requires them all to reach the same barrier). When no way
 *     out of the region is divergent (the uniformity analysis below), the work-items
 *     share work-item 0's i32, and O3 moves the one store out of the loop.
 *     A region that calls __kiln_group_leader() (the library's collectives: work-item
 *     0 combines or reserves for the group) runs work-item 0's turn first, outside
 *     the loop nest, with the answer 1, and the loop skips work-item 0 and answers 0:
 *     code only the leader runs is gone from the loop, so an emptied loop is deleted.
 *
 * The x loops carry llvm.loop.parallel_accesses like the barrier-free loop; the
 * scratch slot accesses and the stores of the next region's name join the
 * access group (each work-item owns its slots),
 * wg_wrapper.c tags the shared-memory ones. O3 then brings registers back.
 */
#include "wg_internal.h"
#include "kiln_abi.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* At most this many barrier calls in one kernel after inlining. */
#define MAX_BARRIERS 256

bool kiln_cc_is_barrier(LLVMValueRef callee)
{
    char base[64];
    if (!callee || !LLVMIsAFunction(callee))
        return false;
    kiln_cc_base_name(LLVMGetValueName(callee), base, sizeof(base));
    return strcmp(base, "barrier") == 0 || strcmp(base, "work_group_barrier") == 0;
}

static LLVMValueRef called_function(LLVMValueRef in)
{
    if (!LLVMIsACallInst(in))
        return NULL;
    LLVMValueRef f = LLVMGetCalledValue(in);
    return f && LLVMIsAFunction(f) ? f : NULL;
}

/* llvm.lifetime.start/end: says when memory is in use, reads and writes nothing. */
static bool is_lifetime_marker(LLVMValueRef in)
{
    LLVMValueRef f = LLVMIsACallInst(in) ? called_function(in) : NULL;
    return f && strncmp(LLVMGetValueName(f), "llvm.lifetime.", 14) == 0;
}

static bool is_barrier_call(LLVMValueRef in)
{
    return kiln_cc_is_barrier(called_function(in));
}

enum kiln_cc_status kiln_cc_barrier_kernels(struct kiln_cc_build *b, bool *uses_barrier)
{
    struct kiln_cc_ptr_map reach = {0};
    LLVMValueRef *work = NULL;
    size_t n = 0, cap = 0;
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    /* Functions that call a barrier, directly or through functions they call. */
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (!kiln_cc_is_barrier(fn))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            LLVMValueRef *more = realloc(work, cap * sizeof(*work));
            if (!more)
                goto out;
            work = more;
        }
        work[n++] = fn;
    }
    while (n) {
        LLVMValueRef fn = work[--n];
        for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsAInstruction(user))
                continue;
            LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
            if (kiln_cc_ptr_map_get(&reach, caller))
                continue;
            if (!kiln_cc_ptr_map_put(&reach, caller, caller))
                goto out;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                LLVMValueRef *more = realloc(work, cap * sizeof(*work));
                if (!more)
                    goto out;
                work = more;
            }
            work[n++] = caller;
        }
    }
    for (unsigned k = 0; k < b->prog->num_kernels; k++)
        uses_barrier[k] = kiln_cc_ptr_map_get(&reach, b->kernel_fns[k]) != NULL;
    status = KILN_CC_OK;
out:
    free(work);
    kiln_cc_ptr_map_free(&reach);
    return status;
}

enum kiln_cc_status kiln_cc_barrier_strategy(struct kiln_cc_build *b, const char *kernel,
                                             bool *fibers)
{
    const char *s = getenv("KILN_BARRIER_STRATEGY");
    *fibers = b->force_fibers;
    if (b->force_fibers)
        return KILN_CC_OK;
    if (!s || !*s || strcmp(s, "regions") == 0)
        return KILN_CC_OK;
    if (strcmp(s, "fibers") == 0) {
        *fibers = true;
        return KILN_CC_OK;
    }
    kiln_cc_log_printf(b->log,
                       "error: kernel '%s' calls barrier(): KILN_BARRIER_STRATEGY='%s' is "
                       "not a barrier strategy (use 'regions' or 'fibers')\n",
                       kernel, s);
    return KILN_CC_BUILD_FAILED;
}

/* Moves everything after each barrier call of `w` into a new block. */
static void split_at_barriers(LLVMContextRef ctx, LLVMValueRef w)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!is_barrier_call(in))
                continue;
            LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(ctx, w, "barrier.cont");
            LLVMMoveBasicBlockAfter(rest, bb);
            LLVMPositionBuilderAtEnd(bld, rest);
            for (LLVMValueRef m = LLVMGetNextInstruction(in); m;) {
                LLVMValueRef next = LLVMGetNextInstruction(m);
                LLVMInstructionRemoveFromParent(m);
                LLVMInsertIntoBuilder(bld, m);
                m = next;
            }
            LLVMPositionBuilderAtEnd(bld, bb);
            LLVMBuildBr(bld, rest);
            break; /* the rest, with any further barrier, is the next block */
        }
    }
    LLVMDisposeBuilder(bld);
}

/* One kernel being transformed. */
struct regions {
    struct kiln_cc_build *b;
    LLVMContextRef ctx;
    LLVMValueRef w;
    const char *kernel;
    LLVMMetadataRef group;
    LLVMBasicBlockRef entry;
    /* Template blocks: every block but the entry. */
    LLVMBasicBlockRef *blocks;
    size_t num_blocks;
    struct kiln_cc_ptr_map index; /* block -> index + 1 */
    unsigned **succ;              /* successor indices per block, counted in num_succ */
    unsigned *num_succ;
    unsigned **pred;
    unsigned *num_pred;
    /* Barrier i: its block (which it ends) and its continuation. */
    unsigned bar_block[MAX_BARRIERS], bar_cont[MAX_BARRIERS];
    unsigned num_barriers;
    unsigned region_start[MAX_BARRIERS + 1];
    /* Allocas that get a scratch slot. */
    LLVMValueRef *slots;
    size_t *slot_size, *slot_offset;
    size_t num_slots;
    size_t per_item;
    /*
     * Alias scopes: slot s's own scope list ({scope s}, NULL for a slot whose
     * address goes anywhere but into loads, stores and address arithmetic) and
     * the scopes its accesses cannot touch; noalias_all lists every scope.
     */
    LLVMMetadataRef *scope_list, *noalias_but;
    LLVMMetadataRef noalias_all;
    /* Per block: run by some work-items of a group only (the uniformity analysis's
     * divergence); NULL when the analysis did not run. */
    unsigned char *divergent;
    /*
     * Uniform allocas that some region reads on entry and also stores (a loop counter
     * advanced after a barrier), and each one's stand-in inside a region: a region copies
     * the value into the stand-in for each work-item and writes the stand-in back after
     * its loop nest, so work-item 1 never reads what work-item 0 stored.
     */
    LLVMValueRef *snaps, *snap_copy;
    size_t num_snaps;
};

static unsigned block_index(const struct regions *r, LLVMBasicBlockRef bb)
{
    return (unsigned)(uintptr_t)kiln_cc_ptr_map_get(&r->index, bb) - 1;
}

static bool is_template(const struct regions *r, LLVMBasicBlockRef bb)
{
    return kiln_cc_ptr_map_get(&r->index, bb) != NULL;
}

static void regions_free(struct regions *r)
{
    for (size_t i = 0; i < r->num_blocks; i++) {
        if (r->succ)
            free(r->succ[i]);
        if (r->pred)
            free(r->pred[i]);
    }
    free(r->succ);
    free(r->pred);
    free(r->num_succ);
    free(r->num_pred);
    free(r->blocks);
    free(r->slots);
    free(r->slot_size);
    free(r->slot_offset);
    free(r->scope_list);
    free(r->noalias_but);
    free(r->divergent);
    free(r->snaps);
    free(r->snap_copy);
    kiln_cc_ptr_map_free(&r->index);
}

static enum kiln_cc_status refuse(struct regions *r, const char *why)
{
    kiln_cc_log_printf(r->b->log, "error: kernel '%s' calls barrier() but %s\n", r->kernel, why);
    r->b->regions_refused = true;
    return KILN_CC_BUILD_FAILED;
}

/* Blocks, their edges and the barriers. */
static enum kiln_cc_status build_graph(struct regions *r)
{
    r->entry = LLVMGetEntryBasicBlock(r->w);
    size_t n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->w); bb; bb = LLVMGetNextBasicBlock(bb))
        n++;
    n--;
    r->num_blocks = n;
    r->blocks = calloc(n ? n : 1, sizeof(*r->blocks));
    r->succ = calloc(n ? n : 1, sizeof(*r->succ));
    r->pred = calloc(n ? n : 1, sizeof(*r->pred));
    r->num_succ = calloc(n ? n : 1, sizeof(*r->num_succ));
    r->num_pred = calloc(n ? n : 1, sizeof(*r->num_pred));
    if (!r->blocks || !r->succ || !r->pred || !r->num_succ || !r->num_pred)
        return KILN_CC_OUT_OF_MEMORY;
    size_t i = 0;
    for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(r->entry); bb;
         bb = LLVMGetNextBasicBlock(bb), i++) {
        r->blocks[i] = bb;
        if (!kiln_cc_ptr_map_put(&r->index, bb, (void *)(uintptr_t)(i + 1)))
            return KILN_CC_OUT_OF_MEMORY;
    }
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in))
        if (is_barrier_call(in))
            return refuse(r, "a barrier sits in the argument prologue");
    LLVMValueRef et = LLVMGetBasicBlockTerminator(r->entry);
    if (!et || LLVMGetNumSuccessors(et) != 1 || !is_template(r, LLVMGetSuccessor(et, 0)))
        return refuse(r, "its work-group function has an unexpected entry block");
    r->region_start[0] = block_index(r, LLVMGetSuccessor(et, 0));

    for (i = 0; i < n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[i]);
        if (!t)
            return refuse(r, "a block has no terminator");
        unsigned ns = LLVMGetNumSuccessors(t);
        r->succ[i] = calloc(ns ? ns : 1, sizeof(unsigned));
        if (!r->succ[i])
            return KILN_CC_OUT_OF_MEMORY;
        for (unsigned s = 0; s < ns; s++) {
            LLVMBasicBlockRef sb = LLVMGetSuccessor(t, s);
            if (!is_template(r, sb))
                return refuse(r, "a branch leads back into the argument prologue");
            r->succ[i][r->num_succ[i]++] = block_index(r, sb);
        }
        LLVMValueRef last = LLVMGetPreviousInstruction(t);
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in)) {
            if (!is_barrier_call(in))
                continue;
            if (in != last || ns != 1 || LLVMGetInstructionOpcode(t) != LLVMBr)
                return refuse(r, "a barrier could not be split from the code after it");
            if (r->num_barriers == MAX_BARRIERS)
                return refuse(r, "it has more barrier calls than the transform handles (256)");
            r->bar_block[r->num_barriers] = (unsigned)i;
            r->bar_cont[r->num_barriers] = r->succ[i][0];
            r->num_barriers++;
            r->region_start[r->num_barriers] = r->succ[i][0];
        }
    }
    for (i = 0; i < n; i++)
        for (unsigned s = 0; s < r->num_succ[i]; s++)
            r->num_pred[r->succ[i][s]]++;
    for (i = 0; i < n; i++) {
        r->pred[i] = calloc(r->num_pred[i] ? r->num_pred[i] : 1, sizeof(unsigned));
        if (!r->pred[i])
            return KILN_CC_OUT_OF_MEMORY;
        r->num_pred[i] = 0;
    }
    for (i = 0; i < n; i++)
        for (unsigned s = 0; s < r->num_succ[i]; s++) {
            unsigned t = r->succ[i][s];
            r->pred[t][r->num_pred[t]++] = (unsigned)i;
        }
    return KILN_CC_OK;
}

static bool is_barrier_block(const struct regions *r, unsigned blk)
{
    for (unsigned i = 0; i < r->num_barriers; i++)
        if (r->bar_block[i] == blk)
            return true;
    return false;
}

/*
 * Marks in `seen` every block reachable from `from` along successors (or
 * predecessors with `backwards`); with `stop_at_barriers`, a barrier block is
 * reached but not left.
 */
static bool reach(const struct regions *r, unsigned from, bool backwards, bool stop_at_barriers,
                  unsigned char *seen)
{
    unsigned *stack = malloc((r->num_blocks + 1) * sizeof(*stack));
    size_t n = 0;
    if (!stack)
        return false;
    memset(seen, 0, r->num_blocks);
    seen[from] = 1;
    stack[n++] = from;
    while (n) {
        unsigned v = stack[--n];
        if (!backwards && stop_at_barriers && is_barrier_block(r, v))
            continue;
        unsigned cnt = backwards ? r->num_pred[v] : r->num_succ[v];
        const unsigned *next = backwards ? r->pred[v] : r->succ[v];
        for (unsigned s = 0; s < cnt; s++) {
            if (seen[next[s]])
                continue;
            seen[next[s]] = 1;
            stack[n++] = next[s];
        }
    }
    free(stack);
    return true;
}

/* What the uses of one alloca tell. */
struct alloca_uses {
    unsigned char *blocks; /* template blocks holding a use */
    bool in_entry;         /* a use in the prologue */
    bool written_outside;  /* something outside the prologue may write through it */
    bool escapes;          /* its address is stored or leaves in a way not followed */
};

static bool is_intrinsic_call(LLVMValueRef in)
{
    LLVMValueRef f = called_function(in);
    return f && strncmp(LLVMGetValueName(f), "llvm.", 5) == 0;
}

static void collect_uses(const struct regions *r, LLVMValueRef ptr, struct alloca_uses *u,
                         unsigned depth)
{
    if (depth > 64) {
        u->escapes = true;
        return;
    }
    for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsAInstruction(user)) {
            u->escapes = true;
            continue;
        }
        LLVMBasicBlockRef bb = LLVMGetInstructionParent(user);
        bool entry = bb == r->entry;
        if (entry)
            u->in_entry = true;
        else
            u->blocks[block_index(r, bb)] = 1;
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user)) {
            if (LLVMGetOperand(user, 0) == ptr)
                u->escapes = true;
            if (!entry)
                u->written_outside = true;
            continue;
        }
        if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user) ||
            LLVMIsAAddrSpaceCastInst(user) || LLVMIsASelectInst(user) || LLVMIsAPHINode(user)) {
            collect_uses(r, user, u, depth + 1);
            continue;
        }
        if (LLVMIsACallInst(user) && is_intrinsic_call(user)) {
            const char *name = LLVMGetValueName(called_function(user));
            bool src_only =
                (strncmp(name, "llvm.memcpy", 11) == 0 || strncmp(name, "llvm.memmove", 12) == 0) &&
                LLVMGetOperand(user, 0) != ptr;
            if (!entry && !src_only && !is_lifetime_marker(user))
                u->written_outside = true;
            continue;
        }
        u->escapes = true;
        if (!entry)
            u->written_outside = true;
    }
}

/* ---- uniformity ---------------------------------------------------------------- */

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
 * (SHARED_SNAPSHOT; rebuild() copies it in and back).
 */

/* Blocks beyond which the post-dominator sets (n^2 bits) are not computed. */
#define UNIFORM_MAX_BLOCKS 8192u
#define NO_BLOCK           UINT32_MAX

/* What find_shared says of an alloca: a slot per work-item, one copy, one copy snapshotted. */
enum { PER_ITEM = 0, SHARED = 1, SHARED_SNAPSHOT = 2 };

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
        if (is_lifetime_marker(user))
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
    LLVMValueRef f = LLVMIsACallInst(v) ? called_function(v) : NULL;
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

/* Calls of intrinsics that neither read nor write memory. */
static bool pure_intrinsic(LLVMValueRef call)
{
    LLVMValueRef f = called_function(call);
    if (!f || !LLVMGetIntrinsicID(f))
        return false;
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, memory);
    return a && LLVMGetEnumAttributeValue(a) == 0;
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
        ok = pure_intrinsic(v);
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
            if (bb != r->entry && u->divergent[block_index(r, bb)])
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
            if (is_barrier_block(r, v))
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
static bool find_shared(struct regions *r, LLVMValueRef *allocas, size_t num, unsigned char *shared)
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

static int by_align_desc(const void *a, const void *b)
{
    unsigned x = LLVMGetAlignment(*(LLVMValueRef const *)a);
    unsigned y = LLVMGetAlignment(*(LLVMValueRef const *)b);
    return (x < y) - (x > y);
}

/* Decides which allocas get scratch slots, and lays the slots out. */
static enum kiln_cc_status choose_slots(struct regions *r)
{
    size_t n = r->num_blocks, cap = 16;
    unsigned nb = r->num_barriers;
    unsigned char *before = calloc((size_t)nb * n + 1, 1), *after = calloc((size_t)nb * n + 1, 1);
    struct alloca_uses u = {calloc(n + 1, 1), false, false, false};
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    struct kiln_cc_ptr_map shared = {0};
    size_t num_allocas = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in))
        num_allocas += LLVMIsAAllocaInst(in) != NULL;
    LLVMValueRef *allocas = calloc(num_allocas + 1, sizeof(*allocas));
    unsigned char *is_shared = calloc(num_allocas + 1, sizeof(*is_shared));
    r->slots = malloc(cap * sizeof(*r->slots));
    if (!before || !after || !u.blocks || !r->slots || !allocas || !is_shared)
        goto out;
    num_allocas = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in))
        if (LLVMIsAAllocaInst(in))
            allocas[num_allocas++] = in;
    if (!find_shared(r, allocas, num_allocas, is_shared))
        goto out;
    for (size_t i = 0; i < num_allocas; i++)
        if (is_shared[i] &&
            !kiln_cc_ptr_map_put(&shared, allocas[i], (void *)(uintptr_t)is_shared[i]))
            goto out;
    for (unsigned i = 0; i < nb; i++)
        if (!reach(r, r->bar_block[i], true, false, before + (size_t)i * n) ||
            !reach(r, r->bar_cont[i], false, false, after + (size_t)i * n))
            goto out;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->w); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsAAllocaInst(in))
                continue;
            if (bb != r->entry) {
                status = refuse(r, "it allocates private memory outside the entry block");
                goto out;
            }
            memset(u.blocks, 0, n);
            u.in_entry = u.written_outside = u.escapes = false;
            collect_uses(r, in, &u, 0);
            if (u.in_entry) {
                /* Set up by the prologue, only read by the work-items. */
                if (u.written_outside || u.escapes) {
                    status = refuse(r, "argument memory is written by the work-items");
                    goto out;
                }
                continue;
            }
            bool crosses = u.escapes;
            for (unsigned i = 0; i < nb && !crosses; i++) {
                bool b_use = false, a_use = false;
                for (size_t j = 0; j < n; j++) {
                    b_use |= u.blocks[j] && before[(size_t)i * n + j];
                    a_use |= u.blocks[j] && after[(size_t)i * n + j];
                }
                crosses = b_use && a_use;
            }
            /* One copy serves the group when every work-item holds the same value. */
            if (!crosses)
                continue;
            uintptr_t kind = (uintptr_t)kiln_cc_ptr_map_get(&shared, in);
            if (!u.escapes && kind == SHARED_SNAPSHOT) {
                LLVMValueRef *more = realloc(r->snaps, (r->num_snaps + 1) * sizeof(*more));
                if (!more)
                    goto out;
                r->snaps = more;
                r->snaps[r->num_snaps++] = in;
                continue;
            }
            if (!u.escapes && kind == SHARED)
                continue;
            if (r->num_slots == cap) {
                LLVMValueRef *more = realloc(r->slots, 2 * cap * sizeof(*more));
                if (!more)
                    goto out;
                r->slots = more;
                cap *= 2;
            }
            r->slots[r->num_slots++] = in;
        }

    qsort(r->slots, r->num_slots, sizeof(*r->slots), by_align_desc);
    r->slot_size = calloc(r->num_slots + 1, sizeof(size_t));
    r->slot_offset = calloc(r->num_slots + 1, sizeof(size_t));
    if (!r->slot_size || !r->slot_offset)
        goto out;
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(r->b->mod);
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef a = r->slots[s];
        unsigned align = LLVMGetAlignment(a);
        LLVMValueRef count = LLVMGetOperand(a, 0);
        if (!LLVMIsAConstantInt(count)) {
            status = refuse(r, "it keeps a variable-sized private array across a barrier");
            goto out;
        }
        if (align > KILN_SCRATCH_ALIGN) {
            status = refuse(r, "it keeps private data aligned to more than 128 bytes across a "
                               "barrier");
            goto out;
        }
        size_t size = LLVMABISizeOfType(td, LLVMGetAllocatedType(a)) *
                      (size_t)LLVMConstIntGetZExtValue(count);
        if (align == 0)
            align = 1;
        size = (size + align - 1) / align * align;
        if (size == 0)
            size = align;
        r->slot_size[s] = size;
        r->slot_offset[s] = r->per_item;
        r->per_item += size;
    }
    status = KILN_CC_OK;
out:
    free(before);
    free(after);
    free(u.blocks);
    free(allocas);
    free(is_shared);
    kiln_cc_ptr_map_free(&shared);
    return status;
}

/*
 * Whether every use of `ptr` (an alloca or an address computed from it) is a
 * load from it, a store to it, address arithmetic followed the same way, or a
 * lifetime marker: then the region clones reach its memory only through
 * pointers they can trace back to its slot.
 */
static bool only_addressed(LLVMValueRef ptr, unsigned depth)
{
    if (depth > 64)
        return false;
    for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user)) {
            if (LLVMGetOperand(user, 0) == ptr)
                return false;
            continue;
        }
        if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user)) {
            if (LLVMGetOperand(user, 0) != ptr || !only_addressed(user, depth + 1))
                return false;
            continue;
        }
        if (is_lifetime_marker(user))
            continue;
        return false;
    }
    return true;
}

static LLVMMetadataRef distinct_node(LLVMContextRef ctx, LLVMMetadataRef domain)
{
    LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, NULL, 0);
    LLVMMetadataRef ops[2] = {self, domain};
    LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, ops, domain ? 2 : 1);
    /* Makes the node refer to itself, which also makes it distinct. */
    LLVMMetadataReplaceAllUsesWith(self, node);
    return node;
}

/*
 * One alias scope per slot array, all in one domain. The slot arrays are
 * disjoint parts of ctx->scratch, which nothing outside this function can
 * reach, so an access of one slot touches no other slot, and an access that is
 * not of a slot touches none. Slots whose address may flow where the clones
 * cannot follow it get no scope and are claimed about by nobody. The work-items'
 * names of the next region, after the slots, get one more scope.
 */
static enum kiln_cc_status make_scopes(struct regions *r)
{
    size_t n = r->num_slots, num = 0;
    r->scope_list = calloc(n + 2, sizeof(*r->scope_list));
    r->noalias_but = calloc(n + 2, sizeof(*r->noalias_but));
    LLVMMetadataRef *scopes = calloc(n + 1, sizeof(*scopes));
    LLVMMetadataRef *others = calloc(n + 1, sizeof(*others));
    if (!r->scope_list || !r->noalias_but || !scopes || !others) {
        free(scopes);
        free(others);
        return KILN_CC_OUT_OF_MEMORY;
    }
    LLVMMetadataRef domain = distinct_node(r->ctx, NULL);
    for (size_t s = 0; s < n; s++)
        if (only_addressed(r->slots[s], 0))
            scopes[s] = distinct_node(r->ctx, domain);
    scopes[n] = distinct_node(r->ctx, domain); /* the names of the next regions */
    for (size_t s = 0; s <= n; s++)
        if (scopes[s])
            others[num++] = scopes[s];
    if (num) {
        r->noalias_all = LLVMMDNodeInContext2(r->ctx, others, num);
        for (size_t s = 0; s <= n; s++) {
            if (!scopes[s])
                continue;
            size_t k = 0;
            for (size_t t = 0; t <= n; t++)
                if (scopes[t] && t != s)
                    others[k++] = scopes[t];
            r->scope_list[s] = LLVMMDNodeInContext2(r->ctx, &scopes[s], 1);
            r->noalias_but[s] = k ? LLVMMDNodeInContext2(r->ctx, others, k) : NULL;
        }
    }
    free(scopes);
    free(others);
    return KILN_CC_OK;
}

/* Adds the scopes in `list` to the instruction's `kind` list (!alias.scope, !noalias). */
static void add_scopes(LLVMContextRef ctx, LLVMValueRef in, const char *kind, LLVMMetadataRef list)
{
    if (!list)
        return;
    unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
    LLVMValueRef old = LLVMGetMetadata(in, id);
    LLVMValueRef add = LLVMMetadataAsValue(ctx, list);
    if (old) {
        unsigned a = LLVMGetMDNodeNumOperands(old), b = LLVMGetMDNodeNumOperands(add);
        LLVMValueRef *vals = calloc((size_t)a + b + 1, sizeof(*vals));
        LLVMMetadataRef *ops = calloc((size_t)a + b + 1, sizeof(*ops));
        if (!vals || !ops) {
            /* Leaving the claim out is always correct. */
            free(vals);
            free(ops);
            return;
        }
        LLVMGetMDNodeOperands(old, vals);
        LLVMGetMDNodeOperands(add, vals + a);
        for (unsigned i = 0; i < a + b; i++)
            ops[i] = LLVMValueAsMetadata(vals[i]);
        add = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, a + b));
        free(vals);
        free(ops);
    }
    LLVMSetMetadata(in, id, add);
}

/* The `slot` argument of tag_access for the work-items' names of the next region. */
#define NAMES_SLOT(r) ((r)->num_slots + 1)

/* Tags a load or store: of slot `slot` (0 when none; else the slot's index + 1). */
static void tag_access(const struct regions *r, LLVMValueRef in, size_t slot)
{
    if (!r->noalias_all || LLVMGetVolatile(in))
        return;
    if (!slot) {
        add_scopes(r->ctx, in, "noalias", r->noalias_all);
    } else if (r->scope_list[slot - 1]) {
        add_scopes(r->ctx, in, "alias.scope", r->scope_list[slot - 1]);
        add_scopes(r->ctx, in, "noalias", r->noalias_but[slot - 1]);
    } else {
        /* Another array: none of the scoped slots. */
        add_scopes(r->ctx, in, "noalias", r->noalias_all);
    }
}

/* The loop nest of one region, and what its clone needs. */
struct region_loop {
    LLVMBasicBlockRef pre, body, latch;
    LLVMValueRef lid[3];
    LLVMValueRef next_slot;  /* this work-item's slot naming the next region */
    LLVMValueRef leader;     /* what __kiln_group_leader() answers in this clone */
    LLVMValueRef skip;       /* i1: the leader, already run before the loop; or NULL */
    LLVMValueRef *snap_vals; /* r->snaps' values when the region began */
    bool dynamic;
};

static LLVMValueRef local_id(LLVMBuilderRef bld, LLVMContextRef ctx, const LLVMValueRef lid[3],
                             LLVMValueRef dim)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    if (LLVMIsAConstantInt(dim)) {
        unsigned long long d = LLVMConstIntGetZExtValue(dim);
        return d < 3 ? lid[d] : LLVMConstInt(i64, 0, 0);
    }
    LLVMValueRef v = LLVMConstInt(i64, 0, 0);
    for (int d = 2; d >= 0; d--) {
        LLVMValueRef is_d =
            LLVMBuildICmp(bld, LLVMIntEQ, dim, LLVMConstInt(LLVMTypeOf(dim), (unsigned)d, 0), "");
        v = LLVMBuildSelect(bld, is_d, lid[d], v, "");
    }
    return v;
}

/* Leaves the clone of a region for the next work-item, naming region `target`. */
static void leave(struct regions *r, LLVMBuilderRef bld, const struct region_loop *loop,
                  unsigned target)
{
    if (loop->dynamic) {
        LLVMValueRef st = LLVMBuildStore(
            bld, LLVMConstInt(LLVMInt32TypeInContext(r->ctx), target, 0), loop->next_slot);
        LLVMSetAlignment(st, 4);
        LLVMSetMetadata(st, LLVMGetMDKindIDInContext(r->ctx, "llvm.access.group", 17),
                        LLVMMetadataAsValue(r->ctx, r->group));
        tag_access(r, st, NAMES_SLOT(r));
    }
    LLVMBuildBr(bld, loop->latch);
}

static unsigned barrier_of_block(const struct regions *r, unsigned blk)
{
    for (unsigned i = 0; i < r->num_barriers; i++)
        if (r->bar_block[i] == blk)
            return i;
    return 0;
}

/* Clones the blocks of region `reg` (marked in `in_region`) into its loop body. */
static enum kiln_cc_status clone_region(struct regions *r, unsigned reg,
                                        const unsigned char *in_region,
                                        const struct region_loop *loop, LLVMValueRef *slot_ptr)
{
    struct kiln_cc_ptr_map map = {0}, derived = {0};
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(r->ctx);
    unsigned ag_kind = LLVMGetMDKindIDInContext(r->ctx, "llvm.access.group", 17);
    LLVMValueRef tag = LLVMMetadataAsValue(r->ctx, r->group);
    LLVMValueRef hook_lid = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LOCAL_ID);
    LLVMValueRef hook_ctx = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_CTX);
    LLVMValueRef hook_leader = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LEADER);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    unsigned done = r->num_barriers + 1;

    for (size_t s = 0; s < r->num_slots; s++)
        if (!kiln_cc_ptr_map_put(&map, r->slots[s], slot_ptr[s]) ||
            !kiln_cc_ptr_map_put(&derived, slot_ptr[s], (void *)(uintptr_t)(s + 1)))
            goto out;
    for (size_t s = 0; s < r->num_snaps; s++)
        if (!kiln_cc_ptr_map_put(&map, r->snaps[s], r->snap_copy[s]))
            goto out;
    for (size_t i = 0; i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        LLVMBasicBlockRef nb = LLVMInsertBasicBlockInContext(r->ctx, loop->latch, "");
        if (!kiln_cc_ptr_map_put(&map, r->blocks[i], nb))
            goto out;
    }
    LLVMPositionBuilderAtEnd(bld, loop->body);
    for (size_t s = 0; s < r->num_snaps; s++)
        LLVMBuildStore(bld, loop->snap_vals[s], r->snap_copy[s]);
    LLVMBasicBlockRef start = kiln_cc_ptr_map_get(&map, r->blocks[r->region_start[reg]]);
    if (loop->skip)
        LLVMBuildCondBr(bld, loop->skip, loop->latch, start);
    else
        LLVMBuildBr(bld, start);

    for (size_t i = 0; i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        LLVMPositionBuilderAtEnd(bld, kiln_cc_ptr_map_get(&map, r->blocks[i]));
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in)) {
            LLVMValueRef f = called_function(in);
            if (f && kiln_cc_is_barrier(f)) {
                leave(r, bld, loop, barrier_of_block(r, (unsigned)i) + 1);
                break;
            }
            if (LLVMGetInstructionOpcode(in) == LLVMRet) {
                leave(r, bld, loop, done);
                break;
            }
            if (f && f == hook_lid) {
                LLVMValueRef dim = LLVMGetOperand(in, 0);
                LLVMValueRef m = kiln_cc_ptr_map_get(&map, dim);
                if (!kiln_cc_ptr_map_put(&map, in, local_id(bld, r->ctx, loop->lid, m ? m : dim)))
                    goto out;
                continue;
            }
            if (f && f == hook_leader) {
                if (!kiln_cc_ptr_map_put(&map, in, loop->leader))
                    goto out;
                continue;
            }
            if (f && f == hook_ctx) {
                LLVMValueRef c = LLVMGetParam(r->w, 1);
                if (LLVMTypeOf(c) != LLVMTypeOf(in))
                    c = LLVMBuildAddrSpaceCast(bld, c, LLVMTypeOf(in), "");
                if (!kiln_cc_ptr_map_put(&map, in, c))
                    goto out;
                continue;
            }
            if (is_lifetime_marker(in) || (f && strncmp(LLVMGetValueName(f), "llvm.dbg.", 9) == 0))
                continue;
            LLVMValueRef c = LLVMInstructionClone(in);
            LLVMInsertIntoBuilder(bld, c);
            int nops = LLVMGetNumOperands(c);
            for (int j = 0; j < nops; j++) {
                LLVMValueRef op = LLVMGetOperand(c, (unsigned)j);
                if (!op)
                    continue;
                if (LLVMValueIsBasicBlock(op)) {
                    LLVMBasicBlockRef to = kiln_cc_ptr_map_get(&map, LLVMValueAsBasicBlock(op));
                    if (to)
                        LLVMSetOperand(c, (unsigned)j, LLVMBasicBlockAsValue(to));
                    continue;
                }
                LLVMValueRef to = kiln_cc_ptr_map_get(&map, op);
                if (to)
                    LLVMSetOperand(c, (unsigned)j, to);
            }
            if (!kiln_cc_ptr_map_put(&map, in, c))
                goto out;
            /* Accesses of this work-item's own slots join the parallel access group. */
            if (LLVMIsAGetElementPtrInst(c) || LLVMIsABitCastInst(c)) {
                void *slot = kiln_cc_ptr_map_get(&derived, LLVMGetOperand(c, 0));
                if (slot && !kiln_cc_ptr_map_put(&derived, c, slot))
                    goto out;
            } else if (LLVMIsALoadInst(c) || LLVMIsAStoreInst(c)) {
                LLVMValueRef p = LLVMGetOperand(c, LLVMIsALoadInst(c) ? 0 : 1);
                size_t slot = (size_t)(uintptr_t)kiln_cc_ptr_map_get(&derived, p);
                if (slot && !LLVMGetVolatile(c) &&
                    LLVMGetOrdering(c) == LLVMAtomicOrderingNotAtomic)
                    LLVMSetMetadata(c, ag_kind, tag);
                tag_access(r, c, slot);
            }
        }
    }
    status = KILN_CC_OK;
out:
    LLVMDisposeBuilder(bld);
    kiln_cc_ptr_map_free(&map);
    kiln_cc_ptr_map_free(&derived);
    return status;
}

/* Whether a block of the region (marked in `in_region`) calls __kiln_group_leader(). */
static bool asks_leader(const struct regions *r, const unsigned char *in_region)
{
    LLVMValueRef hook = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LEADER);
    for (size_t i = 0; hook && i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            if (called_function(in) == hook)
                return true;
    }
    return false;
}

/* Builds the loop nests, the dispatcher and the clones, then drops the template. */
static enum kiln_cc_status rebuild(struct regions *r, struct kiln_cc_kernel *info)
{
    LLVMContextRef ctx = r->ctx;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
    unsigned nr = r->num_barriers + 1, done = nr;
    size_t n = r->num_blocks;
    struct region_loop *loops = calloc(nr, sizeof(*loops));
    unsigned char *in_region = calloc(n + 1, 1);
    LLVMValueRef *bases = calloc(r->num_slots + 1, sizeof(*bases));
    LLVMValueRef *slot_ptr = calloc(r->num_slots + 1, sizeof(*slot_ptr));
    unsigned *exit_to = calloc(nr, sizeof(*exit_to));
    LLVMValueRef *snap_vals = calloc((size_t)nr * r->num_snaps + 1, sizeof(*snap_vals));
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    r->snap_copy = calloc(r->num_snaps + 1, sizeof(*r->snap_copy));
    if (!loops || !in_region || !bases || !slot_ptr || !exit_to || !snap_vals || !r->snap_copy)
        goto out;
    LLVMValueRef wctx = LLVMGetParam(r->w, 1);

    /* The prologue, once per group: sizes, scratch bases, the snapshots' stand-ins. */
    LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(r->entry));
    LLVMPositionBuilderAtEnd(bld, r->entry);
    for (size_t s = 0; s < r->num_snaps; s++) {
        r->snap_copy[s] = LLVMBuildAlloca(bld, LLVMGetAllocatedType(r->snaps[s]), "");
        LLVMSetAlignment(r->snap_copy[s], LLVMGetAlignment(r->snaps[s]));
    }
    LLVMPositionBuilderAtEnd(bld, r->entry);
    LLVMValueRef size[3];
    for (int d = 0; d < 3; d++)
        size[d] = kiln_cc_local_size(r->b, info, bld, wctx, d);
    LLVMValueRef items = LLVMBuildMul(bld, LLVMBuildMul(bld, size[0], size[1], ""), size[2], "");
    LLVMValueRef scratch =
        kiln_cc_ctx_field(bld, ctx, wctx, offsetof(struct kiln_wg_ctx, scratch), ptr, "");
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef off = LLVMBuildMul(bld, items, LLVMConstInt(i64, r->slot_offset[s], 0), "");
        bases[s] = LLVMBuildInBoundsGEP2(bld, i8, scratch, &off, 1, "slots");
    }
    /* After the slots, an i32 per work-item: the region it goes to next. */
    size_t next_offset = (r->per_item + 3) / 4 * 4;
    LLVMValueRef next_off = LLVMBuildMul(bld, items, LLVMConstInt(i64, next_offset, 0), "");
    LLVMValueRef next_base = LLVMBuildInBoundsGEP2(bld, i8, scratch, &next_off, 1, "next");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, r->w, "exit");
    LLVMBasicBlockRef dispatch = LLVMAppendBasicBlockInContext(ctx, r->w, "dispatch");

    for (unsigned g = 0; g < nr; g++) {
        if (!reach(r, r->region_start[g], false, true, in_region))
            goto out;
        /* Where this region can go: one target, or several. */
        unsigned target = UINT32_MAX;
        bool dynamic = false;
        for (size_t i = 0; i < n; i++) {
            if (!in_region[i])
                continue;
            unsigned t;
            if (is_barrier_block(r, (unsigned)i))
                t = barrier_of_block(r, (unsigned)i) + 1;
            else if (LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet)
                t = done;
            else
                continue;
            if (target != UINT32_MAX && target != t)
                dynamic = true;
            target = t;
        }
        /* Every work-item leaves the same way: one name for the group, not one each. */
        bool one_name = r->divergent != NULL;
        for (size_t i = 0; i < n && dynamic; i++)
            if (in_region[i] && r->divergent[i] &&
                (is_barrier_block(r, (unsigned)i) ||
                 LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet))
                one_name = false;
        struct region_loop *lp = &loops[g];
        lp->dynamic = dynamic;
        lp->leader = LLVMConstInt(i32, 0, 0);
        lp->skip = NULL;
        bool leader_first = asks_leader(r, in_region);
        exit_to[g] = dynamic ? UINT32_MAX : (target == UINT32_MAX ? done : target);

        /* z/y/x nest over this group's local size. */
        static const char *const hdr_names[3] = {"x.loop", "y.loop", "z.loop"};
        static const char *const latch_names[3] = {"x.latch", "y.latch", "z.latch"};
        LLVMBasicBlockRef hdr[3], latch[3];
        lp->pre = LLVMInsertBasicBlockInContext(ctx, dispatch, "region");
        for (int d = 2; d >= 0; d--)
            hdr[d] = LLVMInsertBasicBlockInContext(ctx, dispatch, hdr_names[d]);
        for (int d = 0; d < 3; d++)
            latch[d] = LLVMInsertBasicBlockInContext(ctx, dispatch, latch_names[d]);
        LLVMBasicBlockRef after = LLVMInsertBasicBlockInContext(ctx, dispatch, "region.end");
        lp->body = hdr[0];
        lp->latch = latch[0];
        LLVMPositionBuilderAtEnd(bld, lp->pre);
        LLVMBuildBr(bld, hdr[2]);
        LLVMBasicBlockRef from = lp->pre;
        for (int d = 2; d >= 0; d--) {
            LLVMPositionBuilderAtEnd(bld, hdr[d]);
            lp->lid[d] = LLVMBuildPhi(bld, i64, hdr_names[d]);
            LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
            LLVMAddIncoming(lp->lid[d], &zero, &from, 1);
            if (d > 0)
                LLVMBuildBr(bld, hdr[d - 1]);
            from = hdr[d];
        }
        /* In x.loop: this work-item's slots. */
        LLVMValueRef wi = LLVMBuildAdd(
            bld,
            LLVMBuildMul(
                bld, LLVMBuildAdd(bld, LLVMBuildMul(bld, lp->lid[2], size[1], ""), lp->lid[1], ""),
                size[0], ""),
            lp->lid[0], "wi");
        for (size_t s = 0; s < r->num_slots; s++) {
            LLVMValueRef off = LLVMBuildMul(bld, wi, LLVMConstInt(i64, r->slot_size[s], 0), "");
            slot_ptr[s] = LLVMBuildInBoundsGEP2(bld, i8, bases[s], &off, 1, "slot");
        }
        if (dynamic)
            lp->next_slot = one_name
                                ? next_base
                                : LLVMBuildInBoundsGEP2(bld, i32, next_base, &wi, 1, "next.slot");
        if (leader_first)
            lp->skip = LLVMBuildICmp(bld, LLVMIntEQ, wi, LLVMConstInt(i64, 0, 0), "led");
        for (int d = 0; d < 3; d++) {
            LLVMPositionBuilderAtEnd(bld, latch[d]);
            LLVMValueRef step = LLVMBuildNUWAdd(bld, lp->lid[d], LLVMConstInt(i64, 1, 0), "");
            LLVMValueRef more = LLVMBuildICmp(bld, LLVMIntULT, step, size[d], "");
            LLVMValueRef br = LLVMBuildCondBr(bld, more, hdr[d], d == 2 ? after : latch[d + 1]);
            LLVMAddIncoming(lp->lid[d], &step, &latch[d], 1);
            if (d == 0)
                LLVMSetMetadata(br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9),
                                LLVMMetadataAsValue(ctx, kiln_cc_parallel_loop_id(ctx, r->group)));
        }
        LLVMBasicBlockRef entry = lp->pre;
        if (r->num_snaps) {
            /* The snapshots' values as the region begins, before any work-item's turn. */
            entry = LLVMInsertBasicBlockInContext(ctx, lp->pre, "snapshot");
            LLVMPositionBuilderAtEnd(bld, entry);
            lp->snap_vals = snap_vals + (size_t)g * r->num_snaps;
            for (size_t s = 0; s < r->num_snaps; s++) {
                LLVMValueRef v =
                    LLVMBuildLoad2(bld, LLVMGetAllocatedType(r->snaps[s]), r->snaps[s], "");
                LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
                lp->snap_vals[s] = v;
            }
        }
        LLVMBasicBlockRef first = lp->pre; /* where the snapshot block goes on */
        if (leader_first) {
            /*
             * The leader's turn, straight-line, before the loop, which skips it: the loop's
             * clone sees __kiln_group_leader() as 0, so code only the leader runs leaves
             * the loop, and a loop with nothing left is deleted by O3.
             */
            struct region_loop lead = *lp;
            lead.body = LLVMInsertBasicBlockInContext(ctx, lp->pre, "leader");
            lead.latch = LLVMInsertBasicBlockInContext(ctx, lp->pre, "leader.end");
            for (int d = 0; d < 3; d++)
                lead.lid[d] = LLVMConstInt(i64, 0, 0);
            lead.next_slot = next_base;
            lead.leader = LLVMConstInt(i32, 1, 0);
            lead.skip = NULL;
            LLVMPositionBuilderAtEnd(bld, lead.latch);
            LLVMBuildBr(bld, lp->pre);
            status = clone_region(r, g, in_region, &lead, bases);
            if (status != KILN_CC_OK)
                goto out;
            first = lead.body;
        }
        if (r->num_snaps) {
            LLVMPositionBuilderAtEnd(bld, entry);
            LLVMBuildBr(bld, first);
        } else {
            entry = first;
        }
        status = clone_region(r, g, in_region, lp, slot_ptr);
        if (status != KILN_CC_OK)
            goto out;
        /* Every work-item ends the region with the same values: write them back. */
        LLVMPositionBuilderAtEnd(bld, after);
        for (size_t s = 0; s < r->num_snaps; s++) {
            LLVMTypeRef t = LLVMGetAllocatedType(r->snaps[s]);
            LLVMValueRef v = LLVMBuildLoad2(bld, t, r->snap_copy[s], "");
            LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
            LLVMSetAlignment(LLVMBuildStore(bld, v, r->snaps[s]), LLVMGetAlignment(r->snaps[s]));
        }
        status = KILN_CC_OUT_OF_MEMORY;
        loops[g].pre = entry;
        /* region.end's branch is added below, once every region's entry exists. */
        loops[g].body = after;
    }

    /* Prologue -> region 0 (or nothing for an empty group); region ends; dispatcher. */
    LLVMPositionBuilderAtEnd(bld, r->entry);
    LLVMValueRef empty = LLVMBuildICmp(bld, LLVMIntEQ, items, LLVMConstInt(i64, 0, 0), "");
    LLVMBuildCondBr(bld, empty, exit, loops[0].pre);
    for (unsigned g = 0; g < nr; g++) {
        LLVMPositionBuilderAtEnd(bld, loops[g].body);
        if (exit_to[g] == UINT32_MAX)
            LLVMBuildBr(bld, dispatch);
        else
            LLVMBuildBr(bld, exit_to[g] == done ? exit : loops[exit_to[g]].pre);
    }
    LLVMPositionBuilderAtEnd(bld, dispatch);
    /* Every work-item named the same region: read work-item 0's. */
    LLVMValueRef next = LLVMBuildLoad2(bld, i32, next_base, "next");
    LLVMSetAlignment(next, 4);
    tag_access(r, next, NAMES_SLOT(r));
    LLVMValueRef sw = LLVMBuildSwitch(bld, next, exit, nr);
    for (unsigned g = 1; g < nr; g++)
        LLVMAddCase(sw, LLVMConstInt(i32, g, 0), loops[g].pre);
    LLVMPositionBuilderAtEnd(bld, exit);
    LLVMBuildRetVoid(bld);

    /* Drop the template; nothing outside it may still use its values. */
    for (size_t i = 0; i < n; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef user = LLVMGetUser(u);
                if (!LLVMIsAInstruction(user) || !is_template(r, LLVMGetInstructionParent(user))) {
                    status = refuse(r, "a value crosses blocks outside memory (internal error)");
                    goto out;
                }
            }
    for (size_t i = 0; i < n; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind)
                LLVMReplaceAllUsesWith(in, LLVMGetPoison(LLVMTypeOf(in)));
    for (size_t i = 0; i < n; i++) {
        LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]);
        while (in) {
            LLVMValueRef next_in = LLVMGetNextInstruction(in);
            LLVMInstructionEraseFromParent(in);
            in = next_in;
        }
    }
    for (size_t i = 0; i < n; i++)
        LLVMDeleteBasicBlock(r->blocks[i]);
    for (size_t s = 0; s < r->num_slots; s++) {
        /* Lifetime markers in the prologue are all that can be left. */
        LLVMUseRef u;
        while ((u = LLVMGetFirstUse(r->slots[s])))
            LLVMInstructionEraseFromParent(LLVMGetUser(u));
        LLVMInstructionEraseFromParent(r->slots[s]);
    }
    info->scratch_fixed = 0;
    info->scratch_per_item = next_offset + 4;
    if (r->per_item > info->private_mem)
        info->private_mem = r->per_item;
    status = KILN_CC_OK;
out:
    LLVMDisposeBuilder(bld);
    free(loops);
    free(in_region);
    free(bases);
    free(slot_ptr);
    free(exit_to);
    free(snap_vals);
    return status;
}

static enum kiln_cc_status transform(struct kiln_cc_build *b, unsigned k, LLVMMetadataRef group)
{
    struct regions r = {0};
    r.b = b;
    r.ctx = b->ctx;
    r.w = b->wrappers[k];
    r.kernel = b->prog->kernels[k].name;
    r.group = group;
    enum kiln_cc_status status = build_graph(&r);
    if (status == KILN_CC_OK)
        status = choose_slots(&r);
    if (status == KILN_CC_OK)
        status = make_scopes(&r);
    if (status == KILN_CC_OK)
        status = rebuild(&r, &b->prog->kernels[k]);
    regions_free(&r);
    return status;
}

/*
 * Recomputing work-item ids. A value computed from the local ids, ctx fields, the
 * arguments and the prologue alone (get_local_id, get_global_id, an index built from
 * them) is as cheap to compute again as to keep: kept across a barrier it would take a
 * slot per work-item, a store in one region and a load in the next. So, before reg2mem,
 * each use of such a value in another block gets its own copy of the computation, and
 * the value no longer crosses a barrier. Copies within one region are merged again by O3.
 */

/* At most this many instructions copied per use. */
#define REMAT_BUDGET 24

struct remat {
    LLVMValueRef w, hook_lid, hook_ctx;
    LLVMBasicBlockRef entry;
};

/* The object under a chain of address arithmetic and casts. */
static LLVMValueRef pointer_base(LLVMValueRef p)
{
    for (unsigned i = 0; i < 16; i++) {
        if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
            (LLVMIsAConstantExpr(p) && LLVMGetNumOperands(p) > 0 &&
             (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
              LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)))
            p = LLVMGetOperand(p, 0);
        else
            break;
    }
    return p;
}

/*
 * Whether `v` can be computed again anywhere: constants, parameters and prologue values
 * are leaves; __kiln_local_id(constant), __kiln_ctx(), loads of ctx fields or of the
 * argument array, and plain operations on such values are copied (*budget of them).
 */
static bool recomputable(const struct remat *m, LLVMValueRef v, unsigned *budget)
{
    if (!LLVMIsAInstruction(v))
        return LLVMIsAConstant(v) || LLVMIsAArgument(v);
    if (LLVMGetInstructionParent(v) == m->entry)
        return true;
    if (*budget == 0)
        return false;
    --*budget;
    LLVMValueRef f = called_function(v);
    if (f)
        return (f == m->hook_lid && LLVMIsAConstantInt(LLVMGetOperand(v, 0))) || f == m->hook_ctx;
    if (LLVMIsALoadInst(v)) {
        if (LLVMGetVolatile(v) || LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
            return false;
        LLVMValueRef base = pointer_base(LLVMGetOperand(v, 0));
        bool ctx_or_args = base == LLVMGetParam(m->w, 0) || base == LLVMGetParam(m->w, 1) ||
                           (called_function(base) && called_function(base) == m->hook_ctx);
        return ctx_or_args && recomputable(m, LLVMGetOperand(v, 0), budget);
    }
    if (!kiln_cc_plain_opcode(LLVMGetInstructionOpcode(v)) || LLVMIsAPHINode(v))
        return false;
    int n = LLVMGetNumOperands(v);
    for (int i = 0; i < n; i++)
        if (!recomputable(m, LLVMGetOperand(v, (unsigned)i), budget))
            return false;
    return true;
}

/* A copy of the computation of `v` before `at`; leaves are used as they are. */
static LLVMValueRef recompute(const struct remat *m, LLVMBuilderRef bld, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) == m->entry)
        return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    int n = LLVMGetNumOperands(c);
    for (int i = 0; i < n; i++) {
        LLVMValueRef op = LLVMGetOperand(c, (unsigned)i);
        if (op && !LLVMIsAFunction(op) && !LLVMValueIsBasicBlock(op))
            LLVMSetOperand(c, (unsigned)i, recompute(m, bld, op));
    }
    LLVMInsertIntoBuilder(bld, c);
    return c;
}

/* Whether a barrier call lies between `def` and `user`, two instructions of one block. */
static bool barrier_between(LLVMValueRef def, LLVMValueRef user)
{
    for (LLVMValueRef in = LLVMGetNextInstruction(def); in && in != user;
         in = LLVMGetNextInstruction(in))
        if (is_barrier_call(in))
            return true;
    return false;
}

/*
 * Gives each use of `in` (defined in `bb`) in another block, or past a barrier in `bb`, its
 * own copy; a phi gets one at the end of each other incoming block.
 */
static void remat_uses(const struct remat *m, LLVMBuilderRef bld, LLVMValueRef in,
                       LLVMBasicBlockRef bb)
{
    /* The users first: replacing operands unlinks uses from the list being walked. */
    size_t n = 0, cap = 0;
    LLVMValueRef *users = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (n && users[n - 1] == user)
            continue;
        if (n == cap) {
            LLVMValueRef *more = realloc(users, (cap ? 2 * cap : 8) * sizeof(*users));
            if (!more)
                break; /* the uses left out keep the value: slower, not wrong */
            users = more;
            cap = cap ? 2 * cap : 8;
        }
        users[n++] = user;
    }
    for (size_t k = 0; k < n; k++) {
        LLVMValueRef user = users[k];
        if (!LLVMIsAInstruction(user))
            continue;
        if (LLVMIsAPHINode(user)) {
            for (unsigned i = 0; i < LLVMCountIncoming(user); i++) {
                LLVMBasicBlockRef from = LLVMGetIncomingBlock(user, i);
                if (LLVMGetIncomingValue(user, i) != in || from == bb)
                    continue;
                LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(from));
                LLVMSetOperand(user, i, recompute(m, bld, in));
            }
        } else if (LLVMGetInstructionParent(user) != bb || barrier_between(in, user)) {
            LLVMPositionBuilderBefore(bld, user);
            LLVMValueRef copy = recompute(m, bld, in);
            for (unsigned i = 0, ops = (unsigned)LLVMGetNumOperands(user); i < ops; i++)
                if (LLVMGetOperand(user, i) == in)
                    LLVMSetOperand(user, i, copy);
        }
    }
    free(users);
}

static void rematerialize_ids(struct kiln_cc_build *b, LLVMValueRef w)
{
    struct remat m = {
        .w = w,
        .hook_lid = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_LOCAL_ID),
        .hook_ctx = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_CTX),
        .entry = LLVMGetEntryBasicBlock(w),
    };
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(m.entry); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            unsigned budget = REMAT_BUDGET;
            if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind &&
                recomputable(&m, in, &budget))
                remat_uses(&m, bld, in, bb);
        }
    }
    LLVMDisposeBuilder(bld);
}

/* Runs `passes` on the flat wrappers only: the others are optnone meanwhile. */
static enum kiln_cc_status run_on_flat(struct kiln_cc_build *b, const bool *flat,
                                       const char *passes)
{
    return kiln_cc_run_on(b, b->wrappers, flat, b->prog->num_kernels, passes);
}

enum kiln_cc_status kiln_cc_regions_build(struct kiln_cc_build *b, const bool *flat,
                                          LLVMMetadataRef const *groups)
{
    /* Cloned debug locations would point into functions that no longer exist. */
    LLVMStripModuleDebugInfo(b->mod);
    /*
     * Clang's locals are allocas until promoted: promote first, so that only
     * values really crossing a block boundary come back as allocas.
     */
    enum kiln_cc_status status =
        run_on_flat(b, flat, "function(sroa<preserve-cfg>,sccp,instsimplify)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k]) {
            kiln_cc_named_spaces(b->ctx, b->wrappers[k]);
            rematerialize_ids(b, b->wrappers[k]);
        }
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            split_at_barriers(b->ctx, b->wrappers[k]);
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            status = transform(b, k, groups[k]);
    return status;
}
