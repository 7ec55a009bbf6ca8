/*
 * Integer functions (OpenCL C 3.0 §6.15.3) for char, uchar, short, ushort, int, uint,
 * long and ulong, scalar and every vector width: abs, abs_diff, add_sat, sub_sat,
 * hadd, rhadd, clamp, clz, ctz, popcount, mad_hi, mad_sat, mul_hi, rotate, max, min
 * (with the vector-scalar clamp, max and min), upsample, and mad24/mul24 for int and
 * uint.
 *
 * Every result is exact for every input, the extremes included: abs(INT_MIN) is
 * 2^31 as a uint, shift and rotate counts are taken modulo the width (§6.15.3 for
 * rotate, as for the shift operators), clz(0) and ctz(0) are the width, and the
 * 64-bit mul_hi and mad_sat keep all 128 bits of the product. Arithmetic that may
 * wrap is done on unsigned values, so nothing depends on signed overflow.
 *
 * The code has no branches on values: kernels are vectorised across work-items, so
 * a builtin must be straight-line code. Vector forms of clz, ctz and popcount apply
 * the scalar intrinsic to each lane; the optimiser turns that into one vector
 * llvm.ctlz/cttz/ctpop. mul24 and mad24 use the low 24 bits of their operands
 * (sign-extended for int), as the specification describes; their result is then
 * defined for every input, not only in the 24-bit range it requires.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

/*
 * Each builtin is written once as a macro of (N, T, U, ...): N the width suffix
 * (empty for scalars), T the element type and U its unsigned counterpart. T##N is
 * then the gentype and U##N the ugentype.
 *
 * KI_AS reinterprets as another integer type of the same width: a cast (modulo
 * 2^bits) for a scalar, which also undoes the promotion of char and short to int,
 * __builtin_astype for a vector.
 */
#define KI_AS(N, x, T) KILN_CAT(KI_AS_, N)(x, T)
#define KI_AS_(x, T)   ((T)(x))
#define KI_AS_V(x, T)  __builtin_astype((x), T)
#define KI_AS_2(x, T)  KI_AS_V(x, T)
#define KI_AS_3(x, T)  KI_AS_V(x, T)
#define KI_AS_4(x, T)  KI_AS_V(x, T)
#define KI_AS_8(x, T)  KI_AS_V(x, T)
#define KI_AS_16(x, T) KI_AS_V(x, T)

/* A value conversion to an integer type of the same width: a cast or a vector convert. */
#define KI_CVT(N, x, T) KILN_CAT(KI_CVT_, N)(x, T)
#define KI_CVT_(x, T)   ((T)(x))
#define KI_CVT_V(x, T)  __builtin_convertvector((x), T)
#define KI_CVT_2(x, T)  KI_CVT_V(x, T)
#define KI_CVT_3(x, T)  KI_CVT_V(x, T)
#define KI_CVT_4(x, T)  KI_CVT_V(x, T)
#define KI_CVT_8(x, T)  KI_CVT_V(x, T)
#define KI_CVT_16(x, T) KI_CVT_V(x, T)

/* The element types: (N, T, U, bits). */
#define KI_SIGNED(X, N)                                                                            \
    X(N, char, uchar, 8) X(N, short, ushort, 16) X(N, int, uint, 32) X(N, long, ulong, 64)
#define KI_UNSIGNED(X, N)                                                                          \
    X(N, uchar, uchar, 8) X(N, ushort, ushort, 16) X(N, uint, uint, 32) X(N, ulong, ulong, 64)
#define KI_ALL(X, N)        KI_SIGNED(X, N) KI_UNSIGNED(X, N)
#define KI_EACH_SIGNED(X)   KILN_FOR_WIDTHS(KI_SIGNED, X)
#define KI_EACH_UNSIGNED(X) KILN_FOR_WIDTHS(KI_UNSIGNED, X)
#define KI_EACH(X)          KILN_FOR_WIDTHS(KI_ALL, X)
#define KI_EACH_VECTOR(X)   KILN_FOR_VECTOR_WIDTHS(KI_ALL, X)

