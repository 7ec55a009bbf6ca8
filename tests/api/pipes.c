/*
 * Pipes: clCreatePipe, clGetPipeInfo, pipes as kernel arguments and the pipe
 * built-ins, through the ICD loader.
 *
 *  - the device reports pipe support, its limits and __opencl_c_pipes;
 *  - every bad input of clCreatePipe, clGetPipeInfo, clSetKernelArg and the
 *    buffer commands gets its error code;
 *  - producer and consumer kernels in one in-order queue move packets of 1, 3,
 *    4, 8, 12, 16, 64 and 128 bytes (char, struct of 3 chars, int, double, a
 *    struct of int/float/char, int4, float16, long16) through read_pipe/write_pipe,
 *    work-item reservations of 4 packets, sub-group and work-group reservations: every packet
 *    arrives exactly once (the multisets of what was written and read are equal),
 *    and a reservation's packets arrive together and in order;
 *  - pipes of 1 and of 10^6 packets, a full pipe (only max_packets writes
 *    succeed) and an empty one (every read fails);
 *  - reservations committed out of order are published in reservation order;
 *  - CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS reservations held by one work-item,
 *    and one more fails with CLK_NULL_RESERVE_ID;
 *  - an invalid reservation id, an index out of range or a pipe of another
 *    packet size make the built-ins fail without crashing;
 *  - producer and consumer kernels in two queues, streaming through a pipe
 *    smaller than the data;
 *  - the compile errors the specification requires, each with a build log.
 * Kernels are built with -cl-std=CL3.0 and again with CL2.0, the sub-group forms at CL3.0
 * only: OpenCL C 2.0 has sub-groups only through cl_khr_subgroups, which the device does not
 * report (it needs independent forward progress).
 */
#include "kiln_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *std_opt = "-cl-std=CL3.0 -cl-kernel-arg-info";

/* ---- packet types --------------------------------------------------------------- */

struct ptype {
    const char *name; /* OpenCL C type; also the kernels' suffix */
    size_t size;
};

