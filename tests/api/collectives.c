/*
 * Work-group collectives: work_group_all, work_group_any, work_group_broadcast,
 * work_group_reduce_<op>, work_group_scan_inclusive_<op> and
 * work_group_scan_exclusive_<op> (op add, min, max) for int, uint, long, ulong,
 * float and double, at local sizes 1, 3, 7, 37, 64, 100, 256, 1000 and 4096 and
 * with partial last groups (the vectors of 16 slots the leader combines, their
 * remainder, and both together), each called several times in a loop; for half
 * (where cl_khr_fp16 is reported) at local sizes up to 37, where every sum is
 * exact in half; broadcast also with 2D and 3D local ids; a
 * kernel using all 64 KiB of __local memory finds it unchanged after them. Every
 * result is checked against the host. Floating-point inputs are small integers,
 * so every order of addition gives the same sum. The device must report the
 * __opencl_c_work_group_collective_functions feature, and kernels must build at
 * -cl-std=CL2.0 as well as CL3.0.
 */
#include "kiln_test.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NOPS 12
#define REPS 3

/* One kernel per type: every collective, REPS times, into out[(gid * REPS + r) * NOPS + op].
 * The values travel as S (float for half, which the host has no type for). */
static const char *src =
    "#define COLL(T, S) \\\n"
    "kernel void coll_##T(global const S *in, global S *out) { \\\n"
    "  size_t g = get_global_id(0), n = get_local_size(0); \\\n"
    "  global S *o = out + g * 3 * 12; \\\n"
    "  for (int r = 0; r < 3; r++, o += 12) { \\\n"
    "    T x = (T)in[g] + (T)r; \\\n"
    "    o[0] = (S)work_group_reduce_add(x); \\\n"
    "    o[1] = (S)work_group_reduce_min(x); \\\n"
    "    o[2] = (S)work_group_reduce_max(x); \\\n"
    "    o[3] = (S)work_group_scan_inclusive_add(x); \\\n"
    "    o[4] = (S)work_group_scan_inclusive_min(x); \\\n"
    "    o[5] = (S)work_group_scan_inclusive_max(x); \\\n"
    "    o[6] = (S)work_group_scan_exclusive_add(x); \\\n"
    "    o[7] = (S)work_group_scan_exclusive_min(x); \\\n"
    "    o[8] = (S)work_group_scan_exclusive_max(x); \\\n"
    "    o[9] = (S)work_group_broadcast(x, (size_t)(r * 5 + 2) % n); \\\n"
    "    o[10] = (S)work_group_all(x > (T)(r * 10 + 2)); \\\n"
    "    o[11] = (S)work_group_any(x == (T)(r + 30)); \\\n"
    "  } \\\n"
    "}\n"
    "COLL(int, int)\nCOLL(uint, uint)\nCOLL(long, long)\nCOLL(ulong, ulong)\n"
    "COLL(float, float)\n"
    "#ifdef cl_khr_fp64\nCOLL(double, double)\n#endif\n"
    "#ifdef cl_khr_fp16\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "COLL(half, float)\n#endif\n"
    /* Broadcast from a 2D and a 3D local id, one value per group. */
    "kernel void bcast2(global const int *in, global float *out) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  out[g] = work_group_broadcast((float)in[g], 1, 2);\n"
    "}\n"
    /* The user's whole 64 KiB of __local memory survives collectives in a loop. */
    "kernel void keep(global int *out, local int *big, uint words) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  for (size_t i = l; i < words; i += n) big[i] = (int)(i * 3 + 1);\n"
    "  int sum = 0;\n"
    "  for (int r = 0; r < 4; r++) sum += work_group_scan_inclusive_add((int)l + r);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int bad = 0;\n"
    "  for (size_t i = l; i < words; i += n) bad += big[i] != (int)(i * 3 + 1);\n"
    "  out[get_global_id(0) * 2] = bad;\n"
    "  out[get_global_id(0) * 2 + 1] = sum;\n"
    "}\n"
    "kernel void bcast3(global const int *in, global long *out) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  out[g] = work_group_broadcast((long)in[g], 1, 2, 3);\n"
    "}\n";

