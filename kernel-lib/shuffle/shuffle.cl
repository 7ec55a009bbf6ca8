/*
 * shuffle and shuffle2 (OpenCL C 3.0 §6.15.13) for every element type, input widths
 * m = 2, 4, 8, 16 and mask widths n = 2, 4, 8, 16.
 *
 * Lane i of the result is lane mask[i] of x for shuffle, of the 2m-lane concatenation
 * of x and y for shuffle2. Only the low bits of a mask element count (§6.15.13: the
 * element is taken modulo m, or 2m); m is a power of two, so that is a mask, and every
 * index is in range. The mask type has unsigned elements of the data's size.
 */
#include "kiln_lib.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define KILN_SHUFFLE(T, U, M, N)                                                                   \
    T##N KILN_OVERLOAD shuffle(T##M x, U##N mask)                                                  \
    {                                                                                              \
        T##N r;                                                                                    \
        for (int i = 0; i < N; i++)                                                                \
            r[i] = x[mask[i] & (M - 1)];                                                           \
        return r;                                                                                  \
    }                                                                                              \
    T##N KILN_OVERLOAD shuffle2(T##M x, T##M y, U##N mask)                                         \
    {                                                                                              \
        T##N r;                                                                                    \
        for (int i = 0; i < N; i++) {                                                              \
            U k = mask[i];                                                                         \
            r[i] = (k & M) ? y[k & (M - 1)] : x[k & (M - 1)];                                      \
        }                                                                                          \
        return r;                                                                                  \
    }

#define KILN_SHUFFLE_N(T, U, M)                                                                    \
    KILN_SHUFFLE(T, U, M, 2)                                                                       \
    KILN_SHUFFLE(T, U, M, 4) KILN_SHUFFLE(T, U, M, 8) KILN_SHUFFLE(T, U, M, 16)
#define KILN_SHUFFLE_T(T, U)                                                                       \
    KILN_SHUFFLE_N(T, U, 2) KILN_SHUFFLE_N(T, U, 4) KILN_SHUFFLE_N(T, U, 8) KILN_SHUFFLE_N(T, U, 16)

KILN_SHUFFLE_T(char, uchar)
KILN_SHUFFLE_T(uchar, uchar)
KILN_SHUFFLE_T(short, ushort)
KILN_SHUFFLE_T(ushort, ushort)
KILN_SHUFFLE_T(int, uint)
KILN_SHUFFLE_T(uint, uint)
KILN_SHUFFLE_T(long, ulong)
KILN_SHUFFLE_T(ulong, ulong)
KILN_SHUFFLE_T(float, uint)
KILN_SHUFFLE_T(double, ulong)
KILN_SHUFFLE_T(half, ushort)
