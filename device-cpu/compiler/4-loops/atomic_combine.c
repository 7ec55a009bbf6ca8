/*
 * Combining global atomic adds within a worker's work-groups (a pass the optimisation stage
 * runs before the loop vectoriser).
 *
 * A histogram kernel does one `atomic_inc(&hist[bin])` per work-item into global memory.
 * Each is a `lock add` (about 6 ns on an idle core, far more when another core writes the
 * same cache line), so such a kernel runs at the speed of its atomics. The work-items of a
 * group run one after another on one thread, and a worker runs a chunk of groups one after
 * another, so the worker can add up its increments per address and apply each sum with
 * one atomic at the end of its chunk: one `lock add` per distinct address per chunk.
 *
 * Which operations (OpenCL C 3.0 §6.15.12; the memory model of the OpenCL 3.0 API
 * specification §3.3.4 to §3.3.6). A candidate is an `atomicrmw add` or `sub`
 *   - on an i32 or i64 in global memory, or through a generic pointer (whose __local case
 *     the kernel library handles on another path, kernel-lib/atomic/atomic.cl),
 *   - not volatile, of any order: the OpenCL 1.x atomic_add, sub, inc, dec and atom_*
 *     (seq_cst in Kiln), atomic_fetch_add/sub (seq_cst) and their _explicit forms,
 *   - whose old value nothing uses,
 * inside a work-item loop (a latch carrying llvm.loop.parallel_accesses). A work-group
 * function is rewritten only when all of these hold:
 *   (a) after each candidate, up to the end of its work-item's iteration, no instruction
 *       touches memory except other candidates and non-atomic __local accesses;
 *   (b) nowhere in the function is there another atomic, a volatile or atomic access to
 *       memory other than __local, a fence or a call other than an intrinsic;
 *   (c) outside the work-item loops the function neither stores nor calls;
 *   (d) it has one work-item loop: a kernel with barriers has one per region (the region
 *       transform), and a later region may read what an earlier one added, which a barrier
 *       with a global fence entitles it to see.
 *
 * Why that is allowed. Delaying a candidate is indistinguishable from a schedule in which
 * its work-item ran slower, which every OpenCL implementation may do: by (a) the work-item
 * does nothing after it that could see the delay (a read of the same location, which must
 * see its own add) or be ordered behind it (an acquire would order only later accesses, and
 * there are none), and by (c) neither does anything the wrapper runs after the loop (LICM
 * may sink a work-item's store there). The other work-items of its group, and those of the
 * later groups of the chunk, are not ordered with it: there is no barrier between them (d)
 * and no other atomic or fence they could synchronise through (b). Two delayed adds to one address
 * applied as one add of their sum are the two adds adjacent in that location's modification order
 * (and, for seq_cst ones, in the single total order), which the model allows: no other operation is
 * required to fall between them, so no reader can be required to see the value between them. Each
 * sum is applied by a seq_cst add, at least as strong as any of the adds it stands for; as it
 * follows all their work-items' earlier accesses on the thread, it releases what each of
 * them released. The delay is finite: a work-item that waits for another's update must
 * read the location in a loop with an atomic or volatile access, and (b) leaves none in
 * the function (__local accesses cannot see global memory, and a group's work-items cannot
 * wait on each other between barriers: they run in turn), so a chunk always ends, and it
 * applies every sum before its thread runs anything else.
 *
 * What stays as it was: an atomic whose result is used (it must return the value at its
 * own place in the modification order), and every function that holds one, since by (b)
 * any other atomic stops the rewrite (the used value could be how the kernel waits); min,
 * max, and, or, xor, xchg and cmpxchg; the __local atomics; kernels with barriers.
 *
 * The tables. One per (width, address space) of the candidates, KILN_COMBINE_SLOTS slots
 * of an address (as an integer, 0 for empty) and a pending sum (i64 for both widths: an
 * i32 sum is cut when applied), direct-mapped on the address divided by the operand's size,
 * plus the list of slots in use and their count. They live in ctx->combine (kiln_abi.h),
 * the worker's area, zeroed when allocated and empty between chunks; without it (a caller
 * that leaves ctx->combine NULL) in the function's frame, emptied on entry. An add to the
 * address a slot holds adds to its sum; to another address it first applies the slot's sum
 * with one seq_cst atomic add. At every return of the function, unless ctx->chunk_more
 * says the next group of the chunk follows on this thread with the same area, every slot
 * in use is applied (a zero sum skipped) and emptied. A 256-bin uint histogram maps onto
 * the 256 slots one to one.
 */
