/*
 * Splitting a work-item loop around its clamped and range-checked indices.
 *
 * An image read through a CLK_ADDRESS_CLAMP_TO_EDGE sampler, or a buffer kernel that
 * clamps its neighbours' indices, leaves `smin(smax(x + c, lo), hi)` in the work-item
 * loop once the first half of O3 has run; an image write leaves the range check
 * `(uint)(x + c) < width`. LLVM's vectoriser sees neither index as consecutive, so every
 * such access becomes a gather (and the check a masked store), although the clamps and
 * checks change nothing for all work-items but the few at the edges of the image.
 *
 * This rewrite, run between the two halves of O3 (outer_vec.c), computes before the loop
 * the range [lo, hi) of x where every clamp of an index x + c is the identity and every
 * range check passes, and runs the loop in three pieces, [0, lo), [lo, hi) and [hi, L):
 * the outer two in the loop as it was, the middle one in a copy where the clamps are
 * their operand and the checks constant. An empty piece is skipped.
 *
 *     preheader:  lo, hi = the interior, clamped into [0, L]; br pieces
 *     pieces:     p = phi [0, preheader], [p + 1, next]
 *                 a, b = the bounds of piece p; br (a == b), next, dispatch
 *     dispatch:   br (p == 1), copy header, header
 *     header:     x = phi [a, dispatch], [x + 1, latch]     ; and the copy's alike
 *     latch:      br (x + 1 == b), next, header
 *     next:       br (p + 1 == 3), exit, pieces
 *
 * x takes the same values in the same order, and the copy computes the same values as
 * the loop for every x of the middle piece, so the rewrite is correct whatever lo and hi
 * are; they only decide how much runs in the copy.
 *
 * The indices: a value of the loop is x plus terms defined before the loop, through adds,
 * subtracts, truncations and extensions of 32- and 64-bit integers and through clamps
 * already recognised. All of that is arithmetic modulo 2^32, so a 32-bit index a equals
 * S mod 2^32 with S = x + the terms (each truncated to 32 bits and sign-extended), and S
 * is computed in 64 bits, where it cannot overflow. Where S lies in [bound, 2^31) a clamp
 * smax(a, bound) is a; where S lies in [-2^31, bound] smin(a, bound) is a; where S lies
 * in [0, width) the unsigned check a < width passes; where S lies in [-2^31, 2^31) an
 * extension sext(a) to 64 bits is S, which the copy computes as x + (S - x) with nsw, an
 * index LLVM's analyses see as affine. So each clamp, check and extension gives a bound on
 * x, and the interior is their intersection.
 *
 * In the copy, a branch on a condition computed from values defined before the loop alone,
 * one way leading straight to the latch (a write skipped for a y out of the image), takes
 * the other way; the condition is rebuilt before the loop and the interior is empty unless
 * it holds.
 *
 * The loop must be a work-item loop counting from 0 to a constant L (counted_loop.c) with
 * x the header's only phi, a preheader that only branches to it, no value of it used after
 * it, and at least one clamp or check (extensions alone are no reason to copy it). Inner
 * loops of the copy with a constant trip count of at most CLAMP_UNROLL_TRIPS get
 * llvm.loop.unroll.full, so that the copy becomes an innermost loop for the vectoriser;
 * the loop as it was gets llvm.loop.vectorize.enable false, as it runs only the edges.
 */
#include "loops.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CLAMP_MAX_TERMS    8
#define CLAMP_MAX_BOUNDS   64
#define CLAMP_MAX_INSTS    4096
#define CLAMP_UNROLL_TRIPS 8
#define CLAMP_MAX_INCOMING KILN_CC_EXIT_MAX_INCOMING

/* x plus the terms (each taken modulo 2^32, negated where `neg`) plus k. */
struct affine {
    LLVMValueRef terms[CLAMP_MAX_TERMS];
    bool neg[CLAMP_MAX_TERMS];
    unsigned n;
    int64_t k;
};

/*
 * One clamp, check or widening: in the copy, `in` becomes `value` (its operand, a constant,
 * or for a widening x + off in 64 bits, built by split()).
 */
struct fold {
    LLVMValueRef in, value;
    struct affine a;
    LLVMValueRef off;   /* S - x, built before the loop by interior() */
    LLVMValueRef limit; /* 32-bit, defined before the loop; NULL for a widening */
    int64_t add;        /* the bound on S is limit + add */
    bool upper;         /* S <= limit + add, else S >= limit + add */
    bool zext;          /* the limit is unsigned: S in [0, 2^32) instead of 32-bit signed */
    bool wide;          /* a 64-bit check: S = x + off modulo 2^64, the limit 64-bit */
    unsigned shift;     /* a widening: sext(index) << shift */
};

