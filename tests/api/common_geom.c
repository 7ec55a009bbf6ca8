/*
 * Common (OpenCL C 3.0 §6.15.4) and geometric (§6.15.5) builtins for float, double
 * and half, checked against long double host references.
 *
 * Common, at every width (1, 2, 3, 4, 8, 16), with the vector-scalar forms: clamp,
 * step, sign, min and max exactly (sign keeps the sign of a zero and gives 0 for a
 * NaN); degrees and radians within 2 ulp (§7.4); mix within 4 eps * (|x| + |y|) and
 * smoothstep within 8 eps, the bounds Kiln documents (the specification leaves both
 * to the implementation).
 *
 * Geometric, at widths 1 to 4 (half is computed in float, so it meets the same
 * bounds): dot within n * eps * sum |a_i b_i|, cross within 2 eps * (|a b| + |c d|)
 * per component, length within 2 + n/2 ulp, distance within 2.5 + n/2 ulp,
 * normalize within 2.5 + n/2 ulp per component, and the fast_ forms (float) within
 * the specification's 8192 ulp. Vectors whose components are near the largest and
 * the smallest (denormal) numbers must not overflow or underflow, nor a vector with
 * one large component lose the bits of the others' subnormal results; zero, infinite
 * and NaN components follow §6.15.5 (normalize of zero is zero, a NaN makes every
 * component NaN, infinities become +-1 and the rest 0; length is +inf with an
 * infinite component). The common program is built with -cl-std=CL3.0, the
 * geometric ones with CL1.2.
 */
#include "kiln_test.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define NITEMS 64

struct ftype {
    const char *name;
    int bytes, mant; /* mantissa bits including the implicit one */
    int emin;        /* exponent of the smallest normal */
    long double max;
};
static const struct ftype ftypes[] = {{"float", 4, 24, -126, FLT_MAX},
                                      {"double", 8, 53, -1022, DBL_MAX},
                                      {"half", 2, 11, -14, 65504}};

static int stride(int n)
{
    return n == 3 ? 4 : n;
}