static const struct ptype types[] = {
    {"char", 1}, {"s3", 3},    {"int", 4},      {"double", 8},
    {"s12", 12}, {"int4", 16}, {"float16", 64}, {"long16", 128},
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const char *kernels_src =
    "typedef struct { char c[3]; } s3;\n"
    "typedef struct { int a; float b; char c; } s12;\n"
    "#if defined(__opencl_c_subgroups) || defined(cl_khr_subgroups)\n"
    "#define SG_PIPES(T) \\\n"
    "kernel void sgprod_##T(global const T *in, write_only pipe T p, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size()); \\\n"
    "  st[g] = -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    st[g] = write_pipe(p, r, get_sub_group_local_id(), &in[g]); \\\n"
    "    sub_group_commit_write_pipe(p, r); } } \\\n"
    "kernel void sgcons_##T(read_only pipe T p, global T *out, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size()); \\\n"
    "  st[g] = -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    T v; st[g] = read_pipe(p, r, get_sub_group_local_id(), &v); out[g] = v; \\\n"
    "    sub_group_commit_read_pipe(p, r); } }\n"
    "#else\n"
    "#define SG_PIPES(T)\n"
    "#endif\n"
    "#define PIPES(T) \\\n"
    "kernel void prod_##T(global const T *in, write_only pipe T p, global int *st) { \\\n"
    "  size_t g = get_global_id(0); st[g] = write_pipe(p, &in[g]); } \\\n"
    "kernel void cons_##T(read_only pipe T p, global T *out, global int *st) { \\\n"
    "  size_t g = get_global_id(0); T v = out[g]; st[g] = read_pipe(p, &v); out[g] = v; } \\\n"
    "kernel void wgprod_##T(global const T *in, write_only pipe T p, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = work_group_reserve_write_pipe(p, (uint)get_local_size(0)); \\\n"
    "  st[g] = -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    st[g] = write_pipe(p, r, (uint)get_local_id(0), &in[g]); \\\n"
    "    work_group_commit_write_pipe(p, r); } } \\\n"
    "kernel void wgcons_##T(read_only pipe T p, global T *out, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = work_group_reserve_read_pipe(p, (uint)get_local_size(0)); \\\n"
    "  st[g] = -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    T v; st[g] = read_pipe(p, r, (uint)get_local_id(0), &v); out[g] = v; \\\n"
    "    work_group_commit_read_pipe(p, r); } } \\\n"
    "SG_PIPES(T) \\\n"
    "kernel void wiprod_##T(global const T *in, write_only pipe T p, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = reserve_write_pipe(p, 4); \\\n"
    "  st[g] = is_valid_reserve_id(r) ? 0 : -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    for (int k = 3; k >= 0; k--) st[g] |= write_pipe(p, r, (uint)k, &in[4 * g + k]); \\\n"
    "    commit_write_pipe(p, r); } } \\\n"
    "kernel void wicons_##T(read_only pipe T p, global T *out, global int *st) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  reserve_id_t r = reserve_read_pipe(p, 4); \\\n"
    "  st[g] = is_valid_reserve_id(r) ? 0 : -2; \\\n"
    "  if (is_valid_reserve_id(r)) { \\\n"
    "    for (int k = 0; k < 4; k++) st[g] |= read_pipe(p, r, (uint)k, &out[4 * g + k]); \\\n"
    "    commit_read_pipe(p, r); } }\n"
    "PIPES(int)\nPIPES(s12)\n"
    "#ifndef ONLY_INT\n"
    "PIPES(char)\nPIPES(s3)\nPIPES(double)\nPIPES(int4)\nPIPES(float16)\n"
    "PIPES(long16)\n"
    "#endif\n"
    /* Three reservations committed last to first. */
    "kernel void ooo(global const int *in, write_only pipe int p, global int *st) {\n"
    "  reserve_id_t a = reserve_write_pipe(p, 1), b = reserve_write_pipe(p, 2),\n"
    "               c = reserve_write_pipe(p, 3);\n"
    "  st[0] = is_valid_reserve_id(a) && is_valid_reserve_id(b) && is_valid_reserve_id(c);\n"
    "  for (uint i = 0; i < 3; i++) st[0] += write_pipe(p, c, i, &in[3 + i]);\n"
    "  for (uint i = 0; i < 2; i++) st[0] += write_pipe(p, b, i, &in[1 + i]);\n"
    "  st[0] += write_pipe(p, a, 0, &in[0]);\n"
    "  commit_write_pipe(p, c); st[1] = (int)get_pipe_num_packets(p);\n"
    "  commit_write_pipe(p, b); st[2] = (int)get_pipe_num_packets(p);\n"
    "  commit_write_pipe(p, a); st[3] = (int)get_pipe_num_packets(p);\n"
    "}\n"
    "kernel void read_n(read_only pipe int p, global int *out, global int *st, uint n) {\n"
    "  reserve_id_t r = reserve_read_pipe(p, n);\n"
    "  st[0] = is_valid_reserve_id(r);\n"
    "  for (uint i = 0; i < n; i++) st[0] += read_pipe(p, r, i, &out[i]);\n"
    "  commit_read_pipe(p, r);\n"
    "  int x; st[1] = read_pipe(p, &x);\n"
    "  st[2] = (int)get_pipe_num_packets(p); st[3] = (int)get_pipe_max_packets(p);\n"
    "}\n"
    /* Every active reservation one work-item may hold, then one more. */
    "kernel void maxres(write_only pipe int p, global char *idbuf, global int *st, uint n) {\n"
    "  global reserve_id_t *ids = (global reserve_id_t *)idbuf;\n"
    "  int ok = 0;\n"
    "  for (uint i = 0; i < n; i++) {\n"
    "    ids[i] = reserve_write_pipe(p, 1);\n"
    "    if (is_valid_reserve_id(ids[i])) { int v = (int)i; ok += write_pipe(p, ids[i], 0, &v) "
    "== 0; }\n"
    "  }\n"
    "  st[0] = ok;\n"
    "  reserve_id_t extra = reserve_write_pipe(p, 1);\n"
    "  st[1] = is_valid_reserve_id(extra);\n"
    "  st[2] = (int)get_pipe_num_packets(p);\n"
    "  for (uint i = n; i-- > 0;) commit_write_pipe(p, ids[i]);\n"
    "  st[3] = (int)get_pipe_num_packets(p);\n"
    "  reserve_id_t again = reserve_write_pipe(p, 1);\n"
    "  st[4] = is_valid_reserve_id(again);\n"
    "  int v = -5; st[5] = write_pipe(p, again, 0, &v); commit_write_pipe(p, again);\n"
    "}\n"
    /* Bad ids, indices and counts: failures, never a crash. */
    "kernel void badw(write_only pipe int p, global int *st) {\n"
    "  int v = 42;\n"
    "  reserve_id_t r = reserve_write_pipe(p, 2);\n"
    "  st[0] = is_valid_reserve_id(r);\n"
    "  st[1] = write_pipe(p, r, 2, &v);\n"
    "  st[2] = write_pipe(p, r, 0xffffffffu, &v);\n"
    "  st[3] = write_pipe(p, CLK_NULL_RESERVE_ID, 0, &v);\n"
    "  st[4] = is_valid_reserve_id(CLK_NULL_RESERVE_ID);\n"
    "  commit_write_pipe(p, CLK_NULL_RESERVE_ID);\n"
    "  reserve_id_t junk = __builtin_astype((void *)0x7fffffffffffffffUL, reserve_id_t);\n"
    "  st[12] = write_pipe(p, junk, 7, &v); commit_write_pipe(p, junk);\n"
    "  st[5] = write_pipe(p, r, 0, &v); v = 43; st[6] = write_pipe(p, r, 1, &v);\n"
    "  commit_write_pipe(p, r);\n"
    "  st[8] = is_valid_reserve_id(reserve_write_pipe(p, 0));\n"
    "  st[9] = is_valid_reserve_id(reserve_write_pipe(p, 1000000));\n"
    "  st[10] = (int)get_pipe_num_packets(p); st[11] = (int)get_pipe_max_packets(p);\n"
    "}\n"
    "kernel void badr(read_only pipe int p, global int *st, global int *out) {\n"
    "  reserve_id_t r = reserve_read_pipe(p, 3);\n"
    "  st[0] = is_valid_reserve_id(r);\n"
    "  st[1] = read_pipe(p, r, 0, &out[0]);\n"
    "  r = reserve_read_pipe(p, 2);\n"
    "  st[2] = is_valid_reserve_id(r);\n"
    "  int x; st[3] = read_pipe(p, r, 5, &x);\n"
    "  st[4] = read_pipe(p, r, 0, &out[0]) + read_pipe(p, r, 1, &out[1]);\n"
    "  commit_read_pipe(p, r);\n"
    "  st[5] = (int)get_pipe_num_packets(p); st[6] = read_pipe(p, &x);\n"
    "}\n";

static cl_program prog;
static cl_program prog20;

/* Packet i of a type: its number in the first 4 bytes when it has 4, then a pattern. */
static void fill(unsigned char *buf, size_t size, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * size;
        for (size_t j = 0; j < size; j++)
            p[j] = (unsigned char)(i * 131 + j * 7 + seed + (i >> 8) * 13);
        if (size >= 4) {
            uint32_t v = (uint32_t)i ^ (seed << 24);
            memcpy(p, &v, 4);
        }
    }
}

static size_t sort_size;
static int cmp_packet(const void *a, const void *b)
{
    return memcmp(a, b, sort_size);
}

/* True when the n packets at a and at b are the same multiset. */
static bool same_multiset(unsigned char *a, unsigned char *b, size_t n, size_t size)
{
    sort_size = size;
    qsort(a, n, size, cmp_packet);
    qsort(b, n, size, cmp_packet);
    return memcmp(a, b, n * size) == 0;
}

static cl_mem buffer(struct kt_env *env, size_t size, const void *init)
{
    cl_int err;
    cl_mem m =
        clCreateBuffer(env->context, init ? CL_MEM_COPY_HOST_PTR : 0, size, (void *)init, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer %zu: %d", size, err);
    return m;
}

static cl_mem make_pipe(struct kt_env *env, size_t size, cl_uint max)
{
    cl_int err;
    cl_mem p = clCreatePipe(env->context, 0, (cl_uint)size, max, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreatePipe %zu x %u: %d", size, max, err);
    return p;
}

/* Runs kernel `name` of `p` with three memory-object arguments over n work-items. */
static void run3(struct kt_env *env, cl_command_queue q, cl_program p, const char *name, cl_mem a0,
                 cl_mem a1, cl_mem a2, size_t n, size_t local)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &a0), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &a1), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &a2), CL_SUCCESS);
    KT_EXPECT(clEnqueueNDRangeKernel(q ? q : env->queue, k, 1, NULL, &n, local ? &local : NULL, 0,
                                     NULL, NULL),
              CL_SUCCESS);
    clReleaseKernel(k);
}