struct loop {
    struct kiln_cc_counted_loop w;
    struct kiln_cc_ptr_map blocks;
};

static bool in_loop(const struct loop *l, LLVMValueRef v)
{
    return LLVMIsAInstruction(v) && kiln_cc_ptr_map_has(&l->blocks, LLVMGetInstructionParent(v));
}

/* Defined before the loop: a constant integer, an argument or an instruction outside it. */
static bool invariant(const struct loop *l, LLVMValueRef v)
{
    if (LLVMIsAInstruction(v))
        return !in_loop(l, v);
    return LLVMIsAConstantInt(v) || LLVMIsAArgument(v);
}

static unsigned int_width(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static bool add_term(struct affine *a, LLVMValueRef v, bool neg)
{
    if (LLVMIsAConstantInt(v)) {
        int64_t c = (int32_t)(uint32_t)LLVMConstIntGetZExtValue(v);
        a->k += neg ? -c : c;
        return true;
    }
    if (a->n == CLAMP_MAX_TERMS)
        return false;
    a->terms[a->n] = v;
    a->neg[a->n++] = neg;
    return true;
}

/* A 32-bit smax or smin with one operand defined before the loop: the other's index. */
static int clamp_operand(const struct loop *l, LLVMValueRef v, bool *is_max)
{
    LLVMValueRef callee = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
    size_t len;
    const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
    if (strcmp(name, "llvm.smax.i32") == 0)
        *is_max = true;
    else if (strcmp(name, "llvm.smin.i32") == 0)
        *is_max = false;
    else
        return -1;
    if (invariant(l, LLVMGetOperand(v, 1)) && !invariant(l, LLVMGetOperand(v, 0)))
        return 0;
    if (invariant(l, LLVMGetOperand(v, 0)) && !invariant(l, LLVMGetOperand(v, 1)))
        return 1;
    return -1;
}

/* Whether v is x plus terms as above; fills a. */
static bool affine_of(const struct loop *l, LLVMValueRef v, struct affine *a, int depth)
{
    if (v == l->w.x)
        return true;
    unsigned bits = int_width(v);
    if (depth > 24 || (bits != 32 && bits != 64) || !in_loop(l, v))
        return false;
    LLVMValueRef p = LLVMGetOperand(v, 0), q;
    bool is_max;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd:
        q = LLVMGetOperand(v, 1);
        if (invariant(l, q))
            return add_term(a, q, false) && affine_of(l, p, a, depth + 1);
        if (invariant(l, p))
            return add_term(a, p, false) && affine_of(l, q, a, depth + 1);
        return false;
    case LLVMSub:
        q = LLVMGetOperand(v, 1);
        return invariant(l, q) && add_term(a, q, true) && affine_of(l, p, a, depth + 1);
    case LLVMOr:
        q = LLVMGetOperand(v, 1);
        return LLVMGetIsDisjoint(v) && LLVMIsAConstantInt(q) && add_term(a, q, false) &&
               affine_of(l, p, a, depth + 1);
    case LLVMTrunc:
    case LLVMSExt:
    case LLVMZExt:
        bits = int_width(p);
        return (bits == 32 || bits == 64) && affine_of(l, p, a, depth + 1);
    case LLVMCall: {
        int k = clamp_operand(l, v, &is_max);
        return k >= 0 && affine_of(l, LLVMGetOperand(v, (unsigned)k), a, depth + 1);
    }
    default:
        return false;
    }
}

/*
 * Whether 64-bit v is x plus (or minus) terms defined before the loop, through adds,
 * subtracts and disjoint ors: v = x + off modulo 2^64 with off the terms' sum; fills a
 * (constants whole, not modulo 2^32).
 */
static bool wide_affine_of(const struct loop *l, LLVMValueRef v, struct affine *a, int depth)
{
    if (v == l->w.x)
        return int_width(v) == 64;
    if (depth > 24 || int_width(v) != 64 || !in_loop(l, v))
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    if (op != LLVMAdd && op != LLVMSub && !(op == LLVMOr && LLVMGetIsDisjoint(v)))
        return false;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef t = LLVMGetOperand(v, k), rest = LLVMGetOperand(v, 1 - k);
        if (!invariant(l, t) || (op == LLVMSub && k == 0))
            continue;
        bool neg = op == LLVMSub;
        if (LLVMIsAConstantInt(t)) {
            uint64_t c = LLVMConstIntGetZExtValue(t);
            a->k = (int64_t)((uint64_t)a->k + (neg ? 0 - c : c));
        } else {
            if (a->n == CLAMP_MAX_TERMS)
                return false;
            a->terms[a->n] = t;
            a->neg[a->n++] = neg;
        }
        return wide_affine_of(l, rest, a, depth + 1);
    }
    return false;
}

