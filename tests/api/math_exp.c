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
 * sinl/cosl of pi r. Zeros: sinpi(+-n) = +-0, cospi(n + 1/2) = +0, tanpi(n) = +0 for even
 * and -0 for odd n >= 0, tanpi(n + 1/2) = +inf for even n and -inf for odd n (C23), odd in x.
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
        tv = odd ? (q == 1 ? INFINITY : -INFINITY) : q == 2 ? -0.0L : 0;
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

/*
 * Kernels: for each function and precision, a scalar one (f_name, d_name) and a vector
 * one (fv_name, dv_name) whose width rotates over the functions, so that every width
 * (3 through float4/double4 with .xyz) is run by several functions.
 */
static const int float_widths[] = {4, 16, 3, 8, 2};
static const int double_widths[] = {2, 3, 8, 4, 16};

static int vector_width(size_t fi, int dbl)
{
    return dbl ? double_widths[fi % 5] : float_widths[fi % 5];
}

static size_t add_kernel(char *out, size_t at, size_t cap, const struct fn *f, int dbl, int width)
{
    const char *t = dbl ? "double" : "float";
    const char *yt = f->kind == INT_ARG ? "int" : t;
    char w[16] = "", call[200];
    if (width > 1)
        snprintf(w, sizeof(w), "%d", width == 3 ? 4 : width);
    int un = f->kind == UNARY;
    if (width == 3)
        snprintf(call, sizeof(call), "(%s4)(%s(v.xyz%s), %s(v.w%s))", t, f->name,
                 un ? "" : ", w.xyz", f->name, un ? "" : ", w.w");
    else
        snprintf(call, sizeof(call), "%s(v%s)", f->name, un ? "" : ", w");
    return at + (size_t)snprintf(out + at, cap - at,
                                 "kernel void %s%s_%s(global const %s%s *x, global const %s%s *y, "
                                 "global %s%s *r)\n{ size_t i = get_global_id(0); %s%s v = x[i]; "
                                 "%s%s w = y[i]; (void)w; r[i] = %s; }\n",
                                 dbl ? "d" : "f", width > 1 ? "v" : "", f->name, t, w, yt, w, t, w,
                                 t, w, yt, w, call);
}

static char *make_source(void)
{
    size_t cap = 1 << 20, at = 0;
    char *out = malloc(cap);
    KT_REQUIRE(out, "out of memory");
    for (size_t fi = 0; fi < NFNS; fi++) {
        for (int dbl = 0; dbl < (fns[fi].bound_d < 0 ? 1 : 2); dbl++) {
            at = add_kernel(out, at, cap, &fns[fi], dbl, 1);
            at = add_kernel(out, at, cap, &fns[fi], dbl, vector_width(fi, dbl));
        }
    }
    return out;
}

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