static void read_back(struct kt_env *env, cl_mem m, void *dst, size_t size)
{
    KT_EXPECT(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, size, dst, 0, NULL, NULL), CL_SUCCESS);
}

static size_t count_ok(const int *st, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += st[i] == 0;
    return k;
}

static cl_kernel kernel_of(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    return k;
}

/*
 * Groups of one-packet calls whose reservations wrap round the ring (2-link/pipe_groups.c: their
 * packets go through the side's spill area, include/kiln_pipe.h): 12 rounds of 96 ints, written
 * by two groups of 48 and read back by two, through a pipe of 100 packets (128 slots), so that
 * the reservations start at every multiple of 16 and some wrap on each side. Every round reads
 * exactly the packets it wrote, each group's 48 together and in order.
 */
static void laps(struct kt_env *env, cl_program p)
{
    enum { ROUND = 96, GROUP = 48, ROUNDS = 12 };
    int in[ROUND], out[ROUND], st[ROUND];
    cl_mem pipe = make_pipe(env, sizeof(int), 100);
    cl_mem bin = buffer(env, sizeof(in), NULL), bout = buffer(env, sizeof(out), NULL);
    cl_mem bst = buffer(env, sizeof(st), NULL);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < ROUND; i++)
            in[i] = round * 1000 + i;
        KT_EXPECT(clEnqueueWriteBuffer(env->queue, bin, CL_TRUE, 0, sizeof(in), in, 0, NULL, NULL),
                  CL_SUCCESS);
        run3(env, NULL, p, "prod_int", bin, pipe, bst, ROUND, GROUP);
        read_back(env, bst, st, sizeof(st));
        KT_CHECK(count_ok(st, ROUND) == ROUND, "round %d: %zu of %d writes", round,
                 count_ok(st, ROUND), ROUND);
        run3(env, NULL, p, "cons_int", pipe, bout, bst, ROUND, GROUP);
        read_back(env, bst, st, sizeof(st));
        read_back(env, bout, out, sizeof(out));
        KT_CHECK(count_ok(st, ROUND) == ROUND, "round %d: %zu of %d reads", round,
                 count_ok(st, ROUND), ROUND);
        /* Each group read one group's packets, in order; the two groups differ. */
        int starts[2];
        for (int g = 0; g < 2; g++) {
            starts[g] = out[g * GROUP] - round * 1000;
            int bad = starts[g] != 0 && starts[g] != GROUP;
            for (int i = 0; i < GROUP && !bad; i++)
                bad = out[g * GROUP + i] != round * 1000 + starts[g] + i;
            KT_CHECK(!bad, "round %d: read group %d is not a written group in order (starts %d)",
                     round, g, out[g * GROUP]);
        }
        KT_CHECK(starts[0] != starts[1], "round %d: both read groups start at %d", round,
                 starts[0]);
    }
    clReleaseMemObject(pipe);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseMemObject(bst);
}

/*
 * n packets of type t through a pipe of `cap` packets with `mode` "" (read_pipe and
 * write_pipe), "wg" (work-group reservations of `local`), "sg" (sub-group reservations
 * of the sub-group size, in groups of `local`) or "wi" (work-item reservations of 4). Writes
 * succeed for min(n, cap) packets, reads for as many, with the same multiset; then the pipe is
 * empty.
 */
static void transfer(struct kt_env *env, cl_program p, const struct ptype *t, size_t n, cl_uint cap,
                     const char *mode, size_t local)
{
    const size_t sz = t->size;
    const size_t items = strcmp(mode, "wi") == 0 ? n / 4 : n;
    unsigned char *in = malloc(n * sz), *out = malloc(n * sz);
    unsigned char *w = malloc(n * sz), *r = malloc(n * sz);
    int *pst = malloc(items * sizeof(int)), *cst = malloc(items * sizeof(int));
    KT_REQUIRE(in && out && w && r && pst && cst, "out of memory");
    fill(in, sz, n, (unsigned)cap);
    memset(out, 0, n * sz);
    cl_mem bin = buffer(env, n * sz, in), bout = buffer(env, n * sz, out);
    cl_mem bpst = buffer(env, items * sizeof(int), NULL);
    cl_mem bcst = buffer(env, items * sizeof(int), NULL);
    cl_mem pipe = make_pipe(env, sz, cap);
    char pname[64], cname[64];
    snprintf(pname, sizeof(pname), "%sprod_%s", mode, t->name);
    snprintf(cname, sizeof(cname), "%scons_%s", mode, t->name);

    run3(env, NULL, p, pname, bin, pipe, bpst, items, local);
    run3(env, NULL, p, cname, pipe, bout, bcst, items, local);
    read_back(env, bpst, pst, items * sizeof(int));
    read_back(env, bcst, cst, items * sizeof(int));
    read_back(env, bout, out, n * sz);

    /* Each writer (work-item, or group in mode wg, or sub-group in mode sg) moves `per`
     * packets or none. */
    const bool wg = strcmp(mode, "wg") == 0, wi = strcmp(mode, "wi") == 0;
    const size_t unit = wi ? 4 : 1; /* packets per status entry */
    size_t per = wg ? local : unit;
    if (strcmp(mode, "sg") == 0) {
        cl_kernel k = kernel_of(p, pname);
        KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                          sizeof(local), &local, sizeof(per), &per, NULL),
                  CL_SUCCESS);
        clReleaseKernel(k);
    }
    const size_t fit = (n < cap ? n : cap) / per * per;
    size_t wrote = count_ok(pst, items), got = count_ok(cst, items);
    KT_CHECK(wrote * unit == fit, "%s x %zu, pipe of %u, mode '%s': %zu packets written, want %zu",
             t->name, n, cap, mode, wrote * unit, fit);
    KT_CHECK(got == wrote, "%s x %zu, pipe of %u, mode '%s': %zu reads of %zu writes", t->name, n,
             cap, mode, got, wrote);

    /* What was written and read, in status order: a reservation's packets stay together. */
    size_t nw = 0, nr = 0;
    for (size_t i = 0; i < items; i++) {
        if (pst[i] == 0)
            memcpy(w + nw++ * unit * sz, in + i * unit * sz, unit * sz);
        if (cst[i] == 0)
            memcpy(r + nr++ * unit * sz, out + i * unit * sz, unit * sz);
    }
    /* Compare whole reservations: a group's (wg) or a work-item's 4 (wi) packets must
     * arrive together and in order, so the multisets of reservations are equal. */
    if (nw == nr && nw > 0)
        KT_CHECK(same_multiset(w, r, nw * unit / per, per * sz),
                 "%s x %zu, pipe of %u, mode '%s': packets lost, duplicated, or a reservation "
                 "split or reordered",
                 t->name, n, cap, mode);

    /* Now empty: another read pass gets nothing. */
    if (strcmp(mode, "") == 0) {
        run3(env, NULL, p, cname, pipe, bout, bcst, items, local);
        read_back(env, bcst, cst, items * sizeof(int));
        KT_CHECK(count_ok(cst, items) == 0, "%s: %zu reads from an empty pipe succeeded", t->name,
                 count_ok(cst, items));
    }
    clReleaseMemObject(pipe);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseMemObject(bpst);
    clReleaseMemObject(bcst);
    free(in);
    free(out);
    free(w);
    free(r);
    free(pst);
    free(cst);
}

