/*
 * Relational functions (OpenCL C 3.0 §6.15.6) for float, double and half, scalar and
 * every vector width: isequal, isnotequal, isgreater, isgreaterequal, isless,
 * islessequal, islessgreater, isfinite, isinf, isnan, isnormal, isordered,
 * isunordered and signbit; any and all for the signed integer types; bitselect and
 * select for every scalar and vector type, integer and floating-point.
 *
 * Results follow §6.15.6: a scalar test returns the int 0 or 1, a vector test -1 (all
 * bits set) or 0 in the signed integer type of the operand's element size (int for
 * float, long for double, short for half). These are exactly the values of OpenCL C's
 * comparison operators, so the comparisons are written as operators. The ordered
 * comparisons are false and isnotequal is true when an operand is a NaN (IEEE
 * unordered compares). The classifications look at the bits, so they give the same
 * answer whatever floating-point flags the calling kernel was built with.
 *
 * any(x) and all(x) test the most significant bit of each lane: the OR (AND) of the
 * lanes has its top bit set exactly when one (every) lane has. select(a, b, c) picks
 * b where the most significant bit of c is set (for a scalar c: where c is not 0).
 * Everything is straight-line code (selects and bit operations), so a call inside a
 * kernel does not stop the work-item loop from vectorising.
 */
#include "kiln_lib.h"
#include "kiln_lib_types.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* A scalar test returns int, a vector test the signed integer vector I##N. */
#define KR_RET(N, I) KILN_CAT(KR_RET_, N)(I)
#define KR_RET_(I)   int
#define KR_RET_2(I)  I##2
#define KR_RET_3(I)  I##3
#define KR_RET_4(I)  I##4
#define KR_RET_8(I)  I##8
#define KR_RET_16(I) I##16

/*
 * The floating-point element types: (N, T, I, U, exponent mask, smallest normal), I
 * and U the integer types of the same size. The masks are the bits of the absolute
 * value of +infinity and of the smallest normal number.
 */
#define KR_FP(X, N)                                                                                \
    X(N, float, int, uint, 0x7f800000u, 0x00800000u)                                               \
    X(N, double, long, ulong, 0x7ff0000000000000ul, 0x0010000000000000ul)                          \
    X(N, half, short, ushort, 0x7c00u, 0x0400u)
#define KR_EACH_FP(X) KILN_FOR_WIDTHS(KR_FP, X)

