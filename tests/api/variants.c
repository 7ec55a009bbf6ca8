/*
 * Local-size variants (docs/compiler.md): kernels launched again and again with one local
 * size, with and without a global offset, in one and two dimensions, get a work-group
 * function built for that size from the fourth launch on (KILN_VARIANTS). Every launch's
 * result is compared with a C reference, before and after the variant takes over: two
 * kernels with barriers (a loop of barriers over a __local argument, a tree reduction in a
 * kernel-scope __local array) and two without, in a program with non-uniform groups
 * (OpenCL C 2.0: partial last groups, which keep the generic function) and one with uniform
 * groups (OpenCL C 1.2). Two kernel objects of one kernel share its variants. A program-scope
 * variable keeps one copy (its kernel gets no variant), and an application's -kiln- option
 * is refused. Four host threads, each with its own queue and kernel object, launch one kernel
 * of one program together past the fourth launch: one variant is built, and every launch,
 * generic or variant, gives the right result. A program whose kernels are released while their
 * variants are being built builds again at once. tests/api/CMakeLists.txt checks the KILN_DEBUG=cc
 * lines that say which variants were built, and runs this again with variants off, on fibers and
 * without threads.
 */
#include "kiln_test.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "#define ENQUEUED(d) get_enqueued_local_size(d)\n"
    "#else\n"
    "#define ENQUEUED(d) get_local_size(d)\n"
    "#endif\n"
    "size_t index2(void) {\n"
    "  return (get_global_id(1) - get_global_offset(1)) * get_global_size(0) +\n"
    "         get_global_id(0) - get_global_offset(0);\n"
    "}\n"
    "kernel void tile(global int *out, global const int *in, local int *tmp) {\n"
    "  size_t l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
    "  size_t n = get_local_size(0) * get_local_size(1), i = index2();\n"
    "  int acc = in[i];\n"
    "  for (int r = 0; r < 3; r++) {\n"
    "    tmp[l] = acc;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    acc += tmp[(l + 1 + r) % n] * (r + 1);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[i] = acc + (int)(get_global_id(0) * 3 + get_global_id(1) * 5) + (int)ENQUEUED(0);\n"
    "}\n"
    "kernel void sum(global int *out, global const int *in) {\n"
    "  local int part[256];\n"
    "  size_t l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
    "  size_t n = get_local_size(0) * get_local_size(1), i = index2();\n"
    "  part[l] = in[i];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = 1; s < n; s *= 2) {\n"
    "    if (l % (2 * s) == 0 && l + s < n) part[l] += part[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[i] = part[0] + (int)l;\n"
    "}\n"
    "kernel void axpy(global int *out, global const int *in) {\n"
    "  size_t i = index2();\n"
    "  out[i] = in[i] * 3 + (int)(get_global_id(0) * 7 + get_global_id(1) * 11) +\n"
    "           (int)get_local_size(0) * 100 + (int)get_local_id(0);\n"
    "}\n"
    "kernel void scale(global int *out, global const int *in) {\n"
    "  size_t i = index2();\n"
    "  out[i] = in[i] * 2 + (int)get_global_id(0);\n"
    "}\n";

enum kernel { TILE, SUM, AXPY, SCALE, NUM_KERNELS };
static const char *const names[NUM_KERNELS] = {"tile", "sum", "axpy", "scale"};

#define MAX_ITEMS 2048
#define LAUNCHES  6

struct config {
    cl_uint dim;
    size_t global[2], local[2]; /* local[0] == 0: the runtime chooses */
    size_t offset[2];
};

/*
 * The launches, in order. Variants are kept for four pairs per kernel, so the first four
 * full-group pairs of a kernel get one (16x4 with a zero offset, 16x1 and 8x5 with offsets,
 * 64x1 with none: the ctest entry looks for them); the later ones run the generic function,
 * and so do the partial groups (second and third), which must take no place in the table.
 */
