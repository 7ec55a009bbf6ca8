/*
 * The math builtins of kernel-lib/math beyond the basic ones: the exact functions
 * (rounding, fmod, remainder, remquo, fract, frexp, modf, ldexp, ilogb, logb, nan,
 * nextafter, maxmag, minmag, ...) and the precision-bound ones (hypot, the inverse
 * trigonometric functions, the hyperbolic ones, erf, lgamma, tgamma), for float and
 * double.
 *
 * Inputs are special values (zeros of both signs, infinities, NaN, denormals, the
 * extremes, halfway cases), dense random bit patterns and random values in a range
 * where the function is interesting. Every result is compared with the host C
 * library: exact functions must give the same bits (any NaN for a NaN), the others
 * are measured in ulp against a reference computed in higher precision (double for
 * float, long double for double) and must stay within OpenCL C 3.0 §7.4. remquo's
 * seven quotient bits are checked against a long division on integers written here.
 * Scalars run every input; each vector width (2, 3, 4, 8, 16) runs every function on
 * a part of them; the pointer-taking functions run with __global, __local and
 * __private pointers at -cl-std=CL1.2 and through generic pointers at CL3.0.
 */
#define _DEFAULT_SOURCE /* lgamma_r and lgammal_r */
#include "kiln_test.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum ty { F32, F64, F16 };
static const char *const ty_name[] = {"float", "double", "half"};

/* How a function is called. */
enum shape {
    UN,     /* T f(T) */
    BIN,    /* T f(T, T) */
    TO_N,   /* N f(T): ilogb */
    T_N,    /* T f(T, N): ldexp */
    NAN_U,  /* T f(U): nan */
    PTR_T,  /* T f(T, T *): fract, modf */
    PTR_N,  /* T f(T, N *): frexp, lgamma_r */
    REMQUO, /* T f(T, T, N *) */
};

/* How a result is judged. */
enum judge {
    EXACT,  /* same bits, or both NaN */
    EITHER, /* exact, but when |x| == |y| either argument (maxmag, minmag) */
    ULP,    /* within max_ulp of the higher-precision reference */
};

struct fn {
    const char *name;
    enum shape shape;
    enum judge judge;
    float ulp_f, ulp_d; /* bounds of §7.4 for ULP */
    /* host references; for ULP the float one gets double and the double one long double */
    long double (*ref_f)(long double, long double, int, int *);
    long double (*ref_d)(long double, long double, int, int *);
    int range;                 /* 0 all bit patterns; else the random part is in [-range, range] */
    float max_f, max_d, max_h; /* measured */
};

/* ---- host references ---- */

#define REF1(NAME, FF, FD)                                                                         \
    static long double NAME##_f(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)y, (void)n, (void)o;                                                                 \
        return FF((float)x);                                                                       \
    }                                                                                              \
    static long double NAME##_d(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)y, (void)n, (void)o;                                                                 \
        return FD((double)x);                                                                      \
    }
#define REF2(NAME, FF, FD)                                                                         \
    static long double NAME##_f(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)n, (void)o;                                                                          \
        return FF((float)x, (float)y);                                                             \
    }                                                                                              \
    static long double NAME##_d(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)n, (void)o;                                                                          \
        return FD((double)x, (double)y);                                                           \
    }
/* Precision-bound functions: float against double, double against long double. */
#define PREC1(NAME, FD, FL)                                                                        \
    static long double NAME##_f(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)y, (void)n, (void)o;                                                                 \
        return FD((double)(float)x);                                                               \
    }                                                                                              \
    static long double NAME##_d(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)y, (void)n, (void)o;                                                                 \
        return FL(x);                                                                              \
    }
#define PREC2(NAME, FD, FL)                                                                        \
    static long double NAME##_f(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)n, (void)o;                                                                          \
        return FD((double)(float)x, (double)(float)y);                                             \
    }                                                                                              \
    static long double NAME##_d(long double x, long double y, int n, int *o)                       \
    {                                                                                              \
        (void)n, (void)o;                                                                          \
        return FL(x, y);                                                                           \
    }

REF1(ceil, ceilf, ceil)
REF1(floor, floorf, floor)
REF1(trunc, truncf, trunc)
REF1(round, roundf, round)
REF1(rint, rintf, rint)
REF1(logb, logbf, logb)
REF2(copysign, copysignf, copysign)
REF2(fdim, fdimf, fdim)
REF2(fmod, fmodf, fmod)
REF2(remainder, remainderf, remainder)
REF2(nextafter, nextafterf, nextafter)

