/*
 * Every math builtin of OpenCL C 3.0 §6.15.2 for half and halfn (cl_khr_fp16), and half
 * arithmetic (+ - * /), against host references, with the half-precision bounds of the
 * specification's ULP table (OpenCL SPIR-V environment §"ULP Values for Math Instructions",
 * the Float16 column).
 *
 * One-argument functions run on all 65,536 half values; the others on every pair of a list
 * of special values (zeros, subnormals, the extremes, infinities, NaN, halfway cases) and
 * random bit patterns. Each runs scalar and at one vector width (the new basic ones, the
 * arithmetic and fma at every width). References are computed in double from the host C
 * library and rounded to half by a conversion written here (round to nearest even,
 * subnormals, infinities, NaN) and checked against every half at start. fma's reference is
 * exact: the product and the sum of the halves in 128-bit integers, rounded once.
 *
 * Judgements: correctly rounded and 0-ulp functions must give the very half (any NaN for a
 * NaN); the others are measured in ulp of the half result and must stay within the bound
 * (an infinite result counts as 2^16, so it passes where the reference is beyond the
 * largest half). Where the argument is a zero and the reference a zero, its sign must match.
 *
 * The device must report cl_khr_fp16 (the test fails otherwise) unless KILN_FP16=0 is set,
 * which makes the test report skipped (exit 77).
 */
#define _DEFAULT_SOURCE /* lgamma_r */
#include "kiln_test.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NUNARY  65536
#define NSAMPLE 65536
#define NFMA    (1 << 20)

/* ---- host half <-> double ---- */

static double h2d(uint16_t h)
{
    int sign = h >> 15, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (ex == 0x1f)
        v = m ? NAN : INFINITY;
    else if (ex == 0)
        v = ldexp(m, -24);
    else
        v = ldexp(m + 1024, ex - 25);
    return sign ? -v : v;
}

/* Round to nearest, ties to even; the host's rounding mode is the default one. */
static uint16_t d2h(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return sign | 0x7e00;
    if (a >= 65520.0) /* 65504 plus half its ulp, and beyond: a tie goes to the even inf */
        return sign | 0x7c00;
    if (a < 0x1p-14) /* subnormal (or rounds up to the smallest normal, 0x400) */
        return sign | (uint16_t)rint(a * 0x1p24);
    int e;
    double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    double r = rint(m * 2048);
    if (r == 2048) {
        r = 1024;
        e++;
    }
    return sign | (uint16_t)(((e - 1 + 15) << 10) + ((int)r - 1024));
}

static bool h_isnan(uint16_t h)
{
    return (h & 0x7fff) > 0x7c00;
}

/* The conversion checked on every half and on the midpoints between neighbours. */
static void check_conversion(void)
{
    int bad = 0;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b;
        if (h_isnan(h)) {
            bad += !h_isnan(d2h(h2d(h)));
            continue;
        }
        bad += d2h(h2d(h)) != h;
        /* Halfway to the next half up in magnitude: ties go to the even one. */
        if ((h & 0x7fff) < 0x7c00) {
            double lo = h2d(h), hi = (h & 0x7fff) == 0x7bff ? copysign(65536.0, lo) : h2d(h + 1);
            double mid = (lo + hi) / 2;
            uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
            if (d2h(mid) != even && bad++ < 5)
                fprintf(stderr, "midpoint %a of %#x: %#x\n", mid, h, d2h(mid));
            bad += d2h(nextafter(mid, 0)) != h;
        }
    }
    KT_REQUIRE(bad == 0, "the test's own half conversion is wrong in %d cases", bad);
}

/* Error of half `got` against `ref` in ulp of the half at ref. */
static double ulp_err(uint16_t got, double ref)
{
    double g = h2d(got);
    if (isnan(ref))
        return isnan(g) ? 0 : INFINITY;
    if (isnan(g))
        return INFINITY;
    if (isinf(ref))
        return g == ref ? 0 : INFINITY;
    if (isinf(g)) {
        if (signbit(g) != signbit(ref))
            return INFINITY;
        /* infinity stands for 2^16, the next value after the largest half */
        return (65536 - fmin(fabs(ref), 65536)) / 32;
    }
    int e;
    frexp(ref, &e);
    int ue = (e - 1 < -14 ? -14 : e - 1) - 10;
    return fabs(g - ref) / ldexp(1, ue);
}

/* ---- references in double (exact, or within about 1 ulp of double) ---- */

/* The next half after x towards y, on the encoding. */
static uint16_t next_half(uint16_t x, uint16_t y)
{
    double a = h2d(x), b = h2d(y);
    if (isnan(a) || isnan(b))
        return 0x7e00;
    if (a == b)
        return y;
    if (a == 0)
        return (uint16_t)((y & 0x8000) | 1);
    bool away = (b > a) == (a > 0);
    return away ? (uint16_t)(x + 1) : (uint16_t)(x - 1);
}

