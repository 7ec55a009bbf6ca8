/*
 * Calls every conversion, vector-data and shuffle builtin by every name and overload a
 * kernel can use: the api/conv-names test compiles this with the kernels' cc1 flags at
 * -cl-std=CL1.2 (named address spaces) and CL3.0 (generic ones), and checks that the
 * kernel library defines every function the module declares.
 */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define WIDTHS(X, A, B) X(A, B, ) X(A, B, 2) X(A, B, 3) X(A, B, 4) X(A, B, 8) X(A, B, 16)
#define TYPES(X, A)                                                                                \
    X(A, char)                                                                                     \
    X(A, uchar) X(A, short) X(A, ushort) X(A, int) X(A, uint) X(A, long) X(A, ulong) X(A, float)   \
        X(A, double) X(A, half)

/* Each result is stored to `sink`, so the call stays in the module. */
#define MODES(D, N, S, SAT)                                                                        \
    *(D##N *)sink = convert_##D##N##SAT((S##N)0);                                                  \
    *(D##N *)sink = convert_##D##N##SAT##_rte((S##N)0);                                            \
    *(D##N *)sink = convert_##D##N##SAT##_rtz((S##N)0);                                            \
    *(D##N *)sink = convert_##D##N##SAT##_rtp((S##N)0);                                            \
    *(D##N *)sink = convert_##D##N##SAT##_rtn((S##N)0);
#define CONV_INT(S, D, N) MODES(D, N, S, ) MODES(D, N, S, _sat)
#define CONV_FP(S, D, N)  MODES(D, N, S, )
#define CONV_TO(S, D)     WIDTHS(CONV_##D, S, D)
#define CONV_char         CONV_INT
#define CONV_uchar        CONV_INT
#define CONV_short        CONV_INT
#define CONV_ushort       CONV_INT
#define CONV_int          CONV_INT
#define CONV_uint         CONV_INT
#define CONV_long         CONV_INT
#define CONV_ulong        CONV_INT
#define CONV_float        CONV_FP
#define CONV_double       CONV_FP
#define CONV_half         CONV_FP
/* The preprocessor does not expand TYPES inside TYPES: the inner list is a copy. */
#define TYPES2(X, A)                                                                               \
    X(A, char)                                                                                     \
    X(A, uchar) X(A, short) X(A, ushort) X(A, int) X(A, uint) X(A, long) X(A, ulong) X(A, float)   \
        X(A, double) X(A, half)
#define CONV_FROM(_, S) TYPES2(CONV_TO, S)

kernel void conversions(global long16 *out)
{
    long16 sink[2];
    TYPES(CONV_FROM, _)
    out[0] = sink[0];
}

/* vload<n>/vstore<n> through pointer P; STORE is 0 for __constant, which has no stores. */
#define STORE_0(...)
#define STORE_1(...) __VA_ARGS__
#define VDATA_N(T, P, STORE, N)                                                                    \
    *(T##N *)sink = vload##N(1, (P));                                                              \
    STORE_##STORE(vstore##N(vload##N(0, (P)), 2, (P));)
#define VDATA(P, T, STORE)                                                                         \
    VDATA_N(T, P, STORE, 2)                                                                        \
    VDATA_N(T, P, STORE, 3)                                                                        \
    VDATA_N(T, P, STORE, 4) VDATA_N(T, P, STORE, 8) VDATA_N(T, P, STORE, 16)
#define HALF_STORES(P, M)                                                                          \
    vstore_half##M(1.0f, 0, (P));                                                                  \
    vstore_half##M(1.0, 0, (P));                                                                   \
    vstore_half2##M((float2)1.0f, 0, (P));                                                         \
    vstore_half2##M((double2)1.0, 0, (P));                                                         \
    vstore_half3##M((float3)1.0f, 0, (P));                                                         \
    vstore_half3##M((double3)1.0, 0, (P));                                                         \
    vstore_half4##M((float4)1.0f, 0, (P));                                                         \
    vstore_half4##M((double4)1.0, 0, (P));                                                         \
    vstore_half8##M((float8)1.0f, 0, (P));                                                         \
    vstore_half8##M((double8)1.0, 0, (P));                                                         \
    vstore_half16##M((float16)1.0f, 0, (P));                                                       \
    vstore_half16##M((double16)1.0, 0, (P));                                                       \
    vstorea_half2##M((float2)1.0f, 0, (P));                                                        \
    vstorea_half2##M((double2)1.0, 0, (P));                                                        \
    vstorea_half3##M((float3)1.0f, 0, (P));                                                        \
    vstorea_half3##M((double3)1.0, 0, (P));                                                        \
    vstorea_half4##M((float4)1.0f, 0, (P));                                                        \
    vstorea_half4##M((double4)1.0, 0, (P));                                                        \
    vstorea_half8##M((float8)1.0f, 0, (P));                                                        \
    vstorea_half8##M((double8)1.0, 0, (P));                                                        \
    vstorea_half16##M((float16)1.0f, 0, (P));                                                      \
    vstorea_half16##M((double16)1.0, 0, (P));
#define HALVES(P)                                                                                  \
    HALF_STORES(P, )                                                                               \
    HALF_STORES(P, _rte) HALF_STORES(P, _rtz) HALF_STORES(P, _rtp) HALF_STORES(P, _rtn)
#define HALF_LOADS(P)                                                                              \
    *(float *)sink = vload_half(0, (P));                                                           \
    *(float2 *)sink = vload_half2(0, (P));                                                         \
    *(float2 *)sink = vloada_half2(0, (P));                                                        \
    *(float3 *)sink = vload_half3(0, (P));                                                         \
    *(float3 *)sink = vloada_half3(0, (P));                                                        \
    *(float4 *)sink = vload_half4(0, (P));                                                         \
    *(float4 *)sink = vloada_half4(0, (P));                                                        \
    *(float8 *)sink = vload_half8(0, (P));                                                         \
    *(float8 *)sink = vloada_half8(0, (P));                                                        \
    *(float16 *)sink = vload_half16(0, (P));                                                       \
    *(float16 *)sink = vloada_half16(0, (P));
#define SPACE(AS, STORE)                                                                           \
    {                                                                                              \
        VDATA((AS char *)base, char, STORE)                                                        \
        VDATA((AS uchar *)base, uchar, STORE)                                                      \
        VDATA((AS short *)base, short, STORE)                                                      \
        VDATA((AS ushort *)base, ushort, STORE)                                                    \
        VDATA((AS int *)base, int, STORE)                                                          \
        VDATA((AS uint *)base, uint, STORE)                                                        \
        VDATA((AS long *)base, long, STORE)                                                        \
        VDATA((AS ulong *)base, ulong, STORE)                                                      \
        VDATA((AS float *)base, float, STORE)                                                      \
        VDATA((AS double *)base, double, STORE)                                                    \
        VDATA((AS half *)base, half, STORE)                                                        \
        HALF_LOADS((AS half *)base)                                                                \
        STORE_##STORE(HALVES((AS half *)base))                                                     \
    }

kernel void vector_data(global long *g, constant long *c, local long *l, global long16 *out)
{
    long16 sink[2], pv[4];
    {
        global long *base = g;
        SPACE(global, 1)
    }
    {
        constant long *base = c;
        SPACE(constant, 0)
    }
    {
        local long *base = l;
        SPACE(local, 1)
    }
    {
      private
        long16 *base = pv;
        SPACE(private, 1)
    }
    out[0] = sink[0];
}

/* shuffle and shuffle2 for every type, input width and mask width. */
#define SHUF_MN(T, U, M, N)                                                                        \
    *(T##N *)sink = shuffle((T##M)0, (U##N)0);                                                     \
    *(T##N *)sink = shuffle2((T##M)0, (T##M)0, (U##N)0);
#define SHUF_M(T, U, M)                                                                            \
    SHUF_MN(T, U, M, 2) SHUF_MN(T, U, M, 4) SHUF_MN(T, U, M, 8) SHUF_MN(T, U, M, 16)
#define SHUF(T, U) SHUF_M(T, U, 2) SHUF_M(T, U, 4) SHUF_M(T, U, 8) SHUF_M(T, U, 16)

kernel void shuffles(global long16 *out)
{
    long16 sink[2];
    SHUF(char, uchar)
    SHUF(uchar, uchar)
    SHUF(short, ushort)
    SHUF(ushort, ushort)
    SHUF(int, uint)
    SHUF(uint, uint)
    SHUF(long, ulong)
    SHUF(ulong, ulong)
    SHUF(float, uint)
    SHUF(double, ulong)
    SHUF(half, ushort)
    out[0] = sink[0];
}
