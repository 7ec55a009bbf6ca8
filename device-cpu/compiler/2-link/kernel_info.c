/*
 * Kernel-info stage: finds the kernels of the front end's module and describes
 * each one for the runtime (struct kiln_cc_kernel) from Clang's metadata.
 *
 * It runs before the library is linked, so the module holds only the user's
 * functions. Argument sizes come from the IR types and the module's data layout,
 * which is the host ABI: a float3 is 16 bytes, a struct what the host C compiler
 * makes of the same declaration. A pipe argument is a __global pointer to the
 * pipe's ring (include/kiln_pipe.h); Clang marks it with the type
 * qualifier "pipe", and a kernel may have at most KILN_CC_MAX_PIPE_ARGS of them.
 * A queue_t argument (accepted by Clang at -cl-std=CL2.0, or at CL3.0 with
 * __opencl_c_device_enqueue) is an opaque pointer in the IR and is recorded as
 * KILN_CC_ARG_QUEUE: the runtime checks the device queue the host sets.
 * Images and samplers are opaque pointers too (KILN_CC_ARG_IMAGE, _SAMPLER): the
 * runtime passes a struct kiln_image or a sampler's bits (include/kiln_image.h).
 */
#include "link_stage.h"

#include "frontend.h"

#include <llvm-c/Target.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The metadata of one function, looked up by kind. */
struct md_list {
    LLVMValueMetadataEntry *entries;
    size_t count;
};

static LLVMValueRef md_node(LLVMContextRef ctx, const struct md_list *l, const char *kind)
{
    unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
    for (size_t i = 0; i < l->count; i++)
        if (LLVMValueMetadataEntriesGetKind(l->entries, (unsigned)i) == id)
            return LLVMMetadataAsValue(
                ctx, LLVMValueMetadataEntriesGetMetadata(l->entries, (unsigned)i));
    return NULL;
}

/* Operand `i` of a node, or NULL when the node is missing or too short. */
static LLVMValueRef md_operand(LLVMValueRef node, unsigned i)
{
    if (!node || i >= (unsigned)LLVMGetMDNodeNumOperands(node))
        return NULL;
    LLVMValueRef *ops = malloc(LLVMGetMDNodeNumOperands(node) * sizeof(*ops));
    if (!ops)
        return NULL;
    LLVMGetMDNodeOperands(node, ops);
    LLVMValueRef op = ops[i];
    free(ops);
    return op;
}

