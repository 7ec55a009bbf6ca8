/*
 * Work-group copies (OpenCL C 3.0 §6.15.11): async_work_group_copy,
 * async_work_group_strided_copy, wait_group_events and prefetch.
 *
 * Every work-item of the group encounters a copy with the same arguments; the
 * group's first work-item (__kiln_group_leader) copies every element, with one
 * plain loop that LLVM vectorises. The work-items of a group run on one thread
 * anyway, and the region transform runs the leader's turn once, before the loop
 * over the others, so the copy is one straight loop instead of a share per
 * work-item (cut into runs, those interleave badly across the work-item loop).
 * Nothing is left in flight when a copy returns; wait_group_events is the group barrier
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

/*
 * One copy: `NAME(DST_AS T *dst, const SRC_AS T *src, size_t n, EXTRA event_t event)`,
 * element i going from src[i * SRC_STEP] to dst[i * DST_STEP]. C is the type copied,
 * T the type of the signature (C differs only for 3-component vectors). Local and global
 * memory never overlap, and LLVM, which cannot compare pointers of two address spaces at
 * run time, vectorises the loop only when it is told so (assume_safety: its accesses
 * carry no dependence between iterations).
 */
#define KILN_ASYNC_ONE(NAME, TAG, T, C, DST_AS, SRC_AS, EXTRA, DST_STEP, SRC_STEP)                 \
    static void kiln_##TAG##_##T(DST_AS C *d, const SRC_AS C *s, size_t n, size_t dst_step,        \
                                 size_t src_step)                                                  \
    {                                                                                              \
        _Pragma("clang loop vectorize(assume_safety)") for (size_t i = 0; i < n; i++)              \
            d[i * dst_step] = s[i * src_step];                                                     \
    }                                                                                              \
    event_t KILN_OVERLOAD NAME(DST_AS T *dst, const SRC_AS T *src, size_t n, EXTRA event_t event)  \
    {                                                                                              \
        if (__kiln_group_leader())                                                                 \
            kiln_##TAG##_##T((DST_AS C *)dst, (const SRC_AS C *)src, n, DST_STEP, SRC_STEP);       \
        return event;                                                                              \
    }

/* The stride parameters, as macros so that their commas reach the signature. */
#define KILN_NO_STRIDE
#define KILN_SRC_STRIDE size_t src_stride,
#define KILN_DST_STRIDE size_t dst_stride,

#define KILN_ASYNC(T, C)                                                                           \
    KILN_ASYNC_ONE(async_work_group_copy, in, T, C, __local, __global, KILN_NO_STRIDE, 1, 1)       \
    KILN_ASYNC_ONE(async_work_group_copy, out, T, C, __global, __local, KILN_NO_STRIDE, 1, 1)      \
    KILN_ASYNC_ONE(async_work_group_strided_copy, in_strided, T, C, __local, __global,             \
                   KILN_SRC_STRIDE, 1, src_stride)                                                 \
    KILN_ASYNC_ONE(async_work_group_strided_copy, out_strided, T, C, __global, __local,            \
                   KILN_DST_STRIDE, dst_stride, 1)                                                 \
    void KILN_OVERLOAD prefetch(const __global T *p, size_t n)                                     \
    {                                                                                              \
        (void)p;                                                                                   \
        (void)n;                                                                                   \
    }

#define KILN_ASYNC_N(S)                                                                            \
    KILN_ASYNC(S, S)                                                                               \
    KILN_ASYNC(S##2, S##2)                                                                         \
    KILN_ASYNC(S##3, S##4)                                                                         \
    KILN_ASYNC(S##4, S##4)                                                                         \
    KILN_ASYNC(S##8, S##8)                                                                         \
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

/*
 * The compiler's form of a contiguous copy into local memory whose kernel later copies
 * a contiguous local array out to `ahead` (device-cpu/compiler/copy_ahead.c): the same
 * copy, bytewise, that also prefetches `ahead` for writing, one cache line for each line
 * copied. Staging a tile through local memory otherwise reads the input in one burst and
 * asks for the output's lines in another, so the core waits for each stream in turn;
 * here the output's lines arrive while the input does. A prefetch is only a hint: an
 * `ahead` the kernel never writes costs bandwidth, never a fault.
 */
void __kiln_copy_in_ahead(__local uchar *dst, const __global uchar *src, size_t bytes,
                          __global uchar *ahead, size_t ahead_bytes)
{
    if (!__kiln_group_leader())
        return;
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {
        if (i < ahead_bytes)
            __builtin_prefetch(ahead + i, 1, 3);
        __builtin_memcpy(dst + i, src + i, 64);
    }
    for (; i < bytes; i++)
        dst[i] = src[i];
}

void KILN_OVERLOAD wait_group_events(int num_events, event_t *event_list)
{
    (void)num_events;
    (void)event_list;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
