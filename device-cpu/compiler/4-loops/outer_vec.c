/*
 * Vectorising work-item loops that contain loops (a loop pass the optimisation stage runs).
 *
 * LLVM's loop vectoriser widens innermost loops only. A kernel whose work-item runs a
 * loop of its own (n-body: each body loops over all others) leaves the work-item loop
 * outermost, so LLVM tries the kernel's loop instead, which is usually a reduction it
 * may not reorder, and nothing is vectorised. LLVM has a second path that widens an
 * outer loop whose inner loops have the same trip count in every lane (the "VPlan-native
 * path", -enable-vplan-native-path, for outer loops that carry an explicit
 * llvm.loop.vectorize.enable and width). That path checks the control flow (uniform
 * inner loops, no divergent branches, integer inductions only) but, being experimental,
 * not the instructions: a vector-typed value, an atomic or an arbitrary call makes it
 * build broken IR. So Kiln splits default<O3> just before the loop vectoriser and, on
 * the IR the vectoriser is about to see, picks the loops it may hand to that path:
 *
 *  - an x loop of a work-group function (its latch carries the work-item loop's
 *    llvm.loop.parallel_accesses) that contains a loop, or that is innermost and computes
 *    in vectors of at most half a register (float4 with AVX-512) with every address affine
 *    in its counter: LLVM's ordinary path then widens it once its vectors are split, and
 *    a float4 element per work-item becomes an interleaved group of vector loads;
 *  - every instruction in it is a branch, phi, scalar arithmetic, comparison, cast,
 *    select, getelementptr, a call of an intrinsic from a fixed list of ones with vector
 *    forms, or a simple (not atomic, not volatile) load or store tagged with the loop's
 *    access group: shared memory only, no private memory that the lanes would share;
 *  - no value in it is a vector, structure or array. Vector code (float4 arithmetic,
 *    say) is first split into scalars by LLVM's scalarizer, on the chosen functions
 *    only, so that it is widened across work-items instead.
 *
 * Such a loop gets llvm.loop.vectorize.enable and a width (the host's float lanes, or 32
 * for a loop computing in half alone on a host with AVX-512 FP16).
 * After the vectoriser, the hint is removed again from every loop it did not vectorise
 * (so the missed-transformation warning never reaches a build log), and a gather whose
 * lanes all read one address (the inner loop's uniform loads, which the native path
 * widens into gathers of a vector induction variable) becomes one load and a
 * broadcast. Then the rest of default<O3> runs.
 *
 * Between the halves, before the picking, loops guarded by their induction variable are
 * narrowed (narrow_loops.c).
 *
 * The parts of default<O3> and the order of these steps are the optimisation stage's
 * (5-optimize/optimize.c, o3_pipeline.c): it calls kiln_cc_outer_vec_choose before the
 * loop vectoriser and kiln_cc_outer_vec_finish after it.
 */
#include "loops.h"

#include <llvm-c/DebugInfo.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Intrinsics the native path widens into their vector forms (name prefixes). */
static const char *const widenable[] = {
    "llvm.sqrt.",      "llvm.fma.",      "llvm.fmuladd.",  "llvm.fabs.",      "llvm.minnum.",
    "llvm.maxnum.",    "llvm.minimum.",  "llvm.maximum.",  "llvm.copysign.",  "llvm.floor.",
    "llvm.ceil.",      "llvm.trunc.",    "llvm.rint.",     "llvm.nearbyint.", "llvm.round.",
    "llvm.roundeven.", "llvm.smin.",     "llvm.smax.",     "llvm.umin.",      "llvm.umax.",
    "llvm.abs.",       "llvm.ctpop.",    "llvm.ctlz.",     "llvm.cttz.",      "llvm.fshl.",
    "llvm.fshr.",      "llvm.sadd.sat.", "llvm.uadd.sat.", "llvm.ssub.sat.",  "llvm.usub.sat.",
};

/* One work-item loop found in a work-group function. */
struct wi_loop {
    LLVMValueRef latch_br; /* the branch carrying the loop id */
    LLVMBasicBlockRef header;
    LLVMValueRef group; /* the access group, as a value */
    struct kiln_cc_ptr_map blocks;
    bool nested; /* it contains a loop */
};

bool kiln_cc_loop_blocks(LLVMBasicBlockRef latch, LLVMBasicBlockRef header,
                         struct kiln_cc_ptr_map *out, bool *oom)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(latch));
    size_t cap = 64, top = 0;
    LLVMBasicBlockRef *stack = malloc(cap * sizeof(*stack));
    bool ok = true;

    *oom = !stack || !kiln_cc_ptr_map_add(out, header) || !kiln_cc_ptr_map_add(out, latch);
    if (*oom) {
        free(stack);
        return false;
    }
    if (latch != header)
        stack[top++] = latch;
    while (top > 0 && ok && !*oom) {
        LLVMBasicBlockRef bb = stack[--top];
        if (bb == entry) {
            ok = false;
            break;
        }
        /* Predecessors: the users of the block that are terminators. */
        for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsATerminatorInst(user))
                continue;
            LLVMBasicBlockRef pred = LLVMGetInstructionParent(user);
            if (kiln_cc_ptr_map_has(out, pred))
                continue;
            if (!kiln_cc_ptr_map_add(out, pred)) {
                *oom = true;
                break;
            }
            if (top == cap) {
                LLVMBasicBlockRef *more = realloc(stack, 2 * cap * sizeof(*stack));
                if (!more) {
                    *oom = true;
                    break;
                }
                stack = more;
                cap *= 2;
            }
            stack[top++] = pred;
        }
    }
    free(stack);
    return ok && !*oom;
}