#include "loops.h"

#include "kiln_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots in use from which a flush walks all slots in address order (build_flush). */
#define COMBINE_SCAN 32

/* Fields of a table (struct-typed as in table_type). */
enum { F_KEYS, F_SUMS, F_USED, F_COUNT };

/* The helpers of one (width, address space). */
struct kind {
    unsigned bits, as;
    LLVMValueRef add;   /* void add(ptr table, ptr addrspace(as) p, i64 v) */
    LLVMValueRef flush; /* void flush(ptr table, i1 keep) */
};

static bool is_candidate(LLVMValueRef in)
{
    if (LLVMGetInstructionOpcode(in) != LLVMAtomicRMW || LLVMGetFirstUse(in) || LLVMGetVolatile(in))
        return false;
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(in);
    if (op != LLVMAtomicRMWBinOpAdd && op != LLVMAtomicRMWBinOpSub)
        return false;
    LLVMTypeRef t = LLVMTypeOf(in);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
        (LLVMGetIntTypeWidth(t) != 32 && LLVMGetIntTypeWidth(t) != 64))
        return false;
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(in, 0)));
    return as == 1 || as == 4;
}

/*
 * A non-atomic load or store of __local memory, volatile or not: the kernel library's
 * __local atomics (also reached through generic pointers) are such accesses. No global add
 * can be seen through them, and nothing can wait on them between barriers: the group's
 * work-items run one after another on one thread, so a spin on one would never end anyway.
 */
static bool local_access(LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if ((op != LLVMLoad && op != LLVMStore) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
        return false;
    LLVMValueRef ptr = LLVMGetOperand(in, op == LLVMLoad ? 0 : 1);
    return LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) == 3;
}

/* Whether `in` may wait, synchronise or run unknown code: what (b) refuses. */
static bool blocks_combining(LLVMValueRef in)
{
    switch (LLVMGetInstructionOpcode(in)) {
    case LLVMLoad:
    case LLVMStore:
        return !local_access(in) &&
               (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic);
    case LLVMAtomicRMW:
        return !is_candidate(in);
    case LLVMAtomicCmpXchg:
    case LLVMFence:
        return true;
    case LLVMCall: {
        LLVMValueRef callee = LLVMGetCalledValue(in);
        return !callee || !LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee);
    }
    default:
        return false;
    }
}

/* Whether `in` touches no memory (or is a candidate): what (a) allows after a candidate. */
static bool quiet(LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    return op == LLVMPHI || op == LLVMBr || op == LLVMSwitch || kiln_cc_plain_opcode(op) ||
           is_candidate(in) || local_access(in);
}

/* (a) for the candidate `c`: the rest of its block and every block reachable from there
 * inside the loop without passing the header hold only quiet instructions. */
static bool quiet_after(LLVMValueRef c, LLVMBasicBlockRef header,
                        const struct kiln_cc_ptr_map *blocks, bool *oom)
{
    for (LLVMValueRef in = LLVMGetNextInstruction(c); in; in = LLVMGetNextInstruction(in))
        if (!quiet(in))
            return false;
    struct kiln_cc_ptr_map seen = {0};
    size_t cap = 16, top = 0;
    LLVMBasicBlockRef *stack = malloc(cap * sizeof(*stack));
    bool ok = true;
    if (!stack) {
        *oom = true;
        return false;
    }
    stack[top++] = LLVMGetInstructionParent(c);
    while (top > 0 && ok) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(stack[--top]);
        for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term) && ok; s++) {
            LLVMBasicBlockRef bb = LLVMGetSuccessor(term, s);
            if (bb == header || !kiln_cc_ptr_map_has(blocks, bb) || kiln_cc_ptr_map_has(&seen, bb))
                continue;
            if (!kiln_cc_ptr_map_add(&seen, bb)) {
                *oom = true;
                ok = false;
                break;
            }
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && ok;
                 in = LLVMGetNextInstruction(in))
                ok = quiet(in);
            if (top == cap) {
                LLVMBasicBlockRef *more = realloc(stack, 2 * cap * sizeof(*stack));
                if (!more) {
                    *oom = true;
                    ok = false;
                    break;
                }
                stack = more;
                cap *= 2;
            }
            stack[top++] = bb;
        }
    }
    free(stack);
    kiln_cc_ptr_map_free(&seen);
    return ok;
}

