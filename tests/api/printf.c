/*
 * printf in kernels: every scalar type (int and long in every conversion, char
 * and short through hh and h, float, double and half in every floating-point
 * conversion, with extreme values: INT_MIN, LONG_MIN, ULONG_MAX, -0.0, NaN,
 * infinities, denormals, largest values; a NaN prints without its sign), vectors of every width
 * including 3 with every length modifier, %s with literals and a __constant array, %c, %p, %%,
 * flags, width and precision, and specifications OpenCL C does not allow (printed
 * as they stand). Each line is compared with the host's own snprintf of the same
 * values. The kernels run with -cl-std=CL1.2 and CL3.0 and once more from a
 * program binary; the work-group kernels also at -cl-opt-disable.
 *
 * Also: 1024 work-items in 2D groups each print three lines, which must come out
 * in each work-item's program order; a kernel with a barrier prints before and
 * after it (the ctest entry api/printf-fibers runs it on the other barrier
 * strategy); 40,000 lines overflow the 1 MiB buffer, so some calls return -1 and
 * exactly the calls that returned 0 are printed; two commands printing at once on an
 * out-of-order queue never interleave their lines; a kernel without printf prints
 * nothing; a struct argument fails the build with a reason in the log. Output is captured by
 * pointing file descriptor 1 at a file and read right after clWaitForEvents, without the test
 * flushing anything: the event must not be complete before the output is out.
 */
#include "kiln_test.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

/* ---- capturing stdout ------------------------------------------------------------ */

static FILE *cap_file;
static int saved_stdout = -1;

static void capture_begin(void)
{
    fflush(stdout);
    cap_file = tmpfile();
    KT_REQUIRE(cap_file != NULL, "tmpfile");
    saved_stdout = dup(STDOUT_FILENO);
    KT_REQUIRE(saved_stdout >= 0 && dup2(fileno(cap_file), STDOUT_FILENO) >= 0, "dup2");
}

/* What reached file descriptor 1 so far; nothing is flushed by the test first. */
static char *capture_read(void)
{
    int fd = fileno(cap_file);
    off_t size = lseek(fd, 0, SEEK_END);
    KT_REQUIRE(size >= 0, "lseek");
    char *s = malloc((size_t)size + 1);
    KT_REQUIRE(s != NULL, "malloc");
    KT_REQUIRE(pread(fd, s, (size_t)size, 0) == size, "pread");
    s[size] = '\0';
    return s;
}

static char *capture_end(void)
{
    char *s = capture_read();
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
    fclose(cap_file);
    return s;
}

/* ---- host references ------------------------------------------------------------- */

struct text {
    char *s;
    size_t len, cap;
};

static void tprintf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tprintf(struct text *t, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    KT_REQUIRE(n >= 0 && (size_t)n < sizeof(buf), "reference line too long");
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        KT_REQUIRE(t->s != NULL, "realloc");
    }
    memcpy(t->s + t->len, buf, (size_t)n + 1);
    t->len += (size_t)n;
}

/* Vector elements, each with `fmt`, separated by ','. Integer formats get an int, or a
 * long when they have an 'l'. */
static void tvec_i(struct text *t, const char *fmt, int n, const long long *v)
{
    for (int i = 0; i < n; i++) {
        if (i)
            tprintf(t, ",");
        if (strchr(fmt, 'l'))
            tprintf(t, fmt, (long)v[i]);
        else
            tprintf(t, fmt, (int)v[i]);
    }
}

/* OpenCL C prints every NaN without a sign; glibc would print -nan for a negative one. */
static double nosign_nan(double v)
{
    return isnan(v) ? fabs(v) : v;
}

static void tvec_d(struct text *t, const char *fmt, int n, const double *v)
{
    for (int i = 0; i < n; i++) {
        if (i)
            tprintf(t, ",");
        tprintf(t, fmt, nosign_nan(v[i]));
    }
}

/* An IEEE half's value, from its fields. */
static double half_to_double(uint16_t h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double mag = e == 31  ? (m ? NAN : INFINITY)
                 : e == 0 ? m * 0x1p-24
                          : (1.0 + m / 1024.0) * pow(2.0, (double)e - 15);
    return (h & 0x8000) ? -mag : mag;
}