/*
 * Whether the loop's blocks, without the edges back to its header, hold a cycle (an
 * inner loop). With `latches`, every block closing such a cycle is added to it (the
 * terminator of each is a back edge's branch), and with `headers` every block such a back
 * edge goes to (an inner loop's header); without either, the walk stops at the first.
 */
static bool inner_loops(const struct wi_loop *l, struct kiln_cc_ptr_map *latches,
                        struct kiln_cc_ptr_map *headers)
{
    bool all = latches || headers;
    /* Depth-first: grey while on the stack, then done as well. */
    struct kiln_cc_ptr_map grey = {0}, done = {0};
    bool cycle = false, oom = false;
    size_t cap = 64, top = 0;
    struct frame {
        LLVMBasicBlockRef bb;
        unsigned next;
    } *stack = malloc(cap * sizeof(*stack));

    if (!stack)
        return false;
    stack[top++] = (struct frame){l->header, 0};
    oom = !kiln_cc_ptr_map_add(&grey, l->header);
    while (top > 0 && !oom && !(cycle && !all)) {
        struct frame *f = &stack[top - 1];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(f->bb);
        unsigned n = term ? LLVMGetNumSuccessors(term) : 0;
        if (f->next >= n) {
            oom = !kiln_cc_ptr_map_add(&done, f->bb);
            top--;
            continue;
        }
        LLVMBasicBlockRef bb = f->bb, s = LLVMGetSuccessor(term, f->next++);
        if (s == l->header || !kiln_cc_ptr_map_has(&l->blocks, s) || kiln_cc_ptr_map_has(&done, s))
            continue;
        if (kiln_cc_ptr_map_has(&grey, s)) {
            cycle = true;
            if ((latches && !kiln_cc_ptr_map_add(latches, bb)) ||
                (headers && !kiln_cc_ptr_map_add(headers, s)))
                oom = true;
            continue;
        }
        if (top == cap) {
            struct frame *more = realloc(stack, 2 * cap * sizeof(*stack));
            if (!more) {
                oom = true;
                break;
            }
            stack = more;
            cap *= 2;
        }
        oom = !kiln_cc_ptr_map_add(&grey, s);
        stack[top++] = (struct frame){s, 0};
    }
    free(stack);
    kiln_cc_ptr_map_free(&grey);
    kiln_cc_ptr_map_free(&done);
    return cycle && !oom;
}

static bool scalar_type(LLVMTypeRef t, bool allow_vector)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
        return LLVMGetIntTypeWidth(t) <= 64;
    case LLVMHalfTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
    case LLVMPointerTypeKind:
    case LLVMVoidTypeKind:
        return true;
    case LLVMVectorTypeKind:
        return allow_vector && scalar_type(LLVMGetElementType(t), false);
    default:
        return false;
    }
}

static bool widenable_call(LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (!callee || !LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee))
        return false;
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    for (size_t i = 0; i < sizeof(widenable) / sizeof(widenable[0]); i++)
        if (strncmp(name, widenable[i], strlen(widenable[i])) == 0)
            return true;
    return false;
}

/*
 * Whether every instruction of the loop is one the native path widens correctly.
 * With `vectors`, fixed vectors of scalars (and the element operations on them) pass
 * too: the scalarizer is about to split them.
 */
static bool widenable_body(LLVMContextRef ctx, const struct wi_loop *l, LLVMValueRef fn,
                           bool vectors)
{
    unsigned ag_kind = LLVMGetMDKindIDInContext(ctx, "llvm.access.group", 17);

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            switch (op) {
            case LLVMBr:
                continue; /* the vectoriser checks the conditions itself */
            case LLVMExtractElement:
            case LLVMInsertElement:
            case LLVMShuffleVector:
                if (!vectors)
                    return false;
                break;
            case LLVMCall:
                if (!widenable_call(in))
                    return false;
                break;
            case LLVMLoad:
            case LLVMStore: {
                if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
                    return false;
                LLVMValueRef tag = LLVMGetMetadata(in, ag_kind);
                if (!tag || tag != l->group)
                    return false;
                break;
            }
            case LLVMPHI:
                break;
            default:
                if (!kiln_cc_plain_opcode(op))
                    return false;
                break;
            }
            if (!scalar_type(LLVMTypeOf(in), vectors))
                return false;
            int n = LLVMGetNumOperands(in);
            for (int i = 0; i < n; i++) {
                LLVMValueRef v = LLVMGetOperand(in, (unsigned)i);
                if (op == LLVMCall && i == n - 1)
                    break; /* the callee */
                if (!scalar_type(LLVMTypeOf(v), vectors))
                    return false;
            }
        }
    }
    return true;
}

/* The work-item loops of `fn`, nested or not; *n set. NULL with *n 0 if none. */
static struct wi_loop *find_loops(LLVMContextRef ctx, LLVMValueRef fn, unsigned *n, bool *oom)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    struct wi_loop *loops = NULL;
    unsigned cap = 0;

    *n = 0;
    *oom = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
        LLVMValueRef id = br ? LLVMGetMetadata(br, loop_kind) : NULL;
        if (!id)
            continue;
        LLVMValueRef pa = kiln_cc_loop_entry(id, "llvm.loop.parallel_accesses");
        if (!pa || LLVMGetMDNodeNumOperands(pa) != 2)
            continue;
        unsigned m;
        LLVMValueRef *pa_ops = kiln_cc_md_operands(pa, &m);
        if (!pa_ops) {
            *oom = true;
            break;
        }
        struct wi_loop l = {.latch_br = br, .group = pa_ops[1]};
        free(pa_ops);
        for (unsigned s = 0; s < LLVMGetNumSuccessors(br) && !l.header; s++) {
            bool no_mem = false;
            kiln_cc_ptr_map_free(&l.blocks);
            if (kiln_cc_loop_blocks(bb, LLVMGetSuccessor(br, s), &l.blocks, &no_mem))
                l.header = LLVMGetSuccessor(br, s);
            *oom |= no_mem;
        }
        if (!*oom && l.header)
            l.nested = inner_loops(&l, NULL, NULL);
        if (*oom || !l.header) {
            kiln_cc_ptr_map_free(&l.blocks);
            if (*oom)
                break;
            continue;
        }
        if (*n == cap) {
            struct wi_loop *more = realloc(loops, (cap ? 2 * cap : 4) * sizeof(*loops));
            if (!more) {
                kiln_cc_ptr_map_free(&l.blocks);
                *oom = true;
                break;
            }
            loops = more;
            cap = cap ? 2 * cap : 4;
        }
        loops[(*n)++] = l;
    }
    return loops;
}

