/*
 * Kernels with barriers, checked element by element against the host: barriers
 * in straight code, in loops whose trip count differs between groups, in
 * branches, in nested loops, in a called function and in a called kernel, an
 * early return after the last barrier, private arrays and structs kept across
 * barriers, loops left by break and continue, values uniform across the group
 * beside varying ones, a local-memory tree reduction, a
 * tiled matrix multiply, 2D partial groups and a 3D group, built with and
 * without -cl-opt-disable. Each 1D kernel runs at several local sizes: 1,
 * non-powers of two, non-uniform groups and one group of 4096. Also:
 * KILN_BARRIER_STRATEGY values the compiler refuses. Run once with the worker
 * pool and once with KILN_NUM_THREADS=0.
 */
#define _POSIX_C_SOURCE 200809L
#include "kiln_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "#define L CLK_LOCAL_MEM_FENCE\n"
    "kernel void rotate(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  t[l] = in[g];\n"
    "  barrier(L);\n"
    "  out[g] = t[(l + 1) % n] + p;\n"
    "}\n"
    "kernel void reduce(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  t[l] = in[g];\n"
    "  barrier(L);\n"
    "  for (uint s = 1; s < n; s <<= 1) {\n"
    "    if (l % (2 * s) == 0 && l + s < n) t[l] += t[l + s];\n"
    "    barrier(L);\n"
    "  }\n"
    "  out[g] = t[0] + (int)l * p;\n"
    "}\n"
    "kernel void group_loop(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int trips = (int)((get_group_id(0) + p) % 4), acc = in[g];\n"
    "  for (int i = 0; i < trips; i++) {\n"
    "    t[l] = acc;\n"
    "    barrier(L);\n"
    "    acc += t[(l + 1) % n] * (i + 1);\n"
    "    barrier(L);\n"
    "  }\n"
    "  out[g] = acc;\n"
    "}\n"
    "kernel void branch(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  if (p & 1) {\n"
    "    t[l] = in[g] * 2;\n"
    "    barrier(L);\n"
    "    out[g] = t[n - 1 - l];\n"
    "  } else {\n"
    "    t[n - 1 - l] = in[g] - 5;\n"
    "    work_group_barrier(L);\n"
    "    out[g] = t[l] * 3;\n"
    "  }\n"
    "}\n"
    "kernel void nested(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int acc = in[g];\n"
    "  for (int i = 0; i < 2; i++)\n"
    "    for (int j = 0; j <= i + p % 2; j++) {\n"
    "      t[l] = acc;\n"
    "      barrier(L);\n"
    "      acc = acc + t[n - 1 - l] * (j + 1) - i;\n"
    "      barrier(L);\n"
    "    }\n"
    "  out[g] = acc;\n"
    "}\n"
    "int exchange(local int *t, int v, uint l, uint n) {\n"
    "  t[l] = v;\n"
    "  barrier(L);\n"
    "  int r = t[(l + n - 1) % n];\n"
    "  barrier(L);\n"
    "  return r;\n"
    "}\n"
    "kernel void helper(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int a = exchange(t, in[g], l, n);\n"
    "  out[g] = a * 3 + exchange(t, in[g] + p, l, n);\n"
    "}\n"
    "kernel void early_return(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  t[l] = in[g];\n"
    "  barrier(L);\n"
    "  int v = t[n - 1 - l];\n"
    "  if (l % 3 == 1) return;\n"
    "  out[g] = v + p;\n"
    "}\n"
    "typedef struct { int a; float b; short c[3]; } item;\n"
    "kernel void private_mem(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int priv[8]; item s;\n"
    "  for (int k = 0; k < 8; k++) priv[k] = in[g] * k + (int)l;\n"
    "  s.a = in[g]; s.b = l * 0.5f; s.c[(l + p) % 3] = (short)l;\n"
    "  t[l] = s.a;\n"
    "  barrier(L);\n"
    "  int sum = 0;\n"
    "  for (int k = 0; k < 8; k++) sum += priv[(k + l) % 8] * (k + 1);\n"
    "  out[g] = sum + t[(l + 1) % n] + (int)(s.b * 2.0f) + s.c[(l + p) % 3];\n"
    "}\n"
    "kernel void inner(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  t[l] = in[g] + p;\n"
    "  barrier(L);\n"
    "  out[g] = t[(l + 2) % n];\n"
    "}\n"
    "kernel void outer(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  inner(in, out, t, p);\n"
    "  barrier(L | CLK_GLOBAL_MEM_FENCE);\n"
    "  t[l] = out[g];\n"
    "  work_group_barrier(L, memory_scope_work_group);\n"
    "  out[g] = t[(l + 1) % n] * 2;\n"
    "}\n"
    "kernel void matmul(global const float *A, global const float *B, global float *C,\n"
    "                   int K, int N, local float *As, local float *Bs) {\n"
    "  int tx = get_local_id(0), ty = get_local_id(1);\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int k0 = 0; k0 < K; k0 += 16) {\n"
    "    As[ty * 16 + tx] = A[row * K + k0 + tx];\n"
    "    Bs[ty * 16 + tx] = B[(k0 + ty) * N + col];\n"
    "    barrier(L);\n"
    "    for (int k = 0; k < 16; k++) acc += As[ty * 16 + k] * Bs[k * 16 + tx];\n"
    "    barrier(L);\n"
    "  }\n"
    "  C[row * N + col] = acc;\n"
    "}\n"
    "kernel void loop_exits(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int acc = in[g], i = 0;\n"
    "  do {\n"
    "    t[l] = acc;\n"
    "    barrier(L);\n"
    "    if (i == 1 + p) { acc -= t[0]; i++; barrier(L); continue; }\n"
    "    acc += t[n - 1 - l];\n"
    "    barrier(L);\n"
    "    if (i >= 3) break;\n"
    "    i++;\n"
    "  } while (1);\n"
    "  out[g] = acc;\n"
    "}\n"
    "kernel void uniform_mix(global const int *in, global int *out, local int *t, int p) {\n"
    "  uint l = get_local_id(0), n = get_local_size(0); size_t g = get_global_id(0);\n"
    "  int base = p * 3 + (int)get_group_id(0), mine = in[g], side = 0, count = 0;\n"
    "  if (l % 2 == 0) side = 7;\n"
    "  if (l == 0) t[0] = in[g] + base;\n"
    "  barrier(L);\n"
    "  int shared0 = t[0];\n"
    "  barrier(L);\n"
    "  for (int i = 0; i < (p & 3) + 1; i++) {\n"
    "    count += i + shared0;\n"
    "    t[l] = mine + count;\n"
    "    barrier(L);\n"
    "    mine = t[(l + 1) % n];\n"
    "    barrier(L);\n"
    "  }\n"
    "  out[g] = mine + base + side + shared0 + count;\n"
    "}\n"
    "kernel void flip2(global const int *in, global int *out, local int *t, int w) {\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1);\n"
    "  size_t nx = get_local_size(0), ny = get_local_size(1);\n"
    "  size_t gx = get_global_id(0), gy = get_global_id(1);\n"
    "  t[ly * nx + lx] = in[gy * w + gx];\n"
    "  barrier(L);\n"
    "  out[gy * w + gx] = t[(ny - 1 - ly) * nx + (nx - 1 - lx)];\n"
    "}\n"
    "kernel void mirror3(global int *out, local int *t) {\n"
    "  size_t l = get_local_linear_id();\n"
    "  size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
    "  t[l] = (int)get_global_linear_id();\n"
    "  barrier(L);\n"
    "  out[get_global_linear_id()] = t[n - 1 - l];\n"
    "}\n";