/* abs returns the ugentype: abs(INT_MIN) is 2^31 (llvm.abs without the poison flag). */
#define KI_ABS_S(N, T, U, B)                                                                       \
    U##N KILN_OVERLOAD abs(T##N x)                                                                 \
    {                                                                                              \
        return KI_AS(N, __builtin_elementwise_abs(x), U##N);                                       \
    }
#define KI_ABS_U(N, T, U, B)                                                                       \
    U##N KILN_OVERLOAD abs(T##N x)                                                                 \
    {                                                                                              \
        return x;                                                                                  \
    }
KI_EACH_SIGNED(KI_ABS_S)
KI_EACH_UNSIGNED(KI_ABS_U)

/* |x - y| is max - min, which never overflows as an unsigned difference. */
#define KI_ABS_DIFF(N, T, U, B)                                                                    \
    U##N KILN_OVERLOAD abs_diff(T##N x, T##N y)                                                    \
    {                                                                                              \
        return (U##N)(KI_AS(N, __builtin_elementwise_max(x, y), U##N) -                            \
                      KI_AS(N, __builtin_elementwise_min(x, y), U##N));                            \
    }
KI_EACH(KI_ABS_DIFF)

/*
 * add_sat and sub_sat are llvm.sadd.sat and friends. Clang 19 promotes scalar char
 * and short operands of the elementwise builtins to int and then drops the
 * saturation, so those four scalar types add in int and clamp instead.
 */
#define KI_SAT(N, T, U, B)                                                                         \
    T##N KILN_OVERLOAD add_sat(T##N x, T##N y)                                                     \
    {                                                                                              \
        return __builtin_elementwise_add_sat(x, y);                                                \
    }                                                                                              \
    T##N KILN_OVERLOAD sub_sat(T##N x, T##N y)                                                     \
    {                                                                                              \
        return __builtin_elementwise_sub_sat(x, y);                                                \
    }
KI_EACH_VECTOR(KI_SAT)
KI_SAT(, int, uint, 32)
KI_SAT(, uint, uint, 32)
KI_SAT(, long, ulong, 64)
KI_SAT(, ulong, ulong, 64)
#define KI_SAT_SMALL(T, LO, HI)                                                                    \
    T KILN_OVERLOAD add_sat(T x, T y)                                                              \
    {                                                                                              \
        return (T)__builtin_elementwise_min(__builtin_elementwise_max((int)x + (int)y, LO), HI);   \
    }                                                                                              \
    T KILN_OVERLOAD sub_sat(T x, T y)                                                              \
    {                                                                                              \
        return (T)__builtin_elementwise_min(__builtin_elementwise_max((int)x - (int)y, LO), HI);   \
    }
KI_SAT_SMALL(char, CHAR_MIN, CHAR_MAX)
KI_SAT_SMALL(uchar, 0, UCHAR_MAX)
KI_SAT_SMALL(short, SHRT_MIN, SHRT_MAX)
KI_SAT_SMALL(ushort, 0, USHRT_MAX)

/*
 * hadd is (x + y) >> 1 and rhadd (x + y + 1) >> 1 without the intermediate overflow:
 * the halves are added and the carry of the low bits put back.
 */
#define KI_HADD(N, T, U, B)                                                                        \
    T##N KILN_OVERLOAD hadd(T##N x, T##N y)                                                        \
    {                                                                                              \
        return (T##N)((x >> 1) + (y >> 1) + (x & y & (T)1));                                       \
    }                                                                                              \
    T##N KILN_OVERLOAD rhadd(T##N x, T##N y)                                                       \
    {                                                                                              \
        return (T##N)((x >> 1) + (y >> 1) + ((x | y) & (T)1));                                     \
    }
KI_EACH(KI_HADD)

/* min(x, y) and max(x, y) are llvm.smin/umin/smax/umax; clamp is their composition. */
#define KI_MINMAX(N, T, U, B)                                                                      \
    T##N KILN_OVERLOAD min(T##N x, T##N y)                                                         \
    {                                                                                              \
        return __builtin_elementwise_min(x, y);                                                    \
    }                                                                                              \
    T##N KILN_OVERLOAD max(T##N x, T##N y)                                                         \
    {                                                                                              \
        return __builtin_elementwise_max(x, y);                                                    \
    }                                                                                              \
    T##N KILN_OVERLOAD clamp(T##N x, T##N lo, T##N hi)                                             \
    {                                                                                              \
        return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi);                    \
    }
KI_EACH(KI_MINMAX)

/* The vector-scalar forms splat the scalar (min(int4, int), clamp(int4, int, int)). */
#define KI_MINMAX_V(N, T, U, B)                                                                    \
    T##N KILN_OVERLOAD min(T##N x, T y)                                                            \
    {                                                                                              \
        return __builtin_elementwise_min(x, (T##N)y);                                              \
    }                                                                                              \
    T##N KILN_OVERLOAD max(T##N x, T y)                                                            \
    {                                                                                              \
        return __builtin_elementwise_max(x, (T##N)y);                                              \
    }                                                                                              \
    T##N KILN_OVERLOAD clamp(T##N x, T lo, T hi)                                                   \
    {                                                                                              \
        return __builtin_elementwise_min(__builtin_elementwise_max(x, (T##N)lo), (T##N)hi);        \
    }
KI_EACH_VECTOR(KI_MINMAX_V)

/*
 * clz, ctz and popcount: the generic bit builtins on the unsigned lane (defined at
 * zero: the width). A vector applies them lane by lane, which the SLP vectoriser
 * folds into one vector intrinsic.
 */
#define KI_BITS(N, T, U, B)                                                                        \
    T##N KILN_OVERLOAD clz(T##N x)                                                                 \
    {                                                                                              \
        KI_BITS_BODY(N, T, x, __builtin_clzg((U)(v), B));                                          \
    }                                                                                              \
    T##N KILN_OVERLOAD ctz(T##N x)                                                                 \
    {                                                                                              \
        KI_BITS_BODY(N, T, x, __builtin_ctzg((U)(v), B));                                          \
    }                                                                                              \
    T##N KILN_OVERLOAD popcount(T##N x)                                                            \
    {                                                                                              \
        KI_BITS_BODY(N, T, x, __builtin_popcountg((U)(v)));                                        \
    }
#define KI_BITS_BODY(N, T, x, e) KILN_CAT(KI_BITS_BODY_, N)(T##N, x, e)
#define KI_BITS_BODY_(TN, x, e)                                                                    \
    TN v = (x);                                                                                    \
    return (e)
#define KI_BITS_BODY_V(TN, x, e)                                                                   \
    TN r;                                                                                          \
    for (int i = 0; i < __builtin_vectorelements(TN); i++) {                                       \
        __auto_type v = (x)[i];                                                                    \
        r[i] = (e);                                                                                \
    }                                                                                              \
    return r
#define KI_BITS_BODY_2(TN, x, e)  KI_BITS_BODY_V(TN, x, e)
#define KI_BITS_BODY_3(TN, x, e)  KI_BITS_BODY_V(TN, x, e)
#define KI_BITS_BODY_4(TN, x, e)  KI_BITS_BODY_V(TN, x, e)
#define KI_BITS_BODY_8(TN, x, e)  KI_BITS_BODY_V(TN, x, e)
#define KI_BITS_BODY_16(TN, x, e) KI_BITS_BODY_V(TN, x, e)
KI_EACH(KI_BITS)

/*
 * mul_hi: the high half of the full product. For 8 to 32 bits the product is taken
 * in the type of twice the width (W); for 64 bits it is assembled from 32-bit
 * halves, so that it stays in 64-bit lanes and vectorises (__int128 would not):
 * with x = xh:xl and y = yh:yl, hi = xh*yh + carries of the cross terms. The signed
 * high half is the unsigned one minus y where x < 0 and minus x where y < 0.
 */
#define KI_NARROW(X, N)                                                                            \
    X(N, char, uchar, 8, short)                                                                    \
    X(N, short, ushort, 16, int)                                                                   \
    X(N, int, uint, 32, long)                                                                      \
    X(N, uchar, uchar, 8, ushort) X(N, ushort, ushort, 16, uint) X(N, uint, uint, 32, ulong)
#define KI_EACH_NARROW(X) KILN_FOR_WIDTHS(KI_NARROW, X)

#define KI_MULHI_NARROW(N, x, y, T, B, W)                                                          \
    KI_CVT(N, (KI_CVT(N, x, W##N) * KI_CVT(N, y, W##N)) >> B, T##N)

#define KI_MUL_HI(N, T, U, B, W)                                                                   \
    T##N KILN_OVERLOAD mul_hi(T##N x, T##N y)                                                      \
    {                                                                                              \
        return KI_MULHI_NARROW(N, x, y, T, B, W);                                                  \
    }                                                                                              \
    T##N KILN_OVERLOAD mad_hi(T##N x, T##N y, T##N z)                                              \
    {                                                                                              \
        return KI_AS(                                                                              \
            N, (U##N)(KI_AS(N, KI_MULHI_NARROW(N, x, y, T, B, W), U##N) + KI_AS(N, z, U##N)),      \
            T##N);                                                                                 \
    }
KI_EACH_NARROW(KI_MUL_HI)

/* A comparison as a lane mask: -1 or 0 (a scalar comparison gives 1 or 0). */
#define KI_MASK(N, c) KILN_CAT(KI_MASK_, N)(c)
#define KI_MASK_(c)   (-(long)(c))
#define KI_MASK_2(c)  (c)
#define KI_MASK_3(c)  (c)
#define KI_MASK_4(c)  (c)
#define KI_MASK_8(c)  (c)
#define KI_MASK_16(c) (c)

/* The unsigned 64-bit high half of x * y, lane by lane in 64-bit arithmetic. */
#define KI_MULHI_U64(UN, x, y)                                                                     \
    ({                                                                                             \
        UN xl_ = (x)&0xffffffffUL, xh_ = (x) >> 32;                                                \
        UN yl_ = (y)&0xffffffffUL, yh_ = (y) >> 32;                                                \
        UN ll_ = xl_ * yl_, lh_ = xl_ * yh_, hl_ = xh_ * yl_;                                      \
        UN mid_ = (ll_ >> 32) + (lh_ & 0xffffffffUL) + (hl_ & 0xffffffffUL);                       \
        xh_ *yh_ + (lh_ >> 32) + (hl_ >> 32) + (mid_ >> 32);                                       \
    })
/* The signed one: subtract y where x < 0 and x where y < 0 (arithmetic shifts as masks). */
#define KI_MULHI_S64(N, x, y)                                                                      \
    KI_AS(N,                                                                                       \
          KI_MULHI_U64(ulong##N, KI_AS(N, x, ulong##N), KI_AS(N, y, ulong##N)) -                   \
              (KI_AS(N, (x) >> 63, ulong##N) & KI_AS(N, y, ulong##N)) -                            \
              (KI_AS(N, (y) >> 63, ulong##N) & KI_AS(N, x, ulong##N)),                             \
          long##N)

#define KI_MUL_HI64(N)                                                                             \
    long##N KILN_OVERLOAD mul_hi(long##N x, long##N y)                                             \
    {                                                                                              \
        return KI_MULHI_S64(N, x, y);                                                              \
    }                                                                                              \
    ulong##N KILN_OVERLOAD mul_hi(ulong##N x, ulong##N y)                                          \
    {                                                                                              \
        return KI_MULHI_U64(ulong##N, x, y);                                                       \
    }                                                                                              \
    long##N KILN_OVERLOAD mad_hi(long##N x, long##N y, long##N z)                                  \
    {                                                                                              \
        return KI_AS(N, KI_AS(N, KI_MULHI_S64(N, x, y), ulong##N) + KI_AS(N, z, ulong##N),         \
                     long##N);                                                                     \
    }                                                                                              \
    ulong##N KILN_OVERLOAD mad_hi(ulong##N x, ulong##N y, ulong##N z)                              \
    {                                                                                              \
        return KI_MULHI_U64(ulong##N, x, y) + z;                                                   \
    }
KI_MUL_HI64()
KILN_FOR_VECTOR_SUFFIXES(KI_MUL_HI64)

/*
 * mad_sat: x * y + z saturated. Up to 32 bits the exact value fits in W (for uint,
 * (2^32-1)^2 + 2^32-1 < 2^64), so it is clamped there. For 64 bits the 128-bit value
 * hi:lo is formed from mul_hi and the low product plus z with its carry, and
 * saturated when hi is not the sign extension of lo (zero, for ulong).
 */
#define KI_MAD_SAT(N, T, U, B, W)                                                                  \
    T##N KILN_OVERLOAD mad_sat(T##N x, T##N y, T##N z)                                             \
    {                                                                                              \
        W##N p = KI_CVT(N, x, W##N) * KI_CVT(N, y, W##N) + KI_CVT(N, z, W##N);                     \
        p = __builtin_elementwise_max(p, (W##N)(W)(T)KI_MIN_OF(T));                                \
        p = __builtin_elementwise_min(p, (W##N)(W)(T)KI_MAX_OF(T));                                \
        return KI_CVT(N, p, T##N);                                                                 \
    }
#define KI_MIN_OF(T)  KILN_CAT(KI_MIN_, T)
#define KI_MAX_OF(T)  KILN_CAT(KI_MAX_, T)
#define KI_MIN_char   CHAR_MIN
#define KI_MAX_char   CHAR_MAX
#define KI_MIN_uchar  0
#define KI_MAX_uchar  UCHAR_MAX
#define KI_MIN_short  SHRT_MIN
#define KI_MAX_short  SHRT_MAX
#define KI_MIN_ushort 0
#define KI_MAX_ushort USHRT_MAX
#define KI_MIN_int    INT_MIN
#define KI_MAX_int    INT_MAX
#define KI_MIN_uint   0
#define KI_MAX_uint   UINT_MAX
KI_EACH_NARROW(KI_MAD_SAT)

#define KI_MAD_SAT64(N)                                                                            \
    long##N KILN_OVERLOAD mad_sat(long##N x, long##N y, long##N z)                                 \
    {                                                                                              \
        long##N hi = KI_MULHI_S64(N, x, y);                                                        \
        ulong##N lo = KI_AS(N, x, ulong##N) * KI_AS(N, y, ulong##N);                               \
        ulong##N sum = lo + KI_AS(N, z, ulong##N);                                                 \
        /* carry out of the low half is -1 in a vector comparison: subtract it */                  \
        hi = KI_AS(N,                                                                              \
                   KI_AS(N, hi, ulong##N) + KI_AS(N, z >> 63, ulong##N) -                          \
                       KI_AS(N, KI_MASK(N, sum < lo), ulong##N),                                   \
                   long##N);                                                                       \
        long##N s = KI_AS(N, sum, long##N);                                                        \
        long##N sat = (hi >> 63) ^ (long##N)LONG_MAX;                                              \
        return hi == (s >> 63) ? s : sat;                                                          \
    }                                                                                              \
    ulong##N KILN_OVERLOAD mad_sat(ulong##N x, ulong##N y, ulong##N z)                             \
    {                                                                                              \
        ulong##N hi = KI_MULHI_U64(ulong##N, x, y);                                                \
        ulong##N lo = x * y;                                                                       \
        ulong##N sum = lo + z;                                                                     \
        hi -= KI_AS(N, KI_MASK(N, sum < lo), ulong##N);                                            \
        return hi != (ulong##N)0 ? (ulong##N)ULONG_MAX : sum;                                      \
    }
KI_MAD_SAT64()
KILN_FOR_VECTOR_SUFFIXES(KI_MAD_SAT64)

/*
 * rotate(v, i): v rotated left by i modulo the width (§6.15.3), on the unsigned
 * lane; the two shifts form a funnel shift the code generator makes one rotate.
 */
#define KI_ROTATE(N, T, U, B)                                                                      \
    T##N KILN_OVERLOAD rotate(T##N v, T##N i)                                                      \
    {                                                                                              \
        U##N u = KI_AS(N, v, U##N);                                                                \
        U##N n = KI_AS(N, i, U##N) & (U)(B - 1);                                                   \
        return KI_AS(N, (U##N)((u << n) | (u >> ((U##N)((U)B - n) & (U)(B - 1)))), T##N);          \
    }
KI_EACH(KI_ROTATE)

/* upsample(hi, lo) = hi << bits | lo in the type W of twice the width, built unsigned (UW). */
#define KI_UPSAMPLE(N, T, U, B, W, UW)                                                             \
    W##N KILN_OVERLOAD upsample(T##N hi, U##N lo)                                                  \
    {                                                                                              \
        return KI_AS(N, (UW##N)((KI_CVT(N, hi, UW##N) << B) | KI_CVT(N, lo, UW##N)), W##N);        \
    }
#define KI_UPSAMPLES(X, N)                                                                         \
    X(N, char, uchar, 8, short, ushort)                                                            \
    X(N, short, ushort, 16, int, uint)                                                             \
    X(N, int, uint, 32, long, ulong)                                                               \
    X(N, uchar, uchar, 8, ushort, ushort)                                                          \
    X(N, ushort, ushort, 16, uint, uint) X(N, uint, uint, 32, ulong, ulong)
KILN_FOR_WIDTHS(KI_UPSAMPLES, KI_UPSAMPLE)

/*
 * mul24 and mad24 for int and uint: the product of the low 24 bits (sign-extended
 * for int), modulo 2^32, plus z.
 */
#define KI_LOW24_int(N, x)  (KI_AS(N, KI_AS(N, x, uint##N) << 8, int##N) >> 8)
#define KI_LOW24_uint(N, x) ((x)&0xffffffu)
#define KI_MUL24(N, T)                                                                             \
    T##N KILN_OVERLOAD mul24(T##N x, T##N y)                                                       \
    {                                                                                              \
        return KI_AS(                                                                              \
            N, KI_AS(N, KI_LOW24_##T(N, x), uint##N) * KI_AS(N, KI_LOW24_##T(N, y), uint##N),      \
            T##N);                                                                                 \
    }                                                                                              \
    T##N KILN_OVERLOAD mad24(T##N x, T##N y, T##N z)                                               \
    {                                                                                              \
        return KI_AS(N,                                                                            \
                     KI_AS(N, KI_LOW24_##T(N, x), uint##N) *                                       \
                             KI_AS(N, KI_LOW24_##T(N, y), uint##N) +                               \
                         KI_AS(N, z, uint##N),                                                     \
                     T##N);                                                                        \
    }
#define KI_MUL24S(X, N) X(N, int) X(N, uint)
KILN_FOR_WIDTHS(KI_MUL24S, KI_MUL24)
