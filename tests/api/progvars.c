/*
 * Program-scope global variables in OpenCL C 3.0 (__opencl_c_program_scope_global_variables):
 * the device reports the feature and its limits; variables, initialised or not, at program
 * scope and `static` in functions, keep their values from one launch to the next and from one
 * kernel to another, belong to their program alone, start from their initialisers in a
 * program loaded from a binary or from the kernel cache, are counted by
 * CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, and one larger than
 * CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE fails the build with a reason.
 */
#include "kiln_test.h"

#include <stdbool.h>

enum { N = 64 };

static const char *src =
    "global int counter = 5;\n"
    "global float table[N];\n"
    "global int seeds[4] = {1, 2, 3, 4};\n"
    "global float4 vec = (float4)(0.5f, 1.5f, 2.5f, 3.5f);\n"
    "global int *global where = &counter;\n"
    "int bump_calls(void) {\n"
    "  static global int calls;\n"
    "  return ++calls;\n"
    "}\n"
    "kernel void bump(void) {\n"
    "  if (get_global_id(0) == 0) {\n"
    "    counter += 1;\n"
    "    bump_calls();\n"
    "  }\n"
    "  table[get_global_id(0)] += (float)get_global_id(0);\n"
    "}\n"
    "kernel void read(global int *out, global float *t) {\n"
    "  size_t i = get_global_id(0);\n"
    "  t[i] = table[i];\n"
    "  if (i == 0) {\n"
    "    out[0] = counter;\n"
    "    out[1] = *where;\n"
    "    out[2] = seeds[0] + seeds[1] * 10 + seeds[2] * 100 + seeds[3] * 1000;\n"
    "    out[3] = (int)(vec.x * 2) + (int)(vec.w * 2) * 10;\n"
    "    out[4] = bump_calls() - 1;\n"
    "    seeds[3] = 9;\n"
    "  }\n"
    "}\n";

static const char *options = "-cl-std=CL3.0 -DN=64";

struct state {
    int out[5];
    float table[N];
};

static void read_state(struct kt_env *env, cl_program p, struct state *s)
{
    memset(s, 0, sizeof(*s));
    struct kt_arg args[] = {{KT_OUT, sizeof(s->out), s->out}, {KT_OUT, sizeof(s->table), s->table}};
    KT_EXPECT(kt_run_in(env, p, "read", N, 0, 2, args), CL_SUCCESS);
}

static void bump(struct kt_env *env, cl_program p, unsigned times)
{
    for (unsigned i = 0; i < times; i++)
        KT_EXPECT(kt_run_in(env, p, "bump", N, 0, 0, NULL), CL_SUCCESS);
}

/* Checks a program that had `bumps` launches of bump and `reads` of read before this one. */
static void check_state(const struct state *s, unsigned bumps, unsigned reads, const char *what)
{
    KT_CHECK(s->out[0] == 5 + (int)bumps, "%s: counter %d, want %u", what, s->out[0], 5 + bumps);
    KT_CHECK(s->out[1] == s->out[0], "%s: *where %d, counter %d", what, s->out[1], s->out[0]);
    int seeds = reads ? 1 + 20 + 300 + 9000 : 4321;
    KT_CHECK(s->out[2] == seeds, "%s: seeds %d, want %d", what, s->out[2], seeds);
    KT_CHECK(s->out[3] == 71, "%s: vec gave %d, want 71", what, s->out[3]);
    KT_CHECK(s->out[4] == (int)(bumps + reads), "%s: static calls %d, want %u", what, s->out[4],
             bumps + reads);
    for (unsigned i = 0; i < N; i++)
        KT_CHECK(s->table[i] == (float)(i * bumps), "%s: table[%u] = %g, want %u", what, i,
                 s->table[i], i * bumps);
}

static size_t total_size(struct kt_env *env, cl_program p)
{
    size_t total = 12345;
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                    sizeof(total), &total, NULL),
              CL_SUCCESS);
    return total;
}

static void test_reported(struct kt_env *env)
{
    size_t max = 0, preferred = 0;
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(max), &max, NULL),
        CL_SUCCESS);
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
                              sizeof(preferred), &preferred, NULL),
              CL_SUCCESS);
    KT_CHECK(max >= 64 * 1024, "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE %zu, below 64 KiB", max);
    KT_CHECK(preferred >= max, "preferred total %zu below the largest variable %zu", preferred,
             max);
    cl_name_version features[64];
    size_t size = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, sizeof(features), features,
                              &size),
              CL_SUCCESS);
    bool found = false;
    for (size_t i = 0; i < size / sizeof(features[0]); i++)
        found |= strcmp(features[i].name, "__opencl_c_program_scope_global_variables") == 0;
    KT_CHECK(found, "__opencl_c_program_scope_global_variables is not reported");
}

