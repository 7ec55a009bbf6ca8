/*
 * Work-group stage: gives every kernel a work-group function
 *
 *     void kiln.wg.<kernel>(void *const *args, struct kiln_wg_ctx *ctx)
 *
 * (the ABI of include/kiln_abi.h) that unpacks the arguments once and
 * runs the kernel for every local id in a loop nest, z outermost, x innermost.
 * Then everything but the wrappers becomes internal and always-inline and is
 * inlined, and the library's hooks are replaced: __kiln_local_id(d) by the
 * induction variable of dimension d, __kiln_ctx() by the ctx parameter.
 *
 * Only barrier-free kernels are correct in this form: every work-item runs to the
 * end before the next starts. Kernels that can reach barrier() get another form,
 * chosen by KILN_BARRIER_STRATEGY: by default a flat wrapper (one call of the
 * kernel) that wg_transform.c turns into region loops; with "fibers" a
 * per-work-item function run on fibers (wg_fibers.c).
 *
 * Why the x loop vectorises without runtime alias checks: work-items of one group
 * may not race on memory without a barrier or atomics (OpenCL C 3.0 §3.3.6), so
 * the plain loads and stores of shared memory (global, constant, local) in one
 * iteration never depend on another iteration's. The loop says so with
 * llvm.loop.parallel_accesses over an access group holding exactly those
 * accesses. Private memory is never tagged: after inlining, all work-items share
 * the wrapper's allocas, so those accesses do carry dependencies between
 * iterations. Atomic and volatile accesses are left alone as well. The
 * wrapper's parameters are noalias: kernels cannot reach the args array or ctx
 * through their own pointers, which lets LLVM hoist the ctx loads out of the loop.
 */
#include "wg_internal.h"
#include "kiln_abi.h"
#include "kiln_image.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What hook replacement needs to know about one wrapper. */
struct wg_loops {
    LLVMValueRef lid[3]; /* induction variables x, y, z (i64), or the item function's x, y, z */
    LLVMValueRef ctx;    /* the ctx parameter */
    LLVMMetadataRef access_group; /* NULL for fibers: no loop to mark */
    LLVMValueRef body;            /* the function the kernel is inlined into */
    bool fibers;
};

/* An attribute with a size or alignment in bytes: dereferenceable(N), align(N). */
static LLVMAttributeRef sized_attr(LLVMContextRef ctx, const char *name, uint64_t bytes)
{
    return LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName(name, strlen(name)), bytes);
}

static LLVMAttributeRef enum_attr(LLVMContextRef ctx, const char *name)
{
    return sized_attr(ctx, name, 0);
}

/*
 * A new distinct empty node, which is what an access group must be. The C API
 * cannot create one directly, but the IR parser can, and the node belongs to the
 * context, so it outlives the scratch module.
 */
static LLVMMetadataRef new_access_group(LLVMContextRef ctx, struct kiln_cc_log *log)
{
    static const char ir[] = "!kiln.ag = !{!0}\n!0 = distinct !{}\n";
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, sizeof(ir) - 1, "access-group");
    LLVMModuleRef scratch;
    LLVMValueRef node;
    char *msg = NULL;

    if (!buf) {
        kiln_cc_log_append(log, "error: out of memory creating access-group metadata\n");
        return NULL;
    }
    /* The parser refuses a context that drops value names, as Clang's does. */
    LLVMBool discard = LLVMContextShouldDiscardValueNames(ctx);
    LLVMContextSetDiscardValueNames(ctx, 0);
    /* Takes ownership of buf. */
    LLVMBool failed = LLVMParseIRInContext(ctx, buf, &scratch, &msg);
    LLVMContextSetDiscardValueNames(ctx, discard);
    if (failed) {
        kiln_cc_log_printf(log, "error: cannot create access-group metadata: %s\n", msg);
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMGetNamedMetadataOperands(scratch, "kiln.ag", &node);
    LLVMMetadataRef group = LLVMValueAsMetadata(node);
    LLVMDisposeModule(scratch);
    return group;
}

static LLVMValueRef cast_to(LLVMBuilderRef bld, LLVMValueRef v, LLVMTypeRef type)
{
    if (LLVMTypeOf(v) == type)
        return v;
    return LLVMBuildAddrSpaceCast(bld, v, type, "");
}

