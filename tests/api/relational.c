/*
 * Relational builtins (OpenCL C 3.0 §6.15.6) at every width (1, 2, 3, 4, 8, 16):
 *  - for float, double and half: isequal, isnotequal, isgreater, isgreaterequal,
 *    isless, islessequal, islessgreater, isordered, isunordered, isfinite, isinf,
 *    isnan, isnormal, signbit (scalar 0/1, vector -1/0 in the integer type of the
 *    same size), bitselect and select with a signed and an unsigned selector, over
 *    NaNs, infinities, signed zeros, denormals, the extremes and random values;
 *  - for every integer type: select (both selector types) and bitselect, and any and
 *    all for the signed ones (the lanes' most significant bits).
 * Results are compared bit for bit with host C computations; comparisons and
 * classifications use the values (C's operators and <math.h>), not their bits.
 * The floating-point programs are built with -cl-std=CL3.0, the integer one with
 * CL1.2.
 */
#include "kiln_test.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define NITEMS 64

static const int widths[] = {1, 2, 3, 4, 8, 16};

static int stride(int n)
{
    return n == 3 ? 4 : n;
}

static uint64_t rnd64(unsigned *seed)
{
    return ((uint64_t)rand_r(seed) << 42) ^ ((uint64_t)rand_r(seed) << 21) ^ (uint64_t)rand_r(seed);
}

static uint64_t load(const void *p, size_t i, int bytes)
{
    switch (bytes) {
    case 1:
        return ((const uint8_t *)p)[i];
    case 2:
        return ((const uint16_t *)p)[i];
    case 4:
        return ((const uint32_t *)p)[i];
    default:
        return ((const uint64_t *)p)[i];
    }
}

static void store(void *p, size_t i, int bytes, uint64_t v)
{
    switch (bytes) {
    case 1:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case 2:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)p)[i] = v;
    }
}

static int64_t sext(uint64_t v, int bytes)
{
    int sh = 64 - 8 * bytes;
    return (int64_t)(v << sh) >> sh;
}

/* ---- floating point ---- */

struct ftype {
    const char *name, *itype, *utype;
    int bytes;
    double min_normal;
};
static const struct ftype ftypes[] = {
    {"float", "int", "uint", 4, FLT_MIN},
    {"double", "long", "ulong", 8, DBL_MIN},
    {"half", "short", "ushort", 2, 0x1p-14},
};

/* A half's value, from its bits. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static double fvalue(const struct ftype *t, uint64_t bits)
{
    if (t->bytes == 2)
        return half_value((uint16_t)bits);
    if (t->bytes == 4) {
        float f;
        uint32_t u = (uint32_t)bits;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* Bits of interesting values: +-0, +-1, +-inf, NaNs, the smallest normal and denormal, max. */
static uint64_t fsample(const struct ftype *t, unsigned *seed)
{
    static const uint32_t f32[] = {0,          0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                                   0xff800000, 0x7fc00000, 0xffc00001, 0x00800000, 0x80800000,
                                   0x00000001, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x7f800001};
    static const uint64_t f64[] = {0,
                                   0x8000000000000000,
                                   0x3ff0000000000000,
                                   0xbff0000000000000,
                                   0x7ff0000000000000,
                                   0xfff0000000000000,
                                   0x7ff8000000000000,
                                   0xfff8000000000001,
                                   0x0010000000000000,
                                   0x8010000000000000,
                                   0x0000000000000001,
                                   0x800fffffffffffff,
                                   0x7fefffffffffffff,
                                   0xffefffffffffffff,
                                   0x7ff0000000000001};
    static const uint16_t f16[] = {0,      0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe01,
                                   0x0400, 0x8400, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x7c01};
    unsigned r = (unsigned)rand_r(seed);
    uint64_t v = rnd64(seed);
    if (r % 2 == 0) {
        size_t k = (r / 2) % 15;
        return t->bytes == 2 ? f16[k] : t->bytes == 4 ? f32[k] : f64[k];
    }
    if (r % 4 == 1) /* numbers near 1, so that the ordered comparisons see both answers */
        return t->bytes == 2   ? (0x3800 | (v & 0x87ff)) & 0xffff
               : t->bytes == 4 ? (0x3f000000 | (v & 0x80ffffff)) & 0xffffffff
                               : 0x3fe0000000000000 | (v & 0x80ffffffffffffff);
    return t->bytes == 8 ? v : v & ((1ull << (8 * t->bytes)) - 1);
}

