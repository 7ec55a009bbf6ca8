/*
 * Callbacks: clSetEventCallback (each status, failures, order, registration after
 * the fact, completions on worker threads, registration racing a command's start,
 * re-entry into the API from a callback),
 * clSetMemObjectDestructorCallback and clSetContextDestructorCallback (reverse
 * order, only once the object is really freed, at once when a command that used it has
 * completed), clSetProgramReleaseCallback
 * (refused: see docs/runtime.md).
 */
#include "kiln_test.h"

#include <stdatomic.h>
#include <time.h>

/* What each callback saw, in call order. */
#define MAX_CALLS 64
static struct call {
    int tag;
    cl_int status;
} calls[MAX_CALLS];
/* Calls recorded in full: calls[0 .. num_calls) may be read once num_calls says so. */
static atomic_int num_calls;
static atomic_int num_claimed;

static void record(int tag, cl_int status)
{
    int i = atomic_fetch_add(&num_claimed, 1);
    if (i < MAX_CALLS) {
        calls[i].tag = tag;
        calls[i].status = status;
    }
    /* Publish in claim order, each after its entry is written. */
    while (atomic_load(&num_calls) != i)
        ;
    atomic_store(&num_calls, i + 1);
}

static void reset(void)
{
    atomic_store(&num_calls, 0);
    atomic_store(&num_claimed, 0);
    memset(calls, 0, sizeof(calls));
}

static void CL_CALLBACK on_event(cl_event e, cl_int status, void *data)
{
    (void)e;
    record((int)(intptr_t)data, status);
}

/* Wait up to two seconds for `n` calls: callbacks may come from worker threads. With none
 * (KILN_NUM_THREADS=0) every command completes on the calling thread, inside the call that
 * enqueues or sets it, and its callbacks with it: nothing is waited for, so a missing call
 * shows at once (and the allocation-failure sweep, whose failed registrations leave calls
 * missing, does not wait two seconds for each). */
