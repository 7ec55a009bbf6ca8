/*
 * Work-group copies (OpenCL C 3.0 §6.15.11): async_work_group_copy,
 * async_work_group_strided_copy, wait_group_events and prefetch.
 *
 * Every work-item of the group encounters a copy with the same arguments, so the
 * group shares the work: the elements are cut into one contiguous run per
 * work-item, which each copies with a plain loop that LLVM vectorises. Nothing is
 * left in flight when a copy returns; wait_group_events is the group barrier
 * after which every work-item sees what the others copied, as the specification
 * asks of it. The event a copy returns is the one it was given: a non-zero event
 * names every copy it was passed to, and waiting on it (or on the zero event a
 * first copy returns) waits for all of them, since one barrier covers every copy
 * made before it.
 *
 * A 3-component vector type is copied as its 4-component type (§6.15.11): the
 * element occupies four components, and all four are copied.
 */
#include "kiln_lib.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* The run [*begin, *end) of `n` elements that the calling work-item copies. */
static void kiln_my_run(size_t n, size_t *begin, size_t *end)
{
    size_t items = get_local_size(0) * get_local_size(1) * get_local_size(2);
    size_t id = get_local_linear_id();
    size_t per = (n + items - 1) / items;
    size_t b = id * per;
    *begin = b < n ? b : n;
    *end = b + per < n ? b + per : n;
}

/*
 * One copy: `NAME(DST_AS T *dst, const SRC_AS T *src, size_t n, EXTRA event_t event)`,
 * element i going from src[i * SRC_STEP] to dst[i * DST_STEP]. C is the type copied,
 * T the type of the signature (C differs only for 3-component vectors).
 */
#define KILN_ASYNC_ONE(NAME, T, C, DST_AS, SRC_AS, EXTRA, DST_STEP, SRC_STEP)              \
    event_t KILN_OVERLOAD NAME(DST_AS T *dst, const SRC_AS T *src, size_t n, EXTRA         \
                               event_t event)                                              \
    {                                                                                      \
        DST_AS C *d = (DST_AS C *)dst;                                                     \
        const SRC_AS C *s = (const SRC_AS C *)src;                                         \
        size_t begin, end;                                                                 \
        kiln_my_run(n, &begin, &end);                                                      \
        for (size_t i = begin; i < end; i++)                                               \
            d[i * (DST_STEP)] = s[i * (SRC_STEP)];                                         \
        return event;                                                                      \
    }

/* The stride parameters, as macros so that their commas reach the signature. */
#define KILN_NO_STRIDE
#define KILN_SRC_STRIDE size_t src_stride,
#define KILN_DST_STRIDE size_t dst_stride,

#define KILN_ASYNC(T, C)                                                                   \
    KILN_ASYNC_ONE(async_work_group_copy, T, C, __local, __global, KILN_NO_STRIDE, 1, 1)   \
    KILN_ASYNC_ONE(async_work_group_copy, T, C, __global, __local, KILN_NO_STRIDE, 1, 1)   \
    KILN_ASYNC_ONE(async_work_group_strided_copy, T, C, __local, __global,                 \
                   KILN_SRC_STRIDE, 1, src_stride)                                         \
    KILN_ASYNC_ONE(async_work_group_strided_copy, T, C, __global, __local,                 \
                   KILN_DST_STRIDE, dst_stride, 1)                                         \
    void KILN_OVERLOAD prefetch(const __global T *p, size_t n)                             \
    {                                                                                      \
        (void)p;                                                                           \
        (void)n;                                                                           \
    }

#define KILN_ASYNC_N(S)                                                                    \
    KILN_ASYNC(S, S)                                                                       \
    KILN_ASYNC(S##2, S##2)                                                                 \
    KILN_ASYNC(S##3, S##4)                                                                 \
    KILN_ASYNC(S##4, S##4)                                                                 \
    KILN_ASYNC(S##8, S##8)                                                                 \
    KILN_ASYNC(S##16, S##16)

KILN_ASYNC_N(char)
KILN_ASYNC_N(uchar)
KILN_ASYNC_N(short)
KILN_ASYNC_N(ushort)
KILN_ASYNC_N(int)
KILN_ASYNC_N(uint)
KILN_ASYNC_N(long)
KILN_ASYNC_N(ulong)
KILN_ASYNC_N(float)
KILN_ASYNC_N(double)
KILN_ASYNC_N(half)

void KILN_OVERLOAD wait_group_events(int num_events, event_t *event_list)
{
    (void)num_events;
    (void)event_list;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
