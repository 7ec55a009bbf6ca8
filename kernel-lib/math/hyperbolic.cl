/*
 * The hyperbolic functions and their inverses (OpenCL C 3.0 §6.15.2): sinh, cosh, tanh,
 * asinh, acosh, atanh, for float and double, scalar and every vector width.
 *
 * They are written in double on the library's exp, expm1 and log1p (math/exp_log.cl),
 * in forms that keep the relative error of those calls:
 *   sinh |x| = (t + t / (t + 1)) / 2 with t = expm1(|x|)   (no cancellation near 0)
 *   cosh x   = (e + 1/e) / 2 with e = exp(|x|)
 *   tanh |x| = t / (t + 2) with t = expm1(2|x|); 1 beyond 22, where it rounds to 1
 *   asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))
 *   acosh x   = log1p(t + sqrt(t^2 + 2t)) with t = x - 1
 *   atanh |x| = log1p(2|x| / (1 - |x|)) / 2
 * Near the top of the range sinh and cosh are (w / 2) * w with w = exp(|x| / 2), since
 * exp(|x|) alone would overflow first; beyond 2^60 asinh and acosh are log1p(|x|) + ln 2.
 * The odd functions take the sign of x at the end, so -0 stays -0.
 *
 * float runs the double code and rounds once. Bounds of §7.4 (ulp, float and double):
 * sinh 4, cosh 4, tanh 5, asinh 4, acosh 4, atanh 5; measured errors in docs/kernel-lib.md.
 */
#include "math_ieee.h"

#define KILN_ABS(x)       __builtin_elementwise_abs(x)
#define KILN_CSIGN(x, y)  __builtin_elementwise_copysign(x, y)
#define KILN_SQRT(x)      __builtin_elementwise_sqrt(x)
#define KILN_FMA(a, b, c) __builtin_elementwise_fma(a, b, c)
#define KILN_LN2          0x1.62e42fefa39efp-1

#define KILN_HYPERBOLIC_CORES(T, S, I, U, N, CV)                                                   \
    static T KILN_OVERLOAD kiln_sinh(T x)                                                          \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        T t = expm1(ax);                                                                           \
        T r = (T)0.5 * (t + t / (t + (T)1));                                                       \
        T w = exp((T)0.5 * ax);                                                                    \
        r = ax > (T)709 ? ((T)0.5 * w) * w : r;                                                    \
        return KILN_CSIGN(r, x);                                                                   \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_cosh(T x)                                                          \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        T e = exp(ax);                                                                             \
        T r = (T)0.5 * (e + (T)1 / e);                                                             \
        T w = exp((T)0.5 * ax);                                                                    \
        return ax > (T)709 ? ((T)0.5 * w) * w : r;                                                 \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_tanh(T x)                                                          \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        T t = expm1((T)2 * ax);                                                                    \
        T r = ax > (T)22 ? (T)1 : t / (t + (T)2);                                                  \
        return KILN_CSIGN(r, x);                                                                   \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_asinh(T x)                                                         \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        I big = ax >= (T)0x1p60;                                                                   \
        T z = ax * ax;                                                                             \
        T u = big ? ax : ax + z / ((T)1 + KILN_SQRT((T)1 + z));                                    \
        T r = log1p(u) + (big ? (T)KILN_LN2 : (T)0);                                               \
        return KILN_CSIGN(r, x);                                                                   \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_acosh(T x)                                                         \
    {                                                                                              \
        T t = x - (T)1;                                                                            \
        I big = x >= (T)0x1p60;                                                                    \
        T u = big ? x : t + KILN_SQRT(KILN_FMA(t, t, (T)2 * t));                                   \
        T r = log1p(u) + (big ? (T)KILN_LN2 : (T)0);                                               \
        return x < (T)1 ? (T)NAN : r;                                                              \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_atanh(T x)                                                         \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        return KILN_CSIGN((T)0.5 * log1p((T)2 * ax / ((T)1 - ax)), x);                             \
    }                                                                                              \
                                                                                                   \
    T KILN_OVERLOAD sinh(T x)                                                                      \
    {                                                                                              \
        return kiln_sinh(x);                                                                       \
    }                                                                                              \
    T KILN_OVERLOAD cosh(T x)                                                                      \
    {                                                                                              \
        return kiln_cosh(x);                                                                       \
    }                                                                                              \
    T KILN_OVERLOAD tanh(T x)                                                                      \
    {                                                                                              \
        return kiln_tanh(x);                                                                       \
    }                                                                                              \
    T KILN_OVERLOAD asinh(T x)                                                                     \
    {                                                                                              \
        return kiln_asinh(x);                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD acosh(T x)                                                                     \
    {                                                                                              \
        return kiln_acosh(x);                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD atanh(T x)                                                                     \
    {                                                                                              \
        return kiln_atanh(x);                                                                      \
    }
KILN_SHAPES_DOUBLE(KILN_HYPERBOLIC_CORES)

#define KILN_HYPERBOLIC_F(F, D, CV)                                                                \
    F KILN_OVERLOAD sinh(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_sinh(CV(x, D)), F);                                                         \
    }                                                                                              \
    F KILN_OVERLOAD cosh(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_cosh(CV(x, D)), F);                                                         \
    }                                                                                              \
    F KILN_OVERLOAD tanh(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_tanh(CV(x, D)), F);                                                         \
    }                                                                                              \
    F KILN_OVERLOAD asinh(F x)                                                                     \
    {                                                                                              \
        return CV(kiln_asinh(CV(x, D)), F);                                                        \
    }                                                                                              \
    F KILN_OVERLOAD acosh(F x)                                                                     \
    {                                                                                              \
        return CV(kiln_acosh(CV(x, D)), F);                                                        \
    }                                                                                              \
    F KILN_OVERLOAD atanh(F x)                                                                     \
    {                                                                                              \
        return CV(kiln_atanh(CV(x, D)), F);                                                        \
    }
KILN_SHAPES_F_D(KILN_HYPERBOLIC_F)