/* A half's value, from its bits. */
static long double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    long double v = e == 0    ? ldexpl(m, -24)
                    : e == 31 ? (m ? NAN : INFINITY)
                              : ldexpl(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* v rounded to the nearest half (ties to even), as bits. */
static uint16_t half_bits(long double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    int e;
    v = fabsl(v);
    if (isnan(v))
        return 0x7e00;
    if (isinf(v) || v == 0)
        return sign | (v == 0 ? 0 : 0x7c00);
    frexpl(v, &e);
    int exp = e - 1 < -14 ? -14 : e - 1; /* v < 2^(exp + 1) */
    uint32_t m = (uint32_t)nearbyintl(v / ldexpl(1.0L, exp - 10));
    if (m >= 2048) {
        m >>= 1;
        exp++;
    }
    if (exp > 15)
        return sign | 0x7c00;
    if (m < 1024) /* denormal */
        return sign | (uint16_t)m;
    return sign | (uint16_t)((exp + 15) << 10) | (uint16_t)(m - 1024);
}

static long double getv(const struct ftype *t, const void *p, size_t i)
{
    if (t->bytes == 2)
        return half_value(((const uint16_t *)p)[i]);
    return t->bytes == 4 ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}

static void setv(const struct ftype *t, void *p, size_t i, long double v)
{
    if (t->bytes == 2)
        ((uint16_t *)p)[i] = half_bits(v);
    else if (t->bytes == 4)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = (double)v;
}

static long double eps(const struct ftype *t)
{
    return ldexpl(1.0L, 1 - t->mant);
}

/* The size of one ulp at v (v in the type's range), denormals included. */
static long double ulp(const struct ftype *t, long double v)
{
    int e;
    frexpl(fabsl(v), &e); /* |v| in [2^(e-1), 2^e) */
    if (v == 0 || e - 1 < t->emin)
        e = t->emin + 1;
    return ldexpl(1.0L, e - 1 - (t->mant - 1));
}

static double urand(unsigned *seed)
{
    return (double)rand_r(seed) / RAND_MAX;
}

/* ---- common ---- */

#define NC 13
static const char *const cnames[NC] = {"clamp", "clamp_s", "degrees", "radians",    "mix",
                                       "mix_s", "step",    "step_s",  "smoothstep", "smoothstep_s",
                                       "sign",  "max",     "min"};

static const char *csrc =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define CAT_(a, b) a##b\n"
    "#define CAT(a, b) CAT_(a, b)\n"
    "#define KN(N) \\\n"
    "kernel void CAT(c, N)(global const CAT(T, N) *in, global const T *s, \\\n"
    "    global CAT(T, N) *out) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  global const CAT(T, N) *v = in + i * 6; \\\n"
    "  CAT(T, N) x = v[0], y = v[1], a = v[2], lo = v[3], hi = v[4], e1 = v[5]; \\\n"
    "  global const T *q = s + i * 4; \\\n"
    "  global CAT(T, N) *o = out + i * 13; \\\n"
    "  o[0] = clamp(x, lo, hi); o[1] = CLAMP_S; o[2] = degrees(x); o[3] = radians(x); \\\n"
    "  o[4] = mix(x, y, a); o[5] = MIX_S; o[6] = step(lo, x); o[7] = STEP_S; \\\n"
    "  o[8] = smoothstep(lo, e1, x); o[9] = SMOOTH_S; o[10] = sign(x); \\\n"
    "  o[11] = max(x, y); o[12] = min(x, y); \\\n"
    "}\n"
    "#define CLAMP_S clamp(x, q[0], q[1])\n"
    "#define MIX_S mix(x, y, q[2])\n"
    "#define STEP_S step(q[0], x)\n"
    "#define SMOOTH_S smoothstep(q[0], q[3], x)\n"
    "KN(2) KN(3) KN(4) KN(8) KN(16)\n"
    /* scalars have no separate vector-scalar form: the same calls on scalars */
    "#define N\n"
    "KN()\n";

static long double cref(int f, long double x, long double y, long double a, long double lo,
                        long double hi, long double e1, const long double *q)
{
    switch (f) {
    case 0:
        return fminl(fmaxl(x, lo), hi);
    case 1:
        return fminl(fmaxl(x, q[0]), q[1]);
    case 2:
        return x * (180.0L / 3.14159265358979323846264338327950288L);
    case 3:
        return x * (3.14159265358979323846264338327950288L / 180.0L);
    case 4:
        return x + (y - x) * a;
    case 5:
        return x + (y - x) * q[2];
    case 6:
        return x < lo ? 0.0L : 1.0L;
    case 7:
        return x < q[0] ? 0.0L : 1.0L;
    case 8:
    case 9: {
        long double e0 = f == 8 ? lo : q[0], ee = f == 8 ? e1 : q[3];
        long double t = fminl(fmaxl((x - e0) / (ee - e0), 0.0L), 1.0L);
        return t * t * (3 - 2 * t);
    }
    case 10:
        return isnan(x) ? 0.0L : x > 0 ? 1.0L : x < 0 ? -1.0L : x;
    case 11:
        return y > x ? y : x;
    default:
        return y < x ? y : x;
    }
}

static void run_common(struct kt_env *env, const struct ftype *t)
{
    char opts[64];
    snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DT=%s", t->name);
    cl_program prog = kt_build(env, csrc, opts);
    static const int widths[] = {1, 2, 3, 4, 8, 16};
    unsigned seed = 4242u + (unsigned)t->bytes;
    long double big = t->max;
    long double specials[] = {0.0L,
                              -0.0L,
                              1.0L,
                              -1.0L,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              big,
                              -big,
                              ldexpl(1.0L, t->emin),
                              ldexpl(1.0L, t->emin - t->mant + 1)};
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        int n = widths[wi], vs = stride(n);
        size_t nv = (size_t)vs * (size_t)t->bytes;
        void *in = calloc(NITEMS * 6, nv), *s = calloc(NITEMS * 4, (size_t)t->bytes);
        void *out = calloc(NITEMS * NC, nv);
        KT_REQUIRE(in && s && out, "out of memory");
        for (size_t i = 0; i < NITEMS; i++) {
            for (int l = 0; l < vs; l++) {
                size_t base = i * 6 * (size_t)vs + (size_t)l;
                long double x = (urand(&seed) - 0.5) * 200;
                if (rand_r(&seed) % 5 == 0)
                    x = specials[(size_t)rand_r(&seed) % (sizeof(specials) / sizeof(specials[0]))];
                long double lo = (urand(&seed) - 0.5) * 150, hi = (urand(&seed) - 0.5) * 150;
                if (lo > hi) {
                    long double tmp = lo;
                    lo = hi;
                    hi = tmp;
                }
                if (lo == hi)
                    hi = lo + 1;
                setv(t, in, base, x);
                setv(t, in, base + (size_t)vs, (urand(&seed) - 0.5) * 200);
                setv(t, in, base + 2 * (size_t)vs, urand(&seed));
                setv(t, in, base + 3 * (size_t)vs, lo);
                setv(t, in, base + 4 * (size_t)vs, hi);
                setv(t, in, base + 5 * (size_t)vs, hi);
            }
            long double a0 = (urand(&seed) - 0.5) * 150, a1 = (urand(&seed) - 0.5) * 150;
            setv(t, s, i * 4, fminl(a0, a1));
            setv(t, s, i * 4 + 1, fmaxl(a0, a1));
            setv(t, s, i * 4 + 2, urand(&seed));
            setv(t, s, i * 4 + 3, fmaxl(a0, a1) + 1);
        }
        char kname[8];
        snprintf(kname, sizeof(kname), n == 1 ? "c" : "c%d", n);
        struct kt_arg args[] = {{KT_IN, NITEMS * 6 * nv, in},
                                {KT_IN, NITEMS * 4 * (size_t)t->bytes, s},
                                {KT_OUT, NITEMS * NC * nv, out}};
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 3, args), CL_SUCCESS);
        int bad = 0;
        for (size_t i = 0; i < NITEMS; i++) {
            long double q[4];
            for (int k = 0; k < 4; k++)
                q[k] = getv(t, s, i * 4 + (size_t)k);
            for (int l = 0; l < n; l++) {
                size_t base = i * 6 * (size_t)vs + (size_t)l;
                long double v[6];
                for (int k = 0; k < 6; k++)
                    v[k] = getv(t, in, base + (size_t)k * (size_t)vs);
                for (int f = 0; f < NC; f++) {
                    long double got = getv(t, out, (i * NC + (size_t)f) * (size_t)vs + (size_t)l);
                    long double want = cref(f, v[0], v[1], v[2], v[3], v[4], v[5], q);
                    long double tol = 0;
                    if (f == 2 || f == 3)
                        tol = 2 * ulp(t, want);
                    else if (f == 4 || f == 5)
                        tol = 4 * eps(t) * (fabsl(v[0]) + fabsl(v[1]));
                    else if (f == 8 || f == 9)
                        tol = 8 * eps(t);
                    bool ok;
                    if (f >= 11 && (!isfinite(v[0]) || v[0] == 0))
                        ok = true; /* min and max are undefined for NaNs and infinities;
                                      the sign of a zero result is left open */
                    else if ((f == 4 || f == 5) && fabsl(v[1] - v[0]) > t->max)
                        ok = true; /* y - x overflows in the specified x + (y - x) * a */
                    else if (isnan(want))
                        ok = isnan(got);
                    else if (isinf(want) || tol == 0)
                        ok = got == want && signbit(got) == signbit(want);
                    else if (fabsl(want) > t->max)
                        ok = isinf(got) && signbit(got) == signbit(want); /* overflows */
                    else
                        ok = fabsl(got - want) <= tol;
                    if (!ok && bad++ < 8)
                        KT_CHECK(ok, "%s%d lane %d: %s: x %La: got %La, want %La", t->name, n, l,
                                 cnames[f], v[0], got, want);
                }
            }
        }
        KT_CHECK(bad == 0, "%s%d: %d wrong common results", t->name, n, bad);
        free(in), free(s), free(out);
    }
    clReleaseProgram(prog);
}

