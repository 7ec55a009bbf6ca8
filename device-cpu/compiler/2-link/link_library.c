/*
 * Link stage: brings the kernel library (kernel-lib/, embedded in this shared
 * library as bitcode) into the user's module.
 *
 * Every library function is linkonce_odr (kernel-lib/tools/finalize.c sees to it),
 * and LLVM's linker copies such a definition only when the destination refers to
 * it; the library is loaded lazily, so a kernel pays only for the builtins it calls,
 * in reading them as in linking them. Casts from double to half become calls of the
 * library's convert_half first (half_casts.c), and one-packet pipe calls that whole groups
 * make become calls of the library's group functions (pipe_groups.c), so that the linker
 * brings those in.
 *
 * A kernel's own inline definition (C99 §6.7.4: `inline` without `extern`) comes from Clang
 * as available_externally: a body the optimiser may use, whose real definition is
 * expected elsewhere. Under a builtin's name the linker would take the library's builtin as
 * that real definition, and the kernel would silently call the builtin, not its own
 * function. Such a definition is made internal before the library is linked: the program's
 * own code is all the code it has (its other objects are linked in already, and a
 * definition there has replaced the inline one).
 *
 * The library is compiled once for every CPU, so where it must choose code by what the host
 * can do it asks a hook, __kiln_host_half_arith(), which gets its body here: a constant, so
 * the optimiser keeps one branch. It is true where the CPU has AVX-512 FP16, whose half
 * arithmetic LLVM then uses (kernel-lib/math/half_ieee.cl's fma and mad).
 */
#include "link_stage.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

/* Gives the host-fact hook the library called a constant body, inlined everywhere. */
static void define_host_facts(struct kiln_cc_build *b)
{
    LLVMValueRef f = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_HALF_ARITH);
    if (!f || !LLVMIsDeclaration(f))
        return;
    LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(f));
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    LLVMPositionBuilderAtEnd(bld, LLVMAppendBasicBlockInContext(b->ctx, f, ""));
    LLVMBuildRet(bld, LLVMConstInt(ret, b->host->avx512fp16, 0));
    LLVMDisposeBuilder(bld);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    unsigned inline_kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(b->ctx, inline_kind, 0));
}

enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b)
{
    enum kiln_cc_status status = kiln_cc_lower_half_casts(b);
    if (status == KILN_CC_OK)
        status = kiln_cc_batch_pipe_calls(b);
    if (status != KILN_CC_OK)
        return status;
    size_t size = (size_t)(kiln_cc_kernel_lib_end - kiln_cc_kernel_lib_start);
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRange(kiln_cc_kernel_lib_start, size, "kiln-lib.bc", 0);
    LLVMModuleRef lib;

    for (LLVMValueRef f = LLVMGetFirstFunction(b->mod); f; f = LLVMGetNextFunction(f))
        if (LLVMGetLinkage(f) == LLVMAvailableExternallyLinkage)
            LLVMSetLinkage(f, LLVMInternalLinkage);
    if (!buf)
        return KILN_CC_OUT_OF_MEMORY;
    /*
     * Lazily: only the function index is read here, and the linker reads the body of
     * each builtin it copies. A full parse of the whole library would cost every cold
     * build time in proportion to the library's size (thousands of overloads), not to
     * what the kernel calls. On success the module owns the buffer (which only points
     * at static data); on failure it stays ours.
     */
    if (LLVMGetBitcodeModuleInContext2(b->ctx, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        kiln_cc_log_append(b->log, "error: the embedded kernel library is not valid bitcode\n");
        return KILN_CC_INTERNAL;
    }
    /* LLVMLinkModules2 consumes the library module, even on failure. */
    if (LLVMLinkModules2(b->mod, lib)) {
        kiln_cc_log_append(b->log, "error: linking the kernel library failed\n");
        return KILN_CC_INTERNAL;
    }
    define_host_facts(b);
    return KILN_CC_OK;
}
