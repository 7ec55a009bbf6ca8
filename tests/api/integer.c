/*
 * Integer builtins (OpenCL C 3.0 §6.15.3) for char, uchar, short, ushort, int, uint,
 * long and ulong at every width (1, 2, 3, 4, 8, 16): abs, abs_diff, add_sat, sub_sat,
 * hadd, rhadd, clamp, clz, ctz, popcount, mad_hi, mad_sat, mul_hi, rotate, max, min,
 * the vector-scalar clamp, max and min, upsample, and mul24/mad24 for int and uint.
 *
 * One program per type holds a kernel per width that applies every builtin to
 * inputs mixing random bits with the extremes (0, +-1, MIN, MAX, MIN + 1, MAX - 1,
 * the width and its neighbours for shift counts). Each result is compared bit for
 * bit with a host reference computed in 128-bit arithmetic from the definitions in
 * the specification. Half of the programs are built with -cl-std=CL1.2, half with
 * CL3.0. The / and % operators are checked the same way at widths 1, 4 and 16, with
 * zero divisors and signed MIN / -1 in some lanes: their values are unspecified, but
 * the kernel must not trap.
 */
#include "kiln_test.h"

#include <stdbool.h>
#include <stdint.h>

#define NITEMS 96 /* work-items per kernel */
#define NF     22 /* results per work-item */

typedef __int128 i128;
typedef unsigned __int128 u128;

struct itype {
    const char *name, *uname, *wide; /* wide: upsample's result, "" if none */
    int bits;
    bool sgn;
};
static const struct itype types[] = {
    {"char", "uchar", "short", 8, true},  {"uchar", "uchar", "ushort", 8, false},
    {"short", "ushort", "int", 16, true}, {"ushort", "ushort", "uint", 16, false},
    {"int", "uint", "long", 32, true},    {"uint", "uint", "ulong", 32, false},
    {"long", "ulong", "", 64, true},      {"ulong", "ulong", "", 64, false},
};
static const int widths[] = {1, 2, 3, 4, 8, 16};
static const char *const fnames[NF] = {
    "abs",     "abs_diff", "add_sat", "sub_sat", "hadd",   "rhadd",   "clamp", "clz",
    "ctz",     "popcount", "mad_hi",  "mad_sat", "mul_hi", "rotate",  "max",   "min",
    "clamp_s", "max_s",    "min_s",   "mul24",   "mad24",  "upsample"};

/*
 * The kernels, instantiated per width with KN(N). T, U and W come from -D options;
 * HAS_UP and HAS_24 say whether upsample and mul24/mad24 exist for T.
 */
static const char *src =
    "#define CAT_(a, b) a##b\n"
    "#define CAT(a, b) CAT_(a, b)\n"
    "#define AS(N, x) CAT(as_, CAT(T, N))(x)\n"
    "#if HAS_UP\n"
    "#define UP(N) ((global CAT(W, N) *)up)[i] = upsample(x, CAT(as_, CAT(U, N))(y));\n"
    "#else\n"
    "#define UP(N)\n"
    "#endif\n"
    "#if HAS_24\n"
    "#define M24(N) o[19] = mul24(x, y); o[20] = mad24(x, y, z);\n"
    "#else\n"
    "#define M24(N) o[19] = 0; o[20] = 0;\n"
    "#endif\n"
    /* ctz is OpenCL C 2.0 and later. */
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "#define CTZ(x) ctz(x)\n"
    "#else\n"
    "#define CTZ(x) 0\n"
    "#endif\n"
    "#define VS(N) o[16] = clamp(x, slo[i], shi[i]); o[17] = max(x, sv[i]); o[18] = min(x, "
    "sv[i]);\n"
    "#define SC(N) o[16] = clamp(x, lo[i], hi[i]); o[17] = max(x, y); o[18] = min(x, y);\n"
    "#define KN(N, FORMS) \\\n"
    "kernel void CAT(k, N)(global const CAT(T, N) *a, global const CAT(T, N) *b, \\\n"
    "    global const CAT(T, N) *c, global const CAT(T, N) *lo, global const CAT(T, N) *hi, \\\n"
    "    global const T *slo, global const T *shi, global const T *sv, \\\n"
    "    global CAT(T, N) *out, global void *up) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  CAT(T, N) x = a[i], y = b[i], z = c[i]; \\\n"
    "  global CAT(T, N) *o = out + i * 22; \\\n"
    "  o[0] = AS(N, abs(x)); o[1] = AS(N, abs_diff(x, y)); \\\n"
    "  o[2] = add_sat(x, y); o[3] = sub_sat(x, y); o[4] = hadd(x, y); o[5] = rhadd(x, y); \\\n"
    "  o[6] = clamp(x, lo[i], hi[i]); o[7] = clz(x); o[8] = CTZ(x); o[9] = popcount(x); \\\n"
    "  o[10] = mad_hi(x, y, z); o[11] = mad_sat(x, y, z); o[12] = mul_hi(x, y); \\\n"
    "  o[13] = rotate(x, y); o[14] = max(x, y); o[15] = min(x, y); \\\n"
    "  FORMS(N) M24(N) UP(N) \\\n"
    "}\n"
    "KN(, SC) KN(2, VS) KN(3, VS) KN(4, VS) KN(8, VS) KN(16, VS)\n";

