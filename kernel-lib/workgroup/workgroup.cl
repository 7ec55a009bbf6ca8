/*
 * Work-group collective functions (OpenCL C 3.0 §6.15.4): work_group_all,
 * work_group_any, work_group_broadcast, work_group_reduce_<op> and
 * work_group_scan_{inclusive,exclusive}_<op> for op add, min and max.
 *
 * Every work-item of the group encounters the same collective, so a reduction or
 * a scan is two group barriers around the group's area (ctx->group_shared,
 * kiln_abi.h), which no user __local object overlaps:
 *   1. every work-item stores its value in its own slot, then a barrier;
 *   2. work-item 0 combines the slots, 16 at a time as one vector (below; into
 *      the result area for a reduction, in place for a scan), then a barrier,
 *      after which every work-item reads its answer.
 * No barrier is needed before step 1 although a collective may run in a loop:
 * what a work-item writes before a collective's first barrier is its own slot
 * alone, which nobody else reads after a collective's last barrier (a scan's
 * answer is read from the reader's own slot, a reduction's and a broadcast's
 * from the result area); the result area and other work-items' slots are
 * written only after a first barrier, which every work-item reaches only once
 * it has read its previous answer. A broadcast writes the result area before
 * its barrier, so it starts with one (as do the pipes' group reservations,
 * which share the result area). Each barrier dropped is one fewer region for
 * the barrier transform (docs/compiler.md), and the value no longer crosses a
 * barrier into a per-work-item slot of its own.
 */
#include "kiln_lib.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define KILN_WG_FENCE (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

