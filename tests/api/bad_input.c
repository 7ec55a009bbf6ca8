/*
 * The CL_INVALID_* lists of OpenCL 3.0 for contexts, queues, buffers, programs,
 * kernels and events, entry point by entry point: each bad call gets the code
 * the specification names, and leaves its outputs (the returned handle, *event,
 * param_value, param_value_size_ret, counts) untouched. errors.c and
 * subbuffers.c hold the cases that came first; this file the rest.
 */
#include <stdbool.h>

#include "kiln_test.h"

static cl_event const untouched = (cl_event)0x1234;
static const size_t size_untouched = 0xdeadbeef;

static const char *src = "kernel void k(global int *a, int v) { a[get_global_id(0)] = v; }\n"
                         "kernel void k2(global int *a) { a[0] = 2; }\n";

static void CL_CALLBACK ctx_notify(const char *e, const void *i, size_t s, void *u)
{
    (void)e, (void)i, (void)s, (void)u;
}

static void CL_CALLBACK ev_notify(cl_event e, cl_int s, void *u)
{
    (void)e, (void)s, (void)u;
}

static void CL_CALLBACK build_notify(cl_program p, void *u)
{
    (void)p, (void)u;
}

static void CL_CALLBACK ctx_dtor(cl_context c, void *u)
{
    (void)c, (void)u;
}

