/*
 * The exact math functions (OpenCL C 3.0 §6.15.2; 0 ulp in §7.4): ceil, floor, trunc,
 * round, rint, copysign, fdim, fmod, remainder, remquo, fract, frexp, modf, ldexp,
 * ilogb, logb, nan, nextafter, maxmag and minmag, for float and double, scalar and
 * every vector width, with ldexp(floatn, int) and ldexp(doublen, int).
 *
 * Everything is written once over the shapes of math_ieee.h with selects instead of
 * branches, so a call inside a work-item loop vectorises. Each result is exact: the
 * rounding functions are LLVM's instructions, the others work on the IEEE fields, and
 * fmod is a fixed number of exact reduction steps (see kiln_fmod_core). NaN, infinities,
 * signed zeros and denormals follow §7.5.1 and C99 Annex F.
 */
#include "math_ieee.h"
#include "kiln_lib_types.h"

#define KILN_ABS(x)      __builtin_elementwise_abs(x)
#define KILN_TRUNC(x)    __builtin_elementwise_trunc(x)
#define KILN_FLOOR(x)    __builtin_elementwise_floor(x)
#define KILN_CSIGN(x, y) __builtin_elementwise_copysign(x, y)

/* True (a mask) for infinities and NaN: the exponent field is all ones. */
#define KILN_NONFINITE(x, S, I) ((KILN_ASTYPE(x, I) & KILN_EXP_BITS(S, I)) == KILN_EXP_BITS(S, I))
#define KILN_QNAN(S, I, T)      KILN_ASTYPE(KILN_EXP_BITS(S, I) | ((I)1 << (KILN_K(S, MANT) - 1)), T)

/* ---- shared helpers (declared in math_ieee.h) ---- */

#define KILN_HELPERS(T, S, I, U, N, CV)                                                            \
    I KILN_OVERLOAD kiln_exponent(T x)                                                             \
    {                                                                                              \
        T ax = KILN_ABS(x);                                                                        \
        I den = (KILN_ASTYPE(ax, I) & KILN_EXP_BITS(S, I)) == (I)0;                                \
        T xs = den ? ax * KILN_K(S, NORM) : ax;                                                    \
        I e = (KILN_ASTYPE(xs, I) >> KILN_K(S, MANT)) - (I)KILN_K(S, BIAS);                        \
        return den ? e - (I)(KILN_K(S, MANT) + 1) : e;                                             \
    }                                                                                              \
                                                                                                   \
    /* Set the exponent field directly; results below the normal range are built      */           \
    /* 2^(MANT+2) too large and scaled down by one multiplication, the only rounding. */           \
    T KILN_OVERLOAD kiln_scale(T x, I n)                                                           \
    {                                                                                              \
        const I lim = (I)(4 * KILN_K(S, BIAS));                                                    \
        n = n > lim ? lim : n;                                                                     \
        n = n < -lim ? -lim : n;                                                                   \
        I bits = KILN_ASTYPE(x, I);                                                                \
        I den = (bits & KILN_EXP_BITS(S, I)) == (I)0;                                              \
        T xn = den ? x * KILN_K(S, NORM) : x;                                                      \
        n = den ? n - (I)(KILN_K(S, MANT) + 1) : n;                                                \
        I nb = KILN_ASTYPE(xn, I);                                                                 \
        I e = ((nb & KILN_EXP_BITS(S, I)) >> KILN_K(S, MANT)) + n;                                 \
        I keep = nb & ~KILN_EXP_BITS(S, I);                                                        \
        I et = e < (I) - (KILN_K(S, MANT) + 1) ? (I) - (KILN_K(S, MANT) + 1) : e;                  \
        T normal = KILN_ASTYPE(keep | (e << KILN_K(S, MANT)), T);                                  \
        T tiny = KILN_ASTYPE(keep | ((et + (I)(KILN_K(S, MANT) + 2)) << KILN_K(S, MANT)), T) *     \
                 KILN_K(S, TINY);                                                                  \
        T big = KILN_CSIGN((T)INFINITY, x);                                                        \
        T r = e > (I)(2 * KILN_K(S, BIAS)) ? big : (e < (I)1 ? tiny : normal);                     \
        return ((x == (T)0) | KILN_NONFINITE(x, S, I)) ? x : r;                                    \
    }
KILN_SHAPES_FP(KILN_HELPERS)

/* ---- rounding, sign and comparison functions ---- */