static const char *fsrc =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define CAT_(a, b) a##b\n"
    "#define CAT(a, b) CAT_(a, b)\n"
    "#define KN(N) \\\n"
    "kernel void CAT(k, N)(global const CAT(T, N) *a, global const CAT(T, N) *b, \\\n"
    "    global const CAT(I, N) *c, global CAT(I, N) *r, global CAT(T, N) *s) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  CAT(T, N) x = a[i], y = b[i]; \\\n"
    "  global CAT(I, N) *o = r + i * 14; \\\n"
    "  o[0] = isequal(x, y); o[1] = isnotequal(x, y); o[2] = isgreater(x, y); \\\n"
    "  o[3] = isgreaterequal(x, y); o[4] = isless(x, y); o[5] = islessequal(x, y); \\\n"
    "  o[6] = islessgreater(x, y); o[7] = isordered(x, y); o[8] = isunordered(x, y); \\\n"
    "  o[9] = isfinite(x); o[10] = isinf(x); o[11] = isnan(x); o[12] = isnormal(x); \\\n"
    "  o[13] = signbit(x); \\\n"
    "  s[i * 3] = bitselect(x, y, CAT(CAT(as_, T), N)(c[i])); \\\n"
    "  s[i * 3 + 1] = select(x, y, c[i]); \\\n"
    "  s[i * 3 + 2] = select(x, y, CAT(CAT(as_, U), N)(c[i])); \\\n"
    "}\n"
    "KN() KN(2) KN(3) KN(4) KN(8) KN(16)\n";

static const char *const fnames[] = {
    "isequal",     "isnotequal",    "isgreater", "isgreaterequal", "isless",
    "islessequal", "islessgreater", "isordered", "isunordered",    "isfinite",
    "isinf",       "isnan",         "isnormal",  "signbit"};

static int fref(const struct ftype *t, int f, double x, double y)
{
    switch (f) {
    case 0:
        return x == y;
    case 1:
        return x != y;
    case 2:
        return isgreater(x, y);
    case 3:
        return isgreaterequal(x, y);
    case 4:
        return isless(x, y);
    case 5:
        return islessequal(x, y);
    case 6:
        return islessgreater(x, y);
    case 7:
        return !isunordered(x, y);
    case 8:
        return isunordered(x, y);
    case 9:
        return isfinite(x) != 0;
    case 10:
        return isinf(x) != 0;
    case 11:
        return isnan(x) != 0;
    case 12:
        return isfinite(x) && fabs(x) >= t->min_normal;
    default:
        return signbit(x) != 0;
    }
}

