/*
 * half (cl_khr_fp16) forms of the functions of exact.cl, inverse_trig.cl, hyperbolic.cl,
 * erf.cl and gamma.cl, scalar and every vector width.
 *
 * Each is the float function on the widened arguments, rounded once to half. For the
 * exact functions the float result is a half already (float holds every sum, difference,
 * remainder and scaling of halves exactly, or rounds beyond half's range in the same
 * direction), so the conversion is exact; fract then caps its result at the largest half
 * below 1, since 1 - 2^-24 is a float but not a half. The float forms of the others are
 * within about half a float ulp, 2^13 times finer than half's ulp. nextafter and nan work
 * on the half bits directly.
 */
#include "kiln_math.h"
#include "math_ieee.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

KILN_HALF_WIDEN_ALL

/* H the half gentype, F the float one, N int, S16 short, U16 ushort; CV the conversion. */
#define KILN_SHAPES_HALF(X)                                                                        \
    X(half, float, int, short, ushort, KILN_CAST)                                                  \
    X(half2, float2, int2, short2, ushort2, KILN_CVEC)                                             \
    X(half3, float3, int3, short3, ushort3, KILN_CVEC)                                             \
    X(half4, float4, int4, short4, ushort4, KILN_CVEC)                                             \
    X(half8, float8, int8, short8, ushort8, KILN_CVEC)                                             \
    X(half16, float16, int16, short16, ushort16, KILN_CVEC)

#define KILN_UNARY_LIST(X, ...)                                                                    \
    X(ceil, __VA_ARGS__)                                                                           \
    X(floor, __VA_ARGS__)                                                                          \
    X(trunc, __VA_ARGS__)                                                                          \
    X(round, __VA_ARGS__)                                                                          \
    X(rint, __VA_ARGS__)                                                                           \
    X(logb, __VA_ARGS__)                                                                           \
    X(atan, __VA_ARGS__)                                                                           \
    X(asin, __VA_ARGS__)                                                                           \
    X(acos, __VA_ARGS__)                                                                           \
    X(atanpi, __VA_ARGS__)                                                                         \
    X(asinpi, __VA_ARGS__)                                                                         \
    X(acospi, __VA_ARGS__)                                                                         \
    X(sinh, __VA_ARGS__)                                                                           \
    X(cosh, __VA_ARGS__)                                                                           \
    X(tanh, __VA_ARGS__)                                                                           \
    X(asinh, __VA_ARGS__)                                                                          \
    X(acosh, __VA_ARGS__)                                                                          \
    X(atanh, __VA_ARGS__)                                                                          \
    X(erf, __VA_ARGS__)                                                                            \
    X(erfc, __VA_ARGS__)                                                                           \
    X(lgamma, __VA_ARGS__)                                                                         \
    X(tgamma, __VA_ARGS__)
#define KILN_BINARY_LIST(X, ...)                                                                   \
    X(copysign, __VA_ARGS__)                                                                       \
    X(fdim, __VA_ARGS__)                                                                           \
    X(fmod, __VA_ARGS__)                                                                           \
    X(remainder, __VA_ARGS__)                                                                      \
    X(maxmag, __VA_ARGS__)                                                                         \
    X(minmag, __VA_ARGS__)                                                                         \
    X(hypot, __VA_ARGS__)                                                                          \
    X(atan2, __VA_ARGS__)                                                                          \
    X(atan2pi, __VA_ARGS__)

/*
 * Defining these names here hides Clang's implicit declarations of them, so the float
 * forms the half ones call are declared first (they are defined in the other files).
 */
#define KILN_DECL_1(name, F, N) F KILN_OVERLOAD name(F x);
#define KILN_DECL_2(name, F, N) F KILN_OVERLOAD name(F x, F y);
#define KILN_FLOAT_DECLS(H, F, N, S16, U16, CV)                                                    \
    KILN_UNARY_LIST(KILN_DECL_1, F, N)                                                             \
    KILN_BINARY_LIST(KILN_DECL_2, F, N)                                                            \
    N KILN_OVERLOAD ilogb(F x);                                                                    \
    F KILN_OVERLOAD ldexp(F x, N n);                                                               \
    F KILN_OVERLOAD fract(F x, __generic F *iptr);                                                 \
    F KILN_OVERLOAD modf(F x, __generic F *iptr);                                                  \
    F KILN_OVERLOAD frexp(F x, __generic N *exp);                                                  \
    F KILN_OVERLOAD remquo(F x, F y, __generic N *quo);                                            \
    F KILN_OVERLOAD lgamma_r(F x, __generic N *signp);
KILN_SHAPES_HALF(KILN_FLOAT_DECLS)

#define KILN_VIA_1(name, H, F, CV)                                                                 \
    H KILN_OVERLOAD name(H x)                                                                      \
    {                                                                                              \
        return CV(name(kiln_half_widen(x)), H);                                                    \
    }
#define KILN_VIA_2(name, H, F, CV)                                                                 \
    H KILN_OVERLOAD name(H x, H y)                                                                 \
    {                                                                                              \
        return CV(name(kiln_half_widen(x), kiln_half_widen(y)), H);                                \
    }

