/*
 * The work-group context (struct kiln_wg_ctx, include/kiln_abi.h) as the generated code
 * reads it, and the address spaces the work-items of a group share (cc_util.h). The
 * work-group stage builds its loops with these; the local size is a constant where the
 * build fixes it.
 */
#include "cc_util.h"
#include "kiln_abi.h"

#include <stddef.h>
#include <string.h>

bool kiln_cc_shared_space(unsigned as)
{
    return as == KILN_CC_AS_GLOBAL || as == KILN_CC_AS_CONSTANT || as == KILN_CC_AS_LOCAL;
}

static bool is_shared_memory(LLVMValueRef pointer)
{
    return kiln_cc_shared_space(LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)));
}

/*
 * The named address space a generic pointer was made from, when `p` is such a cast
 * followed by address arithmetic (getelementptr) and nothing else; *depth counts the
 * steps. Returns the cast's operand, or NULL.
 */
static LLVMValueRef named_origin(LLVMValueRef p, unsigned *depth)
{
    *depth = 0;
    while (LLVMIsAGetElementPtrInst(p) && *depth < 16) {
        p = LLVMGetOperand(p, 0);
        ++*depth;
    }
    if (!LLVMIsAAddrSpaceCastInst(p))
        return NULL;
    LLVMValueRef from = LLVMGetOperand(p, 0);
    return is_shared_memory(from) ? from : NULL;
}

/* Rebuilds the getelementptr chain from `p` (depth steps) down to its cast on `base`. */
static LLVMValueRef rebuild_chain(LLVMBuilderRef bld, LLVMValueRef p, unsigned depth,
                                  LLVMValueRef base)
{
    if (depth == 0)
        return base;
    LLVMValueRef below = rebuild_chain(bld, LLVMGetOperand(p, 0), depth - 1, base);
    unsigned n = (unsigned)LLVMGetNumOperands(p) - 1;
    LLVMValueRef idx[8];
    if (n > 8)
        return NULL;
    for (unsigned i = 0; i < n; i++)
        idx[i] = LLVMGetOperand(p, i + 1);
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
    return below == NULL       ? NULL
           : LLVMIsInBounds(p) ? LLVMBuildInBoundsGEP2(bld, ty, below, idx, n, "")
                               : LLVMBuildGEP2(bld, ty, below, idx, n, "");
}

void kiln_cc_named_spaces(LLVMContextRef ctx, LLVMValueRef fn)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            unsigned op;
            if (LLVMIsALoadInst(in))
                op = 0;
            else if (LLVMIsAStoreInst(in))
                op = 1;
            else
                continue;
            LLVMValueRef p = LLVMGetOperand(in, op);
            unsigned depth;
            LLVMValueRef base;
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != KILN_CC_AS_GENERIC ||
                !(base = named_origin(p, &depth)))
                continue;
            LLVMPositionBuilderBefore(bld, in);
            LLVMValueRef named = rebuild_chain(bld, p, depth, base);
            if (named)
                LLVMSetOperand(in, op, named);
        }
    }
    LLVMDisposeBuilder(bld);
}

LLVMValueRef kiln_cc_ctx_field(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef base,
                               size_t offset, LLVMTypeRef type, const char *name)
{
    LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx);
    LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(ctx), offset, 0);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(bld, i8, base, &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(bld, type, p, name);
    LLVMSetAlignment(v, 8);
    return v;
}

bool kiln_cc_is_variant(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k)
{
    return b->opts->variant_kernel && strcmp(b->opts->variant_kernel, k->name) == 0;
}

/*
 * Also fixed: in a local-size variant, whose launches the runtime keeps to groups of exactly
 * the variant's size (every group full: global % local == 0 in each dimension).
 */
size_t kiln_cc_fixed_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                int d)
{
    if (kiln_cc_is_variant(b, k))
        return b->opts->variant_local[d];
    return b->opts->uniform_wg ? k->reqd_work_group_size[d] : 0;
}

/* ctx->local_size[d], or the constant it always is (kiln_cc_fixed_local_size). */
LLVMValueRef kiln_cc_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                LLVMBuilderRef bld, LLVMValueRef wg_ctx, int d)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(b->ctx);
    size_t fixed = kiln_cc_fixed_local_size(b, k, d);
    if (fixed)
        return LLVMConstInt(i64, fixed, 0);
    return kiln_cc_ctx_field(bld, b->ctx, wg_ctx,
                             offsetof(struct kiln_wg_ctx, local_size) + (size_t)d * 8, i64, "");
}
