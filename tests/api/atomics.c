/*
 * Atomics, fences and the address space qualifier functions.
 *
 * - OpenCL 1.x atomic_* (int, uint, float atomic_xchg) and atom_* (int, long, ulong)
 *   on __global counters shared by 64 work-groups and on __local counters of each
 *   group, at -cl-std=CL1.2 and CL3.0: every final counter and every returned value
 *   (tickets of atomic_inc, old values of atomic_xchg) is checked against the host.
 * - C11 atomics for int, uint, long, ulong on global counters (generic overloads) and
 *   on __local counters through generic pointers, with every memory order and scope as
 *   constants and as run-time values; compare_exchange loops (strong and weak); a
 *   failing compare_exchange; float and double load, store, exchange and
 *   compare-exchange loops, with the bitwise comparison of NaN and -0.0.
 * - The same C11 tests through the per-address-space overloads of Clang's full header
 *   (__global and __local objects), which the kernel declares itself.
 * - atomic_flag as a spin lock guarding a non-atomic counter across work-groups, and
 *   the __local atomic_flag overloads.
 * - Fences: the "last group" pattern (write_mem_fence, atomic_inc, read_mem_fence),
 *   and every atomic_work_item_fence order and scope.
 * - to_global, to_local, to_private and get_fence on global, __local argument,
 *   kernel-scope __local, private and program-scope pointers, with and without a
 *   barrier (private values then live in the per-worker scratch area).
 * The device must report the atomics extensions and capabilities, and a kernel calling
 * atomic_fetch_add on a float (cl_ext_float_atomics, which Kiln lacks) must fail to build
 * with a log naming the function.
 */
#include "kiln_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GROUPS 64
#define LOCAL  64
#define N      (GROUPS * LOCAL)
#define NC     14 /* counters */
#define NR     4  /* values returned per work-item */

/* ---- the integer model: values of `bits` width, signed or not, held in uint64_t --- */

struct itype {
    const char *name;
    int bits;
    bool is_signed;
};

static uint64_t trunc_to(const struct itype *t, uint64_t v)
{
    return t->bits == 64 ? v : v & 0xffffffffu;
}

/* The value as a signed or unsigned 64-bit number, for comparisons. */
static bool less(const struct itype *t, uint64_t a, uint64_t b)
{
    if (!t->is_signed)
        return a < b;
    int64_t x = t->bits == 64 ? (int64_t)a : (int64_t)(int32_t)(uint32_t)a;
    int64_t y = t->bits == 64 ? (int64_t)b : (int64_t)(int32_t)(uint32_t)b;
    return x < y;
}

/* Work-item i's operands, as the kernels compute them. */
static uint64_t val_v(const struct itype *t, uint64_t i)
{
    return trunc_to(t, i * (t->bits == 64 ? 0x100000007ull : 7u) + 3u);
}
static uint64_t val_w(const struct itype *t, uint64_t i)
{
    return trunc_to(t, (i * 2654435761u) ^ (t->bits == 64 ? 0x8000000500000000ull : 0x80000005u));
}
static uint64_t val_bit(const struct itype *t, uint64_t i)
{
    return (uint64_t)1 << ((i % 5) * 3 + (t->bits == 64 ? 20 : 0));
}

static uint64_t load(const void *p, size_t i, int bits)
{
    return bits == 64 ? ((const uint64_t *)p)[i] : ((const uint32_t *)p)[i];
}
static void store(void *p, size_t i, int bits, uint64_t v)
{
    if (bits == 64)
        ((uint64_t *)p)[i] = v;
    else
        ((uint32_t *)p)[i] = (uint32_t)v;
}

static uint64_t initial(const struct itype *t, int c)
{
    static const uint64_t init[NC] = {100,  5000, 7000, 9,  0x40000000, 0,   ~0ull,
                                      0x10, 0x55, 1000, 77, 321,        654, 987};
    uint64_t v = init[c];
    if (c == 4)
        v = t->bits == 64 ? 0x4000000000000000ull : 0x40000000u;
    if (c == 5)
        v = t->is_signed ? trunc_to(t, (uint64_t)-5) : 1;
    return trunc_to(t, v);
}

/* Whether vals[0..n) plus `final` is {first} plus {i0 + 1..i0 + n} as a multiset. */
static bool xchg_ok(const struct itype *t, const uint64_t *vals, size_t i0, size_t n,
                    uint64_t first, uint64_t final)
{
    char *seen = calloc(n + 2, 1);
    bool ok = seen != NULL;
    bool first_seen = false;
    for (size_t k = 0; k <= n && ok; k++) {
        uint64_t v = k < n ? vals[k] : final;
        if (v == first && !first_seen) {
            first_seen = true;
            continue;
        }
        uint64_t u = trunc_to(t, v) - i0;
        if (u < 1 || u > n || seen[u])
            ok = false;
        else
            seen[u] = 1;
    }
    free(seen);
    return ok && first_seen;
}

/* Whether tickets[0..n) is a permutation of first..first+n-1. */
static bool tickets_ok(const uint64_t *tickets, size_t n, uint64_t first)
{
    char *seen = calloc(n, 1);
    bool ok = seen != NULL;
    for (size_t k = 0; k < n && ok; k++) {
        uint64_t u = tickets[k] - first;
        if (u >= n || seen[u])
            ok = false;
        else
            seen[u] = 1;
    }
    free(seen);
    return ok;
}

