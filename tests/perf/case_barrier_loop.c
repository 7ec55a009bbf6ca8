/* kiln-bench's barrier-loop: a barrier inside a loop. Each work-group of LOOP_GROUP work-items
 * loads a tile of LOOP_GROUP uints into a kernel-scope __local array, then runs LOOP_ITERATIONS
 * rounds of a neighbour update, each round two barriers (all reads of the old tile, then all
 * writes of the new one), and writes the tile out. A driver that runs a group's work-items as
 * loops between barriers has to split the loop body at both barriers and keep the loop's state
 * across them; this case measures what that costs on a memory-bound kernel.
 *
 * The round count is a kernel argument, not a constant, so that no compiler unrolls the loop
 * away and the barriers stay inside a real loop. Everything is integer arithmetic, so the
 * result is exact: every element is checked against the same rounds computed on the host. The
 * plain-C version does the same rounds per tile on the pool's threads, ping-ponging between two
 * tiles on the stack. */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LOOP_GROUP      256
#define LOOP_ITERATIONS 8

static const char *source =
    "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
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
    "}\n";

struct barrier_loop {
    const char *target;
    size_t n;
    uint32_t *in, *out;
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version, borrowed from the env */
    cl_program program;
    cl_kernel kernel;
    cl_mem in_buf, out_buf;
};

static uint32_t input(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return x ^ (x >> 15) ^ (uint32_t)(i >> 9);
}

/* One tile: the rounds of the kernel, with the old tile in `a` and the new one built in `b`.
 * The plain-C version and the check both use it. */
static void tile_rounds(const uint32_t *restrict in, uint32_t *restrict out)
{
    uint32_t a[LOOP_GROUP], b[LOOP_GROUP];
    for (int l = 0; l < LOOP_GROUP; l++)
        a[l] = in[l];
    for (int it = 0; it < LOOP_ITERATIONS; it++) {
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

static int check_output(const struct barrier_loop *s)
{
    uint32_t in[LOOP_GROUP], want[LOOP_GROUP];
    for (size_t base = 0; base < s->n; base += LOOP_GROUP) {
        for (int l = 0; l < LOOP_GROUP; l++)
            in[l] = input(base + (size_t)l);
        tile_rounds(in, want);
        for (int l = 0; l < LOOP_GROUP; l++) {
            if (s->out[base + (size_t)l] != want[l]) {
                fprintf(stderr,
                        "%s: barrier-loop: wrong result at element %zu: got %u, "
                        "expected %u\n",
                        s->target, base + (size_t)l, (unsigned)s->out[base + (size_t)l],
                        (unsigned)want[l]);
                return -1;
            }
        }
    }
    return 0;
}

static void loop_free(struct barrier_loop *s)
{
    free(s->out);
    free(s->in);
    free(s);
}

/* The arrays hold whole tiles: --size-mib rounded down to a multiple of a tile. */
static struct barrier_loop *loop_alloc(const struct bench_env *env)
{
    struct barrier_loop *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->target = env->target;
    s->n = env->size_bytes / sizeof(uint32_t) / LOOP_GROUP * LOOP_GROUP;
    s->in = malloc(s->n * sizeof(uint32_t));
    s->out = malloc(s->n * sizeof(uint32_t));
    if (s->in == NULL || s->out == NULL) {
        fprintf(stderr, "%s: out of memory for %zu uints\n", env->target, s->n);
        loop_free(s);
        return NULL;
    }
    return s;
}

/* ---- host version ---- */

/* Fills this thread's tiles (first touch by the thread that later works on them) and poisons
 * the output, so that a tile left unwritten is caught. */
static void host_fill(void *arg, unsigned t, unsigned count)
{
    struct barrier_loop *s = arg;
    size_t tiles = s->n / LOOP_GROUP;
    for (size_t i = tiles * t / count * LOOP_GROUP; i < tiles * (t + 1) / count * LOOP_GROUP; i++) {
        s->in[i] = input(i);
        s->out[i] = 0xdeadbeefu;
    }
}

static void host_rounds(void *arg, unsigned t, unsigned count)
{
    struct barrier_loop *s = arg;
    size_t tiles = s->n / LOOP_GROUP;
    for (size_t k = tiles * t / count; k < tiles * (t + 1) / count; k++)
        tile_rounds(s->in + k * LOOP_GROUP, s->out + k * LOOP_GROUP);
}

static int host_setup(const struct bench_env *env, void **state)
{
    struct barrier_loop *s = loop_alloc(env);
    if (s == NULL)
        return -1;
    s->pool = env->pool;
    bench_pool_run(s->pool, host_fill, s);
    *state = s;
    return 0;
}

static int host_run(void *state)
{
    struct barrier_loop *s = state;
    bench_pool_run(s->pool, host_rounds, s);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    loop_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct barrier_loop *s)
{
    if (s->out_buf != NULL)
        clReleaseMemObject(s->out_buf);
    if (s->in_buf != NULL)
        clReleaseMemObject(s->in_buf);
    if (s->kernel != NULL)
        clReleaseKernel(s->kernel);
    if (s->program != NULL)
        clReleaseProgram(s->program);
    loop_free(s);
}

static int cl_setup(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    cl_uint iterations = LOOP_ITERATIONS;
    struct barrier_loop *s = loop_alloc(env);
    if (s == NULL)
        return -1;
    s->queue = env->queue;
    for (size_t i = 0; i < s->n; i++) {
        s->in[i] = input(i);
        s->out[i] = 0xdeadbeefu;
    }
    if (bench_cl_kernel_build(env, source, "barrier_loop", &s->program, &s->kernel) != 0)
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
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 2, sizeof(cl_uint), &iterations);
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
    struct barrier_loop *s = state;
    size_t global = s->n, local = LOOP_GROUP;
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
    struct barrier_loop *s = state;
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
static double loop_rate(const struct bench_env *env, double seconds)
{
    size_t n = env->size_bytes / sizeof(uint32_t) / LOOP_GROUP * LOOP_GROUP;
    return 2.0 * (double)(n * sizeof(uint32_t)) / seconds / 1e9;
}

const struct bench_case bench_case_barrier_loop = {
    .name = "barrier-loop",
    .summary = "8 rounds of a __local neighbour update per group of 256, 2 barriers per round "
               "in a loop; GB/s counting 2 arrays",
    .cl = {cl_setup, cl_run, cl_check, cl_teardown},
    .host = {host_setup, host_run, host_check, host_teardown},
    .rate = loop_rate,
    .rate_unit = "GB/s",
};