static void loops_free(struct wi_loop *loops, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        kiln_cc_ptr_map_free(&loops[i].blocks);
    free(loops);
}

static LLVMMetadataRef md_pair(LLVMContextRef ctx, const char *name, LLVMValueRef value)
{
    LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(ctx, name, strlen(name)),
                              LLVMValueAsMetadata(value)};
    return LLVMMDNodeInContext2(ctx, ops, 2);
}

/* ---- gathers of one address ---- */

/* Whether constant vector c has the same element in every lane (not poison). */
static bool splat_constant(LLVMValueRef c)
{
    if (!LLVMIsConstant(c) || LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMVectorTypeKind)
        return false;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMValueRef first = LLVMGetAggregateElement(c, 0);
    if (!first || LLVMIsUndef(first) || LLVMIsPoison(first))
        return false;
    for (unsigned i = 1; i < n; i++)
        if (LLVMGetAggregateElement(c, i) != first)
            return false;
    return true;
}

/* A shufflevector whose every lane is lane 0 of its first operand. */
static bool broadcast_shuffle(LLVMValueRef v)
{
    if (!LLVMIsAShuffleVectorInst(v))
        return false;
    unsigned n = LLVMGetNumMaskElements(v);
    for (unsigned i = 0; i < n; i++)
        if (LLVMGetMaskValue(v, i) != 0)
            return false;
    return n > 0;
}

static bool is_vector(LLVMValueRef v)
{
    return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}

/*
 * Vector instructions whose lanes are all equal: broadcasts, and phis, arithmetic,
 * casts and getelementptrs of such values, splat constants and scalars (a scalar
 * operand is the same for every lane). Optimistic over phi cycles: every candidate
 * starts uniform and loses it once an operand is known not to be.
 */
struct uniform {
    LLVMContextRef ctx;
    struct kiln_cc_ptr_map set;     /* the uniform instructions */
    struct kiln_cc_ptr_map scalars; /* instruction -> its scalar value, once built */
    bool oom;
};

static bool candidate(LLVMValueRef in)
{
    if (!is_vector(in))
        return false;
    if (broadcast_shuffle(in) || LLVMIsAPHINode(in) || LLVMIsAGetElementPtrInst(in) ||
        LLVMIsACastInst(in))
        return true;
    return LLVMIsABinaryOperator(in) != NULL;
}

static bool operand_uniform(const struct uniform *u, LLVMValueRef v)
{
    if (!is_vector(v))
        return true;
    if (LLVMIsAInstruction(v))
        return kiln_cc_ptr_map_has(&u->set, v);
    return splat_constant(v);
}

static void find_uniform(struct uniform *u, LLVMValueRef fn)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            if (candidate(in) && !kiln_cc_ptr_map_add(&u->set, in))
                u->oom = true;
    for (bool changed = true; changed && !u->oom;) {
        changed = false;
        for (size_t i = 0; i < u->set.cap; i++) {
            LLVMValueRef in = (LLVMValueRef)u->set.keys[i];
            if (!in || broadcast_shuffle(in))
                continue;
            int n = LLVMGetNumOperands(in);
            bool ok = true;
            for (int o = 0; o < n && ok; o++)
                ok = operand_uniform(u, LLVMGetOperand(in, (unsigned)o));
            if (!ok) {
                kiln_cc_ptr_map_remove(&u->set, in);
                changed = true;
                i = (size_t)-1; /* the table moved entries: start over */
            }
        }
    }
}

