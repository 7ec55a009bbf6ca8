/* kiln-bench's host-API cases: what a driver costs around the kernels.
 *   launch:  1,000 times, enqueue an empty one-work-item kernel and wait for it (clFinish);
 *            the rate is thousands of launches per second, so 1000 / rate is the latency in µs
 *   burst:   10,000 launches of a small kernel back to back, then one clFinish
 *   copybuf: clEnqueueCopyBuffer of --size-mib bytes (the ceiling: memcpy on every thread)
 *   fillbuf: clEnqueueFillBuffer of --size-mib bytes with a 4-byte pattern (ceiling: memset)
 * Launch r of the burst adds i + 1 to element (64 r + i) mod 1,024 of an int array for each of
 * its 64 work-items i, so every launch leaves a trace that the check recomputes. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LAUNCHES = 1000, BURST = 10000, BURST_ITEMS = 64, SLOTS = 1024 };

static const char *source = "__kernel void empty(void) { }\n"
                            "__kernel void bump(__global int *slots, uint round)\n"
                            "{\n"
                            "    size_t i = get_global_id(0);\n"
                            "    slots[(round * 64 + i) % 1024] += (int)i + 1;\n"
                            "}\n";

enum launch_kind { KIND_LAUNCH, KIND_BURST, KIND_COPY, KIND_FILL };

struct launch {
    enum launch_kind kind;
    const char *target;
    size_t bytes;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem a, b;
    unsigned char *host_a, *host_b; /* host ceiling, and the staging area for checks */
    struct bench_pool *pool;
};

static void launch_free(struct launch *s)
{
    if (s->kernel)
        clReleaseKernel(s->kernel);
    if (s->program)
        clReleaseProgram(s->program);
    if (s->a)
        clReleaseMemObject(s->a);
    if (s->b)
        clReleaseMemObject(s->b);
    free(s->host_a);
    free(s->host_b);
    free(s);
}

static int cl_setup(enum launch_kind kind, const struct bench_env *env, void **state)
{
    struct launch *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->kind = kind;
    s->target = env->target;
    s->queue = env->queue;
    s->bytes = kind == KIND_BURST ? SLOTS * sizeof(cl_int) : env->size_bytes;
    cl_int err = CL_SUCCESS;
    if (kind == KIND_LAUNCH || kind == KIND_BURST) {
        if (bench_cl_kernel_build(env, source, kind == KIND_LAUNCH ? "empty" : "bump", &s->program,
                                  &s->kernel) != 0) {
            free(s);
            return -1;
        }
    }
    if (kind != KIND_LAUNCH) {
        s->host_a = calloc(1, s->bytes);
        if (s->host_a == NULL) {
            launch_free(s);
            return -1;
        }
        for (size_t i = 0; kind == KIND_COPY && i < s->bytes; i++)
            s->host_a[i] = (unsigned char)(i * 7 + i / 4093);
        s->a = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, s->bytes,
                              s->host_a, &err);
        if (err == CL_SUCCESS && kind == KIND_COPY)
            s->b = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, s->bytes, NULL, &err);
        if (err == CL_SUCCESS && kind == KIND_BURST)
            err = clSetKernelArg(s->kernel, 0, sizeof(s->a), &s->a);
    }
    if (err != CL_SUCCESS) {
        launch_free(s);
        return bench_cl_fail(env->target, "setup", err);
    }
    *state = s;
    return 0;
}

static int cl_setup_launch(const struct bench_env *env, void **state)
{
    return cl_setup(KIND_LAUNCH, env, state);
}

static int cl_setup_burst(const struct bench_env *env, void **state)
{
    return cl_setup(KIND_BURST, env, state);
}

static int cl_setup_copy(const struct bench_env *env, void **state)
{
    return cl_setup(KIND_COPY, env, state);
}

static int cl_setup_fill(const struct bench_env *env, void **state)
{
    return cl_setup(KIND_FILL, env, state);
}

static int cl_run(void *state)
{
    struct launch *s = state;
    cl_int err = CL_SUCCESS;
    size_t one = 1, items = BURST_ITEMS;
    static const cl_int pattern = 0x5a5a0101;
    switch (s->kind) {
    case KIND_LAUNCH:
        for (int i = 0; i < LAUNCHES && err == CL_SUCCESS; i++) {
            err = clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &one, &one, 0, NULL, NULL);
            if (err == CL_SUCCESS)
                err = clFinish(s->queue);
        }
        break;
    case KIND_BURST:
        err = clEnqueueFillBuffer(s->queue, s->a, &(cl_int){0}, sizeof(cl_int), 0, s->bytes, 0,
                                  NULL, NULL);
        for (cl_uint r = 0; r < BURST && err == CL_SUCCESS; r++) {
            err = clSetKernelArg(s->kernel, 1, sizeof(r), &r);
            if (err == CL_SUCCESS)
                err = clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &items, &items, 0, NULL,
                                             NULL);
        }
        break;
    case KIND_COPY:
        err = clEnqueueCopyBuffer(s->queue, s->a, s->b, 0, 0, s->bytes, 0, NULL, NULL);
        break;
    case KIND_FILL:
        err = clEnqueueFillBuffer(s->queue, s->a, &pattern, sizeof(pattern), 0, s->bytes, 0, NULL,
                                  NULL);
        break;
    }
    if (err == CL_SUCCESS)
        err = clFinish(s->queue);
    return err == CL_SUCCESS ? 0 : bench_cl_fail(s->target, "run", err);
}