typedef void host_fn(const int *in, int *out, size_t n, size_t group, int p);

static void h_rotate(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++)
        out[l] = in[(l + 1) % n] + p;
}

static void h_reduce(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    int sum = 0;
    for (size_t l = 0; l < n; l++)
        sum += in[l];
    for (size_t l = 0; l < n; l++)
        out[l] = sum + (int)l * p;
}

static void h_group_loop(const int *in, int *out, size_t n, size_t group, int p)
{
    int acc[4096], t[4096];
    int trips = (int)((group + (size_t)p) % 4);
    for (size_t l = 0; l < n; l++)
        acc[l] = in[l];
    for (int i = 0; i < trips; i++) {
        memcpy(t, acc, n * sizeof(int));
        for (size_t l = 0; l < n; l++)
            acc[l] += t[(l + 1) % n] * (i + 1);
    }
    memcpy(out, acc, n * sizeof(int));
}

static void h_branch(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++)
        out[l] = (p & 1) ? in[n - 1 - l] * 2 : (in[n - 1 - l] - 5) * 3;
}

static void h_nested(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    int acc[4096], t[4096];
    for (size_t l = 0; l < n; l++)
        acc[l] = in[l];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j <= i + p % 2; j++) {
            memcpy(t, acc, n * sizeof(int));
            for (size_t l = 0; l < n; l++)
                acc[l] = acc[l] + t[n - 1 - l] * (j + 1) - i;
        }
    memcpy(out, acc, n * sizeof(int));
}

