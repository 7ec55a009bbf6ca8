/* kiln-bench's reductions of one float array, three ways on OpenCL:
 *   reduce:       each work-group of REDUCE_GROUP work-items (fixed by reqd_work_group_size)
 *                 loads its floats into __local memory and sums them with a barrier-separated
 *                 tree, one partial sum per group; the host adds the partial sums;
 *   wg-reduce:    each work-item passes its float to work_group_reduce_add (OpenCL C 3.0), one
 *                 partial sum per group; the host adds the partial sums;
 *   local-reduce: the __local tree of `reduce` with the local size known only at enqueue, run in
 *                 passes (input -> partials -> ... -> one float) until one value is left.
 *   reduce-tree:  the kernel of `reduce` beside a plain-C version of its own algorithm.
 * The plain-C version of the others sums the same array on the pool's threads, so its rate is
 * the machine's read bandwidth. Inputs are small integers, so every partial sum is exact in float
 * and is checked with ==. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDUCE_GROUP 256

static const char *source =
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
    "void reduce(__global const float *in, __global float *partial, __local float *tmp)\n"
    "{\n"
    "    size_t l = get_local_id(0);\n"
    "    tmp[l] = in[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "        if (l < s)\n"
    "            tmp[l] += tmp[l + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0)\n"
    "        partial[get_group_id(0)] = tmp[0];\n"
    "}\n";

/* work_group_reduce_add, one partial sum per group. */
static const char *wg_source =
    "__kernel void wg_reduce(__global const float *in, __global float *partial)\n"
    "{\n"
    "    float s = work_group_reduce_add(in[get_global_id(0)]);\n"
    "    if (get_local_id(0) == 0)\n"
    "        partial[get_group_id(0)] = s;\n"
    "}\n";

/* The tree of `source` for any power-of-two local size, reading n floats (the last group may be
 * padded with zeros). */
static const char *local_source =
    "__kernel void local_reduce(__global const float *in, __global float *partial,\n"
    "                           __local float *tmp, uint n)\n"
    "{\n"
    "    size_t l = get_local_id(0), g = get_global_id(0);\n"
    "    tmp[l] = g < n ? in[g] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "        if (l < s)\n"
    "            tmp[l] += tmp[l + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0)\n"
    "        partial[get_group_id(0)] = tmp[0];\n"
    "}\n";

enum reduce_kind { KIND_TREE, KIND_WG, KIND_LOCAL };

/* The passes of local-reduce: at most this many, each dividing the count by REDUCE_GROUP. */
enum { LOCAL_PASSES = 8 };

struct reduce {
    enum reduce_kind kind;
    const char *target;
    size_t n, groups;
    float *in, *partial;
    double sum; /* the last repetition's result */
    /* host version */
    struct bench_pool *pool;
    double *thread_sum;
    /* OpenCL version */
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, partial_buf;
    cl_mem pass_buf[2]; /* local-reduce: the partial sums of passes after the first */
    float result;       /* local-reduce: the one float the last pass wrote */
};

static float input(size_t i)
{
    return (float)(i % 4);
}

/* The sum of input(i) over [0, n): n / 4 full cycles of 0+1+2+3 and a partial cycle. */
static double expected_sum(size_t n)
{
    double sum = 6.0 * (double)(n / 4);
    for (size_t i = n / 4 * 4; i < n; i++)
        sum += input(i);
    return sum;
}

static void reduce_free(struct reduce *r)
{
    free(r->thread_sum);
    free(r->partial);
    free(r->in);
    free(r);
}

static struct reduce *reduce_alloc(const struct bench_env *env)
{
    struct reduce *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->target = env->target;
    r->n = env->size_bytes / sizeof(float) / REDUCE_GROUP * REDUCE_GROUP;
    r->groups = r->n / REDUCE_GROUP;
    r->in = malloc(r->n * sizeof(float));
    r->partial = malloc(r->groups * sizeof(float));
    if (r->in == NULL || r->partial == NULL) {
        fprintf(stderr, "%s: out of memory for %zu floats\n", env->target, r->n);
        reduce_free(r);
        return NULL;
    }
    return r;
}

static int check_sum(const struct reduce *r)
{
    double want = expected_sum(r->n);
    if (r->sum != want) {
        fprintf(stderr, "%s: reduce: sum %.1f, expected %.1f\n", r->target, r->sum, want);
        return -1;
    }
    return 0;
}

/* ---- host version ---- */

static void host_fill(void *arg, unsigned t, unsigned count)
{
    struct reduce *r = arg;
    for (size_t i = r->n * t / count; i < r->n * (t + 1) / count; i++)
        r->in[i] = input(i);
}

/* Sixty-four float lanes, several vector registers whose adds overlap, flushed into a double
 * every block: a lane adds at most 1024 inputs of at most 3 per block, so it stays exact. */
enum { LANES = 64, BLOCK = 1 << 16 };

