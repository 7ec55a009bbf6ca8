/*
 * Work-group stage, fiber strategy: kernels that call barrier() or
 * work_group_barrier() run every work-item on its own stack (fiber_rt.c).
 *
 * wg_wrapper.c builds, for such a kernel, a per-work-item function
 *
 *     void kiln.wi.<kernel>(void *const *args, struct kiln_wg_ctx *ctx,
 *                           struct fiber_group *group, i64 x, i64 y, i64 z)
 *
 * that unpacks the arguments and runs the kernel once, with the local-id hooks
 * replaced by x, y and z. The work-group function only hands it to the runtime:
 *
 *     void kiln.wg.<kernel>(args, ctx) { kiln.fiber.run(args, ctx, kiln.wi.<kernel>); }
 *
 * and every barrier call in the inlined kernel becomes kiln.fiber.barrier(group),
 * which switches to the next work-item. A barrier is an opaque call, so LLVM keeps
 * shared memory in memory across it; private values stay in the work-item's own
 * registers and stack, which the switch preserves.
 *
 * The stacks live in the worker's scratch area: KILN_FIBER_FIXED bytes plus
 * KILN_FIBER_STACK per work-item, so nothing is allocated per group and the
 * worker's own stack does not grow with the group size. Private variables are
 * limited to KILN_FIBER_PRIVATE_MAX bytes (counted from the allocas before
 * optimisation), which leaves half of each stack for spills and calls.
 *
 * KILN_BARRIER_STRATEGY chooses: "fibers" (or unset) uses this file; "regions"
 * leaves barrier kernels to check_support.c, which refuses them on this branch.
 */
#include "wg_internal.h"

#include <llvm-c/Target.h>

#include <stdlib.h>
#include <string.h>

static const char *const barrier_names[] = {
    "_Z7barrierj",
    "_Z18work_group_barrierj",
    "_Z18work_group_barrierj12memory_scope",
};

static bool is_barrier(LLVMValueRef fn)
{
    if (!fn || !LLVMIsAFunction(fn) || !LLVMIsDeclaration(fn))
        return false;
    const char *name = LLVMGetValueName(fn);
    for (size_t i = 0; i < sizeof(barrier_names) / sizeof(barrier_names[0]); i++)
        if (strcmp(name, barrier_names[i]) == 0)
            return true;
    return false;
}

static LLVMValueRef runtime_fn(struct kiln_cc_build *b, const char *name, LLVMTypeRef type)
{
    LLVMValueRef fn = LLVMGetNamedFunction(b->mod, name);
    if (fn)
        return fn;
    fn = LLVMAddFunction(b->mod, name, type);
    const char nounwind[] = "nounwind";
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            b->ctx, LLVMGetEnumAttributeKindForName(nounwind, sizeof(nounwind) - 1), 0));
    return fn;
}

enum kiln_cc_status kiln_cc_fibers_wrap(struct kiln_cc_build *b, unsigned k, LLVMValueRef item)
{
    LLVMContextRef ctx = b->ctx;
    const char *kernel = b->prog->kernels[k].name;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef params[3] = {ptr, ptr, ptr};
    LLVMTypeRef run_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 3, 0);
    LLVMTypeRef wg_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 2, 0);
    char *name = malloc(strlen(KILN_CC_WG_PREFIX) + strlen(kernel) + 1);

    if (!name)
        return KILN_CC_OUT_OF_MEMORY;
    strcpy(name, KILN_CC_WG_PREFIX);
    strcat(name, kernel);
    LLVMValueRef w = LLVMAddFunction(b->mod, name, wg_type);
    free(name);
    b->wrappers[k] = w;
    LLVMValueRef run = runtime_fn(b, KILN_CC_FIBER_RUN, run_type);
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(bld, LLVMAppendBasicBlockInContext(ctx, w, "entry"));
    LLVMValueRef call_args[3] = {LLVMGetParam(w, 0), LLVMGetParam(w, 1), item};
    LLVMBuildCall2(bld, run_type, run, call_args, 3, "");
    LLVMBuildRetVoid(bld);
    LLVMDisposeBuilder(bld);
    return KILN_CC_OK;
}

/* Bytes of the allocas in `fn`: every private variable of the inlined kernel. */
static unsigned long long private_bytes(struct kiln_cc_build *b, LLVMValueRef fn)
{
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    unsigned long long total = 0;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsAAllocaInst(in))
                continue;
            unsigned long long count = 1;
            LLVMValueRef n = LLVMGetOperand(in, 0);
            if (LLVMIsAConstantInt(n))
                count = LLVMConstIntGetZExtValue(n);
            else
                count = KILN_FIBER_STACK; /* a variable size never fits */
            unsigned align = LLVMGetAlignment(in) ? LLVMGetAlignment(in) : 1;
            total = (total + align - 1) / align * align +
                    count * LLVMABISizeOfType(td, LLVMGetAllocatedType(in));
        }
    }
    return total;
}

enum kiln_cc_status kiln_cc_fibers_finish(struct kiln_cc_build *b, unsigned k, LLVMValueRef item)
{
    LLVMContextRef ctx = b->ctx;
    struct kiln_cc_kernel *info = &b->prog->kernels[k];
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0);
    LLVMValueRef barrier = runtime_fn(b, KILN_CC_FIBER_BARRIER, type);
    LLVMValueRef group = LLVMGetParam(item, 2);
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(item); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef in = LLVMGetFirstInstruction(bb);
        while (in) {
            LLVMValueRef next = LLVMGetNextInstruction(in);
            if (LLVMIsACallInst(in) && is_barrier(LLVMGetCalledValue(in))) {
                LLVMPositionBuilderBefore(bld, in);
                LLVMBuildCall2(bld, type, barrier, &group, 1, "");
                LLVMInstructionEraseFromParent(in);
            }
            in = next;
        }
    }
    LLVMDisposeBuilder(bld);

    unsigned long long bytes = private_bytes(b, item);
    if (bytes > KILN_FIBER_PRIVATE_MAX) {
        kiln_cc_log_printf(b->log,
                           "error: kernel '%s' calls a barrier and keeps %llu bytes in private "
                           "variables; kernels with barriers may keep at most %d (each "
                           "work-item runs on a %d-byte stack)\n",
                           info->name, bytes, KILN_FIBER_PRIVATE_MAX, KILN_FIBER_STACK);
        return KILN_CC_BUILD_FAILED;
    }
    info->private_mem = (size_t)bytes;
    info->scratch_fixed = KILN_FIBER_FIXED;
    info->scratch_per_item = KILN_FIBER_STACK;
    return KILN_CC_OK;
}