/* sinpi, cospi, tanpi: the argument reduced exactly (fmod), then a multiple of pi. */
static double r_sinpi(double x)
{
    return isinf(x) ? NAN : sin(M_PI * fmod(x, 2.0));
}
static double r_cospi(double x)
{
    if (isinf(x))
        return NAN;
    double r = fabs(fmod(x, 2.0)); /* [0, 2) */
    if (r == 0.5 || r == 1.5)      /* cospi(n + 0.5) is +0 */
        return 0.0;
    return cos(M_PI * r);
}
static double r_tanpi(double x)
{
    if (isinf(x))
        return NAN;
    double r = fmod(x, 1.0); /* (-1, 1), exactly */
    if (fabs(r) == 0.5)
        return INFINITY; /* either infinity is accepted (inf_any_sign) */
    if (r == 0)          /* tanpi(n) is a zero whose sign the specification gives */
        return copysign(0.0, x) * (fmod(fabs(x), 2.0) == 1.0 ? -1 : 1);
    return tan(M_PI * r);
}
static double r_powr(double x, double y)
{
    if (isnan(x) || isnan(y) || x < 0 || (x == 0 && y == 0) || (isinf(x) && y == 0) ||
        (x == 1 && isinf(y)))
        return NAN;
    return pow(x == 0 ? 0.0 : x, y);
}
static double r_rootn(double x, int n)
{
    if (n == 0 || isnan(x) || (x < 0 && n % 2 == 0))
        return NAN;
    double r = pow(fabs(x), 1.0 / n);
    return (signbit(x) && n % 2 != 0) ? -r : r;
}
static double r_fract(double x, double *ip)
{
    double fl = floor(x);
    *ip = fl;
    if (isnan(x))
        return x;
    if (isinf(x))
        return copysign(0.0, x);
    if (x == 0)
        return x;
    double fr = x - fl;
    return fr > 0x1.ffcp-1 ? 0x1.ffcp-1 : fr; /* the largest half below 1 */
}
static double r_maxmag(double x, double y)
{
    return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y);
}
static double r_minmag(double x, double y)
{
    return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y);
}

/* ---- fma, exactly ---- */

/* A finite half as m * 2^e, m an integer below 2^11. */
static void h_split(uint16_t h, int64_t *m, int *e)
{
    int ex = (h >> 10) & 0x1f, f = h & 0x3ff;
    *m = ex ? f + 1024 : f;
    *e = ex ? ex - 25 : -24;
    if (h & 0x8000)
        *m = -*m;
}

/* v * 2^e rounded once to half (ties to even); v != 0. */
static uint16_t round_exact(__int128 v, int e)
{
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned __int128 mag = (unsigned __int128)(v < 0 ? -v : v);
    int len = 0;
    while ((mag >> len) != 0)
        len++;
    /* keep 11 bits, or down to the subnormal quantum 2^-24 */
    int shift = len - 11;
    if (len - 1 + e < -14)
        shift = -24 - e;
    if (shift > 0) {
        unsigned __int128 q = mag >> shift, rem = mag - (q << shift);
        unsigned __int128 halfway = (unsigned __int128)1 << (shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1)))
            q++;
        mag = q;
        e += shift;
    }
    /* exact now, or 2^16 and beyond: d2h makes that infinite */
    return sign | d2h(ldexp((double)mag, e));
}

static uint16_t fma_exact(uint16_t a, uint16_t b, uint16_t c)
{
    double x = h2d(a), y = h2d(b), z = h2d(c);
    if (!isfinite(x) || !isfinite(y) || !isfinite(z))
        return d2h(fma(x, y, z)); /* infinities and NaNs: no rounding involved */
    int64_t ma, mb, mc;
    int ea, eb, ec;
    h_split(a, &ma, &ea);
    h_split(b, &mb, &eb);
    h_split(c, &mc, &ec);
    __int128 p = (__int128)ma * mb;
    int ep = ea + eb;
    int e0 = ep < ec ? ep : ec;
    /* Scaled by multiplication: a left shift of a negative value is undefined. */
    __int128 sum = p * ((__int128)1 << (ep - e0)) + (__int128)mc * ((__int128)1 << (ec - e0));
    if (sum == 0) /* an exact zero: -0 only for -0 + -0 */
        return (x * y == 0 && signbit(x * y) && signbit(z)) ? 0x8000 : 0;
    return round_exact(sum, e0);
}

/* ---- the functions ---- */

