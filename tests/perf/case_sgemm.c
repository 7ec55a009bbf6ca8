/* kiln-bench's tiled matrix multiply: C = A * B for N x N floats, one work-item per element of
 * C, 16 x 16 work-groups that stage tiles of A and B through kernel-scope __local arrays with a
 * barrier after each load and after each use. N is 2048 for the default 64 MiB size (N*N*16
 * bytes = the array size), 1024 with --size-mib 16, a multiple of 16 from 64 up.
 *
 * The plain-C row is not a matrix multiply: it is the machine's fused multiply-add peak, the
 * same 2*N^3 floating-point operations as independent FMA chains held in vector registers on
 * every thread, so Kiln/C says which fraction of the peak the kernel reaches. Inputs are small
 * integers, so every element of C is exact and is checked with ==. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 16

static const char *source =
    "#define TILE 16\n"
    "__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))\n"
    "void sgemm(int n, __global const float *a, __global const float *b, __global float *c)\n"
    "{\n"
    "    __local float at[TILE][TILE], bt[TILE][TILE];\n"
    "    int col = get_global_id(0), row = get_global_id(1);\n"
    "    int lc = get_local_id(0), lr = get_local_id(1);\n"
    "    float acc = 0.0f;\n"
    "    for (int t = 0; t < n; t += TILE) {\n"
    "        at[lr][lc] = a[row * n + t + lc];\n"
    "        bt[lr][lc] = b[(t + lr) * n + col];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        for (int k = 0; k < TILE; k++)\n"
    "            acc += at[lr][k] * bt[k][lc];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    c[row * n + col] = acc;\n"
    "}\n";

struct sgemm {
    const char *target;
    int n;
    float *a, *b, *c;
    /* host version: the FMA peak */
    struct bench_pool *pool;
    size_t iterations;  /* per thread */
    float *lane_result; /* CHAINS * VLEN per thread */
    /* OpenCL version */
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem a_buf, b_buf, c_buf;
};

static int matrix_size(const struct bench_env *env)
{
    size_t n = (size_t)sqrt((double)env->size_bytes / 16.0);
    n = n / TILE * TILE;
    if (n < 64)
        n = 64;
    if (n > 4096)
        n = 4096;
    return (int)n;
}

static double flops(const struct bench_env *env)
{
    double n = matrix_size(env);
    return 2.0 * n * n * n;
}

static float a_at(int n, int i, int j)
{
    return (float)((i * n + j) % 3 - 1);
}

static float b_at(int n, int i, int j)
{
    return (float)((i * n + j) % 5 - 2);
}

static void sgemm_free(struct sgemm *s)
{
    free(s->lane_result);
    free(s->c);
    free(s->b);
    free(s->a);
    free(s);
}

/* ---- host version: the FMA peak ---- */

/*
 * One vector register of the machine the benchmark is built for (-march=native): a chain per
 * register. A wider vector type than the registers (64 bytes on an AVX2 machine) makes the
 * compiler spill the chains to the stack, which measured a tenth of the peak.
 */
#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
typedef float vfloat __attribute__((vector_size(VBYTES)));
enum { VLEN = VBYTES / 4, CHAINS = 12, STEP_FLOPS = 2 * VLEN * CHAINS };

static const float MUL = 0.999999f, ADD = 1e-6f;
/* Read through a volatile so the compiler can neither fold the chains nor merge equal ones. */
static volatile float start_value = 1.0f;

/* The starting value of lane l of chain k: every chain differs, so none can be merged. */
static float chain_start(float base, int k, int l)
{
    return base + (float)(k * VLEN + l) * 1e-4f;
}

