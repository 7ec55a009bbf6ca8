/* kiln-bench's pipe cases: --size-mib of packets go from an input array through a pipe into an
 * output array, a producer kernel on one in-order queue and a consumer kernel on a second.
 *   pipe4, pipe64:   4-byte (uint) and 64-byte (uint16) packets, one work-group reservation per
 *                    group (work_group_reserve_*_pipe, read_pipe/write_pipe with the id, commit);
 *   pipe4-item:      4-byte packets, read_pipe/write_pipe without a reservation.
 * The packets stream through in 16 chunks, through a pipe of two chunks: producer k waits for
 * consumer k - 2 and consumer k for producer k, so a producer and a consumer run at once.
 * The rate counts two arrays (the input read, the output written), as the copy case does, so
 * it compares with copy's figures; packets per second are that rate / (2 * packet size). The
 * C row is the same copy with memcpy on the pool: the machine's plain-C copy bandwidth.
 * Consumers take whatever reservation comes next, so the output is a permutation of the input
 * (in whole groups for the reservation cases): the check finds every packet exactly once,
 * intact. */
#include "bench.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNKS = 16 };

static const char *source =
    "#define PIPES(T) \\\n"
    "kernel void wprod_##T(global const T *in, write_only pipe T p) { \\\n"
    "  reserve_id_t r = work_group_reserve_write_pipe(p, (uint)get_local_size(0)); \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    write_pipe(p, r, (uint)get_local_id(0), &in[get_global_id(0)]); \\\n"
    "    work_group_commit_write_pipe(p, r); } } \\\n"
    "kernel void wcons_##T(read_only pipe T p, global T *out) { \\\n"
    "  reserve_id_t r = work_group_reserve_read_pipe(p, (uint)get_local_size(0)); \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    read_pipe(p, r, (uint)get_local_id(0), &out[get_global_id(0)]); \\\n"
    "    work_group_commit_read_pipe(p, r); } } \\\n"
    "kernel void iprod_##T(global const T *in, write_only pipe T p) { \\\n"
    "  write_pipe(p, &in[get_global_id(0)]); } \\\n"
    "kernel void icons_##T(read_only pipe T p, global T *out) { \\\n"
    "  read_pipe(p, &out[get_global_id(0)]); }\n"
    "PIPES(uint)\n"
    "PIPES(uint16)\n";

struct pipe_bench {
    const char *target;
    size_t psize; /* bytes per packet: 4 or 64 */
    size_t n;     /* packets, a multiple of CHUNKS */
    unsigned *in, *out;
    struct bench_pool *pool; /* C row */
    cl_command_queue q1, q2; /* q1 borrowed from the env, q2 ours */
    cl_program program;
    cl_kernel prod, cons;
    cl_mem in_buf, out_buf, pipe;
};

/* Word w of packet i: the packet's number, then a pattern. */
static unsigned word(size_t i, size_t w)
{
    return w == 0 ? (unsigned)i : (unsigned)(i * 2654435761u + w);
}

static void pipe_free(struct pipe_bench *b)
{
    free(b->in);
    free(b->out);
    free(b);
}

static struct pipe_bench *pipe_alloc(const struct bench_env *env, size_t psize)
{
    struct pipe_bench *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->target = env->target;
    b->psize = psize;
    b->n = env->size_bytes / psize / CHUNKS * CHUNKS;
    b->in = malloc(b->n * psize);
    b->out = malloc(b->n * psize);
    if (b->n == 0 || b->in == NULL || b->out == NULL) {
        fprintf(stderr, "%s: no room for %zu packets of %zu bytes\n", env->target, b->n, psize);
        pipe_free(b);
        return NULL;
    }
    size_t words = psize / sizeof(unsigned);
    for (size_t i = 0; i < b->n; i++)
        for (size_t w = 0; w < words; w++)
            b->in[i * words + w] = word(i, w);
    memset(b->out, 0xff, b->n * psize);
    return b;
}