/*
 * Checks counters c (NC of them) after work-items [i0, i0 + n) ran the operations of
 * the legacy kernel (c11 = true: of the C11 kernel), with returned values r.
 */
static void check_counters(const struct itype *t, const char *what, const void *c, const void *r,
                           size_t i0, size_t n, bool c11)
{
    uint64_t sum = 0, min = initial(t, 4), max = initial(t, 5), bits = 0, x = 0;
    uint64_t *tick = malloc(n * sizeof(*tick)), *old = malloc(n * sizeof(*old));
    KT_REQUIRE(tick && old, "out of memory");
    for (size_t k = 0; k < n; k++) {
        uint64_t i = i0 + k;
        sum += val_v(t, i);
        if (less(t, val_w(t, i), min))
            min = val_w(t, i);
        if (less(t, max, val_w(t, i)))
            max = val_w(t, i);
        bits |= val_bit(t, i);
        x ^= val_v(t, i);
        tick[k] = load(r, i * NR + 0, t->bits);
        old[k] = load(r, i * NR + 1, t->bits);
    }
    uint64_t want[NC];
    for (int k = 0; k < NC; k++)
        want[k] = initial(t, k);
    want[0] += n;
    want[1] += sum;
    want[2] -= sum;
    want[3] -= n;
    want[4] = min;
    want[5] = max;
    want[6] &= ~bits;
    want[7] |= bits;
    want[8] ^= x;
    want[10] += sum;
    /* Legacy: 9 is exchanged. C11: 9 goes up and down by v, 12 is stored, 13 exchanged. */
    for (int k = 0; k < NC; k++) {
        if ((k == 9 && !c11) || (c11 && (k == 12 || k == 13)))
            continue;
        uint64_t got = load(c, (size_t)k, t->bits);
        KT_CHECK(got == trunc_to(t, want[k]), "%s %s counter %d: got 0x%llx, want 0x%llx", t->name,
                 what, k, (unsigned long long)got, (unsigned long long)trunc_to(t, want[k]));
    }
    KT_CHECK(tickets_ok(tick, n, initial(t, 0)), "%s %s: the tickets are not a permutation",
             t->name, what);
    size_t xc = c11 ? 13 : 9;
    KT_CHECK(xchg_ok(t, old, i0, n, initial(t, (int)xc), load(c, xc, t->bits)),
             "%s %s: exchanged values lost or duplicated", t->name, what);
    for (size_t k = 0; k < n; k++) {
        uint64_t i = i0 + k;
        uint64_t r2 = load(r, i * NR + 2, t->bits), r3 = load(r, i * NR + 3, t->bits);
        if (!c11) {
            KT_CHECK(r2 == initial(t, 11), "%s %s: failed cmpxchg of item %llu returned 0x%llx",
                     t->name, what, (unsigned long long)i, (unsigned long long)r2);
        } else {
            KT_CHECK(r2 == 0 && r3 == initial(t, 11),
                     "%s %s: failed compare_exchange of item %llu: %llu, expected 0x%llx", t->name,
                     what, (unsigned long long)i, (unsigned long long)r2, (unsigned long long)r3);
        }
        if (kt_failures > 20)
            break;
    }
    if (c11) {
        uint64_t s = load(c, 12, t->bits);
        bool found = false;
        for (size_t k = 0; k < n && !found; k++)
            found = s == val_v(t, i0 + k);
        KT_CHECK(found, "%s %s: counter 12 holds 0x%llx, which no work-item stored", t->name, what,
                 (unsigned long long)s);
    }
    free(tick);
    free(old);
}

/* ---- OpenCL 1.x and atom_* ------------------------------------------------------------ */

static const char *legacy_src =
    "#ifdef IS64\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "#define MULV 0x100000007UL\n"
    "#define WX 0x8000000500000000UL\n"
    "#define BSH 20\n"
    "#else\n"
    "#define MULV 7UL\n"
    "#define WX 0x80000005UL\n"
    "#define BSH 0\n"
    "#endif\n"
    "#define CAT_(a, b) a##b\n"
    "#define CAT(a, b) CAT_(a, b)\n"
    "#define F(n) CAT(P, n)\n"
    "#define OPS(AS) \\\n"
    "void ops_##AS(volatile AS T *c, ulong i, global T *r) { \\\n"
    "  T v = (T)(i * MULV + 3UL), w = (T)((i * 2654435761UL) ^ WX); \\\n"
    "  T bit = (T)((T)1 << ((i % 5) * 3 + BSH)); \\\n"
    "  r[0] = F(_inc)(&c[0]); \\\n"
    "  F(_add)(&c[1], v); \\\n"
    "  F(_sub)(&c[2], v); \\\n"
    "  F(_dec)(&c[3]); \\\n"
    "  F(_min)(&c[4], w); \\\n"
    "  F(_max)(&c[5], w); \\\n"
    "  F(_and)(&c[6], (T)~bit); \\\n"
    "  F(_or)(&c[7], bit); \\\n"
    "  F(_xor)(&c[8], v); \\\n"
    "  r[1] = F(_xchg)(&c[9], (T)(i + 1)); \\\n"
    "  T o = c[10], got; \\\n"
    "  while ((got = F(_cmpxchg)(&c[10], o, (T)(o + v))) != o) o = got; \\\n"
    "  r[2] = F(_cmpxchg)(&c[11], (T)12345, (T)i); \\\n"
    "  r[3] = 0; \\\n"
    "}\n"
    "OPS(global)\n"
    "OPS(local)\n"
    "kernel void glob(global T *c, global T *r) {\n"
    "  size_t i = get_global_id(0);\n"
    "  ops_global(c, i, r + i * 4);\n"
    "}\n"
    "kernel void loc(global const T *init, global T *c, global T *r) {\n"
    "  local T lc[14];\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);\n"
    "  if (l < 14) lc[l] = init[l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  ops_local(lc, i, r + i * 4);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < 14) c[g * 14 + l] = lc[l];\n"
    "}\n"
    "#ifdef FLOAT_XCHG\n"
    "kernel void fx(global float *c, global float *r) {\n"
    "  local float lf;\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);\n"
    "  if (l == 0) lf = -1.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  r[i * 2] = atomic_xchg(&c[0], (float)(i + 1));\n"
    "  r[i * 2 + 1] = atomic_xchg(&lf, (float)(l + 1));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) c[1 + g] = lf;\n"
    "}\n"
    "#endif\n";

