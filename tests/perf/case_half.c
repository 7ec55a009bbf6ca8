/* kiln-bench's half-precision cases, each beside its float twin so that one run shows both:
 *
 *  - fma-float, fma-half: four independent chains of 32 x = fma(x, 0.75, 0.25) per work-item
 *    (128 fmas, 256 flops), x from in[i] in [0, 4); out[i] = the sum of the chains. The rate is
 *    GFLOP/s. The half fma is correctly rounded (kernel-lib/math/half_ieee.cl).
 *  - trans-half: the transcendental case's expression, sin(x) + cos(x) + exp(x/4) + log(2 + x) +
 *    pow(1.5, x/10) for x in [-1.5, 10), in half; compare with `transcendental` (float). The rate
 *    is millions of elements per second.
 *
 * Every case runs over --size-mib worth of floats (16 Mi elements at the default 64 MiB), so
 * float and half do the same work per element and half moves half the bytes. The half cases
 * need cl_khr_fp16: a platform whose device does not report it gets the row "unsupported".
 * No C row: the C library has no half functions to compare with. Each result is checked against
 * double: 1e-5 of the magnitudes for float, 1e-2 for half (a few half ulps of each term). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { FMA_FLOAT, FMA_HALF, TRANS_HALF };

#define FMA_CHAIN(T, S)                                                                            \
    "__kernel void run(__global const " T " *restrict in, __global " T " *restrict out)\n"         \
    "{\n"                                                                                          \
    "    size_t i = get_global_id(0);\n"                                                           \
    "    " T " x0 = in[i], x1 = x0 + (" T ")1, x2 = x0 + (" T ")2, x3 = x0 + (" T ")3;\n"          \
    "    const " T " m = 0.75" S ", a = 0.25" S ";\n"                                              \
    "    for (int k = 0; k < 32; k++) {\n"                                                         \
    "        x0 = fma(x0, m, a); x1 = fma(x1, m, a); x2 = fma(x2, m, a); x3 = fma(x3, m, a);\n"    \
    "    }\n"                                                                                      \
    "    out[i] = (x0 + x1) + (x2 + x3);\n"                                                        \
    "}\n"

static const char *const sources[] = {
    [FMA_FLOAT] = FMA_CHAIN("float", "f"),
    [FMA_HALF] = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" FMA_CHAIN("half", "h"),
    [TRANS_HALF] = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                   "__kernel void run(__global const half *restrict in, __global half *restrict "
                   "out)\n"
                   "{\n"
                   "    size_t i = get_global_id(0);\n"
                   "    half x = in[i];\n"
                   "    out[i] = sin(x) + cos(x) + exp(0.25h * x) + log(2.0h + x) + "
                   "pow(1.5h, 0.1h * x);\n"
                   "}\n",
};

struct hcase {
    enum kind kind;
    const char *target;
    size_t n, elem; /* elements, bytes per element */
    void *in, *out;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, out_buf;
};

static double input(const struct hcase *h, size_t i)
{
    if (h->kind == TRANS_HALF)
        return (double)(_Float16)(-1.5 + (double)(i % 11500) * 0.001);
    return (double)(_Float16)((double)(i % 4096) / 1024.0); /* [0, 4), exact in half */
}

static double get(const struct hcase *h, const void *array, size_t i)
{
    return h->elem == 2 ? (double)((const _Float16 *)array)[i] : (double)((const float *)array)[i];
}

/* The chain in double: the half one rounds every step, which stays within a few of its ulps
 * because the map contracts (by 0.75) towards 1. */
static void want(const struct hcase *h, double x, double *sum, double *mag)
{
    if (h->kind == TRANS_HALF) {
        double terms[] = {sin(x), cos(x), exp(0.25 * x), log(2.0 + x), pow(1.5, 0.1 * x)};
        *sum = *mag = 0;
        for (int k = 0; k < 5; k++) {
            *sum += terms[k];
            *mag += fabs(terms[k]);
        }
        return;
    }
    *sum = 0;
    for (int c = 0; c < 4; c++) {
        double v = x + c;
        for (int k = 0; k < 32; k++)
            v = v * 0.75 + 0.25;
        *sum += v;
    }
    *mag = fabs(*sum) + 4;
}

static int check_output(const struct hcase *h)
{
    double tol = h->elem == 2 ? 1e-2 : 1e-5;
    for (size_t i = 0; i < h->n; i++) {
        double sum, mag, got = get(h, h->out, i);
        want(h, input(h, i), &sum, &mag);
        if (!(fabs(got - sum) <= tol * mag)) {
            fprintf(stderr, "%s: wrong result at element %zu (x = %g): got %.6g, expected %.6g\n",
                    h->target, i, input(h, i), got, sum);
            return -1;
        }
    }
    return 0;
}

