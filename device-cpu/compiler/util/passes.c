/*
 * Running LLVM pass pipelines on a build's module (cc_util.h): the whole module, or only
 * chosen functions while the others are held back with optnone.
 */
#include "cc_util.h"

#include <llvm-c/Transforms/PassBuilder.h>

#include <stdlib.h>
#include <string.h>

/*
 * In a build with assertions (no NDEBUG), KILN_VERIFY_EACH=1 verifies the module after every
 * LLVM pass, not only after every stage (backend.c). It is opt-in: the module holds the linked
 * kernel library, and verifying it after each of O3's passes makes a build take tens of seconds.
 */
static bool verify_each(void)
{
#ifndef NDEBUG
    const char *v = getenv("KILN_VERIFY_EACH");
    return v != NULL && strcmp(v, "1") == 0;
#else
    return false;
#endif
}

enum kiln_cc_status kiln_cc_run_passes(struct kiln_cc_build *b, const char *passes)
{
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    if (verify_each())
        LLVMPassBuilderOptionsSetVerifyEach(opts, 1);
    LLVMErrorRef err = LLVMRunPasses(b->mod, passes, b->tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        kiln_cc_log_printf(b->log, "error: optimisation failed: %s\n", msg);
        LLVMDisposeErrorMessage(msg);
        return KILN_CC_INTERNAL;
    }
    return KILN_CC_OK;
}

enum kiln_cc_status kiln_cc_run_on(struct kiln_cc_build *b, const LLVMValueRef *fns,
                                   const bool *chosen, unsigned n, const char *passes)
{
    unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
    struct mark {
        LLVMValueRef fn;
        bool added_noinline;
    } *mark = NULL;
    unsigned marked = 0, cap = 0;
    enum kiln_cc_status status = KILN_CC_OK;

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        bool keep = LLVMIsDeclaration(fn) ||
                    LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, optnone);
        for (unsigned i = 0; i < n && !keep; i++)
            keep = (!chosen || chosen[i]) && fns[i] == fn;
        if (keep)
            continue;
        if (marked == cap) {
            struct mark *more = realloc(mark, (cap ? 2 * cap : 16) * sizeof(*mark));
            if (!more) {
                status = KILN_CC_OUT_OF_MEMORY;
                break;
            }
            mark = more;
            cap = cap ? 2 * cap : 16;
        }
        bool has_noinline = LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, noinline);
        mark[marked++] = (struct mark){fn, !has_noinline};
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(b->ctx, optnone, 0));
        if (!has_noinline)
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(b->ctx, noinline, 0));
    }
    if (status == KILN_CC_OK)
        status = kiln_cc_run_passes(b, passes);
    for (unsigned i = 0; i < marked; i++) {
        LLVMRemoveEnumAttributeAtIndex(mark[i].fn, LLVMAttributeFunctionIndex, optnone);
        if (mark[i].added_noinline)
            LLVMRemoveEnumAttributeAtIndex(mark[i].fn, LLVMAttributeFunctionIndex, noinline);
    }
    free(mark);
    return status;
}
