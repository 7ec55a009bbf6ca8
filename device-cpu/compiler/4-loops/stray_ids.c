/*
 * Work-item loop ids that LLVM moved onto loops that are not work-item loops.
 *
 * The region transform tags each work-item loop's latch with a loop id that holds
 * llvm.loop.parallel_accesses over the kernel's access group: its iterations (the
 * work-items) touch shared memory independently. The first half of O3 can move that id
 * onto the loop around it. In a barrier kernel the loop that runs the regions again (a
 * tree reduction's `for (s = n / 2; s > 0; s /= 2) { ...; barrier(); }`) jumps straight
 * back to the work-item loop's header once the empty blocks between are folded; the two
 * loops then share a header, LoopSimplify gives the outer one a latch of its own, and
 * LoopRotate leaves the inner loop's id on it. That outer loop's iterations are the
 * kernel's steps, which depend on each other through local memory. Tagged parallel, it
 * would be wrong for LLVM's vectoriser to widen it; Kiln's own loop passes would take it
 * for a work-item loop: outer_vec.c picked the tree's step loop for the outer-loop
 * vectoriser, which failed on it and, because LLVM leaves the loops inside a loop chosen
 * that way alone, kept the work-item loops of every step but the first scalar.
 *
 * The id can move inwards too: in a kernel whose work-item runs a loop of its own (no
 * barrier), the inner loop can come out of the first half carrying the work-item loop's id
 * as well.
 *
 * So, right after the first half of O3 and before Kiln's loop passes, a loop loses
 * parallel_accesses (and keeps the rest of its id) when
 *
 *  - its header does not count by one (no phi that adds 1 to itself on the way round, as a
 *    work-item's index does); or
 *  - it is nested with another loop tagged with the same access group (one inside the
 *    other), that loop counts the group and it does not. A loop counts the group when its
 *    counter runs up to a constant of at most the largest group or to a local size read
 *    from the work-group context (kiln_cc_small_count), as the transform's loops do.
 *
 * Where two nested loops both count the group, or neither does, both keep their ids: the
 * pass cannot tell them apart, and that is how they were before it.
 */
#include "loops.h"

#include <stdlib.h>

/* A tagged latch and its loop. */
struct tagged {
    LLVMValueRef br, group;
    LLVMBasicBlockRef header;
    struct kiln_cc_ptr_map blocks;
    bool counts; /* it counts the group (counts_group) */
};

static LLVMValueRef parallel_group(LLVMValueRef br, unsigned loop_kind, bool *oom)
{
    LLVMValueRef id = LLVMGetMetadata(br, loop_kind);
    LLVMValueRef pa = id ? kiln_cc_loop_entry(id, "llvm.loop.parallel_accesses") : NULL;
    if (!pa || LLVMGetMDNodeNumOperands(pa) != 2)
        return NULL;
    unsigned n;
    LLVMValueRef *ops = kiln_cc_md_operands(pa, &n);
    if (!ops) {
        *oom = true;
        return NULL;
    }
    LLVMValueRef group = ops[1];
    free(ops);
    return group;
}

LLVMValueRef kiln_cc_loop_counter(LLVMBasicBlockRef header, LLVMValueRef *next)
{
    for (LLVMValueRef in = LLVMGetFirstInstruction(header); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in)) {
        for (unsigned k = 0; k < LLVMCountIncoming(in); k++) {
            LLVMValueRef v = LLVMGetIncomingValue(in, k);
            uint64_t one;
            if (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMAdd &&
                LLVMGetOperand(v, 0) == in && kiln_cc_const_u64(LLVMGetOperand(v, 1), &one) &&
                one == 1) {
                *next = v;
                return in;
            }
        }
    }
    return NULL;
}

/* Whether the loop closed by `br` counts the group: its exit test compares its counter (or
 * the counter plus one) with a group-sized count. */
static bool counts_group(LLVMValueRef br, LLVMBasicBlockRef header)
{
    LLVMValueRef next, x = kiln_cc_loop_counter(header, &next);
    if (!x || !LLVMIsConditional(br))
        return false;
    LLVMValueRef test = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(test))
        return false;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef v = LLVMGetOperand(test, k), n = LLVMGetOperand(test, 1 - k);
        if ((v == x || v == next) && kiln_cc_small_count(header, n))
            return true;
    }
    return false;
}

unsigned kiln_cc_drop_stray_loop_ids(LLVMContextRef ctx, LLVMValueRef fn, bool *oom)
{
    static const char *const drop[] = {"llvm.loop.parallel_accesses"};
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    struct tagged *loops = NULL;
    unsigned n = 0, cap = 0, dropped = 0;

    *oom = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !*oom;
         bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
        LLVMValueRef group = br ? parallel_group(br, loop_kind, oom) : NULL;
        if (!group)
            continue;
        if (n == cap) {
            struct tagged *more = realloc(loops, (cap ? 2 * cap : 8) * sizeof(*loops));
            if (!more) {
                *oom = true;
                break;
            }
            loops = more;
            cap = cap ? 2 * cap : 8;
        }
        struct tagged t = {.br = br, .group = group};
        for (unsigned s = 0; s < LLVMGetNumSuccessors(br) && !t.header && !*oom; s++) {
            kiln_cc_ptr_map_free(&t.blocks);
            if (kiln_cc_loop_blocks(bb, LLVMGetSuccessor(br, s), &t.blocks, oom))
                t.header = LLVMGetSuccessor(br, s);
        }
        loops[n++] = t;
    }
    /* Decide every loop first: dropping an outer loop's entry changes nothing inside it. */
    bool *stray = calloc(n ? n : 1, sizeof(*stray));
    *oom |= stray == NULL;
    for (unsigned i = 0; i < n && !*oom; i++)
        if (loops[i].header)
            loops[i].counts = counts_group(loops[i].br, loops[i].header);
    for (unsigned i = 0; i < n && !*oom; i++) {
        LLVMValueRef next;
        if (!loops[i].header)
            continue; /* not a latch: leave it to LLVM */
        stray[i] = !kiln_cc_loop_counter(loops[i].header, &next);
        for (unsigned j = 0; j < n && !stray[i] && !loops[i].counts; j++)
            stray[i] =
                j != i && loops[j].header && loops[j].counts && loops[j].group == loops[i].group &&
                (kiln_cc_ptr_map_has(&loops[i].blocks, LLVMGetInstructionParent(loops[j].br)) ||
                 kiln_cc_ptr_map_has(&loops[j].blocks, LLVMGetInstructionParent(loops[i].br)));
    }
    for (unsigned i = 0; i < n && !*oom; i++)
        if (stray[i]) {
            *oom = !kiln_cc_loop_id_replace(ctx, loops[i].br, drop, 1, NULL, 0);
            dropped++;
        }
    for (unsigned i = 0; i < n; i++)
        kiln_cc_ptr_map_free(&loops[i].blocks);
    free(stray);
    free(loops);
    return dropped;
}
