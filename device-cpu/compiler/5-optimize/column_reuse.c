/*
 * Which kernels' groups of one column read the same global data (kiln_cc_kernel's
 * column_reuse), after O3: the CPU device then runs a launch's groups in column bands
 * (device-cpu/cpu_internal.h, KILN_CPU_BAND) instead of row by row.
 *
 * A tiled multiply C = A * B shows the case: group (x, y) reads the rows of A of its row y and
 * the columns of B of its column x. Row by row, consecutive groups share their A rows, but each
 * column of B comes round again only after a whole row of groups; in bands, the groups of a
 * band's columns follow each other down the rows, and the band's columns of B stay in the cache.
 * A kernel each group of which reads only its own part of the data (a stencil, a copy) gains
 * nothing from bands and streams better row by row: every address it loads depends on the
 * group's row.
 *
 * The test, on each load from global memory in the work-group function: follow its address
 * back through the instructions that compute it. It qualifies when that reaches a phi (the load
 * walks through data in a loop: the work-item loops or the kernel's own) and never reaches
 * ctx->group_id[1]; the kernel's arguments and the other context fields are the same for every
 * group. An address computed from memory other than those (an index read from a buffer) could
 * be anything: it does not qualify, nor does one too long to follow (SLICE_MAX instructions).
 * One qualifying load is enough. The flag only orders groups: any answer is correct.
 */
#include "cc_util.h"
#include "kiln_abi.h"
#include "optimize.h"

#include <stddef.h>

enum { SLICE_MAX = 512 };

/* What a load's address was found to depend on. */
struct slice {
    bool row;    /* ctx->group_id[1] */
    bool loop;   /* a phi */
    bool opaque; /* memory other than the arguments and ctx, or too long to follow */
};

/* v without the address-space casts and bitcasts in front of it. */
static LLVMValueRef strip_casts(LLVMValueRef v)
{
    while (LLVMIsAAddrSpaceCastInst(v) || LLVMIsABitCastInst(v))
        v = LLVMGetOperand(v, 0);
    return v;
}

/* The constant byte offset of `p` from `base` (base itself, or one i8 getelementptr). */
static bool offset_from(LLVMValueRef p, LLVMValueRef base, long long *off)
{
    p = strip_casts(p);
    if (p == base) {
        *off = 0;
        return true;
    }
    if (!LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
        strip_casts(LLVMGetOperand(p, 0)) != base || !LLVMIsAConstantInt(LLVMGetOperand(p, 1)) ||
        LLVMGetGEPSourceElementType(p) != LLVMInt8TypeInContext(LLVMGetTypeContext(LLVMTypeOf(p))))
        return false;
    *off = LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1));
    return true;
}

/* Whether `p` is the function's parameter (the argument block, ctx) or a place at a constant
 * offset in memory reached from it: a kernel argument, a context field. */
static bool from_params(LLVMValueRef p, LLVMValueRef fn, int depth)
{
    if (LLVMIsAArgument(p))
        return LLVMGetParamParent(p) == fn;
    if (depth > 8 || !(LLVMIsAGetElementPtrInst(p) || LLVMIsALoadInst(p) ||
                       LLVMIsAAddrSpaceCastInst(p) || LLVMIsABitCastInst(p)))
        return false;
    if (LLVMIsAGetElementPtrInst(p))
        for (int i = 1; i < LLVMGetNumOperands(p); i++)
            if (!LLVMIsAConstantInt(LLVMGetOperand(p, i)))
                return false;
    return from_params(LLVMGetOperand(p, 0), fn, depth + 1);
}

static void follow(LLVMValueRef addr, LLVMValueRef fn, struct slice *s)
{
    LLVMValueRef ctx = LLVMGetParam(fn, 1);
    const long long row_id = offsetof(struct kiln_wg_ctx, group_id) + sizeof(kiln_abi_size);
    struct kiln_cc_ptr_map seen = {0};
    LLVMValueRef stack[SLICE_MAX];
    unsigned top = 0, visited = 0;
    stack[top++] = addr;
    while (top && !s->opaque) {
        LLVMValueRef v = stack[--top];
        if (!LLVMIsAInstruction(v) || kiln_cc_ptr_map_has(&seen, v))
            continue;
        if (!kiln_cc_ptr_map_add(&seen, v) || ++visited > SLICE_MAX) {
            s->opaque = true;
            break;
        }
        if (LLVMIsALoadInst(v)) {
            LLVMValueRef p = LLVMGetOperand(v, 0);
            long long off;
            if (offset_from(p, ctx, &off))
                s->row |= off == row_id;
            else if (!from_params(p, fn, 0))
                s->opaque = true;
            continue; /* what a load reads is not followed further */
        }
        if (LLVMIsACallInst(v) || LLVMIsAAtomicRMWInst(v) || LLVMIsAAtomicCmpXchgInst(v)) {
            s->opaque = true;
            continue;
        }
        s->loop |= LLVMIsAPHINode(v) != NULL;
        int n = LLVMGetNumOperands(v);
        for (int i = 0; i < n; i++) {
            LLVMValueRef op = LLVMGetOperand(v, i);
            if (LLVMIsAInstruction(op) && !kiln_cc_ptr_map_has(&seen, op)) {
                if (top == SLICE_MAX) {
                    s->opaque = true;
                    break;
                }
                stack[top++] = op;
            }
        }
    }
    kiln_cc_ptr_map_free(&seen);
}

/* Whether some global load of `fn` walks through data its column's groups share. */
static bool reads_by_column(LLVMValueRef fn)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsALoadInst(i))
                continue;
            LLVMValueRef addr = LLVMGetOperand(i, 0);
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(addr)) != 1)
                continue;
            struct slice s = {false, false, false};
            follow(addr, fn, &s);
            if (s.loop && !s.row && !s.opaque)
                return true;
        }
    return false;
}

void kiln_cc_note_column_reuse(struct kiln_cc_build *b)
{
    for (unsigned k = 0; k < b->prog->num_kernels; k++)
        b->prog->kernels[k].column_reuse = reads_by_column(b->wrappers[k]);
}