/* n inputs: specials, then thirds of random bits, uniform [lo, hi], log-uniform magnitudes. */
static void fill(double *out, size_t n, int dbl, double lo, double hi, int special_pairs)
{
    for (size_t i = 0; i < n; i++) {
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
 * half_sin/cos/tan and native_sin/cos/tan beyond the half_ domain (|x| > 2^16): undefined
 * values, but sin and cos within [-1, 1] and tan finite, as the conformance suite checks.
 */
static void test_trig_out_of_domain(struct kt_env *env)
{
    static const char *src =
        "kernel void k(global const float *x, global float *r) {\n"
        "  size_t i = get_global_id(0); float v = x[i];\n"
        "  r[6 * i] = half_sin(v); r[6 * i + 1] = half_cos(v); r[6 * i + 2] = half_tan(v);\n"
        "  r[6 * i + 3] = native_sin(v); r[6 * i + 4] = native_cos(v);\n"
        "  r[6 * i + 5] = native_tan(v);\n"
        "}\n";
    float x[16] = {0x1p17f, -0x1p113f, -0x1p121f,  1e30f, FLT_MAX, -FLT_MAX, 3e5f,  -7.5e6f,
                   0x1p60f, -0x1p90f,  0x1.8p126f, 1e20f, 65537.f, -1e10f,   2e38f, 0x1p24f};
    float r[16 * 6];
    struct kt_arg args[] = {{KT_IN, sizeof(x), x}, {KT_OUT, sizeof(r), r}};
    KT_REQUIRE_OK(kt_run(env, src, NULL, "k", 16, 0, 2, args));
    for (int i = 0; i < 16; i++)
        for (int f = 0; f < 6; f++) {
            float v = r[6 * i + f];
            int tan = f % 3 == 2;
            KT_CHECK(tan ? isfinite(v) : (v >= -1.0f && v <= 1.0f), "%s_%s(%a) = %a: out of range",
                     f < 3 ? "half" : "native",
                     f % 3 == 0   ? "sin"
                     : f % 3 == 1 ? "cos"
                                  : "tan",
                     x[i], v);
        }
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
    "SC(float, sc_f) SC(float4, sc_f4) SC(double, sc_d)\n"
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "SC(half, sc_h)\n";

static void test_sincos(struct kt_env *env, const char *options)
{
    enum { M = 4096 };
    static double x[M], out_d[8 * M];
    static float xf[M], out_f[8 * M];
    static _Float16 xh[M], out_h[8 * M];
    fill(x, M, 1, -1e6, 1e6, 0);
    for (size_t i = 0; i < M; i++) {
        xf[i] = (float)x[i];
        xh[i] = (_Float16)x[i];
    }
    cl_int err;
    cl_program p = kt_build(env, sincos_src, options);
    static const char *const names[] = {"sc_f", "sc_f4", "sc_d", "sc_h"};
    for (int k = 0; k < 4; k++) {
        int dbl = k == 2, hlf = k == 3;
        size_t lanes = k == 1 ? 4 : 1, esize = dbl ? 8 : hlf ? 2 : 4;
        void *xin = dbl ? (void *)x : hlf ? (void *)xh : (void *)xf;
        void *out = dbl ? (void *)out_d : hlf ? (void *)out_h : (void *)out_f;
        cl_kernel kern = clCreateKernel(p, names[k], &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", names[k], err);
        cl_mem bx = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, M * esize, xin, &err);
        cl_mem bo = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, 8 * M * esize, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        clSetKernelArg(kern, 0, sizeof(cl_mem), &bx);
        clSetKernelArg(kern, 1, sizeof(cl_mem), &bo);
        clSetKernelArg(kern, 2, 64 * esize * lanes, NULL);
        size_t global = M / lanes, local = 64;
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, 1, NULL, &global, &local, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(
            clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, 8 * M * esize, out, 0, NULL, NULL),
            CL_SUCCESS);
        double worst = 0;
        for (size_t i = 0; i < M; i++) {
            size_t item = i / lanes, lane = i % lanes;
            for (int j = 0; j < 8; j++) {
                size_t at = (item * 8 + j) * lanes + lane;
                double xv = dbl ? x[i] : hlf ? (double)xh[i] : xf[i];
                long double ref =
                    j < 4 ? (dbl ? sinl(x[i]) : sin(xv)) : (dbl ? cosl(x[i]) : cos(xv));
                double e = dbl   ? ulp_error(out_d[at], ref, 53, -1022, 1024)
                           : hlf ? ulp_error((double)out_h[at], ref, 11, -14, 16)
                                 : ulp_error(out_f[at], ref, 24, -126, 128);
                worst = e > worst ? e : worst;
                if (!(e <= 4) && kt_failures < 40)
                    KT_CHECK(e <= 4, "%s %s result %d for x=%a: %g ulp", names[k], options, j, xv,
                             e);
            }
        }
        printf("sincos   %-6s %s max %.3f ulp (bound 4)\n", names[k], options, worst);
        clReleaseMemObject(bx);
        clReleaseMemObject(bo);
        clReleaseKernel(kern);
    }
    clReleaseProgram(p);
}

/*
 * half (cl_khr_fp16): every function above except the native_/half_ ones, scalar and one
 * vector width each, on all 65,536 half values for one-argument functions and on random
 * pairs (with every pair of special values) for the others, against the host C library in
 * double. The float functions they are computed through are far finer than a half ulp, so
 * the bound checked is 1 ulp, tighter than the specification's.
 */
static void test_half(struct kt_env *env)
{
    size_t cap = 1 << 20, at = 0;
    char *src = malloc(cap);
    KT_REQUIRE(src, "out of memory");
    at += (size_t)snprintf(src + at, cap - at, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        if (f->bound_d < 0)
            continue;
        int width = float_widths[fi % 5] == 3 ? 4 : float_widths[fi % 5];
        const char *yt = f->kind == INT_ARG ? "int" : "half";
        const char *args = f->kind == UNARY ? "" : ", w";
        for (int v = 0; v < 2; v++) {
            char w[8] = "";
            if (v)
                snprintf(w, sizeof(w), "%d", width);
            at += (size_t)snprintf(src + at, cap - at,
                                   "kernel void h%s_%s(global const half%s *x, global const %s%s "
                                   "*y, global half%s *r)\n{ size_t i = get_global_id(0); half%s "
                                   "v = x[i]; %s%s w = y[i]; (void)w; r[i] = %s(v%s); }\n",
                                   v ? "v" : "", f->name, w, yt, w, w, w, yt, w, f->name, args);
        }
    }
    cl_program p = kt_build(env, src, "-cl-std=CL3.0");
    free(src);

    static _Float16 xh[N], yh[N], rh[N];
    static double x[N], y[N];
    static int yi[N];
    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        if (f->bound_d < 0)
            continue;
        if (f->kind == UNARY) {
            for (size_t i = 0; i < N; i++) {
                uint16_t b = (uint16_t)i;
                memcpy(&xh[i], &b, 2);
            }
        } else {
            fill(x, N, 0, f->lo, f->hi, 0);
            fill(y, N, 0, f->ylo, f->yhi, 7);
            for (size_t i = 0; i < N; i++) {
                xh[i] = (_Float16)x[i];
                yh[i] = (_Float16)y[i];
                yi[i] = (int)uniform(f->ylo, f->yhi);
                if (f->kind == BINARY && i % 4 == 0)
                    yh[i] = (_Float16)rint((double)yh[i]);
            }
            for (size_t i = 0; i < NSPECIAL * NSPECIAL; i++) {
                xh[i] = (_Float16)specials[i / NSPECIAL];
                yh[i] = (_Float16)specials[i % NSPECIAL];
                yi[i] = (int)(i % 7) - 3;
            }
        }
        double worst = 0;
        for (int v = 0; v < 2; v++) {
            char kname[64];
            int width = float_widths[fi % 5] == 3 ? 4 : float_widths[fi % 5];
            snprintf(kname, sizeof(kname), "h%s_%s", v ? "v" : "", f->name);
            int ints = f->kind == INT_ARG;
            cl_program saved = prog;
            prog = p;
            run_kernel(env, kname, xh, ints ? (void *)yi : (void *)yh, ints ? 4 : 2, rh, 2,
                       v ? (size_t)width : 1);
            prog = saved;
            for (size_t i = 0; i < N; i++) {
                double xv = (double)xh[i], yv = ints ? (double)yi[i] : (double)yh[i];
                double ref = f->ref_f(xv, yv);
                double e = ulp_error((double)rh[i], ref, 11, -14, 16);
                worst = e > worst ? e : worst;
                if (!(e <= 1) && kt_failures < 40)
                    KT_CHECK(e <= 1, "%s(%a, %a) = %a, reference %a: %g ulp", kname, xv, yv,
                             (double)rh[i], ref, e);
            }
        }
        printf("%-13s half   max %.3f ulp (bound 1)\n", f->name, worst);
    }
    clReleaseProgram(p);
}

/*
 * Special values written down from the specification (C99 Annex F, OpenCL C §7.5.1), not
 * taken from the host library: each case is run in float and in double and must give
 * exactly the value listed, zero sign included (NaN: any NaN).
 */
static const char *special_src =
    "#define SPEC(T, name) \\\n"
    "kernel void name(global const int *op, global const T *x, global const T *y, \\\n"
    "                 global const int *n, global T *r) \\\n"
    "{ size_t i = get_global_id(0); T a = x[i], b = y[i]; int k = n[i]; T v = 0; \\\n"
    "  switch (op[i]) { \\\n"
    "  case 0: v = exp(a); break; case 1: v = expm1(a); break; case 2: v = log(a); break; \\\n"
    "  case 3: v = log2(a); break; case 4: v = log1p(a); break; case 5: v = pow(a, b); break; \\\n"
    "  case 6: v = powr(a, b); break; case 7: v = pown(a, k); break; \\\n"
    "  case 8: v = rootn(a, k); break; case 9: v = cbrt(a); break; case 10: v = rsqrt(a); break; "
    "\\\n"
    "  case 11: v = sin(a); break; case 12: v = cos(a); break; case 13: v = tan(a); break; \\\n"
    "  case 14: v = sinpi(a); break; case 15: v = cospi(a); break; case 16: v = tanpi(a); break; "
    "\\\n"
    "  case 17: v = exp2(a); break; case 18: v = exp10(a); break; case 19: v = log10(a); break; "
    "\\\n"
    "  } r[i] = v; }\n"
    "SPEC(float, spec_f) SPEC(double, spec_d)\n";

enum {
    EXP,
    EXPM1,
    LOG,
    LOG2,
    LOG1P,
    POW,
    POWR,
    POWN,
    ROOTN,
    CBRT,
    RSQRT,
    SIN,
    COS,
    TAN,
    SINPI,
    COSPI,
    TANPI,
    EXP2,
    EXP10,
    LOG10
};

static const struct special_case {
    int op;
    double x, y;
    int n;
    double want;
} special_cases[] = {
    {EXP, -INFINITY, 0, 0, 0.0},
    {EXP, INFINITY, 0, 0, INFINITY},
    {EXP, NAN, 0, 0, NAN},
    {EXP, -0.0, 0, 0, 1.0},
    {EXP2, -INFINITY, 0, 0, 0.0},
    {EXP2, 3.0, 0, 0, 8.0},
    {EXP10, -INFINITY, 0, 0, 0.0},
    {EXP10, 2.0, 0, 0, 100.0},
    {EXPM1, -0.0, 0, 0, -0.0},
    {EXPM1, -INFINITY, 0, 0, -1.0},
    {EXPM1, INFINITY, 0, 0, INFINITY},
    {LOG, 0.0, 0, 0, -INFINITY},
    {LOG, -0.0, 0, 0, -INFINITY},
    {LOG, -1.0, 0, 0, NAN},
    {LOG, 1.0, 0, 0, 0.0},
    {LOG, INFINITY, 0, 0, INFINITY},
    {LOG2, 8.0, 0, 0, 3.0},
    {LOG2, -INFINITY, 0, 0, NAN},
    {LOG10, 1000.0, 0, 0, 3.0},
    {LOG1P, -1.0, 0, 0, -INFINITY},
    {LOG1P, -0.0, 0, 0, -0.0},
    {LOG1P, -2.0, 0, 0, NAN},
    {POW, -0.0, -3.0, 0, -INFINITY},
    {POW, 0.0, -3.0, 0, INFINITY},
    {POW, -0.0, -2.0, 0, INFINITY},
    {POW, -0.0, 3.0, 0, -0.0},
    {POW, -0.0, 2.0, 0, 0.0},
    {POW, 0.0, -INFINITY, 0, INFINITY},
    {POW, -1.0, INFINITY, 0, 1.0},
    {POW, -1.0, -INFINITY, 0, 1.0},
    {POW, 1.0, NAN, 0, 1.0},
    {POW, NAN, 0.0, 0, 1.0},
    {POW, NAN, -0.0, 0, 1.0},
    {POW, -8.0, 1.0 / 3, 0, NAN},
    {POW, 0.5, -INFINITY, 0, INFINITY},
    {POW, 2.0, -INFINITY, 0, 0.0},
    {POW, 0.5, INFINITY, 0, 0.0},
    {POW, 2.0, INFINITY, 0, INFINITY},
    {POW, -INFINITY, -3.0, 0, -0.0},
    {POW, -INFINITY, -2.0, 0, 0.0},
    {POW, -INFINITY, 3.0, 0, -INFINITY},
    {POW, -INFINITY, 2.5, 0, INFINITY},
    {POW, INFINITY, -0.5, 0, 0.0},
    {POW, -2.0, 3.0, 0, -8.0},
    {POW, NAN, 1.0, 0, NAN},
    {POWR, -1.0, 2.0, 0, NAN},
    {POWR, 1.0, INFINITY, 0, NAN},
    {POWR, 0.0, 0.0, 0, NAN},
    {POWR, INFINITY, 0.0, 0, NAN},
    {POWR, 1.0, 5.0, 0, 1.0},
    {POWR, 2.0, 0.0, 0, 1.0},
    {POWR, -0.0, 3.0, 0, 0.0},
    {POWR, 0.0, -1.0, 0, INFINITY},
    {POWR, 0.0, -INFINITY, 0, INFINITY},
    {POWR, 4.0, 0.5, 0, 2.0},
    {POWN, NAN, 0, 0, 1.0},
    {POWN, -2.0, 0, 3, -8.0},
    {POWN, -0.0, 0, -1, -INFINITY},
    {POWN, 0.0, 0, -2, INFINITY},
    {POWN, -INFINITY, 0, 3, -INFINITY},
    {ROOTN, -8.0, 0, 3, -2.0},
    {ROOTN, -8.0, 0, 2, NAN},
    {ROOTN, -0.0, 0, -3, -INFINITY},
    {ROOTN, 0.0, 0, -2, INFINITY},
    {ROOTN, -0.0, 0, 3, -0.0},
    {ROOTN, -0.0, 0, 2, 0.0},
    {ROOTN, 5.0, 0, 0, NAN},
    {ROOTN, 16.0, 0, 4, 2.0},
    {CBRT, -27.0, 0, 0, -3.0},
    {CBRT, -0.0, 0, 0, -0.0},
    {CBRT, -INFINITY, 0, 0, -INFINITY},
    {RSQRT, -0.0, 0, 0, -INFINITY},
    {RSQRT, INFINITY, 0, 0, 0.0},
    {RSQRT, -1.0, 0, 0, NAN},
    {RSQRT, 0.25, 0, 0, 2.0},
    {SIN, -0.0, 0, 0, -0.0},
    {SIN, INFINITY, 0, 0, NAN},
    {COS, -INFINITY, 0, 0, NAN},
    {COS, -0.0, 0, 0, 1.0},
    {TAN, -0.0, 0, 0, -0.0},
    {TAN, NAN, 0, 0, NAN},
    {SINPI, -0.0, 0, 0, -0.0},
    {SINPI, 0.5, 0, 0, 1.0},
    {SINPI, -1.5, 0, 0, 1.0},
    {SINPI, INFINITY, 0, 0, NAN},
    {COSPI, 0.5, 0, 0, 0.0},
    {COSPI, 1.0, 0, 0, -1.0},
    {COSPI, -0.0, 0, 0, 1.0},
    {TANPI, -0.0, 0, 0, -0.0},
    {TANPI, 0.25, 0, 0, 1.0},
    {TANPI, 0.5, 0, 0, INFINITY},
    {TANPI, 1.5, 0, 0, -INFINITY},
};
#define NSPECIAL_CASES (sizeof(special_cases) / sizeof(special_cases[0]))

static void test_special_cases(struct kt_env *env)
{
    enum { M = NSPECIAL_CASES };
    int op[M], n[M];
    double x[M], y[M], rd[M];
    float xf[M], yf[M], rf[M];
    for (size_t i = 0; i < M; i++) {
        op[i] = special_cases[i].op;
        n[i] = special_cases[i].n;
        x[i] = special_cases[i].x;
        y[i] = special_cases[i].y;
        xf[i] = (float)x[i];
        yf[i] = (float)y[i];
    }
    for (int dbl = 0; dbl < 2; dbl++) {
        size_t e = dbl ? 8 : 4;
        struct kt_arg args[] = {{KT_IN, sizeof(op), op},
                                {KT_IN, M * e, dbl ? (void *)x : (void *)xf},
                                {KT_IN, M * e, dbl ? (void *)y : (void *)yf},
                                {KT_IN, sizeof(n), n},
                                {KT_OUT, M * e, dbl ? (void *)rd : (void *)rf}};
        KT_EXPECT(
            kt_run(env, special_src, "-cl-std=CL3.0", dbl ? "spec_d" : "spec_f", M, 0, 5, args),
            CL_SUCCESS);
        for (size_t i = 0; i < M; i++) {
            double got = dbl ? rd[i] : rf[i], want = special_cases[i].want;
            int ok = isnan(want) ? isnan(got) : (got == want && signbit(got) == signbit(want));
            KT_CHECK(ok, "%s op %d (x=%a, y=%a, n=%d) = %a, want %a", dbl ? "double" : "float",
                     op[i], x[i], y[i], n[i], got, want);
        }
    }
    printf("special values: %zu cases in float and double\n", (size_t)M);
}

/*
 * The options that relax floating point (-cl-fast-relaxed-math, -cl-finite-math-only,
 * -cl-unsafe-math-optimizations) put fast-math attributes on the kernel the library is
 * inlined into, which lets the code generator reassociate and approximate. The results on
 * finite inputs must stay within the bounds OpenCL C §7.4 gives under fast relaxed math:
 * exp, exp2 3 + floor(|2x|) ulp; log, log2 an absolute error below 2^-21 on [0.5, 2] and 3 ulp
 * elsewhere; sin, cos an absolute error below 2^-11 on [-pi, pi]; pow as exp2(y log2 x),
 * checked here to a relative 2^-16 for these moderate arguments; expm1 keeps its 3 ulp.
 */
static void test_relaxed_options(struct kt_env *env)
{
    static const char *const options[] = {"-cl-fast-relaxed-math", "-cl-finite-math-only",
                                          "-cl-unsafe-math-optimizations"};
    static const char src_relaxed[] =
        "kernel void k(global const float *x, global float *r)\n"
        "{ size_t i = get_global_id(0); float a = x[i], p = fabs(a) + 0.5f;\n"
        "  r[8 * i] = exp(a); r[8 * i + 1] = exp2(a); r[8 * i + 2] = log(p);\n"
        "  r[8 * i + 3] = log2(p); r[8 * i + 4] = pow(p, 1.7f); r[8 * i + 5] = sin(a);\n"
        "  r[8 * i + 6] = cos(a); r[8 * i + 7] = expm1(a); }\n";
    static const char *const names[8] = {"exp", "exp2", "log", "log2",
                                         "pow", "sin",  "cos", "expm1"};
    enum { M = 4096 };
    static float x[M], r[8 * M];
    for (size_t i = 0; i < M; i++)
        x[i] = (float)uniform(-20, 20);
    for (size_t o = 0; o < 3; o++) {
        struct kt_arg args[] = {{KT_IN, sizeof(x), x}, {KT_OUT, sizeof(r), r}};
        KT_EXPECT(kt_run(env, src_relaxed, options[o], "k", M, 0, 2, args), CL_SUCCESS);
        int bad = 0;
        double worst = 0;
        for (size_t i = 0; i < M; i++) {
            /* p rounded to float, as the kernel computes it. */
            double a = x[i], p = fabsf(x[i]) + 0.5f;
            double ref[8] = {exp(a),       exp2(a), log(p), log2(p),
                             pow(p, 1.7f), sin(a),  cos(a), expm1(a)};
            for (int k = 0; k < 8; k++) {
                double got = r[8 * i + k], ulps = ulp_error(got, ref[k], 24, -126, 128);
                int ok;
                if (k <= 1)
                    ok = ulps <= 3 + floor(fabs(2 * a));
                else if (k <= 3)
                    ok = (p >= 0.5 && p <= 2) ? fabs(got - ref[k]) < 0x1p-21 : ulps <= 3;
                else if (k == 4)
                    ok = fabs(got - ref[k]) <= 0x1p-16 * fabs(ref[k]);
                else if (k <= 6)
                    ok = fabs(a) > M_PI || fabs(got - ref[k]) < 0x1p-11;
                else
                    ok = ulps <= 3;
                worst = ulps > worst ? ulps : worst;
                if (!ok && bad++ < 10)
                    KT_CHECK(ok, "%s: %s(%a) = %a, reference %a", options[o], names[k], a, got,
                             ref[k]);
            }
        }
        printf("%s: %d results outside the relaxed bounds; largest error %.3f ulp\n", options[o],
               bad, worst);
    }
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    char *src = make_source();
    prog = kt_build(&env, src, "-cl-std=CL3.0");
    free(src);

    static double x[N], y[N];
    static float xf[N], yf[N], rf[N];
    static int yi[N];
    static double rd[N];

    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        for (int dbl = 0; dbl < (f->bound_d < 0 ? 1 : 2); dbl++) {
            fill(x, N, dbl, f->lo, f->hi, 0);
            if (f->kind == BINARY) {
                fill(y, N, dbl, f->ylo, f->yhi, 7);
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
                /* yi is read only by functions whose second argument is an int, for which
                 * y holds ints; elsewhere y may be infinite or NaN, which no int holds. */
                yi[i] = y[i] >= INT_MIN && y[i] <= INT_MAX ? (int)y[i] : 0;
            }
            struct result res = {0, 0, 0};
            for (int w = 0; w < 2; w++) {
                char kname[64];
                int width = w ? vector_width(fi, dbl) : 1;
                size_t lanes = width == 3 ? 4 : (size_t)width;
                snprintf(kname, sizeof(kname), "%s%s_%s", dbl ? "d" : "f", w ? "v" : "", f->name);
                int ints = f->kind == INT_ARG;
                if (dbl)
                    run_kernel(&env, kname, x, ints ? (void *)yi : (void *)y, ints ? 4 : 8, rd, 8,
                               lanes);
                else
                    run_kernel(&env, kname, xf, ints ? (void *)yi : (void *)yf, 4, rf, 4, lanes);
                check(f, dbl, x, y, dbl ? (void *)rd : (void *)rf, N, &res, kname);
            }
            printf("%-13s %-6s (and width %2d) max %.3f ulp (bound %g) at x=%a y=%a\n", f->name,
                   dbl ? "double" : "float", vector_width(fi, dbl), res.max_err,
                   dbl ? f->bound_d : f->bound_f, res.worst_x, res.worst_y);
        }
    }
    clReleaseProgram(prog);
    test_sincos(&env, "-cl-std=CL1.2");
    test_sincos(&env, "-cl-std=CL3.0");
    test_trig_out_of_domain(&env);
    test_half(&env);
    test_special_cases(&env);
    test_relaxed_options(&env);
    kt_teardown(&env);
    return kt_finish("math_exp");
}