/* The fold for instruction `in` of the loop, if it is a clamp or a range check. */
static bool match_fold(LLVMContextRef ctx, const struct loop *l, LLVMValueRef in, struct fold *f)
{
    bool is_max;
    int k = clamp_operand(l, in, &is_max);
    memset(f, 0, sizeof(*f));
    f->in = in;
    if (k >= 0) {
        f->value = LLVMGetOperand(in, (unsigned)k);
        f->limit = LLVMGetOperand(in, 1u - (unsigned)k);
        f->upper = !is_max;
        return affine_of(l, f->value, &f->a, 0);
    }
    /* sext(index) to 64 bits, or its shifted form ashr(shl(x64, 32), c), c <= 32. */
    uint64_t c;
    LLVMOpcode op = LLVMIsAInstruction(in) ? LLVMGetInstructionOpcode(in) : LLVMRet;
    if (op == LLVMSExt && int_width(in) == 64 && int_width(LLVMGetOperand(in, 0)) == 32)
        return affine_of(l, LLVMGetOperand(in, 0), &f->a, 0);
    if (op == LLVMAShr && int_width(in) == 64 && kiln_cc_const_u64(LLVMGetOperand(in, 1), &c) &&
        c >= 1 && c <= 32) {
        LLVMValueRef shl = LLVMGetOperand(in, 0);
        uint64_t by;
        f->shift = (unsigned)(32 - c);
        return LLVMIsAInstruction(shl) && LLVMGetInstructionOpcode(shl) == LLVMShl &&
               kiln_cc_const_u64(LLVMGetOperand(shl, 1), &by) && by == 32 &&
               affine_of(l, LLVMGetOperand(shl, 0), &f->a, 0);
    }
    /* A 32-bit check, or a 64-bit one (`get_global_id(0) < n` with a size_t id) whose index
     * is x + off modulo 2^64 (wide_affine_of): it passes for x + off in [0, limit) or
     * [0, limit] where that sum does not wrap. */
    unsigned bits = LLVMIsAICmpInst(in) ? int_width(LLVMGetOperand(in, 0)) : 0;
    if (bits != 32 && bits != 64)
        return false;
    LLVMIntPredicate pred = LLVMGetICmpPredicate(in);
    LLVMValueRef a = LLVMGetOperand(in, 0), b = LLVMGetOperand(in, 1);
    if (invariant(l, a) && !invariant(l, b)) { /* the index first */
        LLVMValueRef t = a;
        a = b;
        b = t;
        pred = pred == LLVMIntUGT   ? LLVMIntULT
               : pred == LLVMIntUGE ? LLVMIntULE
               : pred == LLVMIntULT ? LLVMIntUGT
               : pred == LLVMIntULE ? LLVMIntUGE
                                    : pred;
    }
    f->wide = bits == 64;
    if (!invariant(l, b) || !(f->wide ? wide_affine_of : affine_of)(l, a, &f->a, 0))
        return false;
    /* a < b and a <= b hold, a > b and a >= b fail, for S in [0, b) or [0, b]. */
    LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx);
    switch (pred) {
    case LLVMIntULT:
    case LLVMIntUGE:
        f->add = -1;
        break;
    case LLVMIntULE:
    case LLVMIntUGT:
        break;
    default:
        return false;
    }
    f->value = LLVMConstInt(i1, pred == LLVMIntULT || pred == LLVMIntULE, 0);
    f->limit = b;
    f->upper = f->zext = true;
    return true;
}

/* S - x, in 64 bits, built at the builder. */
static LLVMValueRef offset(LLVMContextRef ctx, LLVMBuilderRef bld, const struct affine *a)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
    LLVMValueRef s = LLVMConstInt(i64, (unsigned long long)a->k, 1);
    for (unsigned i = 0; i < a->n; i++) {
        LLVMValueRef t = a->terms[i];
        if (int_width(t) != 32)
            t = LLVMBuildTrunc(bld, t, i32, "");
        t = LLVMBuildSExt(bld, t, i64, "");
        s = a->neg[i] ? LLVMBuildSub(bld, s, t, "") : LLVMBuildAdd(bld, s, t, "");
    }
    return s;
}

static void raise_lo(LLVMBuilderRef bld, LLVMValueRef *lo, LLVMValueRef v)
{
    *lo = LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntSGT, v, *lo, ""), v, *lo, "");
}

static void lower_hi(LLVMBuilderRef bld, LLVMValueRef *hi, LLVMValueRef v)
{
    *hi = LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntSLT, v, *hi, ""), v, *hi, "");
}

/*
 * lo and hi of the interior, unclamped, built at the builder; each fold's off set. S = x +
 * off, so S >= v holds from x = v - off on and S <= v below x = v - off + 1.
 */