/* A create call that must fail with `want`, return NULL and write `want` to errcode_ret. */
#define EXPECT_CREATE_FAILS(call, want)                                                            \
    do {                                                                                           \
        cl_int e_ = 1;                                                                             \
        void *h_ = (void *)(call);                                                                 \
        KT_CHECK(h_ == NULL && e_ == (want), "%s: handle %p, err %d, want %s", #call, h_, e_,      \
                 #want);                                                                           \
        if (h_)                                                                                    \
            fprintf(stderr, "(leaking %p)\n", h_);                                                 \
    } while (0)

/*
 * fn(handle, name, size, param_value, param_value_size_ret), an info query, must fail
 * with `want` and change neither param_value (64 bytes) nor param_value_size_ret.
 */
#define EXPECT_INFO_FAILS(fn, handle, name, size, want)                                            \
    do {                                                                                           \
        unsigned char buf_[64];                                                                    \
        memset(buf_, 0xa5, sizeof(buf_));                                                          \
        size_t ret_ = size_untouched;                                                              \
        cl_int got_ = fn(handle, name, size, buf_, &ret_);                                         \
        KT_CHECK(got_ == (want), "%s(%s): got %d, want %s", #fn, #name, got_, #want);              \
        KT_CHECK(ret_ == size_untouched, "%s(%s): size_ret written on failure", #fn, #name);       \
        bool same_ = true;                                                                         \
        for (size_t i_ = 0; i_ < sizeof(buf_); i_++)                                               \
            same_ &= buf_[i_] == 0xa5;                                                             \
        KT_CHECK(same_, "%s(%s): param_value written on failure", #fn, #name);                     \
    } while (0)

/* An enqueue that must fail with `want` and leave *event alone. `EV` names the event pointer. */
#define EXPECT_ENQUEUE_FAILS(want, ...)                                                            \
    do {                                                                                           \
        cl_event ev_ = untouched;                                                                  \
        cl_event *EV = &ev_;                                                                       \
        cl_int got_ = (__VA_ARGS__);                                                               \
        KT_CHECK(got_ == (want), "%s: got %d, want %s", #__VA_ARGS__, got_, #want);                \
        KT_CHECK(ev_ == untouched, "%s: event written on failure", #__VA_ARGS__);                  \
    } while (0)

static void contexts(struct kt_env *env)
{
    cl_device_id dev = env->device;
    cl_device_id bad_dev = (cl_device_id)env->queue;
    cl_context_properties bogus_platform[] = {CL_CONTEXT_PLATFORM,
                                              (cl_context_properties)env->queue, 0};
    cl_context_properties unknown[] = {0x7777, 1, 0};
    cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
                                     CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0};
    int user = 0;

    /* clCreateContext */
    EXPECT_CREATE_FAILS(clCreateContext(bogus_platform, 1, &dev, NULL, NULL, &e_),
                        CL_INVALID_PLATFORM);
    EXPECT_CREATE_FAILS(clCreateContext(unknown, 1, &dev, NULL, NULL, &e_), CL_INVALID_PROPERTY);
    EXPECT_CREATE_FAILS(clCreateContext(twice, 1, &dev, NULL, NULL, &e_), CL_INVALID_PROPERTY);
    EXPECT_CREATE_FAILS(clCreateContext(NULL, 0, &dev, NULL, NULL, &e_), CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateContext(NULL, 1, NULL, NULL, NULL, &e_), CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateContext(NULL, 1, &dev, NULL, &user, &e_), CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateContext(NULL, 1, &bad_dev, NULL, NULL, &e_), CL_INVALID_DEVICE);
    cl_device_id with_null[2] = {dev, NULL};
    EXPECT_CREATE_FAILS(clCreateContext(NULL, 2, with_null, NULL, NULL, &e_), CL_INVALID_DEVICE);
    /* A NULL errcode_ret is allowed. */
    KT_CHECK(clCreateContext(NULL, 0, &dev, NULL, NULL, NULL) == NULL, "NULL errcode_ret");

    /* clCreateContextFromType */
    EXPECT_CREATE_FAILS(
        clCreateContextFromType(bogus_platform, CL_DEVICE_TYPE_CPU, NULL, NULL, &e_),
        CL_INVALID_PLATFORM);
    /* With Kiln's platform named, so that the ICD loader hands the call to Kiln. */
    cl_context_properties unknown_after[] = {CL_CONTEXT_PLATFORM,
                                             (cl_context_properties)env->platform, 0x7777, 1, 0};
    EXPECT_CREATE_FAILS(clCreateContextFromType(unknown_after, CL_DEVICE_TYPE_CPU, NULL, NULL, &e_),
                        CL_INVALID_PROPERTY);
    EXPECT_CREATE_FAILS(clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, &user, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateContextFromType(NULL, 0, NULL, NULL, &e_), CL_INVALID_DEVICE_TYPE);
    EXPECT_CREATE_FAILS(clCreateContextFromType(NULL, (cl_device_type)1 << 40, NULL, NULL, &e_),
                        CL_INVALID_DEVICE_TYPE);
    EXPECT_CREATE_FAILS(clCreateContextFromType(NULL, CL_DEVICE_TYPE_GPU, NULL, NULL, &e_),
                        CL_DEVICE_NOT_FOUND);
    EXPECT_CREATE_FAILS(
        clCreateContextFromType(NULL, CL_DEVICE_TYPE_ACCELERATOR, ctx_notify, NULL, &e_),
        CL_DEVICE_NOT_FOUND);

    /* Retain, release, info, destructor callback */
    KT_EXPECT(clRetainContext(NULL), CL_INVALID_CONTEXT);
    KT_EXPECT(clRetainContext((cl_context)env->queue), CL_INVALID_CONTEXT);
    KT_EXPECT(clReleaseContext(NULL), CL_INVALID_CONTEXT);
    EXPECT_INFO_FAILS(clGetContextInfo, NULL, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint),
                      CL_INVALID_CONTEXT);
    EXPECT_INFO_FAILS(clGetContextInfo, (cl_context)dev, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint),
                      CL_INVALID_CONTEXT);
    EXPECT_INFO_FAILS(clGetContextInfo, env->context, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetContextInfo, env->context, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint) - 1,
                      CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetContextInfo, env->context, CL_CONTEXT_DEVICES, 1, CL_INVALID_VALUE);
    KT_EXPECT(clSetContextDestructorCallback(NULL, ctx_dtor, NULL), CL_INVALID_CONTEXT);
    KT_EXPECT(clSetContextDestructorCallback(env->context, NULL, NULL), CL_INVALID_VALUE);

    /* Devices: retain and release of something that is not one */
    KT_EXPECT(clRetainDevice(NULL), CL_INVALID_DEVICE);
    KT_EXPECT(clReleaseDevice((cl_device_id)env->context), CL_INVALID_DEVICE);
}

static void queues(struct kt_env *env)
{
    cl_device_id dev = env->device;
    cl_queue_properties unknown[] = {0x7777, 0, 0};
    cl_queue_properties bad_bits[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)1 << 40, 0};
    /* A device queue must be out of order; without device queues (KILN_DEVICE_ENQUEUE=0) the
     * property itself is refused first. */
    cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
    cl_device_device_enqueue_capabilities devq = 0;
    clGetDeviceInfo(dev, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(devq), &devq, NULL);

    /* clCreateCommandQueueWithProperties */
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(NULL, dev, NULL, &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties((cl_context)dev, dev, NULL, &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(env->context, NULL, NULL, &e_),
                        CL_INVALID_DEVICE);
    EXPECT_CREATE_FAILS(
        clCreateCommandQueueWithProperties(env->context, (cl_device_id)env->context, NULL, &e_),
        CL_INVALID_DEVICE);
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(env->context, dev, unknown, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(env->context, dev, bad_bits, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(env->context, dev, on_device, &e_),
                        devq ? CL_INVALID_VALUE : CL_INVALID_QUEUE_PROPERTIES);

    /* clCreateCommandQueue (OpenCL 1.x) */
    EXPECT_CREATE_FAILS(clCreateCommandQueue(NULL, dev, 0, &e_), CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateCommandQueue(env->context, NULL, 0, &e_), CL_INVALID_DEVICE);
    EXPECT_CREATE_FAILS(
        clCreateCommandQueue(env->context, dev, (cl_command_queue_properties)1 << 40, &e_),
        CL_INVALID_VALUE);

    /* A device of another context: a sub-device is not in env->context. */
    cl_uint cus = 0;
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL),
              CL_SUCCESS);
    if (cus >= 2) {
        cl_device_partition_property part[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1,
                                               CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
        cl_device_id sub = NULL;
        cl_uint nsub = 0;
        KT_EXPECT(clCreateSubDevices(dev, part, 1, &sub, &nsub), CL_SUCCESS);
        if (sub) {
            EXPECT_CREATE_FAILS(clCreateCommandQueueWithProperties(env->context, sub, NULL, &e_),
                                CL_INVALID_DEVICE);
            EXPECT_CREATE_FAILS(clCreateCommandQueue(env->context, sub, 0, &e_), CL_INVALID_DEVICE);
            KT_EXPECT(clReleaseDevice(sub), CL_SUCCESS);
        }
    }

    /* Retain, release, info, flush, finish */
    KT_EXPECT(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clReleaseCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clReleaseCommandQueue((cl_command_queue)env->context), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clFlush((cl_command_queue)env->context), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clFinish((cl_command_queue)env->context), CL_INVALID_COMMAND_QUEUE);
    EXPECT_INFO_FAILS(clGetCommandQueueInfo, NULL, CL_QUEUE_CONTEXT, sizeof(cl_context),
                      CL_INVALID_COMMAND_QUEUE);
    EXPECT_INFO_FAILS(clGetCommandQueueInfo, (cl_command_queue)env->context, CL_QUEUE_CONTEXT,
                      sizeof(cl_context), CL_INVALID_COMMAND_QUEUE);
    EXPECT_INFO_FAILS(clGetCommandQueueInfo, env->queue, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetCommandQueueInfo, env->queue, CL_QUEUE_PROPERTIES, 1, CL_INVALID_VALUE);
}

static void buffers(struct kt_env *env, cl_context other, cl_command_queue other_q)
{
    cl_int err;
    int host[64] = {0};
    cl_ulong max_alloc = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc),
                              &max_alloc, NULL),
              CL_SUCCESS);

    /* clCreateBuffer, clCreateBufferWithProperties */
    EXPECT_CREATE_FAILS(clCreateBuffer((cl_context)env->device, 0, 16, NULL, &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateBuffer(env->context, (cl_mem_flags)1 << 40, 16, NULL, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(
        clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_READ_WRITE, 16, NULL, &e_),
        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(
        clCreateBuffer(env->context, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 16, NULL, &e_),
        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(
        clCreateBuffer(env->context, CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY, 16, NULL, &e_),
        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(
        clCreateBuffer(env->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_USE_HOST_PTR, 16, host, &e_),
        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, 16, NULL, &e_),
                        CL_INVALID_HOST_PTR);
    EXPECT_CREATE_FAILS(clCreateBuffer(env->context, 0, (size_t)max_alloc + 1, NULL, &e_),
                        CL_INVALID_BUFFER_SIZE);
    cl_mem_properties unknown[] = {0x7777, 1, 0};
    EXPECT_CREATE_FAILS(clCreateBufferWithProperties(env->context, unknown, 0, 16, NULL, &e_),
                        CL_INVALID_PROPERTY);
    EXPECT_CREATE_FAILS(clCreateBufferWithProperties(NULL, NULL, 0, 16, NULL, &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateBufferWithProperties(env->context, NULL, 0, 0, NULL, &e_),
                        CL_INVALID_BUFFER_SIZE);

    /* Retain, release, info, destructor callback */
    KT_EXPECT(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clRetainMemObject((cl_mem)env->context), CL_INVALID_MEM_OBJECT);
    EXPECT_INFO_FAILS(clGetMemObjectInfo, NULL, CL_MEM_SIZE, sizeof(size_t), CL_INVALID_MEM_OBJECT);
    EXPECT_INFO_FAILS(clGetMemObjectInfo, (cl_mem)env->queue, CL_MEM_SIZE, sizeof(size_t),
                      CL_INVALID_MEM_OBJECT);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    EXPECT_INFO_FAILS(clGetMemObjectInfo, b, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetMemObjectInfo, b, CL_MEM_SIZE, sizeof(size_t) - 1, CL_INVALID_VALUE);
    KT_EXPECT(clSetMemObjectDestructorCallback(NULL, NULL, NULL), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetMemObjectDestructorCallback(b, NULL, NULL), CL_INVALID_VALUE);

    /* Read, write: handles, contexts, bounds, pointers, wait lists */
    cl_event user = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_event other_user = clCreateUserEvent(other, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_event bad_ev = (cl_event)env->queue;
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE,
                         clEnqueueReadBuffer(NULL, b, CL_TRUE, 0, 4, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueReadBuffer(env->queue, NULL, CL_TRUE, 0, 4, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueReadBuffer(other_q, b, CL_TRUE, 0, 4, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(
        CL_INVALID_VALUE,
        clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(host) + 1, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE, clEnqueueReadBuffer(env->queue, b, CL_TRUE, (size_t)-4,
                                                               8, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, 4, host, 1, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, 4, host, 0, &user, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, 4, host, 1, &bad_ev, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT, clEnqueueReadBuffer(env->queue, b, CL_FALSE, 0, 4,
                                                                 host, 1, &other_user, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueWriteBuffer(env->queue, b, CL_TRUE, 0, 4, NULL, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE, clEnqueueWriteBuffer(env->queue, b, CL_TRUE, 4,
                                                                sizeof(host), host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueWriteBuffer(other_q, b, CL_TRUE, 0, 4, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(
        CL_INVALID_MEM_OBJECT,
        clEnqueueWriteBuffer(env->queue, (cl_mem)env->queue, CL_TRUE, 0, 4, host, 0, NULL, EV));
    cl_mem no_access = clCreateBuffer(env->context, CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "HOST_NO_ACCESS buffer: %d", err);
    EXPECT_ENQUEUE_FAILS(CL_INVALID_OPERATION, clEnqueueReadBuffer(env->queue, no_access, CL_TRUE,
                                                                   0, 4, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_OPERATION, clEnqueueWriteBuffer(env->queue, no_access, CL_TRUE,
                                                                    0, 4, host, 0, NULL, EV));

    /* Copy */
    cl_mem b2 = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueCopyBuffer(env->queue, NULL, b2, 0, 0, 4, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueCopyBuffer(env->queue, b, NULL, 0, 0, 4, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueCopyBuffer(other_q, b, b2, 0, 0, 4, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueCopyBuffer(env->queue, b, b2, 0, 0, 65, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE, clEnqueueCopyBuffer(env->queue, b, b2, sizeof(host) - 2,
                                                               0, 4, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueCopyBuffer(env->queue, b, b2, 0, 0, 4, 2, NULL, EV));

    /* Fill: pattern, sizes, alignment of offset and size to the pattern */
    int pat[32] = {0};
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueFillBuffer(env->queue, b, NULL, 4, 0, 16, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueFillBuffer(env->queue, b, pat, 0, 0, 16, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueFillBuffer(env->queue, b, pat, 256, 0, 256, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueFillBuffer(env->queue, b, pat, 4, 0, 6, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE, clEnqueueFillBuffer(env->queue, b, pat, 4, 0,
                                                               sizeof(host) + 4, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueFillBuffer(other_q, b, pat, 4, 0, 16, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueFillBuffer(env->queue, NULL, pat, 4, 0, 16, 0, NULL, EV));

    /* Map, unmap */
    cl_int merr = 1;
    void *p =
        clEnqueueMapBuffer(env->queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0,
                           16, 0, NULL, NULL, &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_VALUE, "map READ|WRITE_INVALIDATE: %p %d", p, merr);
    cl_event ev = untouched;
    p = clEnqueueMapBuffer(env->queue, b, CL_TRUE, CL_MAP_READ, 8, sizeof(host), 0, NULL, &ev,
                           &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_VALUE && ev == untouched, "map out of range: %p %d", p,
             merr);
    p = clEnqueueMapBuffer(env->queue, b, CL_TRUE, (cl_map_flags)1 << 20, 0, 16, 0, NULL, &ev,
                           &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_VALUE && ev == untouched, "unknown map flag: %p %d", p,
             merr);
    p = clEnqueueMapBuffer(other_q, b, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, &ev, &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_CONTEXT && ev == untouched, "map in other context: %d",
             merr);
    p = clEnqueueMapBuffer(env->queue, no_access, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, &ev, &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_OPERATION && ev == untouched,
             "map of HOST_NO_ACCESS: %d", merr);
    p = clEnqueueMapBuffer(env->queue, NULL, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, &ev, &merr);
    KT_CHECK(p == NULL && merr == CL_INVALID_MEM_OBJECT && ev == untouched, "map of NULL: %d",
             merr);
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueUnmapMemObject(env->queue, NULL, host, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE,
                         clEnqueueUnmapMemObject(NULL, b, host, 0, NULL, EV));

    /* Migrate */
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueMigrateMemObjects(env->queue, 0, &b, 0, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueMigrateMemObjects(env->queue, 1, NULL, 0, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_VALUE,
                         clEnqueueMigrateMemObjects(env->queue, 1, &b,
                                                    (cl_mem_migration_flags)1 << 20, 0, NULL, EV));
    cl_mem bad_list[2] = {b, NULL};
    EXPECT_ENQUEUE_FAILS(CL_INVALID_MEM_OBJECT,
                         clEnqueueMigrateMemObjects(env->queue, 2, bad_list, 0, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueMigrateMemObjects(other_q, 1, &b, 0, 0, NULL, EV));

    KT_EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(other_user, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(user), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(other_user), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(no_access), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b2), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
}

static void programs(struct kt_env *env)
{
    cl_int err;
    const char *strings[2] = {src, NULL};
    int user = 0;

    /* clCreateProgramWithSource */
    EXPECT_CREATE_FAILS(clCreateProgramWithSource(NULL, 1, &src, NULL, &e_), CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateProgramWithSource(env->context, 1, NULL, NULL, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateProgramWithSource(env->context, 2, strings, NULL, &e_),
                        CL_INVALID_VALUE);
    /* clCreateProgramWithIL: no device of the context takes IL */
    static const unsigned char il[20] = {0x03, 0x02, 0x23, 0x07};
    EXPECT_CREATE_FAILS(clCreateProgramWithIL(NULL, il, sizeof(il), &e_), CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateProgramWithIL(env->context, NULL, sizeof(il), &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateProgramWithIL(env->context, il, 0, &e_), CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateProgramWithIL(env->context, il, sizeof(il), &e_),
                        CL_INVALID_OPERATION);

    /* clCreateProgramWithBuiltInKernels: the device has none */
    cl_device_id d1 = env->device;
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(NULL, 1, &d1, "k", &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(env->context, 0, &d1, "k", &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(env->context, 1, NULL, "k", &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(env->context, 1, &d1, NULL, &e_),
                        CL_INVALID_VALUE);
    cl_device_id not_dev = (cl_device_id)env->queue;
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(env->context, 1, &not_dev, "k", &e_),
                        CL_INVALID_DEVICE);
    EXPECT_CREATE_FAILS(clCreateProgramWithBuiltInKernels(env->context, 1, &d1, "k", &e_),
                        CL_INVALID_VALUE);

    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);

    /* clSetProgramSpecializationConstant: no device of the program takes IL */
    cl_uint spec = 42;
    KT_EXPECT(clSetProgramSpecializationConstant(NULL, 0, sizeof(spec), &spec), CL_INVALID_PROGRAM);
    KT_EXPECT(clSetProgramSpecializationConstant(p, 0, sizeof(spec), &spec), CL_INVALID_OPERATION);
    /* clUnloadPlatformCompiler */
    KT_EXPECT(clUnloadPlatformCompiler((cl_platform_id)env->context), CL_INVALID_PLATFORM);
    KT_EXPECT(clUnloadPlatformCompiler(env->platform), CL_SUCCESS);

    /* Before a build: no executable */
    EXPECT_INFO_FAILS(clGetProgramInfo, p, CL_PROGRAM_NUM_KERNELS, sizeof(size_t),
                      CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT_INFO_FAILS(clGetProgramInfo, p, CL_PROGRAM_KERNEL_NAMES, 64,
                      CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT_CREATE_FAILS(clCreateKernel(p, "k", &e_), CL_INVALID_PROGRAM_EXECUTABLE);
    cl_kernel ks[2] = {NULL, NULL};
    cl_uint nk = 77;
    KT_EXPECT(clCreateKernelsInProgram(p, 2, ks, &nk), CL_INVALID_PROGRAM_EXECUTABLE);
    KT_CHECK(ks[0] == NULL && nk == 77, "outputs written on failure");

    /* clBuildProgram */
    cl_device_id dev = env->device, bad = (cl_device_id)env->context;
    KT_EXPECT(clBuildProgram((cl_program)env->context, 0, NULL, NULL, NULL, NULL),
              CL_INVALID_PROGRAM);
    KT_EXPECT(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clBuildProgram(p, 0, &dev, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clBuildProgram(p, 1, &dev, NULL, NULL, &user), CL_INVALID_VALUE);
    KT_EXPECT(clBuildProgram(p, 1, &bad, NULL, build_notify, NULL), CL_INVALID_DEVICE);

    /* clCompileProgram, clLinkProgram: the same checks of their device lists */
    KT_EXPECT(clCompileProgram(NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    KT_EXPECT(clCompileProgram(p, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, &user), CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clLinkProgram(NULL, 0, NULL, NULL, 1, &p, NULL, NULL, &e_),
                        CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clLinkProgram(env->context, 0, NULL, NULL, 0, NULL, NULL, NULL, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clLinkProgram(env->context, 0, NULL, NULL, 1, NULL, NULL, NULL, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clLinkProgram(env->context, 1, NULL, NULL, 1, &p, NULL, NULL, &e_),
                        CL_INVALID_VALUE);
    EXPECT_CREATE_FAILS(clLinkProgram(env->context, 0, NULL, NULL, 1, &p, NULL, &user, &e_),
                        CL_INVALID_VALUE);

    /* Retain, release, info, build info */
    KT_EXPECT(clRetainProgram(NULL), CL_INVALID_PROGRAM);
    KT_EXPECT(clReleaseProgram((cl_program)env->queue), CL_INVALID_PROGRAM);
    EXPECT_INFO_FAILS(clGetProgramInfo, NULL, CL_PROGRAM_CONTEXT, sizeof(cl_context),
                      CL_INVALID_PROGRAM);
    EXPECT_INFO_FAILS(clGetProgramInfo, p, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetProgramInfo, p, CL_PROGRAM_CONTEXT, 1, CL_INVALID_VALUE);
    unsigned char buf[64];
    memset(buf, 0xa5, sizeof(buf));
    size_t ret = size_untouched;
    KT_EXPECT(clGetProgramBuildInfo(p, bad, CL_PROGRAM_BUILD_STATUS, sizeof(buf), buf, &ret),
              CL_INVALID_DEVICE);
    KT_EXPECT(clGetProgramBuildInfo(p, dev, 0x7777, sizeof(buf), buf, &ret), CL_INVALID_VALUE);
    KT_EXPECT(clGetProgramBuildInfo(NULL, dev, CL_PROGRAM_BUILD_STATUS, sizeof(buf), buf, &ret),
              CL_INVALID_PROGRAM);
    KT_EXPECT(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, 1, buf, &ret),
              CL_INVALID_VALUE);
    KT_CHECK(ret == size_untouched && buf[0] == 0xa5, "build info outputs written on failure");
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

static void kernels(struct kt_env *env, cl_command_queue other_q)
{
    cl_int err;
    cl_program p = kt_build(env, src, "-cl-kernel-arg-info");

    /* clCreateKernel, clCreateKernelsInProgram */
    EXPECT_CREATE_FAILS(clCreateKernel(NULL, "k", &e_), CL_INVALID_PROGRAM);
    EXPECT_CREATE_FAILS(clCreateKernel(p, NULL, &e_), CL_INVALID_VALUE);
    cl_kernel ks[2] = {NULL, NULL};
    cl_uint nk = 77;
    KT_EXPECT(clCreateKernelsInProgram(NULL, 2, ks, &nk), CL_INVALID_PROGRAM);
    KT_EXPECT(clCreateKernelsInProgram(p, 1, ks, &nk), CL_INVALID_VALUE);
    KT_CHECK(ks[0] == NULL && nk == 77, "outputs written on failure");

    cl_kernel k = clCreateKernel(p, "k", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);

    /* clSetKernelArg on something else than a kernel, clSetKernelExecInfo */
    int v0 = 1;
    KT_EXPECT(clSetKernelArg((cl_kernel)p, 1, sizeof(v0), &v0), CL_INVALID_KERNEL);
    KT_EXPECT(clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool),
                                  &(cl_bool){CL_TRUE}),
              CL_INVALID_KERNEL);
    KT_EXPECT(clSetKernelExecInfo(k, 0x7777, sizeof(cl_bool), &(cl_bool){CL_TRUE}),
              CL_INVALID_VALUE);

    /* Retain, release, clone, info */
    KT_EXPECT(clRetainKernel(NULL), CL_INVALID_KERNEL);
    KT_EXPECT(clReleaseKernel((cl_kernel)p), CL_INVALID_KERNEL);
    EXPECT_CREATE_FAILS(clCloneKernel(NULL, &e_), CL_INVALID_KERNEL);
    EXPECT_CREATE_FAILS(clCloneKernel((cl_kernel)p, &e_), CL_INVALID_KERNEL);
    EXPECT_INFO_FAILS(clGetKernelInfo, NULL, CL_KERNEL_NUM_ARGS, sizeof(cl_uint),
                      CL_INVALID_KERNEL);
    EXPECT_INFO_FAILS(clGetKernelInfo, k, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetKernelInfo, k, CL_KERNEL_NUM_ARGS, 1, CL_INVALID_VALUE);

    unsigned char buf[64];
    memset(buf, 0xa5, sizeof(buf));
    size_t ret = size_untouched;
    KT_EXPECT(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_NAME, sizeof(buf), buf, &ret),
              CL_INVALID_ARG_INDEX);
    KT_EXPECT(clGetKernelArgInfo(k, 0, 0x7777, sizeof(buf), buf, &ret), CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelArgInfo(NULL, 0, CL_KERNEL_ARG_NAME, sizeof(buf), buf, &ret),
              CL_INVALID_KERNEL);
    KT_EXPECT(clGetKernelWorkGroupInfo(k, (cl_device_id)env->queue, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof(buf), buf, &ret),
              CL_INVALID_DEVICE);
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, 0x7777, sizeof(buf), buf, &ret),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, 1, buf, &ret),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelWorkGroupInfo(NULL, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(buf),
                                       buf, &ret),
              CL_INVALID_KERNEL);
    /* CL_KERNEL_GLOBAL_WORK_SIZE is for custom devices and built-in kernels only. */
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof(buf), buf,
                                       &ret),
              CL_INVALID_VALUE);
    KT_CHECK(ret == size_untouched && buf[0] == 0xa5, "kernel info outputs written on failure");

    /* A program with kernels attached cannot be rebuilt. */
    KT_EXPECT(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);

    /* clEnqueueNDRangeKernel, clEnqueueTask */
    size_t global = 64, local = 8;
    EXPECT_ENQUEUE_FAILS(
        CL_INVALID_KERNEL_ARGS,
        clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, EV));
    cl_mem b = clCreateBuffer(env->context, 0, 64 * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    int v = 5;
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(b), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(v), &v), CL_SUCCESS);
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE,
                         clEnqueueNDRangeKernel(NULL, k, 1, NULL, &global, &local, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_KERNEL, clEnqueueNDRangeKernel(env->queue, NULL, 1, NULL,
                                                                   &global, &local, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueNDRangeKernel(other_q, k, 1, NULL, &global, &local, 0, NULL, EV));
    size_t off = (size_t)-8;
    EXPECT_ENQUEUE_FAILS(
        CL_INVALID_GLOBAL_OFFSET,
        clEnqueueNDRangeKernel(env->queue, k, 1, &off, &global, &local, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(
        CL_INVALID_EVENT_WAIT_LIST,
        clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 1, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE, clEnqueueTask(NULL, k, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_KERNEL, clEnqueueTask(env->queue, NULL, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT, clEnqueueTask(other_q, k, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST, clEnqueueTask(env->queue, k, 1, NULL, EV));

    /* A good launch still works, and its result is right. */
    cl_event ev = NULL;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, &ev),
              CL_SUCCESS);
    int out[64];
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(out), out, 1, &ev, NULL),
              CL_SUCCESS);
    int bad_items = 0;
    for (int i = 0; i < 64; i++)
        bad_items += out[i] != v;
    KT_CHECK(bad_items == 0, "%d work-items wrote the wrong value", bad_items);
    KT_EXPECT(clReleaseEvent(ev), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(b), CL_SUCCESS);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

static void events(struct kt_env *env, cl_context other)
{
    cl_int err;
    cl_event user = clCreateUserEvent(env->context, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_event other_user = clCreateUserEvent(other, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    cl_event marker = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &marker), CL_SUCCESS);
    cl_event bad = (cl_event)env->context;

    /* clCreateUserEvent */
    EXPECT_CREATE_FAILS(clCreateUserEvent(NULL, &e_), CL_INVALID_CONTEXT);
    EXPECT_CREATE_FAILS(clCreateUserEvent((cl_context)env->queue, &e_), CL_INVALID_CONTEXT);

    /* clWaitForEvents */
    KT_EXPECT(clWaitForEvents(1, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clWaitForEvents(1, &bad), CL_INVALID_EVENT);
    cl_event mixed[2] = {marker, other_user};
    KT_EXPECT(clWaitForEvents(2, mixed), CL_INVALID_CONTEXT);

    /* Retain, release, info, profiling */
    KT_EXPECT(clRetainEvent(NULL), CL_INVALID_EVENT);
    KT_EXPECT(clReleaseEvent(bad), CL_INVALID_EVENT);
    EXPECT_INFO_FAILS(clGetEventInfo, bad, CL_EVENT_CONTEXT, sizeof(cl_context), CL_INVALID_EVENT);
    EXPECT_INFO_FAILS(clGetEventInfo, user, 0x7777, 64, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetEventInfo, user, CL_EVENT_COMMAND_EXECUTION_STATUS, 1, CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetEventProfilingInfo, NULL, CL_PROFILING_COMMAND_START, sizeof(cl_ulong),
                      CL_INVALID_EVENT);
    EXPECT_INFO_FAILS(clGetEventProfilingInfo, user, CL_PROFILING_COMMAND_START, sizeof(cl_ulong),
                      CL_PROFILING_INFO_NOT_AVAILABLE);

    cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue pq = clCreateCommandQueueWithProperties(env->context, env->device, prof, &err);
    KT_REQUIRE(err == CL_SUCCESS, "profiling queue: %d", err);
    cl_event pm = NULL;
    KT_EXPECT(clEnqueueMarkerWithWaitList(pq, 0, NULL, &pm), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &pm), CL_SUCCESS);
    EXPECT_INFO_FAILS(clGetEventProfilingInfo, pm, 0x7777, sizeof(cl_ulong), CL_INVALID_VALUE);
    EXPECT_INFO_FAILS(clGetEventProfilingInfo, pm, CL_PROFILING_COMMAND_END, sizeof(cl_ulong) - 1,
                      CL_INVALID_VALUE);
    KT_EXPECT(clReleaseEvent(pm), CL_SUCCESS);
    KT_EXPECT(clReleaseCommandQueue(pq), CL_SUCCESS);

    /* clSetUserEventStatus: only on user events */
    KT_EXPECT(clSetUserEventStatus(marker, CL_COMPLETE), CL_INVALID_EVENT);
    KT_EXPECT(clSetUserEventStatus(NULL, CL_COMPLETE), CL_INVALID_EVENT);
    KT_EXPECT(clSetUserEventStatus(user, CL_RUNNING), CL_INVALID_VALUE);

    /* clSetEventCallback */
    KT_EXPECT(clSetEventCallback(NULL, CL_COMPLETE, ev_notify, NULL), CL_INVALID_EVENT);
    KT_EXPECT(clSetEventCallback(user, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetEventCallback(user, CL_QUEUED, ev_notify, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetEventCallback(user, 42, ev_notify, NULL), CL_INVALID_VALUE);

    /* Markers, barriers and the OpenCL 1.x forms */
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(NULL, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueMarkerWithWaitList(env->queue, 1, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueMarkerWithWaitList(env->queue, 0, &user, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueMarkerWithWaitList(env->queue, 1, &bad, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueMarkerWithWaitList(env->queue, 1, &other_user, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrierWithWaitList(NULL, 0, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_EVENT_WAIT_LIST,
                         clEnqueueBarrierWithWaitList(env->queue, 1, NULL, EV));
    EXPECT_ENQUEUE_FAILS(CL_INVALID_CONTEXT,
                         clEnqueueBarrierWithWaitList(env->queue, 1, &other_user, EV));
    KT_EXPECT(clEnqueueMarker(env->queue, NULL), CL_INVALID_VALUE);
    EXPECT_ENQUEUE_FAILS(CL_INVALID_COMMAND_QUEUE, clEnqueueMarker(NULL, EV));
    KT_EXPECT(clEnqueueBarrier(NULL), CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clEnqueueWaitForEvents(env->queue, 0, &user), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWaitForEvents(env->queue, 1, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWaitForEvents(env->queue, 1, &bad), CL_INVALID_EVENT);
    KT_EXPECT(clEnqueueWaitForEvents(env->queue, 1, &other_user), CL_INVALID_CONTEXT);
    KT_EXPECT(clEnqueueWaitForEvents(NULL, 1, &user), CL_INVALID_COMMAND_QUEUE);

    KT_EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clSetUserEventStatus(other_user, CL_COMPLETE), CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &marker), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(marker), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(user), CL_SUCCESS);
    KT_EXPECT(clReleaseEvent(other_user), CL_SUCCESS);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "second context: %d", err);
    cl_command_queue other_q = clCreateCommandQueueWithProperties(other, env.device, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "second queue: %d", err);

    contexts(&env);
    queues(&env);
    buffers(&env, other, other_q);
    programs(&env);
    kernels(&env, other_q);
    events(&env, other);

    KT_EXPECT(clReleaseCommandQueue(other_q), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(other), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("api/bad_input");
}