/* { [N x i64] keys, [N x i64] sums, [N x i32] used, i32 count }, KILN_COMBINE_TABLE_SIZE
 * bytes at most, for every width (an i32 sum is kept in i64 and cut when applied). */
static LLVMTypeRef table_type(LLVMContextRef ctx)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef fields[4] = {LLVMArrayType2(i64, KILN_COMBINE_SLOTS),
                             LLVMArrayType2(i64, KILN_COMBINE_SLOTS),
                             LLVMArrayType2(i32, KILN_COMBINE_SLOTS), i32};
    return LLVMStructTypeInContext(ctx, fields, 4, 0);
}

_Static_assert(KILN_COMBINE_SLOTS *(8 + 8 + 4) + 4 <= KILN_COMBINE_TABLE_SIZE,
               "a table fits its share of ctx->combine");

static LLVMValueRef field(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef tab, unsigned f,
                          LLVMValueRef index)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMValueRef idx[3] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, f, 0), index};
    return LLVMBuildInBoundsGEP2(bld, table_type(ctx), tab, idx, index ? 3 : 2, "");
}

/* Builds the body of k->add: the operand added to its address's slot. */
static void build_add(LLVMContextRef ctx, LLVMBuilderRef bld, const struct kind *k)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef iv = LLVMIntTypeInContext(ctx, k->bits);
    LLVMValueRef fn = k->add, tab = LLVMGetParam(fn, 0), p = LLVMGetParam(fn, 1),
                 v = LLVMGetParam(fn, 2);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry"),
                      hit = LLVMAppendBasicBlockInContext(ctx, fn, "hit"),
                      miss = LLVMAppendBasicBlockInContext(ctx, fn, "miss"),
                      evict = LLVMAppendBasicBlockInContext(ctx, fn, "evict"),
                      fresh = LLVMAppendBasicBlockInContext(ctx, fn, "fresh"),
                      install = LLVMAppendBasicBlockInContext(ctx, fn, "install");

    LLVMPositionBuilderAtEnd(bld, entry);
    LLVMValueRef key = LLVMBuildPtrToInt(bld, p, i64, "key");
    LLVMValueRef h =
        LLVMBuildAnd(bld, LLVMBuildLShr(bld, key, LLVMConstInt(i64, k->bits == 64 ? 3 : 2, 0), ""),
                     LLVMConstInt(i64, KILN_COMBINE_SLOTS - 1, 0), "slot");
    LLVMValueRef kp = field(bld, ctx, tab, F_KEYS, h), sp = field(bld, ctx, tab, F_SUMS, h);
    LLVMValueRef old_key = LLVMBuildLoad2(bld, i64, kp, "");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntEQ, old_key, key, ""), hit, miss);

    LLVMPositionBuilderAtEnd(bld, hit);
    LLVMBuildStore(bld, LLVMBuildAdd(bld, LLVMBuildLoad2(bld, i64, sp, ""), v, ""), sp);
    LLVMBuildRetVoid(bld);

    LLVMPositionBuilderAtEnd(bld, miss);
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntEQ, old_key, LLVMConstInt(i64, 0, 0), ""), fresh,
                    evict);

    /* Another address holds the slot: its sum goes out now. */
    LLVMPositionBuilderAtEnd(bld, evict);
    LLVMValueRef old = LLVMBuildTrunc(bld, LLVMBuildLoad2(bld, i64, sp, ""), iv, "");
    LLVMBuildAtomicRMW(bld, LLVMAtomicRMWBinOpAdd,
                       LLVMBuildIntToPtr(bld, old_key, LLVMTypeOf(p), ""), old,
                       LLVMAtomicOrderingSequentiallyConsistent, 0);
    LLVMBuildBr(bld, install);

    /* An empty slot joins the list the flush walks. */
    LLVMPositionBuilderAtEnd(bld, fresh);
    LLVMValueRef np = field(bld, ctx, tab, F_COUNT, NULL);
    LLVMValueRef n = LLVMBuildLoad2(bld, i32, np, "");
    LLVMBuildStore(bld, LLVMBuildTrunc(bld, h, i32, ""),
                   field(bld, ctx, tab, F_USED, LLVMBuildZExt(bld, n, i64, "")));
    LLVMBuildStore(bld, LLVMBuildAdd(bld, n, LLVMConstInt(i32, 1, 0), ""), np);
    LLVMBuildBr(bld, install);

    LLVMPositionBuilderAtEnd(bld, install);
    LLVMBuildStore(bld, key, kp);
    LLVMBuildStore(bld, v, sp);
    LLVMBuildRetVoid(bld);
}