static int wait_calls(int n)
{
    const char *threads = getenv("KILN_NUM_THREADS");
    int tries = threads != NULL && strcmp(threads, "0") == 0 ? 0 : 2000;
    for (int i = 0; i < tries && atomic_load(&num_calls) < n; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(&num_calls);
}

static void test_event_errors(struct kt_env *env)
{
    cl_int err;
    cl_event u = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    KT_EXPECT(clSetEventCallback(NULL, CL_COMPLETE, on_event, NULL), CL_INVALID_EVENT);
    KT_EXPECT(clSetEventCallback((cl_event)env->queue, CL_COMPLETE, on_event, NULL),
              CL_INVALID_EVENT);
    KT_EXPECT(clSetEventCallback(u, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetEventCallback(u, CL_QUEUED, on_event, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetEventCallback(u, 42, on_event, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetEventCallback(u, -1, on_event, NULL), CL_INVALID_VALUE);
    clReleaseEvent(u); /* never set: its pending callbacks are dropped, never called */
}

static void test_user_event(struct kt_env *env)
{
    cl_int err;
    reset();
    cl_event u = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    /* A user event starts CL_SUBMITTED: that callback is due at once. */
    KT_EXPECT(clSetEventCallback(u, CL_SUBMITTED, on_event, (void *)1), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 1 && calls[0].tag == 1 && calls[0].status == CL_SUBMITTED,
             "SUBMITTED callback on a submitted event: %d calls", atomic_load(&num_calls));
    KT_EXPECT(clSetEventCallback(u, CL_COMPLETE, on_event, (void *)2), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(u, CL_RUNNING, on_event, (void *)3), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(u, CL_COMPLETE, on_event, (void *)4), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 1, "called before the status was reached");
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_REQUIRE(wait_calls(4) == 4, "%d calls", atomic_load(&num_calls));
    /* Registration order; each gets the status it waited for. */
    KT_CHECK(calls[1].tag == 2 && calls[1].status == CL_COMPLETE, "call 1: %d/%d", calls[1].tag,
             calls[1].status);
    KT_CHECK(calls[2].tag == 3 && calls[2].status == CL_RUNNING, "call 2: %d/%d", calls[2].tag,
             calls[2].status);
    KT_CHECK(calls[3].tag == 4 && calls[3].status == CL_COMPLETE, "call 3: %d/%d", calls[3].tag,
             calls[3].status);
    /* After completion a new callback is called at once, once. */
    KT_EXPECT(clSetEventCallback(u, CL_RUNNING, on_event, (void *)5), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 5 && calls[4].tag == 5 && calls[4].status == CL_RUNNING,
             "late registration: %d calls", atomic_load(&num_calls));
    clReleaseEvent(u);

    /* A user event that fails passes its negative status to every callback. */
    reset();
    u = clCreateUserEvent(env->context, &err);
    KT_EXPECT(clSetEventCallback(u, CL_RUNNING, on_event, (void *)6), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(u, CL_COMPLETE, on_event, (void *)7), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(u, -42), CL_SUCCESS);
    KT_REQUIRE(wait_calls(2) == 2, "%d calls", atomic_load(&num_calls));
    KT_CHECK(calls[0].tag == 6 && calls[0].status == -42 && calls[1].tag == 7 &&
                 calls[1].status == -42,
             "failure status: %d/%d %d/%d", calls[0].tag, calls[0].status, calls[1].tag,
             calls[1].status);
    KT_EXPECT(clSetEventCallback(u, CL_COMPLETE, on_event, (void *)8), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 3 && calls[2].status == -42, "late, failed: %d",
             calls[2].status);
    clReleaseEvent(u);
}

/* A command's event: nothing is called while it waits; all statuses once it runs;
 * a failed dependency gives the callbacks the command's negative status. */
static void test_command_events(struct kt_env *env)
{
    cl_int err;
    reset();
    cl_event u = clCreateUserEvent(env->context, &err);
    cl_event m = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &m), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_SUBMITTED, on_event, (void *)1), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_RUNNING, on_event, (void *)2), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_COMPLETE, on_event, (void *)3), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 0, "%d calls while the command waits",
             atomic_load(&num_calls));
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &m), CL_SUCCESS);
    KT_REQUIRE(wait_calls(3) == 3, "%d calls", atomic_load(&num_calls));
    for (int i = 0; i < 3; i++)
        KT_CHECK(calls[i].tag == i + 1 && calls[i].status == CL_SUBMITTED - i, "call %d: %d/%d", i,
                 calls[i].tag, calls[i].status);
    clReleaseEvent(m);
    clReleaseEvent(u);

    reset();
    u = clCreateUserEvent(env->context, &err);
    m = NULL; /* not the released marker above, should the enqueue fail */
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &m), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_SUBMITTED, on_event, (void *)1), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_COMPLETE, on_event, (void *)2), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(u, -7), CL_SUCCESS);
    KT_REQUIRE(wait_calls(2) == 2, "%d calls", atomic_load(&num_calls));
    KT_CHECK(calls[0].tag == 1 && calls[0].status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST &&
                 calls[1].tag == 2 &&
                 calls[1].status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
             "failed command: %d/%d %d/%d", calls[0].tag, calls[0].status, calls[1].tag,
             calls[1].status);
    clReleaseEvent(m);
    clReleaseEvent(u);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
}

/* Completion on a worker thread: a copy large enough to leave the calling thread. */
static void test_worker_completion(struct kt_env *env)
{
    cl_int err;
    reset();
    const size_t size = 8u << 20;
    cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
    KT_REQUIRE(a && b, "buffers: %d", err);
    for (int i = 0; i < 8; i++) {
        cl_event e;
        err =
            clEnqueueCopyBuffer(env->queue, i % 2 ? b : a, i % 2 ? a : b, 0, 0, size, 0, NULL, &e);
        KT_CHECK(err == CL_SUCCESS, "copy %d: %d", i, err);
        if (err != CL_SUCCESS)
            continue;
        KT_EXPECT(clSetEventCallback(e, CL_COMPLETE, on_event, (void *)(intptr_t)(10 + i)),
                  CL_SUCCESS);
        clReleaseEvent(e); /* the callback keeps working without the application's reference */
    }
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(wait_calls(8) == 8, "%d of 8 completion callbacks", atomic_load(&num_calls));
    int seen = 0;
    for (int i = 0; i < 8; i++) {
        KT_CHECK(calls[i].status == CL_COMPLETE, "status %d", calls[i].status);
        seen |= 1 << (calls[i].tag - 10);
    }
    KT_CHECK(seen == 0xff, "tags seen 0x%x", seen);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/*
 * Registration racing a command's start: a command's event starts without its lock when it
 * has no callback (runtime/event.c), so callbacks registered for CL_SUBMITTED and
 * CL_RUNNING while the worker may be starting the command must each run exactly once, with
 * their own status, whichever side comes first.
 */
enum { RACE_COMMANDS = 2000 };
static int race_commands = RACE_COMMANDS; /* argv[1] may ask for fewer */
static atomic_int race_count[RACE_COMMANDS][2];
static atomic_int race_wrong, race_late;

static void CL_CALLBACK count_start(cl_event e, cl_int status, void *data)
{
    intptr_t v = (intptr_t)data;
    int running = (int)(v & 1);
    if (status != (running ? CL_RUNNING : CL_SUBMITTED))
        atomic_fetch_add(&race_wrong, 1);
    /* A command registered before it started cannot complete before these callbacks
     * return: they run as it starts, before its work is handed to the workers. */
    cl_int now = CL_COMPLETE;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(now), &now, NULL);
    if ((v >> 1) < race_commands / 2 && now == CL_COMPLETE)
        atomic_fetch_add(&race_late, 1);
    atomic_fetch_add(&race_count[v >> 1][running], 1);
}