static float maxmagf(float x, float y)
{
    return fabsf(x) > fabsf(y) ? x : fabsf(y) > fabsf(x) ? y : fmaxf(x, y);
}
static double maxmagd(double x, double y)
{
    return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y);
}
static float minmagf(float x, float y)
{
    return fabsf(x) < fabsf(y) ? x : fabsf(y) < fabsf(x) ? y : fminf(x, y);
}
static double minmagd(double x, double y)
{
    return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y);
}
REF2(maxmag, maxmagf, maxmagd)
REF2(minmag, minmagf, minmagd)

static long double ilogb_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    return isnan(x) ? INT_MAX : ilogbf((float)x); /* OpenCL's FP_ILOGBNAN is INT_MAX */
}
static long double ilogb_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    return isnan(x) ? INT_MAX : ilogb((double)x);
}
static long double ldexp_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)o;
    return ldexpf((float)x, n);
}
static long double ldexp_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)o;
    return ldexp((double)x, n);
}
static long double fract_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    float f = floorf((float)x);
    float r = fminf((float)x - f, 0x1.fffffep-1f);
    return isinf((float)x) ? copysignf(0.0f, (float)x) : (x == 0 || isnan(x)) ? (float)x : r;
}
static long double fract_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    double f = floor((double)x);
    double r = fmin((double)x - f, 0x1.fffffffffffffp-1);
    return isinf((double)x) ? copysign(0.0, (double)x) : (x == 0 || isnan(x)) ? (double)x : r;
}
static long double modf_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    float ip;
    return modff((float)x, &ip);
}
static long double modf_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)n, (void)o;
    double ip;
    return modf((double)x, &ip);
}
static long double frexp_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)n;
    return frexpf((float)x, o);
}
static long double frexp_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)n;
    return frexp((double)x, o);
}

/*
 * The quotient of remquo(x, y) rounded to nearest even, its low seven bits with the
 * sign of x / y, by long division of the integer significands (finite x, y != 0).
 */
static int quo7(long double x, long double y)
{
    if (isinf(y))
        return 0; /* x / y is a zero of the right sign, quotient 0 */
    int ex, ey;
    long double fx = frexpl(fabsl(x), &ex), fy = frexpl(fabsl(y), &ey);
    uint64_t mx = (uint64_t)ldexpl(fx, 63), my = (uint64_t)ldexpl(fy, 63);
    uint64_t q = 0, r = mx;
    if (ex >= ey) {
        for (int i = 0; i <= ex - ey; i++) {
            int bit = r >= my;
            if (bit)
                r -= my;
            q = (q << 1) | (uint64_t)bit;
            if (i < ex - ey)
                r <<= 1;
        }
    } else {
        /* |x| < |y|: the quotient is 0 or, when |x| > |y| / 2, 1. */
        long double ax = fabsl(x), ay = fabsl(y);
        q = 2 * ax > ay ? 1 : 0;
        goto sign;
    }
    if (2 * r > my || (2 * r == my && (q & 1)))
        q++;
sign:
    q &= 127;
    return signbit(x) != signbit(y) ? -(int)q : (int)q;
}
static long double remquo_f(long double x, long double y, int n, int *o)
{
    (void)n;
    int q;
    float r = remquof((float)x, (float)y, &q);
    *o = isnan(r) ? 0 : quo7(x, y);
    return r;
}
static long double remquo_d(long double x, long double y, int n, int *o)
{
    (void)n;
    int q;
    double r = remquo((double)x, (double)y, &q);
    *o = isnan(r) ? 0 : quo7(x, y);
    return r;
}

#define PI_L 3.141592653589793238462643383279502884L
static double atanpi_dd(double x)
{
    return atan(x) / M_PI;
}
static long double atanpi_ll(long double x)
{
    return atanl(x) / PI_L;
}
static double asinpi_dd(double x)
{
    return asin(x) / M_PI;
}
static long double asinpi_ll(long double x)
{
    return asinl(x) / PI_L;
}
static double acospi_dd(double x)
{
    return acos(x) / M_PI;
}
static long double acospi_ll(long double x)
{
    return acosl(x) / PI_L;
}
static double atan2pi_dd(double y, double x)
{
    return atan2(y, x) / M_PI;
}
static long double atan2pi_ll(long double y, long double x)
{
    return atan2l(y, x) / PI_L;
}
PREC1(atan, atan, atanl)
PREC1(asin, asin, asinl)
PREC1(acos, acos, acosl)
PREC1(atanpi, atanpi_dd, atanpi_ll)
PREC1(asinpi, asinpi_dd, asinpi_ll)
PREC1(acospi, acospi_dd, acospi_ll)
PREC2(atan2, atan2, atan2l)
PREC2(atan2pi, atan2pi_dd, atan2pi_ll)
PREC2(hypot, hypot, hypotl)
PREC1(sinh, sinh, sinhl)
PREC1(cosh, cosh, coshl)
PREC1(tanh, tanh, tanhl)
PREC1(asinh, asinh, asinhl)
PREC1(acosh, acosh, acoshl)
PREC1(atanh, atanh, atanhl)
PREC1(erf, erf, erfl)
PREC1(erfc, erfc, erfcl)
PREC1(tgamma, tgamma, tgammal)
PREC1(lgamma, lgamma, lgammal)
static long double lgamma_r_f(long double x, long double y, int n, int *o)
{
    (void)y, (void)n;
    return lgamma_r((double)(float)x, o);
}
static long double lgamma_r_d(long double x, long double y, int n, int *o)
{
    (void)y, (void)n;
    return lgammal_r(x, o);
}

