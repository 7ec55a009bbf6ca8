/*
 * Private helpers of the math files: type lists that pair a floating type with the
 * integer type of the same width (for bit manipulation with __builtin_astype), the
 * conversions between floating types of the same width, and the spelling of the
 * internal functions the builtins share.
 *
 * Every helper is written without branches on values (selects through the vector
 * ternary operator), so a builtin inlined into a work-item loop vectorises.
 */
#ifndef KILN_KERNEL_LIB_MATH_KILN_MATH_H
#define KILN_KERNEL_LIB_MATH_KILN_MATH_H

#include "kiln_lib.h"
#include "kiln_lib_types.h"

/*
 * The helpers pass 32- and 64-byte vectors between functions, which Clang warns
 * about without AVX; every such call is inlined, so no ABI is involved.
 */
#pragma clang diagnostic ignored "-Wpsabi"

/* Internal helpers: one copy per file, always inlined. */
#define KILN_INTERNAL static inline __attribute__((overloadable, always_inline))

/* X(float type, integer type of the same width), scalar and every vector width. */
#define KILN_FOR_NN(X, F, I)                                                                       \
    X(F, I) X(F##2, I##2) X(F##3, I##3) X(F##4, I##4) X(F##8, I##8) X(F##16, I##16)
#define KILN_FOR_FLOAT_INT(X)   KILN_FOR_NN(X, float, int)
#define KILN_FOR_DOUBLE_LONG(X) KILN_FOR_NN(X, double, long)
/* X(float type, integer type, other float type of the same lane count). */
#define KILN_FOR_NNN(X, F, I, G)                                                                   \
    X(F, I, G)                                                                                     \
    X(F##2, I##2, G##2)                                                                            \
    X(F##3, I##3, G##3) X(F##4, I##4, G##4) X(F##8, I##8, G##8) X(F##16, I##16, G##16)
#define KILN_FOR_FLOAT_INT_DOUBLE(X) KILN_FOR_NNN(X, float, int, double)
#define KILN_FOR_DOUBLE_LONG_INT(X)  KILN_FOR_NNN(X, double, long, int)
#define KILN_FOR_HALF_INT_FLOAT(X)   KILN_FOR_NNN(X, half, int, float)

#define KILN_FMA(a, b, c) __builtin_elementwise_fma((a), (b), (c))
#define KILN_AS(T, x)     __builtin_astype((x), T)

/*
 * kiln_cvt_<to>(x): value conversion between types of the same width (float and
 * double, int and float, ...). OpenCL C forbids casts between vector types.
 */
#define KILN_CVT_SCALAR(TO, FROM)                                                                  \
    KILN_INTERNAL TO kiln_cvt_##TO(FROM x)                                                         \
    {                                                                                              \
        return (TO)x;                                                                              \
    }
#define KILN_CVT_VECTOR(TO, FROM)                                                                  \
    KILN_INTERNAL TO kiln_cvt_##TO(FROM x)                                                         \
    {                                                                                              \
        return __builtin_convertvector(x, TO);                                                     \
    }
#define KILN_CVT_ALL(TO, FROM)                                                                     \
    KILN_CVT_SCALAR(TO, FROM)                                                                      \
    KILN_CVT_VECTOR(TO##2, FROM##2)                                                                \
    KILN_CVT_VECTOR(TO##3, FROM##3)                                                                \
    KILN_CVT_VECTOR(TO##4, FROM##4)                                                                \
    KILN_CVT_VECTOR(TO##8, FROM##8)                                                                \
    KILN_CVT_VECTOR(TO##16, FROM##16)

KILN_CVT_ALL(double, float)
KILN_CVT_ALL(float, double)
KILN_CVT_ALL(float, int)
KILN_CVT_ALL(double, int)
KILN_CVT_ALL(double, long)

/*
 * kiln_half_widen(x): a half gentype to the float one by integer operations, not fpext.
 * InstCombine turns a comparison of fpext(x) with a constant into a comparison of halves,
 * which x86 without AVX-512 FP16 has no vector instruction for: the code generator then
 * compares lane by lane in scalar registers, several times slower than the float function
 * itself. From integers the comparisons stay in float lanes. The magnitude's bits moved to
 * float's places and scaled by 2^112 (the difference of the two exponent biases) give every
 * normal and subnormal half exactly; infinities and NaNs (magnitude 0x7c00 and above) get
 * float's all-ones exponent, a NaN keeping its payload. Files expand KILN_HALF_WIDEN_ALL
 * after enabling cl_khr_fp16.
 */
#define KILN_HALF_WIDEN(F, H, U, US, CV)                                                           \
    KILN_INTERNAL F kiln_half_widen(H x)                                                           \
    {                                                                                              \
        U u = CV(KILN_AS(US, x), U);                                                               \
        U mag = (u & 0x7fffu) << 13;                                                               \
        /* all ones where x is infinite or NaN (a comparison is 1 or -1: masked to 1) */           \
        U special = -(KILN_AS(U, mag >= 0x0f800000u) & 1u);                                        \
        U fin = KILN_AS(U, KILN_AS(F, mag) * 0x1p112f);                                            \
        U bits = (fin & ~special) | ((mag | 0x7f800000u) & special);                               \
        return KILN_AS(F, bits | ((u & 0x8000u) << 16));                                           \
    }
#define KILN_HALF_WIDEN_CAST(x, t) ((t)(x))
#define KILN_HALF_WIDEN_CVEC(x, t) __builtin_convertvector(x, t)
#define KILN_HALF_WIDEN_ALL                                                                        \
    KILN_HALF_WIDEN(float, half, uint, ushort, KILN_HALF_WIDEN_CAST)                               \
    KILN_HALF_WIDEN(float2, half2, uint2, ushort2, KILN_HALF_WIDEN_CVEC)                           \
    KILN_HALF_WIDEN(float3, half3, uint3, ushort3, KILN_HALF_WIDEN_CVEC)                           \
    KILN_HALF_WIDEN(float4, half4, uint4, ushort4, KILN_HALF_WIDEN_CVEC)                           \
    KILN_HALF_WIDEN(float8, half8, uint8, ushort8, KILN_HALF_WIDEN_CVEC)                           \
    KILN_HALF_WIDEN(float16, half16, uint16, ushort16, KILN_HALF_WIDEN_CVEC)

#endif
