/*
 * Link stage: brings the kernel library (kernel-lib/, embedded in this shared
 * library as bitcode) into the user's module.
 *
 * Every library function is linkonce_odr (kernel-lib/tools/finalize.c sees to it),
 * and LLVM's linker copies such a definition only when the destination refers to
 * it. The library is embedded in parts with an index of its builtins
 * (include/kiln_lib_pack.h, kernel-lib/tools/split.c): a build reads, lazily, only the
 * parts of the builtins it calls, so a kernel pays only for those, in reading them as in
 * linking them. Casts from double to half become calls of the
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

#include "kiln_lib_pack.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include <stdlib.h>
#include <string.h>

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

/* The part of the library that defines `name`, or -1 when no part does. */
static long part_of(const char *pack, const struct kiln_lib_pack_head *head, const char *name)
{
    const struct kiln_lib_pack_name *names =
        (const void *)(pack + sizeof(*head) + head->parts * sizeof(struct kiln_lib_pack_part));
    size_t lo = 0, hi = head->names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int order = strcmp(name, pack + names[mid].text);
        if (order == 0)
            return names[mid].part;
        if (order < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/*
 * Links the parts that define what the module declares. A part brings everything its
 * members reach (tests/compiler/check_lib_pack.py checks it), so one round resolves every
 * builtin the module calls; a function that two parts both bring is linkonce_odr, and the
 * linker keeps the copy it linked first.
 */
static enum kiln_cc_status link_parts(struct kiln_cc_build *b)
{
    const char *pack = kiln_cc_kernel_lib_start;
    struct kiln_lib_pack_head head;
    memcpy(&head, pack, sizeof(head));
    if (memcmp(head.magic, KILN_LIB_PACK_MAGIC, sizeof(head.magic)) != 0) {
        kiln_cc_log_append(b->log, "error: the embedded kernel library is not a library pack\n");
        return KILN_CC_INTERNAL;
    }
    const struct kiln_lib_pack_part *parts = (const void *)(pack + sizeof(head));
    bool *wanted = calloc(head.parts ? head.parts : 1, sizeof(*wanted));
    if (!wanted)
        return KILN_CC_OUT_OF_MEMORY;
    for (LLVMValueRef f = LLVMGetFirstFunction(b->mod); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f)) {
            long part = part_of(pack, &head, LLVMGetValueName(f));
            if (part >= 0)
                wanted[part] = true;
        }
    }
    enum kiln_cc_status status = KILN_CC_OK;
    for (uint32_t p = 0; status == KILN_CC_OK && p < head.parts; p++) {
        if (!wanted[p])
            continue;
        LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
            pack + parts[p].offset, parts[p].size, "kiln-lib.bc", 0);
        LLVMModuleRef lib;
        if (!buf) {
            status = KILN_CC_OUT_OF_MEMORY;
        } else if (LLVMGetBitcodeModuleInContext2(b->ctx, buf, &lib)) {
            /* Lazily: the part's symbol table now, the bodies the linker copies later. On
             * success the module owns the buffer (which only points at static data); on
             * failure it stays ours. */
            LLVMDisposeMemoryBuffer(buf);
            kiln_cc_log_append(b->log, "error: the embedded kernel library is not valid bitcode\n");
            status = KILN_CC_INTERNAL;
        } else if (LLVMLinkModules2(b->mod, lib)) {
            /* LLVMLinkModules2 consumes the part, even on failure. */
            kiln_cc_log_append(b->log, "error: linking the kernel library failed\n");
            status = KILN_CC_INTERNAL;
        }
    }
    free(wanted);
    return status;
}

enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b)
{
    enum kiln_cc_status status = kiln_cc_lower_half_casts(b);
    if (status == KILN_CC_OK)
        status = kiln_cc_batch_pipe_calls(b);
    if (status != KILN_CC_OK)
        return status;
    for (LLVMValueRef f = LLVMGetFirstFunction(b->mod); f; f = LLVMGetNextFunction(f))
        if (LLVMGetLinkage(f) == LLVMAvailableExternallyLinkage)
            LLVMSetLinkage(f, LLVMInternalLinkage);
    status = link_parts(b);
    if (status == KILN_CC_OK)
        define_host_facts(b);
    return status;
}
