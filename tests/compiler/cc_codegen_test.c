/*
 * Compiler tests of code generation: the emitted vector instructions, and whole builds run end to
 * end and on several threads (docs/compiler.md, "Stages").
 *
 * Usage: kiln-cc-codegen-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

#include <math.h>
#include <pthread.h>

static int test_saxpy(void)
{
    static const char src[] = "kernel void saxpy(float a, global const float *x, global float *y)\n"
                              "{\n"
                              "    size_t i = get_global_id(0);\n"
                              "    y[i] = a * x[i] + y[i];\n"
                              "}\n";
    enum { N = 777 };
    static float x[N], y[N];
    struct kiln_cc_program *p = ct_build_ok(src, "-cl-std=CL3.0");
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "saxpy");
    CHECK(k && k->num_args == 3);
    CHECK(k->args[0].kind == KILN_CC_ARG_VALUE && k->args[0].size == 4 && k->args[0].align == 4);
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    float a = 2.0f, *px = x, *py = y;
    void *args[] = {&a, &px, &py};
    size_t off = 0, gs = N, ls = 128;
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N; i++)
        CHECK(y[i] == 2.0f * (float)i + 1.0f);
    ct_cc->destroy(p);
    return 0;
}

struct thread_result {
    int failed;
};

static void *build_in_thread(void *arg)
{
    struct thread_result *r = arg;
    for (int i = 0; i < 3 && !r->failed; i++)
        r->failed = test_saxpy();
    return NULL;
}

/* Builds on several threads at once share nothing but the host facts. */
static int test_threads(void)
{
    enum { THREADS = 3 };
    pthread_t t[THREADS];
    struct thread_result r[THREADS] = {{0}};
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, build_in_thread, &r[i]) == 0);
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(r[i].failed == 0);
    }
    return 0;
}

/* Acceptance: the work-item loops of vector add and saxpy are vectorised. */
static int test_vector_asm(void)
{
    static const char src[] =
        "kernel void vadd(global const float *a, global const float *b, global float *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    c[i] = a[i] + b[i];\n"
        "}\n"
        "kernel void saxpy(float a, global const float *x, global float *y)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    y[i] = a * x[i] + y[i];\n"
        "}\n";
    static const char *const vector_ops[] = {"zmm", "ymm", "vaddps", "vfmadd", "addps", "mulps"};
    setenv("KILN_KEEP_ASM", "1", 1);
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    char *text = ct_cc->assembly(p);
    CHECK(text);
    /* Look at each wrapper's own text, from its label to the next function's. */
    static const char *const wrappers[] = {"kiln.wg.vadd:", "kiln.wg.saxpy:"};
    for (size_t w = 0; w < 2; w++) {
        char *start = strstr(text, wrappers[w]);
        CHECK(start);
        char *end = strstr(start, ".size");
        CHECK(end);
        size_t found = 0;
        for (size_t v = 0; v < sizeof(vector_ops) / sizeof(vector_ops[0]); v++) {
            const char *hit = strstr(start, vector_ops[v]);
            if (hit && hit < end) {
                printf("%s uses %s\n", wrappers[w], vector_ops[v]);
                found++;
            }
        }
        CHECK(found > 0);
    }
    free(text);
    ct_cc->destroy(p);
    return 0;
}

/*
 * Build `src`, whose kernels `fkernel` (float) and `dkernel` (double) call math builtins, and
 * check their work-group functions: no call instruction and more than `min_vector` packed
 * vector instructions each (ps for float, pd for double, on xmm/ymm/zmm registers).
 */
static int check_math_vectorised(const char *src, const char *fkernel, const char *dkernel,
                                 size_t min_vector)
{
    setenv("KILN_KEEP_ASM", "1", 1);
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    char *text = ct_cc->assembly(p);
    CHECK(text);
    const char *const kernels[] = {fkernel, dkernel};
    static const char *const packed[] = {"ps\t", "pd\t"};
    for (size_t w = 0; w < 2; w++) {
        char wrapper[128];
        snprintf(wrapper, sizeof(wrapper), "kiln.wg.%s:", kernels[w]);
        char *start = strstr(text, wrapper);
        CHECK(start);
        char *end = strstr(start, ".size");
        CHECK(end);
        size_t calls = 0, vector = 0;
        for (char *line = start; line && line < end; line = strchr(line + 1, '\n')) {
            char *op = line + 1;
            while (*op == ' ' || *op == '\t')
                op++;
            if (strncmp(op, "call", 4) == 0)
                calls++;
            char *eol = strchr(op, '\n');
            char *hit = strstr(op, packed[w]);
            if (hit && (!eol || hit < eol) && (strstr(op, "mm") != NULL))
                vector++;
        }
        printf("%s %zu packed vector instructions, %zu calls\n", wrapper, vector, calls);
        CHECK(calls == 0);
        CHECK(vector > min_vector);
    }
    free(text);
    ct_cc->destroy(p);
    return 0;
}

/*
 * A kernel calling sin, exp, log, pow, sqrt and rsqrt (float and double) per work-item
 * is vectorised across work-items: its work-group function uses packed vector
 * instructions and calls nothing (every builtin inlined, no scalar call per lane).
 */
static int test_math_vector_asm(void)
{
    static const char src[] =
        "kernel void trans(global const float *a, global const float *b, global float *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x = a[i], y = b[i];\n"
        "    c[i] = sin(x) + exp(x) + log(y) + pow(y, x) + sqrt(y) + rsqrt(y);\n"
        "}\n"
        "kernel void transd(global const double *a, global const double *b, global double *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    double x = a[i], y = b[i];\n"
        "    c[i] = sin(x) + exp(x) + log(y) + pow(y, x) + sqrt(y) + rsqrt(y);\n"
        "}\n";
    return check_math_vectorised(src, "trans", "transd", 20);
}