static void interior(LLVMContextRef ctx, LLVMBuilderRef bld, const struct loop *l,
                     struct fold *folds, unsigned n, LLVMValueRef *lo, LLVMValueRef *hi)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMValueRef one = LLVMConstInt(i64, 1, 0);
    *lo = LLVMConstNull(i64);
    *hi = LLVMConstInt(i64, l->w.bound, 0);
    for (unsigned i = 0; i < n; i++) {
        struct fold *f = &folds[i];
        if (f->wide) {
            /* The index is x + off modulo 2^64; with off at most 2^64 - L it is x + off for
             * every x of the loop. The check then passes for x + off below end (limit, or
             * limit + 1 for <=), so for x below end - off where end > off, and for no x
             * otherwise. Where off is larger, or end wraps to 0, there is no interior, which
             * is only slower. */
            LLVMValueRef off = LLVMConstInt(i64, (unsigned long long)f->a.k, 0);
            for (unsigned t = 0; t < f->a.n; t++)
                off = f->a.neg[t] ? LLVMBuildSub(bld, off, f->a.terms[t], "")
                                  : LLVMBuildAdd(bld, off, f->a.terms[t], "");
            f->off = off;
            LLVMValueRef top = LLVMConstInt(i64, l->w.bound, 0);
            LLVMValueRef end = f->add ? f->limit : LLVMBuildAdd(bld, f->limit, one, "");
            LLVMValueRef fits = LLVMBuildAnd(
                bld, LLVMBuildICmp(bld, LLVMIntUGT, end, off, ""),
                LLVMBuildICmp(bld, LLVMIntULE, off, LLVMBuildNeg(bld, top, ""), ""), "");
            LLVMValueRef room =
                LLVMBuildSelect(bld, fits, LLVMBuildSub(bld, end, off, ""), LLVMConstNull(i64), "");
            lower_hi(
                bld, hi,
                LLVMBuildSelect(bld, LLVMBuildICmp(bld, LLVMIntUGT, room, top, ""), top, room, ""));
            continue;
        }
        LLVMValueRef off = f->off = offset(ctx, bld, &f->a);
        /* S within 32 bits (signed, or unsigned for a check), so that the index is S. */
        long long top = f->zext ? UINT32_MAX : INT32_MAX, bottom = f->zext ? 0 : INT32_MIN;
        lower_hi(bld, hi,
                 LLVMBuildSub(bld, LLVMConstInt(i64, (unsigned long long)top + 1, 0), off, ""));
        raise_lo(bld, lo,
                 LLVMBuildSub(bld, LLVMConstInt(i64, (unsigned long long)bottom, 1), off, ""));
        if (!f->limit)
            continue;
        LLVMValueRef lim =
            f->zext ? LLVMBuildZExt(bld, f->limit, i64, "") : LLVMBuildSExt(bld, f->limit, i64, "");
        lim = LLVMBuildAdd(bld, lim, LLVMConstInt(i64, (unsigned long long)f->add, 1), "");
        LLVMValueRef x = LLVMBuildSub(bld, lim, off, "");
        if (f->upper)
            lower_hi(bld, hi, LLVMBuildAdd(bld, x, one, ""));
        else
            raise_lo(bld, lo, x);
    }
}

/* Matches the loop and checks the rest of the conditions above. */
static bool match(LLVMContextRef ctx, LLVMBasicBlockRef latch, struct loop *l, bool *oom)
{
    struct kiln_cc_counted_loop *w = &l->w;
    if (!kiln_cc_counted_loop(latch, w) || w->bound < 2 || LLVMGetNextUse(LLVMGetFirstUse(w->test)))
        return false;
    LLVMValueRef id = LLVMGetMetadata(w->br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9));
    if (!id || !kiln_cc_loop_entry(id, "llvm.loop.parallel_accesses") ||
        kiln_cc_loop_entry(id, "llvm.loop.vectorize.enable"))
        return false;
    for (LLVMValueRef in = LLVMGetFirstInstruction(w->header); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in))
        if (in != w->x)
            return false;
    LLVMValueRef pre_br = LLVMGetBasicBlockTerminator(w->pre);
    if (!pre_br || LLVMGetInstructionOpcode(pre_br) != LLVMBr || LLVMIsConditional(pre_br) ||
        LLVMGetSuccessor(pre_br, 0) != w->header)
        return false;
    for (LLVMValueRef in = LLVMGetFirstInstruction(w->exit); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in))
        if (LLVMCountIncoming(in) > CLAMP_MAX_INCOMING)
            return false;
    if (!kiln_cc_loop_blocks(latch, w->header, &l->blocks, oom))
        return false;
    /* Small enough to copy (phis of at most CLAMP_MAX_INCOMING edges), and nothing of it used
     * after it. */
    unsigned count = 0;
    for (size_t i = 0; i < l->blocks.cap; i++) {
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef)l->blocks.keys[i];
        if (!bb)
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (++count > CLAMP_MAX_INSTS ||
                (LLVMIsAPHINode(in) && LLVMCountIncoming(in) > CLAMP_MAX_INCOMING))
                return false;
            for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u))
                if (!in_loop(l, LLVMGetUser(u)))
                    return false;
        }
    }
    return true;
}

