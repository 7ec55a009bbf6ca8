/*
 * The host API of device-side queues (OpenCL 3.0 §5.1): what the device reports, creating
 * device queues and the shared default one, their queries, clSetDefaultDeviceCommandQueue,
 * host commands refused on a device queue, and queue_t kernel arguments.
 *
 * test_api_devqueue on   - run as the device is by default: everything above works and every
 *                          error the specification lists for it comes back;
 * test_api_devqueue off  - run with KILN_DEVICE_ENQUEUE=0: the device reports nothing of it
 *                          and every device-queue request is refused as by a device without
 *                          the feature.
 */
#include <stdbool.h>
#include <stdint.h>

#include "kiln_test.h"

static cl_event const untouched = (cl_event)0x1234;

/* A kernel with a queue_t argument: Clang accepts the type at OpenCL C 2.0. */
static const char *queue_arg_src = "kernel void k(queue_t q, global int *out)\n"
                                   "{ out[get_global_id(0)] = 7; }\n";

static cl_ulong device_u64(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0x5a5a;
    KT_EXPECT(clGetDeviceInfo(d, what, sizeof(v), &v, NULL), CL_SUCCESS);
    return v;
}

static cl_uint device_u32(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0x5a5a;
    KT_EXPECT(clGetDeviceInfo(d, what, sizeof(v), &v, NULL), CL_SUCCESS);
    return v;
}

static cl_command_queue queue_default(cl_command_queue q)
{
    cl_command_queue d = (cl_command_queue)0x1;
    size_t size = 0;
    KT_EXPECT(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof(d), &d, &size), CL_SUCCESS);
    KT_CHECK(size == sizeof(d), "CL_QUEUE_DEVICE_DEFAULT size %zu", size);
    return d;
}

static cl_uint queue_refs(cl_command_queue q)
{
    cl_uint n = 0;
    KT_EXPECT(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL), CL_SUCCESS);
    return n;
}

/* clCreateCommandQueueWithProperties that must fail with `want` and return NULL. */
static void create_fails(struct kt_env *env, const cl_queue_properties *props, cl_int want,
                         const char *what)
{
    cl_int err = 1;
    cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
    KT_CHECK(q == NULL && err == want, "%s: queue %p, err %d, want %d", what, (void *)q, err, want);
}

static cl_command_queue create_ok(struct kt_env *env, const cl_queue_properties *props,
                                  const char *what)
{
    cl_int err = 1;
    cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
    KT_REQUIRE(q != NULL && err == CL_SUCCESS, "%s: err %d", what, err);
    return q;
}

