/* kiln-bench's tiled cases: kernels that stage a tile of uints per work-group through __local
 * memory between barriers, read an input array once and write an output array once.
 *
 *   barrier-loop: groups of 256 load a tile of 256 into a kernel-scope __local array, then run
 *                 8 rounds of a neighbour update, each round two barriers (all reads of the old
 *                 tile, then all writes of the new one), and write the tile out. A driver that
 *                 runs a group's work-items as loops between barriers has to split the loop body
 *                 at both barriers and keep the loop's state across them. The round count is a
 *                 kernel argument, not a constant, so that no compiler unrolls the loop away and
 *                 the barriers stay inside a real loop.
 *   async-copy:   groups of 256 copy a tile of 1024 into __local with async_work_group_copy,
 *                 wait, compute r[i] = 3 * t[i] + t[(i + 1) % 1024] out of place into a second
 *                 __local array (4 elements per work-item) and copy that back to global with a
 *                 second async_work_group_copy: a driver's work-group copies and the barriers
 *                 around them on a memory-bound kernel.
 *
 * Everything is integer arithmetic (wrapping), so results are exact: every element is checked
 * against the case's per-tile function in C, which is also the plain-C row, run per tile on the
 * pool's threads reading the input and writing the output directly. The rate counts the input
 * read once and the output written once, as `copy` does; the __local traffic is not counted. */
#include "bench.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* What differs between the cases. */
struct tile_case {
    const char *name;                                   /* for messages */
    size_t tile;                                        /* uints per tile, one tile a group */
    size_t group;                                       /* work-items per group */
    const char *source, *kernel;                        /* kernel (in, out[, rounds]) */
    cl_uint rounds;                                     /* a third argument when not 0 */
    void (*compute)(const uint32_t *in, uint32_t *out); /* one tile, in C */
    uint32_t (*input)(size_t i);                        /* element i of the input */
};

struct tiles {
    const struct tile_case *c;
    const char *target;
    size_t n; /* a multiple of the tile */
    uint32_t *in, *out;
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version, borrowed from the env */
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, out_buf;
};

static int check_output(const struct tiles *s)
{
    const struct tile_case *c = s->c;
    uint32_t *in = malloc(c->tile * sizeof(uint32_t)), *want = malloc(c->tile * sizeof(uint32_t));
    int status = in && want ? 0 : -1;
    for (size_t base = 0; base < s->n && status == 0; base += c->tile) {
        for (size_t l = 0; l < c->tile; l++)
            in[l] = c->input(base + l);
        c->compute(in, want);
        for (size_t l = 0; l < c->tile; l++)
            if (s->out[base + l] != want[l]) {
                fprintf(stderr, "%s: %s: wrong result at element %zu: got %u, expected %u\n",
                        s->target, c->name, base + l, (unsigned)s->out[base + l],
                        (unsigned)want[l]);
                status = -1;
                break;
            }
    }
    free(want);
    free(in);
    return status;
}

static void tiles_free(struct tiles *s)
{
    free(s->out);
    free(s->in);
    free(s);
}

/* The arrays hold whole tiles: --size-mib rounded down to a multiple of a tile. */
static struct tiles *tiles_alloc(const struct tile_case *c, const struct bench_env *env)
{
    struct tiles *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->c = c;
    s->target = env->target;
    s->n = env->size_bytes / sizeof(uint32_t) / c->tile * c->tile;
    s->in = malloc(s->n * sizeof(uint32_t));
    s->out = malloc(s->n * sizeof(uint32_t));
    if (s->in == NULL || s->out == NULL) {
        fprintf(stderr, "%s: out of memory for %zu uints\n", env->target, s->n);
        tiles_free(s);
        return NULL;
    }
    return s;
}

/* ---- host version ---- */

/* Fills this thread's tiles (first touch by the thread that later works on them) and poisons
 * the output, so that a tile left unwritten is caught. */
