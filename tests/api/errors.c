/*
 * Bad input gets the specification's error code, outputs stay untouched, and
 * nothing crashes: handles, buffers, kernel arguments, launches, builds, events.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kiln_test.h"

static const char *src = "kernel void k(global float *a, float s, local float *t)\n"
                         "{ size_t i = get_global_id(0); t[get_local_id(0)] = a[i];\n"
                         "  a[i] = t[get_local_id(0)] * s; }\n";

static cl_event const untouched = (cl_event)0x1234;

static void handles(struct kt_env *env)
{
    cl_int err = 0;
    char buf[64];
    KT_EXPECT(clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof(buf), buf, NULL), CL_INVALID_DEVICE);
    KT_EXPECT(clGetDeviceInfo((cl_device_id)env->queue, CL_DEVICE_NAME, sizeof(buf), buf, NULL),
              CL_INVALID_DEVICE);
    KT_CHECK(clCreateBuffer(NULL, 0, 16, NULL, &err) == NULL && err == CL_INVALID_CONTEXT, "err %d",
             err);
    KT_CHECK(clCreateBuffer((cl_context)env->queue, 0, 16, NULL, &err) == NULL &&
                 err == CL_INVALID_CONTEXT,
             "queue as context: err %d", err);
    KT_EXPECT(clReleaseMemObject((cl_mem)env->queue), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clRetainCommandQueue((cl_command_queue)env->context), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clSetKernelArg(NULL, 0, 4, &err), CL_INVALID_KERNEL);
    KT_EXPECT(clBuildProgram(NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    KT_EXPECT(clGetEventInfo(NULL, CL_EVENT_COMMAND_TYPE, sizeof(buf), buf, NULL),
              CL_INVALID_EVENT);
    KT_EXPECT(clReleaseContext((cl_context)env->device), CL_INVALID_CONTEXT);
    KT_EXPECT(
        clGetPlatformInfo((cl_platform_id)env->context, CL_PLATFORM_NAME, sizeof(buf), buf, NULL),
        CL_INVALID_PLATFORM);
    /* Too small an output buffer. */
    KT_EXPECT(clGetPlatformInfo(env->platform, CL_PLATFORM_NAME, 2, buf, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clGetDeviceInfo(env->device, 0x7fffffff, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    cl_device_id dev;
    KT_EXPECT(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_GPU, 1, &dev, NULL),
              CL_DEVICE_NOT_FOUND);
    KT_EXPECT(clGetDeviceIDs(env->platform, 0, 1, &dev, NULL), CL_INVALID_DEVICE_TYPE);
    KT_EXPECT(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_CPU, 0, &dev, NULL), CL_INVALID_VALUE);
}

static void buffers(struct kt_env *env)
{
    cl_int err = 0;
    float host[16] = {0};
    KT_CHECK(!clCreateBuffer(env->context, 0, 0, NULL, &err) && err == CL_INVALID_BUFFER_SIZE,
             "size 0: %d", err);
    KT_CHECK(!clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 64, NULL, &err) &&
                 err == CL_INVALID_HOST_PTR,
             "USE_HOST_PTR without pointer: %d", err);
    KT_CHECK(!clCreateBuffer(env->context, 0, 64, host, &err) && err == CL_INVALID_HOST_PTR,
             "pointer without flag: %d", err);
    KT_CHECK(!clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err) &&
                 err == CL_INVALID_VALUE,
             "conflicting access flags: %d", err);
    KT_CHECK(
        !clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, &err) &&
            err == CL_INVALID_VALUE,
        "USE with COPY: %d", err);

    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_event ev = untouched;
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 8, sizeof(host), host, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_CHECK(ev == untouched, "event written on failure");
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, 4, NULL, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, b, CL_TRUE, 0, 4, host, 1, NULL, &ev),
              CL_INVALID_EVENT_WAIT_LIST);
    KT_CHECK(ev == untouched, "event written on failure");
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, b, b, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueFillBuffer(env->queue, b, host, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueFillBuffer(env->queue, b, host, 4, 2, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueUnmapMemObject(env->queue, b, host, 0, NULL, NULL), CL_INVALID_VALUE);
    void *p = clEnqueueMapBuffer(env->queue, b, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err);
    KT_CHECK(p == NULL && err == CL_INVALID_VALUE, "map of 0 bytes: %d", err);

    cl_mem ro = clCreateBuffer(env->context, CL_MEM_HOST_READ_ONLY, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "HOST_READ_ONLY buffer: %d", err);
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, ro, CL_TRUE, 0, 4, host, 0, NULL, NULL),
              CL_INVALID_OPERATION);
    KT_EXPECT(clReleaseMemObject(ro), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
}