static void release(struct hcase *h)
{
    if (h->out_buf != NULL)
        clReleaseMemObject(h->out_buf);
    if (h->in_buf != NULL)
        clReleaseMemObject(h->in_buf);
    if (h->kernel != NULL)
        clReleaseKernel(h->kernel);
    if (h->program != NULL)
        clReleaseProgram(h->program);
    free(h->out);
    free(h->in);
    free(h);
}

static int has_fp16(const struct bench_env *env)
{
    char ext[8192] = "";
    clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL);
    return strstr(ext, "cl_khr_fp16") != NULL;
}

static int setup(const struct bench_env *env, void **state, enum kind kind)
{
    cl_int err = CL_SUCCESS;
    if (kind != FMA_FLOAT && !has_fp16(env)) {
        fprintf(stderr, "%s: the device does not report cl_khr_fp16\n", env->target);
        return 1;
    }
    struct hcase *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return -1;
    h->kind = kind;
    h->target = env->target;
    h->queue = env->queue;
    h->n = env->size_bytes / sizeof(float);
    h->elem = kind == FMA_FLOAT ? sizeof(float) : 2;
    h->in = malloc(h->n * h->elem);
    h->out = malloc(h->n * h->elem);
    if (h->in == NULL || h->out == NULL) {
        fprintf(stderr, "%s: out of memory for arrays of %zu bytes\n", env->target, h->n * h->elem);
        goto out_release;
    }
    for (size_t i = 0; i < h->n; i++) {
        if (h->elem == 2)
            ((_Float16 *)h->in)[i] = (_Float16)input(h, i);
        else
            ((float *)h->in)[i] = (float)input(h, i);
    }
    if (bench_cl_kernel_build(env, sources[kind], "run", &h->program, &h->kernel) != 0)
        goto out_release;
    h->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h->n * h->elem,
                               h->in, &err);
    if (err == CL_SUCCESS)
        h->out_buf = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, h->n * h->elem, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(h->kernel, 0, sizeof(cl_mem), &h->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 1, sizeof(cl_mem), &h->out_buf);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = h;
    return 0;

out_release:
    release(h);
    return -1;
}

static int setup_fma_float(const struct bench_env *env, void **state)
{
    return setup(env, state, FMA_FLOAT);
}
static int setup_fma_half(const struct bench_env *env, void **state)
{
    return setup(env, state, FMA_HALF);
}
static int setup_trans_half(const struct bench_env *env, void **state)
{
    return setup(env, state, TRANS_HALF);
}

static int run(void *state)
{
    struct hcase *h = state;
    size_t global = h->n;
    cl_int err = clEnqueueNDRangeKernel(h->queue, h->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(h->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clFinish", err);
    return 0;
}

static int check(void *state)
{
    struct hcase *h = state;
    cl_int err = clEnqueueReadBuffer(h->queue, h->out_buf, CL_TRUE, 0, h->n * h->elem, h->out, 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueReadBuffer", err);
    return check_output(h);
}

static void teardown(void *state)
{
    release(state);
}

static double fma_rate(const struct bench_env *env, double seconds)
{
    return (double)(env->size_bytes / sizeof(float)) * 256 / seconds / 1e9;
}

static double trans_rate(const struct bench_env *env, double seconds)
{
    return (double)(env->size_bytes / sizeof(float)) / seconds / 1e6;
}

const struct bench_case bench_case_fma_float = {
    .name = "fma-float",
    .summary = "4 chains of 32 fma per float element; GFLOP/s",
    .cl = {setup_fma_float, run, check, teardown},
    .rate = fma_rate,
    .rate_unit = "GFLOP/s",
};

const struct bench_case bench_case_fma_half = {
    .name = "fma-half",
    .summary = "4 chains of 32 fma per half element (cl_khr_fp16); GFLOP/s",
    .cl = {setup_fma_half, run, check, teardown},
    .rate = fma_rate,
    .rate_unit = "GFLOP/s",
};

const struct bench_case bench_case_trans_half = {
    .name = "trans-half",
    .summary = "transcendental's sum in half (cl_khr_fp16); million elements/s",
    .cl = {setup_trans_half, run, check, teardown},
    .rate = trans_rate,
    .rate_unit = "Melem/s",
};