static void host_sum(void *arg, unsigned t, unsigned count)
{
    struct reduce *r = arg;
    const float *restrict in = r->in;
    size_t begin = r->n * t / count, end = r->n * (t + 1) / count;
    double total = 0.0;
    for (size_t b = begin; b < end; b += BLOCK) {
        size_t stop = end - b < BLOCK ? end : b + BLOCK;
        float acc[LANES] = {0};
        size_t i = b;
        for (; i + LANES <= stop; i += LANES)
            for (int j = 0; j < LANES; j++)
                acc[j] += in[i + j];
        for (; i < stop; i++)
            acc[0] += in[i];
        for (int j = 0; j < LANES; j++)
            total += acc[j];
    }
    r->thread_sum[t] = total;
}

/* The reduce kernel's algorithm in plain C: each group of REDUCE_GROUP floats copied into a
 * local array and summed by the same halving tree, one partial sum per group, which the thread
 * adds up (in order, as the host adds the kernel's partial sums). */
static void host_tree(void *arg, unsigned t, unsigned count)
{
    struct reduce *r = arg;
    size_t first = r->groups * t / count, end = r->groups * (t + 1) / count;
    float tmp[REDUCE_GROUP];
    double total = 0.0;
    for (size_t g = first; g < end; g++) {
        memcpy(tmp, r->in + g * REDUCE_GROUP, sizeof(tmp));
        for (size_t s = REDUCE_GROUP / 2; s > 0; s /= 2)
            for (size_t l = 0; l < s; l++)
                tmp[l] += tmp[l + s];
        r->partial[g] = tmp[0];
        total += tmp[0];
    }
    r->thread_sum[t] = total;
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct reduce *r = reduce_alloc(env);
    if (r == NULL)
        return -1;
    r->pool = env->pool;
    r->thread_sum = calloc(bench_pool_size(r->pool), sizeof(double));
    if (r->thread_sum == NULL) {
        reduce_free(r);
        return -1;
    }
    bench_pool_run(r->pool, host_fill, r);
    *state = r;
    return 0;
}

/* Runs `part` on every thread of the pool and adds up the threads' sums. */
static int host_run_with(struct reduce *r, void (*part)(void *, unsigned, unsigned))
{
    bench_pool_run(r->pool, part, r);
    r->sum = 0.0;
    for (unsigned t = 0; t < bench_pool_size(r->pool); t++)
        r->sum += r->thread_sum[t];
    return 0;
}

static int host_run(void *state)
{
    return host_run_with(state, host_sum);
}

static int host_tree_run(void *state)
{
    return host_run_with(state, host_tree);
}

static int host_check(void *state)
{
    return check_sum(state);
}

static void host_teardown(void *state)
{
    reduce_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct reduce *r)
{
    for (int b = 0; b < 2; b++)
        if (r->pass_buf[b] != NULL)
            clReleaseMemObject(r->pass_buf[b]);
    if (r->partial_buf != NULL)
        clReleaseMemObject(r->partial_buf);
    if (r->in_buf != NULL)
        clReleaseMemObject(r->in_buf);
    if (r->kernel != NULL)
        clReleaseKernel(r->kernel);
    if (r->program != NULL)
        clReleaseProgram(r->program);
    reduce_free(r);
}

/* Whether the device supports work_group_reduce_add: OpenCL C 3.0 with the
 * __opencl_c_work_group_collective_functions feature. */
static int has_collectives(const struct bench_env *env)
{
    size_t bytes = 0;
    if (clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes) != CL_SUCCESS)
        return 0;
    cl_name_version *f = malloc(bytes);
    if (f == NULL)
        return 0;
    int found = 0;
    if (clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, bytes, f, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof(*f); i++)
            found |= strcmp(f[i].name, "__opencl_c_work_group_collective_functions") == 0;
    free(f);
    return found;
}

static int cl_setup_kind(enum reduce_kind kind, const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    if (kind == KIND_WG && !has_collectives(env)) {
        fprintf(stderr, "%s: the device lacks work-group collective functions\n", env->target);
        return 1;
    }
    struct reduce *r = reduce_alloc(env);
    if (r == NULL)
        return -1;
    r->kind = kind;
    r->queue = env->queue;
    for (size_t i = 0; i < r->n; i++)
        r->in[i] = input(i);
    int built =
        kind == KIND_TREE ? bench_cl_kernel_build(env, source, "reduce", &r->program, &r->kernel)
        : kind == KIND_WG
            ? bench_cl_kernel_build_opts(env, wg_source, "-cl-std=CL3.0", "wg_reduce", &r->program,
                                         &r->kernel)
            : bench_cl_kernel_build(env, local_source, "local_reduce", &r->program, &r->kernel);
    if (built != 0)
        goto out_release;
    r->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               r->n * sizeof(float), r->in, &err);
    if (err == CL_SUCCESS)
        r->partial_buf =
            clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, r->groups * sizeof(float), NULL, &err);
    /* Pass 2 onwards ping-pong between two buffers, the first one as large as pass 2's output. */
    size_t second = (r->groups + REDUCE_GROUP - 1) / REDUCE_GROUP;
    for (int b = 0; kind == KIND_LOCAL && b < 2 && err == CL_SUCCESS; b++)
        r->pass_buf[b] =
            clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, second * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(r->kernel, 0, sizeof(cl_mem), &r->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(r->kernel, 1, sizeof(cl_mem), &r->partial_buf);
    if (err == CL_SUCCESS && kind != KIND_WG)
        err = clSetKernelArg(r->kernel, 2, REDUCE_GROUP * sizeof(float), NULL);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = r;
    return 0;

out_release:
    cl_release(r);
    return -1;
}

