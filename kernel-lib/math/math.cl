/*
 * Math functions (OpenCL C 3.0 §6.15.2), the subset Kiln implements so far, for
 * float and double, scalar and every vector width.
 *
 * They map onto LLVM intrinsics through Clang's elementwise builtins, so the
 * vectoriser and the code generator see them as plain operations.
 * Precision (§7.4): sqrt, fabs, fma, fmin and fmax are exact (0 ulp: sqrt is the
 * correctly rounded IEEE operation, the others are exact by definition). mad may be
 * fused or not (llvm.fmuladd), which the specification allows.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

#define KILN_UNARY(name, builtin, T)                                                               \
    T KILN_OVERLOAD name(T x)                                                                      \
    {                                                                                              \
        return builtin(x);                                                                         \
    }

#define KILN_SQRT(T) KILN_UNARY(sqrt, __builtin_elementwise_sqrt, T)
#define KILN_FABS(T) KILN_UNARY(fabs, __builtin_elementwise_abs, T)
KILN_FOR_GENTYPE_FP(KILN_SQRT)
KILN_FOR_GENTYPE_FP(KILN_FABS)

#define KILN_FMA(T)                                                                                \
    T KILN_OVERLOAD fma(T a, T b, T c)                                                             \
    {                                                                                              \
        return __builtin_elementwise_fma(a, b, c);                                                 \
    }
KILN_FOR_GENTYPE_FP(KILN_FMA)

/* Clang contracts a * b + c into llvm.fmuladd (OpenCL's default -ffp-contract=on). */
#define KILN_MAD(T)                                                                                \
    T KILN_OVERLOAD mad(T a, T b, T c)                                                             \
    {                                                                                              \
        return a * b + c;                                                                          \
    }
KILN_FOR_GENTYPE_FP(KILN_MAD)

/*
 * fmin/fmax return the other operand when one is a NaN, which is llvm.minnum and
 * llvm.maxnum. The gentypef/scalar-float overloads (fmin(float4, float)) splat.
 */
#define KILN_FMINMAX(T)                                                                            \
    T KILN_OVERLOAD fmin(T x, T y)                                                                 \
    {                                                                                              \
        return __builtin_elementwise_min(x, y);                                                    \
    }                                                                                              \
    T KILN_OVERLOAD fmax(T x, T y)                                                                 \
    {                                                                                              \
        return __builtin_elementwise_max(x, y);                                                    \
    }
KILN_FOR_GENTYPE_FP(KILN_FMINMAX)

#define KILN_FMINMAX_SPLAT(T, S)                                                                   \
    T KILN_OVERLOAD fmin(T x, S y)                                                                 \
    {                                                                                              \
        return __builtin_elementwise_min(x, (T)y);                                                 \
    }                                                                                              \
    T KILN_OVERLOAD fmax(T x, S y)                                                                 \
    {                                                                                              \
        return __builtin_elementwise_max(x, (T)y);                                                 \
    }
KILN_FOR_FP_V(KILN_FMINMAX_SPLAT)