/* The value kernel argument i is called with, built in the wrapper's entry block. */
static LLVMValueRef unpack_arg(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef fn,
                               LLVMValueRef args, LLVMValueRef wg_ctx, const struct kiln_cc_arg *a,
                               unsigned i, LLVMTypeRef *byval)
{
    LLVMContextRef ctx = b->ctx;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(fn, i));
    LLVMValueRef index = LLVMConstInt(i64, i, 0);
    LLVMValueRef slot =
        LLVMBuildLoad2(bld, ptr, LLVMBuildInBoundsGEP2(bld, ptr, args, &index, 1, ""), "");
    LLVMValueRef v;

    LLVMSetAlignment(slot, 8);
    *byval = NULL;
    switch (a->kind) {
    case KILN_CC_ARG_GLOBAL_PTR:
    case KILN_CC_ARG_CONSTANT_PTR:
    case KILN_CC_ARG_PIPE:    /* the pipe's struct kiln_pipe (kiln_pipe.h) */
    case KILN_CC_ARG_QUEUE:   /* the runtime's pointer for the device queue */
    case KILN_CC_ARG_IMAGE:   /* the image's struct kiln_image (kiln_image.h) */
    case KILN_CC_ARG_SAMPLER: /* the sampler's bits as a pointer value (kiln_image.h) */
        v = LLVMBuildLoad2(bld, ptr, slot, "");
        LLVMSetAlignment(v, 8);
        return cast_to(bld, v, type);
    case KILN_CC_ARG_LOCAL_PTR: {
        LLVMValueRef offset = LLVMBuildLoad2(bld, i64, slot, "");
        LLVMValueRef arena = kiln_cc_ctx_field(
            bld, ctx, wg_ctx, offsetof(struct kiln_wg_ctx, local_mem), ptr, "local_mem");
        LLVMSetAlignment(offset, 8);
        v = LLVMBuildInBoundsGEP2(bld, LLVMInt8TypeInContext(ctx), arena, &offset, 1, "");
        return cast_to(bld, v, type);
    }
    default:
        break;
    }
    LLVMAttributeRef attr =
        LLVMGetEnumAttributeAtIndex(fn, i + 1, LLVMGetEnumAttributeKindForName("byval", 5));
    if (!attr) {
        v = LLVMBuildLoad2(bld, type, slot, "");
        LLVMSetAlignment(v, 1);
        return v;
    }
    /*
     * byval promises the callee a pointer aligned as the parameter says, which
     * args[i] need not be: copy the bytes once into an aligned slot. Every call gets
     * its own copy of that by byval's semantics, so one slot serves all work-items.
     */
    *byval = LLVMGetTypeAttributeValue(attr);
    LLVMValueRef copy = LLVMBuildAlloca(bld, *byval, "");
    LLVMSetAlignment(copy, a->align);
    LLVMBuildMemCpy(bld, copy, a->align, slot, 1, LLVMConstInt(i64, a->size, 0));
    return copy;
}

/* Calls kernel `fn` with the unpacked argument values. */
static void call_kernel(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef fn,
                        LLVMValueRef *values, LLVMTypeRef *byvals, unsigned n)
{
    LLVMValueRef call = LLVMBuildCall2(bld, LLVMGlobalGetValueType(fn), fn, values, n, "");
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(fn));
    for (unsigned i = 0; i < n; i++)
        if (byvals[i])
            LLVMAddCallSiteAttribute(
                call, i + 1,
                LLVMCreateTypeAttribute(b->ctx, LLVMGetEnumAttributeKindForName("byval", 5),
                                        byvals[i]));
}

/*
 * For the fiber strategy: the per-work-item function
 * void kiln.wi.<kernel>(args, ctx, group, x, y, z) that runs the kernel once.
 */
static enum kiln_cc_status build_item_function(struct kiln_cc_build *b, unsigned k,
                                               struct wg_loops *loops)
{
    static const char prefix[] = KILN_CC_WI_PREFIX;
    static const char *const lid_names[3] = {"lid.x", "lid.y", "lid.z"};
    LLVMContextRef ctx = b->ctx;
    LLVMValueRef fn = b->kernel_fns[k];
    const struct kiln_cc_kernel *info = &b->prog->kernels[k];
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef params[6] = {ptr, ptr, ptr, i64, i64, i64};
    LLVMTypeRef fn_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 6, 0);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    unsigned n = info->num_args;
    LLVMValueRef *values = calloc(n ? n : 1, sizeof(*values));
    LLVMTypeRef *byvals = calloc(n ? n : 1, sizeof(*byvals));
    char *name = malloc(sizeof(prefix) + strlen(info->name));

    if (!values || !byvals || !name)
        goto out_free;
    sprintf(name, "%s%s", prefix, info->name);
    LLVMValueRef item = LLVMAddFunction(b->mod, name, fn_type);
    LLVMSetLinkage(item, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(item, LLVMAttributeFunctionIndex, enum_attr(ctx, "nounwind"));
    loops->body = item;
    loops->fibers = true;
    loops->ctx = LLVMGetParam(item, 1);
    for (int d = 0; d < 3; d++) {
        loops->lid[d] = LLVMGetParam(item, 3 + (unsigned)d);
        LLVMSetValueName2(loops->lid[d], lid_names[d], strlen(lid_names[d]));
    }
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(bld, LLVMAppendBasicBlockInContext(ctx, item, "entry"));
    for (unsigned i = 0; i < n; i++)
        values[i] = unpack_arg(b, bld, fn, LLVMGetParam(item, 0), loops->ctx, &info->args[i], i,
                               &byvals[i]);
    call_kernel(b, bld, fn, values, byvals, n);
    LLVMBuildRetVoid(bld);
    LLVMDisposeBuilder(bld);
    status = kiln_cc_fibers_wrap(b, k, item);
out_free:
    free(name);
    free(byvals);
    free(values);
    return status;
}