static void run_legacy(struct kt_env *env, const struct itype *t, const char *prefix,
                       const char *std)
{
    char opts[256];
    snprintf(opts, sizeof(opts), "-cl-std=%s -DT=%s -DP=%s%s", std, t->name, prefix,
             t->bits == 64 ? " -DIS64" : "");
    size_t es = (size_t)t->bits / 8;
    unsigned char *c = malloc(NC * es), *r = malloc((size_t)N * NR * es),
                  *lc = malloc((size_t)GROUPS * NC * es), *init = malloc(NC * es);
    KT_REQUIRE(c && r && lc && init, "out of memory");
    for (int k = 0; k < NC; k++) {
        store(c, (size_t)k, t->bits, initial(t, k));
        store(init, (size_t)k, t->bits, initial(t, k));
    }
    char what[64];
    snprintf(what, sizeof(what), "%s %s global", prefix, std);
    struct kt_arg ga[] = {{KT_INOUT, NC * es, c}, {KT_OUT, (size_t)N * NR * es, r}};
    KT_EXPECT(kt_run(env, legacy_src, opts, "glob", N, LOCAL, 2, ga), CL_SUCCESS);
    check_counters(t, what, c, r, 0, N, false);

    snprintf(what, sizeof(what), "%s %s local", prefix, std);
    struct kt_arg la[] = {{KT_IN, NC * es, init},
                          {KT_OUT, (size_t)GROUPS * NC * es, lc},
                          {KT_OUT, (size_t)N * NR * es, r}};
    KT_EXPECT(kt_run(env, legacy_src, opts, "loc", N, LOCAL, 3, la), CL_SUCCESS);
    for (size_t g = 0; g < GROUPS; g++)
        check_counters(t, what, lc + g * NC * es, r, g * LOCAL, LOCAL, false);
    free(c);
    free(r);
    free(lc);
    free(init);
}

static void run_float_xchg(struct kt_env *env, const char *std)
{
    char opts[128];
    snprintf(opts, sizeof(opts), "-cl-std=%s -DT=int -DP=atomic -DFLOAT_XCHG", std);
    float c[1 + GROUPS] = {0.5f}, *r = malloc(sizeof(float) * 2 * N);
    KT_REQUIRE(r, "out of memory");
    struct kt_arg a[] = {{KT_INOUT, sizeof(c), c}, {KT_OUT, sizeof(float) * 2 * N, r}};
    KT_EXPECT(kt_run(env, legacy_src, opts, "fx", N, LOCAL, 2, a), CL_SUCCESS);
    /* Global: the returned values and the final one are 0.5 and 1..N, each once. */
    char *seen = calloc(N + 1, 1);
    KT_REQUIRE(seen, "out of memory");
    bool ok = true, half = false;
    for (size_t k = 0; k <= N; k++) {
        float v = k < N ? r[k * 2] : c[0];
        if (v == 0.5f && !half) {
            half = true;
            continue;
        }
        size_t u = (size_t)v;
        if ((float)u != v || u < 1 || u > N || seen[u])
            ok = false;
        else
            seen[u] = 1;
    }
    KT_CHECK(ok && half, "float atomic_xchg %s on global memory lost or duplicated values", std);
    /* Local: per group, -1 and 1..LOCAL. */
    for (size_t g = 0; g < GROUPS; g++) {
        float sum = c[1 + g];
        for (size_t l = 0; l < LOCAL; l++)
            sum += r[(g * LOCAL + l) * 2 + 1];
        KT_CHECK(sum == (float)(LOCAL * (LOCAL + 1) / 2 - 1),
                 "float atomic_xchg %s on local memory, group %zu: sum %g", std, g, sum);
    }
    free(seen);
    free(r);
}

/* ---- C11 ------------------------------------------------------------------------------ */