static void test_start_race(struct kt_env *env)
{
    static const char src[] = "kernel void bump(global int *p) { p[get_global_id(0)] += 1; }\n";
    cl_int err;
    cl_program p = kt_build(env, src, NULL);
    cl_kernel k = clCreateKernel(p, "bump", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    memset(race_count, 0, sizeof(race_count));
    atomic_store(&race_wrong, 0);
    atomic_store(&race_late, 0);
    /* The first half waits behind a user event, so its callbacks are in place before the
     * commands start; the second half starts while its callbacks are being registered. */
    cl_event gate = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    size_t global = 64;
    for (int i = 0; i < race_commands; i++) {
        cl_event e;
        if (i == race_commands / 2)
            KT_EXPECT(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, i == 0,
                                     i == 0 ? &gate : NULL, &e);
        KT_REQUIRE(err == CL_SUCCESS, "launch %d: %d", i, err);
        KT_EXPECT(clSetEventCallback(e, CL_SUBMITTED, count_start, (void *)(intptr_t)(2 * i)),
                  CL_SUCCESS);
        KT_EXPECT(clSetEventCallback(e, CL_RUNNING, count_start, (void *)(intptr_t)(2 * i + 1)),
                  CL_SUCCESS);
        clReleaseEvent(e);
    }
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    int missing = 0, twice = 0;
    for (int i = 0; i < race_commands; i++)
        for (int s = 0; s < 2; s++) {
            int n = atomic_load(&race_count[i][s]);
            missing += n == 0;
            twice += n > 1;
        }
    KT_CHECK(missing == 0 && twice == 0 && atomic_load(&race_wrong) == 0 &&
                 atomic_load(&race_late) == 0,
             "%d callbacks never called, %d called twice, %d with a wrong status, %d only once "
             "their command had completed",
             missing, twice, atomic_load(&race_wrong), atomic_load(&race_late));
    clReleaseEvent(gate);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* A callback that re-enters the runtime: with any Kiln lock held this deadlocks. */
static struct kt_env *reentry_env;
static atomic_int reentry_done;
static void CL_CALLBACK reenter(cl_event e, cl_int status, void *data)
{
    (void)data;
    cl_int st = 99;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
    if (st != status)
        record(-1, st);
    /* The event's own lock, then the queue's lock and a new command. */
    clSetEventCallback(e, CL_COMPLETE, on_event, (void *)77);
    cl_event m = NULL;
    if (clEnqueueMarkerWithWaitList(reentry_env->queue, 1, &e, &m) == CL_SUCCESS) {
        clSetEventCallback(m, CL_COMPLETE, on_event, (void *)78);
        clReleaseEvent(m);
    }
    atomic_store(&reentry_done, 1);
}

static void test_reentry(struct kt_env *env)
{
    cl_int err;
    reset();
    reentry_env = env;
    cl_event u = clCreateUserEvent(env->context, &err);
    cl_event m = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &m), CL_SUCCESS);
    KT_EXPECT(clSetEventCallback(m, CL_COMPLETE, reenter, NULL), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(wait_calls(2) == 2, "%d calls", atomic_load(&num_calls));
    KT_CHECK(atomic_load(&reentry_done), "the re-entering callback finished");
    int tags = 0;
    for (int i = 0; i < 2; i++)
        tags += calls[i].tag;
    KT_CHECK(tags == 77 + 78, "callbacks from inside a callback: %d/%d", calls[0].tag,
             calls[1].tag);
    clReleaseEvent(m);
    clReleaseEvent(u);
}

static void CL_CALLBACK on_mem(cl_mem m, void *data)
{
    (void)m;
    record((int)(intptr_t)data, 0);
}

static void CL_CALLBACK free_host(cl_mem m, void *data)
{
    (void)m;
    free(data);
    record(100, 0);
}

static void test_mem_destructors(struct kt_env *env)
{
    cl_int err;
    reset();
    KT_EXPECT(clSetMemObjectDestructorCallback(NULL, on_mem, NULL), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetMemObjectDestructorCallback((cl_mem)env->context, on_mem, NULL),
              CL_INVALID_MEM_OBJECT);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    KT_REQUIRE(b, "buffer: %d", err);
    KT_EXPECT(clSetMemObjectDestructorCallback(b, NULL, NULL), CL_INVALID_VALUE);
    for (int i = 1; i <= 3; i++)
        KT_EXPECT(clSetMemObjectDestructorCallback(b, on_mem, (void *)(intptr_t)i), CL_SUCCESS);
    KT_EXPECT(clRetainMemObject(b), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 0, "called while still referenced");
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_REQUIRE(wait_calls(3) == 3, "%d calls", atomic_load(&num_calls));
    KT_CHECK(calls[0].tag == 3 && calls[1].tag == 2 && calls[2].tag == 1, "reverse order: %d %d %d",
             calls[0].tag, calls[1].tag, calls[2].tag);

    /* Released while a command that uses it waits: called once the command is done. */
    reset();
    void *host = malloc(4096);
    KT_REQUIRE(host, "malloc");
    b = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 4096, host, &err);
    KT_REQUIRE(b, "buffer: %d", err);
    cl_int registered = clSetMemObjectDestructorCallback(b, free_host, host);
    KT_EXPECT(registered, CL_SUCCESS);
    cl_event u = clCreateUserEvent(env->context, &err);
    cl_int pattern = 5;
    KT_EXPECT(clEnqueueFillBuffer(env->queue, b, &pattern, sizeof(pattern), 0, 4096, 1, &u, NULL),
              CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 0, "called while a command uses the buffer");
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    KT_CHECK(wait_calls(1) == 1 && calls[0].tag == 100, "destructor after the command: %d calls",
             atomic_load(&num_calls));
    if (registered != CL_SUCCESS)
        free(host); /* the buffer is gone after clFinish: nothing else frees it */
    clReleaseEvent(u);

    /* A sub-buffer holds its parent: the parent's destructor waits for it. */
    reset();
    b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    cl_buffer_region r = {0, 256};
    cl_mem s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    KT_REQUIRE(s, "sub-buffer: %d", err);
    KT_EXPECT(clSetMemObjectDestructorCallback(b, on_mem, (void *)1), CL_SUCCESS);
    KT_EXPECT(clSetMemObjectDestructorCallback(s, on_mem, (void *)2), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 0, "parent freed under a live sub-buffer");
    KT_EXPECT(clReleaseMemObject(s), CL_SUCCESS);
    KT_CHECK(wait_calls(2) == 2 && calls[0].tag == 2 && calls[1].tag == 1,
             "sub-buffer, then parent: %d %d", calls[0].tag, calls[1].tag);
}

