/*
 * Local-variable stage: kernel-scope __local variables become slots in the
 * work-group arena.
 *
 * Clang turns `__local T v[N];` declared in a kernel into a module-level
 * addrspace(3) global. After the work-group stage every kernel's code, including
 * the functions it calls, sits in one body function (b->bodies), so the
 * variables a kernel can reach are exactly the ones its body uses. Each kernel
 * lays those out at their alignment from offset 0 of ctx->local_mem, in the order
 * the body first uses them, and reports the end as local_mem_static; the runtime
 * places __local arguments after it. The uses become
 *
 *     addrspacecast (getelementptr i8, ctx->local_mem, offset) to ptr addrspace(3)
 *
 * computed once in the body's entry block; constant expressions built on a
 * variable (a constant GEP into it, a cast to the generic space) are rebuilt as
 * instructions next to their user. A variable used outside every body (in a
 * function that could not be inlined) is refused.
 */
#include "workgroup.h"
#include "kiln_abi.h"

#include <llvm-c/Target.h>

#include <stddef.h>
#include <stdlib.h>

struct slot {
    LLVMValueRef var;
    LLVMValueRef ptr; /* its address in the arena, in the body being lowered */
};

struct layout {
    struct slot *slots;
    size_t n, cap;
};

static bool is_local_var(LLVMValueRef v)
{
    return LLVMIsAGlobalVariable(v) &&
           LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == KILN_CC_AS_LOCAL;
}

/* Whether constant c is, or is built on, a __local variable. */
static bool mentions_local(LLVMValueRef c)
{
    if (is_local_var(c))
        return true;
    if (!LLVMIsAConstantExpr(c))
        return false;
    for (int i = 0; i < LLVMGetNumOperands(c); i++)
        if (mentions_local(LLVMGetOperand(c, (unsigned)i)))
            return true;
    return false;
}

/* Adds the variables constant c is built on to the layout. */
static bool collect(struct layout *l, LLVMValueRef c)
{
    if (LLVMIsAConstantExpr(c)) {
        for (int i = 0; i < LLVMGetNumOperands(c); i++)
            if (!collect(l, LLVMGetOperand(c, (unsigned)i)))
                return false;
        return true;
    }
    if (!is_local_var(c))
        return true;
    for (size_t i = 0; i < l->n; i++)
        if (l->slots[i].var == c)
            return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        struct slot *more = realloc(l->slots, cap * sizeof(*more));
        if (!more)
            return false;
        l->slots = more;
        l->cap = cap;
    }
    l->slots[l->n++] = (struct slot){.var = c};
    return true;
}

/* Constant c rebuilt as instructions at the builder, with the variables replaced. */
static LLVMValueRef rebuild(LLVMBuilderRef bld, const struct layout *l, LLVMValueRef c)
{
    if (!mentions_local(c))
        return c;
    if (!LLVMIsAConstantExpr(c)) {
        for (size_t i = 0; i < l->n; i++)
            if (l->slots[i].var == c)
                return l->slots[i].ptr;
        return NULL;
    }
    LLVMOpcode op = LLVMGetConstOpcode(c);
    unsigned n = (unsigned)LLVMGetNumOperands(c);
    LLVMValueRef ops[8];
    if (n > 8)
        return NULL;
    for (unsigned i = 0; i < n; i++) {
        ops[i] = rebuild(bld, l, LLVMGetOperand(c, i));
        if (!ops[i])
            return NULL;
    }
    switch (op) {
    case LLVMGetElementPtr: {
        LLVMValueRef gep =
            LLVMBuildGEP2(bld, LLVMGetGEPSourceElementType(c), ops[0], ops + 1, n - 1, "");
        if (LLVMIsAGetElementPtrInst(gep))
            LLVMSetIsInBounds(gep, LLVMIsInBounds(c));
        return gep;
    }
    case LLVMAddrSpaceCast:
    case LLVMBitCast:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMTrunc:
        return LLVMBuildCast(bld, op, ops[0], LLVMTypeOf(c), "");
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMXor:
        return LLVMBuildBinOp(bld, op, ops[0], ops[1], "");
    default:
        return NULL;
    }
}

/* Where a replacement for operand i of `in` must be computed. */
static void position_for_operand(LLVMBuilderRef bld, LLVMValueRef in, unsigned i)
{
    if (LLVMIsAPHINode(in))
        LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(in, i)));
    else
        LLVMPositionBuilderBefore(bld, in);
}