/* Run clBuildProgram with stdout redirected to a file; return the bytes it printed. */
static long build_quietly(cl_program p, cl_device_id dev, const char *options, cl_int *err)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/kiln-stdout-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    KT_REQUIRE(fd >= 0, "mkstemp");
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    *err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    unlink(path);
    return (long)st.st_size;
}

static void builds(struct kt_env *env)
{
    cl_int err = 0;
    const char *bad = "kernel void k(global int *a) { a[0] = 1 }\n";
    cl_program p = clCreateProgramWithSource(env->context, 1, &bad, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    long printed = build_quietly(p, env->device, NULL, &err);
    KT_CHECK(err == CL_BUILD_PROGRAM_FAILURE, "syntax error build: %d", err);
    KT_CHECK(printed == 0, "the failed build printed %ld bytes to stdout", printed);
    char log[4096] = "";
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL),
              CL_SUCCESS);
    KT_CHECK(strstr(log, "error") && strstr(log, "expected ';'"), "build log: \"%s\"", log);
    cl_build_status status = 0;
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS, sizeof(status),
                                    &status, NULL),
              CL_SUCCESS);
    KT_CHECK(status == CL_BUILD_ERROR, "status %d", status);
    cl_kernel k = clCreateKernel(p, "k", &err);
    KT_CHECK(k == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build: %d",
             err);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);

    p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    build_quietly(p, env->device, "-cl-no-such-option", &err);
    KT_CHECK(err == CL_INVALID_BUILD_OPTIONS, "unknown option: %d", err);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);

    KT_CHECK(!clCreateProgramWithSource(env->context, 0, &src, NULL, &err) &&
                 err == CL_INVALID_VALUE,
             "count 0: %d", err);
}

