/*
 * Exponential, logarithm, power and trigonometric builtins: every function in float
 * and double, on dense random inputs (random bit patterns, which include NaNs,
 * infinities and subnormals, uniform samples over the interesting domain, and
 * log-uniform magnitudes) and on a list of special values. Each result is compared
 * with the host C library computed in higher precision (double for float, long
 * double for double); the error in ulps must stay within the OpenCL C 3.0 bound
 * (§7.4), and where the reference is a NaN, an infinity or a zero the result must be
 * exactly that (with the sign of a zero). Vector forms are run for several widths on
 * the same inputs. The measured maximum errors are printed.
 */
#include "kiln_test.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#define N (1 << 16)

enum kind { UNARY, BINARY, INT_ARG };

struct fn {
    const char *name;
    enum kind kind;
    double bound_f, bound_d; /* ulps */
    double (*ref_f)(double, double);
    long double (*ref_d)(long double, long double);
    double lo, hi;   /* uniform sampling interval for x */
    double ylo, yhi; /* for y (binary) or n (INT_ARG) */
    double domain;   /* if not 0, |x| and |y| are kept within it (half_ and native_) */
};

/* References: the host C library in higher precision. */
#define REF1(name, fun)                                                                            \
    static double rf_##name(double x, double y)                                                    \
    {                                                                                              \
        (void)y;                                                                                   \
        return fun(x);                                                                             \
    }                                                                                              \
    static long double rd_##name(long double x, long double y)                                     \
    {                                                                                              \
        (void)y;                                                                                   \
        return fun##l(x);                                                                          \
    }
REF1(exp, exp)
REF1(exp2, exp2)
REF1(exp10, exp10)
REF1(expm1, expm1)
REF1(log, log)
REF1(log2, log2)
REF1(log10, log10)
REF1(log1p, log1p)
REF1(cbrt, cbrt)
REF1(sin, sin)
REF1(cos, cos)
REF1(tan, tan)

/*
 * sinpi, cospi, tanpi: |x| = n/2 + r exactly (long double), then the C library's
 * sinl/cosl of pi r. Zeros: sinpi(+-n) = +-0, cospi(n + 1/2) = +0, tanpi(+-n) = +-0,
 * tanpi(n + 1/2) = +inf for even n and -inf for odd n (C23), odd in x.
 */
static long double ref_pi(long double x, int which)
{
    if (isnan(x) || isinf(x))
        return NAN;
    long double a = fabsl(x);
    long double n = rintl(2 * a);
    long double r = a - n / 2;
    long double q = fmodl(n, 4);
    long double s = sinl(3.14159265358979323846264338327950288L * r);
    long double c = cosl(3.14159265358979323846264338327950288L * r);
    int odd = q == 1 || q == 3;
    long double sv = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
    long double cv = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
    long double tv = odd ? -c / s : s / c;
    if (r == 0) {
        sv = odd ? sv : 0;
        cv = odd ? 0 : cv;
        tv = odd ? (q == 1 ? INFINITY : -INFINITY) : 0;
    }
    if (which == 1)
        return cv;
    if (which == 0)
        sv = signbit(x) ? -sv : sv;
    else
        sv = signbit(x) ? -tv : tv;
    return sv;
}
#define REFPI(name, which)                                                                         \
    static double rf_##name(double x, double y)                                                    \
    {                                                                                              \
        (void)y;                                                                                   \
        return (double)ref_pi(x, which);                                                           \
    }                                                                                              \
    static long double rd_##name(long double x, long double y)                                     \
    {                                                                                              \
        (void)y;                                                                                   \
        return ref_pi(x, which);                                                                   \
    }
REFPI(sinpi, 0)
REFPI(cospi, 1)
REFPI(tanpi, 2)

