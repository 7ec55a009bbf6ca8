/*
 * Sub-buffers (clCreateSubBuffer): every error the specification lists, flag
 * inheritance, the info queries, the hold on the parent, and reads, writes,
 * copies and kernels that see the parent's bytes.
 */
#include "kiln_test.h"

static cl_mem sub(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size, cl_int *err)
{
    cl_buffer_region r = {origin, size};
    return clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, err);
}

/* A sub-buffer that must fail with `want`; errcode and the NULL result are checked. */
#define EXPECT_SUB_FAILS(parent, flags, origin, size, want)                                        \
    do {                                                                                           \
        cl_int e_ = 1;                                                                             \
        cl_mem m_ = sub((parent), (flags), (origin), (size), &e_);                                 \
        KT_CHECK(m_ == NULL && e_ == (want), "got %p / %d, want %d (%s)", (void *)m_, e_, (want),  \
                 #want);                                                                           \
    } while (0)

static cl_mem_flags mem_flags(cl_mem m)
{
    cl_mem_flags f = 0;
    KT_EXPECT(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(f), &f, NULL), CL_SUCCESS);
    return f;
}

static void test_errors(struct kt_env *env, cl_uint align)
{
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4 * align, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);

    /* Handles and types. */
    EXPECT_SUB_FAILS(NULL, 0, 0, 16, CL_INVALID_MEM_OBJECT);
    EXPECT_SUB_FAILS((cl_mem)env->queue, 0, 0, 16, CL_INVALID_MEM_OBJECT);
    cl_mem s = sub(buf, 0, align, align, &err);
    KT_REQUIRE(err == CL_SUCCESS && s, "sub-buffer: %d", err);
    EXPECT_SUB_FAILS(s, 0, 0, 16, CL_INVALID_MEM_OBJECT); /* a sub-buffer of a sub-buffer */

    /* The create type and its info. */
    cl_buffer_region r = {0, 16};
    KT_CHECK(clCreateSubBuffer(buf, 0, 0x1234, &r, &err) == NULL && err == CL_INVALID_VALUE,
             "bad create type: %d", err);
    KT_CHECK(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err) == NULL &&
                 err == CL_INVALID_VALUE,
             "NULL info: %d", err);

    /* Bounds, size, alignment. */
    EXPECT_SUB_FAILS(buf, 0, 0, 0, CL_INVALID_BUFFER_SIZE);
    EXPECT_SUB_FAILS(buf, 0, 0, 4 * align + 1, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, 0, 3 * align, align + 1, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, 0, 8 * align, 1, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, 0, align, (size_t)-1, CL_INVALID_VALUE); /* origin + size wraps */
    EXPECT_SUB_FAILS(buf, 0, 1, 16, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    EXPECT_SUB_FAILS(buf, 0, align / 2, 16, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    cl_mem last = sub(buf, 0, 3 * align, align, &err); /* exactly the tail: fine */
    KT_CHECK(last && err == CL_SUCCESS, "tail sub-buffer: %d", err);
    if (last)
        clReleaseMemObject(last);

    /* Flags: the host-pointer flags may not be given, nor two access flags, nor junk. */
    EXPECT_SUB_FAILS(buf, CL_MEM_USE_HOST_PTR, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, CL_MEM_ALLOC_HOST_PTR, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, CL_MEM_COPY_HOST_PTR, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(buf, (cl_mem_flags)1 << 40, 0, 16, CL_INVALID_VALUE);

    /* Access flags may not widen the parent's. */
    cl_mem wo = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, align, NULL, &err);
    cl_mem ro = clCreateBuffer(env->context, CL_MEM_READ_ONLY, align, NULL, &err);
    KT_REQUIRE(wo && ro, "buffers");
    EXPECT_SUB_FAILS(wo, CL_MEM_READ_WRITE, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(wo, CL_MEM_READ_ONLY, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(ro, CL_MEM_READ_WRITE, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(ro, CL_MEM_WRITE_ONLY, 0, 16, CL_INVALID_VALUE);
    cl_mem ok = sub(wo, CL_MEM_WRITE_ONLY, 0, 16, &err);
    KT_CHECK(ok && err == CL_SUCCESS, "WRITE_ONLY of WRITE_ONLY: %d", err);
    if (ok)
        clReleaseMemObject(ok);

    /* Host-access flags may not widen the parent's. */
    cl_mem hwo = clCreateBuffer(env->context, CL_MEM_HOST_WRITE_ONLY, align, NULL, &err);
    cl_mem hro = clCreateBuffer(env->context, CL_MEM_HOST_READ_ONLY, align, NULL, &err);
    cl_mem hna = clCreateBuffer(env->context, CL_MEM_HOST_NO_ACCESS, align, NULL, &err);
    KT_REQUIRE(hwo && hro && hna, "buffers");
    EXPECT_SUB_FAILS(hwo, CL_MEM_HOST_READ_ONLY, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(hro, CL_MEM_HOST_WRITE_ONLY, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(hna, CL_MEM_HOST_READ_ONLY, 0, 16, CL_INVALID_VALUE);
    EXPECT_SUB_FAILS(hna, CL_MEM_HOST_WRITE_ONLY, 0, 16, CL_INVALID_VALUE);

    /* Inheritance: nothing given takes the parent's access and host-access flags. */
    cl_mem inh = sub(ro, 0, 0, 16, &err);
    KT_REQUIRE(inh, "inherit: %d", err);
    KT_CHECK(mem_flags(inh) & CL_MEM_READ_ONLY, "READ_ONLY inherited: 0x%llx",
             (unsigned long long)mem_flags(inh));
    clReleaseMemObject(inh);
    inh = sub(hna, CL_MEM_READ_ONLY, 0, 16, &err);
    KT_REQUIRE(inh, "inherit host: %d", err);
    KT_CHECK((mem_flags(inh) & (CL_MEM_HOST_NO_ACCESS | CL_MEM_READ_ONLY)) ==
                 (CL_MEM_HOST_NO_ACCESS | CL_MEM_READ_ONLY),
             "HOST_NO_ACCESS inherited beside READ_ONLY: 0x%llx",
             (unsigned long long)mem_flags(inh));
    /* The inherited host access is enforced. */
    char byte;
    KT_EXPECT(clEnqueueReadBuffer(env->queue, inh, CL_TRUE, 0, 1, &byte, 0, NULL, NULL),
              CL_INVALID_OPERATION);
    clReleaseMemObject(inh);
    /* A sub-buffer may narrow: read-only view of a read-write buffer. */
    cl_mem narrow = sub(buf, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 0, 16, &err);
    KT_REQUIRE(narrow, "narrow: %d", err);
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, narrow, CL_TRUE, 0, 1, &byte, 0, NULL, NULL),
              CL_INVALID_OPERATION);
    clReleaseMemObject(narrow);

    clReleaseMemObject(hwo);
    clReleaseMemObject(hro);
    clReleaseMemObject(hna);
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    clReleaseMemObject(s);
    clReleaseMemObject(buf);
}

static void test_info_and_lifetime(struct kt_env *env, cl_uint align)
{
    cl_int err;
    size_t size = 4 * align;
    unsigned char *host = malloc(size);
    KT_REQUIRE(host, "malloc");
    for (size_t i = 0; i < size; i++)
        host[i] = (unsigned char)i;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, size, host, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem s = sub(buf, 0, 2 * align, align, &err);
    KT_REQUIRE(err == CL_SUCCESS, "sub: %d", err);

    cl_mem assoc = NULL;
    size_t off = 0, sz = 0;
    void *hp = NULL;
    KT_EXPECT(clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL),
              CL_SUCCESS);
    KT_CHECK(assoc == buf, "associated %p, want %p", (void *)assoc, (void *)buf);
    KT_EXPECT(clGetMemObjectInfo(s, CL_MEM_OFFSET, sizeof(off), &off, NULL), CL_SUCCESS);
    KT_CHECK(off == 2 * align, "offset %zu", off);
    KT_EXPECT(clGetMemObjectInfo(s, CL_MEM_SIZE, sizeof(sz), &sz, NULL), CL_SUCCESS);
    KT_CHECK(sz == align, "size %zu", sz);
    KT_EXPECT(clGetMemObjectInfo(s, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL), CL_SUCCESS);
    KT_CHECK(hp == host + 2 * align, "host ptr %p, want %p", hp, (void *)(host + 2 * align));
    KT_CHECK(mem_flags(s) & CL_MEM_USE_HOST_PTR, "USE_HOST_PTR inherited");
    cl_context ctx = NULL;
    KT_EXPECT(clGetMemObjectInfo(s, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL), CL_SUCCESS);
    KT_CHECK(ctx == env->context, "context");
    /* The parent itself has no associated object and offset 0. */
    KT_EXPECT(clGetMemObjectInfo(buf, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL),
              CL_SUCCESS);
    KT_CHECK(assoc == NULL, "parent's associated object %p", (void *)assoc);

    /* A parent without USE_HOST_PTR: the sub-buffer reports no host pointer. */
    cl_mem plain = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, size, host, &err);
    cl_mem ps = sub(plain, 0, align, align, &err);
    KT_REQUIRE(ps, "sub of plain: %d", err);
    hp = (void *)1;
    KT_EXPECT(clGetMemObjectInfo(ps, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL), CL_SUCCESS);
    KT_CHECK(hp == NULL, "host ptr %p", hp);

    /* The sub-buffer holds its parent: release the parent first, then use it. */
    KT_EXPECT(clReleaseMemObject(plain), CL_SUCCESS);
    unsigned char got[16];
    KT_EXPECT(clEnqueueReadBuffer(env->queue, ps, CL_TRUE, 0, 16, got, 0, NULL, NULL), CL_SUCCESS);
    KT_CHECK(got[0] == (unsigned char)align && got[15] == (unsigned char)(align + 15),
             "read through a sub-buffer whose parent was released: %u %u", got[0], got[15]);
    KT_EXPECT(clReleaseMemObject(ps), CL_SUCCESS);

    clReleaseMemObject(s);
    clReleaseMemObject(buf);
    free(host);
}

static void test_aliasing(struct kt_env *env, cl_uint align)
{
    cl_int err;
    const size_t n = 4 * align / sizeof(cl_int);
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, n * sizeof(cl_int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_int zero = 0;
    KT_EXPECT(clEnqueueFillBuffer(env->queue, buf, &zero, sizeof(zero), 0, n * sizeof(cl_int), 0,
                                  NULL, NULL),
              CL_SUCCESS);
    const size_t q = align / sizeof(cl_int); /* ints per quarter */
    cl_mem s1 = sub(buf, 0, align, align, &err);
    cl_mem s3 = sub(buf, 0, 3 * align, align, &err);
    KT_REQUIRE(s1 && s3, "subs: %d", err);

    /* A write through the sub-buffer lands in the parent at the offset. */
    cl_int *vals = malloc(align);
    for (size_t i = 0; i < q; i++)
        vals[i] = (cl_int)(1000 + i);
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, s1, CL_TRUE, 0, align, vals, 0, NULL, NULL),
              CL_SUCCESS);
    /* A copy between two sub-buffers of one parent. */
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, s1, s3, 0, 0, align, 0, NULL, NULL), CL_SUCCESS);

    /* Overlap is judged in the parent: between two sub-buffers, and with the parent. */
    cl_mem s12 = sub(buf, 0, align, 2 * align, &err);
    KT_REQUIRE(s12, "sub: %d", err);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, s12, s1, 8, 0, 16, 0, NULL, NULL),
              CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, s1, buf, 0, align + 8, 16, 0, NULL, NULL),
              CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, buf, s3, 0, 0, align, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, s3, buf, 0, 3 * align, 16, 0, NULL, NULL),
              CL_MEM_COPY_OVERLAP);
    const size_t o[3] = {0, 0, 0}, o16[3] = {16, 0, 0}, rg[3] = {16, 2, 1};
    KT_EXPECT(clEnqueueCopyBufferRect(env->queue, s12, s1, o, o, rg, 32, 64, 32, 64, 0, NULL, NULL),
              CL_MEM_COPY_OVERLAP);
    /* Equal pitches, side by side: no shared byte. */
    KT_EXPECT(
        clEnqueueCopyBufferRect(env->queue, s12, s1, o, o16, rg, 32, 64, 32, 64, 0, NULL, NULL),
        CL_SUCCESS);
    /* Different pitches whose spans meet: refused. */
    KT_EXPECT(
        clEnqueueCopyBufferRect(env->queue, s12, s1, o, o16, rg, 32, 64, 48, 96, 0, NULL, NULL),
        CL_MEM_COPY_OVERLAP);
    clReleaseMemObject(s12);
    /* Restore what the copies above changed: the parent's second quarter came from s1. */
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, s1, CL_TRUE, 0, align, vals, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, s1, s3, 0, 0, align, 0, NULL, NULL), CL_SUCCESS);

    /* A kernel on a sub-buffer writes into the parent's memory. */
    const char *src = "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }";
    cl_program prog = kt_build(env, src, NULL);
    cl_kernel k = clCreateKernel(prog, "add", &err);
    KT_REQUIRE(err == CL_SUCCESS, "kernel: %d", err);
    cl_int v = 7;
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(s3), &s3), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(v), &v), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &q, NULL, 0, NULL, NULL), CL_SUCCESS);

    cl_int *all = malloc(n * sizeof(cl_int));
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, n * sizeof(cl_int), all, 0, NULL, NULL),
        CL_SUCCESS);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        cl_int want = 0;
        if (i >= q && i < 2 * q)
            want = (cl_int)(1000 + i - q);
        else if (i >= 3 * q)
            want = (cl_int)(1000 + i - 3 * q + 7);
        if (all[i] != want && bad++ < 4)
            KT_CHECK(0, "parent[%zu] = %d, want %d", i, all[i], want);
    }
    KT_CHECK(bad == 0, "%d wrong elements", bad);

    /* Mapping a sub-buffer returns a pointer into the parent. */
    cl_int *mp =
        clEnqueueMapBuffer(env->queue, s3, CL_TRUE, CL_MAP_READ, 0, align, 0, NULL, NULL, &err);
    KT_CHECK(err == CL_SUCCESS && mp && mp[0] == 1007, "map of a sub-buffer: %d", err);
    if (mp)
        KT_EXPECT(clEnqueueUnmapMemObject(env->queue, s3, mp, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);

    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseMemObject(s1);
    clReleaseMemObject(s3);
    clReleaseMemObject(buf);
    free(vals);
    free(all);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    cl_uint bits = 0;
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(bits), &bits, NULL),
              CL_SUCCESS);
    KT_REQUIRE(bits >= 8 && bits % 8 == 0, "CL_DEVICE_MEM_BASE_ADDR_ALIGN %u bits", bits);
    test_errors(&env, bits / 8);
    test_info_and_lifetime(&env, bits / 8);
    test_aliasing(&env, bits / 8);
    kt_teardown(&env);
    return kt_finish("subbuffers");
}
