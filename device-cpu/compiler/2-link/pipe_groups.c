/*
 * Pipe calls the whole work-group makes: read_pipe and write_pipe without a reservation id
 * become one reservation per group where every work-item of the group is known to call them
 * once.
 *
 * Each one-packet call reserves a packet, copies it and commits it: two compare-and-swaps and
 * a sequentially consistent store on words every worker thread using the pipe writes, per
 * packet. A kernel such as `write_pipe(p, &in[get_global_id(0)])` then runs at the speed of
 * those atomics, and slower the more threads share the pipe. The specification orders no
 * two work-items' one-packet calls, so a group whose work-items each make one may as well
 * take its packets as one work-group reservation (kernel-lib/pipes/pipes.cl,
 * __kiln_read_pipe_group and __kiln_write_pipe_group): work-item k gets packet k of it,
 * and when the pipe has too little room or too few packets for the whole group, every
 * work-item makes its own call as before.
 *
 * The group's reservation is a collective, with barriers, so a call is rewritten only where
 * all of this holds, in a kernel (not a block kernel, and called by no other function):
 *   - the call is the kernel's only pipe built-in call: a read_pipe or write_pipe without a
 *     reservation id (__read_pipe_2 or __write_pipe_2);
 *   - every path from the kernel's entry to a return passes the call's block, which lies on
 *     no cycle: each work-item makes the call exactly once;
 *   - the pipe is an argument of the kernel (at this stage, before any optimisation, the
 *     value loaded from the argument's alloca, which stores nothing else), the same for
 *     the whole group;
 *   - nothing else in the kernel can wait for another work-item or a command: no atomic
 *     operation, fence or volatile access, and no call but to LLVM's intrinsics and to
 *     functions that write no memory (the work-item queries, the math built-ins). Without
 *     it a work-item could, say, spin on an atomic after its write_pipe until the consumer
 *     has read the packet, which the group's commit would hold back until every work-item
 *     had written.
 * Runs on the user's module before the library is linked (kiln_cc_link_library calls it),
 * so that the linker brings in the group functions. -cl-opt-disable turns it off.
 */
#include "link_stage.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The memory attribute's bits that say a function may write (Mod, for each location). */
#define MEMORY_MOD_BITS 0x2a

/* The called function of a direct call, or NULL. */
static LLVMValueRef callee_of(LLVMValueRef in)
{
    if (!LLVMIsACallInst(in))
        return NULL;
    LLVMValueRef f = LLVMGetCalledValue(in);
    return LLVMIsAFunction(f) ? f : NULL;
}

static bool name_is(LLVMValueRef f, const char *name)
{
    size_t len;
    return f && strcmp(LLVMGetValueName2(f, &len), name) == 0;
}

/* Whether the call writes no memory, by the memory attribute of its callee or call site. */
static bool writes_nothing(LLVMValueRef call, LLVMValueRef f)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind);
    if (!a)
        a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
    return a && (LLVMGetEnumAttributeValue(a) & MEMORY_MOD_BITS) == 0;
}

/*
 * The kernel's one __read_pipe_2 or __write_pipe_2 call when nothing in fn can wait for
 * another work-item (above), else NULL.
 */
static LLVMValueRef quiet_pipe_call(LLVMValueRef fn)
{
    LLVMValueRef found = NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            switch (LLVMGetInstructionOpcode(in)) {
            case LLVMAtomicRMW:
            case LLVMAtomicCmpXchg:
            case LLVMFence:
            case LLVMInvoke:
            case LLVMCallBr:
                return NULL;
            case LLVMLoad:
            case LLVMStore:
                if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
                    return NULL;
                break;
            case LLVMCall: {
                LLVMValueRef f = callee_of(in);
                if (!f)
                    return NULL; /* an indirect call */
                if (name_is(f, "__read_pipe_2") || name_is(f, "__write_pipe_2")) {
                    if (found)
                        return NULL;
                    found = in;
                } else if (!LLVMGetIntrinsicID(f) && !writes_nothing(in, f)) {
                    return NULL;
                }
                break;
            }
            default:
                break;
            }
        }
    return found;
}

/*
 * Whether pipe operand v is the same for every work-item: an argument, or a load from an
 * alloca that is only ever stored that one argument (and otherwise loaded or given lifetime
 * markers).
 */
