/*
 * Several host threads use one context at once: each creates and releases buffers,
 * kernels, user events and its own queue, enqueues to its own queue and to one shared
 * queue (in-order and out-of-order), waits across queues, registers event callbacks,
 * and builds programs, while the main thread retains and releases the shared objects.
 * Every result is checked; the run also serves the ThreadSanitizer build
 * (-DKILN_SANITIZE=thread, docs/testing.md).
 */
/* pthread_tryjoin_np needs _GNU_SOURCE, which the build defines. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "kiln_test.h"

enum { THREADS = 4, ROUNDS = 40, N = 512 };

static const char *src =
    "__kernel void add(__global int *p, int v) { p[get_global_id(0)] += v; }\n"
    "__kernel void scale(__global int *p, int v) { p[get_global_id(0)] *= v; }\n";

static struct kt_env env;
static cl_command_queue shared_ooo;
static cl_program shared_prog;
static atomic_int callbacks;

static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *user)
{
    (void)e;
    KT_CHECK(status == CL_COMPLETE, "callback status %d", status);
    atomic_fetch_add_explicit((atomic_int *)user, 1, memory_order_relaxed);
}

static void *worker(void *arg)
{
    const int id = (int)(intptr_t)arg;
    cl_int err;
    cl_command_queue own = clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "own queue: %d", err);
    atomic_int mine = 0;
    int registered = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int host[N];
        for (int i = 0; i < N; i++)
            host[i] = i + id * 1000;
        cl_mem buf = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
        KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
        cl_kernel add = clCreateKernel(shared_prog, "add", &err);
        cl_kernel scale = clCreateKernel(shared_prog, "scale", &err);
        KT_REQUIRE(add && scale, "kernels");
        int v = r + 1, k = 3;
        KT_EXPECT(clSetKernelArg(add, 0, sizeof(buf), &buf), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(add, 1, sizeof(v), &v), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(scale, 0, sizeof(buf), &buf), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(scale, 1, sizeof(k), &k), CL_SUCCESS);

        /* add on the own queue, held back by a user event; scale on a shared queue after
         * it; the read on the own queue after both. */
        cl_event gate = clCreateUserEvent(env.context, &err);
        cl_event added = NULL, scaled = NULL;
        size_t g = N;
        KT_EXPECT(clEnqueueNDRangeKernel(own, add, 1, NULL, &g, NULL, 1, &gate, &added),
                  CL_SUCCESS);
        cl_command_queue shared = r % 2 ? env.queue : shared_ooo;
        KT_EXPECT(clEnqueueNDRangeKernel(shared, scale, 1, NULL, &g, NULL, 1, &added, &scaled),
                  CL_SUCCESS);
        if (clSetEventCallback(scaled, CL_COMPLETE, on_complete, &mine) == CL_SUCCESS)
            registered++;
        KT_EXPECT(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        int out[N];
        KT_EXPECT(clEnqueueReadBuffer(own, buf, CL_TRUE, 0, sizeof(out), out, 1, &scaled, NULL),
                  CL_SUCCESS);
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += out[i] != (host[i] + v) * k;
        KT_CHECK(bad == 0, "thread %d round %d: %d wrong", id, r, bad);
        clReleaseEvent(gate);
        clReleaseEvent(added);
        clReleaseEvent(scaled);
        /* Released while nothing waits for them any more. */
        clReleaseKernel(add);
        clReleaseKernel(scale);
        clReleaseMemObject(buf);
        if (r % 10 == 0) {
            /* A build of its own now and then, beside the others' enqueues. */
            char own_src[128];
            snprintf(own_src, sizeof(own_src),
                     "__kernel void t%d(__global int *p) { p[0] = %d + %d; }\n", id, id, r);
            const char *s = own_src;
            cl_program p = clCreateProgramWithSource(env.context, 1, &s, NULL, &err);
            KT_EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
            clReleaseProgram(p);
        }
    }
    KT_EXPECT(clFinish(own), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(own), CL_SUCCESS);
    /* Callbacks may still be on their way after the read returned; they must all arrive. */
    for (int spin = 0; atomic_load(&mine) < registered && spin < 10000; spin++)
        sched_yield();
    KT_CHECK(atomic_load(&mine) == registered, "thread %d: %d of %d callbacks", id,
             atomic_load(&mine), registered);
    atomic_fetch_add(&callbacks, atomic_load(&mine));
    return NULL;
}

/* The main thread meanwhile retains, queries and releases the shared objects. */
static void churn_step(void)
{
    KT_EXPECT(clRetainContext(env.context), CL_SUCCESS);
    KT_EXPECT(clRetainCommandQueue(env.queue), CL_SUCCESS);
    KT_EXPECT(clRetainProgram(shared_prog), CL_SUCCESS);
    cl_uint refs = 0;
    KT_EXPECT(clGetContextInfo(env.context, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS);
    KT_CHECK(refs >= 2, "context reference count %u", refs);
    KT_EXPECT(clReleaseProgram(shared_prog), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(env.queue), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(env.context), CL_SUCCESS);
    KT_EXPECT(clFlush(env.queue), CL_SUCCESS);
    sched_yield();
}

int main(void)
{
    kt_setup(&env, 0);
    cl_int err;
    cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    shared_ooo = clCreateCommandQueueWithProperties(env.context, env.device, ooo, &err);
    KT_REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
    shared_prog = kt_build(&env, src, NULL);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        KT_REQUIRE(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0, "thread");
    for (int i = 0; i < THREADS; i++)
        while (pthread_tryjoin_np(t[i], NULL) != 0)
            churn_step();
    KT_CHECK(atomic_load(&callbacks) == THREADS * ROUNDS, "%d callbacks, want %d",
             atomic_load(&callbacks), THREADS * ROUNDS);
    KT_EXPECT(clFinish(shared_ooo), CL_SUCCESS);
    clReleaseCommandQueue(shared_ooo);
    clReleaseProgram(shared_prog);
    kt_teardown(&env);
    return kt_finish("threads");
}
