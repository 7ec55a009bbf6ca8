/*
 * hypot and the inverse trigonometric functions (OpenCL C 3.0 §6.15.2): atan, atan2,
 * atanpi, atan2pi, asin, acos, asinpi, acospi, for float and double, scalar and every
 * vector width.
 *
 * Everything rests on one kernel, atan(a) for 0 <= a <= 1: above tan(pi/8) the
 * argument becomes t = (a - 1) / (a + 1) and atan(a) = pi/4 + atan(t), so |t| <= 0.4143,
 * where the alternating series t - t^3/3 + t^5/5 - ... has shrunk below the last bit
 * after 20 terms for double (t^2 <= 0.1716). atan2 divides the smaller magnitude by
 * the larger, asin and acos are atan2 of x and sqrt(1 - x^2) (the fma rounds 1 - x^2
 * once), and the pi forms multiply by 1/pi held in two doubles. Constants pi/4, pi/2
 * and pi are two doubles too, so a reflection costs no more than the last rounding.
 *
 * float runs the same code in double with the series cut at 10 terms (a truncation
 * below 2^-30), so each float result is the double result rounded once.
 *
 * Measured bounds (tests/api/math_misc.c) are in docs/kernel-lib.md; the specification
 * allows, in ulp, float and double alike: atan 5, atan2 6, atanpi 5, atan2pi 6, asin 4,
 * acos 4, asinpi 5, acospi 5, hypot 4.
 */
#include "math_ieee.h"

#define KILN_ABS(x)       __builtin_elementwise_abs(x)
#define KILN_FMA(a, b, c) __builtin_elementwise_fma(a, b, c)
#define KILN_CSIGN(x, y)  __builtin_elementwise_copysign(x, y)

#define KILN_PI_HI   0x1.921fb54442d18p+1
#define KILN_PI_LO   0x1.1a62633145c07p-53
#define KILN_PI2_HI  0x1.921fb54442d18p+0
#define KILN_PI2_LO  0x1.1a62633145c07p-54
#define KILN_PI4_HI  0x1.921fb54442d18p-1
#define KILN_PI4_LO  0x1.1a62633145c07p-55
#define KILN_IPI_HI  0x1.45f306dc9c883p-2
#define KILN_IPI_LO  -0x1.6b01ec5417056p-56
#define KILN_TAN_PI8 0x1.a827999fcef32p-2

/*
 * p = sum_{k=1..K} (-1)^k z^(k-1) / (2k+1) by Horner, K = 19 for double or 9 for float;
 * the coefficients are constant expressions, folded by Clang.
 */
#define KILN_STEP(T, k) p = KILN_FMA(p, z, (T)((k) % 2 ? -1.0 : 1.0) / (T)(2 * (k) + 1))
#define KILN_ATAN_SERIES_D(T)                                                                      \
    T p = (T)(-1.0 / 39);                                                                          \
    KILN_STEP(T, 18);                                                                              \
    KILN_STEP(T, 17);                                                                              \
    KILN_STEP(T, 16);                                                                              \
    KILN_STEP(T, 15);                                                                              \
    KILN_STEP(T, 14);                                                                              \
    KILN_STEP(T, 13);                                                                              \
    KILN_STEP(T, 12);                                                                              \
    KILN_STEP(T, 11);                                                                              \
    KILN_STEP(T, 10);                                                                              \
    KILN_STEP(T, 9);                                                                               \
    KILN_STEP(T, 8);                                                                               \
    KILN_STEP(T, 7);                                                                               \
    KILN_STEP(T, 6);                                                                               \
    KILN_STEP(T, 5);                                                                               \
    KILN_STEP(T, 4);                                                                               \
    KILN_STEP(T, 3);                                                                               \
    KILN_STEP(T, 2);                                                                               \
    KILN_STEP(T, 1);
#define KILN_ATAN_SERIES_F(T)                                                                      \
    T p = (T)(-1.0 / 19);                                                                          \
    KILN_STEP(T, 8);                                                                               \
    KILN_STEP(T, 7);                                                                               \
    KILN_STEP(T, 6);                                                                               \
    KILN_STEP(T, 5);                                                                               \
    KILN_STEP(T, 4);                                                                               \
    KILN_STEP(T, 3);                                                                               \
    KILN_STEP(T, 2);                                                                               \
    KILN_STEP(T, 1);

/*
 * The cores, over double gentypes T (I their long type); SUF names the precision:
 * _d for double results, _f for results that will be rounded to float.
 */
