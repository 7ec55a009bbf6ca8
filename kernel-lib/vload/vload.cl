/*
 * Vector data load and store (OpenCL C 3.0 §6.15.7): vload<n>, vstore<n>, vload_half[n],
 * vloada_half<n>, vstore_half[n][_rte|_rtz|_rtp|_rtn] and vstorea_half<n>[_mode], for
 * n = 2, 3, 4, 8, 16, every element type, and every address space a kernel can pass:
 * __global, __local, __private and (loads only) __constant for OpenCL C 1.x, and the
 * generic space of OpenCL C 2.0 and later (__constant loads exist in every version).
 *
 * The pointer need only be aligned to the element, so vload<n> and vstore<n> go through
 * vector types whose alignment is the element's; the 3-element forms touch exactly three
 * elements (Clang would widen a 3-element vector access to four), one by one.
 * vloada_half<n> and vstorea_half<n> may assume the alignment of the n-element half
 * vector; for n = 3 they address four halves per offset and touch the first three.
 * Halves are read and written as their bits and converted by kiln_conv.h: exact to
 * float, and from float or double correctly rounded in every mode (default _rte).
 */
#include "kiln_lib.h"
#include "kiln_conv.h"

/* Vector types aligned to their element: what vload<n>/vstore<n> may be handed. */
#define KILN_UNALIGNED(T)                                                                          \
    typedef T kiln_u_##T##2 __attribute__((ext_vector_type(2), aligned(sizeof(T))));               \
    typedef T kiln_u_##T##4 __attribute__((ext_vector_type(4), aligned(sizeof(T))));               \
    typedef T kiln_u_##T##8 __attribute__((ext_vector_type(8), aligned(sizeof(T))));               \
    typedef T kiln_u_##T##16 __attribute__((ext_vector_type(16), aligned(sizeof(T))));
KILN_UNALIGNED(char)
KILN_UNALIGNED(uchar)
KILN_UNALIGNED(short)
KILN_UNALIGNED(ushort)
KILN_UNALIGNED(int)
KILN_UNALIGNED(uint)
KILN_UNALIGNED(long)
KILN_UNALIGNED(ulong)
KILN_UNALIGNED(float)
KILN_UNALIGNED(double)
KILN_UNALIGNED(half)