static void expect_text(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return;
    /* Point at the first line that differs. */
    const char *g = got, *w = want;
    int line = 1;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    while (g > got && g[-1] != '\n' && w > want && w[-1] != '\n') {
        g--;
        w--;
    }
    KT_CHECK(0, "%s: line %d differs:\n  got:  %.200s\n  want: %.200s", what, line, g, w);
}

/* ---- running kernels ------------------------------------------------------------- */

#define N_SCALAR 13

static const char *fmt_src =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "__constant char greeting[] = \"hello\";\n"
    "kernel void ints(global const int *i, global const long *l, global int *ret) {\n"
    "  size_t g = get_global_id(0);\n"
    "  int a = i[g]; long b = l[g];\n"
    "  int r = printf(\"%d|%i|%5d|%-5d|%+d|% d|%05d|%x|%X|%#x|%o|%#o|%u|%hd|%hu|%hhd|%hhu|%hx|%c|"
    "%.3d|%8.4x\\n\", a, a, a, a, a, a, a, a, a, a, a, a, a, (short)a, (ushort)a, (char)a, "
    "(uchar)a, (short)a, (char)(33 + (a & 63)), a, a);\n"
    "  r |= printf(\"%ld|%li|%lu|%lx|%lX|%#lo|%+ld|%20ld|%-20lu|\\n\", b, b, (ulong)b, b, b, b, b, "
    "b, (ulong)b);\n"
    "  ret[g] = r;\n"
    "}\n"
    "kernel void floats(global const float *f, global const double *d, global const ushort *h) {\n"
    "  size_t g = get_global_id(0);\n"
    "  float x = f[g]; double y = d[g]; half z = as_half(h[g]);\n"
    "  printf(\"%f|%F|%e|%E|%g|%G|%a|%A|%.3f|%10.2e|%-12.4g|%+f|% e|%#g|%012.3f|%.0f\\n\", x, x, "
    "x, x, x, x, x, x, x, x, x, x, x, x, x, x);\n"
    "  printf(\"%f|%e|%g|%a|%.17g|%.13a|%25.10e\\n\", y, y, y, y, y, y, y);\n"
    "  printf(\"%f|%a|%g|%.2e\\n\", z, z, z, z);\n"
    "}\n"
    "kernel void vectors(global const float *f, global const int *i, global const long *l,\n"
    "                    global const double *d, global const ushort *h) {\n"
    "  float2 f2 = ((global const float2 *)f)[0];\n"
    "  float3 f3 = (float3)(f[4], f[5], f[6]);\n"
    "  float4 f4 = ((global const float4 *)f)[1];\n"
    "  float8 f8 = ((global const float8 *)f)[1];\n"
    "  float16 f16 = ((global const float16 *)f)[0];\n"
    "  printf(\"%v2hlf|%v3hlf|%v4hlf|%v8hlf|%v16hlf\\n\", f2, f3, f4, f8, f16);\n"
    "  int4 i4 = ((global const int4 *)i)[0];\n"
    "  long2 l2 = ((global const long2 *)l)[1];\n"
    "  char3 c3 = (char3)((char)i[0], (char)i[1], (char)i[2]);\n"
    "  uchar4 c4 = as_uchar4(i[3]);\n"
    "  ushort8 s8 = ((global const ushort8 *)i)[1];\n"
    "  uchar16 u16 = ((global const uchar16 *)i)[1];\n"
    "  int2 i2 = ((global const int2 *)i)[2];\n"
    "  long3 l3 = (long3)(l[0], l[1], l[2]);\n"
    "  ulong2 ul2 = ((global const ulong2 *)l)[0];\n"
    "  printf(\"%v4hld|%v2ld|%v3hhd|%v4hhx|%v8hu|%v16hhu|%v2d|%v3ld|%v2lx\\n\", i4, l2, c3, c4, "
    "s8, u16, i2, l3, ul2);\n"
    "  double4 d4 = ((global const double4 *)d)[0];\n"
    "  double3 d3 = (double3)(d[4], d[5], d[6]);\n"
    "  half2 h2 = as_half2(((global const uint *)h)[0]);\n"
    "  half4 h4 = as_half4(((global const uint2 *)h)[1]);\n"
    "  short3 s3 = (short3)((short)i[0], (short)i[1], (short)i[2]);\n"
    "  printf(\"%v4lf|%v3lg|%v2hf|%v4ha|%5.2v4hlf|%-10.3v2hle|%v4hla|%#v2hlx|%+v3hd\\n\", d4, d3, "
    "h2, h4, f4, f2, f4, i2, s3);\n"
    "}\n"
    "kernel void strings(global int *p, global int *null_p) {\n"
    "  printf(\"%s|%10s|%-6s|%.2s|%s|%c%c\\n\", \"lit\", greeting, \"ab\", \"xyz\", \"\", 'o', "
    "'k');\n"
    "  printf(\"%p|%p\\n\", p + 3, null_p);\n"
    "  printf(\"%%|100%%|%v5d|%q|%d|no args\\n\", 7);\n"
    "  printf(\"plain line\\n\");\n"
    "  printf(\"bad %\\n\");\n"
    "  printf(\"end%\");\n"
    "}\n"
    "kernel void quiet(global int *p) { p[get_global_id(0)] = 1; }\n";

