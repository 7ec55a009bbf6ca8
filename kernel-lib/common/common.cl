/*
 * Common functions (OpenCL C 3.0 §6.15.4), floating-point min and max so far.
 *
 * min(x, y) is y if y < x, else x; the result is undefined when an operand is a NaN
 * or infinite, so llvm.minnum/maxnum are valid implementations and vectorise well.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

#define KILN_MINMAX(T)                                                                             \
    T KILN_OVERLOAD min(T x, T y)                                                                  \
    {                                                                                              \
        return __builtin_elementwise_min(x, y);                                                    \
    }                                                                                              \
    T KILN_OVERLOAD max(T x, T y)                                                                  \
    {                                                                                              \
        return __builtin_elementwise_max(x, y);                                                    \
    }
KILN_FOR_GENTYPE_FP(KILN_MINMAX)

/* The vector-with-scalar forms (min(float4, float)) splat the scalar. */
#define KILN_MINMAX_SPLAT(T, S)                                                                    \
    T KILN_OVERLOAD min(T x, S y)                                                                  \
    {                                                                                              \
        return __builtin_elementwise_min(x, (T)y);                                                 \
    }                                                                                              \
    T KILN_OVERLOAD max(T x, S y)                                                                  \
    {                                                                                              \
        return __builtin_elementwise_max(x, (T)y);                                                 \
    }
KILN_FOR_FP_V(KILN_MINMAX_SPLAT)