static int cl_check(void *state)
{
    struct launch *s = state;
    if (s->kind == KIND_LAUNCH)
        return 0; /* the launches returned CL_SUCCESS: nothing else to see */
    unsigned char *got = malloc(s->bytes);
    if (got == NULL)
        return -1;
    cl_int err = clEnqueueReadBuffer(s->queue, s->kind == KIND_COPY ? s->b : s->a, CL_TRUE, 0,
                                     s->bytes, got, 0, NULL, NULL);
    int bad = err != CL_SUCCESS ? bench_cl_fail(s->target, "read back", err) : 0;
    for (size_t i = 0; !bad && i < s->bytes / sizeof(cl_int); i++) {
        cl_int v, want;
        memcpy(&v, got + i * sizeof(v), sizeof(v));
        if (s->kind == KIND_COPY) {
            memcpy(&want, s->host_a + i * sizeof(v), sizeof(want));
        } else if (s->kind == KIND_FILL) {
            want = 0x5a5a0101;
        } else {
            /* Round r adds (i - 64 * r) % 1024 + 1 to slot i when that index is below 64. */
            want = 0;
            for (cl_uint r = 0; r < BURST; r++) {
                size_t item = (i + SLOTS - (r * BURST_ITEMS) % SLOTS) % SLOTS;
                if (item < BURST_ITEMS)
                    want += (cl_int)item + 1;
            }
        }
        if (v != want) {
            fprintf(stderr, "%s: wrong value at int %zu: got %d, expected %d\n", s->target, i, v,
                    want);
            bad = -1;
        }
    }
    free(got);
    return bad;
}

static void cl_teardown(void *state)
{
    launch_free(state);
}

/* ---- host ceilings for the transfers ---- */

static int host_setup(enum launch_kind kind, const struct bench_env *env, void **state)
{
    struct launch *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->kind = kind;
    s->target = env->target;
    s->bytes = env->size_bytes;
    s->pool = env->pool;
    s->host_a = malloc(s->bytes);
    s->host_b = malloc(s->bytes);
    if (s->host_a == NULL || s->host_b == NULL) {
        launch_free(s);
        return -1;
    }
    memset(s->host_a, 1, s->bytes);
    memset(s->host_b, 2, s->bytes);
    *state = s;
    return 0;
}

static int host_setup_copy(const struct bench_env *env, void **state)
{
    return host_setup(KIND_COPY, env, state);
}

static int host_setup_fill(const struct bench_env *env, void **state)
{
    return host_setup(KIND_FILL, env, state);
}

static void host_slice(void *arg, unsigned t, unsigned count)
{
    struct launch *s = arg;
    size_t begin = s->bytes * t / count, end = s->bytes * (t + 1) / count;
    if (s->kind == KIND_COPY)
        memcpy(s->host_b + begin, s->host_a + begin, end - begin);
    else
        memset(s->host_a + begin, 0x5a, end - begin);
}

static int host_run(void *state)
{
    struct launch *s = state;
    bench_pool_run(s->pool, host_slice, s);
    return 0;
}

static int host_check(void *state)
{
    struct launch *s = state;
    const unsigned char *p = s->kind == KIND_COPY ? s->host_b : s->host_a;
    unsigned char want = s->kind == KIND_COPY ? 1 : 0x5a;
    for (size_t i = 0; i < s->bytes; i++) {
        if (p[i] != want) {
            fprintf(stderr, "C: wrong byte at %zu\n", i);
            return -1;
        }
    }
    return 0;
}

static double rate_launches(const struct bench_env *env, double seconds)
{
    (void)env;
    return LAUNCHES / seconds / 1e3;
}

static double rate_burst(const struct bench_env *env, double seconds)
{
    (void)env;
    return BURST / seconds / 1e3;
}

/* Bytes moved: a copy reads and writes each byte, a fill only writes. */
static double rate_copy(const struct bench_env *env, double seconds)
{
    return 2.0 * (double)env->size_bytes / seconds / 1e9;
}

static double rate_fill(const struct bench_env *env, double seconds)
{
    return (double)env->size_bytes / seconds / 1e9;
}

const struct bench_case bench_case_launch = {
    .name = "launch",
    .summary = "1,000 x (enqueue an empty kernel, clFinish); 1000/rate = microseconds each",
    .cl = {cl_setup_launch, cl_run, cl_check, cl_teardown},
    .rate = rate_launches,
    .rate_unit = "k/s",
};

const struct bench_case bench_case_burst = {
    .name = "burst",
    .summary = "10,000 launches of a 64-item kernel back to back, one clFinish",
    .cl = {cl_setup_burst, cl_run, cl_check, cl_teardown},
    .rate = rate_burst,
    .rate_unit = "k/s",
};

const struct bench_case bench_case_copybuf = {
    .name = "copybuf",
    .summary = "clEnqueueCopyBuffer of one array (C: memcpy on every thread)",
    .cl = {cl_setup_copy, cl_run, cl_check, cl_teardown},
    .host = {host_setup_copy, host_run, host_check, cl_teardown},
    .rate = rate_copy,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_fillbuf = {
    .name = "fillbuf",
    .summary = "clEnqueueFillBuffer of one array, 4-byte pattern (C: memset on every thread)",
    .cl = {cl_setup_fill, cl_run, cl_check, cl_teardown},
    .host = {host_setup_fill, host_run, host_check, cl_teardown},
    .rate = rate_fill,
    .rate_unit = "GB/s",
};
