/*
 * Two iterations of a candidate loop side by side (a loop pass of the optimisation stage,
 * before the loop vectoriser).
 *
 * A password cracker's candidate loop hashes one vector of candidates per iteration and, in
 * the rare case that a lane matches, leaves its arithmetic for a path that counts and stores
 * the match. Each iteration is one chain of dependent operations, and the test that ends it
 * keeps the code generator and the core from starting the next chain early: such a loop of
 * `uint8` MD5 runs at 0.6 of the rate it has with `uint16`, which is two chains per
 * iteration. Where the loop has this shape (H computing on vectors, 128 instructions or more):
 *
 *     H: i = phi [i0, pre], [i + s, L]        H's only phi
 *        loads from constant memory and arithmetic, nothing else
 *        br c, R, L  (or br c, L, R)
 *     R: blocks that branch only among themselves and to L (the match)
 *     L: i + s, [n = load], its test against n (ult, slt or ne), br H, E      nothing else
 *     E: phis only of n's load or of values from outside the loop
 *
 * Kiln gives it a new header P in front of H:
 *
 *     P:  p = phi [i0, pre], [i + s, L], [q + s, PL];  q = p + s
 *         q passes L's test ? PB : H
 *     PB: H's arithmetic for p, then for q; if either would go to R: H, else PL
 *     H:  i = p (its phi is gone) ... as before, L's back edge now to P
 *     PL: q + s passes L's test ? P : E
 *
 * so that both chains are one block, and their exits one test. A pair in which a lane matches
 * runs p again through H and R, and comes back to P at p + s: H has no effect, so the pair's
 * arithmetic is an execution in which it never ran. Its loads read constant memory, which
 * R's stores cannot change. The pair doubles the vector registers an iteration keeps live, so
 * a loop whose one iteration already fills most of them (SHA's message schedule) is left
 * alone: there the pair spills and runs slower than one iteration at a time.
 */
#include "loops.h"

#include <stdint.h>

/* Fewest instructions in H that make a pair worth its code: a hash, not a small loop body. */
#define PAIR_MIN_INSTRUCTIONS 128

struct pair {
    LLVMContextRef ctx;
    LLVMValueRef fn;
    LLVMBasicBlockRef pre, header, latch, exit, rare;
    LLVMValueRef i, i0, next, test, step, bound;
    LLVMValueRef bound_load; /* L's load of the bound (hashcat reloads its count), or NULL */
    bool rare_on_true;       /* H's branch goes to R when its condition is true */
};

static bool in_set(const struct kiln_cc_ptr_map *m, LLVMBasicBlockRef bb)
{
    return kiln_cc_ptr_map_has(m, bb);
}

/* Whether load `in` reads memory nothing in the kernel writes: constant or invariant. */
static bool constant_load(LLVMValueRef in)
{
    if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
        return false;
    LLVMTypeRef pt = LLVMTypeOf(LLVMGetOperand(in, 0));
    if (LLVMGetPointerAddressSpace(pt) == 2)
        return true;
    unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(pt), "invariant.load", 14);
    return LLVMGetMetadata(in, kind) != NULL;
}

/* Whether `in`, in L, is a plain load (hashcat reloads its count on each round). */
static bool bound_load(LLVMValueRef in)
{
    return LLVMGetInstructionOpcode(in) == LLVMLoad && !LLVMGetVolatile(in) &&
           LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic;
}

/*
 * Whether E's phis (the loop's values used after it, in LCSSA form) take only the bound's load
 * or a value from outside the loop from L, their one edge, and the load is used by them and by
 * L's test alone: PL's edge to E then gives each the same value, its own load for the load.
 */
static bool exit_phis_simple(const struct pair *p)
{
    for (LLVMValueRef in = LLVMGetFirstInstruction(p->exit); in && LLVMIsAPHINode(in);
         in = LLVMGetNextInstruction(in)) {
        if (LLVMCountIncoming(in) != 1)
            return false;
        LLVMValueRef v = LLVMGetIncomingValue(in, 0);
        if (v != p->bound_load && LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
            return false;
    }
    if (p->bound_load)
        for (LLVMUseRef u = LLVMGetFirstUse(p->bound_load); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (user != p->test &&
                (!LLVMIsAPHINode(user) || LLVMGetInstructionParent(user) != p->exit))
                return false;
        }
    return true;
}

/* Whether `in`, in H, may run for an iteration before the one ahead of it has finished. */
static bool pairable(LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMLoad)
        return constant_load(in);
    if (op == LLVMCall)
        return kiln_cc_pure_intrinsic(in);
    return kiln_cc_plain_opcode(op) || op == LLVMExtractElement || op == LLVMInsertElement ||
           op == LLVMShuffleVector || op == LLVMFreeze;
}

