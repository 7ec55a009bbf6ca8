/*
 * Compiler tests of the loop stage (4-loops): narrowed, strided and split work-item loops, and
 * work-item loops that contain loops vectorised across work-items (docs/compiler.md, "Stages").
 *
 * Usage: kiln-cc-loops-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

#include <limits.h>
#include <math.h>

/*
 * A region only the first v work-items act in (`if (l < v)` between barriers) becomes a
 * loop over min(local size, v) work-items without the test (narrow_loops.c), so the
 * vectoriser needs no masked stores: right for v of 0, inside and beyond the group.
 */
static int test_narrow_loops(void)
{
    static const char src[] = "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
                              "kernel void tree(global int *out, local int *t, uint v)\n"
                              "{\n"
                              "    size_t l = get_local_id(0);\n"
                              "    t[l] = (int)l * 3;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    if (l < v)\n"
                              "        t[l] += (int)(63 - l) * 7 + 1000;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    out[get_global_id(0)] = t[l];\n"
                              "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(strstr(text, "llvm.masked.store") == NULL);
    free(text);

    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "tree");
    CHECK(k);
    enum { LS = 64, GROUPS = 3, N = LS * GROUPS };
    size_t bytes = k->scratch_fixed + k->scratch_per_item * LS + KILN_SCRATCH_ALIGN;
    unsigned char *scratch =
        aligned_alloc(KILN_SCRATCH_ALIGN,
                      (bytes + KILN_SCRATCH_ALIGN - 1) / KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN);
    CHECK(scratch);
    static _Alignas(KILN_LOCAL_ALIGN) int arena[LS];
    static const unsigned vs[] = {0, 1, 17, 63, 64, 100, 0xffffffffu};
    for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
        int out[N];
        memset(out, 0xff, sizeof(out));
        int *po = out;
        size_t local_offset = 0;
        unsigned v = vs[i];
        void *args[] = {&po, &local_offset, &v};
        struct kiln_wg_ctx c;
        memset(&c, 0, sizeof(c));
        c.work_dim = 1;
        c.local_mem = arena;
        c.scratch = scratch;
        c.scratch_size = bytes;
        c.global_size[0] = N;
        c.enqueued_local_size[0] = c.local_size[0] = LS;
        c.num_groups[0] = GROUPS;
        for (int d = 1; d < 3; d++)
            c.global_size[d] = c.enqueued_local_size[d] = c.local_size[d] = c.num_groups[d] = 1;
        for (size_t g = 0; g < GROUPS; g++) {
            c.group_id[0] = g;
            k->wg(args, &c);
        }
        for (int j = 0; j < N; j++) {
            int l = j % LS, want = 3 * l + ((unsigned)l < v ? 7 * (63 - l) + 1000 : 0);
            if (out[j] != want) {
                fprintf(stderr, "v %u: out[%d] is %d, expected %d\n", v, j, out[j], want);
                return 1;
            }
        }
    }
    free(scratch);
    ct_cc->destroy(p);
    return 0;
}

/*
 * The same with `int` indices and no fixed local size, the shape most tree reductions are
 * written in: the guard is then the local id truncated to 32 bits and compared signed
 * (`l < v`), or masked to its low bits (`l == 0`), and the loop's count the local size read
 * from the context. Both regions are narrowed (no masked store is left), and the results are
 * right for negative, zero, small and large v.
 */
static int test_narrow_loops_int(void)
{
    static const char src[] = "kernel void tree(global int *out, local int *t, int v)\n"
                              "{\n"
                              "    int l = get_local_id(0);\n"
                              "    t[l] = l * 3;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    if (l < v)\n"
                              "        t[l] += (63 - l) * 7 + 1000;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    if (l == 0)\n"
                              "        t[0] += 5;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    out[get_global_id(0)] = t[l];\n"
                              "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(strstr(text, "llvm.masked.store") == NULL);
    CHECK(strstr(text, "llvm.masked.scatter") == NULL);
    free(text);

    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "tree");
    CHECK(k);
    enum { LS = 64, GROUPS = 3, N = LS * GROUPS };
    size_t bytes = k->scratch_fixed + k->scratch_per_item * LS + KILN_SCRATCH_ALIGN;
    unsigned char *scratch =
        aligned_alloc(KILN_SCRATCH_ALIGN,
                      (bytes + KILN_SCRATCH_ALIGN - 1) / KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN);
    CHECK(scratch);
    static _Alignas(KILN_LOCAL_ALIGN) int arena[LS];
    static const int vs[] = {INT_MIN, -5, 0, 1, 17, 63, 64, 100, INT_MAX};
    for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
        int out[N];
        memset(out, 0xff, sizeof(out));
        int *po = out;
        size_t local_offset = 0;
        int v = vs[i];
        void *args[] = {&po, &local_offset, &v};
        struct kiln_wg_ctx c;
        memset(&c, 0, sizeof(c));
        c.work_dim = 1;
        c.local_mem = arena;
        c.scratch = scratch;
        c.scratch_size = bytes;
        c.global_size[0] = N;
        c.enqueued_local_size[0] = c.local_size[0] = LS;
        c.num_groups[0] = GROUPS;
        for (int d = 1; d < 3; d++)
            c.global_size[d] = c.enqueued_local_size[d] = c.local_size[d] = c.num_groups[d] = 1;
        for (size_t g = 0; g < GROUPS; g++) {
            c.group_id[0] = g;
            k->wg(args, &c);
        }
        for (int j = 0; j < N; j++) {
            int l = j % LS, want = 3 * l + (l < v ? 7 * (63 - l) + 1000 : 0) + (l == 0 ? 5 : 0);
            if (out[j] != want) {
                fprintf(stderr, "v %d: out[%d] is %d, expected %d\n", v, j, out[j], want);
                return 1;
            }
        }
    }
    free(scratch);
    ct_cc->destroy(p);
    return 0;
}