static const char *c11_src =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "#define OPS(NAME, AS, T, AT, MULV, WX, BSH) \\\n"
    "void NAME(volatile AS AT *c, ulong i, global T *r, memory_scope s, \\\n"
    "             memory_order ro, memory_scope rs) { \\\n"
    "  T v = (T)(i * MULV + 3UL), w = (T)((i * 2654435761UL) ^ WX); \\\n"
    "  T bit = (T)((T)1 << ((i % 5) * 3 + BSH)); \\\n"
    "  r[0] = atomic_fetch_add(&c[0], (T)1); \\\n"
    "  switch (i % 5) { \\\n"
    "  case 0: atomic_fetch_add_explicit(&c[1], v, memory_order_relaxed); break; \\\n"
    "  case 1: atomic_fetch_add_explicit(&c[1], v, memory_order_acquire); break; \\\n"
    "  case 2: atomic_fetch_add_explicit(&c[1], v, memory_order_release); break; \\\n"
    "  case 3: atomic_fetch_add_explicit(&c[1], v, memory_order_acq_rel); break; \\\n"
    "  default: atomic_fetch_add_explicit(&c[1], v, memory_order_seq_cst); break; \\\n"
    "  } \\\n"
    "  atomic_fetch_sub_explicit(&c[2], v, ro, rs); \\\n"
    "  atomic_fetch_sub_explicit(&c[3], (T)1, memory_order_acq_rel, s); \\\n"
    "  atomic_fetch_min_explicit(&c[4], w, memory_order_relaxed, s); \\\n"
    "  atomic_fetch_max(&c[5], w); \\\n"
    "  atomic_fetch_and_explicit(&c[6], (T)~bit, ro); \\\n"
    "  atomic_fetch_or_explicit(&c[7], bit, memory_order_release, s); \\\n"
    "  atomic_fetch_xor_explicit(&c[8], v, memory_order_seq_cst, s); \\\n"
    "  r[1] = atomic_exchange_explicit(&c[13], (T)(i + 1), ro, rs); \\\n"
    "  T e = atomic_load_explicit(&c[10], memory_order_relaxed, s); \\\n"
    "  while (!atomic_compare_exchange_strong_explicit(&c[10], &e, (T)(e + v), \\\n"
    "         memory_order_acq_rel, memory_order_relaxed, s)) ; \\\n"
    "  T f = atomic_load(&c[9]); \\\n"
    "  while (!atomic_compare_exchange_weak_explicit(&c[9], &f, (T)(f + v), ro, \\\n"
    "         memory_order_relaxed)) ; \\\n"
    "  while (!atomic_compare_exchange_weak(&c[9], &f, (T)(f - v))) ; \\\n"
    "  T x = (T)12345; \\\n"
    "  r[2] = atomic_compare_exchange_strong_explicit(&c[11], &x, (T)i, ro, \\\n"
    "         memory_order_relaxed, rs); \\\n"
    "  r[3] = x; \\\n"
    "  switch (i % 3) { \\\n"
    "  case 0: atomic_store_explicit(&c[12], v, memory_order_relaxed, s); break; \\\n"
    "  case 1: atomic_store_explicit(&c[12], v, memory_order_release); break; \\\n"
    "  default: atomic_store(&c[12], v); break; \\\n"
    "  } \\\n"
    "}\n"
    "#define C11(T, AT, MULV, WX, BSH, GAS, LAS, P) \\\n"
    "OPS(P##g_##T, GAS, T, AT, MULV, WX, BSH) \\\n"
    "OPS(P##l_##T, LAS, T, AT, MULV, WX, BSH) \\\n"
    "kernel void P##glob_##T(global AT *c, global T *r, global const int *ord, \\\n"
    "                     global const int *scp) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  P##g_##T(c, i, r + i * 4, memory_scope_device, (memory_order)ord[i % 5], \\\n"
    "          (memory_scope)scp[i % 2]); \\\n"
    "} \\\n"
    "kernel void P##loc_##T(global const T *init, global T *c, global T *r, \\\n"
    "                    global const int *ord) { \\\n"
    "  local AT lc[14]; \\\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), g = get_group_id(0); \\\n"
    "  if (l < 14) atomic_init(&lc[l], init[l]); \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); \\\n"
    "  P##l_##T(lc, i, r + i * 4, memory_scope_work_group, (memory_order)ord[i % 5], \\\n"
    "          memory_scope_work_group); \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); \\\n"
    "  if (l < 14) c[g * 14 + l] = atomic_load_explicit(&lc[l], memory_order_relaxed, \\\n"
    "                                                   memory_scope_work_group); \\\n"
    "}\n"
    "#define TYPES(GAS, LAS, P) \\\n"
    "C11(int, atomic_int, 7UL, 0x80000005UL, 0, GAS, LAS, P) \\\n"
    "C11(uint, atomic_uint, 7UL, 0x80000005UL, 0, GAS, LAS, P) \\\n"
    "C11(long, atomic_long, 0x100000007UL, 0x8000000500000000UL, 20, GAS, LAS, P) \\\n"
    "C11(ulong, atomic_ulong, 0x100000007UL, 0x8000000500000000UL, 20, GAS, LAS, P)\n"
    "#ifdef HDR\n"
    /* The per-address-space overloads of Clang's full header, declared here so that the
       calls take them instead of the generic ones of the tablegen declarations. */
    "#define OV __attribute__((overloadable))\n"
    "#define DECL(AS, T, AT) \\\n"
    "T OV atomic_fetch_add(volatile AS AT *, T); \\\n"
    "T OV atomic_fetch_add_explicit(volatile AS AT *, T, memory_order); \\\n"
    "T OV atomic_fetch_sub_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "T OV atomic_fetch_min_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "T OV atomic_fetch_max(volatile AS AT *, T); \\\n"
    "T OV atomic_fetch_and_explicit(volatile AS AT *, T, memory_order); \\\n"
    "T OV atomic_fetch_or_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "T OV atomic_fetch_xor_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "T OV atomic_exchange_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "T OV atomic_load(volatile AS AT *); \\\n"
    "T OV atomic_load_explicit(volatile AS AT *, memory_order, memory_scope); \\\n"
    "bool OV atomic_compare_exchange_strong_explicit(volatile AS AT *, private T *, T, \\\n"
    "                                                memory_order, memory_order, \\\n"
    "                                                memory_scope); \\\n"
    "bool OV atomic_compare_exchange_weak_explicit(volatile AS AT *, private T *, T, \\\n"
    "                                              memory_order, memory_order); \\\n"
    "bool OV atomic_compare_exchange_weak(volatile AS AT *, private T *, T); \\\n"
    "void OV atomic_store(volatile AS AT *, T); \\\n"
    "void OV atomic_store_explicit(volatile AS AT *, T, memory_order); \\\n"
    "void OV atomic_store_explicit(volatile AS AT *, T, memory_order, memory_scope); \\\n"
    "void OV atomic_init(volatile AS AT *, T);\n"
    "DECL(global, int, atomic_int)\nDECL(local, int, atomic_int)\n"
    "DECL(global, uint, atomic_uint)\nDECL(local, uint, atomic_uint)\n"
    "DECL(global, long, atomic_long)\nDECL(local, long, atomic_long)\n"
    "DECL(global, ulong, atomic_ulong)\nDECL(local, ulong, atomic_ulong)\n"
    "bool OV atomic_flag_test_and_set_explicit(volatile local atomic_flag *, memory_order,\n"
    "                                          memory_scope);\n"
    "void OV atomic_flag_clear_explicit(volatile local atomic_flag *, memory_order,\n"
    "                                   memory_scope);\n"
    "TYPES(global, local, h)\n"
    /* One work-item per group finds the local flag clear. */
    "kernel void hflag(global int *out) {\n"
    "  local atomic_flag f;\n"
    "  if (get_local_id(0) == 0)\n"
    "    atomic_flag_clear_explicit(&f, memory_order_release, memory_scope_work_group);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = atomic_flag_test_and_set_explicit(&f, memory_order_acquire,\n"
    "                                                            memory_scope_work_group);\n"
    "}\n"
    "#else\n"
    "TYPES(, , )\n"
    /* Floating point: compare-exchange loops, exchange, store, load, bitwise compare. */
    "#define FP(T, AT) \\\n"
    "kernel void fp_##T(global AT *c, global T *r) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  T e = atomic_load_explicit(&c[0], memory_order_acquire); \\\n"
    "  while (!atomic_compare_exchange_weak(&c[0], &e, e + (T)1)) ; \\\n"
    "  r[i] = atomic_exchange(&c[1], (T)(i + 1)); \\\n"
    "  atomic_store_explicit(&c[2], (T)2.5, memory_order_release, memory_scope_device); \\\n"
    "  if (i == 0) { \\\n"
    "    T nan = atomic_load(&c[3]), z = (T)0; \\\n"
    "    r[N + 0] = atomic_compare_exchange_strong(&c[3], &nan, (T)7); \\\n"
    "    r[N + 1] = atomic_compare_exchange_strong(&c[4], &z, (T)8); \\\n"
    "    r[N + 2] = (T)1 / z < (T)0 ? (T)1 : (T)0; \\\n"
    "    r[N + 3] = atomic_load_explicit(&c[5], memory_order_seq_cst, \\\n"
    "                                    memory_scope_all_svm_devices); \\\n"
    "  } \\\n"
    "}\n"
    "FP(float, atomic_float)\n"
    "FP(double, atomic_double)\n"
    /* A spin lock from atomic_flag around a plain counter; one work-item per group. */
    "kernel void spin(global atomic_flag *flag, global int *counter, int reps) {\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  for (int k = 0; k < reps; k++) {\n"
    "    if (k & 1) {\n"
    "      while (atomic_flag_test_and_set_explicit(flag, memory_order_acquire,\n"
    "                                               memory_scope_device)) ;\n"
    "    } else {\n"
    "      while (atomic_flag_test_and_set(flag)) ;\n"
    "    }\n"
    "    counter[0] = counter[0] + 1;\n"
    "    counter[1] = counter[1] + (int)get_group_id(0);\n"
    "    if (k & 1) atomic_flag_clear_explicit(flag, memory_order_release,\n"
    "                                          memory_scope_device);\n"
    "    else atomic_flag_clear(flag);\n"
    "  }\n"
    "}\n"
    /* Every fence order and scope, constant and from memory, around plain accesses. */
    "kernel void fences(global int *out, global const int *ord, global const int *scp) {\n"
    "  local int l[64];\n"
    "  size_t i = get_global_id(0), li = get_local_id(0);\n"
    "  l[li] = (int)i;\n"
    "  mem_fence(CLK_LOCAL_MEM_FENCE);\n"
    "  read_mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  write_mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire,\n"
    "                         memory_scope_work_group);\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release,\n"
    "                         memory_scope_device);\n"
    "  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acq_rel,\n"
    "                         memory_scope_work_item);\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst,\n"
    "                         memory_scope_all_svm_devices);\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,\n"
    "                         (memory_order)ord[i % 5], (memory_scope)scp[i % 4]);\n"
    "  out[i] = l[li] * 2;\n"
    "}\n"
    "#endif\n";

