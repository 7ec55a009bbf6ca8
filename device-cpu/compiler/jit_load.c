/*
 * Loading stage: an LLJIT instance per program links the emitted object into
 * memory and yields the address of every work-group function.
 *
 * The only outside symbols the object may need are those LLVM's code generator
 * calls on its own (memcpy/memset for large copies, libm for a few intrinsics on
 * CPUs without the instruction) and the runtime entry points of fiber_rt.c, bound
 * to their addresses because this library exports nothing by name (and the ICD
 * that loads it is RTLD_LOCAL); check_support.c has already refused every other
 * undefined function. The process symbol generator is therefore filtered to that
 * list, so a kernel can never bind to an arbitrary symbol of the host program.
 * JIT errors go to the build log, never to stderr.
 */
#include "cc_internal.h"

#include <llvm-c/Error.h>
#include <llvm-c/Orc.h>

#include <stdlib.h>
#include <string.h>

static const char *const allowed_symbols[] = {
    "memcpy", "memmove", "memset",        "fmaf",         "fma",          "sqrtf", "sqrt",
    "fminf",  "fmin",    "fmaxf",         "fmax",         "fabsf",        "fabs",  "floorf",
    "floor",  "ceilf",   "ceil",          "truncf",       "trunc",        "rintf", "rint",
    "roundf", "round",   "__extendhfsf2", "__truncsfhf2", "__truncdfhf2",
};

static int allow_symbol(void *ctx, LLVMOrcSymbolStringPoolEntryRef sym)
{
    (void)ctx;
    const char *name = LLVMOrcSymbolStringPoolEntryStr(sym);
    for (size_t i = 0; i < sizeof(allowed_symbols) / sizeof(allowed_symbols[0]); i++)
        if (strcmp(name, allowed_symbols[i]) == 0)
            return 1;
    return 0;
}

static void report_jit_error(void *ctx, LLVMErrorRef err)
{
    struct kiln_cc_program *p = ctx;
    char *msg = LLVMGetErrorMessage(err);
    if (p->jit_log)
        kiln_cc_log_printf(p->jit_log, "error: JIT: %s\n", msg);
    LLVMDisposeErrorMessage(msg);
}

/* Binds the entry points of fiber_rt.c that the code may call to their addresses. */
static LLVMErrorRef define_runtime_symbols(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef dylib)
{
    LLVMOrcCSymbolMapPair pairs[KILN_CC_NUM_RUNTIME_SYMBOLS];
    size_t n = KILN_CC_NUM_RUNTIME_SYMBOLS;

    for (size_t i = 0; i < n; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, kiln_cc_runtime_symbols[i].name);
        pairs[i].Sym = (LLVMJITEvaluatedSymbol){
            .Address = (LLVMOrcExecutorAddress)(uintptr_t)kiln_cc_runtime_symbols[i].address,
            .Flags = {.GenericFlags =
                          LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable,
                      .TargetFlags = 0}};
    }
    /* Takes ownership of the names; the unit is owned by the dylib once defined. */
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
    LLVMErrorRef err = LLVMOrcJITDylibDefine(dylib, mu);
    if (err)
        LLVMOrcDisposeMaterializationUnit(mu);
    return err;
}

static enum kiln_cc_status log_error(struct kiln_cc_log *log, const char *what, LLVMErrorRef err)
{
    char *msg = LLVMGetErrorMessage(err);
    kiln_cc_log_printf(log, "error: %s: %s\n", what, msg);
    LLVMDisposeErrorMessage(msg);
    return KILN_CC_INTERNAL;
}

enum kiln_cc_status kiln_cc_jit_load(struct kiln_cc_build *b, LLVMMemoryBufferRef object)
{
    struct kiln_cc_program *p = b->prog;
    const char **names = calloc(p->num_kernels ? p->num_kernels : 1, sizeof(*names));
    if (!names) {
        LLVMDisposeMemoryBuffer(object);
        return KILN_CC_OUT_OF_MEMORY;
    }
    for (unsigned k = 0; k < p->num_kernels; k++)
        names[k] = LLVMGetValueName(b->wrappers[k]);
    enum kiln_cc_status status = kiln_cc_jit_load_object(p, b->log, object, names);
    free(names);
    return status;
}

enum kiln_cc_status kiln_cc_jit_load_object(struct kiln_cc_program *p, struct kiln_cc_log *log,
                                            LLVMMemoryBufferRef object, const char *const *wg_names)
{
    LLVMOrcDefinitionGeneratorRef gen;
    LLVMErrorRef err;

    err = LLVMOrcCreateLLJIT(&p->jit, LLVMOrcCreateLLJITBuilder());
    if (err) {
        p->jit = NULL;
        LLVMDisposeMemoryBuffer(object);
        return log_error(log, "cannot create the JIT", err);
    }
    p->jit_log = log;
    LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(p->jit),
                                            report_jit_error, p);
    LLVMOrcJITDylibRef dylib = LLVMOrcLLJITGetMainJITDylib(p->jit);
    err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
        &gen, LLVMOrcLLJITGetGlobalPrefix(p->jit), allow_symbol, NULL);
    if (err) {
        LLVMDisposeMemoryBuffer(object);
        return log_error(log, "cannot create the JIT symbol generator", err);
    }
    LLVMOrcJITDylibAddGenerator(dylib, gen);
    err = define_runtime_symbols(p->jit, dylib);
    if (err) {
        LLVMDisposeMemoryBuffer(object);
        return log_error(log, "cannot bind the runtime's entry points", err);
    }
    /* Takes ownership of the object buffer. */
    err = LLVMOrcLLJITAddObjectFile(p->jit, dylib, object);
    if (err)
        return log_error(log, "cannot load the kernel object", err);

    for (unsigned k = 0; k < p->num_kernels; k++) {
        LLVMOrcExecutorAddress addr = 0;
        err = LLVMOrcLLJITLookup(p->jit, &addr, wg_names[k]);
        if (err)
            return log_error(log, "cannot find a work-group function", err);
        /* An executor address is the function's address in this process. */
        p->kernels[k].wg = (kiln_wg_fn)(uintptr_t)addr;
    }
    return KILN_CC_OK;
}
