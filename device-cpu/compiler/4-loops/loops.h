/*
 * Stage 4, the loop and vector passes: reshape the work-item loops so that LLVM's
 * vectorisers widen them. The optimisation pipeline (5-optimize) runs them between the
 * halves of default<O3>; they call nothing of it.
 */
#ifndef KILN_COMPILER_LOOPS_LOOPS_H
#define KILN_COMPILER_LOOPS_LOOPS_H

#include "cc_util.h"

/* stray_ids.c: work-item loop ids LLVM moved onto other loops lose parallel_accesses; how many. */
unsigned kiln_cc_drop_stray_loop_ids(LLVMContextRef ctx, LLVMValueRef fn, bool *oom);
/* stray_ids.c: the phi of `header` that adds 1 to itself on the way round (a work-item loop's
 * counter), that add in *next; or NULL. */
LLVMValueRef kiln_cc_loop_counter(LLVMBasicBlockRef header, LLVMValueRef *next);

/* strided_loops.c: loops from a work-item's index get a constant trip count; how many. */
unsigned kiln_cc_count_strided_loops(LLVMContextRef ctx, LLVMValueRef fn);
/* wrap_split.c: work-item loops cut where an index (x + c) & (2^k - 1) wraps; how many. */
unsigned kiln_cc_split_wrapping_loops(LLVMContextRef ctx, LLVMValueRef fn);
/*
 * clamp_split.c: work-item loops whose indices are clamped (smin/smax) or range-checked run
 * their interior, where every clamp and check is known, in a copy without them; how many
 * loops. *oom set when out of memory.
 */
unsigned kiln_cc_split_clamped_loops(LLVMContextRef ctx, LLVMValueRef fn, bool *oom);
/*
 * narrow_loops.c: stops each loop of `fn` whose body is guarded by `x < v` (x its
 * induction variable from 0, v computed before it) at min(n, v); returns how many.
 */
unsigned kiln_cc_narrow_loops(LLVMContextRef ctx, LLVMValueRef fn);
/*
 * narrow_loops.c: whether n, a loop's count, is at most KILN_GROUP_SHARED_SLOTS: a constant, a
 * local size loaded from the context (the work-group function's second parameter, that of the
 * function holding block `in`) through an i8 GEP, or the umax of two such (the transform's
 * work-item loops run max(local size, 1) times).
 */
bool kiln_cc_small_count(LLVMBasicBlockRef in, LLVMValueRef n);

/*
 * outer_vec.c: the blocks of the loop closed by `latch` whose header is the successor
 * `header`: header plus every block from which latch is reached without passing header.
 * False if `header` is not a loop header there (the walk reaches the function's entry),
 * and with *oom set when out of memory.
 */
bool kiln_cc_loop_blocks(LLVMBasicBlockRef latch, LLVMBasicBlockRef header,
                         struct kiln_cc_ptr_map *out, bool *oom);
/*
 * atomic_combine.c: in the work-group functions fns[0..nfns), global add/sub
 * atomics whose result is unused are summed per address in the worker's tables
 * (ctx->combine) and applied once per address at the end of its chunk of groups
 * (docs/compiler.md); *ncombined says how many atomics were rewritten.
 */
enum kiln_cc_status kiln_cc_combine_atomics(struct kiln_cc_build *b, LLVMValueRef *fns,
                                            unsigned nfns, unsigned *ncombined);
/*
 * outer_vec.c, on the IR the loop vectoriser is about to see: marks the work-item loops
 * of the work-group functions fns[0..nfns) that contain loops and that the vectoriser's
 * outer-loop path widens correctly; chosen[f] says whether fns[f] got one, *nchosen how
 * many functions did.
 */
enum kiln_cc_status kiln_cc_outer_vec_choose(struct kiln_cc_build *b, LLVMValueRef *fns,
                                             bool *chosen, unsigned nfns, unsigned *nchosen);
/*
 * outer_vec.c, before kiln_cc_outer_vec_choose: a work-item loop that contains a loop and
 * computes in vectors of a whole register or more (uint16 hashing on AVX-512) is not widened
 * across work-items (each value would take that many registers); it is unrolled and jammed
 * instead, up to KILN_CC_JAM_MAX work-items' inner loops run as one, so that their
 * independent chains of operations fill the machine while their carried values stay in
 * registers. chosen[f] says whether fns[f] had one, *njammed how many functions did.
 */
#define KILN_CC_JAM_MAX 4
enum kiln_cc_status kiln_cc_jam_wide_loops(struct kiln_cc_build *b, LLVMValueRef *fns, bool *chosen,
                                           unsigned nfns, unsigned *njammed);
/* outer_vec.c: 32-bit lanes in one of the host's vector registers (16 with AVX-512, 8 with
 * AVX, else 4). */
unsigned kiln_cc_host_lanes(const struct kiln_cc_host *host);
/* outer_vec.c: the bits of vector type t. */
unsigned kiln_cc_vector_bits(LLVMTypeRef t);
/*
 * pair_loops.c, after kiln_cc_outer_vec_choose, on the functions where skip[f] is false: a
 * candidate loop of vectors (a hash, a rare match path) runs two iterations at a time where
 * twice its live vector values fit the registers. *npaired is how many loops did.
 */
enum kiln_cc_status kiln_cc_pair_loops(struct kiln_cc_build *b, LLVMValueRef *fns, const bool *skip,
                                       unsigned nfns, unsigned *npaired);
/*
 * outer_vec.c, after the vectoriser: drops the hints from the loops it left alone, and
 * turns the uniform gathers of the chosen functions into loads.
 */
enum kiln_cc_status kiln_cc_outer_vec_finish(struct kiln_cc_build *b, LLVMValueRef *fns,
                                             const bool *chosen, unsigned nfns);

#endif