/* hdr: through the per-address-space overloads of the full header, declared by the kernel. */
static void run_c11(struct kt_env *env, const struct itype *t, bool hdr)
{
    const char *opts = hdr ? "-cl-std=CL3.0 -DN=4096 -DHDR" : "-cl-std=CL3.0 -DN=4096";
    const char *pre = hdr ? "h" : "";
    size_t es = (size_t)t->bits / 8;
    unsigned char *c = malloc(NC * es), *r = malloc((size_t)N * NR * es),
                  *lc = malloc((size_t)GROUPS * NC * es), *init = malloc(NC * es);
    KT_REQUIRE(c && r && lc && init, "out of memory");
    for (int k = 0; k < NC; k++) {
        store(c, (size_t)k, t->bits, initial(t, k));
        store(init, (size_t)k, t->bits, initial(t, k));
    }
    /* Run-time orders (relaxed ... seq_cst) and scopes (device, all_svm_devices). */
    cl_int ord[5] = {0, 2, 3, 4, 5}, scp[2] = {2, 3};
    char name[32], what[32];
    snprintf(name, sizeof(name), "%sglob_%s", pre, t->name);
    struct kt_arg ga[] = {{KT_INOUT, NC * es, c},
                          {KT_OUT, (size_t)N * NR * es, r},
                          {KT_IN, sizeof(ord), ord},
                          {KT_IN, sizeof(scp), scp}};
    KT_EXPECT(kt_run(env, c11_src, opts, name, N, LOCAL, 4, ga), CL_SUCCESS);
    check_counters(t, hdr ? "C11 __global" : "C11 global", c, r, 0, N, true);

    snprintf(name, sizeof(name), "%sloc_%s", pre, t->name);
    snprintf(what, sizeof(what), hdr ? "C11 __local" : "C11 local");
    struct kt_arg la[] = {{KT_IN, NC * es, init},
                          {KT_OUT, (size_t)GROUPS * NC * es, lc},
                          {KT_OUT, (size_t)N * NR * es, r},
                          {KT_IN, sizeof(ord), ord}};
    KT_EXPECT(kt_run(env, c11_src, opts, name, N, LOCAL, 4, la), CL_SUCCESS);
    for (size_t g = 0; g < GROUPS; g++)
        check_counters(t, what, lc + g * NC * es, r, g * LOCAL, LOCAL, true);
    free(c);
    free(r);
    free(lc);
    free(init);
}