/* ---- geometric ---- */

/* Per work-item results: dot, length, distance, fast_length, fast_distance, then
 * normalize, fast_normalize and cross as vectors. */
static const char *gsrc =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define CAT_(a, b) a##b\n"
    "#define CAT(a, b) CAT_(a, b)\n"
    "#define KN(N, EXTRA) \\\n"
    "kernel void CAT(g, N)(global const CAT(T, N) *a, global const CAT(T, N) *b, \\\n"
    "    global T *r, global CAT(T, N) *v) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  CAT(T, N) x = a[i], y = b[i]; \\\n"
    "  r[i * 5] = dot(x, y); r[i * 5 + 1] = length(x); r[i * 5 + 2] = distance(x, y); \\\n"
    "  v[i * 3] = normalize(x); \\\n"
    "  EXTRA(N) \\\n"
    "}\n"
    "#define NONE(N)\n"
    "#if IS_FLOAT\n"
    "#define FAST(N) r[i * 5 + 3] = fast_length(x); r[i * 5 + 4] = fast_distance(x, y); \\\n"
    "  v[i * 3 + 1] = fast_normalize(x);\n"
    "#else\n"
    "#define FAST(N)\n"
    "#endif\n"
    "#define CROSS(N) FAST(N) v[i * 3 + 2] = cross(x, y);\n"
    "KN(, FAST) KN(2, FAST) KN(3, CROSS) KN(4, CROSS)\n";