static const cl_queue_properties devq_props[] = {
    CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
static const cl_queue_properties default_props[] = {
    CL_QUEUE_PROPERTIES,
    CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};

/* ---- with device-side enqueue reported ------------------------------------------------ */

static void reported(struct kt_env *env)
{
    cl_device_id d = env->device;
    KT_CHECK(device_u64(d, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES) ==
                 (CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT),
             "CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES");
    KT_CHECK(device_u64(d, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES) ==
                 (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE),
             "CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES");
    cl_uint pref = device_u32(d, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE);
    cl_uint max = device_u32(d, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE);
    /* The specification's minimums for a full-profile device: 16 KB and 256 KB. */
    KT_CHECK(pref >= 16 * 1024 && max >= 256 * 1024 && pref <= max, "sizes %u, %u", pref, max);
    KT_CHECK(device_u32(d, CL_DEVICE_MAX_ON_DEVICE_QUEUES) > 1, "CL_DEVICE_MAX_ON_DEVICE_QUEUES");
    KT_CHECK(device_u32(d, CL_DEVICE_MAX_ON_DEVICE_EVENTS) >= 1024,
             "CL_DEVICE_MAX_ON_DEVICE_EVENTS");
    cl_bool generic = CL_FALSE;
    KT_EXPECT(clGetDeviceInfo(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof(generic), &generic,
                              NULL),
              CL_SUCCESS);
    KT_CHECK(generic == CL_TRUE, "device queues need the generic address space");
}

static void create_errors(struct kt_env *env, cl_uint max_size)
{
    cl_int err = 1;
    const cl_queue_properties no_ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
    const cl_queue_properties default_alone[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        0};
    const cl_queue_properties size_host[] = {CL_QUEUE_SIZE, 4096, 0};
    const cl_queue_properties size_host_ooo[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_SIZE, 4096, 0};
    const cl_queue_properties too_big[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_SIZE, (cl_queue_properties)max_size + 1, 0};
    const cl_queue_properties zero[] = {CL_QUEUE_PROPERTIES,
                                        CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                        CL_QUEUE_SIZE, 0, 0};
    create_fails(env, no_ooo, CL_INVALID_VALUE, "ON_DEVICE without OUT_OF_ORDER");
    create_fails(env, default_alone, CL_INVALID_VALUE, "ON_DEVICE_DEFAULT without ON_DEVICE");
    create_fails(env, size_host, CL_INVALID_VALUE, "CL_QUEUE_SIZE of a host queue");
    create_fails(env, size_host_ooo, CL_INVALID_VALUE,
                 "CL_QUEUE_SIZE of an out-of-order host queue");
    create_fails(env, too_big, CL_INVALID_VALUE, "CL_QUEUE_SIZE above the maximum");
    create_fails(env, zero, CL_INVALID_VALUE, "CL_QUEUE_SIZE 0");
    KT_CHECK(clCreateCommandQueueWithProperties(NULL, env->device, devq_props, &err) == NULL &&
                 err == CL_INVALID_CONTEXT,
             "NULL context: %d", err);
    KT_CHECK(clCreateCommandQueueWithProperties(env->context, NULL, devq_props, &err) == NULL &&
                 err == CL_INVALID_DEVICE,
             "NULL device: %d", err);
    /* clCreateCommandQueue's table has only the two host properties. */
    KT_CHECK(clCreateCommandQueue(env->context, env->device,
                                  CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                  &err) == NULL &&
                 err == CL_INVALID_VALUE,
             "clCreateCommandQueue(CL_QUEUE_ON_DEVICE): %d", err);
}

static void queries(struct kt_env *env, cl_uint pref, cl_uint max_size)
{
    const cl_queue_properties sized[] = {
        CL_QUEUE_PROPERTIES,
        CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
        CL_QUEUE_SIZE, 4096, 0};
    const cl_queue_properties largest[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_SIZE, max_size, 0};
    cl_command_queue plain = create_ok(env, devq_props, "device queue");
    cl_command_queue small = create_ok(env, sized, "device queue of 4096 bytes");
    cl_command_queue big = create_ok(env, largest, "device queue of the maximum size");
    cl_uint size = 0;
    KT_EXPECT(clGetCommandQueueInfo(plain, CL_QUEUE_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    KT_CHECK(size == pref, "default CL_QUEUE_SIZE %u, want the preferred %u", size, pref);
    KT_EXPECT(clGetCommandQueueInfo(small, CL_QUEUE_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    KT_CHECK(size == 4096, "CL_QUEUE_SIZE %u, want 4096", size);
    KT_EXPECT(clGetCommandQueueInfo(big, CL_QUEUE_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    KT_CHECK(size == max_size, "CL_QUEUE_SIZE %u, want %u", size, max_size);
    KT_EXPECT(clGetCommandQueueInfo(env->queue, CL_QUEUE_SIZE, sizeof(size), &size, NULL),
              CL_INVALID_COMMAND_QUEUE);

    cl_command_queue_properties p = 0;
    KT_EXPECT(clGetCommandQueueInfo(small, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL), CL_SUCCESS);
    KT_CHECK(p == sized[1], "CL_QUEUE_PROPERTIES 0x%llx", (unsigned long long)p);
    cl_queue_properties arr[8];
    size_t arr_size = 0;
    KT_EXPECT(clGetCommandQueueInfo(small, CL_QUEUE_PROPERTIES_ARRAY, sizeof(arr), arr, &arr_size),
              CL_SUCCESS);
    KT_CHECK(arr_size == sizeof(sized) && memcmp(arr, sized, sizeof(sized)) == 0,
             "CL_QUEUE_PROPERTIES_ARRAY: %zu bytes", arr_size);
    cl_context c = NULL;
    cl_device_id d = NULL;
    KT_EXPECT(clGetCommandQueueInfo(small, CL_QUEUE_CONTEXT, sizeof(c), &c, NULL), CL_SUCCESS);
    KT_EXPECT(clGetCommandQueueInfo(small, CL_QUEUE_DEVICE, sizeof(d), &d, NULL), CL_SUCCESS);
    KT_CHECK(c == env->context && d == env->device, "context %p, device %p", (void *)c, (void *)d);
    KT_EXPECT(clRetainCommandQueue(small), CL_SUCCESS);
    KT_CHECK(queue_refs(small) == 2, "reference count after a retain");
    KT_EXPECT(clReleaseCommandQueue(small), CL_SUCCESS);
    KT_CHECK(queue_refs(small) == 1, "reference count after a release");
    /* No default device queue yet: CL_QUEUE_DEVICE_DEFAULT is NULL, asked of either kind. */
    KT_CHECK(queue_default(env->queue) == NULL, "a default before any was made");
    KT_CHECK(queue_default(plain) == NULL, "a default before any was made");
    KT_EXPECT(clReleaseCommandQueue(plain), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(small), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(big), CL_SUCCESS);
}

static void defaults(struct kt_env *env, cl_context other)
{
    cl_int err;
    cl_command_queue d1 = create_ok(env, default_props, "default device queue");
    KT_CHECK(queue_default(env->queue) == d1, "the host queue's CL_QUEUE_DEVICE_DEFAULT");
    KT_CHECK(queue_default(d1) == d1, "the default's own CL_QUEUE_DEVICE_DEFAULT");
    /* A second request returns the same queue with one more reference (§5.1). */
    cl_command_queue again = create_ok(env, default_props, "default device queue again");
    KT_CHECK(again == d1, "second default %p, first %p", (void *)again, (void *)d1);
    KT_CHECK(queue_refs(d1) == 2, "default's reference count %u, want 2", queue_refs(d1));
    KT_EXPECT(clReleaseCommandQueue(again), CL_SUCCESS);
    KT_CHECK(queue_default(env->queue) == d1, "the default after one release");

    /* Replace it. */
    cl_command_queue q2 = create_ok(env, devq_props, "device queue");
    KT_CHECK(queue_default(q2) == d1, "a non-default device queue's CL_QUEUE_DEVICE_DEFAULT");
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, q2), CL_SUCCESS);
    KT_CHECK(queue_default(env->queue) == q2, "the default after clSetDefaultDeviceCommandQueue");
    KT_CHECK(queue_default(d1) == q2, "the old default's CL_QUEUE_DEVICE_DEFAULT");
    cl_command_queue again2 = create_ok(env, default_props, "default after replacing");
    KT_CHECK(again2 == q2, "ON_DEVICE_DEFAULT gave %p, the default is %p", (void *)again2,
             (void *)q2);
    KT_CHECK(queue_refs(q2) == 2, "replaced default's reference count");
    KT_EXPECT(clReleaseCommandQueue(again2), CL_SUCCESS);
    /* Setting it again is no change. */
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, q2), CL_SUCCESS);
    KT_CHECK(queue_default(env->queue) == q2, "the default after setting it twice");

    /* Errors, in the order the handles are checked. */
    KT_EXPECT(clSetDefaultDeviceCommandQueue(NULL, env->device, q2), CL_INVALID_CONTEXT);
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, NULL, q2), CL_INVALID_DEVICE);
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, NULL),
              CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, env->queue),
              CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(
        clSetDefaultDeviceCommandQueue(env->context, env->device, (cl_command_queue)env->context),
        CL_INVALID_COMMAND_QUEUE);
    cl_command_queue foreign =
        clCreateCommandQueueWithProperties(other, env->device, devq_props, &err);
    KT_REQUIRE(err == CL_SUCCESS, "device queue of a second context: %d", err);
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, foreign),
              CL_INVALID_COMMAND_QUEUE);
    KT_CHECK(queue_default(foreign) == NULL, "the second context has no default");
    KT_CHECK(queue_default(env->queue) == q2, "a failed call changed the default");
    KT_EXPECT(clReleaseCommandQueue(foreign), CL_SUCCESS);

    /* The default goes when its last reference does; the next request makes a new one. */
    KT_EXPECT(clReleaseCommandQueue(q2), CL_SUCCESS);
    KT_CHECK(queue_default(env->queue) == NULL, "the default outlived its last release");
    KT_CHECK(queue_default(d1) == NULL, "the default outlived its last release");
    cl_command_queue d3 = create_ok(env, default_props, "a new default");
    KT_CHECK(d3 != d1, "the new default is the old non-default queue");
    KT_CHECK(queue_default(env->queue) == d3, "the new default");
    KT_CHECK(queue_refs(d3) == 1, "the new default's reference count");
    KT_EXPECT(clReleaseCommandQueue(d3), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(d1), CL_SUCCESS);
}