/* Runs `k` over global[0..dim) (local may be NULL) and returns what it printed. */
static char *run_captured(struct kt_env *env, cl_kernel k, cl_uint dim, const size_t *global,
                          const size_t *local)
{
    cl_event ev;
    capture_begin();
    cl_int err = clEnqueueNDRangeKernel(env->queue, k, dim, NULL, global, local, 0, NULL, &ev);
    KT_CHECK(err == CL_SUCCESS, "clEnqueueNDRangeKernel: %d", err);
    if (err == CL_SUCCESS) {
        KT_EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
    }
    return capture_end();
}

static cl_mem buffer(struct kt_env *env, size_t size, const void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                              size, (void *)host, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    return m;
}

static void set_mem(cl_kernel k, cl_uint i, cl_mem m)
{
    KT_REQUIRE(clSetKernelArg(k, i, sizeof(m), &m) == CL_SUCCESS, "clSetKernelArg %u", i);
}

static cl_kernel kernel(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    return k;
}

/* ---- the format tests ------------------------------------------------------------ */

static const int ints_in[N_SCALAR] = {0,       1,   -1,    42,     -42,     INT_MAX,
                                      INT_MIN, 255, 65535, 0x1234, -100000, 200};
static const long longs_in[N_SCALAR] = {
    0,      1, -1, LONG_MAX, LONG_MIN, 1234567890123L, -9876543210L, 77, 0x7fffffffL, -0x80000000L,
    65536L, 3, 5};
static float floats_in[N_SCALAR];
static double doubles_in[N_SCALAR];
static const uint16_t halves_in[N_SCALAR] = {0x0000, 0x8000, 0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff,
                                             0x7c00, 0xfc00, 0x7e00, 0x3555, 0x4248, 0xfe00};

static void init_values(void)
{
    const float f[N_SCALAR] = {0.0f,     -0.0f,     1.0f, -2.5f,       FLT_MAX,     FLT_MIN, 1e-45f,
                               INFINITY, -INFINITY, NAN,  3.14159265f, 123456.789f, -NAN};
    const double d[N_SCALAR] = {0.0,      -0.0,     1.0,       -2.5, DBL_MAX,           DBL_MIN,
                                4.9e-324, INFINITY, -INFINITY, NAN,  3.141592653589793, 1e100,
                                -NAN};
    memcpy(floats_in, f, sizeof(f));
    memcpy(doubles_in, d, sizeof(d));
}