/* ---- device queries ----------------------------------------------------------- */

static void queries(struct kt_env *env)
{
    cl_bool support = CL_FALSE;
    cl_uint args = 0, reservations = 0, packet = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof(support), &support, NULL),
              CL_SUCCESS);
    KT_CHECK(support == CL_TRUE, "CL_DEVICE_PIPE_SUPPORT is false");
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_MAX_PIPE_ARGS, sizeof(args), &args, NULL),
              CL_SUCCESS);
    KT_CHECK(args >= 16, "CL_DEVICE_MAX_PIPE_ARGS %u (at least 16)", args);
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
                              sizeof(reservations), &reservations, NULL),
              CL_SUCCESS);
    KT_CHECK(reservations >= 1, "CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS %u", reservations);
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof(packet), &packet, NULL),
        CL_SUCCESS);
    KT_CHECK(packet >= 1024, "CL_DEVICE_PIPE_MAX_PACKET_SIZE %u (at least 1024)", packet);

    size_t size = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size),
              CL_SUCCESS);
    cl_name_version *f = malloc(size);
    KT_REQUIRE(f, "out of memory");
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL), CL_SUCCESS);
    bool found = false;
    for (size_t i = 0; i < size / sizeof(*f); i++)
        found |= strcmp(f[i].name, "__opencl_c_pipes") == 0;
    KT_CHECK(found, "__opencl_c_pipes is not in CL_DEVICE_OPENCL_C_FEATURES");
    free(f);
}

/* ---- bad input ---------------------------------------------------------------- */