/* The scalar every lane of uniform vector v holds, built before v where needed. */
static LLVMValueRef scalar_of(struct uniform *u, LLVMValueRef v)
{
    if (!is_vector(v))
        return v;
    if (!LLVMIsAInstruction(v))
        return LLVMGetAggregateElement(v, 0);
    LLVMValueRef done = kiln_cc_ptr_map_get(&u->scalars, v);
    if (done)
        return done;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(u->ctx);
    LLVMTypeRef elem = LLVMGetElementType(LLVMTypeOf(v));
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(u->ctx);
    LLVMValueRef s;
    LLVMPositionBuilderBefore(bld, v);
    if (broadcast_shuffle(v)) {
        LLVMValueRef src = LLVMGetOperand(v, 0);
        LLVMValueRef lane = LLVMIsAInsertElementInst(src) ? LLVMGetOperand(src, 2) : NULL;
        if (lane && LLVMIsAConstantInt(lane) && LLVMConstIntGetZExtValue(lane) == 0)
            s = LLVMGetOperand(src, 1);
        else
            s = LLVMBuildExtractElement(bld, src, LLVMConstInt(i64, 0, 0), "");
    } else if (LLVMIsAPHINode(v)) {
        s = LLVMBuildPhi(bld, elem, "");
        if (!kiln_cc_ptr_map_put(&u->scalars, v, s))
            u->oom = true;
        unsigned n = LLVMCountIncoming(v);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef in = scalar_of(u, LLVMGetIncomingValue(v, i));
            LLVMBasicBlockRef from = LLVMGetIncomingBlock(v, i);
            LLVMAddIncoming(s, &in, &from, 1);
        }
    } else if (LLVMIsAGetElementPtrInst(v)) {
        unsigned n = (unsigned)LLVMGetNumOperands(v);
        LLVMValueRef *idx = malloc(n * sizeof(*idx));
        if (!idx) {
            u->oom = true;
            LLVMDisposeBuilder(bld);
            return LLVMGetUndef(elem);
        }
        for (unsigned i = 1; i < n; i++)
            idx[i - 1] = scalar_of(u, LLVMGetOperand(v, i));
        LLVMPositionBuilderBefore(bld, v);
        s = LLVMBuildGEP2(bld, LLVMGetGEPSourceElementType(v), scalar_of(u, LLVMGetOperand(v, 0)),
                          idx, n - 1, "");
        LLVMSetIsInBounds(s, LLVMIsInBounds(v));
        free(idx);
    } else if (LLVMIsACastInst(v)) {
        LLVMValueRef a = scalar_of(u, LLVMGetOperand(v, 0));
        LLVMPositionBuilderBefore(bld, v);
        s = LLVMBuildCast(bld, LLVMGetInstructionOpcode(v), a, elem, "");
    } else if (LLVMGetInstructionOpcode(v) == LLVMFNeg) {
        LLVMValueRef a = scalar_of(u, LLVMGetOperand(v, 0));
        LLVMPositionBuilderBefore(bld, v);
        s = LLVMBuildFNeg(bld, a, "");
    } else {
        LLVMValueRef a = scalar_of(u, LLVMGetOperand(v, 0));
        LLVMValueRef c = scalar_of(u, LLVMGetOperand(v, 1));
        LLVMPositionBuilderBefore(bld, v);
        s = LLVMBuildBinOp(bld, LLVMGetInstructionOpcode(v), a, c, "");
    }
    LLVMDisposeBuilder(bld);
    if (!LLVMIsAPHINode(v) && !kiln_cc_ptr_map_put(&u->scalars, v, s))
        u->oom = true;
    return s;
}

/*
 * Whether the lanes of integer vector v are x, x + 1, ..., x + n - 1 for some x: a constant
 * so made, the sum of such a vector and a uniform one, or a phi whose incoming values are
 * such vectors or the phi plus a uniform vector (the vectoriser's induction of the work-item
 * index). `depth` bounds the walk.
 */
static bool consecutive(const struct uniform *u, LLVMValueRef v, LLVMValueRef phi, int depth)
{
    if (depth > 8 || !is_vector(v) ||
        LLVMGetTypeKind(LLVMGetElementType(LLVMTypeOf(v))) != LLVMIntegerTypeKind)
        return false;
    if (LLVMIsConstant(v)) {
        unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
        LLVMValueRef first = LLVMGetAggregateElement(v, 0);
        if (!first || !LLVMIsAConstantInt(first))
            return false;
        long long base = LLVMConstIntGetSExtValue(first);
        for (unsigned i = 1; i < n; i++) {
            LLVMValueRef e = LLVMGetAggregateElement(v, i);
            if (!e || !LLVMIsAConstantInt(e) || LLVMConstIntGetSExtValue(e) != base + (long long)i)
                return false;
        }
        return true;
    }
    if (LLVMIsAPHINode(v)) {
        if (v == phi)
            return false;
        unsigned n = LLVMCountIncoming(v);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef in = LLVMGetIncomingValue(v, i);
            bool step =
                LLVMIsABinaryOperator(in) && LLVMGetInstructionOpcode(in) == LLVMAdd &&
                ((LLVMGetOperand(in, 0) == v && operand_uniform(u, LLVMGetOperand(in, 1))) ||
                 (LLVMGetOperand(in, 1) == v && operand_uniform(u, LLVMGetOperand(in, 0))));
            if (!step && !consecutive(u, in, v, depth + 1))
                return false;
        }
        return true;
    }
    if (LLVMIsABinaryOperator(v) && LLVMGetInstructionOpcode(v) == LLVMAdd) {
        LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
        return (operand_uniform(u, a) && consecutive(u, b, phi, depth + 1)) ||
               (operand_uniform(u, b) && consecutive(u, a, phi, depth + 1));
    }
    return false;
}

/*
 * A gather or scatter (all-ones mask) whose lanes address consecutive elements,
 * getelementptr T, uniform base, x + <0, 1, ...> with T the accessed type, becomes one
 * vector load or store at lane 0's address: the native path widens every access of the
 * work-item index into a gather, and AVX-512 has no gather of 16-bit elements at all.
 */
static bool vectorise_consecutive(struct uniform *u, LLVMBuilderRef bld, LLVMValueRef call)
{
    bool is_store = LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMVoidTypeKind;
    LLVMValueRef ptrs = LLVMGetOperand(call, is_store ? 1 : 0);
    LLVMTypeRef vt = is_store ? LLVMTypeOf(LLVMGetOperand(call, 0)) : LLVMTypeOf(call);
    if (!LLVMIsAGetElementPtrInst(ptrs) || LLVMGetNumOperands(ptrs) != 2 ||
        LLVMGetGEPSourceElementType(ptrs) != LLVMGetElementType(vt) ||
        !operand_uniform(u, LLVMGetOperand(ptrs, 0)) ||
        !consecutive(u, LLVMGetOperand(ptrs, 1), NULL, 0))
        return false;
    LLVMValueRef idx = LLVMGetOperand(ptrs, 1);
    LLVMValueRef base = scalar_of(u, LLVMGetOperand(ptrs, 0));
    LLVMPositionBuilderBefore(bld, call);
    LLVMValueRef first =
        LLVMBuildExtractElement(bld, idx, LLVMConstInt(LLVMInt64TypeInContext(u->ctx), 0, 0), "");
    LLVMValueRef p = LLVMBuildGEP2(bld, LLVMGetElementType(vt), base, &first, 1, "");
    LLVMSetIsInBounds(p, LLVMIsInBounds(ptrs));
    unsigned align = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, is_store ? 2 : 1));
    LLVMValueRef access;
    if (is_store) {
        access = LLVMBuildStore(bld, LLVMGetOperand(call, 0), p);
    } else {
        access = LLVMBuildLoad2(bld, vt, p, "");
        LLVMReplaceAllUsesWith(call, access);
    }
    LLVMSetAlignment(access, align);
    /* The loop's access group and alias facts stay with the access. */
    LLVMValueRef md;
    const char *const kinds[] = {"llvm.access.group", "tbaa", "alias.scope", "noalias"};
    for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        unsigned id = LLVMGetMDKindIDInContext(u->ctx, kinds[k], (unsigned)strlen(kinds[k]));
        if ((md = LLVMGetMetadata(call, id)) != NULL)
            LLVMSetMetadata(access, id, md);
    }
    LLVMInstructionEraseFromParent(call);
    return true;
}

