/*
 * The region transform's rebuild (wg_transform.c, step 4): each region becomes a z/y/x loop
 * nest over the group's work-items with its blocks cloned inside, regions are chained
 * directly or through a dispatcher, and the template blocks are dropped.
 */
#include "wg_regions.h"
#include "kiln_abi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* What the steps of kiln_cc_regions_rebuild share. */
struct rebuild {
    struct regions *r;
    LLVMBuilderRef bld;
    LLVMTypeRef i64, i32, i8;
    unsigned nr, done;           /* regions; the name of "done", past the last region */
    struct region_loop *loops;   /* per region */
    unsigned char *in_region;    /* per template block, for the region being built */
    LLVMValueRef *bases;         /* per slot: its array in ctx->scratch */
    LLVMValueRef *slot_ptr;      /* per slot: the current work-item's copy */
    unsigned *exit_to;           /* per region: the one next region, or UINT32_MAX */
    LLVMValueRef *snap_vals;     /* per region and snapshot: the value as it began */
    LLVMValueRef size[3], items; /* the local size, and the work-items in the group */
    LLVMValueRef next_base;      /* the work-items' i32 names of their next region */
    size_t next_offset;          /* where those begin in a work-item's scratch */
    LLVMBasicBlockRef exit, dispatch;
};

/*
 * The prologue, once per group: the snapshots' stand-ins, the local size, the slot arrays'
 * bases in ctx->scratch and the names' array after them; then the exit and dispatcher blocks.
 */
static void build_prologue(struct rebuild *rb, const struct kiln_cc_kernel *info)
{
    struct regions *r = rb->r;
    LLVMBuilderRef bld = rb->bld;
    LLVMValueRef wctx = LLVMGetParam(r->w, 1);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(r->ctx, 0);

    LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(r->entry));
    LLVMPositionBuilderAtEnd(bld, r->entry);
    for (size_t s = 0; s < r->num_snaps; s++) {
        r->snap_copy[s] = LLVMBuildAlloca(bld, LLVMGetAllocatedType(r->snaps[s]), "");
        LLVMSetAlignment(r->snap_copy[s], LLVMGetAlignment(r->snaps[s]));
    }
    LLVMPositionBuilderAtEnd(bld, r->entry);
    for (int d = 0; d < 3; d++)
        rb->size[d] = kiln_cc_local_size(r->b, info, bld, wctx, d);
    rb->items = LLVMBuildMul(bld, LLVMBuildMul(bld, rb->size[0], rb->size[1], ""), rb->size[2], "");
    LLVMValueRef scratch =
        kiln_cc_ctx_field(bld, r->ctx, wctx, offsetof(struct kiln_wg_ctx, scratch), ptr, "");
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef off =
            LLVMBuildMul(bld, rb->items, LLVMConstInt(rb->i64, r->slot_offset[s], 0), "");
        rb->bases[s] = LLVMBuildInBoundsGEP2(bld, rb->i8, scratch, &off, 1, "slots");
    }
    /* After the slots, an i32 per work-item: the region it goes to next. */
    rb->next_offset = (r->per_item + 3) / 4 * 4;
    LLVMValueRef next_off =
        LLVMBuildMul(bld, rb->items, LLVMConstInt(rb->i64, rb->next_offset, 0), "");
    rb->next_base = LLVMBuildInBoundsGEP2(bld, rb->i8, scratch, &next_off, 1, "next");
    rb->exit = LLVMAppendBasicBlockInContext(r->ctx, r->w, "exit");
    rb->dispatch = LLVMAppendBasicBlockInContext(r->ctx, r->w, "dispatch");
}

/*
 * Where the region in rb->in_region can go: *target, one region (or done); *dynamic when
 * it can go to several; *one_name when no way out is divergent, so the group shares one name.
 */
static void region_exits(const struct rebuild *rb, unsigned *target, bool *dynamic, bool *one_name)
{
    const struct regions *r = rb->r;
    *target = UINT32_MAX;
    *dynamic = false;
    for (size_t i = 0; i < r->num_blocks; i++) {
        if (!rb->in_region[i])
            continue;
        unsigned t;
        if (kiln_cc_regions_is_barrier_block(r, (unsigned)i))
            t = kiln_cc_regions_barrier_of_block(r, (unsigned)i) + 1;
        else if (LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet)
            t = rb->done;
        else
            continue;
        if (*target != UINT32_MAX && *target != t)
            *dynamic = true;
        *target = t;
    }
    /* Every work-item leaves the same way: one name for the group, not one each. */
    *one_name = r->divergent != NULL;
    for (size_t i = 0; i < r->num_blocks && *dynamic; i++)
        if (rb->in_region[i] && r->divergent[i] &&
            (kiln_cc_regions_is_barrier_block(r, (unsigned)i) ||
             LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(r->blocks[i])) == LLVMRet))
            *one_name = false;
}