/* The default and CL_DEVICE_MAX_ON_DEVICE_QUEUES more per device and context; then
 * CL_OUT_OF_RESOURCES. */
static void limit(struct kt_env *env, cl_context other)
{
    cl_uint max = device_u32(env->device, CL_DEVICE_MAX_ON_DEVICE_QUEUES) + 1;
    KT_REQUIRE(max > 1 && max <= 1u << 16, "CL_DEVICE_MAX_ON_DEVICE_QUEUES %u", max - 1);
    cl_command_queue *qs = calloc(max, sizeof(*qs));
    KT_REQUIRE(qs, "out of memory");
    qs[0] = create_ok(env, default_props, "default device queue");
    for (cl_uint i = 1; i < max; i++)
        qs[i] = create_ok(env, devq_props, "device queue below the limit");
    create_fails(env, devq_props, CL_OUT_OF_RESOURCES, "one device queue past the limit");
    /* The default exists: asking for it is no new queue. */
    cl_command_queue d = create_ok(env, default_props, "the default at the limit");
    KT_CHECK(d == qs[0], "the default at the limit is another queue");
    KT_EXPECT(clReleaseCommandQueue(d), CL_SUCCESS);
    /* Another context counts its own. */
    cl_int err;
    cl_command_queue o = clCreateCommandQueueWithProperties(other, env->device, devq_props, &err);
    KT_CHECK(o && err == CL_SUCCESS, "device queue of another context at the limit: %d", err);
    if (o)
        KT_EXPECT(clReleaseCommandQueue(o), CL_SUCCESS);
    /* Host queues do not count. */
    cl_command_queue h = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
    KT_CHECK(h && err == CL_SUCCESS, "host queue at the limit: %d", err);
    if (h)
        KT_EXPECT(clReleaseCommandQueue(h), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(qs[max - 1]), CL_SUCCESS);
    qs[max - 1] = create_ok(env, devq_props, "device queue after one was released");
    for (cl_uint i = 0; i < max; i++)
        KT_EXPECT(clReleaseCommandQueue(qs[i]), CL_SUCCESS);
    free(qs);
}

/* Every host command, clFlush and clFinish refuse a device queue, leaving *event alone. */
static void host_commands(struct kt_env *env)
{
    cl_int err;
    cl_command_queue dq = create_ok(env, devq_props, "device queue");
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem buf2 = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_program p = kt_build(env, "kernel void k(global int *a) { a[0] = 1; }", NULL);
    cl_kernel k = clCreateKernel(p, "k", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
    void *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
    KT_REQUIRE(svm, "clSVMAlloc");
    unsigned char host[64] = {0};
    size_t origin[3] = {0, 0, 0}, region[3] = {8, 1, 1}, one = 1;
    int pattern = 5;
    const cl_int inv = CL_INVALID_COMMAND_QUEUE;
    cl_event ev = untouched;

#define REFUSED(call)                                                                              \
    do {                                                                                           \
        ev = untouched;                                                                            \
        KT_EXPECT(call, inv);                                                                      \
        KT_CHECK(ev == untouched, "%s wrote *event", #call);                                       \
    } while (0)
    KT_EXPECT(clFlush(dq), inv);
    KT_EXPECT(clFinish(dq), inv);
    REFUSED(clEnqueueMarkerWithWaitList(dq, 0, NULL, &ev));
    REFUSED(clEnqueueBarrierWithWaitList(dq, 0, NULL, &ev));
    REFUSED(clEnqueueMarker(dq, &ev));
    KT_EXPECT(clEnqueueBarrier(dq), inv);
    cl_event user = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    KT_EXPECT(clEnqueueWaitForEvents(dq, 1, &user), inv);
    REFUSED(clEnqueueReadBuffer(dq, buf, CL_TRUE, 0, 64, host, 0, NULL, &ev));
    REFUSED(clEnqueueWriteBuffer(dq, buf, CL_TRUE, 0, 64, host, 0, NULL, &ev));
    REFUSED(clEnqueueCopyBuffer(dq, buf, buf2, 0, 0, 64, 0, NULL, &ev));
    REFUSED(clEnqueueFillBuffer(dq, buf, &pattern, sizeof(pattern), 0, 64, 0, NULL, &ev));
    REFUSED(clEnqueueReadBufferRect(dq, buf, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0,
                                    NULL, &ev));
    REFUSED(clEnqueueWriteBufferRect(dq, buf, CL_TRUE, origin, origin, region, 0, 0, 0, 0, host, 0,
                                     NULL, &ev));
    REFUSED(
        clEnqueueCopyBufferRect(dq, buf, buf2, origin, origin, region, 0, 0, 0, 0, 0, NULL, &ev));
    err = 1;
    ev = untouched;
    void *map = clEnqueueMapBuffer(dq, buf, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, &ev, &err);
    KT_CHECK(map == NULL && err == inv && ev == untouched, "clEnqueueMapBuffer: %p, %d", map, err);
    REFUSED(clEnqueueUnmapMemObject(dq, buf, host, 0, NULL, &ev));
    REFUSED(clEnqueueMigrateMemObjects(dq, 1, &buf, 0, 0, NULL, &ev));
    REFUSED(clEnqueueNDRangeKernel(dq, k, 1, NULL, &one, NULL, 0, NULL, &ev));
    REFUSED(clEnqueueTask(dq, k, 0, NULL, &ev));
    REFUSED(clEnqueueSVMMemcpy(dq, CL_TRUE, svm, host, 64, 0, NULL, &ev));
    REFUSED(clEnqueueSVMMemFill(dq, svm, &pattern, sizeof(pattern), 64, 0, NULL, &ev));
    REFUSED(clEnqueueSVMMap(dq, CL_TRUE, CL_MAP_READ, svm, 64, 0, NULL, &ev));
    REFUSED(clEnqueueSVMUnmap(dq, svm, 0, NULL, &ev));
    REFUSED(clEnqueueSVMFree(dq, 1, &svm, NULL, NULL, 0, NULL, &ev));
    const void *svms[] = {svm};
    REFUSED(clEnqueueSVMMigrateMem(dq, 1, svms, NULL, 0, 0, NULL, &ev));
    REFUSED(clEnqueueReadImage(dq, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, &ev));
#undef REFUSED

    /* The same calls on the host queue still work. */
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, 0, 64, host, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);

    KT_EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(user), CL_SUCCESS);
    clSVMFree(env->context, svm);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(buf2), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(dq), CL_SUCCESS);
}

