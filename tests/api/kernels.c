/*
 * Kernels that run and are checked element by element: with and without a local
 * size, global offsets, non-uniform groups, 2D and 3D ranges, __local and struct
 * arguments, tasks, argument snapshots, profiling, and the buffer commands.
 * Run once with the worker pool and once with KILN_NUM_THREADS=0.
 */
#include "kiln_test.h"

#include <stdbool.h>

static const char *src =
    "typedef struct { float scale; int shift; } params;\n"
    "kernel void ids(global uint *out, uint pitch_y, uint pitch_z) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  size_t o = x - get_global_offset(0) + (y - get_global_offset(1)) * pitch_y\n"
    "           + (z - get_global_offset(2)) * pitch_z;\n"
    "  out[4 * o + 0] = x; out[4 * o + 1] = y; out[4 * o + 2] = z;\n"
    "  out[4 * o + 3] = get_local_id(0) + 1000 * get_group_id(0) + 100000 * get_work_dim();\n"
    "}\n"
    "kernel void sizes(global uint *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  out[2 * i] = get_local_size(0) * 1000 + get_enqueued_local_size(0);\n"
    "  out[2 * i + 1] = get_num_groups(0) * 1000 + get_global_size(0);\n"
    "}\n"
    "kernel void with_local(global const int *in, global int *out, local int *tmp) {\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)] * 3;\n"
    "  out[get_global_id(0)] = tmp[l] + 1;\n"
    "}\n"
    "kernel void with_struct(global float *a, params p) {\n"
    "  size_t i = get_global_id(0); a[i] = a[i] * p.scale + p.shift;\n"
    "}\n"
    "kernel void task(global int *a) { a[0] = 42 + get_global_size(0); }\n";

static void run_ids(struct kt_env *env, cl_kernel k, cl_uint dim, const size_t *off,
                    const size_t *global, const size_t *local)
{
    cl_int err;
    size_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    for (cl_uint d = 0; d < dim; d++) {
        g[d] = global[d];
        o[d] = off ? off[d] : 0;
    }
    size_t n = g[0] * g[1] * g[2];
    cl_mem b = clCreateBuffer(env->context, 0, n * 4 * sizeof(cl_uint), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "b: %d", err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_uint py = (cl_uint)g[0], pz = (cl_uint)(g[0] * g[1]);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(b), &b));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(py), &py));
    KT_REQUIRE_OK(clSetKernelArg(k, 2, sizeof(pz), &pz));
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, dim, off, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    cl_uint *out = malloc(n * 4 * sizeof(cl_uint));
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, n * 4 * sizeof(cl_uint), out, 0, NULL, NULL),
        CL_SUCCESS);
    size_t bad = 0;
    for (size_t z = 0; z < g[2]; z++)
        for (size_t y = 0; y < g[1]; y++)
            for (size_t x = 0; x < g[0]; x++) {
                size_t i = x + y * py + z * pz;
                size_t lx = local ? local[0] : 0;
                cl_uint want3 = 100000 * dim;
                if (lx)
                    want3 += (cl_uint)((x % lx) + 1000 * (x / lx));
                bool ok = out[4 * i] == x + o[0] && out[4 * i + 1] == y + o[1] &&
                          out[4 * i + 2] == z + o[2] && (!lx || out[4 * i + 3] == want3) &&
                          (lx || out[4 * i + 3] / 100000 == dim);
                if (!ok && bad++ < 3)
                    fprintf(stderr, "ids dim %u: (%zu,%zu,%zu) got %u %u %u %u\n", dim, x, y, z,
                            out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]);
            }
    KT_CHECK(bad == 0, "%zu of %zu work-items wrong (dim %u)", bad, n, dim);
    free(out);
    clReleaseMemObject(b);
}

