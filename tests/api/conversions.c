/*
 * Explicit conversions (OpenCL C 3.0 §6.4.3) and as_<type> (§6.4.4.2).
 *
 * 1. Every scalar convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn] of every pair of the eleven
 *    types, over a set of values per source type: the extremes, NaN, infinities, -0,
 *    denormals, halfway cases (2.5, -2.5, 0.5), values just inside and outside each
 *    destination range, and integers and doubles that float (or half) cannot hold, so
 *    each directed rounding mode has something to round. The host reference rounds the
 *    exact value (long double holds every source value) with fesetround and
 *    nearbyintl or a cast; half results come from conv_ref.h.
 * 2. Every width 2, 3, 4, 8 and 16: one kernel per width converts between every pair,
 *    in the default form and in one more form that rotates through _sat and the modes,
 *    each lane checked against the scalar reference.
 * 3. as_<type> between vector and scalar types of the same size, checked with memcpy.
 * 4. Forms the specification lacks (_sat to float, a width change) fail to build, and the
 *    log names the function.
 * Float -> integer conversions out of range without _sat are undefined, so they are
 * not checked.
 */
#include "kiln_test.h"
#include "conv_ref.h"
#include "conv_types.h"

#include <fenv.h>
#include <stdarg.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 64 /* source values per type */

struct val {
    unsigned char raw[8]; /* as the device stores it */
    long double v;        /* the exact value */
    uint64_t bits64;      /* integer sources: the value modulo 2^64 */
};
static struct val vals[NT][NV];

static long double int_min(int t)
{
    return ty[t].sgn ? -ldexpl(1, (int)ty[t].size * 8 - 1) : 0;
}
static long double int_max(int t)
{
    return ldexpl(1, (int)ty[t].size * 8 - ty[t].sgn) - 1;
}

