/*
 * Vector data functions (OpenCL C 3.0 §6.15.7) and shuffles (§6.15.13).
 *
 * 1. vload<n>/vstore<n> for every element type and n = 2, 3, 4, 8, 16, from and to
 *    __global, __constant (loads), __local and __private memory, at pointers aligned only
 *    to the element; the elements around each vector keep their sentinel (a 3-element
 *    store must not write a fourth). Built with -cl-std=CL1.2 (the named address space
 *    overloads) and CL3.0 (generic pointers; __constant loads in both).
 * 2. vload_half<n> and vloada_half<n> of all 65536 halves, against the value of each
 *    half; vloada_half3 reads at offset * 4.
 * 3. vstore_half<n>[_mode] and vstorea_half<n>[_mode] in every mode: from float on a
 *    sample of 311296 floats (a stride through every bit pattern, and every float near the
 *    half range's limits: its top, the normal/denormal boundary, the smallest denormal),
 *    and from double on random doubles, many near a tie between two halves. Every width
 *    on the first 4096 values; __local and __private destinations too. The -cl-std=CL1.2
 *    pass (the named spaces) stores from float at widths 1, 4 and 16.
 * 4. shuffle and shuffle2 for every element type with random masks whose high bits must be
 *    ignored: every input and mask width for int, a rotating third of them for the rest.
 * 5. A store to __constant and a 3-element shuffle fail to build, the log naming them.
 */
#include "kiln_test.h"
#include "conv_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *mask; /* element type, the shuffle mask's element type */
    size_t size;
} ty[] = {{"char", "uchar", 1},    {"uchar", "uchar", 1}, {"short", "ushort", 2},
          {"ushort", "ushort", 2}, {"int", "uint", 4},    {"uint", "uint", 4},
          {"long", "ulong", 8},    {"ulong", "ulong", 8}, {"float", "uint", 4},
          {"double", "ulong", 8},  {"half", "ushort", 2}};
#define NT 11
#define NW 5
static const int widths[NW] = {2, 3, 4, 8, 16};
static const char *const mode_sfx[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};

static uint64_t rnd(void)
{
    static uint64_t s = 0x2545f4914f6cdd1du;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

struct sbuf {
    char *p;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        if (b->cap - b->len < 2) {
            b->cap = b->cap ? b->cap * 2 : 4096;
            b->p = realloc(b->p, b->cap);
            KT_REQUIRE(b->p, "out of memory");
        }
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap *= 2;
        b->p = realloc(b->p, b->cap);
        KT_REQUIRE(b->p, "out of memory");
    }
}

static cl_mem buffer(struct kt_env *env, cl_mem_flags fl, size_t size, void *host)
{
    cl_int err;
    cl_mem m =
        clCreateBuffer(env->context, fl | (host ? CL_MEM_COPY_HOST_PTR : 0), size, host, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer %zu: %d", size, err);
    return m;
}

/* Run kernel `name` of p over `global` items in groups of `local` (0: any). */
static void run(struct kt_env *env, cl_program p, const char *name, size_t global, size_t local,
                int nargs, ...)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++) {
        size_t size = va_arg(ap, size_t);
        const void *val = va_arg(ap, const void *);
        KT_EXPECT(clSetKernelArg(k, (cl_uint)i, size, val), CL_SUCCESS);
    }
    va_end(ap);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, local ? &local : NULL, 0,
                                     NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    clReleaseKernel(k);
}

static void read_buf(struct kt_env *env, cl_mem m, size_t size, void *host)
{
    KT_EXPECT(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, size, host, 0, NULL, NULL),
              CL_SUCCESS);
}

/* ---- 1. vload<n> / vstore<n> ---- */

#define ITEMS  8                /* one work-group */
#define REGION (ITEMS * 16 + 4) /* elements per (width, address space) region */
#define NAS    4                /* global, constant, local, private */

