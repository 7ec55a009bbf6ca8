/*
 * The reductions, polynomials and reconstructions shared by the exponential,
 * logarithm and power builtins (exp_log.cl, pow.cl). KILN_EXPLOG_CORE_F(T, I) and
 * KILN_EXPLOG_CORE_D(T, I) define them as internal functions of a file for one float
 * or double type T and the integer type I of its width.
 */
#ifndef KILN_KERNEL_LIB_MATH_EXP_LOG_CORE_H
#define KILN_KERNEL_LIB_MATH_EXP_LOG_CORE_H

#include "kiln_math.h"

/* E(r) = e^r - 1 for |r| <= 0.347, relative error below 2^-28. */
#define KILN_EXPM1_POLY_F(T, r)                                                                    \
    KILN_FMA(                                                                                      \
        (r) * (r),                                                                                 \
        KILN_FMA(                                                                                  \
            r,                                                                                     \
            KILN_FMA(r,                                                                            \
                     KILN_FMA(r,                                                                   \
                              KILN_FMA(r, KILN_FMA(r, (T)0x1.389798p-13f, (T)0x1.6d2e70p-10f),     \
                                       (T)0x1.115706p-7f),                                         \
                              (T)0x1.555502p-5f),                                                  \
                     (T)0x1.55552cp-3f),                                                           \
            (T)0.5f),                                                                              \
        r)

/* R(z) for z <= 0.02944, absolute error below 2^-28. */
#define KILN_LOG_R_F(T, z)                                                                         \
    ((z)*KILN_FMA(z, KILN_FMA(z, (T)0x1.327084p-2f, (T)0x1.995ae0p-2f), (T)0x1.55557ap-1f))

#define KILN_EXPLOG_CORE_F(T, I)                                                                   \
    /* 2^n as a float, for n in [-126, 127]. */                                                    \
    KILN_INTERNAL T kiln_pow2i(I n)                                                                \
    {                                                                                              \
        return KILN_AS(T, (n + 127) << 23);                                                        \
    }                                                                                              \
    /* p * 2^n for n in [-160, 130]: two exact-or-last steps. */                                   \
    KILN_INTERNAL T kiln_scale(T p, I n)                                                           \
    {                                                                                              \
        I n1 = n >> 1;                                                                             \
        return p * kiln_pow2i(n1) * kiln_pow2i(n - n1);                                            \
    }                                                                                              \
    /* n = rint(v) as a float and as an integer, for |v| < 2^22. */                                \
    KILN_INTERNAL T kiln_rint_i(T v, I *ni)                                                        \
    {                                                                                              \
        T t = v + (T)0x1.8p23f;                                                                    \
        *ni = KILN_AS(I, t) - 0x4b400000;                                                          \
        return t - (T)0x1.8p23f;                                                                   \
    }                                                                                              \
    /* e^x - 1 for a finite-or-NaN x clamped to [-104, 89]: E(r) and n. */                         \
    KILN_INTERNAL T kiln_exp_reduce(T x, I *n)                                                     \
    {                                                                                              \
        T nf = kiln_rint_i(x * (T)0x1.715476p+0f, n);                                              \
        T r = KILN_FMA(-nf, (T)0x1.62e430p-1f, x);                                                 \
        r = KILN_FMA(-nf, (T)-0x1.05c610p-29f, r);                                                 \
        return KILN_EXPM1_POLY_F(T, r);                                                            \
    }                                                                                              \
    /*                                                                                             \
     * log(1+f) - f for the reduced argument: returns f and the rest separately, with              \
     * e the exponent. x must be positive, finite and normal.                                      \
     */                                                                                            \
    KILN_INTERNAL T kiln_log_split(T x, T *f, T *ef)                                               \
    {                                                                                              \
        I ix = KILN_AS(I, x) - 0x3f3504f3;                                                         \
        *ef = kiln_cvt_##T(ix >> 23);                                                              \
        T m = KILN_AS(T, (ix & 0x007fffff) + 0x3f3504f3);                                          \
        T fm = m - (T)1.0f;                                                                        \
        T s = fm / ((T)2.0f + fm);                                                                 \
        T hfsq = (T)0.5f * fm * fm;                                                                \
        *f = fm;                                                                                   \
        return KILN_FMA(s, hfsq + KILN_LOG_R_F(T, s * s), -hfsq);                                  \
    }                                                                                              \
    /* x scaled into the normal range, with its exponent offset. */                                \
    KILN_INTERNAL T kiln_log_normal(T x, T *bias)                                                  \
    {                                                                                              \
        I sub = x < (T)0x1p-126f;                                                                  \
        *bias = sub ? (T)23.0f : (T)0.0f;                                                          \
        return sub ? x * (T)0x1p23f : x;                                                           \
    }                                                                                              \
    /* NaN for x < 0 or NaN, -inf for zero, +inf for +inf. */                                      \
    KILN_INTERNAL T kiln_log_special(T x, T res)                                                   \
    {                                                                                              \
        res = x == (T)0.0f ? (T)-INFINITY : res;                                                   \
        res = x == (T)INFINITY ? x : res;                                                          \
        return x >= (T)0.0f ? res : (T)NAN;                                                        \
    }

