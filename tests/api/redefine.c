/*
 * A kernel that defines its own function under a builtin's name and signature: either it
 * builds and calls its own function, or it fails to build with an error in the build log.
 * Never may it build and run something else, or nothing. Each case is tried as a plain C
 * function and as an overloadable one (whose mangled name is the library builtin's), at
 * CL1.2 and CL3.0, plain, not inlined, inline and static. The same holds for an overload of a
 * builtin's name with other parameters (the barriers'). An inline overloadable definition once gave
 * way to the library's builtin at link time (2-link/link_library.c).
 */
#include "kiln_test.h"

#include <stdbool.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct redefinition {
    const char *what;
    const char *definition; /* "%s" where the attribute goes */
    const char *call; /* an expression whose value is 42 when the kernel's own function runs */
};

static const struct redefinition cases[] = {
    {"mad", "%s float mad(float a, float b, float c) { return 42.0f; }",
     "(int)mad(1.0f, 2.0f, 3.0f)"},
    {"sin", "%s float sin(float x) { return 42.0f; }", "(int)sin(0.0f)"},
    {"abs_diff", "%s uint abs_diff(int a, int b) { return 42u; }", "(int)abs_diff(1, 2)"},
    {"max", "%s int max(int a, int b) { return 42; }", "max(1, 2)"},
    {"get_global_id", "%s size_t get_global_id(uint d) { return 42; }", "(int)get_global_id(0)"},
    {"get_local_size", "%s size_t get_local_size(uint d) { return 42; }", "(int)get_local_size(0)"},
    {"get_local_id", "%s size_t get_local_id(uint d) { return 42; }", "(int)get_local_id(0)"},
    {"get_group_id", "%s size_t get_group_id(uint d) { return 42; }", "(int)get_group_id(0)"},
    {"get_work_dim", "%s uint get_work_dim(void) { return 42; }", "(int)get_work_dim()"},
    {"sqrt", "%s float sqrt(float x) { return 42.0f; }", "(int)sqrt(4.0f)"},
    {"fabs", "%s float fabs(float x) { return 42.0f; }", "(int)fabs(4.0f)"},
    {"fma", "%s float fma(float a, float b, float c) { return 42.0f; }",
     "(int)fma(1.0f, 2.0f, 3.0f)"},
    {"mad4", "%s float4 mad(float4 a, float4 b, float4 c) { return 42.0f; }",
     "(int)mad((float4)1.0f, (float4)2.0f, (float4)3.0f).w"},
    {"dot", "%s float dot(float4 a, float4 b) { return 42.0f; }",
     "(int)dot((float4)1.0f, (float4)2.0f)"},
    {"clamp", "%s int clamp(int a, int b, int c) { return 42; }", "clamp(1, 2, 3)"},
    {"popcount", "%s int popcount(int a) { return 42; }", "popcount(1)"},
    {"convert_int", "%s int convert_int(float a) { return 42; }", "convert_int(1.0f)"},
    {"as_int", "%s int as_int(float a) { return 42; }", "as_int(1.0f)"},
    {"native_sin", "%s float native_sin(float x) { return 42.0f; }", "(int)native_sin(0.0f)"},
    {"isnan", "%s int isnan(float x) { return 42; }", "isnan(0.0f)"},
    {"atomic_add", "%s int atomic_add(volatile global int *p, int v) { return 42; }",
     "atomic_add(out, 1)"},
    {"vload4", "%s float4 vload4(size_t i, const global float *p) { return 42.0f; }",
     "(int)vload4(0, (const global float *)out).x"},
    {"sub_group_reduce_add", "%s int sub_group_reduce_add(int x) { return 42; }",
     "sub_group_reduce_add(1)"},
    {"work_group_reduce_add", "%s int work_group_reduce_add(int x) { return 42; }",
     "work_group_reduce_add(1)"},
    /* Overloads of the barriers, which the work-group stage must not take for barriers. */
    {"barrier overload", "%s void barrier(cl_mem_fence_flags f, global int *out) { *out = 42; }",
     "(barrier(CLK_LOCAL_MEM_FENCE, out), out[0])"},
    {"work_group_barrier overload",
     "%s void work_group_barrier(cl_mem_fence_flags f, global int *out) { *out = 42; }",
     "(work_group_barrier(CLK_LOCAL_MEM_FENCE, out), out[0])"},
};

/*
 * noinline keeps the call in place until the work-group stage; an inline definition (C99
 * §6.7.4) is one the linker could replace with the library's builtin.
 */
static const char *const attributes[] = {"",
                                         "__attribute__((noinline))",
                                         "inline",
                                         "static",
                                         "__attribute__((overloadable))",
                                         "__attribute__((overloadable, noinline))",
                                         "__attribute__((overloadable)) inline"};
static const char *const stds[] = {"-cl-std=CL1.2", "-cl-std=CL3.0"};

/* The build log of `p` (malloc()ed). */
static char *log_of(struct kt_env *env, cl_program p)
{
    size_t n = 0;
    KT_REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n));
    char *log = calloc(1, n + 1);
    KT_REQUIRE(log, "out of memory");
    KT_REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, n, log, NULL));
    return log;
}

static void try_case(struct kt_env *env, const struct redefinition *c, const char *attribute,
                     const char *std, unsigned *own, unsigned *refused)
{
    char definition[256], src[1024];
    snprintf(definition, sizeof(definition), c->definition, attribute);
    snprintf(src, sizeof(src), "%s\nkernel void k(global int *out) { out[0] = %s; }\n", definition,
             c->call);
    cl_int err = 0;
    const char *text = src;
    cl_program p = clCreateProgramWithSource(env->context, 1, &text, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(p, 1, &env->device, std, NULL, NULL);
    char *log = log_of(env, p);
    if (err != CL_SUCCESS) {
        KT_CHECK(err == CL_BUILD_PROGRAM_FAILURE, "%s %s %s: clBuildProgram %d", c->what, attribute,
                 std, err);
        KT_CHECK(strstr(log, "error") != NULL,
                 "%s %s %s: refused without an error in the log: '%s'", c->what, attribute, std,
                 log);
        ++*refused;
    } else {
        int out = -1;
        struct kt_arg args[] = {{KT_INOUT, sizeof(out), &out}};
        /* Two groups of eight work-items, each writing the same word. */
        KT_EXPECT(kt_run_in(env, p, "k", 16, 8, 1, args), CL_SUCCESS);
        KT_CHECK(out == 42, "%s %s %s: built, but the kernel wrote %d, not its own function's 42",
                 c->what, attribute, std, out);
        ++*own;
    }
    free(log);
    clReleaseProgram(p);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    unsigned own = 0, refused = 0;
    for (size_t i = 0; i < COUNT(cases); i++)
        for (size_t a = 0; a < COUNT(attributes); a++)
            for (size_t s = 0; s < COUNT(stds); s++)
                try_case(&env, &cases[i], attributes[a], stds[s], &own, &refused);
    printf("%u builds called their own function, %u were refused with an error\n", own, refused);
    kt_teardown(&env);
    return kt_finish("api/redefine");
}