static void bad_input(struct kt_env *env)
{
    cl_int err = 0;
    cl_uint max_packet = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof(max_packet), &max_packet,
                    NULL);

    /* clCreatePipe: each refusal returns NULL and its code. */
    struct {
        cl_mem_flags flags;
        cl_uint size, max;
        bool props;
        cl_int want;
    } cases[] = {
        {0, 0, 16, false, CL_INVALID_PIPE_SIZE},
        {0, max_packet + 1, 16, false, CL_INVALID_PIPE_SIZE},
        {0, 4, 0, false, CL_INVALID_PIPE_SIZE},
        {0, 4, 0xffffffffu, false, CL_INVALID_PIPE_SIZE},
        {0, 1024, 0x20000000u, false,
         CL_INVALID_PIPE_SIZE}, /* 512 GiB: above the largest allocation */
        {CL_MEM_READ_ONLY, 4, 16, false, CL_INVALID_VALUE},
        {CL_MEM_WRITE_ONLY, 4, 16, false, CL_INVALID_VALUE},
        {CL_MEM_USE_HOST_PTR, 4, 16, false, CL_INVALID_VALUE},
        {CL_MEM_HOST_READ_ONLY, 4, 16, false, CL_INVALID_VALUE},
        {(cl_mem_flags)1 << 40, 4, 16, false, CL_INVALID_VALUE},
        {0, 4, 16, true, CL_INVALID_VALUE},
    };
    const cl_pipe_properties bad_props[] = {0x1234, 1, 0};
    /* OpenCL 3.0 §5.3.1: properties must be NULL in every version, so even an empty list
     * (a lone 0) is CL_INVALID_VALUE, and no pipe is made. */
    const cl_pipe_properties empty_props[] = {0};
    err = 0;
    cl_mem refused = clCreatePipe(env->context, 0, 4, 16, empty_props, &err);
    KT_CHECK(refused == NULL && err == CL_INVALID_VALUE,
             "clCreatePipe with an empty properties list: %p, %d, want CL_INVALID_VALUE",
             (void *)refused, err);
    if (refused)
        clReleaseMemObject(refused);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err = 0;
        cl_mem m = clCreatePipe(env->context, cases[i].flags, cases[i].size, cases[i].max,
                                cases[i].props ? bad_props : NULL, &err);
        KT_CHECK(m == NULL && err == cases[i].want, "clCreatePipe case %zu: %p, %d, want %d", i,
                 (void *)m, err, cases[i].want);
    }
    err = 0;
    KT_CHECK(clCreatePipe(NULL, 0, 4, 16, NULL, &err) == NULL && err == CL_INVALID_CONTEXT,
             "clCreatePipe without a context: %d", err);
    KT_CHECK(clCreatePipe((cl_context)env->queue, 0, 4, 16, NULL, NULL) == NULL,
             "clCreatePipe with a queue for a context");

    /* Valid pipes and their queries. */
    cl_mem pipe =
        clCreatePipe(env->context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 12, 100, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS && pipe, "clCreatePipe: %d", err);
    cl_mem pipe0 = clCreatePipe(env->context, 0, 4, 1, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS && pipe0, "clCreatePipe: %d", err);
    cl_uint u = 0;
    size_t ret = 0;
    KT_EXPECT(clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, sizeof(u), &u, &ret), CL_SUCCESS);
    KT_CHECK(u == 12 && ret == sizeof(cl_uint), "CL_PIPE_PACKET_SIZE %u (%zu bytes)", u, ret);
    KT_EXPECT(clGetPipeInfo(pipe, CL_PIPE_MAX_PACKETS, sizeof(u), &u, NULL), CL_SUCCESS);
    KT_CHECK(u == 100, "CL_PIPE_MAX_PACKETS %u", u);
    KT_EXPECT(clGetPipeInfo(pipe0, CL_PIPE_PROPERTIES, 0, NULL, &ret), CL_SUCCESS);
    KT_CHECK(ret == 0, "CL_PIPE_PROPERTIES after NULL properties: %zu bytes", ret);
    cl_pipe_properties pp[2] = {7, 7};
    KT_EXPECT(clGetPipeInfo(pipe, CL_PIPE_PROPERTIES, sizeof(pp), pp, &ret), CL_SUCCESS);
    KT_CHECK(ret == 0 && pp[0] == 7, "CL_PIPE_PROPERTIES: %zu bytes, first %lld", ret,
             (long long)pp[0]);
    KT_EXPECT(clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, 1, &u, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clGetPipeInfo(pipe, 0x7777, sizeof(u), &u, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clGetPipeInfo(NULL, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL), CL_INVALID_MEM_OBJECT);
    cl_mem buf = buffer(env, 64, NULL);
    KT_EXPECT(clGetPipeInfo(buf, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL), CL_INVALID_MEM_OBJECT);

    cl_mem_object_type type = 0;
    cl_mem_flags flags = 0;
    size_t msize = 0;
    cl_context mctx = NULL;
    KT_EXPECT(clGetMemObjectInfo(pipe, CL_MEM_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_MEM_OBJECT_PIPE, "CL_MEM_TYPE 0x%x", (unsigned)type);
    KT_EXPECT(clGetMemObjectInfo(pipe0, CL_MEM_FLAGS, sizeof(flags), &flags, NULL), CL_SUCCESS);
    KT_CHECK(flags == (CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS),
             "CL_MEM_FLAGS of flags 0: 0x%llx", (unsigned long long)flags);
    KT_EXPECT(clGetMemObjectInfo(pipe, CL_MEM_SIZE, sizeof(msize), &msize, NULL), CL_SUCCESS);
    KT_CHECK(msize >= 12 * 100, "CL_MEM_SIZE %zu", msize);
    KT_EXPECT(clGetMemObjectInfo(pipe, CL_MEM_CONTEXT, sizeof(mctx), &mctx, NULL), CL_SUCCESS);
    KT_CHECK(mctx == env->context, "CL_MEM_CONTEXT");

    /* Buffer commands refuse a pipe. */
    char host[64];
    KT_EXPECT(clEnqueueReadBuffer(env->queue, pipe, CL_TRUE, 0, 12, host, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, pipe, CL_TRUE, 0, 12, host, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, pipe, buf, 0, 0, 12, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueCopyBuffer(env->queue, buf, pipe, 0, 0, 12, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueFillBuffer(env->queue, pipe, host, 4, 0, 12, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    size_t origin[3] = {0, 0, 0}, rect[3] = {4, 1, 1};
    KT_EXPECT(clEnqueueReadBufferRect(env->queue, pipe, CL_TRUE, origin, origin, rect, 0, 0, 0, 0,
                                      host, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    err = 0;
    KT_CHECK(clEnqueueMapBuffer(env->queue, pipe, CL_TRUE, CL_MAP_READ, 0, 12, 0, NULL, NULL,
                                &err) == NULL &&
                 err == CL_INVALID_MEM_OBJECT,
             "clEnqueueMapBuffer on a pipe: %d", err);
    cl_buffer_region region = {0, 12};
    err = 0;
    KT_CHECK(clCreateSubBuffer(pipe, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err) == NULL &&
                 err == CL_INVALID_MEM_OBJECT,
             "clCreateSubBuffer of a pipe: %d", err);

    /* clSetKernelArg. */
    cl_kernel k = clCreateKernel(prog, "prod_int", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_mem nothing = NULL;
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &buf), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &nothing), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), NULL), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &env->queue), CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clSetKernelArg(k, 1, 4, &pipe0), CL_INVALID_ARG_SIZE);
    /* A pipe of int gets a pipe of 12-byte packets: the type is known, so refused. */
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &pipe), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &pipe0), CL_SUCCESS);
    /* A buffer argument gets a pipe. */
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe0), CL_INVALID_ARG_VALUE);

    /* The argument's description. */
    cl_kernel_arg_type_qualifier tq = 0;
    cl_kernel_arg_access_qualifier aq = 0;
    char tname[64] = "";
    KT_EXPECT(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL),
              CL_SUCCESS);
    KT_CHECK(tq & CL_KERNEL_ARG_TYPE_PIPE, "type qualifier 0x%llx", (unsigned long long)tq);
    KT_EXPECT(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(aq), &aq, NULL),
              CL_SUCCESS);
    KT_CHECK(aq == CL_KERNEL_ARG_ACCESS_WRITE_ONLY, "access qualifier 0x%x", (unsigned)aq);
    KT_EXPECT(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof(tname), tname, NULL),
              CL_SUCCESS);
    KT_CHECK(strcmp(tname, "int") == 0, "type name '%s'", tname);
    clReleaseKernel(k);

    /* A struct pipe with the wrong packet size: the runtime cannot know the type's
     * size, so the argument is taken, and every pipe call of the kernel fails. */
    enum { N = 64 };
    unsigned char in[N * 12];
    int st[N];
    fill(in, 12, N, 1);
    cl_mem bin = buffer(env, sizeof(in), in), bst = buffer(env, sizeof(st), NULL);
    cl_mem wrong = make_pipe(env, 16, N);
    run3(env, NULL, prog, "prod_s12", bin, wrong, bst, N, 0);
    read_back(env, bst, st, sizeof(st));
    KT_CHECK(count_ok(st, N) == 0, "%zu writes of 12-byte packets into a 16-byte pipe",
             count_ok(st, N));
    run3(env, NULL, prog, "wgprod_s12", bin, wrong, bst, N, 16);
    read_back(env, bst, st, sizeof(st));
    bool all_refused = true;
    for (int i = 0; i < N; i++)
        all_refused &= st[i] == -2;
    KT_CHECK(all_refused, "a work-group reservation on a pipe of another packet size");

    clReleaseMemObject(wrong);
    clReleaseMemObject(bin);
    clReleaseMemObject(bst);
    clReleaseMemObject(buf);
    KT_EXPECT(clReleaseMemObject(pipe), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(pipe0), CL_SUCCESS);
}