static void h_helper(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++) {
        size_t prev = (l + n - 1) % n;
        out[l] = in[prev] * 3 + in[prev] + p;
    }
}

static void h_early_return(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++)
        out[l] = l % 3 == 1 ? -7 : in[n - 1 - l] + p;
}

static void h_private_mem(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    (void)p;
    for (size_t l = 0; l < n; l++) {
        int sum = 0;
        for (int k = 0; k < 8; k++)
            sum += (in[l] * (int)((k + l) % 8) + (int)l) * (k + 1);
        out[l] = sum + in[(l + 1) % n] + (int)l + (int)l;
    }
}

static void h_outer(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++)
        out[l] = (in[(l + 3) % n] + p) * 2;
}

static void h_inner(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    for (size_t l = 0; l < n; l++)
        out[l] = in[(l + 2) % n] + p;
}

static void h_loop_exits(const int *in, int *out, size_t n, size_t group, int p)
{
    (void)group;
    int acc[4096], t[4096];
    memcpy(acc, in, n * sizeof(int));
    for (int i = 0;;) {
        memcpy(t, acc, n * sizeof(int));
        if (i == 1 + p) {
            for (size_t l = 0; l < n; l++)
                acc[l] -= t[0];
            i++;
            continue;
        }
        for (size_t l = 0; l < n; l++)
            acc[l] += t[n - 1 - l];
        if (i >= 3)
            break;
        i++;
    }
    memcpy(out, acc, n * sizeof(int));
}

/* Uniform values (one copy for the group) beside varying ones, a value set in a
 * branch on the local id, and a uniform counter advanced after a barrier. */
static void h_uniform_mix(const int *in, int *out, size_t n, size_t group, int p)
{
    int mine[4096], t[4096];
    int base = p * 3 + (int)group, shared0 = in[0] + base, count = 0;
    memcpy(mine, in, n * sizeof(int));
    for (int i = 0; i < (p & 3) + 1; i++) {
        count += i + shared0;
        for (size_t l = 0; l < n; l++)
            t[l] = mine[l] + count;
        for (size_t l = 0; l < n; l++)
            mine[l] = t[(l + 1) % n];
    }
    for (size_t l = 0; l < n; l++)
        out[l] = mine[l] + base + (l % 2 == 0 ? 7 : 0) + shared0 + count;
}

static const struct {
    const char *name;
    host_fn *host;
} kernels1d[] = {
    {"rotate", h_rotate},
    {"reduce", h_reduce},
    {"group_loop", h_group_loop},
    {"branch", h_branch},
    {"nested", h_nested},
    {"helper", h_helper},
    {"early_return", h_early_return},
    {"private_mem", h_private_mem},
    {"outer", h_outer},
    {"inner", h_inner},
    {"loop_exits", h_loop_exits},
    {"uniform_mix", h_uniform_mix},
};