static char *ref_ints(void)
{
    struct text t = {0};
    tprintf(&t, "%s", "");
    for (int g = 0; g < N_SCALAR; g++) {
        int a = ints_in[g];
        long b = longs_in[g];
        tprintf(
            &t,
            "%d|%i|%5d|%-5d|%+d|% d|%05d|%x|%X|%#x|%o|%#o|%u|%hd|%hu|%hhd|%hhu|%hx|%c|%.3d|%8.4x\n",
            a, a, a, a, a, a, a, (unsigned)a, (unsigned)a, (unsigned)a, (unsigned)a, (unsigned)a,
            (unsigned)a, (short)a, (unsigned short)a, (signed char)a, (unsigned char)a, (short)a,
            (char)(33 + (a & 63)), a, (unsigned)a);
        tprintf(&t, "%ld|%li|%lu|%lx|%lX|%#lo|%+ld|%20ld|%-20lu|\n", b, b, (unsigned long)b,
                (unsigned long)b, (unsigned long)b, (unsigned long)b, b, b, (unsigned long)b);
    }
    return t.s;
}

static char *ref_floats(void)
{
    struct text t = {0};
    tprintf(&t, "%s", "");
    for (int g = 0; g < N_SCALAR; g++) {
        double x = nosign_nan(floats_in[g]), y = nosign_nan(doubles_in[g]);
        double z = nosign_nan(half_to_double(halves_in[g]));
        tprintf(&t, "%f|%F|%e|%E|%g|%G|%a|%A|%.3f|%10.2e|%-12.4g|%+f|% e|%#g|%012.3f|%.0f\n", x, x,
                x, x, x, x, x, x, x, x, x, x, x, x, x, x);
        tprintf(&t, "%f|%e|%g|%a|%.17g|%.13a|%25.10e\n", y, y, y, y, y, y, y);
        tprintf(&t, "%f|%a|%g|%.2e\n", z, z, z, z);
    }
    return t.s;
}

static char *ref_vectors(void)
{
    struct text t = {0};
    double v[16];
    long long w[16];
    /* float vectors */
    for (int i = 0; i < 2; i++)
        v[i] = floats_in[i];
    tvec_d(&t, "%f", 2, v);
    tprintf(&t, "|");
    for (int i = 0; i < 3; i++)
        v[i] = floats_in[4 + i];
    tvec_d(&t, "%f", 3, v);
    tprintf(&t, "|");
    for (int i = 0; i < 4; i++)
        v[i] = floats_in[4 + i];
    tvec_d(&t, "%f", 4, v);
    tprintf(&t, "|");
    for (int i = 0; i < 8; i++)
        v[i] = 8 + i < N_SCALAR ? floats_in[8 + i] : 0.0;
    tvec_d(&t, "%f", 8, v);
    tprintf(&t, "|");
    for (int i = 0; i < 16; i++)
        v[i] = i < N_SCALAR ? floats_in[i] : 0.0;
    tvec_d(&t, "%f", 16, v);
    tprintf(&t, "\n");
    /* integer vectors */
    const unsigned char *ib = (const unsigned char *)ints_in;
    for (int i = 0; i < 4; i++)
        w[i] = ints_in[i];
    tvec_i(&t, "%d", 4, w);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        w[i] = longs_in[2 + i];
    tvec_i(&t, "%ld", 2, w);
    tprintf(&t, "|");
    for (int i = 0; i < 3; i++)
        w[i] = ints_in[i];
    tvec_i(&t, "%hhd", 3, w);
    tprintf(&t, "|");
    for (int i = 0; i < 4; i++)
        w[i] = ib[12 + i];
    tvec_i(&t, "%hhx", 4, w);
    tprintf(&t, "|");
    for (int i = 0; i < 8; i++) {
        uint16_t s;
        memcpy(&s, ib + 16 + 2 * i, 2);
        w[i] = s;
    }
    tvec_i(&t, "%hu", 8, w);
    tprintf(&t, "|");
    for (int i = 0; i < 16; i++)
        w[i] = ib[16 + i];
    tvec_i(&t, "%hhu", 16, w);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        w[i] = ints_in[4 + i];
    tvec_i(&t, "%d", 2, w);
    tprintf(&t, "|");
    for (int i = 0; i < 3; i++)
        w[i] = longs_in[i];
    tvec_i(&t, "%ld", 3, w);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        w[i] = longs_in[i];
    tvec_i(&t, "%lx", 2, w);
    tprintf(&t, "\n");
    /* doubles, halves, flags and precision on elements */
    for (int i = 0; i < 4; i++)
        v[i] = doubles_in[i];
    tvec_d(&t, "%f", 4, v);
    tprintf(&t, "|");
    for (int i = 0; i < 3; i++)
        v[i] = doubles_in[4 + i];
    tvec_d(&t, "%g", 3, v);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        v[i] = half_to_double(halves_in[i]);
    tvec_d(&t, "%f", 2, v);
    tprintf(&t, "|");
    for (int i = 0; i < 4; i++)
        v[i] = half_to_double(halves_in[4 + i]);
    tvec_d(&t, "%a", 4, v);
    tprintf(&t, "|");
    for (int i = 0; i < 4; i++)
        v[i] = floats_in[4 + i];
    tvec_d(&t, "%5.2f", 4, v);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        v[i] = floats_in[i];
    tvec_d(&t, "%-10.3e", 2, v);
    tprintf(&t, "|");
    for (int i = 0; i < 4; i++)
        v[i] = floats_in[4 + i];
    tvec_d(&t, "%a", 4, v);
    tprintf(&t, "|");
    for (int i = 0; i < 2; i++)
        w[i] = (unsigned)ints_in[4 + i];
    tvec_i(&t, "%#x", 2, w);
    tprintf(&t, "|");
    for (int i = 0; i < 3; i++)
        w[i] = (short)ints_in[i];
    tvec_i(&t, "%+hd", 3, w);
    tprintf(&t, "\n");
    return t.s;
}