/* ---- reservations: order, limits, bad ids -------------------------------------- */

static void run_task(struct kt_env *env, cl_kernel k)
{
    size_t one = 1;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL),
              CL_SUCCESS);
}

/* Reads n packets of `pipe` with one reservation into out; st as kernel read_n says. */
static void read_all(struct kt_env *env, cl_program p, cl_mem pipe, int *out, cl_uint n, int *st)
{
    cl_mem bout = buffer(env, n * sizeof(int), NULL), bst = buffer(env, 4 * sizeof(int), NULL);
    cl_kernel k = kernel_of(p, "read_n");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &bout), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &bst), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(n), &n), CL_SUCCESS);
    run_task(env, k);
    read_back(env, bout, out, n * sizeof(int));
    read_back(env, bst, st, 4 * sizeof(int));
    clReleaseKernel(k);
    clReleaseMemObject(bout);
    clReleaseMemObject(bst);
}

static void reservations(struct kt_env *env, cl_program p)
{
    /* Out-of-order commits: nothing visible until the first reservation commits,
     * then all three in reservation order. */
    int in[6] = {10, 11, 12, 13, 14, 15}, out[8], st[16];
    cl_mem bin = buffer(env, sizeof(in), in), bst = buffer(env, sizeof(st), NULL);
    cl_mem pipe = make_pipe(env, sizeof(int), 6);
    run3(env, NULL, p, "ooo", bin, pipe, bst, 1, 0);
    read_back(env, bst, st, 4 * sizeof(int));
    KT_CHECK(st[0] == 1, "ooo: reservations or writes failed (%d)", st[0]);
    KT_CHECK(st[1] == 0 && st[2] == 0 && st[3] == 6,
             "ooo: packets in the pipe after each commit: %d %d %d, want 0 0 6", st[1], st[2],
             st[3]);
    read_all(env, p, pipe, out, 6, st);
    KT_CHECK(st[0] == 1 && st[1] < 0 && st[2] == 0 && st[3] == 6, "read_n: %d %d %d %d", st[0],
             st[1], st[2], st[3]);
    KT_CHECK(memcmp(out, in, sizeof(in)) == 0, "ooo: read %d %d %d %d %d %d", out[0], out[1],
             out[2], out[3], out[4], out[5]);
    clReleaseMemObject(pipe);

    /* The most active reservations, committed in reverse order; one more fails. */
    cl_uint maxr = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, sizeof(maxr), &maxr, NULL);
    pipe = make_pipe(env, sizeof(int), maxr + 1);
    cl_mem ids = buffer(env, maxr * 8, NULL);
    cl_kernel k = kernel_of(p, "maxres");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &ids), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &bst), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(maxr), &maxr), CL_SUCCESS);
    run_task(env, k);
    read_back(env, bst, st, 6 * sizeof(int));
    KT_CHECK(st[0] == (int)maxr, "maxres: %d of %u reservations", st[0], maxr);
    KT_CHECK(st[1] == 0,
             "maxres: reservation %u beyond CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS "
             "was valid",
             maxr + 1);
    KT_CHECK(st[2] == 0 && st[3] == (int)maxr, "maxres: %d packets before the commits, %d after",
             st[2], st[3]);
    KT_CHECK(st[4] == 1 && st[5] == 0, "maxres: a reservation after the commits: %d %d", st[4],
             st[5]);
    int *all = malloc((maxr + 1) * sizeof(int));
    KT_REQUIRE(all, "out of memory");
    read_all(env, p, pipe, all, maxr + 1, st);
    bool in_order = st[0] == 1;
    for (cl_uint i = 0; i < maxr; i++)
        in_order &= all[i] == (int)i;
    KT_CHECK(in_order && all[maxr] == -5, "maxres: packets not in reservation order");
    free(all);
    clReleaseKernel(k);
    clReleaseMemObject(ids);
    clReleaseMemObject(pipe);

    /* Invalid ids, indices and counts. */
    pipe = make_pipe(env, sizeof(int), 8);
    for (int i = 0; i < 16; i++)
        st[i] = 99;
    cl_mem bst2 = buffer(env, sizeof(st), st);
    k = kernel_of(p, "badw");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &bst2), CL_SUCCESS);
    run_task(env, k);
    read_back(env, bst2, st, sizeof(st));
    KT_CHECK(st[0] == 1, "badw: reserve 2 failed");
    KT_CHECK(st[1] < 0 && st[2] < 0, "badw: index out of range accepted: %d %d", st[1], st[2]);
    KT_CHECK(st[3] < 0 && st[4] == 0, "badw: CLK_NULL_RESERVE_ID accepted: %d %d", st[3], st[4]);
    KT_CHECK(st[12] <= 0, "badw: a made-up id: %d", st[12]);
    KT_CHECK(st[5] == 0 && st[6] == 0, "badw: writes %d %d", st[5], st[6]);
    KT_CHECK(st[8] == 0 && st[9] == 0, "badw: reservations of 0 and 10^6 packets: %d %d", st[8],
             st[9]);
    KT_CHECK(st[10] == 2 && st[11] == 8, "badw: num %d max %d", st[10], st[11]);
    clReleaseKernel(k);
    k = kernel_of(p, "badr");
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &bst2), CL_SUCCESS);
    cl_mem bout = buffer(env, 8 * sizeof(int), NULL);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &bout), CL_SUCCESS);
    run_task(env, k);
    read_back(env, bst2, st, 7 * sizeof(int));
    read_back(env, bout, out, 2 * sizeof(int));
    KT_CHECK(st[0] == 0 && st[1] < 0, "badr: reserve 3 of 2: %d %d", st[0], st[1]);
    KT_CHECK(st[2] == 1 && st[3] < 0 && st[4] == 0, "badr: %d %d %d", st[2], st[3], st[4]);
    KT_CHECK(out[0] == 42 && out[1] == 43, "badr: read %d %d", out[0], out[1]);
    KT_CHECK(st[5] == 0 && st[6] < 0, "badr: left %d, read %d", st[5], st[6]);
    clReleaseKernel(k);
    clReleaseMemObject(bout);
    clReleaseMemObject(bst2);
    clReleaseMemObject(pipe);
    clReleaseMemObject(bin);
    clReleaseMemObject(bst);
}

