/*
 * Explicit conversions (OpenCL C 3.0 §6.4.3): convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn]
 * for every pair of char, uchar, short, ushort, int, uint, long, ulong, float, double
 * and half, scalar and every vector width (source and destination of the same width).
 * The as_<type> reinterpretations are Clang's own operators.
 *
 * Each function is one macro, KILN_CONV, instantiated for every name the specification
 * declares (_sat only to integer types). Its body is chosen by the classes of the two
 * element types (integer I, float or double F, half H) and written once for every width;
 * the conditions on types and modes are constant, so Clang emits only the branch that
 * applies. Rules (§6.4.3.2 to §6.4.3.4):
 *
 * - integer -> integer: truncation or extension; _sat clamps to the destination's range
 *   first. The rounding modes change nothing.
 * - floating -> integer: rounds as the mode says (default _rtz). Without _sat a value out
 *   of range gives an unspecified value (the specification leaves it undefined). With
 *   _sat it is clamped to the destination's range and NaN gives 0.
 * - integer -> float or double: rounds to nearest even by default. A directed mode
 *   converts to nearest and then moves the result one step when the exact difference
 *   (computed in 64-bit integers, where it is small) says that rounding went the wrong
 *   way. The floating-point environment is never changed.
 * - double -> float: the same correction, the difference coming from comparing the
 *   result converted back (exactly) with the source.
 * - to half: on the bits (kiln_conv.h), every mode correctly rounded, from a float as
 *   it is and from anything else converted exactly to double (every integer up to 2^53
 *   is exact there; larger integers are far beyond the half range, where rounding them
 *   first changes nothing).
 * - from half: exact, on the bits; half -> integer goes through float, which is exact.
 * - widening floating conversions are exact, so every mode gives the same result.
 */
#include "kiln_lib.h"
#include "kiln_conv.h"

/* Facts about each element type: class, signedness, range, bit type. */
#define KILN_CLS_char   I
#define KILN_CLS_uchar  I
#define KILN_CLS_short  I
#define KILN_CLS_ushort I
#define KILN_CLS_int    I
#define KILN_CLS_uint   I
#define KILN_CLS_long   I
#define KILN_CLS_ulong  I
#define KILN_CLS_float  F
#define KILN_CLS_double F
#define KILN_CLS_half   H

#define KILN_SGN_char   1
#define KILN_SGN_uchar  0
#define KILN_SGN_short  1
#define KILN_SGN_ushort 0
#define KILN_SGN_int    1
#define KILN_SGN_uint   0
#define KILN_SGN_long   1
#define KILN_SGN_ulong  0

#define KILN_MIN_char   CHAR_MIN
#define KILN_MIN_uchar  0
#define KILN_MIN_short  SHRT_MIN
#define KILN_MIN_ushort 0
#define KILN_MIN_int    INT_MIN
#define KILN_MIN_uint   0
#define KILN_MIN_long   LONG_MIN
#define KILN_MIN_ulong  0
#define KILN_MAX_char   CHAR_MAX
#define KILN_MAX_uchar  UCHAR_MAX
#define KILN_MAX_short  SHRT_MAX
#define KILN_MAX_ushort USHRT_MAX
#define KILN_MAX_int    INT_MAX
#define KILN_MAX_uint   UINT_MAX
#define KILN_MAX_long   LONG_MAX
#define KILN_MAX_ulong  ULONG_MAX

/* The range of an integer type as exact floating-point bounds: [LO, HI). */
#define KILN_LO_char   -0x1p7
#define KILN_LO_uchar  0.0
#define KILN_LO_short  -0x1p15
#define KILN_LO_ushort 0.0
#define KILN_LO_int    -0x1p31
#define KILN_LO_uint   0.0
#define KILN_LO_long   -0x1p63
#define KILN_LO_ulong  0.0
#define KILN_HI_char   0x1p7
#define KILN_HI_uchar  0x1p8
#define KILN_HI_short  0x1p15
#define KILN_HI_ushort 0x1p16
#define KILN_HI_int    0x1p31
#define KILN_HI_uint   0x1p32
#define KILN_HI_long   0x1p63
#define KILN_HI_ulong  0x1p64

/* The signed integer type of the same size (the type of a vector comparison). */
#define KILN_STYPE_char   char
#define KILN_STYPE_uchar  char
#define KILN_STYPE_short  short
#define KILN_STYPE_ushort short
#define KILN_STYPE_int    int
#define KILN_STYPE_uint   int
#define KILN_STYPE_long   long
#define KILN_STYPE_ulong  long
#define KILN_STYPE_float  int
#define KILN_STYPE_double long

/* Significand bits (with the hidden one) of the floating types. */
#define KILN_PREC_float  24
#define KILN_PREC_double 53

