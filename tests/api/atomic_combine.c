/*
 * Combined global atomics (docs/compiler.md, "Combining global atomic adds"): kernels whose
 * atomic adds the compiler may sum within a worker's groups, and kernels beside them that it
 * must leave alone, each checked exactly against the host.
 *
 * - Histograms with atomic_inc, atomic_dec, atomic_add and atomic_sub (int and uint), atom_*
 *   on long and ulong with operands past 32 bits, and atomic_fetch_add_explicit with
 *   memory_order_relaxed and atomic_fetch_sub (seq_cst) on __global and generic atomic_uint
 *   and atomic_ulong (CL3.0); with
 *   Kiln's local size, groups of 1 and 64, and a range of 13-item groups with a partial last
 *   one (CL3.0); launched twice on the same counters.
 * - Addresses that share a slot of the compiler's table (256 uints apart) in random order.
 * - Adds and subtracts that cancel: the counters keep their initial values.
 * - Results that are used: tickets from atomic_inc must be a permutation, in a kernel that
 *   also counts a histogram whose results are not used (mixed); a per-bin ticket must number
 *   each bin's items 0 to count - 1; tickets whose only use is the address of a combinable
 *   add must spread it evenly. Combining a used result would repeat tickets.
 * - A work-item that reads its own counter after incrementing it must see its increment;
 *   a group that reads its counter after a barrier with a global fence must see all of its
 *   increments.
 * - A kernel with barriers and __local atomics beside global ones (left alone).
 */
#include "kiln_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N    (1 << 16)
#define BINS 256

static const char legacy_src[] =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "kernel void counts(global const uint *in, global uint *inc, global int *dec,\n"
    "                   global uint *add, global int *sub, global long *l, global ulong *ul)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    uint b = in[i] & 255, v = (in[i] >> 8) & 1023;\n"
    "    atomic_inc(&inc[b]);\n"
    "    atomic_dec(&dec[b]);\n"
    "    atomic_add(&add[b], v);\n"
    "    atomic_sub(&sub[b], (int)v);\n"
    "    atom_add(&l[b], (long)v << 33);\n"
    "    atom_sub(&ul[b], ((ulong)v << 31) + 1);\n"
    "    atom_inc(&ul[b]);\n"
    "}\n"
    /* Slots of the table are the address in uints modulo 256: these all share slot 0..3. */
    "kernel void collide(global const uint *in, global uint *h)\n"
    "{\n"
    "    atomic_inc(&h[(in[get_global_id(0)] & 7) * 256]);\n"
    "}\n"
    "kernel void cancel(global const uint *in, global uint *h, global long *l)\n"
    "{\n"
    "    uint b = in[get_global_id(0)] & 255;\n"
    "    atomic_add(&h[b], 5u);\n"
    "    atomic_sub(&h[b], 5u);\n"
    "    atom_inc(&l[b]);\n"
    "    atom_dec(&l[b]);\n"
    "}\n"
    "kernel void tickets(global const uint *in, global uint *h, global uint *c,\n"
    "                    global uint *t)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    atomic_inc(&h[in[i] & 255]);\n"
    "    t[i] = atomic_inc(&c[0]);\n"
    "}\n"
    "kernel void bin_tickets(global const uint *in, global uint *h, global uint *t)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    t[i] = atomic_add(&h[in[i] & 255], 1u);\n"
    "}\n"
    /* The ticket's only use is the address of an add that may be combined: nothing after
     * it touches memory, so only the rule about used results keeps the ticket exact. */
    "kernel void ticket_bins(global uint *c, global uint *h)\n"
    "{\n"
    "    uint t = atomic_inc(&c[0]);\n"
    "    atomic_inc(&h[t & 255]);\n"
    "}\n"
    /* After a barrier with a global fence, the group must see all of its adds. */
    "kernel void after_barrier(global uint *g, global uint *out)\n"
    "{\n"
    "    atomic_inc(&g[get_group_id(0)]);\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = g[get_group_id(0)];\n"
    "}\n"
    "kernel void read_back(global uint *h, global uint *out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    atomic_inc(&h[i]);\n"
    "    out[i] = h[i];\n"
    "}\n";