/*
 * Builds the body of k->flush: unless `keep`, every slot in use applied and emptied. With
 * few slots in use it walks their list; with COMBINE_SCAN or more it walks all slots in
 * order instead, so that the adds to one cache line (neighbouring addresses, neighbouring
 * slots) follow one another and the line is fetched once for all of them.
 */
static void build_flush(LLVMContextRef ctx, LLVMBuilderRef bld, const struct kind *k)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef iv = LLVMIntTypeInContext(ctx, k->bits);
    LLVMTypeRef pty = LLVMPointerTypeInContext(ctx, k->as);
    LLVMValueRef fn = k->flush, tab = LLVMGetParam(fn, 0), keep = LLVMGetParam(fn, 1);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry"),
                      count = LLVMAppendBasicBlockInContext(ctx, fn, "count"),
                      start = LLVMAppendBasicBlockInContext(ctx, fn, "start"),
                      loop = LLVMAppendBasicBlockInContext(ctx, fn, "loop"),
                      full = LLVMAppendBasicBlockInContext(ctx, fn, "full"),
                      apply = LLVMAppendBasicBlockInContext(ctx, fn, "apply"),
                      next = LLVMAppendBasicBlockInContext(ctx, fn, "next"),
                      done = LLVMAppendBasicBlockInContext(ctx, fn, "done"),
                      out = LLVMAppendBasicBlockInContext(ctx, fn, "out");

    LLVMPositionBuilderAtEnd(bld, entry);
    LLVMBuildCondBr(bld, keep, out, count);

    LLVMPositionBuilderAtEnd(bld, count);
    LLVMValueRef np = field(bld, ctx, tab, F_COUNT, NULL);
    LLVMValueRef n = LLVMBuildLoad2(bld, i32, np, "n");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntEQ, n, LLVMConstInt(i32, 0, 0), ""), out, start);

    LLVMPositionBuilderAtEnd(bld, start);
    LLVMValueRef scan =
        LLVMBuildICmp(bld, LLVMIntUGE, n, LLVMConstInt(i32, COMBINE_SCAN, 0), "scan");
    LLVMValueRef limit =
        LLVMBuildSelect(bld, scan, LLVMConstInt(i32, KILN_COMBINE_SLOTS, 0), n, "");
    LLVMBuildBr(bld, loop);

    /* Slot i of the scan, or the i-th slot of the list. */
    LLVMPositionBuilderAtEnd(bld, loop);
    LLVMValueRef i = LLVMBuildPhi(bld, i32, "i");
    LLVMValueRef wide_i = LLVMBuildZExt(bld, i, i64, "");
    LLVMValueRef listed = LLVMBuildZExt(
        bld, LLVMBuildLoad2(bld, i32, field(bld, ctx, tab, F_USED, wide_i), ""), i64, "");
    LLVMValueRef h = LLVMBuildSelect(bld, scan, wide_i, listed, "");
    LLVMValueRef kp = field(bld, ctx, tab, F_KEYS, h);
    LLVMValueRef key = LLVMBuildLoad2(bld, i64, kp, "");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntNE, key, LLVMConstInt(i64, 0, 0), ""), full,
                    next);

    /* A slot in use: emptied, its sum applied unless it came to zero. */
    LLVMPositionBuilderAtEnd(bld, full);
    LLVMValueRef sum =
        LLVMBuildTrunc(bld, LLVMBuildLoad2(bld, i64, field(bld, ctx, tab, F_SUMS, h), ""), iv, "");
    LLVMBuildStore(bld, LLVMConstInt(i64, 0, 0), kp);
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntNE, sum, LLVMConstInt(iv, 0, 0), ""), apply,
                    next);

    LLVMPositionBuilderAtEnd(bld, apply);
    LLVMBuildAtomicRMW(bld, LLVMAtomicRMWBinOpAdd, LLVMBuildIntToPtr(bld, key, pty, ""), sum,
                       LLVMAtomicOrderingSequentiallyConsistent, 0);
    LLVMBuildBr(bld, next);

    LLVMPositionBuilderAtEnd(bld, next);
    LLVMValueRef i1 = LLVMBuildAdd(bld, i, LLVMConstInt(i32, 1, 0), "");
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntULT, i1, limit, ""), loop, done);
    LLVMValueRef in_v[2] = {LLVMConstInt(i32, 0, 0), i1};
    LLVMBasicBlockRef in_b[2] = {start, next};
    LLVMAddIncoming(i, in_v, in_b, 2);

    LLVMPositionBuilderAtEnd(bld, done);
    LLVMBuildStore(bld, LLVMConstInt(i32, 0, 0), np);
    LLVMBuildBr(bld, out);

    LLVMPositionBuilderAtEnd(bld, out);
    LLVMBuildRetVoid(bld);
}

