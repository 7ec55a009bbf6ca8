/*
 * Copy stage: a work-group copy into local memory readies the destination of the copy
 * out that follows it.
 *
 * A kernel that stages a tile through local memory copies it in with
 * async_work_group_copy, works on it, and copies a result out the same way. The work-items
 * of a group run on one thread, so the input arrives in one burst and the output's cache
 * lines (which a store must own first) are asked for in another, after the work: each
 * stream waits for memory while the other is idle. When the destination and length of the
 * copy out can be computed where the copy in is made, this stage replaces the copy in by
 * __kiln_copy_in_ahead (kernel-lib/async/async.cl), which copies the same bytes and
 * prefetches the copy out's destination for writing, one line per line copied.
 *
 * Runs on the user's module before the library is linked, so that the linker brings in
 * __kiln_copy_in_ahead, and so before any optimisation: the IR still keeps variables in
 * allocas. A value of the copy out is computed at the copy in from:
 *  - constants, arguments, and instructions of the entry block that come before the copy in;
 *  - a load of an alloca that is stored once, in the entry block, before the copy in, and
 *    otherwise only loaded (its lifetime markers apart): the value stored;
 *  - getelementptr, casts, add, sub, mul, shl, and, or, xor of such values, and the
 *    work-item queries (get_group_id and the like), cloned before the copy in without
 *    their no-wrap and inbounds flags, so that no clone can be poison.
 * Every copy in is paired with the first unpaired copy out that follows it in the function;
 * both must be contiguous copies (async_work_group_copy). Everything else is left as it
 * is: the pairing is a hint, and prefetching a line the kernel then does not write costs
 * bandwidth only. -cl-opt-disable turns the stage off.
 *
 * The copy's event: a copy returns the event it was given (async.cl), so the uses of the
 * replaced call take its event argument instead.
 */
#include "link_stage.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The Itanium names of the contiguous copies, up to the element type. */
#define COPY_IN_PREFIX  "_Z21async_work_group_copyPU7CLlocal"
#define COPY_OUT_PREFIX "_Z21async_work_group_copyPU8CLglobal"
#define COPY_AHEAD_NAME "__kiln_copy_in_ahead"

/* How many instructions one value of the copy out may need cloned. */
#define CLONE_BUDGET 32

/* The work-item queries: the same for every call in a work-item, and free of effects. */
static const char *const id_queries[] = {
    "_Z12get_group_idj",      "_Z13get_global_idj",           "_Z12get_local_idj",
    "_Z14get_local_sizej",    "_Z15get_global_sizej",         "_Z14get_num_groupsj",
    "_Z17get_global_offsetj", "_Z23get_enqueued_local_sizej", "_Z12get_work_dimv",
};

/*
 * Bytes of the element whose Itanium code starts `s` (the copy's type), 3-component
 * vectors counting 4 as the copies do; 0 for anything else.
 */
static unsigned element_size(const char *s)
{
    unsigned lanes = 1;
    if (strncmp(s, "Dv", 2) == 0) {
        char *end;
        unsigned long n = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end != '_' || n < 2 || n > 16)
            return 0;
        lanes = n == 3 ? 4 : (unsigned)n;
        s = end + 1;
    }
    unsigned scalar;
    switch (*s) {
    case 'a':
    case 'c':
    case 'h':
        scalar = 1;
        break;
    case 's':
    case 't':
        scalar = 2;
        break;
    case 'i':
    case 'j':
    case 'f':
        scalar = 4;
        break;
    case 'l':
    case 'm':
    case 'd':
        scalar = 8;
        break;
    case 'D':
        scalar = s[1] == 'h' ? 2 : 0;
        break;
    default:
        scalar = 0;
    }
    return lanes * scalar;
}

/* A contiguous copy: +1 into local memory, -1 out of it, 0 for any other instruction. */
static int copy_kind(LLVMValueRef in, unsigned *size)
{
    if (LLVMGetInstructionOpcode(in) != LLVMCall)
        return 0;
    LLVMValueRef fn = LLVMGetCalledValue(in);
    if (!fn || !LLVMIsAFunction(fn) || LLVMGetNumArgOperands(in) != 4)
        return 0;
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    size_t in_len = strlen(COPY_IN_PREFIX), out_len = strlen(COPY_OUT_PREFIX);
    if (len > in_len && strncmp(name, COPY_IN_PREFIX, in_len) == 0)
        return (*size = element_size(name + in_len)) ? 1 : 0;
    if (len > out_len && strncmp(name, COPY_OUT_PREFIX, out_len) == 0)
        return (*size = element_size(name + out_len)) ? -1 : 0;
    return 0;
}