/*
 * Rewrites every llvm.masked.gather of fn whose mask is all ones and whose address
 * vector is uniform into one load and a broadcast: each lane would load the same
 * address; and every such gather or scatter of consecutive elements into one vector
 * load or store. The vector computations left without users are cleaned up by
 * instcombine.
 */
static bool scalarise_uniform_gathers(LLVMContextRef ctx, LLVMValueRef fn)
{
    static const char gather[] = "llvm.masked.gather.", scatter[] = "llvm.masked.scatter.";
    struct uniform u = {.ctx = ctx};
    size_t n = 0, cap = 0;
    LLVMValueRef *calls = NULL;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMValueRef callee = LLVMIsACallInst(in) ? LLVMGetCalledValue(in) : NULL;
            size_t len;
            const char *name =
                callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
            bool is_scatter = strncmp(name, scatter, sizeof(scatter) - 1) == 0;
            if (!is_scatter && strncmp(name, gather, sizeof(gather) - 1) != 0)
                continue;
            LLVMValueRef mask = LLVMGetOperand(in, is_scatter ? 3 : 2);
            if (mask != LLVMConstAllOnes(LLVMTypeOf(mask)))
                continue;
            if (n == cap) {
                LLVMValueRef *more = realloc(calls, (cap ? 2 * cap : 16) * sizeof(*calls));
                if (!more) {
                    free(calls);
                    return false;
                }
                calls = more;
                cap = cap ? 2 * cap : 16;
            }
            calls[n++] = in;
        }
    }
    if (n == 0)
        return true;
    find_uniform(&u, fn);
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    for (size_t i = 0; i < n && !u.oom; i++) {
        LLVMValueRef call = calls[i];
        if (vectorise_consecutive(&u, bld, call))
            continue;
        LLVMValueRef ptrs = LLVMGetOperand(call, 0);
        if (LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMVoidTypeKind || !operand_uniform(&u, ptrs))
            continue;
        LLVMValueRef p = scalar_of(&u, ptrs);
        LLVMTypeRef vt = LLVMTypeOf(call);
        LLVMPositionBuilderBefore(bld, call);
        LLVMValueRef x = LLVMBuildLoad2(bld, LLVMGetElementType(vt), p, "");
        LLVMSetAlignment(x, (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, 1)));
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        LLVMValueRef one =
            LLVMBuildInsertElement(bld, LLVMGetPoison(vt), x, LLVMConstInt(i32, 0, 0), "");
        LLVMValueRef all =
            LLVMBuildShuffleVector(bld, one, LLVMGetPoison(vt),
                                   LLVMConstNull(LLVMVectorType(i32, LLVMGetVectorSize(vt))), "");
        LLVMReplaceAllUsesWith(call, all);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(bld);
    bool ok = !u.oom;
    kiln_cc_ptr_map_free(&u.set);
    kiln_cc_ptr_map_free(&u.scalars);
    free(calls);
    return ok;
}

/* ---- the stage ---- */

/* Float lanes of the host's widest vectors. */
unsigned kiln_cc_host_lanes(const struct kiln_cc_host *host)
{
    if (host->avx512)
        return 16;
    if (strstr(host->features, "+avx,") || strstr(host->features, "+avx2,"))
        return 8;
    return 4;
}

/*
 * Whether loop l computes in half and in no wider floating-point type: with AVX-512 FP16
 * such a loop is widened to 32 lanes, one 512-bit register of halves.
 */
static bool half_only(const struct wi_loop *l, LLVMValueRef fn)
{
    bool half = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(in));
            if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind)
                return false;
            half |= k == LLVMHalfTypeKind;
        }
    }
    return half;
}

/* Bits of a vector type. */
unsigned kiln_cc_vector_bits(LLVMTypeRef t)
{
    LLVMTypeRef e = LLVMGetElementType(t);
    unsigned bits = LLVMGetTypeKind(e) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(e)
                    : LLVMGetTypeKind(e) == LLVMHalfTypeKind  ? 16
                    : LLVMGetTypeKind(e) == LLVMFloatTypeKind ? 32
                                                              : 64;
    return LLVMGetVectorSize(t) * bits;
}

/* The widest vector value of loop l in bits, 0 when it has none. */
static unsigned widest_vector(const struct wi_loop *l, LLVMValueRef fn)
{
    unsigned widest = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMTypeRef t = LLVMTypeOf(in);
            if (LLVMGetTypeKind(t) == LLVMVectorTypeKind && kiln_cc_vector_bits(t) > widest)
                widest = kiln_cc_vector_bits(t);
        }
    }
    return widest;
}

