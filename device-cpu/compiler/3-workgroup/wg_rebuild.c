/*
 * The region transform's rebuild (wg_regions.c, step 4): each region becomes a z/y/x loop
 * nest over the group's work-items with its blocks cloned inside, regions are chained
 * directly or through a dispatcher, and the template blocks are dropped.
 */
#include "wg_regions.h"
#include "kiln_abi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The loop nest of one region, and what its clone needs. */
struct region_loop {
    LLVMBasicBlockRef pre, body, latch;
    LLVMValueRef lid[3];
    LLVMValueRef next_slot;  /* this work-item's slot naming the next region */
    LLVMValueRef leader;     /* what __kiln_group_leader() answers in this clone */
    LLVMValueRef skip;       /* i1: the leader, already run before the loop; or NULL */
    LLVMValueRef *snap_vals; /* r->snaps' values when the region began */
    bool dynamic;
};

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

static unsigned barrier_of_block(const struct regions *r, unsigned blk)
{
    for (unsigned i = 0; i < r->num_barriers; i++)
        if (r->bar_block[i] == blk)
            return i;
    return 0;
}

/* Clones the blocks of region `reg` (marked in `in_region`) into its loop body. */
static enum kiln_cc_status clone_region(struct regions *r, unsigned reg,
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
                leave(r, bld, loop, barrier_of_block(r, (unsigned)i) + 1);
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

/* Whether a block of the region (marked in `in_region`) calls __kiln_group_leader(). */
static bool asks_leader(const struct regions *r, const unsigned char *in_region)
{
    LLVMValueRef hook = LLVMGetNamedFunction(r->b->mod, KILN_CC_HOOK_LEADER);
    for (size_t i = 0; hook && i < r->num_blocks; i++) {
        if (!in_region[i])
            continue;
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            if (kiln_cc_called_function(in) == hook)
                return true;
    }
    return false;
}

/* Builds the loop nests, the dispatcher and the clones, then drops the template. */
enum kiln_cc_status kiln_cc_regions_rebuild(struct regions *r, struct kiln_cc_kernel *info)
{
    LLVMContextRef ctx = r->ctx;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
    unsigned nr = r->num_barriers + 1, done = nr;
    size_t n = r->num_blocks;
    struct region_loop *loops = calloc(nr, sizeof(*loops));
    unsigned char *in_region = calloc(n + 1, 1);
    LLVMValueRef *bases = calloc(r->num_slots + 1, sizeof(*bases));
    LLVMValueRef *slot_ptr = calloc(r->num_slots + 1, sizeof(*slot_ptr));
    unsigned *exit_to = calloc(nr, sizeof(*exit_to));
    LLVMValueRef *snap_vals = calloc((size_t)nr * r->num_snaps + 1, sizeof(*snap_vals));
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    r->snap_copy = calloc(r->num_snaps + 1, sizeof(*r->snap_copy));
    if (!loops || !in_region || !bases || !slot_ptr || !exit_to || !snap_vals || !r->snap_copy)
        goto out;
    LLVMValueRef wctx = LLVMGetParam(r->w, 1);

    /* The prologue, once per group: sizes, scratch bases, the snapshots' stand-ins. */
    LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(r->entry));
    LLVMPositionBuilderAtEnd(bld, r->entry);
    for (size_t s = 0; s < r->num_snaps; s++) {
        r->snap_copy[s] = LLVMBuildAlloca(bld, LLVMGetAllocatedType(r->snaps[s]), "");
        LLVMSetAlignment(r->snap_copy[s], LLVMGetAlignment(r->snaps[s]));
    }
    LLVMPositionBuilderAtEnd(bld, r->entry);
    LLVMValueRef size[3];
    for (int d = 0; d < 3; d++)
        size[d] = kiln_cc_local_size(r->b, info, bld, wctx, d);
    LLVMValueRef items = LLVMBuildMul(bld, LLVMBuildMul(bld, size[0], size[1], ""), size[2], "");
    LLVMValueRef scratch =
        kiln_cc_ctx_field(bld, ctx, wctx, offsetof(struct kiln_wg_ctx, scratch), ptr, "");
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef off = LLVMBuildMul(bld, items, LLVMConstInt(i64, r->slot_offset[s], 0), "");
        bases[s] = LLVMBuildInBoundsGEP2(bld, i8, scratch, &off, 1, "slots");
    }
    /* After the slots, an i32 per work-item: the region it goes to next. */
    size_t next_offset = (r->per_item + 3) / 4 * 4;
    LLVMValueRef next_off = LLVMBuildMul(bld, items, LLVMConstInt(i64, next_offset, 0), "");
    LLVMValueRef next_base = LLVMBuildInBoundsGEP2(bld, i8, scratch, &next_off, 1, "next");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, r->w, "exit");
    LLVMBasicBlockRef dispatch = LLVMAppendBasicBlockInContext(ctx, r->w, "dispatch");

    for (unsigned g = 0; g < nr; g++) {
        if (!kiln_cc_regions_reach(r, r->region_start[g], false, true, in_region))
            goto out;
        /* Where this region can go: one target, or several. */
        unsigned target = UINT32_MAX;
        bool dynamic = false;
        for (size_t i = 0; i < n; i++) {
            if (!in_region[i])
                continue;
            unsigned t;
            if (kiln_cc_regions_is_barrier_block(r, (unsigned)i))
                t = barrier_of_block(r, (unsigned)i) + 1;
            else if (LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet)
                t = done;
            else
                continue;
            if (target != UINT32_MAX && target != t)
                dynamic = true;
            target = t;
        }
        /* Every work-item leaves the same way: one name for the group, not one each. */
        bool one_name = r->divergent != NULL;
        for (size_t i = 0; i < n && dynamic; i++)
            if (in_region[i] && r->divergent[i] &&
                (kiln_cc_regions_is_barrier_block(r, (unsigned)i) ||
                 LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet))
                one_name = false;
        struct region_loop *lp = &loops[g];
        lp->dynamic = dynamic;
        lp->leader = LLVMConstInt(i32, 0, 0);
        lp->skip = NULL;
        bool leader_first = asks_leader(r, in_region);
        exit_to[g] = dynamic ? UINT32_MAX : (target == UINT32_MAX ? done : target);

        /* z/y/x nest over this group's local size. */
        static const char *const hdr_names[3] = {"x.loop", "y.loop", "z.loop"};
        static const char *const latch_names[3] = {"x.latch", "y.latch", "z.latch"};
        LLVMBasicBlockRef hdr[3], latch[3];
        lp->pre = LLVMInsertBasicBlockInContext(ctx, dispatch, "region");
        for (int d = 2; d >= 0; d--)
            hdr[d] = LLVMInsertBasicBlockInContext(ctx, dispatch, hdr_names[d]);
        for (int d = 0; d < 3; d++)
            latch[d] = LLVMInsertBasicBlockInContext(ctx, dispatch, latch_names[d]);
        LLVMBasicBlockRef after = LLVMInsertBasicBlockInContext(ctx, dispatch, "region.end");
        lp->body = hdr[0];
        lp->latch = latch[0];
        LLVMPositionBuilderAtEnd(bld, lp->pre);
        LLVMBuildBr(bld, hdr[2]);
        LLVMBasicBlockRef from = lp->pre;
        for (int d = 2; d >= 0; d--) {
            LLVMPositionBuilderAtEnd(bld, hdr[d]);
            lp->lid[d] = LLVMBuildPhi(bld, i64, hdr_names[d]);
            LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
            LLVMAddIncoming(lp->lid[d], &zero, &from, 1);
            if (d > 0)
                LLVMBuildBr(bld, hdr[d - 1]);
            from = hdr[d];
        }
        /* In x.loop: this work-item's slots. */
        LLVMValueRef wi = LLVMBuildAdd(
            bld,
            LLVMBuildMul(
                bld, LLVMBuildAdd(bld, LLVMBuildMul(bld, lp->lid[2], size[1], ""), lp->lid[1], ""),
                size[0], ""),
            lp->lid[0], "wi");
        for (size_t s = 0; s < r->num_slots; s++) {
            LLVMValueRef off = LLVMBuildMul(bld, wi, LLVMConstInt(i64, r->slot_size[s], 0), "");
            slot_ptr[s] = LLVMBuildInBoundsGEP2(bld, i8, bases[s], &off, 1, "slot");
        }
        if (dynamic)
            lp->next_slot = one_name
                                ? next_base
                                : LLVMBuildInBoundsGEP2(bld, i32, next_base, &wi, 1, "next.slot");
        if (leader_first)
            lp->skip = LLVMBuildICmp(bld, LLVMIntEQ, wi, LLVMConstInt(i64, 0, 0), "led");
        for (int d = 0; d < 3; d++) {
            LLVMPositionBuilderAtEnd(bld, latch[d]);
            LLVMValueRef step = LLVMBuildNUWAdd(bld, lp->lid[d], LLVMConstInt(i64, 1, 0), "");
            LLVMValueRef more = LLVMBuildICmp(bld, LLVMIntULT, step, size[d], "");
            LLVMValueRef br = LLVMBuildCondBr(bld, more, hdr[d], d == 2 ? after : latch[d + 1]);
            LLVMAddIncoming(lp->lid[d], &step, &latch[d], 1);
            if (d == 0)
                LLVMSetMetadata(br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9),
                                LLVMMetadataAsValue(ctx, kiln_cc_parallel_loop_id(ctx, r->group)));
        }
        LLVMBasicBlockRef entry = lp->pre;
        if (r->num_snaps) {
            /* The snapshots' values as the region begins, before any work-item's turn. */
            entry = LLVMInsertBasicBlockInContext(ctx, lp->pre, "snapshot");
            LLVMPositionBuilderAtEnd(bld, entry);
            lp->snap_vals = snap_vals + (size_t)g * r->num_snaps;
            for (size_t s = 0; s < r->num_snaps; s++) {
                LLVMValueRef v =
                    LLVMBuildLoad2(bld, LLVMGetAllocatedType(r->snaps[s]), r->snaps[s], "");
                LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
                lp->snap_vals[s] = v;
            }
        }
        LLVMBasicBlockRef first = lp->pre; /* where the snapshot block goes on */
        if (leader_first) {
            /*
             * The leader's turn, straight-line, before the loop, which skips it: the loop's
             * clone sees __kiln_group_leader() as 0, so code only the leader runs leaves
             * the loop, and a loop with nothing left is deleted by O3.
             */
            struct region_loop lead = *lp;
            lead.body = LLVMInsertBasicBlockInContext(ctx, lp->pre, "leader");
            lead.latch = LLVMInsertBasicBlockInContext(ctx, lp->pre, "leader.end");
            for (int d = 0; d < 3; d++)
                lead.lid[d] = LLVMConstInt(i64, 0, 0);
            lead.next_slot = next_base;
            lead.leader = LLVMConstInt(i32, 1, 0);
            lead.skip = NULL;
            LLVMPositionBuilderAtEnd(bld, lead.latch);
            LLVMBuildBr(bld, lp->pre);
            status = clone_region(r, g, in_region, &lead, bases);
            if (status != KILN_CC_OK)
                goto out;
            first = lead.body;
        }
        if (r->num_snaps) {
            LLVMPositionBuilderAtEnd(bld, entry);
            LLVMBuildBr(bld, first);
        } else {
            entry = first;
        }
        status = clone_region(r, g, in_region, lp, slot_ptr);
        if (status != KILN_CC_OK)
            goto out;
        /* Every work-item ends the region with the same values: write them back. */
        LLVMPositionBuilderAtEnd(bld, after);
        for (size_t s = 0; s < r->num_snaps; s++) {
            LLVMTypeRef t = LLVMGetAllocatedType(r->snaps[s]);
            LLVMValueRef v = LLVMBuildLoad2(bld, t, r->snap_copy[s], "");
            LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
            LLVMSetAlignment(LLVMBuildStore(bld, v, r->snaps[s]), LLVMGetAlignment(r->snaps[s]));
        }
        status = KILN_CC_OUT_OF_MEMORY;
        loops[g].pre = entry;
        /* region.end's branch is added below, once every region's entry exists. */
        loops[g].body = after;
    }

    /* Prologue -> region 0 (or nothing for an empty group); region ends; dispatcher. */
    LLVMPositionBuilderAtEnd(bld, r->entry);
    LLVMValueRef empty = LLVMBuildICmp(bld, LLVMIntEQ, items, LLVMConstInt(i64, 0, 0), "");
    LLVMBuildCondBr(bld, empty, exit, loops[0].pre);
    for (unsigned g = 0; g < nr; g++) {
        LLVMPositionBuilderAtEnd(bld, loops[g].body);
        if (exit_to[g] == UINT32_MAX)
            LLVMBuildBr(bld, dispatch);
        else
            LLVMBuildBr(bld, exit_to[g] == done ? exit : loops[exit_to[g]].pre);
    }
    LLVMPositionBuilderAtEnd(bld, dispatch);
    /* Every work-item named the same region: read work-item 0's. */
    LLVMValueRef next = LLVMBuildLoad2(bld, i32, next_base, "next");
    LLVMSetAlignment(next, 4);
    kiln_cc_regions_tag_access(r, next, NAMES_SLOT(r));
    LLVMValueRef sw = LLVMBuildSwitch(bld, next, exit, nr);
    for (unsigned g = 1; g < nr; g++)
        LLVMAddCase(sw, LLVMConstInt(i32, g, 0), loops[g].pre);
    LLVMPositionBuilderAtEnd(bld, exit);
    LLVMBuildRetVoid(bld);

    /* Drop the template; nothing outside it may still use its values. */
    for (size_t i = 0; i < n; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef user = LLVMGetUser(u);
                if (!LLVMIsAInstruction(user) ||
                    !kiln_cc_regions_is_template(r, LLVMGetInstructionParent(user))) {
                    status = kiln_cc_regions_refuse(
                        r, "a value crosses blocks outside memory (internal error)");
                    goto out;
                }
            }
    for (size_t i = 0; i < n; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind)
                LLVMReplaceAllUsesWith(in, LLVMGetPoison(LLVMTypeOf(in)));
    for (size_t i = 0; i < n; i++) {
        LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]);
        while (in) {
            LLVMValueRef next_in = LLVMGetNextInstruction(in);
            LLVMInstructionEraseFromParent(in);
            in = next_in;
        }
    }
    for (size_t i = 0; i < n; i++)
        LLVMDeleteBasicBlock(r->blocks[i]);
    for (size_t s = 0; s < r->num_slots; s++) {
        /* Lifetime markers in the prologue are all that can be left. */
        LLVMUseRef u;
        while ((u = LLVMGetFirstUse(r->slots[s])))
            LLVMInstructionEraseFromParent(LLVMGetUser(u));
        LLVMInstructionEraseFromParent(r->slots[s]);
    }
    info->scratch_fixed = 0;
    info->scratch_per_item = next_offset + 4;
    if (r->per_item > info->private_mem)
        info->private_mem = r->per_item;
    status = KILN_CC_OK;
out:
    LLVMDisposeBuilder(bld);
    free(loops);
    free(in_region);
    free(bases);
    free(slot_ptr);
    free(exit_to);
    free(snap_vals);
    return status;
}