static const char c11_src[] =
    "kernel void relaxed(global const uint *in, global atomic_uint *h, global atomic_ulong *hl,\n"
    "                    global uint *plain)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    uint b = in[i] & 255, v = (in[i] >> 8) & 1023;\n"
    "    atomic_fetch_add_explicit(&h[b], v, memory_order_relaxed, memory_scope_device);\n"
    "    atomic_fetch_sub(&h[b], 1u);\n"
    "    atomic_fetch_add_explicit(&hl[b], (ulong)v << 32, memory_order_relaxed);\n"
    "    volatile atomic_uint *g = (volatile atomic_uint *)plain;\n"
    "    atomic_fetch_add_explicit(&g[b], 1u, memory_order_relaxed);\n"
    "}\n"
    "kernel void mixed(global const uint *in, global atomic_uint *h, global atomic_uint *s,\n"
    "                  global uint *lcounts)\n"
    "{\n"
    "    local atomic_uint lh[4];\n"
    "    size_t i = get_global_id(0), l = get_local_id(0);\n"
    "    uint b = in[i] & 255;\n"
    "    if (l < 4)\n"
    "        atomic_init(&lh[l], 0u);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    atomic_fetch_add_explicit(&h[b], 1u, memory_order_relaxed);\n"
    "    atomic_fetch_add(&s[b], 2u);\n"
    "    atomic_fetch_add_explicit(&lh[b & 3], 1u, memory_order_relaxed,\n"
    "                              memory_scope_work_group);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l < 4)\n"
    "        atomic_fetch_add_explicit((global atomic_uint *)&lcounts[l],\n"
    "                                  atomic_load(&lh[l]), memory_order_relaxed);\n"
    "}\n";

static uint32_t in[N];
static uint32_t want_inc[BINS];
static uint64_t want_v[BINS];

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static void fill(void)
{
    memset(want_inc, 0, sizeof(want_inc));
    memset(want_v, 0, sizeof(want_v));
    for (uint32_t i = 0; i < N; i++) {
        in[i] = hash(i + 1);
        want_inc[in[i] & 255]++;
        want_v[in[i] & 255] += (in[i] >> 8) & 1023;
    }
}

/* counts at `local` (0: Kiln's choice), `launches` times on the same counters. */
static void test_counts(struct kt_env *env, cl_program p, size_t local, int launches)
{
    static uint32_t inc[BINS], add[BINS];
    static int32_t dec[BINS], sub[BINS];
    static int64_t l[BINS];
    static uint64_t ul[BINS];
    for (int b = 0; b < BINS; b++) {
        inc[b] = 7;
        dec[b] = 1000000;
        add[b] = 3;
        sub[b] = 0;
        l[b] = -5;
        ul[b] = 0;
    }
    cl_int err;
    cl_mem m[7];
    void *host[7] = {in, inc, dec, add, sub, l, ul};
    size_t size[7] = {sizeof(in),  sizeof(inc), sizeof(dec), sizeof(add),
                      sizeof(sub), sizeof(l),   sizeof(ul)};
    cl_kernel k = clCreateKernel(p, "counts", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    for (int a = 0; a < 7; a++) {
        m[a] = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size[a],
                              host[a], &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        KT_REQUIRE_OK(clSetKernelArg(k, (cl_uint)a, sizeof(cl_mem), &m[a]));
    }
    size_t global = N;
    for (int r = 0; r < launches; r++)
        KT_REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, local ? &local : NULL,
                                             0, NULL, NULL));
    for (int a = 1; a < 7; a++)
        KT_REQUIRE_OK(
            clEnqueueReadBuffer(env->queue, m[a], CL_TRUE, 0, size[a], host[a], 0, NULL, NULL));
    int bad = 0;
    for (int b = 0; b < BINS && bad < 5; b++) {
        uint64_t c = (uint64_t)want_inc[b] * (uint64_t)launches;
        uint64_t v = want_v[b] * (uint64_t)launches;
        bool ok = inc[b] == (uint32_t)(7 + c) && dec[b] == (int32_t)(1000000 - c) &&
                  add[b] == (uint32_t)(3 + v) && sub[b] == -(int32_t)v &&
                  l[b] == (int64_t)(-5 + (v << 33)) && ul[b] == (uint64_t)0 - (v << 31);
        KT_CHECK(ok,
                 "local %zu, %d launches, bin %d: inc %u dec %d add %u sub %d long %lld "
                 "ulong %llu; want %llu items, sum %llu",
                 local, launches, b, inc[b], dec[b], add[b], sub[b], (long long)l[b],
                 (unsigned long long)ul[b], (unsigned long long)c, (unsigned long long)v);
        bad += !ok;
    }
    for (int a = 0; a < 7; a++)
        clReleaseMemObject(m[a]);
    clReleaseKernel(k);
}

static void test_collide(struct kt_env *env, cl_program p)
{
    static uint32_t h[8 * 256];
    uint32_t want[8] = {0};
    memset(h, 0, sizeof(h));
    for (int i = 0; i < N; i++)
        want[in[i] & 7]++;
    struct kt_arg args[] = {{KT_IN, sizeof(in), in}, {KT_INOUT, sizeof(h), h}};
    KT_EXPECT(kt_run_in(env, p, "collide", N, 0, 2, args), CL_SUCCESS);
    for (int j = 0; j < 8 * 256; j++) {
        uint32_t w = j % 256 == 0 ? want[j / 256] : 0;
        KT_CHECK(h[j] == w, "collide: h[%d] = %u, want %u", j, h[j], w);
    }
}

