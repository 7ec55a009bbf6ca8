/* kiln-bench's transcendental case: out[i] = sin(x) + cos(x) + exp(x/4) + log(2 + x) +
 * pow(1.5, x/10) for x = in[i] in [-1.5, 10), over --size-mib of floats (16 Mi at the default
 * 64 MiB). The rate is millions of elements per second. The plain-C version calls the C
 * library's float functions on the pool's threads. Each result is checked against the same sum
 * in double: within 1e-5 of the sum of the terms' magnitudes (a few ulps of each term). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void transcendental(__global const float *restrict in, __global float *restrict "
    "out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    float x = in[i];\n"
    "    out[i] = sin(x) + cos(x) + exp(0.25f * x) + log(2.0f + x) + pow(1.5f, 0.1f * x);\n"
    "}\n";

struct trans {
    const char *target;
    size_t n;
    float *in, *out;
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version */
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, out_buf;
};

static float input(size_t i)
{
    return -1.5f + (float)(i % 11500) * 0.001f;
}

static int check_output(const struct trans *t)
{
    for (size_t i = 0; i < t->n; i++) {
        double x = input(i);
        double terms[] = {sin(x), cos(x), exp((double)(0.25f * (float)x)),
                          log((double)(2.0f + (float)x)), pow(1.5, (double)(0.1f * (float)x))};
        double want = 0, mag = 0;
        for (int k = 0; k < 5; k++) {
            want += terms[k];
            mag += fabs(terms[k]);
        }
        if (!(fabs(t->out[i] - want) <= 1e-5 * mag)) {
            fprintf(stderr,
                    "%s: transcendental: wrong result at element %zu (x = %g): got %.9g, "
                    "expected %.9g\n",
                    t->target, i, x, (double)t->out[i], want);
            return -1;
        }
    }
    return 0;
}

static void trans_free(struct trans *t)
{
    free(t->out);
    free(t->in);
    free(t);
}

static struct trans *trans_alloc(const struct bench_env *env)
{
    struct trans *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->target = env->target;
    t->n = env->size_bytes / sizeof(float);
    t->in = malloc(t->n * sizeof(float));
    t->out = malloc(t->n * sizeof(float));
    if (t->in == NULL || t->out == NULL) {
        fprintf(stderr, "%s: out of memory for arrays of %zu bytes\n", env->target,
                env->size_bytes);
        trans_free(t);
        return NULL;
    }
    return t;
}

/* ---- host version ---- */

static void host_fill(void *arg, unsigned th, unsigned count)
{
    struct trans *t = arg;
    for (size_t i = t->n * th / count; i < t->n * (th + 1) / count; i++) {
        t->in[i] = input(i);
        t->out[i] = 0.0f;
    }
}

static void host_compute(void *arg, unsigned th, unsigned count)
{
    struct trans *t = arg;
    const float *restrict in = t->in;
    float *restrict out = t->out;
    for (size_t i = t->n * th / count; i < t->n * (th + 1) / count; i++) {
        float x = in[i];
        out[i] = sinf(x) + cosf(x) + expf(0.25f * x) + logf(2.0f + x) + powf(1.5f, 0.1f * x);
    }
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct trans *t = trans_alloc(env);
    if (t == NULL)
        return -1;
    t->pool = env->pool;
    bench_pool_run(t->pool, host_fill, t);
    *state = t;
    return 0;
}

static int host_run(void *state)
{
    struct trans *t = state;
    bench_pool_run(t->pool, host_compute, t);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    trans_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct trans *t)
{
    if (t->out_buf != NULL)
        clReleaseMemObject(t->out_buf);
    if (t->in_buf != NULL)
        clReleaseMemObject(t->in_buf);
    if (t->kernel != NULL)
        clReleaseKernel(t->kernel);
    if (t->program != NULL)
        clReleaseProgram(t->program);
    trans_free(t);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct trans *t = trans_alloc(env);
    if (t == NULL)
        return -1;
    t->queue = env->queue;
    for (size_t i = 0; i < t->n; i++)
        t->in[i] = input(i);
    if (bench_cl_kernel_build(env, source, "transcendental", &t->program, &t->kernel) != 0)
        goto out_release;
    t->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               t->n * sizeof(float), t->in, &err);
    if (err == CL_SUCCESS)
        t->out_buf = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, t->n * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(t->kernel, 0, sizeof(cl_mem), &t->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(t->kernel, 1, sizeof(cl_mem), &t->out_buf);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = t;
    return 0;

out_release:
    cl_release(t);
    return -1;
}

static int cl_run(void *state)
{
    struct trans *t = state;
    size_t global = t->n;
    cl_int err = clEnqueueNDRangeKernel(t->queue, t->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(t->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(t->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(t->target, "clFinish", err);
    return 0;
}

static int cl_check(void *state)
{
    struct trans *t = state;
    cl_int err = clEnqueueReadBuffer(t->queue, t->out_buf, CL_TRUE, 0, t->n * sizeof(float), t->out,
                                     0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(t->target, "clEnqueueReadBuffer", err);
    return check_output(t);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double trans_rate(const struct bench_env *env, double seconds)
{
    return (double)(env->size_bytes / sizeof(float)) / seconds / 1e6;
}

const struct bench_case bench_case_transcendental = {
    .name = "transcendental",
    .summary = "sin + cos + exp + log + pow per float element; million elements/s",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = trans_rate,
    .rate_unit = "Melem/s",
};
