/*
 * Inside the work-group stage: what wg_wrapper.c calls of the barrier strategies. Never
 * leaves this folder.
 */
#ifndef KILN_COMPILER_WORKGROUP_WG_INTERNAL_H
#define KILN_COMPILER_WORKGROUP_WG_INTERNAL_H

#include "workgroup.h"

/*
 * The fiber strategy, called by wg_wrapper.c for kernels with barriers when
 * KILN_BARRIER_STRATEGY is "fibers". wrap builds the kernel's
 * work-group function around its per-work-item function `item`, of type
 * void(ptr args, ptr ctx, ptr group, i64 x, i64 y, i64 z); finish, once the
 * kernel is inlined into `item`, turns its barriers into switches and sets the
 * kernel's scratch and private-memory figures.
 */
enum kiln_cc_status kiln_cc_fibers_wrap(struct kiln_cc_build *b, unsigned k, LLVMValueRef item);
enum kiln_cc_status kiln_cc_fibers_finish(struct kiln_cc_build *b, unsigned k, LLVMValueRef item);

/* Sets uses_barrier[k] for each kernel that can reach a barrier call (wg_barriers.c). */
enum kiln_cc_status kiln_cc_barrier_kernels(struct kiln_cc_build *b, bool *uses_barrier);
/* KILN_BARRIER_STRATEGY: *fibers for "fibers", false for the region transform
 * (unset, empty or "regions"); any other value logs why and fails the build. */
enum kiln_cc_status kiln_cc_barrier_strategy(struct kiln_cc_build *b, const char *kernel,
                                             bool *fibers);
/*
 * The region transform (wg_transform.c): rewrites each wrapper with flat[k] (built without a
 * loop nest, everything inlined, hooks still calls) into region loops; groups[k] is its
 * access group. Sets scratch_fixed and scratch_per_item of those kernels.
 */
enum kiln_cc_status kiln_cc_regions_build(struct kiln_cc_build *b, const bool *flat,
                                          LLVMMetadataRef const *groups);

#endif