/*
 * Whether loop l holds vector values and none wider than `max_bits`: float4 code in a
 * loop of its own, which the vectoriser leaves alone (it widens scalars only) and which
 * fills less than half a register per work-item. Vectors of a whole register or more
 * (uint16 hashing on AVX-512) already are as wide as widening across work-items would
 * make them, without the gathers.
 */
static bool narrow_vectors(const struct wi_loop *l, LLVMValueRef fn, unsigned max_bits)
{
    unsigned widest = widest_vector(l, fn);
    return widest > 0 && widest <= max_bits;
}

/* The loop's counter: the header phi that the latch steps by one. */
static LLVMValueRef counter(const struct wi_loop *l)
{
    LLVMValueRef next;
    return kiln_cc_loop_counter(l->header, &next);
}

/* What varies() found so far, for one loop. */
struct varying {
    const struct wi_loop *l;
    struct kiln_cc_ptr_map yes, no;
    bool oom;
};

/* Whether v may differ between iterations of the loop: x, a load, a phi or a call in it
 * (but a widenable intrinsic), or arithmetic on such a value. */
static bool varies(struct varying *m, LLVMValueRef v, int depth)
{
    if (!LLVMIsAInstruction(v) ||
        !kiln_cc_ptr_map_has(&m->l->blocks, LLVMGetInstructionParent(v)) ||
        kiln_cc_ptr_map_has(&m->no, v))
        return false;
    if (kiln_cc_ptr_map_has(&m->yes, v))
        return true;
    bool call = LLVMIsACallInst(v) != NULL;
    bool result = depth > 16 || LLVMIsAPHINode(v) || (call && !widenable_call(v)) ||
                  (!call && !kiln_cc_plain_opcode(LLVMGetInstructionOpcode(v)));
    int n = LLVMGetNumOperands(v) - (call ? 1 : 0);
    for (int k = 0; k < n && !result; k++)
        result = varies(m, LLVMGetOperand(v, (unsigned)k), depth + 1);
    m->oom |= !kiln_cc_ptr_map_add(result ? &m->yes : &m->no, v);
    return result;
}

/*
 * Whether v is an affine function of the counter x as LLVM's analyses will see it (or does
 * not depend on the loop): adds, subtracts, multiplies and shifts by constants, address
 * arithmetic, and extensions of arithmetic that does not wrap. Conservative: a false "no"
 * only leaves a loop as it was.
 */
static bool affine_in(struct varying *m, LLVMValueRef x, LLVMValueRef v, int depth)
{
    if (v == x || !varies(m, v, 0))
        return true;
    if (depth > 16)
        return false;
    LLVMValueRef a = LLVMGetOperand(v, 0);
    uint64_t c;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd:
    case LLVMSub:
        return affine_in(m, x, a, depth + 1) && affine_in(m, x, LLVMGetOperand(v, 1), depth + 1);
    case LLVMOr:
        return LLVMGetIsDisjoint(v) && affine_in(m, x, a, depth + 1) &&
               affine_in(m, x, LLVMGetOperand(v, 1), depth + 1);
    case LLVMMul:
    case LLVMShl:
        return kiln_cc_const_u64(LLVMGetOperand(v, 1), &c) && affine_in(m, x, a, depth + 1);
    case LLVMSExt:
    case LLVMZExt:
        /* An extension is affine where what it extends cannot wrap. */
        if (a != x && !(LLVMIsAInstruction(a) &&
                        (LLVMGetInstructionOpcode(v) == LLVMSExt ? LLVMGetNSW(a) : LLVMGetNUW(a))))
            return false;
        return affine_in(m, x, a, depth + 1);
    case LLVMGetElementPtr: {
        int n = LLVMGetNumOperands(v);
        for (int k = 0; k < n; k++)
            if (!affine_in(m, x, LLVMGetOperand(v, (unsigned)k), depth + 1))
                return false;
        return true;
    }
    default:
        return false;
    }
}

/*
 * Whether every load and store of loop l has an address affine in its counter: widened
 * across work-items, each access stays a vector load or store. A data-dependent address
 * would become a gather per channel, where the work-item's own vector code loads a whole
 * pixel at once.
 */
static bool affine_accesses(const struct wi_loop *l, LLVMValueRef fn)
{
    struct varying m = {.l = l};
    LLVMValueRef x = counter(l);
    bool ok = x != NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok;
         bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && ok;
             in = LLVMGetNextInstruction(in)) {
            if (LLVMIsALoadInst(in))
                ok = affine_in(&m, x, LLVMGetOperand(in, 0), 0);
            else if (LLVMIsAStoreInst(in))
                ok = affine_in(&m, x, LLVMGetOperand(in, 1), 0);
        }
    }
    kiln_cc_ptr_map_free(&m.yes);
    kiln_cc_ptr_map_free(&m.no);
    return ok && !m.oom;
}

/*
 * Marks the chosen loops of the work-group functions; fns/chosen say which functions.
 * A loop is chosen when its body is widenable and it either contains a loop (the
 * native path) or is innermost with narrow vector code (the ordinary path, once the
 * scalarizer has split the vectors).
 */