/* Every input packet exactly once in the output, intact. */
static int check_output(struct pipe_bench *b)
{
    size_t words = b->psize / sizeof(unsigned);
    unsigned char *seen = calloc(b->n, 1);
    if (seen == NULL)
        return -1;
    int status = 0;
    for (size_t k = 0; k < b->n && status == 0; k++) {
        const unsigned *p = b->out + k * words;
        size_t i = p[0];
        if (i >= b->n || seen[i]) {
            fprintf(stderr, "%s: pipe: output packet %zu is %s packet %zu\n", b->target, k,
                    i >= b->n ? "no" : "again", i);
            status = -1;
            break;
        }
        seen[i] = 1;
        for (size_t w = 1; w < words; w++)
            if (p[w] != word(i, w)) {
                fprintf(stderr, "%s: pipe: packet %zu word %zu is %u, expected %u\n", b->target, i,
                        w, p[w], word(i, w));
                status = -1;
                break;
            }
    }
    free(seen);
    return status;
}

/* ---- host version: the plain-C copy of the same bytes ---- */

static void host_copy(void *arg, unsigned t, unsigned count)
{
    struct pipe_bench *b = arg;
    size_t bytes = b->n * b->psize;
    size_t begin = bytes * t / count / 64 * 64,
           end = t + 1 == count ? bytes : bytes * (t + 1) / count / 64 * 64;
    memcpy((char *)b->out + begin, (const char *)b->in + begin, end - begin);
}

static int host_setup(size_t psize, const struct bench_env *env, void **state)
{
    struct pipe_bench *b = pipe_alloc(env, psize);
    if (b == NULL)
        return -1;
    b->pool = env->pool;
    *state = b;
    return 0;
}

static int host_setup4(const struct bench_env *env, void **state)
{
    return host_setup(4, env, state);
}

static int host_setup64(const struct bench_env *env, void **state)
{
    return host_setup(64, env, state);
}

static int host_run(void *state)
{
    struct pipe_bench *b = state;
    bench_pool_run(b->pool, host_copy, b);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    pipe_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct pipe_bench *b)
{
    if (b->pipe != NULL)
        clReleaseMemObject(b->pipe);
    if (b->out_buf != NULL)
        clReleaseMemObject(b->out_buf);
    if (b->in_buf != NULL)
        clReleaseMemObject(b->in_buf);
    if (b->cons != NULL)
        clReleaseKernel(b->cons);
    if (b->prod != NULL)
        clReleaseKernel(b->prod);
    if (b->program != NULL)
        clReleaseProgram(b->program);
    if (b->q2 != NULL)
        clReleaseCommandQueue(b->q2);
    pipe_free(b);
}

static int cl_setup(size_t psize, bool group, const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    cl_bool pipes = CL_FALSE;
    if (clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL) !=
            CL_SUCCESS ||
        !pipes) {
        fprintf(stderr, "%s: the device does not support pipes\n", env->target);
        return 1;
    }
    struct pipe_bench *b = pipe_alloc(env, psize);
    if (b == NULL)
        return -1;
    b->q1 = env->queue;
    b->q2 = clCreateCommandQueueWithProperties(env->ctx, env->device, NULL, &err);
    if (err != CL_SUCCESS) {
        b->q2 = NULL;
        bench_cl_fail(env->target, "clCreateCommandQueueWithProperties", err);
        goto out_release;
    }
    const char *type = psize == 4 ? "uint" : "uint16";
    char pname[32], cname[32];
    snprintf(pname, sizeof(pname), "%sprod_%s", group ? "w" : "i", type);
    snprintf(cname, sizeof(cname), "%scons_%s", group ? "w" : "i", type);
    if (bench_cl_kernel_build_opts(env, source, "-cl-std=CL3.0", pname, &b->program, &b->prod) != 0)
        goto out_release;
    b->cons = clCreateKernel(b->program, cname, &err);
    if (err != CL_SUCCESS) {
        b->cons = NULL;
        bench_cl_fail(env->target, "clCreateKernel", err);
        goto out_release;
    }
    b->in_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b->n * psize,
                               b->in, &err);
    if (err == CL_SUCCESS)
        b->out_buf = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, b->n * psize, NULL, &err);
    if (err == CL_SUCCESS)
        b->pipe =
            clCreatePipe(env->ctx, 0, (cl_uint)psize, (cl_uint)(2 * b->n / CHUNKS), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer/clCreatePipe", err);
        goto out_release;
    }
    err = clSetKernelArg(b->prod, 0, sizeof(cl_mem), &b->in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->prod, 1, sizeof(cl_mem), &b->pipe);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->cons, 0, sizeof(cl_mem), &b->pipe);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->cons, 1, sizeof(cl_mem), &b->out_buf);
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