/*
 * The clamps, checks and widenings of the loop; their number, 0 if too many or if there is
 * no clamp or check (widenings alone are no reason to copy a loop).
 */
static unsigned find_folds(LLVMContextRef ctx, const struct loop *l, LLVMValueRef fn,
                           struct fold *folds)
{
    unsigned n = 0;
    bool bounded = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!match_fold(ctx, l, in, &folds[n]))
                continue;
            bounded |= folds[n].limit != NULL;
            if (++n == CLAMP_MAX_BOUNDS)
                return 0;
        }
    }
    return bounded ? n : 0;
}

static LLVMValueRef mapped(const struct kiln_cc_ptr_map *map, LLVMValueRef v)
{
    LLVMValueRef m = kiln_cc_ptr_map_get(map, v);
    return m ? m : v;
}

/*
 * Copies the loop's blocks (map: old value or block value -> new), the copies' operands,
 * phis and loop ids rewritten for the copy. The copy's header and latch are map's images
 * of the loop's.
 */
static bool copy_loop(LLVMContextRef ctx, const struct loop *l, LLVMValueRef fn,
                      struct kiln_cc_ptr_map *map, struct kiln_cc_ptr_map *copy)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMBasicBlockRef last = LLVMGetLastBasicBlock(fn);
    bool ok = true;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok;
         bb = bb == last ? NULL : LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(ctx, fn, "clamp.copy");
        ok = kiln_cc_ptr_map_put(map, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(nb)) &&
             kiln_cc_ptr_map_add(copy, nb);
        LLVMPositionBuilderAtEnd(bld, nb);
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && ok;
             in = LLVMGetNextInstruction(in)) {
            LLVMValueRef c = LLVMInstructionClone(in);
            LLVMInsertIntoBuilder(bld, c);
            ok = kiln_cc_ptr_map_put(map, in, c);
        }
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok;
         bb = LLVMGetNextBasicBlock(bb)) {
        if (!kiln_cc_ptr_map_has(&l->blocks, bb))
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && ok;
             in = LLVMGetNextInstruction(in)) {
            LLVMValueRef c = kiln_cc_ptr_map_get(map, in);
            if (LLVMIsAPHINode(in)) {
                unsigned n = LLVMCountIncoming(in);
                LLVMValueRef vals[CLAMP_MAX_INCOMING];
                LLVMBasicBlockRef from[CLAMP_MAX_INCOMING];
                if (n > CLAMP_MAX_INCOMING) {
                    ok = false;
                    break;
                }
                for (unsigned k = 0; k < n; k++) {
                    vals[k] = mapped(map, LLVMGetIncomingValue(in, k));
                    from[k] = LLVMValueAsBasicBlock(
                        mapped(map, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(in, k))));
                }
                LLVMPositionBuilderBefore(bld, c);
                LLVMValueRef phi = LLVMBuildPhi(bld, LLVMTypeOf(in), "");
                LLVMAddIncoming(phi, vals, from, n);
                LLVMReplaceAllUsesWith(c, phi);
                LLVMInstructionEraseFromParent(c);
                ok = kiln_cc_ptr_map_put(map, in, phi);
                continue;
            }
            kiln_cc_remap_operands(c, map);
            if (LLVMIsABranchInst(c) && LLVMGetMetadata(c, loop_kind))
                ok = kiln_cc_loop_id_replace(ctx, c, NULL, 0, NULL, 0);
        }
    }
    LLVMDisposeBuilder(bld);
    return ok;
}

/* Marks the copy's inner counted loops of at most CLAMP_UNROLL_TRIPS trips to be unrolled. */
static bool unroll_inner(LLVMContextRef ctx, const struct loop *l, struct kiln_cc_ptr_map *map)
{
    static const char full[] = "llvm.loop.unroll.full";
    LLVMMetadataRef entry = LLVMMDNodeInContext2(
        ctx, (LLVMMetadataRef[]){LLVMMDStringInContext2(ctx, full, sizeof(full) - 1)}, 1);
    for (size_t i = 0; i < l->blocks.cap; i++) {
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef)l->blocks.keys[i];
        struct kiln_cc_counted_loop inner;
        if (!bb || bb == l->w.latch || !kiln_cc_counted_loop(bb, &inner) ||
            inner.bound > CLAMP_UNROLL_TRIPS || !kiln_cc_ptr_map_has(&l->blocks, inner.header))
            continue;
        LLVMValueRef br = LLVMGetBasicBlockTerminator(
            LLVMValueAsBasicBlock(mapped(map, LLVMBasicBlockAsValue(bb))));
        if (!kiln_cc_loop_id_replace(ctx, br, NULL, 0, &entry, 1))
            return false;
    }
    return true;
}

