/*
 * Geometric functions (OpenCL C 3.0 §6.15.5) for float, double and half, scalar
 * and widths 2, 3 and 4: dot, cross (3 and 4), distance, length, normalize, and for
 * float fast_distance, fast_length and fast_normalize. half is computed in float.
 *
 * length, distance and normalize neither overflow nor underflow: the vector is first
 * multiplied by a power of two chosen from its largest magnitude m (2^-70 for
 * m > 2^62, 2^90 for m < 2^-40 and 1 in between for float; 2^-600, 2^600 and the
 * bounds 2^500, 2^-500 for double), which is exact, so the sum of squares stays in
 * the normal range, and length multiplies the square root back by the inverse power.
 * normalize scales a large vector by 2^-e instead, e the exponent of m: a fixed 2^-70
 * would make the small components of (2^62, 2^-73) subnormal, losing bits their results
 * (about 2^-135) keep.
 * An infinite component makes length and distance +infinity (even beside a NaN); a
 * NaN otherwise makes them NaN. normalize follows §6.15.5: a zero vector is returned
 * unchanged, a vector with a NaN becomes all NaNs, and a vector with infinities is
 * first replaced by copysign(1, x) at the infinite components and 0 * x elsewhere.
 * The fast_ forms take the square root of the unscaled sum of squares (more precise
 * than the half_sqrt the specification allows); fast_normalize returns p when the
 * sum is 0.
 *
 * Precision (the specification gives no bound for these; Kiln's, checked by
 * tests/api/common_geom.c): dot and cross are sums of rounded products (contracted
 * to fma where the compiler chooses), within n * eps * sum |a_i * b_i|; length
 * within 2 + n/2 ulp, distance within 2.5 + n/2 (p0 - p1 is rounded first),
 * normalize within 2.5 + n/2 ulp per component.
 *
 * Internal helpers are macros, not calls, because a double4 argument is passed
 * differently with and without AVX, and Clang warns of that at every call.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* The sum of the lanes of a product, written out per width so it can be contracted. */
#define KG_DOT(N, a, b) KILN_CAT(KG_DOT_, N)(a, b)
#define KG_DOT_(a, b)   ((a) * (b))
#define KG_DOT_2(a, b)  ((a).x * (b).x + (a).y * (b).y)
#define KG_DOT_3(a, b)  ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z)
#define KG_DOT_4(a, b)  ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z + (a).w * (b).w)
#define KG_MAXABS(N, a) KILN_CAT(KG_MAXABS_, N)(a)
#define KG_MAXABS_(a)   __builtin_elementwise_abs(a)
#define KG_MAXABS_2(a)  __builtin_reduce_max(__builtin_elementwise_abs(a))
#define KG_MAXABS_3(a)  __builtin_reduce_max(__builtin_elementwise_abs(a))
#define KG_MAXABS_4(a)  __builtin_reduce_max(__builtin_elementwise_abs(a))

/* Apply M to m and the scale limits of T: (big, small, scale down, scale up). */
#define KG_LIM_float(M, m)  M(m, float, 0x1p62f, 0x1p-40f, 0x1p-70f, 0x1p90f)
#define KG_LIM_double(M, m) M(m, double, 0x1p500, 0x1p-500, 0x1p-600, 0x1p600)

/* 2^-e for the finite m > 1 of exponent e (exact, 2^-e subnormal for the largest e). */
#define KG_INVEXP_float(m)  (1.0f / as_float(as_uint(m) & 0x7f800000u))
#define KG_INVEXP_double(m) (1.0 / as_double(as_ulong(m) & 0x7ff0000000000000ul))

/*
 * normalize's scale for largest magnitude m: as KG_SCALE, but a large vector is scaled by
 * 2^-e exactly, to a largest magnitude in [1, 2), so that a small component becomes
 * subnormal only where its result is subnormal too and loses nothing more there.
 */