static char *ref_strings(void *p)
{
    struct text t = {0};
    tprintf(&t, "%s|%10s|%-6s|%.2s|%s|%c%c\n", "lit", "hello", "ab", "xyz", "", 'o', 'k');
    tprintf(&t, "%p|%p\n", (void *)((int *)p + 3), (void *)NULL);
    tprintf(&t, "%%|100%%|%%v5d|%%q|%d|no args\n", 7);
    tprintf(&t, "plain line\n");
    tprintf(&t, "bad %%\nend%%");
    return t.s;
}

/* Runs the four format kernels of `p` and compares their output with the host's. */
static void check_formats(struct kt_env *env, cl_program p, const char *what)
{
    char label[128];
    size_t n = N_SCALAR, one = 1;
    cl_mem mi = buffer(env, sizeof(ints_in), ints_in);
    cl_mem ml = buffer(env, sizeof(longs_in), longs_in);
    cl_mem mf = buffer(env, sizeof(floats_in), floats_in);
    cl_mem md = buffer(env, sizeof(doubles_in), doubles_in);
    /* The vectors kernel reads 16 of each: pad with zeros. */
    uint16_t hpad[16] = {0};
    memcpy(hpad, halves_in, sizeof(halves_in));
    cl_mem mh = buffer(env, sizeof(hpad), hpad);
    float fpad[16] = {0};
    memcpy(fpad, floats_in, sizeof(floats_in));
    cl_mem mf16 = buffer(env, sizeof(fpad), fpad);
    cl_mem mret = buffer(env, sizeof(int) * N_SCALAR, NULL);

    cl_kernel k = kernel(p, "ints");
    set_mem(k, 0, mi);
    set_mem(k, 1, ml);
    set_mem(k, 2, mret);
    /* One group: its work-items print in order, the host's order. */
    char *got = run_captured(env, k, 1, &n, &n);
    char *want = ref_ints();
    snprintf(label, sizeof(label), "%s ints", what);
    expect_text(label, got, want);
    int ret[N_SCALAR];
    KT_EXPECT(clEnqueueReadBuffer(env->queue, mret, CL_TRUE, 0, sizeof(ret), ret, 0, NULL, NULL),
              CL_SUCCESS);
    for (int i = 0; i < N_SCALAR; i++)
        KT_CHECK(ret[i] == 0, "%s: printf returned %d", label, ret[i]);
    free(got);
    free(want);
    clReleaseKernel(k);

    k = kernel(p, "floats");
    set_mem(k, 0, mf);
    set_mem(k, 1, md);
    set_mem(k, 2, mh);
    got = run_captured(env, k, 1, &n, &n);
    want = ref_floats();
    snprintf(label, sizeof(label), "%s floats", what);
    expect_text(label, got, want);
    free(got);
    free(want);
    clReleaseKernel(k);

    k = kernel(p, "vectors");
    set_mem(k, 0, mf16);
    set_mem(k, 1, mi);
    set_mem(k, 2, ml);
    set_mem(k, 3, md);
    set_mem(k, 4, mh);
    got = run_captured(env, k, 1, &one, &one);
    want = ref_vectors();
    snprintf(label, sizeof(label), "%s vectors", what);
    expect_text(label, got, want);
    free(got);
    free(want);
    clReleaseKernel(k);

    k = kernel(p, "strings");
    set_mem(k, 0, mi);
    KT_REQUIRE(clSetKernelArg(k, 1, sizeof(cl_mem), NULL) == CL_SUCCESS, "NULL buffer argument");
    got = run_captured(env, k, 1, &one, &one);
    cl_int err;
    void *host = clEnqueueMapBuffer(env->queue, mi, CL_TRUE, CL_MAP_READ, 0, sizeof(ints_in), 0,
                                    NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clEnqueueMapBuffer: %d", err);
    want = ref_strings(host);
    KT_EXPECT(clEnqueueUnmapMemObject(env->queue, mi, host, 0, NULL, NULL), CL_SUCCESS);
    snprintf(label, sizeof(label), "%s strings", what);
    expect_text(label, got, want);
    free(got);
    free(want);
    clReleaseKernel(k);

    /* A kernel of the same program without printf prints nothing. */
    k = kernel(p, "quiet");
    set_mem(k, 0, mret);
    got = run_captured(env, k, 1, &n, NULL);
    KT_CHECK(got[0] == '\0', "%s: quiet kernel printed '%.80s'", what, got);
    free(got);
    clReleaseKernel(k);

    cl_mem all[] = {mi, ml, mf, md, mh, mf16, mret};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        clReleaseMemObject(all[i]);
}

/* The same program loaded from its binary prints the same (strings live in the object). */
static void check_binary(struct kt_env *env, cl_program built)
{
    size_t size = 0;
    KT_EXPECT(clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
              CL_SUCCESS);
    unsigned char *bin = malloc(size);
    KT_REQUIRE(bin != NULL && size > 0, "binary size %zu", size);
    KT_EXPECT(clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL), CL_SUCCESS);
    cl_int err, status;
    const unsigned char *bins[] = {bin};
    cl_program p =
        clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins, &status, &err);
    KT_REQUIRE(err == CL_SUCCESS && status == CL_SUCCESS, "clCreateProgramWithBinary: %d %d", err,
               status);
    KT_REQUIRE(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL) == CL_SUCCESS,
               "building from the binary");
    check_formats(env, p, "binary");
    clReleaseProgram(p);
    free(bin);
}

