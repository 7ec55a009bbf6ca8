/*
 * Narrowing guarded work-item loops.
 *
 * A barrier kernel often lets only the first work-items of a group do a region's work:
 * a tree reduction's `if (l < s) tmp[l] += tmp[l + s]` between barriers. After the
 * region transform and the first half of O3 that region is a loop over the whole group
 * whose body is guarded by the induction variable against a value computed before it:
 *
 *     header: x = phi [0, preheader], [x + 1, latch]
 *             br (x < v), body, latch          ; or (v > x), or (x == 0) as (x < 1)
 *     body:   ... ; br latch                   ; blocks that lead only to the latch
 *     latch:  br (x + 1 == n), exit, header    ; or != n / < n back to the header
 *
 * Work-items from min(n, v) on do nothing there, so the loop can stop at min(n, v):
 * the preheader skips the loop when that is 0, the header's test goes, and the latch
 * compares with min(n, v). LLVM's vectoriser then sees an unguarded body (no masked
 * loads and stores, which are slow on several x86 cores) and a loop of v iterations
 * instead of n. LLVM's own LoopBoundSplit does not take this shape, so Kiln rewrites
 * it between the two halves of O3 (outer_vec.c), through the C API.
 *
 * What is required, checked before anything changes: the header holds only the
 * induction phi, the guard and its branch; the latch only the increment, the exit
 * test and the branch, with no phis; the exit block has no phis; the preheader ends in
 * an unconditional branch to the header; the body blocks reach nothing but each other
 * and the latch, and are reached from nothing else; v is defined outside the loop; and
 * neither x nor x + 1 is used outside the loop.
 *
 * Kernels that index with `int` (`int l = get_local_id(0); ... if (l < s)`) give the
 * guard another shape: x truncated to 32 bits in the header (or masked to its low 32 bits,
 * InstCombine's form of a truncation compared with 0), compared signed:
 *
 *     header: x = phi ...; t = trunc x; br (t <s v), body, latch   ; or (v >s t), or unsigned
 *
 * (`if (l == 0)` gives t == 0, that is t < 1.) For x below 2^31 that is x < max(v, 0) (unsigned x <
 * v for the unsigned compare, with x below 2^32), so the loop stops at min(n, max(v, 0)) widened to
 * x's type. x stays below n, and the rewrite takes this shape only where n is known to be at most
 * KILN_GROUP_SHARED_SLOTS (4096, the largest group): a constant (a local-size variant,
 * reqd_work_group_size), or a local size read from the work-group context, the second
 * parameter of the work-group function (offsets of enqueued_local_size and local_size in
 * struct kiln_wg_ctx), or the umax of such values. A signed compare of x itself takes the
 * same path.
 */
#include "loops.h"

#include "kiln_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Body blocks of one loop: at most this many, else the loop is left alone. */
#define NARROW_MAX_BLOCKS 64

struct guarded_loop {
    LLVMBasicBlockRef pre, header, latch, exit, body;
    LLVMValueRef x, next, guard_bound, exit_test, exit_bound;
    LLVMValueRef trunc; /* x truncated in the header, which the guard compares; or NULL */
    bool guard_signed;  /* the guard compares signed: the bound is max(v, 0) */
    LLVMBasicBlockRef blocks[NARROW_MAX_BLOCKS];
    unsigned num_blocks;
};

static bool in_loop(const struct guarded_loop *g, LLVMBasicBlockRef bb)
{
    if (bb == g->header || bb == g->latch)
        return true;
    for (unsigned i = 0; i < g->num_blocks; i++)
        if (g->blocks[i] == bb)
            return true;
    return false;
}

/* The body: every block reached from g->body without passing the latch. */
static bool collect_body(struct guarded_loop *g)
{
    g->num_blocks = 0;
    g->blocks[g->num_blocks++] = g->body;
    for (unsigned i = 0; i < g->num_blocks; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[i]);
        if (!t)
            return false;
        unsigned n = LLVMGetNumSuccessors(t);
        if (n == 0)
            return false; /* a return or unreachable inside the loop */
        for (unsigned s = 0; s < n; s++) {
            LLVMBasicBlockRef to = LLVMGetSuccessor(t, s);
            if (to == g->latch || in_loop(g, to)) {
                if (to == g->header)
                    return false;
                continue;
            }
            if (g->num_blocks == NARROW_MAX_BLOCKS)
                return false;
            g->blocks[g->num_blocks++] = to;
        }
    }
    /* Each body block is entered from the loop only: every branch to it is the loop's. */
    for (unsigned i = 0; i < g->num_blocks; i++)
        for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(g->blocks[i])); u;
             u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsAInstruction(user) || !in_loop(g, LLVMGetInstructionParent(user)))
                return false;
        }
    return true;
}

static unsigned count_instructions(LLVMBasicBlockRef bb)
{
    unsigned n = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
        n++;
    return n;
}

static bool used_outside(const struct guarded_loop *g, LLVMValueRef v)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user) || !in_loop(g, LLVMGetInstructionParent(user)))
            return true;
    }
    return false;
}

static bool defined_outside(const struct guarded_loop *g, LLVMValueRef v)
{
    return !LLVMIsAInstruction(v) || !in_loop(g, LLVMGetInstructionParent(v));
}

static bool is_const(LLVMValueRef v, unsigned long long k)
{
    return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k;
}

/* A constant offset into the work-group context of one of its local sizes, in bytes. */
static bool is_local_size_offset(LLVMValueRef off)
{
    if (!LLVMIsAConstantInt(off))
        return false;
    unsigned long long o = LLVMConstIntGetZExtValue(off);
    return o >= offsetof(struct kiln_wg_ctx, enqueued_local_size) &&
           o < offsetof(struct kiln_wg_ctx, local_size) + sizeof(kiln_abi_size) * 3 &&
           o % sizeof(kiln_abi_size) == 0;
}

/* Whether v calls the intrinsic whose name starts with `prefix` (e.g. "llvm.umax."). */
static bool is_intrinsic(LLVMValueRef v, const char *prefix)
{
    if (!LLVMIsACallInst(v))
        return false;
    LLVMValueRef callee = LLVMGetCalledValue(v);
    size_t len = 0;
    const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

bool kiln_cc_small_count(LLVMBasicBlockRef in, LLVMValueRef n)
{
    if (is_intrinsic(n, "llvm.umax."))
        return kiln_cc_small_count(in, LLVMGetOperand(n, 0)) &&
               kiln_cc_small_count(in, LLVMGetOperand(n, 1));
    if (LLVMIsAConstantInt(n))
        return LLVMConstIntGetZExtValue(n) <= KILN_GROUP_SHARED_SLOTS &&
               LLVMGetIntTypeWidth(LLVMTypeOf(n)) <= 64;
    if (!LLVMIsALoadInst(n))
        return false;
    LLVMValueRef fn = LLVMGetBasicBlockParent(in);
    LLVMValueRef gep = LLVMGetOperand(n, 0);
    if (LLVMCountParams(fn) < 2 || !LLVMIsAGetElementPtrInst(gep) || LLVMGetNumOperands(gep) != 2 ||
        LLVMGetOperand(gep, 0) != LLVMGetParam(fn, 1) ||
        LLVMGetGEPSourceElementType(gep) !=
            LLVMInt8TypeInContext(LLVMGetTypeContext(LLVMTypeOf(n))))
        return false;
    return is_local_size_offset(LLVMGetOperand(gep, 1)) &&
           LLVMGetTypeKind(LLVMTypeOf(n)) == LLVMIntegerTypeKind &&
           LLVMGetIntTypeWidth(LLVMTypeOf(n)) == 8 * sizeof(kiln_abi_size);
}

/* Whether v is x truncated, or x masked to its low bits (InstCombine's form of a truncation
 * compared with 0), keeping at least 16 bits either way. */
static bool keeps_low_bits(LLVMValueRef v, LLVMValueRef x)
{
    if (!v || v == x || !LLVMIsAInstruction(v) || LLVMGetOperand(v, 0) != x)
        return false;
    if (LLVMGetInstructionOpcode(v) == LLVMTrunc)
        return LLVMGetIntTypeWidth(LLVMTypeOf(v)) >= 16;
    if (LLVMGetInstructionOpcode(v) != LLVMAnd || !LLVMIsAConstantInt(LLVMGetOperand(v, 1)))
        return false;
    unsigned long long mask = LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1));
    return mask >= 0xffff && (mask & (mask + 1)) == 0;
}

