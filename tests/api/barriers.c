/*
 * Kernels with barriers and kernel-scope __local variables, checked element by
 * element against the host: barriers in loops whose trip count differs between
 * groups, in branches the whole group takes, in nested loops and in a called
 * function; early return after the last barrier; private arrays and structs live
 * across barriers; a kernel calling another kernel; kernel-scope __local arrays
 * beside __local arguments, and in a called kernel; a tree reduction; a tiled
 * sgemm; 3D groups. Local sizes 1, non powers of two, partial last groups, 4096
 * work-items per group and a size the runtime picks. Also the
 * limits: too much __local memory at enqueue, too much private memory, and
 * KILN_BARRIER_STRATEGY values. Run once with the worker pool and once with
 * KILN_NUM_THREADS=0.
 */
#include "kiln_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "typedef struct { int a; float b; } pair;\n"
    "kernel void loops(global int *out, global const int *in, local int *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);\n"
    "  int acc = in[get_global_id(0)];\n"
    "  for (size_t t = 0; t <= g % 4; t++) {\n"
    "    tmp[l] = acc;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    acc += 3 * tmp[(l + 1) % n];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    "void rotate(local int *tmp, int *v) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = *v;\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  *v = tmp[(l + n - 1) % n];\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
    "}\n"
    "kernel void mixed(global int *out, local int *tmp) {\n"
    "  size_t l = get_local_id(0), g = get_group_id(0), gid = get_global_id(0);\n"
    "  int priv[8];\n"
    "  pair s = { (int)gid, 0.5f * (float)gid };\n"
    "  for (int i = 0; i < 8; i++) priv[i] = (int)gid * 8 + i;\n"
    "  int v = (int)gid;\n"
    "  if (g % 2 == 0) {\n"
    "    for (int i = 0; i < 2; i++)\n"
    "      for (int j = 0; j <= (int)(g % 3); j++)\n"
    "        rotate(tmp, &v);\n"
    "  } else {\n"
    "    rotate(tmp, &v);\n"
    "  }\n"
    "  int sum = 0;\n"
    "  for (int i = 0; i < 8; i++) sum += priv[(i + l) % 8];\n"
    "  out[4 * gid] = v; out[4 * gid + 1] = sum; out[4 * gid + 2] = s.a + (int)(2.0f * s.b);\n"
    "  if (l % 2) { out[4 * gid + 3] = -1; return; }\n"
    "  out[4 * gid + 3] = 7;\n"
    "}\n"
    "kernel void rev(global int *out, local int *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = out[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tmp[n - 1 - l];\n"
    "}\n"
    "kernel void rev_add_rev(global int *out, local int *tmp) {\n"
    "  rev(out, tmp);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] += 10 * (int)get_local_id(0);\n"
    "  rev(out, tmp);\n"
    "}\n"
    "kernel void reduce(global const int *in, global int *out, local int *arg) {\n"
    "  local int part[256];\n"
    "  local int flag;\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), gid = get_global_id(0);\n"
    "  part[l] = in[gid];\n"
    "  arg[l] = 2 * in[gid] + 1;\n"
    "  if (l == 0) flag = (int)get_group_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = 1; s < n; s *= 2) {\n"
    "    if (l % (2 * s) == 0 && l + s < n) { part[l] += part[l + s]; arg[l] += arg[l + s]; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == n - 1) {\n"
    "    size_t g = get_group_id(0);\n"
    "    out[3 * g] = part[0]; out[3 * g + 1] = arg[0]; out[3 * g + 2] = flag;\n"
    "  }\n"
    "}\n"
    "#define TS 16\n"
    "kernel void sgemm(int M, int N, int K, global const float *A, global const float *B,\n"
    "                  global float *C) {\n"
    "  local float As[TS][TS], Bs[TS][TS];\n"
    "  int r = get_local_id(1), c = get_local_id(0);\n"
    "  int row = get_global_id(1), col = get_global_id(0);\n"
    "  float acc = 0.0f;\n"
    "  for (int t = 0; t < K; t += TS) {\n"
    "    /* A partial group has fewer than TS columns or rows: each item loads more. */\n"
    "    for (int cc = c; cc < TS; cc += (int)get_local_size(0))\n"
    "      As[r][cc] = (row < M && t + cc < K) ? A[row * K + t + cc] : 0.0f;\n"
    "    for (int rr = r; rr < TS; rr += (int)get_local_size(1))\n"
    "      Bs[rr][c] = (t + rr < K && col < N) ? B[(t + rr) * N + col] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < TS; k++) acc += As[r][k] * Bs[k][c];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (row < M && col < N) C[row * N + col] = acc;\n"
    "}\n"
    "kernel void shift(global int *out) {\n"
    "  local int s[64];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  s[l] = out[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = s[(l + 1) % n];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "}\n"
    "kernel void shift_twice(global int *out) {\n"
    "  local int mine[4];\n"
    "  if (get_local_id(0) == 0) mine[3] = 5;\n"
    "  shift(out);\n"
    "  shift(out);\n"
    "  out[get_global_id(0)] += mine[3];\n"
    "}\n"
    "kernel void cube(global int *out) {\n"
    "  local int t[64];\n"
    "  size_t lid = get_local_linear_id();\n"
    "  size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
    "  size_t g = get_global_id(0) + get_global_size(0) *\n"
    "             (get_global_id(1) + get_global_size(1) * get_global_id(2));\n"
    "  t[lid] = (int)g;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g] = t[n - 1 - lid];\n"
    "}\n"
    "kernel void any_size(global int *out) {\n"
    "  local int tmp[4096];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), gid = get_global_id(0);\n"
    "  tmp[l] = (int)gid;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[2 * gid] = tmp[(l + 1) % n]; out[2 * gid + 1] = (int)n;\n"
    "}\n"
    "kernel void big_local(global int *out, local int *arg) {\n"
    "  local int big[8192];\n"
    "  size_t l = get_local_id(0);\n"
    "  big[l] = (int)l; arg[l] = 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[l] = big[(l + 1) % get_local_size(0)] + arg[l];\n"
    "}\n";

