/* kiln-bench's memory-bandwidth cases, after the STREAM benchmark's loops:
 *   copy:  c[i] = a[i]             2 arrays moved per element (one read, one write)
 *   triad: a[i] = b[i] + s * c[i]  3 arrays moved per element (two reads, one write)
 * on float arrays of --size-mib each. The OpenCL version launches one work-item per element
 * with the work-group size left to the driver; the host version splits the range evenly over
 * the pool's threads. Inputs are small multiples of 1/4, so results are exact and checked
 * with ==. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

enum stream_kind { STREAM_COPY, STREAM_TRIAD };

static const float SCALAR = 3.0f;

static const char *source =
    "__kernel void copy(__global const float *restrict a, __global float *restrict c)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i];\n"
    "}\n"
    "\n"
    "__kernel void triad(__global float *restrict a, __global const float *restrict b,\n"
    "                    __global const float *restrict c, float s)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    a[i] = b[i] + s * c[i];\n"
    "}\n";

static float init_a(size_t i)
{
    return (float)(i % 1024) * 0.5f;
}

static float init_b(size_t i)
{
    return (float)(i % 777) * 0.25f;
}

static float init_c(size_t i)
{
    return (float)(i % 513) * 0.5f;
}

struct stream {
    enum stream_kind kind;
    const char *target;
    size_t n;
    /* Host arrays: the operands of the host version; for OpenCL, the staging area the inputs
     * are uploaded from and the output read back into. Only those the kind uses exist. */
    float *a, *b, *c;
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version, borrowed from the env */
    cl_program program;
    cl_kernel kernel;
    cl_mem a_buf, b_buf, c_buf;
};

/* The output array and the value each of its elements must hold. */
static float *output(struct stream *s)
{
    return s->kind == STREAM_COPY ? s->c : s->a;
}

static float expected(enum stream_kind kind, size_t i)
{
    return kind == STREAM_COPY ? init_a(i) : init_b(i) + SCALAR * init_c(i);
}

static int check_output(struct stream *s)
{
    const float *out = output(s);
    for (size_t i = 0; i < s->n; i++) {
        float want = expected(s->kind, i);
        if (out[i] != want) {
            fprintf(stderr, "%s: %s: wrong result at element %zu: got %g, expected %g\n", s->target,
                    s->kind == STREAM_COPY ? "copy" : "triad", i, (double)out[i], (double)want);
            return -1;
        }
    }
    return 0;
}

/* The pool job that fills this thread's slice of every array (first touch by the thread that
 * later streams through it) and poisons the output. */
static void host_fill(void *arg, unsigned t, unsigned count)
{
    struct stream *s = arg;
    size_t begin = s->n * t / count, end = s->n * (t + 1) / count;
    for (size_t i = begin; i < end; i++) {
        if (s->a != NULL)
            s->a[i] = init_a(i);
        if (s->b != NULL)
            s->b[i] = init_b(i);
        if (s->c != NULL)
            s->c[i] = s->kind == STREAM_COPY ? -1.0f : init_c(i);
    }
}

static void stream_free(struct stream *s)
{
    free(s->c);
    free(s->b);
    free(s->a);
    free(s);
}

/* Allocates the state and the host arrays the kind uses; NULL when out of memory. */
static struct stream *stream_alloc(enum stream_kind kind, const struct bench_env *env)
{
    struct stream *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->kind = kind;
    s->target = env->target;
    s->n = env->size_bytes / sizeof(float);
    s->a = malloc(s->n * sizeof(float));
    s->c = malloc(s->n * sizeof(float));
    if (kind == STREAM_TRIAD)
        s->b = malloc(s->n * sizeof(float));
    if (s->a == NULL || s->c == NULL || (kind == STREAM_TRIAD && s->b == NULL)) {
        fprintf(stderr, "%s: out of memory for arrays of %zu bytes\n", env->target,
                env->size_bytes);
        stream_free(s);
        return NULL;
    }
    return s;
}

/* ---- host version ---- */

static void host_copy(void *arg, unsigned t, unsigned count)
{
    struct stream *s = arg;
    size_t begin = s->n * t / count, end = s->n * (t + 1) / count;
    const float *restrict a = s->a;
    float *restrict c = s->c;
    for (size_t i = begin; i < end; i++)
        c[i] = a[i];
}

static void host_triad(void *arg, unsigned t, unsigned count)
{
    struct stream *s = arg;
    size_t begin = s->n * t / count, end = s->n * (t + 1) / count;
    float *restrict a = s->a;
    const float *restrict b = s->b;
    const float *restrict c = s->c;
    for (size_t i = begin; i < end; i++)
        a[i] = b[i] + SCALAR * c[i];
}