/* Floating-point C11 atomics; T is float or double. */
#define RUN_FP(T, NAME)                                                                            \
    do {                                                                                           \
        T c[6] = {0, (T)0.5, 0, (T)NAN, (T)-0.0, (T)-3.25}, *r = malloc(sizeof(T) * (N + 4));      \
        KT_REQUIRE(r, "out of memory");                                                            \
        T nan_bits = c[3];                                                                         \
        struct kt_arg a[] = {{KT_INOUT, sizeof(c), c}, {KT_OUT, sizeof(T) * (N + 4), r}};          \
        KT_EXPECT(kt_run(env, c11_src, "-cl-std=CL3.0 -DN=4096", "fp_" NAME, N, LOCAL, 2, a),      \
                  CL_SUCCESS);                                                                     \
        KT_CHECK(c[0] == (T)N, NAME " compare-exchange loop: %g, want %d", (double)c[0], N);       \
        char *seen = calloc(N + 1, 1);                                                             \
        KT_REQUIRE(seen, "out of memory");                                                         \
        bool ok = true, half = false;                                                              \
        for (size_t k = 0; k <= N; k++) {                                                          \
            T v = k < N ? r[k] : c[1];                                                             \
            if (v == (T)0.5 && !half) {                                                            \
                half = true;                                                                       \
                continue;                                                                          \
            }                                                                                      \
            size_t u = (size_t)v;                                                                  \
            if ((T)u != v || u < 1 || u > N || seen[u])                                            \
                ok = false;                                                                        \
            else                                                                                   \
                seen[u] = 1;                                                                       \
        }                                                                                          \
        free(seen);                                                                                \
        KT_CHECK(ok &&half, NAME " atomic_exchange lost or duplicated values");                    \
        KT_CHECK(c[2] == (T)2.5, NAME " atomic_store: %g", (double)c[2]);                          \
        KT_CHECK(r[N] == 1 && c[3] == (T)7,                                                        \
                 NAME " compare_exchange of NaN with the same NaN bits: %g, %g", (double)r[N],     \
                 (double)c[3]);                                                                    \
        KT_CHECK(r[N + 1] == 0 && r[N + 2] == 1 && signbit(c[4]),                                  \
                 NAME " compare_exchange of -0.0 with +0.0: %g, %g", (double)r[N + 1],             \
                 (double)r[N + 2]);                                                                \
        KT_CHECK(r[N + 3] == (T)-3.25, NAME " atomic_load_explicit: %g", (double)r[N + 3]);        \
        (void)nan_bits;                                                                            \
        free(r);                                                                                   \
    } while (0)

static void run_fp(struct kt_env *env)
{
    RUN_FP(cl_float, "float");
    RUN_FP(cl_double, "double");
}