/* Whether kernel k's global offset is always zero: a variant built for such launches. */
static bool zero_offset(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k)
{
    return kiln_cc_is_variant(b, k) && b->opts->variant_zero_offset;
}

/*
 * With `flat` (kernels with barriers) the wrapper only unpacks the arguments,
 * calls the kernel once and returns; wg_transform.c builds its loops later.
 */
static enum kiln_cc_status build_wrapper(struct kiln_cc_build *b, unsigned k,
                                         struct wg_loops *loops, bool flat)
{
    LLVMContextRef ctx = b->ctx;
    LLVMValueRef fn = b->kernel_fns[k];
    const struct kiln_cc_kernel *info = &b->prog->kernels[k];
    LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    LLVMTypeRef params[2] = {ptr, ptr};
    LLVMTypeRef fn_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 2, 0);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    unsigned n = info->num_args;
    LLVMValueRef *values = calloc(n ? n : 1, sizeof(*values));
    LLVMTypeRef *byvals = calloc(n ? n : 1, sizeof(*byvals));
    char *name = malloc(strlen(KILN_CC_WG_PREFIX) + strlen(info->name) + 1);

    if (!values || !byvals || !name)
        goto out_free;
    sprintf(name, "%s%s", KILN_CC_WG_PREFIX, info->name);
    LLVMValueRef w = LLVMAddFunction(b->mod, name, fn_type);
    b->wrappers[k] = w;
    loops->body = w;
    LLVMAddAttributeAtIndex(w, LLVMAttributeFunctionIndex, enum_attr(ctx, "nounwind"));
    for (unsigned p = 1; p <= 2; p++) {
        LLVMAddAttributeAtIndex(w, p, enum_attr(ctx, "noalias"));
        LLVMAddAttributeAtIndex(w, p, enum_attr(ctx, "nocapture"));
        LLVMAddAttributeAtIndex(w, p, enum_attr(ctx, "readonly"));
    }
    /* Both are always there in full, so their loads may be hoisted out of conditional code. */
    LLVMAddAttributeAtIndex(w, 2, sized_attr(ctx, "dereferenceable", sizeof(struct kiln_wg_ctx)));
    LLVMAddAttributeAtIndex(w, 2, sized_attr(ctx, "align", _Alignof(struct kiln_wg_ctx)));
    if (n) {
        LLVMAddAttributeAtIndex(w, 1, sized_attr(ctx, "dereferenceable", n * sizeof(void *)));
        LLVMAddAttributeAtIndex(w, 1, sized_attr(ctx, "align", _Alignof(void *)));
    }
    LLVMValueRef args = LLVMGetParam(w, 0), wg_ctx = LLVMGetParam(w, 1);
    LLVMSetValueName2(args, "args", 4);
    LLVMSetValueName2(wg_ctx, "ctx", 3);
    loops->ctx = wg_ctx;
    loops->access_group = new_access_group(ctx, b->log);
    if (!loops->access_group) {
        status = KILN_CC_INTERNAL;
        goto out_free;
    }

    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, w, "entry");
    LLVMBasicBlockRef blk[3], latch[3];
    static const char *const loop_names[3] = {"x.loop", "y.loop", "z.loop"};
    static const char *const latch_names[3] = {"x.latch", "y.latch", "z.latch"};
    static const char *const lid_names[3] = {"lid.x", "lid.y", "lid.z"};
    for (int d = 2; d >= 0; d--)
        blk[d] = LLVMAppendBasicBlockInContext(ctx, w, loop_names[d]);
    for (int d = 1; d < 3; d++)
        latch[d] = LLVMAppendBasicBlockInContext(ctx, w, latch_names[d]);
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, w, "exit");

    LLVMPositionBuilderAtEnd(bld, entry);
    for (unsigned i = 0; i < n; i++)
        values[i] = unpack_arg(b, bld, fn, args, wg_ctx, &info->args[i], i, &byvals[i]);
    if (flat) {
        LLVMBasicBlockRef body = LLVMInsertBasicBlockInContext(ctx, blk[2], "body");
        LLVMBuildBr(bld, body);
        LLVMPositionBuilderAtEnd(bld, body);
        LLVMValueRef call = LLVMBuildCall2(bld, LLVMGlobalGetValueType(fn), fn, values, n, "");
        LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(fn));
        for (unsigned i = 0; i < n; i++)
            if (byvals[i])
                LLVMAddCallSiteAttribute(
                    call, i + 1,
                    LLVMCreateTypeAttribute(ctx, LLVMGetEnumAttributeKindForName("byval", 5),
                                            byvals[i]));
        LLVMBuildBr(bld, exit);
        for (int d = 0; d < 3; d++)
            LLVMDeleteBasicBlock(blk[d]);
        for (int d = 1; d < 3; d++)
            LLVMDeleteBasicBlock(latch[d]);
        LLVMPositionBuilderAtEnd(bld, exit);
        LLVMBuildRetVoid(bld);
        LLVMDisposeBuilder(bld);
        status = KILN_CC_OK;
        goto out_free;
    }
    LLVMValueRef size[3], empty = NULL;
    for (int d = 0; d < 3; d++) {
        size[d] = kiln_cc_local_size(b, info, bld, wg_ctx, d);
        LLVMValueRef z = LLVMBuildICmp(bld, LLVMIntEQ, size[d], LLVMConstInt(i64, 0, 0), "");
        empty = empty ? LLVMBuildOr(bld, empty, z, "") : z;
    }
    LLVMBuildCondBr(bld, empty, exit, blk[2]);

    /* Loop headers, outermost first: each phi starts at 0 from the block above. */
    LLVMBasicBlockRef from = entry;
    for (int d = 2; d >= 0; d--) {
        LLVMPositionBuilderAtEnd(bld, blk[d]);
        loops->lid[d] = LLVMBuildPhi(bld, i64, lid_names[d]);
        LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
        LLVMAddIncoming(loops->lid[d], &zero, &from, 1);
        if (d > 0)
            LLVMBuildBr(bld, blk[d - 1]);
        from = blk[d];
    }
    /* The innermost block calls the kernel, then every level steps and tests. */
    call_kernel(b, bld, fn, values, byvals, n);
    for (int d = 0; d < 3; d++) {
        LLVMBasicBlockRef here = d == 0 ? blk[0] : latch[d];
        LLVMBasicBlockRef next = d == 2 ? exit : latch[d + 1];
        LLVMPositionBuilderAtEnd(bld, here);
        LLVMValueRef step = LLVMBuildNUWAdd(bld, loops->lid[d], LLVMConstInt(i64, 1, 0), "");
        LLVMValueRef more = LLVMBuildICmp(bld, LLVMIntULT, step, size[d], "");
        LLVMValueRef br = LLVMBuildCondBr(bld, more, blk[d], next);
        LLVMAddIncoming(loops->lid[d], &step, &here, 1);
        if (d == 0) {
            unsigned kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
            LLVMSetMetadata(
                br, kind,
                LLVMMetadataAsValue(ctx, kiln_cc_parallel_loop_id(ctx, loops->access_group)));
        }
    }
    LLVMPositionBuilderAtEnd(bld, exit);
    LLVMBuildRetVoid(bld);
    LLVMDisposeBuilder(bld);
    status = KILN_CC_OK;
