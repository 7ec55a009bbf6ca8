/*
 * Counting loops that start at a work-item's index.
 *
 * A kernel often shares an array among its work-items with a loop that starts at the
 * work-item's local id and steps by the group's size:
 *
 *     for (size_t i = get_local_id(0); i < 1024; i += get_local_size(0)) ...
 *
 * With a fixed local size (a reqd_work_group_size or a local-size variant) each work-item
 * runs it the same number of times, here 1024 / 256 = 4, but LLVM's analyses see a trip
 * count that depends on the local id: the loop is neither unrolled nor left uniform, so
 * the work-item loop around it is not vectorised. This rewrite, run between the two
 * halves of O3 (outer_vec.c), proves the trip count is the same for every start the loop
 * can have and then gives the loop a counter of its own to leave by, a constant trip
 * count that LLVM unrolls fully before its vectoriser runs.
 *
 * The shape, after the first half of O3 (the loop rotated):
 *
 *     x loop:  x = phi [0, outside], [x + 1, x latch]; the x latch leaves when x + 1
 *              reaches the constant L (==, or stays on != or <): x is in [0, L)
 *     header:  i = phi [start, preheader], [i + S, latch]    S a constant
 *     latch:   br (icmp pred a, C), ...   a is i or i + S, C a constant; one successor
 *              is the header
 *
 * where start is x, or x extended or truncated, plus a constant. The proof runs the exit
 * test for every start (at most L of them, and at most a fixed number of steps in all),
 * in the loop's integer width, and gives up where an add marked nuw or nsw would wrap.
 * Only the test is replaced: the loop leaves at the same iteration for every start, so
 * its behaviour is unchanged.
 */
#include "loops.h"

#include <stdbool.h>
#include <stdint.h>

/* Steps of the exit test the proof may run, over all starts of one loop. */
#define PROOF_STEPS (1u << 16)

static bool const_int(LLVMValueRef v, int64_t *out)
{
    if (!v || !LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
        return false;
    *out = LLVMConstIntGetSExtValue(v);
    return true;
}

/* Predecessors of bb: the blocks whose terminators branch to it (once each). */
static unsigned predecessors(LLVMBasicBlockRef bb, LLVMBasicBlockRef *out, unsigned max)
{
    unsigned n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsATerminatorInst(user))
            continue;
        LLVMBasicBlockRef from = LLVMGetInstructionParent(user);
        bool seen = false;
        for (unsigned k = 0; k < n && k < max; k++)
            seen |= out[k] == from;
        if (seen)
            continue;
        if (n < max)
            out[n] = from;
        n++;
    }
    return n;
}

/* Whether x is the counter of a counted loop (counted_loop.c): *bound set to its bound. */
static bool counter_bound(LLVMValueRef x, uint64_t *bound)
{
    if (!LLVMIsAPHINode(x) || LLVMCountIncoming(x) != 2)
        return false;
    for (unsigned k = 0; k < 2; k++) {
        struct kiln_cc_counted_loop c;
        if (kiln_cc_counted_loop(LLVMGetIncomingBlock(x, k), &c) && c.x == x) {
            *bound = c.bound;
            return true;
        }
    }
    return false;
}