static int stride(int n)
{
    return n == 3 ? 4 : n;
}

/* The value of element i of a buffer of t, extended to 128 bits. */
static i128 get(const struct itype *t, const void *p, size_t i)
{
    switch (t->bits) {
    case 8:
        return t->sgn ? (i128)((const int8_t *)p)[i] : (i128)((const uint8_t *)p)[i];
    case 16:
        return t->sgn ? (i128)((const int16_t *)p)[i] : (i128)((const uint16_t *)p)[i];
    case 32:
        return t->sgn ? (i128)((const int32_t *)p)[i] : (i128)((const uint32_t *)p)[i];
    default:
        return t->sgn ? (i128)((const int64_t *)p)[i] : (i128)((const uint64_t *)p)[i];
    }
}

static void put(const struct itype *t, void *p, size_t i, uint64_t bits)
{
    switch (t->bits) {
    case 8:
        ((uint8_t *)p)[i] = (uint8_t)bits;
        break;
    case 16:
        ((uint16_t *)p)[i] = (uint16_t)bits;
        break;
    case 32:
        ((uint32_t *)p)[i] = (uint32_t)bits;
        break;
    default:
        ((uint64_t *)p)[i] = bits;
    }
}

static uint64_t mask_of(int bits)
{
    return bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static i128 tmin(const struct itype *t)
{
    return t->sgn ? -((i128)1 << (t->bits - 1)) : 0;
}

static i128 tmax(const struct itype *t)
{
    return t->sgn ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1;
}

static i128 sat(const struct itype *t, i128 v)
{
    return v < tmin(t) ? tmin(t) : v > tmax(t) ? tmax(t) : v;
}

/* Sign-extend the low 24 bits (int) or keep them (uint). */
static i128 low24(const struct itype *t, i128 v)
{
    int64_t l = (int64_t)((uint64_t)v & 0xffffff);
    return t->sgn && (l & 0x800000) ? l - 0x1000000 : l;
}

static uint64_t bits_of(i128 v)
{
    return (uint64_t)(u128)v;
}

/* The reference result of function f, as bits (reduced to the type's width later). */
static uint64_t reference(const struct itype *t, int f, i128 x, i128 y, i128 z, i128 lo, i128 hi,
                          i128 slo, i128 shi, i128 sv, int n, bool has_ctz)
{
    int w = t->bits;
    uint64_t ux = bits_of(x) & mask_of(w);
    switch (f) {
    case 0:
        return bits_of(x < 0 ? -x : x);
    case 1:
        return bits_of(x > y ? x - y : y - x);
    case 2:
        return bits_of(sat(t, x + y));
    case 3:
        return bits_of(sat(t, x - y));
    case 4:
        return bits_of((x + y) >> 1);
    case 5:
        return bits_of((x + y + 1) >> 1);
    case 6:
        return bits_of(x < lo ? lo : x > hi ? hi : x);
    case 7: {
        int c = 0;
        for (int b = w - 1; b >= 0 && !((ux >> b) & 1); b--)
            c++;
        return (uint64_t)c;
    }
    case 8: {
        int c = 0;
        if (!has_ctz)
            return 0;
        for (int b = 0; b < w && !((ux >> b) & 1); b++)
            c++;
        return (uint64_t)c;
    }
    case 9: {
        int c = 0;
        for (int b = 0; b < w; b++)
            c += (int)((ux >> b) & 1);
        return (uint64_t)c;
    }
    case 10:
    case 12: {
        i128 h;
        if (t->sgn)
            h = (x * y) >> w;
        else
            h = (i128)(((u128)x * (u128)y) >> w);
        return bits_of(f == 10 ? h + z : h);
    }
    case 11:
        if (t->sgn)
            return bits_of(sat(t, x * y + z));
        else {
            u128 p = (u128)x * (u128)y + (u128)z;
            return p > (u128)tmax(t) ? bits_of(tmax(t)) : (uint64_t)p;
        }
    case 13: {
        int s = (int)(bits_of(y) & (uint64_t)(w - 1));
        if (s == 0)
            return ux;
        return ((ux << s) | (ux >> (w - s))) & mask_of(w);
    }
    case 14:
        return bits_of(x > y ? x : y);
    case 15:
        return bits_of(x < y ? x : y);
    case 16:
        if (n == 1)
            return bits_of(x < lo ? lo : x > hi ? hi : x);
        return bits_of(x < slo ? slo : x > shi ? shi : x);
    case 17:
        return bits_of(n == 1 ? (x > y ? x : y) : (x > sv ? x : sv));
    case 18:
        return bits_of(n == 1 ? (x < y ? x : y) : (x < sv ? x : sv));
    case 19:
        return w == 32 ? bits_of(low24(t, x) * low24(t, y)) : 0;
    case 20:
        return w == 32 ? bits_of(low24(t, x) * low24(t, y) + z) : 0;
    default:
        return 0;
    }
}

/* Interesting values for t: the extremes, shift counts around the width, small numbers. */
static uint64_t sample(const struct itype *t, unsigned *seed)
{
    int w = t->bits;
    i128 special[] = {0,           1,     -1, 2,     tmin(t), tmax(t), tmin(t) + 1,
                      tmax(t) - 1, w - 1, w,  w + 1, 2 * w,   -w,      3};
    unsigned r = (unsigned)rand_r(seed);
    if (r % 3 == 0)
        return bits_of(special[(r / 3) % (sizeof(special) / sizeof(special[0]))]) & mask_of(w);
    uint64_t v =
        ((uint64_t)rand_r(seed) << 42) ^ ((uint64_t)rand_r(seed) << 21) ^ (uint64_t)rand_r(seed);
    if (r % 3 == 1) /* small magnitudes, so sums and products do not always saturate */
        v = (v & 0xff) - (t->sgn ? 128 : 0);
    return v & mask_of(w);
}

static void run_type(struct kt_env *env, const struct itype *t, const char *std)
{
    char opts[256];
    cl_program prog;
    bool up = t->wide[0] != 0, m24 = t->bits == 32;
    snprintf(opts, sizeof(opts), "%s -DT=%s -DU=%s -DW=%s -DHAS_UP=%d -DHAS_24=%d", std, t->name,
             t->uname, up ? t->wide : "int", up, m24);
    prog = kt_build(env, src, opts);
    size_t es = (size_t)t->bits / 8;
    unsigned seed = 12345u + (unsigned)t->bits * 7u + (t->sgn ? 1u : 0u);
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        int n = widths[wi], vs = stride(n);
        size_t nel = (size_t)NITEMS * (size_t)vs;
        size_t vbytes = nel * es, obytes = vbytes * NF, sbytes = NITEMS * es;
        void *a = calloc(1, vbytes), *b = calloc(1, vbytes), *c = calloc(1, vbytes);
        void *lo = calloc(1, vbytes), *hi = calloc(1, vbytes), *out = calloc(1, obytes);
        void *slo = calloc(1, sbytes), *shi = calloc(1, sbytes), *sv = calloc(1, sbytes);
        void *upb = calloc(1, vbytes * 2);
        KT_REQUIRE(a && b && c && lo && hi && out && slo && shi && sv && upb, "out of memory");
        for (size_t i = 0; i < nel; i++) {
            put(t, a, i, sample(t, &seed));
            put(t, b, i, sample(t, &seed));
            put(t, c, i, sample(t, &seed));
            uint64_t p = sample(t, &seed), q = sample(t, &seed);
            put(t, lo, i, p);
            put(t, hi, i, q);
            if (get(t, lo, i) > get(t, hi, i)) {
                put(t, lo, i, q);
                put(t, hi, i, p);
            }
        }
        for (size_t i = 0; i < NITEMS; i++) {
            uint64_t p = sample(t, &seed), q = sample(t, &seed);
            put(t, slo, i, p);
            put(t, shi, i, q);
            if (get(t, slo, i) > get(t, shi, i)) {
                put(t, slo, i, q);
                put(t, shi, i, p);
            }
            put(t, sv, i, sample(t, &seed));
        }
        char kname[16];
        snprintf(kname, sizeof(kname), n == 1 ? "k" : "k%d", n);
        struct kt_arg args[] = {
            {KT_IN, vbytes, a},        {KT_IN, vbytes, b},  {KT_IN, vbytes, c},
            {KT_IN, vbytes, lo},       {KT_IN, vbytes, hi}, {KT_IN, sbytes, slo},
            {KT_IN, sbytes, shi},      {KT_IN, sbytes, sv}, {KT_OUT, obytes, out},
            {KT_OUT, vbytes * 2, upb},
        };
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 10, args), CL_SUCCESS);
        int bad = 0;
        uint64_t m = mask_of(t->bits);
        for (size_t i = 0; i < NITEMS; i++) {
            for (int l = 0; l < n; l++) {
                size_t e = i * (size_t)vs + (size_t)l;
                i128 x = get(t, a, e), y = get(t, b, e), z = get(t, c, e);
                for (int f = 0; f < NF - 1; f++) {
                    uint64_t want = reference(t, f, x, y, z, get(t, lo, e), get(t, hi, e),
                                              get(t, slo, i), get(t, shi, i), get(t, sv, i), n,
                                              strcmp(std, "-cl-std=CL1.2") != 0) &
                                    m;
                    uint64_t got =
                        bits_of(get(t, out, (i * NF + (size_t)f) * (size_t)vs + (size_t)l)) & m;
                    if (got != want && bad++ < 8)
                        KT_CHECK(got == want,
                                 "%s%d lane %d: %s(0x%llx, 0x%llx, 0x%llx) = 0x%llx, want 0x%llx",
                                 t->name, n, l, fnames[f], (unsigned long long)(bits_of(x) & m),
                                 (unsigned long long)(bits_of(y) & m),
                                 (unsigned long long)(bits_of(z) & m), (unsigned long long)got,
                                 (unsigned long long)want);
                }
                if (up) {
                    /* upsample(x, as_U(y)): x in the high half, y's bits in the low half. */
                    uint64_t want =
                        ((bits_of(x) << t->bits) | (bits_of(y) & m)) & mask_of(2 * t->bits);
                    uint64_t got;
                    if (t->bits == 8)
                        got = ((uint16_t *)upb)[e];
                    else if (t->bits == 16)
                        got = ((uint32_t *)upb)[e];
                    else
                        got = ((uint64_t *)upb)[e];
                    if (got != want && bad++ < 8)
                        KT_CHECK(got == want, "%s%d lane %d: upsample(0x%llx, 0x%llx) = 0x%llx",
                                 t->name, n, l, (unsigned long long)(bits_of(x) & m),
                                 (unsigned long long)(bits_of(y) & m), (unsigned long long)got);
                }
            }
        }
        KT_CHECK(bad == 0, "%s%d: %d wrong results", t->name, n, bad);
        free(a), free(b), free(c), free(lo), free(hi), free(out);
        free(slo), free(shi), free(sv), free(upb);
    }
    clReleaseProgram(prog);
}

