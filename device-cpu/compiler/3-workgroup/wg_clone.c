/*
 * The region transform's cloning (wg_transform.c, step 4, for wg_rebuild.c): the blocks of
 * one region copied into its loop nest, with the work-item ids, the slots and the ways out
 * of the copy rewritten for the work-item the nest is at.
 */
#include "wg_regions.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static LLVMValueRef local_id(LLVMBuilderRef bld, LLVMContextRef ctx, const LLVMValueRef lid[3],
                             LLVMValueRef dim)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
    if (LLVMIsAConstantInt(dim)) {
        unsigned long long d = LLVMConstIntGetZExtValue(dim);
        return d < 3 ? lid[d] : LLVMConstInt(i64, 0, 0);
    }
    LLVMValueRef v = LLVMConstInt(i64, 0, 0);
    for (int d = 2; d >= 0; d--) {
        LLVMValueRef is_d =
            LLVMBuildICmp(bld, LLVMIntEQ, dim, LLVMConstInt(LLVMTypeOf(dim), (unsigned)d, 0), "");
        v = LLVMBuildSelect(bld, is_d, lid[d], v, "");
    }
    return v;
}

/* Leaves the clone of a region for the next work-item, naming region `target`. */
static void leave(struct regions *r, LLVMBuilderRef bld, const struct region_loop *loop,
                  unsigned target)
{
    if (loop->dynamic) {
        LLVMValueRef st = LLVMBuildStore(
            bld, LLVMConstInt(LLVMInt32TypeInContext(r->ctx), target, 0), loop->next_slot);
        LLVMSetAlignment(st, 4);
        LLVMSetMetadata(st, LLVMGetMDKindIDInContext(r->ctx, "llvm.access.group", 17),
                        LLVMMetadataAsValue(r->ctx, r->group));
        kiln_cc_regions_tag_access(r, st, NAMES_SLOT(r));
    }
    LLVMBuildBr(bld, loop->latch);
}