enum shape {
    S1,      /* T f(T) */
    S2,      /* T f(T, T) and the operators */
    S3,      /* T f(T, T, T) */
    SK,      /* T f(T, int) */
    SI,      /* int f(T): ilogb */
    SU,      /* T f(ushort): nan */
    SPTR_T,  /* T f(T, T *): the second result in t */
    SPTR_I,  /* T f(T, int *): the second result in q */
    SREMQUO, /* T f(T, T, int *) */
};

enum judge {
    EXACT,  /* the same half (any NaN for a NaN) */
    EITHER, /* exact, but with equal magnitudes (fmin, fmax, maxmag, minmag) either argument */
    ULP,    /* within `bound` ulp */
    MAD,    /* the correctly rounded fma, or the product rounded and then the sum */
    ISNAN,  /* any NaN */
};

struct fn {
    const char *name;
    const char *expr; /* of a, b, c (halfn), k (intn); t (halfn) and q (intn) second results */
    enum shape shape;
    enum judge judge;
    double bound;
    bool all_widths; /* every vector width, not only one */
};

#define F1(n, j, u)                                                                                \
    {                                                                                              \
#n, #n "(a)", S1, j, u, false                                                              \
    }
#define F2(n, j, u)                                                                                \
    {                                                                                              \
#n, #n "(a, b)", S2, j, u, false                                                           \
    }
#define FK(n, j, u)                                                                                \
    {                                                                                              \
#n, #n "(a, k)", SK, j, u, false                                                           \
    }
#define OP(n, op)                                                                                  \
    {                                                                                              \
#n, "a " op " b", S2, EXACT, 0, true                                                       \
    }