#define KG_NSCALE(m, T, BIG, SMALL, DOWN, UP)                                                      \
    ((m) > BIG ? KG_INVEXP_##T(m) : (m) < SMALL ? UP : (T)1)

#define KG_WIDTHS(X, T) X(, T) X(2, T) X(3, T) X(4, T)

/* The scale for largest magnitude m, and its inverse. */
#define KG_SCALE(m, T, BIG, SMALL, DOWN, UP) ((m) > BIG ? DOWN : (m) < SMALL ? UP : (T)1)
#define KG_UNSCALE(m, T, BIG, SMALL, DOWN, UP)                                                     \
    ((m) > BIG ? (T)1 / DOWN : (m) < SMALL ? (T)1 / UP : (T)1)

/* length of the T##N value p, as an expression. */
#define KG_LENGTH(N, T, p)                                                                         \
    ({                                                                                             \
        T##N p_ = (p);                                                                             \
        T m_ = KG_MAXABS(N, p_);                                                                   \
        T##N q_ = p_ * KG_LIM_##T(KG_SCALE, m_);                                                   \
        T r_ = __builtin_elementwise_sqrt(KG_DOT(N, q_, q_)) * KG_LIM_##T(KG_UNSCALE, m_);         \
        m_ == (T)INFINITY ? (T)INFINITY : r_;                                                      \
    })

/* normalize of the T##N value p, as an expression. */
#define KG_NORMALIZE(N, T, p)                                                                      \
    ({                                                                                             \
        T##N p_ = (p);                                                                             \
        T m_ = KG_MAXABS(N, p_);                                                                   \
        T##N unit_ = __builtin_elementwise_copysign((T##N)1, p_);                                  \
        T##N inf_ = __builtin_elementwise_abs(p_) == (T##N)INFINITY ? unit_ : (T##N)0 * p_;        \
        T##N v_ = m_ == (T)INFINITY ? inf_ : p_;                                                   \
        T mv_ = m_ == (T)INFINITY ? (T)1 : m_;                                                     \
        T##N q_ = v_ * KG_LIM_##T(KG_NSCALE, mv_);                                                 \
        T d_ = KG_DOT(N, q_, q_);                                                                  \
        d_ == (T)0 ? p_ : q_ / __builtin_elementwise_sqrt(d_);                                     \
    })

#define KG_GEOMETRIC(N, T)                                                                         \
    T KILN_OVERLOAD dot(T##N a, T##N b)                                                            \
    {                                                                                              \
        return KG_DOT(N, a, b);                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD length(T##N p)                                                                 \
    {                                                                                              \
        return KG_LENGTH(N, T, p);                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD distance(T##N p0, T##N p1)                                                     \
    {                                                                                              \
        return KG_LENGTH(N, T, p0 - p1);                                                           \
    }                                                                                              \
    T##N KILN_OVERLOAD normalize(T##N p)                                                           \
    {                                                                                              \
        return KG_NORMALIZE(N, T, p);                                                              \
    }
KG_WIDTHS(KG_GEOMETRIC, float)
KG_WIDTHS(KG_GEOMETRIC, double)

/*
 * half (cl_khr_fp16): computed in float, where products of halves are exact and the
 * squares of every half neither overflow nor underflow, then rounded once to half.
 */
#define KG_TO(N, x, T) KILN_CAT(KG_TO_, N)(x, T)
#define KG_TO_(x, T)   ((T)(x))
#define KG_TO_2(x, T)  __builtin_convertvector((x), T##2)
#define KG_TO_3(x, T)  __builtin_convertvector((x), T##3)
#define KG_TO_4(x, T)  __builtin_convertvector((x), T##4)
#define KG_HALF(N, T)                                                                              \
    half KILN_OVERLOAD dot(half##N a, half##N b)                                                   \
    {                                                                                              \
        float##N fa = KG_TO(N, a, float), fb = KG_TO(N, b, float);                                 \
        return (half)KG_DOT(N, fa, fb);                                                            \
    }                                                                                              \
    half KILN_OVERLOAD length(half##N p)                                                           \
    {                                                                                              \
        return (half)KG_LENGTH(N, float, KG_TO(N, p, float));                                      \
    }                                                                                              \
    half KILN_OVERLOAD distance(half##N p0, half##N p1)                                            \
    {                                                                                              \
        return (half)KG_LENGTH(N, float, KG_TO(N, p0, float) - KG_TO(N, p1, float));               \
    }                                                                                              \
    half##N KILN_OVERLOAD normalize(half##N p)                                                     \
    {                                                                                              \
        return KG_TO(N, KG_NORMALIZE(N, float, KG_TO(N, p, float)), half);                         \
    }
KG_WIDTHS(KG_HALF, half)

/* The fast_ forms, float only (§6.15.5): no scaling. */
#define KG_FAST(N, T)                                                                              \
    float KILN_OVERLOAD fast_length(float##N p)                                                    \
    {                                                                                              \
        return __builtin_elementwise_sqrt(KG_DOT(N, p, p));                                        \
    }                                                                                              \
    float KILN_OVERLOAD fast_distance(float##N p0, float##N p1)                                    \
    {                                                                                              \
        float##N d = p0 - p1;                                                                      \
        return __builtin_elementwise_sqrt(KG_DOT(N, d, d));                                        \
    }                                                                                              \
    float##N KILN_OVERLOAD fast_normalize(float##N p)                                              \
    {                                                                                              \
        float d = KG_DOT(N, p, p);                                                                 \
        return d == 0.0f ? p : p * (1.0f / __builtin_elementwise_sqrt(d));                         \
    }
KG_WIDTHS(KG_FAST, float)

/* cross of 3- and 4-vectors; the fourth component of the 4-vector result is 0. */
#define KG_CROSS(T)                                                                                \
    T##3 KILN_OVERLOAD cross(T##3 a, T##3 b)                                                       \
    {                                                                                              \
        return (T##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);        \
    }                                                                                              \
    T##4 KILN_OVERLOAD cross(T##4 a, T##4 b)                                                       \
    {                                                                                              \
        return (T##4)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0);     \
    }
KG_CROSS(float)
KG_CROSS(double)

half3 KILN_OVERLOAD cross(half3 a, half3 b)
{
    float3 fa = __builtin_convertvector(a, float3), fb = __builtin_convertvector(b, float3);
    return __builtin_convertvector(
        (float3)(fa.y * fb.z - fa.z * fb.y, fa.z * fb.x - fa.x * fb.z, fa.x * fb.y - fa.y * fb.x),
        half3);
}
half4 KILN_OVERLOAD cross(half4 a, half4 b)
{
    float4 fa = __builtin_convertvector(a, float4), fb = __builtin_convertvector(b, float4);
    return __builtin_convertvector((float4)(fa.y * fb.z - fa.z * fb.y, fa.z * fb.x - fa.x * fb.z,
                                            fa.x * fb.y - fa.y * fb.x, 0.0f),
                                   half4);
}
