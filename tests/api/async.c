/*
 * Work-group copies: async_work_group_copy and async_work_group_strided_copy in
 * both directions, for scalars, vectors and 3-component vectors (copied as
 * 4-component), with events shared by several copies and wait_group_events, at
 * local sizes from 1 to 256 and with a partial last group. Every element is
 * checked against the host. Run with the worker pool and with KILN_NUM_THREADS=0.
 *
 * Then kernels the compiler rewrites (docs/compiler.md, "Staged tiles"): a tile staged
 * through __local and read in a circle, with indices that wrap at three places within
 * the group, its copy out known where the copy in is made; and loops from the local id
 * by the local size whose trip count differs between work-items, or does not.
 */
#include "kiln_test.h"

#include <stdint.h>
#include <stdlib.h>

static const char *src =
    /* Stage a group's run of `in` through __local, reversed within the group. */
    "kernel void stage(global const int *in, global int *out, local int *tmp) {\n"
    "  size_t n = get_local_size(0), base = get_group_id(0) * get_enqueued_local_size(0);\n"
    "  event_t e = async_work_group_copy(tmp, in + base, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  size_t l = get_local_id(0);\n"
    "  int v = tmp[n - 1 - l] * 2;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  tmp[l] = v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_copy(out + base, tmp, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n"
    /* Two copies share one event; the strided forms gather and scatter columns. */
    "kernel void strided(global const float4 *in, global float4 *out, local float4 *a,\n"
    "                    local float4 *b, uint stride) {\n"
    "  size_t n = get_local_size(0), g = get_group_id(0);\n"
    "  event_t e = async_work_group_strided_copy(a, in + g, n, stride, 0);\n"
    "  event_t e2 = async_work_group_copy(b, in + g * n, n, e);\n"
    "  wait_group_events(1, &e2);\n"
    "  size_t l = get_local_id(0);\n"
    "  a[l] += b[l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_strided_copy(out + g, a, n, stride, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n"
    /* char3 elements occupy 4 bytes: all 4 are copied, in and out. */
    "kernel void three(global const char3 *in, global char3 *out, local char3 *tmp) {\n"
    "  size_t n = get_local_size(0), base = get_group_id(0) * n;\n"
    "  event_t e = async_work_group_copy(tmp, in + base, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  e = async_work_group_copy(out + base, tmp, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n"
    "kernel void wide(global const short16 *in, global short16 *out, local short16 *tmp) {\n"
    "  size_t n = get_local_size(0), base = get_group_id(0) * n;\n"
    "  prefetch(in + base, n);\n"
    "  event_t e = async_work_group_copy(tmp, in + base, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  tmp[get_local_id(0)] += (short16)1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_copy(out + base, tmp, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n";

static const char *tiles_src =
    "#define TILE 1024\n"
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
    "void circle(__global const uint *in, __global uint *out)\n"
    "{\n"
    "    __local uint t[TILE], r[TILE];\n"
    "    size_t base = get_group_id(0) * TILE;\n"
    "    event_t e = async_work_group_copy(t, in + base, TILE, 0);\n"
    "    wait_group_events(1, &e);\n"
    "    for (size_t i = get_local_id(0); i < TILE; i += get_local_size(0))\n"
    "        r[i] = 3 * t[i] + (t[(i + 1) % TILE] ^ t[(i + 300) & (TILE - 1)])\n"
    "               + t[(i + 1000) % 512];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    e = async_work_group_copy(out + base, r, TILE, 0);\n"
    "    wait_group_events(1, &e);\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void ragged(__global const uint *in, __global uint *out)\n"
    "{\n"
    "    size_t base = get_group_id(0) * 1000;\n"
    "    for (size_t i = get_local_id(0); i < 1000; i += get_local_size(0))\n"
    "        out[base + i] = in[base + (i + 7) % 1000] * 5;\n"
    "    for (int i = (int)get_local_id(0) + 64; i < 640; i += 64)\n"
    "        out[base + i] += 1;\n"
    "}\n";

static cl_mem buffer(struct kt_env *env, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, (void *)init, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return m;
}

static void stage(struct kt_env *env, cl_program p, size_t global, size_t local)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "stage", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel stage: %d", err);
    int *in = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
    for (size_t i = 0; i < global; i++)
        in[i] = (int)(i * 7 + 3);
    cl_mem a = buffer(env, global * sizeof(int), in), b = buffer(env, global * sizeof(int), NULL);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, local * sizeof(int), NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, global * sizeof(int), out, 0, NULL, NULL),
        CL_SUCCESS);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++) {
        size_t base = i / local * local, n = global - base < local ? global - base : local;
        int want = in[base + (n - 1 - (i - base))] * 2;
        if (out[i] != want && bad++ < 3)
            KT_CHECK(0, "stage global %zu local %zu: out[%zu] = %d, want %d", global, local, i,
                     out[i], want);
    }
    KT_CHECK(bad == 0, "stage global %zu local %zu: %zu wrong", global, local, bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    free(in);
    free(out);
}