/* ---- many work-items, a full buffer, a barrier ------------------------------------ */

static const char *grid_src =
    "kernel void grid(global int *ret) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int id = y * get_global_size(0) + x, r = 0;\n"
    "  for (int k = 0; k < 3; k++)\n"
    "    r |= printf(\"item %d step %d group %d,%d\\n\", id, k, (int)get_group_id(0),\n"
    "                (int)get_group_id(1));\n"
    "  ret[id] = r;\n"
    "}\n"
    "kernel void full(global int *ret) {\n"
    "  int g = get_global_id(0);\n"
    "  ret[g] = printf(\"full %d %d\\n\", g, g * 7);\n"
    "}\n"
    "kernel void tagged(int tag) { printf(\"tag %d %d\\n\", tag, (int)get_global_id(0)); }\n"
    "void after(int g, int v) { printf(\"after %d %d\\n\", g, v); }\n"
    "kernel void bar(local int *tmp) {\n"
    "  int l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);\n"
    "  printf(\"before %d\\n\", g);\n"
    "  tmp[l] = g * 3;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  after(g, tmp[(l + 1) % n]);\n"
    "}\n";

static void check_grid(struct kt_env *env, cl_program p)
{
    enum { W = 64, H = 16, N = W * H };
    size_t global[2] = {W, H}, local[2] = {8, 4};
    cl_mem mret = buffer(env, sizeof(int) * N, NULL);
    cl_kernel k = kernel(p, "grid");
    set_mem(k, 0, mret);
    char *got = run_captured(env, k, 2, global, local);
    int *next = calloc(N, sizeof(int));
    int lines = 0;
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        int id, step, gx, gy;
        if (sscanf(line, "item %d step %d group %d,%d", &id, &step, &gx, &gy) != 4 || id < 0 ||
            id >= N) {
            KT_CHECK(0, "grid: unexpected line '%.80s'", line);
            continue;
        }
        KT_CHECK(step == next[id], "grid: item %d printed step %d, expected %d", id, step,
                 next[id]);
        next[id] = step + 1;
        KT_CHECK(gx == id % W / 8 && gy == id / W / 4, "grid: item %d in group %d,%d", id, gx, gy);
    }
    KT_CHECK(lines == 3 * N, "grid: %d lines, want %d", lines, 3 * N);
    for (int i = 0; i < N; i++)
        KT_CHECK(next[i] == 3, "grid: item %d printed %d lines", i, next[i]);
    int *ret = calloc(N, sizeof(int));
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, mret, CL_TRUE, 0, sizeof(int) * N, ret, 0, NULL, NULL),
        CL_SUCCESS);
    for (int i = 0; i < N; i++)
        KT_CHECK(ret[i] == 0, "grid: item %d's printf returned %d", i, ret[i]);
    free(ret);
    free(next);
    free(got);
    clReleaseKernel(k);
    clReleaseMemObject(mret);
}