enum kind { K_INT, K_UINT, K_LONG, K_ULONG, K_FLOAT, K_DOUBLE, K_HALF };

static const struct {
    const char *kernel;
    size_t size;
} kinds[] = {{"coll_int", 4},   {"coll_uint", 4},   {"coll_long", 8}, {"coll_ulong", 8},
             {"coll_float", 4}, {"coll_double", 8}, {"coll_half", 4}};

static long double get(const void *p, size_t i, enum kind k)
{
    switch (k) {
    case K_INT:
        return ((const cl_int *)p)[i];
    case K_UINT:
        return ((const cl_uint *)p)[i];
    case K_LONG:
        return ((const cl_long *)p)[i];
    case K_ULONG:
        return ((const cl_ulong *)p)[i];
    case K_FLOAT:
    case K_HALF:
        return ((const cl_float *)p)[i];
    default:
        return ((const cl_double *)p)[i];
    }
}

static void put(void *p, size_t i, enum kind k, long v)
{
    switch (k) {
    case K_INT:
        ((cl_int *)p)[i] = (cl_int)v;
        break;
    case K_UINT:
        ((cl_uint *)p)[i] = (cl_uint)v;
        break;
    case K_LONG:
        ((cl_long *)p)[i] = v;
        break;
    case K_ULONG:
        ((cl_ulong *)p)[i] = (cl_ulong)v;
        break;
    case K_FLOAT:
    case K_HALF:
        ((cl_float *)p)[i] = (cl_float)v;
        break;
    default:
        ((cl_double *)p)[i] = (cl_double)v;
    }
}

/* The exclusive scans' first values: the type's max for min, its min for max. */
static long double min_identity(enum kind k)
{
    /* Each branch converted on its own: a float branch would round LLONG_MAX. */
    if (k == K_ULONG)
        return (long double)ULLONG_MAX;
    if (k == K_INT || k == K_UINT || k == K_LONG)
        return k == K_INT    ? (long double)INT_MAX
               : k == K_UINT ? (long double)UINT_MAX
                             : (long double)LLONG_MAX;
    return (long double)INFINITY;
}

static long double max_identity(enum kind k)
{
    if (k == K_UINT || k == K_ULONG)
        return 0.0L;
    if (k == K_INT || k == K_LONG)
        return k == K_INT ? (long double)INT_MIN : (long double)LLONG_MIN;
    return -(long double)INFINITY;
}

