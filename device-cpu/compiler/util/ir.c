/*
 * Questions about LLVM IR that several stages ask (cc_util.h): which opcodes are plain
 * arithmetic, and the entries of loop metadata.
 */
#include "cc_util.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

bool kiln_cc_plain_opcode(LLVMOpcode op)
{
    switch (op) {
    case LLVMAdd:
    case LLVMFAdd:
    case LLVMSub:
    case LLVMFSub:
    case LLVMMul:
    case LLVMFMul:
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMFDiv:
    case LLVMURem:
    case LLVMSRem:
    case LLVMFRem:
    case LLVMShl:
    case LLVMLShr:
    case LLVMAShr:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMFNeg:
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMFPToUI:
    case LLVMFPToSI:
    case LLVMUIToFP:
    case LLVMSIToFP:
    case LLVMFPTrunc:
    case LLVMFPExt:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMBitCast:
    case LLVMAddrSpaceCast:
    case LLVMICmp:
    case LLVMFCmp:
    case LLVMSelect:
    case LLVMGetElementPtr:
        return true;
    default:
        return false;
    }
}

bool kiln_cc_md_string_is(LLVMValueRef v, const char *s)
{
    unsigned len = 0;
    const char *str = v ? LLVMGetMDString(v, &len) : NULL;
    return str && len == strlen(s) && memcmp(str, s, len) == 0;
}

LLVMValueRef *kiln_cc_md_operands(LLVMValueRef node, unsigned *n)
{
    *n = LLVMGetMDNodeNumOperands(node);
    LLVMValueRef *ops = calloc(*n ? *n : 1, sizeof(*ops));
    if (ops)
        LLVMGetMDNodeOperands(node, ops);
    return ops;
}

LLVMValueRef kiln_cc_loop_entry(LLVMValueRef id, const char *name)
{
    unsigned n;
    LLVMValueRef found = NULL;
    LLVMValueRef *ops = kiln_cc_md_operands(id, &n);
    for (unsigned i = 1; ops && i < n && !found; i++) {
        if (!ops[i] || !LLVMIsAMDNode(ops[i]) || LLVMGetMDNodeNumOperands(ops[i]) < 1)
            continue;
        unsigned m;
        LLVMValueRef *inner = kiln_cc_md_operands(ops[i], &m);
        if (inner && kiln_cc_md_string_is(inner[0], name))
            found = ops[i];
        free(inner);
    }
    free(ops);
    return found;
}

LLVMMetadataRef kiln_cc_parallel_loop_id(LLVMContextRef ctx, LLVMMetadataRef group)
{
    static const char pa[] = "llvm.loop.parallel_accesses";
    LLVMMetadataRef pa_ops[2] = {LLVMMDStringInContext2(ctx, pa, sizeof(pa) - 1), group};
    LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, NULL, 0);
    LLVMMetadataRef ops[2] = {self, LLVMMDNodeInContext2(ctx, pa_ops, 2)};
    LLVMMetadataRef id = LLVMMDNodeInContext2(ctx, ops, 2);
    /* Makes the node refer to itself, which also makes it distinct. */
    LLVMMetadataReplaceAllUsesWith(self, id);
    return id;
}

/*
 * Gives the loop of `br` a new id (or its first): its entries but those named in `drop`, plus
 * `extra`.
 * False when out of memory.
 */
bool kiln_cc_loop_id_replace(LLVMContextRef ctx, LLVMValueRef br, const char *const *drop,
                             size_t ndrop, const LLVMMetadataRef *extra, size_t nextra)
{
    unsigned loop_kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    LLVMValueRef id = LLVMGetMetadata(br, loop_kind);
    unsigned n = 0;
    /* A loop without an id gets one. */
    LLVMValueRef *ops = id ? kiln_cc_md_operands(id, &n) : malloc(sizeof(*ops));
    LLVMMetadataRef *keep = malloc((n + nextra + 1) * sizeof(*keep));
    size_t k = 0;

    if (!ops || !keep) {
        free(ops);
        free(keep);
        return false;
    }
    LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, NULL, 0);
    keep[k++] = self;
    for (unsigned i = 1; i < n; i++) {
        bool dropped = false;
        if (ops[i] && LLVMIsAMDNode(ops[i]) && LLVMGetMDNodeNumOperands(ops[i]) >= 1) {
            unsigned m;
            LLVMValueRef *inner = kiln_cc_md_operands(ops[i], &m);
            for (size_t d = 0; inner && d < ndrop; d++)
                dropped |= kiln_cc_md_string_is(inner[0], drop[d]);
            free(inner);
        }
        if (!dropped && ops[i])
            keep[k++] = LLVMValueAsMetadata(ops[i]);
    }
    for (size_t i = 0; i < nextra; i++)
        keep[k++] = extra[i];
    LLVMMetadataRef new_id = LLVMMDNodeInContext2(ctx, keep, k);
    LLVMMetadataReplaceAllUsesWith(self, new_id);
    LLVMSetMetadata(br, loop_kind, LLVMMetadataAsValue(ctx, new_id));
    free(keep);
    free(ops);
    return true;
}

void kiln_cc_remap_operands(LLVMValueRef in, const struct kiln_cc_ptr_map *map)
{
    int n = LLVMGetNumOperands(in);
    for (int k = 0; k < n; k++) {
        LLVMValueRef op = LLVMGetOperand(in, (unsigned)k);
        LLVMValueRef m = op ? kiln_cc_ptr_map_get(map, op) : NULL;
        if (m)
            LLVMSetOperand(in, (unsigned)k, m);
    }
}

LLVMValueRef kiln_cc_called_function(LLVMValueRef in)
{
    if (!LLVMIsACallInst(in))
        return NULL;
    LLVMValueRef f = LLVMGetCalledValue(in);
    return f && LLVMIsAFunction(f) ? f : NULL;
}

bool kiln_cc_pure_intrinsic(LLVMValueRef call)
{
    LLVMValueRef f = kiln_cc_called_function(call);
    if (!f || !LLVMGetIntrinsicID(f))
        return false;
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, memory);
    return a && LLVMGetEnumAttributeValue(a) == 0; /* memory(none) */
}
