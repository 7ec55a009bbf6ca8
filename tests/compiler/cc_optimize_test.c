/*
 * Compiler tests of the optimisation stage (5-optimize): after O3, builtins that stay
 * vectorisable (docs/compiler.md, "Stages"), and which kernels read data their column of
 * groups shares (column_reuse.c). That Kiln's parts of O3 are LLVM's is
 * compiler/o3_pipeline (o3_pipeline.py).
 *
 * Usage: kiln-cc-optimize-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

/*
 * The integer, common and relational builtins are straight-line code: a kernel calling
 * their scalar forms still has its work-item loop vectorised, with the vector forms of
 * the intrinsics they use, and no library call is left.
 */
static int test_builtins_vectorise(void)
{
    static const char src[] =
        "kernel void ints(global int *a, global const int *b, global uint *c,\n"
        "                 global long *d, global const long *e)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    int x = a[i], y = b[i];\n"
        "    a[i] = popcount(x) + clz(y) + ctz(x) + rotate(x, y) + mul_hi(x, y) + add_sat(x, y)\n"
        "           + hadd(x, y) + rhadd(x, y) + mad_sat(x, y, x) + clamp(x, -5, 7) + max(x, y)\n"
        "           + min(x, y) + mad24(x, y, x) + mul24(x, y) + mad_hi(x, y, x);\n"
        "    c[i] = abs(x) + abs_diff(x, y) + sub_sat((uint)x, (uint)y)\n"
        "           + upsample((ushort)x, (ushort)y);\n"
        "    d[i] = mul_hi(d[i], e[i]) + mad_sat(d[i], e[i], (long)x);\n"
        "}\n"
        "kernel void fps(global float *a, global const float *b, global int *r)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x = a[i], y = b[i];\n"
        "    a[i] = clamp(x, 0.0f, 1.0f) + sign(x) + step(y, x) + smoothstep(0.0f, 1.0f, x)\n"
        "           + mix(x, y, 0.5f) + degrees(x) + radians(y) + select(x, y, isnan(x))\n"
        "           + bitselect(x, y, 1.0f);\n"
        "    r[i] = isnormal(x) + isless(x, y) + signbit(y) + isinf(x) + isfinite(y)\n"
        "           + islessgreater(x, y) + isunordered(x, y);\n"
        "}\n";
    static const char *const ints_ops[] = {"@llvm.ctpop.v", "@llvm.ctlz.v",     "@llvm.cttz.v",
                                           "@llvm.fshl.v",  "@llvm.sadd.sat.v", "@llvm.usub.sat.v",
                                           "@llvm.smax.v",  "@llvm.abs.v"};
    static const char *const fps_ops[] = {"@llvm.maxnum.v", "@llvm.minnum.v", "fcmp olt <",
                                          "x float>"};
    char *text = ct_dumped_ir(src, "-cl-std=CL3.0", "optimized");
    CHECK(text);
    static const char *const wrappers[] = {"define void @kiln.wg.ints(",
                                           "define void @kiln.wg.fps("};
    for (size_t w = 0; w < 2; w++) {
        char *start = strstr(text, wrappers[w]);
        CHECK(start);
        char *end = strstr(start, "\n}\n");
        CHECK(end);
        *end = '\0';
        const char *const *ops = w == 0 ? ints_ops : fps_ops;
        size_t n =
            w == 0 ? sizeof(ints_ops) / sizeof(ints_ops[0]) : sizeof(fps_ops) / sizeof(fps_ops[0]);
        for (size_t o = 0; o < n; o++) {
            if (!strstr(start, ops[o]))
                fprintf(stderr, "%s has no %s\n", wrappers[w], ops[o]);
            CHECK(strstr(start, ops[o]));
        }
        CHECK(!strstr(start, "call i32 @_Z") && !strstr(start, "call float @_Z"));
        *end = '\n';
    }
    free(text);
    return 0;
}

/*
 * column_reuse: set where a global load walks through data in a loop with no part of its
 * address from the group's row (a multiply's column of B, tiled or not, a row vector read by
 * every row); clear where every load depends on the row (a stencil, a transpose), where the
 * address comes from memory (a gather through an index buffer), and without O3.
 */
static int test_column_reuse(void)
{
    static const char src[] =
        "#define T 16\n"
        "kernel __attribute__((reqd_work_group_size(T, T, 1)))\n"
        "void tiled(int n, global const float *a, global const float *b, global float *c) {\n"
        "  local float at[T][T], bt[T][T];\n"
        "  int col = get_global_id(0), row = get_global_id(1);\n"
        "  int lc = get_local_id(0), lr = get_local_id(1); float acc = 0;\n"
        "  for (int t = 0; t < n; t += T) {\n"
        "    at[lr][lc] = a[row * n + t + lc]; bt[lr][lc] = b[(t + lr) * n + col];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int k = 0; k < T; k++) acc += at[lr][k] * bt[k][lc];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE); }\n"
        "  c[row * n + col] = acc; }\n"
        "kernel void naive(int n, global const float *a, global const float *b, global float *c) "
        "{\n"
        "  int col = get_global_id(0), row = get_global_id(1); float acc = 0;\n"
        "  for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];\n"
        "  c[row * n + col] = acc; }\n"
        "kernel void scale_rows(int n, global const float *v, global float *m) {\n"
        "  int x = get_global_id(0), y = get_global_id(1); m[y * n + x] *= v[x]; }\n"
        "kernel void blur(int n, global const float *a, global float *b) {\n"
        "  int x = get_global_id(0), y = get_global_id(1);\n"
        "  int l = max(x - 1, 0), r = min(x + 1, n - 1), u = max(y - 1, 0), d = min(y + 1, n - "
        "1);\n"
        "  b[y * n + x] = (a[u * n + x] + a[d * n + x] + a[y * n + l] + a[y * n + r]) * 0.25f; }\n"
        "kernel void transpose(int n, global const float *a, global float *b) {\n"
        "  int x = get_global_id(0), y = get_global_id(1); b[x * n + y] = a[y * n + x]; }\n"
        "kernel void gather(int n, global const int *idx, global const float *a, global float *b) "
        "{\n"
        "  int x = get_global_id(0), y = get_global_id(1);\n"
        "  float s = 0; for (int k = 0; k < n; k++) s += a[idx[y * n + k] + x];\n"
        "  b[y * n + x] = s; }\n";
    static const struct {
        const char *name;
        unsigned want;
    } kernels[] = {{"tiled", 1}, {"naive", 1},     {"scale_rows", 1},
                   {"blur", 0},  {"transpose", 0}, {"gather", 0}};
    for (int o3 = 1; o3 >= 0; o3--) {
        struct kiln_cc_program *p = ct_build_ok(src, o3 ? NULL : "-cl-opt-disable");
        CHECK(p);
        for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
            const struct kiln_cc_kernel *k = ct_find_kernel(p, kernels[i].name);
            CHECK(k);
            unsigned want = o3 ? kernels[i].want : 0;
            if (k->column_reuse != want)
                fprintf(stderr, "%s%s: column_reuse %u, want %u\n", kernels[i].name,
                        o3 ? "" : " (-cl-opt-disable)", k->column_reuse, want);
            CHECK(k->column_reuse == want);
        }
        ct_cc->destroy(p);
    }
    return 0;
}

const struct ct_test ct_tests[] = {
    {"builtins_vectorise", test_builtins_vectorise},
    {"column_reuse", test_column_reuse},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