/*
 * The z/y/x loop nest of region lp over this group's local size, its blocks placed before
 * the dispatcher: the induction variables, this work-item's slots (rb->slot_ptr) and name,
 * the leader's skip test and the latches. Returns "region.end", after the nest.
 */
static LLVMBasicBlockRef build_loop_nest(struct rebuild *rb, struct region_loop *lp, bool one_name,
                                         bool leader_first)
{
    static const char *const hdr_names[3] = {"x.loop", "y.loop", "z.loop"};
    static const char *const latch_names[3] = {"x.latch", "y.latch", "z.latch"};
    struct regions *r = rb->r;
    LLVMContextRef ctx = r->ctx;
    LLVMBuilderRef bld = rb->bld;
    LLVMTypeRef i64 = rb->i64;
    LLVMBasicBlockRef hdr[3], latch[3];

    lp->pre = LLVMInsertBasicBlockInContext(ctx, rb->dispatch, "region");
    for (int d = 2; d >= 0; d--)
        hdr[d] = LLVMInsertBasicBlockInContext(ctx, rb->dispatch, hdr_names[d]);
    for (int d = 0; d < 3; d++)
        latch[d] = LLVMInsertBasicBlockInContext(ctx, rb->dispatch, latch_names[d]);
    LLVMBasicBlockRef after = LLVMInsertBasicBlockInContext(ctx, rb->dispatch, "region.end");
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
            bld, LLVMBuildAdd(bld, LLVMBuildMul(bld, lp->lid[2], rb->size[1], ""), lp->lid[1], ""),
            rb->size[0], ""),
        lp->lid[0], "wi");
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef off = LLVMBuildMul(bld, wi, LLVMConstInt(i64, r->slot_size[s], 0), "");
        rb->slot_ptr[s] = LLVMBuildInBoundsGEP2(bld, rb->i8, rb->bases[s], &off, 1, "slot");
    }
    if (lp->dynamic)
        lp->next_slot =
            one_name ? rb->next_base
                     : LLVMBuildInBoundsGEP2(bld, rb->i32, rb->next_base, &wi, 1, "next.slot");
    if (leader_first)
        lp->skip = LLVMBuildICmp(bld, LLVMIntEQ, wi, LLVMConstInt(i64, 0, 0), "led");
    for (int d = 0; d < 3; d++) {
        LLVMPositionBuilderAtEnd(bld, latch[d]);
        LLVMValueRef step = LLVMBuildNUWAdd(bld, lp->lid[d], LLVMConstInt(i64, 1, 0), "");
        LLVMValueRef more = LLVMBuildICmp(bld, LLVMIntULT, step, rb->size[d], "");
        LLVMValueRef br = LLVMBuildCondBr(bld, more, hdr[d], d == 2 ? after : latch[d + 1]);
        LLVMAddIncoming(lp->lid[d], &step, &latch[d], 1);
        if (d == 0)
            LLVMSetMetadata(br, LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9),
                            LLVMMetadataAsValue(ctx, kiln_cc_parallel_loop_id(ctx, r->group)));
    }
    return after;
}

/* The snapshots' values as region g begins, before any work-item's turn: a block before
 * lp->pre, returned. */
static LLVMBasicBlockRef snapshot_in(struct rebuild *rb, unsigned g, struct region_loop *lp)
{
    struct regions *r = rb->r;
    LLVMBasicBlockRef entry = LLVMInsertBasicBlockInContext(r->ctx, lp->pre, "snapshot");
    LLVMPositionBuilderAtEnd(rb->bld, entry);
    lp->snap_vals = rb->snap_vals + (size_t)g * r->num_snaps;
    for (size_t s = 0; s < r->num_snaps; s++) {
        LLVMValueRef v =
            LLVMBuildLoad2(rb->bld, LLVMGetAllocatedType(r->snaps[s]), r->snaps[s], "");
        LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
        lp->snap_vals[s] = v;
    }
    return entry;
}

