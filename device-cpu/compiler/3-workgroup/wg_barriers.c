/*
 * Barriers, for the work-group stage: which kernels can reach a barrier call, which
 * strategy (KILN_BARRIER_STRATEGY) runs them, and the first step of the region transform
 * (wg_transform.c), which ends a block at each barrier call.
 */
#include "wg_regions.h"

#include <stdlib.h>
#include <string.h>

bool kiln_cc_is_barrier(LLVMValueRef callee)
{
    char base[64];
    if (!callee || !LLVMIsAFunction(callee))
        return false;
    kiln_cc_base_name(LLVMGetValueName(callee), base, sizeof(base));
    return strcmp(base, "barrier") == 0 || strcmp(base, "work_group_barrier") == 0;
}

/* llvm.lifetime.start/end: says when memory is in use, reads and writes nothing. */
bool kiln_cc_is_lifetime_marker(LLVMValueRef in)
{
    LLVMValueRef f = LLVMIsACallInst(in) ? kiln_cc_called_function(in) : NULL;
    return f && strncmp(LLVMGetValueName(f), "llvm.lifetime.", 14) == 0;
}

bool kiln_cc_is_barrier_call(LLVMValueRef in)
{
    return kiln_cc_is_barrier(kiln_cc_called_function(in));
}

/* Appends v to the growing array *work of *n functions; false when out of memory. */
static bool push(LLVMValueRef **work, size_t *n, size_t *cap, LLVMValueRef v)
{
    if (*n == *cap) {
        size_t more_cap = *cap ? 2 * *cap : 16;
        LLVMValueRef *more = realloc(*work, more_cap * sizeof(**work));
        if (!more)
            return false;
        *work = more;
        *cap = more_cap;
    }
    (*work)[(*n)++] = v;
    return true;
}

enum kiln_cc_status kiln_cc_barrier_kernels(struct kiln_cc_build *b, bool *uses_barrier)
{
    struct kiln_cc_ptr_map reach = {0};
    LLVMValueRef *work = NULL;
    size_t n = 0, cap = 0;
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    /* Functions that call a barrier, directly or through functions they call. */
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (!kiln_cc_is_barrier(fn))
            continue;
        if (!push(&work, &n, &cap, fn))
            goto out;
    }
    while (n) {
        LLVMValueRef fn = work[--n];
        for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsAInstruction(user))
                continue;
            LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
            if (kiln_cc_ptr_map_get(&reach, caller))
                continue;
            if (!kiln_cc_ptr_map_put(&reach, caller, caller))
                goto out;
            if (!push(&work, &n, &cap, caller))
                goto out;
        }
    }
    for (unsigned k = 0; k < b->prog->num_kernels; k++)
        uses_barrier[k] = kiln_cc_ptr_map_get(&reach, b->kernel_fns[k]) != NULL;
    status = KILN_CC_OK;
out:
    free(work);
    kiln_cc_ptr_map_free(&reach);
    return status;
}

enum kiln_cc_status kiln_cc_barrier_strategy(struct kiln_cc_build *b, const char *kernel,
                                             bool *fibers)
{
    const char *s = getenv("KILN_BARRIER_STRATEGY");
    *fibers = b->force_fibers;
    if (b->force_fibers)
        return KILN_CC_OK;
    if (!s || !*s || strcmp(s, "regions") == 0)
        return KILN_CC_OK;
    if (strcmp(s, "fibers") == 0) {
        *fibers = true;
        return KILN_CC_OK;
    }
    kiln_cc_log_printf(b->log,
                       "error: kernel '%s' calls barrier(): KILN_BARRIER_STRATEGY='%s' is "
                       "not a barrier strategy (use 'regions' or 'fibers')\n",
                       kernel, s);
    return KILN_CC_BUILD_FAILED;
}

/* Moves everything after each barrier call of `w` into a new block. */
void kiln_cc_barriers_split(LLVMContextRef ctx, LLVMValueRef w)
{
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!kiln_cc_is_barrier_call(in))
                continue;
            LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(ctx, w, "barrier.cont");
            LLVMMoveBasicBlockAfter(rest, bb);
            LLVMPositionBuilderAtEnd(bld, rest);
            for (LLVMValueRef m = LLVMGetNextInstruction(in); m;) {
                LLVMValueRef next = LLVMGetNextInstruction(m);
                LLVMInstructionRemoveFromParent(m);
                LLVMInsertIntoBuilder(bld, m);
                m = next;
            }
            LLVMPositionBuilderAtEnd(bld, bb);
            LLVMBuildBr(bld, rest);
            break; /* the rest, with any further barrier, is the next block */
        }
    }
    LLVMDisposeBuilder(bld);
}
