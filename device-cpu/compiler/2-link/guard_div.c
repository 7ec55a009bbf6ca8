/*
 * Division stage: integer divisions and remainders that cannot trap.
 *
 * OpenCL C's arithmetic operators give an unspecified value, and no exception, for an
 * integer division or remainder by zero, and for a signed one of the smallest value by -1.
 * x86's div and idiv raise #DE (SIGFPE) for both, so each sdiv, udiv, srem and urem of the
 * module, scalar or vector, gets its divisor replaced by 1 in the lanes where it would
 * trap: x / 0 is x, x % 0 is 0, MIN / -1 is MIN and MIN % -1 is 0. A constant divisor
 * other than those folds the select away in the optimisation stage.
 *
 * Runs after the kernel library is linked, so the library's own divisions are covered too.
 */
#include "link_stage.h"

#include <stdbool.h>

/* The value of type t (an integer or a vector of integers) with every lane v. */
static LLVMValueRef splat(LLVMTypeRef t, unsigned long long v, bool is_signed)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return LLVMConstInt(t, v, is_signed);
    LLVMValueRef lane = LLVMConstInt(LLVMGetElementType(t), v, is_signed);
    unsigned n = LLVMGetVectorSize(t);
    LLVMValueRef lanes[256];
    if (n > sizeof(lanes) / sizeof(lanes[0]))
        return NULL;
    for (unsigned i = 0; i < n; i++)
        lanes[i] = lane;
    return LLVMConstVector(lanes, n);
}

/* Guards the division i; false if it has more lanes than this stage handles. */
static bool guard(LLVMBuilderRef bld, LLVMValueRef i, bool is_signed)
{
    LLVMValueRef a = LLVMGetOperand(i, 0), d = LLVMGetOperand(i, 1);
    LLVMTypeRef t = LLVMTypeOf(d);
    LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    unsigned bits = LLVMGetIntTypeWidth(et);
    LLVMValueRef one = splat(t, 1, false);
    if (!one)
        return false;
    LLVMPositionBuilderBefore(bld, i);
    LLVMValueRef bad = LLVMBuildICmp(bld, LLVMIntEQ, d, LLVMConstNull(t), "div.zero");
    if (is_signed) {
        /* 1 << (bits - 1), folded by the builder: the smallest value of any width */
        LLVMValueRef min = LLVMBuildShl(bld, one, splat(t, bits - 1, false), "div.minval");
        LLVMValueRef ov =
            LLVMBuildAnd(bld, LLVMBuildICmp(bld, LLVMIntEQ, a, min, "div.min"),
                         LLVMBuildICmp(bld, LLVMIntEQ, d, LLVMConstAllOnes(t), "div.m1"), "div.ov");
        bad = LLVMBuildOr(bld, bad, ov, "div.bad");
    }
    LLVMSetOperand(i, 1, LLVMBuildSelect(bld, bad, one, d, "div.safe"));
    return true;
}

enum kiln_cc_status kiln_cc_guard_divisions(struct kiln_cc_build *b)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    if (!bld)
        return KILN_CC_OUT_OF_MEMORY;
    enum kiln_cc_status status = KILN_CC_OK;
    for (LLVMValueRef f = LLVMGetFirstFunction(b->mod); f; f = LLVMGetNextFunction(f)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
                LLVMOpcode op = LLVMGetInstructionOpcode(i);
                bool is_signed = op == LLVMSDiv || op == LLVMSRem;
                if (!is_signed && op != LLVMUDiv && op != LLVMURem)
                    continue;
                if (!guard(bld, i, is_signed)) {
                    kiln_cc_log_printf(b->log,
                                       "error: an integer division of more than 256 lanes\n");
                    status = KILN_CC_BUILD_FAILED;
                }
            }
        }
    }
    LLVMDisposeBuilder(bld);
    return status;
}