#define KR_CMP(name, op, N, T, I)                                                                  \
    KR_RET(N, I) KILN_OVERLOAD name(T##N x, T##N y)                                                \
    {                                                                                              \
        return op;                                                                                 \
    }
#define KR_COMPARES(N, T, I, U, EXP, MINN)                                                         \
    KR_CMP(isequal, x == y, N, T, I)                                                               \
    KR_CMP(isnotequal, x != y, N, T, I)                                                            \
    KR_CMP(isgreater, x > y, N, T, I)                                                              \
    KR_CMP(isgreaterequal, x >= y, N, T, I)                                                        \
    KR_CMP(isless, x < y, N, T, I)                                                                 \
    KR_CMP(islessequal, x <= y, N, T, I)                                                           \
    KR_CMP(islessgreater, (x < y) | (x > y), N, T, I)                                              \
    KR_CMP(isordered, (x == x) & (y == y), N, T, I)                                                \
    KR_CMP(isunordered, (x != x) | (y != y), N, T, I)
KR_EACH_FP(KR_COMPARES)

/*
 * Classification on the bits of |x| (a = bits & ~sign): NaN above the exponent mask,
 * infinity equal to it, finite below it, normal in [smallest normal, infinity), which
 * one unsigned comparison tests after subtracting the smallest normal.
 */
#define KR_CLASS(name, test, N, T, I, U, EXP, MINN)                                                \
    KR_RET(N, I) KILN_OVERLOAD name(T##N x)                                                        \
    {                                                                                              \
        U##N a = __builtin_astype(x, U##N) & (U##N)(U)(EXP | (EXP - 1));                           \
        return test;                                                                               \
    }
#define KR_CLASSES(N, T, I, U, EXP, MINN)                                                          \
    KR_CLASS(isfinite, a < (U##N)(U)EXP, N, T, I, U, EXP, MINN)                                    \
    KR_CLASS(isinf, a == (U##N)(U)EXP, N, T, I, U, EXP, MINN)                                      \
    KR_CLASS(isnan, a > (U##N)(U)EXP, N, T, I, U, EXP, MINN)                                       \
    KR_CLASS(isnormal, (U##N)(a - (U##N)(U)MINN) < (U##N)(U)(EXP - MINN), N, T, I, U, EXP, MINN)   \
    KR_RET(N, I) KILN_OVERLOAD signbit(T##N x)                                                     \
    {                                                                                              \
        return __builtin_astype(x, I##N) < (I##N)0;                                                \
    }
KR_EACH_FP(KR_CLASSES)

/* any and all: the top bit of the OR and of the AND of the lanes. */
#define KR_SINT(X, N) X(N, char) X(N, short) X(N, int) X(N, long)
#define KR_ANY_ALL(N, T)                                                                           \
    int KILN_OVERLOAD any(T##N x)                                                                  \
    {                                                                                              \
        return KILN_CAT(KR_REDUCE_OR_, N)(x) < 0;                                                  \
    }                                                                                              \
    int KILN_OVERLOAD all(T##N x)                                                                  \
    {                                                                                              \
        return KILN_CAT(KR_REDUCE_AND_, N)(x) < 0;                                                 \
    }
#define KR_REDUCE_OR_(x)    (x)
#define KR_REDUCE_AND_(x)   (x)
#define KR_REDUCE_OR_2(x)   __builtin_reduce_or(x)
#define KR_REDUCE_AND_2(x)  __builtin_reduce_and(x)
#define KR_REDUCE_OR_3(x)   __builtin_reduce_or(x)
#define KR_REDUCE_AND_3(x)  __builtin_reduce_and(x)
#define KR_REDUCE_OR_4(x)   __builtin_reduce_or(x)
#define KR_REDUCE_AND_4(x)  __builtin_reduce_and(x)
#define KR_REDUCE_OR_8(x)   __builtin_reduce_or(x)
#define KR_REDUCE_AND_8(x)  __builtin_reduce_and(x)
#define KR_REDUCE_OR_16(x)  __builtin_reduce_or(x)
#define KR_REDUCE_AND_16(x) __builtin_reduce_and(x)
KILN_FOR_WIDTHS(KR_SINT, KR_ANY_ALL)

/*
 * bitselect and select for every type: (N, T, I, U) with I and U the signed and
 * unsigned integer types of T's element size. bitselect works on the bits as U.
 */
#define KR_ALL_TYPES(X, N)                                                                         \
    X(N, char, char, uchar)                                                                        \
    X(N, uchar, char, uchar) X(N, short, short, ushort) X(N, ushort, short, ushort)                \
        X(N, int, int, uint) X(N, uint, int, uint) X(N, long, long, ulong)                         \
            X(N, ulong, long, ulong) X(N, float, int, uint) X(N, double, long, ulong)              \
                X(N, half, short, ushort)

#define KR_BITSELECT(N, T, I, U)                                                                   \
    T##N KILN_OVERLOAD bitselect(T##N a, T##N b, T##N c)                                           \
    {                                                                                              \
        U##N ua = __builtin_astype(a, U##N), ub = __builtin_astype(b, U##N);                       \
        U##N uc = __builtin_astype(c, U##N);                                                       \
        return __builtin_astype((U##N)((ua & ~uc) | (ub & uc)), T##N);                             \
    }
KILN_FOR_WIDTHS(KR_ALL_TYPES, KR_BITSELECT)

/* A scalar selector chooses on its value, a vector one on each lane's top bit. */
#define KR_SELECT(N, T, I, U)                                                                      \
    T##N KILN_OVERLOAD select(T##N a, T##N b, I##N c)                                              \
    {                                                                                              \
        return KILN_CAT(KR_PICK_, N)(c, I##N) ? b : a;                                             \
    }                                                                                              \
    T##N KILN_OVERLOAD select(T##N a, T##N b, U##N c)                                              \
    {                                                                                              \
        return KILN_CAT(KR_PICK_, N)(c, I##N) ? b : a;                                             \
    }
#define KR_PICK_(c, IN)   ((c) != 0)
#define KR_PICK_V(c, IN)  (__builtin_astype(c, IN) < (IN)0)
#define KR_PICK_2(c, IN)  KR_PICK_V(c, IN)
#define KR_PICK_3(c, IN)  KR_PICK_V(c, IN)
#define KR_PICK_4(c, IN)  KR_PICK_V(c, IN)
#define KR_PICK_8(c, IN)  KR_PICK_V(c, IN)
#define KR_PICK_16(c, IN) KR_PICK_V(c, IN)
KILN_FOR_WIDTHS(KR_ALL_TYPES, KR_SELECT)
