/*
 * Common functions (OpenCL C 3.0 §6.15.4) for float, double and half (cl_khr_fp16),
 * scalar and every vector width: clamp, degrees, max, min, mix, radians, step, smoothstep and sign,
 * with the vector-scalar forms the specification lists (clamp(float4, float, float),
 * mix(float4, float4, float), step(float, float4), smoothstep(float, float, float4),
 * min(float4, float), max(float4, float)). The integer clamp, min and max are in
 * integer/integer.cl.
 *
 * Precision (§7.4): clamp, min, max, step and sign are exact. degrees and radians are
 * one multiplication by the correctly rounded constant 180/pi or pi/180, within
 * 1.5 ulp (the specification allows 2). mix is x + (y - x) * a, possibly fused, and
 * smoothstep t * t * (3 - 2t) with t = clamp((x - edge0) / (edge1 - edge0), 0, 1);
 * the specification leaves the precision of both to the implementation. Everything
 * is straight-line code with selects, so a kernel calling it still vectorises.
 *
 * min(x, y) is y if y < x, else x; the result is undefined when an operand is a NaN
 * or infinite, so llvm.minnum/maxnum are valid implementations and vectorise well.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

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
KILN_FOR_HALFN(KILN_MINMAX)

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
KILN_FOR_V(KILN_MINMAX_SPLAT, half)

/*
 * clamp(x, lo, hi) is min(max(x, lo), hi) with llvm.maxnum/minnum; undefined when
 * lo > hi (§6.15.4).
 */
#define KILN_CLAMP(T)                                                                              \
    T KILN_OVERLOAD clamp(T x, T lo, T hi)                                                         \
    {                                                                                              \
        return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);                    \
    }
KILN_FOR_GENTYPE_FP(KILN_CLAMP)
KILN_FOR_HALFN(KILN_CLAMP)
#define KILN_CLAMP_SPLAT(T, S)                                                                     \
    T KILN_OVERLOAD clamp(T x, S lo, S hi)                                                         \
    {                                                                                              \
        return __builtin_elementwise_min(__builtin_elementwise_max(x, (T)lo), (T)hi);              \
    }
KILN_FOR_FP_V(KILN_CLAMP_SPLAT)
KILN_FOR_V(KILN_CLAMP_SPLAT, half)

/* 180/pi and pi/180, correctly rounded to each type by the compiler. */
#define KILN_DEGREES_RADIANS(T)                                                                    \
    T KILN_OVERLOAD degrees(T r)                                                                   \
    {                                                                                              \
        return r * (T)57.295779513082320876798154814105;                                           \
    }                                                                                              \
    T KILN_OVERLOAD radians(T d)                                                                   \
    {                                                                                              \
        return d * (T)0.017453292519943295769236907684886;                                         \
    }
KILN_FOR_GENTYPE_FP(KILN_DEGREES_RADIANS)
KILN_FOR_HALFN(KILN_DEGREES_RADIANS)

/*
 * step(edge, x) is 0 where x < edge, else 1 (so 1 for a NaN x). sign(x) is 1 for
 * x > 0, -1 for x < 0, x itself for +-0 and 0 for a NaN. The comparisons give a
 * scalar or a lane mask, and ?: selects with it.
 */
#define KILN_MIX_STEP(T)                                                                           \
    T KILN_OVERLOAD mix(T x, T y, T a)                                                             \
    {                                                                                              \
        return x + (y - x) * a;                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD step(T edge, T x)                                                              \
    {                                                                                              \
        return x < edge ? (T)0 : (T)1;                                                             \
    }                                                                                              \
    T KILN_OVERLOAD smoothstep(T edge0, T edge1, T x)                                              \
    {                                                                                              \
        T t = __builtin_elementwise_min(                                                           \
            __builtin_elementwise_max((x - edge0) / (edge1 - edge0), (T)0), (T)1);                 \
        return t * t * ((T)3 - (T)2 * t);                                                          \
    }                                                                                              \
    T KILN_OVERLOAD sign(T x)                                                                      \
    {                                                                                              \
        T r = x > (T)0 ? (T)1 : x;                                                                 \
        r = x < (T)0 ? (T)-1 : r;                                                                  \
        return x != x ? (T)0 : r;                                                                  \
    }
KILN_FOR_GENTYPE_FP(KILN_MIX_STEP)
KILN_FOR_HALFN(KILN_MIX_STEP)

#define KILN_MIX_STEP_SPLAT(T, S)                                                                  \
    T KILN_OVERLOAD mix(T x, T y, S a)                                                             \
    {                                                                                              \
        return x + (y - x) * (T)a;                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD step(S edge, T x)                                                              \
    {                                                                                              \
        return x < (T)edge ? (T)0 : (T)1;                                                          \
    }                                                                                              \
    T KILN_OVERLOAD smoothstep(S edge0, S edge1, T x)                                              \
    {                                                                                              \
        T t = __builtin_elementwise_min(                                                           \
            __builtin_elementwise_max((x - (T)edge0) / (T)(edge1 - edge0), (T)0), (T)1);           \
        return t * t * ((T)3 - (T)2 * t);                                                          \
    }
KILN_FOR_FP_V(KILN_MIX_STEP_SPLAT)
KILN_FOR_V(KILN_MIX_STEP_SPLAT, half)