/* A pseudo-random 64-bit value (xorshift), the same on every run. */
static uint64_t rnd(void)
{
    static uint64_t s = 0x9e3779b97f4a7c15u;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

static void set_int(int t, int i, long double v)
{
    struct val *x = &vals[t][i];
    x->v = v;
    x->bits64 = v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
    memcpy(x->raw, &x->bits64, ty[t].size);
}

static void set_fp(int t, int i, long double v)
{
    struct val *x = &vals[t][i];
    if (t == T_FLOAT) {
        float f = (float)v;
        memcpy(x->raw, &f, 4);
        x->v = f;
    } else {
        double d = (double)v;
        memcpy(x->raw, &d, 8);
        x->v = d;
    }
}

static void make_values(void)
{
    for (int t = 0; t < NT; t++) {
        int i = 0;
        if (ty[t].is_int) {
            long double lo = int_min(t), hi = int_max(t);
            long double fixed[] = {0, 1, lo, hi, lo + 1, hi - 1, 2, 100, 127, 128, 255, 256};
            for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
                if (fixed[k] <= hi)
                    set_int(t, i++, fixed[k]);
            if (ty[t].sgn) {
                long double neg[] = {-1, -2, -128, -129, -32768, -32769};
                for (size_t k = 0; k < 6; k++)
                    set_int(t, i++, neg[k] >= lo ? neg[k] : lo + (long double)k);
            }
            /* Near 2^11, 2^24 and 2^53 (the precision of half, float and double) and odd
             * values above them: their conversion to a floating type must round. */
            long double edges[] = {2049,
                                   2051,
                                   2053,
                                   65505,
                                   65519,
                                   65520,
                                   65535,
                                   16777217,
                                   16777219,
                                   16777221,
                                   33554435,
                                   2147483583,
                                   2147483585,
                                   4294967231,
                                   ldexpl(1, 53) + 1,
                                   ldexpl(1, 53) + 3,
                                   ldexpl(1, 62) + 1,
                                   ldexpl(1, 63) - 1025,
                                   ldexpl(1, 63) - 513,
                                   ldexpl(1, 64) - 1025,
                                   ldexpl(1, 64) - 2049,
                                   ldexpl(1, 63) + ldexpl(1, 39)};
            for (size_t k = 0; k < sizeof(edges) / sizeof(edges[0]); k++) {
                long double e = edges[k];
                if (e <= hi)
                    set_int(t, i++, e);
                if (ty[t].sgn && -e >= lo)
                    set_int(t, i++, -e);
            }
            while (i < NV) {
                uint64_t r = rnd() >> (rnd() % 64); /* every magnitude */
                long double v = fmodl((long double)r, hi - lo + 1) + lo;
                set_int(t, i++, v);
            }
            continue;
        }
        if (t == T_HALF) {
            uint16_t fixed[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100,
                                0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x0001, 0x83ff,
                                0x0400, 0x57f8, 0x5800, 0x5bf8, 0x5c04, 0x7800, 0xd800, 0xdc04};
            for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++) {
                memcpy(vals[t][i].raw, &fixed[k], 2);
                vals[t][i++].v = ref_half_value(fixed[k]);
            }
            while (i < NV) {
                uint16_t h = (uint16_t)rnd();
                memcpy(vals[t][i].raw, &h, 2);
                vals[t][i++].v = ref_half_value(h);
            }
            continue;
        }
        long double fixed[] = {0.0L,
                               -0.0L,
                               0.5L,
                               -0.5L,
                               1.5L,
                               -1.5L,
                               2.5L,
                               -2.5L,
                               127.5L,
                               -128.5L,
                               -129.0L,
                               255.5L,
                               256.0L,
                               -0.75L,
                               65535.5L,
                               65536.0L,
                               -32768.5L,
                               ldexpl(1, 31),
                               -ldexpl(1, 31),
                               ldexpl(1, 31) - 1,
                               ldexpl(1, 32),
                               ldexpl(1, 32) - 1,
                               ldexpl(1, 63),
                               -ldexpl(1, 63),
                               ldexpl(1, 64),
                               1e20L,
                               -1e20L,
                               INFINITY,
                               -INFINITY,
                               NAN,
                               FLT_MAX,
                               -FLT_MAX,
                               FLT_MIN,
                               FLT_TRUE_MIN,
                               -FLT_TRUE_MIN,
                               65504.0L,
                               65519.0L,
                               65520.0L,
                               ldexpl(1, -24),
                               ldexpl(3, -26),
                               0.1L,
                               -3.999999L,
                               DBL_MAX,
                               -DBL_MAX,
                               DBL_TRUE_MIN,
                               1e-300L,
                               -1e300L,
                               (long double)FLT_MAX * (1 + ldexpl(1, -25)),
                               1 + ldexpl(1, -24),
                               1 + ldexpl(1, -24) + ldexpl(1, -50),
                               -(1 + ldexpl(1, -24)),
                               ldexpl(1, 62) + ldexpl(1, 20)};
        for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
            set_fp(t, i++, fixed[k]);
        while (i < NV) {
            /* A random significand at exponents from -30 to 70, either sign. */
            long double v = ldexpl((long double)(rnd() >> 11), (int)(rnd() % 101) - 30 - 53);
            set_fp(t, i++, (rnd() & 1) ? -v : v);
        }
    }
}

static int fe_of(int mode, int to_int)
{
    switch (mode) {
    case RM_RTE:
        return FE_TONEAREST;
    case RM_RTZ:
        return FE_TOWARDZERO;
    case RM_RTP:
        return FE_UPWARD;
    case RM_RTN:
        return FE_DOWNWARD;
    default:
        return to_int ? FE_TOWARDZERO : FE_TONEAREST;
    }
}

/*
 * The expected bytes of convert_<d>[_sat]<mode>(x) for source type s. Returns 0 when
 * the result is undefined, 2 when it must be a NaN, 1 otherwise.
 */
