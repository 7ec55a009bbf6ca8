/*
 * A kernel without a flaw builds with an empty build log. The case that drew warnings: 256-
 * and 512-bit vectors (float8, double8, float16) passed to and returned from helper
 * functions that are not inlined, which Clang warned "changes the ABI" for every such
 * argument (kernel-lib/cl-flags.cmake says why none is crossed). The kernels run and their
 * results are checked, at CL1.2 and CL3.0.
 */
#include "kiln_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *src =
    "__attribute__((noinline)) float8 twice8(float8 a) { return a * 2.0f; }\n"
    "__attribute__((noinline)) double8 add8(double8 a, double8 b) { return a + b; }\n"
    "__attribute__((noinline)) float16 mix16(float16 a, float8 b, double16 c) {\n"
    "  return a + (float16)(b, b) + convert_float16(c);\n"
    "}\n"
    "kernel void k(global float *out, float x) {\n"
    "  float8 f = twice8((float8)(x));\n"
    "  double8 d = add8((double8)(1.0), (double8)(x));\n"
    "  float16 h = mix16((float16)(x), f, (double16)(0.5));\n"
    "  out[0] = f.s7 + (float)d.s3 + h.sf;\n"
    "}\n";

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    static const char *const stds[] = {"-cl-std=CL1.2", "-cl-std=CL3.0"};
    for (size_t s = 0; s < COUNT(stds); s++) {
        cl_program p = kt_build(&env, src, stds[s]);
        size_t n = 0;
        KT_REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n));
        char *log = calloc(1, n + 1);
        KT_REQUIRE(log, "out of memory");
        KT_REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, n, log, NULL));
        KT_CHECK(log[0] == '\0', "%s: the build log is not empty:\n%s", stds[s], log);
        free(log);
        /* x = 1.5: f = 3, d = 2.5, h = 1.5 + 3 + 0.5 = 5 */
        float out = 0, x = 1.5f;
        struct kt_arg args[] = {{KT_OUT, sizeof(out), &out}, {KT_VALUE, sizeof(x), &x}};
        KT_EXPECT(kt_run_in(&env, p, "k", 1, 1, 2, args), CL_SUCCESS);
        KT_CHECK(out == 10.5f, "%s: out %g, want 10.5", stds[s], out);
        clReleaseProgram(p);
    }
    kt_teardown(&env);
    return kt_finish("api/build_log");
}