static void check_full(struct kt_env *env, cl_program p)
{
    enum { N = 40000 };
    size_t global = N;
    cl_mem mret = buffer(env, sizeof(int) * N, NULL);
    cl_kernel k = kernel(p, "full");
    set_mem(k, 0, mret);
    char *got = run_captured(env, k, 1, &global, NULL);
    int *ret = calloc(N, sizeof(int));
    char *seen = calloc(N, 1);
    KT_EXPECT(
        clEnqueueReadBuffer(env->queue, mret, CL_TRUE, 0, sizeof(int) * N, ret, 0, NULL, NULL),
        CL_SUCCESS);
    int lines = 0, ok = 0, failed = 0;
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        int g, v;
        if (sscanf(line, "full %d %d", &g, &v) != 2 || g < 0 || g >= N || v != g * 7 || seen[g]) {
            KT_CHECK(0, "full: bad or repeated line '%.80s'", line);
            continue;
        }
        seen[g] = 1;
        KT_CHECK(ret[g] == 0, "full: item %d printed but printf returned %d", g, ret[g]);
    }
    for (int i = 0; i < N; i++) {
        KT_CHECK(ret[i] == 0 || ret[i] == -1, "full: printf returned %d", ret[i]);
        ok += ret[i] == 0;
        failed += ret[i] == -1;
        KT_CHECK(ret[i] != 0 || seen[i], "full: item %d's printf returned 0, nothing printed", i);
    }
    KT_CHECK(lines == ok, "full: %d lines for %d successful calls", lines, ok);
    KT_CHECK(ok > 1000 && failed > 1000, "full: %d calls fitted, %d did not", ok, failed);
    free(seen);
    free(ret);
    free(got);

    /* The next command gets a fresh buffer. */
    global = 8;
    got = run_captured(env, k, 1, &global, NULL);
    int count = 0;
    for (char *c = got; *c; c++)
        count += *c == '\n';
    KT_CHECK(count == 8, "full: after an overflow a new command printed %d lines", count);
    free(got);
    clReleaseKernel(k);
    clReleaseMemObject(mret);
}

