/*
 * Shared virtual memory: clSVMAlloc and clSVMFree with their checks, kernels on coarse-
 * and fine-grained SVM buffers and on plain malloc'd memory (fine-grained system SVM),
 * pointers stored inside SVM followed by a kernel, the SVM commands (memcpy, fill of every
 * pattern size, map, unmap, migrate, free with and without a callback), buffers made on
 * SVM memory, and every refusal.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "kiln_test.h"

static const char *src =
    "__kernel void twice(__global int *p) { p[get_global_id(0)] *= 2; }\n"
    "typedef struct node { __global struct node *next; int value; } node;\n"
    "__kernel void walk(__global node *head, __global int *out) {\n"
    "    int sum = 0;\n"
    "    for (__global node *n = head; n; n = n->next) sum += n->value;\n"
    "    out[get_global_id(0)] = sum;\n"
    "}\n"
    "__kernel void scale(int k, __global int *p) { p[get_global_id(0)] *= k; }\n";

static cl_kernel kernel(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    return k;
}

static void run(struct kt_env *env, cl_kernel k, size_t n)
{
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
}

static void alloc_checks(cl_context ctx)
{
    /* Every refusal is a NULL. */
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 0, 0) == NULL, "size 0");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, (size_t)1 << 62, 0) == NULL, "too large");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0) == NULL,
             "two access flags");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS, 64, 0) == NULL,
             "atomics without fine grain");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64, 0) == NULL,
             "a buffer flag");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 3) == NULL, "alignment 3");
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 256) == NULL, "alignment 256");
    KT_CHECK(clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0) == NULL, "no context");
    clSVMFree(ctx, NULL); /* a no-op */

    const cl_svm_mem_flags kinds[] = {CL_MEM_READ_WRITE,
                                      CL_MEM_READ_ONLY,
                                      CL_MEM_WRITE_ONLY,
                                      CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                      CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER |
                                          CL_MEM_SVM_ATOMICS,
                                      0};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        for (cl_uint align = 0; align <= 128; align = align ? align * 2 : 1) {
            unsigned char *p = clSVMAlloc(ctx, kinds[i], 1000, align);
            KT_CHECK(p != NULL, "flags 0x%llx, alignment %u", (unsigned long long)kinds[i], align);
            if (!p)
                continue;
            KT_CHECK(align == 0 || (uintptr_t)p % align == 0, "alignment %u: %p", align, (void *)p);
            memset(p, 0x5a, 1000); /* the whole size is usable */
            clSVMFree(ctx, p);
        }
    }
}