static void run_1d(struct kt_env *env, cl_kernel k, host_fn *host, const char *name, size_t global,
                   size_t local, int p)
{
    cl_int err;
    int *in = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
    int *want = malloc(global * sizeof(int));
    KT_REQUIRE(in && out && want, "out of memory");
    for (size_t i = 0; i < global; i++) {
        in[i] = (int)((i * 7919u + 13u) % 1000u) - 500;
        out[i] = -7;
    }
    cl_mem bin = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, global * sizeof(int), in, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_mem bout =
        clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, global * sizeof(int), out, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(bin), &bin), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(bout), &bout), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, local * sizeof(int), NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(p), &p), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, bout, CL_TRUE, 0, global * sizeof(int), out, 0, NULL, NULL),
        CL_SUCCESS);
    for (size_t base = 0, group = 0; base < global; base += local, group++) {
        size_t n = global - base < local ? global - base : local;
        host(in + base, want + base, n, group, p);
    }
    size_t bad = 0;
    for (size_t i = 0; i < global; i++)
        if (out[i] != want[i] && bad++ < 3)
            fprintf(stderr, "%s global %zu local %zu p %d: item %zu: got %d, want %d\n", name,
                    global, local, p, i, out[i], want[i]);
    KT_CHECK(bad == 0, "%s: %zu of %zu work-items wrong (global %zu, local %zu, p %d)", name, bad,
             global, global, local, p);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    free(in);
    free(out);
    free(want);
}