static unsigned vector_units(LLVMTypeRef t, unsigned reg_bits)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return 0;
    return (kiln_cc_vector_bits(t) + reg_bits - 1) / reg_bits;
}

/*
 * The most vector registers of `reg_bits` that H's own values fill at once, in program order:
 * each from its definition to its last use in H (to the end of H where it is used elsewhere).
 * Values from outside H are not counted: loop invariants such as a message word plus a step's
 * constant, which the code generator keeps on the stack and reads as operands. *widest is set
 * to the widest of H's values, in registers.
 */
static unsigned peak_registers(LLVMBasicBlockRef h, unsigned reg_bits, unsigned *widest, bool *oom)
{
    struct kiln_cc_ptr_map last = {0}; /* H's value -> 1 + the index of its last use in H */
    unsigned idx = 0, live = 0, peak = 0;

    *widest = 0;
    *oom = false;
    for (LLVMValueRef in = LLVMGetFirstInstruction(h); in && !*oom;
         in = LLVMGetNextInstruction(in), idx++) {
        int n = LLVMGetNumOperands(in);
        for (int k = 0; k < n && !*oom; k++) {
            LLVMValueRef op = LLVMGetOperand(in, (unsigned)k);
            if (op && LLVMIsAInstruction(op) && LLVMGetInstructionParent(op) == h &&
                vector_units(LLVMTypeOf(op), reg_bits))
                *oom = !kiln_cc_ptr_map_put(&last, op, (void *)(uintptr_t)(idx + 1));
        }
    }
    idx = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(h); in && !*oom;
         in = LLVMGetNextInstruction(in), idx++) {
        unsigned units = vector_units(LLVMTypeOf(in), reg_bits);
        if (units) {
            bool used_outside = false;
            for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u))
                used_outside |= LLVMGetInstructionParent(LLVMGetUser(u)) != h;
            if (used_outside)
                *oom = !kiln_cc_ptr_map_put(&last, in, (void *)(uintptr_t)UINT32_MAX);
            live += units;
            if (live > peak)
                peak = live;
            if (units > *widest)
                *widest = units;
        }
        /* Operands whose last use is here end. */
        int n = LLVMGetNumOperands(in);
        for (int k = 0; k < n && !*oom; k++) {
            LLVMValueRef op = LLVMGetOperand(in, (unsigned)k);
            if (!op || !LLVMIsAInstruction(op) || LLVMGetInstructionParent(op) != h ||
                (uintptr_t)kiln_cc_ptr_map_get(&last, op) != idx + 1)
                continue;
            live -= vector_units(LLVMTypeOf(op), reg_bits);
            *oom = !kiln_cc_ptr_map_put(&last, op, NULL);
        }
    }
    kiln_cc_ptr_map_free(&last);
    return peak;
}

/* The blocks of R: reached from `from` without passing L; false if one leaves R and L. */
static bool rare_region(struct pair *p, LLVMBasicBlockRef from, struct kiln_cc_ptr_map *r,
                        bool *oom)
{
    LLVMBasicBlockRef stack[64];
    unsigned top = 0;
    stack[top++] = from;
    if (!kiln_cc_ptr_map_add(r, from))
        return !(*oom = true);
    while (top) {
        LLVMBasicBlockRef bb = stack[--top];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (!term || LLVMGetInstructionOpcode(term) != LLVMBr)
            return false;
        for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
            LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
            if (to == p->latch || in_set(r, to))
                continue;
            if (to == p->header || to == p->exit || top == 64 || r->len >= 64)
                return false;
            if (!kiln_cc_ptr_map_add(r, to))
                return !(*oom = true);
            stack[top++] = to;
        }
    }
    /* Nothing outside R and H enters R. */
    for (size_t k = 0; k < r->cap; k++) {
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef)r->keys[k];
        if (!bb)
            continue;
        for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsATerminatorInst(user))
                continue;
            LLVMBasicBlockRef at = LLVMGetInstructionParent(user);
            if (at != p->header && !in_set(r, at))
                return false;
        }
    }
    return true;
}