#define KILN_EXPLOG_CORE_D(T, I)                                                                   \
    /* E(r) = e^r - 1 for |r| <= 0.347, relative error below 2^-61. */                             \
    KILN_INTERNAL T kiln_expm1_poly(T r)                                                           \
    {                                                                                              \
        T p = KILN_FMA(r, (T)0x1.20146bfd026b8p-29, (T)0x1.af65f95bf2993p-26);                     \
        p = KILN_FMA(r, p, (T)0x1.27e48378bae49p-22);                                              \
        p = KILN_FMA(r, p, (T)0x1.71ddf47043506p-19);                                              \
        p = KILN_FMA(r, p, (T)0x1.a01a01c77f20dp-16);                                              \
        p = KILN_FMA(r, p, (T)0x1.a01a01b15153ap-13);                                              \
        p = KILN_FMA(r, p, (T)0x1.6c16c16c11770p-10);                                              \
        p = KILN_FMA(r, p, (T)0x1.111111110f375p-7);                                               \
        p = KILN_FMA(r, p, (T)0x1.555555555555cp-5);                                               \
        p = KILN_FMA(r, p, (T)0x1.5555555555559p-3);                                               \
        p = KILN_FMA(r, p, (T)0.5);                                                                \
        return KILN_FMA(r * r, p, r);                                                              \
    }                                                                                              \
    /* R(z) for z <= 0.02944, absolute error below 2^-64. */                                       \
    KILN_INTERNAL T kiln_log_r(T z)                                                                \
    {                                                                                              \
        T p = KILN_FMA(z, (T)0x1.0fa071b066196p-3, (T)0x1.0f588a6295c67p-3);                       \
        p = KILN_FMA(z, p, (T)0x1.3b20b63c8d8aap-3);                                               \
        p = KILN_FMA(z, p, (T)0x1.745cdf1c0dd7fp-3);                                               \
        p = KILN_FMA(z, p, (T)0x1.c71c725128d4bp-3);                                               \
        p = KILN_FMA(z, p, (T)0x1.2492492437b49p-2);                                               \
        p = KILN_FMA(z, p, (T)0x1.9999999999cf7p-2);                                               \
        p = KILN_FMA(z, p, (T)0x1.5555555555555p-1);                                               \
        return z * p;                                                                              \
    }                                                                                              \
    KILN_INTERNAL T kiln_pow2i(I n)                                                                \
    {                                                                                              \
        return KILN_AS(T, (n + 1023) << 52);                                                       \
    }                                                                                              \
    /* p * 2^n for n in [-1090, 1030]. */                                                          \
    KILN_INTERNAL T kiln_scale(T p, I n)                                                           \
    {                                                                                              \
        I n1 = n >> 1;                                                                             \
        return p * kiln_pow2i(n1) * kiln_pow2i(n - n1);                                            \
    }                                                                                              \
    KILN_INTERNAL T kiln_rint_i(T v, I *ni)                                                        \
    {                                                                                              \
        T t = v + (T)0x1.8p52;                                                                     \
        *ni = KILN_AS(I, t) - 0x4338000000000000L;                                                 \
        return t - (T)0x1.8p52;                                                                    \
    }                                                                                              \
    KILN_INTERNAL T kiln_exp_reduce(T x, I *n)                                                     \
    {                                                                                              \
        T nf = kiln_rint_i(x * (T)0x1.71547652b82fep+0, n);                                        \
        T r = KILN_FMA(-nf, (T)0x1.62e42fefa39efp-1, x);                                           \
        r = KILN_FMA(-nf, (T)0x1.abc9e3b39803fp-56, r);                                            \
        return kiln_expm1_poly(r);                                                                 \
    }                                                                                              \
    /* e^(s + slo), |s| <= 0.35, |slo| tiny, as 1 + E(s) corrected to first order. */              \
    KILN_INTERNAL T kiln_exp_small(T s, T slo)                                                     \
    {                                                                                              \
        T p = (T)1.0 + kiln_expm1_poly(s);                                                         \
        return KILN_FMA(p, slo, p);                                                                \
    }                                                                                              \
    KILN_INTERNAL T kiln_log_split(T x, T *f, T *ef)                                               \
    {                                                                                              \
        I ix = KILN_AS(I, x) - 0x3fe6a09e667f3bcdL;                                                \
        *ef = kiln_cvt_##T(ix >> 52);                                                              \
        T m = KILN_AS(T, (ix & 0x000fffffffffffffL) + 0x3fe6a09e667f3bcdL);                        \
        T fm = m - (T)1.0;                                                                         \
        T s = fm / ((T)2.0 + fm);                                                                  \
        T hfsq = (T)0.5 * fm * fm;                                                                 \
        *f = fm;                                                                                   \
        return KILN_FMA(s, hfsq + kiln_log_r(s * s), -hfsq);                                       \
    }                                                                                              \
    KILN_INTERNAL T kiln_log_normal(T x, T *bias)                                                  \
    {                                                                                              \
        I sub = x < (T)0x1p-1022;                                                                  \
        *bias = sub ? (T)54.0 : (T)0.0;                                                            \
        return sub ? x * (T)0x1p54 : x;                                                            \
    }                                                                                              \
    KILN_INTERNAL T kiln_log_special(T x, T res)                                                   \
    {                                                                                              \
        res = x == (T)0.0 ? (T)-INFINITY : res;                                                    \
        res = x == (T)INFINITY ? x : res;                                                          \
        return x >= (T)0.0 ? res : (T)NAN;                                                         \
    }

#endif