static void run_float(struct kt_env *env, const struct ftype *t)
{
    char opts[128];
    snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DT=%s -DI=%s -DU=%s", t->name, t->itype, t->utype);
    cl_program prog = kt_build(env, fsrc, opts);
    unsigned seed = 777u + (unsigned)t->bytes;
    int bytes = t->bytes;
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        int n = widths[wi], vs = stride(n);
        size_t nel = (size_t)NITEMS * (size_t)vs, vb = nel * (size_t)bytes;
        void *a = calloc(1, vb), *b = calloc(1, vb), *c = calloc(1, vb);
        void *r = calloc(14, vb), *s = calloc(3, vb);
        KT_REQUIRE(a && b && c && r && s, "out of memory");
        for (size_t i = 0; i < nel; i++) {
            uint64_t x = fsample(t, &seed), y = fsample(t, &seed);
            unsigned k = (unsigned)rand_r(&seed) % 5;
            store(a, i, bytes, x);
            store(b, i, bytes, k == 0 ? x : y); /* equal operands now and then */
            uint64_t sel = rnd64(&seed);
            store(c, i, bytes, (i / (size_t)vs) % 4 == 0 ? (sel & 1) : sel);
        }
        char kname[8];
        snprintf(kname, sizeof(kname), n == 1 ? "k" : "k%d", n);
        struct kt_arg args[] = {{KT_IN, vb, a},
                                {KT_IN, vb, b},
                                {KT_IN, vb, c},
                                {KT_OUT, 14 * vb, r},
                                {KT_OUT, 3 * vb, s}};
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 5, args), CL_SUCCESS);
        int bad = 0;
        uint64_t m = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
        for (size_t i = 0; i < NITEMS; i++) {
            for (int l = 0; l < n; l++) {
                size_t e = i * (size_t)vs + (size_t)l;
                uint64_t xb = load(a, e, bytes), yb = load(b, e, bytes), cb = load(c, e, bytes);
                double x = fvalue(t, xb), y = fvalue(t, yb);
                for (int f = 0; f < 14; f++) {
                    int64_t got =
                        sext(load(r, (i * 14 + (size_t)f) * (size_t)vs + (size_t)l, bytes), bytes);
                    int64_t want = fref(t, f, x, y) ? (n == 1 ? 1 : -1) : 0;
                    if (got != want && bad++ < 8)
                        KT_CHECK(got == want, "%s%d lane %d: %s(%a, %a) = %lld, want %lld", t->name,
                                 n, l, fnames[f], x, y, (long long)got, (long long)want);
                }
                bool pick = n == 1 ? cb != 0 : sext(cb, bytes) < 0;
                uint64_t want[3] = {((xb & ~cb) | (yb & cb)) & m, pick ? yb : xb, pick ? yb : xb};
                static const char *const sn[3] = {"bitselect", "select", "select(unsigned)"};
                for (int f = 0; f < 3; f++) {
                    uint64_t got = load(s, (i * 3 + (size_t)f) * (size_t)vs + (size_t)l, bytes);
                    if (got != want[f] && bad++ < 8)
                        KT_CHECK(got == want[f],
                                 "%s%d lane %d: %s(0x%llx, 0x%llx, 0x%llx) = 0x%llx", t->name, n, l,
                                 sn[f], (unsigned long long)xb, (unsigned long long)yb,
                                 (unsigned long long)cb, (unsigned long long)got);
                }
            }
        }
        KT_CHECK(bad == 0, "%s%d: %d wrong results", t->name, n, bad);
        free(a), free(b), free(c), free(r), free(s);
    }
    clReleaseProgram(prog);
}

/* ---- integers: select, bitselect, any, all ---- */

struct itype {
    const char *name, *itype, *utype;
    int bytes;
    bool sgn;
};
static const struct itype itypes[] = {
    {"char", "char", "uchar", 1, true},    {"uchar", "char", "uchar", 1, false},
    {"short", "short", "ushort", 2, true}, {"ushort", "short", "ushort", 2, false},
    {"int", "int", "uint", 4, true},       {"uint", "int", "uint", 4, false},
    {"long", "long", "ulong", 8, true},    {"ulong", "long", "ulong", 8, false},
};

static const char *isrc = "#define CAT_(a, b) a##b\n"
                          "#define CAT(a, b) CAT_(a, b)\n"
                          "#define SEL(T, I, U, N) \\\n"
                          "kernel void CAT(CAT(s_, T), N)(global const CAT(T, N) *a, \\\n"
                          "    global const CAT(T, N) *b, global const CAT(T, N) *c, \\\n"
                          "    global CAT(T, N) *s) { \\\n"
                          "  size_t i = get_global_id(0); \\\n"
                          "  CAT(T, N) x = a[i], y = b[i], z = c[i]; \\\n"
                          "  s[i * 3] = bitselect(x, y, z); \\\n"
                          "  s[i * 3 + 1] = select(x, y, CAT(CAT(as_, I), N)(z)); \\\n"
                          "  s[i * 3 + 2] = select(x, y, CAT(CAT(as_, U), N)(z)); \\\n"
                          "}\n"
                          "#define ANY(T, N) \\\n"
                          "kernel void CAT(CAT(a_, T), N)(global const CAT(T, N) *a, \\\n"
                          "    global int *r) { \\\n"
                          "  size_t i = get_global_id(0); \\\n"
                          "  r[2 * i] = any(a[i]); r[2 * i + 1] = all(a[i]); \\\n"
                          "}\n"
                          "#define W(T, I, U, S) S(T, I, U, ) S(T, I, U, 2) S(T, I, U, 3) \\\n"
                          "  S(T, I, U, 4) S(T, I, U, 8) S(T, I, U, 16)\n"
                          "#define WA(T) ANY(T, ) ANY(T, 2) ANY(T, 3) ANY(T, 4) ANY(T, 8) "
                          "ANY(T, 16)\n"
                          "W(char, char, uchar, SEL) W(uchar, char, uchar, SEL)\n"
                          "W(short, short, ushort, SEL) W(ushort, short, ushort, SEL)\n"
                          "W(int, int, uint, SEL) W(uint, int, uint, SEL)\n"
                          "W(long, long, ulong, SEL) W(ulong, long, ulong, SEL)\n"
                          "WA(char) WA(short) WA(int) WA(long)\n";