static void check_barrier(struct kt_env *env, cl_program p)
{
    enum { N = 64, L = 16 };
    size_t global = N, local = L;
    cl_kernel k = kernel(p, "bar");
    KT_REQUIRE(clSetKernelArg(k, 0, sizeof(int) * L, NULL) == CL_SUCCESS, "local arg");
    char *got = run_captured(env, k, 1, &global, &local);
    int state[N] = {0}, lines = 0;
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        int g, v;
        if (sscanf(line, "before %d", &g) == 1 && g >= 0 && g < N) {
            KT_CHECK(state[g] == 0, "barrier: 'before %d' out of order", g);
            state[g] = 1;
        } else if (sscanf(line, "after %d %d", &g, &v) == 2 && g >= 0 && g < N) {
            KT_CHECK(state[g] == 1, "barrier: 'after %d' before 'before'", g);
            state[g] = 2;
            int want = (g / L * L + (g % L + 1) % L) * 3;
            KT_CHECK(v == want, "barrier: item %d read %d, want %d", g, v, want);
        } else {
            KT_CHECK(0, "barrier: unexpected line '%.80s'", line);
        }
    }
    KT_CHECK(lines == 2 * N, "barrier: %d lines, want %d", lines, 2 * N);
    free(got);
    clReleaseKernel(k);
}

/*
 * Two commands printing at once on an out-of-order queue: each command's output is one
 * block, never interleaved with the other's.
 */
static void check_two_commands(struct kt_env *env, cl_program p)
{
    enum { N = 3000 };
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(
        env->context, env->device,
        (cl_queue_properties[]){CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
        &err);
    KT_REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
    cl_kernel k[2] = {kernel(p, "tagged"), kernel(p, "tagged")};
    size_t global = N;
    capture_begin();
    for (int i = 0; i < 2; i++) {
        KT_REQUIRE(clSetKernelArg(k[i], 0, sizeof(int), &i) == CL_SUCCESS, "tag");
        KT_EXPECT(clEnqueueNDRangeKernel(q, k[i], 1, NULL, &global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
    }
    KT_EXPECT(clFinish(q), CL_SUCCESS);
    char *got = capture_end();
    int lines = 0, switches = 0, last = -1, count[2] = {0, 0};
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        int tag, g;
        if (sscanf(line, "tag %d %d", &tag, &g) != 2 || tag < 0 || tag > 1 || g < 0 || g >= N) {
            KT_CHECK(0, "two: unexpected line '%.80s'", line);
            continue;
        }
        count[tag]++;
        switches += last >= 0 && tag != last;
        last = tag;
    }
    KT_CHECK(count[0] == N && count[1] == N, "two: %d and %d lines, want %d each", count[0],
             count[1], N);
    KT_CHECK(switches == 1, "two: the commands' outputs are interleaved (%d switches)", switches);
    free(got);
    for (int i = 0; i < 2; i++)
        clReleaseKernel(k[i]);
    clReleaseCommandQueue(q);
}

/* A struct cannot be printed: the build fails and the log says why. */
static void check_refused(struct kt_env *env)
{
    static const char *src = "typedef struct { long a, b, c; } S;\n"
                             "kernel void k(global S *p) { printf(\"%d\\n\", p[0]); }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    KT_EXPECT(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    char log[4096] = "";
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
    KT_CHECK(strstr(log, "passes printf argument 1 of a type Kiln cannot print") != NULL,
             "build log: %s", log);
    clReleaseProgram(p);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    init_values();

    size_t psize = 0;
    KT_EXPECT(
        clGetDeviceInfo(env.device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(psize), &psize, NULL),
        CL_SUCCESS);
    KT_CHECK(psize >= 1024 * 1024, "CL_DEVICE_PRINTF_BUFFER_SIZE is %zu", psize);

    static const char *const stds[] = {"-cl-std=CL1.2", "-cl-std=CL3.0"};
    for (int s = 0; s < 2; s++) {
        cl_program p = kt_build(&env, fmt_src, stds[s]);
        check_formats(&env, p, stds[s]);
        if (s == 1)
            check_binary(&env, p);
        clReleaseProgram(p);
    }
    cl_program p = kt_build(&env, grid_src, "-cl-std=CL3.0");
    check_grid(&env, p);
    check_full(&env, p);
    check_barrier(&env, p);
    check_two_commands(&env, p);
    clReleaseProgram(p);
    p = kt_build(&env, grid_src, "-cl-std=CL1.2");
    check_barrier(&env, p);
    clReleaseProgram(p);
    p = kt_build(&env, grid_src, "-cl-opt-disable");
    check_grid(&env, p);
    check_barrier(&env, p);
    clReleaseProgram(p);
    check_refused(&env);

    kt_teardown(&env);
    return kt_finish("printf");
}
