/*
 * Compiler tests of the optimisation stage (5-optimize): after O3, builtins that stay
 * vectorisable (docs/compiler.md, "Stages"). That Kiln's parts of O3 are LLVM's is
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

const struct ct_test ct_tests[] = {
    {"builtins_vectorise", test_builtins_vectorise},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
