/*
 * Conversions from and to half (OpenCL C 3.0 §6.4, cl_khr_fp16), exhaustively where the
 * input is a half, against the host references of conv_ref.h:
 *
 * 1. Every one of the 65,536 halves through every convert_<type>[n][_sat][_mode] to each
 *    of the eleven types, at widths 1, 3 and 16, and through a plain cast at width 1:
 *    integers rounded by the mode (saturated, NaN to 0, with _sat; out of range unchecked
 *    without it, the value being undefined), float and double exact, half unchanged.
 * 2. convert_half[n][_mode] and a cast from each of the ten other types: every char,
 *    uchar, short and ushort; integers from -70,000 to 70,000 and the extremes of the
 *    wider types; and from float and double, every half, every midpoint between two
 *    neighbouring halves, the values one ulp (of the source type) to either side of each
 *    midpoint and, for double, half a float ulp to either side (a double rounded through
 *    float first lands on the midpoint and then goes to even: the brief's double
 *    rounding), with infinities, NaNs, denormals of the source type and values beyond
 *    HALF_MAX. Overflow goes to infinity or HALF_MAX as the mode says.
 *
 * Skipped under KILN_FP16=0 (which makes the device leave cl_khr_fp16 out); otherwise a
 * device that does not report the extension fails the test.
 */
#include "kiln_test.h"
#include "conv_ref.h"
#include "conv_types.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int widths[] = {1, 3, 16};
#define NH 65536

/* The smallest and largest value of integer type t, exactly. */
static long double int_min(int t)
{
    return ty[t].sgn ? -ldexpl(1, (int)ty[t].size * 8 - 1) : 0;
}
static long double int_max(int t)
{
    return ldexpl(1, (int)ty[t].size * 8 - ty[t].sgn) - 1;
}

/* The value of the element of type t at p. */
static long double value_of(int t, const void *p)
{
    switch (t) {
    case T_CHAR:
        return *(const int8_t *)p;
    case T_UCHAR:
        return *(const uint8_t *)p;
    case T_SHORT:
        return *(const int16_t *)p;
    case T_USHORT:
        return *(const uint16_t *)p;
    case T_INT:
        return *(const int32_t *)p;
    case T_UINT:
        return *(const uint32_t *)p;
    case T_LONG:
        return *(const int64_t *)p;
    case T_ULONG:
        return *(const uint64_t *)p;
    case T_FLOAT:
        return *(const float *)p;
    case T_DOUBLE:
        return *(const double *)p;
    default:
        return ref_half_value(*(const uint16_t *)p);
    }
}

/* v rounded to an integral value by mode (the default is toward zero, as to integers). */
static long double round_mode(long double v, int mode)
{
    long double f = floorl(v), d = v - f;
    switch (mode) {
    case RM_RTP:
        return ceill(v);
    case RM_RTN:
        return f;
    case RM_RTE:
        return d > 0.5L ? f + 1 : d < 0.5L ? f : (fmodl(f, 2) == 0 ? f : f + 1);
    default:
        return truncl(v);
    }
}

/* The name of type t at width w: "float" and 3 give "float3", and width 1 "float". */
static const char *vec(char *buf, size_t size, int t, int w)
{
    if (w == 1)
        snprintf(buf, size, "%s", ty[t].name);
    else
        snprintf(buf, size, "%s%d", ty[t].name, w);
    return buf;
}

/* Appends to a growing source text. */
struct text {
    char *s;
    size_t len, cap;
};
static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    if (!t->s) { /* never an offset from a null pointer */
        t->cap = 4096;
        t->s = malloc(t->cap);
        KT_REQUIRE(t->s, "out of memory");
    }
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        KT_REQUIRE(n >= 0, "vsnprintf");
        if (t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 1024;
        t->s = realloc(t->s, t->cap);
        KT_REQUIRE(t->s, "out of memory");
    }
}