static void test_cancel(struct kt_env *env, cl_program p)
{
    static uint32_t h[BINS];
    static int64_t l[BINS];
    for (int b = 0; b < BINS; b++) {
        h[b] = 100u + (uint32_t)b;
        l[b] = -(int64_t)b;
    }
    struct kt_arg args[] = {
        {KT_IN, sizeof(in), in}, {KT_INOUT, sizeof(h), h}, {KT_INOUT, sizeof(l), l}};
    KT_EXPECT(kt_run_in(env, p, "cancel", N, 64, 3, args), CL_SUCCESS);
    for (int b = 0; b < BINS; b++)
        KT_CHECK(h[b] == 100u + (uint32_t)b && l[b] == -(int64_t)b, "cancel: bin %d: %u %lld", b,
                 h[b], (long long)l[b]);
}

static void test_tickets(struct kt_env *env, cl_program p, size_t local)
{
    static uint32_t h[BINS], c[1], t[N];
    static unsigned char seen[N];
    memset(h, 0, sizeof(h));
    c[0] = 0;
    struct kt_arg args[] = {{KT_IN, sizeof(in), in},
                            {KT_INOUT, sizeof(h), h},
                            {KT_INOUT, sizeof(c), c},
                            {KT_OUT, sizeof(t), t}};
    KT_EXPECT(kt_run_in(env, p, "tickets", N, local, 4, args), CL_SUCCESS);
    KT_CHECK(c[0] == N, "tickets: counter %u", c[0]);
    memset(seen, 0, sizeof(seen));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        bool ok = t[i] < N && !seen[t[i]];
        KT_CHECK(ok, "tickets: item %d got %u, out of range or repeated", i, t[i]);
        bad += !ok;
        if (t[i] < N)
            seen[t[i]] = 1;
    }
    for (int b = 0; b < BINS; b++)
        KT_CHECK(h[b] == want_inc[b], "tickets: bin %d holds %u, want %u", b, h[b], want_inc[b]);
}

static void test_bin_tickets(struct kt_env *env, cl_program p)
{
    static uint32_t h[BINS], t[N];
    static unsigned char seen[N];
    memset(h, 0, sizeof(h));
    struct kt_arg args[] = {
        {KT_IN, sizeof(in), in}, {KT_INOUT, sizeof(h), h}, {KT_OUT, sizeof(t), t}};
    KT_EXPECT(kt_run_in(env, p, "bin_tickets", N, 0, 3, args), CL_SUCCESS);
    /* Per bin, the tickets are 0 .. count - 1, each once: (bin, ticket) marks one cell. */
    uint32_t base[BINS], acc = 0;
    for (int b = 0; b < BINS; b++) {
        KT_CHECK(h[b] == want_inc[b], "bin_tickets: bin %d holds %u, want %u", b, h[b],
                 want_inc[b]);
        base[b] = acc;
        acc += want_inc[b];
    }
    memset(seen, 0, sizeof(seen));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        uint32_t b = in[i] & 255;
        bool ok = t[i] < want_inc[b] && !seen[base[b] + t[i]];
        KT_CHECK(ok, "bin_tickets: item %d of bin %u got %u (bin of %u)", i, b, t[i], want_inc[b]);
        bad += !ok;
        if (ok)
            seen[base[b] + t[i]] = 1;
    }
}

static void test_ticket_bins(struct kt_env *env, cl_program p)
{
    static uint32_t c[1], h[BINS];
    c[0] = 0;
    memset(h, 0, sizeof(h));
    struct kt_arg args[] = {{KT_INOUT, sizeof(c), c}, {KT_INOUT, sizeof(h), h}};
    KT_EXPECT(kt_run_in(env, p, "ticket_bins", N, 0, 2, args), CL_SUCCESS);
    KT_CHECK(c[0] == N, "ticket_bins: counter %u", c[0]);
    for (int b = 0; b < BINS; b++)
        KT_CHECK(h[b] == N / BINS, "ticket_bins: bin %d holds %u, want %u", b, h[b], N / BINS);
}

static void test_after_barrier(struct kt_env *env, cl_program p, size_t local)
{
    static uint32_t g[N], out[N];
    memset(g, 0, sizeof(g));
    struct kt_arg args[] = {{KT_INOUT, sizeof(g), g}, {KT_OUT, sizeof(out), out}};
    KT_EXPECT(kt_run_in(env, p, "after_barrier", N, local, 2, args), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        bool ok = out[i] == local && g[i / local] == local;
        KT_CHECK(ok, "after_barrier (local %zu): item %d read %u, want %zu", local, i, out[i],
                 local);
        bad += !ok;
    }
}