static double rf_pow(double x, double y)
{
    return pow(x, y);
}
static long double rd_pow(long double x, long double y)
{
    return powl(x, y);
}
static double rf_divide(double x, double y)
{
    return x / y;
}
static double rf_recip(double x, double y)
{
    (void)y;
    return 1.0 / x;
}
static double rf_sqrt(double x, double y)
{
    (void)y;
    return sqrt(x);
}
static double rf_rsqrt(double x, double y)
{
    (void)y;
    return 1.0 / sqrt(x);
}
static long double rd_rsqrt(long double x, long double y)
{
    (void)y;
    return 1.0L / sqrtl(x);
}
/* powr (OpenCL C §7.5.1): pow for x >= 0, NaN where the limit is undefined. */
static long double rd_powr(long double x, long double y)
{
    if (x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) || (isinf(x) && y == 0) ||
        (x == 1 && isinf(y)))
        return NAN;
    return powl(x == 0 ? 0.0L : x, y);
}
static double rf_powr(double x, double y)
{
    return (double)rd_powr(x, y);
}

/* native_ and half_ (float only): checked against the half_ bound on the half_ domain. */
#define NH(name, kind, ref, lo, hi, ylo, yhi, dom)                                                 \
    {"native_" #name, kind, 8192, -1, ref, NULL, lo, hi, ylo, yhi, dom},                           \
    {                                                                                              \
        "half_" #name, kind, 8192, -1, ref, NULL, lo, hi, ylo, yhi, dom                            \
    }
/* rootn: NaN for n = 0 or an even root of a negative number; odd roots keep the sign. */
static long double rd_rootn(long double x, long double n)
{
    int odd = fmodl(n, 2) != 0;
    if (n == 0 || isnan(x) || (x < 0 && !odd))
        return NAN;
    long double m = powl(fabsl(x), 1.0L / n);
    return odd ? copysignl(m, x) : m;
}
static double rf_rootn(double x, double n)
{
    if (n == 0 || isnan(x) || (x < 0 && fmod(n, 2) == 0))
        return NAN;
    double m = pow(fabs(x), 1.0 / n);
    return fmod(n, 2) != 0 ? copysign(m, x) : m;
}

static const struct fn fns[] = {
    {"exp", UNARY, 3, 3, rf_exp, rd_exp, -110, 100, 0, 0, 0},
    {"exp2", UNARY, 3, 3, rf_exp2, rd_exp2, -160, 140, 0, 0, 0},
    {"exp10", UNARY, 3, 3, rf_exp10, rd_exp10, -50, 45, 0, 0, 0},
    {"expm1", UNARY, 3, 3, rf_expm1, rd_expm1, -20, 90, 0, 0, 0},
    {"log", UNARY, 3, 3, rf_log, rd_log, 0, 4, 0, 0, 0},
    {"log2", UNARY, 3, 3, rf_log2, rd_log2, 0, 4, 0, 0, 0},
    {"log10", UNARY, 3, 3, rf_log10, rd_log10, 0, 4, 0, 0, 0},
    {"log1p", UNARY, 2, 2, rf_log1p, rd_log1p, -1, 4, 0, 0, 0},
    {"pow", BINARY, 16, 16, rf_pow, rd_pow, -4, 100, -40, 40, 0},
    {"pown", INT_ARG, 16, 16, rf_pow, rd_pow, -4, 100, -60, 60, 0},
    {"powr", BINARY, 16, 16, rf_powr, rd_powr, 0, 100, -40, 40, 0},
    {"rootn", INT_ARG, 16, 16, rf_rootn, rd_rootn, -100, 100, -20, 20, 0},
    {"rsqrt", UNARY, 2, 2, rf_rsqrt, rd_rsqrt, 0, 100, 0, 0, 0},
    {"cbrt", UNARY, 2, 2, rf_cbrt, rd_cbrt, -100, 100, 0, 0, 0},
    {"sin", UNARY, 4, 4, rf_sin, rd_sin, -10, 10, 0, 0, 0},
    {"cos", UNARY, 4, 4, rf_cos, rd_cos, -10, 10, 0, 0, 0},
    {"tan", UNARY, 4, 4, rf_tan, rd_tan, -10, 10, 0, 0, 0},
    {"sinpi", UNARY, 4, 4, rf_sinpi, rd_sinpi, -4, 4, 0, 0, 0},
    {"cospi", UNARY, 4, 4, rf_cospi, rd_cospi, -4, 4, 0, 0, 0},
    {"tanpi", UNARY, 6, 6, rf_tanpi, rd_tanpi, -4, 4, 0, 0, 0},
    NH(sin, UNARY, rf_sin, -10, 10, 0, 0, 65536),
    NH(cos, UNARY, rf_cos, -10, 10, 0, 0, 65536),
    NH(tan, UNARY, rf_tan, -10, 10, 0, 0, 65536),
    NH(exp, UNARY, rf_exp, -110, 100, 0, 0, 0),
    NH(exp2, UNARY, rf_exp2, -160, 140, 0, 0, 0),
    NH(exp10, UNARY, rf_exp10, -50, 45, 0, 0, 0),
    NH(log, UNARY, rf_log, 0, 4, 0, 0, 0),
    NH(log2, UNARY, rf_log2, 0, 4, 0, 0, 0),
    NH(log10, UNARY, rf_log10, 0, 4, 0, 0, 0),
    NH(recip, UNARY, rf_recip, -10, 10, 0, 0, 0),
    NH(rsqrt, UNARY, rf_rsqrt, 0, 100, 0, 0, 0),
    NH(sqrt, UNARY, rf_sqrt, 0, 100, 0, 0, 0),
    NH(divide, BINARY, rf_divide, -100, 100, -100, 100, 0),
    NH(powr, BINARY, rf_powr, 0, 100, -10, 10, 1e4),
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

/* One kernel per function and precision, plus vector forms. */
static const char *src =
    "#define U(f) \\\n"
    "kernel void f_##f(global const float *x, global const float *y, global float *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f4_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f16_##f(global const float16 *x, global const float16 *y, global float16 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f3_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); float4 v = x[i]; r[i] = (float4)(f(v.xyz), f(v.w)); } \\\n"
    "kernel void d_##f(global const double *x, global const double *y, global double *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void d2_##f(global const double2 *x, global const double2 *y, global double2 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void d8_##f(global const double8 *x, global const double8 *y, global double8 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void d3_##f(global const double4 *x, global const double4 *y, global double4 *r) \\\n"
    "{ size_t i = get_global_id(0); double4 v = x[i]; r[i] = (double4)(f(v.xyz), f(v.w)); }\n"
    "U(exp) U(exp2) U(exp10) U(expm1) U(log) U(log2) U(log10) U(log1p) U(rsqrt) U(cbrt)\n"
    "U(sin) U(cos) U(tan) U(sinpi) U(cospi) U(tanpi)\n"
    "#define UF(f) \\\n"
    "kernel void f_##f(global const float *x, global const float *y, global float *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f4_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f16_##f(global const float16 *x, global const float16 *y, global float16 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i]); } \\\n"
    "kernel void f3_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); float4 v = x[i]; r[i] = (float4)(f(v.xyz), f(v.w)); }\n"
    "#define NH(f) UF(native_##f) UF(half_##f)\n"
    "NH(sin) NH(cos) NH(tan) NH(exp) NH(exp2) NH(exp10) NH(log) NH(log2) NH(log10)\n"
    "NH(recip) NH(rsqrt) NH(sqrt)\n"
    "#define BF(f) \\\n"
    "kernel void f_##f(global const float *x, global const float *y, global float *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f4_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f16_##f(global const float16 *x, global const float16 *y, global float16 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f3_##f(global const float4 *x, global const float4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); float4 v = x[i], w = y[i]; \\\n"
    "  r[i] = (float4)(f(v.xyz, w.xyz), f(v.w, w.w)); }\n"
    "BF(native_divide) BF(half_divide) BF(native_powr) BF(half_powr)\n"
    "#define K2(f, Y, YV) \\\n"
    "kernel void f_##f(global const float *x, global const Y *y, global float *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f4_##f(global const float4 *x, global const Y##4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f16_##f(global const float16 *x, global const Y##16 *y, global float16 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void f3_##f(global const float4 *x, global const Y##4 *y, global float4 *r) \\\n"
    "{ size_t i = get_global_id(0); float4 v = x[i]; Y##4 w = y[i]; \\\n"
    "  r[i] = (float4)(f(v.xyz, w.xyz), f(v.w, w.w)); } \\\n"
    "kernel void d_##f(global const double *x, global const YV *y, global double *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void d2_##f(global const double2 *x, global const YV##2 *y, global double2 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void d8_##f(global const double8 *x, global const YV##8 *y, global double8 *r) \\\n"
    "{ size_t i = get_global_id(0); r[i] = f(x[i], y[i]); } \\\n"
    "kernel void d3_##f(global const double4 *x, global const YV##4 *y, global double4 *r) \\\n"
    "{ size_t i = get_global_id(0); double4 v = x[i]; YV##4 w = y[i]; \\\n"
    "  r[i] = (double4)(f(v.xyz, w.xyz), f(v.w, w.w)); }\n"
    "K2(pow, float, double) K2(powr, float, double) K2(pown, int, int) K2(rootn, int, int)\n";

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnd() >> 11) * 0x1p-53);
}