#define KILN_ATAN_CORES(T, I, SUF, SERIES)                                                         \
    /* atan(a), 0 <= a <= 1 */                                                                     \
    static T KILN_OVERLOAD kiln_atan01##SUF(T a)                                                   \
    {                                                                                              \
        I big = a > (T)KILN_TAN_PI8;                                                               \
        T t = big ? (a - (T)1) / (a + (T)1) : a;                                                   \
        T z = t * t;                                                                               \
        SERIES(T);                                                                                 \
        T r = KILN_FMA(t * z, p, t);                                                               \
        return big ? (T)KILN_PI4_HI + (r + (T)KILN_PI4_LO) : r;                                    \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_atan##SUF(T x)                                                     \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        I inv = ax > (T)1;                                                                         \
        T r = kiln_atan01##SUF(inv ? (T)1 / ax : ax);                                              \
        r = inv ? (T)KILN_PI2_HI - (r - (T)KILN_PI2_LO) : r;                                       \
        return KILN_CSIGN(r, x);                                                                   \
    }                                                                                              \
    /* atan2(y, x) = atan(min/max) reflected into its octant; C99 F.9.1.4 for the rest. */         \
    static T KILN_OVERLOAD kiln_atan2##SUF(T y, T x)                                               \
    {                                                                                              \
        T ax = KILN_ABS(x), ay = KILN_ABS(y);                                                      \
        T mx = __builtin_elementwise_max(ax, ay), mn = __builtin_elementwise_min(ax, ay);          \
        T a = mn / mx;                                                                             \
        a = mx == (T)0 ? (T)0 : a;                         /* both zero */                         \
        a = ((ax == (T)INFINITY) & (ay == ax)) ? (T)1 : a; /* both infinite */                     \
        T r = kiln_atan01##SUF(a);                                                                 \
        r = ay > ax ? (T)KILN_PI2_HI - (r - (T)KILN_PI2_LO) : r;                                   \
        r = KILN_ASTYPE(x, I) < (I)0 ? (T)KILN_PI_HI - (r - (T)KILN_PI_LO) : r;                    \
        r = KILN_CSIGN(r, y);                                                                      \
        return ((x != x) | (y != y)) ? x + y : r;                                                  \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_asin##SUF(T x)                                                     \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        return KILN_CSIGN(                                                                         \
            kiln_atan2##SUF(ax, __builtin_elementwise_sqrt(KILN_FMA(-ax, ax, (T)1))), x);          \
    }                                                                                              \
    static T KILN_OVERLOAD kiln_acos##SUF(T x)                                                     \
    {                                                                                              \
        T s = __builtin_elementwise_sqrt(KILN_FMA(-x, x, (T)1));                                   \
        return (x != x) ? x : kiln_atan2##SUF(s, x);                                               \
    }                                                                                              \
    /* r / pi with 1/pi in two parts: one rounding; a zero keeps its sign (the low part's */       \
    /* product would otherwise turn -0 into +0) */                                                 \
    static T KILN_OVERLOAD kiln_by_pi##SUF(T r)                                                    \
    {                                                                                              \
        return r == (T)0 ? r : KILN_FMA(r, (T)KILN_IPI_HI, r * (T)KILN_IPI_LO);                    \
    }

#define KILN_ATAN_CORES_BOTH(T, S, I, U, N, CV)                                                    \
    KILN_ATAN_CORES(T, I, _d, KILN_ATAN_SERIES_D)                                                  \
    KILN_ATAN_CORES(T, I, _f, KILN_ATAN_SERIES_F)
KILN_SHAPES_DOUBLE(KILN_ATAN_CORES_BOTH)

/*
 * hypot in double: the larger magnitude is brought near 1 by an exact power of two
 * when it is huge or tiny, so neither square overflows or underflows, and the sum of
 * squares is one fma. An infinity wins over a NaN (C99 F.9.4.3).
 */
#define KILN_HYPOT_D(T, S, I, U, N, CV)                                                            \
    T KILN_OVERLOAD hypot(T x, T y)                                                                \
    {                                                                                              \
        T ax = KILN_ABS(x), ay = KILN_ABS(y);                                                      \
        T mx = __builtin_elementwise_max(ax, ay), mn = __builtin_elementwise_min(ax, ay);          \
        T sc = mx > (T)0x1p500 ? (T)0x1p-600 : (mx < (T)0x1p-500 ? (T)0x1p600 : (T)1);             \
        T big = mx * sc, small = mn * sc;                                                          \
        T r = __builtin_elementwise_sqrt(KILN_FMA(big, big, small * small)) / sc;                  \
        r = ((x != x) | (y != y)) ? x + y : r;                                                     \
        return ((ax == (T)INFINITY) | (ay == (T)INFINITY)) ? (T)INFINITY : r;                      \
    }
