/*
 * Sub-group functions (OpenCL C 3.0 §6.15.2 work-item functions, §6.15.3's
 * sub_group_barrier, §6.15.17 sub-group collectives) for a device whose sub-groups hold
 * one work-item each.
 *
 * Work-items of a group run one after another in the compiler's work-item loops, so the
 * only sub-group that can act as one unit without barrier machinery is a single work-item.
 * A group of n work-items therefore has n sub-groups of size 1, numbered by the local
 * linear id, and every collective is the work-item's own value: reductions and inclusive
 * scans return their argument, exclusive scans the operation's identity, broadcasts their
 * argument (a sub-group local id other than 0 is undefined by the specification), all/any
 * the predicate. sub_group_barrier orders nothing beyond program order, which a single
 * work-item already has.
 */
#include "kiln_lib.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

uint KILN_OVERLOAD get_sub_group_size(void)
{
    return 1;
}

uint KILN_OVERLOAD get_max_sub_group_size(void)
{
    return 1;
}

uint KILN_OVERLOAD get_num_sub_groups(void)
{
    return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}

uint KILN_OVERLOAD get_enqueued_num_sub_groups(void)
{
    return (uint)(get_enqueued_local_size(0) * get_enqueued_local_size(1) *
                  get_enqueued_local_size(2));
}

uint KILN_OVERLOAD get_sub_group_id(void)
{
    return (uint)get_local_linear_id();
}

uint KILN_OVERLOAD get_sub_group_local_id(void)
{
    return 0;
}

void KILN_OVERLOAD sub_group_barrier(cl_mem_fence_flags flags)
{
    (void)flags;
}

void KILN_OVERLOAD sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
    (void)flags;
    (void)scope;
}

int KILN_OVERLOAD sub_group_all(int predicate)
{
    return predicate != 0;
}

int KILN_OVERLOAD sub_group_any(int predicate)
{
    return predicate != 0;
}

#define KILN_SG_OP(T, NAME, IDENT)                                                                 \
    T KILN_OVERLOAD sub_group_reduce_##NAME(T x)                                                   \
    {                                                                                              \
        return x;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD sub_group_scan_inclusive_##NAME(T x)                                           \
    {                                                                                              \
        return x;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD sub_group_scan_exclusive_##NAME(T x)                                           \
    {                                                                                              \
        return IDENT;                                                                              \
    }

#define KILN_SG_TYPE(T, TMIN, TMAX)                                                                \
    KILN_SG_OP(T, add, (T)0)                                                                       \
    KILN_SG_OP(T, min, TMAX)                                                                       \
    KILN_SG_OP(T, max, TMIN)                                                                       \
    T KILN_OVERLOAD sub_group_broadcast(T x, uint sub_group_local_id)                              \
    {                                                                                              \
        return x;                                                                                  \
    }

KILN_COLLECTIVE_TYPES(KILN_SG_TYPE)
