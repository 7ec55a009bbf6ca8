/*
 * Geometric functions (OpenCL C 3.0 §6.15.5) for float and double, scalar and
 * widths 2, 3 and 4: dot, cross (3 and 4), distance, length, normalize, and for
 * float fast_distance, fast_length and fast_normalize.
 *
 * length, distance and normalize neither overflow nor underflow: the vector is first
 * multiplied by a power of two chosen from its largest magnitude m (2^-70 for
 * m > 2^62, 2^90 for m < 2^-40 and 1 in between for float; 2^-600, 2^600 and the
 * bounds 2^500, 2^-500 for double), which is exact, so the sum of squares stays in
 * the normal range, and length multiplies the square root back by the inverse power.
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
 * to fma where the compiler chooses), within n * eps * sum |a_i * b_i|; length and
 * distance within 2 + n/2 ulp, normalize within 2.5 + n/2 ulp per component.
 *
 * Internal helpers are macros, not calls, because a double4 argument is passed
 * differently with and without AVX, and Clang warns of that at every call.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

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
        T m = KG_MAXABS(N, p);                                                                     \
        T##N unit = __builtin_elementwise_copysign((T##N)1, p);                                    \
        T##N inf = __builtin_elementwise_abs(p) == (T##N)INFINITY ? unit : (T##N)0 * p;            \
        T##N v = m == (T)INFINITY ? inf : p;                                                       \
        T mv = m == (T)INFINITY ? (T)1 : m;                                                        \
        T##N q = v * KG_LIM_##T(KG_SCALE, mv);                                                     \
        T d = KG_DOT(N, q, q);                                                                     \
        return d == (T)0 ? p : q / __builtin_elementwise_sqrt(d);                                  \
    }
KG_WIDTHS(KG_GEOMETRIC, float)
KG_WIDTHS(KG_GEOMETRIC, double)

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