static int cl_setup4(const struct bench_env *env, void **state)
{
    return cl_setup(4, true, env, state);
}

static int cl_setup64(const struct bench_env *env, void **state)
{
    return cl_setup(64, true, env, state);
}

static int cl_setup4_item(const struct bench_env *env, void **state)
{
    return cl_setup(4, false, env, state);
}

static int cl_run(void *state)
{
    struct pipe_bench *b = state;
    cl_event prod[CHUNKS], cons[CHUNKS];
    size_t m = b->n / CHUNKS;
    cl_int err = CL_SUCCESS;
    int made = 0;
    for (; made < CHUNKS && err == CL_SUCCESS; made++) {
        size_t off = (size_t)made * m;
        err = clEnqueueNDRangeKernel(b->q1, b->prod, 1, &off, &m, NULL, made >= 2 ? 1 : 0,
                                     made >= 2 ? &cons[made - 2] : NULL, &prod[made]);
        if (err != CL_SUCCESS)
            break;
        err =
            clEnqueueNDRangeKernel(b->q2, b->cons, 1, &off, &m, NULL, 1, &prod[made], &cons[made]);
        if (err != CL_SUCCESS) {
            clReleaseEvent(prod[made]);
            break;
        }
    }
    cl_int fin = clFinish(b->q1);
    if (fin == CL_SUCCESS)
        fin = clFinish(b->q2);
    for (int c = 0; c < made; c++) {
        clReleaseEvent(prod[c]);
        clReleaseEvent(cons[c]);
    }
    if (err != CL_SUCCESS)
        return bench_cl_fail(b->target, "clEnqueueNDRangeKernel", err);
    if (fin != CL_SUCCESS)
        return bench_cl_fail(b->target, "clFinish", fin);
    return 0;
}

static int cl_check(void *state)
{
    struct pipe_bench *b = state;
    cl_int err =
        clEnqueueReadBuffer(b->q1, b->out_buf, CL_TRUE, 0, b->n * b->psize, b->out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(b->target, "clEnqueueReadBuffer", err);
    return check_output(b);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double pipe_rate(const struct bench_env *env, double seconds)
{
    return 2.0 * (double)env->size_bytes / seconds / 1e9;
}

const struct bench_case bench_case_pipe4 = {
    .name = "pipe4",
    .summary = "4-byte packets through a pipe, work-group reservations, two queues; GB/s as copy",
    .cl = {cl_setup4, cl_run, cl_check, cl_teardown},
    .host = {host_setup4, host_run, host_check, host_teardown},
    .rate = pipe_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_pipe64 = {
    .name = "pipe64",
    .summary = "64-byte packets through a pipe, work-group reservations, two queues; GB/s as copy",
    .cl = {cl_setup64, cl_run, cl_check, cl_teardown},
    .host = {host_setup64, host_run, host_check, host_teardown},
    .rate = pipe_rate,
    .rate_unit = "GB/s",
};

const struct bench_case bench_case_pipe4_item = {
    .name = "pipe4-item",
    .summary = "4-byte packets, read_pipe/write_pipe without reservations, two queues; GB/s",
    .cl = {cl_setup4_item, cl_run, cl_check, cl_teardown},
    .host = {host_setup4, host_run, host_check, host_teardown},
    .rate = pipe_rate,
    .rate_unit = "GB/s",
};
