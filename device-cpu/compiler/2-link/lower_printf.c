/*
 * printf stage: every call of printf becomes one record appended to the command's
 * printf buffer, which the runtime prints when the command completes
 * (include/kiln_abi.h has the record layout, docs/printf.md the story).
 *
 * Clang calls printf as a real variadic function,
 *
 *     i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) fmt, args...)
 *
 * with the SysV lowering of its arguments: char and short promoted to i32, float
 * and half to double, small vectors coerced to one integer or double (char4 is an
 * i32, float2 a double), wider ones passed by value through a pointer
 * (`ptr byval(<3 x i64>)`). The record keeps each argument's bytes as passed, with
 * a descriptor of its kind and size; the format string says how to read them, and
 * it is read at print time from the program's code object, like every %s string,
 * so only addresses go into the record and nothing needs to travel beside the
 * object in a cache entry or program binary.
 *
 * The code replacing a call is branch-free:
 *
 *     buf  = ctx->printf_buffer                     (through the __kiln_ctx hook)
 *     ok   = buf != NULL
 *     old  = atomicrmw add (ok ? &buf->used : &sink), size
 *     ok  &= old + size <= (ok ? buf->capacity : 0)
 *     rec  = ok ? buf + KILN_PRINTF_DATA + old : sink
 *     stores of the record to rec
 *     result = ok ? 0 : -1
 *
 * where `sink` is a private alloca (one per function, as large as its largest
 * record): a call that does not fit writes there, so a full buffer never crashes
 * and never overwrites another record. Work-groups on different threads reserve
 * with the atomic add, so they print at once; a work-item's records follow its
 * program order.
 *
 * The stage runs before the work-group stage, which replaces the hook calls it
 * adds. It also marks every kernel that can reach printf (uses_printf), for the
 * runtime to give its commands a buffer.
 */
#include "link_stage.h"
#include "kiln_abi.h"

#include <llvm-c/Target.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PRINTF_NAME "printf"

/* What one argument of a printf call turns into: the value to store and its descriptor. */
struct arg {
    LLVMValueRef value;
    uint32_t desc;
    unsigned size;
};

static unsigned kind_of(LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        t = LLVMGetElementType(t);
    switch (LLVMGetTypeKind(t)) {
    case LLVMHalfTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
        return KILN_PRINTF_KIND_FLOAT;
    case LLVMPointerTypeKind:
        return KILN_PRINTF_KIND_POINTER;
    default:
        return KILN_PRINTF_KIND_INT;
    }
}

/* Argument i of call (operand i + 1 of printf), loaded from its byval slot if passed so. */
static bool read_arg(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef call, unsigned i,
                     struct arg *out)
{
    unsigned byval_kind = LLVMGetEnumAttributeKindForName("byval", 5);
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    LLVMValueRef v = LLVMGetOperand(call, i);
    LLVMAttributeRef byval = LLVMGetCallSiteEnumAttribute(call, i + 1, byval_kind);
    if (byval) {
        LLVMTypeRef t = LLVMGetTypeAttributeValue(byval);
        v = LLVMBuildLoad2(bld, t, v, "");
        LLVMSetAlignment(v, 1);
    }
    LLVMTypeRef t = LLVMTypeOf(v);
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
    case LLVMHalfTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
    case LLVMPointerTypeKind:
    case LLVMVectorTypeKind:
        break;
    default:
        return false;
    }
    unsigned long long size = LLVMStoreSizeOfType(td, t);
    if (size == 0 || size > 1024)
        return false;
    out->value = v;
    out->size = (unsigned)size;
    out->desc = kind_of(t) << 24 | (uint32_t)size;
    return true;
}

/* The ctx pointer as a plain pointer, through the __kiln_ctx hook. */
static LLVMValueRef ctx_pointer(struct kiln_cc_build *b, LLVMBuilderRef bld)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(b->ctx, 0);
    LLVMValueRef hook = LLVMGetNamedFunction(b->mod, KILN_CC_HOOK_CTX);
    if (!hook)
        hook = LLVMAddFunction(b->mod, KILN_CC_HOOK_CTX, LLVMFunctionType(ptr, NULL, 0, 0));
    LLVMTypeRef fn_type = LLVMGlobalGetValueType(hook);
    LLVMValueRef ctx = LLVMBuildCall2(bld, fn_type, hook, NULL, 0, "");
    if (LLVMTypeOf(ctx) != ptr)
        ctx = LLVMBuildAddrSpaceCast(bld, ctx, ptr, "");
    return ctx;
}

static LLVMValueRef byte_gep(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef base,
                             LLVMValueRef off)
{
    return LLVMBuildGEP2(bld, LLVMInt8TypeInContext(ctx), base, &off, 1, "");
}

static void store_at(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef rec, unsigned off,
                     LLVMValueRef v)
{
    LLVMValueRef at = LLVMConstInt(LLVMInt64TypeInContext(ctx), off, 0);
    LLVMValueRef st = LLVMBuildStore(bld, v, byte_gep(bld, ctx, rec, at));
    LLVMSetAlignment(st, 1);
}