/* The forms of a conversion to type d: sat (0/1) and mode for each index. */
static int num_forms(int d)
{
    return ty[d].is_int ? 10 : 5;
}

/* One kernel per destination (from_half_D) or source (to_half_S) at width w. */
static char *kernels_source(int w)
{
    struct text t = {0};
    char hv[16], ov[16];
    add(&t, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (int d = 0; d < NT; d++) {
        add(&t, "kernel void from_half_%s(global const half *in, global %s *out, ulong n) {\n",
            ty[d].name, ty[d].name);
        add(&t, "  size_t i = get_global_id(0);\n");
        if (w == 1)
            add(&t, "  half x = in[i];\n");
        else
            add(&t, "  %s x = vload%d(i, in);\n", vec(hv, sizeof(hv), T_HALF, w), w);
        for (int f = 0; f < num_forms(d); f++) {
            const char *sat = f >= 5 ? "_sat" : "";
            vec(ov, sizeof(ov), d, w);
            if (w == 1)
                add(&t, "  out[i + %d * n] = convert_%s%s%s(x);\n", f, ov, sat, mode_sfx[f % 5]);
            else
                add(&t, "  vstore%d(convert_%s%s%s(x), i, out + %d * n);\n", w, ov, sat,
                    mode_sfx[f % 5], f);
        }
        if (w == 1)
            add(&t, "  out[i + %d * n] = (%s)x;\n", num_forms(d), ty[d].name);
        add(&t, "}\n");
    }
    for (int s = 0; s < T_HALF; s++) {
        add(&t, "kernel void to_half_%s(global const %s *in, global half *out, ulong n) {\n",
            ty[s].name, ty[s].name);
        add(&t, "  size_t i = get_global_id(0);\n");
        if (w == 1)
            add(&t, "  %s x = in[i];\n", ty[s].name);
        else
            add(&t, "  %s x = vload%d(i, in);\n", vec(ov, sizeof(ov), s, w), w);
        vec(hv, sizeof(hv), T_HALF, w);
        for (int m = 0; m < 5; m++) {
            if (w == 1)
                add(&t, "  out[i + %d * n] = convert_%s%s(x);\n", m, hv, mode_sfx[m]);
            else
                add(&t, "  vstore%d(convert_%s%s(x), i, out + %d * n);\n", w, hv, mode_sfx[m], m);
        }
        if (w == 1)
            add(&t, "  out[i + 5 * n] = x;\n  out[i + 6 * n] = (half)x;\n");
        add(&t, "}\n");
    }
    return t.s;
}

/* Checks the results of from_half_D for the first `count` halves. */
static void check_from_half(int d, int w, const uint16_t *in, const unsigned char *out,
                            size_t count)
{
    int forms = num_forms(d) + (w == 1);
    int reported = 0;
    for (int f = 0; f < forms; f++) {
        int sat = f >= 5 && f < 10 && ty[d].is_int;
        int mode = f == num_forms(d) ? RM_DEF : f % 5;
        for (size_t j = 0; j < count; j++) {
            const unsigned char *p = out + ((size_t)f * NH + j) * ty[d].size;
            long double v = ref_half_value(in[j]);
            int ok;
            long double want = 0;
            if (d == T_HALF) {
                uint16_t got = *(const uint16_t *)p;
                ok = ref_half_is_nan(in[j]) ? ref_half_is_nan(got) : got == in[j];
            } else if (!ty[d].is_int) {
                long double got = value_of(d, p);
                want = v;
                ok = isnan(v) ? isnan(got) : (got == v && !signbit(got) == !signbit(v));
            } else {
                if (isnan(v)) {
                    if (!sat)
                        continue;
                    want = 0;
                } else {
                    want = round_mode(v, mode);
                    if (want < int_min(d) || want > int_max(d)) {
                        if (!sat)
                            continue;
                        want = want < int_min(d) ? int_min(d) : int_max(d);
                    }
                }
                ok = value_of(d, p) == want;
            }
            if (!ok && reported++ < 8)
                KT_CHECK(0, "width %d: half 0x%04x -> %s form %d%s: got %.21Lg, want %.21Lg", w,
                         in[j], ty[d].name, f, f == num_forms(d) ? " (cast)" : "", value_of(d, p),
                         want);
            kt_failures += !ok && reported > 8;
        }
    }
}

/* The inputs of to_half_S: see the file comment. Returns the count; *buf is malloc'd. */
static size_t half_inputs(int s, void **buf)
{
    size_t cap = 8 * NH + 256, n = 0;
    unsigned char *b = malloc(cap * ty[s].size);
    KT_REQUIRE(b, "out of memory");
#define PUT(T, x)                                                                                  \
    do {                                                                                           \
        T v_ = (T)(x);                                                                             \
        if (n < cap)                                                                               \
            memcpy(b + n++ * sizeof(T), &v_, sizeof(T));                                           \
    } while (0)
    if (s == T_CHAR || s == T_UCHAR) {
        for (int i = 0; i < 256; i++)
            b[n++] = (unsigned char)i;
    } else if (s == T_SHORT || s == T_USHORT) {
        for (int i = 0; i < NH; i++)
            PUT(uint16_t, i);
    } else if (ty[s].is_int) {
        for (long long i = -70000; i <= 70000; i++) {
            if (ty[s].sgn || i >= 0) {
                if (s == T_INT || s == T_UINT)
                    PUT(uint32_t, (uint32_t)i);
                else
                    PUT(uint64_t, (uint64_t)i);
            }
        }
        for (int k = 16; k < (int)ty[s].size * 8; k++) {
            for (int dlt = -1; dlt <= 1; dlt++) {
                unsigned long long u = (1ULL << k) + (unsigned long long)dlt;
                if (s == T_INT || s == T_UINT) {
                    PUT(uint32_t, (uint32_t)u);
                    PUT(uint32_t, (uint32_t)(0 - u));
                } else {
                    PUT(uint64_t, u);
                    PUT(uint64_t, 0 - u);
                }
            }
        }
        if (s == T_INT || s == T_UINT)
            PUT(uint32_t, 0xffffffffu);
        else
            PUT(uint64_t, ~0ULL);
    } else {
        for (uint32_t h = 0; h < NH; h++) {
            if ((h & 0x7c00) == 0x7c00)
                continue;
            long double v = ref_half_value((uint16_t)h);
            /* The next half up in magnitude (HALF_MAX's is the overflow threshold 2^16). */
            long double next = (h & 0x7fff) == 0x7bff ? ldexpl(1, 16) * (v < 0 ? -1 : 1)
                                                      : ref_half_value((uint16_t)(h + 1));
            long double mid = (v + next) / 2;
            if (s == T_FLOAT) {
                PUT(float, v);
                PUT(float, mid);
                PUT(float, nextafterf((float)mid, INFINITY));
                PUT(float, nextafterf((float)mid, -INFINITY));
            } else {
                PUT(double, v);
                PUT(double, mid);
                PUT(double, nextafter((double)mid, INFINITY));
                PUT(double, nextafter((double)mid, -INFINITY));
                /* Half a float ulp away: a float would round it onto the midpoint. */
                double fulp = (double)nextafterf((float)fabsl(mid), INFINITY) - (double)fabsl(mid);
                PUT(double, mid + fulp / 2);
                PUT(double, mid - fulp / 2);
            }
        }
        static const double specials[] = {
            INFINITY,     -INFINITY,     NAN,     -NAN,         1e300,         -1e300,
            70000,        -70000,        65520,   -65520,       1e-30,         -1e-30,
            0x1p-25,      0x1p-26,       DBL_MAX, DBL_TRUE_MIN, -DBL_TRUE_MIN, FLT_MAX,
            FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, 0x1.8p-25};
        for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
            if (s == T_FLOAT)
                PUT(float, specials[i]);
            else
                PUT(double, specials[i]);
        }
        /* NaNs with payloads, signalling ones included. */
        if (s == T_FLOAT) {
            static const uint32_t nans[] = {0x7f800001u, 0xffc12345u, 0x7fbfffffu};
            for (size_t i = 0; i < 3; i++)
                PUT(uint32_t, nans[i]);
        } else {
            static const uint64_t nans[] = {0x7ff0000000000001ull, 0xfff8123456789abcull};
            for (size_t i = 0; i < 2; i++)
                PUT(uint64_t, nans[i]);
        }
    }
#undef PUT
    *buf = b;
    return n;
}

