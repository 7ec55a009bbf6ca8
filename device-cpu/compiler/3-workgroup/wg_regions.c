/*
 * The region transform's graph (wg_transform.c tells the whole transform): the blocks
 * of a flat wrapper cut at its barriers, which block starts which region, which
 * blocks end in a barrier and which reach which, and the uses of an alloca that the
 * slot choice (wg_slots.c) reads. Every other file of the transform builds on these.
 */
#include "wg_regions.h"

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
