/*
 * Out-of-order queues: independent commands do not wait for each other; markers
 * and barriers with an empty wait list wait for every earlier command, barriers
 * hold back every later one, and clFinish waits for everything. Results of a
 * random mix of writes, copies and barriers are checked.
 */
#include "kiln_test.h"

#include <pthread.h>
#include <time.h>

static cl_int status_of(cl_event e)
{
    cl_int st = 99;
    KT_EXPECT(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
              CL_SUCCESS);
    return st;
}

static cl_event fill(struct kt_env *env, cl_mem b, cl_int v, cl_uint n, const cl_event *list)
{
    cl_event e = NULL;
    size_t size = 0;
    clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof(size), &size, NULL);
    KT_EXPECT(clEnqueueFillBuffer(env->queue, b, &v, sizeof(v), 0, size, n, list, &e), CL_SUCCESS);
    return e;
}

static void test_properties(struct kt_env *env)
{
    cl_command_queue_properties p = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof(p), &p, NULL),
              CL_SUCCESS);
    KT_CHECK(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "device properties 0x%llx",
             (unsigned long long)p);
    KT_EXPECT(clGetCommandQueueInfo(env->queue, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL),
              CL_SUCCESS);
    KT_CHECK(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "queue properties 0x%llx",
             (unsigned long long)p);
}

/* A command waiting on a user event does not hold back the next one. */
static void test_independence(struct kt_env *env, cl_mem a, cl_mem b)
{
    cl_int err;
    cl_event u = clCreateUserEvent(env->context, &err);
    cl_event ea = fill(env, a, 1, 1, &u);
    cl_event eb = fill(env, b, 2, 0, NULL);
    KT_EXPECT(clWaitForEvents(1, &eb), CL_SUCCESS);
    KT_CHECK(status_of(ea) == CL_QUEUED, "the waiting command ran: %d", status_of(ea));

    /* A marker with an empty list waits for the waiting command ... */
    cl_event m = NULL, bar = NULL, after = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &m), CL_SUCCESS);
    /* ... a marker with a list waits only for its list ... */
    cl_event ml = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 1, &eb, &ml), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &ml), CL_SUCCESS);
    /* ... and a barrier with an empty list holds back the next command. */
    KT_EXPECT(clEnqueueBarrierWithWaitList(env->queue, 0, NULL, &bar), CL_SUCCESS);
    after = fill(env, b, 3, 0, NULL);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    KT_CHECK(status_of(m) > CL_COMPLETE, "the marker finished before the command: %d",
             status_of(m));
    KT_CHECK(status_of(bar) > CL_COMPLETE, "the barrier finished early: %d", status_of(bar));
    KT_CHECK(status_of(after) > CL_COMPLETE, "a command passed the barrier: %d", status_of(after));
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(status_of(ea) == CL_COMPLETE && status_of(m) == CL_COMPLETE &&
                 status_of(bar) == CL_COMPLETE && status_of(after) == CL_COMPLETE,
             "after clFinish: %d %d %d %d", status_of(ea), status_of(m), status_of(bar),
             status_of(after));
    cl_int v = 0;
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL),
              CL_SUCCESS);
    KT_CHECK(v == 3, "the command behind the barrier ran last: %d", v);
    cl_event all[] = {u, ea, eb, m, ml, bar, after};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        clReleaseEvent(all[i]);
}