static const double specials[] = {
    0.0,       -0.0,       INFINITY,  -INFINITY, NAN,      1.0,      -1.0,      0.5,      -0.5,
    2.0,       -2.0,       3.0,       -3.0,      10.0,     0x1p-149, -0x1p-149, 0x1p-126, -0x1p-126,
    0x1p-1074, -0x1p-1074, 0x1p-1022, FLT_MAX,   -FLT_MAX, DBL_MAX,  -DBL_MAX,  88.72,    -103.9,
    709.78,    -745.1,     1e-30,     -1e-30,    0.75,     1.5,      100.5};
#define NSPECIAL (sizeof(specials) / sizeof(specials[0]))

/* Inputs: specials, then thirds of random bits, uniform [lo, hi], log-uniform magnitudes. */
static void fill(double *out, int dbl, double lo, double hi, int special_pairs)
{
    for (size_t i = 0; i < N; i++) {
        double v;
        if (i < NSPECIAL) {
            v = specials[(i + special_pairs) % NSPECIAL];
        } else if (i % 3 == 0) {
            uint64_t b = rnd();
            if (dbl) {
                memcpy(&v, &b, 8);
            } else {
                uint32_t b32 = (uint32_t)b;
                float f;
                memcpy(&f, &b32, 4);
                v = f;
            }
        } else if (i % 3 == 1) {
            v = uniform(lo, hi);
        } else {
            double m = fmax(fabs(lo), fabs(hi));
            v = exp2(uniform(dbl ? -1074 : -149, log2(m))) * ((lo < 0 && (rnd() & 1)) ? -1 : 1);
        }
        out[i] = dbl ? v : (double)(float)v;
    }
}

