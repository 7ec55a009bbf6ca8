/*
 * A few helpers shared by the C tests that talk OpenCL through the ICD loader:
 * find Kiln's platform, make a context and queue, check results with a message.
 */
#ifndef KILN_TESTS_KILN_TEST_H
#define KILN_TESTS_KILN_TEST_H

#include <CL/cl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Atomic: tests with several host threads, and event callbacks on Kiln's workers, check too. */
static atomic_int kt_failures;

#define KT_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            kt_failures++;                                                                         \
        }                                                                                          \
    } while (0)

/* Expect an exact status code. */
#define KT_EXPECT(expr, want)                                                                      \
    do {                                                                                           \
        cl_int got_ = (expr);                                                                      \
        KT_CHECK(got_ == (want), "got %d, want %d (%s)", got_, (want), #want);                     \
    } while (0)

/* Stop the test: something it relies on failed. */
#define KT_REQUIRE(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: required: %s: ", __FILE__, __LINE__, #cond);                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Stop the test unless `expr` returns CL_SUCCESS: what follows depends on it. */
#define KT_REQUIRE_OK(expr)                                                                        \
    do {                                                                                           \
        cl_int req_ = (expr);                                                                      \
        KT_REQUIRE(req_ == CL_SUCCESS, "%s: %d", #expr, req_);                                     \
    } while (0)

struct kt_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
};

/* Kiln's platform through the loader; the test fails if the loader does not show it. */
static inline cl_platform_id kt_kiln_platform(void)
{
    cl_platform_id ids[16];
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(16, ids, &n);
    KT_REQUIRE(err == CL_SUCCESS && n > 0, "clGetPlatformIDs: %d, %u platforms", err, n);
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[256] = "";
        clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strcmp(name, "Kiln") == 0)
            return ids[i];
    }
    KT_REQUIRE(0, "the loader lists no platform named Kiln");
    return NULL;
}

static inline void kt_setup(struct kt_env *env, cl_command_queue_properties props)
{
    cl_int err;
    env->platform = kt_kiln_platform();
    err = clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_CPU, 1, &env->device, NULL);
    KT_REQUIRE(err == CL_SUCCESS, "clGetDeviceIDs: %d", err);
    env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, props, 0};
    env->queue = clCreateCommandQueueWithProperties(env->context, env->device, qp, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateCommandQueueWithProperties: %d", err);
}

static inline void kt_teardown(struct kt_env *env)
{
    KT_EXPECT(clReleaseCommandQueue(env->queue), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(env->context), CL_SUCCESS);
}

/* Build `src` with `options`; on failure print the log and stop the test. */
static inline cl_program kt_build(struct kt_env *env, const char *src, const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        fprintf(stderr, "build log:\n%s\n", log);
        clReleaseProgram(p); /* nothing is left behind for the leak checker */
    }
    KT_REQUIRE(err == CL_SUCCESS, "clBuildProgram: %d", err);
    return p;
}

/* One kernel argument for kt_run: a buffer copied in and/or out, a value, or __local. */
enum kt_arg_kind { KT_IN, KT_OUT, KT_INOUT, KT_VALUE, KT_LOCAL };
struct kt_arg {
    enum kt_arg_kind kind;
    size_t size; /* bytes of the buffer, the value or the __local area */
    void *host;  /* the host array or value; unused for KT_LOCAL */
};

/*
 * Build `src`, run kernel `name` over `global` work-items (one dimension; `local` 0 lets
 * Kiln choose) with `args`, wait, and copy KT_OUT/KT_INOUT buffers back. Returns the
 * enqueue status, so a test can also check refusals; a build failure stops the test.
 */
static inline cl_int kt_run_in(struct kt_env *env, cl_program p, const char *name, size_t global,
                               size_t local, cl_uint nargs, const struct kt_arg *args);
static inline cl_int kt_run(struct kt_env *env, const char *src, const char *options,
                            const char *name, size_t global, size_t local, cl_uint nargs,
                            const struct kt_arg *args)
{
    cl_program p = kt_build(env, src, options);
    cl_int err = kt_run_in(env, p, name, global, local, nargs, args);
    clReleaseProgram(p);
    return err;
}

/* kt_run with a program already built, so one build can serve several kernels. */
static inline cl_int kt_run_in(struct kt_env *env, cl_program p, const char *name, size_t global,
                               size_t local, cl_uint nargs, const struct kt_arg *args)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    cl_mem mems[32] = {0};
    KT_REQUIRE(nargs <= 32, "at most 32 arguments");
    for (cl_uint i = 0; i < nargs; i++) {
        const struct kt_arg *a = &args[i];
        if (a->kind == KT_VALUE) {
            err = clSetKernelArg(k, i, a->size, a->host);
        } else if (a->kind == KT_LOCAL) {
            err = clSetKernelArg(k, i, a->size, NULL);
        } else {
            cl_mem_flags fl = CL_MEM_READ_WRITE;
            if (a->kind != KT_OUT)
                fl |= CL_MEM_COPY_HOST_PTR;
            mems[i] =
                clCreateBuffer(env->context, fl, a->size, a->kind != KT_OUT ? a->host : NULL, &err);
            KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer for argument %u: %d", i, err);
            err = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
        }
        KT_REQUIRE(err == CL_SUCCESS, "clSetKernelArg %u: %d", i, err);
    }
    err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                                 NULL);
    for (cl_uint i = 0; i < nargs && err == CL_SUCCESS; i++) {
        if (args[i].kind == KT_OUT || args[i].kind == KT_INOUT) {
            cl_int rerr = clEnqueueReadBuffer(env->queue, mems[i], CL_TRUE, 0, args[i].size,
                                              args[i].host, 0, NULL, NULL);
            KT_CHECK(rerr == CL_SUCCESS, "reading argument %u: %d", i, rerr);
        }
    }
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    for (cl_uint i = 0; i < nargs; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    clReleaseKernel(k);
    return err;
}

/*
 * Build `src` with `options` expecting CL_BUILD_PROGRAM_FAILURE and a build log that
 * contains `needle`; `what` names the case in messages.
 */
static inline void kt_build_fails(struct kt_env *env, const char *src, const char *options,
                                  const char *needle, const char *what)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
    KT_CHECK(err == CL_BUILD_PROGRAM_FAILURE, "%s: build gave %d", what, err);
    size_t size = 0;
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = calloc(1, size + 1);
    KT_REQUIRE(log, "out of memory");
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL),
              CL_SUCCESS);
    KT_CHECK(strstr(log, needle) != NULL, "%s: the log does not name %s:\n%s", what, needle, log);
    free(log);
    clReleaseProgram(p);
}

/* Whether the device lists `name` as a whole word of CL_DEVICE_EXTENSIONS. */
/* Stop the test (a failure) unless the device reports CL_DEVICE_IMAGE_SUPPORT. */
static inline void kt_require_images(cl_device_id dev)
{
    cl_bool images = CL_FALSE;
    KT_REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
    KT_REQUIRE(images == CL_TRUE, "the device reports no images");
}

static inline int kt_has_extension(cl_device_id dev, const char *name)
{
    size_t size = 0;
    KT_REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
    char *ext = calloc(1, size + 1);
    KT_REQUIRE(ext, "out of memory");
    KT_REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, ext, NULL));
    size_t len = strlen(name);
    int found = 0;
    for (const char *p = ext; (p = strstr(p, name)) != NULL; p += len)
        if ((p == ext || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0))
            found = 1;
    free(ext);
    return found;
}

static inline int kt_finish(const char *name)
{
    int failures = atomic_load(&kt_failures);
    if (failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif
