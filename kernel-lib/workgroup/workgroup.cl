/*
 * Work-group collective functions (OpenCL C 3.0 §6.15.4): work_group_all,
 * work_group_any, work_group_broadcast, work_group_reduce_<op> and
 * work_group_scan_{inclusive,exclusive}_<op> for op add, min and max.
 *
 * Every work-item of the group encounters the same collective, so each one is
 * three group barriers around the group's area (ctx->group_shared, kiln_abi.h),
 * which no user __local object overlaps:
 *   1. a barrier, so that no work-item still reads the area from a previous
 *      collective when it is written again (a collective in a loop);
 *   2. every work-item stores its value in its slot, then a barrier;
 *   3. work-item 0 combines the slots in linear id order (into the result area
 *      for a reduction, in place for a scan), then a barrier, after which every
 *      work-item reads its answer.
 * Combining in one fixed order makes floating-point results the same from run to
 * run; the specification allows any order.
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

/* One operation on one type: IDENT is the exclusive scan's first value. */
#define KILN_WG_OP(T, NAME, OP, IDENT)                                                             \
    T KILN_OVERLOAD work_group_reduce_##NAME(T x)                                                  \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        __global T *r = (__global T *)kiln_wg_result();                                            \
        size_t n = kiln_wg_items();                                                                \
        barrier(KILN_WG_FENCE);                                                                    \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader()) {                                                               \
            T acc = s[0];                                                                          \
            for (size_t i = 1; i < n; i++)                                                         \
                acc = OP(acc, s[i]);                                                               \
            *r = acc;                                                                              \
        }                                                                                          \
        barrier(KILN_WG_FENCE);                                                                    \
        return *r;                                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD work_group_scan_inclusive_##NAME(T x)                                          \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        size_t n = kiln_wg_items();                                                                \
        barrier(KILN_WG_FENCE);                                                                    \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader()) {                                                               \
            T acc = s[0];                                                                          \
            for (size_t i = 1; i < n; i++) {                                                       \
                acc = OP(acc, s[i]);                                                               \
                s[i] = acc;                                                                        \
            }                                                                                      \
        }                                                                                          \
        barrier(KILN_WG_FENCE);                                                                    \
        return s[get_local_linear_id()];                                                           \
    }                                                                                              \
    T KILN_OVERLOAD work_group_scan_exclusive_##NAME(T x)                                          \
    {                                                                                              \
        __global T *s = (__global T *)kiln_wg_slots();                                             \
        size_t n = kiln_wg_items();                                                                \
        barrier(KILN_WG_FENCE);                                                                    \
        s[get_local_linear_id()] = x;                                                              \
        barrier(KILN_WG_FENCE);                                                                    \
        if (__kiln_group_leader()) {                                                               \
            T acc = (IDENT);                                                                       \
            for (size_t i = 0; i < n; i++) {                                                       \
                T v = s[i];                                                                        \
                s[i] = acc;                                                                        \
                acc = OP(acc, v);                                                                  \
            }                                                                                      \
        }                                                                                          \
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
    KILN_WG_OP(T, add, KILN_ADD, (T)0)                                                             \
    KILN_WG_OP(T, min, KILN_MIN, TMAX)                                                             \
    KILN_WG_OP(T, max, KILN_MAX, TMIN)                                                             \
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