/* Clones the blocks of region `reg` (marked in `in_region`) into its loop body. */
enum kiln_cc_status kiln_cc_regions_clone(struct regions *r, unsigned reg,
                                          const unsigned char *in_region,
                                          const struct region_loop *loop, LLVMValueRef *slot_ptr)
{
    struct kiln_cc_ptr_map map = {0}, derived = {0};
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(r->ctx);
    unsigned ag_kind = LLVMGetMDKindIDInContext(r->ctx, "llvm.access.group", 17);
    LLVMValueRef tag = LLVMMetadataAsValue(r->ctx, r->group);
    LLVMValueRef hook_lid = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LOCAL_ID);
    LLVMValueRef hook_ctx = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_CTX);
    LLVMValueRef hook_leader = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LEADER);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    unsigned done = r->num_barriers + 1;

    for (size_t s = 0; s < r->num_slots; s++)
        if (!kiln_cc_ptr_map_put(&map, r->slots[s], slot_ptr[s]) ||
            !kiln_cc_ptr_map_put(&derived, slot_ptr[s], (void *)(uintptr_t)(s + 1)))
            goto out;
    for (size_t s = 0; s < r->num_snaps; s++)
        if (!kiln_cc_ptr_map_put(&map, r->snaps[s], r->snap_copy[s]))
            goto out;
    for (size_t i = 0; i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        LLVMBasicBlockRef nb = LLVMInsertBasicBlockInContext(r->ctx, loop->latch, "");
        if (!kiln_cc_ptr_map_put(&map, r->blocks[i], nb))
            goto out;
    }
    LLVMPositionBuilderAtEnd(bld, loop->body);
    for (size_t s = 0; s < r->num_snaps; s++)
        LLVMBuildStore(bld, loop->snap_vals[s], r->snap_copy[s]);
    LLVMBasicBlockRef start = kiln_cc_ptr_map_get(&map, r->blocks[r->region_start[reg]]);
    if (loop->skip)
        LLVMBuildCondBr(bld, loop->skip, loop->latch, start);
    else
        LLVMBuildBr(bld, start);

    for (size_t i = 0; i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        LLVMPositionBuilderAtEnd(bld, kiln_cc_ptr_map_get(&map, r->blocks[i]));
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in)) {
            LLVMValueRef f = kiln_cc_called_function(in);
            if (f && kiln_cc_is_barrier(f)) {
                leave(r, bld, loop, kiln_cc_regions_barrier_of_block(r, (unsigned)i) + 1);
                break;
            }
            if (LLVMGetInstructionOpcode(in) == LLVMRet) {
                leave(r, bld, loop, done);
                break;
            }
            if (f && f == hook_lid) {
                LLVMValueRef dim = LLVMGetOperand(in, 0);
                LLVMValueRef m = kiln_cc_ptr_map_get(&map, dim);
                if (!kiln_cc_ptr_map_put(&map, in, local_id(bld, r->ctx, loop->lid, m ? m : dim)))
                    goto out;
                continue;
            }
            if (f && f == hook_leader) {
                if (!kiln_cc_ptr_map_put(&map, in, loop->leader))
                    goto out;
                continue;
            }
            if (f && f == hook_ctx) {
                LLVMValueRef c = LLVMGetParam(r->w, 1);
                if (LLVMTypeOf(c) != LLVMTypeOf(in))
                    c = LLVMBuildAddrSpaceCast(bld, c, LLVMTypeOf(in), "");
                if (!kiln_cc_ptr_map_put(&map, in, c))
                    goto out;
                continue;
            }
            if (kiln_cc_is_lifetime_marker(in) ||
                (f && strncmp(LLVMGetValueName(f), "llvm.dbg.", 9) == 0))
                continue;
            LLVMValueRef c = LLVMInstructionClone(in);
            LLVMInsertIntoBuilder(bld, c);
            int nops = LLVMGetNumOperands(c);
            for (int j = 0; j < nops; j++) {
                LLVMValueRef op = LLVMGetOperand(c, (unsigned)j);
                if (!op)
                    continue;
                if (LLVMValueIsBasicBlock(op)) {
                    LLVMBasicBlockRef to = kiln_cc_ptr_map_get(&map, LLVMValueAsBasicBlock(op));
                    if (to)
                        LLVMSetOperand(c, (unsigned)j, LLVMBasicBlockAsValue(to));
                    continue;
                }
                LLVMValueRef to = kiln_cc_ptr_map_get(&map, op);
                if (to)
                    LLVMSetOperand(c, (unsigned)j, to);
            }
            if (!kiln_cc_ptr_map_put(&map, in, c))
                goto out;
            /* Accesses of this work-item's own slots join the parallel access group. */
            if (LLVMIsAGetElementPtrInst(c) || LLVMIsABitCastInst(c)) {
                void *slot = kiln_cc_ptr_map_get(&derived, LLVMGetOperand(c, 0));
                if (slot && !kiln_cc_ptr_map_put(&derived, c, slot))
                    goto out;
            } else if (LLVMIsALoadInst(c) || LLVMIsAStoreInst(c)) {
                LLVMValueRef p = LLVMGetOperand(c, LLVMIsALoadInst(c) ? 0 : 1);
                size_t slot = (size_t)(uintptr_t)kiln_cc_ptr_map_get(&derived, p);
                if (slot && !LLVMGetVolatile(c) &&
                    LLVMGetOrdering(c) == LLVMAtomicOrderingNotAtomic)
                    LLVMSetMetadata(c, ag_kind, tag);
                kiln_cc_regions_tag_access(r, c, slot);
            }
        }
    }
    status = KILN_CC_OK;
out:
    LLVMDisposeBuilder(bld);
    kiln_cc_ptr_map_free(&map);
    kiln_cc_ptr_map_free(&derived);
    return status;
}