static const struct config configs[] = {
    {2, {48, 20}, {16, 4}, {0, 0}}, {1, {250, 1}, {16, 1}, {0, 0}}, {2, {48, 20}, {16, 3}, {5, 3}},
    {1, {256, 1}, {16, 1}, {5, 0}}, {2, {48, 20}, {8, 5}, {7, 3}},  {1, {256, 1}, {64, 1}, {0, 0}},
    {1, {256, 1}, {16, 1}, {0, 0}}, {2, {48, 20}, {16, 4}, {1, 2}}, {1, {256, 1}, {0, 0}, {0, 0}},
    {1, {100, 1}, {1, 1}, {3, 0}},
};

/* The expected output of kernel `k` for one launch (full and partial groups alike). */
static void reference(enum kernel k, const struct config *c, const int *in, int *want)
{
    size_t w = c->global[0], h = c->dim > 1 ? c->global[1] : 1;
    size_t lx = c->local[0], ly = c->dim > 1 ? c->local[1] : 1;
    for (size_t gy = 0; gy < h; gy += ly) {
        for (size_t gx = 0; gx < w; gx += lx) {
            size_t sx = w - gx < lx ? w - gx : lx, sy = h - gy < ly ? h - gy : ly;
            size_t n = sx * sy;
            int acc[256], tmp[256], total = 0;
            for (size_t l = 0; l < n; l++) {
                acc[l] = in[(gy + l / sx) * w + gx + l % sx];
                total += acc[l];
            }
            for (int r = 0; r < 3; r++) {
                memcpy(tmp, acc, n * sizeof(int));
                for (size_t l = 0; l < n; l++)
                    acc[l] += tmp[(l + 1 + (size_t)r) % n] * (r + 1);
            }
            for (size_t l = 0; l < n; l++) {
                size_t x = gx + l % sx, y = gy + l / sx, i = y * w + x;
                int ix = (int)(x + c->offset[0]), iy = (int)(y + c->offset[1]);
                switch (k) {
                case TILE:
                    want[i] = acc[l] + ix * 3 + iy * 5 + (int)lx;
                    break;
                case SUM:
                    want[i] = total + (int)l;
                    break;
                case AXPY:
                    want[i] = in[i] * 3 + ix * 7 + iy * 11 + (int)sx * 100 + (int)(l % sx);
                    break;
                default:
                    want[i] = in[i] * 2 + ix;
                    break;
                }
            }
        }
    }
}

/* Runs kernel k under configuration c LAUNCHES times, alternating between two kernel
 * objects, and checks every launch's output. */
static void run_config(struct kt_env *env, cl_kernel *kernels, enum kernel k,
                       const struct config *c, bool uniform, cl_mem out, cl_mem in,
                       const int *host_in)
{
    size_t items = c->global[0] * (c->dim > 1 ? c->global[1] : 1);
    bool partial =
        c->local[0] && (c->global[0] % c->local[0] || (c->dim > 1 && c->global[1] % c->local[1]));
    /* Partial groups are invalid with uniform groups; a chosen size only for `scale`, whose
     * results do not depend on it. */
    if ((uniform && partial) || (!c->local[0] && k != SCALE))
        return;
    static int want[MAX_ITEMS], got[MAX_ITEMS];
    struct config ref = *c;
    if (!ref.local[0])
        ref.local[0] = ref.global[0]; /* any: scale ignores the groups */
    reference(k, &ref, host_in, want);
    for (int launch = 0; launch < LAUNCHES; launch++) {
        cl_kernel kern = kernels[launch % 2];
        int poison = -12345;
        KT_REQUIRE_OK(clEnqueueFillBuffer(env->queue, out, &poison, sizeof(poison), 0,
                                          MAX_ITEMS * sizeof(int), 0, NULL, NULL));
        KT_REQUIRE_OK(clSetKernelArg(kern, 0, sizeof(cl_mem), &out));
        KT_REQUIRE_OK(clSetKernelArg(kern, 1, sizeof(cl_mem), &in));
        if (k == TILE)
            KT_REQUIRE_OK(clSetKernelArg(kern, 2, 256 * sizeof(int), NULL));
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, c->dim, c->offset, c->global,
                                         c->local[0] ? c->local : NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, items * sizeof(int), got, 0,
                                          NULL, NULL));
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < items; i++)
            if (got[i] != want[i] && bad++ == 0)
                first = i;
        KT_CHECK(bad == 0,
                 "%s (%s), %uD %zux%zu in %zux%zu, offset %zu,%zu, launch %d: %zu wrong, "
                 "[%zu] = %d, want %d",
                 names[k], uniform ? "CL1.2" : "CL2.0", c->dim, c->local[0], c->local[1],
                 c->global[0], c->global[1], c->offset[0], c->offset[1], launch + 1, bad, first,
                 bad ? got[first] : 0, bad ? want[first] : 0);
    }
}

