/*
 * Stage 2, the link stage: what the drivers call, in the order they run it (IR dumps 1 to 5):
 * the kernels' descriptions are read (kernel_info.c), copies into local memory prefetch
 * later copies out (copy_ahead.c), the kernel library is linked in (link_library.c, which
 * first turns casts from double to half into calls of the library, half_casts.c, and
 * one-packet pipe calls of whole groups into group reservations, pipe_groups.c),
 * divisions are guarded (guard_div.c) and printf calls lowered (lower_printf.c).
 */
#ifndef KILN_COMPILER_LINK_LINK_STAGE_H
#define KILN_COMPILER_LINK_LINK_STAGE_H

#include "cc_util.h"

enum kiln_cc_status kiln_cc_kernels_read(struct kiln_cc_build *b);
/* Whether fn is the kernel Clang made for a block passed to enqueue_kernel (kernel_info.c). */
bool kiln_cc_is_block_kernel(LLVMValueRef fn);
/*
 * Part of the kernels' stage (enqueue_calls.c): names each block kernel by its index in the
 * enqueue built-ins' calls, and marks the kernels of a program that enqueues.
 */
enum kiln_cc_status kiln_cc_enqueue_calls(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_copy_ahead(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_lower_half_casts(struct kiln_cc_build *b);
/*
 * Part of the linking (pipe_groups.c): read_pipe/write_pipe without a reservation, made once by
 * every work-item of a kernel that nothing else makes wait, take one reservation per group.
 */
enum kiln_cc_status kiln_cc_batch_pipe_calls(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_guard_divisions(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_lower_printf(struct kiln_cc_build *b);

#endif