static void run_int(struct kt_env *env, cl_program prog, const struct itype *t)
{
    unsigned seed = 99u + (unsigned)t->bytes * 3u + (t->sgn ? 1u : 0u);
    int bytes = t->bytes;
    uint64_t m = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1, msb = 1ull << (8 * bytes - 1);
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        int n = widths[wi], vs = stride(n);
        size_t nel = (size_t)NITEMS * (size_t)vs, vb = nel * (size_t)bytes;
        void *a = calloc(1, vb), *b = calloc(1, vb), *c = calloc(1, vb), *s = calloc(3, vb);
        int *r = calloc(2 * NITEMS, sizeof(int));
        KT_REQUIRE(a && b && c && s && r, "out of memory");
        for (size_t i = 0; i < nel; i++) {
            size_t item = i / (size_t)vs;
            uint64_t x = rnd64(&seed) & m;
            /* any/all: lanes all negative, all non-negative, or mixed */
            if (item % 3 == 1)
                x |= msb;
            else if (item % 3 == 2)
                x &= ~msb;
            store(a, i, bytes, x);
            store(b, i, bytes, rnd64(&seed) & m);
            uint64_t sel = rnd64(&seed) & m;
            store(c, i, bytes, item % 4 == 0 ? (sel & 1) : sel);
        }
        char kname[32];
        snprintf(kname, sizeof(kname), "s_%s%.0d", t->name, n == 1 ? 0 : n);
        struct kt_arg args[] = {
            {KT_IN, vb, a}, {KT_IN, vb, b}, {KT_IN, vb, c}, {KT_OUT, 3 * vb, s}};
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 4, args), CL_SUCCESS);
        if (t->sgn) {
            snprintf(kname, sizeof(kname), "a_%s%.0d", t->name, n == 1 ? 0 : n);
            struct kt_arg aargs[] = {{KT_IN, vb, a}, {KT_OUT, 2 * NITEMS * sizeof(int), r}};
            KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 2, aargs), CL_SUCCESS);
        }
        int bad = 0;
        for (size_t i = 0; i < NITEMS; i++) {
            int any = 0, all = 1;
            for (int l = 0; l < n; l++) {
                size_t e = i * (size_t)vs + (size_t)l;
                uint64_t xb = load(a, e, bytes), yb = load(b, e, bytes), cb = load(c, e, bytes);
                bool pick = n == 1 ? cb != 0 : (cb & msb) != 0;
                uint64_t want[3] = {(xb & ~cb) | (yb & cb), pick ? yb : xb, pick ? yb : xb};
                for (int f = 0; f < 3; f++) {
                    uint64_t got = load(s, (i * 3 + (size_t)f) * (size_t)vs + (size_t)l, bytes);
                    if (got != want[f] && bad++ < 8)
                        KT_CHECK(got == want[f],
                                 "%s%d lane %d: %s(0x%llx, 0x%llx, 0x%llx) = 0x%llx", t->name, n, l,
                                 f == 0 ? "bitselect" : "select", (unsigned long long)xb,
                                 (unsigned long long)yb, (unsigned long long)cb,
                                 (unsigned long long)got);
                }
                any |= (xb & msb) != 0;
                all &= (xb & msb) != 0;
            }
            if (t->sgn && (r[2 * i] != any || r[2 * i + 1] != all) && bad++ < 8)
                KT_CHECK(0, "%s%d item %zu: any %d all %d, want %d %d", t->name, n, i, r[2 * i],
                         r[2 * i + 1], any, all);
        }
        KT_CHECK(bad == 0, "%s%d: %d wrong results", t->name, n, bad);
        free(a), free(b), free(c), free(s), free(r);
    }
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    for (size_t i = 0; i < sizeof(ftypes) / sizeof(ftypes[0]); i++)
        run_float(&env, &ftypes[i]);
    cl_program prog = kt_build(&env, isrc, "-cl-std=CL1.2");
    for (size_t i = 0; i < sizeof(itypes) / sizeof(itypes[0]); i++)
        run_int(&env, prog, &itypes[i]);
    clReleaseProgram(prog);
    kt_teardown(&env);
    return kt_finish("relational");
}