/*
 * Builds kiln.combine.enter(area, frame, offset): the table at `offset` of ctx->combine,
 * or, without that area, `frame` (a table in the caller's frame) emptied.
 */
static LLVMValueRef enter_fn(LLVMModuleRef mod, LLVMContextRef ctx, LLVMBuilderRef bld)
{
    LLVMValueRef fn = LLVMGetNamedFunction(mod, "kiln.combine.enter");
    if (fn)
        return fn;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0), i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef args[3] = {ptr, ptr, i64};
    fn = LLVMAddFunction(mod, "kiln.combine.enter", LLVMFunctionType(ptr, args, 3, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
    LLVMValueRef area = LLVMGetParam(fn, 0), frame = LLVMGetParam(fn, 1);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry"),
                      shared = LLVMAppendBasicBlockInContext(ctx, fn, "shared"),
                      own = LLVMAppendBasicBlockInContext(ctx, fn, "own");
    LLVMPositionBuilderAtEnd(bld, entry);
    LLVMBuildCondBr(bld, LLVMBuildIsNull(bld, area, ""), own, shared);
    LLVMPositionBuilderAtEnd(bld, shared);
    LLVMValueRef off = LLVMGetParam(fn, 2);
    LLVMBuildRet(bld, LLVMBuildInBoundsGEP2(bld, LLVMInt8TypeInContext(ctx), area, &off, 1, ""));
    LLVMPositionBuilderAtEnd(bld, own);
    LLVMBuildMemSet(bld, frame, LLVMConstInt(LLVMInt8TypeInContext(ctx), 0, 0),
                    LLVMConstInt(i64, KILN_COMBINE_SLOTS * 8, 0), 16);
    LLVMBuildStore(bld, LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0),
                   field(bld, ctx, frame, F_COUNT, NULL));
    LLVMBuildRet(bld, frame);
    return fn;
}

/* The helpers of (bits, as), made on first use in the module. */
static void kind_helpers(LLVMModuleRef mod, LLVMContextRef ctx, LLVMBuilderRef bld, struct kind *k)
{
    char add_name[48], flush_name[48];
    snprintf(add_name, sizeof add_name, "kiln.combine.add.i%u.as%u", k->bits, k->as);
    snprintf(flush_name, sizeof flush_name, "kiln.combine.flush.i%u.as%u", k->bits, k->as);
    k->add = LLVMGetNamedFunction(mod, add_name);
    k->flush = LLVMGetNamedFunction(mod, flush_name);
    if (k->add && k->flush)
        return;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0), i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef add_args[3] = {ptr, LLVMPointerTypeInContext(ctx, k->as), i64};
    LLVMTypeRef flush_args[2] = {ptr, LLVMInt1TypeInContext(ctx)};
    LLVMTypeRef void_t = LLVMVoidTypeInContext(ctx);
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    k->add = LLVMAddFunction(mod, add_name, LLVMFunctionType(void_t, add_args, 3, 0));
    k->flush = LLVMAddFunction(mod, flush_name, LLVMFunctionType(void_t, flush_args, 2, 0));
    LLVMValueRef fns[2] = {k->add, k->flush};
    for (int f = 0; f < 2; f++) {
        LLVMSetLinkage(fns[f], LLVMInternalLinkage);
        LLVMAddAttributeAtIndex(fns[f], LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(ctx, always, 0));
    }
    build_add(ctx, bld, k);
    build_flush(ctx, bld, k);
}