/* The pointer v is computed from, through address arithmetic and casts. */
static LLVMValueRef base_of(LLVMValueRef v)
{
    while (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) || LLVMIsAAddrSpaceCastInst(v))
        v = LLVMGetOperand(v, 0);
    return v;
}

/*
 * Whether the bound's load may be moved ahead of R: its address is computed before the loop,
 * and R writes memory only through other pointers and calls nothing but intrinsics. P tests q
 * before p's R runs, so that a count R lowers would let the pair read past it.
 */
static bool bound_apart(const struct pair *p, const struct kiln_cc_ptr_map *r)
{
    LLVMValueRef ptr = LLVMGetOperand(p->bound_load, 0);
    if (LLVMIsAInstruction(ptr)) {
        LLVMBasicBlockRef at = LLVMGetInstructionParent(ptr);
        if (at == p->header || at == p->latch || in_set(r, at))
            return false;
    }
    LLVMValueRef base = base_of(ptr);
    for (size_t k = 0; k < r->cap; k++) {
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef)r->keys[k];
        for (LLVMValueRef in = bb ? LLVMGetFirstInstruction(bb) : NULL; in;
             in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            LLVMValueRef to = op == LLVMStore ? LLVMGetOperand(in, 1)
                              : op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg
                                  ? LLVMGetOperand(in, 0)
                                  : NULL;
            if (to && base_of(to) == base)
                return false;
            LLVMValueRef callee = op == LLVMCall ? LLVMGetCalledValue(in) : NULL;
            if (op == LLVMCall &&
                (!callee || !LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee)))
                return false;
        }
    }
    return true;
}

/* Whether the loop whose back edge ends `latch` has the shape at the top of this file. */
static bool match(struct pair *p, LLVMBasicBlockRef latch, bool *oom)
{
    LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br))
        return false;
    /* L: exactly the add, the compare and the branch, or a load of the bound between. */
    LLVMValueRef test = LLVMGetCondition(br);
    LLVMValueRef next = LLVMGetFirstInstruction(latch);
    if (!next || LLVMIsAPHINode(next) || LLVMGetInstructionOpcode(next) != LLVMAdd ||
        !LLVMIsAICmpInst(test) || LLVMGetNextInstruction(test) != br ||
        LLVMGetOperand(test, 0) != next)
        return false;
    p->bound_load = NULL;
    LLVMValueRef mid = LLVMGetNextInstruction(next);
    if (mid != test) {
        if (LLVMGetNextInstruction(mid) != test || LLVMGetOperand(test, 1) != mid ||
            !bound_load(mid))
            return false;
        p->bound_load = mid;
    }
    LLVMIntPredicate pred = LLVMGetICmpPredicate(test);
    if (pred != LLVMIntULT && pred != LLVMIntSLT && pred != LLVMIntNE)
        return false;
    p->latch = latch;
    p->next = next;
    p->test = test;
    p->header = LLVMGetSuccessor(br, 0);
    p->exit = LLVMGetSuccessor(br, 1);
    p->i = LLVMGetOperand(next, 0);
    p->step = LLVMGetOperand(next, 1);
    p->bound = LLVMGetOperand(test, 1);
    uint64_t s;
    if (!kiln_cc_const_u64(p->step, &s) || s == 0 || p->header == latch || p->header == p->exit ||
        !LLVMIsAPHINode(p->i) || LLVMGetInstructionParent(p->i) != p->header ||
        LLVMCountIncoming(p->i) != 2 ||
        (!p->bound_load && LLVMIsAInstruction(p->bound) &&
         LLVMGetInstructionParent(p->bound) == p->header))
        return false;
    LLVMValueRef after = LLVMGetNextInstruction(p->i);
    if (after && LLVMIsAPHINode(after))
        return false;
    if (!exit_phis_simple(p))
        return false;
    p->pre = NULL;
    for (unsigned k = 0; k < 2; k++) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(p->i, k);
        if (from == latch) {
            if (LLVMGetIncomingValue(p->i, k) != next)
                return false;
        } else {
            p->pre = from;
            p->i0 = LLVMGetIncomingValue(p->i, k);
        }
    }
    if (!p->pre)
        return false;
    /* H: pairable instructions, ending in a branch to L and to R. */
    LLVMValueRef hbr = LLVMGetBasicBlockTerminator(p->header);
    if (!hbr || LLVMGetInstructionOpcode(hbr) != LLVMBr || !LLVMIsConditional(hbr))
        return false;
    LLVMBasicBlockRef t = LLVMGetSuccessor(hbr, 0), f = LLVMGetSuccessor(hbr, 1);
    if ((t == latch) == (f == latch) || t == p->header || f == p->header)
        return false;
    p->rare_on_true = f == latch;
    p->rare = p->rare_on_true ? t : f;
    unsigned count = 0;
    for (LLVMValueRef in = LLVMGetNextInstruction(p->i); in != hbr;
         in = LLVMGetNextInstruction(in)) {
        if (!pairable(in))
            return false;
        count++;
    }
    if (count < PAIR_MIN_INSTRUCTIONS)
        return false;
    /* Nothing after H uses H's values but R (L's add uses the counter only). */
    struct kiln_cc_ptr_map r = {0};
    bool ok = rare_region(p, p->rare, &r, oom) && (!p->bound_load || bound_apart(p, &r));
    for (LLVMValueRef in = LLVMGetFirstInstruction(p->header); ok && in != hbr;
         in = LLVMGetNextInstruction(in))
        for (LLVMUseRef u = LLVMGetFirstUse(in); ok && u; u = LLVMGetNextUse(u)) {
            LLVMBasicBlockRef at = LLVMGetInstructionParent(LLVMGetUser(u));
            ok = at == p->header || in_set(&r, at) || (in == p->i && at == latch);
        }
    kiln_cc_ptr_map_free(&r);
    return ok;
}