/* v, or what it folds to where v is itself folded (a clamp of a clamp). */
static LLVMValueRef resolve(const struct fold *folds, unsigned n, LLVMValueRef v)
{
    for (unsigned hops = 0; hops <= n; hops++) {
        unsigned i = 0;
        while (i < n && folds[i].in != v)
            i++;
        if (i == n)
            break;
        v = folds[i].value;
    }
    return v;
}

/* Folds the copy's i1 and/or/select with a constant operand; repeats until none is left. */
static void fold_conditions(const struct kiln_cc_ptr_map *copy)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < copy->cap; i++) {
            LLVMBasicBlockRef bb = (LLVMBasicBlockRef)copy->keys[i];
            LLVMValueRef in = bb ? LLVMGetFirstInstruction(bb) : NULL;
            while (in) {
                LLVMValueRef following = LLVMGetNextInstruction(in), to = NULL;
                LLVMOpcode op = LLVMGetInstructionOpcode(in);
                bool i1 = int_width(in) == 1;
                if (op == LLVMSelect && LLVMIsAConstantInt(LLVMGetOperand(in, 0))) {
                    to =
                        LLVMGetOperand(in, LLVMConstIntGetZExtValue(LLVMGetOperand(in, 0)) ? 1 : 2);
                } else if (i1 && (op == LLVMAnd || op == LLVMOr)) {
                    for (unsigned k = 0; k < 2 && !to; k++) {
                        LLVMValueRef c = LLVMGetOperand(in, k), other = LLVMGetOperand(in, 1 - k);
                        if (!LLVMIsAConstantInt(c))
                            continue;
                        bool set = LLVMConstIntGetZExtValue(c) != 0;
                        to = (op == LLVMAnd) == set ? other : c;
                    }
                }
                if (to) {
                    LLVMReplaceAllUsesWith(in, to);
                    LLVMInstructionEraseFromParent(in);
                    changed = true;
                }
                in = following;
            }
        }
    }
}

/* Whether i1 value v of the copy is computed from values defined before the loop only. */
static bool invariant_condition(const struct loop *l, const struct kiln_cc_ptr_map *copy,
                                LLVMValueRef v, int depth)
{
    if (!LLVMIsAInstruction(v))
        return LLVMIsAConstantInt(v) || LLVMIsAArgument(v);
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
    if (!kiln_cc_ptr_map_has(copy, bb))
        return !kiln_cc_ptr_map_has(&l->blocks, bb);
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    if (depth > 8 || !(op == LLVMAnd || op == LLVMOr || op == LLVMXor || op == LLVMSelect ||
                       op == LLVMICmp || op == LLVMZExt || op == LLVMTrunc))
        return false;
    int n = LLVMGetNumOperands(v);
    for (int k = 0; k < n; k++)
        if (!invariant_condition(l, copy, LLVMGetOperand(v, (unsigned)k), depth + 1))
            return false;
    return true;
}

/* The value of v (an invariant condition of the copy) rebuilt at the builder. */
static LLVMValueRef rebuild(LLVMBuilderRef bld, const struct kiln_cc_ptr_map *copy, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || !kiln_cc_ptr_map_has(copy, LLVMGetInstructionParent(v)))
        return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    int n = LLVMGetNumOperands(v);
    for (int k = 0; k < n; k++)
        LLVMSetOperand(c, (unsigned)k, rebuild(bld, copy, LLVMGetOperand(v, (unsigned)k)));
    LLVMInsertIntoBuilder(bld, c);
    return c;
}

/*
 * The copy's branches on conditions computed before the loop, one way leading straight to
 * the latch (a write skipped for a y or z out of range, say): the copy takes the other way,
 * and the interior is empty unless the condition holds. Returns whether all of them hold,
 * built at the builder.
 */
