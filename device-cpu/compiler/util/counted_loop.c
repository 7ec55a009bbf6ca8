/*
 * Counted loops: the shape of a loop that counts from 0 by 1 to a constant, as the first
 * half of O3 leaves it (rotated), which strided_loops.c and wrap_split.c both start from:
 *
 *     header: x = phi [0, pre], [x + 1, latch]
 *     latch:  br (x + 1 == L), exit, header     ; or stays on x + 1 != L, x + 1 < L
 *
 * with L a positive constant: every value x takes is below L.
 */
#include "cc_util.h"

bool kiln_cc_const_u64(LLVMValueRef v, uint64_t *out)
{
    if (!v || !LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
        return false;
    *out = LLVMConstIntGetZExtValue(v);
    return true;
}

bool kiln_cc_counted_loop(LLVMBasicBlockRef latch, struct kiln_cc_counted_loop *c)
{
    LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br))
        return false;
    LLVMValueRef test = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(test) || !kiln_cc_const_u64(LLVMGetOperand(test, 1), &c->bound) ||
        c->bound == 0)
        return false;
    LLVMIntPredicate pred = LLVMGetICmpPredicate(test);
    unsigned stay;
    if (pred == LLVMIntEQ)
        stay = 1;
    else if (pred == LLVMIntNE || pred == LLVMIntULT)
        stay = 0;
    else
        return false;
    c->latch = latch;
    c->br = br;
    c->test = test;
    c->header = LLVMGetSuccessor(br, stay);
    c->exit = LLVMGetSuccessor(br, 1 - stay);
    c->next = LLVMGetOperand(test, 0);
    uint64_t one;
    if (c->exit == c->header || !LLVMIsAInstruction(c->next) ||
        LLVMGetInstructionOpcode(c->next) != LLVMAdd ||
        !kiln_cc_const_u64(LLVMGetOperand(c->next, 1), &one) || one != 1)
        return false;
    c->x = LLVMGetOperand(c->next, 0);
    if (!LLVMIsAPHINode(c->x) || LLVMGetInstructionParent(c->x) != c->header ||
        LLVMCountIncoming(c->x) != 2)
        return false;
    c->pre = NULL;
    for (unsigned k = 0; k < 2; k++) {
        uint64_t zero;
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(c->x, k);
        LLVMValueRef v = LLVMGetIncomingValue(c->x, k);
        if (from == latch && v == c->next)
            continue;
        if (from == latch || !kiln_cc_const_u64(v, &zero) || zero != 0)
            return false;
        c->pre = from;
    }
    return c->pre != NULL;
}

void kiln_cc_exit_phis_from(const struct kiln_cc_counted_loop *c, LLVMBasicBlockRef from_block)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(c->x)));
    for (LLVMValueRef in = LLVMGetFirstInstruction(c->exit); in && LLVMIsAPHINode(in);) {
        LLVMValueRef following = LLVMGetNextInstruction(in);
        LLVMValueRef vals[KILN_CC_EXIT_MAX_INCOMING];
        LLVMBasicBlockRef from[KILN_CC_EXIT_MAX_INCOMING];
        unsigned n = LLVMCountIncoming(in);
        for (unsigned k = 0; k < n; k++) {
            vals[k] = LLVMGetIncomingValue(in, k);
            from[k] = LLVMGetIncomingBlock(in, k);
            if (from[k] == c->latch)
                from[k] = from_block;
        }
        LLVMPositionBuilderBefore(bld, in);
        LLVMValueRef phi = LLVMBuildPhi(bld, LLVMTypeOf(in), "");
        LLVMAddIncoming(phi, vals, from, n);
        LLVMReplaceAllUsesWith(in, phi);
        LLVMInstructionEraseFromParent(in);
        in = following;
    }
    LLVMDisposeBuilder(bld);
}
