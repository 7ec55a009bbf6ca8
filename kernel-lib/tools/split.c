/*
 * kiln-lib-split: cuts the finalized kernel library into the parts the compiler embeds
 * (include/kiln_lib_pack.h).
 *
 * A build that reads the whole library lazily still reads its whole symbol table, some
 * fourteen thousand functions, before it links the few builtins it calls; that was most of
 * a small kernel's cold build. Parts of a few hundred builtins each, with an index from a
 * name to its part, cost a build only the parts it uses.
 *
 * The builtins (the library's linkonce_odr functions), in the library's order, are dealt
 * into parts of at most PER_PART members; neighbours come from one source file and tend to
 * be called together. A part is made by linking the library, read lazily, into an empty
 * module that declares the part's members: LLVM's linker copies them and everything they
 * reach. Before that the library's internal functions and constants become linkonce_odr
 * under names no OpenCL C program can spell (a `kiln.lib.` prefix), so that two parts
 * reaching one helper or one table give a kernel that links both a single copy.
 *
 * Usage: kiln-lib-split IN.bc OUT.pack [PER_PART]
 */
#include "kiln_lib_pack.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_PART_DEFAULT 256

/* The prefix of the library's shared helpers and tables (share_internals). */
static const char shared_prefix[] = "kiln.lib.";

struct member {
    char *name;
    LLVMTypeRef type;
    uint32_t part;
};

struct blob {
    char *data;
    size_t size, cap;
};

static bool blob_put(struct blob *b, const void *data, size_t size)
{
    if (b->size + size > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 20;
        while (cap < b->size + size)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            return false;
        b->data = grown;
        b->cap = cap;
    }
    if (data)
        memcpy(b->data + b->size, data, size);
    else
        memset(b->data + b->size, 0, size);
    b->size += size;
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->name, ((const struct member *)b)->name);
}

/* Internal definitions become linkonce_odr under a prefixed name (see above). */
static bool share_internals(LLVMModuleRef mod)
{
    const size_t plen = sizeof(shared_prefix) - 1;
    char *name = NULL;
    size_t cap = 0;
    LLVMValueRef values[2] = {LLVMGetFirstFunction(mod), LLVMGetFirstGlobal(mod)};
    for (int kind = 0; kind < 2; kind++) {
        for (LLVMValueRef v = values[kind]; v;
             v = kind == 0 ? LLVMGetNextFunction(v) : LLVMGetNextGlobal(v)) {
            LLVMLinkage linkage = LLVMGetLinkage(v);
            if (linkage != LLVMInternalLinkage && linkage != LLVMPrivateLinkage)
                continue;
            size_t len;
            const char *old = LLVMGetValueName2(v, &len);
            if (plen + len > cap) {
                cap = 2 * (plen + len);
                char *grown = realloc(name, cap);
                if (!grown) {
                    free(name);
                    return false;
                }
                name = grown;
            }
            memcpy(name, shared_prefix, plen);
            memcpy(name + plen, old, len);
            LLVMSetValueName2(v, name, plen + len);
            LLVMSetLinkage(v, LLVMLinkOnceODRLinkage);
            LLVMSetVisibility(v, LLVMHiddenVisibility);
        }
    }
    free(name);
    return true;
}