out_free:
    free(name);
    free(byvals);
    free(values);
    return status;
}

/* Whether fn is a work-group function or a kernel's body (the same but for fibers). */
static bool is_wrapper(struct kiln_cc_build *b, LLVMValueRef fn, unsigned *index)
{
    for (unsigned i = 0; i < b->prog->num_kernels; i++) {
        if (b->wrappers[i] == fn || b->bodies[i] == fn) {
            if (index)
                *index = i;
            return true;
        }
    }
    return false;
}

/* Everything the wrappers call becomes theirs alone, and is inlined into them. */
static enum kiln_cc_status inline_into_wrappers(struct kiln_cc_build *b)
{
    static const char *const drop[] = {"noinline", "optnone"};
    LLVMAttributeRef always = enum_attr(b->ctx, "alwaysinline");

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn) || is_wrapper(b, fn, NULL))
            continue;
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        for (size_t i = 0; i < 2; i++)
            LLVMRemoveEnumAttributeAtIndex(
                fn, LLVMAttributeFunctionIndex,
                LLVMGetEnumAttributeKindForName(drop[i], strlen(drop[i])));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always);
    }
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(b->mod, "always-inline,globaldce", NULL, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        kiln_cc_log_printf(b->log, "error: inlining into work-group functions failed: %s\n", msg);
        LLVMDisposeErrorMessage(msg);
        return KILN_CC_INTERNAL;
    }
    return KILN_CC_OK;
}

static LLVMValueRef local_id_value(LLVMBuilderRef bld, LLVMContextRef ctx,
                                   const struct wg_loops *loops, LLVMValueRef dim)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    if (LLVMIsAConstantInt(dim)) {
        unsigned long long d = LLVMConstIntGetZExtValue(dim);
        return d < 3 ? loops->lid[d] : LLVMConstInt(i64, 0, 0);
    }
    LLVMValueRef v = LLVMConstInt(i64, 0, 0);
    for (int d = 2; d >= 0; d--) {
        LLVMValueRef is_d =
            LLVMBuildICmp(bld, LLVMIntEQ, dim, LLVMConstInt(LLVMTypeOf(dim), (unsigned)d, 0), "");
        v = LLVMBuildSelect(bld, is_d, loops->lid[d], v, "");
    }
    return v;
}

/* __kiln_group_leader(): 1 when every local id is 0 (i32). */
static LLVMValueRef leader_value(LLVMBuilderRef bld, LLVMContextRef ctx,
                                 const struct wg_loops *loops)
{
    LLVMValueRef any =
        LLVMBuildOr(bld, LLVMBuildOr(bld, loops->lid[0], loops->lid[1], ""), loops->lid[2], "");
    LLVMValueRef first = LLVMBuildICmp(bld, LLVMIntEQ, any, LLVMConstNull(LLVMTypeOf(any)), "");
    return LLVMBuildZExt(bld, first, LLVMInt32TypeInContext(ctx), "");
}

