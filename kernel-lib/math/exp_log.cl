/*
 * Exponentials and logarithms (OpenCL C 3.0 §6.15.2): exp, exp2, exp10, expm1, log,
 * log2, log10 and log1p for float and double, scalar and every vector width.
 *
 * Each one is a range reduction, a polynomial and a reconstruction, written once per
 * precision over the generic type with selects instead of branches, so a call inside
 * a work-item loop becomes vector code. The polynomial coefficients are minimax fits
 * made with kernel-lib/math/mathcoef.py; docs/kernel-lib.md gives the measured errors.
 *
 * Exponentials: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: the fma makes x - n*ln2_hi
 * exact), e^r = 1 + E(r) with E(r) = r + r^2/2 + r^3 P(r), and the result is scaled by
 * 2^n in two steps, so that neither step overflows before the last and a subnormal
 * result is rounded once.
 *
 * Bounds (OpenCL C 3.0 §7.4, float and double): exp, exp2, exp10, expm1, log, log2 and
 * log10 3 ulp, log1p 2 ulp; tests/api/math_exp.c checks them.
 *
 * Logarithms: x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f/(2+f),
 * log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2)), where R(z) = log((1+s)/(1-s))/s - 2.
 */
#include "exp_log_core.h"

/* ---- float ---- */

#define KILN_EXPLOG_F(T, I)                                                                        \
    T KILN_OVERLOAD exp(T x)                                                                       \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)89.0f ? (T)89.0f : x;                                                           \
        x = x < (T)-104.0f ? (T)-104.0f : x;                                                       \
        T e = kiln_exp_reduce(x, &n);                                                              \
        return kiln_scale((T)1.0f + e, n);                                                         \
    }                                                                                              \
    T KILN_OVERLOAD exp2(T x)                                                                      \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)130.0f ? (T)130.0f : x;                                                         \
        x = x < (T)-152.0f ? (T)-152.0f : x;                                                       \
        T r = x - kiln_rint_i(x, &n);                                                              \
        T s = r * (T)0x1.62e430p-1f;                                                               \
        return kiln_scale((T)1.0f + KILN_EXPM1_POLY_F(T, s), n);                                   \
    }                                                                                              \
    T KILN_OVERLOAD exp10(T x)                                                                     \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)39.0f ? (T)39.0f : x;                                                           \
        x = x < (T)-46.0f ? (T)-46.0f : x;                                                         \
        T nf = kiln_rint_i(x * (T)0x1.a934f0p+1f, &n);                                             \
        T r = KILN_FMA(-nf, (T)0x1.344136p-2f, x);                                                 \
        r = KILN_FMA(-nf, (T)-0x1.ec10c0p-27f, r);                                                 \
        T s = r * (T)0x1.26bb1cp+1f;                                                               \
        return kiln_scale((T)1.0f + KILN_EXPM1_POLY_F(T, s), n);                                   \
    }                                                                                              \
    T KILN_OVERLOAD expm1(T x)                                                                     \
    {                                                                                              \
        I n;                                                                                       \
        T xc = x > (T)89.0f ? (T)89.0f : x;                                                        \
        xc = xc < (T)-18.0f ? (T)-18.0f : xc;                                                      \
        T e = kiln_exp_reduce(xc, &n);                                                             \
        /* t = 2^(n-1): 2 (t e + t - 1/2) = 2^n (1 + e) - 1, with no overflow at n = 128. */       \
        T t = kiln_pow2i(n - 1);                                                                   \
        T res = (T)2.0f * KILN_FMA(t, e, t - (T)0.5f);                                             \
        return __builtin_elementwise_abs(x) < (T)0x1p-25f ? x : res;                               \
    }                                                                                              \
    T KILN_OVERLOAD log(T x)                                                                       \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        T res = KILN_FMA(e, (T)0x1.62e430p-1f, f + KILN_FMA(e, (T)-0x1.05c610p-29f, lo));          \
        return kiln_log_special(x, res);                                                           \
    }                                                                                              \
    T KILN_OVERLOAD log2(T x)                                                                      \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        /* (f + lo) log2(e), the larger product with its rounding error kept. */                   \
        T hi = f * (T)0x1.715476p+0f;                                                              \
        T rest = KILN_FMA(f, (T)0x1.715476p+0f, -hi);                                              \
        rest = KILN_FMA(f, (T)0x1.4ae0c0p-26f, rest);                                              \
        rest = KILN_FMA(lo, (T)0x1.715476p+0f, rest);                                              \
        return kiln_log_special(x, e + (hi + rest));                                               \
    }                                                                                              \
    T KILN_OVERLOAD log10(T x)                                                                     \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        T hi = f * (T)0x1.bcb7b2p-2f;                                                              \
        T rest = KILN_FMA(f, (T)0x1.bcb7b2p-2f, -hi);                                              \
        rest = KILN_FMA(f, (T)-0x1.5b235ep-27f, rest);                                             \
        rest = KILN_FMA(lo, (T)0x1.bcb7b2p-2f, rest);                                              \
        rest = KILN_FMA(e, (T)-0x1.ec10c0p-27f, rest);                                             \
        return kiln_log_special(x, KILN_FMA(e, (T)0x1.344136p-2f, hi + rest));                     \
    }                                                                                              \
    T KILN_OVERLOAD log1p(T x)                                                                     \
    {                                                                                              \
        T f, e;                                                                                    \
        T u = (T)1.0f + x;                                                                         \
        T lo = kiln_log_split(u, &f, &e);                                                          \
        /* u's rounding error, exact for u <= 2^24; none when u is not reduced. */                 \
        T c = (x - (u - (T)1.0f)) / u;                                                             \
        I same = e == (T)0.0f;                                                                     \
        /* With e = 0 the reduction used u = 1 + x: redo it from x itself. */                      \
        T fx = x;                                                                                  \
        T s = fx / ((T)2.0f + fx);                                                                 \
        T hfsq = (T)0.5f * fx * fx;                                                                \
        T lox = KILN_FMA(s, hfsq + KILN_LOG_R_F(T, s * s), -hfsq);                                 \
        f = same ? fx : f;                                                                         \
        lo = same ? lox : lo + c;                                                                  \
        T res = KILN_FMA(e, (T)0x1.62e430p-1f, f + KILN_FMA(e, (T)-0x1.05c610p-29f, lo));          \
        res = x == (T)0.0f ? x : res;                                                              \
        return kiln_log_special(u, res);                                                           \
    }
