/*
 * Helpers shared by the conversion and vector-data families (convert/, vload/): the
 * per-type facts their macros need, one converter that works for scalars and vectors,
 * and the half <-> float/double bit conversions, which both families use.
 *
 * The half conversions are done on the bits, with integer operations only, so they
 * need neither F16C nor a libgcc helper (LLVM lowers a double -> half fptrunc to a
 * library call on x86), honour every rounding mode without touching the floating-point
 * environment, and vectorise like any other integer code.
 */
#ifndef KILN_KERNEL_LIB_KILN_CONV_H
#define KILN_KERNEL_LIB_KILN_CONV_H

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
/*
 * Calls between library functions pass 32- and 64-byte vectors, which Clang warns change
 * the ABI without AVX. They never cross a real call: every library function is inlined
 * into the kernel, compiled with the same flags.
 */
#pragma clang diagnostic ignored "-Wpsabi"

/* Rounding modes, as constants the helpers' callers pass and Clang folds. */
#define KILN_RM_DEF 0 /* the conversion's default: _rtz to integers, _rte to floating types */
#define KILN_RM_RTE 1
#define KILN_RM_RTZ 2
#define KILN_RM_RTP 3
#define KILN_RM_RTN 4

/*
 * KILN_CVT_<N>(x, T): x converted to T element by element, C rules (truncation toward
 * zero from floating types, round to nearest even to them). N is empty for scalars.
 */
#define KILN_CVT_(x, T)   ((T)(x))
#define KILN_CVT_2(x, T)  __builtin_convertvector((x), T)
#define KILN_CVT_3(x, T)  __builtin_convertvector((x), T)
#define KILN_CVT_4(x, T)  __builtin_convertvector((x), T)
#define KILN_CVT_8(x, T)  __builtin_convertvector((x), T)
#define KILN_CVT_16(x, T) __builtin_convertvector((x), T)
#define KILN_CVT(N, x, T) KILN_CVT_##N(x, T)

#define KILN_EMAX(a, b) __builtin_elementwise_max((a), (b))
#define KILN_EMIN(a, b) __builtin_elementwise_min((a), (b))

/*
 * Round-to-integral-value for a rounding mode; _rtz and the default are left to the
 * conversion itself, which truncates.
 */
#define KILN_ROUND(M, x)                                                                           \
    ((M) == KILN_RM_RTE   ? __builtin_elementwise_roundeven(x)                                     \
     : (M) == KILN_RM_RTP ? __builtin_elementwise_ceil(x)                                          \
     : (M) == KILN_RM_RTN ? __builtin_elementwise_floor(x)                                         \
                          : (x))

/*
 * KILN_DIRECT(M, c, neg): the change, -1, 0 or +1, to add to the magnitude bits of a
 * floating-point value f rounded to nearest, so that it is rounded by mode M instead.
 * c is +1 when the exact value's magnitude is above |f|, -1 when below, 0 when f is
 * exact; neg says f is negative (its sign bit, so -0 counts). All three have the bit
 * type of f. Rounding to nearest moved f by at most one step, so one step back is
 * enough: toward zero undoes a step away from zero, toward +inf a step down of a
 * positive (up of a negative) value, toward -inf the reverse.
 */
#define KILN_DIRECT(M, c, neg)                                                                     \
    ((M) == KILN_RM_RTZ   ? KILN_EMIN(c, 0 * (c))                                                  \
     : (M) == KILN_RM_RTP ? ((neg) ? KILN_EMIN(c, 0 * (c)) : KILN_EMAX(c, 0 * (c)))                \
     : (M) == KILN_RM_RTN ? ((neg) ? KILN_EMAX(c, 0 * (c)) : KILN_EMIN(c, 0 * (c)))                \
                          : 0 * (c))

/*
 * kiln_d2h<N>(x, mode) and kiln_f2h<N>(x, mode): the bits of the half nearest x in
 * rounding mode `mode` (KILN_RM_DEF means _rte), from a double or a float. Correct for
 * every input, denormal halves included: the significand is shifted right to the
 * half's precision (further for results below the normal range, at most to the
 * sign bit's place, which leaves only sticky bits), the bits shifted out decide the
 * increment, and a carry out of the significand moves to the next binade or to
 * infinity by itself. Results beyond the largest half are infinity or HALF_MAX as the
 * mode says; a NaN stays a quiet NaN with the top of its payload and its sign. Both
 * are one template, KILN_TO_HALF, over the source format: its unsigned and signed bit
 * types U and S, its width W, FRAC significand bits and exponent bias BIAS.
 *
 * kiln_h2f<N>(bits): the float equal to a half (exact).
 */