static LLVMValueRef assume_conditions(LLVMContextRef ctx, LLVMBuilderRef bld, const struct loop *l,
                                      const struct kiln_cc_ptr_map *copy, LLVMBasicBlockRef c_latch)
{
    LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx);
    LLVMValueRef ok = LLVMConstInt(i1, 1, 0);
    for (size_t i = 0; i < copy->cap; i++) {
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef)copy->keys[i];
        LLVMValueRef br = bb ? LLVMGetBasicBlockTerminator(bb) : NULL;
        if (bb == c_latch || !br || LLVMGetInstructionOpcode(br) != LLVMBr ||
            !LLVMIsConditional(br))
            continue;
        LLVMValueRef cond = LLVMGetCondition(br);
        bool to_latch[2] = {LLVMGetSuccessor(br, 0) == c_latch, LLVMGetSuccessor(br, 1) == c_latch};
        if (LLVMIsAConstantInt(cond) || to_latch[0] == to_latch[1] ||
            !invariant_condition(l, copy, cond, 0))
            continue;
        LLVMValueRef v = rebuild(bld, copy, cond);
        ok = LLVMBuildAnd(bld, ok, to_latch[1] ? v : LLVMBuildNot(bld, v, ""), "");
        LLVMSetCondition(br, LLVMConstInt(i1, to_latch[1], 0));
    }
    return ok;
}

static void split(LLVMContextRef ctx, struct loop *l, struct fold *folds, unsigned nfolds,
                  struct kiln_cc_ptr_map *map, struct kiln_cc_ptr_map *copy)
{
    struct kiln_cc_counted_loop *w = &l->w;
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMTypeRef t = LLVMTypeOf(w->x), i64 = LLVMInt64TypeInContext(ctx);
    LLVMValueRef fn = LLVMGetBasicBlockParent(w->header);
    LLVMBasicBlockRef c_header =
        LLVMValueAsBasicBlock(kiln_cc_ptr_map_get(map, LLVMBasicBlockAsValue(w->header)));
    LLVMBasicBlockRef c_latch =
        LLVMValueAsBasicBlock(kiln_cc_ptr_map_get(map, LLVMBasicBlockAsValue(w->latch)));
    LLVMValueRef xs[2] = {w->x, kiln_cc_ptr_map_get(map, w->x)};
    LLVMValueRef tests[2] = {w->test, kiln_cc_ptr_map_get(map, w->test)};
    LLVMValueRef brs[2] = {w->br, kiln_cc_ptr_map_get(map, w->br)};
    LLVMValueRef nexts[2] = {w->next, kiln_cc_ptr_map_get(map, w->next)};
    LLVMBasicBlockRef latches[2] = {w->latch, c_latch};