KILN_FOR_FLOAT_INT(KILN_EXPLOG_CORE_F)
KILN_FOR_FLOAT_INT(KILN_EXPLOG_F)

/* ---- double ---- */

#define KILN_EXPLOG_D(T, I)                                                                        \
    T KILN_OVERLOAD exp(T x)                                                                       \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)710.0 ? (T)710.0 : x;                                                           \
        x = x < (T)-746.0 ? (T)-746.0 : x;                                                         \
        T e = kiln_exp_reduce(x, &n);                                                              \
        return kiln_scale((T)1.0 + e, n);                                                          \
    }                                                                                              \
    T KILN_OVERLOAD exp2(T x)                                                                      \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)1025.0 ? (T)1025.0 : x;                                                         \
        x = x < (T)-1077.0 ? (T)-1077.0 : x;                                                       \
        T r = x - kiln_rint_i(x, &n);                                                              \
        T s = r * (T)0x1.62e42fefa39efp-1;                                                         \
        T slo = KILN_FMA(r, (T)0x1.62e42fefa39efp-1, -s);                                          \
        slo = KILN_FMA(r, (T)0x1.abc9e3b39803fp-56, slo);                                          \
        return kiln_scale(kiln_exp_small(s, slo), n);                                              \
    }                                                                                              \
    T KILN_OVERLOAD exp10(T x)                                                                     \
    {                                                                                              \
        I n;                                                                                       \
        x = x > (T)310.0 ? (T)310.0 : x;                                                           \
        x = x < (T)-330.0 ? (T)-330.0 : x;                                                         \
        T nf = kiln_rint_i(x * (T)0x1.a934f0979a371p+1, &n);                                       \
        T r = KILN_FMA(-nf, (T)0x1.34413509f79ffp-2, x);                                           \
        T rlo = -nf * (T)-0x1.9dc1da994fd21p-59;                                                   \
        T rr = r + rlo;                                                                            \
        rlo = rlo - (rr - r);                                                                      \
        T s = rr * (T)0x1.26bb1bbb55516p+1;                                                        \
        T slo = KILN_FMA(rr, (T)0x1.26bb1bbb55516p+1, -s);                                         \
        slo = KILN_FMA(rr, (T)-0x1.f48ad494ea3e9p-53, slo);                                        \
        slo = KILN_FMA(rlo, (T)0x1.26bb1bbb55516p+1, slo);                                         \
        return kiln_scale(kiln_exp_small(s, slo), n);                                              \
    }                                                                                              \
    T KILN_OVERLOAD expm1(T x)                                                                     \
    {                                                                                              \
        I n;                                                                                       \
        T xc = x > (T)710.0 ? (T)710.0 : x;                                                        \
        xc = xc < (T)-40.0 ? (T)-40.0 : xc;                                                        \
        T e = kiln_exp_reduce(xc, &n);                                                             \
        T t = kiln_pow2i(n - 1);                                                                   \
        T res = (T)2.0 * KILN_FMA(t, e, t - (T)0.5);                                               \
        return __builtin_elementwise_abs(x) < (T)0x1p-54 ? x : res;                                \
    }                                                                                              \
    T KILN_OVERLOAD log(T x)                                                                       \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        T res =                                                                                    \
            KILN_FMA(e, (T)0x1.62e42fefa39efp-1, f + KILN_FMA(e, (T)0x1.abc9e3b39803fp-56, lo));   \
        return kiln_log_special(x, res);                                                           \
    }                                                                                              \
    T KILN_OVERLOAD log2(T x)                                                                      \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        T hi = f * (T)0x1.71547652b82fep+0;                                                        \
        T rest = KILN_FMA(f, (T)0x1.71547652b82fep+0, -hi);                                        \
        rest = KILN_FMA(f, (T)0x1.777d0ffda0d24p-56, rest);                                        \
        rest = KILN_FMA(lo, (T)0x1.71547652b82fep+0, rest);                                        \
        return kiln_log_special(x, e + (hi + rest));                                               \
    }                                                                                              \
    T KILN_OVERLOAD log10(T x)                                                                     \
    {                                                                                              \
        T bias, f, e;                                                                              \
        T xn = kiln_log_normal(x, &bias);                                                          \
        T lo = kiln_log_split(xn, &f, &e);                                                         \
        e -= bias;                                                                                 \
        T hi = f * (T)0x1.bcb7b1526e50ep-2;                                                        \
        T rest = KILN_FMA(f, (T)0x1.bcb7b1526e50ep-2, -hi);                                        \
        rest = KILN_FMA(f, (T)0x1.95355baaafad3p-57, rest);                                        \
        rest = KILN_FMA(lo, (T)0x1.bcb7b1526e50ep-2, rest);                                        \
        rest = KILN_FMA(e, (T)-0x1.9dc1da994fd21p-59, rest);                                       \
        return kiln_log_special(x, KILN_FMA(e, (T)0x1.34413509f79ffp-2, hi + rest));               \
    }                                                                                              \
    T KILN_OVERLOAD log1p(T x)                                                                     \
    {                                                                                              \
        T f, e;                                                                                    \
        T u = (T)1.0 + x;                                                                          \
        T lo = kiln_log_split(u, &f, &e);                                                          \
        T c = (x - (u - (T)1.0)) / u;                                                              \
        I same = e == (T)0.0;                                                                      \
        T fx = x;                                                                                  \
        T s = fx / ((T)2.0 + fx);                                                                  \
        T hfsq = (T)0.5 * fx * fx;                                                                 \
        T lox = KILN_FMA(s, hfsq + kiln_log_r(s * s), -hfsq);                                      \
        f = same ? fx : f;                                                                         \
        lo = same ? lox : lo + c;                                                                  \
        T res =                                                                                    \
            KILN_FMA(e, (T)0x1.62e42fefa39efp-1, f + KILN_FMA(e, (T)0x1.abc9e3b39803fp-56, lo));   \
        res = x == (T)0.0 ? x : res;                                                               \
        return kiln_log_special(u, res);                                                           \
    }
KILN_FOR_DOUBLE_LONG(KILN_EXPLOG_CORE_D)
KILN_FOR_DOUBLE_LONG(KILN_EXPLOG_D)