/* v in `bits` bits, as an unsigned and as a signed number. */
static uint64_t wrap_u(uint64_t v, unsigned bits)
{
    return bits == 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

static int64_t as_signed(uint64_t v, unsigned bits)
{
    if (bits == 64)
        return (int64_t)v;
    uint64_t sign = UINT64_C(1) << (bits - 1);
    return (int64_t)((v ^ sign) - sign);
}

static bool eval_icmp(LLVMIntPredicate pred, uint64_t a, uint64_t b, unsigned bits)
{
    int64_t sa = as_signed(a, bits), sb = as_signed(b, bits);
    switch (pred) {
    case LLVMIntEQ:
        return a == b;
    case LLVMIntNE:
        return a != b;
    case LLVMIntUGT:
        return a > b;
    case LLVMIntUGE:
        return a >= b;
    case LLVMIntULT:
        return a < b;
    case LLVMIntULE:
        return a <= b;
    case LLVMIntSGT:
        return sa > sb;
    case LLVMIntSGE:
        return sa >= sb;
    case LLVMIntSLT:
        return sa < sb;
    case LLVMIntSLE:
        return sa <= sb;
    }
    return false;
}

/* Whether add a, b in `bits` bits wraps where its flags forbid it. */
static bool add_wraps(LLVMValueRef add, uint64_t a, uint64_t b, unsigned bits)
{
    uint64_t sum = wrap_u(a + b, bits);
    if (LLVMGetNUW(add) && sum < a)
        return true;
    if (LLVMGetNSW(add)) {
        int64_t sa = as_signed(a, bits), sb = as_signed(b, bits), ss = as_signed(sum, bits);
        if ((sb >= 0 && ss < sa) || (sb < 0 && ss > sa))
            return true;
    }
    return false;
}

/* One strided loop, as matched. */
struct strided {
    LLVMBasicBlockRef header, pre, latch;
    LLVMValueRef i, next, br, test;
    unsigned bits;
    uint64_t step;
    bool test_on_next, stay_on_true;
    LLVMIntPredicate pred;
    uint64_t bound; /* C */
    bool test_swapped;
    /* start = ext(x) + offset, x in [0, x_bound) */
    LLVMValueRef x, start_add, ext;
    uint64_t offset, x_bound;
};

/* Matches start = [add] [zext|sext|trunc] x, c; false for anything else. */
static bool match_start(struct strided *s, LLVMValueRef start)
{
    s->offset = 0;
    s->start_add = NULL;
    s->ext = NULL;
    int64_t c;
    if (LLVMIsAInstruction(start) &&
        (LLVMGetInstructionOpcode(start) == LLVMAdd || LLVMGetInstructionOpcode(start) == LLVMOr) &&
        const_int(LLVMGetOperand(start, 1), &c)) {
        if (LLVMGetInstructionOpcode(start) == LLVMOr && !LLVMGetIsDisjoint(start))
            return false;
        s->start_add = start;
        s->offset = wrap_u((uint64_t)c, s->bits);
        start = LLVMGetOperand(start, 0);
    }
    if (LLVMIsAInstruction(start)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(start);
        if (op == LLVMZExt || op == LLVMSExt || op == LLVMTrunc) {
            s->ext = start;
            start = LLVMGetOperand(start, 0);
        }
    }
    s->x = start;
    return counter_bound(start, &s->x_bound);
}

/* The loop whose back edge ends `latch`, matched as above. */
static bool match(LLVMBasicBlockRef latch, struct strided *s)
{
    LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br))
        return false;
    LLVMValueRef test = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(test))
        return false;
    for (unsigned k = 0; k < 2; k++) {
        LLVMBasicBlockRef header = LLVMGetSuccessor(br, k);
        if (header == LLVMGetSuccessor(br, 1 - k))
            return false;
        /* The induction variable: a phi of the header fed by an add of the latch. */
        for (LLVMValueRef i = LLVMGetFirstInstruction(header); i && LLVMIsAPHINode(i);
             i = LLVMGetNextInstruction(i)) {
            if (LLVMCountIncoming(i) != 2 || LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMIntegerTypeKind)
                continue;
            *s = (struct strided){.header = header,
                                  .latch = latch,
                                  .i = i,
                                  .br = br,
                                  .test = test,
                                  .stay_on_true = k == 0};
            s->bits = LLVMGetIntTypeWidth(LLVMTypeOf(i));
            if (s->bits > 64)
                continue;
            LLVMValueRef start = NULL;
            for (unsigned e = 0; e < 2; e++) {
                if (LLVMGetIncomingBlock(i, e) == latch) {
                    s->next = LLVMGetIncomingValue(i, e);
                } else {
                    s->pre = LLVMGetIncomingBlock(i, e);
                    start = LLVMGetIncomingValue(i, e);
                }
            }
            int64_t step;
            if (!s->next || !start || !LLVMIsAInstruction(s->next) ||
                LLVMGetInstructionOpcode(s->next) != LLVMAdd || LLVMGetOperand(s->next, 0) != i ||
                !const_int(LLVMGetOperand(s->next, 1), &step) || step <= 0)
                continue;
            s->step = (uint64_t)step;
            /* The exit test: i or i + S against a constant, either way round. */
            LLVMValueRef a = LLVMGetOperand(test, 0), b = LLVMGetOperand(test, 1);
            int64_t c;
            s->pred = LLVMGetICmpPredicate(test);
            if ((a == i || a == s->next) && const_int(b, &c)) {
                s->test_on_next = a == s->next;
            } else if ((b == i || b == s->next) && const_int(a, &c)) {
                s->test_on_next = b == s->next;
                s->test_swapped = true;
            } else {
                continue;
            }
            s->bound = wrap_u((uint64_t)c, s->bits);
            LLVMBasicBlockRef preds[3];
            if (predecessors(header, preds, 3) != 2)
                continue;
            if (match_start(s, start))
                return true;
        }
    }
    return false;
}