#define NBODY_SOURCE                                                                               \
    "kernel void nbody(global const float4 *restrict pos, global float4 *restrict acc,\n"          \
    "                  int n, float eps2)\n"                                                       \
    "{\n"                                                                                          \
    "    size_t i = get_global_id(0);\n"                                                           \
    "    float4 p = pos[i];\n"                                                                     \
    "    float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"                                                 \
    "    for (int j = 0; j < n; j++) {\n"                                                          \
    "        float4 q = pos[j];\n"                                                                 \
    "        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;\n"                              \
    "        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);\n"                             \
    "        float s = q.w * inv * inv * inv;\n"                                                   \
    "        ax += dx * s;\n"                                                                      \
    "        ay += dy * s;\n"                                                                      \
    "        az += dz * s;\n"                                                                      \
    "    }\n"                                                                                      \
    "    acc[i] = (float4)(ax, ay, az, 0.0f);\n"                                                   \
    "}\n"

/*
 * The n-body kernel of tests/perf: its work-item loop holds a loop over all bodies
 * (the same trip count for every work-item). It is vectorised across work-items:
 * rsqrt (sqrt and a divide) and the accumulators' multiply-adds on vectors of at
 * least 4 lanes, the accumulators vector phis, and the inner loop's loads of one
 * body, the same for every lane, plain loads rather than gathers (the only gathers
 * left load each lane's own body, outside the inner loop). Results against a
 * double-precision sum, in groups that leave a remainder.
 */