static void ranges(struct kt_env *env, cl_program p)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "ids", &err);
    KT_REQUIRE(err == CL_SUCCESS, "k: %d", err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel ids: %d", err);
    size_t g1 = 4096, l1 = 64, off1 = 7;
    run_ids(env, k, 1, NULL, &g1, &l1);
    run_ids(env, k, 1, NULL, &g1, NULL);
    run_ids(env, k, 1, &off1, &g1, &l1);
    size_t gprime = 1009, l16 = 16;
    run_ids(env, k, 1, NULL, &gprime, &l16); /* non-uniform: the last group has 1 item */
    run_ids(env, k, 1, NULL, &gprime, NULL);
    size_t g2[2] = {33, 17}, l2[2] = {8, 4}, off2[2] = {3, 5};
    run_ids(env, k, 2, off2, g2, l2);
    run_ids(env, k, 2, NULL, g2, NULL);
    size_t g3[3] = {8, 6, 5}, l3[3] = {4, 3, 5};
    run_ids(env, k, 3, NULL, g3, l3);
    run_ids(env, k, 3, NULL, g3, NULL);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);

    k = clCreateKernel(p, "sizes", &err);
    KT_REQUIRE(err == CL_SUCCESS, "k: %d", err);
    cl_mem b = clCreateBuffer(env->context, 0, 2 * 100 * sizeof(cl_uint), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "b: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(b), &b));
    size_t g = 100, l = 32;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    cl_uint out[200];
    clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
    for (size_t i = 0; i < 100; i++) {
        cl_uint want_local = i < 96 ? 32 : 4;
        KT_CHECK(out[2 * i] == want_local * 1000 + 32, "item %zu: local sizes %u", i, out[2 * i]);
        KT_CHECK(out[2 * i + 1] == 4 * 1000 + 100, "item %zu: groups/global %u", i, out[2 * i + 1]);
    }
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

static void local_and_struct(struct kt_env *env, cl_program p)
{
    cl_int err;
    enum { N = 3000 };
    int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i - 1500;
    cl_mem bi = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    KT_REQUIRE(err == CL_SUCCESS, "bi: %d", err);
    cl_mem bo = clCreateBuffer(env->context, 0, sizeof(out), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "bo: %d", err);
    cl_kernel k = clCreateKernel(p, "with_local", &err);
    KT_REQUIRE(err == CL_SUCCESS, "k: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(bi), &bi));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(bo), &bo));
    size_t g = N, l = 100;
    KT_REQUIRE_OK(clSetKernelArg(k, 2, l * sizeof(int), NULL));
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    KT_REQUIRE_OK(
        clSetKernelArg(k, 2, 4096 * sizeof(int), NULL)); /* enough for any chosen local size */
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    for (int i = 0; i < N; i++)
        if (out[i] != in[i] * 3 + 1) {
            KT_CHECK(0, "with_local[%d] = %d", i, out[i]);
            break;
        }
    cl_ulong lm = 0;
    KT_EXPECT(
        clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lm), &lm, NULL),
        CL_SUCCESS);
    KT_CHECK(lm >= 4096 * sizeof(int), "CL_KERNEL_LOCAL_MEM_SIZE %llu", (unsigned long long)lm);
    clReleaseKernel(k);

    struct {
        float scale;
        int shift;
    } params = {0.5f, 3};
    float a[256];
    for (int i = 0; i < 256; i++)
        a[i] = (float)i;
    cl_mem ba = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
    KT_REQUIRE(err == CL_SUCCESS, "ba: %d", err);
    k = clCreateKernel(p, "with_struct", &err);
    KT_REQUIRE(err == CL_SUCCESS, "k: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(ba), &ba));
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(params), &params), CL_SUCCESS);
    g = 256;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    /* Changing an argument after the enqueue must not change that launch. */
    params.scale = 100.0f;
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(params), &params), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, ba, CL_TRUE, 0, sizeof(a), a, 0, NULL, NULL),
              CL_SUCCESS);
    for (int i = 0; i < 256; i++)
        if (a[i] != (float)i * 0.5f + 3) {
            KT_CHECK(0, "with_struct[%d] = %g", i, a[i]);
            break;
        }
    clReleaseKernel(k);

    k = clCreateKernel(p, "task", &err);
    KT_REQUIRE(err == CL_SUCCESS, "k: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(bo), &bo));
    KT_EXPECT(clEnqueueTask(env->queue, k, 0, NULL, NULL), CL_SUCCESS);
    int first = 0;
    clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof(first), &first, 0, NULL, NULL);
    KT_CHECK(first == 43, "task wrote %d", first);
    clReleaseKernel(k);
    clReleaseMemObject(ba);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
}