static struct fn fns[] = {
    {"ceil", UN, EXACT, 0, 0, ceil_f, ceil_d, 0, 0, 0, 0},
    {"floor", UN, EXACT, 0, 0, floor_f, floor_d, 0, 0, 0, 0},
    {"trunc", UN, EXACT, 0, 0, trunc_f, trunc_d, 0, 0, 0, 0},
    {"round", UN, EXACT, 0, 0, round_f, round_d, 0, 0, 0, 0},
    {"rint", UN, EXACT, 0, 0, rint_f, rint_d, 0, 0, 0, 0},
    {"logb", UN, EXACT, 0, 0, logb_f, logb_d, 0, 0, 0, 0},
    {"ilogb", TO_N, EXACT, 0, 0, ilogb_f, ilogb_d, 0, 0, 0, 0},
    {"copysign", BIN, EXACT, 0, 0, copysign_f, copysign_d, 0, 0, 0, 0},
    {"fdim", BIN, EXACT, 0, 0, fdim_f, fdim_d, 0, 0, 0, 0},
    {"fmod", BIN, EXACT, 0, 0, fmod_f, fmod_d, 0, 0, 0, 0},
    {"remainder", BIN, EXACT, 0, 0, remainder_f, remainder_d, 0, 0, 0, 0},
    {"nextafter", BIN, EXACT, 0, 0, nextafter_f, nextafter_d, 0, 0, 0, 0},
    {"maxmag", BIN, EITHER, 0, 0, maxmag_f, maxmag_d, 0, 0, 0, 0},
    {"minmag", BIN, EITHER, 0, 0, minmag_f, minmag_d, 0, 0, 0, 0},
    {"ldexp", T_N, EXACT, 0, 0, ldexp_f, ldexp_d, 0, 0, 0, 0},
    {"fract", PTR_T, EXACT, 0, 0, fract_f, fract_d, 0, 0, 0, 0},
    {"modf", PTR_T, EXACT, 0, 0, modf_f, modf_d, 0, 0, 0, 0},
    {"frexp", PTR_N, EXACT, 0, 0, frexp_f, frexp_d, 0, 0, 0, 0},
    {"remquo", REMQUO, EXACT, 0, 0, remquo_f, remquo_d, 0, 0, 0, 0},
    {"nan", NAN_U, EXACT, 0, 0, NULL, NULL, 0, 0, 0, 0},
    {"hypot", BIN, ULP, 4, 4, hypot_f, hypot_d, 0, 0, 0, 0},
    {"atan", UN, ULP, 5, 5, atan_f, atan_d, 4, 0, 0, 0},
    {"atan2", BIN, ULP, 6, 6, atan2_f, atan2_d, 4, 0, 0, 0},
    {"atanpi", UN, ULP, 5, 5, atanpi_f, atanpi_d, 4, 0, 0, 0},
    {"atan2pi", BIN, ULP, 6, 6, atan2pi_f, atan2pi_d, 4, 0, 0, 0},
    {"asin", UN, ULP, 4, 4, asin_f, asin_d, 1, 0, 0, 0},
    {"acos", UN, ULP, 4, 4, acos_f, acos_d, 1, 0, 0, 0},
    {"asinpi", UN, ULP, 5, 5, asinpi_f, asinpi_d, 1, 0, 0, 0},
    {"acospi", UN, ULP, 5, 5, acospi_f, acospi_d, 1, 0, 0, 0},
    {"sinh", UN, ULP, 4, 4, sinh_f, sinh_d, 30, 0, 0, 0},
    {"cosh", UN, ULP, 4, 4, cosh_f, cosh_d, 30, 0, 0, 0},
    {"tanh", UN, ULP, 5, 5, tanh_f, tanh_d, 10, 0, 0, 0},
    {"asinh", UN, ULP, 4, 4, asinh_f, asinh_d, 10, 0, 0, 0},
    {"acosh", UN, ULP, 4, 4, acosh_f, acosh_d, 10, 0, 0, 0},
    {"atanh", UN, ULP, 5, 5, atanh_f, atanh_d, 1, 0, 0, 0},
    {"erf", UN, ULP, 16, 16, erf_f, erf_d, 7, 0, 0, 0},
    {"erfc", UN, ULP, 16, 16, erfc_f, erfc_d, 30, 0, 0, 0},
    {"tgamma", UN, ULP, 16, 16, tgamma_f, tgamma_d, 40, 0, 0, 0},
    /* no bound in §7.4; ours: 4 ulp, or near the zeros for x < 0 see LGAMMA_ABS */
    {"lgamma", UN, ULP, 4, 4, lgamma_f, lgamma_d, 40, 0, 0, 0},
    {"lgamma_r", PTR_N, ULP, 4, 4, lgamma_r_f, lgamma_r_d, 40, 0, 0, 0},
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

/* ---- inputs ---- */

#define COUNT 8192 /* elements of the scalar runs; a multiple of 64 and of 16 */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const double specials[] = {0.0,        -0.0,
                                  INFINITY,   -INFINITY,
                                  NAN,        1.0,
                                  -1.0,       0.5,
                                  -0.5,       1.5,
                                  2.5,        -2.5,
                                  0.49999997, 0.49999999999999994,
                                  3.0,        -7.0,
                                  0x1p-149,   -0x1p-149,
                                  0x1p-126,   0x1.fffffcp-127,
                                  0x1p-1074,  -0x1p-1074,
                                  0x1p-1022,  0x0.fffffffffffffp-1022,
                                  FLT_MAX,    -FLT_MAX,
                                  DBL_MAX,    -DBL_MAX,
                                  0x1p23,     0x1p23 + 1,
                                  0x1p52,     -0x1p52 - 1,
                                  1e30,       1e-30,
                                  0.1,        -10.0,
                                  0.7,        -0.99,
                                  1.01,       100.5};
