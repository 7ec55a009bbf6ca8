/* kiln-bench's histogram: 256 bins of the low byte of a hash of each uint. Each work-group of
 * HIST_GROUP work-items counts HIST_ITEMS inputs per work-item into a __local histogram with
 * atomic_inc, then adds its nonzero bins to the global histogram with atomic_add: local atomics
 * on every input, global atomics on every bin of every group. The plain-C version counts each
 * thread's range into its own histogram and adds those up, the machine's ceiling without
 * atomics. Every bin is checked against a histogram counted once on the host. */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BINS  256
#define HIST_GROUP 256
#define HIST_ITEMS 64

static const char *source = "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
                            "void histogram(__global const uint *in, __global uint *hist)\n"
                            "{\n"
                            "    __local uint h[256];\n"
                            "    size_t l = get_local_id(0);\n"
                            "    h[l] = 0;\n"
                            "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                            "    __global const uint *p = in + get_group_id(0) * 256 * 64 + l;\n"
                            "    for (int k = 0; k < 64; k++)\n"
                            "        atomic_inc(&h[p[k * 256] & 255]);\n"
                            "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                            "    if (h[l] != 0)\n"
                            "        atomic_add(&hist[l], h[l]);\n"
                            "}\n";

struct histogram {
    const char *target;
    size_t n;
    uint32_t *in;
    uint32_t hist[HIST_BINS], want[HIST_BINS];
    /* host version */
    struct bench_pool *pool;
    uint32_t (*thread_hist)[HIST_BINS];
    /* OpenCL version */
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, hist_buf;
};

static uint32_t input(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return x ^ (x >> 13) ^ (uint32_t)(i >> 7);
}

static void hist_free(struct histogram *h)
{
    free(h->thread_hist);
    free(h->in);
    free(h);
}

static struct histogram *hist_alloc(const struct bench_env *env)
{
    struct histogram *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    h->target = env->target;
    h->n =
        env->size_bytes / sizeof(uint32_t) / (HIST_GROUP * HIST_ITEMS) * (HIST_GROUP * HIST_ITEMS);
    if (h->n == 0)
        h->n = HIST_GROUP * HIST_ITEMS;
    h->in = malloc(h->n * sizeof(uint32_t));
    if (h->in == NULL) {
        fprintf(stderr, "%s: out of memory for %zu inputs\n", env->target, h->n);
        hist_free(h);
        return NULL;
    }
    return h;
}

/* Fills the input and counts the reference histogram, serially. */
static void fill(struct histogram *h)
{
    memset(h->want, 0, sizeof(h->want));
    for (size_t i = 0; i < h->n; i++) {
        h->in[i] = input(i);
        h->want[h->in[i] & 255]++;
    }
}

static int check_hist(const struct histogram *h)
{
    for (int b = 0; b < HIST_BINS; b++) {
        if (h->hist[b] != h->want[b]) {
            fprintf(stderr, "%s: histogram: bin %d holds %u, expected %u\n", h->target, b,
                    h->hist[b], h->want[b]);
            return -1;
        }
    }
    return 0;
}

/* ---- host version ---- */

static void host_count(void *arg, unsigned t, unsigned count)
{
    struct histogram *h = arg;
    uint32_t *mine = h->thread_hist[t];
    const uint32_t *restrict in = h->in;
    memset(mine, 0, HIST_BINS * sizeof(uint32_t));
    for (size_t i = h->n * t / count; i < h->n * (t + 1) / count; i++)
        mine[in[i] & 255]++;
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct histogram *h = hist_alloc(env);
    if (h == NULL)
        return -1;
    h->pool = env->pool;
    h->thread_hist = calloc(bench_pool_size(h->pool), sizeof(*h->thread_hist));
    if (h->thread_hist == NULL) {
        hist_free(h);
        return -1;
    }
    fill(h);
    *state = h;
    return 0;
}

static int host_run(void *state)
{
    struct histogram *h = state;
    bench_pool_run(h->pool, host_count, h);
    memset(h->hist, 0, sizeof(h->hist));
    for (unsigned t = 0; t < bench_pool_size(h->pool); t++)
        for (int b = 0; b < HIST_BINS; b++)
            h->hist[b] += h->thread_hist[t][b];
    return 0;
}

static int host_check(void *state)
{
    return check_hist(state);
}

static void host_teardown(void *state)
{
    hist_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct histogram *h)
{
    if (h->hist_buf != NULL)
        clReleaseMemObject(h->hist_buf);
    if (h->in_buf != NULL)
        clReleaseMemObject(h->in_buf);
    if (h->kernel != NULL)
        clReleaseKernel(h->kernel);
    if (h->program != NULL)
        clReleaseProgram(h->program);
    hist_free(h);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct histogram *h = hist_alloc(env);
    if (h == NULL)
        return -1;
    h->queue = env->queue;
    fill(h);
    if (bench_cl_kernel_build(env, source, "histogram", &h->program, &h->kernel) != 0)
        goto out_release;
    h->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               h->n * sizeof(uint32_t), h->in, &err);
    if (err == CL_SUCCESS)
        h->hist_buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(h->hist), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(h->kernel, 0, sizeof(cl_mem), &h->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 1, sizeof(cl_mem), &h->hist_buf);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = h;
    return 0;

out_release:
    cl_release(h);
    return -1;
}

/* One repetition: the histogram cleared, the kernel, the 256 bins read back. */
static int cl_run(void *state)
{
    struct histogram *h = state;
    size_t global = h->n / HIST_ITEMS, local = HIST_GROUP;
    cl_uint zero = 0;
    cl_int err = clEnqueueFillBuffer(h->queue, h->hist_buf, &zero, sizeof(zero), 0, sizeof(h->hist),
                                     0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueFillBuffer", err);
    err = clEnqueueNDRangeKernel(h->queue, h->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueNDRangeKernel", err);
    err = clEnqueueReadBuffer(h->queue, h->hist_buf, CL_TRUE, 0, sizeof(h->hist), h->hist, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueReadBuffer", err);
    return 0;
}

static int cl_check(void *state)
{
    return check_hist(state);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double hist_rate(const struct bench_env *env, double seconds)
{
    size_t n =
        env->size_bytes / sizeof(uint32_t) / (HIST_GROUP * HIST_ITEMS) * (HIST_GROUP * HIST_ITEMS);
    return (double)(n ? n : HIST_GROUP * HIST_ITEMS) * sizeof(uint32_t) / seconds / 1e9;
}

const struct bench_case bench_case_histogram = {
    .name = "histogram",
    .summary = "256-bin histogram, __local atomic_inc per input, global atomic_add per bin; GB/s",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = hist_rate,
    .rate_unit = "GB/s",
};