static void run_spin(struct kt_env *env)
{
    cl_int flag = 0, counter[2] = {0, 0}, reps = 200;
    struct kt_arg a[] = {{KT_INOUT, sizeof(flag), &flag},
                         {KT_INOUT, sizeof(counter), counter},
                         {KT_VALUE, sizeof(reps), &reps}};
    KT_EXPECT(kt_run(env, c11_src, "-cl-std=CL3.0 -DN=4096", "spin", GROUPS * 4, 4, 3, a),
              CL_SUCCESS);
    KT_CHECK(counter[0] == GROUPS * reps, "spin lock: counter %d, want %d", counter[0],
             GROUPS * reps);
    KT_CHECK(counter[1] == reps * GROUPS * (GROUPS - 1) / 2, "spin lock: sum %d, want %d",
             counter[1], reps * GROUPS * (GROUPS - 1) / 2);
    KT_CHECK(flag == 0, "spin lock: the flag is left set (%d)", flag);
}

/* The __local atomic_flag overloads: in each group exactly one work-item finds it clear. */
static void run_hflag(struct kt_env *env)
{
    cl_int *out = malloc(sizeof(cl_int) * N);
    KT_REQUIRE(out, "out of memory");
    struct kt_arg a[] = {{KT_OUT, sizeof(cl_int) * N, out}};
    KT_EXPECT(kt_run(env, c11_src, "-cl-std=CL3.0 -DN=4096 -DHDR", "hflag", N, LOCAL, 1, a),
              CL_SUCCESS);
    for (size_t g = 0; g < GROUPS; g++) {
        int clear = 0, set = 0;
        for (size_t l = 0; l < LOCAL; l++) {
            clear += out[g * LOCAL + l] == 0;
            set += out[g * LOCAL + l] == 1;
        }
        KT_CHECK(clear == 1 && set == LOCAL - 1, "local atomic_flag, group %zu: %d clear, %d set",
                 g, clear, set);
    }
    free(out);
}

static void run_fences(struct kt_env *env)
{
    cl_int ord[5] = {2, 3, 4, 5, 5}, scp[4] = {0, 1, 2, 3}, *out = malloc(sizeof(cl_int) * N);
    KT_REQUIRE(out, "out of memory");
    struct kt_arg a[] = {
        {KT_OUT, sizeof(cl_int) * N, out}, {KT_IN, sizeof(ord), ord}, {KT_IN, sizeof(scp), scp}};
    KT_EXPECT(kt_run(env, c11_src, "-cl-std=CL3.0 -DN=4096", "fences", N, LOCAL, 3, a), CL_SUCCESS);
    for (size_t i = 0; i < N; i++)
        if (out[i] != (cl_int)i * 2) {
            KT_CHECK(0, "fences: out[%zu] = %d", i, out[i]);
            break;
        }
    free(out);
}

/* The "last group" pattern: fences order the partial sums before the group count. */
static const char *last_src =
    "kernel void last(global const int *in, global int *partial, global int *done) {\n"
    "  local int sum;\n"
    "  size_t l = get_local_id(0);\n"
    "  if (l == 0) sum = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_add(&sum, in[get_global_id(0)]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) {\n"
    "    partial[get_group_id(0)] = sum;\n"
    "    write_mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    if (atomic_inc(&done[0]) == (int)get_num_groups(0) - 1) {\n"
    "      read_mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "      int s = 0;\n"
    "      for (size_t g = 0; g < get_num_groups(0); g++)\n"
    "        s += ((volatile global int *)partial)[g];\n"
    "      mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "      done[1] = s;\n"
    "    }\n"
    "  }\n"
    "}\n";

static void run_last(struct kt_env *env, const char *std)
{
    char opts[64];
    snprintf(opts, sizeof(opts), "-cl-std=%s", std);
    cl_int *in = malloc(sizeof(cl_int) * N), partial[GROUPS], done[2] = {0, -1};
    KT_REQUIRE(in, "out of memory");
    long want = 0;
    for (size_t i = 0; i < N; i++) {
        in[i] = (cl_int)(i * 37 % 1001) - 500;
        want += in[i];
    }
    struct kt_arg a[] = {{KT_IN, sizeof(cl_int) * N, in},
                         {KT_OUT, sizeof(partial), partial},
                         {KT_INOUT, sizeof(done), done}};
    KT_EXPECT(kt_run(env, last_src, opts, "last", N, LOCAL, 3, a), CL_SUCCESS);
    KT_CHECK(done[0] == GROUPS && done[1] == want, "last group %s: count %d, sum %d, want %ld", std,
             done[0], done[1], want);
    free(in);
}

