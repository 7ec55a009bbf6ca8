/*
 * Native kernels: clEnqueueNativeKernel runs a host function in queue order with a copy of
 * its arguments in which the marked pointers name the buffers' memory; a failed
 * dependency keeps it from running; every refusal leaves the event alone.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "kiln_test.h"

enum { N = 1000 };

struct args {
    int n;
    const float *in; /* replaced by the first buffer's memory */
    float *out;      /* replaced by the second's */
    float scale;
};

static atomic_int runs;

static void CL_CALLBACK scale_fn(void *p)
{
    struct args *a = p;
    for (int i = 0; i < a->n; i++)
        a->out[i] = a->in[i] * a->scale;
    atomic_fetch_add(&runs, 1);
}

/* Checks the copy of its block: a value and no pointer to translate. */
static void CL_CALLBACK count_fn(void *p)
{
    int v;
    memcpy(&v, p, sizeof(v));
    KT_CHECK(v == 42, "native kernel argument %d, want 42", v);
    atomic_fetch_add(&runs, 1);
}

static const char *src = "__kernel void fill(__global float *p) { p[get_global_id(0)] = "
                         "(float)get_global_id(0) + 0.5f; }\n";

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    cl_device_exec_capabilities caps = 0;
    KT_EXPECT(
        clGetDeviceInfo(env.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof(caps), &caps, NULL),
        CL_SUCCESS);
    KT_CHECK(caps & CL_EXEC_NATIVE_KERNEL, "CL_EXEC_NATIVE_KERNEL not reported (0x%llx)",
             (unsigned long long)caps);

    cl_int err;
    cl_mem in = clCreateBuffer(env.context, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    cl_mem out = clCreateBuffer(env.context, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    KT_REQUIRE(in && out, "buffers");
    cl_program prog = kt_build(&env, src, NULL);
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    KT_EXPECT(clSetKernelArg(fill, 0, sizeof(in), &in), CL_SUCCESS);

    /* A kernel fills `in`, the native kernel scales it into `out`, held back by a user
     * event while the application changes its own argument block. */
    cl_event gate = clCreateUserEvent(env.context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    size_t g = N;
    KT_EXPECT(clEnqueueNDRangeKernel(env.queue, fill, 1, NULL, &g, NULL, 1, &gate, NULL),
              CL_SUCCESS);
    struct args a = {.n = N, .in = NULL, .out = NULL, .scale = 3.0f};
    cl_mem mems[2] = {in, out};
    const void *locs[2] = {&a.in, &a.out};
    cl_event done = NULL;
    err = clEnqueueNativeKernel(env.queue, scale_fn, &a, sizeof(a), 2, mems, locs, 0, NULL, &done);
    KT_REQUIRE(err == CL_SUCCESS, "clEnqueueNativeKernel: %d", err);
    a.scale = -1.0f; /* Kiln ran nothing yet and must have copied the block */
    a.n = 1;
    KT_CHECK(atomic_load(&runs) == 0, "ran before its dependency");
    KT_EXPECT(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &done), CL_SUCCESS);
    KT_CHECK(atomic_load(&runs) == 1, "ran %d times", atomic_load(&runs));
    cl_command_type type = 0;
    KT_EXPECT(clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_NATIVE_KERNEL, "event type 0x%x", type);
    clReleaseEvent(done);
    static float got[N];
    KT_EXPECT(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
              CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += got[i] != ((float)i + 0.5f) * 3.0f;
    KT_CHECK(bad == 0, "%d wrong values (got[1] = %g)", bad, got[1]);

    /* A failed dependency: the function never runs and the failure propagates. */
    cl_event fail = clCreateUserEvent(env.context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    err = clEnqueueNativeKernel(env.queue, scale_fn, &a, sizeof(a), 2, mems, locs, 1, &fail, &done);
    KT_EXPECT(err, CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(fail, -77), CL_SUCCESS);
    if (err == CL_SUCCESS) {
        clWaitForEvents(1, &done);
        cl_int st = 0;
        KT_EXPECT(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                  CL_SUCCESS);
        KT_CHECK(st < 0, "status %d after a failed dependency", st);
        clReleaseEvent(done);
    }
    KT_CHECK(atomic_load(&runs) == 1, "ran after a failed dependency");
    clReleaseEvent(fail);
    clReleaseEvent(gate);

    /* No memory objects: the block is copied as it is. */
    int value = 42;
    KT_EXPECT(clEnqueueNativeKernel(env.queue, count_fn, &value, sizeof(value), 0, NULL, NULL, 0,
                                    NULL, NULL),
              CL_SUCCESS);
    value = 0;
    KT_EXPECT(clFinish(env.queue), CL_SUCCESS);

    /* Refusals, with the event left alone. */
    cl_event ev = (cl_event)(uintptr_t)0x1234;
    struct args b = {.n = 0};
    const void *outside[2] = {&a.in, &b.out};
    cl_mem with_null[2] = {in, NULL};
    const void *b_locs[2] = {&b.in, &b.out};
    KT_EXPECT(clEnqueueNativeKernel(env.queue, NULL, &b, sizeof(b), 0, NULL, NULL, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, NULL, sizeof(b), 0, NULL, NULL, 0, NULL, &ev),
        CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueNativeKernel(env.queue, scale_fn, &b, 0, 0, NULL, NULL, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 2, NULL, locs, 0, NULL, &ev),
        CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 2, mems, NULL, 0, NULL, &ev),
        CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 0, mems, NULL, 0, NULL, &ev),
        CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 2, mems, outside, 0, NULL, &ev),
        CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 2, with_null, b_locs, 0,
                                    NULL, &ev),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(
        clEnqueueNativeKernel(env.queue, scale_fn, &b, sizeof(b), 0, NULL, NULL, 1, NULL, &ev),
        CL_INVALID_EVENT_WAIT_LIST);
    KT_EXPECT(clEnqueueNativeKernel(NULL, scale_fn, &b, sizeof(b), 0, NULL, NULL, 0, NULL, &ev),
              CL_INVALID_COMMAND_QUEUE);
    KT_CHECK(ev == (cl_event)(uintptr_t)0x1234, "event written on failure");
    KT_CHECK(atomic_load(&runs) == 2, "ran %d times in all, want 2", atomic_load(&runs));
    (void)value;

    clReleaseKernel(fill);
    clReleaseProgram(prog);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    kt_teardown(&env);
    return kt_finish("native");
}