/* The value of start for x, in the loop's width; false where an add would be poison. */
static bool start_value(const struct strided *s, uint64_t x, uint64_t *out)
{
    unsigned xbits = LLVMGetIntTypeWidth(LLVMTypeOf(s->x));
    uint64_t v = x; /* x < x_bound, which fits x's width */
    if (s->ext && LLVMGetInstructionOpcode(s->ext) == LLVMSExt)
        v = (uint64_t)as_signed(v, xbits);
    v = wrap_u(v, s->bits);
    if (s->start_add) {
        if (LLVMGetInstructionOpcode(s->start_add) == LLVMAdd &&
            add_wraps(s->start_add, v, s->offset, s->bits))
            return false;
        v = wrap_u(v + s->offset, s->bits);
    }
    *out = v;
    return true;
}

/* The common number of back edges taken plus one (the trip count), or 0 if there is none. */
static uint64_t common_trips(const struct strided *s)
{
    uint64_t trips = 0, steps = 0;
    for (uint64_t x = 0; x < s->x_bound; x++) {
        uint64_t i;
        if (!start_value(s, x, &i))
            return 0;
        uint64_t k = 0;
        for (;;) {
            if (++steps > PROOF_STEPS)
                return 0;
            uint64_t n = wrap_u(i + s->step, s->bits);
            bool wraps = add_wraps(s->next, i, s->step, s->bits);
            if (wraps && s->test_on_next)
                return 0;
            uint64_t a = s->test_on_next ? n : i;
            bool t = s->test_swapped ? eval_icmp(s->pred, s->bound, a, s->bits)
                                     : eval_icmp(s->pred, a, s->bound, s->bits);
            k++;
            if (t != s->stay_on_true)
                break;
            if (wraps)
                return 0;
            i = n;
        }
        if (trips == 0)
            trips = k;
        else if (trips != k)
            return 0;
    }
    return trips;
}

/* Leaves the loop by a counter of its own: k = phi [0, pre], [k + 1, latch]. */
static void count(LLVMContextRef ctx, const struct strided *s, uint64_t trips)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMPositionBuilderBefore(bld, LLVMGetFirstInstruction(s->header));
    LLVMValueRef k = LLVMBuildPhi(bld, i64, "trip");
    LLVMPositionBuilderBefore(bld, s->br);
    LLVMValueRef k1 = LLVMBuildNUWAdd(bld, k, LLVMConstInt(i64, 1, 0), "trip.next");
    LLVMValueRef zero = LLVMConstNull(i64);
    LLVMBasicBlockRef pre = s->pre, latch = s->latch;
    LLVMAddIncoming(k, &zero, &pre, 1);
    LLVMAddIncoming(k, &k1, &latch, 1);
    LLVMValueRef stay = LLVMBuildICmp(bld, s->stay_on_true ? LLVMIntNE : LLVMIntEQ, k1,
                                      LLVMConstInt(i64, trips, 0), "trip.test");
    LLVMSetCondition(s->br, stay);
    if (!LLVMGetFirstUse(s->test))
        LLVMInstructionEraseFromParent(s->test);
    LLVMDisposeBuilder(bld);
}

unsigned kiln_cc_count_strided_loops(LLVMContextRef ctx, LLVMValueRef fn)
{
    unsigned done = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        struct strided s;
        if (!match(bb, &s))
            continue;
        uint64_t trips = common_trips(&s);
        if (trips) {
            count(ctx, &s, trips);
            done++;
        }
    }
    return done;
}