/* One sink per function, as large as its largest record. */
struct sink {
    LLVMValueRef fn, alloca;
    size_t size;
};

struct sinks {
    struct sink *s;
    size_t n, cap;
};

/*
 * The sink of the function holding `call`, at least `size` bytes: a static alloca at the
 * top of its entry block. A larger record replaces the function's sink by a larger one,
 * so a kernel with many printf calls keeps one sink, not one per call (private memory
 * is scarce on fibers).
 */
static LLVMValueRef sink_for(struct kiln_cc_build *b, struct sinks *sinks, LLVMValueRef call,
                             size_t size)
{
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    struct sink *s = NULL;
    for (size_t i = 0; i < sinks->n; i++)
        if (sinks->s[i].fn == fn)
            s = &sinks->s[i];
    if (s && s->size >= size)
        return s->alloca;
    if (!s) {
        if (sinks->n == sinks->cap) {
            size_t cap = sinks->cap ? 2 * sinks->cap : 8;
            struct sink *more = realloc(sinks->s, cap * sizeof(*more));
            if (!more)
                return NULL;
            sinks->s = more;
            sinks->cap = cap;
        }
        s = &sinks->s[sinks->n++];
        *s = (struct sink){.fn = fn};
    }
    LLVMBuilderRef top = LLVMCreateBuilderInContext(b->ctx);
    LLVMPositionBuilderBefore(top, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
    LLVMValueRef a =
        LLVMBuildAlloca(top, LLVMArrayType2(LLVMInt8TypeInContext(b->ctx), size), "printf.sink");
    LLVMSetAlignment(a, 8);
    LLVMDisposeBuilder(top);
    if (s->alloca) {
        LLVMReplaceAllUsesWith(s->alloca, a);
        LLVMInstructionEraseFromParent(s->alloca);
    }
    s->alloca = a;
    s->size = size;
    return a;
}

static enum kiln_cc_status lower_call(struct kiln_cc_build *b, struct sinks *sinks,
                                      LLVMValueRef call)
{
    LLVMContextRef c = b->ctx;
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
    unsigned nargs = (unsigned)LLVMGetNumArgOperands(call);
    const char *fn = LLVMGetValueName(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
    struct arg *args = calloc(nargs ? nargs : 1, sizeof(*args));
    if (!args)
        return KILN_CC_OUT_OF_MEMORY;
    if (nargs == 0) {
        kiln_cc_log_printf(b->log, "error: '%s' calls printf without a format string\n", fn);
        free(args);
        return KILN_CC_BUILD_FAILED;
    }

    LLVMBuilderRef bld = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderBefore(bld, call);
    size_t size = KILN_PRINTF_RECORD_HEAD;
    for (unsigned i = 1; i < nargs; i++) {
        if (!read_arg(b, bld, call, i, &args[i])) {
            kiln_cc_log_printf(b->log,
                               "error: '%s' passes printf argument %u of a type Kiln cannot "
                               "print\n",
                               fn, i);
            LLVMDisposeBuilder(bld);
            free(args);
            return KILN_CC_BUILD_FAILED;
        }
        size += 4 + args[i].size;
    }
    size = (size + 7) / 8 * 8;

    LLVMValueRef sink = sink_for(b, sinks, call, size);
    if (!sink) {
        LLVMDisposeBuilder(bld);
        free(args);
        return KILN_CC_OUT_OF_MEMORY;
    }

    LLVMValueRef ctx = ctx_pointer(b, bld);
    LLVMValueRef field_off = LLVMConstInt(i64, offsetof(struct kiln_wg_ctx, printf_buffer), 0);
    LLVMValueRef buf = LLVMBuildLoad2(bld, ptr, byte_gep(bld, c, ctx, field_off), "printf.buf");
    LLVMSetAlignment(buf, 8);
    LLVMValueRef have = LLVMBuildIsNotNull(bld, buf, "");
    LLVMValueRef counter = LLVMBuildSelect(bld, have, buf, sink, "");
    LLVMValueRef sz = LLVMConstInt(i64, size, 0);
    LLVMValueRef old =
        LLVMBuildAtomicRMW(bld, LLVMAtomicRMWBinOpAdd, counter, sz, LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef cap_off = LLVMConstInt(i64, offsetof(struct kiln_printf_buffer, capacity), 0);
    LLVMValueRef cap_at = LLVMBuildSelect(bld, have, byte_gep(bld, c, buf, cap_off), sink, "");
    LLVMValueRef cap = LLVMBuildLoad2(bld, i64, cap_at, "");
    LLVMSetAlignment(cap, 8);
    cap = LLVMBuildSelect(bld, have, cap, LLVMConstInt(i64, 0, 0), "");
    /* old <= cap - size, without wrapping: size <= cap first. */
    LLVMValueRef room = LLVMBuildSub(bld, cap, sz, "");
    LLVMValueRef fits = LLVMBuildAnd(bld, LLVMBuildICmp(bld, LLVMIntULE, sz, cap, ""),
                                     LLVMBuildICmp(bld, LLVMIntULE, old, room, ""), "");
    LLVMValueRef ok = LLVMBuildAnd(bld, have, fits, "printf.ok");
    LLVMValueRef data_off = LLVMBuildAdd(bld, old, LLVMConstInt(i64, KILN_PRINTF_DATA, 0), "");
    LLVMValueRef rec = LLVMBuildSelect(bld, ok, byte_gep(bld, c, buf, data_off), sink, "");

    store_at(bld, c, rec, 0, LLVMConstInt(i32, size, 0));
    store_at(bld, c, rec, 4, LLVMConstInt(i32, nargs - 1, 0));
    store_at(bld, c, rec, 8, LLVMGetOperand(call, 0));
    unsigned at = KILN_PRINTF_RECORD_HEAD;
    for (unsigned i = 1; i < nargs; i++) {
        store_at(bld, c, rec, at, LLVMConstInt(i32, args[i].desc, 0));
        store_at(bld, c, rec, at + 4, args[i].value);
        at += 4 + args[i].size;
    }
    LLVMValueRef result = LLVMBuildSelect(bld, ok, LLVMConstInt(i32, 0, 0),
                                          LLVMConstInt(i32, (unsigned long long)-1, 1), "");
    if (LLVMTypeOf(call) == i32)
        LLVMReplaceAllUsesWith(call, result);
    else if (LLVMGetFirstUse(call))
        LLVMReplaceAllUsesWith(call, LLVMGetPoison(LLVMTypeOf(call)));
    LLVMInstructionEraseFromParent(call);
    LLVMDisposeBuilder(bld);
    free(args);
    return KILN_CC_OK;
}

/* A growing set of functions. */
struct fn_set {
    LLVMValueRef *fns;
    size_t n, cap;
};

static bool set_has(const struct fn_set *s, LLVMValueRef f)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->fns[i] == f)
            return true;
    return false;
}

static bool set_add(struct fn_set *s, LLVMValueRef f)
{
    if (set_has(s, f))
        return true;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        LLVMValueRef *more = realloc(s->fns, cap * sizeof(*more));
        if (!more)
            return false;
        s->fns = more;
        s->cap = cap;
    }
    s->fns[s->n++] = f;
    return true;
}