/* Error of y in ulps of the precision (mant bits, min exponent, max exponent). */
static double ulp_error(long double y, long double ref, int mant, int emin, int emax)
{
    if (isnan(ref))
        return isnan(y) ? 0 : INFINITY;
    if (isnan(y))
        return INFINITY;
    /* Beyond the largest finite value plus half an ulp the result must be infinite. */
    if (fabsl(ref) >= ldexpl(1, emax) - ldexpl(1, emax - mant - 1))
        ref = copysignl(INFINITY, ref);
    if (ref == 0)
        return (y == 0 && signbit(y) == signbit(ref)) ? 0 : INFINITY;
    if (isinf(ref))
        return y == ref ? 0 : INFINITY;
    if (isinf(y))
        y = copysignl(ldexpl(1, emax), y);
    int e;
    frexpl(ref, &e);
    if (e > emax)
        e = emax;
    int ue = e - mant;
    if (ue < emin - mant + 1)
        ue = emin - mant + 1;
    return (double)(fabsl(y - ref) / ldexpl(1, ue));
}

struct result {
    double max_err;
    double worst_x, worst_y;
};

static void check(const struct fn *f, int dbl, const double *x, const double *y, const void *out,
                  size_t count, struct result *res, const char *kname)
{
    for (size_t i = 0; i < count; i++) {
        long double ref, got;
        if (dbl) {
            ref = f->ref_d(x[i], y[i]);
            got = ((const double *)out)[i];
        } else {
            ref = f->ref_f(x[i], y[i]);
            got = ((const float *)out)[i];
        }
        double err =
            dbl ? ulp_error(got, ref, 53, -1022, 1024) : ulp_error(got, ref, 24, -126, 128);
        if (err > res->max_err || (isinf(err) && !isinf(res->max_err))) {
            res->max_err = err;
            res->worst_x = x[i];
            res->worst_y = y[i];
        }
        double bound = dbl ? f->bound_d : f->bound_f;
        if (!(err <= bound) && kt_failures < 40)
            KT_CHECK(err <= bound, "%s(%a, %a) = %La, reference %La: %g ulp > %g", kname, x[i],
                     y[i], got, ref, err, bound);
    }
}