/* H's instructions between its phi and its branch, cloned before `bld`'s point, i as `iv`. */
static LLVMValueRef clone_body(struct pair *p, LLVMBuilderRef bld, LLVMValueRef iv,
                               struct kiln_cc_ptr_map *map, bool *oom)
{
    LLVMValueRef hbr = LLVMGetBasicBlockTerminator(p->header);
    *oom = !kiln_cc_ptr_map_put(map, p->i, iv);
    for (LLVMValueRef in = LLVMGetNextInstruction(p->i); in != hbr && !*oom;
         in = LLVMGetNextInstruction(in)) {
        LLVMValueRef c = LLVMInstructionClone(in);
        LLVMInsertIntoBuilder(bld, c);
        kiln_cc_remap_operands(c, map);
        *oom = !kiln_cc_ptr_map_put(map, in, c);
    }
    LLVMValueRef c = LLVMGetCondition(hbr);
    LLVMValueRef mc = kiln_cc_ptr_map_get(map, c);
    return mc ? mc : c;
}

/* `v + step` and its test against the bound, as L computes them. */
static LLVMValueRef latch_test(struct pair *p, LLVMBuilderRef bld, LLVMValueRef v,
                               LLVMValueRef *sum, LLVMValueRef *bound_out)
{
    *sum = LLVMBuildAdd(bld, v, p->step, "");
    LLVMSetNUW(*sum, LLVMGetNUW(p->next));
    LLVMSetNSW(*sum, LLVMGetNSW(p->next));
    LLVMValueRef bound = p->bound;
    if (p->bound_load) {
        bound = LLVMInstructionClone(p->bound_load);
        LLVMInsertIntoBuilder(bld, bound);
    }
    *bound_out = bound;
    return LLVMBuildICmp(bld, LLVMGetICmpPredicate(p->test), *sum, bound, "");
}