#define KILN_HALF_FORMS(H, F, N, S16, U16, CV)                                                     \
    KILN_UNARY_LIST(KILN_VIA_1, H, F, CV)                                                          \
    KILN_BINARY_LIST(KILN_VIA_2, H, F, CV)                                                         \
    N KILN_OVERLOAD ilogb(H x)                                                                     \
    {                                                                                              \
        return ilogb(kiln_half_widen(x));                                                          \
    }                                                                                              \
    H KILN_OVERLOAD ldexp(H x, N n)                                                                \
    {                                                                                              \
        return CV(ldexp(kiln_half_widen(x), n), H);                                                \
    }                                                                                              \
    H KILN_OVERLOAD fract(H x, __generic H *iptr)                                                  \
    {                                                                                              \
        F i;                                                                                       \
        H r = CV(fract(kiln_half_widen(x), &i), H);                                                \
        *iptr = CV(i, H);                                                                          \
        return r >= (H)1 ? (H)0x1.ffcp-1h : r;                                                     \
    }                                                                                              \
    H KILN_OVERLOAD modf(H x, __generic H *iptr)                                                   \
    {                                                                                              \
        F i;                                                                                       \
        H r = CV(modf(kiln_half_widen(x), &i), H);                                                 \
        *iptr = CV(i, H);                                                                          \
        return r;                                                                                  \
    }                                                                                              \
    H KILN_OVERLOAD frexp(H x, __generic N *exp)                                                   \
    {                                                                                              \
        return CV(frexp(kiln_half_widen(x), exp), H);                                              \
    }                                                                                              \
    H KILN_OVERLOAD remquo(H x, H y, __generic N *quo)                                             \
    {                                                                                              \
        return CV(remquo(kiln_half_widen(x), kiln_half_widen(y), quo), H);                         \
    }                                                                                              \
    H KILN_OVERLOAD lgamma_r(H x, __generic N *signp)                                              \
    {                                                                                              \
        return CV(lgamma_r(kiln_half_widen(x), signp), H);                                         \
    }                                                                                              \
    /* The next half towards y: one step of the integer encoding, as in exact.cl. */               \
    H KILN_OVERLOAD nextafter(H x, H y)                                                            \
    {                                                                                              \
        S16 bx = KILN_ASTYPE(x, S16), by = KILN_ASTYPE(y, S16);                                    \
        S16 sign = (S16)(-0x7fff - 1);                                                             \
        S16 mag = bx & (S16)0x7fff;                                                                \
        S16 away = (y > x) ^ (x < (H)0);                                                           \
        H r = KILN_ASTYPE((S16)((bx & sign) | (away ? mag + (S16)1 : mag - (S16)1)), H);           \
        r = x == (H)0 ? KILN_ASTYPE((S16)((by & sign) | (S16)1), H) : r;                           \
        r = x == y ? y : r;                                                                        \
        return ((x != x) | (y != y)) ? x + y : r;                                                  \
    }                                                                                              \
    H KILN_OVERLOAD nan(U16 code)                                                                  \
    {                                                                                              \
        return KILN_ASTYPE((U16)((code & (U16)0x3ff) | (U16)0x7e00), H);                           \
    }
KILN_SHAPES_HALF(KILN_HALF_FORMS)

/* ldexp(halfn, int) */
#define KILN_HALF_LDEXP_SPLAT(H, F, N, S16, U16, CV)                                               \
    H KILN_OVERLOAD ldexp(H x, int n)                                                              \
    {                                                                                              \
        return CV(ldexp(kiln_half_widen(x), (N)n), H);                                             \
    }
KILN_HALF_LDEXP_SPLAT(half2, float2, int2, short2, ushort2, KILN_CVEC)
KILN_HALF_LDEXP_SPLAT(half3, float3, int3, short3, ushort3, KILN_CVEC)
KILN_HALF_LDEXP_SPLAT(half4, float4, int4, short4, ushort4, KILN_CVEC)
KILN_HALF_LDEXP_SPLAT(half8, float8, int8, short8, ushort8, KILN_CVEC)
KILN_HALF_LDEXP_SPLAT(half16, float16, int16, short16, ushort16, KILN_CVEC)

/* The OpenCL C 1.x forms with a named address space, as in exact.cl. */
#define KILN_HALF_PTR_AS(AS, H, N)                                                                 \
    H KILN_OVERLOAD fract(H x, AS H *iptr)                                                         \
    {                                                                                              \
        return fract(x, (__generic H *)iptr);                                                      \
    }                                                                                              \
    H KILN_OVERLOAD modf(H x, AS H *iptr)                                                          \
    {                                                                                              \
        return modf(x, (__generic H *)iptr);                                                       \
    }                                                                                              \
    H KILN_OVERLOAD frexp(H x, AS N *exp)                                                          \
    {                                                                                              \
        return frexp(x, (__generic N *)exp);                                                       \
    }                                                                                              \
    H KILN_OVERLOAD remquo(H x, H y, AS N *quo)                                                    \
    {                                                                                              \
        return remquo(x, y, (__generic N *)quo);                                                   \
    }                                                                                              \
    H KILN_OVERLOAD lgamma_r(H x, AS N *signp)                                                     \
    {                                                                                              \
        return lgamma_r(x, (__generic N *)signp);                                                  \
    }
#define KILN_HALF_PTR_ALL(H, F, N, S16, U16, CV)                                                   \
    KILN_HALF_PTR_AS(__global, H, N)                                                               \
    KILN_HALF_PTR_AS(__local, H, N)                                                                \
    KILN_HALF_PTR_AS(__private, H, N)
KILN_SHAPES_HALF(KILN_HALF_PTR_ALL)