static void run_program(struct kt_env *env, const char *options, bool uniform, cl_mem out,
                        cl_mem in, const int *host_in)
{
    cl_program p = kt_build(env, src, options);
    for (int k = 0; k < NUM_KERNELS; k++) {
        cl_int err;
        cl_kernel kernels[2];
        for (int j = 0; j < 2; j++) {
            kernels[j] = clCreateKernel(p, names[k], &err);
            KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel(%s): %d", names[k], err);
        }
        for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++)
            run_config(env, kernels, (enum kernel)k, &configs[c], uniform, out, in, host_in);
        for (int j = 0; j < 2; j++)
            KT_EXPECT(clReleaseKernel(kernels[j]), CL_SUCCESS);
    }
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

/*
 * A program-scope variable exists once: had the fifth launch a variant of its own (a second
 * copy of `counter`), it would read 0 again.
 */
static void program_scope_variable(struct kt_env *env, cl_mem out)
{
    static const char *counter_src =
        "global int counter;\n"
        "kernel void bump(global int *out) { if (get_global_id(0) == 0) out[0] = counter++; }\n";
    cl_program p = kt_build(env, counter_src, "-cl-std=CL2.0");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "bump", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel(bump): %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &out));
    size_t global = 16, local = 16;
    for (int launch = 0; launch < 8; launch++) {
        int got = -1;
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_REQUIRE_OK(
            clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
        KT_CHECK(got == launch, "launch %d read counter %d", launch + 1, got);
    }
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

enum { RACERS = 4, RACE_LAUNCHES = 8, RACE_ITEMS = MAX_ITEMS, RACE_LOCAL = 32 };

struct racer {
    struct kt_env *env;
    cl_program program;
    cl_mem in;
    const int *host_in;
    pthread_barrier_t *start;
    int wrong; /* launches with a wrong result, or a failed call */
};

static void *race(void *arg)
{
    struct racer *r = arg;
    cl_int err;
    cl_command_queue q =
        clCreateCommandQueueWithProperties(r->env->context, r->env->device, NULL, &err);
    cl_kernel k = err == CL_SUCCESS ? clCreateKernel(r->program, "race", &err) : NULL;
    cl_mem out = err == CL_SUCCESS ? clCreateBuffer(r->env->context, CL_MEM_WRITE_ONLY,
                                                    RACE_ITEMS * sizeof(int), NULL, &err)
                                   : NULL;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof(cl_mem), &r->in);
    pthread_barrier_wait(r->start);
    int *res = malloc(RACE_ITEMS * sizeof(int));
    size_t global = RACE_ITEMS, local = RACE_LOCAL;
    for (int launch = 0; launch < RACE_LAUNCHES && err == CL_SUCCESS && res; launch++) {
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, RACE_ITEMS * sizeof(int), res, 0, NULL,
                                      NULL);
        for (int i = 0; i < RACE_ITEMS && err == CL_SUCCESS; i++)
            if (res[i] != r->host_in[i] * 7 + RACE_LOCAL) {
                r->wrong++;
                break;
            }
    }
    if (err != CL_SUCCESS || !res)
        r->wrong++;
    free(res);
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    if (q)
        clReleaseCommandQueue(q);
    return NULL;
}