static void one_dimension(struct kt_env *env, cl_program p)
{
    /* global, local: 1, odd and non-uniform sizes, the largest group. */
    static const size_t sizes[][2] = {{64, 1},     {100, 7},     {1000, 64},   {777, 100},
                                      {4096, 256}, {4096, 4096}, {3000, 1000}, {33, 33}};
    for (size_t i = 0; i < sizeof(kernels1d) / sizeof(kernels1d[0]); i++) {
        cl_int err;
        cl_kernel k = clCreateKernel(p, kernels1d[i].name, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", kernels1d[i].name, err);
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (int param = 1; param <= 2; param++)
                run_1d(env, k, kernels1d[i].host, kernels1d[i].name, sizes[s][0], sizes[s][1],
                       param);
        clReleaseKernel(k);
    }
}

static void matmul(struct kt_env *env, cl_program p)
{
    enum { M = 48, K = 64, N = 32 };
    static float a[M * K], bm[K * N], c[M * N];
    cl_int err;
    for (int i = 0; i < M * K; i++)
        a[i] = (float)((i * 37) % 9 - 4);
    for (int i = 0; i < K * N; i++)
        bm[i] = (float)((i * 11) % 7 - 3);
    cl_mem da = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
    cl_mem db = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(bm), bm, &err);
    cl_mem dc = clCreateBuffer(env->context, 0, sizeof(c), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_kernel k = clCreateKernel(p, "matmul", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel matmul: %d", err);
    cl_int kk = K, nn = N;
    clSetKernelArg(k, 0, sizeof(da), &da);
    clSetKernelArg(k, 1, sizeof(db), &db);
    clSetKernelArg(k, 2, sizeof(dc), &dc);
    clSetKernelArg(k, 3, sizeof(kk), &kk);
    clSetKernelArg(k, 4, sizeof(nn), &nn);
    clSetKernelArg(k, 5, 16 * 16 * sizeof(float), NULL);
    clSetKernelArg(k, 6, 16 * 16 * sizeof(float), NULL);
    size_t global[2] = {N, M}, local[2] = {16, 16};
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, dc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (int r = 0; r < M; r++)
        for (int col = 0; col < N; col++) {
            float want = 0;
            for (int i = 0; i < K; i++)
                want += a[r * K + i] * bm[i * N + col];
            if (c[r * N + col] != want && bad++ < 3)
                fprintf(stderr, "matmul C[%d][%d] = %g, want %g\n", r, col, c[r * N + col], want);
        }
    KT_CHECK(bad == 0, "matmul: %zu of %d elements wrong", bad, M * N);
    clReleaseKernel(k);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
}

/* 2D groups, the last ones partial in both dimensions. */
static void two_dimensions(struct kt_env *env, cl_program p)
{
    enum { W = 37, H = 21 };
    size_t global[2] = {W, H}, local[2] = {8, 4};
    int in[W * H], out[W * H];
    cl_int err;
    for (int i = 0; i < W * H; i++)
        in[i] = i * 3 + 1;
    cl_mem bin = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    cl_mem bout = clCreateBuffer(env->context, 0, sizeof(out), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_kernel k = clCreateKernel(p, "flip2", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel flip2: %d", err);
    cl_int w = W;
    clSetKernelArg(k, 0, sizeof(bin), &bin);
    clSetKernelArg(k, 1, sizeof(bout), &bout);
    clSetKernelArg(k, 2, local[0] * local[1] * sizeof(int), NULL);
    clSetKernelArg(k, 3, sizeof(w), &w);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, bout, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++) {
            size_t x0 = x / local[0] * local[0], y0 = y / local[1] * local[1];
            size_t nx = W - x0 < local[0] ? W - x0 : local[0];
            size_t ny = H - y0 < local[1] ? H - y0 : local[1];
            size_t mx = x0 + (nx - 1 - (x - x0)), my = y0 + (ny - 1 - (y - y0));
            int want = in[my * W + mx];
            if (out[y * W + x] != want && bad++ < 3)
                fprintf(stderr, "flip2 (%zu,%zu): got %d, want %d\n", x, y, out[y * W + x], want);
        }
    KT_CHECK(bad == 0, "flip2: %zu of %d work-items wrong", bad, W * H);
    clReleaseKernel(k);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
}

static void three_dimensions(struct kt_env *env, cl_program p)
{
    size_t global[3] = {8, 6, 10}, local[3] = {4, 3, 5};
    size_t total = global[0] * global[1] * global[2], n = local[0] * local[1] * local[2];
    cl_int err;
    cl_mem b = clCreateBuffer(env->context, 0, total * sizeof(int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    cl_kernel k = clCreateKernel(p, "mirror3", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel mirror3: %d", err);
    clSetKernelArg(k, 0, sizeof(b), &b);
    clSetKernelArg(k, 1, n * sizeof(int), NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 3, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    int *out = malloc(total * sizeof(int));
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, total * sizeof(int), out, 0, NULL, NULL),
        CL_SUCCESS);
    size_t bad = 0;
    for (size_t z = 0; z < global[2]; z++)
        for (size_t y = 0; y < global[1]; y++)
            for (size_t x = 0; x < global[0]; x++) {
                size_t gx = x / local[0], gy = y / local[1], gz = z / local[2];
                size_t l = (x % local[0]) + local[0] * ((y % local[1]) + local[1] * (z % local[2]));
                size_t m = n - 1 - l; /* the mirrored work-item of the same group */
                size_t mx = gx * local[0] + m % local[0];
                size_t my = gy * local[1] + (m / local[0]) % local[1];
                size_t mz = gz * local[2] + m / (local[0] * local[1]);
                int want = (int)(mx + global[0] * (my + global[1] * mz));
                int got = out[x + global[0] * (y + global[1] * z)];
                if (got != want && bad++ < 3)
                    fprintf(stderr, "mirror3 (%zu,%zu,%zu): got %d, want %d\n", x, y, z, got, want);
            }
    KT_CHECK(bad == 0, "mirror3: %zu of %zu work-items wrong", bad, total);
    free(out);
    clReleaseKernel(k);
    clReleaseMemObject(b);
}

/* KILN_BARRIER_STRATEGY: both strategies build, any other value is refused with a
 * build-log line; the environment's choice is put back after. */
static void strategies(struct kt_env *env)
{
    static const char *bsrc = "kernel void needs_barrier(global int *a, local int *t) {\n"
                              "  t[get_local_id(0)] = a[get_global_id(0)];\n"
                              "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "  a[get_global_id(0)] = t[0];\n"
                              "}\n";
    static const struct {
        const char *value, *expect; /* expect NULL: the build succeeds */
    } cases[] = {
        {"fibers", NULL},
        {"regions", NULL},
        {"bogus", "KILN_BARRIER_STRATEGY='bogus' is not a barrier strategy"},
    };
    const char *given = getenv("KILN_BARRIER_STRATEGY");
    char *saved = given ? strdup(given) : NULL;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_int err;
        setenv("KILN_BARRIER_STRATEGY", cases[i].value, 1);
        cl_program p = clCreateProgramWithSource(env->context, 1, &bsrc, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
        KT_EXPECT(clBuildProgram(p, 1, &env->device, "", NULL, NULL),
                  cases[i].expect ? CL_BUILD_PROGRAM_FAILURE : CL_SUCCESS);
        char log[4096] = "";
        clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        KT_CHECK(!cases[i].expect || strstr(log, cases[i].expect) != NULL, "log for %s: %s",
                 cases[i].value, log);
        clReleaseProgram(p);
    }
    /* Barrier-free kernels do not care. */
    static const char *fsrc = "kernel void plain(global int *a) { a[get_global_id(0)] += 1; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &fsrc, NULL, &err);
    KT_EXPECT(clBuildProgram(p, 1, &env->device, "", NULL, NULL), CL_SUCCESS);
    clReleaseProgram(p);
    if (saved)
        setenv("KILN_BARRIER_STRATEGY", saved, 1);
    else
        unsetenv("KILN_BARRIER_STRATEGY");
    free(saved);
}

/*
 * A kernel the region transform refuses (more barrier calls than it handles) still builds:
 * the program is built again on fibers, the log says why, and the results are right.
 */
static void fallback(struct kt_env *env)
{
    static const char many[] = "#define STEP barrier(CLK_LOCAL_MEM_FENCE); x += t[(l + 1) % n];\n"
                               "#define S8 STEP STEP STEP STEP STEP STEP STEP STEP\n"
                               "#define S64 S8 S8 S8 S8 S8 S8 S8 S8\n"
                               "kernel void many(global int *out, local int *t)\n"
                               "{\n"
                               "    size_t l = get_local_id(0), n = get_local_size(0);\n"
                               "    int x = 0;\n"
                               "    t[l] = (int)l * 3;\n"
                               "    S64 S64 S64 S64 STEP STEP STEP STEP\n"
                               "    out[get_global_id(0)] = x;\n"
                               "}\n";
    cl_program p = kt_build(env, many, "-cl-std=CL3.0");
    char log[4096] = "";
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL),
              CL_SUCCESS);
    const char *strategy = getenv("KILN_BARRIER_STRATEGY");
    if (!strategy || strcmp(strategy, "fibers") != 0)
        KT_CHECK(strstr(log, "note: kernel 'many' calls barrier() but") &&
                     strstr(log, "run on fibers instead"),
                 "the build log does not tell of the fallback:\n%s", log);
    enum { N = 256, L = 64 };
    int out[N];
    cl_int err;
    cl_kernel k = clCreateKernel(p, "many", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, L * sizeof(int), NULL), CL_SUCCESS);
    size_t g = N, l = L;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != 260 * 3 * ((i % L + 1) % L);
    KT_CHECK(bad == 0, "%d wrong results after the fallback (out[0] = %d)", bad, out[0]);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    fallback(&env);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    one_dimension(&env, p);
    matmul(&env, p);
    two_dimensions(&env, p);
    three_dimensions(&env, p);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    /* Unoptimised, the transform's own output runs as built. */
    p = kt_build(&env, src, "-cl-std=CL3.0 -cl-opt-disable");
    one_dimension(&env, p);
    matmul(&env, p);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    strategies(&env);
    kt_teardown(&env);
    return kt_finish("api/regions");
}
