/*
 * Calls every math builtin of OpenCL C 3.0 §6.15.2 that cl_khr_fp16 defines for half, by
 * every overload a kernel can use (scalar and every vector width, the vector-scalar forms,
 * the pointer forms in each address space): the api/half-math-names test compiles this
 * with the kernels' cc1 flags at -cl-std=CL1.2 and CL3.0 and checks that the kernel
 * library defines every function the module declares. The native_ and half_ functions
 * are float only (the specification gives them no half forms).
 */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define WIDTHS(X)  X() X(2) X(3) X(4) X(8) X(16)
#define VWIDTHS(X) X(2) X(3) X(4) X(8) X(16)

#define UNARY(f, N)  *(global half##N *)sink = f((half##N)0)
#define BINARY(f, N) *(global half##N *)sink = f((half##N)0, (half##N)0)
#define UNARY_ALL(N)                                                                               \
    UNARY(acos, N);                                                                                \
    UNARY(acosh, N);                                                                               \
    UNARY(acospi, N);                                                                              \
    UNARY(asin, N);                                                                                \
    UNARY(asinh, N);                                                                               \
    UNARY(asinpi, N);                                                                              \
    UNARY(atan, N);                                                                                \
    UNARY(atanh, N);                                                                               \
    UNARY(atanpi, N);                                                                              \
    UNARY(cbrt, N);                                                                                \
    UNARY(ceil, N);                                                                                \
    UNARY(cos, N);                                                                                 \
    UNARY(cosh, N);                                                                                \
    UNARY(cospi, N);                                                                               \
    UNARY(erf, N);                                                                                 \
    UNARY(erfc, N);                                                                                \
    UNARY(exp, N);                                                                                 \
    UNARY(exp10, N);                                                                               \
    UNARY(exp2, N);                                                                                \
    UNARY(expm1, N);                                                                               \
    UNARY(fabs, N);                                                                                \
    UNARY(floor, N);                                                                               \
    UNARY(lgamma, N);                                                                              \
    UNARY(log, N);                                                                                 \
    UNARY(log10, N);                                                                               \
    UNARY(log1p, N);                                                                               \
    UNARY(log2, N);                                                                                \
    UNARY(logb, N);                                                                                \
    UNARY(rint, N);                                                                                \
    UNARY(round, N);                                                                               \
    UNARY(rsqrt, N);                                                                               \
    UNARY(sin, N);                                                                                 \
    UNARY(sinh, N);                                                                                \
    UNARY(sinpi, N);                                                                               \
    UNARY(sqrt, N);                                                                                \
    UNARY(tan, N);                                                                                 \
    UNARY(tanh, N);                                                                                \
    UNARY(tanpi, N);                                                                               \
    UNARY(tgamma, N);                                                                              \
    UNARY(trunc, N);
#define BINARY_ALL(N)                                                                              \
    BINARY(atan2, N);                                                                              \
    BINARY(atan2pi, N);                                                                            \
    BINARY(copysign, N);                                                                           \
    BINARY(fdim, N);                                                                               \
    BINARY(fmax, N);                                                                               \
    BINARY(fmin, N);                                                                               \
    BINARY(fmod, N);                                                                               \
    BINARY(hypot, N);                                                                              \
    BINARY(maxmag, N);                                                                             \
    BINARY(minmag, N);                                                                             \
    BINARY(nextafter, N);                                                                          \
    BINARY(pow, N);                                                                                \
    BINARY(powr, N);                                                                               \
    BINARY(remainder, N);
#define OTHERS(N)                                                                                  \
    *(global half##N *)sink = fma((half##N)0, (half##N)0, (half##N)0);                             \
    *(global half##N *)sink = mad((half##N)0, (half##N)0, (half##N)0);                             \
    *(global half##N *)sink = ldexp((half##N)0, (int##N)0);                                        \
    *(global half##N *)sink = pown((half##N)0, (int##N)0);                                         \
    *(global half##N *)sink = rootn((half##N)0, (int##N)0);                                        \
    *(global int##N *)sink = ilogb((half##N)0);                                                    \
    *(global half##N *)sink = nan((ushort##N)0);
#define SPLAT(N)                                                                                   \
    *(global half##N *)sink = fmin((half##N)0, (half)0);                                           \
    *(global half##N *)sink = fmax((half##N)0, (half)0);                                           \
    *(global half##N *)sink = ldexp((half##N)0, 0);
#define POINTERS(AS, N)                                                                            \
    *(global half##N *)sink = fract((half##N)0, (AS half##N *)p);                                  \
    *(global half##N *)sink = modf((half##N)0, (AS half##N *)p);                                   \
    *(global half##N *)sink = sincos((half##N)0, (AS half##N *)p);                                 \
    *(global half##N *)sink = frexp((half##N)0, (AS int##N *)p);                                   \
    *(global half##N *)sink = lgamma_r((half##N)0, (AS int##N *)p);                                \
    *(global half##N *)sink = remquo((half##N)0, (half##N)0, (AS int##N *)p);
#define POINTERS_GLOBAL(N)  POINTERS(global, N)
#define POINTERS_LOCAL(N)   POINTERS(local, N)
#define POINTERS_PRIVATE(N) POINTERS(private, N)

kernel void every_half_math(global char *sink, global char *g)
{
    local char l[256];
  private
    char q[256];
    global char *p = g;
    WIDTHS(UNARY_ALL)
    WIDTHS(BINARY_ALL)
    WIDTHS(OTHERS)
    VWIDTHS(SPLAT)
    WIDTHS(POINTERS_GLOBAL)
    {
        local char *p = l;
        WIDTHS(POINTERS_LOCAL)
    }
    {
      private
        char *p = q;
        WIDTHS(POINTERS_PRIVATE)
        *(global char4 *)sink = *(private char4 *)q;
    }
}