static cl_mem buffer(struct kt_env *env, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem b =
        clCreateBuffer(env->context, init ? CL_MEM_COPY_HOST_PTR : 0, bytes, (void *)init, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer of %zu bytes: %d", bytes, err);
    return b;
}

static void read(struct kt_env *env, cl_mem b, size_t bytes, void *to)
{
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, bytes, to, 0, NULL, NULL), CL_SUCCESS);
}

/* The size of the group holding global id i along one dimension. */
static size_t group_size(size_t i, size_t global, size_t local)
{
    size_t start = i / local * local;
    return global - start < local ? global - start : local;
}

static void run_loops(struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
    int *in = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
    int *want = malloc(global * sizeof(int)), *cur = malloc(local * sizeof(int));
    KT_REQUIRE(in && out && want && cur, "out of memory");
    for (size_t i = 0; i < global; i++)
        in[i] = (int)(i * 7 % 101) - 50;
    for (size_t start = 0; start < global; start += local) {
        size_t n = group_size(start, global, local), g = start / local;
        for (size_t l = 0; l < n; l++)
            cur[l] = in[start + l];
        for (size_t t = 0; t <= g % 4; t++) {
            for (size_t l = 0; l < n; l++)
                want[start + l] = cur[l] + 3 * cur[(l + 1) % n];
            for (size_t l = 0; l < n; l++)
                cur[l] = want[start + l];
        }
    }
    cl_mem bi = buffer(env, global * sizeof(int), in), bo = buffer(env, global * sizeof(int), NULL);
    clSetKernelArg(k, 0, sizeof(bo), &bo);
    clSetKernelArg(k, 1, sizeof(bi), &bi);
    clSetKernelArg(k, 2, local * sizeof(int), NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bo, global * sizeof(int), out);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++)
        if (out[i] != want[i] && bad++ < 3)
            fprintf(stderr, "loops %zu/%zu: [%zu] got %d want %d\n", global, local, i, out[i],
                    want[i]);
    KT_CHECK(bad == 0, "loops global %zu local %zu: %zu wrong", global, local, bad);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    free(in);
    free(out);
    free(want);
    free(cur);
}