enum kiln_cc_status kiln_cc_outer_vec_choose(struct kiln_cc_build *b, LLVMValueRef *fns,
                                             bool *chosen, unsigned nfns, unsigned *nchosen)
{
    unsigned lanes = kiln_cc_host_lanes(b->host);
    unsigned loop_kind = LLVMGetMDKindIDInContext(b->ctx, "llvm.loop", 9);
    struct kiln_cc_ptr_map picked = {0}; /* latch branches of the chosen loops */
    enum kiln_cc_status status = KILN_CC_OK;

    *nchosen = 0;
    /* First pass: structural candidates, before scalarising anything. */
    for (unsigned f = 0; f < nfns && status == KILN_CC_OK; f++) {
        unsigned n;
        bool oom;
        struct wi_loop *loops = find_loops(b->ctx, fns[f], &n, &oom);
        chosen[f] = false;
        for (unsigned i = 0; i < n && !oom; i++) {
            LLVMValueRef id = LLVMGetMetadata(loops[i].latch_br, loop_kind);
            if (kiln_cc_loop_entry(id, "llvm.loop.vectorize.enable"))
                continue; /* someone decided already (clamp_split.c) */
            /* A loop of wide vectors is jammed instead (kiln_cc_jam_wide_loops). */
            if ((loops[i].nested ? widest_vector(&loops[i], fns[f]) <= lanes * 32 / 2
                                 : (narrow_vectors(&loops[i], fns[f], lanes * 32 / 2) &&
                                    affine_accesses(&loops[i], fns[f]))) &&
                widenable_body(b->ctx, &loops[i], fns[f], true)) {
                oom = !kiln_cc_ptr_map_add(&picked, loops[i].latch_br);
                chosen[f] = true;
            }
        }
        *nchosen += chosen[f];
        loops_free(loops, n);
        if (oom)
            status = KILN_CC_OUT_OF_MEMORY;
    }
    if (*nchosen == 0 || status != KILN_CC_OK) {
        kiln_cc_ptr_map_free(&picked);
        return status;
    }
    /* Vector code of the chosen functions becomes scalar code, widened across lanes. */
    status = kiln_cc_run_on(b, fns, chosen, nfns,
                            "function(scalarizer,instcombine<no-verify-fixpoint>,early-cse<>,dce)");
    LLVMTypeRef i1 = LLVMInt1TypeInContext(b->ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(b->ctx);
    LLVMMetadataRef hints[2] = {
        md_pair(b->ctx, "llvm.loop.vectorize.enable", LLVMConstInt(i1, 1, 0)),
        md_pair(b->ctx, "llvm.loop.vectorize.width", LLVMConstInt(i32, lanes, 0)),
    };
    LLVMMetadataRef half_hints[2] = {
        hints[0],
        md_pair(b->ctx, "llvm.loop.vectorize.width", LLVMConstInt(i32, 32, 0)),
    };
    *nchosen = 0;
    for (unsigned f = 0; f < nfns && status == KILN_CC_OK; f++) {
        if (!chosen[f])
            continue;
        unsigned n;
        bool oom;
        struct wi_loop *loops = find_loops(b->ctx, fns[f], &n, &oom);
        chosen[f] = false;
        for (unsigned i = 0; i < n && !oom; i++) {
            if (!kiln_cc_ptr_map_has(&picked, loops[i].latch_br) ||
                !widenable_body(b->ctx, &loops[i], fns[f], false))
                continue;
            bool wide = b->host->avx512fp16 && half_only(&loops[i], fns[f]);
            oom = !kiln_cc_loop_id_replace(b->ctx, loops[i].latch_br, NULL, 0,
                                           wide ? half_hints : hints, 2);
            chosen[f] = true;
        }
        *nchosen += chosen[f];
        loops_free(loops, n);
        if (oom)
            status = KILN_CC_OUT_OF_MEMORY;
    }
    kiln_cc_ptr_map_free(&picked);
    return status;
}

/* Adds llvm.loop.unroll.disable to the loop the branch `br` closes. */
static bool no_unroll(LLVMContextRef ctx, LLVMValueRef br)
{
    static const char *const drop[] = {"llvm.loop.unroll.disable"};
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    LLVMMetadataRef off = LLVMMDNodeInContext2(
        ctx, (LLVMMetadataRef[]){LLVMMDStringInContext2(ctx, drop[0], strlen(drop[0]))}, 1);
    if (LLVMGetMetadata(br, loop_kind))
        return kiln_cc_loop_id_replace(ctx, br, drop, 1, &off, 1);
    LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, NULL, 0);
    LLVMMetadataRef id = LLVMMDNodeInContext2(ctx, (LLVMMetadataRef[]){self, off}, 2);
    LLVMMetadataReplaceAllUsesWith(self, id);
    LLVMSetMetadata(br, loop_kind, LLVMMetadataAsValue(ctx, id));
    return true;
}

/*
 * The vectoriser keeps the scalar work-item loop for the last work-items of a group
 * (fewer than the width). Unrolling it and the loops inside it would only make code,
 * so it and its inner loops are marked not to be unrolled. It is the vectorised
 * work-item loop whose body holds no vector values.
 */
static bool keep_remainder_small(LLVMContextRef ctx, LLVMValueRef fn)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    unsigned n;
    bool oom;
    struct wi_loop *loops = find_loops(ctx, fn, &n, &oom);
    for (unsigned i = 0; i < n && !oom; i++) {
        LLVMValueRef id = LLVMGetMetadata(loops[i].latch_br, loop_kind);
        if (!kiln_cc_loop_entry(id, "llvm.loop.isvectorized") ||
            !widenable_body(ctx, &loops[i], fn, false))
            continue;
        struct kiln_cc_ptr_map latches = {0};
        oom = !inner_loops(&loops[i], &latches, NULL) && latches.len > 0;
        for (size_t s = 0; s < latches.cap && !oom; s++)
            if (latches.keys[s])
                oom = !no_unroll(ctx,
                                 LLVMGetBasicBlockTerminator((LLVMBasicBlockRef)latches.keys[s]));
        kiln_cc_ptr_map_free(&latches);
        if (!oom)
            oom = !no_unroll(ctx, loops[i].latch_br);
    }
    loops_free(loops, n);
    return !oom;
}

/*
 * After the vectoriser: drops the hints from the loops it left alone, and turns the
 * uniform gathers of the functions it worked on into loads.
 */
