/*
 * Link stage: brings the kernel library (kernel-lib/, embedded in this shared
 * library as bitcode) into the user's module.
 *
 * Every library function is linkonce_odr (kernel-lib/tools/finalize.c sees to it),
 * and LLVM's linker copies such a definition only when the destination refers to
 * it, so a kernel pays only for the builtins it calls. The library is read lazily:
 * only the bodies of the functions the linker copies are parsed, so a cold build
 * does not pay for the size of the whole library.
 */
#include "cc_internal.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b)
{
    size_t size = (size_t)(kiln_cc_kernel_lib_end - kiln_cc_kernel_lib_start);
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRange(kiln_cc_kernel_lib_start, size, "kiln-lib.bc", 0);
    LLVMModuleRef lib;

    if (!buf)
        return KILN_CC_OUT_OF_MEMORY;
    /* The lazy module takes the buffer (over static data) and frees it with itself. */
    if (LLVMGetBitcodeModuleInContext2(b->ctx, buf, &lib)) {
        kiln_cc_log_append(b->log, "error: the embedded kernel library is not valid bitcode\n");
        return KILN_CC_INTERNAL;
    }
    /* LLVMLinkModules2 consumes the library module, even on failure. */
    if (LLVMLinkModules2(b->mod, lib)) {
        kiln_cc_log_append(b->log, "error: linking the kernel library failed\n");
        return KILN_CC_INTERNAL;
    }
    return KILN_CC_OK;
}