/* Host threads racing to the fourth launch of one kernel: see the comment at the top. */
static void racing_threads(struct kt_env *env, cl_mem in, const int *host_in)
{
    static const char *race_src = "kernel void race(global int *out, global const int *in) {\n"
                                  "  size_t i = get_global_id(0);\n"
                                  "  out[i] = in[i] * 7 + (int)get_local_size(0);\n"
                                  "}\n";
    cl_program p = kt_build(env, race_src, NULL);
    pthread_barrier_t start;
    KT_REQUIRE(pthread_barrier_init(&start, NULL, RACERS) == 0, "pthread_barrier_init");
    struct racer racers[RACERS];
    pthread_t threads[RACERS];
    for (int t = 0; t < RACERS; t++) {
        racers[t] = (struct racer){env, p, in, host_in, &start, 0};
        KT_REQUIRE(pthread_create(&threads[t], NULL, race, &racers[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < RACERS; t++) {
        pthread_join(threads[t], NULL);
        KT_CHECK(racers[t].wrong == 0, "racing thread %d: %d launches wrong or failed", t,
                 racers[t].wrong);
    }
    pthread_barrier_destroy(&start);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

/*
 * A program whose kernels were released while their variants wait to be built, or are being
 * built, in the background builds again at once (no kernel object is attached), and the new
 * executable's launches are right. The builder must give those jobs up first: they belong to
 * the old executable's table (under AddressSanitizer a late write into it is caught).
 */
static void rebuild_while_building(struct kt_env *env, cl_mem out, cl_mem in, const int *host_in)
{
    static const struct config c = {1, {256, 1}, {16, 1}, {0, 0}};
    cl_program p = kt_build(env, src, "-cl-std=CL2.0");
    for (int round = 0; round < 2; round++) {
        cl_kernel kernels[NUM_KERNELS][2];
        for (int k = 0; k < NUM_KERNELS; k++)
            for (int j = 0; j < 2; j++) {
                cl_int err;
                kernels[k][j] = clCreateKernel(p, names[k], &err);
                KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel(%s): %d", names[k], err);
            }
        /* Every kernel reaches the count: four variants queued one after another. */
        for (int k = 0; k < NUM_KERNELS; k++)
            run_config(env, kernels[k], (enum kernel)k, &c, false, out, in, host_in);
        for (int k = 0; k < NUM_KERNELS; k++)
            for (int j = 0; j < 2; j++)
                KT_EXPECT(clReleaseKernel(kernels[k][j]), CL_SUCCESS);
        KT_EXPECT(clBuildProgram(p, 1, &env->device, round ? "-cl-std=CL2.0" : "-cl-std=CL2.0 -DR",
                                 NULL, NULL),
                  CL_SUCCESS);
    }
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

/* -kiln- options are the runtime's own: an application's are refused. */
static void private_options(struct kt_env *env)
{
    static const char *const refused[] = {
        "-kiln-variant=axpy:16,1,1:1",
        "-cl-std=CL2.0 -kiln-variant=axpy:16,1,1:0",
        "-DX=1 \"-kiln-variant=axpy:16,1,1:0\"",
        "-kiln-anything",
    };
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        KT_EXPECT(clBuildProgram(p, 1, &env->device, refused[i], NULL, NULL),
                  CL_INVALID_BUILD_OPTIONS);
        KT_EXPECT(clCompileProgram(p, 1, &env->device, refused[i], 0, NULL, NULL, NULL, NULL),
                  CL_INVALID_COMPILER_OPTIONS);
    }
    /* Only an option that starts with it: a define's value may hold it. */
    KT_EXPECT(clBuildProgram(p, 1, &env->device, "-DNAME=-kiln-variant", NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    static int host_in[MAX_ITEMS];
    uint32_t seed = 12345;
    for (size_t i = 0; i < MAX_ITEMS; i++) {
        seed = seed * 1103515245u + 12345u;
        host_in[i] = (int)((seed >> 16) % 1000) - 500;
    }
    cl_int err;
    cl_mem in = clCreateBuffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof(host_in), host_in, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem out = clCreateBuffer(env.context, CL_MEM_READ_WRITE, sizeof(host_in), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);

    run_program(&env, "-cl-std=CL2.0", false, out, in, host_in);
    run_program(&env, NULL, true, out, in, host_in);
    program_scope_variable(&env, out);
    private_options(&env);
    rebuild_while_building(&env, out, in, host_in);
    racing_threads(&env, in, host_in);

    KT_EXPECT(clReleaseMemObject(in), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(out), CL_SUCCESS);
    kt_teardown(&env);
    if (kt_failures)
        fprintf(stderr, "%d checks failed\n", kt_failures);
    return kt_failures ? 1 : 0;
}