#define NSPECIAL (sizeof(specials) / sizeof(specials[0]))

static void put(void *buf, size_t i, enum ty t, long double v)
{
    if (t == F32)
        ((float *)buf)[i] = (float)v;
    else if (t == F16)
        ((_Float16 *)buf)[i] = (_Float16)v;
    else
        ((double *)buf)[i] = (double)v;
}
static long double get(const void *buf, size_t i, enum ty t)
{
    if (t == F16)
        return (long double)((const _Float16 *)buf)[i];
    return t == F32 ? (long double)((const float *)buf)[i] : (long double)((const double *)buf)[i];
}
static size_t ty_size(enum ty t)
{
    return t == F32 ? 4 : t == F64 ? 8 : 2;
}

/* A random value: any bit pattern, or uniform in [-range, range] when range > 0. */
static long double random_value(enum ty t, int range)
{
    uint64_t r = next_rand();
    if (range > 0 && (r & 3) != 0)
        return ((long double)(next_rand() >> 11) / 0x1p53 * 2 - 1) * range;
    if (t == F32) {
        uint32_t b = (uint32_t)r;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    if (t == F16) {
        uint16_t b = (uint16_t)r;
        _Float16 h;
        memcpy(&h, &b, 2);
        return h;
    }
    double d;
    memcpy(&d, &r, 8);
    return d;
}

/*
 * Fill x, y (COUNT each) and n (ints): the first rows pair every special with every
 * special, then nearby pairs (x a small multiple of y plus a little, for fmod and
 * remainder), then random values.
 */
static void make_inputs(enum ty t, int range, void *x, void *y, int *n)
{
    size_t i = 0;
    for (size_t a = 0; a < NSPECIAL; a++)
        for (size_t b = 0; b < NSPECIAL; b++, i++) {
            put(x, i, t, specials[a]);
            put(y, i, t, specials[b]);
        }
    for (; i < COUNT / 2; i++) {
        long double yv = random_value(t, range);
        put(y, i, t, yv);
        long double k = (long double)(next_rand() % 64) + (next_rand() & 1 ? 0.5L : 0.0L);
        put(x, i, t, (next_rand() & 1) ? yv * k : random_value(t, range));
    }
    for (; i < COUNT; i++) {
        put(x, i, t, random_value(t, range));
        put(y, i, t, random_value(t, range));
    }
    for (i = 0; i < COUNT; i++) {
        uint64_t r = next_rand();
        static const int edge[] = {0, 1, -1, 200, -200, 1100, -1100, 2200, -2200, INT_MAX, INT_MIN};
        n[i] = (r & 1) ? edge[(r >> 1) % 11] : (int)((r >> 8) % 700) - 350;
    }
}

/* ---- running kernels ---- */

static struct kt_env env;

/* Run kernel `name` of `p` over `global` work-items with buffers in/out. */
static void run(cl_program p, const char *name, size_t global, size_t local, cl_uint nargs,
                const struct kt_arg *args)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    cl_mem mems[8] = {0};
    for (cl_uint i = 0; i < nargs; i++) {
        const struct kt_arg *a = &args[i];
        if (a->kind == KT_LOCAL) {
            err = clSetKernelArg(k, i, a->size, NULL);
        } else {
            cl_mem_flags fl = CL_MEM_READ_WRITE | (a->kind != KT_OUT ? CL_MEM_COPY_HOST_PTR : 0);
            mems[i] =
                clCreateBuffer(env.context, fl, a->size, a->kind != KT_OUT ? a->host : NULL, &err);
            KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
            err = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
        }
        KT_REQUIRE(err == CL_SUCCESS, "clSetKernelArg %s %u: %d", name, i, err);
    }
    err = clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                                 NULL);
    KT_REQUIRE(err == CL_SUCCESS, "enqueue %s: %d", name, err);
    for (cl_uint i = 0; i < nargs; i++)
        if (args[i].kind == KT_OUT || args[i].kind == KT_INOUT)
            KT_EXPECT(clEnqueueReadBuffer(env.queue, mems[i], CL_TRUE, 0, args[i].size,
                                          args[i].host, 0, NULL, NULL),
                      CL_SUCCESS);
    for (cl_uint i = 0; i < nargs; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    clReleaseKernel(k);
}

