/*
 * Type lists for the kernel library's generic builtins: each family writes a builtin
 * once as a macro of its type and expands it over every width with these lists.
 *
 * KILN_FOR_<T>N(X) expands X(T) X(T2) X(T3) X(T4) X(T8) X(T16). The _V forms expand
 * X(vector, scalar) for the vector widths only, for builtins with a vector-scalar
 * overload (fmin(float4, float), clamp(int4, int, int)).
 */
#ifndef KILN_KERNEL_LIB_KILN_LIB_TYPES_H
#define KILN_KERNEL_LIB_KILN_LIB_TYPES_H

#define KILN_FOR_N(X, T) X(T) X(T##2) X(T##3) X(T##4) X(T##8) X(T##16)
#define KILN_FOR_V(X, T) X(T##2, T) X(T##3, T) X(T##4, T) X(T##8, T) X(T##16, T)

#define KILN_FOR_FLOATN(X)  KILN_FOR_N(X, float)
#define KILN_FOR_DOUBLEN(X) KILN_FOR_N(X, double)
#define KILN_FOR_HALFN(X)   KILN_FOR_N(X, half)

#define KILN_FOR_GENTYPE_FP(X) KILN_FOR_FLOATN(X) KILN_FOR_DOUBLEN(X)

#define KILN_FOR_CHARN(X)   KILN_FOR_N(X, char)
#define KILN_FOR_UCHARN(X)  KILN_FOR_N(X, uchar)
#define KILN_FOR_SHORTN(X)  KILN_FOR_N(X, short)
#define KILN_FOR_USHORTN(X) KILN_FOR_N(X, ushort)
#define KILN_FOR_INTN(X)    KILN_FOR_N(X, int)
#define KILN_FOR_UINTN(X)   KILN_FOR_N(X, uint)
#define KILN_FOR_LONGN(X)   KILN_FOR_N(X, long)
#define KILN_FOR_ULONGN(X)  KILN_FOR_N(X, ulong)

/* Signed and unsigned integer gentypes, every width. */
#define KILN_FOR_GENTYPE_SINT(X)                                                                   \
    KILN_FOR_CHARN(X) KILN_FOR_SHORTN(X) KILN_FOR_INTN(X) KILN_FOR_LONGN(X)
#define KILN_FOR_GENTYPE_UINT(X)                                                                   \
    KILN_FOR_UCHARN(X) KILN_FOR_USHORTN(X) KILN_FOR_UINTN(X) KILN_FOR_ULONGN(X)
#define KILN_FOR_GENTYPE_INT(X) KILN_FOR_GENTYPE_SINT(X) KILN_FOR_GENTYPE_UINT(X)

/* Vector-scalar pairs. */
#define KILN_FOR_FP_V(X) KILN_FOR_V(X, float) KILN_FOR_V(X, double)
#define KILN_FOR_SINT_V(X)                                                                         \
    KILN_FOR_V(X, char) KILN_FOR_V(X, short) KILN_FOR_V(X, int) KILN_FOR_V(X, long)
#define KILN_FOR_UINT_V(X)                                                                         \
    KILN_FOR_V(X, uchar) KILN_FOR_V(X, ushort) KILN_FOR_V(X, uint) KILN_FOR_V(X, ulong)
#define KILN_FOR_INT_V(X) KILN_FOR_SINT_V(X) KILN_FOR_UINT_V(X)

/*
 * Width suffixes, for builtins that name several types of one width (abs(int4) returns
 * uint4). KILN_FOR_WIDTHS(L, X) expands L(X, N) for N empty (scalars), 2, 3, 4, 8 and
 * 16, where L is a family's list of element types that expands X(N, T, ...) and writes
 * T##N for the type; the _VECTOR_ form leaves out the scalars.
 */
#define KILN_CAT_(a, b)              a##b
#define KILN_CAT(a, b)               KILN_CAT_(a, b)
#define KILN_FOR_VECTOR_WIDTHS(L, X) L(X, 2) L(X, 3) L(X, 4) L(X, 8) L(X, 16)
#define KILN_FOR_WIDTHS(L, X)        L(X, ) KILN_FOR_VECTOR_WIDTHS(L, X)
#define KILN_FOR_VECTOR_SUFFIXES(X)  X(2) X(3) X(4) X(8) X(16)

#endif