static int ref(int s, const struct val *x, int d, int sat, int mode, unsigned char *out)
{
    volatile long double v = x->v;
    memset(out, 0, 8);
    if (ty[d].is_int) {
        long double r;
        if (isnan(v)) {
            if (!sat)
                return 0;
            r = 0;
        } else if (ty[s].is_int) {
            r = v;
        } else {
            fesetround(fe_of(mode, 1));
            r = nearbyintl(v);
            fesetround(FE_TONEAREST);
        }
        if (r < int_min(d) || r > int_max(d)) {
            if (sat) {
                r = r < int_min(d) ? int_min(d) : int_max(d);
            } else if (ty[s].is_int) {
                memcpy(out, &x->bits64, ty[d].size); /* modulo 2^bits */
                return 1;
            } else {
                return 0;
            }
        }
        uint64_t b = r < 0 ? (uint64_t)(int64_t)r : (uint64_t)r;
        memcpy(out, &b, ty[d].size);
        return 1;
    }
    if (d == T_HALF) {
        uint16_t h = ref_to_half(v, (enum ref_mode)mode);
        memcpy(out, &h, 2);
        return ref_half_is_nan(h) ? 2 : 1;
    }
    fesetround(fe_of(mode, 0));
    if (d == T_FLOAT) {
        volatile float f = (float)v;
        float g = f;
        memcpy(out, &g, 4);
    } else {
        volatile double f = (double)v;
        double g = f;
        memcpy(out, &g, 8);
    }
    fesetround(FE_TONEAREST);
    return isnan(v) ? 2 : 1;
}

static int is_nan_bytes(int d, const unsigned char *p)
{
    if (d == T_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    if (d == T_DOUBLE) {
        double f;
        memcpy(&f, p, 8);
        return isnan(f);
    }
    uint16_t h;
    memcpy(&h, p, 2);
    return ref_half_is_nan(h);
}

static void print_bytes(char *buf, const unsigned char *p, size_t n)
{
    buf[0] = 0;
    for (size_t i = n; i-- > 0;)
        sprintf(buf + strlen(buf), "%02x", p[i]);
}

static int n_checked, n_failed;

static void check(int s, int vi, int d, int sat, int mode, const unsigned char *got, int n)
{
    unsigned char want[8];
    int r = ref(s, &vals[s][vi], d, sat, mode, want);
    if (r == 0)
        return;
    n_checked++;
    int ok = r == 2 ? is_nan_bytes(d, got) : memcmp(want, got, ty[d].size) == 0;
    if (!ok) {
        n_failed++;
        if (n_failed <= 30) {
            char g[20], w[20], x[20];
            print_bytes(g, got, ty[d].size);
            print_bytes(w, want, ty[d].size);
            print_bytes(x, vals[s][vi].raw, ty[s].size);
            KT_CHECK(ok, "convert_%s%d%s%s((%s)0x%s = %.21Lg): got 0x%s, want 0x%s", ty[d].name, n,
                     sat ? "_sat" : "", mode_sfx[mode], ty[s].name, x, vals[s][vi].v, g, w);
        }
    }
}

/* The forms of convert_<d>: index -> (sat, mode). */
static int nforms(int d)
{
    return ty[d].is_int ? 10 : 5;
}

__attribute__((format(printf, 4, 5))) static void append(char **buf, size_t *len, size_t *cap,
                                                         const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap *= 2;
        *buf = realloc(*buf, *cap);
        KT_REQUIRE(*buf, "out of memory");
    }
}

/* The width as it appears in a type name: "" for scalars. */
static const char *wname(int n)
{
    static char b[4][4];
    static int k;
    k = (k + 1) % 4;
    if (n == 1)
        b[k][0] = 0;
    else
        snprintf(b[k], 4, "%d", n);
    return b[k];
}

/*
 * The program: for every width, kernel conv<N> takes one input array per type and writes
 * each conversion's result vector into its own 128-byte slot. For width 1 every form of
 * every pair is converted; for wider vectors the default form and one rotating form.
 */
#define SLOT 128
static int nslots(int n)
{
    return n == 1 ? NT * 95 : NT * NT * 2;
}