KILN_SHAPES_DOUBLE(KILN_HYPOT_D)

#define KILN_INVTRIG_D(T, S, I, U, N, CV)                                                          \
    T KILN_OVERLOAD atan(T x)                                                                      \
    {                                                                                              \
        return kiln_atan_d(x);                                                                     \
    }                                                                                              \
    T KILN_OVERLOAD atan2(T y, T x)                                                                \
    {                                                                                              \
        return kiln_atan2_d(y, x);                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD asin(T x)                                                                      \
    {                                                                                              \
        return kiln_asin_d(x);                                                                     \
    }                                                                                              \
    T KILN_OVERLOAD acos(T x)                                                                      \
    {                                                                                              \
        return kiln_acos_d(x);                                                                     \
    }                                                                                              \
    T KILN_OVERLOAD atanpi(T x)                                                                    \
    {                                                                                              \
        return kiln_by_pi_d(kiln_atan_d(x));                                                       \
    }                                                                                              \
    T KILN_OVERLOAD atan2pi(T y, T x)                                                              \
    {                                                                                              \
        return kiln_by_pi_d(kiln_atan2_d(y, x));                                                   \
    }                                                                                              \
    T KILN_OVERLOAD asinpi(T x)                                                                    \
    {                                                                                              \
        return kiln_by_pi_d(kiln_asin_d(x));                                                       \
    }                                                                                              \
    T KILN_OVERLOAD acospi(T x)                                                                    \
    {                                                                                              \
        return kiln_by_pi_d(kiln_acos_d(x));                                                       \
    }
KILN_SHAPES_DOUBLE(KILN_INVTRIG_D)

/* float: through double, one rounding at the end. */
#define KILN_INVTRIG_F(F, D, CV)                                                                   \
    F KILN_OVERLOAD hypot(F x, F y)                                                                \
    {                                                                                              \
        D dx = CV(x, D), dy = CV(y, D);                                                            \
        D r = __builtin_elementwise_sqrt(KILN_FMA(dx, dx, dy * dy));                               \
        r = ((dx != dx) | (dy != dy)) ? dx + dy : r;                                               \
        r = ((KILN_ABS(dx) == (D)INFINITY) | (KILN_ABS(dy) == (D)INFINITY)) ? (D)INFINITY : r;     \
        return CV(r, F);                                                                           \
    }                                                                                              \
    F KILN_OVERLOAD atan(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_atan_f(CV(x, D)), F);                                                       \
    }                                                                                              \
    F KILN_OVERLOAD atan2(F y, F x)                                                                \
    {                                                                                              \
        return CV(kiln_atan2_f(CV(y, D), CV(x, D)), F);                                            \
    }                                                                                              \
    F KILN_OVERLOAD asin(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_asin_f(CV(x, D)), F);                                                       \
    }                                                                                              \
    F KILN_OVERLOAD acos(F x)                                                                      \
    {                                                                                              \
        return CV(kiln_acos_f(CV(x, D)), F);                                                       \
    }                                                                                              \
    F KILN_OVERLOAD atanpi(F x)                                                                    \
    {                                                                                              \
        return CV(kiln_by_pi_f(kiln_atan_f(CV(x, D))), F);                                         \
    }                                                                                              \
    F KILN_OVERLOAD atan2pi(F y, F x)                                                              \
    {                                                                                              \
        return CV(kiln_by_pi_f(kiln_atan2_f(CV(y, D), CV(x, D))), F);                              \
    }                                                                                              \
    F KILN_OVERLOAD asinpi(F x)                                                                    \
    {                                                                                              \
        return CV(kiln_by_pi_f(kiln_asin_f(CV(x, D))), F);                                         \
    }                                                                                              \
    F KILN_OVERLOAD acospi(F x)                                                                    \
    {                                                                                              \
        return CV(kiln_by_pi_f(kiln_acos_f(CV(x, D))), F);                                         \
    }
KILN_SHAPES_F_D(KILN_INVTRIG_F)
