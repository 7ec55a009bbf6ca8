/*
 * half (cl_khr_fp16) forms of the exponential, logarithm, power and trigonometric
 * builtins: each is the float function on the widened argument, rounded once to half.
 * The float functions are within about 1 ulp of float, 2^13 times finer than half's ulp,
 * so the half result is within half an ulp plus a vanishing margin (tests/api/math_exp.c
 * asserts 1 ulp, below every half bound of OpenCL C 3.0 §7.4).
 */
#include "kiln_math.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

KILN_CVT_ALL(half, float)
KILN_HALF_WIDEN_ALL

#define KILN_HALF_VIA_FLOAT_1(T, F, name)                                                          \
    T KILN_OVERLOAD name(T x)                                                                      \
    {                                                                                              \
        return kiln_cvt_##T(name(kiln_half_widen(x)));                                             \
    }
#define KILN_HALF_VIA_FLOAT_2(T, F, name)                                                          \
    T KILN_OVERLOAD name(T x, T y)                                                                 \
    {                                                                                              \
        return kiln_cvt_##T(name(kiln_half_widen(x), kiln_half_widen(y)));                         \
    }
#define KILN_HALF_VIA_FLOAT_N(T, I, F, name)                                                       \
    T KILN_OVERLOAD name(T x, I n)                                                                 \
    {                                                                                              \
        return kiln_cvt_##T(name(kiln_half_widen(x), n));                                          \
    }
/*
 * sin, cos, tan (and sincos) through native.cl's float-only forms: their three-part
 * reduction is accurate for |x| <= 2^16, which holds every half, and their few float ulps
 * are far below half's; the full float functions reduce in double, on half as many lanes.
 */
#define KILN_HALF_VIA_NATIVE(T, F, name)                                                           \
    T KILN_OVERLOAD name(T x)                                                                      \
    {                                                                                              \
        return kiln_cvt_##T(native_##name(kiln_half_widen(x)));                                    \
    }
#define KILN_HALF_SINCOS_AS(T, F, AS)                                                              \
    T KILN_OVERLOAD sincos(T x, AS T *cosval)                                                      \
    {                                                                                              \
        /* Inlined, the two share their argument reduction. */                                     \
        F xf = kiln_half_widen(x);                                                                 \
        *cosval = kiln_cvt_##T(native_cos(xf));                                                    \
        return kiln_cvt_##T(native_sin(xf));                                                       \
    }

/*
 * Defining a builtin name here hides Clang's implicit declarations of it, so the float
 * forms the half ones call are declared first (they are defined in the other files).
 */
#define KILN_DECL_1(F, name)    F KILN_OVERLOAD name(F x);
#define KILN_DECL_2(F, name)    F KILN_OVERLOAD name(F x, F y);
#define KILN_DECL_N(F, I, name) F KILN_OVERLOAD name(F x, I n);
#define KILN_FLOAT_DECLS(F, I)                                                                     \
    KILN_DECL_1(F, exp)                                                                            \
    KILN_DECL_1(F, exp2)                                                                           \
    KILN_DECL_1(F, exp10)                                                                          \
    KILN_DECL_1(F, expm1)                                                                          \
    KILN_DECL_1(F, log)                                                                            \
    KILN_DECL_1(F, log2)                                                                           \
    KILN_DECL_1(F, log10)                                                                          \
    KILN_DECL_1(F, log1p)                                                                          \
    KILN_DECL_1(F, rsqrt)                                                                          \
    KILN_DECL_1(F, cbrt)                                                                           \
    KILN_DECL_1(F, sin)                                                                            \
    KILN_DECL_1(F, cos)                                                                            \
    KILN_DECL_1(F, tan)                                                                            \
    KILN_DECL_1(F, sinpi)                                                                          \
    KILN_DECL_1(F, cospi)                                                                          \
    KILN_DECL_1(F, tanpi)                                                                          \
    KILN_DECL_2(F, pow)                                                                            \
    KILN_DECL_2(F, powr)                                                                           \
    KILN_DECL_N(F, I, pown)                                                                        \
    KILN_DECL_N(F, I, rootn)                                                                       \
    KILN_DECL_1(F, native_sin)                                                                     \
    KILN_DECL_1(F, native_cos)                                                                     \
    KILN_DECL_1(F, native_tan)
KILN_FOR_FLOAT_INT(KILN_FLOAT_DECLS)

#define KILN_HALF_MATH(T, I, F)                                                                    \
    KILN_HALF_VIA_FLOAT_1(T, F, exp)                                                               \
    KILN_HALF_VIA_FLOAT_1(T, F, exp2)                                                              \
    KILN_HALF_VIA_FLOAT_1(T, F, exp10)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, expm1)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, log)                                                               \
    KILN_HALF_VIA_FLOAT_1(T, F, log2)                                                              \
    KILN_HALF_VIA_FLOAT_1(T, F, log10)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, log1p)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, rsqrt)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, cbrt)                                                              \
    KILN_HALF_VIA_NATIVE(T, F, sin)                                                                \
    KILN_HALF_VIA_NATIVE(T, F, cos)                                                                \
    KILN_HALF_VIA_NATIVE(T, F, tan)                                                                \
    KILN_HALF_VIA_FLOAT_1(T, F, sinpi)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, cospi)                                                             \
    KILN_HALF_VIA_FLOAT_1(T, F, tanpi)                                                             \
    KILN_HALF_VIA_FLOAT_2(T, F, pow)                                                               \
    KILN_HALF_VIA_FLOAT_2(T, F, powr)                                                              \
    KILN_HALF_VIA_FLOAT_N(T, I, F, pown)                                                           \
    KILN_HALF_VIA_FLOAT_N(T, I, F, rootn)                                                          \
    KILN_HALF_SINCOS_AS(T, F, )                                                                    \
    KILN_HALF_SINCOS_AS(T, F, __global)                                                            \
    KILN_HALF_SINCOS_AS(T, F, __local)                                                             \
    KILN_HALF_SINCOS_AS(T, F, __private)

KILN_FOR_HALF_INT_FLOAT(KILN_HALF_MATH)