/* to_global, to_local, to_private, get_fence: every entry of out must be 1. */
static const char *addr_src =
    "kernel void addr(global int *g, local int *l, global int *out) {\n"
    "  local int kv[4];\n"
    "  int p[4];\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int k = 0; k < 4; k++) p[k] = (int)i + k;\n"
    "  generic int *gp = g + 1, *lp = l + 2, *kp = &kv[1], *pp = &p[(i & 1) + 1];\n"
    "#ifdef WITH_BARRIER\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "#endif\n"
    "  global int *o = out + i * 16;\n"
    "  o[0] = to_global(gp) == g + 1;\n"
    "  o[1] = to_local(gp) == 0;\n"
    "  o[2] = to_private(gp) == 0;\n"
    "  o[3] = to_global(lp) == 0;\n"
    "  o[4] = to_local(lp) == l + 2;\n"
    "  o[5] = to_private(lp) == 0;\n"
    "  o[6] = to_local(kp) == &kv[1];\n"
    "  o[7] = to_global(kp) == 0;\n"
    "  o[8] = to_private(pp) == &p[(i & 1) + 1];\n"
    "  o[9] = to_global(pp) == 0;\n"
    "  o[10] = to_local(pp) == 0;\n"
    "  o[11] = get_fence(gp) == CLK_GLOBAL_MEM_FENCE;\n"
    "  o[12] = get_fence(lp) == CLK_LOCAL_MEM_FENCE;\n"
    "  o[13] = get_fence(kp) == CLK_LOCAL_MEM_FENCE;\n"
    "  private int *q = to_private(pp);\n"
    "  o[14] = q ? *q == (int)i + 1 + (int)(i & 1) : 0;\n"
    "  o[15] = to_global((generic int *)0) == 0;\n"
    "}\n";

static void run_addr(struct kt_env *env, const char *opts)
{
    cl_int g[4] = {0}, *out = malloc(sizeof(cl_int) * 16 * 256);
    KT_REQUIRE(out, "out of memory");
    struct kt_arg a[] = {
        {KT_IN, sizeof(g), g}, {KT_LOCAL, 64, NULL}, {KT_OUT, sizeof(cl_int) * 16 * 256, out}};
    KT_EXPECT(kt_run(env, addr_src, opts, "addr", 256, 32, 3, a), CL_SUCCESS);
    for (size_t i = 0; i < 16 * 256; i++)
        if (out[i] != 1) {
            KT_CHECK(0, "address spaces (%s): work-item %zu, check %zu failed", opts, i / 16,
                     i % 16);
            break;
        }
    free(out);
}

/* A builtin Kiln lacks (atomic_fetch_add on float) fails the build; the log names it. */
static void run_missing(struct kt_env *env)
{
    const char *src = "kernel void k(global atomic_float *f) { atomic_fetch_add(f, 1.0f); }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    KT_EXPECT(clBuildProgram(p, 1, &env->device,
                             "-cl-std=CL3.0 -Dcl_ext_float_atomics=1 "
                             "-D__opencl_c_ext_fp32_global_atomic_add=1",
                             NULL, NULL),
              CL_BUILD_PROGRAM_FAILURE);
    char log[8192] = "";
    KT_EXPECT(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL),
              CL_SUCCESS);
    KT_CHECK(strstr(log, "_Z16atomic_fetch_addPU8CLglobalVU7_Atomicff") != NULL,
             "the build log does not name the missing builtin: %s", log);
    clReleaseProgram(p);
}

static void check_device(struct kt_env *env)
{
    char ext[4096] = "";
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL),
              CL_SUCCESS);
    static const char *const want[] = {
        "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",  "cl_khr_local_int32_extended_atomics",
        "cl_khr_int64_base_atomics",        "cl_khr_int64_extended_atomics"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        KT_CHECK(strstr(ext, want[i]) != NULL, "CL_DEVICE_EXTENSIONS lacks %s", want[i]);
    cl_device_atomic_capabilities caps = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof(caps),
                              &caps, NULL),
              CL_SUCCESS);
    const cl_device_atomic_capabilities all =
        CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
        CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM |
        CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE |
        CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
    const cl_device_atomic_capabilities mem =
        all & ~(cl_device_atomic_capabilities)CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;
    KT_CHECK(caps == mem, "CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES 0x%llx, want 0x%llx",
             (unsigned long long)caps, (unsigned long long)mem);
    caps = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof(caps), &caps,
                              NULL),
              CL_SUCCESS);
    KT_CHECK(caps == all, "CL_DEVICE_ATOMIC_FENCE_CAPABILITIES 0x%llx, want 0x%llx",
             (unsigned long long)caps, (unsigned long long)all);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    check_device(&env);

    static const struct itype t_int = {"int", 32, true}, t_uint = {"uint", 32, false},
                              t_long = {"long", 64, true}, t_ulong = {"ulong", 64, false};
    run_legacy(&env, &t_int, "atomic", "CL1.2");
    run_legacy(&env, &t_uint, "atomic", "CL1.2");
    run_legacy(&env, &t_int, "atom", "CL1.2");
    run_legacy(&env, &t_long, "atom", "CL1.2");
    run_legacy(&env, &t_ulong, "atom", "CL1.2");
    run_legacy(&env, &t_uint, "atomic", "CL3.0");
    run_float_xchg(&env, "CL1.2");
    run_last(&env, "CL1.2");
    run_last(&env, "CL3.0");

    run_c11(&env, &t_int, false);
    run_c11(&env, &t_uint, false);
    run_c11(&env, &t_long, false);
    run_c11(&env, &t_ulong, false);
    run_c11(&env, &t_int, true);
    run_c11(&env, &t_uint, true);
    run_c11(&env, &t_long, true);
    run_c11(&env, &t_ulong, true);
    run_hflag(&env);
    run_fp(&env);
    run_spin(&env);
    run_fences(&env);

    run_addr(&env, "-cl-std=CL3.0");
    run_addr(&env, "-cl-std=CL3.0 -DWITH_BARRIER");
    run_missing(&env);

    kt_teardown(&env);
    return kt_finish("atomics");
}
