/*
 * Device-side enqueue (OpenCL C 2.0 enqueue_kernel), on drivers whose device reports
 * CL_DEVICE_QUEUE_SUPPORTED (others read "unsupported"):
 *   device-enqueue: a parent of 10,000 work-items, each of which enqueues one child of 64
 *                   work-items, each writing one int, about what one launch of `burst`
 *                   does (case_launch.c), so its rate in k/s sits next to burst's host
 *                   launches (children run at once, so each writes its own 64 ints);
 *   fanout:         a tree of launches: each launch of 1 work-item adds to one slot and,
 *                   above the last level, enqueues two more (16 levels below the root,
 *                   131,071 launches);
 *   fanout-flat:    the same 131,071 work-items' work as one NDRange, the time fanout is
 *                   held against.
 * Each child or tree node leaves a trace the check recomputes.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHILDREN = 10000, CHILD_ITEMS = 64, SLOTS = 1024, LEVELS = 16 };
enum { TREE_NODES = (2 << LEVELS) - 1 };

static const char *source =
    "kernel void parent(global int *slots) {\n"
    "  uint round = (uint)get_global_id(0);\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(64, 64), ^{\n"
    "    size_t i = get_global_id(0);\n"
    "    slots[round * 64 + i] = (int)(round + i) + 1;\n"
    "  });\n"
    "}\n"
    "void node(global int *slots, uint id, int level) {\n"
    "  atomic_add(&slots[id % 1024], 1);\n"
    "  if (level > 0) {\n"
    "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
    "                   ^{ node(slots, 2 * id + 1, level - 1); });\n"
    "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
    "                   ^{ node(slots, 2 * id + 2, level - 1); });\n"
    "  }\n"
    "}\n"
    "kernel void tree(global int *slots, int levels) {\n"
    "  node(slots, 0, levels);\n"
    "}\n"
    "kernel void flat(global int *slots, int levels) {\n"
    "  atomic_add(&slots[(uint)get_global_id(0) % 1024], 1);\n"
    "}\n";

enum kind { KIND_CHILDREN, KIND_TREE, KIND_FLAT };

struct devenq {
    enum kind kind;
    const char *target;
    cl_command_queue queue, device_queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem slots;
    int *host; /* the slots read back: CHILDREN * CHILD_ITEMS, or SLOTS for the trees */
    int *want;
    size_t n;
};

static void devenq_free(struct devenq *s)
{
    if (s->kernel)
        clReleaseKernel(s->kernel);
    if (s->program)
        clReleaseProgram(s->program);
    if (s->slots)
        clReleaseMemObject(s->slots);
    if (s->device_queue)
        clReleaseCommandQueue(s->device_queue);
    free(s->host);
    free(s->want);
    free(s);
}

static int setup(enum kind kind, const struct bench_env *env, void **state)
{
    cl_device_device_enqueue_capabilities caps = 0;
    if (clGetDeviceInfo(env->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(caps), &caps,
                        NULL) != CL_SUCCESS ||
        !(caps & CL_DEVICE_QUEUE_SUPPORTED))
        return 1;
    struct devenq *s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    s->kind = kind;
    s->target = env->target;
    s->queue = env->queue;
    s->n = kind == KIND_CHILDREN ? (size_t)CHILDREN * CHILD_ITEMS : SLOTS;
    s->host = calloc(s->n, sizeof(int));
    s->want = calloc(s->n, sizeof(int));
    if (!s->host || !s->want) {
        devenq_free(s);
        return -1;
    }
    if (kind == KIND_CHILDREN) {
        for (unsigned r = 0; r < CHILDREN; r++)
            for (unsigned i = 0; i < CHILD_ITEMS; i++)
                s->want[r * CHILD_ITEMS + i] = (int)(r + i) + 1;
    } else {
        for (unsigned id = 0; id < TREE_NODES; id++)
            s->want[id % SLOTS]++;
    }
    cl_uint max = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof(max), &max, NULL);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT |
                                       CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                   CL_QUEUE_SIZE, max, 0};
    cl_int err;
    s->device_queue = clCreateCommandQueueWithProperties(env->ctx, env->device, props, &err);
    if (err != CL_SUCCESS) {
        devenq_free(s);
        return bench_cl_fail(env->target, "a default device queue", err);
    }
    static const char *names[] = {"parent", "tree", "flat"};
    if (bench_cl_kernel_build_opts(env, source, "-cl-std=CL2.0", names[kind], &s->program,
                                   &s->kernel) != 0) {
        devenq_free(s);
        return -1;
    }
    s->slots = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, s->n * sizeof(int), NULL, &err);
    int levels = LEVELS;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 0, sizeof(s->slots), &s->slots);
    if (err == CL_SUCCESS && kind != KIND_CHILDREN)
        err = clSetKernelArg(s->kernel, 1, sizeof(levels), &levels);
    if (err != CL_SUCCESS) {
        devenq_free(s);
        return bench_cl_fail(env->target, "buffers and arguments", err);
    }
    *state = s;
    return 0;
}

static int setup_children(const struct bench_env *env, void **state)
{
    return setup(KIND_CHILDREN, env, state);
}

static int setup_tree(const struct bench_env *env, void **state)
{
    return setup(KIND_TREE, env, state);
}

static int setup_flat(const struct bench_env *env, void **state)
{
    return setup(KIND_FLAT, env, state);
}

static int run(void *state)
{
    struct devenq *s = state;
    static const cl_int zero = 0;
    cl_int err = clEnqueueFillBuffer(s->queue, s->slots, &zero, sizeof(zero), 0, s->n * sizeof(int),
                                     0, NULL, NULL);
    size_t global = s->kind == KIND_CHILDREN ? CHILDREN : s->kind == KIND_TREE ? 1 : TREE_NODES;
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(s->queue);
    return err == CL_SUCCESS ? 0 : bench_cl_fail(s->target, "the launch", err);
}

static int check(void *state)
{
    struct devenq *s = state;
    cl_int err = clEnqueueReadBuffer(s->queue, s->slots, CL_TRUE, 0, s->n * sizeof(int), s->host, 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(s->target, "reading the slots", err);
    for (size_t i = 0; i < s->n; i++)
        if (s->host[i] != s->want[i]) {
            fprintf(stderr, "%s: slot %zu is %d, want %d\n", s->target, i, s->host[i], s->want[i]);
            return -1;
        }
    return 0;
}

static void teardown(void *state)
{
    devenq_free(state);
}

static double rate_children(const struct bench_env *env, double seconds)
{
    (void)env;
    return CHILDREN / seconds / 1e3;
}

static double rate_nodes(const struct bench_env *env, double seconds)
{
    (void)env;
    return TREE_NODES / seconds / 1e3;
}

const struct bench_case bench_case_device_enqueue = {
    .name = "device-enqueue",
    .summary = "10,000 child launches of a 64-item kernel from a parent's work-items",
    .cl = {setup_children, run, check, teardown},
    .rate = rate_children,
    .rate_unit = "k/s",
};

const struct bench_case bench_case_fanout = {
    .name = "fanout",
    .summary = "a tree of launches, each enqueueing two more, 16 levels (131,071 launches)",
    .cl = {setup_tree, run, check, teardown},
    .rate = rate_nodes,
    .rate_unit = "k/s",
};

const struct bench_case bench_case_fanout_flat = {
    .name = "fanout-flat",
    .summary = "fanout's 131,071 work-items as one NDRange",
    .cl = {setup_flat, run, check, teardown},
    .rate = rate_nodes,
    .rate_unit = "k/s",
};