#define KILN_TO_HALF(NAME, FT, U, S, N, W, FRAC, BIAS)                                             \
    static inline ushort##N NAME##N(FT##N x, int mode)                                             \
    {                                                                                              \
        U##N b = as_##U##N(x);                                                                     \
        U##N sign = b >> (W - 1);                                                                  \
        U##N a = b & ~((U##N)1 << (W - 1));                                                        \
        U##N inf = (((U##N)1 << (W - 1 - FRAC)) - 1) << FRAC;                                      \
        S##N e = as_##S##N(a >> FRAC) - (BIAS - 15); /* the half's biased exponent */              \
        U##N one = (U##N)1 << FRAC;                                                                \
        U##N m = (a & (one - 1)) | (a >= one ? one : (U##N)0);                                     \
        U##N sh = as_##U##N(KILN_EMIN((FRAC - 10) + KILN_EMAX(1 - e, (S##N)0), (S##N)(W - 1)));    \
        U##N q = m >> sh;                                                                          \
        U##N rem = m & (((U##N)1 << sh) - 1);                                                      \
        U##N tie = (U##N)1 << (sh - 1);                                                            \
        U##N r = q + (e > 0 ? as_##U##N(e - 1) << 10 : (U##N)0);                                   \
        U##N up;                                                                                   \
        if (mode == KILN_RM_RTZ)                                                                   \
            up = (U##N)0;                                                                          \
        else if (mode == KILN_RM_RTP)                                                              \
            up = (rem != 0 && sign == 0) ? (U##N)1 : (U##N)0;                                      \
        else if (mode == KILN_RM_RTN)                                                              \
            up = (rem != 0 && sign != 0) ? (U##N)1 : (U##N)0;                                      \
        else                                                                                       \
            up = (rem > tie || (rem == tie && (r & 1) != 0)) ? (U##N)1 : (U##N)0;                  \
        r += up;                                                                                   \
        /* Beyond the largest binade: infinity, or HALF_MAX when rounding toward zero. */          \
        U##N big = (U##N)0x7c00;                                                                   \
        if (mode == KILN_RM_RTZ)                                                                   \
            big = (U##N)0x7bff;                                                                    \
        else if (mode == KILN_RM_RTP)                                                              \
            big = sign != 0 ? (U##N)0x7bff : (U##N)0x7c00;                                         \
        else if (mode == KILN_RM_RTN)                                                              \
            big = sign != 0 ? (U##N)0x7c00 : (U##N)0x7bff;                                         \
        r = e >= 31 ? big : r;                                                                     \
        r = a == inf ? (U##N)0x7c00 : r;                                                           \
        r = a > inf ? (0x7e00 | ((a >> (FRAC - 10)) & 0x1ff)) : r;                                 \
        return KILN_CVT(N, r | (sign << 15), ushort##N);                                           \
    }

#define KILN_HALF_HELPERS(N)                                                                       \
    KILN_TO_HALF(kiln_d2h, double, ulong, long, N, 64, 52, 1023)                                   \
    KILN_TO_HALF(kiln_f2h, float, uint, int, N, 32, 23, 127)                                       \
    static inline float##N kiln_h2f##N(ushort##N bits)                                             \
    {                                                                                              \
        uint##N h = KILN_CVT(N, bits, uint##N);                                                    \
        uint##N a = h & 0x7fff;                                                                    \
        uint##N norm = (a << 13) + 0x38000000; /* rebias the exponent: 127 - 15 */                 \
        uint##N den = as_uint##N(KILN_CVT(N, a, float##N) * 0x1p-24f);                             \
        uint##N r = a < 0x400 ? den : (a >= 0x7c00 ? ((a << 13) | 0x7f800000) : norm);             \
        return as_float##N(r | ((h & 0x8000) << 16));                                              \
    }

KILN_HALF_HELPERS()
KILN_HALF_HELPERS(2)
KILN_HALF_HELPERS(3)
KILN_HALF_HELPERS(4)
KILN_HALF_HELPERS(8)
KILN_HALF_HELPERS(16)

#endif