static void run_geometric(struct kt_env *env, const struct ftype *t)
{
    char opts[64];
    bool is_float = t->bytes == 4;
    snprintf(opts, sizeof(opts), "-cl-std=CL1.2 -DT=%s -DIS_FLOAT=%d", t->name, is_float);
    cl_program prog = kt_build(env, gsrc, opts);
    unsigned seed = 31337u + (unsigned)t->bytes;
    long double big = t->max;
    int max_exp = t->emin == -14 ? 15 : is_float ? 127 : 1023;
    int spread = t->emin == -14 ? 8 : 60; /* exponents for the moderate vectors */
    for (int n = 1; n <= 4; n++) {
        int vs = stride(n);
        size_t nv = (size_t)vs * (size_t)t->bytes, tb = (size_t)t->bytes;
        void *a = calloc(NITEMS, nv), *b = calloc(NITEMS, nv);
        void *r = calloc(NITEMS * 5, tb), *v = calloc(NITEMS * 3, nv);
        KT_REQUIRE(a && b && r && v, "out of memory");
        for (size_t i = 0; i < NITEMS; i++) {
            int kind = (int)(i % 10);
            for (int l = 0; l < n; l++) {
                size_t e = i * (size_t)vs + (size_t)l;
                long double x = (urand(&seed) - 0.5) * 20, y = (urand(&seed) - 0.5) * 20;
                if (kind == 1) { /* near the largest numbers: squares overflow */
                    x = ldexpl(urand(&seed) * 1.9 - 0.95, max_exp);
                    y = ldexpl(urand(&seed) - 0.5, max_exp);
                } else if (kind == 2) { /* denormals and tiny numbers: squares underflow */
                    x = ldexpl(urand(&seed) - 0.5, t->emin - (l % 2 ? 2 : t->mant / 2));
                    y = ldexpl(urand(&seed) - 0.5, t->emin - t->mant / 2);
                } else if (kind == 3) {
                    x = (l % 2) ? -0.0L : 0.0L;
                } else if (kind == 4 && l == n - 1) {
                    x = (i % 20 < 10) ? INFINITY : -INFINITY;
                } else if (kind == 5 && l == 0) {
                    x = NAN;
                } else if (kind == 7) { /* one large component, the others' results subnormal */
                    int big_exp = max_exp / 2 - 2 + (int)(rand_r(&seed) % (unsigned)(max_exp / 2));
                    x = l == 0
                            ? ldexpl(urand(&seed) + 1, big_exp)
                            : ldexpl(urand(&seed) + 1,
                                     big_exp + t->emin - (int)(rand_r(&seed) % (unsigned)t->mant));
                } else if (kind == 6) {
                    x = ldexpl(x, (int)(rand_r(&seed) % (2 * spread)) - spread);
                    y = ldexpl(y, (int)(rand_r(&seed) % (2 * spread)) - spread);
                }
                setv(t, a, e, x);
                setv(t, b, e, y);
            }
        }
        char kname[8];
        snprintf(kname, sizeof(kname), n == 1 ? "g" : "g%d", n);
        struct kt_arg args[] = {{KT_IN, NITEMS * nv, a},
                                {KT_IN, NITEMS * nv, b},
                                {KT_OUT, NITEMS * 5 * tb, r},
                                {KT_OUT, NITEMS * 3 * nv, v}};
        KT_EXPECT(kt_run_in(env, prog, kname, NITEMS, 0, 4, args), CL_SUCCESS);
        int bad = 0;
        double worst_len = 0, worst_norm = 0;
        for (size_t i = 0; i < NITEMS; i++) {
            long double x[4], y[4], dot = 0, adot = 0, sq = 0, dsq = 0, m = 0;
            bool has_inf = false, has_nan = false;
            for (int l = 0; l < n; l++) {
                x[l] = getv(t, a, i * (size_t)vs + (size_t)l);
                y[l] = getv(t, b, i * (size_t)vs + (size_t)l);
                dot += x[l] * y[l];
                adot += fabsl(x[l] * y[l]);
                sq += x[l] * x[l];
                dsq += (x[l] - y[l]) * (x[l] - y[l]);
                has_inf |= isinf(x[l]) != 0;
                has_nan |= isnan(x[l]) != 0;
                m = fmaxl(m, fabsl(x[l]));
            }
            long double got[5];
            for (int k = 0; k < 5; k++)
                got[k] = getv(t, r, i * 5 + (size_t)k);
            long double len = sqrtl(sq), dist = sqrtl(dsq);
            long double lb = 2 + n / 2.0L, nb = 2.5L + n / 2.0L;
            /* dot */
            if (!has_inf && !has_nan && adot <= big) {
                long double tol = n * eps(t) * adot + n * ulp(t, 0);
                if (!(fabsl(got[0] - dot) <= tol) && bad++ < 8)
                    KT_CHECK(0, "%s%d item %zu: dot %La, want %La", t->name, n, i, got[0], dot);
            }
            /* length */
            bool ok;
            if (has_inf)
                ok = isinf(got[1]) && got[1] > 0;
            else if (has_nan)
                ok = isnan(got[1]);
            else {
                long double err = fabsl(got[1] - len) / ulp(t, len);
                ok = err <= lb;
                worst_len = fmax(worst_len, (double)err);
            }
            if (!ok && bad++ < 8)
                KT_CHECK(0, "%s%d item %zu: length %La, want %La", t->name, n, i, got[1], len);
            /* distance: finite inputs whose difference does not overflow */
            if (!has_inf && !has_nan && dist <= big) {
                long double err = fabsl(got[2] - dist) / ulp(t, dist);
                if (!(err <= lb + 0.5L) && bad++ < 8)
                    KT_CHECK(0, "%s%d item %zu: distance %La, want %La", t->name, n, i, got[2],
                             dist);
            }
            /* fast_length and fast_distance: 8192 ulp where the sum of squares is finite and
             * normal */
            if (is_float && !has_inf && !has_nan && sq <= big && sq >= FLT_MIN) {
                if (!(fabsl(got[3] - len) <= 8192 * ulp(t, len)) && bad++ < 8)
                    KT_CHECK(0, "%s%d item %zu: fast_length %La, want %La", t->name, n, i, got[3],
                             len);
            }
            if (is_float && !has_inf && !has_nan && dsq <= big && dsq >= FLT_MIN) {
                if (!(fabsl(got[4] - dist) <= 8192 * ulp(t, dist)) && bad++ < 8)
                    KT_CHECK(0, "%s%d item %zu: fast_distance %La, want %La", t->name, n, i, got[4],
                             dist);
            }
            /* normalize, per §6.15.5 */
            long double p[4], psq = 0;
            for (int l = 0; l < n; l++) {
                p[l] = has_inf ? (isinf(x[l]) ? copysignl(1, x[l]) : 0 * x[l]) : x[l];
                psq += p[l] * p[l];
            }
            long double plen = sqrtl(psq);
            for (int l = 0; l < n; l++) {
                long double g = getv(t, v, i * 3 * (size_t)vs + (size_t)l);
                if (has_nan)
                    ok = isnan(g);
                else if (psq == 0)
                    ok = g == 0 && signbit(g) == signbit(x[l]);
                else {
                    long double want = p[l] / plen;
                    long double err = fabsl(g - want) / ulp(t, want);
                    ok = err <= nb;
                    worst_norm = fmax(worst_norm, (double)err);
                }
                if (!ok && bad++ < 8)
                    KT_CHECK(0, "%s%d item %zu lane %d: normalize %La (x %La)", t->name, n, i, l, g,
                             x[l]);
                /* fast_normalize: 8192 ulp where the sum of squares is a finite normal */
                if (is_float && !has_inf && !has_nan && sq <= big && sq >= FLT_MIN) {
                    long double fg = getv(t, v, (i * 3 + 1) * (size_t)vs + (size_t)l);
                    long double want = x[l] / len;
                    if (!(fabsl(fg - want) <= 8192 * ulp(t, want)) && bad++ < 8)
                        KT_CHECK(0, "%s%d item %zu lane %d: fast_normalize %La, want %La", t->name,
                                 n, i, l, fg, want);
                }
            }
            if (is_float && sq == 0 && !has_nan) {
                for (int l = 0; l < n; l++) {
                    long double fg = getv(t, v, (i * 3 + 1) * (size_t)vs + (size_t)l);
                    if (fg != 0 && bad++ < 8)
                        KT_CHECK(0, "%s%d item %zu: fast_normalize of zero gives %La", t->name, n,
                                 i, fg);
                }
            }
            /* cross */
            if (n >= 3 && !has_inf && !has_nan && adot <= big) {
                for (int l = 0; l < n; l++) {
                    int j = (l + 1) % 3, k = (l + 2) % 3;
                    long double want = l == 3 ? 0 : x[j] * y[k] - x[k] * y[j];
                    long double tol =
                        l == 3 ? 0 : 2 * eps(t) * (fabsl(x[j] * y[k]) + fabsl(x[k] * y[j]));
                    long double g = getv(t, v, (i * 3 + 2) * (size_t)vs + (size_t)l);
                    if (fabsl(want) > big)
                        continue;
                    if (!(fabsl(g - want) <= tol + ulp(t, 0)) && bad++ < 8)
                        KT_CHECK(0, "%s%d item %zu lane %d: cross %La, want %La", t->name, n, i, l,
                                 g, want);
                }
            }
        }
        printf("%s%d: worst length error %.2f ulp, normalize %.2f ulp\n", t->name, n, worst_len,
               worst_norm);
        KT_CHECK(bad == 0, "%s%d: %d wrong geometric results", t->name, n, bad);
        free(a), free(b), free(r), free(v);
    }
    clReleaseProgram(prog);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    for (size_t i = 0; i < sizeof(ftypes) / sizeof(ftypes[0]); i++) {
        run_common(&env, &ftypes[i]);
        run_geometric(&env, &ftypes[i]);
    }
    kt_teardown(&env);
    return kt_finish("common_geom");
}