/* Matches the shape above with `latch` ending in the loop's back edge. */
static bool match(LLVMContextRef ctx, LLVMBasicBlockRef latch, struct guarded_loop *g)
{
    LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br) ||
        !LLVMGetMetadata(br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9)))
        return false;
    g->latch = latch;
    /* The exit test: x + 1 against n, leaving on ==, or staying on != or <. */
    LLVMValueRef test = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(test) || LLVMGetInstructionParent(test) != latch)
        return false;
    LLVMIntPredicate pred = LLVMGetICmpPredicate(test);
    LLVMBasicBlockRef t0 = LLVMGetSuccessor(br, 0), t1 = LLVMGetSuccessor(br, 1);
    if (pred == LLVMIntEQ) {
        g->exit = t0;
        g->header = t1;
    } else if (pred == LLVMIntNE || pred == LLVMIntULT) {
        g->header = t0;
        g->exit = t1;
    } else {
        return false;
    }
    g->next = LLVMGetOperand(test, 0);
    g->exit_bound = LLVMGetOperand(test, 1);
    g->exit_test = test;
    if (g->header == latch || g->exit == g->header || !LLVMIsAInstruction(g->next) ||
        LLVMGetInstructionOpcode(g->next) != LLVMAdd ||
        LLVMGetInstructionParent(g->next) != latch || !is_const(LLVMGetOperand(g->next, 1), 1))
        return false;
    g->x = LLVMGetOperand(g->next, 0);
    if (!LLVMIsAPHINode(g->x) || LLVMGetInstructionParent(g->x) != g->header ||
        LLVMCountIncoming(g->x) != 2 || count_instructions(latch) != 3 ||
        LLVMGetTypeKind(LLVMTypeOf(g->x)) != LLVMIntegerTypeKind)
        return false;
    /* x starts at 0 in the preheader. */
    g->pre = NULL;
    for (unsigned k = 0; k < 2; k++) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(g->x, k);
        LLVMValueRef v = LLVMGetIncomingValue(g->x, k);
        if (from == latch && v == g->next)
            continue;
        if (from != latch && is_const(v, 0))
            g->pre = from;
        else
            return false;
    }
    if (!g->pre)
        return false;
    LLVMValueRef pre_br = LLVMGetBasicBlockTerminator(g->pre);
    if (!pre_br || LLVMGetInstructionOpcode(pre_br) != LLVMBr || LLVMIsConditional(pre_br))
        return false;
    /* The header: the phi, perhaps x truncated, the guard, its branch to the body or straight
     * to the latch. */
    LLVMValueRef hbr = LLVMGetBasicBlockTerminator(g->header);
    if (!hbr || LLVMGetInstructionOpcode(hbr) != LLVMBr || !LLVMIsConditional(hbr))
        return false;
    LLVMValueRef guard = LLVMGetCondition(hbr);
    if (!LLVMIsAICmpInst(guard) || LLVMGetInstructionParent(guard) != g->header)
        return false;
    g->trunc = LLVMGetPreviousInstruction(guard);
    if (!keeps_low_bits(g->trunc, g->x))
        g->trunc = NULL;
    if (count_instructions(g->header) != (g->trunc ? 4u : 3u))
        return false;
    LLVMValueRef cmp_x = g->trunc ? g->trunc : g->x;
    LLVMIntPredicate gp = LLVMGetICmpPredicate(guard);
    g->guard_signed = gp == LLVMIntSLT || gp == LLVMIntSGT;
    if ((gp == LLVMIntULT || gp == LLVMIntSLT) && LLVMGetOperand(guard, 0) == cmp_x)
        g->guard_bound = LLVMGetOperand(guard, 1);
    else if ((gp == LLVMIntUGT || gp == LLVMIntSGT) && LLVMGetOperand(guard, 1) == cmp_x)
        g->guard_bound = LLVMGetOperand(guard, 0);
    else if (gp == LLVMIntEQ && LLVMGetOperand(guard, 0) == cmp_x &&
             is_const(LLVMGetOperand(guard, 1), 0))
        g->guard_bound = LLVMConstInt(LLVMTypeOf(cmp_x), 1, 0); /* x == 0 is x < 1 */
    else
        return false;
    /* A truncated or signed compare equals x < bound only for a small x: 4096 fits in the 16
     * bits keeps_low_bits asks for, and in a signed compare of 16 bits or more. */
    if ((g->trunc || g->guard_signed) && (LLVMGetIntTypeWidth(LLVMTypeOf(cmp_x)) < 16 ||
                                          !kiln_cc_small_count(g->header, g->exit_bound)))
        return false;
    if (LLVMGetSuccessor(hbr, 1) != latch || LLVMGetSuccessor(hbr, 0) == latch)
        return false;
    g->body = LLVMGetSuccessor(hbr, 0);
    if (g->body == g->header || !collect_body(g))
        return false;
    /* No phis in the latch or at the exit, nothing of the loop used after it. */
    for (LLVMValueRef in = LLVMGetFirstInstruction(g->exit); in; in = LLVMGetNextInstruction(in))
        if (LLVMIsAPHINode(in))
            return false;
    return !in_loop(g, g->exit) && !in_loop(g, g->pre) && defined_outside(g, g->guard_bound) &&
           defined_outside(g, g->exit_bound) && !used_outside(g, g->x) &&
           !used_outside(g, g->next) && !used_outside(g, guard) &&
           !(g->trunc && used_outside(g, g->trunc));
}