/* Replaces the calls of one hook that sit in wrappers; others are left for check_support.c. */
static enum kiln_cc_status replace_hook(struct kiln_cc_build *b, const char *hook,
                                        const struct wg_loops *loops)
{
    LLVMValueRef fn = LLVMGetNamedFunction(b->mod, hook);
    size_t n = 0, cap = 16;
    LLVMValueRef *calls;

    if (!fn)
        return KILN_CC_OK;
    calls = malloc(cap * sizeof(*calls));
    if (!calls)
        return KILN_CC_OUT_OF_MEMORY;
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsACallInst(user))
            continue;
        if (n == cap) {
            LLVMValueRef *more = realloc(calls, 2 * cap * sizeof(*calls));
            if (!more) {
                free(calls);
                return KILN_CC_OUT_OF_MEMORY;
            }
            calls = more;
            cap *= 2;
        }
        calls[n++] = user;
    }

    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    bool is_ctx = strcmp(hook, KILN_CC_HOOK_CTX) == 0;
    bool is_leader = strcmp(hook, KILN_CC_HOOK_LEADER) == 0;
    for (size_t i = 0; i < n; i++) {
        LLVMValueRef call = calls[i];
        unsigned k;
        if (!is_wrapper(b, LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)), &k) ||
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) != loops[k].body)
            continue;
        LLVMPositionBuilderBefore(bld, call);
        LLVMValueRef v = is_ctx ? cast_to(bld, loops[k].ctx, LLVMTypeOf(call))
                         : is_leader
                             ? leader_value(bld, b->ctx, &loops[k])
                             : local_id_value(bld, b->ctx, &loops[k], LLVMGetOperand(call, 0));
        LLVMReplaceAllUsesWith(call, v);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(bld);
    free(calls);
    return KILN_CC_OK;
}

static bool is_shared_memory(LLVMValueRef pointer)
{
    return kiln_cc_shared_space(LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)));
}

/*
 * Puts `in` in access group `tag` too: an access that already belongs to a group (a loop
 * of the kernel library marked assume_safety) keeps it, in a list with the new one.
 */
static void join_access_group(LLVMContextRef ctx, unsigned kind, LLVMValueRef in, LLVMValueRef tag)
{
    LLVMValueRef old = LLVMGetMetadata(in, kind);
    if (!old || old == tag) {
        LLVMSetMetadata(in, kind, tag);
        return;
    }
    /* A group is an empty node; a list holds groups. */
    unsigned n = LLVMGetMDNodeNumOperands(old);
    LLVMValueRef listed[16];
    if (n >= 16)
        return;
    if (n)
        LLVMGetMDNodeOperands(old, listed);
    else
        listed[n++] = old;
    LLVMMetadataRef ops[16];
    for (unsigned i = 0; i < n; i++)
        ops[i] = LLVMValueAsMetadata(listed[i]);
    ops[n] = LLVMValueAsMetadata(tag);
    LLVMSetMetadata(in, kind, LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, n + 1)));
}

static void tag_shared_accesses(struct kiln_cc_build *b, LLVMValueRef w, LLVMMetadataRef group)
{
    unsigned kind = LLVMGetMDKindIDInContext(b->ctx, "llvm.access.group", 17);
    LLVMValueRef tag = LLVMMetadataAsValue(b->ctx, group);

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w); bb; bb = LLVMGetNextBasicBlock(bb)) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMValueRef pointer;
            if (LLVMIsALoadInst(in))
                pointer = LLVMGetOperand(in, 0);
            else if (LLVMIsAStoreInst(in))
                pointer = LLVMGetOperand(in, 1);
            else
                continue;
            if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
                continue;
            if (is_shared_memory(pointer))
                join_access_group(b->ctx, kind, in, tag);
        }
    }
}

/*
 * __constant memory does not change while a kernel runs (OpenCL C 3.0 §6.7.3), so its
 * loads are invariant.load: LLVM may hoist them out of the work-item loops even past
 * stores it cannot tell apart from them (a kernel's or a built-in's generic stores).
 */
static void mark_constant_loads(struct kiln_cc_build *b, LLVMValueRef fn)
{
    unsigned kind = LLVMGetMDKindIDInContext(b->ctx, "invariant.load", 14);
    LLVMValueRef empty = LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, NULL, 0));

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            if (LLVMIsALoadInst(in) && !LLVMGetVolatile(in) &&
                LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
                LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(in, 0))) ==
                    KILN_CC_AS_CONSTANT)
                LLVMSetMetadata(in, kind, empty);
}

