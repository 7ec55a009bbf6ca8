/* kiln-bench's contended global atomics: a histogram counted straight into __global memory, one
 * atomic_inc per input and per work-item, no __local staging. Two cases:
 *   atomic-hist:  256 bins, the input byte itself;
 *   atomic-hist4: 4 bins (the byte's low two bits), every group hammering the same cache line.
 * The inputs are uints holding uniform pseudo-random bytes (0 to 255), --size-mib / 4 of them
 * (16 Mi at the default 64 MiB); the rate is bytes of input (4 per uint) per second. The work-group
 * size is left to the driver, so this measures how a driver runs a kernel whose every work-item
 * does one global atomic read-modify-write whose result it ignores. The plain-C row counts each
 * thread's range into its own histogram without atomics and adds those up: the ceiling for the same
 * counting. Every bin is checked against a histogram counted once on the host. */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AHIST_MAX_BINS 256

static const char *source = "__kernel void atomic_hist(__global const uint *in,\n"
                            "                          __global uint *hist, uint mask)\n"
                            "{\n"
                            "    atomic_inc(&hist[in[get_global_id(0)] & mask]);\n"
                            "}\n";

struct ahist {
    const char *target;
    unsigned bins;
    size_t n;
    uint32_t *in;
    uint32_t hist[AHIST_MAX_BINS], want[AHIST_MAX_BINS];
    /* host version */
    struct bench_pool *pool;
    uint32_t (*thread_hist)[AHIST_MAX_BINS];
    /* OpenCL version */
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, hist_buf;
};

static size_t ahist_inputs(const struct bench_env *env)
{
    size_t n = env->size_bytes / 4;
    return n != 0 ? n : 1;
}

static void ahist_free(struct ahist *h)
{
    free(h->thread_hist);
    free(h->in);
    free(h);
}

/* Allocates the state and fills the input with splitmix64 bytes (uniform, reproducible), and
 * counts the reference histogram. */
static struct ahist *ahist_alloc(const struct bench_env *env, unsigned bins)
{
    struct ahist *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    h->target = env->target;
    h->bins = bins;
    h->n = ahist_inputs(env);
    h->in = malloc(h->n * sizeof(uint32_t));
    if (h->in == NULL) {
        fprintf(stderr, "%s: out of memory for %zu inputs\n", env->target, h->n);
        ahist_free(h);
        return NULL;
    }
    uint64_t s = 0x243f6a8885a308d3u;
    for (size_t i = 0; i < h->n; i += 8) {
        s += 0x9e3779b97f4a7c15u;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        for (size_t k = 0; k < 8 && i + k < h->n; k++)
            h->in[i + k] = (uint8_t)(z >> (8 * k));
    }
    for (size_t i = 0; i < h->n; i++)
        h->want[h->in[i] & (bins - 1)]++;
    return h;
}

static int check_hist(const struct ahist *h)
{
    for (unsigned b = 0; b < h->bins; b++) {
        if (h->hist[b] != h->want[b]) {
            fprintf(stderr, "%s: atomic histogram: bin %u holds %u, expected %u\n", h->target, b,
                    h->hist[b], h->want[b]);
            return -1;
        }
    }
    return 0;
}

/* ---- host version ---- */

static void host_count(void *arg, unsigned t, unsigned count)
{
    struct ahist *h = arg;
    uint32_t *mine = h->thread_hist[t];
    const uint32_t *restrict in = h->in;
    unsigned mask = h->bins - 1;
    memset(mine, 0, AHIST_MAX_BINS * sizeof(uint32_t));
    for (size_t i = h->n * t / count; i < h->n * (t + 1) / count; i++)
        mine[in[i] & mask]++;
}

static int host_setup(const struct bench_env *env, unsigned bins, void **state)
{
    struct ahist *h = ahist_alloc(env, bins);
    if (h == NULL)
        return -1;
    h->pool = env->pool;
    h->thread_hist = calloc(bench_pool_size(h->pool), sizeof(*h->thread_hist));
    if (h->thread_hist == NULL) {
        ahist_free(h);
        return -1;
    }
    *state = h;
    return 0;
}

static int host_setup256(const struct bench_env *env, void **state)
{
    return host_setup(env, 256, state);
}

static int host_setup4(const struct bench_env *env, void **state)
{
    return host_setup(env, 4, state);
}

static int host_run(void *state)
{
    struct ahist *h = state;
    bench_pool_run(h->pool, host_count, h);
    memset(h->hist, 0, sizeof(h->hist));
    for (unsigned t = 0; t < bench_pool_size(h->pool); t++)
        for (unsigned b = 0; b < h->bins; b++)
            h->hist[b] += h->thread_hist[t][b];
    return 0;
}

static int host_check(void *state)
{
    return check_hist(state);
}

static void host_teardown(void *state)
{
    ahist_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct ahist *h)
{
    if (h->hist_buf != NULL)
        clReleaseMemObject(h->hist_buf);
    if (h->in_buf != NULL)
        clReleaseMemObject(h->in_buf);
    if (h->kernel != NULL)
        clReleaseKernel(h->kernel);
    if (h->program != NULL)
        clReleaseProgram(h->program);
    ahist_free(h);
}

static int cl_setup(const struct bench_env *env, unsigned bins, void **state)
{
    cl_int err = CL_SUCCESS;
    struct ahist *h = ahist_alloc(env, bins);
    if (h == NULL)
        return -1;
    h->queue = env->queue;
    if (bench_cl_kernel_build(env, source, "atomic_hist", &h->program, &h->kernel) != 0)
        goto out_release;
    h->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               h->n * sizeof(uint32_t), h->in, &err);
    if (err == CL_SUCCESS)
        h->hist_buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof(h->hist), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    cl_uint mask = bins - 1;
    err = clSetKernelArg(h->kernel, 0, sizeof(cl_mem), &h->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 1, sizeof(cl_mem), &h->hist_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 2, sizeof(mask), &mask);
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

static int cl_setup256(const struct bench_env *env, void **state)
{
    return cl_setup(env, 256, state);
}

static int cl_setup4(const struct bench_env *env, void **state)
{
    return cl_setup(env, 4, state);
}

/* One repetition: the histogram cleared, the kernel, the bins read back. */
static int cl_run(void *state)
{
    struct ahist *h = state;
    size_t global = h->n;
    cl_uint zero = 0;
    cl_int err = clEnqueueFillBuffer(h->queue, h->hist_buf, &zero, sizeof(zero), 0, sizeof(h->hist),
                                     0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueFillBuffer", err);
    err = clEnqueueNDRangeKernel(h->queue, h->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
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

static double ahist_rate(const struct bench_env *env, double seconds)
{
    return (double)ahist_inputs(env) * sizeof(uint32_t) / seconds / 1e9;
}

const struct bench_case bench_case_atomic_hist = {
    .name = "atomic-hist",
    .summary = "256-bin histogram, one __global atomic_inc per uint input; GB/s",
    .cl = {cl_setup256, cl_run, cl_check, cl_teardown},
    .host = {host_setup256, host_run, host_check, host_teardown},
    .rate = ahist_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_atomic_hist4 = {
    .name = "atomic-hist4",
    .summary = "4-bin histogram, one __global atomic_inc per uint input; GB/s",
    .cl = {cl_setup4, cl_run, cl_check, cl_teardown},
    .host = {host_setup4, host_run, host_check, host_teardown},
    .rate = ahist_rate,
    .rate_unit = "GB/s",
};