static void kernel_args(struct kt_env *env)
{
    cl_int err = 0;
    cl_program p = kt_build(env, src, NULL);
    cl_kernel k = clCreateKernel(p, "nope", &err);
    KT_CHECK(k == NULL && err == CL_INVALID_KERNEL_NAME, "unknown kernel: %d", err);
    k = clCreateKernel(p, "k", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem b = clCreateBuffer(env->context, 0, 1024 * sizeof(float), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    float s = 2.0f;
    double d = 2.0;
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(s), &s), CL_INVALID_ARG_INDEX);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(d), &d), CL_INVALID_ARG_SIZE);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(s), NULL), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 0, 4, &b), CL_INVALID_ARG_SIZE);
    cl_mem not_mem = (cl_mem)env->queue;
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &not_mem), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE);
    KT_EXPECT(clSetKernelArg(k, 2, 64, &s), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(s), &s), CL_SUCCESS);

    size_t global = 1024, local = 64;
    cl_event ev = untouched;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, &ev),
              CL_INVALID_KERNEL_ARGS);
    KT_CHECK(ev == untouched, "event written on failure");
    KT_EXPECT(clSetKernelArg(k, 2, local * sizeof(float), NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 0, NULL, &global, &local, 0, NULL, NULL),
              CL_INVALID_WORK_DIMENSION);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 4, NULL, &global, &local, 0, NULL, NULL),
              CL_INVALID_WORK_DIMENSION);
    /* An empty range (a NULL global size, or 0 in a dimension) trivially succeeds. */
    cl_event empty = NULL;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, NULL, &local, 0, NULL, &empty),
              CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &empty), CL_SUCCESS);
    cl_command_type empty_type = 0;
    KT_EXPECT(clGetEventInfo(empty, CL_EVENT_COMMAND_TYPE, sizeof(empty_type), &empty_type, NULL),
              CL_SUCCESS);
    KT_CHECK(empty_type == CL_COMMAND_NDRANGE_KERNEL, "empty range's command type 0x%x",
             empty_type);
    clReleaseEvent(empty);
    size_t zero2[2] = {4, 0};
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, zero2, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    size_t huge = 1 << 20, zero = 0;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &huge, 0, NULL, NULL),
              CL_INVALID_WORK_ITEM_SIZE);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &zero, 0, NULL, NULL),
              CL_INVALID_WORK_GROUP_SIZE);
    size_t g3[3] = {64, 64, 64}, l3[3] = {64, 64, 4};
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 3, NULL, g3, l3, 0, NULL, NULL),
              CL_INVALID_WORK_GROUP_SIZE);
    cl_ulong local_mem = 0;
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_mem), &local_mem, NULL),
        CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, (size_t)local_mem + 1, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_OUT_OF_RESOURCES);
    KT_EXPECT(clSetKernelArg(k, 2, local * sizeof(float), NULL), CL_SUCCESS);
    err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, &ev);
    KT_CHECK(err == CL_SUCCESS && ev != untouched, "launch: %d, event %p", err, (void *)ev);
    if (err == CL_SUCCESS) {
        KT_EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
        KT_EXPECT(clReleaseEvent(ev), CL_SUCCESS);
    }

    /* A program with kernels attached cannot be rebuilt. */
    KT_EXPECT(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL), CL_INVALID_OPERATION);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