static const struct fn fns[] = {
    /* the basic ones, new for half */
    {"sqrt", "sqrt(a)", S1, EXACT, 0, true}, /* the specification allows 1.5 ulp */
    {"fabs", "fabs(a)", S1, EXACT, 0, true},
    {"fmin", "fmin(a, b)", S2, EITHER, 0, true},
    {"fmax", "fmax(a, b)", S2, EITHER, 0, true},
    {"fmin_s", "fmin(a, b.s0)", S2, EITHER, 0, true}, /* fmin(halfn, half); scalar: the same */
    {"fmax_s", "fmax(a, b.s0)", S2, EITHER, 0, true},
    {"fma", "fma(a, b, c)", S3, EXACT, 0, true},
    {"mad", "mad(a, b, c)", S3, MAD, 0, true},
    /* arithmetic: correctly rounded (the specification allows 1 ulp for /) */
    OP(add, "+"),
    OP(sub, "-"),
    OP(mul, "*"),
    OP(div, "/"),
    /* the others */
    F1(acos, ULP, 2),
    F1(acosh, ULP, 2),
    F1(acospi, ULP, 2),
    F1(asin, ULP, 2),
    F1(asinh, ULP, 2),
    F1(asinpi, ULP, 2),
    F1(atan, ULP, 2),
    F1(atanh, ULP, 2),
    F1(atanpi, ULP, 2),
    F1(cbrt, ULP, 2),
    F1(ceil, EXACT, 0),
    F1(cos, ULP, 2),
    F1(cosh, ULP, 2),
    F1(cospi, ULP, 2),
    F1(erf, ULP, 4),
    F1(erfc, ULP, 4),
    F1(exp, ULP, 2),
    F1(exp10, ULP, 2),
    F1(exp2, ULP, 2),
    F1(expm1, ULP, 2),
    F1(floor, EXACT, 0),
    F1(lgamma, ULP, 4), /* implementation-defined; Kiln holds 4 ulp */
    F1(log, ULP, 2),
    F1(log10, ULP, 2),
    F1(log1p, ULP, 2),
    F1(log2, ULP, 2),
    F1(logb, EXACT, 0),
    F1(rint, EXACT, 0),
    F1(round, EXACT, 0),
    F1(rsqrt, ULP, 1),
    F1(sin, ULP, 2),
    F1(sinh, ULP, 2),
    F1(sinpi, ULP, 2),
    F1(tan, ULP, 2.5),
    F1(tanh, ULP, 2),
    F1(tanpi, ULP, 2),
    F1(tgamma, ULP, 4),
    F1(trunc, EXACT, 0),
    F2(atan2, ULP, 2),
    F2(atan2pi, ULP, 2),
    F2(copysign, EXACT, 0),
    F2(fdim, EXACT, 0),
    F2(fmod, EXACT, 0),
    F2(hypot, ULP, 2),
    F2(maxmag, EITHER, 0),
    F2(minmag, EITHER, 0),
    F2(nextafter, EXACT, 0),
    F2(pow, ULP, 4),
    F2(powr, ULP, 4),
    F2(remainder, EXACT, 0),
    FK(pown, ULP, 4),
    FK(rootn, ULP, 4),
    FK(ldexp, EXACT, 0),
    {"ldexp_s", "ldexp(a, k.s0)", SK, EXACT, 0, false}, /* ldexp(halfn, int) */
    {"ilogb", "ilogb(a)", SI, EXACT, 0, false},
    {"nan", "nan(u)", SU, ISNAN, 0, false},
    {"sincos", "sincos(a, &t)", SPTR_T, ULP, 2, false}, /* cos in t, 2 ulp too */
    {"fract", "fract(a, &t)", SPTR_T, EXACT, 0, false},
    {"modf", "modf(a, &t)", SPTR_T, EXACT, 0, false},
    {"frexp", "frexp(a, &q)", SPTR_I, EXACT, 0, false},
    {"lgamma_r", "lgamma_r(a, &q)", SPTR_I, ULP, 4, false},
    {"remquo", "remquo(a, b, &q)", SREMQUO, EXACT, 0, false},
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

static const int widths[] = {1, 2, 3, 4, 8, 16};

/* Primary reference of fns[fi] for inputs x, y, z, n; *second gets t's or q's. */
static double reference(const struct fn *f, uint16_t hx, uint16_t hy, uint16_t hz, int n,
                        double *second, uint16_t *exact)
{
    double x = h2d(hx), y = h2d(hy);
    const char *nm = f->name;
    int iq = 0;
    *second = 0;
    *exact = 0;
#define IS(s) (strcmp(nm, s) == 0)
    if (IS("fma") || IS("mad")) {
        *exact = fma_exact(hx, hy, hz);
        /* mad's other acceptable result: the product rounded to half, then the sum */
        *second = h2d(d2h(h2d(d2h(x * y)) + h2d(hz)));
        return h2d(*exact);
    }
    if (IS("sqrt"))
        return sqrt(x);
    if (IS("fabs"))
        return fabs(x);
    if (IS("fmin") || IS("fmin_s"))
        return fmin(x, y);
    if (IS("fmax") || IS("fmax_s"))
        return fmax(x, y);
    if (IS("add"))
        return x + y;
    if (IS("sub"))
        return x - y;
    if (IS("mul"))
        return x * y;
    if (IS("div"))
        return x / y;
    if (IS("acos"))
        return acos(x);
    if (IS("acosh"))
        return acosh(x);
    if (IS("acospi"))
        return acos(x) / M_PI;
    if (IS("asin"))
        return asin(x);
    if (IS("asinh"))
        return asinh(x);
    if (IS("asinpi"))
        return asin(x) / M_PI;
    if (IS("atan"))
        return atan(x);
    if (IS("atanh"))
        return atanh(x);
    if (IS("atanpi"))
        return atan(x) / M_PI;
    if (IS("cbrt"))
        return cbrt(x);
    if (IS("ceil"))
        return ceil(x);
    if (IS("cos"))
        return cos(x);
    if (IS("cosh"))
        return cosh(x);
    if (IS("cospi"))
        return r_cospi(x);
    if (IS("erf"))
        return erf(x);
    if (IS("erfc"))
        return erfc(x);
    if (IS("exp"))
        return exp(x);
    if (IS("exp10"))
        return pow(10, x);
    if (IS("exp2"))
        return exp2(x);
    if (IS("expm1"))
        return expm1(x);
    if (IS("floor"))
        return floor(x);
    if (IS("lgamma"))
        return lgamma(x);
    if (IS("log"))
        return log(x);
    if (IS("log10"))
        return log10(x);
    if (IS("log1p"))
        return log1p(x);
    if (IS("log2"))
        return log2(x);
    if (IS("logb"))
        return logb(x);
    if (IS("rint"))
        return rint(x);
    if (IS("round"))
        return round(x);
    if (IS("rsqrt"))
        return 1 / sqrt(x);
    if (IS("sin"))
        return sin(x);
    if (IS("sinh"))
        return sinh(x);
    if (IS("sinpi"))
        return r_sinpi(x);
    if (IS("tan"))
        return tan(x);
    if (IS("tanh"))
        return tanh(x);
    if (IS("tanpi"))
        return r_tanpi(x);
    if (IS("tgamma"))
        return tgamma(x);
    if (IS("trunc"))
        return trunc(x);
    if (IS("atan2"))
        return atan2(x, y);
    if (IS("atan2pi"))
        return atan2(x, y) / M_PI;
    if (IS("copysign"))
        return copysign(x, y);
    if (IS("fdim"))
        return fdim(x, y);
    if (IS("fmod"))
        return fmod(x, y);
    if (IS("hypot"))
        return hypot(x, y);
    if (IS("maxmag"))
        return r_maxmag(x, y);
    if (IS("minmag"))
        return r_minmag(x, y);
    if (IS("nextafter"))
        return h2d(next_half(hx, hy));
    if (IS("pow"))
        return pow(x, y);
    if (IS("powr"))
        return r_powr(x, y);
    if (IS("remainder"))
        return remainder(x, y);
    if (IS("pown"))
        return pow(x, n);
    if (IS("rootn"))
        return r_rootn(x, n);
    if (IS("ldexp") || IS("ldexp_s"))
        return ldexp(x, n);
    if (IS("ilogb"))
        return isnan(x) ? INT_MAX : x == 0 ? INT_MIN : isinf(x) ? INT_MAX : ilogb(x);
    if (IS("nan"))
        return NAN;
    if (IS("sincos")) {
        *second = cos(x);
        return sin(x);
    }
    if (IS("fract"))
        return r_fract(x, second);
    if (IS("modf"))
        return modf(x, second);
    if (IS("frexp")) {
        double m = frexp(x, &iq);
        *second = iq;
        return m;
    }
    if (IS("lgamma_r")) {
        double r = lgamma_r(x, &iq);
        *second = iq;
        return r;
    }
    if (IS("remquo")) {
        /* the whole quotient (the C library gives 3 bits): exact in double for halves */
        double r = remainder(x, y);
        *second = isfinite(r) ? (x - r) / y : 0;
        return r;
    }
#undef IS
    KT_REQUIRE(0, "no reference for %s", nm);
    return 0;
}

/* Is half `got` right for a primary reference `ref` of arguments x, y? */
static bool judge(const struct fn *f, uint16_t got, double ref, double second, uint16_t hx,
                  uint16_t hy, double *err)
{
    double x = h2d(hx);
    *err = 0;
    uint16_t want = d2h(ref);
    bool same = got == want || (h_isnan(got) && h_isnan(want));
    switch (f->judge) {
    case EXACT:
        return same;
    case EITHER:
        return same || (fabs(x) == fabs(h2d(hy)) && (got == hx || got == hy));
    case MAD:
        return same || got == d2h(second) || (h_isnan(got) && isnan(second));
    case ISNAN:
        return h_isnan(got);
    case ULP:
        if (strcmp(f->name, "tanpi") == 0 && isinf(ref))
            return isinf(h2d(got));
        /* a zero argument's zero result keeps the reference's sign */
        if (x == 0 && ref == 0 && (got & 0x7fff) == 0 && signbit(ref) != (got >> 15))
            return false;
        *err = ulp_err(got, ref);
        return *err <= f->bound;
    }
    return false;
}

/* The second result (t or q) of the pointer forms. */
static bool judge_second(const struct fn *f, double x, double y, double ref, double got,
                         double *err)
{
    *err = 0;
    if (f->shape == SPTR_T && f->judge == ULP) { /* sincos: cos */
        *err = ulp_err(d2h(got), ref);
        return *err <= f->bound;
    }
    if (f->shape == SPTR_T) /* fract's floor, modf's integral part */
        return d2h(got) == d2h(ref) || (isnan(got) && isnan(ref));
    if (strcmp(f->name, "frexp") == 0) /* the exponent of a finite argument */
        return !isfinite(x) || got == ref;
    if (strcmp(f->name, "lgamma_r") == 0) /* the sign of gamma, away from its poles */
        return !isfinite(x) || (x <= 0 && x == floor(x)) || got == ref;
    /* remquo: the sign and the 7 low bits of the quotient, for finite x and nonzero y */
    if (!isfinite(x) || !isfinite(y) || y == 0 || isnan(ref))
        return true;
    int g = (int)got;
    /* a quotient whose low bits are 0 has no sign to give */
    return (abs(g) & 127) == (int)fmod(fabs(ref), 128) && (g == 0 || (g < 0) == (ref < 0));
}

/* ---- inputs ---- */

static const uint16_t specials[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00,
    0x3800, 0xb800, 0x3e00, 0xbe00, 0x4000, 0xc000, 0x4100, 0xc100, 0x4200, 0xc200,
    0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x3bff, 0x3c01, 0x1400, 0x5bff,
};
#define NSPEC (sizeof(specials) / sizeof(specials[0]))

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A finite half with a random significand and an exponent field in [lo, hi]. */
static uint16_t rnd_half(int lo, int hi)
{
    int ex = lo + (int)(rnd() % (uint32_t)(hi - lo + 1));
    return (uint16_t)((rnd() & 0x8000) | (ex << 10) | (rnd() & 0x3ff));
}

/*
 * fma's inputs: special triples, random bit patterns, products and addends of close
 * magnitudes (cancellation), and triples whose sum rounded in float lies on a midpoint
 * between halves, where rounding a float sum to half gives the wrong half.
 */
static size_t fma_inputs(uint16_t *x, uint16_t *y, uint16_t *z, size_t n)
{
    size_t i = 0, hard = 0;
    for (size_t a = 0; a < NSPEC; a++)
        for (size_t b = 0; b < NSPEC; b += 3)
            for (size_t c = 0; c < NSPEC; c += 2) {
                x[i] = specials[a];
                y[i] = specials[b];
                z[i] = specials[c];
                i++;
            }
    while (i < n / 4) {
        x[i] = (uint16_t)rnd();
        y[i] = (uint16_t)rnd();
        z[i++] = (uint16_t)rnd();
    }
    while (i < n / 2) {
        int e1 = 1 + (int)(rnd() % 30), e2 = 1 + (int)(rnd() % 30);
        x[i] = rnd_half(e1, e1);
        y[i] = rnd_half(e2, e2);
        /* an addend near -x*y, or a few exponents away */
        double p = h2d(x[i]) * h2d(y[i]);
        uint16_t c = d2h(-p);
        int shift = (int)(rnd() % 24) - 12;
        z[i++] =
            h_isnan(c) || (c & 0x7fff) >= 0x7c00 ? (uint16_t)rnd() : d2h(ldexp(h2d(c), shift) + 0);
    }
    /*
     * Built: c with an odd last bit and exponent E, a * b = 2^(E-11) (1 - u^2 2^-20) with
     * a = 1 + u 2^-10 and b = 1 - u 2^-10 scaled, u < 12. The exact sum lies just inside
     * the midpoint between c and its neighbour; the float sum rounds onto the midpoint,
     * which rounds to the even neighbour, the wrong one.
     */
    while (i < n * 3 / 4) {
        int ef = 2 + (int)(rnd() % 29); /* c's exponent field */
        int u = 1 + (int)(rnd() % 11), target = ef - 15 - 11, ka, kb;
        do {
            ka = (int)(rnd() % 29) - 13;
            kb = target - ka;
        } while (kb < -13 || kb > 15);
        uint16_t a = d2h(ldexp(1 + u / 1024.0, ka)), b = d2h(ldexp(1 - u / 1024.0, kb));
        uint16_t c = (uint16_t)((ef << 10) | (rnd() & 0x3ff) | 1);
        if (rnd() & 1) { /* c negative: the sum crosses the midpoint below c */
            c |= 0x8000;
            if ((c & 0x3ff) == 1) /* not at a power of two, where the ulp below is finer */
                c |= 0x2;
        }
        if (rnd() & 1) { /* the whole sum negated */
            a ^= 0x8000;
            c ^= 0x8000;
        }
        if (rnd() & 1) { /* or only the product's signs moved */
            a ^= 0x8000;
            b ^= 0x8000;
        }
        float naive = fmaf((float)h2d(a), (float)h2d(b), (float)h2d(c));
        hard += d2h(naive) != fma_exact(a, b, c);
        x[i] = (rnd() & 1) ? a : b;
        y[i] = x[i] == a ? b : a;
        z[i++] = c;
    }
    while (i < n) {
        x[i] = (uint16_t)rnd();
        y[i] = (uint16_t)rnd();
        z[i++] = (uint16_t)rnd();
    }
    printf("%zu fma inputs, %zu of them where float's fma rounded to half is wrong\n", n, hard);
    return hard;
}

/* ---- kernels ---- */

/* x[i] for a scalar, vloadN(i, x) for a vector (halfn: every width, 3 included). */
static const char *load(char *buf, size_t size, const char *fmt, const char *p, int w)
{
    if (w == 1)
        snprintf(buf, size, "%s[i]", p);
    else
        snprintf(buf, size, fmt, w, p);
    return buf;
}

static const char *store(char *buf, size_t size, const char *v, const char *p, int w)
{
    if (w == 1)
        snprintf(buf, size, "%s[i] = %s;", p, v);
    else
        snprintf(buf, size, "vstore%d(%s, i, %s);", w, v, p);
    return buf;
}

/* Is fns[fi] run at width w? Scalar, one vector width, or all of them. */
static bool runs_at(size_t fi, int w)
{
    return fns[fi].all_widths || w == 1 || w == widths[1 + fi % 5];
}

/*
 * One kernel per function and width, k_<name>_<width>: arguments a, b, c (halfn), k (intn)
 * and u (ushortn) from x, y, z and n, the result to r (or ri, int), the second result of
 * the pointer forms to r2 (t) or q2 (q).
 */
static char *kernel_source(void)
{
    size_t cap = 1 << 21, at = 0;
    char *src = malloc(cap);
    KT_REQUIRE(src, "out of memory");
    at += (size_t)snprintf(src + at, cap - at, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        for (size_t wi = 0; wi < 6; wi++) {
            int w = widths[wi];
            if (!runs_at(fi, w))
                continue;
            char W[4] = "", bx[64], by[64], bz[64], bn[64], bu[64], expr[64];
            char s1[64], s2[64], s3[64], s4[64];
            if (w > 1)
                snprintf(W, sizeof(W), "%d", w);
            /* fmin(halfn, half) and ldexp(halfn, int): a scalar's own form is fmin(half, half) */
            snprintf(expr, sizeof(expr), "%s", f->expr);
            char *dot = strstr(expr, ".s0");
            if (w == 1 && dot)
                memmove(dot, dot + 3, strlen(dot + 3) + 1);
            if (w == 1)
                snprintf(bu, sizeof(bu), "(ushort)n[i]");
            else
                snprintf(bu, sizeof(bu), "convert_ushort%d(vload%d(i, n))", w, w);
            at += (size_t)snprintf(
                src + at, cap - at,
                "kernel void k_%s_%d(global const half *x, global const half *y, global const "
                "half *z, global const int *n, global half *r, global int *ri, global half *r2, "
                "global int *q2)\n{\n  size_t i = get_global_id(0);\n"
                "  half%s a = %s, b = %s, c = %s, t = 0, res = 0;\n"
                "  int%s k = %s, q = 0, ires = 0;\n  ushort%s u = %s;\n"
                "  (void)a; (void)b; (void)c; (void)k; (void)u;\n"
                "  %s = %s;\n  %s %s %s %s\n}\n",
                f->name, w, W, load(bx, 64, "vload%d(i, %s)", "x", w),
                load(by, 64, "vload%d(i, %s)", "y", w), load(bz, 64, "vload%d(i, %s)", "z", w), W,
                load(bn, 64, "vload%d(i, %s)", "n", w), W, bu, f->shape == SI ? "ires" : "res",
                expr, store(s1, 64, "res", "r", w), store(s2, 64, "ires", "ri", w),
                store(s3, 64, "t", "r2", w), store(s4, 64, "q", "q2", w));
            KT_REQUIRE(at < cap, "kernel source too long");
        }
    }
    return src;
}

/* ---- the test ---- */

static bool device_has_fp16(struct kt_env *env)
{
    size_t size = 0;
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
    char *ext = calloc(1, size + 1);
    KT_REQUIRE(ext, "out of memory");
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, size, ext, NULL));
    bool has = strstr(ext, "cl_khr_fp16") != NULL;
    free(ext);
    return has;
}