static size_t kiln_wg_items(void)
{
    return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

/* The slots, one per work-item, viewed as the type exchanged. */
static __global void *kiln_wg_slots(void)
{
    return (__global void *)__kiln_ctx()->group_shared;
}

/* The result area after the slots. */
static __global void *kiln_wg_result(void)
{
    return (__global void *)(__kiln_ctx()->group_shared + KILN_GROUP_SHARED_SLOTS * 8);
}

#define KILN_ADD(a, b) ((a) + (b))
#define KILN_MIN(a, b) ((b) < (a) ? (b) : (a))
#define KILN_MAX(a, b) ((b) > (a) ? (b) : (a))

/*
 * The leader's combine reads the slots KILN_WG_LANES at a time as one vector, so it is a
 * per-lane partial combine (one vector operation per 16 work-items) instead of a chain of scalar
 * operations as long as the group: the specification leaves the order of floating-point
 * operations of work_group_reduce_<op> and work_group_scan_<op> open, and for the integer types
 * add (modulo 2^n), min and max are associative, so the result is exact. The order is still fixed
 * for a given local size, so floating-point results repeat from run to run. The slot area is
 * KILN_LOCAL_ALIGN (128) aligned, so the vector of 16 8-byte slots at a multiple of 16 is
 * aligned too.
 */
#define KILN_WG_LANES 16

/* The shuffle masks of the in-vector scan: lane j takes lane j - k of the second operand, the
 * first k lanes the first operand's (the identity). */
#define KILN_WG_SHIFT1 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
#define KILN_WG_SHIFT2 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29
#define KILN_WG_SHIFT4 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27
#define KILN_WG_SHIFT8 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23

/*
 * One operation on one type. IDENT is the exclusive scan's first value; NEUTRAL leaves every
 * value unchanged when combined with it (-0.0 for add, so that a -0.0 input stays -0.0 in an
 * inclusive scan; it converts to 0 for the integer types).
 */
#define KILN_WG_OP(T, NAME, OP, IDENT, NEUTRAL)                                                    \
    /* The n slots of s combined: by vector, then the lanes, then the last n % 16. */              \
    static T kiln_wg_combine_##NAME##_##T(__global const T *s, size_t n)                           \
    {                                                                                              \
        T acc = s[0];                                                                              \
        size_t i = 1;                                                                              \
        if (n >= KILN_WG_LANES) {                                                                  \
            T##16 v = *(__global const T##16 *)s;                                                  \
            for (i = KILN_WG_LANES; i + KILN_WG_LANES <= n; i += KILN_WG_LANES)                    \
                v = OP(v, *(__global const T##16 *)(s + i));                                       \
            /* The 16 lanes combined as a tree. */                                                 \
            T##8 h8 = OP(v.lo, v.hi);                                                              \
            T##4 h4 = OP(h8.lo, h8.hi);                                                            \
            T##2 h2 = OP(h4.lo, h4.hi);                                                            \
            acc = OP(h2.lo, h2.hi);                                                                \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            acc = OP(acc, s[i]);                                                                   \
        return acc;                                                                                \
    }                                                                                              \
    /* The n slots of s scanned in place, 16 at a time: a scan inside the vector in four           \
     * shifted steps, then the carry of the slots before it. */                                    \
    static void kiln_wg_scan_##NAME##_##T(__global T *s, size_t n, bool exclusive)                 \
    {                                                                                              \
        const T##16 neutral = (T##16)(NEUTRAL);                                                    \
        T carry = (NEUTRAL), before = (IDENT);                                                     \
        size_t i = 0;                                                                              \
        for (; i + KILN_WG_LANES <= n; i += KILN_WG_LANES) {                                       \
            __global T##16 *p = (__global T##16 *)(s + i);                                         \
            T##16 x = *p;                                                                          \
            x = OP(x, __builtin_shufflevector(neutral, x, KILN_WG_SHIFT1));                        \
            x = OP(x, __builtin_shufflevector(neutral, x, KILN_WG_SHIFT2));                        \
            x = OP(x, __builtin_shufflevector(neutral, x, KILN_WG_SHIFT4));                        \
            x = OP(x, __builtin_shufflevector(neutral, x, KILN_WG_SHIFT8));                        \
            x = OP((T##16)(carry), x);                                                             \
            *p = exclusive ? __builtin_shufflevector((T##16)(before), x, KILN_WG_SHIFT1) : x;      \
            carry = before = x.sf;                                                                 \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T v = OP(carry, s[i]);                                                                 \
            s[i] = exclusive ? before : v;                                                         \
            carry = before = v;                                                                    \
        }                                                                                          \
    }                                                                                              \
    T KILN_OVERLOAD work_group_reduce_##NAME(T x)                                                  \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        __global T *r = (__global T *)kiln_wg_result();                                            \
        size_t n = kiln_wg_items();                                                                \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader())                                                                 \
            *r = kiln_wg_combine_##NAME##_##T(s, n);                                               \
        barrier(KILN_WG_FENCE);                                                                    \
        return *r;                                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD work_group_scan_inclusive_##NAME(T x)                                          \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        size_t n = kiln_wg_items();                                                                \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader())                                                                 \
            kiln_wg_scan_##NAME##_##T(s, n, false);                                                \
        barrier(KILN_WG_FENCE);                                                                    \
        return s[get_local_linear_id()];                                                           \
    }                                                                                              \
    T KILN_OVERLOAD work_group_scan_exclusive_##NAME(T x)                                          \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        size_t n = kiln_wg_items();                                                                \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader())                                                                 \
            kiln_wg_scan_##NAME##_##T(s, n, true);                                                 \
        barrier(KILN_WG_FENCE);                                                                    \
        return s[get_local_linear_id()];                                                           \
    }

#define KILN_WG_BROADCAST(T)                                                                       \
    static T kiln_wg_broadcast_##T(T a, size_t linear)                                             \
    {                                                                                              \
        __global T *r = (__global T *)kiln_wg_result();                                            \
        barrier(KILN_WG_FENCE);                                                                    \
        if (get_local_linear_id() == linear)                                                       \
            *r = a;                                                                                \
        barrier(KILN_WG_FENCE);                                                                    \
        return *r;                                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD work_group_broadcast(T a, size_t local_id)                                     \
    {                                                                                              \
        return kiln_wg_broadcast_##T(a, local_id);                                                 \
    }                                                                                              \
    T KILN_OVERLOAD work_group_broadcast(T a, size_t x, size_t y)                                  \
    {                                                                                              \
        return kiln_wg_broadcast_##T(a, x + y * get_local_size(0));                                \
    }                                                                                              \
    T KILN_OVERLOAD work_group_broadcast(T a, size_t x, size_t y, size_t z)                        \
    {                                                                                              \
        return kiln_wg_broadcast_##T(a, x + (y + z * get_local_size(1)) * get_local_size(0));      \
    }

#define KILN_WG_TYPE(T, TMIN, TMAX)                                                                \
    KILN_WG_OP(T, add, KILN_ADD, (T)0, (T)-0.0f)                                                   \
    KILN_WG_OP(T, min, KILN_MIN, TMAX, TMAX)                                                       \
    KILN_WG_OP(T, max, KILN_MAX, TMIN, TMIN)                                                       \
    KILN_WG_BROADCAST(T)

KILN_COLLECTIVE_TYPES(KILN_WG_TYPE)

/* The predicates: non-zero when every (any) work-item's predicate is non-zero. */
int KILN_OVERLOAD work_group_all(int predicate)
{
    return work_group_reduce_min(predicate != 0 ? 1 : 0);
}

int KILN_OVERLOAD work_group_any(int predicate)
{
    return work_group_reduce_max(predicate != 0 ? 1 : 0);
}
