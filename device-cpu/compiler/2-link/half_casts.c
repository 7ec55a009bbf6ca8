/*
 * Casts from double to half, rounded once (part of the link stage, run by link_library.c
 * before the kernel library is linked in).
 *
 * OpenCL C's implicit conversions and casts from double to half (§6.4.1, §6.4.2) round
 * to nearest even, once. Clang emits them as `fptrunc double to half`, which x86 has no
 * instruction for (F16C converts from float only): LLVM turns each into a call to
 * libgcc's __truncdfhf2, a symbol a kernel object cannot count on finding (the driver is
 * loaded with RTLD_LOCAL), and rounding through float instead would round twice (a
 * double just above a half's midpoint becomes the midpoint in float, then goes to even).
 * So every such fptrunc of the user's module becomes a call to the kernel library's
 * convert_half(double), which rounds on the bits (kernel-lib/include/kiln_conv.h) and
 * which the linker then brings in like any builtin the kernel calls. A vector fptrunc
 * (only __builtin_convertvector makes one) is converted lane by lane: the library's
 * vector forms take their argument in memory, and the optimisation stage, after
 * inlining, vectorises the integer code again.
 *
 * Runs on the user's module only: the kernel library itself converts doubles with
 * convert_half, never with a cast.
 */
#include "link_stage.h"

#include <stdbool.h>

/* The mangled name of half convert_half(double) in the kernel library. */
#define CONVERT_HALF_D "_Z12convert_halfd"

/* True if i is an fptrunc from double (or a vector of doubles) to half. */
static bool is_double_to_half(LLVMValueRef i)
{
    if (LLVMGetInstructionOpcode(i) != LLVMFPTrunc)
        return false;
    LLVMTypeRef src = LLVMTypeOf(LLVMGetOperand(i, 0)), dst = LLVMTypeOf(i);
    if (LLVMGetTypeKind(src) == LLVMVectorTypeKind) {
        src = LLVMGetElementType(src);
        dst = LLVMGetElementType(dst);
    }
    return LLVMGetTypeKind(src) == LLVMDoubleTypeKind && LLVMGetTypeKind(dst) == LLVMHalfTypeKind;
}

/* The declaration of convert_half(double), added to the module on first use. */
static LLVMValueRef convert_decl(struct kiln_cc_build *b, LLVMTypeRef *fty)
{
    LLVMTypeRef dbl = LLVMDoubleTypeInContext(b->ctx);
    *fty = LLVMFunctionType(LLVMHalfTypeInContext(b->ctx), &dbl, 1, 0);
    LLVMValueRef f = LLVMGetNamedFunction(b->mod, CONVERT_HALF_D);
    if (!f)
        f = LLVMAddFunction(b->mod, CONVERT_HALF_D, *fty);
    return f;
}

/* Replaces the fptrunc i by calls of convert_half, one per lane. */
static void replace(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef i)
{
    LLVMTypeRef fty;
    LLVMValueRef f = convert_decl(b, &fty);
    LLVMValueRef x = LLVMGetOperand(i, 0);
    LLVMTypeRef t = LLVMTypeOf(i);
    LLVMValueRef r;
    LLVMPositionBuilderBefore(bld, i);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
        r = LLVMBuildCall2(bld, fty, f, &x, 1, "half.cast");
    } else {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(b->ctx);
        r = LLVMGetUndef(t);
        for (unsigned k = 0; k < LLVMGetVectorSize(t); k++) {
            LLVMValueRef idx = LLVMConstInt(i32, k, 0);
            LLVMValueRef lane = LLVMBuildExtractElement(bld, x, idx, "half.lane");
            LLVMValueRef h = LLVMBuildCall2(bld, fty, f, &lane, 1, "half.cast");
            r = LLVMBuildInsertElement(bld, r, h, idx, "half.vec");
        }
    }
    LLVMReplaceAllUsesWith(i, r);
    LLVMInstructionEraseFromParent(i);
}

enum kiln_cc_status kiln_cc_lower_half_casts(struct kiln_cc_build *b)
{
    LLVMBuilderRef bld = NULL;
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
             bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef i = LLVMGetFirstInstruction(bb);
            while (i) {
                LLVMValueRef next = LLVMGetNextInstruction(i);
                if (is_double_to_half(i)) {
                    if (!bld)
                        bld = LLVMCreateBuilderInContext(b->ctx);
                    if (!bld)
                        return KILN_CC_OUT_OF_MEMORY;
                    replace(b, bld, i);
                }
                i = next;
            }
        }
    }
    if (bld)
        LLVMDisposeBuilder(bld);
    return KILN_CC_OK;
}