/* Checks the results of to_half_S for the first `count` inputs. */
static void check_to_half(int s, int w, const unsigned char *in, const uint16_t *out, size_t n,
                          size_t count)
{
    int reported = 0;
    for (int f = 0; f < (w == 1 ? 7 : 5); f++) {
        int mode = f < 5 ? f : RM_DEF;
        for (size_t j = 0; j < count; j++) {
            long double v = value_of(s, in + j * ty[s].size);
            uint16_t want = ref_to_half(v, (enum ref_mode)mode);
            uint16_t got = out[(size_t)f * n + j];
            int ok = isnan(v) ? ref_half_is_nan(got) : got == want;
            if (!ok && reported++ < 8)
                KT_CHECK(0, "width %d: %s %.21Lg (%La) -> half%s: got 0x%04x, want 0x%04x", w,
                         ty[s].name, v, v,
                         f < 5 ? mode_sfx[f] : (f == 5 ? " (implicit)" : " (cast)"), got, want);
            kt_failures += !ok && reported > 8;
        }
    }
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

    uint16_t *halves = malloc(NH * sizeof(uint16_t));
    unsigned char *out = malloc((size_t)11 * NH * 8);
    KT_REQUIRE(halves && out, "out of memory");
    for (uint32_t h = 0; h < NH; h++)
        halves[h] = (uint16_t)h;

    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        int w = widths[wi];
        char *src = kernels_source(w);
        char opts[64];
        snprintf(opts, sizeof(opts), "-cl-std=CL%s", wi % 2 ? "1.2" : "3.0");
        cl_program p = kt_build(&env, src, opts);
        free(src);
        for (int d = 0; d < NT; d++) {
            char name[64];
            cl_ulong n = NH;
            size_t forms = (size_t)num_forms(d) + (w == 1);
            struct kt_arg args[] = {{KT_IN, NH * sizeof(uint16_t), halves},
                                    {KT_OUT, forms * NH * ty[d].size, out},
                                    {KT_VALUE, sizeof(n), &n}};
            snprintf(name, sizeof(name), "from_half_%s", ty[d].name);
            memset(out, 0xa5, forms * NH * ty[d].size);
            KT_EXPECT(kt_run_in(&env, p, name, NH / w, 0, 3, args), CL_SUCCESS);
            check_from_half(d, w, halves, out, NH / w * w);
        }
        for (int s = 0; s < T_HALF; s++) {
            char name[64];
            void *in;
            size_t count = half_inputs(s, &in);
            cl_ulong n = count;
            size_t forms = w == 1 ? 7 : 5;
            uint16_t *hout = malloc(forms * count * sizeof(uint16_t));
            KT_REQUIRE(hout, "out of memory");
            struct kt_arg args[] = {{KT_IN, count * ty[s].size, in},
                                    {KT_OUT, forms * count * sizeof(uint16_t), hout},
                                    {KT_VALUE, sizeof(n), &n}};
            snprintf(name, sizeof(name), "to_half_%s", ty[s].name);
            KT_EXPECT(kt_run_in(&env, p, name, count / (size_t)w, 0, 3, args), CL_SUCCESS);
            check_to_half(s, w, in, hout, count, count / (size_t)w * (size_t)w);
            free(hout);
            free(in);
        }
        clReleaseProgram(p);
    }
    free(out);
    free(halves);
    kt_teardown(&env);
    return kt_finish("half_conv");
}
