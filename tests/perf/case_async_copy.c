/* kiln-bench's async-copy: a tiled kernel that stages its data through __local memory with
 * async_work_group_copy. Each work-group of COPY_GROUP work-items copies a tile of COPY_TILE
 * uints from global into a __local array, waits for it, computes
 *     r[i] = 3 * t[i] + t[(i + 1) % COPY_TILE]
 * out of place into a second __local array (COPY_TILE / COPY_GROUP elements per work-item),
 * and copies that back to global with a second async_work_group_copy. It measures a driver's
 * work-group copies and the barriers around them on a memory-bound kernel.
 *
 * The result is integer arithmetic (wrapping), so it is exact: every element is checked against
 * the same expression on the host. The plain-C version computes each tile in plain C on the
 * pool's threads, reading the input and writing the output directly (no staging copy). */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define COPY_TILE  1024
#define COPY_GROUP 256

/* The barrier after wait_group_events is the portable pattern that kernels written for many
 * drivers use; where the wait already synchronises the group (Kiln's does,
 * kernel-lib/async/async.cl) it is one more barrier per tile. The one before the second copy
 * makes every r[i] visible to the work-item that copies it out. */
static const char *source =
    "#define TILE 1024\n"
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
    "void async_copy(__global const uint *in, __global uint *out)\n"
    "{\n"
    "    __local uint t[TILE];\n"
    "    __local uint r[TILE];\n"
    "    size_t base = get_group_id(0) * TILE;\n"
    "    event_t e = async_work_group_copy(t, in + base, TILE, 0);\n"
    "    wait_group_events(1, &e);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t i = get_local_id(0); i < TILE; i += get_local_size(0))\n"
    "        r[i] = 3 * t[i] + t[(i + 1) % TILE];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    e = async_work_group_copy(out + base, r, TILE, 0);\n"
    "    wait_group_events(1, &e);\n"
    "}\n";

struct async_copy {
    const char *target;
    size_t n; /* a multiple of COPY_TILE */
    uint32_t *in, *out;
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version, borrowed from the env */
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, out_buf;
};

static uint32_t input(size_t i)
{
    uint32_t x = (uint32_t)i * 2246822519u;
    return x ^ (x >> 16) ^ (uint32_t)(i >> 10);
}

/* Element i of the result, from the input alone. */
static uint32_t expected(size_t i)
{
    size_t base = i / COPY_TILE * COPY_TILE;
    return 3u * input(i) + input(base + (i - base + 1) % COPY_TILE);
}

static int check_output(const struct async_copy *s)
{
    for (size_t i = 0; i < s->n; i++) {
        uint32_t want = expected(i);
        if (s->out[i] != want) {
            fprintf(stderr, "%s: async-copy: wrong result at element %zu: got %u, expected %u\n",
                    s->target, i, (unsigned)s->out[i], (unsigned)want);
            return -1;
        }
    }
    return 0;
}

static void copy_free(struct async_copy *s)
{
    free(s->out);
    free(s->in);
    free(s);
}

/* The arrays hold whole tiles: --size-mib rounded down to a multiple of a tile. */
static struct async_copy *copy_alloc(const struct bench_env *env)
{
    struct async_copy *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->target = env->target;
    s->n = env->size_bytes / sizeof(uint32_t) / COPY_TILE * COPY_TILE;
    s->in = malloc(s->n * sizeof(uint32_t));
    s->out = malloc(s->n * sizeof(uint32_t));
    if (s->in == NULL || s->out == NULL) {
        fprintf(stderr, "%s: out of memory for %zu uints\n", env->target, s->n);
        copy_free(s);
        return NULL;
    }
    return s;
}

/* ---- host version ---- */

/* Fills this thread's tiles (first touch by the thread that later works on them) and poisons
 * the output, so that a tile left unwritten is caught. */
static void host_fill(void *arg, unsigned t, unsigned count)
{
    struct async_copy *s = arg;
    size_t tiles = s->n / COPY_TILE;
    for (size_t i = tiles * t / count * COPY_TILE; i < tiles * (t + 1) / count * COPY_TILE; i++) {
        s->in[i] = input(i);
        s->out[i] = 0xdeadbeefu;
    }
}

static void host_tiles(void *arg, unsigned t, unsigned count)
{
    struct async_copy *s = arg;
    size_t tiles = s->n / COPY_TILE;
    for (size_t k = tiles * t / count; k < tiles * (t + 1) / count; k++) {
        const uint32_t *restrict in = s->in + k * COPY_TILE;
        uint32_t *restrict out = s->out + k * COPY_TILE;
        /* The wrap-around element apart, so that the loop vectorises. */
        for (size_t i = 0; i < COPY_TILE - 1; i++)
            out[i] = 3u * in[i] + in[i + 1];
        out[COPY_TILE - 1] = 3u * in[COPY_TILE - 1] + in[0];
    }
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct async_copy *s = copy_alloc(env);
    if (s == NULL)
        return -1;
    s->pool = env->pool;
    bench_pool_run(s->pool, host_fill, s);
    *state = s;
    return 0;
}

static int host_run(void *state)
{
    struct async_copy *s = state;
    bench_pool_run(s->pool, host_tiles, s);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    copy_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct async_copy *s)
{
    if (s->out_buf != NULL)
        clReleaseMemObject(s->out_buf);
    if (s->in_buf != NULL)
        clReleaseMemObject(s->in_buf);
    if (s->kernel != NULL)
        clReleaseKernel(s->kernel);
    if (s->program != NULL)
        clReleaseProgram(s->program);
    copy_free(s);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct async_copy *s = copy_alloc(env);
    if (s == NULL)
        return -1;
    s->queue = env->queue;
    for (size_t i = 0; i < s->n; i++) {
        s->in[i] = input(i);
        s->out[i] = 0xdeadbeefu;
    }
    if (bench_cl_kernel_build(env, source, "async_copy", &s->program, &s->kernel) != 0)
        goto out_release;
    s->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               s->n * sizeof(uint32_t), s->in, &err);
    if (err == CL_SUCCESS)
        s->out_buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    s->n * sizeof(uint32_t), s->out, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    err = clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 1, sizeof(cl_mem), &s->out_buf);
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

/* One work-group per tile; the local size is given, as the kernel requires it. */
static int cl_run(void *state)
{
    struct async_copy *s = state;
    size_t global = s->n / COPY_TILE * COPY_GROUP, local = COPY_GROUP;
    cl_int err =
        clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(s->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clFinish", err);
    return 0;
}

static int cl_check(void *state)
{
    struct async_copy *s = state;
    cl_int err = clEnqueueReadBuffer(s->queue, s->out_buf, CL_TRUE, 0, s->n * sizeof(uint32_t),
                                     s->out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "clEnqueueReadBuffer", err);
    return check_output(s);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

/* The array is read once and written once, as in `copy`; the __local traffic is not counted. */
static double copy_rate(const struct bench_env *env, double seconds)
{
    size_t n = env->size_bytes / sizeof(uint32_t) / COPY_TILE * COPY_TILE;
    return 2.0 * (double)(n * sizeof(uint32_t)) / seconds / 1e9;
}

const struct bench_case bench_case_async_copy = {
    .name = "async-copy",
    .summary = "tiles of 1024 uints staged through __local with async_work_group_copy, "
               "r = 3 t[i] + t[i+1]; GB/s counting 2 arrays",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = copy_rate,
    .rate_unit = "GB/s",
};