static void events(struct kt_env *env)
{
    cl_int err = 0;
    cl_event user = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_mem b = clCreateBuffer(env->context, 0, 64, NULL, &err);
    int data[16] = {0};
    cl_event w = NULL, after = NULL;
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, b, CL_FALSE, 0, 64, data, 1, &user, &w), CL_SUCCESS);
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &after), CL_SUCCESS);
    cl_int st = 0;
    KT_EXPECT(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
              CL_SUCCESS);
    KT_CHECK(st == CL_QUEUED, "write waiting for a user event has status %d", st);
    KT_EXPECT(clSetUserEventStatus(user, 1), CL_INVALID_VALUE);
    KT_EXPECT(clSetUserEventStatus(user, -42), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    KT_EXPECT(clWaitForEvents(1, &w), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    KT_EXPECT(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
              CL_SUCCESS);
    KT_CHECK(st < 0, "a failed dependency must fail the command, status %d", st);
    /* The queue goes on: a later command is not failed by an earlier one's failure. */
    KT_EXPECT(clWaitForEvents(1, &after), CL_SUCCESS);
    cl_ulong t;
    KT_EXPECT(clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL),
              CL_PROFILING_INFO_NOT_AVAILABLE);
    KT_EXPECT(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clReleaseEvent(w), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(after), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(user), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
}

/* Properties: a bad value of a known context property, the buffer property list kept. */
static void properties(struct kt_env *env)
{
    cl_int err = 0;
    cl_context_properties sync[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
                                    CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
    KT_CHECK(clCreateContext(sync, 1, &env->device, NULL, NULL, &err) == NULL &&
                 err == CL_INVALID_PROPERTY,
             "CL_CONTEXT_INTEROP_USER_SYNC of -1: %d", err);
    KT_CHECK(clCreateContextFromType(sync, CL_DEVICE_TYPE_CPU, NULL, NULL, &err) == NULL &&
                 err == CL_INVALID_PROPERTY,
             "CL_CONTEXT_INTEROP_USER_SYNC of -1 (from type): %d", err);
    sync[3] = CL_TRUE;
    cl_context ok = clCreateContext(sync, 1, &env->device, NULL, NULL, &err);
    KT_CHECK(ok && err == CL_SUCCESS, "CL_CONTEXT_INTEROP_USER_SYNC of CL_TRUE: %d", err);
    if (ok)
        clReleaseContext(ok);

    const cl_mem_properties none[] = {0};
    cl_mem with = clCreateBufferWithProperties(env->context, none, 0, 64, NULL, &err);
    cl_mem without = clCreateBuffer(env->context, 0, 64, NULL, &err);
    KT_REQUIRE(with && without, "buffers");
    cl_mem_properties got[2] = {7, 7};
    size_t size = 99;
    KT_EXPECT(clGetMemObjectInfo(with, CL_MEM_PROPERTIES, sizeof(got), got, &size), CL_SUCCESS);
    KT_CHECK(size == sizeof(got[0]) && got[0] == 0, "CL_MEM_PROPERTIES: %zu bytes", size);
    KT_EXPECT(clGetMemObjectInfo(without, CL_MEM_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    KT_CHECK(size == 0, "CL_MEM_PROPERTIES of a buffer made without a list: %zu bytes", size);
    const cl_mem_properties bogus[] = {0x7777, 1, 0};
    KT_CHECK(clCreateBufferWithProperties(env->context, bogus, 0, 64, NULL, &err) == NULL &&
                 err == CL_INVALID_PROPERTY,
             "an unknown buffer property: %d", err);
    clReleaseMemObject(with);
    clReleaseMemObject(without);

    /* No IL support: specialisation constants are an invalid operation on any program. */
    const char *s = "kernel void z(void) {}";
    cl_program p = clCreateProgramWithSource(env->context, 1, &s, NULL, &err);
    int v = 1;
    KT_EXPECT(clSetProgramSpecializationConstant(p, 0, sizeof(v), &v), CL_INVALID_OPERATION);
    clReleaseProgram(p);
}

/*
 * Non-uniform work-groups exist from OpenCL C 2.0 on: a program for 1.x (the default
 * without -cl-std) or built with -cl-uniform-work-group-size needs a global size that the
 * local size divides; an OpenCL C 2.0 or 3.0 program gets a smaller last group.
 */
static void uniform_groups(struct kt_env *env)
{
    static const char one[] = "kernel void k(global int *o) { o[get_global_id(0)] = 1; }";
    static const struct {
        const char *options;
        cl_int want;
    } cases[] = {
        {NULL, CL_INVALID_WORK_GROUP_SIZE},
        {"-cl-std=CL1.2", CL_INVALID_WORK_GROUP_SIZE},
        {"-cl-std=CL1.1", CL_INVALID_WORK_GROUP_SIZE},
        {"-cl-std=CL3.0 -cl-uniform-work-group-size", CL_INVALID_WORK_GROUP_SIZE},
        {"-cl-std=CL2.0", CL_SUCCESS},
        {"-cl-std=CL3.0", CL_SUCCESS},
    };
    cl_int err;
    cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 100 * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_program p = kt_build(env, one, cases[i].options);
        cl_kernel k = clCreateKernel(p, "k", &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
        size_t g = 100, l = 64, divides = 50;
        cl_event ev = untouched;
        err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL, &ev);
        KT_CHECK(err == cases[i].want, "options \"%s\": global 100, local 64: %d, want %d",
                 cases[i].options ? cases[i].options : "", err, cases[i].want);
        if (err == CL_SUCCESS)
            clReleaseEvent(ev);
        else
            KT_CHECK(ev == untouched, "event written on failure");
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &divides, 0, NULL, NULL),
                  CL_SUCCESS);
        g = 97; /* no local size: Kiln must choose one that divides 97 for 1.x */
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        clReleaseKernel(k);
        clReleaseProgram(p);
    }
    clReleaseMemObject(out);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    properties(&env);
    uniform_groups(&env);
    handles(&env);
    buffers(&env);
    builds(&env);
    kernel_args(&env);
    events(&env);
    kt_teardown(&env);
    return kt_finish("api/errors");
}