/* A constant integer, maybe behind integer casts the inliner left unfolded, in *v. */
static bool const_index(LLVMValueRef idx, long long *v)
{
    while (LLVMIsAZExtInst(idx) || LLVMIsASExtInst(idx) || LLVMIsATruncInst(idx))
        idx = LLVMGetOperand(idx, 0);
    if (!LLVMIsAConstantInt(idx))
        return false;
    *v = LLVMConstIntGetSExtValue(idx);
    return true;
}

/* The byte offset `p` is at from `base` through constant getelementptrs and casts, or -1. */
static long long offset_from(LLVMTargetDataRef td, LLVMValueRef p, LLVMValueRef base)
{
    long long off = 0;
    for (unsigned depth = 0; depth < 8; depth++) {
        if (p == base)
            return off;
        if (LLVMIsAAddrSpaceCastInst(p) || LLVMIsABitCastInst(p)) {
            p = LLVMGetOperand(p, 0);
            continue;
        }
        if (!LLVMIsAGetElementPtrInst(p))
            return -1;
        LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
        unsigned n = (unsigned)LLVMGetNumOperands(p);
        for (unsigned i = 1; i < n; i++) {
            long long v;
            if (!const_index(LLVMGetOperand(p, i), &v) || v < 0)
                return -1;
            if (i == 1) {
                off += v * (long long)LLVMABISizeOfType(td, t);
            } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
                off += (long long)LLVMOffsetOfElement(td, t, (unsigned)v);
                t = LLVMStructGetTypeAtIndex(t, (unsigned)v);
            } else if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
                t = LLVMGetElementType(t);
                off += v * (long long)LLVMABISizeOfType(td, t);
            } else {
                return -1;
            }
        }
        p = LLVMGetOperand(p, 0);
    }
    return -1;
}

/*
 * Promotes the inlined builtins' locals and folds their constant tests in `w` alone (the
 * other functions are optnone meanwhile), so fold_known_ctx_fields sees constant ctx
 * offsets; the region transform does the same to its kernels.
 */
static enum kiln_cc_status simplify_wrapper(struct kiln_cc_build *b, LLVMValueRef w)
{
    return kiln_cc_run_on(b, &w, NULL, 1, "function(sroa<preserve-cfg>,sccp,instsimplify)");
}

/*
 * With a local size known at compile time (kiln_cc_fixed_local_size), the kernel's own
 * reads of it (get_local_size, get_enqueued_local_size: ctx->local_size and
 * ctx->enqueued_local_size, equal when every group is full) become that constant too; in a
 * variant for launches without a global offset, so do its reads of ctx->global_offset
 * (get_global_id, get_global_offset), which become 0.
 */
static void fold_known_ctx_fields(struct kiln_cc_build *b, unsigned k, LLVMValueRef fn,
                                  LLVMValueRef wg_ctx)
{
    const struct kiln_cc_kernel *info = &b->prog->kernels[k];
    bool fixed = kiln_cc_fixed_local_size(b, info, 0) != 0, zero = zero_offset(b, info);
    if (!fixed && !zero)
        return;
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    const long long fields[3] = {offsetof(struct kiln_wg_ctx, local_size),
                                 offsetof(struct kiln_wg_ctx, enqueued_local_size),
                                 offsetof(struct kiln_wg_ctx, global_offset)};
    const bool wanted[3] = {fixed, fixed, zero};
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef in = LLVMGetFirstInstruction(bb);
        while (in) {
            LLVMValueRef next = LLVMGetNextInstruction(in);
            if (LLVMIsALoadInst(in) && !LLVMGetVolatile(in) &&
                LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMIntegerTypeKind &&
                LLVMGetIntTypeWidth(LLVMTypeOf(in)) == 64) {
                long long off = offset_from(td, LLVMGetOperand(in, 0), wg_ctx);
                for (int f = 0; f < 3 && off >= 0; f++)
                    if (wanted[f] && off >= fields[f] && off < fields[f] + 24 &&
                        (off - fields[f]) % 8 == 0) {
                        int d = (int)((off - fields[f]) / 8);
                        size_t v = f < 2 ? kiln_cc_fixed_local_size(b, info, d) : 0;
                        LLVMReplaceAllUsesWith(in, LLVMConstInt(LLVMTypeOf(in), v, 0));
                        LLVMInstructionEraseFromParent(in);
                        break;
                    }
            }
            in = next;
        }
    }
}

/* The variant's entry for image argument `arg` of kernel `info`, or NULL. */
static const struct kiln_cc_variant_image *
variant_image(const struct kiln_cc_build *b, const struct kiln_cc_kernel *info, unsigned arg)
{
    if (!kiln_cc_is_variant(b, info))
        return NULL;
    for (unsigned i = 0; i < b->opts->variant_num_images; i++)
        if (b->opts->variant_images[i].arg == arg)
            return &b->opts->variant_images[i];
    return NULL;
}

/*
 * The descriptor pointer of each image argument of wrapper `fn` in base[] (NULL for other
 * arguments): the load of the pointer that unpack_arg stored in args[i], found again by its
 * address rather than kept from build_wrapper, as the simplifications since may have
 * replaced instructions.
 */