static void run_mixed(struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
    int *out = malloc(4 * global * sizeof(int));
    KT_REQUIRE(out, "out of memory");
    cl_mem bo = buffer(env, 4 * global * sizeof(int), NULL);
    clSetKernelArg(k, 0, sizeof(bo), &bo);
    clSetKernelArg(k, 1, local * sizeof(int), NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bo, 4 * global * sizeof(int), out);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++) {
        size_t n = group_size(i, global, local), g = i / local, start = g * local, l = i - start;
        size_t turns = g % 2 == 0 ? 2 * (g % 3 + 1) : 1;
        int want[4] = {(int)(start + (l + n * turns - turns) % n), 64 * (int)i + 28, 2 * (int)i,
                       l % 2 ? -1 : 7};
        for (int j = 0; j < 4; j++)
            if (out[4 * i + j] != want[j] && bad++ < 3)
                fprintf(stderr, "mixed %zu/%zu: [%zu].%d got %d want %d\n", global, local, i, j,
                        out[4 * i + j], want[j]);
    }
    KT_CHECK(bad == 0, "mixed global %zu local %zu: %zu wrong", global, local, bad);
    clReleaseMemObject(bo);
    free(out);
}

static void run_rev(struct kt_env *env, cl_kernel k, bool twice, size_t global, size_t local)
{
    int *data = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
    KT_REQUIRE(data && out, "out of memory");
    for (size_t i = 0; i < global; i++)
        data[i] = (int)(i * 13 % 97);
    cl_mem b = buffer(env, global * sizeof(int), data);
    clSetKernelArg(k, 0, sizeof(b), &b);
    clSetKernelArg(k, 1, local * sizeof(int), NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, b, global * sizeof(int), out);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++) {
        size_t n = group_size(i, global, local), start = i / local * local, l = i - start;
        size_t m = n - 1 - l; /* the mirror position */
        int want = twice ? data[i] + 10 * (int)m : data[start + m];
        if (out[i] != want && bad++ < 3)
            fprintf(stderr, "rev%s %zu/%zu: [%zu] got %d want %d\n", twice ? "_add_rev" : "",
                    global, local, i, out[i], want);
    }
    KT_CHECK(bad == 0, "rev (twice %d) global %zu local %zu: %zu wrong", twice, global, local, bad);
    clReleaseMemObject(b);
    free(data);
    free(out);
}

static void run_reduce(struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
    size_t groups = (global + local - 1) / local;
    int *in = malloc(global * sizeof(int)), *out = malloc(3 * groups * sizeof(int));
    KT_REQUIRE(in && out, "out of memory");
    for (size_t i = 0; i < global; i++)
        in[i] = (int)(i % 17) - 3;
    cl_mem bi = buffer(env, global * sizeof(int), in);
    cl_mem bo = buffer(env, 3 * groups * sizeof(int), NULL);
    clSetKernelArg(k, 0, sizeof(bi), &bi);
    clSetKernelArg(k, 1, sizeof(bo), &bo);
    clSetKernelArg(k, 2, local * sizeof(int), NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bo, 3 * groups * sizeof(int), out);
    size_t bad = 0;
    for (size_t g = 0; g < groups; g++) {
        int sum = 0, sum2 = 0;
        for (size_t i = g * local; i < global && i < (g + 1) * local; i++) {
            sum += in[i];
            sum2 += 2 * in[i] + 1;
        }
        if ((out[3 * g] != sum || out[3 * g + 1] != sum2 || out[3 * g + 2] != (int)g) && bad++ < 3)
            fprintf(stderr, "reduce %zu/%zu: group %zu got %d %d %d want %d %d %zu\n", global,
                    local, g, out[3 * g], out[3 * g + 1], out[3 * g + 2], sum, sum2, g);
    }
    KT_CHECK(bad == 0, "reduce global %zu local %zu: %zu groups wrong", global, local, bad);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    free(in);
    free(out);
}