/*
 * One kernel per function and pointer kind, for T (float or double, any width) and N
 * the int type of its width. PTR selects how pointer results are passed: G a __global
 * pointer, P a private variable, L a __local array element; in OpenCL C 2.0 and later
 * the P and L forms reach the library through generic pointers.
 */
static const char *kernel_src =
    "#ifdef USE_FP64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n"
    "#ifdef USE_FP16\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#endif\n"
    "#define UN(f) kernel void f##_k(global const T *a, global const T *b, global T *r, "
    "global const N *n, global N *o) { size_t i = get_global_id(0); r[i] = f(a[i]); }\n"
    "#define BIN(f) kernel void f##_k(global const T *a, global const T *b, global T *r, "
    "global const N *n, global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], b[i]); }\n"
    "#define TO_N(f) kernel void f##_k(global const T *a, global const T *b, global T *r, "
    "global const N *n, global N *o) { size_t i = get_global_id(0); o[i] = f(a[i]); }\n"
    "#define T_N(f) kernel void f##_k(global const T *a, global const T *b, global T *r, "
    "global const N *n, global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], n[i]); }\n"
    "#define NAN_U(f) kernel void f##_k(global const U *a, global const T *b, global T *r, "
    "global const N *n, global N *o) { size_t i = get_global_id(0); r[i] = f(a[i]); }\n"
    "#define PTR_T(f) \\\n"
    "kernel void f##_k(global const T *a, global const T *b, global T *r, global T *p, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], &p[i]); } \\\n"
    "kernel void f##_p(global const T *a, global const T *b, global T *r, global T *p, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); T t; r[i] = f(a[i], &t); \\\n"
    "  p[i] = t; } \\\n"
    "kernel void f##_l(global const T *a, global const T *b, global T *r, global T *p, \\\n"
    "                  global N *o, local T *s) { size_t i = get_global_id(0), \\\n"
    "  l = get_local_id(0); r[i] = f(a[i], &s[l]); p[i] = s[l]; }\n"
    "#define PTR_N(f) \\\n"
    "kernel void f##_k(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], &o[i]); } \\\n"
    "kernel void f##_p(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); N t; r[i] = f(a[i], &t); \\\n"
    "  o[i] = t; } \\\n"
    "kernel void f##_l(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o, local N *s) { size_t i = get_global_id(0), \\\n"
    "  l = get_local_id(0); r[i] = f(a[i], &s[l]); o[i] = s[l]; }\n"
    "#define REMQUO(f) \\\n"
    "kernel void f##_k(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], b[i], &o[i]); } "
    "\\\n"
    "kernel void f##_p(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o) { size_t i = get_global_id(0); N t; \\\n"
    "  r[i] = f(a[i], b[i], &t); o[i] = t; } \\\n"
    "kernel void f##_l(global const T *a, global const T *b, global T *r, global const N *n, \\\n"
    "                  global N *o, local N *s) { size_t i = get_global_id(0), \\\n"
    "  l = get_local_id(0); r[i] = f(a[i], b[i], &s[l]); o[i] = s[l]; }\n"
    "#define LDEXP_S(f) kernel void f##_s(global const T *a, global const T *b, global T *r, "
    "global const int *n, global N *o) { size_t i = get_global_id(0); r[i] = f(a[i], n[i]); }\n"
    "FUNCS\n";

