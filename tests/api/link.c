/*
 * Separate compilation: clCompileProgram with input headers, clLinkProgram of
 * compiled objects and libraries (-create-library, -enable-link-options), binary
 * round trips of a compiled object and of a library, the program queries of each
 * kind, callbacks, and every error path with its code. Results are checked against
 * the same computation on the host.
 */
#include "kiln_test.h"

#include <stdbool.h>

/* The header both sources include, passed as an input header named "inc/poly.h". */
static const char *header = "#ifndef POLY_H\n"
                            "#define POLY_H\n"
                            "#define POLY_SCALE 3\n"
                            "float poly(float x, int k);\n"
                            "#endif\n";
static const char *header_name = "inc/poly.h";

/* Calls poly(), which only the other source defines. */
static const char *src_kernel = "#include \"inc/poly.h\"\n"
                                "kernel void apply(global const float *in, global float *out,\n"
                                "                  int k) {\n"
                                "  size_t i = get_global_id(0);\n"
                                "  out[i] = poly(in[i], k) * POLY_SCALE;\n"
                                "}\n";

/* The angle form finds input headers too. */
static const char *src_func =
    "#include <inc/poly.h>\n"
    "float poly(float x, int k) { return x * x + (float)k * x + 1.0f; }\n";

/* Needs nothing from elsewhere. */
static const char *src_alone = "kernel void twice(global int *a) {\n"
                               "  a[get_global_id(0)] *= 2;\n"
                               "}\n";

/* A program-scope variable defined in one source and used in another. */
static const char *src_var_def = "constant float scale_k = 3.5f;\n";
static const char *src_var_use = "extern constant float scale_k;\n"
                                 "kernel void use_var(global float *o) {\n"
                                 "  o[get_global_id(0)] = scale_k * (float)get_global_id(0);\n"
                                 "}\n";

/* A barrier in a function of another object: the work-group stage runs after the link. */
static const char *src_rev = "void stage(local int *t, global const int *in);\n"
                             "kernel void rev(global const int *in, global int *out,\n"
                             "                local int *t) {\n"
                             "  stage(t, in);\n"
                             "  size_t l = get_local_id(0), n = get_local_size(0);\n"
                             "  out[get_global_id(0)] = t[n - 1 - l];\n"
                             "}\n";
static const char *src_stage = "void stage(local int *t, global const int *in) {\n"
                               "  t[get_local_id(0)] = in[get_global_id(0)];\n"
                               "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                               "}\n";

enum { N = 200, K = 5 };

static int notified;
static cl_program notified_program;

static void CL_CALLBACK notify(cl_program p, void *user_data)
{
    notified++;
    notified_program = p;
    KT_CHECK(user_data == (void *)&notified, "user_data %p", user_data);
}

static cl_program source(struct kt_env *env, const char *text)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &text, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    return p;
}

static void print_log(struct kt_env *env, cl_program p)
{
    char log[8192] = "";
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
    fprintf(stderr, "build log:\n%s\n", log);
}

/* Compiles `text` with the header; stops the test on failure. */
static cl_program compile(struct kt_env *env, const char *text, const char *options)
{
    cl_program p = source(env, text);
    cl_program h = source(env, header);
    cl_int err = clCompileProgram(p, 1, &env->device, options, 1, &h, &header_name, NULL, NULL);
    if (err != CL_SUCCESS)
        print_log(env, p);
    KT_REQUIRE(err == CL_SUCCESS, "clCompileProgram: %d", err);
    clReleaseProgram(h);
    return p;
}

static cl_program link2(struct kt_env *env, cl_program a, cl_program b, const char *options,
                        cl_int want)
{
    cl_program in[2] = {a, b};
    cl_int err = CL_INVALID_VALUE;
    cl_program p = clLinkProgram(env->context, 0, NULL, options, b ? 2 : 1, in, NULL, NULL, &err);
    if (err != want && p)
        print_log(env, p);
    KT_REQUIRE(err == want, "clLinkProgram \"%s\": %d, want %d", options, err, want);
    return p;
}