/* A completion callback that keeps its worker busy after the event is complete. */
static void CL_CALLBACK linger(cl_event e, cl_int status, void *data)
{
    (void)e;
    (void)data;
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    record(200, status);
}

/*
 * A command lets go of its kernel and buffers before its event completes: a thread that sees
 * it complete and releases its own handles finds the objects gone at once (the buffer's
 * destructor has run; the program rebuilds, no kernel attached), even while the thread that
 * completed the command is still in the event's callbacks.
 */
static void test_held_before_complete(struct kt_env *env)
{
    static const char src[] = "kernel void one(global int *p) { p[get_global_id(0)] = 1; }\n";
    cl_int err;
    cl_program p = kt_build(env, src, NULL);
    for (int round = 0; round < 5; round++) {
        reset();
        cl_kernel k = clCreateKernel(p, "one", &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
        size_t global = 4096;
        cl_mem b =
            clCreateBuffer(env->context, CL_MEM_READ_WRITE, global * sizeof(int), NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        KT_EXPECT(clSetMemObjectDestructorCallback(b, on_mem, (void *)1), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(b), &b), CL_SUCCESS);
        cl_event e;
        err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, &e);
        KT_REQUIRE(err == CL_SUCCESS, "launch: %d", err);
        cl_int lingering = clSetEventCallback(e, CL_COMPLETE, linger, NULL);
        KT_EXPECT(lingering, CL_SUCCESS);
        /* Polled, not waited for: a waiting thread may run the work and complete it itself. */
        cl_int st = CL_QUEUED;
        while (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) ==
                   CL_SUCCESS &&
               st > CL_COMPLETE)
            ;
        KT_CHECK(st == CL_COMPLETE, "round %d: status %d", round, st);
        KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
        KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
        int n = atomic_load(&num_calls), destroyed = 0;
        for (int i = 0; i < n && i < MAX_CALLS; i++)
            destroyed += calls[i].tag == 1;
        KT_CHECK(destroyed == 1, "round %d: the buffer outlived its last handle (%d calls)", round,
                 n);
        KT_EXPECT(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL), CL_SUCCESS);
        if (lingering == CL_SUCCESS)
            wait_calls(2); /* the next round's reset() must not meet this callback */
        clReleaseEvent(e);
    }
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