/* queue_t kernel arguments take exactly the live device queues of the kernel's context. */
static void queue_args(struct kt_env *env, cl_context other)
{
    cl_int err;
    cl_program p = kt_build(env, queue_arg_src, "-cl-std=CL2.0 -cl-kernel-arg-info");
    cl_kernel k = clCreateKernel(p, "k", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    char type[32] = "";
    KT_EXPECT(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(type), type, NULL),
              CL_SUCCESS);
    KT_CHECK(strcmp(type, "queue_t") == 0, "argument 0 is a '%s'", type);

    cl_command_queue dq = create_ok(env, devq_props, "device queue");
    cl_command_queue foreign =
        clCreateCommandQueueWithProperties(other, env->device, devq_props, &err);
    KT_REQUIRE(err == CL_SUCCESS, "device queue of a second context: %d", err);
    /* Bytes that are no queue, read by nobody: a small integer and a heap block of garbage. */
    cl_command_queue small = (cl_command_queue)(uintptr_t)0x10;
    unsigned char *junk = malloc(256);
    KT_REQUIRE(junk, "out of memory");
    memset(junk, 0xa5, 256);
    cl_command_queue garbage = (cl_command_queue)junk;
    cl_command_queue null_q = NULL;

    KT_EXPECT(clSetKernelArg(k, 0, sizeof(env->queue), &env->queue), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(foreign), &foreign), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(small), &small), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(garbage), &garbage), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(null_q), &null_q), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(dq), NULL), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 0, 4, &dq), CL_INVALID_ARG_SIZE);
    free(junk);

    /* A kernel with a device queue set runs (it does not use the queue yet). */
    cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(dq), &dq), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(out), &out), CL_SUCCESS);
    size_t global = 4;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    int result[4] = {0};
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(result), result, 0, NULL, NULL),
        CL_SUCCESS);
    KT_CHECK(result[0] == 7 && result[3] == 7, "results %d %d", result[0], result[3]);

    /* The default device queue is a device queue too. */
    cl_command_queue d = create_ok(env, default_props, "default device queue");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(d), &d), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(d), CL_SUCCESS);
    /* Its last release took it off the list: the argument no longer names a live queue. */
    cl_event ev = untouched;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev),
              CL_INVALID_KERNEL_ARGS);
    KT_CHECK(ev == untouched, "event written on failure");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(d), &d), CL_INVALID_DEVICE_QUEUE);

    KT_EXPECT(clReleaseMemObject(out), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(foreign), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(dq), CL_SUCCESS);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