static cl_program_binary_type binary_type(struct kt_env *env, cl_program p)
{
    cl_program_binary_type t = 0xdead;
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BINARY_TYPE, sizeof(t), &t, NULL),
              CL_SUCCESS);
    return t;
}

static cl_build_status build_status(struct kt_env *env, cl_program p)
{
    cl_build_status s = 0x7777;
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS, sizeof(s), &s, NULL),
              CL_SUCCESS);
    return s;
}

static bool log_has(struct kt_env *env, cl_program p, const char *what)
{
    char log[8192] = "";
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL),
              CL_SUCCESS);
    return strstr(log, what) != NULL;
}

static void check_options(struct kt_env *env, cl_program p, const char *want)
{
    char opts[256] = "?";
    KT_EXPECT(
        clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_OPTIONS, sizeof(opts), opts, NULL),
        CL_SUCCESS);
    KT_CHECK(strcmp(opts, want) == 0, "options '%s', want '%s'", opts, want);
}

/* A compiled object or library: no kernels, no kernel queries. */
static void check_not_executable(cl_program p)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "apply", &err);
    KT_CHECK(k == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel: %d", err);
    size_t n = 1234;
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n, NULL),
              CL_INVALID_PROGRAM_EXECUTABLE);
    KT_CHECK(n == 1234, "CL_PROGRAM_NUM_KERNELS written on failure");
    cl_kernel ks[2];
    cl_uint nk = 77;
    KT_EXPECT(clCreateKernelsInProgram(p, 2, ks, &nk), CL_INVALID_PROGRAM_EXECUTABLE);
    KT_CHECK(nk == 77, "clCreateKernelsInProgram wrote %u", nk);
}

/* Runs apply from the linked program p and checks it against the host. */
static void run_apply(struct kt_env *env, cl_program p)
{
    float in[N], out[N];
    int k = K;
    for (int i = 0; i < N; i++) {
        in[i] = (float)i * 0.25f - 10.0f;
        out[i] = -1.0f;
    }
    struct kt_arg args[] = {
        {KT_IN, sizeof(in), in},
        {KT_OUT, sizeof(out), out},
        {KT_VALUE, sizeof(k), &k},
    };
    KT_EXPECT(kt_run_in(env, p, "apply", N, 0, 3, args), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        /* Every value here is exact in float, whatever the order of evaluation. */
        float x = in[i];
        float want = (x * x + (float)k * x + 1.0f) * 3.0f;
        if (out[i] != want && bad++ < 5)
            KT_CHECK(0, "apply[%d] = %g, want %g", i, out[i], want);
    }
    KT_CHECK(bad == 0, "%d wrong results", bad);
}

static unsigned char *get_binary(cl_program p, size_t *size)
{
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL), CL_SUCCESS);
    KT_REQUIRE(*size > 0, "binary size 0");
    unsigned char *bin = malloc(*size);
    KT_REQUIRE(bin, "malloc");
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL), CL_SUCCESS);
    return bin;
}

static cl_program reload(struct kt_env *env, cl_program p)
{
    size_t size;
    unsigned char *bin = get_binary(p, &size);
    cl_int err, status = 1;
    const unsigned char *bins[] = {bin};
    cl_program q =
        clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins, &status, &err);
    KT_REQUIRE(err == CL_SUCCESS && status == CL_SUCCESS, "clCreateProgramWithBinary: %d, %d", err,
               status);
    free(bin);
    return q;
}