/* ---- two queues ----------------------------------------------------------------- */

/*
 * Chunks of M packets through a pipe of 2M in two in-order queues: producer k on
 * one queue, consumer k on the other after producer k; producer k waits for
 * consumer k - 2, so a producer and a consumer run at the same time.
 */
static void two_queues(struct kt_env *env, cl_program p, bool group)
{
    enum { M = 4096, CHUNKS = 16, N = M * CHUNKS };
    cl_int err;
    cl_queue_properties qp[] = {0};
    cl_command_queue q2 = clCreateCommandQueueWithProperties(env->context, env->device, qp, &err);
    KT_REQUIRE(err == CL_SUCCESS, "second queue: %d", err);
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
    int *pst = malloc(N * sizeof(int)), *cst = malloc(N * sizeof(int));
    KT_REQUIRE(in && out && pst && cst, "out of memory");
    for (int i = 0; i < N; i++)
        in[i] = i * 7 + 3;
    cl_mem bin = buffer(env, N * sizeof(int), in), bout = buffer(env, N * sizeof(int), NULL);
    cl_mem bpst = buffer(env, N * sizeof(int), NULL), bcst = buffer(env, N * sizeof(int), NULL);
    cl_mem pipe = make_pipe(env, sizeof(int), 2 * M);
    cl_kernel kp = kernel_of(p, group ? "wgprod_int" : "prod_int");
    cl_kernel kc = kernel_of(p, group ? "wgcons_int" : "cons_int");
    KT_EXPECT(clSetKernelArg(kp, 0, sizeof(cl_mem), &bin), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kp, 1, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kp, 2, sizeof(cl_mem), &bpst), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kc, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kc, 1, sizeof(cl_mem), &bout), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(kc, 2, sizeof(cl_mem), &bcst), CL_SUCCESS);
    cl_event prod[CHUNKS], cons[CHUNKS];
    size_t m = M, local = 64;
    for (int c = 0; c < CHUNKS; c++) {
        size_t off = (size_t)c * M;
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, kp, 1, &off, &m, group ? &local : NULL,
                                         c >= 2 ? 1 : 0, c >= 2 ? &cons[c - 2] : NULL, &prod[c]),
                  CL_SUCCESS);
        KT_EXPECT(clEnqueueNDRangeKernel(q2, kc, 1, &off, &m, group ? &local : NULL, 1, &prod[c],
                                         &cons[c]),
                  CL_SUCCESS);
    }
    KT_EXPECT(clFinish(q2), CL_SUCCESS);
    read_back(env, bpst, pst, N * sizeof(int));
    read_back(env, bcst, cst, N * sizeof(int));
    read_back(env, bout, out, N * sizeof(int));
    KT_CHECK(count_ok(pst, N) == N && count_ok(cst, N) == N,
             "two queues%s: %zu writes and %zu reads of %d", group ? ", work-group" : "",
             count_ok(pst, N), count_ok(cst, N), N);
    KT_CHECK(same_multiset((unsigned char *)in, (unsigned char *)out, N, sizeof(int)),
             "two queues%s: packets lost or duplicated", group ? ", work-group" : "");
    for (int c = 0; c < CHUNKS; c++) {
        clReleaseEvent(prod[c]);
        clReleaseEvent(cons[c]);
    }
    clReleaseKernel(kp);
    clReleaseKernel(kc);
    clReleaseMemObject(pipe);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseMemObject(bpst);
    clReleaseMemObject(bcst);
    clReleaseCommandQueue(q2);
    free(in);
    free(out);
    free(pst);
    free(cst);
}

/* ---- compile errors ------------------------------------------------------------- */

static void compile_errors(struct kt_env *env)
{
    static const struct {
        const char *src, *options, *log;
    } cases[] = {
        {"kernel void k(read_write pipe int p) {}", "-cl-std=CL3.0", "read_write"},
        {"typedef struct { read_only pipe int p; } S;\n"
         "kernel void k(global int *x) { S s; }",
         "-cl-std=CL3.0", "a pipe cannot be a member of a structure or union"},
        {"union U { int a; pipe int p[2]; };\nkernel void k(global int *x) { }", "-cl-std=CL2.0",
         "a pipe cannot be a member of a structure or union"},
        {"typedef read_only pipe int P;\nkernel void k(global P *x) {}", "-cl-std=CL3.0",
         "pointer to type"},
        {"typedef read_only pipe int P;\nvoid f(P *x) {}\nkernel void k(P p) { f(&p); }",
         "-cl-std=CL3.0", "pointer to type"},
        {"kernel void k(global int *x) { pipe int p; }", "-cl-std=CL3.0",
         "can only be used as a function parameter"},
        {"kernel void k(read_only pipe int p, global int *x) { write_pipe(p, x); }",
         "-cl-std=CL3.0", "invalid pipe access modifier"},
        {"kernel void k(read_only pipe int p, global float *x) { read_pipe(p, x); }",
         "-cl-std=CL3.0", "invalid argument type"},
        {"kernel void k(read_only pipe int p) {}", "-cl-std=CL1.2", "pipe"},
        {"#define P(i) read_only pipe int p##i\n"
         "kernel void k(P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(10),\n"
         "              P(11), P(12), P(13), P(14), P(15), P(16)) {}",
         "-cl-std=CL3.0", "17 pipe arguments"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_int err;
        const char *src = cases[i].src;
        cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
        err = clBuildProgram(p, 1, &env->device, cases[i].options, NULL, NULL);
        char log[8192] = "";
        clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        KT_CHECK(err == CL_BUILD_PROGRAM_FAILURE, "compile error case %zu built: %d", i, err);
        KT_CHECK(strstr(log, cases[i].log) != NULL, "case %zu: the log lacks '%s':\n%s", i,
                 cases[i].log, log);
        clReleaseProgram(p);
    }
}

/*
 * With the argument "groups", only what the barrier strategies change: the int
 * kernels with work-group reservations (a barrier kernel), in one queue and two.
 * With "errors", only the bad input and the compile errors (for the KILN_DEBUG=err
 * log test).
 */
/*
 * The local size Kiln chooses (no local size given) for a kernel with a pipe argument: the
 * device's largest group where every pipe has room for two groups' packets and a group's
 * packets fit its spill area (64 KiB), so that the kernel makes few reservations; otherwise
 * 1024, as for any kernel. The range gives four groups of the largest size per compute unit,
 * so the choice is not halved.
 */
static void chosen_sizes(struct kt_env *env)
{
    static const char *src = "kernel void sized(write_only pipe uint p, global uint *out)\n"
                             "{ out[get_global_id(0)] = (uint)get_local_size(0); }\n"
                             "kernel void sized16(write_only pipe uint16 p, global uint *out)\n"
                             "{ out[get_global_id(0)] = (uint)get_local_size(0); }\n"
                             "kernel void plain(global uint *out)\n"
                             "{ out[get_global_id(0)] = (uint)get_local_size(0); }\n";
    cl_uint cu = 0;
    size_t big = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL),
              CL_SUCCESS);
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(big), &big, NULL),
              CL_SUCCESS);
    KT_REQUIRE(cu >= 1 && big >= 1024, "%u compute units, groups of %zu", cu, big);
    size_t n = 4 * (size_t)cu * big;
    cl_program p = kt_build(env, src, "-cl-std=CL3.0");
    cl_uint *got = malloc(n * sizeof(cl_uint));
    KT_REQUIRE(got, "out of memory");
    cl_mem out = buffer(env, n * sizeof(cl_uint), NULL);
    const struct {
        size_t packet;
        cl_uint max; /* 0: the kernel without a pipe */
        size_t want;
    } cases[] = {
        {4, (cl_uint)(2 * big), big},
        {4, (cl_uint)(2 * big - 1), 1024},
        {64, (cl_uint)(2 * big), 65536 / 64 >= big ? big : 1024},
        {4, 0, 1024},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_kernel k = kernel_of(p, !cases[i].max           ? "plain"
                                   : cases[i].packet == 64 ? "sized16"
                                                           : "sized");
        cl_mem pipe = cases[i].max ? make_pipe(env, cases[i].packet, cases[i].max) : NULL;
        if (pipe) {
            KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_SUCCESS);
            KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &out), CL_SUCCESS);
        } else {
            KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &out), CL_SUCCESS);
        }
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        read_back(env, out, got, n * sizeof(cl_uint));
        size_t bad = 0;
        for (size_t j = 0; j < n; j++)
            bad += got[j] != cases[i].want;
        KT_CHECK(bad == 0, "case %zu: %zu-byte packets, a pipe of %u: local size %u, want %zu", i,
                 cases[i].packet, cases[i].max, got[0], cases[i].want);
        if (pipe)
            clReleaseMemObject(pipe);
        clReleaseKernel(k);
    }
    clReleaseMemObject(out);
    free(got);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
}