#define KILN_ROUNDING(T, S, I, U, N, CV)                                                           \
    T KILN_OVERLOAD ceil(T x)                                                                      \
    {                                                                                              \
        return __builtin_elementwise_ceil(x);                                                      \
    }                                                                                              \
    T KILN_OVERLOAD floor(T x)                                                                     \
    {                                                                                              \
        return KILN_FLOOR(x);                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD trunc(T x)                                                                     \
    {                                                                                              \
        return KILN_TRUNC(x);                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD rint(T x)                                                                      \
    {                                                                                              \
        return __builtin_elementwise_rint(x);                                                      \
    }                                                                                              \
    /* Halfway cases away from zero; x - trunc(x) is exact, so no 0.5 is ever added. */            \
    T KILN_OVERLOAD round(T x)                                                                     \
    {                                                                                              \
        T t = KILN_TRUNC(x);                                                                       \
        T step = KILN_ABS(x - t) >= (T)0.5 ? (T)1 : (T)0;                                          \
        return t + KILN_CSIGN(step, x);                                                            \
    }                                                                                              \
    T KILN_OVERLOAD copysign(T x, T y)                                                             \
    {                                                                                              \
        return KILN_CSIGN(x, y);                                                                   \
    }                                                                                              \
    T KILN_OVERLOAD fdim(T x, T y)                                                                 \
    {                                                                                              \
        return x <= y ? (T)0 : x - y; /* a NaN fails the test and gives x - y, a NaN */            \
    }                                                                                              \
    T KILN_OVERLOAD maxmag(T x, T y)                                                               \
    {                                                                                              \
        T ax = KILN_ABS(x), ay = KILN_ABS(y);                                                      \
        return ax > ay ? x : (ay > ax ? y : __builtin_elementwise_max(x, y));                      \
    }                                                                                              \
    T KILN_OVERLOAD minmag(T x, T y)                                                               \
    {                                                                                              \
        T ax = KILN_ABS(x), ay = KILN_ABS(y);                                                      \
        return ax < ay ? x : (ay < ax ? y : __builtin_elementwise_min(x, y));                      \
    }                                                                                              \
    /* One step of the integer encoding towards y; from zero, the least denormal. */               \
    T KILN_OVERLOAD nextafter(T x, T y)                                                            \
    {                                                                                              \
        I bx = KILN_ASTYPE(x, I), by = KILN_ASTYPE(y, I);                                          \
        I mag = bx & ~KILN_SIGN_BITS(S, I);                                                        \
        I away = (y > x) ^ (x < (T)0);                                                             \
        T r = KILN_ASTYPE((bx & KILN_SIGN_BITS(S, I)) | (away ? mag + (I)1 : mag - (I)1), T);      \
        r = x == (T)0 ? KILN_ASTYPE((by & KILN_SIGN_BITS(S, I)) | (I)1, T) : r;                    \
        r = x == y ? y : r;                                                                        \
        return ((x != x) | (y != y)) ? x + y : r;                                                  \
    }
KILN_SHAPES_FP(KILN_ROUNDING)

/* ---- exponent fields ---- */

#define KILN_EXPONENTS(T, S, I, U, N, CV)                                                          \
    N KILN_OVERLOAD ilogb(T x)                                                                     \
    {                                                                                              \
        I e = kiln_exponent(x);                                                                    \
        e = x == (T)0 ? (I)FP_ILOGB0 : e;                                                          \
        e = KILN_NONFINITE(x, S, I) ? (I)INT_MAX : e; /* FP_ILOGBNAN and ilogb(inf) */             \
        return CV(e, N);                                                                           \
    }                                                                                              \
    T KILN_OVERLOAD logb(T x)                                                                      \
    {                                                                                              \
        T e = CV(kiln_exponent(x), T);                                                             \
        e = x == (T)0 ? (T)-INFINITY : e;                                                          \
        return KILN_NONFINITE(x, S, I) ? x * x : e;                                                \
    }                                                                                              \
    T KILN_OVERLOAD ldexp(T x, N n)                                                                \
    {                                                                                              \
        return kiln_scale(x, CV(n, I));                                                            \
    }                                                                                              \
    T KILN_OVERLOAD nan(U code)                                                                    \
    {                                                                                              \
        I payload = KILN_ASTYPE(code, I) & KILN_MANT_BITS(S, I);                                   \
        return KILN_ASTYPE(payload | KILN_ASTYPE(KILN_QNAN(S, I, T), I), T);                       \
    }                                                                                              \
    T KILN_OVERLOAD frexp(T x, __generic N *exp)                                                   \
    {                                                                                              \
        I bits = KILN_ASTYPE(x, I);                                                                \
        I den = (bits & KILN_EXP_BITS(S, I)) == (I)0;                                              \
        I nb = KILN_ASTYPE(den ? x * KILN_K(S, NORM) : x, I);                                      \
        I e = ((nb & KILN_EXP_BITS(S, I)) >> KILN_K(S, MANT)) - (I)(KILN_K(S, BIAS) - 1);          \
        e = den ? e - (I)(KILN_K(S, MANT) + 1) : e;                                                \
        T m = KILN_ASTYPE(                                                                         \
            (nb & ~KILN_EXP_BITS(S, I)) | ((I)(KILN_K(S, BIAS) - 1) << KILN_K(S, MANT)), T);       \
        I special = (x == (T)0) | KILN_NONFINITE(x, S, I);                                         \
        *exp = CV(special ? (I)0 : e, N);                                                          \
        return special ? x : m;                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD fract(T x, __generic T *iptr)                                                  \
    {                                                                                              \
        T fl = KILN_FLOOR(x);                                                                      \
        T r = __builtin_elementwise_min(x - fl, (T)KILN_K(S, BELOW1));                             \
        r = KILN_NONFINITE(x, S, I) ? KILN_CSIGN((T)0, x) : r;                                     \
        r = ((x == (T)0) | (x != x)) ? x : r;                                                      \
        *iptr = fl;                                                                                \
        return r;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD modf(T x, __generic T *iptr)                                                   \
    {                                                                                              \
        T t = KILN_TRUNC(x);                                                                       \
        T f = (KILN_NONFINITE(x, S, I) & (x == x)) ? (T)0 : x - t;                                 \
        *iptr = t;                                                                                 \
        return KILN_CSIGN(f, x);                                                                   \
    }
KILN_SHAPES_FP(KILN_EXPONENTS)

#define KILN_LDEXP_SPLAT(T, S, I, U, N, CV)                                                        \
    T KILN_OVERLOAD ldexp(T x, int n)                                                              \
    {                                                                                              \
        return kiln_scale(x, (I)n);                                                                \
    }
KILN_SHAPES_FP_V(KILN_LDEXP_SPLAT)

/* ---- fmod, remainder, remquo ---- */

/*
 * Steps of kiln_fmod_core: each removes at least MANT-1 bits of the gap between the
 * exponents of x and y (at most 276 for float, 2097 for double), and a last one with
 * no gap left brings r below y.
 */
/* 2^k for 0 <= k <= BIAS, from its bits. */
#define KILN_POW2(k, S, I, T) KILN_ASTYPE(((k) + (I)KILN_K(S, BIAS)) << KILN_K(S, MANT), T)

#define KILN_FMOD_STEPS_float  14
#define KILN_FMOD_STEPS_double 43

/*
 * r = ax mod ay for finite ax >= 0, ay > 0, exactly, and the low 7 bits of the
 * quotient floor(ax / ay) in *q.
 *
 * Each step divides r by ys = ay * 2^s (exact: ys <= r), where s makes the quotient below
 * 2^(MANT+1), so k = trunc(r / ys) is an integer the type holds. The rounded division can give the
 * true quotient or one more, never less, so r - k * ys lies in (-ys, ys); it is a multiple of ys's
 * ulp and below 2^(MANT+1) of them, so it is representable and the fma computes it exactly. A
 * negative r gets ys back (exactly, for the same reason). Quotient bits below 2^7 come only from
 * steps with s < 7.
 */
#define KILN_FMOD_CORE(T, S, I, U, N, CV)                                                          \
    static T KILN_OVERLOAD kiln_fmod_core(T ax, T ay, __private I *q)                              \
    {                                                                                              \
        I ey = kiln_exponent(ay);                                                                  \
        I bits = (I)0;                                                                             \
        T r = ax;                                                                                  \
        /* unrolled, so a work-item loop calling fmod stays innermost and vectorises */            \
        _Pragma("unroll") for (int i = 0; i < KILN_K(S, FMOD_STEPS); i++)                          \
        {                                                                                          \
            /* r's exponent field: too large only for a subnormal r, where s is 0 anyway */        \
            I er = (KILN_ASTYPE(r, I) >> KILN_K(S, MANT)) - (I)KILN_K(S, BIAS);                    \
            I s = er - ey - (I)(KILN_K(S, MANT) - 1);                                              \
            s = s > (I)0 ? s : (I)0;                                                               \
            /* ys = ay 2^s in three exact steps, each 2^si a normal number */                      \
            I s1 = s / (I)3, s2 = (s - s1) / (I)2, s3 = s - s1 - s2;                               \
            T ys = ay * KILN_POW2(s1, S, I, T) * KILN_POW2(s2, S, I, T) * KILN_POW2(s3, S, I, T);  \
            T k = KILN_TRUNC(r / ys);                                                              \
            T nr = __builtin_elementwise_fma(-k, ys, r);                                           \
            I neg = nr < (T)0;                                                                     \
            r = neg ? nr + ys : nr;                                                                \
            k = neg ? k - (T)1 : k;                                                                \
            I k7 = CV(k - (T)128 * KILN_FLOOR(k * (T)(1.0 / 128)), I);                             \
            bits = (bits + (s < (I)7 ? k7 << s : (I)0)) & (I)127;                                  \
        }                                                                                          \
        *q = bits;                                                                                 \
        return r;                                                                                  \
    }                                                                                              \
                                                                                                   \
    T KILN_OVERLOAD fmod(T x, T y)                                                                 \
    {                                                                                              \
        I q;                                                                                       \
        T r = kiln_fmod_core(KILN_ABS(x), KILN_ABS(y), &q);                                        \
        r = KILN_CSIGN(r, x);                                                                      \
        r = (KILN_NONFINITE(y, S, I) & (y == y)) ? x : r;                                          \
        I bad = KILN_NONFINITE(x, S, I) | (y != y) | (y == (T)0);                                  \
        return bad ? KILN_QNAN(S, I, T) : r;                                                       \
    }                                                                                              \
                                                                                                   \
    /* remainder and remquo: the fmod result, minus |y| when it rounds the quotient up. */         \
    static T KILN_OVERLOAD kiln_remquo(T x, T y, __private I *quo)                                 \
    {                                                                                              \
        T ay = KILN_ABS(y);                                                                        \
        I q;                                                                                       \
        T r = kiln_fmod_core(KILN_ABS(x), ay, &q);                                                 \
        T twice = r * (T)2; /* exact, or infinity when above every |y| */                          \
        I up = (twice > ay) | ((twice == ay) & ((q & (I)1) != (I)0));                              \
        r = up ? r - ay : r;                                                                       \
        q = (up ? q + (I)1 : q) & (I)127;                                                          \
        I sx = KILN_ASTYPE(x, I) & KILN_SIGN_BITS(S, I);                                           \
        r = KILN_ASTYPE(KILN_ASTYPE(r, I) ^ sx, T);                                                \
        q = (sx ^ (KILN_ASTYPE(y, I) & KILN_SIGN_BITS(S, I))) != (I)0 ? -q : q;                    \
        I keep = KILN_NONFINITE(y, S, I) & (y == y) & !KILN_NONFINITE(x, S, I);                    \
        r = keep ? x : r;                                                                          \
        q = keep ? (I)0 : q;                                                                       \
        I bad = KILN_NONFINITE(x, S, I) | (y != y) | (y == (T)0);                                  \
        *quo = bad ? (I)0 : q;                                                                     \
        return bad ? KILN_QNAN(S, I, T) : r;                                                       \
    }                                                                                              \
    T KILN_OVERLOAD remainder(T x, T y)                                                            \
    {                                                                                              \
        I q;                                                                                       \
        return kiln_remquo(x, y, &q);                                                              \
    }                                                                                              \
    T KILN_OVERLOAD remquo(T x, T y, __generic N *quo)                                             \
    {                                                                                              \
        I q;                                                                                       \
        T r = kiln_remquo(x, y, &q);                                                               \
        *quo = CV(q, N);                                                                           \
        return r;                                                                                  \
    }
KILN_SHAPES_FP(KILN_FMOD_CORE)

/*
 * The OpenCL C 1.x forms with a __global, __local or __private pointer: each converts
 * its pointer to the generic one, which OpenCL C 2.0 allows implicitly.
 */
#define KILN_PTR_FORMS(AS, T, S, I, U, N, CV)                                                      \
    T KILN_OVERLOAD frexp(T x, AS N *exp)                                                          \
    {                                                                                              \
        return frexp(x, (__generic N *)exp);                                                       \
    }                                                                                              \
    T KILN_OVERLOAD fract(T x, AS T *iptr)                                                         \
    {                                                                                              \
        return fract(x, (__generic T *)iptr);                                                      \
    }                                                                                              \
    T KILN_OVERLOAD modf(T x, AS T *iptr)                                                          \
    {                                                                                              \
        return modf(x, (__generic T *)iptr);                                                       \
    }                                                                                              \
    T KILN_OVERLOAD remquo(T x, T y, AS N *quo)                                                    \
    {                                                                                              \
        return remquo(x, y, (__generic N *)quo);                                                   \
    }
#define KILN_PTR_FORMS_NAMED(AS, ...) KILN_PTR_FORMS(AS, __VA_ARGS__)
#define KILN_PTR_FORMS_ALL(T, S, I, U, N, CV)                                                      \
    KILN_PTR_FORMS_NAMED(__global, T, S, I, U, N, CV)                                              \
    KILN_PTR_FORMS_NAMED(__local, T, S, I, U, N, CV)                                               \
    KILN_PTR_FORMS_NAMED(__private, T, S, I, U, N, CV)
KILN_SHAPES_FP(KILN_PTR_FORMS_ALL)
