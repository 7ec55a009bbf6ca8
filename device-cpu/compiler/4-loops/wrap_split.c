/*
 * Splitting a work-item loop where an index wraps around.
 *
 * A kernel that reads a neighbour in a circular array, `t[(i + 1) % 1024]`, leaves an
 * index `(x + c) & 1023` in the work-item loop once the first half of O3 has run. LLVM's
 * vectoriser treats it as consecutive under a run-time condition (no wrap over the
 * loop's range) and falls back to the scalar loop when the condition fails; with a
 * constant range that contains the wrap the condition fails on every launch, so the whole
 * loop stays scalar although only the work-items past the wrap need to.
 *
 * This rewrite, run between the two halves of O3 (outer_vec.c), cuts the range of such a
 * loop at every point in it where an index `(x + c) & (2^k - 1)` wraps: the work-item
 * loop runs once for each piece, from lo to hi, inside a new loop over the pieces.
 *
 *     preheader: br pieces
 *     pieces:    p = phi [0, preheader], [p + 1, next piece]
 *                lo, hi = the bounds of piece p
 *     header:    x = phi [lo, pieces], [x + 1, latch]
 *     latch:     br (x + 1 == hi), next piece, header     ; was x + 1 == L, exit
 *     next piece: br (p + 1 == pieces), exit, pieces
 *
 * x takes the same values in the same order as before, so the rewrite is correct
 * whatever the cuts; the vectoriser then checks its condition once per piece, and only
 * the piece with the wrap runs scalar. The loop must be a work-item loop (its latch
 * carries llvm.loop.parallel_accesses) counting from 0 to a constant L by 1, with a
 * preheader that only branches to it, and x the header's only phi; at most
 * WRAP_MAX_PIECES pieces. The exit block's phis are rebuilt for the new edge.
 */
#include "loops.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define WRAP_MAX_PIECES 4

/* Matches the work-item loop whose back edge ends `latch`: the rest of the shape above. */
static bool match(LLVMContextRef ctx, LLVMBasicBlockRef latch, struct kiln_cc_counted_loop *w)
{
    if (!kiln_cc_counted_loop(latch, w) || w->bound < 2 || LLVMGetNextUse(LLVMGetFirstUse(w->test)))
        return false;
    LLVMValueRef id = LLVMGetMetadata(w->br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9));
    if (!id || !kiln_cc_loop_entry(id, "llvm.loop.parallel_accesses"))
        return false;
    /* x is the header's only phi. */
    for (LLVMValueRef in = LLVMGetFirstInstruction(w->header); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in))
        if (in != w->x)
            return false;
    LLVMValueRef pre_br = LLVMGetBasicBlockTerminator(w->pre);
    if (!pre_br || LLVMGetInstructionOpcode(pre_br) != LLVMBr || LLVMIsConditional(pre_br) ||
        LLVMGetSuccessor(pre_br, 0) != w->header)
        return false;
    /* The exit's phis are rebuilt with the new edge: at most this many incoming each. */
    for (LLVMValueRef in = LLVMGetFirstInstruction(w->exit); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in))
        if (LLVMCountIncoming(in) > KILN_CC_EXIT_MAX_INCOMING)
            return false;
    return true;
}

/* Adds cut (0 < cut < L) to the sorted list unless there already; false when full. */
static bool add_cut(uint64_t *cuts, unsigned *n, uint64_t cut)
{
    unsigned i = 0;
    while (i < *n && cuts[i] < cut)
        i++;
    if (i < *n && cuts[i] == cut)
        return true;
    if (*n + 1 >= WRAP_MAX_PIECES)
        return false;
    memmove(cuts + i + 1, cuts + i, (*n - i) * sizeof(*cuts));
    cuts[i] = cut;
    (*n)++;
    return true;
}

/* Cuts where `index` & (2^k - 1) wraps, for every such and of index = x + c. */
static bool cuts_of(const struct kiln_cc_counted_loop *w, LLVMValueRef index, uint64_t c,
                    uint64_t *cuts, unsigned *n)
{
    for (LLVMUseRef u = LLVMGetFirstUse(index); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef and = LLVMGetUser(u);
        uint64_t mask;
        if (!LLVMIsAInstruction(and) || LLVMGetInstructionOpcode(and) != LLVMAnd ||
            LLVMGetOperand(and, 0) != index || !kiln_cc_const_u64(LLVMGetOperand(and, 1), &mask) ||
            mask == 0 || mask == UINT64_MAX || (mask & (mask + 1)) != 0)
            continue;
        uint64_t period = mask + 1;
        /* x + c is a multiple of the period at these x. */
        for (uint64_t cut = (period - (c & mask)) & mask; cut < w->bound; cut += period)
            if (cut > 0 && !add_cut(cuts, n, cut))
                return false;
    }
    return true;
}