static int cl_setup(const struct bench_env *env, void **state)
{
    return cl_setup_kind(KIND_TREE, env, state);
}

static int cl_setup_wg(const struct bench_env *env, void **state)
{
    return cl_setup_kind(KIND_WG, env, state);
}

static int cl_setup_local(const struct bench_env *env, void **state)
{
    return cl_setup_kind(KIND_LOCAL, env, state);
}

/* local-reduce's passes: n floats of `from` into ceil(n / REDUCE_GROUP) of `to`, until one is
 * left; then that one is read back. The local size is given here, at enqueue. */
static int cl_run_local(struct reduce *r)
{
    cl_mem from = r->in_buf, to = r->partial_buf;
    size_t n = r->n;
    cl_int err = CL_SUCCESS;
    for (int pass = 0; n > 1; pass++) {
        if (pass == LOCAL_PASSES) {
            fprintf(stderr, "%s: local-reduce: more than %d passes\n", r->target, LOCAL_PASSES);
            return -1;
        }
        size_t local = REDUCE_GROUP, groups = (n + local - 1) / local, global = groups * local;
        cl_uint count = (cl_uint)n;
        err = clSetKernelArg(r->kernel, 0, sizeof(cl_mem), &from);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(r->kernel, 1, sizeof(cl_mem), &to);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(r->kernel, 3, sizeof(count), &count);
        if (err != CL_SUCCESS)
            return bench_cl_fail(r->target, "clSetKernelArg", err);
        err = clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return bench_cl_fail(r->target, "clEnqueueNDRangeKernel", err);
        n = groups;
        from = to;
        to = r->pass_buf[pass % 2];
        if (to == from)
            to = r->pass_buf[(pass + 1) % 2];
    }
    err = clEnqueueReadBuffer(r->queue, from, CL_TRUE, 0, sizeof(float), &r->result, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(r->target, "clEnqueueReadBuffer", err);
    r->sum = r->result;
    return 0;
}

/* One repetition: the kernel, then the partial sums read back and added on the host (reduce,
 * wg-reduce), or every pass and the last float read back (local-reduce). */
static int cl_run(void *state)
{
    struct reduce *r = state;
    if (r->kind == KIND_LOCAL)
        return cl_run_local(r);
    size_t global = r->n, local = REDUCE_GROUP;
    cl_int err =
        clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(r->target, "clEnqueueNDRangeKernel", err);
    err = clEnqueueReadBuffer(r->queue, r->partial_buf, CL_TRUE, 0, r->groups * sizeof(float),
                              r->partial, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(r->target, "clEnqueueReadBuffer", err);
    r->sum = 0.0;
    for (size_t g = 0; g < r->groups; g++)
        r->sum += r->partial[g];
    return 0;
}

static int cl_check(void *state)
{
    struct reduce *r = state;
    /* Every group sums 64 cycles of 0+1+2+3. */
    for (size_t g = 0; r->kind != KIND_LOCAL && g < r->groups; g++) {
        if (r->partial[g] != 6.0f * (REDUCE_GROUP / 4)) {
            fprintf(stderr, "%s: reduce: group %zu summed to %g, expected %d\n", r->target, g,
                    (double)r->partial[g], 6 * (REDUCE_GROUP / 4));
            return -1;
        }
    }
    return check_sum(r);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double reduce_rate(const struct bench_env *env, double seconds)
{
    return (double)env->size_bytes / seconds / 1e9;
}

const struct bench_case bench_case_reduce = {
    .name = "reduce",
    .summary = "sum of an array, __local tree per group of 256 with barriers; GB/s read",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = reduce_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_wg_reduce = {
    .name = "wg-reduce",
    .summary = "sum of an array, work_group_reduce_add per group of 256; GB/s read",
    .cl = {cl_setup_wg, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = reduce_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_local_reduce = {
    .name = "local-reduce",
    .summary = "sum of an array, __local tree, local size 256 given at enqueue, passes down to "
               "one float; GB/s read",
    .cl = {cl_setup_local, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = reduce_rate,
    .rate_unit = "GB/s",
};

/* The reduce kernel against its own algorithm in plain C rather than against the plain sum: how
 * far the __local tree itself, not the driver, stands from the machine's read bandwidth. */
const struct bench_case bench_case_reduce_tree = {
    .name = "reduce-tree",
    .summary = "reduce's kernel beside the same __local tree in plain C (C row); GB/s read",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_tree_run, host_check, host_teardown},
    .rate = reduce_rate,
    .rate_unit = "GB/s",
};