int main(int argc, char **argv)
{
    const bool groups_only = argc > 1 && strcmp(argv[1], "groups") == 0;
    const bool errors_only = argc > 1 && strcmp(argv[1], "errors") == 0;
    struct kt_env env;
    kt_setup(&env, 0);
    prog = kt_build(&env, kernels_src,
                    groups_only || errors_only ? "-cl-std=CL3.0 -cl-kernel-arg-info -DONLY_INT"
                                               : std_opt);
    if (errors_only) {
        bad_input(&env);
        compile_errors(&env);
        KT_EXPECT(clReleaseProgram(prog), CL_SUCCESS);
        kt_teardown(&env);
        return kt_finish("pipes (bad input)");
    }
    if (groups_only) {
        transfer(&env, prog, &types[2], 1024, 1024, "wg", 64);
        transfer(&env, prog, &types[2], 1024, 100, "wg", 16);
        transfer(&env, prog, &types[2], 100000, 100000, "wg", 250);
        two_queues(&env, prog, true);
        KT_EXPECT(clReleaseProgram(prog), CL_SUCCESS);
        kt_teardown(&env);
        return kt_finish("pipes (work-group reservations)");
    }
    /* The int kernels and the reservation kernels as OpenCL C 2.0 too. */
    prog20 = kt_build(&env, kernels_src, "-cl-std=CL2.0 -DONLY_INT");

    queries(&env);
    bad_input(&env);

    /* Every packet type, each way of moving packets, a pipe large enough and a
     * full one; the int kernels again as OpenCL C 2.0. */
    for (size_t i = 0; i < NTYPES; i++) {
        transfer(&env, prog, &types[i], 1024, 1024, "", 0);
        transfer(&env, prog, &types[i], 1024, 1024, "wi", 0);
        transfer(&env, prog, &types[i], 1024, 1024, "wg", 64);
        transfer(&env, prog, &types[i], 1024, 1024, "sg", 64);
        transfer(&env, prog, &types[i], 1024, 100, "", 0);
        transfer(&env, prog, &types[i], 1024, 100, "wg", 16);
    }
    transfer(&env, prog20, &types[2], 1024, 1024, "", 0);
    transfer(&env, prog20, &types[2], 1024, 1024, "wg", 32);
    transfer(&env, prog, &types[2], 1024, 100, "sg", 16);
    /* One packet: a single write and read get through; no 4-packet reservation fits. */
    transfer(&env, prog, &types[2], 64, 1, "", 0);
    transfer(&env, prog, &types[2], 64, 1, "wi", 0);
    transfer(&env, prog, &types[2], 64, 1, "wg", 1);
    /* One-packet calls that whole groups make take one reservation per group
     * (2-link/pipe_groups.c): groups of 64 and a last group of 40, then a pipe with room for
     * one group and 36 packets more, so that the second group's work-items make their own
     * calls and 36 of them get through. */
    transfer(&env, prog, &types[2], 1000, 1000, "", 64);
    transfer(&env, prog, &types[2], 1000, 100, "", 64);
    laps(&env, prog);
    /* 10^6 packets, with both ways, and groups of 4096. */
    transfer(&env, prog, &types[2], 1000000, 1000000, "", 0);
    transfer(&env, prog, &types[2], 1000000, 1000000, "wg", 250);
    transfer(&env, prog, &types[5], 8192, 8192, "wg", 4096);
    chosen_sizes(&env);

    reservations(&env, prog);
    reservations(&env, prog20);
    two_queues(&env, prog, false);
    two_queues(&env, prog, true);
    compile_errors(&env);

    KT_EXPECT(clReleaseProgram(prog), CL_SUCCESS);
    KT_EXPECT(clReleaseProgram(prog20), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("pipes");
}
