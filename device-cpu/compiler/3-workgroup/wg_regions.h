/*
 * Inside the region transform (wg_transform.c, which tells the whole story and runs the
 * passes): the kernel being transformed and what its passes hand each other. The passes
 * run in this order: wg_remat.c and wg_barriers.c prepare the flat wrapper, wg_regions.c
 * builds the region graph, wg_uniformity.c and wg_slots.c decide where each alloca lives,
 * wg_rebuild.c (with wg_clone.c) makes the loop nests. Each file calls only files before
 * it in that order, and wg_regions.c is below them all. Never leaves this folder.
 */
#ifndef KILN_COMPILER_WORKGROUP_WG_REGIONS_H
#define KILN_COMPILER_WORKGROUP_WG_REGIONS_H

#include "wg_internal.h"

/* At most this many barrier calls in one kernel after inlining. */
#define MAX_BARRIERS 256

/* One kernel being transformed. */
struct regions {
    struct kiln_cc_build *b;
    LLVMContextRef ctx;
    LLVMValueRef w;
    const char *kernel;
    LLVMMetadataRef group;
    LLVMBasicBlockRef entry;
    /* Template blocks: every block but the entry. */
    LLVMBasicBlockRef *blocks;
    size_t num_blocks;
    struct kiln_cc_ptr_map index; /* block -> index + 1 */
    unsigned **succ;              /* successor indices per block, counted in num_succ */
    unsigned *num_succ;
    unsigned **pred;
    unsigned *num_pred;
    /* Barrier i: its block (which it ends) and its continuation. */
    unsigned bar_block[MAX_BARRIERS], bar_cont[MAX_BARRIERS];
    unsigned num_barriers;
    unsigned region_start[MAX_BARRIERS + 1];
    /* Allocas that get a scratch slot. */
    LLVMValueRef *slots;
    size_t *slot_size, *slot_offset;
    size_t num_slots;
    size_t per_item;
    /*
     * Alias scopes: slot s's own scope list ({scope s}, NULL for a slot whose
     * address goes anywhere but into loads, stores and address arithmetic) and
     * the scopes its accesses cannot touch; noalias_all lists every scope.
     */
    LLVMMetadataRef *scope_list, *noalias_but;
    LLVMMetadataRef noalias_all;
    /* Per block: run by some work-items of a group only (the uniformity analysis's
     * divergence); NULL when the analysis did not run. */
    unsigned char *divergent;
    /*
     * Uniform allocas that some region reads on entry and also stores (a loop counter
     * advanced after a barrier), and each one's stand-in inside a region: a region copies
     * the value into the stand-in for each work-item and writes the stand-in back after
     * its loop nest, so work-item 1 never reads what work-item 0 stored.
     */
    LLVMValueRef *snaps, *snap_copy;
    size_t num_snaps;
};

/* What the uses of one alloca tell. */
struct alloca_uses {
    unsigned char *blocks; /* template blocks holding a use */
    bool in_entry;         /* a use in the prologue */
    bool written_outside;  /* something outside the prologue may write through it */
    bool escapes;          /* its address is stored or leaves in a way not followed */
};

/* What find_shared says of an alloca: a slot per work-item, one copy, one copy snapshotted. */
enum { PER_ITEM = 0, SHARED = 1, SHARED_SNAPSHOT = 2 };

/* The `slot` argument of tag_access for the work-items' names of the next region. */
#define NAMES_SLOT(r) ((r)->num_slots + 1)

/* ---- wg_barriers.c ---- */

/* llvm.lifetime.start/end: says when memory is in use, reads and writes nothing. */
bool kiln_cc_is_lifetime_marker(LLVMValueRef in);
/* A call of barrier() or work_group_barrier(). */
bool kiln_cc_is_barrier_call(LLVMValueRef in);
/* Moves everything after each barrier call of `w` into a new block. */
void kiln_cc_barriers_split(LLVMContextRef ctx, LLVMValueRef w);

/* ---- wg_remat.c ---- */

/* Gives each use of a recomputable work-item id in another block its own computation. */
void kiln_cc_regions_remat_ids(struct kiln_cc_build *b, LLVMValueRef w);

/* ---- wg_regions.c: the region graph ---- */

/* Blocks, their edges and the barriers of r->w; fills r. */
enum kiln_cc_status kiln_cc_regions_graph(struct regions *r);
void kiln_cc_regions_free(struct regions *r);
/* Logs why the kernel cannot be transformed; the build then retries on fibers. */
enum kiln_cc_status kiln_cc_regions_refuse(struct regions *r, const char *why);
/* The index of template block bb. */
unsigned kiln_cc_regions_block_index(const struct regions *r, LLVMBasicBlockRef bb);
/* Whether bb is a template block (not the entry, not one made since). */
bool kiln_cc_regions_is_template(const struct regions *r, LLVMBasicBlockRef bb);
/* Whether template block blk ends with a barrier. */
bool kiln_cc_regions_is_barrier_block(const struct regions *r, unsigned blk);
/* The barrier that ends template block blk. */
unsigned kiln_cc_regions_barrier_of_block(const struct regions *r, unsigned blk);
/*
 * Marks in `seen` every block reachable from `from` along successors (or predecessors
 * with `backwards`); with `stop_at_barriers`, a barrier block is reached but not left.
 * False when out of memory.
 */
bool kiln_cc_regions_reach(const struct regions *r, unsigned from, bool backwards,
                           bool stop_at_barriers, unsigned char *seen);
/* Follows the uses of alloca `ptr` (and of addresses made from it) into *u. */
void kiln_cc_regions_collect_uses(const struct regions *r, LLVMValueRef ptr, struct alloca_uses *u,
                                  unsigned depth);

/* ---- wg_uniformity.c ---- */

/*
 * Sets shared[i] (PER_ITEM, SHARED or SHARED_SNAPSHOT) for the i-th of the entry block's
 * allocas `allocas`. False when out of memory (nothing is shared).
 */
bool kiln_cc_regions_find_shared(struct regions *r, LLVMValueRef *allocas, size_t num,
                                 unsigned char *shared);

/* ---- wg_slots.c ---- */

/* Decides which allocas get scratch slots, and lays the slots out. */
enum kiln_cc_status kiln_cc_regions_choose_slots(struct regions *r);
/* One alias scope per slot array (r->scope_list, r->noalias_but, r->noalias_all). */
enum kiln_cc_status kiln_cc_regions_make_scopes(struct regions *r);
/* Tags a load or store: of slot `slot` (0 when none; else the slot's index + 1). */
void kiln_cc_regions_tag_access(const struct regions *r, LLVMValueRef in, size_t slot);

/* ---- wg_clone.c ---- */

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

/* Clones the blocks of region `reg` (marked in `in_region`) into its loop body; slot s of
 * the work-item at loop's nest is slot_ptr[s]. */
enum kiln_cc_status kiln_cc_regions_clone(struct regions *r, unsigned reg,
                                          const unsigned char *in_region,
                                          const struct region_loop *loop, LLVMValueRef *slot_ptr);

/* ---- wg_rebuild.c ---- */

/* Builds the loop nests, the dispatcher and the clones, then drops the template. */
enum kiln_cc_status kiln_cc_regions_rebuild(struct regions *r, struct kiln_cc_kernel *info);

#endif