/*
 * Which functions a program holds, to keep the builds short: the scalar OpenCL C 1.2 one
 * has all, the 3.0 one the pointer-taking ones; each vector width (index wi 1..5) has a
 * fifth of them in turn, and round, frexp, hypot and ldexp (also ldexp(vector, int)).
 */
static bool included(size_t f, int wi, bool cl3)
{
    static const char *every_width[] = {"round", "frexp", "hypot", "ldexp"};
    if (wi == 0)
        return !cl3 || fns[f].shape == PTR_T || fns[f].shape == PTR_N || fns[f].shape == REMQUO;
    for (size_t i = 0; i < sizeof(every_width) / sizeof(every_width[0]); i++)
        if (strcmp(fns[f].name, every_width[i]) == 0)
            return true;
    return (int)(f % 5) == wi - 1;
}

/* The -D list defining FUNCS as the kernels of the included functions. */
static void funcs_define(char *buf, size_t size, int width, int wi, bool cl3)
{
    static const char *shape_macro[] = {"UN",    "BIN",   "TO_N",  "T_N",
                                        "NAN_U", "PTR_T", "PTR_N", "REMQUO"};
    size_t len = (size_t)snprintf(buf, size, "-DFUNCS=\"");
    for (size_t f = 0; f < NFNS; f++)
        if (included(f, wi, cl3))
            len += (size_t)snprintf(buf + len, size - len, "%s(%s) ", shape_macro[fns[f].shape],
                                    fns[f].name);
    if (width > 1)
        len += (size_t)snprintf(buf + len, size - len, "LDEXP_S(ldexp)");
    snprintf(buf + len, size - len, "\"");
}

static cl_program build(enum ty t, int width, int wi, const char *std)
{
    char opts[4096], funcs[2048], wn[16] = "";
    if (width > 1)
        snprintf(wn, sizeof(wn), "%d", width);
    funcs_define(funcs, sizeof(funcs), width, wi, strstr(std, "CL3.0") != NULL);
    static const char *const utype[] = {"uint", "ulong", "ushort"};
    static const char *const ext[] = {"", "-DUSE_FP64", "-DUSE_FP16"};
    snprintf(opts, sizeof(opts), "%s -DT=%s%s -DN=int%s -DU=%s%s %s %s", std, ty_name[t], wn, wn,
             utype[t], wn, ext[t], funcs);
    return kt_build(&env, kernel_src, opts);
}

/* ---- judging ---- */

/* The next half after x towards y, on the encoding. */
static _Float16 next_half(_Float16 x, _Float16 y)
{
    if (isnan((float)x) || isnan((float)y))
        return (_Float16)((float)x + (float)y);
    if ((float)x == (float)y)
        return y;
    uint16_t b;
    if ((float)x == 0) {
        b = (uint16_t)(signbit((float)y) ? 0x8001 : 0x0001);
    } else {
        memcpy(&b, &x, 2);
        bool away = ((float)y > (float)x) != ((float)x < 0);
        b = (uint16_t)(away ? b + 1 : b - 1);
    }
    _Float16 r;
    memcpy(&r, &b, 2);
    return r;
}

/*
 * The exact result for half from the float reference: the same value (it is a half),
 * except fract's cap at the largest half below 1 and nextafter's step.
 */
static long double half_exact(const char *name, long double want, long double x, long double y)
{
    if (strcmp(name, "nextafter") == 0)
        return next_half((_Float16)x, (_Float16)y);
    _Float16 h = (_Float16)want;
    if (strcmp(name, "fract") == 0 && (float)h >= 1.0f)
        h = (_Float16)0x1.ffcp-1;
    return h;
}

static bool same_bits(long double got, long double want, enum ty t)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (t == F32) {
        float a = (float)got, b = (float)want;
        return memcmp(&a, &b, 4) == 0;
    }
    if (t == F16) {
        _Float16 a = (_Float16)got, b = (_Float16)want;
        return memcmp(&a, &b, 2) == 0;
    }
    double a = (double)got, b = (double)want;
    return memcmp(&a, &b, 8) == 0;
}

/*
 * For x < 0, lgamma is log(pi / |x sinpi(x)|) - lgamma(-x), two terms that cancel near
 * the zeros of lgamma; there the error is measured against the terms, not the result.
 */
#define LGAMMA_ABS 0x1p-48L