/*
 * Checks the whole work-group function (the conditions at the top of this file) and marks
 * the blocks of its work-item loops in `in_loops`; how many candidates it holds, 0 when it
 * is left alone.
 */
static unsigned check_function(LLVMContextRef ctx, LLVMValueRef fn,
                               struct kiln_cc_ptr_map *in_loops, bool *oom)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    unsigned ncand = 0;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            if (blocks_combining(in))
                return 0;
    /* (a) in the work-item loop, and (d): there is one. */
    unsigned nloops = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !*oom;
         bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
        LLVMValueRef id = br ? LLVMGetMetadata(br, loop_kind) : NULL;
        if (!id || !kiln_cc_loop_entry(id, "llvm.loop.parallel_accesses"))
            continue;
        if (++nloops > 1)
            return 0;
        for (unsigned s = 0; s < LLVMGetNumSuccessors(br); s++) {
            struct kiln_cc_ptr_map blocks = {0};
            LLVMBasicBlockRef header = LLVMGetSuccessor(br, s);
            bool found = kiln_cc_loop_blocks(bb, header, &blocks, oom), ok = true;
            for (LLVMBasicBlockRef lb = LLVMGetFirstBasicBlock(fn); found && ok && lb;
                 lb = LLVMGetNextBasicBlock(lb)) {
                if (!kiln_cc_ptr_map_has(&blocks, lb))
                    continue;
                if (!kiln_cc_ptr_map_add(in_loops, lb)) {
                    *oom = true;
                    break;
                }
                for (LLVMValueRef in = LLVMGetFirstInstruction(lb); in && ok;
                     in = LLVMGetNextInstruction(in))
                    if (is_candidate(in))
                        ok = quiet_after(in, header, &blocks, oom);
            }
            kiln_cc_ptr_map_free(&blocks);
            if (!ok)
                return 0;
            if (found || *oom)
                break;
        }
    }
    /* (c) outside them: no candidate, no store and no call. */
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !*oom;
         bb = LLVMGetNextBasicBlock(bb)) {
        bool inside = kiln_cc_ptr_map_has(in_loops, bb);
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if (is_candidate(in)) {
                if (!inside)
                    return 0;
                ncand++;
            } else if (!inside && (op == LLVMStore || op == LLVMCall)) {
                return 0;
            }
        }
    }
    return *oom ? 0 : ncand;
}