/*
 * The points where an index (x + c) & (2^k - 1) of the loop wraps, sorted; false if there
 * are more than the pieces allow. Only x and its adds of constants are looked at: any
 * cut is correct, these are the useful ones.
 */
static bool find_cuts(const struct kiln_cc_counted_loop *w, uint64_t *cuts, unsigned *n)
{
    *n = 0;
    if (!cuts_of(w, w->x, 0, cuts, n))
        return false;
    for (LLVMUseRef u = LLVMGetFirstUse(w->x); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        uint64_t c;
        if (!LLVMIsAInstruction(user))
            continue;
        LLVMOpcode op = LLVMGetInstructionOpcode(user);
        if ((op == LLVMAdd || (op == LLVMOr && LLVMGetIsDisjoint(user))) &&
            LLVMGetOperand(user, 0) == w->x && kiln_cc_const_u64(LLVMGetOperand(user, 1), &c) &&
            !cuts_of(w, user, c, cuts, n))
            return false;
    }
    return true;
}

static void split(LLVMContextRef ctx, struct kiln_cc_counted_loop *w, const uint64_t *cuts,
                  unsigned ncuts)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMTypeRef t = LLVMTypeOf(w->x);
    LLVMValueRef fn = LLVMGetBasicBlockParent(w->header);
    LLVMBasicBlockRef pieces = LLVMInsertBasicBlockInContext(ctx, w->header, "wrap.piece");
    LLVMBasicBlockRef next_piece = LLVMAppendBasicBlockInContext(ctx, fn, "wrap.next");
    unsigned npieces = ncuts + 1;

    /* The preheader enters the loop over the pieces. */
    LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->pre), 0, pieces);

    /* Piece p: lo = cuts[p - 1] (0 for the first), hi = cuts[p] (L for the last). */
    LLVMPositionBuilderAtEnd(bld, pieces);
    LLVMValueRef p = LLVMBuildPhi(bld, t, "wrap.p");
    LLVMValueRef lo = LLVMConstNull(t), hi = LLVMConstInt(t, w->bound, 0);
    for (unsigned k = 0; k < ncuts; k++) {
        LLVMValueRef cut = LLVMConstInt(t, cuts[k], 0);
        LLVMValueRef after = LLVMBuildICmp(bld, LLVMIntUGT, p, LLVMConstInt(t, k, 0), "");
        lo = LLVMBuildSelect(bld, after, cut, lo, "wrap.lo");
    }
    for (unsigned k = ncuts; k-- > 0;) {
        LLVMValueRef cut = LLVMConstInt(t, cuts[k], 0);
        LLVMValueRef before = LLVMBuildICmp(bld, LLVMIntULE, p, LLVMConstInt(t, k, 0), "");
        hi = LLVMBuildSelect(bld, before, cut, hi, "wrap.hi");
    }
    LLVMBuildBr(bld, w->header);

    /* x starts at lo: a new phi (the C API cannot move an edge of the old one). */
    LLVMBasicBlockRef latch = w->latch;
    LLVMPositionBuilderBefore(bld, w->x);
    LLVMValueRef x = LLVMBuildPhi(bld, t, "");
    LLVMAddIncoming(x, &lo, &pieces, 1);
    LLVMAddIncoming(x, &w->next, &latch, 1);
    LLVMReplaceAllUsesWith(w->x, x);
    LLVMInstructionEraseFromParent(w->x);
    w->x = x;

    /* The exit's phis: what came from the latch now comes from the next piece. */
    kiln_cc_exit_phis_from(w, next_piece);

    /* The latch leaves at hi, to the next piece. */
    LLVMSetOperand(w->test, 1, hi);
    for (unsigned s = 0; s < 2; s++)
        if (LLVMGetSuccessor(w->br, s) == w->exit)
            LLVMSetSuccessor(w->br, s, next_piece);

    LLVMPositionBuilderAtEnd(bld, next_piece);
    LLVMValueRef p1 = LLVMBuildNUWAdd(bld, p, LLVMConstInt(t, 1, 0), "wrap.p.next");
    LLVMValueRef last = LLVMBuildICmp(bld, LLVMIntEQ, p1, LLVMConstInt(t, npieces, 0), "");
    LLVMBuildCondBr(bld, last, w->exit, pieces);
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMBasicBlockRef pre = w->pre;
    LLVMAddIncoming(p, &zero, &pre, 1);
    LLVMAddIncoming(p, &p1, &next_piece, 1);
    LLVMDisposeBuilder(bld);
}

unsigned kiln_cc_split_wrapping_loops(LLVMContextRef ctx, LLVMValueRef fn)
{
    unsigned done = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        struct kiln_cc_counted_loop w;
        uint64_t cuts[WRAP_MAX_PIECES];
        unsigned ncuts;
        if (!match(ctx, bb, &w) || !find_cuts(&w, cuts, &ncuts) || ncuts == 0)
            continue;
        split(ctx, &w, cuts, ncuts);
        done++;
    }
    return done;
}