struct ahead {
    LLVMBuilderRef bld; /* positioned before the copy in */
    LLVMValueRef at;    /* the copy in */
    LLVMBasicBlockRef entry;
    unsigned budget;
};

/* Whether a comes before b in their (common) block. */
static bool precedes(LLVMValueRef a, LLVMValueRef b)
{
    for (LLVMValueRef i = LLVMGetNextInstruction(a); i; i = LLVMGetNextInstruction(i))
        if (i == b)
            return true;
    return false;
}

/* Whether v can be used as it is at the copy in. */
static bool available(const struct ahead *h, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v))
        return true;
    if (LLVMGetInstructionParent(v) != h->entry)
        return false;
    return LLVMGetInstructionParent(h->at) != h->entry || precedes(v, h->at);
}

/* The value stored in an alloca that is stored once, in the entry block, before the copy
 * in, and otherwise only loaded; NULL for any other alloca. */
static LLVMValueRef stored_once(const struct ahead *h, LLVMValueRef slot)
{
    if (LLVMGetInstructionParent(slot) != h->entry)
        return NULL;
    LLVMValueRef store = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user))
            return NULL;
        LLVMOpcode op = LLVMGetInstructionOpcode(user);
        if (op == LLVMLoad)
            continue;
        if (op == LLVMStore && LLVMGetOperand(user, 1) == slot && LLVMGetOperand(user, 0) != slot &&
            !store) {
            store = user;
            continue;
        }
        if (op == LLVMCall && LLVMIsAIntrinsicInst(user)) {
            size_t len;
            const char *name = LLVMGetValueName2(LLVMGetCalledValue(user), &len);
            if (strncmp(name, "llvm.lifetime.", 14) == 0)
                continue;
        }
        return NULL;
    }
    if (!store || LLVMGetVolatile(store) || !available(h, store))
        return NULL;
    return LLVMGetOperand(store, 0);
}

static bool is_id_query(LLVMValueRef call)
{
    LLVMValueRef fn = LLVMGetCalledValue(call);
    if (!fn || !LLVMIsAFunction(fn))
        return false;
    const char *name = LLVMGetValueName(fn);
    for (size_t i = 0; i < sizeof(id_queries) / sizeof(id_queries[0]); i++)
        if (strcmp(name, id_queries[i]) == 0)
            return true;
    return false;
}

/* v, computed at the copy in: v itself, a stored value or a clone; NULL if it cannot be. */
static LLVMValueRef resolve(struct ahead *h, LLVMValueRef v)
{
    if (available(h, v))
        return v;
    if (h->budget == 0)
        return NULL;
    h->budget--;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    unsigned n = (unsigned)LLVMGetNumOperands(v), cloned = n;
    switch (op) {
    case LLVMLoad: {
        LLVMValueRef slot = LLVMGetOperand(v, 0);
        if (!LLVMIsAAllocaInst(slot) || LLVMGetVolatile(v))
            return NULL;
        LLVMValueRef stored = stored_once(h, slot);
        return stored && LLVMTypeOf(stored) == LLVMTypeOf(v) ? resolve(h, stored) : NULL;
    }
    case LLVMCall:
        if (!is_id_query(v))
            return NULL;
        cloned = n - 1; /* the arguments; the last operand is the function */
        break;
    case LLVMGetElementPtr:
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMTrunc:
    case LLVMBitCast:
    case LLVMAddrSpaceCast:
        break;
    default:
        return NULL;
    }
    LLVMValueRef ops[8];
    if (cloned > sizeof(ops) / sizeof(ops[0]))
        return NULL;
    for (unsigned i = 0; i < cloned; i++)
        if (!(ops[i] = resolve(h, LLVMGetOperand(v, i))))
            return NULL;
    LLVMValueRef copy = LLVMInstructionClone(v);
    for (unsigned i = 0; i < cloned; i++)
        LLVMSetOperand(copy, i, ops[i]);
    if (op == LLVMGetElementPtr)
        LLVMSetIsInBounds(copy, 0);
    if (op == LLVMAdd || op == LLVMSub || op == LLVMMul || op == LLVMShl) {
        LLVMSetNUW(copy, 0);
        LLVMSetNSW(copy, 0);
    }
    LLVMInsertIntoBuilder(h->bld, copy);
    return copy;
}