static int form_of(int n, int s, int d, int k)
{
    if (n == 1)
        return k;
    return k == 0 ? 0 : 1 + (s * 7 + d * 3 + n) % (nforms(d) - 1);
}

static char *program_source(void)
{
    size_t len = 0, cap = 1 << 16;
    char *src = malloc(cap);
    KT_REQUIRE(src, "out of memory");
    append(&src, &len, &cap, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    const int widths[] = {1, 2, 3, 4, 8, 16};
    for (int w = 0; w < 6; w++) {
        int n = widths[w];
        append(&src, &len, &cap, "kernel void conv%d(global uchar *out", n);
        for (int s = 0; s < NT; s++)
            append(&src, &len, &cap, ", global const %s *in_%s", ty[s].name, ty[s].name);
        append(&src, &len, &cap,
               ") {\n  size_t i = get_global_id(0);\n"
               "  global uchar *o = out + i * %d;\n",
               nslots(n) * SLOT);
        for (int s = 0; s < NT; s++) {
            append(&src, &len, &cap, "  %s%s x_%s = (%s%s)(", ty[s].name, wname(n), ty[s].name,
                   ty[s].name, wname(n));
            for (int j = 0; j < n; j++)
                append(&src, &len, &cap, "%sin_%s[(i * %d + %d) %% %d]", j ? ", " : "", ty[s].name,
                       n, j, NV);
            append(&src, &len, &cap, ");\n");
        }
        int slot = 0;
        for (int s = 0; s < NT; s++)
            for (int d = 0; d < NT; d++)
                for (int k = 0; k < (n == 1 ? nforms(d) : 2); k++) {
                    int f = form_of(n, s, d, k);
                    int sat = f >= 5, mode = f % 5;
                    append(&src, &len, &cap,
                           "  *(global %s%s *)(o + %d) = convert_%s%s%s%s(x_%s);\n", ty[d].name,
                           wname(n), slot * SLOT, ty[d].name, wname(n), sat ? "_sat" : "",
                           mode_sfx[mode], ty[s].name);
                    slot++;
                }
        append(&src, &len, &cap, "}\n");
    }
    /* as_<type>: reinterpretations between types of one size. */
    append(&src, &len, &cap,
           "kernel void as_types(global const uchar *in, global uchar *out) {\n"
           "  float4 f = *(global const float4 *)in;\n"
           "  *(global int4 *)out = as_int4(f);\n"
           "  *(global uint *)(out + 16) = as_uint(f.y);\n"
           "  *(global double2 *)(out + 32) = as_double2(f);\n"
           "  *(global char16 *)(out + 64) = as_char16(f);\n"
           "  *(global ushort2 *)(out + 80) = as_ushort2(f.z);\n"
           "  *(global half2 *)(out + 84) = as_half2(f.w);\n"
           "  *(global float4 *)(out + 96) = as_float4(as_long2(f));\n"
           "  *(global int4 *)(out + 112) = as_int4(as_float3(f));\n"
           "}\n");
    return src;
}

static void run_program(struct kt_env *env, const char *src, const char *options)
{
    cl_int err;
    cl_program p = kt_build(env, src, options);
    cl_mem in[NT];
    for (int s = 0; s < NT; s++) {
        unsigned char buf[NV * 8];
        for (int i = 0; i < NV; i++)
            memcpy(buf + i * ty[s].size, vals[s][i].raw, ty[s].size);
        in[s] = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               NV * ty[s].size, buf, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    }
    const int widths[] = {1, 2, 3, 4, 8, 16};
    for (int w = 0; w < 6; w++) {
        int n = widths[w];
        size_t items = (NV + n - 1) / n;
        size_t bytes = items * nslots(n) * SLOT;
        unsigned char *out = calloc(1, bytes);
        KT_REQUIRE(out, "out of memory");
        char name[16];
        snprintf(name, sizeof(name), "conv%d", n);
        cl_kernel k = clCreateKernel(p, name, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
        cl_mem o = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &o), CL_SUCCESS);
        for (int s = 0; s < NT; s++)
            KT_EXPECT(clSetKernelArg(k, (cl_uint)s + 1, sizeof(cl_mem), &in[s]), CL_SUCCESS);
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &items, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                  CL_SUCCESS);
        for (size_t i = 0; i < items; i++) {
            int slot = 0;
            for (int s = 0; s < NT; s++)
                for (int d = 0; d < NT; d++)
                    for (int kk = 0; kk < (n == 1 ? nforms(d) : 2); kk++) {
                        int f = form_of(n, s, d, kk);
                        for (int j = 0; j < n; j++) {
                            const unsigned char *g =
                                out + (i * nslots(n) + slot) * SLOT + j * ty[d].size;
                            check(s, (int)(i * n + j) % NV, d, f >= 5, f % 5, g, n);
                        }
                        slot++;
                    }
        }
        clReleaseMemObject(o);
        clReleaseKernel(k);
        free(out);
    }

    /* as_<type>: the bytes go through unchanged. */
    unsigned char in_b[16], out_b[128], want[128];
    float fin[4] = {1.5f, -0.0f, 3.25e-3f, NAN};
    memcpy(in_b, fin, 16);
    cl_mem ib =
        clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 16, in_b, &err);
    cl_mem ob = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, 128, NULL, &err);
    cl_kernel k = clCreateKernel(p, "as_types", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel as_types: %d", err);
    clSetKernelArg(k, 0, sizeof(cl_mem), &ib);
    clSetKernelArg(k, 1, sizeof(cl_mem), &ob);
    size_t one = 1;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, ob, CL_TRUE, 0, 128, out_b, 0, NULL, NULL),
              CL_SUCCESS);
    memset(want, 0, sizeof(want));
    memcpy(want, in_b, 16);
    memcpy(want + 16, in_b + 4, 4);
    memcpy(want + 32, in_b, 16);
    memcpy(want + 64, in_b, 16);
    memcpy(want + 80, in_b + 8, 4);
    memcpy(want + 84, in_b + 12, 4);
    memcpy(want + 96, in_b, 16);
    memcpy(want + 112, in_b, 12); /* as_float3: the fourth lane is undefined */
    const int spans[][2] = {{0, 20}, {32, 16}, {64, 24}, {96, 28}};
    for (int sp = 0; sp < 4; sp++)
        for (int b = spans[sp][0]; b < spans[sp][0] + spans[sp][1]; b++)
            KT_CHECK(out_b[b] == want[b], "as_<type>: byte %d is 0x%02x, want 0x%02x", b, out_b[b],
                     want[b]);
    clReleaseKernel(k);
    clReleaseMemObject(ib);
    clReleaseMemObject(ob);
    for (int s = 0; s < NT; s++)
        clReleaseMemObject(in[s]);
    clReleaseProgram(p);
}

/*
 * Calls the specification does not allow fail to build, with CL_BUILD_PROGRAM_FAILURE and a
 * log that names the function.
 */
static void refusals(struct kt_env *env)
{
    static const struct {
        const char *src, *name, *what;
    } cases[] = {
        {"kernel void k(global int *a, global float *o) { o[0] = convert_float_sat(a[0]); }",
         "convert_float_sat", "_sat to a floating type"},
        {"kernel void k(global int4 *a, global float3 *o) { o[0] = convert_float3(a[0]); }",
         "convert_float3", "a width change"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        kt_build_fails(env, cases[i].src, "-cl-std=CL3.0", cases[i].name, cases[i].what);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    make_values();
    char *src = program_source();
    run_program(&env, src, "-cl-std=CL3.0");
    printf("%d conversions checked, %d wrong\n", n_checked, n_failed);
    KT_CHECK(n_failed == 0, "%d conversions wrong", n_failed);
    free(src);
    refusals(&env);
    kt_teardown(&env);
    return kt_finish("conversions");
}