static enum kiln_cc_status lower_body(struct kiln_cc_build *b, unsigned k, struct layout *l)
{
    LLVMValueRef body = b->bodies[k];
    struct kiln_cc_kernel *info = &b->prog->kernels[k];
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    LLVMContextRef ctx = b->ctx;

    l->n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            for (int i = 0; i < LLVMGetNumOperands(in); i++)
                if (!collect(l, LLVMGetOperand(in, (unsigned)i)))
                    return KILN_CC_OUT_OF_MEMORY;
    info->local_mem_static = 0;
    if (l->n == 0)
        return KILN_CC_OK;

    /* The arena pointer and every slot, at the top of the entry block. */
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(body);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    while (LLVMIsAAllocaInst(first))
        first = LLVMGetNextInstruction(first);
    LLVMPositionBuilderBefore(bld, first);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMValueRef off = LLVMConstInt(i64, offsetof(struct kiln_wg_ctx, local_mem), 0);
    LLVMValueRef field = LLVMBuildInBoundsGEP2(bld, i8, LLVMGetParam(body, 1), &off, 1, "");
    LLVMValueRef arena = LLVMBuildLoad2(bld, ptr, field, "local_mem");
    LLVMSetAlignment(arena, 8);
    size_t end = 0;
    for (size_t i = 0; i < l->n; i++) {
        LLVMTypeRef type = LLVMGlobalGetValueType(l->slots[i].var);
        size_t align = LLVMGetAlignment(l->slots[i].var);
        if (!align)
            align = LLVMABIAlignmentOfType(td, type);
        if (align > KILN_LOCAL_ALIGN)
            align = KILN_LOCAL_ALIGN;
        end = (end + align - 1) / align * align;
        LLVMValueRef at = LLVMConstInt(i64, end, 0);
        LLVMValueRef p = LLVMBuildInBoundsGEP2(bld, i8, arena, &at, 1, "");
        l->slots[i].ptr = LLVMBuildAddrSpaceCast(bld, p, LLVMTypeOf(l->slots[i].var),
                                                 LLVMGetValueName(l->slots[i].var));
        end += LLVMABISizeOfType(td, type);
    }
    info->local_mem_static = end;

    /* Every use in the body; the slot instructions themselves use no variable. */
    enum kiln_cc_status status = KILN_CC_OK;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb && status == KILN_CC_OK;
         bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && status == KILN_CC_OK;
             in = LLVMGetNextInstruction(in)) {
            for (int i = 0; i < LLVMGetNumOperands(in); i++) {
                LLVMValueRef v = LLVMGetOperand(in, (unsigned)i);
                if (!LLVMIsConstant(v) || !mentions_local(v))
                    continue;
                position_for_operand(bld, in, (unsigned)i);
                LLVMValueRef r = rebuild(bld, l, v);
                if (!r) {
                    kiln_cc_log_printf(b->log,
                                       "error: kernel '%s' uses a __local variable in a "
                                       "constant expression Kiln cannot lower\n",
                                       info->name);
                    status = KILN_CC_BUILD_FAILED;
                    break;
                }
                LLVMSetOperand(in, (unsigned)i, r);
            }
        }
    }
    LLVMDisposeBuilder(bld);
    return status;
}

/* Whether v has a use other than by constant expressions nothing uses any more. */
static bool has_live_use(LLVMValueRef v)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAConstantExpr(user) || has_live_use(user))
            return true;
    }
    return false;
}

enum kiln_cc_status kiln_cc_lower_local(struct kiln_cc_build *b)
{
    struct layout l = {0};
    enum kiln_cc_status status = KILN_CC_OK;

    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        status = lower_body(b, k, &l);
    free(l.slots);
    if (status != KILN_CC_OK)
        return status;
    LLVMValueRef g = LLVMGetFirstGlobal(b->mod);
    while (g) {
        LLVMValueRef next = LLVMGetNextGlobal(g);
        if (is_local_var(g)) {
            if (has_live_use(g)) {
                kiln_cc_log_printf(b->log,
                                   "error: __local variable '%s' is used by a function that "
                                   "could not be inlined into a kernel (recursion?)\n",
                                   LLVMGetValueName(g));
                status = KILN_CC_BUILD_FAILED;
            } else {
                /* Dead constant expressions may still name it. */
                LLVMReplaceAllUsesWith(g, LLVMGetPoison(LLVMTypeOf(g)));
                LLVMDeleteGlobal(g);
            }
        }
        g = next;
    }
    return status;
}