static void CL_CALLBACK on_context(cl_context c, void *data)
{
    (void)c;
    record((int)(intptr_t)data, 0);
}

static void test_context_destructors(struct kt_env *env)
{
    cl_int err;
    reset();
    KT_EXPECT(clSetContextDestructorCallback(NULL, on_context, NULL), CL_INVALID_CONTEXT);
    KT_EXPECT(clSetContextDestructorCallback(env->context, NULL, NULL), CL_INVALID_VALUE);
    cl_context c = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    KT_REQUIRE(c, "context: %d", err);
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &err);
    KT_REQUIRE(b, "buffer: %d", err);
    KT_EXPECT(clSetContextDestructorCallback(c, on_context, (void *)1), CL_SUCCESS);
    KT_EXPECT(clSetContextDestructorCallback(c, on_context, (void *)2), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(c), CL_SUCCESS);
    KT_CHECK(atomic_load(&num_calls) == 0, "context freed while a buffer holds it");
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_CHECK(wait_calls(2) == 2 && calls[0].tag == 2 && calls[1].tag == 1, "reverse order: %d %d",
             calls[0].tag, calls[1].tag);
}

static void CL_CALLBACK on_program(cl_program p, void *data)
{
    (void)p;
    (void)data;
}

static void test_program_release(struct kt_env *env)
{
    cl_int err;
    const char *src = "kernel void k(void) {}";
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(p, "program: %d", err);
    KT_EXPECT(clSetProgramReleaseCallback(NULL, on_program, NULL), CL_INVALID_PROGRAM);
    KT_EXPECT(clSetProgramReleaseCallback(p, NULL, NULL), CL_INVALID_VALUE);
    /* OpenCL 3.0 lets a device without program-scope global destructors refuse. */
    KT_EXPECT(clSetProgramReleaseCallback(p, on_program, NULL), CL_INVALID_OPERATION);
    clReleaseProgram(p);
}

/* test_api_callbacks [RACE_COMMANDS]: the start race's command count, 2 to 2000 (default
 * 2000). The allocation-failure sweep runs with no worker threads, where nothing races and
 * every command repeats the same allocations: it asks for 64. */
int main(int argc, char **argv)
{
    if (argc > 1) {
        int n = atoi(argv[1]);
        if (n < 2 || n > RACE_COMMANDS) {
            fprintf(stderr, "usage: %s [RACE_COMMANDS: 2 to %d]\n", argv[0], RACE_COMMANDS);
            return 2;
        }
        race_commands = n;
    }
    struct kt_env env;
    kt_setup(&env, 0);
    test_event_errors(&env);
    test_user_event(&env);
    test_command_events(&env);
    test_worker_completion(&env);
    test_start_race(&env);
    test_reentry(&env);
    test_mem_destructors(&env);
    test_held_before_complete(&env);
    test_context_destructors(&env);
    test_program_release(&env);
    kt_teardown(&env);
    return kt_finish("callbacks");
}
