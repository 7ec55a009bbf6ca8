/* kiln-bench's first-launches case: what the first launches of a newly built kernel cost the
 * thread that enqueues them. Each repetition builds a program no cache has seen (its source
 * carries the repetition's number), then launches its kernel FIRST_LAUNCHES times with one local
 * size, each time enqueue and clFinish, timed one by one. Kiln builds a local-size variant of a
 * kernel launched again and again with one size (docs/compiler.md, "Local-size variants"); the
 * build must not stall the launch that asks for it. The harness times the whole repetition (the
 * program's build included); the check prints, over the repetitions so far, the median of each
 * repetition's slowest launch and of its fourth (the one that reaches Kiln's default count),
 * and checks the last launch's output. There is no plain-C row. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FIRST_LAUNCHES = 8, FIRST_ITEMS = 16384, FIRST_LOCAL = 64, FIRST_MAX_REPS = 1024 };

/* %lx: a number this process drew, and %u the repetition, so that every build is a cold one. Both
 * are in the code, not in a comment: a driver may key its cache on the preprocessed source. */
static const char *source_fmt =
    "__kernel void rotate_tile(__global float *out, __global const float *in)\n"
    "{\n"
    "    __local float tile[64];\n"
    "    size_t l = get_local_id(0), i = get_global_id(0);\n"
    "    tile[l] = in[i];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[i] = tile[(l + 1) %% get_local_size(0)] * 2.0f + (float)((0x%lxu & 0u) + %uu);\n"
    "}\n";

struct first {
    const struct bench_env *env;
    cl_mem in, out;
    unsigned long salt;
    unsigned reps;
    double slowest[FIRST_MAX_REPS], fourth[FIRST_MAX_REPS];
    float host_in[FIRST_ITEMS], got[FIRST_ITEMS];
};

static void first_teardown(void *state)
{
    struct first *s = state;
    if (s->in)
        clReleaseMemObject(s->in);
    if (s->out)
        clReleaseMemObject(s->out);
    free(s);
}

static int first_setup(const struct bench_env *env, void **state)
{
    struct first *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->env = env;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    s->salt = (unsigned long)t.tv_sec * 1000000000ul + (unsigned long)t.tv_nsec;
    for (size_t i = 0; i < FIRST_ITEMS; i++)
        s->host_in[i] = (float)(i % 1000);
    cl_int err;
    s->in = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(s->host_in),
                           s->host_in, &err);
    if (err == CL_SUCCESS)
        s->out = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, sizeof(s->got), NULL, &err);
    if (err != CL_SUCCESS) {
        first_teardown(s);
        return bench_cl_fail(env->target, "clCreateBuffer", err);
    }
    *state = s;
    return 0;
}

static int first_run(void *state)
{
    struct first *s = state;
    char source[1024];
    snprintf(source, sizeof(source), source_fmt, s->salt, s->reps);
    cl_program program;
    cl_kernel kernel;
    if (bench_cl_kernel_build(s->env, source, "rotate_tile", &program, &kernel) != 0)
        return -1;
    cl_int err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &s->out);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &s->in);
    size_t global = FIRST_ITEMS, local = FIRST_LOCAL;
    double slowest = 0, fourth = 0;
    for (int l = 0; l < FIRST_LAUNCHES && err == CL_SUCCESS; l++) {
        double t0 = bench_now();
        err =
            clEnqueueNDRangeKernel(s->env->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clFinish(s->env->queue);
        double t = bench_now() - t0;
        slowest = t > slowest ? t : slowest;
        if (l == 3)
            fourth = t;
    }
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(s->env->queue, s->out, CL_TRUE, 0, sizeof(s->got), s->got, 0,
                                  NULL, NULL);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->env->target, "first launches", err);
    if (s->reps < FIRST_MAX_REPS) {
        s->slowest[s->reps] = slowest;
        s->fourth[s->reps] = fourth;
    }
    s->reps++;
    return 0;
}

static int first_check(void *state)
{
    struct first *s = state;
    unsigned last = s->reps - 1;
    for (size_t i = 0; i < FIRST_ITEMS; i++) {
        size_t g = i / FIRST_LOCAL * FIRST_LOCAL, l = i % FIRST_LOCAL;
        float want = s->host_in[g + (l + 1) % FIRST_LOCAL] * 2.0f + (float)last;
        if (s->got[i] != want) {
            fprintf(stderr, "%s: first-launches: out[%zu] = %g, expected %g\n", s->env->target, i,
                    (double)s->got[i], (double)want);
            return -1;
        }
    }
    unsigned n = s->reps < FIRST_MAX_REPS ? s->reps : FIRST_MAX_REPS;
    double slowest[FIRST_MAX_REPS], fourth[FIRST_MAX_REPS];
    memcpy(slowest, s->slowest, n * sizeof(double));
    memcpy(fourth, s->fourth, n * sizeof(double));
    printf("  %s first-launches: slowest of %d launches %.3f ms, fourth launch %.3f ms "
           "(medians of %u repetitions)\n",
           s->env->target, FIRST_LAUNCHES, bench_median(slowest, n) * 1e3,
           bench_median(fourth, n) * 1e3, n);
    return 0;
}

static double first_rate(const struct bench_env *env, double seconds)
{
    (void)env;
    return 1.0 / seconds;
}

const struct bench_case bench_case_first_launches = {
    .name = "first-launches",
    .summary = "build a new program, then 8 launches of its kernel at one local size; "
               "programs/s (the check prints the slowest launch)",
    .cl = {first_setup, first_run, first_check, first_teardown},
    .rate = first_rate,
    .rate_unit = "programs/s",
};