/*
 * The leader's turn of region g, straight-line, before the loop, which skips it: the loop's
 * clone sees __kiln_group_leader() as 0, so code only the leader runs leaves the loop, and a
 * loop with nothing left is deleted by O3. *first is set to the turn's first block.
 */
static enum kiln_cc_status clone_leader_turn(struct rebuild *rb, unsigned g,
                                             const struct region_loop *lp, LLVMBasicBlockRef *first)
{
    struct regions *r = rb->r;
    struct region_loop lead = *lp;
    lead.body = LLVMInsertBasicBlockInContext(r->ctx, lp->pre, "leader");
    lead.latch = LLVMInsertBasicBlockInContext(r->ctx, lp->pre, "leader.end");
    for (int d = 0; d < 3; d++)
        lead.lid[d] = LLVMConstInt(rb->i64, 0, 0);
    lead.next_slot = rb->next_base;
    lead.leader = LLVMConstInt(rb->i32, 1, 0);
    lead.skip = NULL;
    LLVMPositionBuilderAtEnd(rb->bld, lead.latch);
    LLVMBuildBr(rb->bld, lp->pre);
    enum kiln_cc_status status = kiln_cc_regions_clone(r, g, rb->in_region, &lead, rb->bases);
    if (status == KILN_CC_OK)
        *first = lead.body;
    return status;
}

/* Every work-item ends the region with the same values: write them back, in `after`. */
static void snapshot_out(struct rebuild *rb, LLVMBasicBlockRef after)
{
    struct regions *r = rb->r;
    LLVMPositionBuilderAtEnd(rb->bld, after);
    for (size_t s = 0; s < r->num_snaps; s++) {
        LLVMTypeRef t = LLVMGetAllocatedType(r->snaps[s]);
        LLVMValueRef v = LLVMBuildLoad2(rb->bld, t, r->snap_copy[s], "");
        LLVMSetAlignment(v, LLVMGetAlignment(r->snaps[s]));
        LLVMSetAlignment(LLVMBuildStore(rb->bld, v, r->snaps[s]), LLVMGetAlignment(r->snaps[s]));
    }
}

/*
 * Region g: its loop nest, the snapshots taken before it, the leader's turn, the clone of its
 * blocks and the snapshots written back. Leaves loops[g].pre the region's entry and
 * loops[g].body its "region.end", whose branch link_regions adds.
 */
static enum kiln_cc_status build_region(struct rebuild *rb, unsigned g)
{
    struct regions *r = rb->r;
    if (!kiln_cc_regions_reach(r, r->region_start[g], false, true, rb->in_region))
        return KILN_CC_OUT_OF_MEMORY;
    unsigned target;
    bool dynamic, one_name;
    region_exits(rb, &target, &dynamic, &one_name);
    struct region_loop *lp = &rb->loops[g];
    lp->dynamic = dynamic;
    lp->leader = LLVMConstInt(rb->i32, 0, 0);
    lp->skip = NULL;
    bool leader_first = asks_leader(r, rb->in_region);
    rb->exit_to[g] = dynamic ? UINT32_MAX : (target == UINT32_MAX ? rb->done : target);

    LLVMBasicBlockRef after = build_loop_nest(rb, lp, one_name, leader_first);
    LLVMBasicBlockRef entry = lp->pre;
    if (r->num_snaps)
        entry = snapshot_in(rb, g, lp);
    LLVMBasicBlockRef first = lp->pre; /* where the snapshot block goes on */
    enum kiln_cc_status status = KILN_CC_OK;
    if (leader_first)
        status = clone_leader_turn(rb, g, lp, &first);
    if (status != KILN_CC_OK)
        return status;
    if (r->num_snaps) {
        LLVMPositionBuilderAtEnd(rb->bld, entry);
        LLVMBuildBr(rb->bld, first);
    } else {
        entry = first;
    }
    status = kiln_cc_regions_clone(r, g, rb->in_region, lp, rb->slot_ptr);
    if (status != KILN_CC_OK)
        return status;
    snapshot_out(rb, after);
    rb->loops[g].pre = entry;
    rb->loops[g].body = after;
    return KILN_CC_OK;
}

