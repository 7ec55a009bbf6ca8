/*
 * Code generation stage: emits the optimised module as an ELF object in memory.
 *
 * Position-independent code with the small code model: the loader may place the code
 * anywhere in the address space, far from libc, and PIC reaches outside symbols
 * through the GOT instead of 32-bit absolute relocations.
 * With KILN_KEEP_ASM=1 the assembly text is kept as well (for tests and for
 * looking at what the vectoriser did); it is generated from a clone of the module,
 * since code generation may change the IR it runs on.
 */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

static bool keep_asm(void)
{
    const char *v = getenv("KILN_KEEP_ASM");
    return v && strcmp(v, "1") == 0;
}

static enum kiln_cc_status emit(struct kiln_cc_build *b, LLVMModuleRef mod,
                                LLVMCodeGenFileType type, LLVMMemoryBufferRef *out)
{
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(b->tm, mod, type, &msg, out)) {
        kiln_cc_log_printf(b->log, "error: code generation failed: %s\n", msg ? msg : "");
        LLVMDisposeMessage(msg);
        return KILN_CC_INTERNAL;
    }
    return KILN_CC_OK;
}

enum kiln_cc_status kiln_cc_codegen(struct kiln_cc_build *b, LLVMMemoryBufferRef *object)
{
    enum kiln_cc_status status;

    if (keep_asm()) {
        LLVMModuleRef clone = LLVMCloneModule(b->mod);
        LLVMMemoryBufferRef text;
        if (!clone)
            return KILN_CC_OUT_OF_MEMORY;
        status = emit(b, clone, LLVMAssemblyFile, &text);
        LLVMDisposeModule(clone);
        if (status != KILN_CC_OK)
            return status;
        size_t size = LLVMGetBufferSize(text);
        b->prog->assembly = malloc(size + 1);
        if (b->prog->assembly) {
            memcpy(b->prog->assembly, LLVMGetBufferStart(text), size);
            b->prog->assembly[size] = '\0';
        }
        LLVMDisposeMemoryBuffer(text);
        if (!b->prog->assembly)
            return KILN_CC_OUT_OF_MEMORY;
    }
    return emit(b, b->mod, LLVMObjectFile, object);
}
