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
#include "wg_regions.h"

#include <llvm-c/DebugInfo.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

unsigned kiln_cc_regions_block_index(const struct regions *r, LLVMBasicBlockRef bb)
{
    return (unsigned)(uintptr_t)kiln_cc_ptr_map_get(&r->index, bb) - 1;
}

bool kiln_cc_regions_is_template(const struct regions *r, LLVMBasicBlockRef bb)
{
    return kiln_cc_ptr_map_get(&r->index, bb) != NULL;
}

void kiln_cc_regions_free(struct regions *r)
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

enum kiln_cc_status kiln_cc_regions_refuse(struct regions *r, const char *why)
{
    kiln_cc_log_printf(r->b->log, "error: kernel '%s' calls barrier() but %s\n", r->kernel, why);
    r->b->regions_refused = true;
    return KILN_CC_BUILD_FAILED;
}

/* Blocks, their edges and the barriers. */
enum kiln_cc_status kiln_cc_regions_graph(struct regions *r)
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
        if (kiln_cc_is_barrier_call(in))
            return kiln_cc_regions_refuse(r, "a barrier sits in the argument prologue");
    LLVMValueRef et = LLVMGetBasicBlockTerminator(r->entry);
    if (!et || LLVMGetNumSuccessors(et) != 1 ||
        !kiln_cc_regions_is_template(r, LLVMGetSuccessor(et, 0)))
        return kiln_cc_regions_refuse(r, "its work-group function has an unexpected entry block");
    r->region_start[0] = kiln_cc_regions_block_index(r, LLVMGetSuccessor(et, 0));

    for (i = 0; i < n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[i]);
        if (!t)
            return kiln_cc_regions_refuse(r, "a block has no terminator");
        unsigned ns = LLVMGetNumSuccessors(t);
        r->succ[i] = calloc(ns ? ns : 1, sizeof(unsigned));
        if (!r->succ[i])
            return KILN_CC_OUT_OF_MEMORY;
        for (unsigned s = 0; s < ns; s++) {
            LLVMBasicBlockRef sb = LLVMGetSuccessor(t, s);
            if (!kiln_cc_regions_is_template(r, sb))
                return kiln_cc_regions_refuse(r, "a branch leads back into the argument prologue");
            r->succ[i][r->num_succ[i]++] = kiln_cc_regions_block_index(r, sb);
        }
        LLVMValueRef last = LLVMGetPreviousInstruction(t);
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in)) {
            if (!kiln_cc_is_barrier_call(in))
                continue;
            if (in != last || ns != 1 || LLVMGetInstructionOpcode(t) != LLVMBr)
                return kiln_cc_regions_refuse(
                    r, "a barrier could not be split from the code after it");
            if (r->num_barriers == MAX_BARRIERS)
                return kiln_cc_regions_refuse(
                    r, "it has more barrier calls than the transform handles (256)");
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

bool kiln_cc_regions_is_barrier_block(const struct regions *r, unsigned blk)
{
    for (unsigned i = 0; i < r->num_barriers; i++)
        if (r->bar_block[i] == blk)
            return true;
    return false;
}

unsigned kiln_cc_regions_barrier_of_block(const struct regions *r, unsigned blk)
{
    for (unsigned i = 0; i < r->num_barriers; i++)
        if (r->bar_block[i] == blk)
            return i;
    return 0;
}

/*
 * Marks in `seen` every block reachable from `from` along successors (or
 * predecessors with `backwards`); with `stop_at_barriers`, a barrier block is
 * reached but not left.
 */
bool kiln_cc_regions_reach(const struct regions *r, unsigned from, bool backwards,
                           bool stop_at_barriers, unsigned char *seen)
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
        if (!backwards && stop_at_barriers && kiln_cc_regions_is_barrier_block(r, v))
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

static bool is_intrinsic_call(LLVMValueRef in)
{
    LLVMValueRef f = kiln_cc_called_function(in);
    return f && strncmp(LLVMGetValueName(f), "llvm.", 5) == 0;
}

void kiln_cc_regions_collect_uses(const struct regions *r, LLVMValueRef ptr, struct alloca_uses *u,
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
            u->blocks[kiln_cc_regions_block_index(r, bb)] = 1;
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
            kiln_cc_regions_collect_uses(r, user, u, depth + 1);
            continue;
        }
        if (LLVMIsACallInst(user) && is_intrinsic_call(user)) {
            const char *name = LLVMGetValueName(kiln_cc_called_function(user));
            bool src_only =
                (strncmp(name, "llvm.memcpy", 11) == 0 || strncmp(name, "llvm.memmove", 12) == 0) &&
                LLVMGetOperand(user, 0) != ptr;
            if (!entry && !src_only && !kiln_cc_is_lifetime_marker(user))
                u->written_outside = true;
            continue;
        }
        u->escapes = true;
        if (!entry)
            u->written_outside = true;
    }
}

static enum kiln_cc_status transform(struct kiln_cc_build *b, unsigned k, LLVMMetadataRef group)
{
    struct regions r = {0};
    r.b = b;
    r.ctx = b->ctx;
    r.w = b->wrappers[k];
    r.kernel = b->prog->kernels[k].name;
    r.group = group;
    enum kiln_cc_status status = kiln_cc_regions_graph(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_choose_slots(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_make_scopes(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_rebuild(&r, &b->prog->kernels[k]);
    kiln_cc_regions_free(&r);
    return status;
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
            kiln_cc_regions_remat_ids(b, b->wrappers[k]);
        }
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            kiln_cc_barriers_split(b->ctx, b->wrappers[k]);
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            status = transform(b, k, groups[k]);
    return status;
}