static cl_program prog;

static void run_kernel(struct kt_env *env, const char *kname, const void *xb, const void *yb,
                       size_t ysize, void *out, size_t esize, size_t lanes_per_item)
{
    cl_int err;
    cl_kernel k = clCreateKernel(prog, kname, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", kname, err);
    cl_mem bx = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N * esize, (void *)xb, &err);
    cl_mem by = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N * ysize, (void *)yb, &err);
    cl_mem br = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, N * esize, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    clSetKernelArg(k, 0, sizeof(cl_mem), &bx);
    clSetKernelArg(k, 1, sizeof(cl_mem), &by);
    clSetKernelArg(k, 2, sizeof(cl_mem), &br);
    size_t global = N / lanes_per_item;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, br, CL_TRUE, 0, N * esize, out, 0, NULL, NULL),
              CL_SUCCESS);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseMemObject(br);
    clReleaseKernel(k);
}

/*
 * sincos through every address space its pointer may have: private, global and local
 * (every OpenCL C version) and generic (2.0 and later), for float, float4 and double.
 * Eight results per work-item: four sines and the four cosines they stored.
 */
static const char *sincos_src =
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "#define GEN(T) { T gc; T *g = &gc; o[3] = sincos(v, g); o[7] = gc; }\n"
    "#else\n"
    "#define GEN(T) { o[3] = sincos(v, &pc); o[7] = pc; }\n"
    "#endif\n"
    "#define SC(T, name) \\\n"
    "kernel void name(global const T *x, global T *out, local T *l) \\\n"
    "{ size_t i = get_global_id(0), li = get_local_id(0); T v = x[i]; \\\n"
    "  global T *o = out + 8 * i; T pc; \\\n"
    "  o[0] = sincos(v, &pc); o[4] = pc; \\\n"
    "  o[1] = sincos(v, &o[5]); \\\n"
    "  o[2] = sincos(v, &l[li]); o[6] = l[li]; \\\n"
    "  GEN(T) }\n"
    "SC(float, sc_f) SC(float4, sc_f4) SC(double, sc_d)\n";

