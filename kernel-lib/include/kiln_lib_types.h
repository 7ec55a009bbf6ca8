/*
 * Type lists for the kernel library's generic builtins: each family writes a builtin
 * once as a macro of its type and expands it over every width with these lists.
 */
#ifndef KILN_KERNEL_LIB_KILN_LIB_TYPES_H
#define KILN_KERNEL_LIB_KILN_LIB_TYPES_H

#define KILN_FOR_FLOATN(X) X(float) X(float2) X(float3) X(float4) X(float8) X(float16)

#define KILN_FOR_DOUBLEN(X) X(double) X(double2) X(double3) X(double4) X(double8) X(double16)

#define KILN_FOR_GENTYPE_FP(X) KILN_FOR_FLOATN(X) KILN_FOR_DOUBLEN(X)

#endif
