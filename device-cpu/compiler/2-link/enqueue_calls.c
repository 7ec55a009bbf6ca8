/*
 * Device-side enqueue in the kernels' stage: Clang passes enqueue_kernel and the
 * get_kernel_* queries the block's kernel as a function pointer (the "invoke"
 * argument, docs/compiler.md, "Device-side enqueue"). Kiln's device launches a
 * kernel by its entry in the program's kernel table, where kernel_info.c has put
 * the block kernels after the application's, so each such argument becomes that
 * index (an integer cast to a pointer), which the kernel library hands on
 * (kernel-lib/enqueue/enqueue.cl, include/kiln_enqueue.h).
 *
 * A block literal also holds a pointer to the block's invoke function. Where Clang
 * calls that function directly (a block called where it is defined, or through its
 * block kernel), the pointer is never called through: it is stored as null (in a
 * literal on the stack or in a global one's initialiser), so the function stays a
 * plain callee that the work-group stage inlines, barriers and work-item hooks and
 * all, rather than an address-taken copy that still calls them. A block whose
 * function is only called through the pointer (passed to another function) keeps it.
 * This holds for every program, enqueueing or not.
 *
 * Every kernel of a program that calls a device-side enqueue built-in is marked
 * (kiln_cc_kernel.enqueues): its groups need the device's enqueue state. A local-size
 * variant of such a program is refused, since a variant's table holds one kernel only.
 */
#include "link_stage.h"

#include <string.h>

/* The entry points and built-ins that reach the device's enqueue operations. */
static const char *const enqueue_names[] = {
    "__enqueue_kernel_",     "__get_kernel_",
    "_Z14enqueue_marker",    "_Z17get_default_queue",
    "_Z12retain_event",      "_Z13release_event",
    "_Z17create_user_event", "_Z21set_user_event_status",
    "_Z14is_valid_event",    "_Z28capture_event_profiling_info",
};

static bool is_enqueue_builtin(LLVMValueRef fn)
{
    const char *name = LLVMGetValueName(fn);
    for (size_t i = 0; i < sizeof(enqueue_names) / sizeof(enqueue_names[0]); i++)
        if (strncmp(name, enqueue_names[i], strlen(enqueue_names[i])) == 0)
            return true;
    return false;
}

/* `v` without the address-space casts Clang wraps around a function's address. */
static LLVMValueRef strip_casts(LLVMValueRef v)
{
    while (LLVMIsAConstantExpr(v) &&
           (LLVMGetConstOpcode(v) == LLVMAddrSpaceCast || LLVMGetConstOpcode(v) == LLVMBitCast))
        v = LLVMGetOperand(v, 0);
    return v;
}

/* The index of block kernel `fn` in the table, or -1 when fn is not one. */
static long block_index(const struct kiln_cc_build *b, LLVMValueRef fn)
{
    for (unsigned k = 0; k < b->prog->num_kernels; k++)
        if (b->kernel_fns[k] == fn && b->prog->kernels[k].block)
            return (long)k;
    return -1;
}

/* Replaces each block-kernel argument of call `call` by the kernel's index. */
static void name_blocks(struct kiln_cc_build *b, LLVMValueRef call)
{
    unsigned n = (unsigned)LLVMGetNumArgOperands(call);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef arg = LLVMGetOperand(call, i);
        long k = block_index(b, strip_casts(arg));
        if (k < 0)
            continue;
        LLVMValueRef index = LLVMConstInt(LLVMInt64TypeInContext(b->ctx), (unsigned long long)k, 0);
        LLVMSetOperand(call, i, LLVMConstIntToPtr(index, LLVMTypeOf(arg)));
    }
}

/* Whether fn has a direct call, not only uses of its address. */
static bool called_directly(LLVMValueRef fn)
{
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == fn)
            return true;
    }
    return false;
}

/* A global block literal's initialiser with each field that is (a cast of) fn made null. */
static void drop_from_initializer(LLVMContextRef ctx, LLVMValueRef global, LLVMValueRef fn)
{
    LLVMValueRef init = LLVMGetInitializer(global);
    if (!init || !LLVMIsAConstantStruct(init))
        return;
    unsigned n = (unsigned)LLVMGetNumOperands(init);
    LLVMValueRef fields[16];
    if (n > sizeof(fields) / sizeof(fields[0]))
        return;
    bool changed = false;
    for (unsigned i = 0; i < n; i++) {
        fields[i] = LLVMGetOperand(init, i);
        if (strip_casts(fields[i]) == fn) {
            fields[i] = LLVMConstNull(LLVMTypeOf(fields[i]));
            changed = true;
        }
    }
    if (!changed)
        return;
    LLVMTypeRef type = LLVMTypeOf(init);
    LLVMValueRef made = LLVMGetStructName(type)
                            ? LLVMConstNamedStruct(type, fields, n)
                            : LLVMConstStructInContext(ctx, fields, n, LLVMIsPackedStruct(type));
    LLVMSetInitializer(global, made);
}

/* Stores of a block invoke function's address (into a block literal) store null instead, and
 * a global literal's initialiser holds null. */
static void drop_invoke_stores(LLVMContextRef ctx, LLVMValueRef fn)
{
    LLVMUseRef u = LLVMGetFirstUse(fn);
    while (u) {
        LLVMValueRef user = LLVMGetUser(u);
        u = LLVMGetNextUse(u);
        if (LLVMIsAConstantExpr(user)) {
            LLVMUseRef cu = LLVMGetFirstUse(user);
            while (cu) {
                LLVMValueRef store = LLVMGetUser(cu);
                cu = LLVMGetNextUse(cu);
                if (LLVMIsAStoreInst(store) && LLVMGetOperand(store, 0) == user)
                    LLVMSetOperand(store, 0, LLVMConstNull(LLVMTypeOf(user)));
                else if (LLVMIsAConstantStruct(store))
                    for (LLVMUseRef gu = LLVMGetFirstUse(store); gu; gu = LLVMGetNextUse(gu))
                        if (LLVMIsAGlobalVariable(LLVMGetUser(gu)))
                            drop_from_initializer(ctx, LLVMGetUser(gu), fn);
            }
        } else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == fn) {
            LLVMSetOperand(user, 0, LLVMConstNull(LLVMTypeOf(fn)));
        }
    }
}

enum kiln_cc_status kiln_cc_enqueue_calls(struct kiln_cc_build *b)
{
    bool enqueues = false;
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (!LLVMIsDeclaration(fn) || !LLVMGetFirstUse(fn) || !is_enqueue_builtin(fn))
            continue;
        enqueues = true;
        for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u))
            if (LLVMIsACallInst(LLVMGetUser(u)))
                name_blocks(b, LLVMGetUser(u));
    }
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) != KILN_CC_SPIR_KERNEL_CC &&
            strstr(LLVMGetValueName(fn), "_block_invoke") && called_directly(fn))
            drop_invoke_stores(b->ctx, fn);
    if (!enqueues)
        return KILN_CC_OK;
    if (b->opts->variant_kernel) {
        kiln_cc_log_printf(b->log,
                           "error: no variant of kernel '%s': the program enqueues kernels "
                           "from kernels\n",
                           b->opts->variant_kernel);
        return KILN_CC_BUILD_FAILED;
    }
    for (unsigned k = 0; k < b->prog->num_kernels; k++)
        b->prog->kernels[k].enqueues = 1;
    return KILN_CC_OK;
}