/* Part `part`: the library linked into a module that declares the part's members. */
static LLVMMemoryBufferRef make_part(LLVMContextRef ctx, LLVMMemoryBufferRef shared,
                                     LLVMModuleRef whole, const struct member *members,
                                     size_t nmembers, uint32_t part)
{
    char id[32];
    snprintf(id, sizeof(id), "kiln-lib.%u", part);
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(id, ctx);
    LLVMSetDataLayout(mod, LLVMGetDataLayoutStr(whole));
    LLVMSetTarget(mod, LLVMGetTarget(whole));
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].part == part)
            LLVMAddFunction(mod, members[i].name, members[i].type);

    LLVMMemoryBufferRef view = LLVMCreateMemoryBufferWithMemoryRange(
        LLVMGetBufferStart(shared), LLVMGetBufferSize(shared), "kiln-lib.bc", 0);
    LLVMModuleRef lib;
    if (LLVMGetBitcodeModuleInContext2(ctx, view, &lib)) {
        LLVMDisposeMemoryBuffer(view);
        LLVMDisposeModule(mod);
        return NULL;
    }
    if (LLVMLinkModules2(mod, lib)) {
        LLVMDisposeModule(mod);
        return NULL;
    }
    for (size_t i = 0; i < nmembers; i++) {
        if (members[i].part != part)
            continue;
        LLVMValueRef fn = LLVMGetNamedFunction(mod, members[i].name);
        if (!fn || LLVMIsDeclaration(fn)) {
            fprintf(stderr, "part %u: %s was not linked\n", part, members[i].name);
            LLVMDisposeModule(mod);
            return NULL;
        }
    }
    LLVMMemoryBufferRef out = LLVMWriteBitcodeToMemoryBuffer(mod);
    LLVMDisposeModule(mod);
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s IN.bc OUT.pack [PER_PART]\n", argv[0]);
        return 2;
    }
    long per_part = argc == 4 ? strtol(argv[3], NULL, 10) : PER_PART_DEFAULT;
    if (per_part < 1) {
        fprintf(stderr, "%s: PER_PART must be a positive number\n", argv[0]);
        return 2;
    }

    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(argv[1], &buf, &msg)) {
        fprintf(stderr, "%s: %s\n", argv[1], msg);
        LLVMDisposeMessage(msg);
        return 1;
    }
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef whole;
    LLVMBool failed = LLVMParseBitcodeInContext2(ctx, buf, &whole);
    LLVMDisposeMemoryBuffer(buf);
    if (failed) {
        fprintf(stderr, "%s: not valid bitcode\n", argv[1]);
        LLVMContextDispose(ctx);
        return 1;
    }

    int status = 1;
    size_t nmembers = 0, nparts = 0;
    struct member *members = NULL;
    struct blob pack = {0};
    LLVMMemoryBufferRef shared = NULL;
    for (LLVMValueRef fn = LLVMGetFirstFunction(whole); fn; fn = LLVMGetNextFunction(fn))
        nmembers += !LLVMIsDeclaration(fn) && LLVMGetLinkage(fn) == LLVMLinkOnceODRLinkage;
    members = calloc(nmembers ? nmembers : 1, sizeof(*members));
    if (!members || !share_internals(whole))
        goto out;
    nmembers = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(whole); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) || LLVMGetLinkage(fn) != LLVMLinkOnceODRLinkage ||
            strncmp(name, shared_prefix, sizeof(shared_prefix) - 1) == 0)
            continue;
        struct member *m = &members[nmembers];
        m->name = malloc(len + 1);
        if (!m->name)
            goto out;
        memcpy(m->name, name, len + 1);
        m->type = LLVMGlobalGetValueType(fn);
        m->part = (uint32_t)(nmembers / (size_t)per_part);
        nmembers++;
    }
    nparts = (nmembers + (size_t)per_part - 1) / (size_t)per_part;
    shared = LLVMWriteBitcodeToMemoryBuffer(whole);
    if (!shared)
        goto out;

    /* The head, the part table and the name table, filled in below. */
    size_t names_at =
        sizeof(struct kiln_lib_pack_head) + nparts * sizeof(struct kiln_lib_pack_part);
    size_t text_at = names_at + nmembers * sizeof(struct kiln_lib_pack_name);
    if (!blob_put(&pack, NULL, text_at))
        goto out;
    struct kiln_lib_pack_head head = {.parts = (uint32_t)nparts, .names = (uint32_t)nmembers};
    memcpy(head.magic, KILN_LIB_PACK_MAGIC, sizeof(head.magic));
    memcpy(pack.data, &head, sizeof(head));

    qsort(members, nmembers, sizeof(*members), by_name);
    for (size_t i = 0; i < nmembers; i++) {
        struct kiln_lib_pack_name entry = {.text = (uint32_t)pack.size, .part = members[i].part};
        if (i > 0 && strcmp(members[i - 1].name, members[i].name) == 0) {
            fprintf(stderr, "%s: %s is defined twice\n", argv[1], members[i].name);
            goto out;
        }
        memcpy(pack.data + names_at + i * sizeof(entry), &entry, sizeof(entry));
        if (!blob_put(&pack, members[i].name, strlen(members[i].name) + 1))
            goto out;
    }
    if (pack.size > UINT32_MAX)
        goto out;

    for (uint32_t p = 0; p < nparts; p++) {
        size_t pad = (KILN_LIB_PACK_ALIGN - pack.size % KILN_LIB_PACK_ALIGN) % KILN_LIB_PACK_ALIGN;
        if (!blob_put(&pack, NULL, pad))
            goto out;
        LLVMMemoryBufferRef code = make_part(ctx, shared, whole, members, nmembers, p);
        if (!code) {
            fprintf(stderr, "%s: cannot make part %u\n", argv[1], p);
            goto out;
        }
        struct kiln_lib_pack_part entry = {.offset = pack.size, .size = LLVMGetBufferSize(code)};
        bool put = blob_put(&pack, LLVMGetBufferStart(code), LLVMGetBufferSize(code));
        LLVMDisposeMemoryBuffer(code);
        if (!put)
            goto out;
        memcpy(pack.data + sizeof(head) + p * sizeof(entry), &entry, sizeof(entry));
    }

    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(pack.data, 1, pack.size, f) != pack.size) {
        fprintf(stderr, "%s: cannot write\n", argv[2]);
        if (f)
            fclose(f);
        goto out;
    }
    status = fclose(f) == 0 ? 0 : 1;
    if (status)
        fprintf(stderr, "%s: cannot write\n", argv[2]);

out:
    if (status)
        fprintf(stderr, "%s: no pack written\n", argv[0]);
    for (size_t i = 0; members && i < nmembers; i++)
        free(members[i].name);
    free(members);
    free(pack.data);
    if (shared)
        LLVMDisposeMemoryBuffer(shared);
    LLVMDisposeModule(whole);
    LLVMContextDispose(ctx);
    return status;
}