/* |got - want| in units of the last place of want in type t. */
static double ulp_error(long double got, long double want, enum ty t)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got) ? 0 : INFINITY;
    int mant = t == F32 ? 24 : t == F64 ? 53 : 11, emin = t == F32 ? -126 : t == F64 ? -1022 : -14;
    long double lim = t == F32 ? (long double)FLT_MAX : t == F64 ? (long double)DBL_MAX : 65504.0L;
    if (isinf(want) || fabsl(want) > lim) {
        /* the reference overflows the type: only infinity or the largest value will do */
        if (isinf(got) && signbit(got) == signbit(want))
            return 0;
        return fabsl(got) == lim && signbit(got) == signbit(want) ? 0.5 : INFINITY;
    }
    if (isinf(got))
        return INFINITY;
    if (want == 0 && got == 0)
        return signbit(got) == signbit(want) ? 0 : INFINITY; /* a zero's sign is exact */
    int e = want == 0 ? emin : ilogbl(want);
    if (e < emin)
        e = emin;
    return (double)(fabsl(got - want) / ldexpl(1, e - mant + 1));
}

/*
 * Check lane results r (and the int results o) of function f for elements [0, count)
 * of inputs x, y, n; stride is the element stride in lanes (4 for 3-vectors).
 */
static void judge(struct fn *f, enum ty t, int width, const char *how, const void *x, const void *y,
                  const int *n, const void *r, const void *p, const int *o, size_t count)
{
    int bad = 0;
    int lanes = width == 3 ? 4 : width;
    for (size_t i = 0; i < count; i++) {
        if (width == 3 && i % 4 == 3)
            continue;
        (void)lanes;
        long double xv = get(x, i, t), yv = get(y, i, t), got = get(r, i, t);
        int want_o = 0;
        long double want;
        if (f->shape == NAN_U) {
            want = NAN;
        } else {
            long double (*ref)(long double, long double, int, int *) =
                t == F64 ? f->ref_d : f->ref_f;
            want = ref(xv, yv, n[i], &want_o);
            if (t == F16 && f->judge != ULP && f->shape != TO_N)
                want = half_exact(f->name, want, xv, yv);
        }
        bool ok;
        char extra[160] = "";
        if (f->shape == TO_N) {
            ok = o[i] == (int)want;
            snprintf(extra, sizeof(extra), "got %d want %d", o[i], (int)want);
        } else if (f->judge == ULP) {
            double e = ulp_error(got, want, t);
            /* half: the float forms rounded once; we ask for 1 ulp (§7.4 allows more) */
            float bound = t == F32 ? f->ulp_f : t == F64 ? f->ulp_d : 1;
            float *mx = t == F32 ? &f->max_f : t == F64 ? &f->max_d : &f->max_h;
            bool lg_neg = strncmp(f->name, "lgamma", 6) == 0 && xv < 0;
            if (e > *mx && !isinf(e) && !lg_neg) /* lgamma's maximum is for x > 0 */
                *mx = (float)e;
            ok = e <= bound;
            if (!ok && strncmp(f->name, "lgamma", 6) == 0 && xv < 0)
                ok = fabsl(got - want) <= LGAMMA_ABS * (1 + fabsl(want));
            snprintf(extra, sizeof(extra), "%.2f ulp (bound %.1f)", e, bound);
        } else {
            ok = same_bits(got, want, t);
            if (!ok && f->judge == EITHER && fabsl(xv) == fabsl(yv))
                ok = same_bits(got, xv, t) || same_bits(got, yv, t);
        }
        /* pointer results */
        if (ok && f->shape == PTR_T) {
            long double ip = get(p, i, t);
            long double want_ip = strcmp(f->name, "fract") == 0
                                      ? (t != F64 ? floorf((float)xv) : floor((double)xv))
                                      : (t != F64 ? truncf((float)xv) : trunc((double)xv));
            ok = same_bits(ip, want_ip, t);
            snprintf(extra, sizeof(extra), "pointer result %La, want %La", ip, want_ip);
        }
        if (ok && (f->shape == PTR_N || f->shape == REMQUO) && !isnan(want)) {
            /* frexp's exponent of an infinity is unspecified, as is lgamma_r's sign at a pole */
            bool frexp_special = f->shape == PTR_N && (isinf(xv) || isinf(want));
            ok = frexp_special || o[i] == want_o;
            snprintf(extra, sizeof(extra), "int result %d, want %d", o[i], want_o);
        }
        if (!ok && bad++ < 5)
            KT_CHECK(0, "%s %s width %d (%s): f(%La, %La, %d) = %La, want %La %s", f->name,
                     ty_name[t], width, how, xv, yv, n[i], got, want, extra);
    }
    if (bad > 5)
        fprintf(stderr, "%s: %d more failures\n", f->name, bad - 5);
}