static void test_read_back(struct kt_env *env, cl_program p)
{
    static uint32_t h[N], out[N];
    for (int i = 0; i < N; i++)
        h[i] = (uint32_t)i;
    struct kt_arg args[] = {{KT_INOUT, sizeof(h), h}, {KT_OUT, sizeof(out), out}};
    KT_EXPECT(kt_run_in(env, p, "read_back", N, 0, 2, args), CL_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        bool ok = out[i] == (uint32_t)i + 1 && h[i] == (uint32_t)i + 1;
        KT_CHECK(ok, "read_back: item %d read %u, holds %u, want %u", i, out[i], h[i], i + 1);
        bad += !ok;
    }
}

static void test_relaxed(struct kt_env *env, cl_program p, size_t global, size_t local)
{
    static uint32_t h[BINS], plain[BINS];
    static uint64_t hl[BINS];
    uint32_t wc[BINS] = {0};
    uint64_t wv[BINS] = {0};
    for (size_t i = 0; i < global; i++) {
        wc[in[i] & 255]++;
        wv[in[i] & 255] += (in[i] >> 8) & 1023;
    }
    memset(h, 0, sizeof(h));
    memset(hl, 0, sizeof(hl));
    memset(plain, 0, sizeof(plain));
    struct kt_arg args[] = {{KT_IN, sizeof(in), in},
                            {KT_INOUT, sizeof(h), h},
                            {KT_INOUT, sizeof(hl), hl},
                            {KT_INOUT, sizeof(plain), plain}};
    KT_EXPECT(kt_run_in(env, p, "relaxed", global, local, 4, args), CL_SUCCESS);
    for (int b = 0; b < BINS; b++)
        KT_CHECK(h[b] == (uint32_t)(wv[b] - wc[b]) && hl[b] == wv[b] << 32 && plain[b] == wc[b],
                 "relaxed (global %zu, local %zu): bin %d: %u %llu %u, want %u %llu %u", global,
                 local, b, h[b], (unsigned long long)hl[b], plain[b], (uint32_t)(wv[b] - wc[b]),
                 (unsigned long long)(wv[b] << 32), wc[b]);
}

static void test_mixed(struct kt_env *env, cl_program p)
{
    static uint32_t h[BINS], s[BINS], lc[4];
    uint32_t wl[4] = {0};
    memset(h, 0, sizeof(h));
    memset(s, 0, sizeof(s));
    memset(lc, 0, sizeof(lc));
    for (int i = 0; i < N; i++)
        wl[in[i] & 3]++;
    struct kt_arg args[] = {{KT_IN, sizeof(in), in},
                            {KT_INOUT, sizeof(h), h},
                            {KT_INOUT, sizeof(s), s},
                            {KT_INOUT, sizeof(lc), lc}};
    KT_EXPECT(kt_run_in(env, p, "mixed", N, 64, 4, args), CL_SUCCESS);
    for (int b = 0; b < BINS; b++)
        KT_CHECK(h[b] == want_inc[b] && s[b] == 2 * want_inc[b], "mixed: bin %d: %u %u, want %u", b,
                 h[b], s[b], want_inc[b]);
    for (int b = 0; b < 4; b++)
        KT_CHECK(lc[b] == wl[b], "mixed: local bin %d: %u, want %u", b, lc[b], wl[b]);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    fill();

    cl_program legacy = kt_build(&env, legacy_src, "-cl-std=CL1.2");
    test_counts(&env, legacy, 0, 1);
    test_counts(&env, legacy, 0, 2);
    test_counts(&env, legacy, 1, 1);
    test_counts(&env, legacy, 64, 3);
    test_collide(&env, legacy);
    test_cancel(&env, legacy);
    test_tickets(&env, legacy, 0);
    test_tickets(&env, legacy, 64);
    test_bin_tickets(&env, legacy);
    test_ticket_bins(&env, legacy);
    test_read_back(&env, legacy);
    test_after_barrier(&env, legacy, 64);
    test_after_barrier(&env, legacy, 256);
    clReleaseProgram(legacy);

    cl_program c11 = kt_build(&env, c11_src, "-cl-std=CL3.0");
    test_relaxed(&env, c11, N, 0);
    test_relaxed(&env, c11, N, 64);
    test_relaxed(&env, c11, 13 * 100 + 7, 13);
    test_mixed(&env, c11);
    clReleaseProgram(c11);

    kt_teardown(&env);
    return kt_finish("atomic_combine");
}