/*
 * The rewrite. The loop keeps the form LLVM's loop passes expect: a preheader of its own
 * (the old one now tests for an empty range, so a new block follows it) and an exit block
 * entered only from the loop (a new block between the latch and the old exit).
 */
static void narrow(LLVMContextRef ctx, struct guarded_loop *g)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMTypeRef t = LLVMTypeOf(g->x);

    /* Preheader: end = min(n, v), v first made max(v, 0) for a signed guard and widened to
     * x's type for a truncated one; an empty range skips the loop. */
    LLVMValueRef pre_br = LLVMGetBasicBlockTerminator(g->pre);
    LLVMPositionBuilderBefore(bld, pre_br);
    LLVMValueRef v = g->guard_bound;
    if (g->guard_signed) {
        LLVMValueRef vzero = LLVMConstNull(LLVMTypeOf(v));
        LLVMValueRef neg = LLVMBuildICmp(bld, LLVMIntSLT, v, vzero, "");
        v = LLVMBuildSelect(bld, neg, vzero, v, "");
    }
    if (LLVMTypeOf(v) != t)
        v = LLVMBuildZExt(bld, v, t, "");
    LLVMValueRef less = LLVMBuildICmp(bld, LLVMIntULT, v, g->exit_bound, "");
    LLVMValueRef end = LLVMBuildSelect(bld, less, v, g->exit_bound, "narrow.end");
    LLVMValueRef none = LLVMBuildICmp(bld, LLVMIntEQ, end, LLVMConstNull(t), "");
    LLVMBasicBlockRef new_pre = LLVMInsertBasicBlockInContext(ctx, g->header, "narrow.ph");
    LLVMBasicBlockRef new_exit = LLVMInsertBasicBlockInContext(ctx, g->exit, "narrow.exit");
    LLVMInstructionEraseFromParent(pre_br);
    LLVMPositionBuilderAtEnd(bld, g->pre);
    LLVMBuildCondBr(bld, none, g->exit, new_pre);
    LLVMPositionBuilderAtEnd(bld, new_pre);
    LLVMBuildBr(bld, g->header);
    LLVMPositionBuilderAtEnd(bld, new_exit);
    LLVMBuildBr(bld, g->exit);

    /* x now comes from the new preheader: a new phi (the C API cannot move an edge). */
    LLVMPositionBuilderBefore(bld, g->x);
    LLVMValueRef x = LLVMBuildPhi(bld, t, "");
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMAddIncoming(x, &zero, &new_pre, 1);
    LLVMAddIncoming(x, &g->next, &g->latch, 1);
    LLVMReplaceAllUsesWith(g->x, x);
    LLVMInstructionEraseFromParent(g->x);
    g->x = x;

    /* Header: straight into the body. */
    LLVMValueRef hbr = LLVMGetBasicBlockTerminator(g->header);
    LLVMValueRef guard = LLVMGetCondition(hbr);
    LLVMInstructionEraseFromParent(hbr);
    LLVMPositionBuilderAtEnd(bld, g->header);
    LLVMBuildBr(bld, g->body);
    if (!LLVMGetFirstUse(guard))
        LLVMInstructionEraseFromParent(guard);

    /* Latch: compare with end, leave through the new exit block. */
    LLVMSetOperand(g->exit_test, 1, end);
    LLVMValueRef br = LLVMGetBasicBlockTerminator(g->latch);
    for (unsigned s = 0; s < 2; s++)
        if (LLVMGetSuccessor(br, s) == g->exit)
            LLVMSetSuccessor(br, s, new_exit);
    LLVMDisposeBuilder(bld);
}

unsigned kiln_cc_narrow_loops(LLVMContextRef ctx, LLVMValueRef fn)
{
    unsigned done = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        struct guarded_loop g;
        if (match(ctx, bb, &g)) {
            narrow(ctx, &g);
            done++;
        }
    }
    return done;
}