/*
 * The functions of math/exact.cl ... gamma.cl vectorise too: fmod's unrolled steps, the
 * interval selects of erfc and lgamma, the pointer results of remquo and frexp.
 */
static int test_math_misc_vector_asm(void)
{
    static const char src[] =
        "#define BODY(T) \\\n"
        "    size_t i = get_global_id(0); \\\n"
        "    T x = a[i], y = b[i]; int q, e; \\\n"
        "    c[i] = fmod(x, y) + remquo(x, y, &q) + atan2(x, y) + asin(x) + hypot(x, y) \\\n"
        "         + sinh(x) + tanh(y) + erfc(x) + tgamma(y) + lgamma(x) + round(x) \\\n"
        "         + frexp(y, &e) + ldexp(x, q + e) + nextafter(x, y) + fract(x, &y) + y;\n"
        "kernel void misc(global const float *a, global const float *b, global float *c)\n"
        "{ BODY(float) }\n"
        "kernel void miscd(global const double *a, global const double *b, global double *c)\n"
        "{ BODY(double) }\n";
    return check_math_vectorised(src, "misc", "miscd",
                                 200 /* about 90 when the work-item loop stays scalar */);
}

/*
 * half math (cl_khr_fp16) is computed in float lanes: with F16C the halves are widened and
 * rounded by vcvtph2ps/vcvtps2ph, whole vectors at a time, nothing is called (no
 * __extendhfsf2/__truncsfhf2 per element), and no comparison is left on halves, which the
 * code generator would split into one scalar (u)comiss per lane: 89 in this kernel when the
 * half functions widened their argument with a plain conversion, 13 since (all in the scalar
 * copy of the loop that runs a group's last work-items). Without F16C the test
 * reports skipped (exit 77): LLVM then converts through library calls. Where the CPU has
 * AVX-512 FP16, fma and mad must be its fused half instructions (vfmadd...ph).
 */
/* Whether /proc/cpuinfo lists `flag` for the first CPU (false when it cannot be read). */
static bool cpu_has_flag(const char *flag)
{
    char *info = ct_read_text("/proc/cpuinfo");
    bool found = false;
    size_t n = strlen(flag);
    for (const char *p = info; p && (p = strstr(p, flag)) != NULL; p += n)
        if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n')) {
            found = true;
            break;
        }
    free(info);
    return found;
}

static int test_half_math_vector_asm(void)
{
    static const char src[] =
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "kernel void hmath(global const half *a, global const half *b, global half *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    half x = a[i], y = b[i];\n"
        "    c[i] = sin(x) + exp(x) + log(2.0h + y) + pow(y, x) + sqrt(y) + fma(x, y, c[i])\n"
        "         + mad(x, y, x) + fmin(x, y) + fabs(y) + erfc(x) + fmod(x, y) + x * y - x / y;\n"
        "}\n";
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("f16c")) {
        printf("skipped: this CPU has no F16C, so half converts through library calls\n");
        exit(77);
    }
    setenv("KILN_KEEP_ASM", "1", 1);
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    char *text = ct_cc->assembly(p);
    CHECK(text);
    char *start = strstr(text, "kiln.wg.hmath:");
    CHECK(start);
    char *end = strstr(start, ".size");
    CHECK(end);
    size_t calls = 0, widen = 0, narrow = 0, packed = 0, scalar_compares = 0, fused_half = 0;
    for (char *line = start; line && line < end; line = strchr(line + 1, '\n')) {
        char *op = line + 1;
        while (*op == ' ' || *op == '\t')
            op++;
        size_t len = strcspn(op, " \t\n");
        calls += strncmp(op, "call", 4) == 0;
        /* The AVX-512 FP16 forms end in x. */
        widen += (len == 9 || len == 10) && strncmp(op, "vcvtph2ps", 9) == 0;
        narrow += (len == 9 || len == 10) && strncmp(op, "vcvtps2ph", 9) == 0;
        scalar_compares += (len == 8 && strncmp(op, "vucomiss", 8) == 0) ||
                           (len == 7 && strncmp(op, "vcomiss", 7) == 0);
        packed += len > 2 && strncmp(op + len - 2, "ps", 2) == 0 && op[0] == 'v';
        fused_half +=
            len > 8 && strncmp(op, "vfmadd", 6) == 0 && strncmp(op + len - 2, "ph", 2) == 0;
    }
    printf("kiln.wg.hmath: %zu vcvtph2ps, %zu vcvtps2ph, %zu packed float instructions, %zu "
           "scalar float comparisons, %zu calls\n",
           widen, narrow, packed, scalar_compares, calls);
    printf("%zu fused half multiply-adds\n", fused_half);
    bool fp16 = cpu_has_flag("avx512_fp16");
    CHECK(calls == 0);
    CHECK(fused_half > 0 || !fp16);
    /* With AVX-512 FP16 LLVM may keep every value in half lanes and convert nothing. */
    CHECK((widen > 0 && narrow > 0) || fp16);
    CHECK(packed > 100);
    CHECK(scalar_compares <= 30);
    free(text);
    ct_cc->destroy(p);
    return 0;
}

const struct ct_test ct_tests[] = {
    {"saxpy", test_saxpy},
    {"threads", test_threads},
    {"vector_asm", test_vector_asm},
    {"math_vector_asm", test_math_vector_asm},
    {"math_misc_vector_asm", test_math_misc_vector_asm},
    {"half_math_vector_asm", test_half_math_vector_asm},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