static void buffer_commands(struct kt_env *env)
{
    cl_int err;
    const size_t n = 3 << 20; /* large enough to be split across workers */
    unsigned char *h = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)(i * 7 + 3);
    cl_mem a = clCreateBuffer(env->context, 0, n, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "a: %d", err);
    cl_mem b = clCreateBuffer(env->context, 0, n, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "b: %d", err);
    cl_event ev[3];
    KT_REQUIRE_OK(clEnqueueWriteBuffer(env->queue, a, CL_FALSE, 0, n, h, 0, NULL, &ev[0]));
    KT_REQUIRE_OK(clEnqueueCopyBuffer(env->queue, a, b, 0, 0, n, 1, &ev[0], &ev[1]));
    KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, b, CL_FALSE, 0, n, back, 1, &ev[1], &ev[2]));
    KT_EXPECT(clWaitForEvents(3, ev), CL_SUCCESS);
    KT_CHECK(memcmp(h, back, n) == 0, "write/copy/read round trip differs");
    cl_ulong t[4];
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; i++)
        KT_EXPECT(clGetEventProfilingInfo(ev[1], what[i], sizeof(t[i]), &t[i], NULL), CL_SUCCESS);
    KT_CHECK(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3] && t[0] > 0,
             "profiling out of order: %llu %llu %llu %llu", (unsigned long long)t[0],
             (unsigned long long)t[1], (unsigned long long)t[2], (unsigned long long)t[3]);
    cl_command_type type = 0;
    KT_EXPECT(clGetEventInfo(ev[1], CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_COPY_BUFFER, "command type 0x%x", type);
    for (int i = 0; i < 3; i++)
        clReleaseEvent(ev[i]);

    /* Fill with every pattern size, over a part of the buffer. */
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pat[128];
        for (size_t i = 0; i < ps; i++)
            pat[i] = (unsigned char)(0xA0 + i + ps);
        size_t off = ps * 3, len = ps * 1000;
        KT_EXPECT(clEnqueueFillBuffer(env->queue, b, pat, ps, off, len, 0, NULL, NULL), CL_SUCCESS);
        KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, n, back, 0, NULL, NULL),
                  CL_SUCCESS);
        bool ok = memcmp(back, h, off) == 0 &&
                  memcmp(back + off + len, h + off + len, n - off - len) == 0;
        for (size_t i = 0; i < len && ok; i++)
            ok = back[off + i] == pat[i % ps];
        KT_CHECK(ok, "fill with a %zu-byte pattern", ps);
        KT_EXPECT(clEnqueueCopyBuffer(env->queue, a, b, 0, 0, n, 0, NULL, NULL), CL_SUCCESS);
    }
    /* A large fill goes through the workers. */
    cl_uint word = 0xDEADBEEF;
    KT_EXPECT(clEnqueueFillBuffer(env->queue, b, &word, 4, 0, n, 0, NULL, NULL), CL_SUCCESS);
    cl_uint *m = clEnqueueMapBuffer(env->queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0,
                                    NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS && m, "map: %d", err);
    bool ok = true;
    for (size_t i = 0; i < n / 4 && ok; i++)
        ok = m[i] == word;
    KT_CHECK(ok, "large fill");
    cl_uint count = 0;
    clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL);
    KT_CHECK(count == 1, "map count %u", count);
    m[5] = 77;
    KT_EXPECT(clEnqueueUnmapMemObject(env->queue, b, m, 0, NULL, NULL), CL_SUCCESS);
    cl_uint five = 0;
    clEnqueueReadBuffer(env->queue, b, CL_TRUE, 20, 4, &five, 0, NULL, NULL);
    KT_CHECK(five == 77, "write through a mapping: %u", five);

    /* USE_HOST_PTR is zero-copy: a mapping points into the caller's memory. */
    cl_mem u = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 4096, h, &err);
    KT_REQUIRE(err == CL_SUCCESS, "u: %d", err);
    void *mu =
        clEnqueueMapBuffer(env->queue, u, CL_TRUE, CL_MAP_READ, 128, 64, 0, NULL, NULL, &err);
    KT_CHECK(mu == h + 128, "USE_HOST_PTR mapping %p, host %p", mu, (void *)(h + 128));
    void *hp = NULL;
    clGetMemObjectInfo(u, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL);
    KT_CHECK(hp == h, "CL_MEM_HOST_PTR");
    clEnqueueUnmapMemObject(env->queue, u, mu, 0, NULL, NULL);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    clReleaseMemObject(u);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(h);
    free(back);
}

static void infos(cl_program p)
{
    cl_int err;
    size_t n = 0;
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(n), &n, NULL), CL_SUCCESS);
    KT_CHECK(n == 5, "%zu kernels", n);
    char names[256] = "";
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL), CL_SUCCESS);
    KT_CHECK(strstr(names, "ids") && strstr(names, "with_struct") && strstr(names, "task"),
             "kernel names \"%s\"", names);
    cl_kernel ks[5];
    cl_uint got = 0;
    KT_EXPECT(clCreateKernelsInProgram(p, 5, ks, &got), CL_SUCCESS);
    KT_CHECK(got == 5, "created %u kernels", got);
    for (cl_uint i = 0; i < got; i++) {
        char fn[64] = "";
        cl_uint nargs = 0;
        clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof(fn), fn, NULL);
        clGetKernelInfo(ks[i], CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL);
        if (strcmp(fn, "ids") == 0)
            KT_CHECK(nargs == 3, "ids has %u args", nargs);
        if (strcmp(fn, "with_local") == 0) {
            cl_kernel_arg_address_qualifier aq = 0;
            KT_EXPECT(clGetKernelArgInfo(ks[i], 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq,
                                         NULL),
                      CL_SUCCESS);
            KT_CHECK(aq == CL_KERNEL_ARG_ADDRESS_LOCAL, "address qualifier 0x%x", aq);
            char an[32] = "", tn[32] = "";
            clGetKernelArgInfo(ks[i], 0, CL_KERNEL_ARG_NAME, sizeof(an), an, NULL);
            clGetKernelArgInfo(ks[i], 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(tn), tn, NULL);
            KT_CHECK(strcmp(an, "in") == 0 && strcmp(tn, "int*") == 0, "arg 0: %s %s", tn, an);
            cl_kernel_arg_type_qualifier tq = 0;
            clGetKernelArgInfo(ks[i], 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL);
            KT_CHECK(tq & CL_KERNEL_ARG_TYPE_CONST, "arg 0 should be const");
        }
        clReleaseKernel(ks[i]);
    }
    (void)err;
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, CL_QUEUE_PROFILING_ENABLE);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0 -cl-kernel-arg-info");
    ranges(&env, p);
    local_and_struct(&env, p);
    buffer_commands(&env);
    infos(p);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("api/kernels");
}