static LLVMValueRef ahead_function(struct kiln_cc_build *b)
{
    LLVMValueRef fn = LLVMGetNamedFunction(b->mod, COPY_AHEAD_NAME);
    if (fn)
        return fn;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(b->ctx);
    LLVMTypeRef local = LLVMPointerTypeInContext(b->ctx, 3);
    LLVMTypeRef global = LLVMPointerTypeInContext(b->ctx, 1);
    LLVMTypeRef params[] = {local, global, i64, global, i64};
    return LLVMAddFunction(b->mod, COPY_AHEAD_NAME,
                           LLVMFunctionType(LLVMVoidTypeInContext(b->ctx), params, 5, 0));
}

/* Replaces the copy in `in` (of in_size-byte elements) when the copy out `out` can be
 * computed before it; returns whether it did. */
static bool pair(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef in, unsigned in_size,
                 LLVMValueRef out, unsigned out_size)
{
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(in));
    struct ahead h = {bld, in, LLVMGetEntryBasicBlock(fn), CLONE_BUDGET};
    LLVMTypeRef i64 = LLVMInt64TypeInContext(b->ctx);

    LLVMPositionBuilderBefore(bld, in);
    LLVMValueRef dst = resolve(&h, LLVMGetOperand(out, 0));
    LLVMValueRef count = dst ? resolve(&h, LLVMGetOperand(out, 2)) : NULL;
    if (!count || LLVMTypeOf(count) != i64 || LLVMTypeOf(LLVMGetOperand(in, 2)) != i64)
        return false; /* clones made on the way are dead and go in the optimisation */
    LLVMValueRef args[] = {
        LLVMGetOperand(in, 0),
        LLVMGetOperand(in, 1),
        LLVMBuildMul(bld, LLVMGetOperand(in, 2), LLVMConstInt(i64, in_size, 0), "copy.bytes"),
        dst,
        LLVMBuildMul(bld, count, LLVMConstInt(i64, out_size, 0), "copy.ahead.bytes"),
    };
    LLVMValueRef ahead = ahead_function(b);
    LLVMBuildCall2(bld, LLVMGlobalGetValueType(ahead), ahead, args, 5, "");
    LLVMReplaceAllUsesWith(in, LLVMGetOperand(in, 3));
    LLVMInstructionEraseFromParent(in);
    return true;
}

/* Pairs the copies of one function. */
static void pair_function(struct kiln_cc_build *b, LLVMBuilderRef bld, LLVMValueRef fn)
{
    enum { MAX_COPIES = 64 };
    LLVMValueRef calls[MAX_COPIES];
    int kinds[MAX_COPIES];
    unsigned sizes[MAX_COPIES], n = 0;
    bool used[MAX_COPIES] = {false};

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            unsigned size;
            int kind = copy_kind(in, &size);
            if (!kind)
                continue;
            if (n == MAX_COPIES)
                return; /* a function this busy with copies is left as it is */
            calls[n] = in;
            kinds[n] = kind;
            sizes[n++] = size;
        }
    for (unsigned i = 0; i < n; i++) {
        if (kinds[i] != 1)
            continue;
        for (unsigned j = i + 1; j < n; j++) {
            if (kinds[j] != -1 || used[j])
                continue;
            used[j] = pair(b, bld, calls[i], sizes[i], calls[j], sizes[j]);
            break;
        }
    }
}

enum kiln_cc_status kiln_cc_copy_ahead(struct kiln_cc_build *b)
{
    if (b->opts->opt_disable)
        return KILN_CC_OK;
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(b->ctx);
    if (!bld)
        return KILN_CC_OUT_OF_MEMORY;
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn))
            pair_function(b, bld, fn);
    LLVMDisposeBuilder(bld);
    /* Copy functions no longer called would still be linked in. */
    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod), next; fn; fn = next) {
        next = LLVMGetNextFunction(fn);
        if (LLVMIsDeclaration(fn) && !LLVMGetFirstUse(fn)) {
            size_t len;
            const char *name = LLVMGetValueName2(fn, &len);
            if (strncmp(name, COPY_IN_PREFIX, strlen(COPY_IN_PREFIX)) == 0)
                LLVMDeleteFunction(fn);
        }
    }
    return KILN_CC_OK;
}