    /* The interior, before the loop. */
    LLVMValueRef lo, hi;
    LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(w->pre));
    interior(ctx, bld, l, folds, nfolds, &lo, &hi);

    /* Both loops get a new x (the C API cannot move a phi's edge); incoming values below. */
    for (unsigned k = 0; k < 2; k++) {
        LLVMPositionBuilderBefore(bld, xs[k]);
        LLVMValueRef x = LLVMBuildPhi(bld, t, "");
        LLVMReplaceAllUsesWith(xs[k], x);
        LLVMInstructionEraseFromParent(xs[k]);
        xs[k] = x;
    }
    w->x = xs[0];

    /* In the copy: widenings become x + off, clamps their operand, checks constants; every
     * use first, then the copies go. */
    LLVMValueRef body = LLVMGetFirstInstruction(c_header);
    while (LLVMIsAPHINode(body))
        body = LLVMGetNextInstruction(body);
    LLVMPositionBuilderBefore(bld, body);
    LLVMValueRef x64 = t == i64 ? xs[1] : LLVMBuildZExt(bld, xs[1], i64, "");
    for (unsigned i = 0; i < nfolds; i++) {
        struct fold *f = &folds[i];
        if (f->limit)
            continue;
        f->value = LLVMBuildNSWAdd(bld, x64, f->off, "");
        if (f->shift) /* no signed wrap: the value is sext(index) << shift, as before */
            f->value = LLVMBuildMul(bld, f->value, LLVMConstInt(i64, 1ull << f->shift, 0), "");
    }
    for (unsigned i = 0; i < nfolds; i++)
        LLVMReplaceAllUsesWith(kiln_cc_ptr_map_get(map, folds[i].in),
                               mapped(map, resolve(folds, nfolds, folds[i].value)));
    for (unsigned i = 0; i < nfolds; i++)
        LLVMInstructionEraseFromParent(kiln_cc_ptr_map_get(map, folds[i].in));
    fold_conditions(copy);

    /* Within [0, L] with lo <= hi, and empty unless the copy's assumptions hold. */
    LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(w->pre));
    LLVMValueRef ok = assume_conditions(ctx, bld, l, copy, c_latch);
    LLVMValueRef zero64 = LLVMConstNull(i64), bound64 = LLVMConstInt(i64, w->bound, 0);
    raise_lo(bld, &lo, zero64);
    lower_hi(bld, &lo, bound64);
    raise_lo(bld, &hi, lo);
    lower_hi(bld, &hi, bound64);
    hi = LLVMBuildSelect(bld, ok, hi, lo, "");
    if (t != i64) {
        lo = LLVMBuildTrunc(bld, lo, t, "");
        hi = LLVMBuildTrunc(bld, hi, t, "");
    }

    /* Piece p: [0, lo), [lo, hi), [hi, L). */
    LLVMBasicBlockRef pieces = LLVMInsertBasicBlockInContext(ctx, w->header, "clamp.piece");
    LLVMBasicBlockRef dispatch = LLVMInsertBasicBlockInContext(ctx, w->header, "clamp.dispatch");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(ctx, fn, "clamp.next");
    LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->pre), 0, pieces);
    LLVMPositionBuilderAtEnd(bld, pieces);
    LLVMValueRef p = LLVMBuildPhi(bld, t, "clamp.p");
    LLVMValueRef first = LLVMBuildICmp(bld, LLVMIntEQ, p, LLVMConstNull(t), "");
    LLVMValueRef middle = LLVMBuildICmp(bld, LLVMIntEQ, p, LLVMConstInt(t, 1, 0), "");
    LLVMValueRef a = LLVMBuildSelect(bld, first, LLVMConstNull(t),
                                     LLVMBuildSelect(bld, middle, lo, hi, ""), "clamp.a");
    LLVMValueRef b = LLVMBuildSelect(
        bld, first, lo, LLVMBuildSelect(bld, middle, hi, LLVMConstInt(t, w->bound, 0), ""),
        "clamp.b");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntEQ, a, b, ""), next, dispatch);
    LLVMPositionBuilderAtEnd(bld, dispatch);
    LLVMBuildCondBr(bld, middle, c_header, w->header);

    /* Both loops start at a and leave at b, to the next piece. */
    for (unsigned k = 0; k < 2; k++) {
        LLVMAddIncoming(xs[k], &a, &dispatch, 1);
        LLVMAddIncoming(xs[k], &nexts[k], &latches[k], 1);
        LLVMSetOperand(tests[k], 1, b);
        for (unsigned s = 0; s < 2; s++)
            if (LLVMGetSuccessor(brs[k], s) == w->exit)
                LLVMSetSuccessor(brs[k], s, next);
    }

    /* The exit's phis: what came from the latch now comes from the next piece. */
    kiln_cc_exit_phis_from(w, next);

    LLVMPositionBuilderAtEnd(bld, next);
    LLVMValueRef p1 = LLVMBuildNUWAdd(bld, p, LLVMConstInt(t, 1, 0), "clamp.p.next");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntEQ, p1, LLVMConstInt(t, 3, 0), ""), w->exit,
                    pieces);
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMAddIncoming(p, &zero, &w->pre, 1);
    LLVMAddIncoming(p, &p1, &next, 1);
    LLVMDisposeBuilder(bld);
}

/* Marks the loop of `br` not to be vectorised: it runs only the edges. */
static bool edges_only(LLVMContextRef ctx, LLVMValueRef br)
{
    static const char name[] = "llvm.loop.vectorize.enable";
    LLVMMetadataRef ops[2] = {
        LLVMMDStringInContext2(ctx, name, sizeof(name) - 1),
        LLVMValueAsMetadata(LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0)),
    };
    LLVMMetadataRef entry = LLVMMDNodeInContext2(ctx, ops, 2);
    return kiln_cc_loop_id_replace(ctx, br, NULL, 0, &entry, 1);
}

unsigned kiln_cc_split_clamped_loops(LLVMContextRef ctx, LLVMValueRef fn, bool *oom)
{
    unsigned done = 0;
    struct fold *folds = malloc(CLAMP_MAX_BOUNDS * sizeof(*folds));

    *oom = folds == NULL;
    LLVMBasicBlockRef last = LLVMGetLastBasicBlock(fn);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !*oom;
         bb = bb == last ? NULL : LLVMGetNextBasicBlock(bb)) {
        struct loop l = {0};
        struct kiln_cc_ptr_map map = {0}, copy = {0};
        unsigned n;
        if (match(ctx, bb, &l, oom) && (n = find_folds(ctx, &l, fn, folds)) > 0) {
            *oom = !copy_loop(ctx, &l, fn, &map, &copy) || !unroll_inner(ctx, &l, &map) ||
                   !edges_only(ctx, l.w.br);
            if (!*oom) {
                split(ctx, &l, folds, n, &map, &copy);
                done++;
            }
        }
        kiln_cc_ptr_map_free(&map);
        kiln_cc_ptr_map_free(&copy);
        kiln_cc_ptr_map_free(&l.blocks);
    }
    free(folds);
    return done;
}