static char *md_string_dup(LLVMValueRef node, unsigned i)
{
    LLVMValueRef op = md_operand(node, i);
    unsigned len = 0;
    const char *s = op ? LLVMGetMDString(op, &len) : NULL;
    char *copy = malloc(len + 1);
    if (copy) {
        if (s)
            memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

static uint64_t md_uint(LLVMValueRef node, unsigned i)
{
    LLVMValueRef op = md_operand(node, i);
    return op && LLVMIsAConstantInt(op) ? LLVMConstIntGetZExtValue(op) : 0;
}

/*
 * KILN_CC_ARG_IMAGE for the image types, _SAMPLER for sampler_t, else _UNSUPPORTED. By
 * name, exactly: a kernel's own `image_data *` or `image_t` is not an image.
 */
static enum kiln_cc_arg_kind image_kind(const struct kiln_cc_arg *a)
{
    static const char *const images[] = {
        "image1d_t",
        "image1d_buffer_t",
        "image1d_array_t",
        "image2d_t",
        "image2d_array_t",
        "image3d_t",
        "image2d_depth_t",
        "image2d_array_depth_t",
        "image2d_msaa_t",
        "image2d_array_msaa_t",
        "image2d_msaa_depth_t",
        "image2d_array_msaa_depth_t",
    };
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
        if (strcmp(a->type_name, images[i]) == 0)
            return KILN_CC_ARG_IMAGE;
    if (strcmp(a->type_name, "sampler_t") == 0)
        return KILN_CC_ARG_SAMPLER;
    return KILN_CC_ARG_UNSUPPORTED;
}

static enum kiln_cc_status read_arg(struct kiln_cc_build *b, LLVMValueRef fn,
                                    const struct md_list *md, unsigned i, struct kiln_cc_arg *a)
{
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    LLVMValueRef param = LLVMGetParam(fn, i);
    LLVMTypeRef type = LLVMTypeOf(param);

    a->addr_space = (uint32_t)md_uint(md_node(b->ctx, md, "kernel_arg_addr_space"), i);
    a->name = md_string_dup(md_node(b->ctx, md, "kernel_arg_name"), i);
    a->type_name = md_string_dup(md_node(b->ctx, md, "kernel_arg_type"), i);
    a->access_qual = md_string_dup(md_node(b->ctx, md, "kernel_arg_access_qual"), i);
    a->type_qual = md_string_dup(md_node(b->ctx, md, "kernel_arg_type_qual"), i);
    if (!a->name || !a->type_name || !a->access_qual || !a->type_qual)
        return KILN_CC_OUT_OF_MEMORY;

    a->kind = image_kind(a);
    if (a->kind != KILN_CC_ARG_UNSUPPORTED && !kiln_cc_frontend_reports("__opencl_c_images")) {
        /* At OpenCL C 1.x Clang declares the image types whatever the device reports. */
        kiln_cc_log_printf(b->log,
                           "error: kernel '%s', argument %u ('%s %s'): the device does not "
                           "support images\n",
                           LLVMGetValueName(fn), i, a->type_name, a->name);
        return KILN_CC_BUILD_FAILED;
    }
    if (a->kind != KILN_CC_ARG_UNSUPPORTED) {
        a->size = 8;
        a->align = 8;
        return KILN_CC_OK;
    }

    if (strcmp(a->type_name, "queue_t") == 0) {
        a->kind = KILN_CC_ARG_QUEUE;
        a->size = 8;
        a->align = 8;
        return KILN_CC_OK;
    }

    if (strstr(a->type_qual, "pipe")) {
        a->kind = KILN_CC_ARG_PIPE;
        a->size = 8;
        a->align = 8;
        return KILN_CC_OK;
    }

    if (LLVMGetTypeKind(type) == LLVMPointerTypeKind && a->addr_space != KILN_CC_AS_PRIVATE) {
        switch (a->addr_space) {
        case KILN_CC_AS_GLOBAL:
            a->kind = KILN_CC_ARG_GLOBAL_PTR;
            break;
        case KILN_CC_AS_CONSTANT:
            a->kind = KILN_CC_ARG_CONSTANT_PTR;
            break;
        case KILN_CC_AS_LOCAL:
            a->kind = KILN_CC_ARG_LOCAL_PTR;
            break;
        default:
            kiln_cc_log_printf(b->log,
                               "error: kernel '%s', argument %u: pointer to address space %u "
                               "cannot be a kernel argument\n",
                               LLVMGetValueName(fn), i, a->addr_space);
            return KILN_CC_BUILD_FAILED;
        }
        a->size = 8;
        a->align = 8;
        return KILN_CC_OK;
    }

    /* A struct or union arrives as a byval pointer; its type is the attribute's. */
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    LLVMAttributeRef attr = LLVMGetEnumAttributeAtIndex(fn, i + 1, byval);
    if (attr)
        type = LLVMGetTypeAttributeValue(attr);
    a->kind = KILN_CC_ARG_VALUE;
    a->size = (uint32_t)LLVMABISizeOfType(td, type);
    a->align = LLVMABIAlignmentOfType(td, type);
    return KILN_CC_OK;
}

/* The OpenCL spelling of a vec_type_hint type: "float4", "uint", ... */
static void type_hint_name(LLVMTypeRef t, bool is_signed, char *buf, size_t size)
{
    unsigned width = 0;
    const char *base = "void";
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
        width = LLVMGetVectorSize(t);
        t = LLVMGetElementType(t);
    }
    switch (LLVMGetTypeKind(t)) {
    case LLVMHalfTypeKind:
        base = "half";
        break;
    case LLVMFloatTypeKind:
        base = "float";
        break;
    case LLVMDoubleTypeKind:
        base = "double";
        break;
    case LLVMIntegerTypeKind:
        switch (LLVMGetIntTypeWidth(t)) {
        case 8:
            base = is_signed ? "char" : "uchar";
            break;
        case 16:
            base = is_signed ? "short" : "ushort";
            break;
        case 32:
            base = is_signed ? "int" : "uint";
            break;
        default:
            base = is_signed ? "long" : "ulong";
            break;
        }
        break;
    default:
        break;
    }
    if (width)
        snprintf(buf, size, "%s%u", base, width);
    else
        snprintf(buf, size, "%s", base);
}

/* CL_KERNEL_ATTRIBUTES: the attributes as written, space separated. */
static char *attributes_text(struct kiln_cc_build *b, const struct md_list *md,
                             struct kiln_cc_kernel *k)
{
    char text[256] = "";
    size_t n = 0;
    LLVMValueRef reqd = md_node(b->ctx, md, "reqd_work_group_size");
    LLVMValueRef hint = md_node(b->ctx, md, "work_group_size_hint");
    LLVMValueRef vec = md_node(b->ctx, md, "vec_type_hint");

    for (unsigned d = 0; d < 3; d++) {
        k->reqd_work_group_size[d] = reqd ? (size_t)md_uint(reqd, d) : 0;
        k->work_group_size_hint[d] = hint ? (size_t)md_uint(hint, d) : 0;
    }
    if (reqd)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "reqd_work_group_size(%zu,%zu,%zu)",
                              k->reqd_work_group_size[0], k->reqd_work_group_size[1],
                              k->reqd_work_group_size[2]);
    if (hint)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "%swork_group_size_hint(%zu,%zu,%zu)",
                              n ? " " : "", k->work_group_size_hint[0], k->work_group_size_hint[1],
                              k->work_group_size_hint[2]);
    if (vec) {
        LLVMValueRef v = md_operand(vec, 0);
        char name[32] = "";
        if (v)
            type_hint_name(LLVMTypeOf(v), md_uint(vec, 1) != 0, name, sizeof(name));
        snprintf(text + n, sizeof(text) - n, "%svec_type_hint(%s)", n ? " " : "", name);
    }
    return strdup(text);
}