static void host_fma(void *arg, unsigned t, unsigned count)
{
    (void)count;
    struct sgemm *s = arg;
    const float base = start_value;
    vfloat acc[CHAINS];
    for (int k = 0; k < CHAINS; k++)
        for (int l = 0; l < VLEN; l++)
            acc[k][l] = chain_start(base, k, l);
    const vfloat mul = MUL - (vfloat){0}, add = ADD - (vfloat){0};
    for (size_t i = 0; i < s->iterations; i++)
        for (int k = 0; k < CHAINS; k++)
            acc[k] = acc[k] * mul + add; /* contracted to one FMA (-ffp-contract=fast) */
    float *out = s->lane_result + (size_t)t * CHAINS * VLEN;
    for (int k = 0; k < CHAINS; k++)
        for (int l = 0; l < VLEN; l++)
            out[k * VLEN + l] = acc[k][l];
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct sgemm *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->target = env->target;
    s->n = matrix_size(env);
    s->pool = env->pool;
    unsigned threads = bench_pool_size(env->pool);
    s->iterations = (size_t)(flops(env) / STEP_FLOPS / threads);
    s->lane_result = calloc((size_t)threads * CHAINS * VLEN, sizeof(float));
    if (s->lane_result == NULL) {
        sgemm_free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int host_run(void *state)
{
    struct sgemm *s = state;
    bench_pool_run(s->pool, host_fma, s);
    return 0;
}

/* Replays three lanes of every thread with fmaf, which rounds once as FMA does. */
static int host_check(void *state)
{
    struct sgemm *s = state;
    static const int lanes[3] = {0, VLEN + 3, CHAINS * VLEN - 1};
    for (int j = 0; j < 3; j++) {
        float x = chain_start(start_value, lanes[j] / VLEN, lanes[j] % VLEN);
        for (size_t i = 0; i < s->iterations; i++)
            x = fmaf(x, MUL, ADD);
        for (unsigned t = 0; t < bench_pool_size(s->pool); t++) {
            float got = s->lane_result[(size_t)t * CHAINS * VLEN + lanes[j]];
            if (got != x) {
                fprintf(stderr, "%s: FMA peak: thread %u lane %d ended at %.9g, expected %.9g\n",
                        s->target, t, lanes[j], (double)got, (double)x);
                return -1;
            }
        }
    }
    return 0;
}

static void host_teardown(void *state)
{
    sgemm_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct sgemm *s)
{
    if (s->c_buf != NULL)
        clReleaseMemObject(s->c_buf);
    if (s->b_buf != NULL)
        clReleaseMemObject(s->b_buf);
    if (s->a_buf != NULL)
        clReleaseMemObject(s->a_buf);
    if (s->kernel != NULL)
        clReleaseKernel(s->kernel);
    if (s->program != NULL)
        clReleaseProgram(s->program);
    sgemm_free(s);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct sgemm *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->target = env->target;
    s->queue = env->queue;
    int n = s->n = matrix_size(env);
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    s->a = malloc(bytes);
    s->b = malloc(bytes);
    s->c = malloc(bytes);
    if (s->a == NULL || s->b == NULL || s->c == NULL) {
        fprintf(stderr, "%s: out of memory for %d x %d matrices\n", env->target, n, n);
        goto out_release;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            s->a[(size_t)i * n + j] = a_at(n, i, j);
            s->b[(size_t)i * n + j] = b_at(n, i, j);
        }
    }
    if (bench_cl_kernel_build(env, source, "sgemm", &s->program, &s->kernel) != 0)
        goto out_release;
    s->a_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, s->a, &err);
    if (err == CL_SUCCESS)
        s->b_buf =
            clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, s->b, &err);
    if (err == CL_SUCCESS)
        s->c_buf = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(s->kernel, 0, sizeof(int), &n);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 1, sizeof(cl_mem), &s->a_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 2, sizeof(cl_mem), &s->b_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 3, sizeof(cl_mem), &s->c_buf);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = s;
    return 0;

out_release:
    cl_release(s);
    return -1;
}

static int cl_run(void *state)
{
    struct sgemm *s = state;
    size_t global[2] = {(size_t)s->n, (size_t)s->n}, local[2] = {TILE, TILE};
    cl_int err = clEnqueueNDRangeKernel(s->queue, s->kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(s->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clFinish", err);
    return 0;
}

/* Every element for small matrices; for large ones every 7th row and the last, all columns. */
static int cl_check(void *state)
{
    struct sgemm *s = state;
    int n = s->n;
    cl_int err = clEnqueueReadBuffer(s->queue, s->c_buf, CL_TRUE, 0,
                                     (size_t)n * (size_t)n * sizeof(float), s->c, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueReadBuffer", err);
    for (int i = 0; i < n; i++) {
        if (n > 256 && i % 7 != 0 && i != n - 1)
            continue;
        for (int j = 0; j < n; j++) {
            float want = 0.0f;
            for (int k = 0; k < n; k++)
                want += s->a[(size_t)i * n + k] * s->b[(size_t)k * n + j];
            float got = s->c[(size_t)i * n + j];
            if (got != want) {
                fprintf(stderr, "%s: sgemm: c[%d][%d] = %g, expected %g\n", s->target, i, j,
                        (double)got, (double)want);
                return -1;
            }
        }
    }
    return 0;
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double sgemm_rate(const struct bench_env *env, double seconds)
{
    return flops(env) / seconds / 1e9;
}

const struct bench_case bench_case_sgemm = {
    .name = "sgemm",
    .summary = "C = A*B, 16x16 __local tiles with barriers (N=2048 at 64 MiB); GFLOP/s; "
               "C row: FMA peak",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = sgemm_rate,
    .rate_unit = "GFLOP/s",
};
