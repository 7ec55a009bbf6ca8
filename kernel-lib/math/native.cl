/*
 * native_ and half_ math functions (OpenCL C 3.0 §6.15.2, float only).
 *
 * native_ accuracy is implementation-defined and half_ must be within 8192 ulp (with
 * trigonometric arguments in [-2^16, 2^16]). Both use the fastest forms Kiln has:
 *  - sin, cos, tan: a float-only path (three-part Cody-Waite reduction with fma, short
 *    polynomials), accurate to a few ulp for |x| <= 2^16; beyond, sin and cos stay in
 *    [-1, 1] and tan finite, as the conformance suite checks for half_;
 *  - powr: exp2(y log2 x) in float, with powr's NaN cases;
 *  - divide, recip: one IEEE division; rsqrt: 1/sqrt; sqrt: the IEEE square root;
 *  - exp, exp2, exp10, log, log2, log10: the full float functions, already float-only
 *    and branch-free.
 */
#include "kiln_math.h"

#define KILN_NATIVE_F(T, I)                                                                        \
    /* sin and cos of x reduced by multiples of pi/2; returns sin, *c = cos. */                    \
    KILN_INTERNAL T kiln_fast_sincos(T x, T *c, T *t)                                              \
    {                                                                                              \
        T k = __builtin_elementwise_rint(x * 0x1.45f306p-1f);                                      \
        T r = KILN_FMA(-k, (T)0x1.921fb6p+0f, x);                                                  \
        r = KILN_FMA(-k, (T)-0x1.777a5cp-25f, r);                                                  \
        r = KILN_FMA(-k, (T)-0x1.ee59dap-50f, r);                                                  \
        /* Beyond 2^16 the reduction loses r; keep it in the polynomials' range so sin and */      \
        /* cos stay in [-1, 1] and tan finite (a NaN r stays NaN). */                              \
        r = __builtin_elementwise_abs(r) > 0.8f ? __builtin_elementwise_copysign((T)0.8f, r) : r;  \
        T z = r * r;                                                                               \
        T ps = KILN_FMA(z, (T)0x1.71de3ap-19f, (T)-0x1.a01a02p-13f);                               \
        ps = KILN_FMA(z, ps, (T)0x1.111112p-7f);                                                   \
        ps = KILN_FMA(z, ps, (T)-0x1.555556p-3f);                                                  \
        T s = KILN_FMA(r * z, ps, r);                                                              \
        T pc = KILN_FMA(z, (T)-0x1.27e4fcp-22f, (T)0x1.a01a02p-16f);                               \
        pc = KILN_FMA(z, pc, (T)-0x1.6c16c2p-10f);                                                 \
        pc = KILN_FMA(z, pc, (T)0x1.555556p-5f);                                                   \
        T co = KILN_FMA(z * z, pc, KILN_FMA((T)-0.5f, z, (T)1.0f));                                \
        /* Quadrant: k mod 4, from k's integer value (|k| < 2^22 here). */                         \
        I q = KILN_AS(I, k + (T)0x1.8p23f) & 3;                                                    \
        I odd = (q & 1) != 0;                                                                      \
        T sv = odd ? co : s;                                                                       \
        T cv = odd ? s : co;                                                                       \
        sv = (q & 2) != 0 ? -sv : sv;                                                              \
        cv = ((q + 1) & 2) != 0 ? -cv : cv;                                                        \
        /* The reduction turns -0 into +0: sin and tan keep x's zero. */                           \
        I zero = x == 0.0f;                                                                        \
        *c = cv;                                                                                   \
        *t = zero ? x : (odd ? -co / s : s / co);                                                  \
        return zero ? x : sv;                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD native_sin(T x)                                                                \
    {                                                                                              \
        T c, t;                                                                                    \
        return kiln_fast_sincos(x, &c, &t);                                                        \
    }                                                                                              \
    T KILN_OVERLOAD native_cos(T x)                                                                \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_fast_sincos(x, &c, &t);                                                               \
        return c;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD native_tan(T x)                                                                \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_fast_sincos(x, &c, &t);                                                               \
        return t;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD native_powr(T x, T y)                                                          \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        T r = exp2(y * log2(x));                                                                   \
        I bad = (x < 0.0f) | ((a == 0.0f) & (y == 0.0f)) | ((a == INFINITY) & (y == 0.0f)) |       \
                ((x == 1.0f) & (__builtin_elementwise_abs(y) == INFINITY));                        \
        return bad ? (T)NAN : r;                                                                   \
    }                                                                                              \
    T KILN_OVERLOAD native_divide(T x, T y)                                                        \
    {                                                                                              \
        return x / y;                                                                              \
    }                                                                                              \
    T KILN_OVERLOAD native_recip(T x)                                                              \
    {                                                                                              \
        return 1.0f / x;                                                                           \
    }                                                                                              \
    T KILN_OVERLOAD native_rsqrt(T x)                                                              \
    {                                                                                              \
        return 1.0f / __builtin_elementwise_sqrt(x);                                               \
    }                                                                                              \
    T KILN_OVERLOAD native_sqrt(T x)                                                               \
    {                                                                                              \
        return __builtin_elementwise_sqrt(x);                                                      \
    }                                                                                              \
    T KILN_OVERLOAD native_exp(T x)                                                                \
    {                                                                                              \
        return exp(x);                                                                             \
    }                                                                                              \
    T KILN_OVERLOAD native_exp2(T x)                                                               \
    {                                                                                              \
        return exp2(x);                                                                            \
    }                                                                                              \
    T KILN_OVERLOAD native_exp10(T x)                                                              \
    {                                                                                              \
        return exp10(x);                                                                           \
    }                                                                                              \
    T KILN_OVERLOAD native_log(T x)                                                                \
    {                                                                                              \
        return log(x);                                                                             \
    }                                                                                              \
    T KILN_OVERLOAD native_log2(T x)                                                               \
    {                                                                                              \
        return log2(x);                                                                            \
    }                                                                                              \
    T KILN_OVERLOAD native_log10(T x)                                                              \
    {                                                                                              \
        return log10(x);                                                                           \
    }

/* half_ forms: the native_ ones, which meet the 8192-ulp bound on the half_ domains. */
#define KILN_HALF_1(T, name)                                                                       \
    T KILN_OVERLOAD half_##name(T x)                                                               \
    {                                                                                              \
        return native_##name(x);                                                                   \
    }
#define KILN_HALF_2(T, name)                                                                       \
    T KILN_OVERLOAD half_##name(T x, T y)                                                          \
    {                                                                                              \
        return native_##name(x, y);                                                                \
    }
#define KILN_HALF_F(T, I)                                                                          \
    KILN_HALF_1(T, sin)                                                                            \
    KILN_HALF_1(T, cos)                                                                            \
    KILN_HALF_1(T, tan)                                                                            \
    KILN_HALF_1(T, exp)                                                                            \
    KILN_HALF_1(T, exp2)                                                                           \
    KILN_HALF_1(T, exp10)                                                                          \
    KILN_HALF_1(T, log)                                                                            \
    KILN_HALF_1(T, log2)                                                                           \
    KILN_HALF_1(T, log10)                                                                          \
    KILN_HALF_1(T, recip)                                                                          \
    KILN_HALF_1(T, rsqrt)                                                                          \
    KILN_HALF_1(T, sqrt)                                                                           \
    KILN_HALF_2(T, divide)                                                                         \
    KILN_HALF_2(T, powr)

KILN_FOR_FLOAT_INT(KILN_NATIVE_F)
KILN_FOR_FLOAT_INT(KILN_HALF_F)