/* Values persist across launches and kernels; a second program has its own. */
static void test_persist(struct kt_env *env)
{
    cl_program a = kt_build(env, src, options);
    cl_program b = kt_build(env, src, options);
    struct state s;
    read_state(env, a, &s);
    check_state(&s, 0, 0, "first read");
    bump(env, a, 3);
    read_state(env, a, &s);
    check_state(&s, 3, 1, "after three bumps");
    read_state(env, b, &s);
    check_state(&s, 0, 0, "second program");
    /* Sum of the variables' sizes: counter, table, seeds, vec, where, calls. */
    size_t want = 4 + 4 * N + 16 + 16 + 8 + 4;
    size_t total = total_size(env, a);
    KT_CHECK(total >= want, "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE %zu, below %zu", total,
             want);
    KT_CHECK(total < want + 256, "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE %zu, far above %zu",
             total, want);

    /* A binary made after launches holds the initial values, not the current ones. */
    size_t bin_size = 0;
    KT_EXPECT(clGetProgramInfo(a, CL_PROGRAM_BINARY_SIZES, sizeof(bin_size), &bin_size, NULL),
              CL_SUCCESS);
    unsigned char *bin = malloc(bin_size);
    KT_REQUIRE(bin, "out of memory");
    KT_EXPECT(clGetProgramInfo(a, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL), CL_SUCCESS);
    cl_int err, status;
    const unsigned char *bins[] = {bin};
    cl_program c =
        clCreateProgramWithBinary(env->context, 1, &env->device, &bin_size, bins, &status, &err);
    KT_REQUIRE(err == CL_SUCCESS && status == CL_SUCCESS, "clCreateProgramWithBinary: %d, %d", err,
               status);
    KT_EXPECT(clBuildProgram(c, 1, &env->device, NULL, NULL, NULL), CL_SUCCESS);
    free(bin);
    KT_CHECK(total_size(env, c) == total, "binary's total size %zu, built %zu", total_size(env, c),
             total);
    read_state(env, c, &s);
    check_state(&s, 0, 0, "program from a binary");
    bump(env, c, 2);
    read_state(env, c, &s);
    check_state(&s, 2, 1, "program from a binary, bumped");
    read_state(env, a, &s);
    check_state(&s, 3, 2, "first program after the binary's launches");
    clReleaseProgram(c);
    clReleaseProgram(b);
    clReleaseProgram(a);

    /* Built again, most likely from the kernel cache: the initial values again. */
    cl_program d = kt_build(env, src, options);
    read_state(env, d, &s);
    check_state(&s, 0, 0, "program built again");
    clReleaseProgram(d);
}

/* No variables, or a compiled object: a total of 0. */
static void test_zero_total(struct kt_env *env)
{
    cl_program p = kt_build(env, "kernel void k(global int *a) { a[0] = 1; }", options);
    KT_CHECK(total_size(env, p) == 0, "a program without variables: total %zu", total_size(env, p));
    clReleaseProgram(p);
    cl_int err;
    cl_program o = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    KT_EXPECT(clCompileProgram(o, 1, &env->device, options, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    KT_CHECK(total_size(env, o) == 0, "a compiled object: total %zu", total_size(env, o));
    clReleaseProgram(o);
}

/* A variable of exactly the largest size works; one byte more fails the build. */
static void test_limit(struct kt_env *env)
{
    size_t max = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(max), &max, NULL));
    static const char *big = "global uchar var[SIZE];\n"
                             "kernel void edge(global uchar *out) {\n"
                             "  var[SIZE - 1 - get_global_id(0)] = (uchar)(get_global_id(0) + 7);\n"
                             "}\n"
                             "kernel void back(global uchar *out) {\n"
                             "  out[get_global_id(0)] = var[SIZE - 1 - get_global_id(0)];\n"
                             "}\n";
    char opts[128];
    snprintf(opts, sizeof(opts), "%s -DSIZE=%zuul", options, max);
    cl_program p = kt_build(env, big, opts);
    KT_CHECK(total_size(env, p) >= max, "total %zu below the variable's %zu", total_size(env, p),
             max);
    unsigned char out[16] = {0};
    struct kt_arg args[] = {{KT_OUT, sizeof(out), out}};
    KT_EXPECT(kt_run_in(env, p, "edge", 16, 0, 1, args), CL_SUCCESS);
    KT_EXPECT(kt_run_in(env, p, "back", 16, 0, 1, args), CL_SUCCESS);
    for (unsigned i = 0; i < 16; i++)
        KT_CHECK(out[i] == i + 7, "the largest variable's byte %zu: %u", max - 1 - i, out[i]);
    clReleaseProgram(p);
    snprintf(opts, sizeof(opts), "%s -DSIZE=%zuul", options, max + 1);
    kt_build_fails(env, big, opts, "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE",
                   "a variable one byte too large");
}

/* OpenCL C 1.2 has only __constant at program scope. */
static void test_cl12(struct kt_env *env)
{
    kt_build_fails(env, "global int x;\nkernel void k(global int *a) { a[0] = x; }",
                   "-cl-std=CL1.2", "global", "a global variable in OpenCL C 1.2");
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    test_reported(&env);
    test_persist(&env);
    test_zero_total(&env);
    test_limit(&env);
    test_cl12(&env);
    kt_teardown(&env);
    return kt_finish("api/progvars");
}
