/*
 * Recomputing work-item ids, for the region transform (wg_transform.c, step 1). A value
 * computed from the local ids, ctx fields, the arguments and the prologue alone (get_local_id,
 * get_global_id, an index built from them) is as cheap to compute again as to keep: kept across a
 * barrier it would take a slot per work-item, a store in one region and a load in the next. So,
 * before reg2mem, each use of such a value in another block gets its own copy of the computation,
 * and the value no longer crosses a barrier. Copies within one region are merged again by O3.
 */
#include "wg_regions.h"

#include <stdlib.h>

/* At most this many instructions copied per use. */
#define REMAT_BUDGET 24

struct remat {
    LLVMValueRef w, hook_lid, hook_ctx;
    LLVMBasicBlockRef entry;
};

/* The object under a chain of address arithmetic and casts. */
static LLVMValueRef pointer_base(LLVMValueRef p)
{
    for (unsigned i = 0; i < 16; i++) {
        if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
            (LLVMIsAConstantExpr(p) && LLVMGetNumOperands(p) > 0 &&
             (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
              LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)))
            p = LLVMGetOperand(p, 0);
        else
            break;
    }
    return p;
}

/*
 * Whether `v` can be computed again anywhere: constants, parameters and prologue values
 * are leaves; __kiln_local_id(constant), __kiln_ctx(), loads of ctx fields or of the
 * argument array, and plain operations on such values are copied (*budget of them).
 */
static bool recomputable(const struct remat *m, LLVMValueRef v, unsigned *budget)
{
    if (!LLVMIsAInstruction(v))
        return LLVMIsAConstant(v) || LLVMIsAArgument(v);
    if (LLVMGetInstructionParent(v) == m->entry)
        return true;
    if (*budget == 0)
        return false;
    --*budget;
    LLVMValueRef f = kiln_cc_called_function(v);
    if (f)
        return (f == m->hook_lid && LLVMIsAConstantInt(LLVMGetOperand(v, 0))) || f == m->hook_ctx;
    if (LLVMIsALoadInst(v)) {
        if (LLVMGetVolatile(v) || LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
            return false;
        LLVMValueRef base = pointer_base(LLVMGetOperand(v, 0));
        bool ctx_or_args =
            base == LLVMGetParam(m->w, 0) || base == LLVMGetParam(m->w, 1) ||
            (kiln_cc_called_function(base) && kiln_cc_called_function(base) == m->hook_ctx);
        return ctx_or_args && recomputable(m, LLVMGetOperand(v, 0), budget);
    }
    if (!kiln_cc_plain_opcode(LLVMGetInstructionOpcode(v)) || LLVMIsAPHINode(v))
        return false;
    int n = LLVMGetNumOperands(v);
    for (int i = 0; i < n; i++)
        if (!recomputable(m, LLVMGetOperand(v, (unsigned)i), budget))
            return false;
    return true;
}

/* A copy of the computation of `v` before `at`; leaves are used as they are. */
static LLVMValueRef recompute(const struct remat *m, LLVMBuilderRef bld, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) == m->entry)
        return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    int n = LLVMGetNumOperands(c);
    for (int i = 0; i < n; i++) {
        LLVMValueRef op = LLVMGetOperand(c, (unsigned)i);
        if (op && !LLVMIsAFunction(op) && !LLVMValueIsBasicBlock(op))
            LLVMSetOperand(c, (unsigned)i, recompute(m, bld, op));
    }
    LLVMInsertIntoBuilder(bld, c);
    return c;
}

/* Whether a barrier call lies between `def` and `user`, two instructions of one block. */
static bool barrier_between(LLVMValueRef def, LLVMValueRef user)
{
    for (LLVMValueRef in = LLVMGetNextInstruction(def); in && in != user;
         in = LLVMGetNextInstruction(in))
        if (kiln_cc_is_barrier_call(in))
            return true;
    return false;
}

/*
 * Gives each use of `in` (defined in `bb`) in another block, or past a barrier in `bb`, its
 * own copy; a phi gets one at the end of each other incoming block.
 */
static void remat_uses(const struct remat *m, LLVMBuilderRef bld, LLVMValueRef in,
                       LLVMBasicBlockRef bb)
{
    /* The users first: replacing operands unlinks uses from the list being walked. */
    size_t n = 0, cap = 0;
    LLVMValueRef *users = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (n && users[n - 1] == user)
            continue;
        if (n == cap) {
            LLVMValueRef *more = realloc(users, (cap ? 2 * cap : 8) * sizeof(*users));
            if (!more)
                break; /* the uses left out keep the value: slower, not wrong */
            users = more;
            cap = cap ? 2 * cap : 8;
        }
        users[n++] = user;
    }
    for (size_t k = 0; k < n; k++) {
        LLVMValueRef user = users[k];
        if (!LLVMIsAInstruction(user))
            continue;
        if (LLVMIsAPHINode(user)) {
            for (unsigned i = 0; i < LLVMCountIncoming(user); i++) {
                LLVMBasicBlockRef from = LLVMGetIncomingBlock(user, i);
                if (LLVMGetIncomingValue(user, i) != in || from == bb)
                    continue;
                LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(from));
                LLVMSetOperand(user, i, recompute(m, bld, in));
            }
        } else if (LLVMGetInstructionParent(user) != bb || barrier_between(in, user)) {
            LLVMPositionBuilderBefore(bld, user);
            LLVMValueRef copy = recompute(m, bld, in);
            for (unsigned i = 0, ops = (unsigned)LLVMGetNumOperands(user); i < ops; i++)
                if (LLVMGetOperand(user, i) == in)
                    LLVMSetOperand(user, i, copy);
        }
    }
    free(users);
}

void kiln_cc_regions_remat_ids(struct kiln_cc_build *b, LLVMValueRef w)
{
    struct remat m = {
        .w = w,
        .hook_lid = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_LOCAL_ID),
        .hook_ctx = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_CTX),
        .entry = LLVMGetEntryBasicBlock(w),
    };
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(m.entry); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            unsigned budget = REMAT_BUDGET;
            if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind &&
                recomputable(&m, in, &budget))
                remat_uses(&m, bld, in, bb);
        }
    }
    LLVMDisposeBuilder(bld);
}