static void collectives(struct kt_env *env, cl_program p, enum kind k, size_t global, size_t local)
{
    cl_int err;
    cl_kernel kern = clCreateKernel(p, kinds[k].kernel, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", kinds[k].kernel, err);
    size_t es = kinds[k].size, outn = global * REPS * NOPS;
    void *in = malloc(global * es), *out = malloc(outn * es);
    long *v = malloc(global * sizeof(long));
    KT_REQUIRE(in && out && v, "out of memory");
    for (size_t i = 0; i < global; i++) {
        /* Small values, negative ones for the signed types; 30 + r appears now and then. */
        v[i] = (long)((i * 37 + 11) % 97);
        if (k != K_UINT && k != K_ULONG)
            v[i] -= 48;
        put(in, i, k, v[i]);
    }
    cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, global * es,
                              in, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, outn * es, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(kern, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kern, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, outn * es, out, 0, NULL, NULL),
              CL_SUCCESS);
    static const char *const names[NOPS] = {"reduce_add",
                                            "reduce_min",
                                            "reduce_max",
                                            "scan_inclusive_add",
                                            "scan_inclusive_min",
                                            "scan_inclusive_max",
                                            "scan_exclusive_add",
                                            "scan_exclusive_min",
                                            "scan_exclusive_max",
                                            "broadcast",
                                            "all",
                                            "any"};
    size_t bad = 0;
    for (size_t base = 0; base < global; base += local) {
        size_t n = global - base < local ? global - base : local;
        for (long r = 0; r < REPS; r++) {
            long sum = 0, mn = LONG_MAX, mx = LONG_MIN, all = 1, any = 0;
            for (size_t j = 0; j < n; j++) {
                long x = v[base + j] + r;
                sum += x;
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
                all &= x > r * 10 + 2;
                any |= x == r + 30;
            }
            long bc = v[base + (size_t)(r * 5 + 2) % n] + r;
            long isum = 0, imn = LONG_MAX, imx = LONG_MIN;
            for (size_t j = 0; j < n; j++) {
                long x = v[base + j] + r;
                long double want[NOPS] = {sum,
                                          mn,
                                          mx,
                                          0,
                                          0,
                                          0,
                                          isum,
                                          j ? imn : min_identity(k),
                                          j ? imx : max_identity(k),
                                          bc,
                                          0,
                                          0};
                isum += x;
                imn = x < imn ? x : imn;
                imx = x > imx ? x : imx;
                want[3] = isum;
                want[4] = imn;
                want[5] = imx;
                size_t at = ((base + j) * REPS + (size_t)r) * NOPS;
                for (int op = 0; op < NOPS; op++) {
                    long double got = get(out, at + (size_t)op, k);
                    bool ok = op == 10   ? (got != 0) == (all != 0)
                              : op == 11 ? (got != 0) == (any != 0)
                                         : got == want[op];
                    if (!ok && bad++ < 5)
                        KT_CHECK(0, "%s local %zu: item %zu rep %ld %s = %Lg, want %Lg",
                                 kinds[k].kernel, local, base + j, r, names[op], got,
                                 op == 10   ? (long double)all
                                 : op == 11 ? any
                                            : want[op]);
                }
            }
        }
    }
    KT_CHECK(bad == 0, "%s global %zu local %zu: %zu wrong", kinds[k].kernel, global, local, bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(kern);
    free(in);
    free(out);
    free(v);
}

/* Broadcast with a 2D (kernel bcast2) or 3D (bcast3) local id; out is float or long. */
static void broadcast_nd(struct kt_env *env, cl_program p, cl_uint dims, const size_t *global,
                         const size_t *local)
{
    cl_int err;
    cl_kernel kern = clCreateKernel(p, dims == 2 ? "bcast2" : "bcast3", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel bcast%u: %d", dims, err);
    size_t total = 1;
    for (cl_uint d = 0; d < dims; d++)
        total *= global[d];
    int *in = malloc(total * sizeof(int));
    long long *out = malloc(total * 8);
    KT_REQUIRE(in && out, "out of memory");
    for (size_t i = 0; i < total; i++)
        in[i] = (int)(i * 13 % 1000);
    cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              total * sizeof(int), in, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, total * 8, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(kern, 0, sizeof(cl_mem), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kern, 1, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, dims, NULL, global, local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, total * (dims == 2 ? 4 : 8), out, 0,
                                  NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    size_t gz = dims == 3 ? global[2] : 1;
    for (size_t z = 0; z < gz; z++) {
        for (size_t y = 0; y < global[1]; y++) {
            for (size_t x = 0; x < global[0]; x++) {
                size_t i = x + global[0] * (y + global[1] * z);
                /* The work-item at local id (1, 2[, 3]) of this work-item's group. */
                size_t sx = x / local[0] * local[0] + 1, sy = y / local[1] * local[1] + 2;
                size_t sz = dims == 3 ? z / local[2] * local[2] + 3 : 0;
                long long want = in[sx + global[0] * (sy + global[1] * sz)];
                long long got = dims == 2 ? (long long)((float *)out)[i] : out[i];
                if (got != want && bad++ < 3)
                    KT_CHECK(0, "bcast%u: item (%zu,%zu,%zu) = %lld, want %lld", dims, x, y, z, got,
                             want);
            }
        }
    }
    KT_CHECK(bad == 0, "bcast%u: %zu wrong", dims, bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(kern);
    free(in);
    free(out);
}

/* Collectives leave every byte of the user's __local memory alone. */
static void keep_local(struct kt_env *env, cl_program p, size_t local)
{
    cl_int err;
    cl_ulong lmem = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(lmem), &lmem, NULL),
              CL_SUCCESS);
    cl_kernel kern = clCreateKernel(p, "keep", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel keep: %d", err);
    size_t global = local * 2;
    cl_uint words = (cl_uint)(lmem / sizeof(cl_int));
    cl_int *out = malloc(global * 2 * sizeof(cl_int));
    KT_REQUIRE(out, "out of memory");
    cl_mem b =
        clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, global * 2 * sizeof(cl_int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(kern, 0, sizeof(cl_mem), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kern, 1, (size_t)lmem, NULL), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kern, 2, sizeof(words), &words), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kern, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, global * 2 * sizeof(cl_int), out, 0,
                                  NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (size_t i = 0; i < global; i++) {
        long l = (long)(i % local), want = 0;
        for (long r = 0; r < 4; r++)
            want += (l + 1) * r + l * (l + 1) / 2;
        if ((out[2 * i] != 0 || out[2 * i + 1] != want) && bad++ < 3)
            KT_CHECK(0, "keep local %zu: item %zu: %d __local words changed, sum %d, want %ld",
                     local, i, out[2 * i], out[2 * i + 1], want);
    }
    KT_CHECK(bad == 0, "keep local %zu: %zu wrong", local, bad);
    clReleaseMemObject(b);
    clReleaseKernel(kern);
    free(out);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);

    /* The device reports the feature, and only then is it tested. */
    size_t bytes = 0;
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes),
              CL_SUCCESS);
    cl_name_version *f = malloc(bytes);
    KT_REQUIRE(f, "out of memory");
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_FEATURES, bytes, f, NULL), CL_SUCCESS);
    bool found = false;
    for (size_t i = 0; i < bytes / sizeof(*f); i++)
        found |= strcmp(f[i].name, "__opencl_c_work_group_collective_functions") == 0;
    free(f);
    KT_CHECK(found, "CL_DEVICE_OPENCL_C_FEATURES lacks __opencl_c_work_group_collective_functions");

    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, 0, NULL, &bytes), CL_SUCCESS);
    char *ext = calloc(1, bytes + 1);
    KT_REQUIRE(ext, "out of memory");
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, bytes, ext, NULL), CL_SUCCESS);
    bool fp16 = strstr(ext, "cl_khr_fp16") != NULL;
    free(ext);
    if (!fp16)
        printf("note: no cl_khr_fp16, half not tested\n");

    /* Fewer than 16, one vector and a remainder, several vectors, and several with none. */
    static const size_t locals[] = {1, 3, 7, 37, 64, 100, 256, 1000};
    /* Partial last groups: {global, local}. */
    static const size_t partial[][2] = {{64 * 2 + 29, 64}, {37 * 2 + 5, 37}, {1000 + 333, 1000}};
    static const char *const stds[] = {"-cl-std=CL3.0", "-cl-std=CL2.0"};
    for (int s = 0; s < 2; s++) {
        cl_program p = kt_build(&env, src, stds[s]);
        for (enum kind k = K_INT; k <= K_HALF; k++) {
            /* Half's sums stay exact (below 2048) only in groups of at most 37. */
            size_t most = k == K_HALF ? 37 : 4096;
            if (k == K_HALF && !fp16)
                continue;
            for (size_t i = 0; i < sizeof(locals) / sizeof(locals[0]); i++)
                if (locals[i] <= most)
                    collectives(&env, p, k, locals[i] * 3, locals[i]);
            for (size_t i = 0; i < sizeof(partial) / sizeof(partial[0]); i++)
                if (partial[i][1] <= most)
                    collectives(&env, p, k, partial[i][0], partial[i][1]);
            /* The largest group. */
            if (s == 0 && k != K_HALF)
                collectives(&env, p, k, 4096, 4096);
        }
        size_t g2[2] = {8, 9}, l2[2] = {4, 3};
        broadcast_nd(&env, p, 2, g2, l2);
        size_t g3[3] = {4, 6, 8}, l3[3] = {2, 3, 4};
        broadcast_nd(&env, p, 3, g3, l3);
        keep_local(&env, p, 64);
        keep_local(&env, p, 4096);
        clReleaseProgram(p);
    }
    kt_teardown(&env);
    return kt_finish("api/collectives");
}