static void kernels(struct kt_env *env, cl_program prog)
{
    enum { N = 1000 };
    cl_kernel twice = kernel(prog, "twice");

    /* Coarse-grained: written and read through maps. */
    int *coarse = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
    KT_REQUIRE(coarse, "coarse-grained SVM");
    KT_EXPECT(
        clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, coarse, N * sizeof(int), 0, NULL, NULL),
        CL_SUCCESS);
    for (int i = 0; i < N; i++)
        coarse[i] = i - 300;
    KT_EXPECT(clEnqueueSVMUnmap(env->queue, coarse, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelArgSVMPointer(twice, 0, coarse), CL_SUCCESS);
    run(env, twice, N);
    KT_EXPECT(
        clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, coarse, N * sizeof(int), 0, NULL, NULL),
        CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += coarse[i] != 2 * (i - 300);
    KT_CHECK(bad == 0, "coarse-grained: %d wrong", bad);
    KT_EXPECT(clEnqueueSVMUnmap(env->queue, coarse, 0, NULL, NULL), CL_SUCCESS);

    /* An offset into an allocation is a valid argument too. */
    KT_EXPECT(clSetKernelArgSVMPointer(twice, 0, coarse + 500), CL_SUCCESS);
    run(env, twice, 10);
    KT_CHECK(coarse[499] == 2 * 199 && coarse[500] == 4 * 200 && coarse[510] == 2 * 210,
             "offset pointer: %d %d %d", coarse[499], coarse[500], coarse[510]);

    /* A buffer made on SVM memory says so, and kernels see the same bytes through it. */
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N * sizeof(int), coarse, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer on SVM: %d", err);
    cl_bool uses = CL_FALSE;
    KT_EXPECT(clGetMemObjectInfo(buf, CL_MEM_USES_SVM_POINTER, sizeof(uses), &uses, NULL),
              CL_SUCCESS);
    KT_CHECK(uses == CL_TRUE, "CL_MEM_USES_SVM_POINTER of a buffer on SVM");
    cl_mem past =
        clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N * sizeof(int), coarse + 1, &err);
    KT_CHECK(past == NULL && err == CL_INVALID_BUFFER_SIZE,
             "a buffer running past its SVM allocation: %d", err);
    KT_EXPECT(clSetKernelArg(twice, 0, sizeof(buf), &buf), CL_SUCCESS);
    run(env, twice, 1);
    KT_CHECK(coarse[0] == 4 * -300, "through the buffer: %d", coarse[0]);
    clReleaseMemObject(buf);
    static int plain_host[16];
    buf = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, sizeof(plain_host), plain_host, &err);
    KT_EXPECT(clGetMemObjectInfo(buf, CL_MEM_USES_SVM_POINTER, sizeof(uses), &uses, NULL),
              CL_SUCCESS);
    KT_CHECK(uses == CL_FALSE, "CL_MEM_USES_SVM_POINTER of a buffer on plain memory");
    clReleaseMemObject(buf);
    clSVMFree(env->context, coarse);

    /* Fine-grained buffer: a linked list whose pointers the kernel follows. */
    cl_kernel walk = kernel(prog, "walk");
    struct node {
        struct node *next;
        int value;
    };
    struct node *nodes = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                    64 * sizeof(struct node), 0);
    int *sums = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                           4 * sizeof(int), 0);
    KT_REQUIRE(nodes && sums, "fine-grained SVM");
    int want = 0;
    for (int i = 0; i < 64; i++) {
        /* Linked out of order: 0 -> 63 -> 1 -> 62 ... */
        nodes[i].value = i * i;
        want += i * i;
    }
    int order[64];
    for (int i = 0, lo = 0, hi = 63; i < 64; i++)
        order[i] = i % 2 ? hi-- : lo++;
    for (int i = 0; i < 64; i++)
        nodes[order[i]].next = i + 1 < 64 ? &nodes[order[i + 1]] : NULL;
    KT_EXPECT(clSetKernelArgSVMPointer(walk, 0, &nodes[order[0]]), CL_SUCCESS);
    KT_EXPECT(clSetKernelArgSVMPointer(walk, 1, sums), CL_SUCCESS);
    KT_EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *), &nodes),
              CL_SUCCESS);
    run(env, walk, 4);
    KT_CHECK(sums[0] == want && sums[3] == want, "linked list sum %d, %d, want %d", sums[0],
             sums[3], want);

    /* Fine-grained system: memory from malloc. */
    int *heap = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        heap[i] = i;
    cl_bool yes = CL_TRUE;
    KT_EXPECT(
        clSetKernelExecInfo(twice, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(yes), &yes),
        CL_SUCCESS);
    KT_EXPECT(clSetKernelArgSVMPointer(twice, 0, heap), CL_SUCCESS);
    run(env, twice, N);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += heap[i] != 2 * i;
    KT_CHECK(bad == 0, "fine-grained system: %d wrong", bad);

    /* A cloned kernel keeps its SVM argument. */
    cl_kernel clone = clCloneKernel(twice, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clone: %d", err);
    run(env, clone, N);
    KT_CHECK(heap[7] == 28, "cloned kernel's SVM argument: %d", heap[7]);
    clReleaseKernel(clone);
    free(heap);

    /* Refusals. */
    cl_kernel scale = kernel(prog, "scale");
    KT_EXPECT(clSetKernelArgSVMPointer(scale, 0, sums), CL_INVALID_ARG_INDEX);
    KT_EXPECT(clSetKernelArgSVMPointer(scale, 2, sums), CL_INVALID_ARG_INDEX);
    KT_EXPECT(clSetKernelArgSVMPointer(NULL, 0, sums), CL_INVALID_KERNEL);
    KT_EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, &nodes), CL_INVALID_VALUE);
    KT_EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &yes),
              CL_INVALID_VALUE);
    KT_EXPECT(clSetKernelExecInfo(walk, 0x7777, sizeof(yes), &yes), CL_INVALID_VALUE);
    clReleaseKernel(scale);
    clSVMFree(env->context, nodes);
    clSVMFree(env->context, sums);
    clReleaseKernel(walk);
    clReleaseKernel(twice);
}