static bool rewrite(struct pair *p)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(p->ctx);
    LLVMBasicBlockRef head = LLVMInsertBasicBlockInContext(p->ctx, p->header, "pair.head");
    LLVMBasicBlockRef body = LLVMInsertBasicBlockInContext(p->ctx, p->header, "pair.body");
    LLVMBasicBlockRef next = LLVMInsertBasicBlockInContext(p->ctx, p->header, "pair.latch");
    struct kiln_cc_ptr_map m1 = {0}, m2 = {0};
    bool oom = false;

    /* P */
    LLVMPositionBuilderAtEnd(bld, head);
    LLVMValueRef pv = LLVMBuildPhi(bld, LLVMTypeOf(p->i), "pair.i");
    LLVMValueRef q, bound;
    LLVMValueRef q_ok = latch_test(p, bld, pv, &q, &bound);
    LLVMBuildCondBr(bld, q_ok, body, p->header);
    /* PB */
    LLVMPositionBuilderAtEnd(bld, body);
    LLVMValueRef c1 = clone_body(p, bld, pv, &m1, &oom);
    LLVMValueRef c2 = oom ? NULL : clone_body(p, bld, q, &m2, &oom);
    if (!oom) {
        /* On to PL only when neither iteration goes to R. */
        if (p->rare_on_true)
            LLVMBuildCondBr(bld, LLVMBuildOr(bld, c1, c2, ""), p->header, next);
        else
            LLVMBuildCondBr(bld, LLVMBuildAnd(bld, c1, c2, ""), next, p->header);
        /* PL */
        LLVMPositionBuilderAtEnd(bld, next);
        LLVMValueRef q2;
        LLVMValueRef more = latch_test(p, bld, q, &q2, &bound);
        LLVMBuildCondBr(bld, more, head, p->exit);
        for (LLVMValueRef in = LLVMGetFirstInstruction(p->exit); in && LLVMIsAPHINode(in);
             in = LLVMGetNextInstruction(in)) {
            LLVMValueRef v = LLVMGetIncomingValue(in, 0);
            LLVMValueRef pl_v = v == p->bound_load ? bound : v;
            LLVMAddIncoming(in, &pl_v, &next, 1);
        }
        /* P's edges; H's phi becomes p; L's back edge to P. */
        LLVMValueRef vals[3] = {p->i0, p->next, q2};
        LLVMBasicBlockRef from[3] = {p->pre, p->latch, next};
        LLVMAddIncoming(pv, vals, from, 3);
        LLVMValueRef pre_br = LLVMGetBasicBlockTerminator(p->pre);
        for (unsigned s = 0; s < LLVMGetNumSuccessors(pre_br); s++)
            if (LLVMGetSuccessor(pre_br, s) == p->header)
                LLVMSetSuccessor(pre_br, s, head);
        LLVMSetSuccessor(LLVMGetBasicBlockTerminator(p->latch), 0, head);
        LLVMReplaceAllUsesWith(p->i, pv);
        LLVMInstructionEraseFromParent(p->i);
    }
    kiln_cc_ptr_map_free(&m1);
    kiln_cc_ptr_map_free(&m2);
    LLVMDisposeBuilder(bld);
    return !oom;
}

enum kiln_cc_status kiln_cc_pair_loops(struct kiln_cc_build *b, LLVMValueRef *fns, const bool *skip,
                                       unsigned nfns, unsigned *npaired)
{
    unsigned reg_bits = kiln_cc_host_lanes(b->host) * 32, budget = b->host->avx512 ? 32 : 16;
    *npaired = 0;
    for (unsigned f = 0; f < nfns; f++) {
        if (skip[f])
            continue;
        /* Latches first: rewriting adds blocks, so collect, then rewrite. */
        LLVMBasicBlockRef latches[32];
        unsigned n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fns[f]); bb && n < 32;
             bb = LLVMGetNextBasicBlock(bb)) {
            struct pair p = {.ctx = b->ctx, .fn = fns[f]};
            bool oom = false;
            if (match(&p, bb, &oom))
                latches[n++] = bb;
            if (oom)
                return KILN_CC_OUT_OF_MEMORY;
        }
        for (unsigned k = 0; k < n; k++) {
            struct pair p = {.ctx = b->ctx, .fn = fns[f]};
            bool oom = false;
            if (!match(&p, latches[k], &oom)) {
                if (oom)
                    return KILN_CC_OUT_OF_MEMORY;
                continue;
            }
            unsigned widest;
            unsigned peak = peak_registers(p.header, reg_bits, &widest, &oom);
            if (oom)
                return KILN_CC_OUT_OF_MEMORY;
            if (widest < 1 || 2 * peak > budget + budget / 2)
                continue;
            if (!rewrite(&p))
                return KILN_CC_OUT_OF_MEMORY;
            ++*npaired;
        }
    }
    return KILN_CC_OK;
}