/* ---- without the switch ----------------------------------------------------------------- */

static void unsupported(struct kt_env *env)
{
    cl_device_id d = env->device;
    KT_CHECK(device_u64(d, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES) == 0, "capabilities");
    KT_CHECK(device_u64(d, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES) == 0, "on-device properties");
    KT_CHECK(device_u32(d, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE) == 0, "preferred size");
    KT_CHECK(device_u32(d, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE) == 0, "max size");
    KT_CHECK(device_u32(d, CL_DEVICE_MAX_ON_DEVICE_QUEUES) == 0, "max queues");
    KT_CHECK(device_u32(d, CL_DEVICE_MAX_ON_DEVICE_EVENTS) == 0, "max events");
    const cl_queue_properties sized[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_SIZE, 4096, 0};
    create_fails(env, devq_props, CL_INVALID_QUEUE_PROPERTIES, "device queue");
    create_fails(env, default_props, CL_INVALID_QUEUE_PROPERTIES, "default device queue");
    create_fails(env, sized, CL_INVALID_QUEUE_PROPERTIES, "device queue with a size");
    cl_uint size = 0;
    KT_EXPECT(clGetCommandQueueInfo(env->queue, CL_QUEUE_SIZE, sizeof(size), &size, NULL),
              CL_INVALID_COMMAND_QUEUE);
    KT_CHECK(queue_default(env->queue) == NULL, "CL_QUEUE_DEVICE_DEFAULT of a host queue");
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, NULL),
              CL_INVALID_OPERATION);
    KT_EXPECT(clSetDefaultDeviceCommandQueue(env->context, env->device, env->queue),
              CL_INVALID_OPERATION);
    /* A queue_t kernel still builds, but no queue can be its argument. */
    cl_int err;
    cl_program p = kt_build(env, queue_arg_src, "-cl-std=CL2.0");
    cl_kernel k = clCreateKernel(p, "k", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(env->queue), &env->queue), CL_INVALID_DEVICE_QUEUE);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool on = strcmp(mode, "on") == 0;
    if (!on && strcmp(mode, "off") != 0) {
        fprintf(stderr, "usage: %s on|off (off: run with KILN_DEVICE_ENQUEUE=0)\n", argv[0]);
        return 2;
    }
    const char *env_value = getenv("KILN_DEVICE_ENQUEUE");
    bool off = env_value && strcmp(env_value, "0") == 0;
    KT_REQUIRE(off != on, "mode %s needs KILN_DEVICE_ENQUEUE %s", mode, on ? "unset" : "=0");

    struct kt_env env;
    kt_setup(&env, 0);
    if (on) {
        cl_int err;
        cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "second context: %d", err);
        cl_uint pref = device_u32(env.device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE);
        cl_uint max_size = device_u32(env.device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE);
        reported(&env);
        create_errors(&env, max_size);
        queries(&env, pref, max_size);
        defaults(&env, other);
        limit(&env, other);
        host_commands(&env);
        queue_args(&env, other);
        KT_EXPECT(clReleaseContext(other), CL_SUCCESS);
    } else {
        unsupported(&env);
    }
    kt_teardown(&env);
    return kt_finish(on ? "api/devqueue" : "api/devqueue-off");
}