static bool is_kernel(LLVMValueRef fn)
{
    return !LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) == KILN_CC_SPIR_KERNEL_CC;
}

/*
 * A block's kernel (docs/compiler.md, "Device-side enqueue"): Clang makes one per block
 * passed to enqueue_kernel, a kernel without argument metadata whose first parameter is the
 * block literal (a generic pointer) and whose others are the block's `local void *`
 * parameters. Only the device launches it; the runtime never shows it to the application.
 */
bool kiln_cc_is_block_kernel(LLVMValueRef fn)
{
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (!is_kernel(fn) || strncmp(name, "__", 2) != 0 || !strstr(name, "_block_invoke") ||
        len < 7 || strcmp(name + len - 7, "_kernel") != 0)
        return false;
    struct md_list md;
    md.entries = LLVMGlobalCopyAllMetadata(fn, &md.count);
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
    bool described = md_node(ctx, &md, "kernel_arg_addr_space") != NULL;
    LLVMDisposeValueMetadataEntries(md.entries);
    return !described;
}

/* A block kernel's arguments: the literal, then one __local pointer per `local void *`. */
static enum kiln_cc_status read_block_args(struct kiln_cc_kernel *k)
{
    struct kiln_cc_arg *args = (struct kiln_cc_arg *)k->args;
    for (unsigned i = 0; i < k->num_args; i++) {
        struct kiln_cc_arg *a = &args[i];
        a->kind = i == 0 ? KILN_CC_ARG_GLOBAL_PTR : KILN_CC_ARG_LOCAL_PTR;
        a->addr_space = i == 0 ? KILN_CC_AS_GENERIC : KILN_CC_AS_LOCAL;
        a->size = 8;
        a->align = 8;
        a->name = strdup(i == 0 ? "block" : "local");
        a->type_name = strdup("void*");
        a->access_qual = strdup("NONE");
        a->type_qual = strdup("");
        if (!a->name || !a->type_name || !a->access_qual || !a->type_qual)
            return KILN_CC_OUT_OF_MEMORY;
    }
    k->attributes = strdup("");
    k->block = 1;
    return k->attributes ? KILN_CC_OK : KILN_CC_OUT_OF_MEMORY;
}

/*
 * A kernel this build makes a work-group function for: every kernel, but in a local-size
 * variant's build (struct kiln_cc_variant) only the one it specialises. The others are then plain
 * functions that the work-group stage inlines where a kernel calls them and otherwise drops,
 * so the variant costs the compile time of its own kernel only.
 */