static int freed_calls;
static void CL_CALLBACK free_fn(cl_command_queue q, cl_uint n, void *ptrs[], void *user)
{
    struct kt_env *env = user;
    KT_CHECK(q == env->queue, "free callback queue");
    KT_CHECK(n == 2, "free callback with %u pointers", n);
    for (cl_uint i = 0; i < n; i++)
        clSVMFree(env->context, ptrs[i]);
    freed_calls++;
}

static void commands(struct kt_env *env)
{
    enum { N = 4096 };
    unsigned char *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N, 0);
    unsigned char *b = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N, 0);
    KT_REQUIRE(a && b, "SVM allocations");
    for (int i = 0; i < N; i++)
        a[i] = (unsigned char)(i * 7);

    /* Memcpy, blocking and through an event. */
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, b, a, N, 0, NULL, NULL), CL_SUCCESS);
    KT_CHECK(memcmp(a, b, N) == 0, "blocking SVM memcpy");
    memset(b, 0, N);
    cl_event ev = NULL;
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_FALSE, b + 1, a + 2, 100, 0, NULL, &ev),
              CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_command_type type = 0;
    KT_EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_SVM_MEMCPY, "memcpy event type 0x%x", type);
    clReleaseEvent(ev);
    KT_CHECK(memcmp(b + 1, a + 2, 100) == 0 && b[0] == 0 && b[101] == 0, "offset SVM memcpy");
    /* Plain host memory is SVM too (fine-grained system). */
    unsigned char host[64];
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, host, a, sizeof(host), 0, NULL, NULL),
              CL_SUCCESS);
    KT_CHECK(memcmp(host, a, sizeof(host)) == 0, "SVM memcpy to host memory");

    /* Fill with every pattern size. */
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pat[128];
        for (size_t i = 0; i < ps; i++)
            pat[i] = (unsigned char)(ps + i * 3 + 1);
        memset(b, 0xee, N);
        KT_EXPECT(clEnqueueSVMMemFill(env->queue, b + 256, pat, ps, 1024, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        int bad = 0;
        for (size_t i = 0; i < 1024; i++)
            bad += b[256 + i] != pat[i % ps];
        bad += b[255] != 0xee || b[256 + 1024] != 0xee;
        KT_CHECK(bad == 0, "fill with a %zu-byte pattern: %d wrong", ps, bad);
    }

    /* Large fills (run in slices on the workers) from an offset that is not 16-aligned. */
    enum { BIG = 3 << 20 };
    unsigned char *big = clSVMAlloc(env->context, CL_MEM_READ_WRITE, BIG, 0);
    KT_REQUIRE(big, "a large SVM allocation");
    for (size_t ps = 1; ps <= 128; ps *= 4) {
        unsigned char pat[128];
        for (size_t i = 0; i < ps; i++)
            pat[i] = (unsigned char)(7 * ps + i + 1);
        size_t at = ps < 16 ? ps : 2 * ps, len = (BIG - 2 * at) / ps * ps;
        memset(big, 0xee, BIG);
        KT_EXPECT(clEnqueueSVMMemFill(env->queue, big + at, pat, ps, len, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        size_t bad = 0;
        for (size_t i = 0; i < len; i++)
            bad += big[at + i] != pat[i % ps];
        bad += big[at - 1] != 0xee || big[at + len] != 0xee;
        KT_CHECK(bad == 0, "large fill, %zu-byte pattern at offset %zu: %zu wrong", ps, at, bad);
    }
    clSVMFree(env->context, big);

    /* Refusals, with the event left alone. */
    int pattern = 1;
    ev = (cl_event)(uintptr_t)0x1234;
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, a + 10, a, 100, 0, NULL, &ev),
              CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, a, a + 99, 100, 0, NULL, &ev),
              CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, NULL, a, 100, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, b, NULL, 100, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemcpy(env->queue, CL_TRUE, b, a, 100, 1, NULL, &ev),
              CL_INVALID_EVENT_WAIT_LIST);
    KT_EXPECT(clEnqueueSVMMemFill(env->queue, a + 1, &pattern, 4, 64, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemFill(env->queue, a, &pattern, 4, 63, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemFill(env->queue, a, &pattern, 3, 63, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemFill(env->queue, a, NULL, 4, 64, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemFill(env->queue, NULL, &pattern, 4, 64, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, NULL, 64, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, a, 0, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, a,
                              64, 0, NULL, &ev),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMUnmap(env->queue, NULL, 0, NULL, &ev), CL_INVALID_VALUE);
    const void *mig[] = {a, NULL};
    KT_EXPECT(clEnqueueSVMMigrateMem(env->queue, 2, mig, NULL, 0, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMigrateMem(env->queue, 0, mig, NULL, 0, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMigrateMem(env->queue, 1, mig, NULL, 0x100, 0, NULL, &ev),
              CL_INVALID_VALUE);
    void *none[] = {NULL};
    KT_EXPECT(clEnqueueSVMFree(env->queue, 1, none, NULL, NULL, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMFree(env->queue, 1, NULL, NULL, NULL, 0, NULL, &ev), CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueSVMMemcpy(NULL, CL_TRUE, b, a, 100, 0, NULL, &ev), CL_INVALID_COMMAND_QUEUE);
    KT_CHECK(ev == (cl_event)(uintptr_t)0x1234, "event written on failure");

    /* Migrate of whole allocations and of ranges. */
    const size_t sizes[] = {0, 16};
    const void *both[] = {a, b + 8};
    KT_EXPECT(clEnqueueSVMMigrateMem(env->queue, 2, both, sizes, CL_MIGRATE_MEM_OBJECT_HOST, 0,
                                     NULL, NULL),
              CL_SUCCESS);

    /* Free through the queue: with a callback that frees, then without. */
    void *two[] = {a, b};
    cl_event done = NULL;
    KT_EXPECT(clEnqueueSVMFree(env->queue, 2, two, free_fn, env, 0, NULL, &done), CL_SUCCESS);
    two[0] = two[1] = NULL; /* Kiln copied the list */
    KT_EXPECT(clWaitForEvents(1, &done), CL_SUCCESS);
    KT_CHECK(freed_calls == 1, "free callback ran %d times", freed_calls);
    KT_EXPECT(clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_SVM_FREE, "free event type 0x%x", type);
    clReleaseEvent(done);
    void *c[] = {clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0),
                 clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0)};
    KT_EXPECT(clEnqueueSVMFree(env->queue, 2, c, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueSVMFree(env->queue, 0, NULL, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
}

/*
 * SVM atomics: a kernel and the host add to one counter in a fine-grained allocation with
 * CL_MEM_SVM_ATOMICS at the same time; no update is lost.
 */
static void svm_atomics(struct kt_env *env)
{
    enum { ITEMS = 4096, EACH = 64, HOST = 200000 };
    static const char src[] = "kernel void add(global atomic_int *c)\n"
                              "{\n"
                              "    for (int i = 0; i < 64; i++)\n"
                              "        atomic_fetch_add_explicit(c, 1, memory_order_relaxed,\n"
                              "                                  memory_scope_all_svm_devices);\n"
                              "}\n";
    cl_device_svm_capabilities caps = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL);
    KT_CHECK(caps & CL_DEVICE_SVM_ATOMICS, "CL_DEVICE_SVM_ATOMICS not reported");
    atomic_int *counter = clSVMAlloc(
        env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
        sizeof(atomic_int), 0);
    KT_REQUIRE(counter, "an SVM allocation with atomics");
    atomic_init(counter, 0);
    cl_program p = kt_build(env, src, "-cl-std=CL2.0");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "add", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    KT_EXPECT(clSetKernelArgSVMPointer(k, 0, counter), CL_SUCCESS);
    size_t g = ITEMS, l = 64;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clFlush(env->queue), CL_SUCCESS);
    for (int i = 0; i < HOST; i++)
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    int got = atomic_load(counter);
    KT_CHECK(got == ITEMS * EACH + HOST, "counter %d, want %d", got, ITEMS * EACH + HOST);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clSVMFree(env->context, counter);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    cl_device_svm_capabilities caps = 0;
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL),
              CL_SUCCESS);
    const cl_device_svm_capabilities want = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
                                            CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                                            CL_DEVICE_SVM_FINE_GRAIN_SYSTEM;
    KT_CHECK((caps & want) == want, "SVM capabilities 0x%llx", (unsigned long long)caps);
    alloc_checks(env.context);
    cl_program prog = kt_build(&env, src, "-cl-std=CL2.0");
    kernels(&env, prog);
    commands(&env);
    svm_atomics(&env);
    clReleaseProgram(prog);

    /* A context destroyed with SVM allocations left frees them (LSan sees no leak). */
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "context: %d", err);
    KT_CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 4096, 0) != NULL, "allocation left behind");
    clReleaseContext(ctx);
    kt_teardown(&env);
    return kt_finish("svm");
}
