/*
 * Region transform: the work-group function of a kernel that calls barrier(). This
 * file is its entry (kiln_cc_regions_build), which runs the passes in their files:
 * wg_remat.c, wg_barriers.c, then per kernel the region graph (wg_regions.c), the
 * uniformity analysis (wg_uniformity.c), slots and alias scopes (wg_slots.c) and the
 * rebuild (wg_rebuild.c, wg_clone.c).
 *
 * Work-items run one after another, so a barrier is where every work-item of the
 * group must have finished the code before it before any goes on. The wrapper of
 * such a kernel (built flat by wg_wrapper.c: unpack the arguments, call the
 * kernel, return; then everything inlined) is rewritten here:
 *
 *  1. sroa, sccp and instsimplify; generic accesses made through their named
 *     pointers (kiln_cc_named_spaces) and work-item ids recomputed at each use in
 *     another block or past a barrier (rematerialize_ids, below); reg2mem, every
 *     block split right after each barrier call, reg2mem again: now the only values
 *     that cross a block boundary live in allocas of the entry block, and each
 *     barrier ends its block with a branch to its continuation.
 *  2. The entry block is the prologue: argument unpacking, run once per group.
 *     Region 0 starts at its successor, region i + 1 at the continuation of
 *     barrier i. A region is every block reachable from its start without going
 *     past a barrier; a block reachable from several starts is cloned into each.
 *  3. Each alloca that may hold a value from before a barrier to after it (some
 *     use can reach barrier i and some use is reachable from its continuation),
 *     or whose address is stored, gets a slot per work-item in ctx->scratch,
 *     laid out one array per alloca (work-item w's copy at base + w * size) so
 *     that neighbouring work-items are neighbours in memory. The others stay
 *     allocas shared by the work-items, which is safe: no work-item's use of them
 *     spans a barrier, and within one region work-items do not interleave. So do
 *     those holding the same value in every work-item (the uniformity analysis
 *     below); one that a region reads on entry and also stores gets a stand-in
 *     per region, copied in for each work-item's turn and written back after it.
 *  4. Each region becomes a z/y/x loop nest over this group's local size, with
 *     its blocks cloned inside. A barrier leaves the clone towards the next
 *     work-item, naming its continuation; the return names "done". A region
 *     with a single way out goes straight to the next region; otherwise each
 *     work-item stores the name in its own i32 after the slots, and a dispatcher
 *     switches on work-item 0's once the loop nest is over (all work-items name
 *     the same, as OpenCL requires them all to reach the same barrier). When no way
 *     out of the region is divergent (the uniformity analysis below), the work-items
 *     share work-item 0's i32, and O3 moves the one store out of the loop.
 *     A region that calls __kiln_group_leader() (the library's collectives: work-item
 *     0 combines or reserves for the group) runs work-item 0's turn first, outside
 *     the loop nest, with the answer 1, and the loop skips work-item 0 and answers 0:
 *     code only the leader runs is gone from the loop, so an emptied loop is deleted.
 *
 * The x loops carry llvm.loop.parallel_accesses like the barrier-free loop; the
 * scratch slot accesses and the stores of the next region's name join the
 * access group (each work-item owns its slots),
 * wg_wrapper.c tags the shared-memory ones. O3 then brings registers back.
 */
#include "wg_regions.h"

#include <llvm-c/DebugInfo.h>

#include <stdbool.h>

static enum kiln_cc_status transform(struct kiln_cc_build *b, unsigned k, LLVMMetadataRef group)
{
    struct regions r = {0};
    r.b = b;
    r.ctx = b->ctx;
    r.w = b->wrappers[k];
    r.kernel = b->prog->kernels[k].name;
    r.group = group;
    enum kiln_cc_status status = kiln_cc_regions_graph(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_choose_slots(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_make_scopes(&r);
    if (status == KILN_CC_OK)
        status = kiln_cc_regions_rebuild(&r, &b->prog->kernels[k]);
    kiln_cc_regions_free(&r);
    return status;
}

/* Runs `passes` on the flat wrappers only: the others are optnone meanwhile. */
static enum kiln_cc_status run_on_flat(struct kiln_cc_build *b, const bool *flat,
                                       const char *passes)
{
    return kiln_cc_run_on(b, b->wrappers, flat, b->prog->num_kernels, passes);
}

enum kiln_cc_status kiln_cc_regions_build(struct kiln_cc_build *b, const bool *flat,
                                          LLVMMetadataRef const *groups)
{
    /* Cloned debug locations would point into functions that no longer exist. */
    LLVMStripModuleDebugInfo(b->mod);
    /*
     * Clang's locals are allocas until promoted: promote first, so that only
     * values really crossing a block boundary come back as allocas.
     */
    enum kiln_cc_status status =
        run_on_flat(b, flat, "function(sroa<preserve-cfg>,sccp,instsimplify)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k]) {
            kiln_cc_named_spaces(b->ctx, b->wrappers[k]);
            kiln_cc_regions_remat_ids(b, b->wrappers[k]);
        }
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            kiln_cc_barriers_split(b->ctx, b->wrappers[k]);
    if (status == KILN_CC_OK)
        status = run_on_flat(b, flat, "function(reg2mem)");
    for (unsigned k = 0; k < b->prog->num_kernels && status == KILN_CC_OK; k++)
        if (flat[k])
            status = transform(b, k, groups[k]);
    return status;
}