/* The loads and stores of n = 2, 4, 8, 16 from one address space. */
#define KILN_VLOAD_N(T, N, AS)                                                                     \
    T##N KILN_OVERLOAD vload##N(size_t offset, const AS T *p)                                      \
    {                                                                                              \
        return *(const AS kiln_u_##T##N *)(p + offset * N);                                        \
    }
#define KILN_VSTORE_N(T, N, AS)                                                                    \
    void KILN_OVERLOAD vstore##N(T##N data, size_t offset, AS T *p)                                \
    {                                                                                              \
        *(AS kiln_u_##T##N *)(p + offset * N) = data;                                              \
    }
#define KILN_VLOAD_3(T, AS)                                                                        \
    T##3 KILN_OVERLOAD vload3(size_t offset, const AS T *p)                                        \
    {                                                                                              \
        const AS T *q = p + offset * 3;                                                            \
        return (T##3)(q[0], q[1], q[2]);                                                           \
    }
#define KILN_VSTORE_3(T, AS)                                                                       \
    void KILN_OVERLOAD vstore3(T##3 data, size_t offset, AS T *p)                                  \
    {                                                                                              \
        AS T *q = p + offset * 3;                                                                  \
        q[0] = data.s0;                                                                            \
        q[1] = data.s1;                                                                            \
        q[2] = data.s2;                                                                            \
    }

#define KILN_VLOADS(T, AS)                                                                         \
    KILN_VLOAD_N(T, 2, AS)                                                                         \
    KILN_VLOAD_3(T, AS)                                                                            \
    KILN_VLOAD_N(T, 4, AS) KILN_VLOAD_N(T, 8, AS) KILN_VLOAD_N(T, 16, AS)
#define KILN_VSTORES(T, AS)                                                                        \
    KILN_VSTORE_N(T, 2, AS)                                                                        \
    KILN_VSTORE_3(T, AS)                                                                           \
    KILN_VSTORE_N(T, 4, AS) KILN_VSTORE_N(T, 8, AS) KILN_VSTORE_N(T, 16, AS)

/* The generic space is written as no qualifier. */
#define KILN_GENERIC
#define KILN_VDATA(T)                                                                              \
    KILN_VLOADS(T, __global)                                                                       \
    KILN_VLOADS(T, __local)                                                                        \
    KILN_VLOADS(T, __private)                                                                      \
    KILN_VLOADS(T, __constant)                                                                     \
    KILN_VLOADS(T, KILN_GENERIC)                                                                   \
    KILN_VSTORES(T, __global)                                                                      \
    KILN_VSTORES(T, __local) KILN_VSTORES(T, __private) KILN_VSTORES(T, KILN_GENERIC)

KILN_VDATA(char)
KILN_VDATA(uchar)
KILN_VDATA(short)
KILN_VDATA(ushort)
KILN_VDATA(int)
KILN_VDATA(uint)
KILN_VDATA(long)
KILN_VDATA(ulong)
KILN_VDATA(float)
KILN_VDATA(double)
KILN_VDATA(half)

/*
 * Halves. vload_half<n> reads n halves at p + offset * n; vloada_half<n> reads them at
 * p + offset * n, with the n-half vector's alignment, except that for n = 3 it reads
 * three halves at p + offset * 4.
 */
#define KILN_VLOAD_HALF_N(N, AS)                                                                   \
    float##N KILN_OVERLOAD vload_half##N(size_t offset, const AS half *p)                          \
    {                                                                                              \
        return kiln_h2f##N(*(const AS kiln_u_ushort##N *)((const AS ushort *)p + offset * N));     \
    }                                                                                              \
    float##N KILN_OVERLOAD vloada_half##N(size_t offset, const AS half *p)                         \
    {                                                                                              \
        return kiln_h2f##N(*(const AS ushort##N *)((const AS ushort *)p + offset * N));            \
    }
#define KILN_VLOAD_HALF_3(AS)                                                                      \
    float3 KILN_OVERLOAD vload_half3(size_t offset, const AS half *p)                              \
    {                                                                                              \
        const AS ushort *q = (const AS ushort *)p + offset * 3;                                    \
        return kiln_h2f3((ushort3)(q[0], q[1], q[2]));                                             \
    }                                                                                              \
    float3 KILN_OVERLOAD vloada_half3(size_t offset, const AS half *p)                             \
    {                                                                                              \
        const AS ushort *q = (const AS ushort *)p + offset * 4;                                    \
        return kiln_h2f3((ushort3)(q[0], q[1], q[2]));                                             \
    }
#define KILN_VLOAD_HALF(AS)                                                                        \
    float KILN_OVERLOAD vload_half(size_t offset, const AS half *p)                                \
    {                                                                                              \
        return kiln_h2f(((const AS ushort *)p)[offset]);                                           \
    }                                                                                              \
    KILN_VLOAD_HALF_N(2, AS)                                                                       \
    KILN_VLOAD_HALF_3(AS)                                                                          \
    KILN_VLOAD_HALF_N(4, AS) KILN_VLOAD_HALF_N(8, AS) KILN_VLOAD_HALF_N(16, AS)

KILN_VLOAD_HALF(__global)
KILN_VLOAD_HALF(__local)
KILN_VLOAD_HALF(__private)
KILN_VLOAD_HALF(__constant)
KILN_VLOAD_HALF(KILN_GENERIC)

/*
 * vstore_half[n][_mode] and vstorea_half<n>[_mode] from float and double, rounded once by
 * H, kiln_f2h or kiln_d2h (M is a KILN_RM_ mode).
 */
#define KILN_VSTORE_HALF_N(T, H, N, SFX, M, AS)                                                    \
    void KILN_OVERLOAD vstore_half##N##SFX(T##N data, size_t offset, AS half *p)                   \
    {                                                                                              \
        *(AS kiln_u_ushort##N *)((AS ushort *)p + offset * N) = H##N(data, M);                     \
    }                                                                                              \
    void KILN_OVERLOAD vstorea_half##N##SFX(T##N data, size_t offset, AS half *p)                  \
    {                                                                                              \
        *(AS ushort##N *)((AS ushort *)p + offset * N) = H##N(data, M);                            \
    }
#define KILN_VSTORE_HALF_3(T, H, SFX, M, AS)                                                       \
    void KILN_OVERLOAD vstore_half3##SFX(T##3 data, size_t offset, AS half *p)                     \
    {                                                                                              \
        AS ushort *q = (AS ushort *)p + offset * 3;                                                \
        ushort3 h = H##3(data, M);                                                                 \
        q[0] = h.s0;                                                                               \
        q[1] = h.s1;                                                                               \
        q[2] = h.s2;                                                                               \
    }                                                                                              \
    void KILN_OVERLOAD vstorea_half3##SFX(T##3 data, size_t offset, AS half *p)                    \
    {                                                                                              \
        AS ushort *q = (AS ushort *)p + offset * 4;                                                \
        ushort3 h = H##3(data, M);                                                                 \
        q[0] = h.s0;                                                                               \
        q[1] = h.s1;                                                                               \
        q[2] = h.s2;                                                                               \
    }
#define KILN_VSTORE_HALF_MODE(T, H, SFX, M, AS)                                                    \
    void KILN_OVERLOAD vstore_half##SFX(T data, size_t offset, AS half *p)                         \
    {                                                                                              \
        ((AS ushort *)p)[offset] = H(data, M);                                                     \
    }                                                                                              \
    KILN_VSTORE_HALF_N(T, H, 2, SFX, M, AS)                                                        \
    KILN_VSTORE_HALF_3(T, H, SFX, M, AS)                                                           \
    KILN_VSTORE_HALF_N(T, H, 4, SFX, M, AS)                                                        \
    KILN_VSTORE_HALF_N(T, H, 8, SFX, M, AS) KILN_VSTORE_HALF_N(T, H, 16, SFX, M, AS)
#define KILN_VSTORE_HALF_AS(T, H, AS)                                                              \
    KILN_VSTORE_HALF_MODE(T, H, , KILN_RM_DEF, AS)                                                 \
    KILN_VSTORE_HALF_MODE(T, H, _rte, KILN_RM_RTE, AS)                                             \
    KILN_VSTORE_HALF_MODE(T, H, _rtz, KILN_RM_RTZ, AS)                                             \
    KILN_VSTORE_HALF_MODE(T, H, _rtp, KILN_RM_RTP, AS)                                             \
    KILN_VSTORE_HALF_MODE(T, H, _rtn, KILN_RM_RTN, AS)
#define KILN_VSTORE_HALF(T, H)                                                                     \
    KILN_VSTORE_HALF_AS(T, H, __global)                                                            \
    KILN_VSTORE_HALF_AS(T, H, __local)                                                             \
    KILN_VSTORE_HALF_AS(T, H, __private) KILN_VSTORE_HALF_AS(T, H, KILN_GENERIC)

KILN_VSTORE_HALF(float, kiln_f2h)
KILN_VSTORE_HALF(double, kiln_d2h)
