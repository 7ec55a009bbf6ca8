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
 * that work-item loops containing loops can be vectorised too (4-loops/outer_vec.c); the
 * parts are in o3_pipeline.c.
 *
 * With -cl-opt-disable the IR is left as the work-group stage made it.
 */
#include "optimize.h"
#include "loops.h"
#include "o3_pipeline.h"

#include <stdlib.h>
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

/* After strided_loops.c: its loops unrolled, and the copies cleaned up as the first half does. */
static const char unroll_counted[] =
    "function(loop(loop-unroll-full),instcombine<max-iterations=1;no-use-loop-info;no-verify-"
    "fixpoint>,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;"
    "no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;"
    "simplify-cond-branch;no-speculate-unpredictables>)";

/*
 * default<O3>, with Kiln's loop passes (4-loops) between its parts: strided loops counted
 * and unrolled, wrapping loops split, guarded loops narrowed and work-item loops that
 * contain loops chosen for the outer-loop vectoriser before it runs, and its leftovers
 * cleaned up after.
 */
static enum kiln_cc_status optimize_o3(struct kiln_cc_build *b)
{
    size_t plen = strlen(KILN_CC_WG_PREFIX);
    unsigned nfns = 0, nchosen = 0, ncombined = 0;
    LLVMValueRef *fns;
    bool *chosen;

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn))
        nfns++;
    fns = calloc(nfns ? nfns : 1, sizeof(*fns));
    chosen = calloc(nfns ? nfns : 1, sizeof(*chosen));
    if (!fns || !chosen) {
        free(fns);
        free(chosen);
        return KILN_CC_OUT_OF_MEMORY;
    }
    enum kiln_cc_status status = kiln_cc_run_passes(b, kiln_cc_o3_before_vectorize);
    /* Work-group functions with a body (the prefix may have removed some functions). */
    nfns = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (!LLVMIsDeclaration(fn) && len > plen && strncmp(name, KILN_CC_WG_PREFIX, plen) == 0)
            fns[nfns++] = fn;
    }
    /* Before any pass that trusts a work-item loop's parallel_accesses. */
    for (unsigned i = 0; status == KILN_CC_OK && i < nfns; i++) {
        bool oom;
        kiln_cc_drop_stray_loop_ids(b->ctx, fns[i], &oom);
        if (oom)
            status = KILN_CC_OUT_OF_MEMORY;
    }
    /* Strided loops that now have a constant trip count are unrolled before the vectoriser. */
    unsigned counted = 0;
    for (unsigned i = 0; status == KILN_CC_OK && i < nfns; i++)
        counted += chosen[i] = kiln_cc_count_strided_loops(b->ctx, fns[i]) > 0;
    if (status == KILN_CC_OK && counted)
        status = kiln_cc_run_on(b, fns, chosen, nfns, unroll_counted);
    for (unsigned i = 0; status == KILN_CC_OK && i < nfns; i++) {
        kiln_cc_split_wrapping_loops(b->ctx, fns[i]);
        kiln_cc_narrow_loops(b->ctx, fns[i]);
    }
    /* Interiors of clamped loops: their small inner loops unrolled, the folded checks gone. */
    unsigned clamped = 0;
    for (unsigned i = 0; status == KILN_CC_OK && i < nfns; i++) {
        bool oom;
        clamped += chosen[i] = kiln_cc_split_clamped_loops(b->ctx, fns[i], &oom) > 0;
        if (oom)
            status = KILN_CC_OUT_OF_MEMORY;
    }
    if (status == KILN_CC_OK && clamped)
        status = kiln_cc_run_on(b, fns, chosen, nfns, unroll_counted);
    /* Before the vectoriser: the loops it rewrites hold atomics, which it leaves alone. */
    if (status == KILN_CC_OK)
        status = kiln_cc_combine_atomics(b, fns, nfns, &ncombined);
    unsigned njammed = 0;
    if (status == KILN_CC_OK)
        status = kiln_cc_jam_wide_loops(b, fns, chosen, nfns, &njammed);
    if (status == KILN_CC_OK)
        status = kiln_cc_outer_vec_choose(b, fns, chosen, nfns, &nchosen);
    /* Candidate loops of wide vectors, two iterations at a time, where no loop was chosen. */
    unsigned npaired = 0;
    if (status == KILN_CC_OK)
        status = kiln_cc_pair_loops(b, fns, chosen, nfns, &npaired);
    if (status == KILN_CC_OK)
        status = kiln_cc_run_passes(b, kiln_cc_o3_vectorize);
    if (status == KILN_CC_OK && nchosen)
        status = kiln_cc_outer_vec_finish(b, fns, chosen, nfns);
    if (status == KILN_CC_OK)
        status = kiln_cc_run_passes(b, kiln_cc_o3_after_vectorize);
    free(chosen);
    free(fns);
    return status;
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

    enum kiln_cc_status status = optimize_o3(b);
    if (status == KILN_CC_OK)
        kiln_cc_note_column_reuse(b);
    return status;
}