static void find_image_descriptors(LLVMTargetDataRef td, const struct kiln_cc_kernel *info,
                                   LLVMValueRef fn, LLVMValueRef *base)
{
    LLVMValueRef args = LLVMGetParam(fn, 0);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    for (LLVMValueRef in = LLVMGetFirstInstruction(entry); in; in = LLVMGetNextInstruction(in)) {
        LLVMValueRef slot = LLVMIsALoadInst(in) ? LLVMGetOperand(in, 0) : NULL;
        if (!slot || !LLVMIsALoadInst(slot))
            continue;
        long long off = offset_from(td, LLVMGetOperand(slot, 0), args);
        if (off < 0 || off % 8 != 0 || (unsigned long long)off / 8 >= info->num_args)
            continue;
        unsigned i = (unsigned)(off / 8);
        if (info->args[i].kind == KILN_CC_ARG_IMAGE && !base[i])
            base[i] = in;
    }
}

/*
 * Image arguments (DESIGN.md §7). The runtime never writes a descriptor after creating it,
 * so every load of one is invariant.load, which lets LLVM hoist it out of the work-item
 * loops past the kernel's stores to the pixels. In a variant built for the image formats of
 * its launches (struct kiln_cc_variant_image), the loads of the fields that follow from the
 * format (order, data_type, elem_size, num_channels) become those constants: the kernel
 * library's texel functions switch on them on every access, and once they are constant the
 * switches fold away before O3 and the accesses can vectorise.
 */
static void fold_image_fields(struct kiln_cc_build *b, unsigned k, LLVMValueRef fn)
{
    const struct kiln_cc_kernel *info = &b->prog->kernels[k];
    bool any = false;
    for (unsigned i = 0; i < info->num_args; i++)
        any |= info->args[i].kind == KILN_CC_ARG_IMAGE;
    if (!any)
        return;
    LLVMValueRef *base = calloc(info->num_args, sizeof(*base));
    if (!base)
        return; /* nothing folded: the generic code is as correct */
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    find_image_descriptors(td, info, fn, base);
    unsigned invariant = LLVMGetMDKindIDInContext(b->ctx, "invariant.load", 14);
    LLVMValueRef empty = LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, NULL, 0));
    /* A descriptor is valid for the whole launch: its fields may be loaded speculatively, so
     * LLVM hoists them out of the work-item loops even from a branch (a write's range check). */
    LLVMTypeRef i64 = LLVMInt64TypeInContext(b->ctx);
    unsigned deref = LLVMGetMDKindIDInContext(b->ctx, "dereferenceable", 15);
    unsigned align = LLVMGetMDKindIDInContext(b->ctx, "align", 5);
    LLVMMetadataRef size = LLVMValueAsMetadata(LLVMConstInt(i64, sizeof(struct kiln_image), 0));
    LLVMMetadataRef eight = LLVMValueAsMetadata(LLVMConstInt(i64, _Alignof(struct kiln_image), 0));
    for (unsigned i = 0; i < info->num_args; i++) {
        if (!base[i])
            continue;
        LLVMSetMetadata(base[i], deref,
                        LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, &size, 1)));
        LLVMSetMetadata(base[i], align,
                        LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, &eight, 1)));
    }
    static const long long fields[4] = {
        offsetof(struct kiln_image, order), offsetof(struct kiln_image, data_type),
        offsetof(struct kiln_image, elem_size), offsetof(struct kiln_image, num_channels)};
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef in = LLVMGetFirstInstruction(bb);
        while (in) {
            LLVMValueRef next = LLVMGetNextInstruction(in);
            if (!LLVMIsALoadInst(in) || LLVMGetVolatile(in) ||
                LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic) {
                in = next;
                continue;
            }
            for (unsigned i = 0; i < info->num_args; i++) {
                long long off = base[i] ? offset_from(td, LLVMGetOperand(in, 0), base[i]) : -1;
                if (off < 0 || off >= (long long)sizeof(struct kiln_image))
                    continue;
                const struct kiln_cc_variant_image *im = variant_image(b, info, i);
                LLVMTypeRef t = LLVMTypeOf(in);
                bool i32 =
                    LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 32;
                const uint32_t known[4] = {im ? im->order : 0, im ? im->data_type : 0,
                                           im ? im->elem_size : 0, im ? im->num_channels : 0};
                int f = 0;
                while (f < 4 && fields[f] != off)
                    f++;
                if (im && i32 && f < 4) {
                    LLVMReplaceAllUsesWith(in, LLVMConstInt(t, known[f], 0));
                    LLVMInstructionEraseFromParent(in);
                } else {
                    LLVMSetMetadata(in, invariant, empty);
                }
                break;
            }
            in = next;
        }
    }
    free(base);
}

