/*
 * Private header of the kernel library: the hooks through which builtins reach the
 * work-group state, and the attribute spellings every family uses.
 *
 * The hooks are only declared. When the compiler builds a work-group function it
 * replaces each call: __kiln_ctx() by the wrapper's ctx parameter, __kiln_local_id(d)
 * by the induction variable of loop d (0 for d >= 3), __kiln_group_leader() by whether
 * the local id is (0, 0, 0). A hook that survives to code
 * generation fails the build, so a builtin can never read a stale value.
 */
#ifndef KILN_KERNEL_LIB_KILN_LIB_H
#define KILN_KERNEL_LIB_KILN_LIB_H

#include "kiln_abi.h"

/* In OpenCL C 2.0 and later an unqualified pointer is generic; the compiler casts. */
const struct kiln_wg_ctx *__kiln_ctx(void);
size_t __kiln_local_id(uint dim);
/*
 * 1 for the group's first work-item (local id 0, 0, 0), 0 for the others: what a
 * collective's "work-item 0 does it" asks. The region transform runs that work-item's
 * turn through a region that asks before the loop over the others, where the answer is
 * 0, so a loop left with nothing to do disappears.
 */
int __kiln_group_leader(void);

/* Builtins share one name across types, so they need C++-style mangling. */
#define KILN_OVERLOAD __attribute__((overloadable))

/*
 * The types of the work-group and sub-group collectives, X(type, lowest, highest) with the
 * identities of max and min; half needs cl_khr_fp16 enabled where this expands.
 */
#define KILN_COLLECTIVE_TYPES(X)                                                                   \
    X(int, INT_MIN, INT_MAX)                                                                       \
    X(uint, 0u, UINT_MAX)                                                                          \
    X(long, LONG_MIN, LONG_MAX)                                                                    \
    X(ulong, 0ul, ULONG_MAX)                                                                       \
    X(float, -INFINITY, INFINITY)                                                                  \
    X(double, -(double)INFINITY, (double)INFINITY)                                                 \
    X(half, -(half)INFINITY, (half)INFINITY)

#endif