static bool group_uniform(LLVMValueRef v)
{
    if (LLVMIsAArgument(v))
        return true;
    if (!LLVMIsALoadInst(v) || !LLVMIsAAllocaInst(LLVMGetOperand(v, 0)))
        return false;
    LLVMValueRef slot = LLVMGetOperand(v, 0), arg = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot &&
            LLVMIsAArgument(LLVMGetOperand(user, 0)) && (!arg || arg == LLVMGetOperand(user, 0))) {
            arg = LLVMGetOperand(user, 0);
            continue;
        }
        LLVMValueRef f = callee_of(user);
        size_t len;
        if (f && strncmp(LLVMGetValueName2(f, &len), "llvm.lifetime.", 14) == 0)
            continue;
        return false;
    }
    return arg != NULL;
}

/*
 * Marks in *seen the blocks reachable from the successors of `from` (with `from` itself
 * too when `self`), without entering `avoid`. False when out of memory.
 */
static bool reach(LLVMBasicBlockRef from, bool self, LLVMBasicBlockRef avoid, unsigned nblocks,
                  struct kiln_cc_ptr_map *seen)
{
    LLVMBasicBlockRef *stack = malloc((nblocks + 1) * sizeof(*stack));
    if (!stack)
        return false;
    unsigned top = 0;
    bool ok = true;
    if (self) {
        ok = kiln_cc_ptr_map_add(seen, from);
        stack[top++] = from;
    } else {
        stack[top++] = from; /* walked for its successors only, not marked */
    }
    while (top > 0 && ok) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(stack[--top]);
        for (unsigned i = 0, n = LLVMGetNumSuccessors(term); i < n && ok; i++) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(term, i);
            if (s == avoid || kiln_cc_ptr_map_has(seen, s))
                continue;
            ok = kiln_cc_ptr_map_add(seen, s);
            stack[top++] = s;
        }
    }
    free(stack);
    return ok;
}

/*
 * Whether block bb of fn runs exactly once in every run of fn that returns: no path from the
 * entry to a return avoids it, and no path leads from it back to it. -1 when out of memory.
 */
static int once_per_run(LLVMValueRef fn, LLVMBasicBlockRef bb)
{
    unsigned nblocks = LLVMCountBasicBlocks(fn);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    struct kiln_cc_ptr_map around = {0}, after = {0};
    int once = -1;
    /* The entry has no predecessor: every run passes it once. */
    if ((entry == bb || reach(entry, true, bb, nblocks, &around)) &&
        reach(bb, false, NULL, nblocks, &after)) {
        once = !kiln_cc_ptr_map_has(&after, bb);
        for (size_t i = 0; i < around.cap && once == 1; i++)
            if (around.keys[i] && LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(
                                      (LLVMBasicBlockRef)around.keys[i])) == LLVMRet)
                once = 0;
    }
    kiln_cc_ptr_map_free(&around);
    kiln_cc_ptr_map_free(&after);
    return once;
}

/* The group function standing in for `f` (__read_pipe_2 or __write_pipe_2), declared. */
static LLVMValueRef group_function(struct kiln_cc_build *b, LLVMValueRef f)
{
    const char *name =
        name_is(f, "__read_pipe_2") ? "__kiln_read_pipe_group" : "__kiln_write_pipe_group";
    LLVMValueRef g = LLVMGetNamedFunction(b->mod, name);
    return g ? g : LLVMAddFunction(b->mod, name, LLVMGlobalGetValueType(f));
}

enum kiln_cc_status kiln_cc_batch_pipe_calls(struct kiln_cc_build *b)
{
    if (b->opts->opt_disable)
        return KILN_CC_OK;
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    if (!bld)
        return KILN_CC_OUT_OF_MEMORY;
    enum kiln_cc_status status = KILN_CC_OK;
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++) {
        LLVMValueRef fn = b->kernel_fns[k];
        if (!fn || kiln_cc_is_block_kernel(fn) || LLVMGetFirstUse(fn))
            continue;
        LLVMValueRef call = quiet_pipe_call(fn);
        if (!call || !group_uniform(LLVMGetOperand(call, 0)))
            continue;
        int once = once_per_run(fn, LLVMGetInstructionParent(call));
        if (once < 0) {
            status = KILN_CC_OUT_OF_MEMORY;
            break;
        }
        if (!once)
            continue;
        LLVMValueRef f = callee_of(call), g = group_function(b, f);
        LLVMValueRef args[4];
        for (unsigned i = 0; i < 4; i++)
            args[i] = LLVMGetOperand(call, i);
        LLVMPositionBuilderBefore(bld, call);
        LLVMValueRef grouped = LLVMBuildCall2(bld, LLVMGlobalGetValueType(g), g, args, 4, "");
        LLVMReplaceAllUsesWith(call, grouped);
        LLVMInstructionEraseFromParent(call);
        if (!LLVMGetFirstUse(f))
            LLVMDeleteFunction(f);
    }
    LLVMDisposeBuilder(bld);
    return status;
}