/* Each image entry of a variant must name an image argument of its kernel. */
static enum kiln_cc_status check_variant_images(struct kiln_cc_build *b)
{
    for (unsigned k = 0; k < b->prog->num_kernels; k++) {
        const struct kiln_cc_kernel *info = &b->prog->kernels[k];
        if (!kiln_cc_is_variant(b, info))
            continue;
        for (unsigned i = 0; i < b->opts->variant_num_images; i++) {
            uint32_t arg = b->opts->variant_images[i].arg;
            if (arg < info->num_args && info->args[arg].kind == KILN_CC_ARG_IMAGE)
                continue;
            kiln_cc_log_printf(b->log,
                               "error: no variant of kernel '%s': argument %u is not an image\n",
                               info->name, (unsigned)arg);
            return KILN_CC_BUILD_FAILED;
        }
    }
    return KILN_CC_OK;
}

/*
 * A variant's build (struct kiln_cc_variant) is a second loaded copy of the program beside the
 * generic one: a program-scope variable the kernel can write would exist twice, and the
 * launches that use the variant would not see what the others stored. Such a variant is
 * refused (the runtime then keeps the generic function). Read-only data (__constant,
 * string literals) is fine, as every copy holds the same bytes.
 */
static enum kiln_cc_status check_variant_globals(struct kiln_cc_build *b)
{
    if (!b->opts->variant_kernel)
        return KILN_CC_OK;
    for (LLVMValueRef g = LLVMGetFirstGlobal(b->mod); g; g = LLVMGetNextGlobal(g)) {
        unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
        if (LLVMIsDeclaration(g) || LLVMIsGlobalConstant(g) || as == KILN_CC_AS_CONSTANT ||
            as == KILN_CC_AS_LOCAL)
            continue;
        size_t len;
        const char *name = LLVMGetValueName2(g, &len);
        kiln_cc_log_printf(b->log,
                           "error: no variant of kernel '%s': the program-scope variable "
                           "'%.*s' would have a second copy\n",
                           b->opts->variant_kernel, (int)len, name);
        return KILN_CC_BUILD_FAILED;
    }
    return KILN_CC_OK;
}

enum kiln_cc_status kiln_cc_wrappers_build(struct kiln_cc_build *b)
{
    unsigned n = b->prog->num_kernels;
    struct wg_loops *loops = calloc(n ? n : 1, sizeof(*loops));
    bool *flat = calloc(n ? n : 1, sizeof(*flat));
    LLVMMetadataRef *groups = calloc(n ? n : 1, sizeof(*groups));
    enum kiln_cc_status status = loops && flat && groups ? KILN_CC_OK : KILN_CC_OUT_OF_MEMORY;
    bool any_flat = false;

    b->bodies = calloc(n ? n : 1, sizeof(*b->bodies));
    if (!b->bodies)
        status = KILN_CC_OUT_OF_MEMORY;
    if (status == KILN_CC_OK)
        status = kiln_cc_barrier_kernels(b, flat);
    for (unsigned k = 0; k < n && status == KILN_CC_OK; k++) {
        if (!flat[k])
            continue;
        status = kiln_cc_barrier_strategy(b, b->prog->kernels[k].name, &loops[k].fibers);
        if (loops[k].fibers)
            flat[k] = false; /* the fiber form has no region loops to build */
        else
            any_flat = true;
    }
    for (unsigned k = 0; k < n && status == KILN_CC_OK; k++) {
        if (loops[k].fibers)
            status = build_item_function(b, k, &loops[k]);
        else
            status = build_wrapper(b, k, &loops[k], flat[k]);
        groups[k] = loops[k].access_group;
        if (status == KILN_CC_OK)
            b->bodies[k] = loops[k].body;
    }
    if (status == KILN_CC_OK)
        status = inline_into_wrappers(b);
    if (status == KILN_CC_OK && any_flat)
        status = kiln_cc_regions_build(b, flat, groups);
    if (status == KILN_CC_OK)
        status = replace_hook(b, KILN_CC_HOOK_CTX, loops);
    if (status == KILN_CC_OK)
        status = replace_hook(b, KILN_CC_HOOK_LOCAL_ID, loops);
    if (status == KILN_CC_OK)
        status = replace_hook(b, KILN_CC_HOOK_LEADER, loops);
    if (status == KILN_CC_OK)
        status = check_variant_images(b);
    for (unsigned k = 0; k < n && status == KILN_CC_OK; k++) {
        mark_constant_loads(b, loops[k].fibers ? loops[k].body : b->wrappers[k]);
        if (!loops[k].fibers && !flat[k] &&
            (kiln_cc_fixed_local_size(b, &b->prog->kernels[k], 0) ||
             zero_offset(b, &b->prog->kernels[k])))
            status = simplify_wrapper(b, b->wrappers[k]);
        if (!loops[k].fibers) {
            fold_known_ctx_fields(b, k, b->wrappers[k], LLVMGetParam(b->wrappers[k], 1));
            fold_image_fields(b, k, b->wrappers[k]);
        }
        if (loops[k].fibers)
            status = kiln_cc_fibers_finish(b, k, loops[k].body);
        else
            tag_shared_accesses(b, b->wrappers[k], loops[k].access_group);
    }
    if (status == KILN_CC_OK)
        status = check_variant_globals(b);
    free(groups);
    free(flat);
    free(loops);
    return status;
}