static int test_outer_nbody(void)
{
    enum { N = 100 };
    static float pos[4 * N], acc[4 * N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(NBODY_SOURCE, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    CHECK(log && log[0] == '\0');
    free(log);
    char *fn = ct_wg_function(ir, "nbody");
    CHECK(fn);
    unsigned lanes = ct_widest_vector_phi(fn, "float");
    size_t gathers = ct_count_of(fn, "@llvm.masked.gather");
    printf("kiln.wg.nbody: vector phis of %u floats, %zu gathers\n", lanes, gathers);
    CHECK(lanes >= 4);
    CHECK(strstr(fn, "@llvm.sqrt.v") && strstr(fn, "fdiv <"));
    CHECK(strstr(fn, "@llvm.fmuladd.v"));
    CHECK(gathers <= 4);
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = ct_find_kernel(p, "nbody");
    CHECK(k);
    unsigned s = 7;
    for (int i = 0; i < 4 * N; i++) {
        s = s * 1103515245u + 12345u;
        float u = (float)((s >> 8) & 0xffff) / 65536.0f;
        pos[i] = (i % 4 == 3) ? 0.5f + u : 10.0f * u - 5.0f;
    }
    int n = N;
    float eps2 = 0.01f, *pp = pos, *pa = acc;
    void *args[] = {&pp, &pa, &n, &eps2};
    static const size_t locals[] = {16, 13, 100};
    for (size_t l = 0; l < 3; l++) {
        memset(acc, 0xff, sizeof(acc));
        size_t off = 0, gs = N, ls = locals[l];
        ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double want[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
            for (int j = 0; j < N; j++) {
                double d[3] = {(double)pos[4 * j] - pos[4 * i],
                               (double)pos[4 * j + 1] - pos[4 * i + 1],
                               (double)pos[4 * j + 2] - pos[4 * i + 2]};
                double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                double f = pos[4 * j + 3] / (r2 * sqrt(r2));
                for (int c = 0; c < 3; c++) {
                    want[c] += d[c] * f;
                    mag[c] += fabs(d[c] * f);
                }
            }
            for (int c = 0; c < 3; c++)
                CHECK(fabs(acc[4 * i + c] - want[c]) <= 1e-4 * mag[c]);
            CHECK(acc[4 * i + 3] == 0.0f);
        }
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * Work-item loops holding loops of every kind, against host references: a nested
 * loop nest with the same trip counts for every work-item calling math builtins
 * (vectorised across work-items), a double one (vectorised), a trip count that
 * differs per work-item, a loop left early by a break, a loop reading a private
 * array, a loop with a uniform trip count whose body branches on the data, and one
 * doing atomics (these five stay scalar across work-items). Each in groups of 16, 13 and 45
 * work-items (45 in all), and the build log stays empty: no missed-vectorisation warning.
 */
static int test_outer_loops(void)
{
    static const char src[] =
        "kernel void nest(global const float *a, global float *out, int n, int m)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x = a[i], s = 0.0f;\n"
        "    int c = 0;\n"
        "    for (int j = 0; j < n; j++)\n"
        "        for (int k = 0; k < m; k++) {\n"
        "            float y = a[j] + (float)k;\n"
        "            s += fmin(sqrt(fabs(x - y) + 1.0f), 3.0f) + fma(x, y, 0.5f) * rsqrt(y * y + "
        "1.0f);\n"
        "            c += (int)(i ^ (size_t)j) & 3;\n"
        "        }\n"
        "    out[i] = s + (float)c;\n"
        "}\n"
        "kernel void dbl(global const double *a, global double *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    double s = 0.0;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        double d = a[j] - a[i];\n"
        "        s += d * rsqrt(d * d + 0.25);\n"
        "    }\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void varying(global const float *a, global float *out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float s = 0.0f;\n"
        "    for (size_t j = 0; j < i % 7; j++)\n"
        "        s += a[j] * a[i];\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void early(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    int j = 0;\n"
        "    for (; j < n; j++)\n"
        "        if (a[j] > a[i])\n"
        "            break;\n"
        "    out[i] = (float)j;\n"
        "}\n"
        "kernel void priv(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float t[8];\n"
        "    for (int k = 0; k < 8; k++)\n"
        "        t[k] = a[i] * (float)k;\n"
        "    float s = 0.0f;\n"
        "    for (int j = 0; j < n; j++)\n"
        "        s += t[(j + (int)i) % 8] * a[j];\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void branchy(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float s = 0.0f;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        if (a[j] > 0.0f)\n"
        "            s += exp(a[j] - a[i]);\n"
        "        else\n"
        "            s -= a[j];\n"
        "    }\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void atom(global const float *a, volatile global int *h, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    for (int j = 0; j < n; j++)\n"
        "        atomic_add(&h[(int)(a[j] * 4.0f) & 7], (int)(i & 3));\n"
        "}\n";
    enum { N = 45, NJ = 23, MK = 5 };
    static int h[8];
    static float a[N], out[N];
    static double ad[N], outd[N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    if (log && log[0])
        fprintf(stderr, "log: %s\n", log);
    CHECK(log && log[0] == '\0');
    free(log);
    static const char *const vectorised[] = {"nest", "dbl"};
    for (size_t v = 0; v < 2; v++) {
        char *fn = ct_wg_function(ir, vectorised[v]);
        CHECK(fn);
        unsigned lanes = ct_widest_vector_phi(fn, v == 0 ? "float" : "double");
        printf("kiln.wg.%s: vector phis of %u lanes\n", vectorised[v], lanes);
        CHECK(lanes >= 4);
        CHECK(strstr(fn, "@llvm.sqrt.v"));
        free(fn);
    }
    free(ir);

    for (int i = 0; i < N; i++) {
        a[i] = (float)((i * 37) % 19) * 0.25f - 2.0f;
        ad[i] = (double)a[i] * 1.5;
    }
    int n = NJ, m = MK;
    float *pa = a, *po = out;
    double *pad = ad, *pod = outd;
    static const size_t locals[] = {16, 13, 45};
    for (size_t l = 0; l < 3; l++) {
        size_t off = 0, gs = N, ls = locals[l];
        const struct kiln_cc_kernel *k = ct_find_kernel(p, "nest");
        CHECK(k);
        void *args4[] = {&pa, &po, &n, &m};
        memset(out, 0xff, sizeof(out));
        ct_run_ndrange(k, args4, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double s = 0.0, mag = 0.0;
            int c = 0;
            for (int j = 0; j < NJ; j++)
                for (int q = 0; q < MK; q++) {
                    double y = (double)a[j] + q;
                    double t = fmin(sqrt(fabs(a[i] - y) + 1.0), 3.0) +
                               ((double)a[i] * y + 0.5) / sqrt(y * y + 1.0);
                    s += t;
                    mag += fabs(t);
                    c += (i ^ j) & 3;
                }
            CHECK(fabs(out[i] - (s + c)) <= 1e-5 * (mag + c));
        }

        k = ct_find_kernel(p, "dbl");
        CHECK(k);
        void *argsd[] = {&pad, &pod, &n};
        memset(outd, 0xff, sizeof(outd));
        ct_run_ndrange(k, argsd, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double s = 0.0, mag = 0.0;
            for (int j = 0; j < NJ; j++) {
                double d = ad[j] - ad[i];
                s += d / sqrt(d * d + 0.25);
                mag += fabs(d / sqrt(d * d + 0.25));
            }
            CHECK(fabs(outd[i] - s) <= 1e-12 * mag);
        }

        void *args2[] = {&pa, &po};
        void *args3[] = {&pa, &po, &n};
        static const char *const scalar[] = {"varying", "early", "priv", "branchy"};
        for (size_t sk = 0; sk < 4; sk++) {
            k = ct_find_kernel(p, scalar[sk]);
            CHECK(k);
            memset(out, 0xff, sizeof(out));
            ct_run_ndrange(k, sk == 0 ? args2 : args3, 1, &off, &gs, &ls, NULL);
            for (int i = 0; i < N; i++) {
                double want = 0.0, mag = 0.0;
                if (sk == 0) {
                    for (int j = 0; j < i % 7; j++) {
                        want += (double)a[j] * a[i];
                        mag += fabs((double)a[j] * a[i]);
                    }
                } else if (sk == 1) {
                    int j = 0;
                    while (j < NJ && !(a[j] > a[i]))
                        j++;
                    want = j;
                } else if (sk == 2) {
                    for (int j = 0; j < NJ; j++) {
                        double t = (double)a[i] * ((j + i) % 8) * a[j];
                        want += t;
                        mag += fabs(t);
                    }
                } else {
                    for (int j = 0; j < NJ; j++) {
                        double t = a[j] > 0.0f ? exp((double)a[j] - a[i]) : -(double)a[j];
                        want += t;
                        mag += fabs(t);
                    }
                }
                if (!(fabs(out[i] - want) <= 1e-5 * mag))
                    fprintf(stderr, "%s: item %d: got %.9g, expected %.9g\n", scalar[sk], i,
                            (double)out[i], want);
                CHECK(fabs(out[i] - want) <= 1e-5 * mag);
            }
        }

        k = ct_find_kernel(p, "atom");
        CHECK(k);
        int *ph = h;
        void *argsa[] = {&pa, &ph, &n};
        memset(h, 0, sizeof(h));
        ct_run_ndrange(k, argsa, 1, &off, &gs, &ls, NULL);
        int want[8] = {0};
        for (int i = 0; i < N; i++)
            for (int j = 0; j < NJ; j++)
                want[(int)(a[j] * 4.0f) & 7] += i & 3;
        for (int b = 0; b < 8; b++)
            CHECK(h[b] == want[b]);
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * A loop from the local id by the fixed local size, to a multiple of it, runs as often in
 * every work-item (strided_loops.c): it is unrolled and the work-item loop around it is
 * vectorised, so the stores to `out` are vector stores.
 */
static int test_strided_loops(void)
{
    static const char src[] =
        "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "kernel void k(global int *out, global const int *in)\n"
        "{\n"
        "    size_t base = get_group_id(0) * 512;\n"
        "    for (size_t i = get_local_id(0); i < 512; i += get_local_size(0))\n"
        "        out[base + i] = in[base + i] * 5 + 1;\n"
        "}\n";
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(ct_line_with(text, "store <", "ptr addrspace(1)"));
    free(text);
    return 0;
}

/*
 * A tile staged through local memory and read in a circle, r[i] = 3 t[i] + t[(i + 1) % 1024]:
 * the work-item loop is cut where the index wraps (wrap_split.c), so the arithmetic is vector
 * arithmetic.
 */
static int test_wrap_split(void)
{
    static const char src[] =
        "#define TILE 1024\n"
        "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
        "void k(__global const uint *in, __global uint *out)\n"
        "{\n"
        "    __local uint t[TILE], r[TILE];\n"
        "    size_t base = get_group_id(0) * TILE;\n"
        "    event_t e = async_work_group_copy(t, in + base, TILE, 0);\n"
        "    wait_group_events(1, &e);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (size_t i = get_local_id(0); i < TILE; i += get_local_size(0))\n"
        "        r[i] = 3 * t[i] + t[(i + 1) % TILE];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    e = async_work_group_copy(out + base, r, TILE, 0);\n"
        "    wait_group_events(1, &e);\n"
        "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(ct_line_with(text, "= mul <", " x i32>"));
    free(text);
    return 0;
}

/*
 * A work-item loop holding a loop, whose work-items read and write their own element
 * (the fma chains of tests/perf's fma-float): the native path widens in[i] and out[i] into
 * a gather and a scatter of consecutive addresses, which become one vector load and one
 * vector store. Results against a host reference in groups of 16, 13 and 45.
 */
static int test_outer_consecutive(void)
{
    static const char src[] =
        "kernel void chains(global const float *restrict in, global float *restrict out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x0 = in[i], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;\n"
        "    for (int k = 0; k < 32; k++) {\n"
        "        x0 = fma(x0, 0.75f, 0.25f); x1 = fma(x1, 0.75f, 0.25f);\n"
        "        x2 = fma(x2, 0.75f, 0.25f); x3 = fma(x3, 0.75f, 0.25f);\n"
        "    }\n"
        "    out[i] = (x0 + x1) + (x2 + x3);\n"
        "}\n";
    enum { N = 45 };
    static float in[N], out[N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    free(log);
    char *fn = ct_wg_function(ir, "chains");
    CHECK(fn);
    size_t gathers = ct_count_of(fn, "@llvm.masked.gather");
    size_t scatters = ct_count_of(fn, "@llvm.masked.scatter");
    unsigned lanes = ct_widest_vector_phi(fn, "float");
    printf("kiln.wg.chains: vector phis of %u floats, %zu gathers, %zu scatters\n", lanes, gathers,
           scatters);
    CHECK(lanes >= 4);
    CHECK(gathers == 0 && scatters == 0);
    CHECK(strstr(fn, "load <") && strstr(fn, "store <"));
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = ct_find_kernel(p, "chains");
    CHECK(k);
    for (int i = 0; i < N; i++)
        in[i] = (float)i / 8.0f - 2.0f;
    float *pi = in, *po = out;
    void *args[] = {&pi, &po};
    static const size_t locals[] = {16, 13, 45};
    for (size_t l = 0; l < 3; l++) {
        memset(out, 0xff, sizeof(out));
        size_t off = 0, gs = N, ls = locals[l];
        ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            float x[4] = {in[i], in[i] + 1.0f, in[i] + 2.0f, in[i] + 3.0f};
            for (int r = 0; r < 32; r++)
                for (int c = 0; c < 4; c++)
                    x[c] = fmaf(x[c], 0.75f, 0.25f);
            CHECK(out[i] == (x[0] + x[1]) + (x[2] + x[3]));
        }
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * Work-item loops of wide vectors (outer_vec.c, kiln_cc_jam_wide_loops): a work-item looping
 * over uint16 values, a whole AVX-512 register or more each, is not widened across
 * work-items but unrolled and jammed, so several work-items' loops run as one with their
 * values side by side (more vector phis of 16 uints than the two the source carries). Against
 * a host reference for groups of 16, 13 and 45 (jammed groups and the remainder), and for the
 * same loop with a trip count that differs per work-item, which LLVM may not jam.
 */
static uint32_t rotl32(uint32_t x, unsigned s)
{
    return (x << s) | (x >> (32 - s));
}

/* The most lines holding `what` in one basic block of the function text fn (a block starts
 * at its label: a line whose first word, not indented, ends in a colon). */
static size_t most_in_a_block(const char *fn, const char *what)
{
    size_t most = 0, here = 0;
    for (const char *line = fn; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (len && line[0] != ' ' && colon && !memchr(line, ' ', (size_t)(colon - line)))
            here = 0;
        const char *hit = strstr(line, what);
        if (hit && hit < line + len && ++here > most)
            most = here;
        line += len + (end != NULL);
    }
    return most;
}

static int test_outer_jam(void)
{
    /* Two kernels rather than one with a flag: whether LLVM unswitches such a flag out of the
     * work-item loop depends on the target's costs (it does with AVX-512, not with AVX2). */
    static const char src[] =
        "uint16 steps(uint16 a, int m)\n"
        "{\n"
        "    uint16 b = a ^ (uint16)(0x9e3779b9u);\n"
        "    for (int k = 0; k < m; k++) {\n"
        "        a = rotate(a + b, (uint16)(7)) ^ (uint16)((uint)k);\n"
        "        b = rotate(b ^ a, (uint16)(13)) + a;\n"
        "    }\n"
        "    return a ^ b;\n"
        "}\n"
        "uint16 start(size_t i, uint seed)\n"
        "{\n"
        "    return (uint16)((uint)i * seed) +\n"
        "           (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);\n"
        "}\n"
        "kernel void mix(global uint16 *out, uint seed, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = steps(start(i, seed), n);\n"
        "}\n"
        "kernel void mix_vary(global uint16 *out, uint seed, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = steps(start(i, seed), n + (int)(i % 3));\n"
        "}\n";
    enum { N = 45, STEPS = 37 };
    static _Alignas(64) uint32_t out[N * 16];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    if (log && log[0])
        fprintf(stderr, "log: %s\n", log);
    CHECK(log && log[0] == '\0');
    free(log);
    char *fn = ct_wg_function(ir, "mix");
    CHECK(fn);
    size_t phis = most_in_a_block(fn, "phi <16 x i32>");
    size_t gathers = ct_count_of(fn, "@llvm.masked.gather");
    printf("kiln.wg.mix: up to %zu vector phis of 16 uints in a block, %zu gathers\n", phis,
           gathers);
    CHECK(phis >= 2 * 4); /* jammed: the a and b of four work-items in one loop */
    CHECK(gathers == 0);
    free(fn);
    free(ir);

    uint32_t *po = out, seed = 2654435761u;
    int n = STEPS;
    static const size_t locals[] = {16, 13, 45};
    for (int vary = 0; vary < 2; vary++) {
        const struct kiln_cc_kernel *k = ct_find_kernel(p, vary ? "mix_vary" : "mix");
        CHECK(k);
        void *args[] = {&po, &seed, &n};
        for (size_t l = 0; l < 3; l++) {
            memset(out, 0xff, sizeof(out));
            size_t off = 0, gs = N, ls = locals[l];
            ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
            for (int i = 0; i < N; i++) {
                int m = vary ? STEPS + i % 3 : STEPS;
                for (unsigned lane = 0; lane < 16; lane++) {
                    uint32_t a = (uint32_t)i * seed + lane, b = a ^ 0x9e3779b9u;
                    for (int s = 0; s < m; s++) {
                        a = rotl32(a + b, 7) ^ (uint32_t)s;
                        b = rotl32(b ^ a, 13) + a;
                    }
                    if (out[i * 16 + lane] != (a ^ b)) {
                        fprintf(stderr, "mix (vary %d, local %zu): out[%d].s%u = %#x, want %#x\n",
                                vary, ls, i, lane, out[i * 16 + lane], a ^ b);
                        return 1;
                    }
                }
            }
        }
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * A candidate loop of wide vectors with a rare match (4-loops/pair_loops.c): a hash of 8
 * candidates an iteration, an early `continue` unless a lane matches, an atomic and a store on
 * a match. `crack` reloads its count from memory each iteration, as hashcat does; `crack_n` has
 * it by value, odd, so that the pairs leave one iteration to the loop as it was. The matches
 * fall in both iterations of pairs; each is checked against the same hash in C.
 */
#define PAIR_STEPS 32
static uint32_t pair_hash(uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t v[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
    static const unsigned shift[4] = {7, 12, 17, 22};
    /* Step k updates v[-k mod 4] from the next three, as STEP(a, b, c, d) does. */
    for (uint32_t k = 0; k < PAIR_STEPS; k++) {
        uint32_t *a = &v[(4 - k % 4) % 4], b = v[(5 - k % 4) % 4], c = v[(6 - k % 4) % 4],
                 d = v[(7 - k % 4) % 4];
        *a = b + rotl32(*a + (d ^ (b & (c ^ d))) + (k & 1 ? y : x) + 0xd76aa478u * (k + 1),
                        shift[k % 4]);
    }
    return v[0] ^ v[1] ^ z;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static int test_pair_loops(void)
{
    static const char src[] =
        "#define STEP(a, b, c, d, x, k, s)                                            \\\n"
        "    a = b + rotate(a + (d ^ (b & (c ^ d))) + (x) + (uint8)(0xd76aa478u * (k)),  \\\n"
        "                   (uint8)(s));\n"
        "#define FOUR(x, y, k)                                                        \\\n"
        "    STEP(a, b, c, d, x, k, 7) STEP(d, a, b, c, y, k + 1, 12)                 \\\n"
        "    STEP(c, d, a, b, x, k + 2, 17) STEP(b, c, d, a, y, k + 3, 22)\n"
        "#define HASH(x, y, z, out)                                                   \\\n"
        "    {                                                                        \\\n"
        "        uint8 a = 0x67452301u, b = 0xefcdab89u, c = 0x98badcfeu, d = 0x10325476u; \\\n"
        "        FOUR(x, y, 1) FOUR(x, y, 5) FOUR(x, y, 9) FOUR(x, y, 13)               \\\n"
        "        FOUR(x, y, 17) FOUR(x, y, 21) FOUR(x, y, 25) FOUR(x, y, 29)            \\\n"
        "        out = a ^ b ^ (z);                                                   \\\n"
        "    }\n"
        "#define CRACK(count)                                                         \\\n"
        "    size_t g = get_global_id(0);                                             \\\n"
        "    uint2 w = pws[g];                                                        \\\n"
        "    for (uint i = 0; i < (count); i += 8) {                                  \\\n"
        "        uint8 x = (uint8)(w.x) | vload8(0, cand + i), h;                     \\\n"
        "        HASH(x, (uint8)(w.y), (uint8)((uint)g), h);                          \\\n"
        "        int8 m = (h & 0x3f) == (uint8)(want);                                \\\n"
        "        if (!any(m))                                                         \\\n"
        "            continue;                                                        \\\n"
        "        uint slot = atomic_inc(hits);                                        \\\n"
        "        if (slot < 512)                                                      \\\n"
        "            found[slot] = (uint)g << 16 | i << 8 |                           \\\n"
        "                          (uint)(-m.s0 + 2 * -m.s1 + 4 * -m.s2 + 8 * -m.s3 +   \\\n"
        "                                 16 * -m.s4 + 32 * -m.s5 + 64 * -m.s6 +      \\\n"
        "                                 128 * -m.s7);                               \\\n"
        "    }\n"
        "kernel void crack(constant uint *cand, global const uint2 *pws,\n"
        "                  global const uint *count, volatile global uint *hits,\n"
        "                  global uint *found, uint want)\n"
        "{\n"
        "    CRACK(*count)\n"
        "}\n"
        "kernel void crack_n(constant uint *cand, global const uint2 *pws, uint count,\n"
        "                    volatile global uint *hits, global uint *found, uint want)\n"
        "{\n"
        "    CRACK(count)\n"
        "}\n";
    enum { N = 29, COUNT = 104, WANT = 17 }; /* 13 iterations: 6 pairs and one left */
    static uint32_t cand[COUNT], pws[N * 2], found[512], want_found[512];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    if (log && log[0])
        fprintf(stderr, "log: %s\n", log);
    CHECK(log && log[0] == '\0');
    free(log);
    for (int k = 0; k < 2; k++) {
        char *fn = ct_wg_function(ir, k ? "crack_n" : "crack");
        CHECK(fn);
        /* The hash's rotates: once in the loop as it was, twice more in the pair. */
        size_t rotates = ct_count_of(fn, "call <8 x i32> @llvm.fshl.v8i32");
        printf("kiln.wg.%s: %zu rotates of 8 uints\n", k ? "crack_n" : "crack", rotates);
#if defined(__x86_64__)
        if (!__builtin_cpu_supports("avx512f"))
            CHECK(2 * rotates >= 5 * PAIR_STEPS); /* not paired: fewer than 32 */
#endif
        free(fn);
    }
    free(ir);

    uint32_t seed = 2654435761u;
    for (int i = 0; i < COUNT; i++)
        cand[i] = (seed *= 1664525u, seed += 1013904223u);
    for (int i = 0; i < N * 2; i++)
        pws[i] = (seed *= 1664525u, seed += 1013904223u);
    size_t nwant = 0;
    for (uint32_t g = 0; g < N; g++)
        for (uint32_t i = 0; i < COUNT; i += 8) {
            uint32_t mask = 0;
            for (uint32_t lane = 0; lane < 8; lane++)
                if ((pair_hash(pws[2 * g] | cand[i + lane], pws[2 * g + 1], g) & 0x3f) == WANT)
                    mask |= 1u << lane;
            if (mask && nwant < 512)
                want_found[nwant++] = g << 16 | i << 8 | mask;
        }
    size_t second = 0;
    for (size_t j = 0; j < nwant; j++)
        second += ((want_found[j] >> 8 & 0xff) / 8) % 2;
    printf("%zu matches, %zu of them in the second iteration of a pair\n", nwant, second);
    CHECK(nwant > 8 && second > 2);
    qsort(want_found, nwant, sizeof(uint32_t), cmp_u32);

    uint32_t *pc = cand, *pp = pws, *pf = found, hits, count = COUNT, want = WANT;
    uint32_t *ph = &hits, *pn = &count;
    static const size_t locals[] = {1, 4, 29};
    for (int k = 0; k < 2; k++) {
        const struct kiln_cc_kernel *kern = ct_find_kernel(p, k ? "crack_n" : "crack");
        CHECK(kern);
        void *args_crack[] = {&pc, &pp, &pn, &ph, &pf, &want};
        void *args_n[] = {&pc, &pp, &count, &ph, &pf, &want};
        for (size_t l = 0; l < 3; l++) {
            hits = 0;
            memset(found, 0, sizeof(found));
            size_t off = 0, gs = N, ls = locals[l];
            ct_run_ndrange(kern, k ? args_n : args_crack, 1, &off, &gs, &ls, NULL);
            CHECK(hits == nwant);
            qsort(found, hits, sizeof(uint32_t), cmp_u32);
            for (size_t j = 0; j < nwant; j++)
                if (found[j] != want_found[j]) {
                    fprintf(stderr, "%s (local %zu): match %zu is %#x, want %#x\n",
                            k ? "crack_n" : "crack", ls, j, found[j], want_found[j]);
                    return 1;
                }
        }
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * A work-item loop whose reads clamp their index and whose write is range-checked
 * (clamp_split.c): the interior runs in a copy without the clamps and the check, with vector
 * loads of the float4 elements widened across work-items (outer_vec.c) and no gathers. Against
 * a host reference (exact: small integers) for bounds that clamp at both ends, a check that
 * passes for none, some or all work-items, an invariant condition off and on, and global
 * offsets where the 32-bit index wraps past INT_MAX and past 2^32 inside a group.
 */
static int test_clamp_split(void)
{
    static const char src[] =
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "void blur(global const float4 *in, global float4 *out, int n, int lo, uint m, int on)\n"
        "{\n"
        "    int g = (int)get_global_id(0);\n"
        "    float4 s = 0.0f;\n"
        "    for (int i = -3; i <= 3; i++) {\n"
        "        int j = clamp((int)((uint)g + (uint)i), lo, n - 1);\n"
        "        s += in[j - lo] * (float)(i + 4);\n"
        "    }\n"
        "    if ((uint)g < m && on)\n"
        "        out[get_global_id(0) - get_global_offset(0)] = s;\n"
        "}\n"
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "void lone(global int *out, int lo, int hi)\n"
        "{\n"
        "    int g = (int)get_global_id(0);\n"
        "    int a = max((int)((uint)g + 3u), lo), b = min((int)((uint)g - 3u), hi);\n"
        "    out[get_global_id(0) - get_global_offset(0)] = (int)((uint)a * 3u + (uint)b);\n"
        "}\n";
    enum { N = 256 };
    static float in[4 * N], out[4 * N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    CHECK(log && log[0] == '\0');
    free(log);
    char *fn = ct_wg_function(ir, "blur");
    CHECK(fn);
    /* The widest load of floats: 4 lanes of float4 at the least (SSE), against the one float4
     * a work-item loads when its loop is not widened. */
    unsigned widest = 0;
    for (const char *at = strstr(fn, "load <"); at; at = strstr(at + 1, "load <")) {
        unsigned n;
        char type[8];
        if (sscanf(at, "load <%u x %7[a-z]>", &n, type) == 2 && strcmp(type, "float") == 0 &&
            n > widest)
            widest = n;
    }
    size_t gathers = ct_count_of(fn, "@llvm.masked.gather");
    printf("kiln.wg.blur: widest load <%u x float>, %zu gathers\n", widest, gathers);
    CHECK(gathers == 0);
    CHECK(widest >= 16);
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = ct_find_kernel(p, "blur");
    CHECK(k);
    for (int i = 0; i < 4 * N; i++)
        in[i] = (float)((i * 7) % 23);
    static const struct {
        int n, lo;
        unsigned m;
        int on;
        size_t offset;
    } cases[] = {
        {200, 0, 150, 1, 0},
        {N, 5, UINT_MAX, 1, 0},
        {100, 0, 0, 1, 0},
        {N, 0, 1000, 0, 0},
        {60, 3, 64, 1, 0},
        {N, 0, UINT_MAX, 1, 2147483648u - 128},
        {N, 0, 100, 1, 4294967296u - 64},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int n = cases[c].n, lo = cases[c].lo, on = cases[c].on;
        unsigned m = cases[c].m;
        float *pi = in, *po = out;
        void *args[] = {&pi, &po, &n, &lo, &m, &on};
        size_t off = cases[c].offset, gs = N, ls = 64;
        for (int i = 0; i < 4 * N; i++)
            out[i] = -7.0f;
        ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (size_t id = 0; id < N; id++) {
            int32_t g = (int32_t)(uint32_t)(off + id);
            for (int ch = 0; ch < 4; ch++) {
                float want = -7.0f;
                if ((uint32_t)g < m && on) {
                    want = 0.0f;
                    for (int i = -3; i <= 3; i++) {
                        int32_t j = (int32_t)((uint32_t)g + (uint32_t)i);
                        j = j < lo ? lo : j > n - 1 ? n - 1 : j;
                        want += in[4 * (j - lo) + ch] * (float)(i + 4);
                    }
                }
                if (out[4 * id + ch] != want) {
                    fprintf(stderr, "case %zu: out[%zu].%d = %g, want %g\n", c, id, ch,
                            out[4 * id + ch], want);
                    return 1;
                }
            }
        }
    }

    /* A clamp on one side only: the interior also keeps the index within 32 bits. */
    const struct kiln_cc_kernel *lone = ct_find_kernel(p, "lone");
    CHECK(lone);
    static const struct {
        int lo, hi;
        size_t offset;
    } ends[] = {
        {-5, 10, 0},
        {INT_MIN, INT_MAX, 2147483648u - 128},
        {0, 100, 2147483648u - 128},
        {INT_MIN, INT_MAX, 4294967296u - 64},
        {-20, 20, 4294967296u - 64},
        {0, INT_MAX, 2147483648u - 128}, /* a wraps at the top, b stays the identity */
        {INT_MIN, 0, 2147483648u},       /* b wraps at the bottom, a stays the identity */
    };
    static int32_t iout[N];
    for (size_t c = 0; c < sizeof(ends) / sizeof(ends[0]); c++) {
        int lo = ends[c].lo, hi = ends[c].hi;
        int32_t *po = iout;
        void *args[] = {&po, &lo, &hi};
        size_t off = ends[c].offset, gs = N, ls = 64;
        ct_run_ndrange(lone, args, 1, &off, &gs, &ls, NULL);
        for (size_t id = 0; id < N; id++) {
            uint32_t g = (uint32_t)(off + id);
            int32_t a = (int32_t)(g + 3u), b = (int32_t)(g - 3u);
            a = a < lo ? lo : a;
            b = b > hi ? hi : b;
            int32_t want = (int32_t)((uint32_t)a * 3u + (uint32_t)b);
            if (iout[id] != want) {
                fprintf(stderr, "lone case %zu: out[%zu] = %d, want %d\n", c, id, iout[id], want);
                return 1;
            }
        }
    }
    ct_cc->destroy(p);
    return 0;
}

/*
 * A 64-bit range check, `get_global_id(0) < n` with a size_t id (clamp_split.c): guarding a
 * load and guarding a whole store. The loop's interior runs in a copy without the checks, so
 * neither becomes a masked load or store (slow on AVX2), and the results are right for n
 * before, inside and beyond the groups, with and without a global offset.
 */
static int test_clamp_split_wide(void)
{
    static const char src[] = "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
                              "void edge(global const int *in, global int *out, global int *out2,\n"
                              "          uint n)\n"
                              "{\n"
                              "    size_t g = get_global_id(0), i = g - get_global_offset(0);\n"
                              "    out[i] = g < n ? in[g] * 3 : -1;\n"
                              "    if (n > g)\n"
                              "        out2[i] = in[g] + 7;\n"
                              "}\n";
    enum { LS = 64, GROUPS = 3, N = LS * GROUPS, OFF = 5 };
    static int in[N + OFF], out[N], out2[N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    free(log);
    char *fn = ct_wg_function(ir, "edge");
    CHECK(fn);
    size_t masked = ct_count_of(fn, "@llvm.masked.load") + ct_count_of(fn, "@llvm.masked.store");
    printf("kiln.wg.edge: %zu masked loads and stores\n", masked);
    CHECK(masked == 0);
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = ct_find_kernel(p, "edge");
    CHECK(k);
    for (int i = 0; i < N + OFF; i++)
        in[i] = i * 11 - 300;
    static const unsigned ns[] = {0, 1, 6, 63, 64, 69, 100, 191, 197, 1000, 0xffffffffu};
    for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++)
        for (size_t off = 0; off <= OFF; off += OFF) {
            int *pin = in, *po = out, *po2 = out2;
            unsigned n = ns[c];
            void *args[] = {&pin, &po, &po2, &n};
            size_t gs = N, ls = LS;
            memset(out, 0x55, sizeof(out));
            memset(out2, 0x55, sizeof(out2));
            ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
            for (size_t i = 0; i < N; i++) {
                size_t g = i + off;
                int want = g < n ? in[g] * 3 : -1, want2 = g < n ? in[g] + 7 : 0x55555555;
                if (out[i] != want || out2[i] != want2) {
                    fprintf(stderr, "n %u, offset %zu: out[%zu] = %d and %d, want %d and %d\n", n,
                            off, i, out[i], out2[i], want, want2);
                    return 1;
                }
            }
        }
    ct_cc->destroy(p);
    return 0;
}

/* How many blocks of fn hold `what`. */
static size_t blocks_with(const char *fn, const char *what)
{
    size_t blocks = 0;
    bool counted = false;
    for (const char *line = fn; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (len && line[0] != ' ' && colon && !memchr(line, ' ', (size_t)(colon - line)))
            counted = false;
        const char *hit = strstr(line, what);
        if (hit && hit < line + len && !counted) {
            blocks++;
            counted = true;
        }
        line += len + (end != NULL);
    }
    return blocks;
}

/*
 * A tree reduction whose step loop halves s (stray_ids.c): LLVM moves the work-item loop's
 * id onto the step loop around it, which must lose its parallel_accesses before Kiln's loop
 * passes run. Left on, outer_vec.c handed the step loop to the outer-loop vectoriser, which
 * gave up on it and left the work-item loops inside it scalar: only the first step (peeled,
 * s = 128) added vectors. Now the steps' work-item loop is vectorised too, so vector adds
 * appear in more than one block, and every group's sum is right.
 */
static int test_stray_loop_ids(void)
{
    static const char src[] = "__attribute__((reqd_work_group_size(256, 1, 1)))\n"
                              "kernel void tree(global const float *in, global float *out,\n"
                              "                 local float *t)\n"
                              "{\n"
                              "    size_t l = get_local_id(0);\n"
                              "    t[l] = in[get_global_id(0)];\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
                              "        if (l < s)\n"
                              "            t[l] += t[l + s];\n"
                              "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    }\n"
                              "    if (l == 0)\n"
                              "        out[get_group_id(0)] = t[0];\n"
                              "}\n";
    enum { LS = 256, GROUPS = 3, N = LS * GROUPS };
    unsetenv("KILN_BARRIER_STRATEGY");
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = ct_build_dumped_ir(src, NULL, "optimized", &p, &log);
    CHECK(ir && p);
    free(log);
    char *fn = ct_wg_function(ir, "tree");
    CHECK(fn);
    size_t blocks = blocks_with(fn, "fadd <");
    printf("kiln.wg.tree: vector adds in %zu blocks\n", blocks);
    CHECK(blocks >= 2);
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = ct_find_kernel(p, "tree");
    CHECK(k);
    static float in[N], out[GROUPS];
    static _Alignas(KILN_LOCAL_ALIGN) float arena[LS];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 7);
    float *pin = in, *pout = out;
    size_t local_offset = 0, off = 0, gs = N, ls = LS;
    void *args[] = {&pin, &pout, &local_offset};
    memset(out, 0xff, sizeof(out));
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, arena);
    for (int g = 0; g < GROUPS; g++) {
        float want = 0.0f;
        for (int i = g * LS; i < (g + 1) * LS; i++)
            want += in[i];
        if (out[g] != want) {
            fprintf(stderr, "group %d summed to %g, want %g\n", g, (double)out[g], (double)want);
            return 1;
        }
    }
    ct_cc->destroy(p);
    return 0;
}

const struct ct_test ct_tests[] = {
    {"narrow_loops", test_narrow_loops},
    {"narrow_loops_int", test_narrow_loops_int},
    {"outer_nbody", test_outer_nbody},
    {"outer_loops", test_outer_loops},
    {"strided_loops", test_strided_loops},
    {"wrap_split", test_wrap_split},
    {"outer_consecutive", test_outer_consecutive},
    {"clamp_split", test_clamp_split},
    {"clamp_split_wide", test_clamp_split_wide},
    {"outer_jam", test_outer_jam},
    {"pair_loops", test_pair_loops},
    {"stray_loop_ids", test_stray_loop_ids},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
