/*
 * Optimisation stage: targets the module at the host CPU and runs default<O3>.
 *
 * Clang stamps target-cpu/target-features/tune-cpu on every function, and a
 * function's attributes override the target machine's: left alone they pin the
 * code to the baseline (SSE2) whatever the host is. So every function, defined or
 * declared, gets the host's CPU and features instead. On AVX-512 hosts the
 * function also gets prefer-vector-width=512, because LLVM's tuning for Intel
 * AVX-512 cores otherwise vectorises with 256-bit registers.
 *
 * The optimisation itself is default<O3>, run in halves around the loop vectoriser so
 * that work-item loops containing loops can be vectorised too (outer_vec.c).
 *
 * With -cl-opt-disable the IR is left as the work-group stage made it.
 */
#include "cc_internal.h"

#include <string.h>

static void set_string_attr(LLVMContextRef ctx, LLVMValueRef fn, const char *key, const char *value)
{
    unsigned key_len = (unsigned)strlen(key);
    LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, key_len);
    if (value)
        LLVMAddAttributeAtIndex(
            fn, LLVMAttributeFunctionIndex,
            LLVMCreateStringAttribute(ctx, key, key_len, value, (unsigned)strlen(value)));
}

enum kiln_cc_status kiln_cc_optimize(struct kiln_cc_build *b)
{
    const struct kiln_cc_host *host = b->host;

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        set_string_attr(b->ctx, fn, "target-cpu", host->cpu);
        set_string_attr(b->ctx, fn, "target-features", host->features);
        set_string_attr(b->ctx, fn, "tune-cpu", NULL);
        if (host->avx512)
            set_string_attr(b->ctx, fn, "prefer-vector-width", "512");
    }
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(b->tm);
    LLVMSetModuleDataLayout(b->mod, layout);
    LLVMDisposeTargetData(layout);

    if (b->opts->opt_disable)
        return KILN_CC_OK;

    return kiln_cc_optimize_o3(b);
}