static int host_setup(enum stream_kind kind, const struct bench_env *env, void **state)
{
    struct stream *s = stream_alloc(kind, env);
    if (s == NULL)
        return -1;
    s->pool = env->pool;
    bench_pool_run(s->pool, host_fill, s);
    *state = s;
    return 0;
}

static int host_setup_copy(const struct bench_env *env, void **state)
{
    return host_setup(STREAM_COPY, env, state);
}

static int host_setup_triad(const struct bench_env *env, void **state)
{
    return host_setup(STREAM_TRIAD, env, state);
}

static int host_run(void *state)
{
    struct stream *s = state;
    bench_pool_run(s->pool, s->kind == STREAM_COPY ? host_copy : host_triad, s);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    stream_free(state);
}

/* ---- OpenCL version ---- */

/* Creates a buffer holding a copy of host (when host is not NULL). */
static cl_mem cl_buffer(const struct bench_env *env, const float *host, cl_int *err)
{
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host != NULL ? CL_MEM_COPY_HOST_PTR : 0);
    return clCreateBuffer(env->ctx, flags, env->size_bytes, (void *)host, err);
}

static void cl_release(struct stream *s)
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
    stream_free(s);
}

static int cl_setup(enum stream_kind kind, const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct stream *s = stream_alloc(kind, env);
    if (s == NULL)
        goto out;
    s->queue = env->queue;
    for (size_t i = 0; i < s->n; i++) {
        s->a[i] = init_a(i);
        if (s->b != NULL)
            s->b[i] = init_b(i);
        s->c[i] = kind == STREAM_COPY ? -1.0f : init_c(i);
    }

    const char *name = kind == STREAM_COPY ? "copy" : "triad";
    if (bench_cl_kernel_build(env, source, name, &s->program, &s->kernel) != 0)
        goto out_release;

    s->a_buf = cl_buffer(env, s->a, &err);
    if (err == CL_SUCCESS)
        s->c_buf = cl_buffer(env, s->c, &err);
    if (err == CL_SUCCESS && kind == STREAM_TRIAD)
        s->b_buf = cl_buffer(env, s->b, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }

    if (kind == STREAM_COPY) {
        err = clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->a_buf);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(s->kernel, 1, sizeof(cl_mem), &s->c_buf);
    } else {
        float scalar = SCALAR;
        err = clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->a_buf);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(s->kernel, 1, sizeof(cl_mem), &s->b_buf);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(s->kernel, 2, sizeof(cl_mem), &s->c_buf);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(s->kernel, 3, sizeof(float), &scalar);
    }
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = s;
    return 0;

out_release:
    cl_release(s);
out:
    return -1;
}

static int cl_setup_copy(const struct bench_env *env, void **state)
{
    return cl_setup(STREAM_COPY, env, state);
}

static int cl_setup_triad(const struct bench_env *env, void **state)
{
    return cl_setup(STREAM_TRIAD, env, state);
}

static int cl_run(void *state)
{
    struct stream *s = state;
    size_t global = s->n;
    cl_int err = clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(s->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clFinish", err);
    return 0;
}

static int cl_check(void *state)
{
    struct stream *s = state;
    cl_mem out = s->kind == STREAM_COPY ? s->c_buf : s->a_buf;
    cl_int err = clEnqueueReadBuffer(s->queue, out, CL_TRUE, 0, s->n * sizeof(float), output(s), 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueReadBuffer", err);
    return check_output(s);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

/* ---- the two cases ---- */

static double copy_rate(const struct bench_env *env, double seconds)
{
    return 2.0 * (double)env->size_bytes / seconds / 1e9;
}

static double triad_rate(const struct bench_env *env, double seconds)
{
    return 3.0 * (double)env->size_bytes / seconds / 1e9;
}

const struct bench_case bench_case_copy = {
    .name = "copy",
    .summary = "c[i] = a[i]; GB/s counting 2 arrays (1 read, 1 write)",
    .cl = {cl_setup_copy, cl_run, cl_check, cl_teardown},
    .host = {host_setup_copy, host_run, host_check, host_teardown},
    .rate = copy_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_triad = {
    .name = "triad",
    .summary = "a[i] = b[i] + s * c[i]; GB/s counting 3 arrays (2 reads, 1 write)",
    .cl = {cl_setup_triad, cl_run, cl_check, cl_teardown},
    .host = {host_setup_triad, host_run, host_check, host_teardown},
    .rate = triad_rate,
    .rate_unit = "GB/s",
};
