/*
 * kiln-lib-finalize: turns the linked kernel-library bitcode into the form the
 * compiler embeds.
 *
 * OpenCL C has no linkonce linkage, so every builtin leaves Clang as an external
 * definition. This tool gives each one linkonce_odr linkage, so that linking the
 * library into a user module pulls in only the builtins the module calls, and it
 * refuses a library that calls something it does not define (other than LLVM
 * intrinsics and the hooks the compiler replaces): such a call would only surface
 * later as an unresolved symbol in a user's build log.
 *
 * Usage: kiln-lib-finalize IN.bc OUT.bc
 */
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Analysis.h>

#include <stdio.h>
#include <string.h>

/*
 * Intrinsics, the hooks, the host fact the link stage defines (link_library.c), and the
 * barrier, which the work-group stage implements.
 */
static int is_allowed_declaration(const char *name)
{
    return strncmp(name, "llvm.", 5) == 0 || strcmp(name, "__kiln_ctx") == 0 ||
           strcmp(name, "__kiln_local_id") == 0 || strcmp(name, "__kiln_group_leader") == 0 ||
           strcmp(name, "__kiln_host_half_arith") == 0 || strcmp(name, "_Z7barrierj") == 0;
}

int main(int argc, char **argv)
{
    LLVMContextRef ctx;
    LLVMMemoryBufferRef buf;
    LLVMModuleRef mod;
    char *msg = NULL;
    int status = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: %s IN.bc OUT.bc\n", argv[0]);
        return 2;
    }
    if (LLVMCreateMemoryBufferWithContentsOfFile(argv[1], &buf, &msg)) {
        fprintf(stderr, "%s: %s\n", argv[1], msg);
        LLVMDisposeMessage(msg);
        return 1;
    }
    ctx = LLVMContextCreate();
    /* The parse is not lazy: the module does not keep the buffer. */
    LLVMBool failed = LLVMParseBitcodeInContext2(ctx, buf, &mod);
    LLVMDisposeMemoryBuffer(buf);
    if (failed) {
        fprintf(stderr, "%s: not valid bitcode\n", argv[1]);
        goto out_context;
    }

    status = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        const char *name = LLVMGetValueName(fn);
        if (LLVMIsDeclaration(fn)) {
            if (!is_allowed_declaration(name)) {
                fprintf(stderr, "kernel library calls undefined function %s\n", name);
                status = 1;
            }
            continue;
        }
        if (LLVMGetLinkage(fn) == LLVMExternalLinkage)
            LLVMSetLinkage(fn, LLVMLinkOnceODRLinkage);
    }
    if (LLVMVerifyModule(mod, LLVMPrintMessageAction, NULL))
        status = 1;
    if (status == 0 && LLVMWriteBitcodeToFile(mod, argv[2]) != 0) {
        fprintf(stderr, "%s: cannot write\n", argv[2]);
        status = 1;
    }

    LLVMDisposeModule(mod);
out_context:
    LLVMContextDispose(ctx);
    return status;
}