static void run_sgemm(struct kt_env *env, cl_kernel k, int m, int n, int kk)
{
    float *a = malloc(sizeof(float) * (size_t)(m * kk)),
          *b = malloc(sizeof(float) * (size_t)(kk * n));
    float *c = malloc(sizeof(float) * (size_t)(m * n));
    KT_REQUIRE(a && b && c, "out of memory");
    /* Small integers: every product and sum is exact, so any order gives the same result. */
    for (int i = 0; i < m * kk; i++)
        a[i] = (float)(i * 5 % 9 - 4);
    for (int i = 0; i < kk * n; i++)
        b[i] = (float)(i * 7 % 11 - 5);
    cl_mem ba = buffer(env, sizeof(float) * (size_t)(m * kk), a);
    cl_mem bb = buffer(env, sizeof(float) * (size_t)(kk * n), b);
    cl_mem bc = buffer(env, sizeof(float) * (size_t)(m * n), NULL);
    clSetKernelArg(k, 0, sizeof(int), &m);
    clSetKernelArg(k, 1, sizeof(int), &n);
    clSetKernelArg(k, 2, sizeof(int), &kk);
    clSetKernelArg(k, 3, sizeof(ba), &ba);
    clSetKernelArg(k, 4, sizeof(bb), &bb);
    clSetKernelArg(k, 5, sizeof(bc), &bc);
    size_t global[2] = {(size_t)n, (size_t)m}, local[2] = {16, 16};
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bc, sizeof(float) * (size_t)(m * n), c);
    size_t bad = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float want = 0;
            for (int x = 0; x < kk; x++)
                want += a[i * kk + x] * b[x * n + j];
            if (c[i * n + j] != want && bad++ < 3)
                fprintf(stderr, "sgemm %dx%dx%d: (%d,%d) got %g want %g\n", m, n, kk, i, j,
                        c[i * n + j], want);
        }
    KT_CHECK(bad == 0, "sgemm %dx%dx%d: %zu wrong", m, n, kk, bad);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    clReleaseMemObject(bc);
    free(a);
    free(b);
    free(c);
}

/* A kernel calling a kernel: each gets its own layout of what it reaches. */
static void run_shift(struct kt_env *env, cl_program p, const char *name, int turns, int add)
{
    cl_int err;
    size_t global = 100, local = 40;
    int data[100], out[100];
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "%s: %d", name, err);
    cl_ulong bytes = 0;
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(bytes),
                                       &bytes, NULL),
              CL_SUCCESS);
    /* shift: s[64]; shift_twice: s[64] and mine[4], at most 16 bytes of padding apart. */
    KT_CHECK(turns == 1 ? bytes == 256 : bytes >= 272 && bytes <= 288, "%s: %llu local bytes", name,
             (unsigned long long)bytes);
    for (size_t i = 0; i < global; i++)
        data[i] = (int)(i * i % 89);
    cl_mem b = buffer(env, sizeof(data), data);
    clSetKernelArg(k, 0, sizeof(b), &b);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, b, sizeof(out), out);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++) {
        size_t n = group_size(i, global, local), start = i / local * local, l = i - start;
        int want = data[start + (l + (size_t)turns) % n] + add;
        if (out[i] != want && bad++ < 3)
            fprintf(stderr, "%s: [%zu] got %d want %d\n", name, i, out[i], want);
    }
    KT_CHECK(bad == 0, "%s: %zu wrong", name, bad);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

/* 3D groups: the work-item's mirror in its group is the reversed coordinates. */
static void run_cube(struct kt_env *env, cl_program p)
{
    cl_int err;
    size_t global[3] = {8, 6, 4}, local[3] = {4, 3, 2}, n = 8 * 6 * 4;
    int out[8 * 6 * 4];
    cl_kernel k = clCreateKernel(p, "cube", &err);
    KT_REQUIRE(err == CL_SUCCESS, "cube: %d", err);
    cl_mem b = buffer(env, sizeof(out), NULL);
    clSetKernelArg(k, 0, sizeof(b), &b);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 3, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, b, sizeof(out), out);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c[3] = {i % 8, i / 8 % 6, i / 48}, m[3];
        for (int d = 0; d < 3; d++)
            m[d] = c[d] / local[d] * local[d] + local[d] - 1 - c[d] % local[d];
        int want = (int)(m[0] + 8 * (m[1] + 6 * m[2]));
        if (out[i] != want && bad++ < 3)
            fprintf(stderr, "cube: [%zu] got %d want %d\n", i, out[i], want);
    }
    KT_CHECK(bad == 0, "cube: %zu wrong", bad);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

