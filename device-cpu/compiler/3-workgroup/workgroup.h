/*
 * Stage 3, the work-group transform: what the drivers call, in the order they run it (IR
 * dumps 6 to 8). wg_wrapper.c makes one work-group function per kernel (with wg_transform.c's
 * passes or wg_fibers.c for kernels with barriers), lower_local.c places the kernel-scope
 * __local variables, check_support.c refuses what this compiler cannot run correctly.
 */
#ifndef KILN_COMPILER_WORKGROUP_WORKGROUP_H
#define KILN_COMPILER_WORKGROUP_WORKGROUP_H

#include "cc_util.h"

enum kiln_cc_status kiln_cc_wrappers_build(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_lower_local(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_check_support(struct kiln_cc_build *b);

/* The source-level name of a possibly Itanium-mangled function name (check_support.c). */
void kiln_cc_base_name(const char *name, char *buf, size_t size);
/* Is `callee` barrier() or work_group_barrier(), any overload? (wg_barriers.c) */
bool kiln_cc_is_barrier(LLVMValueRef callee);

#endif
