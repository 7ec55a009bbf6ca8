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

static const struct fn fns[] = {
    {"exp", UNARY, 3, 3, rf_exp, rd_exp, -110, 100, 0, 0},
    {"exp2", UNARY, 3, 3, rf_exp2, rd_exp2, -160, 140, 0, 0},
    {"exp10", UNARY, 3, 3, rf_exp10, rd_exp10, -50, 45, 0, 0},
    {"expm1", UNARY, 3, 3, rf_expm1, rd_expm1, -20, 90, 0, 0},
    {"log", UNARY, 3, 3, rf_log, rd_log, 0, 4, 0, 0},
    {"log2", UNARY, 3, 3, rf_log2, rd_log2, 0, 4, 0, 0},
    {"log10", UNARY, 3, 3, rf_log10, rd_log10, 0, 4, 0, 0},
    {"log1p", UNARY, 2, 2, rf_log1p, rd_log1p, -1, 4, 0, 0},
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
    "U(exp) U(exp2) U(exp10) U(expm1) U(log) U(log2) U(log10) U(log1p)\n";

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
                       void *out, size_t esize, size_t lanes_per_item)
{
    cl_int err;
    cl_kernel k = clCreateKernel(prog, kname, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", kname, err);
    cl_mem bx = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N * esize, (void *)xb, &err);
    cl_mem by = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N * esize, (void *)yb, &err);
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

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    prog = kt_build(&env, src, "-cl-std=CL3.0");

    static double x[N], y[N];
    static float xf[N], yf[N], rf[N];
    static double rd[N];
    static const char *const fwidths[] = {"f", "f4", "f16", "f3"};
    static const size_t flanes[] = {1, 4, 16, 4};
    static const char *const dwidths[] = {"d", "d2", "d8", "d3"};
    static const size_t dlanes[] = {1, 2, 8, 4};

    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        for (int dbl = 0; dbl < 2; dbl++) {
            fill(x, dbl, f->lo, f->hi, 0);
            if (f->kind == BINARY)
                fill(y, dbl, f->ylo, f->yhi, 7);
            else if (f->kind == INT_ARG)
                for (size_t i = 0; i < N; i++)
                    y[i] = (double)(int)uniform(f->ylo, f->yhi);
            else
                memset(y, 0, sizeof(y));
            for (size_t i = 0; i < N; i++) {
                xf[i] = (float)x[i];
                yf[i] = (float)y[i];
            }
            struct result res = {0, 0, 0};
            for (int w = 0; w < 4; w++) {
                char kname[64];
                snprintf(kname, sizeof(kname), "%s_%s", dbl ? dwidths[w] : fwidths[w], f->name);
                if (dbl)
                    run_kernel(&env, kname, x, y, rd, 8, dlanes[w]);
                else
                    run_kernel(&env, kname, xf, yf, rf, 4, flanes[w]);
                check(f, dbl, x, y, dbl ? (void *)rd : (void *)rf, N, &res, kname);
            }
            printf("%-8s %-6s max %.3f ulp (bound %g) at x=%a y=%a\n", f->name,
                   dbl ? "double" : "float", res.max_err, dbl ? f->bound_d : f->bound_f,
                   res.worst_x, res.worst_y);
        }
    }
    clReleaseProgram(prog);
    kt_teardown(&env);
    return kt_finish("math_exp");
}