/* Name suffixes. */
#define KILN_SFX_NOSAT
#define KILN_SFX_SAT _sat
#define KILN_SFX_DEF
#define KILN_SFX_RTE  _rte
#define KILN_SFX_RTZ  _rtz
#define KILN_SFX_RTP  _rtp
#define KILN_SFX_RTN  _rtn
#define KILN_IS_SAT   1
#define KILN_IS_NOSAT 0

#define KILN_CAT_(a, b)    a##b
#define KILN_CAT(a, b)     KILN_CAT_(a, b)
#define KILN_CAT3(a, b, c) KILN_CAT(KILN_CAT(a, b), c)
/* The signed integer type of D's size with N elements. */
#define KILN_SN(D, N) KILN_CAT(KILN_STYPE_##D, N)

/* integer -> integer */
#define KILN_BODY_II(S, D, N, SAT, M)                                                              \
    if (SAT) {                                                                                     \
        /* Clamp where S's range passes D's minimum or maximum. */                                 \
        if (KILN_SGN_##S && (!KILN_SGN_##D || sizeof(D) < sizeof(S)))                              \
            x = KILN_EMAX(x, (S##N)(S)KILN_MIN_##D);                                               \
        if (sizeof(D) < sizeof(S) || (sizeof(D) == sizeof(S) && !KILN_SGN_##S && KILN_SGN_##D))    \
            x = KILN_EMIN(x, (S##N)(S)KILN_MAX_##D);                                               \
    }                                                                                              \
    return KILN_CVT(N, x, D##N);

/*
 * integer -> float or double. The 64-bit difference between the source and the result
 * rounded to nearest is exact: it is below one ulp of the result. The result converted
 * back to 64 bits is taken halved and doubled when it is large (it may be 2^63 or 2^64,
 * out of range, but is then even), and the subtraction wraps, so it is right even then.
 */
#define KILN_BODY_IF(S, D, N, SAT, M)                                                              \
    D##N f = KILN_CVT(N, x, D##N);                                                                 \
    if ((M) != KILN_RM_DEF && (M) != KILN_RM_RTE &&                                                \
        sizeof(S) * 8 - KILN_SGN_##S > KILN_PREC_##D) {                                            \
        typedef long##N L;                                                                         \
        typedef ulong##N U;                                                                        \
        L xs = KILN_CVT(N, x, L);                                                                  \
        U xu = KILN_CVT(N, x, U);                                                                  \
        L small;                                                                                   \
        if (KILN_SGN_##S)                                                                          \
            small = xs > -0x2000000000000000L && xs < 0x2000000000000000L ? (L)-1 : (L)0;          \
        else                                                                                       \
            small = xu < 0x2000000000000000UL ? (L)-1 : (L)0;                                      \
        U back;                                                                                    \
        if (KILN_SGN_##S)                                                                          \
            back = small != 0 ? as_ulong##N(KILN_CVT(N, f, L))                                     \
                              : as_ulong##N(KILN_CVT(N, f * 0.5f, L)) << 1;                        \
        else                                                                                       \
            back = small != 0 ? KILN_CVT(N, f, U) : KILN_CVT(N, f * 0.5f, U) << 1;                 \
        L c = KILN_EMAX(KILN_EMIN(as_long##N(xu - back), (L)1), (L)-1);                            \
        L neg = (L)0;                                                                              \
        if (KILN_SGN_##S) {                                                                        \
            neg = xs < 0 ? (L)-1 : (L)0;                                                           \
            c = neg != 0 ? -c : c;                                                                 \
        }                                                                                          \
        L step = KILN_DIRECT(M, c, neg != 0);                                                      \
        f = as_##D##N(KILN_CAT(as_, KILN_SN(D, N))(f) + KILN_CVT(N, step, KILN_SN(D, N)));         \
    }                                                                                              \
    return f;

/* integer -> half: exactly to double, then rounded on the bits; float -> half directly. */
#define KILN_BODY_IH(S, D, N, SAT, M) return as_half##N(kiln_d2h##N(KILN_CVT(N, x, double##N), M));
#define KILN_BODY_FH(S, D, N, SAT, M)                                                              \
    if (sizeof(S) == 4)                                                                            \
        return as_half##N(kiln_f2h##N(KILN_CVT(N, x, float##N), M));                               \
    return as_half##N(kiln_d2h##N(KILN_CVT(N, x, double##N), M));

/* float or double -> integer. */
#define KILN_BODY_FI(S, D, N, SAT, M)                                                              \
    if (!(SAT))                                                                                    \
        return KILN_CVT(N, KILN_ROUND(M, x), D##N);                                                \
    S##N y = KILN_ROUND(M, x);                                                                     \
    /* Out of range or NaN converts a harmless 0, then the maximum is put back. */                 \
    __typeof__(y < y) high = y >= (S##N)(S)KILN_HI_##D;                                            \
    S##N safe = (y != y || high != 0) ? (S##N)0 : KILN_EMAX(y, (S##N)(S)KILN_LO_##D);              \
    D##N r = KILN_CVT(N, safe, D##N);                                                              \
    return KILN_CVT(N, high, KILN_SN(D, N)) ? (D##N)KILN_MAX_##D : r;

/* float or double -> float or double. */
#define KILN_BODY_FF(S, D, N, SAT, M)                                                              \
    D##N f = KILN_CVT(N, x, D##N);                                                                 \
    if ((M) != KILN_RM_DEF && (M) != KILN_RM_RTE && sizeof(D) < sizeof(S)) {                       \
        typedef KILN_SN(S, N) SB;                                                                  \
        typedef KILN_SN(D, N) DB;                                                                  \
        S##N back = KILN_CVT(N, f, S##N);                                                          \
        SB c = back < x ? (SB)1 : (back > x ? (SB)-1 : (SB)0);                                     \
        DB b = KILN_CAT(as_, KILN_SN(D, N))(f);                                                    \
        DB cd = KILN_CVT(N, c, DB);                                                                \
        cd = b < 0 ? -cd : cd;                                                                     \
        f = as_##D##N(b + KILN_DIRECT(M, cd, b < 0));                                              \
    }                                                                                              \
    return f;

/* half -> anything: exactly to float first. */
#define KILN_BODY_HI(S, D, N, SAT, M)                                                              \
    float##N xf = KILN_ROUND(M, kiln_h2f##N(as_ushort##N(x)));                                     \
    if (SAT)                                                                                       \
        return convert_##D##N##_sat_rtz(xf);                                                       \
    return convert_##D##N##_rtz(xf);
#define KILN_BODY_HF(S, D, N, SAT, M) return KILN_CVT(N, kiln_h2f##N(as_ushort##N(x)), D##N);
#define KILN_BODY_HH(S, D, N, SAT, M) return x;

/* One function: convert_<D><N>[_sat][_mode](<S><N>). */
#define KILN_CONV(S, D, N, SAT, M)                                                                 \
    D##N KILN_OVERLOAD KILN_CAT3(convert_##D##N, KILN_SFX_##SAT, KILN_SFX_##M)(S##N x)             \
    {                                                                                              \
        KILN_CAT3(KILN_BODY_, KILN_CLS_##S, KILN_CLS_##D)(S, D, N, KILN_IS_##SAT, KILN_RM_##M)     \
    }

#define KILN_CONV_MODES(S, D, N, SAT)                                                              \
    KILN_CONV(S, D, N, SAT, DEF)                                                                   \
    KILN_CONV(S, D, N, SAT, RTE)                                                                   \
    KILN_CONV(S, D, N, SAT, RTZ)                                                                   \
    KILN_CONV(S, D, N, SAT, RTP)                                                                   \
    KILN_CONV(S, D, N, SAT, RTN)

/* _sat exists for integer destinations only. */
#define KILN_CONV_TO_I(S, D, N) KILN_CONV_MODES(S, D, N, NOSAT) KILN_CONV_MODES(S, D, N, SAT)
#define KILN_CONV_TO_F(S, D, N) KILN_CONV_MODES(S, D, N, NOSAT)
#define KILN_CONV_TO_H(S, D, N) KILN_CONV_MODES(S, D, N, NOSAT)

#define KILN_CONV_N(S, D, N) KILN_CAT(KILN_CONV_TO_, KILN_CLS_##D)(S, D, N)
#define KILN_CONV_WIDTHS(S, D)                                                                     \
    KILN_CONV_N(S, D, )                                                                            \
    KILN_CONV_N(S, D, 2)                                                                           \
    KILN_CONV_N(S, D, 3) KILN_CONV_N(S, D, 4) KILN_CONV_N(S, D, 8) KILN_CONV_N(S, D, 16)

/*
 * Sources in the order they are defined: float's conversions come before half's,
 * which call them.
 */
#define KILN_CONV_FROM(S)                                                                          \
    KILN_CONV_WIDTHS(S, char)                                                                      \
    KILN_CONV_WIDTHS(S, uchar)                                                                     \
    KILN_CONV_WIDTHS(S, short)                                                                     \
    KILN_CONV_WIDTHS(S, ushort)                                                                    \
    KILN_CONV_WIDTHS(S, int)                                                                       \
    KILN_CONV_WIDTHS(S, uint)                                                                      \
    KILN_CONV_WIDTHS(S, long)                                                                      \
    KILN_CONV_WIDTHS(S, ulong)                                                                     \
    KILN_CONV_WIDTHS(S, float)                                                                     \
    KILN_CONV_WIDTHS(S, double)                                                                    \
    KILN_CONV_WIDTHS(S, half)

KILN_CONV_FROM(char)
KILN_CONV_FROM(uchar)
KILN_CONV_FROM(short)
KILN_CONV_FROM(ushort)
KILN_CONV_FROM(int)
KILN_CONV_FROM(uint)
KILN_CONV_FROM(long)
KILN_CONV_FROM(ulong)
KILN_CONV_FROM(float)
KILN_CONV_FROM(double)
KILN_CONV_FROM(half)