static bool is_built_kernel(const struct kiln_cc_build *b, LLVMValueRef fn)
{
    const char *only = b->opts->variant_kernel;
    return is_kernel(fn) && (!only || strcmp(LLVMGetValueName(fn), only) == 0);
}

/* Kernels in the table's order: the application's in source order, then the blocks'. */
static bool in_pass(const struct kiln_cc_build *b, LLVMValueRef fn, bool blocks)
{
    return is_built_kernel(b, fn) && kiln_cc_is_block_kernel(fn) == blocks;
}

static enum kiln_cc_status read_kernel(struct kiln_cc_build *b, LLVMValueRef fn,
                                       struct kiln_cc_kernel *k)
{
    enum kiln_cc_status status = KILN_CC_OK;
    struct kiln_cc_arg *args;
    struct md_list md;

    k->name = strdup(LLVMGetValueName(fn));
    k->num_args = LLVMCountParams(fn);
    k->args = args = calloc(k->num_args ? k->num_args : 1, sizeof(*args));
    if (!k->name || !args)
        return KILN_CC_OUT_OF_MEMORY;

    if (kiln_cc_is_block_kernel(fn))
        return read_block_args(k);
    md.entries = LLVMGlobalCopyAllMetadata(fn, &md.count);
    if (!md_node(b->ctx, &md, "kernel_arg_addr_space") && k->num_args > 0) {
        kiln_cc_log_printf(b->log, "error: kernel '%s' has no argument metadata\n", k->name);
        status = KILN_CC_INTERNAL;
        goto out_free_md;
    }
    unsigned pipes = 0;
    for (unsigned i = 0; i < k->num_args && status == KILN_CC_OK; i++) {
        status = read_arg(b, fn, &md, i, &args[i]);
        pipes += status == KILN_CC_OK && args[i].kind == KILN_CC_ARG_PIPE;
    }
    if (status == KILN_CC_OK && pipes > KILN_CC_MAX_PIPE_ARGS) {
        kiln_cc_log_printf(b->log,
                           "error: kernel '%s' has %u pipe arguments; the most is %u "
                           "(CL_DEVICE_MAX_PIPE_ARGS)\n",
                           k->name, pipes, KILN_CC_MAX_PIPE_ARGS);
        status = KILN_CC_BUILD_FAILED;
    }
    if (status == KILN_CC_OK) {
        k->attributes = attributes_text(b, &md, k);
        if (!k->attributes)
            status = KILN_CC_OUT_OF_MEMORY;
    }
out_free_md:
    LLVMDisposeValueMetadataEntries(md.entries);
    return status;
}

enum kiln_cc_status kiln_cc_kernels_read(struct kiln_cc_build *b)
{
    struct kiln_cc_program *p = b->prog;
    enum kiln_cc_status status = KILN_CC_OK;
    unsigned n = 0;

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn))
        n += is_built_kernel(b, fn);
    if (n == 0 && b->opts->variant_kernel) {
        kiln_cc_log_printf(b->log, "error: no kernel '%s' to build a variant of\n",
                           b->opts->variant_kernel);
        return KILN_CC_BUILD_FAILED;
    }
    /* Function order in Clang's module is source order, which kernel(i) promises. */
    p->kernels = calloc(n ? n : 1, sizeof(*p->kernels));
    b->kernel_fns = calloc(n ? n : 1, sizeof(*b->kernel_fns));
    b->wrappers = calloc(n ? n : 1, sizeof(*b->wrappers));
    if (!p->kernels || !b->kernel_fns || !b->wrappers)
        return KILN_CC_OUT_OF_MEMORY;

    for (int blocks = 0; blocks < 2; blocks++) {
        for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
            if (!in_pass(b, fn, blocks))
                continue;
            b->kernel_fns[p->num_kernels] = fn;
            /* Count first, so kiln_cc_kernels_free also frees a half-read kernel. */
            struct kiln_cc_kernel *k = &p->kernels[p->num_kernels++];
            enum kiln_cc_status s = read_kernel(b, fn, k);
            /* Keep going after an unsupported argument so the log lists them all. */
            if (s != KILN_CC_OK && status == KILN_CC_OK)
                status = s;
            if (s == KILN_CC_OUT_OF_MEMORY || s == KILN_CC_INTERNAL)
                return s;
        }
    }
    return status == KILN_CC_OK ? kiln_cc_enqueue_calls(b) : status;
}