struct bufs {
    uint16_t *x, *y, *z, *r, *r2;
    int *n, *ri, *q2;
    double *ref, *second;
    uint16_t *exact;
};

/* Run fns[fi] at width w over `count` inputs and judge every result; returns the worst error. */
static double run_one(struct kt_env *env, cl_program p, size_t fi, int w, const struct bufs *b,
                      size_t count)
{
    const struct fn *f = &fns[fi];
    char name[64];
    snprintf(name, sizeof(name), "k_%s_%d", f->name, w);
    size_t items = (count + (size_t)w - 1) / (size_t)w, pad = items * (size_t)w;
    memset(b->r, 0xff, pad * 2);
    memset(b->r2, 0xff, pad * 2);
    struct kt_arg args[] = {
        {KT_IN, pad * 2, b->x},   {KT_IN, pad * 2, b->y},   {KT_IN, pad * 2, b->z},
        {KT_IN, pad * 4, b->n},   {KT_OUT, pad * 2, b->r},  {KT_OUT, pad * 4, b->ri},
        {KT_OUT, pad * 2, b->r2}, {KT_OUT, pad * 4, b->q2},
    };
    KT_REQUIRE_OK(kt_run_in(env, p, name, items, 0, 8, args));
    double worst = 0;
    int shown = 0;
    for (size_t i = 0; i < count; i++) {
        double err = 0, err2 = 0;
        bool ok;
        if (f->shape == SI)
            ok = b->ri[i] == (int)b->ref[i];
        else
            ok = judge(f, b->r[i], b->ref[i], b->second[i], b->x[i], b->y[i], &err);
        bool ok2 = true;
        if (f->shape == SPTR_T)
            ok2 = judge_second(f, h2d(b->x[i]), h2d(b->y[i]), b->second[i], h2d(b->r2[i]), &err2);
        else if (f->shape == SPTR_I || f->shape == SREMQUO)
            ok2 = judge_second(f, h2d(b->x[i]), h2d(b->y[i]), b->second[i], b->q2[i], &err2);
        worst = err > worst ? err : worst;
        worst = err2 > worst ? err2 : worst;
        if ((!ok || !ok2) && shown++ < 8)
            KT_CHECK(ok && ok2,
                     "%s(%a, %a, %a, %d) = %a (%#06x) / %a / %d, reference %a / %a: %g ulp", name,
                     h2d(b->x[i]), h2d(b->y[i]), h2d(b->z[i]), b->n[i], h2d(b->r[i]), b->r[i],
                     h2d(b->r2[i]), f->shape == SI ? b->ri[i] : b->q2[i], b->ref[i], b->second[i],
                     err > err2 ? err : err2);
        else if (!ok || !ok2)
            kt_failures++;
    }
    return worst;
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    const char *fp16 = getenv("KILN_FP16");
    if (!device_has_fp16(&env)) {
        KT_REQUIRE(fp16 && strcmp(fp16, "0") == 0,
                   "the device does not report cl_khr_fp16, and KILN_FP16=0 is not set");
        printf("skipped: the device does not report cl_khr_fp16 (KILN_FP16=0)\n");
        kt_teardown(&env);
        return 77;
    }
    check_conversion();

    char *src = kernel_source();
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    free(src);

    size_t cap = NFMA + 16;
    struct bufs b = {
        .x = calloc(cap, 2),
        .y = calloc(cap, 2),
        .z = calloc(cap, 2),
        .r = calloc(cap, 2),
        .r2 = calloc(cap, 2),
        .n = calloc(cap, 4),
        .ri = calloc(cap, 4),
        .q2 = calloc(cap, 4),
        .ref = calloc(cap, 8),
        .second = calloc(cap, 8),
        .exact = calloc(cap, 2),
    };
    KT_REQUIRE(b.x && b.y && b.z && b.r && b.r2 && b.n && b.ri && b.q2 && b.ref && b.second &&
                   b.exact,
               "out of memory");

    for (size_t fi = 0; fi < NFNS; fi++) {
        const struct fn *f = &fns[fi];
        size_t count = NSAMPLE;
        bool unary = f->shape == S1 || f->shape == SI || f->shape == SPTR_T || f->shape == SPTR_I ||
                     f->shape == SU;
        if (f->shape == S3) {
            count = NFMA;
            rng = 0x9e3779b97f4a7c15u; /* fma and mad see the same triples */
            size_t hard = fma_inputs(b.x, b.y, b.z, count);
            KT_CHECK(hard >= count / 4, "only %zu hard fma cases of %zu", hard, count / 4);
        } else if (unary) {
            count = NUNARY;
            for (size_t i = 0; i < count; i++)
                b.x[i] = (uint16_t)i;
        } else {
            for (size_t i = 0; i < count; i++) {
                b.x[i] = i < NSPEC * NSPEC ? specials[i / NSPEC] : (uint16_t)rnd();
                b.y[i] = i < NSPEC * NSPEC ? specials[i % NSPEC] : (uint16_t)rnd();
                /* a quarter with exponents close, where fmod, remainder, hypot and the */
                /* arithmetic do their interesting work */
                if (i >= NSPEC * NSPEC && i % 4 == 0 && !h_isnan(b.x[i]))
                    b.y[i] = (uint16_t)((b.y[i] & 0x83ff) | (b.x[i] & 0x7c00));
            }
        }
        for (size_t i = 0; i < count; i++) {
            int range = strcmp(f->name, "ldexp") == 0 || strcmp(f->name, "ldexp_s") == 0 ? 60 : 12;
            b.n[i] = (int)(rnd() % (uint32_t)(2 * range + 1)) - range;
            if (f->shape == SU)
                b.n[i] = (int)(rnd() & 0xffff);
        }
        /* ldexp(halfn, int) and fmin(halfn, half) use lane 0's argument for every lane */
        bool splat = strstr(f->expr, ".s0") != NULL;
        for (size_t wi = 0; wi < 6; wi++) {
            int w = widths[wi];
            if (!runs_at(fi, w))
                continue;
            for (size_t i = 0; splat && i < count; i++) {
                b.y[i] = b.y[i - i % (size_t)w];
                b.n[i] = b.n[i - i % (size_t)w];
            }
            for (size_t i = 0; i < count; i++)
                b.ref[i] = reference(f, b.x[i], b.y[i], b.z[i], b.n[i], &b.second[i], &b.exact[i]);
            int before = atomic_load(&kt_failures);
            double worst = run_one(&env, p, fi, w, &b, count);
            int failed = atomic_load(&kt_failures) - before;
            if (f->judge == ULP)
                printf("%-9s half%-2d max %.3f ulp (bound %g)", f->name, w, worst, f->bound);
            else
                printf("%-9s half%-2d exact", f->name, w);
            printf(", %zu inputs%s\n", count, failed ? ", FAILED" : "");
        }
    }
    free(b.x), free(b.y), free(b.z), free(b.r), free(b.r2), free(b.n), free(b.ri), free(b.q2);
    free(b.ref), free(b.second), free(b.exact);
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("half_math");
}
