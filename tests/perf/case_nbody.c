/* kiln-bench's n-body case: the gravitational acceleration of each of 4096 bodies from all
 * 4096 (softened, so a body's own term is zero), one work-item per body, rsqrt per pair:
 *   d = p_j - p_i, r2 = |d|^2 + eps^2, a_i += m_j d rsqrt(r2)^3
 * The rate counts 20 floating-point operations per pair, the usual convention, in GFLOP/s.
 * The plain-C version runs the same loop with 1/sqrtf on the pool's threads. Results are
 * checked against a double-precision sum for every 16th body, to 1e-4 of the sum of the
 * magnitudes of its terms. The size is fixed: --size-mib does not apply. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NBODY 4096
#define EPS2  0.01f

static const char *source =
    "__kernel void nbody(__global const float4 *restrict pos, __global float4 *restrict acc,\n"
    "                    int n, float eps2)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    float4 p = pos[i];\n"
    "    float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"
    "    for (int j = 0; j < n; j++) {\n"
    "        float4 q = pos[j];\n"
    "        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;\n"
    "        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);\n"
    "        float s = q.w * inv * inv * inv;\n"
    "        ax += dx * s;\n"
    "        ay += dy * s;\n"
    "        az += dz * s;\n"
    "    }\n"
    "    acc[i] = (float4)(ax, ay, az, 0.0f);\n"
    "}\n";

struct nbody {
    const char *target;
    float *pos, *acc; /* NBODY x 4 floats each */
    struct bench_pool *pool;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem pos_buf, acc_buf;
};

/* Positions spread over a cube of side 10, masses in [0.5, 1.5): a fixed pseudo-random set. */
static void init_bodies(float *pos)
{
    unsigned s = 12345;
    for (int i = 0; i < NBODY * 4; i++) {
        s = s * 1103515245u + 12345u;
        float u = (float)((s >> 8) & 0xffff) / 65536.0f;
        pos[i] = (i % 4 == 3) ? 0.5f + u : 10.0f * u - 5.0f;
    }
}

static int check_output(const struct nbody *b)
{
    for (int i = 0; i < NBODY; i += 16) {
        double want[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
        const float *p = b->pos + 4 * i;
        for (int j = 0; j < NBODY; j++) {
            const float *q = b->pos + 4 * j;
            double d[3] = {(double)q[0] - p[0], (double)q[1] - p[1], (double)q[2] - p[2]};
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2;
            double s = q[3] / (r2 * sqrt(r2));
            for (int k = 0; k < 3; k++) {
                want[k] += d[k] * s;
                mag[k] += fabs(d[k] * s);
            }
        }
        for (int k = 0; k < 3; k++) {
            if (!(fabs(b->acc[4 * i + k] - want[k]) <= 1e-4 * mag[k])) {
                fprintf(stderr, "%s: nbody: body %d component %d: got %.7g, expected %.7g\n",
                        b->target, i, k, (double)b->acc[4 * i + k], want[k]);
                return -1;
            }
        }
    }
    return 0;
}

static void nbody_free(struct nbody *b)
{
    free(b->acc);
    free(b->pos);
    free(b);
}

static struct nbody *nbody_alloc(const struct bench_env *env)
{
    struct nbody *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->target = env->target;
    b->pos = malloc(NBODY * 4 * sizeof(float));
    b->acc = calloc(NBODY * 4, sizeof(float));
    if (b->pos == NULL || b->acc == NULL) {
        nbody_free(b);
        return NULL;
    }
    init_bodies(b->pos);
    return b;
}

/* ---- host version ---- */

static void host_compute(void *arg, unsigned t, unsigned count)
{
    struct nbody *b = arg;
    const float *restrict pos = b->pos;
    float *restrict acc = b->acc;
    for (int i = NBODY * (int)t / (int)count; i < NBODY * ((int)t + 1) / (int)count; i++) {
        float px = pos[4 * i], py = pos[4 * i + 1], pz = pos[4 * i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < NBODY; j++) {
            float dx = pos[4 * j] - px, dy = pos[4 * j + 1] - py, dz = pos[4 * j + 2] - pz;
            float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + EPS2);
            float s = pos[4 * j + 3] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        acc[4 * i] = ax;
        acc[4 * i + 1] = ay;
        acc[4 * i + 2] = az;
        acc[4 * i + 3] = 0.0f;
    }
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct nbody *b = nbody_alloc(env);
    if (b == NULL)
        return -1;
    b->pool = env->pool;
    *state = b;
    return 0;
}

static int host_run(void *state)
{
    struct nbody *b = state;
    bench_pool_run(b->pool, host_compute, b);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    nbody_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct nbody *b)
{
    if (b->acc_buf != NULL)
        clReleaseMemObject(b->acc_buf);
    if (b->pos_buf != NULL)
        clReleaseMemObject(b->pos_buf);
    if (b->kernel != NULL)
        clReleaseKernel(b->kernel);
    if (b->program != NULL)
        clReleaseProgram(b->program);
    nbody_free(b);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct nbody *b = nbody_alloc(env);
    if (b == NULL)
        return -1;
    b->queue = env->queue;
    if (bench_cl_kernel_build(env, source, "nbody", &b->program, &b->kernel) != 0)
        goto out_release;
    b->pos_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                NBODY * 4 * sizeof(float), b->pos, &err);
    if (err == CL_SUCCESS)
        b->acc_buf =
            clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, NBODY * 4 * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    cl_int n = NBODY;
    cl_float eps2 = EPS2;
    err = clSetKernelArg(b->kernel, 0, sizeof(cl_mem), &b->pos_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->kernel, 1, sizeof(cl_mem), &b->acc_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->kernel, 2, sizeof(n), &n);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->kernel, 3, sizeof(eps2), &eps2);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = b;
    return 0;

out_release:
    cl_release(b);
    return -1;
}

static int cl_run(void *state)
{
    struct nbody *b = state;
    size_t global = NBODY;
    cl_int err = clEnqueueNDRangeKernel(b->queue, b->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(b->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(b->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(b->target, "clFinish", err);
    return 0;
}

static int cl_check(void *state)
{
    struct nbody *b = state;
    cl_int err = clEnqueueReadBuffer(b->queue, b->acc_buf, CL_TRUE, 0, NBODY * 4 * sizeof(float),
                                     b->acc, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(b->target, "clEnqueueReadBuffer", err);
    return check_output(b);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double nbody_rate(const struct bench_env *env, double seconds)
{
    (void)env;
    return 20.0 * NBODY * (double)NBODY / seconds / 1e9;
}

const struct bench_case bench_case_nbody = {
    .name = "nbody",
    .summary = "4096-body gravitational accelerations, rsqrt per pair; GFLOP/s (20 per pair)",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = nbody_rate,
    .rate_unit = "GFLOP/s",
};