static void vloadstore(struct kt_env *env, const char *std)
{
    struct sbuf s = {0};
    put(&s, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (int t = 0; t < NT; t++) {
        const char *T = ty[t].name, *U = ty[t].mask;
        /* Sentinels are compared as bits, so any bit pattern will do: use a value of T. */
        put(&s,
            "kernel void vd_%s(global const %s *in, global %s *out, constant %s *cin,\n"
            "                  local %s *l) {\n"
            "  size_t i = get_local_id(0), items = get_local_size(0);\n"
            "  const %s sent = out[0];\n",
            T, T, T, T, T, T);
        for (int w = 0; w < NW; w++) {
            int n = widths[w];
            int r0 = w * NAS * REGION;
            put(&s, "  {\n");
            /* __global and __constant sources, __global destination. */
            put(&s, "    vstore%d(vload%d(i, in + 1), i, out + %d + 1);\n", n, n, r0);
            put(&s, "    vstore%d(vload%d(i, cin + 1), i, out + %d + 1);\n", n, n, r0 + REGION);
            /* __local and __private: each item frames its vector with sentinels in its
             * own part of l (no barrier needed) and in private arrays, at offset 1 from
             * a pointer one element in, then copies it out. */
            put(&s,
                "    local %s *la = l + i * 36, *lb = l + (items + i) * 36;\n"
                "    %s pa[36], pb[36];\n"
                "    for (int j = 0; j < %d; j++) { la[j] = lb[j] = pa[j] = pb[j] = sent; }\n"
                "    for (int j = 0; j < %d; j++) la[1 + %d + j] = pa[1 + %d + j] = in[1 + i * %d "
                "+ j];\n"
                "    vstore%d(vload%d(1, la + 1), 1, lb + 1);\n"
                "    vstore%d(vload%d(1, pa + 1), 1, pb + 1);\n"
                "    for (int j = 0; j < %d; j++) {\n"
                "      out[%d + 1 + i * %d + j] = lb[1 + %d + j];\n"
                "      out[%d + 1 + i * %d + j] = pb[1 + %d + j];\n"
                "    }\n"
                "    if (as_%s(lb[%d]) != as_%s(sent) || as_%s(lb[1 + 2 * %d]) != as_%s(sent))\n"
                "      out[%d] = in[0];\n"
                "    if (as_%s(pb[%d]) != as_%s(sent) || as_%s(pb[1 + 2 * %d]) != as_%s(sent))\n"
                "      out[%d] = in[0];\n"
                "  }\n",
                T, T, 2 * n + 2, n, n, n, n, n, n, n, n, n, r0 + 2 * REGION, n, n, r0 + 3 * REGION,
                n, n, U, n, U, U, n, U, r0 + 2 * REGION, U, n, U, U, n, U, r0 + 3 * REGION);
        }
        put(&s, "}\n");
    }
    cl_program p = kt_build(env, s.p, std);
    free(s.p);

    for (int t = 0; t < NT; t++) {
        size_t es = ty[t].size;
        size_t out_elems = (size_t)NW * NAS * REGION;
        unsigned char *in = malloc(REGION * es), *out = malloc(out_elems * es), *sent = malloc(es);
        KT_REQUIRE(in && out && sent, "out of memory");
        for (size_t b = 0; b < REGION * es; b++)
            in[b] = (unsigned char)rnd();
        for (size_t b = 0; b < es; b++)
            sent[b] = (unsigned char)(0xa5 ^ b);
        for (size_t e = 0; e < out_elems; e++)
            memcpy(out + e * es, sent, es);
        cl_mem min = buffer(env, CL_MEM_READ_ONLY, REGION * es, in);
        cl_mem mout = buffer(env, CL_MEM_READ_WRITE, out_elems * es, out);
        char name[32];
        snprintf(name, sizeof(name), "vd_%s", ty[t].name);
        run(env, p, name, ITEMS, ITEMS, 4, sizeof(cl_mem), &min, sizeof(cl_mem), &mout,
            sizeof(cl_mem), &min, (size_t)2 * ITEMS * 36 * es, NULL);
        read_buf(env, mout, out_elems * es, out);
        static const char *const as_names[NAS] = {"global", "constant", "local", "private"};
        for (int w = 0; w < NW; w++) {
            int n = widths[w];
            for (int a = 0; a < NAS; a++) {
                const unsigned char *r = out + (size_t)(w * NAS + a) * REGION * es;
                int bad = 0;
                for (int e = 0; e < REGION; e++) {
                    int inside = e >= 1 && e < 1 + ITEMS * n;
                    const unsigned char *want = inside ? in + e * es : sent;
                    bad += memcmp(r + e * es, want, es) != 0;
                }
                KT_CHECK(bad == 0,
                         "%s: vload%d/vstore%d of %s through %s memory: %d elements wrong", std, n,
                         n, ty[t].name, as_names[a], bad);
            }
        }
        clReleaseMemObject(min);
        clReleaseMemObject(mout);
        free(in);
        free(out);
        free(sent);
    }
    clReleaseProgram(p);
}

/* ---- 2. vload_half<n>, vloada_half<n> ---- */

static int same_float(float got, long double want)
{
    if (isnan(want))
        return isnan(got);
    return got == want && !signbit(got) == !signbit(want);
}

static void load_half(struct kt_env *env, const char *std)
{
    /* Every half bit pattern; slot k of the output holds g floats. */
    enum { G = 65536, SLOTS = 14 };
    struct sbuf s = {0};
    put(&s, "kernel void lh(global const half *in, global float *out, constant half *cin) {\n"
            "  size_t i = get_global_id(0), g = get_global_size(0);\n"
            "  out[i] = vload_half(i, in);\n"
            "  out[g + i] = vload_half(i, cin);\n");
    for (int w = 0; w < NW; w++) {
        int n = widths[w];
        put(&s,
            "  if (i < g / %d) {\n"
            "    vstore%d(vload_half%d(i, in), i, out + g * %d);\n"
            "    vstore%d(vloada_half%d(i, in), i, out + g * %d);\n"
            "  }\n",
            n, n, n, 2 + 2 * w, n, n, 3 + 2 * w);
    }
    /* __local and __private sources. */
    put(&s, "  local ushort l[64];\n"
            "  size_t li = get_local_id(0);\n"
            "  l[li] = ((global const ushort *)in)[i];\n"
            "  barrier(CLK_LOCAL_MEM_FENCE);\n"
            "  out[g * 12 + i] = vload_half8(li / 8, (local half *)l)[li %% 8];\n"
            "  ushort pv[4];\n"
            "  for (int j = 0; j < 4; j++)\n"
            "    pv[j] = ((global const ushort *)in)[(i & ~(size_t)3) + j];\n"
            "  out[g * 13 + i] = vload_half4(0, (half *)pv)[i & 3];\n"
            "}\n");
    cl_program p = kt_build(env, s.p, std);
    free(s.p);
    size_t g = G;
    uint16_t *in = malloc(2 * G * 2); /* vloada_half3 reads up to 4 * g / 3 halves */
    float *out = malloc(G * SLOTS * sizeof(float));
    KT_REQUIRE(in && out, "out of memory");
    for (size_t i = 0; i < 2 * G; i++)
        in[i] = (uint16_t)i;
    cl_mem min = buffer(env, CL_MEM_READ_ONLY, 2 * G * 2, in);
    cl_mem mout = buffer(env, CL_MEM_WRITE_ONLY, G * SLOTS * sizeof(float), NULL);
    run(env, p, "lh", g, 64, 3, sizeof(cl_mem), &min, sizeof(cl_mem), &mout, sizeof(cl_mem), &min);
    read_buf(env, mout, G * SLOTS * sizeof(float), out);
    int bad[SLOTS] = {0};
    for (size_t i = 0; i < g; i++) {
        long double want = ref_half_value(in[i]);
        bad[0] += !same_float(out[i], want);
        bad[1] += !same_float(out[g + i], want);
        bad[12] += !same_float(out[g * 12 + i], want);
        bad[13] += !same_float(out[g * 13 + i], want);
    }
    for (int w = 0; w < NW; w++) {
        size_t n = (size_t)widths[w];
        for (size_t i = 0; i < g / n; i++)
            for (size_t j = 0; j < n; j++) {
                size_t e = i * n + j, ea = i * (n == 3 ? 4 : n) + j;
                bad[2 + 2 * w] += !same_float(out[g * (2 + 2 * w) + e], ref_half_value(in[e]));
                bad[3 + 2 * w] += !same_float(out[g * (3 + 2 * w) + e], ref_half_value(in[ea]));
            }
    }
    static const char *const what[SLOTS] = {
        "vload_half (global)", "vload_half (constant)", "vload_half2",  "vloada_half2",
        "vload_half3",         "vloada_half3",          "vload_half4",  "vloada_half4",
        "vload_half8",         "vloada_half8",          "vload_half16", "vloada_half16",
        "vload_half8 (local)", "vload_half4 (private)"};
    for (int k = 0; k < SLOTS; k++)
        KT_CHECK(bad[k] == 0, "%s: %s: %d values wrong", std, what[k], bad[k]);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    free(in);
    free(out);
    clReleaseProgram(p);
}

/* ---- 3. vstore_half<n>[_mode], vstorea_half<n>[_mode] ---- */

#define NS   4096 /* the part of the sample every width stores */
#define SENT 0x5a5a

static uint16_t half_of_bits(const void *x, int is_double, int mode)
{
    if (is_double) {
        double d;
        memcpy(&d, x, 8);
        return ref_to_half(d, (enum ref_mode)mode);
    }
    float f;
    memcpy(&f, x, 4);
    return ref_to_half(f, (enum ref_mode)mode);
}

static int same_half(uint16_t got, uint16_t want)
{
    return ref_half_is_nan(want) ? ref_half_is_nan(got) : got == want;
}

static int width_in_short_pass(int n)
{
    return n == 1 || n == 4 || n == 16;
}

/*
 * Kernel st<mode>_<type>: slot 0 gets the whole sample through vstore_half16 (or 8), slots
 * 1.. each width's vstore_half<n> and vstorea_half<n> of the first NS values, then __local
 * and __private destinations.
 */
static void store_half_one(struct kt_env *env, cl_program p, const char *std, int full, int mode,
                           int is_double, const void *in, size_t count)
{
    static const int sw[6] = {1, 2, 3, 4, 8, 16};
    size_t es = is_double ? 8 : 4;
    size_t nslots = 1 + 12 + 2;
    size_t slot = 2 * NS > count ? 2 * NS : count;
    uint16_t *out = malloc(nslots * slot * 2);
    KT_REQUIRE(out, "out of memory");
    for (size_t i = 0; i < nslots * slot; i++)
        out[i] = SENT;
    cl_mem min = buffer(env, CL_MEM_READ_ONLY, count * es, (void *)in);
    cl_mem mout = buffer(env, CL_MEM_READ_WRITE, nslots * slot * 2, out);
    cl_uint slot_u = (cl_uint)slot;
    char name[32];
    snprintf(name, sizeof(name), "st%d_%s", mode, is_double ? "double" : "float");
    run(env, p, name, count / 16, 64, 3, sizeof(cl_mem), &min, sizeof(cl_mem), &mout,
        sizeof(cl_uint), &slot_u);
    read_buf(env, mout, nslots * slot * 2, out);
    const unsigned char *src = in;
    int bad = 0, bad_w[12] = {0}, bad_l = 0, bad_p = 0;
    for (size_t i = 0; i < count; i++) {
        uint16_t want = half_of_bits(src + i * es, is_double, mode);
        if (!same_half(out[i], want) && bad++ < 5)
            KT_CHECK(0, "%s: vstore_half16%s(%s 0x%016llx): 0x%04x, want 0x%04x", std,
                     mode_sfx[mode], is_double ? "double" : "float",
                     is_double ? (unsigned long long)((const uint64_t *)in)[i]
                               : (unsigned long long)((const uint32_t *)in)[i],
                     out[i], want);
        if (i < NS) {
            bad_l += !same_half(out[13 * slot + i], want);
            bad_p += !same_half(out[14 * slot + i], want);
        }
    }
    for (int w = 0; w < 6; w++) {
        size_t n = (size_t)sw[w];
        if (!full && !width_in_short_pass((int)n))
            continue;
        const uint16_t *o = out + (1 + 2 * w) * slot, *oa = out + (2 + 2 * w) * slot;
        for (size_t i = 0; i < NS / n; i++) {
            for (size_t j = 0; j < n; j++) {
                uint16_t want = half_of_bits(src + (i * n + j) * es, is_double, mode);
                bad_w[2 * w] += !same_half(o[i * n + j], want);
                if (n > 1)
                    bad_w[2 * w + 1] += !same_half(oa[i * (n == 3 ? 4 : n) + j], want);
            }
            if (n == 3)
                bad_w[2 * w + 1] += oa[i * 4 + 3] != SENT; /* vstorea_half3 writes three */
        }
        bad_w[2 * w] += o[NS / n * n] != SENT;
    }
    KT_CHECK(bad == 0, "%s: vstore_half16%s from %s: %d values wrong", std, mode_sfx[mode],
             is_double ? "double" : "float", bad);
    for (int k = 0; k < 12; k++)
        KT_CHECK(bad_w[k] == 0 || k == 1, "%s: vstore%s_half%d%s from %s: %d values wrong", std,
                 k % 2 ? "a" : "", sw[k / 2], mode_sfx[mode], is_double ? "double" : "float",
                 bad_w[k]);
    KT_CHECK(bad_l == 0 && bad_p == 0, "%s: vstore_half%s to __local (%d wrong), __private (%d)",
             std, mode_sfx[mode], bad_l, bad_p);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    free(out);
}

/*
 * Full 0 is the -cl-std=CL1.2 pass, there for the named address spaces: stores from float
 * only, of widths 1, 4 and 16.
 */
static void store_half(struct kt_env *env, const char *std, int full)
{
    static const int sw[6] = {1, 2, 3, 4, 8, 16};
    struct sbuf s = {0};
    put(&s, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (int m = 0; m < 5; m++)
        for (int d = 0; d < 1 + full; d++) {
            const char *T = d ? "double" : "float", *M = mode_sfx[m];
            put(&s,
                "kernel void st%d_%s(global const %s *in, global half *out, uint slot) {\n"
                "  size_t i = get_global_id(0), li = get_local_id(0);\n"
                "  vstore_half16%s(vload16(i, in), i, out);\n",
                m, T, T, M);
            /* Item i stores vector i of each width, for the first NS values. */
            for (int w = 0; w < 6; w++) {
                int n = sw[w];
                if (!full && !width_in_short_pass(n))
                    continue;
                if (n == 1)
                    put(&s, "  if (i < %d) vstore_half%s(in[i], i, out + slot * %d);\n", NS, M,
                        1 + 2 * w);
                else
                    put(&s,
                        "  if (i < %d) {\n"
                        "    vstore_half%d%s(vload%d(i, in), i, out + slot * %d);\n"
                        "    vstorea_half%d%s(vload%d(i, in), i, out + slot * %d);\n"
                        "  }\n",
                        NS / n, n, M, n, 1 + 2 * w, n, M, n, 2 + 2 * w);
            }
            /* __local and __private destinations for the first NS values. */
            put(&s,
                "  local half l[64 * 16];\n"
                "  for (int j = 0; j < 16; j++) vstore_half%s(in[i * 16 + j], li * 16 + j, l);\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  for (int j = 0; j < 16; j++) if (i * 16 + j < %d)\n"
                "    ((global ushort *)out)[slot * 13 + i * 16 + j] = ((local ushort *)l)[li * 16 "
                "+ j];\n"
                "  half pv[16];\n"
                "  vstore_half8%s(vload8(2 * i, in), 0, pv);\n"
                "  vstore_half8%s(vload8(2 * i + 1, in), 1, pv);\n"
                "  for (int j = 0; j < 16; j++) if (i * 16 + j < %d)\n"
                "    ((global ushort *)out)[slot * 14 + i * 16 + j] = ((ushort *)pv)[j];\n"
                "}\n",
                M, NS, M, M, NS);
        }
    cl_program p = kt_build(env, s.p, std);
    free(s.p);

    /* Floats: a stride through every bit pattern, then windows around the edges. */
    size_t nf = (1u << 18) + 12 * 4096;
    uint32_t *f = malloc(nf * 4);
    KT_REQUIRE(f, "out of memory");
    size_t k = 0;
    static const uint32_t centres[6] = {0x477fe000, 0x477ff000, 0x38800000,
                                        0x33800000, 0x33000000, 0x387fc000};
    /* The windows first, so that every width sees them too. */
    for (int c = 0; c < 6; c++)
        for (uint32_t j = 0; j < 4096; j++) {
            f[k++] = centres[c] - 2048 + j;
            f[k++] = (centres[c] - 2048 + j) | 0x80000000u;
        }
    for (uint32_t j = 0; k < nf; j++)
        f[k++] = j * 16411u + 0x1234u;
    /* Shuffled, so that the part every width stores is a mix of all of them. */
    for (size_t i = nf - 1; i > 0; i--) {
        size_t r = rnd() % (i + 1);
        uint32_t tmp = f[i];
        f[i] = f[r];
        f[r] = tmp;
    }
    /* Doubles: near half ties (a half plus half an ulp, nudged below the float's
     * precision), and random bit patterns of half-range magnitudes. */
    size_t nd = 1u << 17;
    double *dv = malloc(nd * 8);
    KT_REQUIRE(dv, "out of memory");
    for (size_t i = 0; i < nd; i++) {
        uint16_t h = (uint16_t)rnd();
        long double v = ref_half_value(h & 0x7bff);
        int e;
        frexpl(v, &e);
        long double ulp = ldexpl(1, (v < ldexpl(1, -14) ? -14 : e - 1) - 10);
        switch (i % 4) {
        case 0:
            dv[i] = (double)(v + ulp / 2);
            break;
        case 1:
            dv[i] = (double)(v + ulp / 2 + ulp * ldexpl(1, -30));
            break;
        case 2:
            dv[i] = (double)(v + ulp / 2 - ulp * ldexpl(1, -30));
            break;
        default: {
            uint64_t b = (rnd() & 0x800fffffffffffffu) | ((uint64_t)(1023 - 30 + rnd() % 48) << 52);
            memcpy(&dv[i], &b, 8);
        }
        }
        if (h & 0x8000)
            dv[i] = -dv[i];
    }
    for (int m = 0; m < 5; m++) {
        store_half_one(env, p, std, full, m, 0, f, nf);
        if (full)
            store_half_one(env, p, std, full, m, 1, dv, nd);
    }
    free(f);
    free(dv);
    clReleaseProgram(p);
}

/* ---- 4. shuffle, shuffle2 ---- */

#define SH_ITEMS 16

/*
 * The (input width, mask width) pairs tested for type t: every pair for int, and a
 * third of them, rotating, for the others, so that every pair is tested with elements
 * of every size and the program stays quick to build.
 */
static int shuffle_tested(int t, int a, int b)
{
    return t == 4 || (a * 4 + b + t) % 3 == 0;
}

static void shuffles(struct kt_env *env, const char *std)
{
    static const int sm[4] = {2, 4, 8, 16};
    struct sbuf s = {0};
    put(&s, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (int t = 0; t < NT; t++) {
        const char *T = ty[t].name, *U = ty[t].mask;
        put(&s,
            "kernel void sh_%s(global const %s *x, global const %s *y, global const %s *mask,\n"
            "                  global %s *out) {\n"
            "  size_t i = get_global_id(0);\n",
            T, T, T, U, T);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                int m = sm[a], n = sm[b], slot = (a * 4 + b) * 2;
                if (!shuffle_tested(t, a, b))
                    continue;
                put(&s,
                    "  vstore%d(shuffle(vload%d(i, x), vload%d(i, mask)), i, out + %d);\n"
                    "  vstore%d(shuffle2(vload%d(i, x), vload%d(i, y), vload%d(i, mask)), i, "
                    "out + %d);\n",
                    n, m, n, slot * SH_ITEMS * 16, n, m, m, n, (slot + 1) * SH_ITEMS * 16);
            }
        put(&s, "}\n");
    }
    cl_program p = kt_build(env, s.p, std);
    free(s.p);
    for (int t = 0; t < NT; t++) {
        size_t es = ty[t].size, len = SH_ITEMS * 16;
        unsigned char *x = malloc(len * es), *y = malloc(len * es), *mask = malloc(len * es),
                      *out = malloc(32 * len * es);
        KT_REQUIRE(x && y && mask && out, "out of memory");
        for (size_t b = 0; b < len * es; b++) {
            x[b] = (unsigned char)rnd();
            y[b] = (unsigned char)rnd();
            mask[b] = (unsigned char)rnd(); /* high bits too: only the low ones count */
        }
        cl_mem mx = buffer(env, CL_MEM_READ_ONLY, len * es, x);
        cl_mem my = buffer(env, CL_MEM_READ_ONLY, len * es, y);
        cl_mem mm = buffer(env, CL_MEM_READ_ONLY, len * es, mask);
        cl_mem mo = buffer(env, CL_MEM_WRITE_ONLY, 32 * len * es, NULL);
        char name[32];
        snprintf(name, sizeof(name), "sh_%s", ty[t].name);
        run(env, p, name, SH_ITEMS, 0, 4, sizeof(cl_mem), &mx, sizeof(cl_mem), &my, sizeof(cl_mem),
            &mm, sizeof(cl_mem), &mo);
        read_buf(env, mo, 32 * len * es, out);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                if (!shuffle_tested(t, a, b))
                    continue;
                size_t m = (size_t)sm[a], n = (size_t)sm[b];
                int slot = (a * 4 + b) * 2, bad = 0, bad2 = 0;
                for (size_t i = 0; i < SH_ITEMS; i++)
                    for (size_t j = 0; j < n; j++) {
                        uint64_t k = 0;
                        memcpy(&k, mask + (i * n + j) * es, es);
                        const unsigned char *got = out + (slot * len + i * n + j) * es;
                        const unsigned char *got2 = out + ((slot + 1) * len + i * n + j) * es;
                        bad += memcmp(got, x + (i * m + k % m) * es, es) != 0;
                        const unsigned char *want2 =
                            k % (2 * m) < m ? x + (i * m + k % m) * es : y + (i * m + k % m) * es;
                        bad2 += memcmp(got2, want2, es) != 0;
                    }
                KT_CHECK(bad == 0 && bad2 == 0,
                         "%s: shuffle(%s%zu, %s%zu): %d wrong, shuffle2: %d wrong", std, ty[t].name,
                         m, ty[t].mask, n, bad, bad2);
            }
        clReleaseMemObject(mx);
        clReleaseMemObject(my);
        clReleaseMemObject(mm);
        clReleaseMemObject(mo);
        free(x);
        free(y);
        free(mask);
        free(out);
    }
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
        {"kernel void k(constant float *c, global float *o) { vstore4(vload4(0, c), 0, c); }",
         "vstore4", "a store to __constant"},
        {"kernel void k(global float *o) { o[0] = shuffle((float3)(1.0f), (uint4)(0)).x; }",
         "shuffle", "a 3-element shuffle input"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        kt_build_fails(env, cases[i].src, "-cl-std=CL3.0", cases[i].name, cases[i].what);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    vloadstore(&env, "-cl-std=CL1.2");
    vloadstore(&env, "-cl-std=CL3.0");
    load_half(&env, "-cl-std=CL1.2");
    load_half(&env, "-cl-std=CL3.0");
    store_half(&env, "-cl-std=CL1.2", 0);
    store_half(&env, "-cl-std=CL3.0", 1);
    shuffles(&env, "-cl-std=CL3.0");
    refusals(&env);
    kt_teardown(&env);
    return kt_finish("vector_data");
}
