/*
 * Private header of the math family: the shapes every math builtin is expanded over,
 * the IEEE layout constants of float and double, and the bit-level helpers that
 * several math files share (defined once, in math/exact.cl).
 *
 * A builtin is written once as a macro of (T, S, I, U, N, CV):
 *   T  the floating gentype (float4),        S  its scalar type (float),
 *   I  the signed integer of T's width and lane count (int4; long4 for double4),
 *   U  the unsigned one (uint4; ulong4),     N  the int vector of T's lane count (int4),
 *   CV the conversion between same-count vectors: a cast for scalars,
 *      __builtin_convertvector for vectors (OpenCL C forbids vector casts).
 * Comparisons of T give I masks (-1/0 for vectors, 1/0 for scalars), and the ternary
 * operator selects lane by lane, so the same source is branch-free for every width.
 */
#ifndef KILN_KERNEL_LIB_MATH_MATH_IEEE_H
#define KILN_KERNEL_LIB_MATH_MATH_IEEE_H

#include "kiln_lib.h"

/*
 * The math files call their helpers with 32- and 64-byte vectors. Clang warns that
 * without AVX these are passed in memory; both sides are compiled with the same flags
 * and the library is inlined into each kernel, so that ABI is never seen.
 */
#pragma clang diagnostic ignored "-Wpsabi"

#define KILN_CAST(x, t)   ((t)(x))
#define KILN_CVEC(x, t)   __builtin_convertvector(x, t)
#define KILN_ASTYPE(x, t) __builtin_astype(x, t)

#define KILN_SHAPES_FLOAT(X) X(float, float, int, uint, int, KILN_CAST) KILN_SHAPES_FLOAT_V(X)
#define KILN_SHAPES_FLOAT_V(X)                                                                     \
    X(float2, float, int2, uint2, int2, KILN_CVEC)                                                 \
    X(float3, float, int3, uint3, int3, KILN_CVEC)                                                 \
    X(float4, float, int4, uint4, int4, KILN_CVEC)                                                 \
    X(float8, float, int8, uint8, int8, KILN_CVEC)                                                 \
    X(float16, float, int16, uint16, int16, KILN_CVEC)
#define KILN_SHAPES_DOUBLE(X) X(double, double, long, ulong, int, KILN_CAST) KILN_SHAPES_DOUBLE_V(X)
#define KILN_SHAPES_DOUBLE_V(X)                                                                    \
    X(double2, double, long2, ulong2, int2, KILN_CVEC)                                             \
    X(double3, double, long3, ulong3, int3, KILN_CVEC)                                             \
    X(double4, double, long4, ulong4, int4, KILN_CVEC)                                             \
    X(double8, double, long8, ulong8, int8, KILN_CVEC)                                             \
    X(double16, double, long16, ulong16, int16, KILN_CVEC)
#define KILN_SHAPES_FP(X)   KILN_SHAPES_FLOAT(X) KILN_SHAPES_DOUBLE(X)
#define KILN_SHAPES_FP_V(X) KILN_SHAPES_FLOAT_V(X) KILN_SHAPES_DOUBLE_V(X)

/* float gentype F and the double gentype D of its lane count, for float through double. */
#define KILN_SHAPES_F_D(X)                                                                         \
    X(float, double, KILN_CAST)                                                                    \
    X(float2, double2, KILN_CVEC)                                                                  \
    X(float3, double3, KILN_CVEC)                                                                  \
    X(float4, double4, KILN_CVEC)                                                                  \
    X(float8, double8, KILN_CVEC)                                                                  \
    X(float16, double16, KILN_CVEC)

/* IEEE binary32/binary64 layout, by scalar type: KILN_K(S, MANT) is 23 or 52. */
#define KILN_K(S, NAME)   KILN_##NAME##_##S
#define KILN_MANT_float   23
#define KILN_MANT_double  52
#define KILN_BIAS_float   127
#define KILN_BIAS_double  1023
#define KILN_WIDTH_float  32
#define KILN_WIDTH_double 64
/* 2^(MANT+1): multiplying a denormal by it gives a normal number, exactly. */
#define KILN_NORM_float  0x1p24f
#define KILN_NORM_double 0x1p53
/* 2^-(MANT+2), the scale kiln_scale uses for results below the normal range. */
#define KILN_TINY_float  0x1p-25f
#define KILN_TINY_double 0x1p-54
/* The largest value below 1, which fract never exceeds. */
#define KILN_BELOW1_float  0x1.fffffep-1f
#define KILN_BELOW1_double 0x1.fffffffffffffp-1

/* Bits of the sign, of the exponent field, and of the mantissa field, as I. */
#define KILN_SIGN_BITS(S, I) ((I)1 << (KILN_K(S, WIDTH) - 1))
#define KILN_EXP_BITS(S, I)                                                                        \
    ((((I)1 << (KILN_K(S, WIDTH) - 1 - KILN_K(S, MANT))) - 1) << KILN_K(S, MANT))
#define KILN_MANT_BITS(S, I) ((((I)1) << KILN_K(S, MANT)) - 1)

/*
 * Helpers shared by the math files, defined in math/exact.cl:
 * kiln_exponent(x): floor(log2(|x|)) for finite non-zero x, denormals included; a value
 *   below every such exponent for zero; meaningless for infinities and NaN.
 * kiln_scale(x, n): x * 2^n rounded once (ldexp), for any n of T's integer type.
 */
#define KILN_MATH_HELPERS_DECL(T, S, I, U, N, CV)                                                  \
    I KILN_OVERLOAD kiln_exponent(T x);                                                            \
    T KILN_OVERLOAD kiln_scale(T x, I n);
KILN_SHAPES_FP(KILN_MATH_HELPERS_DECL)

#endif