static LLVMValueRef function_of(LLVMValueRef user)
{
    if (!LLVMIsAInstruction(user))
        return NULL;
    return LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
}

/*
 * Adds to `s` every function that calls (or otherwise uses) a function already in
 * it, until nothing changes: then s holds whatever can reach printf.
 */
static bool close_callers(struct fn_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        for (LLVMUseRef u = LLVMGetFirstUse(s->fns[i]); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef f = function_of(LLVMGetUser(u));
            if (f && !set_add(s, f))
                return false;
        }
    }
    return true;
}

enum kiln_cc_status kiln_cc_lower_printf(struct kiln_cc_build *b)
{
    LLVMValueRef printf_fn = LLVMGetNamedFunction(b->mod, PRINTF_NAME);
    if (!printf_fn || !LLVMGetFirstUse(printf_fn))
        return KILN_CC_OK;
    if (!LLVMIsDeclaration(printf_fn)) {
        kiln_cc_log_append(b->log, "error: the program defines its own function 'printf'\n");
        return KILN_CC_BUILD_FAILED;
    }

    /* Which kernels reach printf, before the calls go away. */
    struct fn_set reach = {0};
    enum kiln_cc_status status = KILN_CC_OK;
    for (LLVMUseRef u = LLVMGetFirstUse(printf_fn); u && status == KILN_CC_OK;
         u = LLVMGetNextUse(u)) {
        LLVMValueRef f = function_of(LLVMGetUser(u));
        if (f && !set_add(&reach, f))
            status = KILN_CC_OUT_OF_MEMORY;
    }
    if (status == KILN_CC_OK && !close_callers(&reach))
        status = KILN_CC_OUT_OF_MEMORY;
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        b->prog->kernels[k].uses_printf = set_has(&reach, b->kernel_fns[k]);
    free(reach.fns);

    /* The calls; any other use (its address taken) is refused. */
    struct sinks sinks = {0};
    while (status == KILN_CC_OK) {
        LLVMUseRef u = LLVMGetFirstUse(printf_fn);
        if (!u)
            break;
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != printf_fn) {
            kiln_cc_log_append(b->log,
                               "error: printf is used other than by a direct call; Kiln can "
                               "only print through direct calls\n");
            status = KILN_CC_BUILD_FAILED;
            break;
        }
        status = lower_call(b, &sinks, user);
    }
    free(sinks.s);
    if (status == KILN_CC_OK)
        LLVMDeleteFunction(printf_fn);
    return status;
}