/* No local size: the runtime picks one, and the scratch area must fit it. */
static void run_any_size(struct kt_env *env, cl_program p, size_t global)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "any_size", &err);
    KT_REQUIRE(err == CL_SUCCESS, "any_size: %d", err);
    int *out = malloc(2 * global * sizeof(int));
    KT_REQUIRE(out, "out of memory");
    cl_mem bo = buffer(env, 2 * global * sizeof(int), NULL);
    clSetKernelArg(k, 0, sizeof(bo), &bo);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bo, 2 * global * sizeof(int), out);
    size_t bad = 0, local = (size_t)out[1];
    for (size_t i = 0; i < global && local; i++) {
        size_t n = group_size(i, global, local), start = i / local * local, l = i - start;
        if ((out[2 * i] != (int)(start + (l + 1) % n) || out[2 * i + 1] != (int)n) && bad++ < 3)
            fprintf(stderr, "any_size %zu: [%zu] got %d (size %d)\n", global, i, out[2 * i],
                    out[2 * i + 1]);
    }
    KT_CHECK(local > 0 && bad == 0, "any_size global %zu (local %zu): %zu wrong", global, local,
             bad);
    clReleaseMemObject(bo);
    clReleaseKernel(k);
    free(out);
}

/* Kernel-scope __local bytes count toward the device's limit with the arguments. */
static void local_limits(struct kt_env *env, cl_program p)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "big_local", &err);
    KT_REQUIRE(err == CL_SUCCESS, "big_local: %d", err);
    size_t global = 64, local = 64, size = 0;
    int out[64];
    cl_mem bo = buffer(env, sizeof(out), NULL);
    clSetKernelArg(k, 0, sizeof(bo), &bo);
    clSetKernelArg(k, 1, 1024, NULL);
    cl_ulong bytes = 0;
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(bytes),
                                       &bytes, &size),
              CL_SUCCESS);
    KT_CHECK(bytes == 8192 * 4 + 1024, "CL_KERNEL_LOCAL_MEM_SIZE %llu, want %d",
             (unsigned long long)bytes, 8192 * 4 + 1024);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    read(env, bo, sizeof(out), out);
    size_t bad = 0;
    for (size_t l = 0; l < 64; l++)
        bad += out[l] != (int)((l + 1) % 64) + 1;
    KT_CHECK(bad == 0, "big_local: %zu wrong", bad);
    /* 32 KiB of variables + 40 KiB of argument > the device's 64 KiB. */
    clSetKernelArg(k, 1, 40 * 1024, NULL);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_OUT_OF_RESOURCES);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    clReleaseMemObject(bo);
    clReleaseKernel(k);

    /* 80 000 bytes of variables alone are over the limit too. */
    static const char *huge_src = "kernel void huge(global int *out) {\n"
                                  "  local int h[20000];\n"
                                  "  h[get_local_id(0)] = 1;\n"
                                  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                                  "  out[get_global_id(0)] = h[0];\n"
                                  "}\n";
    cl_program hp = kt_build(env, huge_src, "-cl-std=CL3.0");
    k = clCreateKernel(hp, "huge", &err);
    KT_REQUIRE(err == CL_SUCCESS, "huge: %d", err);
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(bytes),
                                       &bytes, NULL),
              CL_SUCCESS);
    KT_CHECK(bytes == 80000, "huge: CL_KERNEL_LOCAL_MEM_SIZE %llu", (unsigned long long)bytes);
    bo = buffer(env, sizeof(out), NULL);
    clSetKernelArg(k, 0, sizeof(bo), &bo);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_OUT_OF_RESOURCES);
    clReleaseMemObject(bo);
    clReleaseKernel(k);
    clReleaseProgram(hp);
}

/* A build that must fail with a log line containing `want`. */
static void build_fails(struct kt_env *env, const char *source, const char *want)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    KT_EXPECT(clBuildProgram(p, 1, &env->device, "-cl-std=CL3.0", NULL, NULL),
              CL_BUILD_PROGRAM_FAILURE);
    char log[4096] = "";
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
    KT_CHECK(strstr(log, want) != NULL, "build log lacks '%s':\n%s", want, log);
    clReleaseProgram(p);
}