/* Prologue -> region 0 (or nothing for an empty group); region ends; the dispatcher. */
static void link_regions(struct rebuild *rb)
{
    struct regions *r = rb->r;
    LLVMBuilderRef bld = rb->bld;
    LLVMPositionBuilderAtEnd(bld, r->entry);
    LLVMValueRef empty = LLVMBuildICmp(bld, LLVMIntEQ, rb->items, LLVMConstInt(rb->i64, 0, 0), "");
    LLVMBuildCondBr(bld, empty, rb->exit, rb->loops[0].pre);
    for (unsigned g = 0; g < rb->nr; g++) {
        LLVMPositionBuilderAtEnd(bld, rb->loops[g].body);
        if (rb->exit_to[g] == UINT32_MAX)
            LLVMBuildBr(bld, rb->dispatch);
        else
            LLVMBuildBr(bld, rb->exit_to[g] == rb->done ? rb->exit : rb->loops[rb->exit_to[g]].pre);
    }
    LLVMPositionBuilderAtEnd(bld, rb->dispatch);
    /* Every work-item named the same region: read work-item 0's. */
    LLVMValueRef next = LLVMBuildLoad2(bld, rb->i32, rb->next_base, "next");
    LLVMSetAlignment(next, 4);
    kiln_cc_regions_tag_access(r, next, NAMES_SLOT(r));
    LLVMValueRef sw = LLVMBuildSwitch(bld, next, rb->exit, rb->nr);
    for (unsigned g = 1; g < rb->nr; g++)
        LLVMAddCase(sw, LLVMConstInt(rb->i32, g, 0), rb->loops[g].pre);
    LLVMPositionBuilderAtEnd(bld, rb->exit);
    LLVMBuildRetVoid(bld);
}

/* Drops the template blocks and the slots' allocas; nothing outside may still use them. */
static enum kiln_cc_status drop_template(struct regions *r)
{
    size_t n = r->num_blocks;
    for (size_t i = 0; i < n; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in;
             in = LLVMGetNextInstruction(in))
            for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef user = LLVMGetUser(u);
                if (!LLVMIsAInstruction(user) ||
                    !kiln_cc_regions_is_template(r, LLVMGetInstructionParent(user)))
                    return kiln_cc_regions_refuse(
                        r, "a value crosses blocks outside memory (internal error)");
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
    return KILN_CC_OK;
}

/* Builds the loop nests, the dispatcher and the clones, then drops the template. */
enum kiln_cc_status kiln_cc_regions_rebuild(struct regions *r, struct kiln_cc_kernel *info)
{
    LLVMContextRef ctx = r->ctx;
    unsigned nr = r->num_barriers + 1;
    size_t n = r->num_blocks;
    struct rebuild rb = {
        .r = r,
        .bld = LLVMCreateBuilderInContext(ctx),
        .i64 = LLVMInt64TypeInContext(ctx),
        .i32 = LLVMInt32TypeInContext(ctx),
        .i8 = LLVMInt8TypeInContext(ctx),
        .nr = nr,
        .done = nr,
        .loops = calloc(nr, sizeof(*rb.loops)),
        .in_region = calloc(n + 1, 1),
        .bases = calloc(r->num_slots + 1, sizeof(*rb.bases)),
        .slot_ptr = calloc(r->num_slots + 1, sizeof(*rb.slot_ptr)),
        .exit_to = calloc(nr, sizeof(*rb.exit_to)),
        .snap_vals = calloc((size_t)nr * r->num_snaps + 1, sizeof(*rb.snap_vals)),
    };
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    r->snap_copy = calloc(r->num_snaps + 1, sizeof(*r->snap_copy));
    if (!rb.loops || !rb.in_region || !rb.bases || !rb.slot_ptr || !rb.exit_to || !rb.snap_vals ||
        !r->snap_copy)
        goto out_free;
    build_prologue(&rb, info);
    for (unsigned g = 0; g < nr; g++) {
        status = build_region(&rb, g);
        if (status != KILN_CC_OK)
            goto out_free;
    }
    link_regions(&rb);
    status = drop_template(r);
    if (status != KILN_CC_OK)
        goto out_free;
    info->scratch_fixed = 0;
    info->scratch_per_item = rb.next_offset + 4;
    if (r->per_item > info->private_mem)
        info->private_mem = r->per_item;
out_free:
    LLVMDisposeBuilder(rb.bld);
    free(rb.loops);
    free(rb.in_region);
    free(rb.bases);
    free(rb.slot_ptr);
    free(rb.exit_to);
    free(rb.snap_vals);
    return status;
}