/* Run every function of program p (width `width`) over `count` lanes and judge them. */
static void run_all(cl_program p, enum ty t, int width, int wi, size_t count, const char *how,
                    bool pointer_kinds)
{
    size_t ts = ty_size(t);
    void *x = malloc(COUNT * ts), *y = malloc(COUNT * ts), *r = malloc(COUNT * ts),
         *pt = malloc(COUNT * ts);
    int *n = malloc(COUNT * sizeof(int)), *o = malloc(COUNT * sizeof(int));
    size_t lanes = width == 3 ? 4 : (size_t)width;
    size_t items = count / lanes;
    for (size_t f = 0; f < NFNS; f++) {
        struct fn *fn = &fns[f];
        if (!included(f, wi, strstr(how, "CL3.0") != NULL))
            continue;
        make_inputs(t, fn->range, x, y, n);
        if (fn->shape == NAN_U) {
            /* payloads: any bits of the unsigned type */
            for (size_t i = 0; i < count; i++)
                put(x, i, t, 0), memcpy((char *)x + i * ts, &(uint64_t){next_rand()}, ts);
        }
        char kname[64];
        const char *kinds[] = {"k", "p", "l"};
        int nkinds =
            (fn->shape == PTR_T || fn->shape == PTR_N || fn->shape == REMQUO) && pointer_kinds ? 3
                                                                                               : 1;
        for (int kind = 0; kind < nkinds; kind++) {
            snprintf(kname, sizeof(kname), "%s_%s", fn->name, kinds[kind]);
            memset(r, 0, count * ts);
            memset(o, 0, count * sizeof(int));
            memset(pt, 0, count * ts);
            bool ptr_t = fn->shape == PTR_T;
            struct kt_arg args[6] = {
                {KT_IN, count * ts, x},
                {KT_IN, count * ts, y},
                {KT_OUT, count * ts, r},
                {ptr_t ? KT_OUT : KT_IN, ptr_t ? count * ts : count * sizeof(int),
                 ptr_t ? pt : (void *)n},
                {KT_OUT, count * sizeof(int), o},
                {KT_LOCAL, 64 * lanes * (ptr_t ? ts : sizeof(int)), NULL},
            };
            run(p, kname, items, kind == 2 ? 64 : 0, kind == 2 ? 6 : 5, args);
            char how2[64];
            snprintf(how2, sizeof(how2), "%s, %s pointer", how,
                     kind == 0   ? "global"
                     : kind == 1 ? "private"
                                 : "local");
            judge(fn, t, width, how2, x, y, n, r, pt, o, count);
        }
        if (fn->shape == T_N && width > 1) {
            /* ldexp(vector, int): one int per element */
            int *ns = malloc(items * sizeof(int));
            int *nl = malloc(count * sizeof(int));
            for (size_t i = 0; i < items; i++)
                ns[i] = n[i * lanes];
            for (size_t i = 0; i < count; i++)
                nl[i] = ns[i / lanes];
            struct kt_arg args[5] = {{KT_IN, count * ts, x},
                                     {KT_IN, count * ts, y},
                                     {KT_OUT, count * ts, r},
                                     {KT_IN, items * sizeof(int), ns},
                                     {KT_OUT, count * sizeof(int), o}};
            run(p, "ldexp_s", items, 0, 5, args);
            judge(fn, t, width, "vector, int", x, y, nl, r, pt, o, count);
            free(ns);
            free(nl);
        }
    }
    free(x);
    free(y);
    free(r);
    free(pt);
    free(n);
    free(o);
}

int main(void)
{
    kt_setup(&env, 0);
    static const int widths[] = {1, 2, 3, 4, 8, 16};
    for (int ti = 0; ti < 3; ti++) {
        enum ty t = (enum ty)ti;
        for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
            int width = widths[w];
            /* the pointer forms of OpenCL C 1.2 and the generic ones of 3.0 */
            const char *stds[] = {"-cl-std=CL1.2", "-cl-std=CL3.0"};
            for (int s = 0; s < (width == 1 ? 2 : 1); s++) {
                cl_program p = build(t, width, (int)w, stds[s]);
                run_all(p, t, width, (int)w, width == 1 ? COUNT : COUNT / 4, stds[s], width == 1);
                clReleaseProgram(p);
            }
        }
    }
    for (size_t f = 0; f < NFNS; f++)
        if (fns[f].judge == ULP)
            printf("%-10s max error: float %.2f ulp, double %.2f ulp, half %.2f ulp\n", fns[f].name,
                   fns[f].max_f, fns[f].max_d, fns[f].max_h);
    kt_teardown(&env);
    return kt_finish("math_misc");
}
