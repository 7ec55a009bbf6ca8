/*
 * half (cl_khr_fp16) forms of the basic math builtins of math.cl: sqrt, fabs, fma, mad,
 * fmin and fmax, scalar and every vector width (and fmin/fmax(halfn, half)).
 *
 * Each is computed in float lanes: the CPUs Kiln targets have no half arithmetic of their
 * own (or LLVM does not use it without AVX-512 FP16), and with F16C the widening and the
 * rounding back are one instruction per vector, so a work-item loop of half math
 * vectorises like the float one.
 *
 * Precision (OpenCL C 3.0 §7.4, half column): all of them are exact.
 *  - sqrt: float's correctly rounded square root rounded once more to half is the
 *    correctly rounded half square root: a format of p bits rounds twice without harm
 *    when the wider one has at least 2p + 2 bits (24 >= 2 * 11 + 2). The specification
 *    allows 1.5 ulp; we give 0.5.
 *  - fabs, fmin, fmax: the result is one of the arguments; fabs only clears the sign bit.
 *  - fma: correctly rounded, which float a * b + c rounded to half is not (the sum is
 *    rounded twice). The product of two halves is exact in float (11 + 11 bits); the sum
 *    is rounded to odd in float (the rounded sum, moved one step towards the exact one
 *    when the rounding was inexact and left the last bit even), and a value rounded to odd
 *    with at least 2 bits more than the target rounds to nearest correctly once more.
 *  - mad: "a multiply followed by an add, both correctly rounded": the product rounded to
 *    half, then the sum. Cheaper than fma by the round-to-odd step.
 *
 * Where the CPU has AVX-512 FP16 (the compiler's hook __kiln_host_half_arith() is a
 * constant true), fma and mad are the hardware's fused half multiply-add instead: one
 * instruction for twice float's lanes, correctly rounded (also a correct mad).
 */
#include "kiln_math.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

KILN_CVT_ALL(float, half)
KILN_CVT_ALL(half, float)

/* True where LLVM computes half in half lanes; defined by the compiler (link_library.c). */
bool __kiln_host_half_arith(void);

/*
 * Defining these names here hides Clang's implicit declarations of them, so the float
 * forms the half ones call are declared first (math.cl defines them).
 */
#define KILN_FLOAT_DECLS(F, I)                                                                     \
    F KILN_OVERLOAD sqrt(F x);                                                                     \
    F KILN_OVERLOAD fmin(F x, F y);                                                                \
    F KILN_OVERLOAD fmax(F x, F y);
KILN_FOR_FLOAT_INT(KILN_FLOAT_DECLS)

/* T the half gentype, I the int one and F the float one of the same lane count. */
#define KILN_HALF_IEEE(T, I, F)                                                                    \
    T KILN_OVERLOAD sqrt(T x)                                                                      \
    {                                                                                              \
        return kiln_cvt_##T(__builtin_elementwise_sqrt(kiln_cvt_##F(x)));                          \
    }                                                                                              \
    T KILN_OVERLOAD fabs(T x)                                                                      \
    {                                                                                              \
        return __builtin_elementwise_abs(x);                                                       \
    }                                                                                              \
    T KILN_OVERLOAD fmin(T x, T y)                                                                 \
    {                                                                                              \
        return kiln_cvt_##T(__builtin_elementwise_min(kiln_cvt_##F(x), kiln_cvt_##F(y)));          \
    }                                                                                              \
    T KILN_OVERLOAD fmax(T x, T y)                                                                 \
    {                                                                                              \
        return kiln_cvt_##T(__builtin_elementwise_max(kiln_cvt_##F(x), kiln_cvt_##F(y)));          \
    }                                                                                              \
    T KILN_OVERLOAD mad(T a, T b, T c)                                                             \
    {                                                                                              \
        if (__kiln_host_half_arith())                                                              \
            return __builtin_elementwise_fma(a, b, c);                                             \
        /* Separate statements: -ffp-contract=on must not fuse the two roundings. */               \
        F p = kiln_cvt_##F(a) * kiln_cvt_##F(b);                                                   \
        F pr = kiln_cvt_##F(kiln_cvt_##T(p));                                                      \
        F s = pr + kiln_cvt_##F(c);                                                                \
        return kiln_cvt_##T(s);                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD fma(T a, T b, T c)                                                             \
    {                                                                                              \
        if (__kiln_host_half_arith())                                                              \
            return __builtin_elementwise_fma(a, b, c);                                             \
        F p = kiln_cvt_##F(a) * kiln_cvt_##F(b); /* exact, or inf/NaN */                           \
        F cf = kiln_cvt_##F(c);                                                                    \
        F s = p + cf;                                                                              \
        /* The rounding error of s (Knuth's two-sum; exact in float for finite sums). */           \
        F bv = s - p;                                                                              \
        F av = s - bv;                                                                             \
        F e = (p - av) + (cf - bv);                                                                \
        /* Round to odd: an inexact s with an even last bit moves one step towards the */          \
        /* exact sum, s + e, whose neighbour there is odd. The exact sum is a multiple of */       \
        /* 2^-48 below 2^33, so s is a normal float and the step never reaches infinity. */        \
        /* A non-finite s (an infinite or NaN argument) makes e a NaN, which |e| > 0 leaves */     \
        /* out. Branch-free, since a scalar ?: would become a branch and keep the */               \
        /* work-item loop from being vectorised; a comparison is masked to 1 because a */          \
        /* vector's true is -1 and a scalar's 1. */                                                \
        I bits = KILN_AS(I, s);                                                                    \
        I step = ((KILN_AS(I, e) ^ bits) >> 31) | 1; /* 1 where e has s's sign, else -1 */         \
        I odd = (__builtin_elementwise_abs(e) > 0.0f) & ~bits & 1;                                 \
        s = KILN_AS(F, bits + step * odd);                                                         \
        return kiln_cvt_##T(s);                                                                    \
    }
KILN_FOR_HALF_INT_FLOAT(KILN_HALF_IEEE)

/* fmin(halfn, half), fmax(halfn, half): the scalar is splat. */
#define KILN_HALF_FMINMAX_SPLAT(T, S)                                                              \
    T KILN_OVERLOAD fmin(T x, S y)                                                                 \
    {                                                                                              \
        return fmin(x, (T)y);                                                                      \
    }                                                                                              \
    T KILN_OVERLOAD fmax(T x, S y)                                                                 \
    {                                                                                              \
        return fmax(x, (T)y);                                                                      \
    }
KILN_FOR_V(KILN_HALF_FMINMAX_SPLAT, half)