/*
 * Division and remainder (the / and % operators): exact where defined, and no trap (SIGFPE on
 * x86) where OpenCL C leaves the value unspecified, a divisor of 0 and a signed MIN / -1.
 */
static const char *div_src = "#define CAT_(a, b) a##b\n"
                             "#define CAT(a, b) CAT_(a, b)\n"
                             "#define KD(N) \\\n"
                             "kernel void CAT(d, N)(global const CAT(T, N) *a, \\\n"
                             "    global const CAT(T, N) *b, global CAT(T, N) *q, \\\n"
                             "    global CAT(T, N) *r) { \\\n"
                             "  size_t i = get_global_id(0); \\\n"
                             "  q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; \\\n"
                             "}\n"
                             "KD() KD(4) KD(16)\n";

static void run_div(struct kt_env *env, const struct itype *t, const char *std)
{
    char opts[128];
    snprintf(opts, sizeof(opts), "%s -DT=%s", std, t->name);
    cl_program prog = kt_build(env, div_src, opts);
    size_t es = (size_t)t->bits / 8;
    unsigned seed = 777u + (unsigned)t->bits * 3u + (t->sgn ? 1u : 0u);
    static const int dwidths[] = {1, 4, 16};
    uint64_t m = mask_of(t->bits);
    for (size_t wi = 0; wi < sizeof(dwidths) / sizeof(dwidths[0]); wi++) {
        int n = dwidths[wi];
        size_t nel = (size_t)NITEMS * (size_t)n, bytes = nel * es;
        void *a = calloc(1, bytes), *b = calloc(1, bytes), *q = calloc(1, bytes),
             *r = calloc(1, bytes);
        KT_REQUIRE(a && b && q && r, "out of memory");
        for (size_t i = 0; i < nel; i++) {
            put(t, a, i, sample(t, &seed));
            put(t, b, i, sample(t, &seed));
            if (i % 8 == 1) /* a zero divisor in a lane beside defined ones */
                put(t, b, i, 0);
            else if (i % 8 == 5 && t->sgn) { /* MIN / -1 */
                put(t, a, i, bits_of(tmin(t)));
                put(t, b, i, m);
            }
        }
        char kname[16];
        snprintf(kname, sizeof(kname), n == 1 ? "d" : "d%d", n);
        struct kt_arg args[] = {
            {KT_IN, bytes, a}, {KT_IN, bytes, b}, {KT_OUT, bytes, q}, {KT_OUT, bytes, r}};
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 4, args), CL_SUCCESS);
        int bad = 0, undefined = 0;
        for (size_t i = 0; i < nel; i++) {
            i128 x = get(t, a, i), y = get(t, b, i);
            if (y == 0 || (t->sgn && x == tmin(t) && y == -1)) {
                undefined++;
                continue;
            }
            uint64_t wq = bits_of(x / y) & m, wr = bits_of(x % y) & m;
            uint64_t gq = bits_of(get(t, q, i)) & m, gr = bits_of(get(t, r, i)) & m;
            if ((gq != wq || gr != wr) && bad++ < 8)
                KT_CHECK(0, "%s%d: 0x%llx / 0x%llx = 0x%llx rem 0x%llx, want 0x%llx rem 0x%llx",
                         t->name, n, (unsigned long long)(bits_of(x) & m),
                         (unsigned long long)(bits_of(y) & m), (unsigned long long)gq,
                         (unsigned long long)gr, (unsigned long long)wq, (unsigned long long)wr);
        }
        KT_CHECK(undefined >= NITEMS / 8, "%s%d: only %d trapping divisions tried", t->name, n,
                 undefined);
        KT_CHECK(bad == 0, "%s%d: %d wrong divisions", t->name, n, bad);
        free(a), free(b), free(q), free(r);
    }
    clReleaseProgram(prog);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        run_type(&env, &types[i], i % 2 ? "-cl-std=CL3.0" : "-cl-std=CL1.2");
        run_div(&env, &types[i], i % 2 ? "-cl-std=CL1.2" : "-cl-std=CL3.0");
    }
    kt_teardown(&env);
    return kt_finish("integer");
}
