/*
 * clCloneKernel (the clone starts with the source's argument values and then
 * lives its own life) and clEnqueueMigrateMemObjects (validation, and a real
 * command: an event of the right type, ordered in its queue, failing with a
 * failed wait list).
 */
#include "kiln_test.h"

static const char *src = "kernel void axpb(global int *out, int a, int b)\n"
                         "{ size_t i = get_global_id(0); out[i] = a * (int)i + b; }\n";

static void run_and_check(struct kt_env *env, cl_kernel k, cl_mem out, int a, int b,
                          const char *what)
{
    enum { N = 64 };
    const size_t n = N;
    cl_int got[N];
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
              CL_SUCCESS);
    for (int i = 0; i < N; i++)
        if (got[i] != a * i + b) {
            KT_CHECK(0, "%s: out[%d] = %d, want %d", what, i, got[i], a * i + b);
            break;
        }
}

static void test_clone(struct kt_env *env)
{
    cl_int err;
    KT_CHECK(clCloneKernel(NULL, &err) == NULL && err == CL_INVALID_KERNEL, "NULL: %d", err);
    KT_CHECK(clCloneKernel((cl_kernel)env->queue, &err) == NULL && err == CL_INVALID_KERNEL,
             "a queue: %d", err);
    cl_program p = kt_build(env, src, NULL);
    cl_kernel k = clCreateKernel(p, "axpb", &err);
    KT_REQUIRE(k, "kernel: %d", err);
    cl_mem out1 = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
    cl_mem out2 = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
    KT_REQUIRE(out1 && out2, "buffers: %d", err);
    cl_int a = 3, b = 11;
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(out1), &out1), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(a), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(b), &b), CL_SUCCESS);

    cl_kernel c = clCloneKernel(k, &err);
    KT_REQUIRE(c && err == CL_SUCCESS, "clone: %d", err);
    KT_CHECK(c != k, "the clone is a new object");
    /* The clone runs with the copied values. */
    run_and_check(env, c, out1, 3, 11, "clone with copied arguments");
    /* Changing the source does not change the clone, and the other way round. */
    cl_int a2 = -2;
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(a2), &a2), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(c, 0, sizeof(out2), &out2), CL_SUCCESS);
    run_and_check(env, c, out2, 3, 11, "clone after the source changed");
    run_and_check(env, k, out1, -2, 11, "source after the clone changed");

    /* Same program, name and argument count; its own reference count. */
    cl_program cp = NULL;
    char name[32] = "";
    cl_uint nargs = 0, refs = 0;
    KT_EXPECT(clGetKernelInfo(c, CL_KERNEL_PROGRAM, sizeof(cp), &cp, NULL), CL_SUCCESS);
    KT_EXPECT(clGetKernelInfo(c, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL), CL_SUCCESS);
    KT_EXPECT(clGetKernelInfo(c, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    KT_EXPECT(clGetKernelInfo(c, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    KT_CHECK(cp == p && strcmp(name, "axpb") == 0 && nargs == 3 && refs == 1,
             "clone info: %p %s %u %u", (void *)cp, name, nargs, refs);

    /* A clone of a kernel with unset arguments: they stay unset. */
    cl_kernel fresh = clCreateKernel(p, "axpb", &err);
    cl_kernel fc = clCloneKernel(fresh, &err);
    KT_REQUIRE(fc, "clone of a fresh kernel: %d", err);
    const size_t n = 64;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, fc, 1, NULL, &n, NULL, 0, NULL, NULL),
              CL_INVALID_KERNEL_ARGS);
    /* The source may go first: the clone keeps its program. */
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    run_and_check(env, c, out2, 3, 11, "clone outliving the source and the program");
    clReleaseKernel(fc);
    clReleaseKernel(fresh);
    clReleaseKernel(c);
    clReleaseMemObject(out1);
    clReleaseMemObject(out2);
}

static void test_migrate(struct kt_env *env)
{
    cl_int err;
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 256, NULL, &err);
    KT_REQUIRE(b, "buffer: %d", err);
    cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    cl_mem ob = clCreateBuffer(other, CL_MEM_READ_WRITE, 256, NULL, &err);
    KT_REQUIRE(ob, "buffer of another context: %d", err);
    cl_command_queue q = env->queue;
    cl_event ev = (cl_event)0x1;

    KT_EXPECT(clEnqueueMigrateMemObjects(NULL, 1, &b, 0, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 0, &b, 0, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 1, NULL, 0, 0, NULL, &ev), CL_INVALID_VALUE);
    cl_mem bad[2] = {b, (cl_mem)q};
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 2, bad, 0, 0, NULL, &ev), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 1, &ob, 0, 0, NULL, &ev), CL_INVALID_CONTEXT);
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 1, &b, 0x100, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 1, &b, 0, 1, NULL, &ev), CL_INVALID_EVENT_WAIT_LIST);
    KT_CHECK(ev == (cl_event)0x1, "event written on failure");

    /* Ordered behind a waiting command; completes after it with its own type. */
    cl_event u = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_int pattern = 9;
    KT_EXPECT(clEnqueueFillBuffer(q, b, &pattern, sizeof(pattern), 0, 256, 1, &u, NULL),
              CL_SUCCESS);
    err = clEnqueueMigrateMemObjects(
        q, 1, &b, CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL,
        &ev);
    if (err != CL_SUCCESS)
        clSetUserEventStatus(u, CL_COMPLETE); /* let the fill go before the test stops */
    KT_REQUIRE(err == CL_SUCCESS, "clEnqueueMigrateMemObjects: %d", err);
    cl_int st = 0;
    KT_EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
              CL_SUCCESS);
    KT_CHECK(st == CL_QUEUED, "migration ran before the command ahead of it: %d", st);
    cl_command_type type = 0;
    KT_EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_MIGRATE_MEM_OBJECTS, "type 0x%x", type);
    KT_EXPECT(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    clReleaseEvent(u);

    /* A failed wait list fails the migration. */
    u = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(u != NULL, "clCreateUserEvent: %d", err);
    ev = NULL;
    KT_EXPECT(clEnqueueMigrateMemObjects(q, 1, &b, 0, 1, &u, &ev), CL_SUCCESS);
    KT_REQUIRE(ev != NULL, "clEnqueueMigrateMemObjects gave no event");
    KT_EXPECT(clSetUserEventStatus(u, -3), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(ev);
    clReleaseEvent(u);
    KT_EXPECT(clFinish(q), CL_SUCCESS);
    clReleaseMemObject(ob);
    clReleaseContext(other);
    clReleaseMemObject(b);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    test_clone(&env);
    test_migrate(&env);
    kt_teardown(&env);
    return kt_finish("clone_migrate");
}