static void test_compile_link(struct kt_env *env)
{
    cl_bool linker = CL_FALSE;
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_LINKER_AVAILABLE, sizeof(linker), &linker, NULL),
        CL_SUCCESS);
    KT_CHECK(linker == CL_TRUE, "CL_DEVICE_LINKER_AVAILABLE is false");

    cl_program a = compile(env, src_kernel, "-DUNUSED=1 -cl-std=CL1.2");
    cl_program b = compile(env, src_func, "-cl-no-subgroup-ifp -g -cl-mad-enable");
    KT_CHECK(binary_type(env, a) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "type %#x",
             (unsigned)binary_type(env, a));
    KT_CHECK(build_status(env, a) == CL_BUILD_SUCCESS, "status %d", build_status(env, a));
    check_options(env, a, "-DUNUSED=1 -cl-std=CL1.2");
    check_not_executable(a);

    /* Callback form: called once, with the new program, before clLinkProgram returns. */
    cl_program in[2] = {a, b};
    cl_int err = CL_INVALID_VALUE;
    notified = 0;
    cl_program p = clLinkProgram(env->context, 1, &env->device, "-cl-denorms-are-zero", 2, in,
                                 notify, &notified, &err);
    KT_REQUIRE(err == CL_SUCCESS && p, "clLinkProgram: %d", err);
    KT_CHECK(notified == 1 && notified_program == p, "callback called %d times", notified);
    KT_CHECK(binary_type(env, p) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "linked type %#x",
             (unsigned)binary_type(env, p));
    KT_CHECK(build_status(env, p) == CL_BUILD_SUCCESS, "linked status");
    check_options(env, p, "-cl-denorms-are-zero");
    char names[64] = "";
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL), CL_SUCCESS);
    KT_CHECK(strcmp(names, "apply") == 0, "kernel names '%s'", names);
    run_apply(env, p);
    clReleaseProgram(p);

    /* The objects can be linked again, in the other order, with math options. */
    p = link2(env, b, a, "-cl-fast-relaxed-math -cl-no-subgroup-ifp", CL_SUCCESS);
    run_apply(env, p);
    clReleaseProgram(p);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static void test_library(struct kt_env *env)
{
    cl_program a = compile(env, src_kernel, NULL);
    cl_program b = compile(env, src_func, NULL);
    cl_program lib = link2(env, b, NULL, "-create-library", CL_SUCCESS);
    KT_CHECK(binary_type(env, lib) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "library type %#x",
             (unsigned)binary_type(env, lib));
    KT_CHECK(build_status(env, lib) == CL_BUILD_SUCCESS, "library status");
    check_options(env, lib, "-create-library");
    check_not_executable(lib);
    cl_program p = link2(env, lib, a, "", CL_SUCCESS);
    run_apply(env, p);
    clReleaseProgram(p);

    /* A library of a library and an object, with link options enabled. */
    cl_program lib2 = link2(env, lib, a, "-create-library -enable-link-options", CL_SUCCESS);
    KT_CHECK(binary_type(env, lib2) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "library type");
    p = link2(env, lib2, NULL, "-cl-unsafe-math-optimizations -cl-finite-math-only", CL_SUCCESS);
    run_apply(env, p);
    clReleaseProgram(p);
    clReleaseProgram(lib2);
    clReleaseProgram(lib);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static void test_binaries(struct kt_env *env)
{
    cl_program a = compile(env, src_kernel, NULL);
    cl_program b = compile(env, src_func, NULL);

    /* A compiled object through its binary. */
    cl_program a2 = reload(env, a);
    KT_CHECK(binary_type(env, a2) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "reloaded type %#x",
             (unsigned)binary_type(env, a2));
    KT_CHECK(build_status(env, a2) == CL_BUILD_NONE, "reloaded status");
    check_not_executable(a2);
    cl_program p = link2(env, a2, b, NULL, CL_SUCCESS);
    run_apply(env, p);
    clReleaseProgram(p);

    /* A library through its binary. */
    cl_program lib = link2(env, b, NULL, "-create-library", CL_SUCCESS);
    cl_program lib2 = reload(env, lib);
    KT_CHECK(binary_type(env, lib2) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "reloaded library type");
    p = link2(env, a2, lib2, "", CL_SUCCESS);
    run_apply(env, p);
    /* The executable's binary is an executable again. */
    cl_program p2 = reload(env, p);
    KT_CHECK(binary_type(env, p2) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "reloaded executable");
    KT_EXPECT(clBuildProgram(p2, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    run_apply(env, p2);
    clReleaseProgram(p2);
    clReleaseProgram(p);

    /* clBuildProgram of a complete compiled object's binary links it into an executable. */
    cl_program c = source(env, src_alone);
    KT_EXPECT(clCompileProgram(c, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_program c2 = reload(env, c);
    KT_EXPECT(clBuildProgram(c2, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    KT_CHECK(binary_type(env, c2) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "built object type");
    int v[N], want[N];
    for (int i = 0; i < N; i++) {
        v[i] = i * 7 - 300;
        want[i] = v[i] * 2;
    }
    struct kt_arg args[] = {{KT_INOUT, sizeof(v), v}};
    KT_EXPECT(kt_run_in(env, c2, "twice", N, 0, 1, args), CL_SUCCESS);
    KT_CHECK(memcmp(v, want, sizeof(v)) == 0, "twice gave wrong results");
    clReleaseProgram(c2);
    clReleaseProgram(c);

    /* An incomplete object's binary fails to build, names the function, and stays linkable. */
    cl_program a3 = reload(env, a);
    KT_EXPECT(clBuildProgram(a3, 0, NULL, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    KT_CHECK(build_status(env, a3) == CL_BUILD_ERROR, "status of a failed build");
    KT_CHECK(log_has(env, a3, "undefined function 'poly'"), "log names no undefined poly");
    KT_CHECK(binary_type(env, a3) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "type %#x",
             (unsigned)binary_type(env, a3));
    p = link2(env, a3, b, NULL, CL_SUCCESS);
    run_apply(env, p);
    clReleaseProgram(p);
    clReleaseProgram(a3);
    clReleaseProgram(lib2);
    clReleaseProgram(lib);
    clReleaseProgram(a2);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static void test_variables(struct kt_env *env)
{
    cl_program def = source(env, src_var_def), use = source(env, src_var_use);
    KT_EXPECT(clCompileProgram(def, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clCompileProgram(use, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_program p = link2(env, use, def, NULL, CL_SUCCESS);
    float out[N];
    struct kt_arg args[] = {{KT_OUT, sizeof(out), out}};
    KT_EXPECT(kt_run_in(env, p, "use_var", N, 0, 1, args), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != 3.5f * (float)i;
    KT_CHECK(bad == 0, "%d wrong results through the shared variable", bad);
    clReleaseProgram(p);
    /* Undefined and defined twice. */
    cl_int err;
    p = clLinkProgram(env->context, 0, NULL, NULL, 1, &use, NULL, NULL, &err);
    KT_CHECK(p && err == CL_LINK_PROGRAM_FAILURE, "undefined variable: %p, %d", (void *)p, err);
    if (p) {
        KT_CHECK(log_has(env, p, "undefined variable 'scale_k'"), "log names no scale_k");
        clReleaseProgram(p);
    }
    cl_program two[3] = {use, def, def};
    p = clLinkProgram(env->context, 0, NULL, NULL, 3, two, NULL, NULL, &err);
    KT_CHECK(p && err == CL_LINK_PROGRAM_FAILURE, "duplicate variable: %p, %d", (void *)p, err);
    if (p) {
        KT_CHECK(log_has(env, p, "duplicate definition of variable 'scale_k'"),
                 "log names no duplicate scale_k");
        clReleaseProgram(p);
    }
    clReleaseProgram(use);
    clReleaseProgram(def);
}

static void test_barrier(struct kt_env *env)
{
    enum { G = 256, L = 64 };
    cl_program r = source(env, src_rev), st = source(env, src_stage);
    KT_EXPECT(clCompileProgram(r, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clCompileProgram(st, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_program p = link2(env, r, st, NULL, CL_SUCCESS);
    int in[G], out[G];
    for (int i = 0; i < G; i++) {
        in[i] = i * 3 + 1;
        out[i] = -1;
    }
    struct kt_arg args[] = {
        {KT_IN, sizeof(in), in}, {KT_OUT, sizeof(out), out}, {KT_LOCAL, L * sizeof(int), NULL}};
    KT_EXPECT(kt_run_in(env, p, "rev", G, L, 3, args), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < G; i++)
        bad += out[i] != in[(i / L) * L + (L - 1 - i % L)];
    KT_CHECK(bad == 0, "%d work-items read the wrong value after the barrier", bad);
    clReleaseProgram(p);
    clReleaseProgram(st);
    clReleaseProgram(r);
}

/* Enqueues twice over 200 work-items in groups of 16 (the last one partial). */
static cl_int enqueue_partial(struct kt_env *env, cl_program p)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "twice", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = N, local = 16;
    err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    /* The specification gives argument information to programs from source only. */
    char name[32];
    KT_EXPECT(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL),
              CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    return err;
}

/* -cl-uniform-work-group-size given to clCompileProgram holds in the linked program. */
static void test_uniform(struct kt_env *env)
{
    cl_program c = source(env, src_alone);
    KT_EXPECT(clCompileProgram(c, 0, NULL, "-cl-std=CL2.0 -cl-uniform-work-group-size", 0, NULL,
                               NULL, NULL, NULL),
              CL_SUCCESS);
    cl_program p = link2(env, c, NULL, NULL, CL_SUCCESS);
    KT_EXPECT(enqueue_partial(env, p), CL_INVALID_WORK_GROUP_SIZE);
    clReleaseProgram(p);
    KT_EXPECT(clCompileProgram(c, 0, NULL, "-cl-std=CL2.0 -cl-kernel-arg-info", 0, NULL, NULL, NULL,
                               NULL),
              CL_SUCCESS);
    p = link2(env, c, NULL, NULL, CL_SUCCESS);
    KT_EXPECT(enqueue_partial(env, p), CL_SUCCESS);
    clReleaseProgram(p);
    clReleaseProgram(c);
}

static void test_compile_errors(struct kt_env *env)
{
    cl_program p = source(env, src_kernel);
    cl_program h = source(env, header);
    const char *names[] = {header_name};
    const char *null_name[] = {NULL};
    notified = 0;
    KT_EXPECT(clCompileProgram(NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    KT_EXPECT(clCompileProgram(p, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, &env->device, NULL, 0, NULL, NULL, NULL, NULL),
              CL_INVALID_VALUE);
    cl_device_id not_device = (cl_device_id)env->context;
    KT_EXPECT(clCompileProgram(p, 1, &not_device, NULL, 0, NULL, NULL, NULL, NULL),
              CL_INVALID_DEVICE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 0, &h, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 0, NULL, names, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, &h, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, NULL, names, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, &h, null_name, NULL, NULL), CL_INVALID_VALUE);
    cl_program not_program = (cl_program)env->context;
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, &not_program, names, NULL, NULL),
              CL_INVALID_PROGRAM);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, &notified), CL_INVALID_VALUE);
    KT_CHECK(notified == 0, "callback called for a refused compilation");
    /* None of that touched the program. */
    KT_CHECK(binary_type(env, p) == CL_PROGRAM_BINARY_TYPE_NONE, "type after refusals");
    KT_CHECK(build_status(env, p) == CL_BUILD_NONE, "status after refusals");

    KT_EXPECT(clCompileProgram(p, 0, NULL, "-bogus-option", 1, &h, names, notify, &notified),
              CL_INVALID_COMPILER_OPTIONS);
    KT_CHECK(notified == 1, "callback called %d times", notified);
    KT_CHECK(log_has(env, p, "-bogus-option"), "the log does not name the option");
    /* Without the header the include fails. */
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, notify, &notified),
              CL_COMPILE_PROGRAM_FAILURE);
    KT_CHECK(notified == 2, "callback called %d times", notified);
    KT_CHECK(build_status(env, p) == CL_BUILD_ERROR, "status after a failed compilation");
    KT_CHECK(binary_type(env, p) == CL_PROGRAM_BINARY_TYPE_NONE, "type after a failure");
    KT_CHECK(log_has(env, p, "inc/poly.h"), "the log does not name the missing header");
    size_t size = 99;
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL), CL_SUCCESS);
    KT_CHECK(size == 0, "binary size %zu after a failed compilation", size);

    /* A program with kernels attached, and one with no source. */
    cl_program built = kt_build(env, src_alone, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(built, "twice", &err);
    KT_EXPECT(err, CL_SUCCESS);
    KT_EXPECT(clCompileProgram(built, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    KT_CHECK(binary_type(env, built) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "type changed");
    cl_program from_bin = reload(env, built);
    KT_EXPECT(clCompileProgram(from_bin, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    /* A header program with no source. */
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, &from_bin, names, NULL, NULL),
              CL_INVALID_OPERATION);
    /* Specialisation constants, beside compilation in program.c: the device takes no IL. */
    cl_uint spec = 1;
    KT_EXPECT(clSetProgramSpecializationConstant(built, 0, sizeof(spec), &spec),
              CL_INVALID_OPERATION);
    KT_EXPECT(clSetProgramSpecializationConstant(NULL, 0, sizeof(spec), &spec), CL_INVALID_PROGRAM);
    clReleaseKernel(k);
    clReleaseProgram(from_bin);
    clReleaseProgram(built);
    clReleaseProgram(h);
    clReleaseProgram(p);
}

/* A refused link: NULL, the code in errcode_ret, no callback. */
static void link_refused(cl_context ctx, cl_uint num_devices, const cl_device_id *devices,
                         const char *options, cl_uint n, const cl_program *in, void *user_data,
                         cl_int want)
{
    cl_int err = CL_SUCCESS;
    notified = 0;
    cl_program p = clLinkProgram(ctx, num_devices, devices, options, n, in,
                                 user_data ? NULL : notify, user_data, &err);
    KT_CHECK(p == NULL && err == want, "clLinkProgram: %p, %d, want %d", (void *)p, err, want);
    KT_CHECK(notified == 0, "callback called for a refused link");
    if (p)
        clReleaseProgram(p);
    /* errcode_ret may be NULL. */
    p = clLinkProgram(ctx, num_devices, devices, options, n, in, NULL, user_data, NULL);
    KT_CHECK(p == NULL, "clLinkProgram without errcode_ret gave a program");
}

static void test_link_errors(struct kt_env *env)
{
    cl_program a = compile(env, src_kernel, NULL);
    cl_program b = compile(env, src_func, NULL);
    cl_program ab[2] = {a, b};
    cl_device_id not_device = (cl_device_id)env->context;
    cl_program not_program = (cl_program)env->context;

    link_refused(NULL, 0, NULL, NULL, 2, ab, NULL, CL_INVALID_CONTEXT);
    link_refused(env->context, 1, NULL, NULL, 2, ab, NULL, CL_INVALID_VALUE);
    link_refused(env->context, 0, &env->device, NULL, 2, ab, NULL, CL_INVALID_VALUE);
    link_refused(env->context, 1, &not_device, NULL, 2, ab, NULL, CL_INVALID_DEVICE);
    link_refused(env->context, 0, NULL, NULL, 0, ab, NULL, CL_INVALID_VALUE);
    link_refused(env->context, 0, NULL, NULL, 2, NULL, NULL, CL_INVALID_VALUE);
    link_refused(env->context, 0, NULL, NULL, 2, ab, &notified, CL_INVALID_VALUE);
    cl_program with_bad[2] = {a, not_program};
    link_refused(env->context, 0, NULL, NULL, 2, with_bad, NULL, CL_INVALID_PROGRAM);
    link_refused(env->context, 0, NULL, "-enable-link-options", 2, ab, NULL,
                 CL_INVALID_LINKER_OPTIONS);
    link_refused(env->context, 0, NULL, "-create-library -bogus", 2, ab, NULL,
                 CL_INVALID_LINKER_OPTIONS);
    /* -cl-opt-disable is a compiler option, not a link option. */
    link_refused(env->context, 0, NULL, "-cl-opt-disable", 2, ab, NULL, CL_INVALID_LINKER_OPTIONS);

    /* Inputs that are not compiled objects or libraries. */
    cl_program exe = kt_build(env, src_alone, NULL);
    cl_program with_exe[2] = {a, exe};
    link_refused(env->context, 0, NULL, NULL, 2, with_exe, NULL, CL_INVALID_OPERATION);
    cl_program fresh = source(env, src_func);
    cl_program with_fresh[2] = {a, fresh};
    link_refused(env->context, 0, NULL, NULL, 2, with_fresh, NULL, CL_INVALID_OPERATION);
    cl_program exe_bin = reload(env, exe);
    cl_program with_exe_bin[2] = {exe_bin, b};
    link_refused(env->context, 0, NULL, NULL, 2, with_exe_bin, NULL, CL_INVALID_OPERATION);
    /* An input of another context. */
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    link_refused(other, 0, NULL, NULL, 2, ab, NULL, CL_INVALID_PROGRAM);
    clReleaseContext(other);

    /* Undefined function: a program with the log, CL_LINK_PROGRAM_FAILURE, callback. */
    notified = 0;
    err = CL_SUCCESS;
    cl_program p = clLinkProgram(env->context, 0, NULL, NULL, 1, &a, notify, &notified, &err);
    KT_CHECK(p && err == CL_LINK_PROGRAM_FAILURE, "undefined: %p, %d", (void *)p, err);
    KT_CHECK(notified == 1 && notified_program == p, "callback called %d times", notified);
    if (p) {
        KT_CHECK(build_status(env, p) == CL_BUILD_ERROR, "status of a failed link");
        KT_CHECK(binary_type(env, p) == CL_PROGRAM_BINARY_TYPE_NONE, "type of a failed link");
        KT_CHECK(log_has(env, p, "undefined function 'poly'"), "log names no undefined poly");
        cl_kernel k = clCreateKernel(p, "apply", &err);
        KT_CHECK(!k && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed link: %d", err);
        clReleaseProgram(p);
    }
    /* A library may leave it undefined. */
    cl_program lib = link2(env, a, NULL, "-create-library", CL_SUCCESS);
    /* Duplicate definition. */
    p = link2(env, b, lib, NULL, CL_SUCCESS);
    clReleaseProgram(p);
    cl_program bb[2] = {b, b};
    p = clLinkProgram(env->context, 0, NULL, NULL, 2, bb, NULL, NULL, &err);
    KT_CHECK(p && err == CL_LINK_PROGRAM_FAILURE, "duplicate: %p, %d", (void *)p, err);
    if (p) {
        KT_CHECK(log_has(env, p, "duplicate definition of function 'poly'"),
                 "log names no duplicate poly");
        clReleaseProgram(p);
    }
    clReleaseProgram(lib);
    clReleaseProgram(exe_bin);
    clReleaseProgram(fresh);
    clReleaseProgram(exe);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    test_compile_link(&env);
    test_library(&env);
    test_binaries(&env);
    test_uniform(&env);
    test_variables(&env);
    test_barrier(&env);
    test_compile_errors(&env);
    test_link_errors(&env);
    kt_teardown(&env);
    return kt_finish("api/link");
}