static void limits(struct kt_env *env)
{
    static const char *too_private = "kernel void k(global float *out) {\n"
                                     "  float big[8192];\n"
                                     "  for (int i = 0; i < 8192; i++) big[i] = out[i];\n"
                                     "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
                                     "  out[get_global_id(0)] = big[get_global_id(0) * 5 % 8192];\n"
                                     "}\n";
    static const char *with_barrier = "kernel void k(global int *out) {\n"
                                      "  barrier(CLK_GLOBAL_MEM_FENCE); out[0] = 1;\n"
                                      "}\n";
    /* Both strategies are tried here; the environment's choice is put back after. */
    const char *given = getenv("KILN_BARRIER_STRATEGY");
    char *saved = given ? strdup(given) : NULL;
    setenv("KILN_BARRIER_STRATEGY", "fibers", 1);
    build_fails(env, too_private,
                "bytes in private variables; kernels with barriers may keep at most 16384");
    setenv("KILN_BARRIER_STRATEGY", "bogus", 1);
    build_fails(env, with_barrier, "KILN_BARRIER_STRATEGY='bogus' is not a barrier strategy");
    static const char *const valid[] = {"regions", "fibers", ""};
    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        setenv("KILN_BARRIER_STRATEGY", valid[i], 1);
        cl_program p = kt_build(env, with_barrier, "-cl-std=CL3.0");
        clReleaseProgram(p);
    }
    if (saved)
        setenv("KILN_BARRIER_STRATEGY", saved, 1);
    else
        unsetenv("KILN_BARRIER_STRATEGY");
    free(saved);
}

int main(void)
{
    struct kt_env env;
    cl_int err;
    kt_setup(&env, 0);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");

    cl_kernel k = clCreateKernel(p, "loops", &err);
    KT_REQUIRE(err == CL_SUCCESS, "loops: %d", err);
    static const size_t sizes[][2] = {{64, 1},   {70, 7},      {130, 13},   {100, 32},
                                      {256, 64}, {8192, 4096}, {5000, 4096}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        run_loops(&env, k, sizes[i][0], sizes[i][1]);
    clReleaseKernel(k);

    k = clCreateKernel(p, "mixed", &err);
    KT_REQUIRE(err == CL_SUCCESS, "mixed: %d", err);
    cl_ulong priv = 0;
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv),
                                       &priv, NULL),
              CL_SUCCESS);
    KT_CHECK(priv >= 8 * sizeof(int) && priv <= 16384, "mixed: private memory %llu",
             (unsigned long long)priv);
    run_mixed(&env, k, 40, 1);
    run_mixed(&env, k, 99, 10);
    run_mixed(&env, k, 4096 * 2, 4096);
    clReleaseKernel(k);

    k = clCreateKernel(p, "rev", &err);
    KT_REQUIRE(err == CL_SUCCESS, "rev: %d", err);
    run_rev(&env, k, false, 100, 24);
    clReleaseKernel(k);
    k = clCreateKernel(p, "rev_add_rev", &err);
    KT_REQUIRE(err == CL_SUCCESS, "rev_add_rev: %d", err);
    run_rev(&env, k, true, 100, 24);
    run_rev(&env, k, true, 4096, 4096);
    clReleaseKernel(k);

    k = clCreateKernel(p, "reduce", &err);
    KT_REQUIRE(err == CL_SUCCESS, "reduce: %d", err);
    run_reduce(&env, k, 16, 1);
    run_reduce(&env, k, 1000, 256);
    run_reduce(&env, k, 1000, 100);
    run_reduce(&env, k, 777, 37);
    clReleaseKernel(k);

    k = clCreateKernel(p, "sgemm", &err);
    KT_REQUIRE(err == CL_SUCCESS, "sgemm: %d", err);
    run_sgemm(&env, k, 64, 64, 64);
    run_sgemm(&env, k, 72, 40, 50);
    clReleaseKernel(k);

    run_shift(&env, p, "shift", 1, 0);
    run_shift(&env, p, "shift_twice", 2, 5);
    run_cube(&env, p);
    run_any_size(&env, p, 1000);
    run_any_size(&env, p, 65536);
    local_limits(&env, p);
    limits(&env);
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("api/barriers");
}