/* A barrier with a wait list waits for that list only, and holds back later commands. */
static void test_barrier_with_list(struct kt_env *env, cl_mem a, cl_mem b)
{
    cl_int err;
    cl_event u1 = clCreateUserEvent(env->context, &err);
    cl_event u2 = clCreateUserEvent(env->context, &err);
    cl_event ea = fill(env, a, 4, 1, &u1); /* not in the barrier's list */
    cl_event bar = NULL;
    KT_EXPECT(clEnqueueBarrierWithWaitList(env->queue, 1, &u2, &bar), CL_SUCCESS);
    cl_event eb = fill(env, b, 5, 0, NULL);
    KT_CHECK(status_of(eb) > CL_COMPLETE, "passed the barrier");
    KT_EXPECT(clSetUserEventStatus(u2, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &eb), CL_SUCCESS);
    KT_CHECK(status_of(ea) == CL_QUEUED, "the barrier waited for a command not in its list");
    KT_EXPECT(clSetUserEventStatus(u1, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(status_of(ea) == CL_COMPLETE, "clFinish left a command running");
    cl_event all[] = {u1, u2, ea, bar, eb};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        clReleaseEvent(all[i]);
}

struct setter {
    cl_event u;
};

static void *set_later(void *p)
{
    struct setter *s = p;
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    clSetUserEventStatus(s->u, CL_COMPLETE);
    return NULL;
}

/* clFinish blocks until a command released by another thread has run. */
static void test_finish_waits(struct kt_env *env, cl_mem a)
{
    cl_int err;
    struct setter s = {clCreateUserEvent(env->context, &err)};
    cl_event e = fill(env, a, 6, 1, &s.u);
    for (int i = 0; i < 20; i++) {
        cl_event other = fill(env, a, 6, 0, NULL);
        KT_EXPECT(clReleaseEvent(other), CL_SUCCESS);
    }
    pthread_t t;
    KT_REQUIRE(pthread_create(&t, NULL, set_later, &s) == 0, "thread");
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(status_of(e) == CL_COMPLETE, "clFinish returned first: %d", status_of(e));
    pthread_join(t, NULL);
    clReleaseEvent(e);
    clReleaseEvent(s.u);
}

/* Rounds of independent writes, a barrier, then copies that read them. */
static void test_rounds(struct kt_env *env)
{
    enum { BUFS = 8, N = 1 << 16, ROUNDS = 20 };
    cl_int err;
    cl_mem src[BUFS], dst[BUFS];
    for (int i = 0; i < BUFS; i++) {
        src[i] = clCreateBuffer(env->context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
        dst[i] = clCreateBuffer(env->context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
        KT_REQUIRE(src[i] && dst[i], "buffers: %d", err);
    }
    static cl_int host[BUFS][N];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < BUFS; i++) {
            cl_int v = r * 100 + i;
            KT_EXPECT(clEnqueueFillBuffer(env->queue, src[i], &v, sizeof(v), 0, N * sizeof(cl_int),
                                          0, NULL, NULL),
                      CL_SUCCESS);
        }
        KT_EXPECT(clEnqueueBarrierWithWaitList(env->queue, 0, NULL, NULL), CL_SUCCESS);
        for (int i = 0; i < BUFS; i++)
            KT_EXPECT(clEnqueueCopyBuffer(env->queue, src[i], dst[(i + r) % BUFS], 0, 0,
                                          N * sizeof(cl_int), 0, NULL, NULL),
                      CL_SUCCESS);
        KT_EXPECT(clEnqueueBarrierWithWaitList(env->queue, 0, NULL, NULL), CL_SUCCESS);
    }
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    for (int i = 0; i < BUFS; i++) {
        KT_EXPECT(clEnqueueReadBuffer(env->queue, dst[i], CL_TRUE, 0, N * sizeof(cl_int), host[i],
                                      0, NULL, NULL),
                  CL_SUCCESS);
        /* In the last round, src[j] went to dst[(j + ROUNDS - 1) % BUFS]. */
        int j = ((i - (ROUNDS - 1)) % BUFS + BUFS) % BUFS;
        cl_int want = (ROUNDS - 1) * 100 + j;
        KT_CHECK(host[i][0] == want && host[i][N - 1] == want, "dst[%d] = %d..%d, want %d", i,
                 host[i][0], host[i][N - 1], want);
    }
    for (int i = 0; i < BUFS; i++) {
        clReleaseMemObject(src[i]);
        clReleaseMemObject(dst[i]);
    }
}

/*
 * Independent commands really run at the same time: a kernel that waits (with a
 * bound) for a flag that only the next command sets sees it. In an in-order queue,
 * or with the commands run one after the other, it would give up and report 0.
 * Needs two workers: `test_api_ooo concurrency` runs it alone, and its ctest entry sets
 * KILN_NUM_THREADS=2 so that it runs on any machine.
 */
static void test_concurrency(struct kt_env *env)
{
    const char *src = "kernel void waiter(volatile global int *flag, global int *out)\n"
                      "{\n"
                      "    int seen = 0;\n"
                      "    for (int i = 0; i < (1 << 30) && !seen; i++)\n"
                      "        seen = flag[0];\n"
                      "    out[0] = seen;\n"
                      "}\n"
                      "kernel void setter(volatile global int *flag) { flag[0] = 1; }\n";
    cl_int err;
    cl_program p = kt_build(env, src, NULL);
    cl_kernel waiter = clCreateKernel(p, "waiter", &err);
    cl_kernel setter = clCreateKernel(p, "setter", &err);
    KT_REQUIRE(waiter && setter, "kernels: %d", err);
    cl_int zero = 0, seen = -1;
    cl_mem flag = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero, &err);
    cl_mem out = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero, &err);
    KT_REQUIRE(flag && out, "buffers: %d", err);
    KT_EXPECT(clSetKernelArg(waiter, 0, sizeof(flag), &flag), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(waiter, 1, sizeof(out), &out), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(setter, 0, sizeof(flag), &flag), CL_SUCCESS);
    const size_t one = 1;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, waiter, 1, NULL, &one, &one, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, setter, 1, NULL, &one, &one, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(seen), &seen, 0, NULL, NULL),
              CL_SUCCESS);
    KT_CHECK(seen == 1, "the waiting kernel never saw the flag set by the next command");
    clReleaseMemObject(flag);
    clReleaseMemObject(out);
    clReleaseKernel(waiter);
    clReleaseKernel(setter);
    clReleaseProgram(p);
}

/* Exit status 77 (ctest's skip code): the concurrency check cannot run with fewer than two
 * workers. */
static int run_concurrency(void)
{
    struct kt_env env;
    kt_setup(&env, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    cl_uint cus = 0;
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL),
              CL_SUCCESS);
    const char *threads = getenv("KILN_NUM_THREADS");
    if (threads != NULL ? atoi(threads) < 2 : cus < 2) {
        printf("ooo: concurrency: skipped: fewer than two workers (%u compute units)\n", cus);
        kt_teardown(&env);
        return 77;
    }
    test_concurrency(&env);
    kt_teardown(&env);
    return kt_finish("ooo concurrency");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "concurrency") == 0)
        return run_concurrency();
    struct kt_env env;
    kt_setup(&env, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    cl_int err;
    cl_mem a = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    cl_mem b = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    KT_REQUIRE(a && b, "buffers: %d", err);
    test_properties(&env);
    test_independence(&env, a, b);
    test_barrier_with_list(&env, a, b);
    test_finish_waits(&env, a);
    test_rounds(&env);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    kt_teardown(&env);
    return kt_finish("ooo");
}
