/* kiln-bench's local-memory reduction: each work-group of REDUCE_GROUP work-items loads its
 * floats into __local memory and sums them with a barrier-separated tree, one partial sum per
 * group; the host adds the partial sums. The plain-C version sums the same array on the pool's
 * threads, so its rate is the machine's read bandwidth. Inputs are small integers, so every
 * partial sum is exact in float and is checked with ==. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

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

struct reduce {
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

static int host_run(void *state)
{
    struct reduce *r = state;
    bench_pool_run(r->pool, host_sum, r);
    r->sum = 0.0;
    for (unsigned t = 0; t < bench_pool_size(r->pool); t++)
        r->sum += r->thread_sum[t];
    return 0;
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

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct reduce *r = reduce_alloc(env);
    if (r == NULL)
        return -1;
    r->queue = env->queue;
    for (size_t i = 0; i < r->n; i++)
        r->in[i] = input(i);
    if (bench_cl_kernel_build(env, source, "reduce", &r->program, &r->kernel) != 0)
        goto out_release;
    r->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               r->n * sizeof(float), r->in, &err);
    if (err == CL_SUCCESS)
        r->partial_buf =
            clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, r->groups * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(r->kernel, 0, sizeof(cl_mem), &r->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(r->kernel, 1, sizeof(cl_mem), &r->partial_buf);
    if (err == CL_SUCCESS)
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

/* One repetition: the kernel, then the partial sums read back and added on the host. */
static int cl_run(void *state)
{
    struct reduce *r = state;
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
    for (size_t g = 0; g < r->groups; g++) {
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