static void strided(struct kt_env *env, cl_program p, size_t groups, size_t local)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "strided", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel strided: %d", err);
    /* in and out are local x groups matrices of float4; group g owns column g. */
    size_t count = groups * local;
    float *in = malloc(count * 4 * sizeof(float)), *out = malloc(count * 4 * sizeof(float));
    for (size_t i = 0; i < count * 4; i++) {
        in[i] = (float)(i % 1000);
        out[i] = -1.0f;
    }
    cl_mem a = buffer(env, count * 4 * sizeof(float), in);
    cl_mem b = buffer(env, count * 4 * sizeof(float), out);
    cl_uint stride = (cl_uint)groups;
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, local * 16, NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 3, local * 16, NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 4, sizeof(stride), &stride), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &count, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, count * 16, out, 0, NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (size_t g = 0; g < groups; g++) {
        for (size_t l = 0; l < local; l++) {
            for (int c = 0; c < 4; c++) {
                float want = in[(l * groups + g) * 4 + c] + in[(g * local + l) * 4 + c];
                float got = out[(l * groups + g) * 4 + c];
                if (got != want && bad++ < 3)
                    KT_CHECK(0, "strided local %zu: group %zu item %zu: %g, want %g", local, g, l,
                             (double)got, (double)want);
            }
        }
    }
    KT_CHECK(bad == 0, "strided local %zu: %zu wrong", local, bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    free(in);
    free(out);
}

/* Copies `bytes` per element through __local with kernel `name` and checks out == in + add. */
static void roundtrip(struct kt_env *env, cl_program p, const char *name, size_t elem,
                      size_t global, size_t local, int add)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    size_t bytes = global * elem;
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        in[i] = (unsigned char)(i * 13 + 5);
        out[i] = 0xAA;
    }
    cl_mem a = buffer(env, bytes, in), b = buffer(env, bytes, out);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, local * elem, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i += 2) {
        unsigned want;
        unsigned got;
        if (add) { /* short16: little-endian 16-bit lanes, each plus one */
            want = (unsigned)(unsigned short)((in[i] | in[i + 1] << 8) + add);
            got = (unsigned)(out[i] | out[i + 1] << 8);
        } else { /* char3 as char4: every byte, the fourth too */
            want = (unsigned)(in[i] | in[i + 1] << 8);
            got = (unsigned)(out[i] | out[i + 1] << 8);
        }
        if (got != want && bad++ < 3)
            KT_CHECK(0, "%s local %zu: bytes %zu..%zu = %#x, want %#x", name, local, i, i + 1, got,
                     want);
    }
    KT_CHECK(bad == 0, "%s local %zu: %zu wrong", name, local, bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    free(in);
    free(out);
}

static uint32_t tile_input(size_t i)
{
    uint32_t x = (uint32_t)i * 2246822519u;
    return x ^ (x >> 13);
}

/* Runs `name` over `groups` groups of `local` work-items, one tile of `tile` each. */
static void run_tiles(struct kt_env *env, cl_program p, const char *name, size_t groups,
                      size_t local, size_t tile, uint32_t *in, uint32_t *out)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    size_t n = groups * tile, global = groups * local;
    for (size_t i = 0; i < n; i++)
        in[i] = tile_input(i);
    cl_mem a = buffer(env, n * sizeof(uint32_t), in), b = buffer(env, n * sizeof(uint32_t), NULL);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, n * sizeof(uint32_t), out, 0, NULL, NULL),
        CL_SUCCESS);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

static void tiles(struct kt_env *env)
{
    enum { GROUPS = 37, CIRCLE = 1024, RAGGED = 1000 };
    uint32_t *in = malloc(GROUPS * CIRCLE * sizeof(uint32_t));
    uint32_t *out = malloc(GROUPS * CIRCLE * sizeof(uint32_t));
    KT_REQUIRE(in && out, "out of memory");
    cl_program p = kt_build(env, tiles_src, "");

    run_tiles(env, p, "circle", GROUPS, 256, CIRCLE, in, out);
    size_t bad = 0;
    for (size_t i = 0; i < GROUPS * CIRCLE; i++) {
        const uint32_t *t = in + i / CIRCLE * CIRCLE;
        size_t l = i % CIRCLE;
        uint32_t want =
            3u * t[l] + (t[(l + 1) % CIRCLE] ^ t[(l + 300) % CIRCLE]) + t[(l + 1000) % 512];
        if (out[i] != want && bad++ < 3)
            KT_CHECK(0, "circle: out[%zu] = %u, want %u", i, out[i], want);
    }
    KT_CHECK(bad == 0, "circle: %zu wrong", bad);

    run_tiles(env, p, "ragged", GROUPS, 64, RAGGED, in, out);
    bad = 0;
    for (size_t i = 0; i < GROUPS * RAGGED; i++) {
        size_t base = i / RAGGED * RAGGED, l = i % RAGGED;
        uint32_t want = in[base + (l + 7) % RAGGED] * 5u + (l >= 64 && l < 640);
        if (out[i] != want && bad++ < 3)
            KT_CHECK(0, "ragged: out[%zu] = %u, want %u", i, out[i], want);
    }
    KT_CHECK(bad == 0, "ragged: %zu wrong", bad);
    clReleaseProgram(p);
    free(in);
    free(out);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    static const size_t locals[] = {1, 3, 16, 37, 64, 256};
    for (size_t i = 0; i < sizeof(locals) / sizeof(locals[0]); i++) {
        stage(&env, p, locals[i] * 5, locals[i]);
        strided(&env, p, 6, locals[i]);
        roundtrip(&env, p, "three", 4, locals[i] * 3, locals[i], 0);
        roundtrip(&env, p, "wide", 32, locals[i] * 2, locals[i], 1);
    }
    /* A partial last group copies only its own elements. */
    stage(&env, p, 1000, 64);
    stage(&env, p, 129, 128);
    clReleaseProgram(p);
    tiles(&env);
    kt_teardown(&env);
    return kt_finish("api/async");
}