/* Rewrites the candidates of `fn`, which check_function accepted. */
static void rewrite_function(LLVMModuleRef mod, LLVMContextRef ctx, LLVMBuilderRef bld,
                             LLVMValueRef fn)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0), i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMValueRef wg_ctx = LLVMGetParam(fn, 1);
    struct kind kinds[KILN_COMBINE_TABLES];
    LLVMValueRef tabs[KILN_COMBINE_TABLES] = {NULL};
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    LLVMValueRef area = NULL;

    for (unsigned t = 0; t < KILN_COMBINE_TABLES; t++)
        kinds[t] = (struct kind){.bits = t & 2 ? 64 : 32, .as = t & 1 ? 4 : 1};
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef in = LLVMGetFirstInstruction(bb);
        while (in) {
            LLVMValueRef next = LLVMGetNextInstruction(in);
            if (!is_candidate(in)) {
                in = next;
                continue;
            }
            LLVMValueRef p = LLVMGetOperand(in, 0), v = LLVMGetOperand(in, 1);
            unsigned t = (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64 ? 2 : 0) +
                         (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == 4 ? 1 : 0);
            if (!tabs[t]) {
                /* The helpers first: making them moves the builder. */
                kind_helpers(mod, ctx, bld, &kinds[t]);
                LLVMValueRef enter = enter_fn(mod, ctx, bld);
                LLVMPositionBuilderBefore(bld, LLVMGetFirstInstruction(entry));
                LLVMValueRef frame = LLVMBuildAlloca(bld, table_type(ctx), "kiln.combine");
                LLVMSetAlignment(frame, 16);
                LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(entry));
                if (!area)
                    area = kiln_cc_ctx_field(bld, ctx, wg_ctx,
                                             offsetof(struct kiln_wg_ctx, combine), ptr, "");
                LLVMValueRef args[3] = {area, frame,
                                        LLVMConstInt(i64, t * KILN_COMBINE_TABLE_SIZE, 0)};
                tabs[t] = LLVMBuildCall2(bld, LLVMGlobalGetValueType(enter), enter, args, 3, "");
            }
            LLVMPositionBuilderBefore(bld, in);
            v = LLVMBuildSExt(bld, v, i64, "");
            if (LLVMGetAtomicRMWBinOp(in) == LLVMAtomicRMWBinOpSub)
                v = LLVMBuildNeg(bld, v, "");
            LLVMValueRef args[3] = {tabs[t], p, v};
            LLVMBuildCall2(bld, LLVMGlobalGetValueType(kinds[t].add), kinds[t].add, args, 3, "");
            LLVMInstructionEraseFromParent(in);
            in = next;
        }
    }
    /* At every return: applied unless the next group of the chunk keeps them. */
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef ret = LLVMGetBasicBlockTerminator(bb);
        if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet)
            continue;
        LLVMPositionBuilderBefore(bld, ret);
        LLVMValueRef off = LLVMConstInt(i64, offsetof(struct kiln_wg_ctx, chunk_more), 0);
        LLVMValueRef more = LLVMBuildLoad2(
            bld, i32, LLVMBuildInBoundsGEP2(bld, LLVMInt8TypeInContext(ctx), wg_ctx, &off, 1, ""),
            "");
        LLVMSetAlignment(more, 4);
        LLVMValueRef keep =
            LLVMBuildAnd(bld, LLVMBuildIsNotNull(bld, area, ""),
                         LLVMBuildICmp(bld, LLVMIntNE, more, LLVMConstInt(i32, 0, 0), ""), "");
        for (unsigned t = 0; t < KILN_COMBINE_TABLES; t++) {
            if (!tabs[t])
                continue;
            LLVMValueRef args[2] = {tabs[t], keep};
            LLVMBuildCall2(bld, LLVMGlobalGetValueType(kinds[t].flush), kinds[t].flush, args, 2,
                           "");
        }
    }
}

enum kiln_cc_status kiln_cc_combine_atomics(struct kiln_cc_build *b, LLVMValueRef *fns,
                                            unsigned nfns, unsigned *ncombined)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    bool oom = false;

    *ncombined = 0;
    if (!bld)
        return KILN_CC_OUT_OF_MEMORY;
    for (unsigned f = 0; f < nfns && !oom; f++) {
        struct kiln_cc_ptr_map in_loops = {0};
        unsigned n = check_function(b->ctx, fns[f], &in_loops, &oom);
        kiln_cc_ptr_map_free(&in_loops);
        if (n && !oom) {
            rewrite_function(b->mod, b->ctx, bld, fns[f]);
            *ncombined += n;
        }
    }
    LLVMDisposeBuilder(bld);
    if (oom)
        return KILN_CC_OUT_OF_MEMORY;
    if (*ncombined == 0)
        return KILN_CC_OK;
    /* The helpers go into the functions. always-inline deletes them once unused; any it
     * left (found by name: the values above may be gone) go here. */
    enum kiln_cc_status status = kiln_cc_run_passes(b, "always-inline");
    LLVMValueRef fn = LLVMGetFirstFunction(b->mod);
    while (fn) {
        LLVMValueRef next = LLVMGetNextFunction(fn);
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (len > 13 && strncmp(name, "kiln.combine.", 13) == 0 && !LLVMGetFirstUse(fn))
            LLVMDeleteFunction(fn);
        fn = next;
    }
    return status;
}