/*
 * Removes the two hints `drop` from every loop of fn that still carries drop[0] and not `done`
 * (NULL: no such mark): the loops this stage asked LLVM to transform and LLVM left alone, so
 * that no missed-transformation warning reaches the build log. False when out of memory.
 */
static bool drop_unused_hints(LLVMContextRef ctx, LLVMValueRef fn, const char *const drop[2],
                              const char *done)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
        LLVMValueRef id = br ? LLVMGetMetadata(br, loop_kind) : NULL;
        if (id && kiln_cc_loop_entry(id, drop[0]) && !(done && kiln_cc_loop_entry(id, done)) &&
            !kiln_cc_loop_id_replace(ctx, br, drop, 2, NULL, 0))
            return false;
    }
    return true;
}

enum kiln_cc_status kiln_cc_outer_vec_finish(struct kiln_cc_build *b, LLVMValueRef *fns,
                                             const bool *chosen, unsigned nfns)
{
    static const char *const drop[] = {"llvm.loop.vectorize.enable", "llvm.loop.vectorize.width"};

    for (unsigned f = 0; f < nfns; f++) {
        if (chosen[f] &&
            (!drop_unused_hints(b->ctx, fns[f], drop, "llvm.loop.isvectorized") ||
             !scalarise_uniform_gathers(b->ctx, fns[f]) || !keep_remainder_small(b->ctx, fns[f])))
            return KILN_CC_OUT_OF_MEMORY;
    }
    return KILN_CC_OK;
}

/*
 * Registers of `reg_bits` that the vector phis of loop l's inner loops' headers fill: the
 * values each work-item carries around its own loop (a hash's state and accumulators). The
 * phis after an inner loop (its results, merged with the values of a loop that ran no
 * iteration) are not carried and are not counted: with AVX2 they made a loop of two uint16
 * values look like twelve registers instead of four. *oom is set when memory ran out.
 */
static unsigned carried_registers(const struct wi_loop *l, LLVMValueRef fn, unsigned reg_bits,
                                  bool *oom)
{
    struct kiln_cc_ptr_map headers = {0};
    unsigned regs = 0;
    *oom = !inner_loops(l, NULL, &headers) && headers.len > 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !*oom;
         bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&headers, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && LLVMIsAPHINode(in);
             in = LLVMGetNextInstruction(in)) {
            LLVMTypeRef t = LLVMTypeOf(in);
            if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
                regs += (kiln_cc_vector_bits(t) + reg_bits - 1) / reg_bits;
        }
    }
    kiln_cc_ptr_map_free(&headers);
    return regs;
}

enum kiln_cc_status kiln_cc_jam_wide_loops(struct kiln_cc_build *b, LLVMValueRef *fns, bool *chosen,
                                           unsigned nfns, unsigned *njammed)
{
    unsigned lanes = kiln_cc_host_lanes(b->host), reg_bits = lanes * 32;
    /* x86-64's vector registers: 32 with AVX-512, 16 without. The carried values of the
     * jammed work-items may fill them; what else the loop keeps (the hash's message words,
     * invariant in the loop) is reloaded from the stack as the operand of the instruction
     * that uses it, which costs a load and no instruction. */
    unsigned budget = b->host->avx512 ? 32 : 16;
    unsigned loop_kind = LLVMGetMDKindIDInContext(b->ctx, "llvm.loop", 9);
    LLVMTypeRef i1 = LLVMInt1TypeInContext(b->ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(b->ctx);
    enum kiln_cc_status status = KILN_CC_OK;

    *njammed = 0;
    for (unsigned f = 0; f < nfns && status == KILN_CC_OK; f++) {
        unsigned n;
        bool oom;
        struct wi_loop *loops = find_loops(b->ctx, fns[f], &n, &oom);
        chosen[f] = false;
        for (unsigned i = 0; i < n && !oom; i++) {
            LLVMValueRef id = LLVMGetMetadata(loops[i].latch_br, loop_kind);
            if (!loops[i].nested || kiln_cc_loop_entry(id, "llvm.loop.vectorize.enable") ||
                widest_vector(&loops[i], fns[f]) < reg_bits)
                continue;
            unsigned regs = carried_registers(&loops[i], fns[f], reg_bits, &oom);
            unsigned count = regs ? budget / regs : 0;
            if (count > KILN_CC_JAM_MAX)
                count = KILN_CC_JAM_MAX;
            if (count < 2)
                continue;
            LLVMMetadataRef hints[2] = {
                md_pair(b->ctx, "llvm.loop.unroll_and_jam.enable", LLVMConstInt(i1, 1, 0)),
                md_pair(b->ctx, "llvm.loop.unroll_and_jam.count", LLVMConstInt(i32, count, 0)),
            };
            oom = !kiln_cc_loop_id_replace(b->ctx, loops[i].latch_br, NULL, 0, hints, 2);
            chosen[f] = true;
        }
        *njammed += chosen[f];
        loops_free(loops, n);
        if (oom)
            status = KILN_CC_OUT_OF_MEMORY;
    }
    if (status != KILN_CC_OK || *njammed == 0)
        return status;
    status = kiln_cc_run_on(b, fns, chosen, nfns, "function(loop(loop-unroll-and-jam))");
    /* A loop LLVM would not jam (an inner trip count that differs between work-items) loses
     * the hint again, so that no "loop not unroll-and-jammed" warning reaches the build log. */
    static const char *const drop[] = {"llvm.loop.unroll_and_jam.enable",
                                       "llvm.loop.unroll_and_jam.count"};
    for (unsigned f = 0; f < nfns && status == KILN_CC_OK; f++)
        if (chosen[f] && !drop_unused_hints(b->ctx, fns[f], drop, NULL))
            status = KILN_CC_OUT_OF_MEMORY;
    return status;
}