static void test_sincos(struct kt_env *env, const char *options)
{
    enum { M = 4096 };
    static double x[M], out_d[8 * M];
    static float xf[M], out_f[8 * M];
    fill(x, 1, -1e6, 1e6, 0);
    for (size_t i = 0; i < M; i++)
        xf[i] = (float)x[i];
    cl_int err;
    cl_program p = kt_build(env, sincos_src, options);
    static const char *const names[] = {"sc_f", "sc_f4", "sc_d"};
    for (int k = 0; k < 3; k++) {
        int dbl = k == 2;
        size_t lanes = k == 1 ? 4 : 1, esize = dbl ? 8 : 4;
        cl_kernel kern = clCreateKernel(p, names[k], &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", names[k], err);
        cl_mem bx = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, M * esize,
                                   dbl ? (void *)x : (void *)xf, &err);
        cl_mem bo = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, 8 * M * esize, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        clSetKernelArg(kern, 0, sizeof(cl_mem), &bx);
        clSetKernelArg(kern, 1, sizeof(cl_mem), &bo);
        clSetKernelArg(kern, 2, 64 * esize * lanes, NULL);
        size_t global = M / lanes, local = 64;
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, 1, NULL, &global, &local, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, 8 * M * esize,
                                      dbl ? (void *)out_d : (void *)out_f, 0, NULL, NULL),
                  CL_SUCCESS);
        double worst = 0;
        for (size_t i = 0; i < M; i++) {
            size_t item = i / lanes, lane = i % lanes;
            for (int j = 0; j < 8; j++) {
                size_t at = (item * 8 + j) * lanes + lane;
                long double ref =
                    j < 4 ? (dbl ? sinl(x[i]) : sin(xf[i])) : (dbl ? cosl(x[i]) : cos(xf[i]));
                double e = dbl ? ulp_error(out_d[at], ref, 53, -1022, 1024)
                               : ulp_error(out_f[at], ref, 24, -126, 128);
                worst = e > worst ? e : worst;
                if (!(e <= 4) && kt_failures < 40)
                    KT_CHECK(e <= 4, "%s %s result %d for x=%a: %g ulp", names[k], options, j,
                             dbl ? x[i] : xf[i], e);
            }
        }
        printf("sincos   %-6s %s max %.3f ulp (bound 4)\n", names[k], options, worst);
        clReleaseMemObject(bx);
        clReleaseMemObject(bo);
        clReleaseKernel(kern);
    }
    clReleaseProgram(p);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    prog = kt_build(&env, src, "-cl-std=CL3.0");

    static double x[N], y[N];
    static float xf[N], yf[N], rf[N];
    static int yi[N];
    static double rd[N];
    static const char *const fwidths[] = {"f", "f4", "f16", "f3"};
    static const size_t flanes[] = {1, 4, 16, 4};
    static const char *const dwidths[] = {"d", "d2", "d8", "d3"};
    static const size_t dlanes[] = {1, 2, 8, 4};

    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        for (int dbl = 0; dbl < (f->bound_d < 0 ? 1 : 2); dbl++) {
            fill(x, dbl, f->lo, f->hi, 0);
            if (f->kind == BINARY) {
                fill(y, dbl, f->ylo, f->yhi, 7);
                /* Every pair of special values, and many integer exponents. */
                for (size_t i = 0; i < NSPECIAL * NSPECIAL; i++) {
                    x[i] = dbl ? specials[i / NSPECIAL] : (float)specials[i / NSPECIAL];
                    y[i] = dbl ? specials[i % NSPECIAL] : (float)specials[i % NSPECIAL];
                }
                for (size_t i = NSPECIAL * NSPECIAL; i < N; i += 4)
                    y[i] = rint(y[i]);
            } else if (f->kind == INT_ARG) {
                static const int nspecial[] = {0,  1, -1,      2,       -2,     3,
                                               -3, 5, 1000001, INT_MAX, INT_MIN};
                const size_t nn = sizeof(nspecial) / sizeof(nspecial[0]);
                for (size_t i = 0; i < N; i++)
                    y[i] = i < NSPECIAL * nn ? nspecial[i % nn] : (int)uniform(f->ylo, f->yhi);
                for (size_t i = 0; i < NSPECIAL * nn; i++)
                    x[i] = dbl ? specials[i / nn] : (float)specials[i / nn];
            } else {
                memset(y, 0, sizeof(y));
            }
            for (size_t i = 0; f->domain && i < N; i++) {
                if (!(fabs(x[i]) <= f->domain))
                    x[i] = (float)uniform(f->lo, f->hi);
                if (!(fabs(y[i]) <= f->domain))
                    y[i] = (float)uniform(f->ylo, f->yhi);
            }
            for (size_t i = 0; i < N; i++) {
                xf[i] = (float)x[i];
                yf[i] = (float)y[i];
                yi[i] = (int)y[i];
            }
            struct result res = {0, 0, 0};
            for (int w = 0; w < 4; w++) {
                char kname[64];
                snprintf(kname, sizeof(kname), "%s_%s", dbl ? dwidths[w] : fwidths[w], f->name);
                int ints = f->kind == INT_ARG;
                if (dbl)
                    run_kernel(&env, kname, x, ints ? (void *)yi : (void *)y, ints ? 4 : 8, rd, 8,
                               dlanes[w]);
                else
                    run_kernel(&env, kname, xf, ints ? (void *)yi : (void *)yf, 4, rf, 4,
                               flanes[w]);
                check(f, dbl, x, y, dbl ? (void *)rd : (void *)rf, N, &res, kname);
            }
            printf("%-8s %-6s max %.3f ulp (bound %g) at x=%a y=%a\n", f->name,
                   dbl ? "double" : "float", res.max_err, dbl ? f->bound_d : f->bound_f,
                   res.worst_x, res.worst_y);
        }
    }
    clReleaseProgram(prog);
    test_sincos(&env, "-cl-std=CL1.2");
    test_sincos(&env, "-cl-std=CL3.0");
    kt_teardown(&env);
    return kt_finish("math_exp");
}