static void host_fill(void *arg, unsigned t, unsigned count)
{
    struct tiles *s = arg;
    size_t tile = s->c->tile, n = s->n / tile;
    for (size_t i = n * t / count * tile; i < n * (t + 1) / count * tile; i++) {
        s->in[i] = s->c->input(i);
        s->out[i] = 0xdeadbeefu;
    }
}

static void host_tiles(void *arg, unsigned t, unsigned count)
{
    struct tiles *s = arg;
    size_t tile = s->c->tile, n = s->n / tile;
    for (size_t k = n * t / count; k < n * (t + 1) / count; k++)
        s->c->compute(s->in + k * tile, s->out + k * tile);
}

static int host_setup(const struct tile_case *c, const struct bench_env *env, void **state)
{
    struct tiles *s = tiles_alloc(c, env);
    if (s == NULL)
        return -1;
    s->pool = env->pool;
    bench_pool_run(s->pool, host_fill, s);
    *state = s;
    return 0;
}

static int host_run(void *state)
{
    struct tiles *s = state;
    bench_pool_run(s->pool, host_tiles, s);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    tiles_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct tiles *s)
{
    if (s->out_buf != NULL)
        clReleaseMemObject(s->out_buf);
    if (s->in_buf != NULL)
        clReleaseMemObject(s->in_buf);
    if (s->kernel != NULL)
        clReleaseKernel(s->kernel);
    if (s->program != NULL)
        clReleaseProgram(s->program);
    tiles_free(s);
}

