/*
 * half (cl_khr_fp16) outside conversions and math, against host references:
 *
 * 1. Kernel arguments by value (half, half4), half literals and the HALF_* and M_*_H
 *    macros, as bits.
 * 2. The relational functions on every one of the 65,536 halves (isnan, isinf, isfinite,
 *    isnormal, signbit; scalar 0/1, half4 lanes 0/-1) and the comparisons of each half
 *    with another (a fixed permutation), NaNs included.
 * 3. min, max, clamp, step and sign on the same pairs (min, max and clamp only where
 *    neither is a NaN, which the specification leaves open); select with short and ushort
 *    masks (the lane's top bit) and bitselect.
 * 4. shuffle and shuffle2 of half8 vectors.
 * 5. work_group_reduce/scan add, min, max and work_group_broadcast on small integers
 *    (exact in half whatever the order of the additions); the sub-group forms.
 * 6. async_work_group_copy and async_work_group_strided_copy of half and half4.
 *
 * Skipped under KILN_FP16=0, as half_conv.c is.
 */
#include "kiln_test.h"
#include "conv_ref.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NH 65536

static const char *src =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void args(half a, half4 b, global half *o) {\n"
    "  o[0] = a; vstore4(b, 1, o); o[8] = 1.5h; o[9] = HALF_MAX; o[10] = HALF_EPSILON;\n"
    "  o[11] = M_PI_H; o[12] = HALF_MIN; o[13] = -0.0h; o[14] = 0x1p-24h; o[15] = M_SQRT2_H;\n"
    "}\n"
    "kernel void rel(global const half *x, global const ushort *perm, global int *o,\n"
    "                global short *v, global half *c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  half a = x[i], b = x[perm[i]];\n"
    "  global int *p = o + 16 * i;\n"
    "  p[0] = isnan(a); p[1] = isinf(a); p[2] = isfinite(a); p[3] = isnormal(a);\n"
    "  p[4] = signbit(a); p[5] = isequal(a, b); p[6] = isnotequal(a, b);\n"
    "  p[7] = isgreater(a, b); p[8] = isgreaterequal(a, b); p[9] = isless(a, b);\n"
    "  p[10] = islessequal(a, b); p[11] = islessgreater(a, b); p[12] = isordered(a, b);\n"
    "  p[13] = isunordered(a, b);\n"
    "  half4 a4 = (half4)(a, b, a, b), b4 = (half4)(b, a, a, b);\n"
    "  short4 r = isnan(a4) + (short)2 * isless(a4, b4) + (short)4 * signbit(a4)\n"
    "             + (short)8 * isequal(a4, b4);\n"
    "  vstore4(r, i, v);\n"
    "  global half *q = c + 8 * i;\n"
    "  q[0] = min(a, b); q[1] = max(a, b); q[2] = clamp(a, min(b, 1.0h), max(b, 1.0h));\n"
    "  q[3] = step(a, b); q[4] = sign(a);\n"
    "  half2 s = select((half2)(a, b), (half2)(b, a), (short2)(i & 1 ? -1 : 0, (short)(i << 1)));\n"
    "  q[5] = s.x; q[6] = s.y;\n"
    "  q[7] = select(a, b, (ushort)i);\n"
    "}\n"
    "kernel void bits(global const half *x, global half *o) {\n"
    "  size_t i = get_global_id(0);\n"
    "  half8 v = vload8(i, x), w = vload8(i + 1, x);\n"
    "  vstore8(shuffle(v, (ushort8)(7, 0, 6, 1, 5, 2, 4, 3)), 3 * i, o);\n"
    "  vstore4(shuffle2(v, w, (ushort4)(15, 8, 3, 12)), 6 * i + 2, o);\n"
    "  vstore4(bitselect(v.lo, w.hi, v.hi), 6 * i + 3, o);\n"
    "}\n"
    "kernel void wg(global const half *x, global half *o) {\n"
    "  size_t i = get_global_id(0), n = get_global_size(0);\n"
    "  half a = x[i];\n"
    "  o[i] = work_group_reduce_add(a); o[i + n] = work_group_reduce_min(a);\n"
    "  o[i + 2 * n] = work_group_reduce_max(a); o[i + 3 * n] = work_group_scan_inclusive_add(a);\n"
    "  o[i + 4 * n] = work_group_scan_exclusive_add(a);\n"
    "  o[i + 5 * n] = work_group_scan_inclusive_min(a);\n"
    "  o[i + 6 * n] = work_group_scan_exclusive_max(a);\n"
    "  o[i + 7 * n] = work_group_broadcast(a, 5);\n"
    "  half incl = sub_group_scan_inclusive_add(a);\n"
    "  o[i + 8 * n] = incl - sub_group_scan_exclusive_add(a) - a;\n"
    "  o[i + 9 * n] = sub_group_broadcast(a, 0) - x[i - get_sub_group_local_id()];\n"
    "  o[i + 10 * n] = (sub_group_reduce_max(a) + sub_group_reduce_min(-a))\n"
    "                  + (sub_group_reduce_add(a)\n"
    "                     - sub_group_broadcast(incl, get_sub_group_size() - 1));\n"
    "}\n"
    "kernel void copies(global const half *x, global half *o, local half *l, local half4 *l4) {\n"
    "  event_t e = async_work_group_copy(l, x, 256, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  e = async_work_group_copy(o, l, 256, 0);\n"
    "  e = async_work_group_strided_copy(l4, (global const half4 *)x, 16, 3, e);\n"
    "  wait_group_events(1, &e);\n"
    "  e = async_work_group_strided_copy((global half4 *)(o + 256), l4, 16, 2, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n";

/* Bits equal, or both NaN. */
static int same_half(uint16_t got, uint16_t want)
{
    return got == want || (ref_half_is_nan(got) && ref_half_is_nan(want));
}

static uint16_t h_of(long double v)
{
    return ref_to_half(v, RM_RTE);
}

static void test_args(struct kt_env *env, cl_program p)
{
    cl_half a = 0x3c01, b[4] = {0x8001, 0x7bff, 0xfc00, 0x0400};
    uint16_t o[16];
    memset(o, 0xff, sizeof(o));
    struct kt_arg args[] = {
        {KT_VALUE, sizeof(a), &a}, {KT_VALUE, sizeof(b), b}, {KT_OUT, sizeof(o), o}};
    KT_EXPECT(kt_run_in(env, p, "args", 1, 1, 3, args), CL_SUCCESS);
    static const uint16_t want[16] = {0x3c01, 0xffff, 0xffff, 0xffff, 0x8001, 0x7bff,
                                      0xfc00, 0x0400, 0x3e00, 0x7bff, 0x1400, 0x4248,
                                      0x0400, 0x8000, 0x0001, 0x3da8};
    for (int i = 0; i < 16; i++)
        if (i < 1 || i > 3)
            KT_CHECK(o[i] == want[i], "args/literals: half %d is 0x%04x, want 0x%04x", i, o[i],
                     want[i]);
}

static void test_rel(struct kt_env *env, cl_program p)
{
    uint16_t *x = malloc(NH * 2), *perm = malloc(NH * 2), *c = malloc((size_t)NH * 16);
    int32_t *o = malloc((size_t)NH * 64);
    int16_t *v = malloc((size_t)NH * 8);
    KT_REQUIRE(x && perm && c && o && v, "out of memory");
    for (uint32_t i = 0; i < NH; i++) {
        x[i] = (uint16_t)i;
        perm[i] = (uint16_t)(i * 40503u + 12345u); /* odd multiplier: a permutation */
    }
    struct kt_arg args[] = {{KT_IN, NH * 2, x},
                            {KT_IN, NH * 2, perm},
                            {KT_OUT, (size_t)NH * 64, o},
                            {KT_OUT, (size_t)NH * 8, v},
                            {KT_OUT, (size_t)NH * 16, c}};
    KT_EXPECT(kt_run_in(env, p, "rel", NH, 0, 5, args), CL_SUCCESS);
    int bad = 0;
    for (uint32_t i = 0; i < NH && bad < 10; i++) {
        uint16_t ha = x[i], hb = x[perm[i]];
        long double a = ref_half_value(ha), b = ref_half_value(hb);
        int nan = isnan(a) || isnan(b);
        int want[14] = {isnan(a) != 0,
                        isinf(a) != 0,
                        isfinite(a) != 0,
                        ((ha >> 10) & 0x1f) != 0 && ((ha >> 10) & 0x1f) != 31,
                        (ha >> 15) != 0,
                        !nan && a == b,
                        nan || a != b,
                        !nan && a > b,
                        !nan && a >= b,
                        !nan && a < b,
                        !nan && a <= b,
                        !nan && a != b,
                        !nan,
                        nan};
        for (int k = 0; k < 14; k++) {
            if (o[16 * i + k] != want[k]) {
                KT_CHECK(0, "relational %d of 0x%04x, 0x%04x: got %d, want %d", k, ha, hb,
                         o[16 * i + k], want[k]);
                bad++;
            }
        }
        /* The half4 lanes: (a, b) against (b, a, a, b), each test -1 when true. */
        uint16_t la[4] = {ha, hb, ha, hb}, lb[4] = {hb, ha, ha, hb};
        for (int k = 0; k < 4; k++) {
            long double p1 = ref_half_value(la[k]), p2 = ref_half_value(lb[k]);
            int n2 = isnan(p1) || isnan(p2);
            int w = -(isnan(p1) != 0) - 2 * (!n2 && p1 < p2) - 4 * ((la[k] >> 15) != 0) -
                    8 * (!n2 && p1 == p2);
            if (v[4 * i + k] != w) {
                KT_CHECK(0, "half4 relational lane %d of 0x%04x, 0x%04x: got %d, want %d", k, la[k],
                         lb[k], v[4 * i + k], w);
                bad++;
            }
        }
        const uint16_t *q = c + 8 * i;
        if (!nan) {
            uint16_t mn = a < b ? ha : hb, mx = a < b ? hb : ha;
            if (a == b) /* equal values of either sign: either is right */
                mn = q[0], mx = q[1];
            long double lo = fminl(b, 1), hi = fmaxl(b, 1);
            long double cl = a < lo ? lo : (a > hi ? hi : a);
            KT_CHECK(q[0] == mn && q[1] == mx, "min/max(0x%04x, 0x%04x): 0x%04x 0x%04x", ha, hb,
                     q[0], q[1]);
            KT_CHECK(ref_half_value(q[2]) == cl, "clamp(0x%04x, 0x%04x): 0x%04x", ha, hb, q[2]);
            KT_CHECK(q[3] == (b < a ? 0x0000 : 0x3c00), "step(0x%04x, 0x%04x): 0x%04x", ha, hb,
                     q[3]);
        }
        uint16_t sg = isnan(a) ? 0 : a > 0 ? 0x3c00 : a < 0 ? 0xbc00 : ha;
        KT_CHECK(isnan(a) ? q[4] == 0 : q[4] == sg, "sign(0x%04x): 0x%04x", ha, q[4]);
        /* select picks the second operand where the mask's top bit is set. */
        uint16_t s0 = (i & 1) ? hb : ha, s1 = ((i << 1) & 0x8000) ? ha : hb;
        KT_CHECK(q[5] == s0 && q[6] == s1, "select lanes of %u: 0x%04x 0x%04x", i, q[5], q[6]);
        KT_CHECK(q[7] == (i ? hb : ha), "scalar select of %u: 0x%04x", i, q[7]);
        bad += q[4] != sg && !isnan(a);
    }
    free(x), free(perm), free(c), free(o), free(v);
}

static void test_bits(struct kt_env *env, cl_program p)
{
    enum { G = 64 };
    uint16_t x[8 * (G + 1)], o[8 * 3 * G];
    for (int i = 0; i < 8 * (G + 1); i++)
        x[i] = (uint16_t)(i * 2654435761u >> 7);
    memset(o, 0, sizeof(o));
    struct kt_arg args[] = {{KT_IN, sizeof(x), x}, {KT_OUT, sizeof(o), o}};
    KT_EXPECT(kt_run_in(env, p, "bits", G, 0, 2, args), CL_SUCCESS);
    static const int m8[8] = {7, 0, 6, 1, 5, 2, 4, 3}, m4[4] = {15, 8, 3, 12};
    for (int i = 0; i < G; i++) {
        const uint16_t *v = x + 8 * i, *w = x + 8 * i + 8;
        for (int k = 0; k < 8; k++)
            KT_CHECK(o[24 * i + k] == v[m8[k]], "shuffle item %d lane %d", i, k);
        for (int k = 0; k < 4; k++) {
            KT_CHECK(o[24 * i + 8 + k] == (m4[k] < 8 ? v[m4[k]] : w[m4[k] - 8]),
                     "shuffle2 item %d lane %d", i, k);
            uint16_t want = (uint16_t)((v[k] & ~v[4 + k]) | (w[4 + k] & v[4 + k]));
            KT_CHECK(o[24 * i + 12 + k] == want, "bitselect item %d lane %d: 0x%04x, want 0x%04x",
                     i, k, o[24 * i + 12 + k], want);
        }
    }
}

static void test_collectives(struct kt_env *env, cl_program p)
{
    enum { N = 64 };
    uint16_t x[N], o[11 * N];
    long double xv[N];
    for (int i = 0; i < N; i++) {
        xv[i] = (i * 37 % 23) - 11; /* small integers: every sum is exact in half */
        x[i] = h_of(xv[i]);
    }
    memset(o, 0xff, sizeof(o));
    struct kt_arg args[] = {{KT_IN, sizeof(x), x}, {KT_OUT, sizeof(o), o}};
    KT_EXPECT(kt_run_in(env, p, "wg", N, N, 2, args), CL_SUCCESS);
    long double sum = 0, mn = INFINITY, mx = -INFINITY, run = 0, rmin = INFINITY, rmax = -INFINITY;
    for (int i = 0; i < N; i++) {
        sum += xv[i];
        mn = fminl(mn, xv[i]);
        mx = fmaxl(mx, xv[i]);
    }
    for (int i = 0; i < N; i++) {
        long double want[8] = {sum, mn, mx, run + xv[i], run, fminl(rmin, xv[i]), rmax, xv[5]};
        if (i == 0)
            want[6] = -INFINITY; /* the exclusive max's identity */
        for (int k = 0; k < 8; k++)
            KT_CHECK(same_half(o[k * N + i], h_of(want[k])),
                     "work-group collective %d at %d: 0x%04x, want %Lg", k, i, o[k * N + i],
                     want[k]);
        run += xv[i];
        rmin = fminl(rmin, xv[i]);
        rmax = fmaxl(rmax, xv[i]);
        /* Sub-group identities, each zero: inclusive - exclusive - a; broadcast; max + min
         * of the negated; reduce - the last inclusive sum. */
        KT_CHECK((o[8 * N + i] & 0x7fff) == 0, "sub-group scans at %d: 0x%04x", i, o[8 * N + i]);
        KT_CHECK((o[10 * N + i] & 0x7fff) == 0, "sub-group reductions at %d: 0x%04x", i,
                 o[10 * N + i]);
        KT_CHECK((o[9 * N + i] & 0x7fff) == 0, "sub_group_broadcast at %d: 0x%04x", i,
                 o[9 * N + i]);
    }
}

static void test_copies(struct kt_env *env, cl_program p)
{
    uint16_t x[256], o[256 + 4 * 32];
    for (int i = 0; i < 256; i++)
        x[i] = (uint16_t)(0x3000 + i * 97);
    memset(o, 0, sizeof(o));
    struct kt_arg args[] = {{KT_IN, sizeof(x), x},
                            {KT_OUT, sizeof(o), o},
                            {KT_LOCAL, 256 * 2, NULL},
                            {KT_LOCAL, 16 * 8, NULL}};
    KT_EXPECT(kt_run_in(env, p, "copies", 4, 4, 4, args), CL_SUCCESS);
    for (int i = 0; i < 256; i++)
        KT_CHECK(o[i] == x[i], "async copy half %d: 0x%04x", i, o[i]);
    for (int e = 0; e < 16; e++)
        for (int k = 0; k < 4; k++)
            KT_CHECK(o[256 + 8 * e + k] == x[12 * e + k], "strided copy half4 %d lane %d", e, k);
}

int main(void)
{
    const char *fp16 = getenv("KILN_FP16");
    if (fp16 && strcmp(fp16, "0") == 0) {
        printf("skipped: KILN_FP16=0, so the device does not report cl_khr_fp16\n");
        return 77;
    }
    struct kt_env env;
    kt_setup(&env, 0);
    KT_CHECK(kt_has_extension(env.device, "cl_khr_fp16"), "CL_DEVICE_EXTENSIONS lacks cl_khr_fp16");
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    test_args(&env, p);
    test_rel(&env, p);
    test_bits(&env, p);
    test_collectives(&env, p);
    test_copies(&env, p);
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("half_types");
}