static int cl_setup(const struct tile_case *c, const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct tiles *s = tiles_alloc(c, env);
    if (s == NULL)
        return -1;
    s->queue = env->queue;
    for (size_t i = 0; i < s->n; i++) {
        s->in[i] = c->input(i);
        s->out[i] = 0xdeadbeefu;
    }
    if (bench_cl_kernel_build(env, c->source, c->kernel, &s->program, &s->kernel) != 0)
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
    if (err == CL_SUCCESS && c->rounds)
        err = clSetKernelArg(s->kernel, 2, sizeof(cl_uint), &c->rounds);
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

/* One work-group per tile; the local size is given, as the kernels require it. */
static int cl_run(void *state)
{
    struct tiles *s = state;
    size_t global = s->n / s->c->tile * s->c->group, local = s->c->group;
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
    struct tiles *s = state;
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

static double tiles_rate(size_t tile, const struct bench_env *env, double seconds)
{
    size_t n = env->size_bytes / sizeof(uint32_t) / tile * tile;
    return 2.0 * (double)(n * sizeof(uint32_t)) / seconds / 1e9;
}

/* ---- barrier-loop ---- */

#define LOOP_GROUP  256
#define LOOP_ROUNDS 8

static uint32_t loop_input(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return x ^ (x >> 15) ^ (uint32_t)(i >> 9);
}

/* The rounds of the kernel, with the old tile in `a` and the new one built in `b`. */
static void loop_tile(const uint32_t *restrict in, uint32_t *restrict out)
{
    uint32_t a[LOOP_GROUP], b[LOOP_GROUP];
    for (int l = 0; l < LOOP_GROUP; l++)
        a[l] = in[l];
    for (int it = 0; it < LOOP_ROUNDS; it++) {
        /* The two wrap-around elements apart, so that the loop in between vectorises. */
        b[0] = a[0] ^ ((a[1] >> 1) + a[LOOP_GROUP - 1]);
        for (int l = 1; l < LOOP_GROUP - 1; l++)
            b[l] = a[l] ^ ((a[l + 1] >> 1) + a[l - 1]);
        b[LOOP_GROUP - 1] = a[LOOP_GROUP - 1] ^ ((a[0] >> 1) + a[LOOP_GROUP - 2]);
        for (int l = 0; l < LOOP_GROUP; l++)
            a[l] = b[l];
    }
    for (int l = 0; l < LOOP_GROUP; l++)
        out[l] = a[l];
}

static const struct tile_case barrier_loop = {
    .name = "barrier-loop",
    .tile = LOOP_GROUP,
    .group = LOOP_GROUP,
    .source = "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
              "void barrier_loop(__global const uint *in, __global uint *out, uint iterations)\n"
              "{\n"
              "    __local uint t[256];\n"
              "    size_t l = get_local_id(0);\n"
              "    size_t g = get_global_id(0);\n"
              "    t[l] = in[g];\n"
              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
              "    for (uint it = 0; it < iterations; it++) {\n"
              "        uint v = t[l] ^ ((t[(l + 1) % 256] >> 1) + t[(l + 255) % 256]);\n"
              "        barrier(CLK_LOCAL_MEM_FENCE);\n"
              "        t[l] = v;\n"
              "        barrier(CLK_LOCAL_MEM_FENCE);\n"
              "    }\n"
              "    out[g] = t[l];\n"
              "}\n",
    .kernel = "barrier_loop",
    .rounds = LOOP_ROUNDS,
    .compute = loop_tile,
    .input = loop_input,
};

static int loop_cl_setup(const struct bench_env *env, void **state)
{
    return cl_setup(&barrier_loop, env, state);
}

static int loop_host_setup(const struct bench_env *env, void **state)
{
    return host_setup(&barrier_loop, env, state);
}

static double loop_rate(const struct bench_env *env, double seconds)
{
    return tiles_rate(LOOP_GROUP, env, seconds);
}

const struct bench_case bench_case_barrier_loop = {
    .name = "barrier-loop",
    .summary = "8 rounds of a __local neighbour update per group of 256, 2 barriers per round "
               "in a loop; GB/s counting 2 arrays",
    .cl = {loop_cl_setup, cl_run, cl_check, cl_teardown},
    .host = {loop_host_setup, host_run, host_check, host_teardown},
    .rate = loop_rate,
    .rate_unit = "GB/s",
};

/* ---- async-copy ---- */

#define COPY_TILE  1024
#define COPY_GROUP 256

static uint32_t copy_input(size_t i)
{
    uint32_t x = (uint32_t)i * 2246822519u;
    return x ^ (x >> 16) ^ (uint32_t)(i >> 10);
}

static void copy_tile(const uint32_t *restrict in, uint32_t *restrict out)
{
    /* The wrap-around element apart, so that the loop vectorises. */
    for (size_t i = 0; i < COPY_TILE - 1; i++)
        out[i] = 3u * in[i] + in[i + 1];
    out[COPY_TILE - 1] = 3u * in[COPY_TILE - 1] + in[0];
}

/* The barrier after wait_group_events is the portable pattern that kernels written for many
 * drivers use; where the wait already synchronises the group (Kiln's does,
 * kernel-lib/async/async.cl) it is one more barrier per tile. The one before the second copy
 * makes every r[i] visible to the work-item that copies it out. */
static const struct tile_case async_copy = {
    .name = "async-copy",
    .tile = COPY_TILE,
    .group = COPY_GROUP,
    .source = "#define TILE 1024\n"
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
              "}\n",
    .kernel = "async_copy",
    .compute = copy_tile,
    .input = copy_input,
};

static int copy_cl_setup(const struct bench_env *env, void **state)
{
    return cl_setup(&async_copy, env, state);
}

static int copy_host_setup(const struct bench_env *env, void **state)
{
    return host_setup(&async_copy, env, state);
}

static double copy_rate(const struct bench_env *env, double seconds)
{
    return tiles_rate(COPY_TILE, env, seconds);
}

const struct bench_case bench_case_async_copy = {
    .name = "async-copy",
    .summary = "tiles of 1024 uints staged through __local with async_work_group_copy, "
               "r = 3 t[i] + t[i+1]; GB/s counting 2 arrays",
    .cl = {copy_cl_setup, cl_run, cl_check, cl_teardown},
    .host = {copy_host_setup, host_run, host_check, host_teardown},
    .rate = copy_rate,
    .rate_unit = "GB/s",
};
