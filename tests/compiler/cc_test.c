/*
 * Tests of libkiln-cc.so through its interface table, without the runtime: each
 * test builds a kernel, calls its work-group function directly with a hand-made
 * struct kiln_wg_ctx for every group of a small NDRange, and checks the results.
 *
 * Usage: kiln-cc-test LIBKILN_CC.so TEST
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "kiln_abi.h"
#include "kiln_cc.h"

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct kiln_cc_interface *cc;

/* Builds `source`; prints the log to stderr on failure. NULL unless KILN_CC_OK. */
static struct kiln_cc_program *build_ok(const char *source, const char *options)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->build(source, options, &p, &log);
    if (s != KILN_CC_OK) {
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
        p = NULL;
    }
    free(log);
    return p;
}

static const struct kiln_cc_kernel *find_kernel(const struct kiln_cc_program *p, const char *name)
{
    for (unsigned i = 0; i < cc->num_kernels(p); i++)
        if (strcmp(cc->kernel(p, i)->name, name) == 0)
            return cc->kernel(p, i);
    return NULL;
}

/*
 * Runs an NDRange the way the runtime will: every group in turn, the last group in
 * a dimension smaller when local does not divide global.
 */
static void run_ndrange(const struct kiln_cc_kernel *k, void *const *args, unsigned dims,
                        const size_t *offset, const size_t *global, const size_t *local,
                        void *local_mem)
{
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = dims;
    c.local_mem = local_mem;
    for (unsigned d = 0; d < 3; d++) {
        c.global_offset[d] = d < dims ? offset[d] : 0;
        c.global_size[d] = d < dims ? global[d] : 1;
        c.enqueued_local_size[d] = d < dims ? local[d] : 1;
        c.num_groups[d] =
            (c.global_size[d] + c.enqueued_local_size[d] - 1) / c.enqueued_local_size[d];
    }
    for (size_t gz = 0; gz < c.num_groups[2]; gz++)
        for (size_t gy = 0; gy < c.num_groups[1]; gy++)
            for (size_t gx = 0; gx < c.num_groups[0]; gx++) {
                size_t g[3] = {gx, gy, gz};
                for (unsigned d = 0; d < 3; d++) {
                    c.group_id[d] = g[d];
                    size_t rest = c.global_size[d] - g[d] * c.enqueued_local_size[d];
                    c.local_size[d] =
                        rest < c.enqueued_local_size[d] ? rest : c.enqueued_local_size[d];
                }
                k->wg(args, &c);
            }
}

static int test_vector_add(void)
{
    static const char src[] =
        "kernel void vadd(global const float *a, global const float *b, global float *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    c[i] = a[i] + b[i];\n"
        "}\n";
    enum { N = 1000, OFF = 7 };
    static float a[N + OFF], b[N + OFF], c[N + OFF];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "vadd");
    CHECK(k && k->num_args == 3);
    for (unsigned i = 0; i < 3; i++) {
        CHECK(k->args[i].kind == KILN_CC_ARG_GLOBAL_PTR);
        CHECK(k->args[i].size == 8);
    }
    CHECK(strcmp(k->args[0].name, "a") == 0 && strcmp(k->args[0].type_name, "float*") == 0);
    CHECK(strcmp(k->args[0].type_qual, "const") == 0);
    for (int i = 0; i < N + OFF; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
        c[i] = -1.0f;
    }
    float *pa = a, *pb = b, *pc = c;
    void *args[] = {&pa, &pb, &pc};
    /* 1000 work-items from offset 7 in groups of 64: 16 groups, the last of 40. */
    size_t off = OFF, gs = N, ls = 64;
    run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N + OFF; i++)
        CHECK(c[i] == (i < OFF ? -1.0f : 3.0f * (float)i));
    cc->destroy(p);
    return 0;
}

static int test_saxpy(void)
{
    static const char src[] = "kernel void saxpy(float a, global const float *x, global float *y)\n"
                              "{\n"
                              "    size_t i = get_global_id(0);\n"
                              "    y[i] = a * x[i] + y[i];\n"
                              "}\n";
    enum { N = 777 };
    static float x[N], y[N];
    struct kiln_cc_program *p = build_ok(src, "-cl-std=CL3.0");
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "saxpy");
    CHECK(k && k->num_args == 3);
    CHECK(k->args[0].kind == KILN_CC_ARG_VALUE && k->args[0].size == 4 && k->args[0].align == 4);
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    float a = 2.0f, *px = x, *py = y;
    void *args[] = {&a, &px, &py};
    size_t off = 0, gs = N, ls = 128;
    run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N; i++)
        CHECK(y[i] == 2.0f * (float)i + 1.0f);
    cc->destroy(p);
    return 0;
}

static int test_two_d(void)
{
    static const char src[] =
        "kernel void fill(global int *out)\n"
        "{\n"
        "    size_t x = get_global_id(0), y = get_global_id(1);\n"
        "    size_t w = get_global_size(0);\n"
        "    out[y * w + x] = (int)(y * 1000 + x + 100000 * get_global_size(1));\n"
        "}\n";
    enum { W = 37, H = 11 };
    static int out[W * H];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "fill");
    CHECK(k);
    memset(out, 0xff, sizeof(out));
    int *po = out;
    void *args[] = {&po};
    size_t off[2] = {0, 0}, gs[2] = {W, H}, ls[2] = {8, 4};
    run_ndrange(k, args, 2, off, gs, ls, NULL);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            CHECK(out[y * W + x] == y * 1000 + x + 100000 * H);
    cc->destroy(p);
    return 0;
}

static int test_local_ptr(void)
{
    static const char src[] = "kernel void slots(global int *out, local int *scratch)\n"
                              "{\n"
                              "    size_t l = get_local_id(0), g = get_global_id(0);\n"
                              "    scratch[l] = (int)g * 3;\n"
                              "    out[g] = scratch[l] + (int)get_local_size(0);\n"
                              "}\n";
    enum { N = 100, LS = 16 };
    static int out[N];
    static _Alignas(KILN_LOCAL_ALIGN) char arena[2 * KILN_LOCAL_ALIGN + LS * sizeof(int)];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "slots");
    CHECK(k && k->num_args == 2);
    CHECK(k->args[1].kind == KILN_CC_ARG_LOCAL_PTR && k->args[1].addr_space == KILN_CC_AS_LOCAL);
    int *po = out;
    size_t offset = 2 * KILN_LOCAL_ALIGN; /* not at the start of the arena */
    void *args[] = {&po, &offset};
    size_t off = 0, gs = N, ls = LS;
    run_ndrange(k, args, 1, &off, &gs, &ls, arena);
    for (int i = 0; i < N; i++) {
        int group_size = i / LS == N / LS ? N % LS : LS;
        CHECK(out[i] == 3 * i + group_size);
    }
    /* The last group wrote its slots where the offset says. */
    int slot;
    memcpy(&slot, arena + offset, sizeof(slot));
    CHECK(slot == 3 * (N / LS) * LS);
    cc->destroy(p);
    return 0;
}

struct host_s {
    float a;
    int b;
    _Alignas(16) float c[4];
};

static int test_struct_arg(void)
{
    static const char src[] = "typedef struct { float a; int b; float4 c; } S;\n"
                              "kernel void use(S s, global float *out, float3 v)\n"
                              "{\n"
                              "    size_t i = get_global_id(0);\n"
                              "    out[i] = s.a * (float)i + (float)s.b + s.c.w + v.z;\n"
                              "}\n";
    enum { N = 50 };
    static float out[N];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "use");
    CHECK(k && k->num_args == 3);
    CHECK(k->args[0].kind == KILN_CC_ARG_VALUE);
    CHECK(k->args[0].size == sizeof(struct host_s) && k->args[0].align == 16);
    CHECK(strcmp(k->args[0].type_name, "S") == 0);
    CHECK(k->args[2].size == 16); /* float3 occupies a float4 */
    /* Misaligned copies, as a runtime might hand them over. */
    static char storage[64 + 1 + sizeof(struct host_s)];
    struct host_s s = {0.5f, 7, {0, 0, 0, 100.0f}};
    char *sp = storage + 1;
    memcpy(sp, &s, sizeof(s));
    float v[4] = {0, 0, 1000.0f, 0};
    float *po = out;
    void *args[] = {sp, &po, v};
    size_t off = 0, gs = N, ls = 8;
    run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N; i++)
        CHECK(out[i] == 0.5f * (float)i + 7.0f + 100.0f + 1000.0f);
    cc->destroy(p);
    return 0;
}

static int test_work_dims(void)
{
    /* d is an argument, so out-of-range dimensions are not folded at build time. */
    static const char src[] =
        "kernel void dims(global ulong *out, uint d)\n"
        "{\n"
        "    size_t i = get_global_linear_id();\n"
        "    global ulong *o = out + 16 * i;\n"
        "    o[0] = get_work_dim();\n"
        "    o[1] = get_global_id(d);\n"
        "    o[2] = get_local_id(d);\n"
        "    o[3] = get_group_id(d);\n"
        "    o[4] = get_global_offset(d);\n"
        "    o[5] = get_global_size(d);\n"
        "    o[6] = get_local_size(d);\n"
        "    o[7] = get_enqueued_local_size(d);\n"
        "    o[8] = get_num_groups(d);\n"
        "    o[9] = get_global_id(3) + get_local_id(4) + get_group_id(100);\n"
        "    o[10] = get_global_size(3) * get_local_size(7) * get_num_groups(3);\n"
        "    o[11] = get_local_linear_id();\n"
        "    o[12] = get_global_id(0);\n"
        "    o[13] = get_global_id(1);\n"
        "    o[14] = get_local_id(1);\n"
        "    o[15] = get_global_offset(3) + get_enqueued_local_size(5);\n"
        "}\n";
    enum { W = 6, H = 5 };
    static unsigned long out[W * H * 16];
    /* get_global_linear_id and friends are OpenCL C 2.0. */
    struct kiln_cc_program *p = build_ok(src, "-cl-std=CL2.0");
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "dims");
    CHECK(k);
    unsigned long *po = out;
    for (unsigned d = 0; d < 5; d++) {
        unsigned dd = d == 4 ? 9 : d;
        memset(out, 0xee, sizeof(out));
        void *args[] = {&po, &dd};
        size_t off[2] = {3, 10}, gs[2] = {W, H}, ls[2] = {4, 2};
        run_ndrange(k, args, 2, off, gs, ls, NULL);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const unsigned long *o = out + 16 * (y * W + x);
                size_t lx = x % 4, ly = y % 2, gx = x / 4, gy = y / 2;
                size_t lsx = gx == 1 ? 2 : 4, lsy = gy == 2 ? 1 : 2;
                size_t id[3] = {3 + x, 10 + y, 0}, lid[3] = {lx, ly, 0}, gid[3] = {gx, gy, 0};
                size_t offs[3] = {3, 10, 0}, gsz[3] = {W, H, 1}, lsz[3] = {lsx, lsy, 1};
                size_t els[3] = {4, 2, 1}, ng[3] = {2, 3, 1};
                CHECK(o[0] == 2);
                if (dd < 3) {
                    CHECK(o[1] == id[dd] && o[2] == lid[dd] && o[3] == gid[dd]);
                    CHECK(o[4] == offs[dd] && o[5] == gsz[dd] && o[6] == lsz[dd]);
                    CHECK(o[7] == els[dd] && o[8] == ng[dd]);
                } else {
                    CHECK(o[1] == 0 && o[2] == 0 && o[3] == 0 && o[4] == 0);
                    CHECK(o[5] == 1 && o[6] == 1 && o[7] == 1 && o[8] == 1);
                }
                CHECK(o[9] == 0 && o[10] == 1 && o[15] == 1);
                CHECK(o[11] == ly * lsx + lx);
                CHECK(o[12] == 3 + (size_t)x && o[13] == 10 + (size_t)y && o[14] == ly);
            }
    }
    cc->destroy(p);
    return 0;
}

static int test_math(void)
{
    static const char src[] =
        "kernel void m(global const float4 *a, global float4 *out, global double *dout)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float4 x = a[i];\n"
        "    out[4 * i + 0] = sqrt(fabs(x));\n"
        "    out[4 * i + 1] = fma(x, x, 1.0f) + mad(x, 2.0f, (float4)(0.5f));\n"
        "    out[4 * i + 2] = min(x, 1.0f) + max(x, (float4)(-1.0f));\n"
        "    out[4 * i + 3] = (float4)(fmin(x.x, 0.0f), fmax(x.y, 0.0f), fmin(x, 2.0f).zw);\n"
        "    dout[i] = sqrt((double)x.x * x.x) + fma(2.0, (double)x.y, 1.0);\n"
        "}\n";
    enum { N = 9 };
    static float a[N * 4], out[N * 16];
    static double dout[N];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "m");
    CHECK(k);
    for (int i = 0; i < N * 4; i++)
        a[i] = (float)(i - 17) * 0.25f;
    float *pa = a, *po = out;
    double *pd = dout;
    void *args[] = {&pa, &po, &pd};
    size_t off = 0, gs = N, ls = 4;
    run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N; i++) {
        for (int c = 0; c < 4; c++) {
            float x = a[4 * i + c];
            const float *o = out + 16 * i + c;
            CHECK(o[0] == sqrtf(fabsf(x)));
            CHECK(fabsf(o[4] - (x * x + 1.0f + x * 2.0f + 0.5f)) <= 1e-5f * (1.0f + fabsf(o[4])));
            CHECK(o[8] == (x < 1.0f ? x : 1.0f) + (x > -1.0f ? x : -1.0f));
            float want = c == 0 ? fminf(x, 0.0f) : c == 1 ? fmaxf(x, 0.0f) : fminf(x, 2.0f);
            CHECK(o[12] == want);
        }
        double x0 = a[4 * i], x1 = a[4 * i + 1];
        CHECK(dout[i] == fabs(x0) + (2.0 * x1 + 1.0));
    }
    cc->destroy(p);
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

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* KILN_DUMP_IR writes every stage; the wrapper stage marks the x loop parallel. */
static int test_dump_ir(void)
{
    static const char *const stages[] = {"0-frontend",  "1-kernels",  "2-copies",  "3-linked",
                                         "4-divisions", "5-printf",   "6-wrapped", "7-locals",
                                         "8-checked",   "9-optimized"};
    char dir[] = "/tmp/kiln-cc-test-XXXXXX";
    char path[128];
    CHECK(mkdtemp(dir));
    setenv("KILN_DUMP_IR", dir, 1);
    int failed = test_vector_add();
    unsetenv("KILN_DUMP_IR");
    CHECK(!failed);
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        snprintf(path, sizeof(path), "%s/kiln-0-%s.ll", dir, stages[i]);
        char *text = read_text(path);
        CHECK(text);
        if (i == 6) {
            CHECK(strstr(text, "define void @kiln.wg.vadd(ptr noalias"));
            CHECK(strstr(text, "!\"llvm.loop.parallel_accesses\""));
            CHECK(strstr(text, "!llvm.access.group"));
            CHECK(!strstr(text, "call ptr addrspace(4) @__kiln_ctx"));
            CHECK(!strstr(text, "call i64 @__kiln_local_id"));
        }
        if (i == 9) {
            CHECK(strstr(text, "x float>"));
            CHECK(!strstr(text, "\"target-cpu\"=\"x86-64\""));
        }
        free(text);
        remove(path);
    }
    remove(dir);
    return 0;
}

/* build(), or build_variant() when `variant` is not NULL. */
static enum kiln_cc_status build_any(const char *src, const char *options,
                                     const struct kiln_cc_variant *variant,
                                     struct kiln_cc_program **out, char **log)
{
    return variant ? cc->build_variant(src, options, variant, out, log)
                   : cc->build(src, options, out, log);
}

/* Builds with stdout and stderr redirected to a file; fails if anything was printed. */
static int build_quiet(const char *src, const char *options, const struct kiln_cc_variant *variant,
                       enum kiln_cc_status *status, char **log)
{
    struct kiln_cc_program *p = NULL;
    FILE *capture = tmpfile();
    CHECK(capture);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    CHECK(saved_out >= 0 && saved_err >= 0);
    dup2(fileno(capture), 1);
    dup2(fileno(capture), 2);
    *status = build_any(src, options, variant, &p, log);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    long printed = ftell(capture);
    fseek(capture, 0, SEEK_END);
    printed = ftell(capture);
    fclose(capture);
    if (p)
        cc->destroy(p);
    CHECK(*log);
    fprintf(stderr, "build status %d, log:\n%s\n", (int)*status, *log);
    CHECK(printed == 0);
    return 0;
}

/* Builds `src` (a variant, unless NULL); the status must be `want`, the log hold every needle. */
static int expect_variant_failure(const char *src, const char *options,
                                  const struct kiln_cc_variant *variant, enum kiln_cc_status want,
                                  const char *const *needles)
{
    enum kiln_cc_status status;
    char *log = NULL;
    if (build_quiet(src, options, variant, &status, &log))
        return 1;
    CHECK(status == want);
    for (; *needles; needles++) {
        if (!strstr(log, *needles)) {
            fprintf(stderr, "log lacks \"%s\"\n", *needles);
            free(log);
            return 1;
        }
    }
    free(log);
    return 0;
}

static int expect_failure(const char *src, const char *options, enum kiln_cc_status want,
                          const char *const *needles)
{
    return expect_variant_failure(src, options, NULL, want, needles);
}

/* A kernel that compiles cleanly leaves an empty build log, with and without barriers. */
static int test_clean_log(void)
{
    static const char *const srcs[] = {
        "kernel void k(global int *p) { p[get_global_id(0)] = 1; }\n",
        "kernel void k(global int *p, local int *t) {\n"
        "    t[get_local_id(0)] = p[get_global_id(0)];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    p[get_global_id(0)] = t[0];\n"
        "}\n",
    };
    for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
        struct kiln_cc_program *p = NULL;
        char *log = NULL;
        enum kiln_cc_status status = cc->build(srcs[i], "-cl-std=CL3.0", &p, &log);
        if (log && *log)
            fprintf(stderr, "build log of a clean kernel: %s\n", log);
        CHECK(status == KILN_CC_OK && log && *log == '\0');
        free(log);
        cc->destroy(p);
    }
    return 0;
}

static int test_syntax_error(void)
{
    static const char src[] = "kernel void k(global int *p)\n"
                              "{\n"
                              "    p[0] = 1 +;\n"
                              "}\n";
    static const char *const needles[] = {"program.cl:3:", "error: expected expression", NULL};
    return expect_failure(src, NULL, KILN_CC_BUILD_FAILED, needles);
}

/*
 * A kernel with a barrier builds into region loops that ask for scratch; the
 * other strategy builds too, an unknown one is refused with a log line.
 */
static int test_barrier_strategy(void)
{
    static const char src[] = "kernel void k(global int *p, local int *l)\n"
                              "{\n"
                              "    int keep = p[get_global_id(0)];\n"
                              "    l[get_local_id(0)] = 1;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    p[get_global_id(0)] = l[0] + keep;\n"
                              "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "k");
    /* keep and the next region's number, per work-item */
    CHECK(k && k->scratch_per_item >= 2 * sizeof(int));
    /*
     * Groups of 5 (the last of 3): the function stays inside the scratch size it
     * reported, and the values it kept across the barrier are per work-item.
     */
    enum { N = 13, LS = 5, GUARD = 256 };
    size_t bytes = k->scratch_fixed + k->scratch_per_item * LS;
    unsigned char *scratch =
        aligned_alloc(KILN_SCRATCH_ALIGN, (bytes + GUARD + KILN_SCRATCH_ALIGN - 1) /
                                              KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN);
    CHECK(scratch);
    memset(scratch + bytes, 0xa5, GUARD);
    static _Alignas(KILN_LOCAL_ALIGN) int arena[LS];
    int data[N];
    for (int i = 0; i < N; i++)
        data[i] = 100 * i;
    int *pd = data;
    size_t offset = 0;
    void *args[] = {&pd, &offset};
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = 1;
    c.local_mem = arena;
    c.scratch = scratch;
    c.scratch_size = bytes;
    c.global_size[0] = N;
    c.enqueued_local_size[0] = LS;
    c.num_groups[0] = (N + LS - 1) / LS;
    for (int d = 1; d < 3; d++)
        c.global_size[d] = c.enqueued_local_size[d] = c.local_size[d] = c.num_groups[d] = 1;
    for (size_t g = 0; g < c.num_groups[0]; g++) {
        c.group_id[0] = g;
        c.local_size[0] = N - g * LS < LS ? N - g * LS : LS;
        k->wg(args, &c);
    }
    for (int i = 0; i < N; i++)
        CHECK(data[i] == 100 * i + 1);
    for (size_t i = 0; i < GUARD; i++)
        CHECK(scratch[bytes + i] == 0xa5);
    free(scratch);
    cc->destroy(p);
    static const char *const bogus[] = {"KILN_BARRIER_STRATEGY='stacks'", NULL};
    setenv("KILN_BARRIER_STRATEGY", "fibers", 1);
    p = build_ok(src, NULL);
    CHECK(p);
    cc->destroy(p);
    setenv("KILN_BARRIER_STRATEGY", "stacks", 1);
    int bad = expect_failure(src, NULL, KILN_CC_BUILD_FAILED, bogus);
    unsetenv("KILN_BARRIER_STRATEGY");
    return bad;
}

/*
 * Builds `src` with KILN_DUMP_IR and returns the module after `stage` ("6-wrapped",
 * "9-optimized", ...), malloc()ed, or NULL when the build failed (its log on stderr). The
 * program and the log go to *out and *log_out; the dumped files are removed.
 */
static char *build_variant_dumped_ir(const char *src, const char *options,
                                     const struct kiln_cc_variant *variant, const char *stage,
                                     struct kiln_cc_program **out, char **log_out)
{
    char dir[] = "/tmp/kiln-cc-test-XXXXXX";
    char path[512], suffix[64];
    char *text = NULL;
    if (!mkdtemp(dir))
        return NULL;
    setenv("KILN_DUMP_IR", dir, 1);
    enum kiln_cc_status s = build_any(src, options, variant, out, log_out);
    unsetenv("KILN_DUMP_IR");
    snprintf(suffix, sizeof(suffix), "-%s.ll", stage);
    size_t slen = strlen(suffix);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        if (s == KILN_CC_OK && !text && len > slen && strcmp(e->d_name + len - slen, suffix) == 0)
            text = read_text(path);
        remove(path);
    }
    if (d)
        closedir(d);
    remove(dir);
    if (s != KILN_CC_OK)
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, *log_out ? *log_out : "(no log)");
    return text;
}

static char *build_dumped_ir(const char *src, const char *options, const char *stage,
                             struct kiln_cc_program **out, char **log_out)
{
    return build_variant_dumped_ir(src, options, NULL, stage, out, log_out);
}

/* The same, for a test that needs neither the program nor the log. */
static char *dumped_ir(const char *src, const char *options, const char *stage)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *text = build_dumped_ir(src, options, stage, &p, &log);
    if (p)
        cc->destroy(p);
    free(log);
    return text;
}

/*
 * The region transform gives each slot array its own alias scope: after O3 the
 * slot accesses still carry !alias.scope and the other accesses !noalias.
 */
static int test_barrier_scopes(void)
{
    static const char src[] = "kernel void k(global int *p, local int *l)\n"
                              "{\n"
                              "    int keep = p[get_global_id(0)];\n"
                              "    int more = keep * 3;\n"
                              "    l[get_local_id(0)] = 1;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    p[get_global_id(0)] = l[0] + keep + more;\n"
                              "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = dumped_ir(src, NULL, "9-optimized");
    CHECK(text);
    CHECK(strstr(text, "!alias.scope"));
    CHECK(strstr(text, "!noalias"));
    free(text);
    return 0;
}

/* Whether a line of `text` holds both `a` and `b`. */
static bool line_with(const char *text, const char *a, const char *b)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, a);
        if (hit && hit < line + len) {
            const char *other = strstr(line, b);
            if (other && other < line + len)
                return true;
        }
        line = end ? end + 1 : NULL;
    }
    return false;
}

/*
 * A barrier kernel's memory accesses as the work-item loops need them: the __constant load
 * is invariant.load (hoistable past the kernel's stores), the store through a generic
 * pointer made from a global one is a global store in the loops' access group, and the
 * collective's __kiln_group_leader() calls are gone.
 */
static int test_barrier_memory(void)
{
    static const char src[] =
        "kernel void k(global int *out, constant int *c, global const int *in)\n"
        "{\n"
        "    int s = work_group_reduce_add(in[get_global_id(0)]);\n"
        "    int *q = &out[get_global_id(0)];\n"
        "    *q = s + c[get_local_id(0) & 3];\n"
        "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = dumped_ir(src, "-cl-std=CL2.0", "9-optimized");
    CHECK(text);
    CHECK(line_with(text, "load i32, ptr addrspace(2)", "!invariant.load"));
    CHECK(line_with(text, "store i32", "ptr addrspace(1)"));
    CHECK(!line_with(text, "store i32", "ptr addrspace(4)"));
    CHECK(line_with(text, "store i32", "!llvm.access.group"));
    free(text);
    text = dumped_ir(src, "-cl-std=CL2.0", "6-wrapped");
    CHECK(text);
    CHECK(strstr(text, "call i32 @__kiln_group_leader") == NULL);
    free(text);
    return 0;
}

/*
 * reqd_work_group_size in a program whose groups are all full (OpenCL C 1.x) fixes the local
 * size: get_local_size() and get_enqueued_local_size() are the constant, in the barrier-free
 * loop and in the region transform's; with non-uniform groups allowed (CL2.0) they are read
 * from the group's ctx.
 */
static int test_fixed_local_size(void)
{
    static const char src[] =
        "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "kernel void k(global uint *p) { p[get_global_id(0)] = get_local_size(0) + 1000; }\n"
        "#if __OPENCL_C_VERSION__ >= 200\n"
        "#define ENQUEUED get_enqueued_local_size\n"
        "#else\n"
        "#define ENQUEUED get_local_size\n"
        "#endif\n"
        "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "kernel void b(global uint *p, local uint *t)\n"
        "{\n"
        "    t[get_local_id(0)] = ENQUEUED(0) + 2000;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    p[get_global_id(0)] = t[get_local_size(0) - 1 - get_local_id(0)];\n"
        "}\n";
    static const struct {
        const char *options;
        bool fixed;
    } builds[] = {
        {NULL, true},
        {"-cl-std=CL2.0 -cl-uniform-work-group-size", true},
        {"-cl-std=CL2.0", false},
    };
    unsetenv("KILN_BARRIER_STRATEGY");
    for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
        char *text = dumped_ir(src, builds[i].options, "9-optimized");
        CHECK(text);
        CHECK((strstr(text, "i32 1064") != NULL) == builds[i].fixed);
        CHECK((strstr(text, "i32 2064") != NULL) == builds[i].fixed);
        free(text);
    }
    return 0;
}

/*
 * A region only the first v work-items act in (`if (l < v)` between barriers) becomes a
 * loop over min(local size, v) work-items without the test (narrow_loops.c), so the
 * vectoriser needs no masked stores: right for v of 0, inside and beyond the group.
 */
static int test_narrow_loops(void)
{
    static const char src[] = "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
                              "kernel void tree(global int *out, local int *t, uint v)\n"
                              "{\n"
                              "    size_t l = get_local_id(0);\n"
                              "    t[l] = (int)l * 3;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    if (l < v)\n"
                              "        t[l] += (int)(63 - l) * 7 + 1000;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    out[get_global_id(0)] = t[l];\n"
                              "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = dumped_ir(src, NULL, "9-optimized");
    CHECK(text);
    CHECK(strstr(text, "llvm.masked.store") == NULL);
    free(text);

    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "tree");
    CHECK(k);
    enum { LS = 64, GROUPS = 3, N = LS * GROUPS };
    size_t bytes = k->scratch_fixed + k->scratch_per_item * LS + KILN_SCRATCH_ALIGN;
    unsigned char *scratch =
        aligned_alloc(KILN_SCRATCH_ALIGN,
                      (bytes + KILN_SCRATCH_ALIGN - 1) / KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN);
    CHECK(scratch);
    static _Alignas(KILN_LOCAL_ALIGN) int arena[LS];
    static const unsigned vs[] = {0, 1, 17, 63, 64, 100, 0xffffffffu};
    for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
        int out[N];
        memset(out, 0xff, sizeof(out));
        int *po = out;
        size_t local_offset = 0;
        unsigned v = vs[i];
        void *args[] = {&po, &local_offset, &v};
        struct kiln_wg_ctx c;
        memset(&c, 0, sizeof(c));
        c.work_dim = 1;
        c.local_mem = arena;
        c.scratch = scratch;
        c.scratch_size = bytes;
        c.global_size[0] = N;
        c.enqueued_local_size[0] = c.local_size[0] = LS;
        c.num_groups[0] = GROUPS;
        for (int d = 1; d < 3; d++)
            c.global_size[d] = c.enqueued_local_size[d] = c.local_size[d] = c.num_groups[d] = 1;
        for (size_t g = 0; g < GROUPS; g++) {
            c.group_id[0] = g;
            k->wg(args, &c);
        }
        for (int j = 0; j < N; j++) {
            int l = j % LS, want = 3 * l + ((unsigned)l < v ? 7 * (63 - l) + 1000 : 0);
            if (out[j] != want) {
                fprintf(stderr, "v %u: out[%d] is %d, expected %d\n", v, j, out[j], want);
                return 1;
            }
        }
    }
    free(scratch);
    cc->destroy(p);
    return 0;
}

/* With KILN_BARRIER_STRATEGY=fibers a barrier kernel runs on fibers; its __local variables
 * are laid out. */
static int test_barrier_fibers(void)
{
    static const char src[] = "kernel void k(global int *p)\n"
                              "{\n"
                              "    local char c;\n"
                              "    local int tmp[16];\n"
                              "    if (get_local_id(0) == 0) c = 1;\n"
                              "    tmp[get_local_id(0)] = 1;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    p[get_global_id(0)] = tmp[0] + c;\n"
                              "}\n"
                              "kernel void plain(global int *p) { p[get_global_id(0)] = 1; }\n";
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    setenv("KILN_BARRIER_STRATEGY", "fibers", 1);
    enum kiln_cc_status status = cc->build(src, NULL, &p, &log);
    unsetenv("KILN_BARRIER_STRATEGY");
    if (status != KILN_CC_OK)
        fprintf(stderr, "%s\n", log);
    free(log);
    CHECK(status == KILN_CC_OK);
    const struct kiln_cc_kernel *k = cc->kernel(p, 0), *plain = cc->kernel(p, 1);
    /* One variable at 0, the other at its alignment (Clang gives arrays 16) after it. */
    fprintf(stderr, "local_mem_static %zu\n", k->local_mem_static);
    CHECK(k->local_mem_static == 16 + 16 * 4 || k->local_mem_static == 16 * 4 + 1);
    CHECK(k->scratch_per_item >= 16384 && k->scratch_fixed > 0);
    CHECK(plain->local_mem_static == 0 && plain->scratch_per_item == 0);
    cc->destroy(p);
    return 0;
}

static int test_unsupported_refused(void)
{
    static const char image[] = "kernel void k(read_only image2d_t img, global int *p)\n"
                                "{\n"
                                "    p[0] = get_image_width(img);\n"
                                "}\n";
    static const char *const image_needles[] = {"image arguments are not supported", NULL};
    /* OpenCL C 3.0 kernels do not even see image types: the device reports no images. */
    static const char *const image_needles30[] = {"requires __opencl_c_images support", NULL};
    /* A function declared like a builtin that no library defines. */
    static const char undefined[] = "__attribute__((overloadable)) float nosuch(float);\n"
                                    "kernel void k(global float *p)\n"
                                    "{\n"
                                    "    p[get_global_id(0)] = nosuch(p[0]);\n"
                                    "}\n";
    static const char *const undefined_needles[] = {"undefined function 'nosuch' (_Z6nosuchf)",
                                                    NULL};
    static const char recursive_local[] = "kernel void k(global int *p, int d)\n"
                                          "{\n"
                                          "    local int t;\n"
                                          "    t = d;\n"
                                          "    if (d > 0)\n"
                                          "        k(p, d - 1);\n"
                                          "    p[0] = t;\n"
                                          "}\n";
    static const char *const recursive_needles[] = {
        "__local variable 'k.t' is used by a function that could not be inlined", NULL};
    /* On fibers the kernel's code sits in kiln.wi.k; the log still names k. */
    static const char undefined_fibers[] = "__attribute__((overloadable)) float nosuch(float);\n"
                                           "kernel void k(global float *p)\n"
                                           "{\n"
                                           "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
                                           "    p[get_global_id(0)] = nosuch(p[0]);\n"
                                           "}\n";
    static const char *const fibers_needles[] = {"kernel 'k' calls undefined function 'nosuch'",
                                                 NULL};
    /* A group function the kernel library does not define is refused by name. */
    static const char collective[] = "int __attribute__((overloadable)) sub_group_nosuch(int);\n"
                                     "kernel void k(global int *p)\n"
                                     "{\n"
                                     "    p[get_global_id(0)] = sub_group_nosuch(1);\n"
                                     "}\n";
    static const char *const collective_needles[] = {"calls sub_group_nosuch()", NULL};
    return expect_failure(image, "-cl-std=CL3.0", KILN_CC_BUILD_FAILED, image_needles30) ||
           expect_failure(image, "-cl-std=CL1.2", KILN_CC_BUILD_FAILED, image_needles) ||
           expect_failure(undefined, NULL, KILN_CC_BUILD_FAILED, undefined_needles) ||
           expect_failure(undefined_fibers, NULL, KILN_CC_BUILD_FAILED, fibers_needles) ||
           expect_failure(recursive_local, NULL, KILN_CC_BUILD_FAILED, recursive_needles) ||
           expect_failure(collective, "-cl-std=CL2.0", KILN_CC_BUILD_FAILED, collective_needles);
}

static int test_invalid_options(void)
{
    static const char src[] = "kernel void k(global int *p) { p[0] = 1; }\n";
    static const char *const unknown[] = {"unknown build option '-fno-such-thing'", NULL};
    static const char *const std[] = {"-cl-std=CL9.9", NULL};
    static const char *const missing[] = {"'-D' needs a value", NULL};
    return expect_failure(src, "-cl-mad-enable -fno-such-thing", KILN_CC_INVALID_OPTIONS,
                          unknown) ||
           expect_failure(src, "-cl-std=CL9.9", KILN_CC_INVALID_OPTIONS, std) ||
           expect_failure(src, "-w -D", KILN_CC_INVALID_OPTIONS, missing);
}

static int test_options(void)
{
    static const char src[] =
        "constant int table[3] = {1, 2, 3};\n"
        "global int counter = 40;\n"
        "kernel __attribute__((reqd_work_group_size(8, 1, 1))) void first(global int *p)\n"
        "{\n"
        "    p[get_global_id(0)] = VALUE + table[get_global_id(0) % 3] + counter;\n"
        "}\n"
        "kernel __attribute__((vec_type_hint(uint4))) void second(global int *p) { p[0] = 0; }\n";
    static const char *const option_sets[] = {
        "-DVALUE=5 -cl-std=CL3.0 -cl-fast-relaxed-math -cl-kernel-arg-info",
        "-D VALUE=5 -cl-opt-disable -cl-std=CL1.1 -Werror",
        "-D \"VALUE=(2 + 3)\" -cl-std=CL2.0 -cl-mad-enable -cl-no-signed-zeros "
        "-cl-denorms-are-zero -cl-finite-math-only -cl-unsafe-math-optimizations "
        "-cl-single-precision-constant -w",
    };
    for (size_t s = 0; s < sizeof(option_sets) / sizeof(option_sets[0]); s++) {
        const char *code = s != 2 ? src + strlen("constant int table[3] = {1, 2, 3};\n"
                                                 "global int counter = 40;\n")
                                  : src;
        char patched[1024];
        /* CL1.1 has no program-scope global variables, nor CL3.0 without the feature the
         * device does not report: use a constant there. */
        if (s != 2) {
            snprintf(patched, sizeof(patched), "%s%s",
                     "constant int table[3] = {1, 2, 3};\n#define counter 40\n", code);
            code = patched;
        }
        struct kiln_cc_program *p = build_ok(code, option_sets[s]);
        CHECK(p);
        CHECK(cc->num_kernels(p) == 2);
        const struct kiln_cc_kernel *k = cc->kernel(p, 0);
        CHECK(strcmp(k->name, "first") == 0 && strcmp(cc->kernel(p, 1)->name, "second") == 0);
        CHECK(cc->kernel(p, 2) == NULL);
        CHECK(k->reqd_work_group_size[0] == 8 && k->reqd_work_group_size[1] == 1);
        CHECK(strcmp(k->attributes, "reqd_work_group_size(8,1,1)") == 0);
        CHECK(strcmp(cc->kernel(p, 1)->attributes, "vec_type_hint(uint4)") == 0);
        int out[16];
        int *po = out;
        void *args[] = {&po};
        size_t off = 0, gs = 16, ls = 8;
        run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < 16; i++)
            CHECK(out[i] == 5 + 1 + i % 3 + 40);
        cc->destroy(p);
    }
    /* A program may hold helper functions and no kernel at all. */
    struct kiln_cc_program *p = build_ok("int helper(int x) { return x + 1; }\n", NULL);
    CHECK(p && cc->num_kernels(p) == 0 && cc->kernel(p, 0) == NULL);
    cc->destroy(p);
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
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    char *text = cc->assembly(p);
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
    cc->destroy(p);
    return 0;
}

/*
 * The integer, common and relational builtins are straight-line code: a kernel calling
 * their scalar forms still has its work-item loop vectorised, with the vector forms of
 * the intrinsics they use, and no library call is left.
 */
static int test_builtins_vectorise(void)
{
    static const char src[] =
        "kernel void ints(global int *a, global const int *b, global uint *c,\n"
        "                 global long *d, global const long *e)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    int x = a[i], y = b[i];\n"
        "    a[i] = popcount(x) + clz(y) + ctz(x) + rotate(x, y) + mul_hi(x, y) + add_sat(x, y)\n"
        "           + hadd(x, y) + rhadd(x, y) + mad_sat(x, y, x) + clamp(x, -5, 7) + max(x, y)\n"
        "           + min(x, y) + mad24(x, y, x) + mul24(x, y) + mad_hi(x, y, x);\n"
        "    c[i] = abs(x) + abs_diff(x, y) + sub_sat((uint)x, (uint)y)\n"
        "           + upsample((ushort)x, (ushort)y);\n"
        "    d[i] = mul_hi(d[i], e[i]) + mad_sat(d[i], e[i], (long)x);\n"
        "}\n"
        "kernel void fps(global float *a, global const float *b, global int *r)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x = a[i], y = b[i];\n"
        "    a[i] = clamp(x, 0.0f, 1.0f) + sign(x) + step(y, x) + smoothstep(0.0f, 1.0f, x)\n"
        "           + mix(x, y, 0.5f) + degrees(x) + radians(y) + select(x, y, isnan(x))\n"
        "           + bitselect(x, y, 1.0f);\n"
        "    r[i] = isnormal(x) + isless(x, y) + signbit(y) + isinf(x) + isfinite(y)\n"
        "           + islessgreater(x, y) + isunordered(x, y);\n"
        "}\n";
    static const char *const ints_ops[] = {"@llvm.ctpop.v", "@llvm.ctlz.v",     "@llvm.cttz.v",
                                           "@llvm.fshl.v",  "@llvm.sadd.sat.v", "@llvm.usub.sat.v",
                                           "@llvm.smax.v",  "@llvm.abs.v"};
    static const char *const fps_ops[] = {"@llvm.maxnum.v", "@llvm.minnum.v", "fcmp olt <",
                                          "x float>"};
    char dir[] = "/tmp/kiln-cc-test-XXXXXX";
    char path[128];
    CHECK(mkdtemp(dir));
    setenv("KILN_DUMP_IR", dir, 1);
    struct kiln_cc_program *p = build_ok(src, "-cl-std=CL3.0");
    unsetenv("KILN_DUMP_IR");
    CHECK(p);
    cc->destroy(p);
    snprintf(path, sizeof(path), "%s/kiln-0-9-optimized.ll", dir);
    char *text = read_text(path);
    CHECK(text);
    static const char *const wrappers[] = {"define void @kiln.wg.ints(",
                                           "define void @kiln.wg.fps("};
    for (size_t w = 0; w < 2; w++) {
        char *start = strstr(text, wrappers[w]);
        CHECK(start);
        char *end = strstr(start, "\n}\n");
        CHECK(end);
        *end = '\0';
        const char *const *ops = w == 0 ? ints_ops : fps_ops;
        size_t n =
            w == 0 ? sizeof(ints_ops) / sizeof(ints_ops[0]) : sizeof(fps_ops) / sizeof(fps_ops[0]);
        for (size_t o = 0; o < n; o++) {
            if (!strstr(start, ops[o]))
                fprintf(stderr, "%s has no %s\n", wrappers[w], ops[o]);
            CHECK(strstr(start, ops[o]));
        }
        CHECK(!strstr(start, "call i32 @_Z") && !strstr(start, "call float @_Z"));
        *end = '\n';
    }
    free(text);
    remove(path);
    static const char *const stages[] = {"0-frontend", "1-kernels",   "2-copies",
                                         "3-linked",   "4-divisions", "5-printf",
                                         "6-wrapped",  "7-locals",    "8-checked"};
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        snprintf(path, sizeof(path), "%s/kiln-0-%s.ll", dir, stages[i]);
        remove(path);
    }
    remove(dir);
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
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    char *text = cc->assembly(p);
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
    cc->destroy(p);
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

/* The text of work-group function `kernel` in `ir`, malloc()ed, or NULL. */
static char *wg_function(const char *ir, const char *kernel)
{
    char head[128];
    snprintf(head, sizeof(head), "define void @kiln.wg.%s(", kernel);
    const char *start = strstr(ir, head);
    const char *end = start ? strstr(start, "\n}\n") : NULL;
    return end ? strndup(start, (size_t)(end - start)) : NULL;
}

/* The widest "phi <N x TYPE>" in fn (a vector accumulator or induction), 0 if none. */
static unsigned widest_vector_phi(const char *fn, const char *type)
{
    unsigned widest = 0;
    char tail[32];
    snprintf(tail, sizeof(tail), " x %s>", type);
    for (const char *p = strstr(fn, "phi <"); p; p = strstr(p + 1, "phi <")) {
        char *rest;
        unsigned long n = strtoul(p + 5, &rest, 10);
        if (strncmp(rest, tail, strlen(tail)) == 0 && n > widest)
            widest = (unsigned)n;
    }
    return widest;
}

static size_t count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/*
 * Local-size variants (build_variant(), which the runtime calls): the named kernel alone is
 * built, with the local size a constant (its get_local_size() folds, as with
 * reqd_work_group_size) and, with a zero offset, its get_global_offset() and the offset in
 * get_global_id() folded to 0. The generic build of the same non-uniform (CL2.0) program has
 * none of these constants. The variants also run right on full groups, and malformed or
 * impossible requests fail; the old option spelling of a variant is an unknown option.
 */
static int test_variants(void)
{
    static const char src[] =
        "kernel void k(global uint *p) { p[get_global_id(0)] = get_local_size(0) + 1000; }\n"
        "kernel void o(global uint *p)\n"
        "{\n"
        "    p[get_global_id(0) - get_global_offset(0)] = get_global_offset(0) + 3000;\n"
        "}\n"
        "kernel void b(global uint *p, local uint *t)\n"
        "{\n"
        "    t[get_local_id(0)] = get_enqueued_local_size(0) + 2000;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    p[get_global_id(0)] = t[get_local_size(0) - 1 - get_local_id(0)];\n"
        "}\n";
    static const struct kiln_cc_variant k64 = {"k", {64, 1, 1}, false};
    static const struct kiln_cc_variant o16 = {"o", {16, 1, 1}, false};
    static const struct kiln_cc_variant o16z = {"o", {16, 1, 1}, true};
    static const struct kiln_cc_variant b32z = {"b", {32, 1, 1}, true};
    static const struct {
        const struct kiln_cc_variant *variant; /* NULL: the generic build of all three */
        bool local_fixed;                      /* "i32 1064" (k at 64) or "i32 2032" (b at 32) */
        bool offset_constant;                  /* "i32 3000": o's store with the offset folded */
    } builds[] = {
        {NULL, false, false}, {&k64, true, false},  {&o16, false, false},
        {&o16z, false, true}, {&b32z, true, false},
    };
    char *o_fn[3] = {NULL, NULL, NULL}; /* o's in the generic build, at offset any, zero */
    unsetenv("KILN_BARRIER_STRATEGY");
    for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
        struct kiln_cc_program *p = NULL;
        char *log = NULL;
        char *text = build_variant_dumped_ir(src, "-cl-std=CL2.0", builds[i].variant, "9-optimized",
                                             &p, &log);
        CHECK(text && p);
        const char *name = builds[i].variant ? builds[i].variant->kernel : NULL;
        CHECK(cc->num_kernels(p) == (name ? 1u : 3u));
        if (name)
            CHECK(strcmp(cc->kernel(p, 0)->name, name) == 0);
        const char *fixed = name && name[0] == 'b' ? "i32 2032" : "i32 1064";
        CHECK((strstr(text, fixed) != NULL) == builds[i].local_fixed);
        CHECK((strstr(text, "i32 3000") != NULL) == builds[i].offset_constant);
        CHECK((strstr(text, "define void @kiln.wg.o(") != NULL) == (!name || name[0] == 'o'));
        /* Full groups at the variant's size, a zero offset: the results match the generic. */
        uint32_t out[128];
        void *arg = out, *args[2] = {&arg, NULL};
        size_t zero[1] = {0}, global[1] = {128}, t_offset = 0;
        args[1] = &t_offset;
        static uint32_t arena[1024];
        const struct kiln_cc_kernel *kk = find_kernel(p, name ? name : "b");
        size_t local[1] = {name && name[0] == 'k' ? 64 : name && name[0] == 'o' ? 16 : 32};
        memset(out, 0, sizeof(out));
        run_ndrange(kk, args, 1, zero, global, local, arena);
        uint32_t want = kk->name[0] == 'k' ? 1064u : kk->name[0] == 'o' ? 3000u : 2032u;
        for (size_t j = 0; j < 128; j++)
            CHECK(out[j] == want);
        if (i < 4 && (!name || name[0] == 'o'))
            o_fn[i == 0 ? 0 : i - 1] = wg_function(text, "o");
        free(text);
        free(log);
        cc->destroy(p);
    }
    /*
     * The work-item loops of o: the generic function reads the group's size from ctx (at byte
     * 72, local_size[0]) for their bounds, a variant does not; the zero-offset variant loads
     * one value less from ctx than the other (global_offset[0]).
     */
    CHECK(o_fn[0] && o_fn[1] && o_fn[2]);
    CHECK(strstr(o_fn[0], "ptr %1, i64 72"));
    CHECK(!strstr(o_fn[1], "ptr %1, i64 72") && !strstr(o_fn[2], "ptr %1, i64 72"));
    CHECK(count_of(o_fn[2], "load i64") + 1 == count_of(o_fn[1], "load i64"));
    for (int i = 0; i < 3; i++)
        free(o_fn[i]);

    static const char *const malformed[] = {"error: malformed variant of kernel '", NULL};
    static const struct kiln_cc_variant bad[] = {
        {"k", {0, 1, 1}, true},     {"k", {64, 0, 1}, false},         {"k", {64, 1, 0}, false},
        {"", {64, 1, 1}, true},     {NULL, {64, 1, 1}, false},        {"k x", {64, 1, 1}, false},
        {"k", {65537, 1, 1}, true}, {"k", {(size_t)-1, 1, 1}, false},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (expect_variant_failure(src, "-cl-std=CL2.0", &bad[i], KILN_CC_INVALID_OPTIONS,
                                   malformed))
            return 1;
    static const char *const unknown[] = {"unknown build option '-kiln-variant=k:64,1,1:0'", NULL};
    if (expect_failure(src, "-cl-std=CL2.0 -kiln-variant=k:64,1,1:0", KILN_CC_INVALID_OPTIONS,
                       unknown))
        return 1;
    static const char *const missing[] = {"no kernel 'zz' to build a variant of", NULL};
    static const char globals[] = "global int count;\n"
                                  "kernel void g(global int *p) { p[0] = count++; }\n";
    static const char *const copy[] = {
        "no variant of kernel 'g': the program-scope variable 'count' would have a second copy",
        NULL};
    static const struct kiln_cc_variant zz = {"zz", {8, 1, 1}, false};
    static const struct kiln_cc_variant g8 = {"g", {8, 1, 1}, false};
    return expect_variant_failure(src, "-cl-std=CL2.0", &zz, KILN_CC_BUILD_FAILED, missing) ||
           expect_variant_failure(globals, "-cl-std=CL2.0", &g8, KILN_CC_BUILD_FAILED, copy);
}

#define NBODY_SOURCE                                                                               \
    "kernel void nbody(global const float4 *restrict pos, global float4 *restrict acc,\n"          \
    "                  int n, float eps2)\n"                                                       \
    "{\n"                                                                                          \
    "    size_t i = get_global_id(0);\n"                                                           \
    "    float4 p = pos[i];\n"                                                                     \
    "    float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"                                                 \
    "    for (int j = 0; j < n; j++) {\n"                                                          \
    "        float4 q = pos[j];\n"                                                                 \
    "        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;\n"                              \
    "        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);\n"                             \
    "        float s = q.w * inv * inv * inv;\n"                                                   \
    "        ax += dx * s;\n"                                                                      \
    "        ay += dy * s;\n"                                                                      \
    "        az += dz * s;\n"                                                                      \
    "    }\n"                                                                                      \
    "    acc[i] = (float4)(ax, ay, az, 0.0f);\n"                                                   \
    "}\n"

/*
 * The n-body kernel of tests/perf: its work-item loop holds a loop over all bodies
 * (the same trip count for every work-item). It is vectorised across work-items:
 * rsqrt (sqrt and a divide) and the accumulators' multiply-adds on vectors of at
 * least 4 lanes, the accumulators vector phis, and the inner loop's loads of one
 * body, the same for every lane, plain loads rather than gathers (the only gathers
 * left load each lane's own body, outside the inner loop). Results against a
 * double-precision sum, in groups that leave a remainder.
 */
static int test_outer_nbody(void)
{
    enum { N = 100 };
    static float pos[4 * N], acc[4 * N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = build_dumped_ir(NBODY_SOURCE, NULL, "9-optimized", &p, &log);
    CHECK(ir && p);
    CHECK(log && log[0] == '\0');
    free(log);
    char *fn = wg_function(ir, "nbody");
    CHECK(fn);
    unsigned lanes = widest_vector_phi(fn, "float");
    size_t gathers = count_of(fn, "@llvm.masked.gather");
    printf("kiln.wg.nbody: vector phis of %u floats, %zu gathers\n", lanes, gathers);
    CHECK(lanes >= 4);
    CHECK(strstr(fn, "@llvm.sqrt.v") && strstr(fn, "fdiv <"));
    CHECK(strstr(fn, "@llvm.fmuladd.v"));
    CHECK(gathers <= 4);
    free(fn);
    free(ir);

    const struct kiln_cc_kernel *k = find_kernel(p, "nbody");
    CHECK(k);
    unsigned s = 7;
    for (int i = 0; i < 4 * N; i++) {
        s = s * 1103515245u + 12345u;
        float u = (float)((s >> 8) & 0xffff) / 65536.0f;
        pos[i] = (i % 4 == 3) ? 0.5f + u : 10.0f * u - 5.0f;
    }
    int n = N;
    float eps2 = 0.01f, *pp = pos, *pa = acc;
    void *args[] = {&pp, &pa, &n, &eps2};
    static const size_t locals[] = {16, 13, 100};
    for (size_t l = 0; l < 3; l++) {
        memset(acc, 0xff, sizeof(acc));
        size_t off = 0, gs = N, ls = locals[l];
        run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double want[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
            for (int j = 0; j < N; j++) {
                double d[3] = {(double)pos[4 * j] - pos[4 * i],
                               (double)pos[4 * j + 1] - pos[4 * i + 1],
                               (double)pos[4 * j + 2] - pos[4 * i + 2]};
                double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                double f = pos[4 * j + 3] / (r2 * sqrt(r2));
                for (int c = 0; c < 3; c++) {
                    want[c] += d[c] * f;
                    mag[c] += fabs(d[c] * f);
                }
            }
            for (int c = 0; c < 3; c++)
                CHECK(fabs(acc[4 * i + c] - want[c]) <= 1e-4 * mag[c]);
            CHECK(acc[4 * i + 3] == 0.0f);
        }
    }
    cc->destroy(p);
    return 0;
}

/*
 * Work-item loops holding loops of every kind, against host references: a nested
 * loop nest with the same trip counts for every work-item calling math builtins
 * (vectorised across work-items), a double one (vectorised), a trip count that
 * differs per work-item, a loop left early by a break, a loop reading a private
 * array, a loop with a uniform trip count whose body branches on the data, and one
 * doing atomics (these five stay scalar across work-items). Each in groups of 16, 13 and 45
 * work-items (45 in all), and the build log stays empty: no missed-vectorisation warning.
 */
static int test_outer_loops(void)
{
    static const char src[] =
        "kernel void nest(global const float *a, global float *out, int n, int m)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float x = a[i], s = 0.0f;\n"
        "    int c = 0;\n"
        "    for (int j = 0; j < n; j++)\n"
        "        for (int k = 0; k < m; k++) {\n"
        "            float y = a[j] + (float)k;\n"
        "            s += fmin(sqrt(fabs(x - y) + 1.0f), 3.0f) + fma(x, y, 0.5f) * rsqrt(y * y + "
        "1.0f);\n"
        "            c += (int)(i ^ (size_t)j) & 3;\n"
        "        }\n"
        "    out[i] = s + (float)c;\n"
        "}\n"
        "kernel void dbl(global const double *a, global double *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    double s = 0.0;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        double d = a[j] - a[i];\n"
        "        s += d * rsqrt(d * d + 0.25);\n"
        "    }\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void varying(global const float *a, global float *out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float s = 0.0f;\n"
        "    for (size_t j = 0; j < i % 7; j++)\n"
        "        s += a[j] * a[i];\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void early(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    int j = 0;\n"
        "    for (; j < n; j++)\n"
        "        if (a[j] > a[i])\n"
        "            break;\n"
        "    out[i] = (float)j;\n"
        "}\n"
        "kernel void priv(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float t[8];\n"
        "    for (int k = 0; k < 8; k++)\n"
        "        t[k] = a[i] * (float)k;\n"
        "    float s = 0.0f;\n"
        "    for (int j = 0; j < n; j++)\n"
        "        s += t[(j + (int)i) % 8] * a[j];\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void branchy(global const float *a, global float *out, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    float s = 0.0f;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        if (a[j] > 0.0f)\n"
        "            s += exp(a[j] - a[i]);\n"
        "        else\n"
        "            s -= a[j];\n"
        "    }\n"
        "    out[i] = s;\n"
        "}\n"
        "kernel void atom(global const float *a, volatile global int *h, int n)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    for (int j = 0; j < n; j++)\n"
        "        atomic_add(&h[(int)(a[j] * 4.0f) & 7], (int)(i & 3));\n"
        "}\n";
    enum { N = 45, NJ = 23, MK = 5 };
    static int h[8];
    static float a[N], out[N];
    static double ad[N], outd[N];
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *ir = build_dumped_ir(src, NULL, "9-optimized", &p, &log);
    CHECK(ir && p);
    if (log && log[0])
        fprintf(stderr, "log: %s\n", log);
    CHECK(log && log[0] == '\0');
    free(log);
    static const char *const vectorised[] = {"nest", "dbl"};
    for (size_t v = 0; v < 2; v++) {
        char *fn = wg_function(ir, vectorised[v]);
        CHECK(fn);
        unsigned lanes = widest_vector_phi(fn, v == 0 ? "float" : "double");
        printf("kiln.wg.%s: vector phis of %u lanes\n", vectorised[v], lanes);
        CHECK(lanes >= 4);
        CHECK(strstr(fn, "@llvm.sqrt.v"));
        free(fn);
    }
    free(ir);

    for (int i = 0; i < N; i++) {
        a[i] = (float)((i * 37) % 19) * 0.25f - 2.0f;
        ad[i] = (double)a[i] * 1.5;
    }
    int n = NJ, m = MK;
    float *pa = a, *po = out;
    double *pad = ad, *pod = outd;
    static const size_t locals[] = {16, 13, 45};
    for (size_t l = 0; l < 3; l++) {
        size_t off = 0, gs = N, ls = locals[l];
        const struct kiln_cc_kernel *k = find_kernel(p, "nest");
        CHECK(k);
        void *args4[] = {&pa, &po, &n, &m};
        memset(out, 0xff, sizeof(out));
        run_ndrange(k, args4, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double s = 0.0, mag = 0.0;
            int c = 0;
            for (int j = 0; j < NJ; j++)
                for (int q = 0; q < MK; q++) {
                    double y = (double)a[j] + q;
                    double t = fmin(sqrt(fabs(a[i] - y) + 1.0), 3.0) +
                               ((double)a[i] * y + 0.5) / sqrt(y * y + 1.0);
                    s += t;
                    mag += fabs(t);
                    c += (i ^ j) & 3;
                }
            CHECK(fabs(out[i] - (s + c)) <= 1e-5 * (mag + c));
        }

        k = find_kernel(p, "dbl");
        CHECK(k);
        void *argsd[] = {&pad, &pod, &n};
        memset(outd, 0xff, sizeof(outd));
        run_ndrange(k, argsd, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < N; i++) {
            double s = 0.0, mag = 0.0;
            for (int j = 0; j < NJ; j++) {
                double d = ad[j] - ad[i];
                s += d / sqrt(d * d + 0.25);
                mag += fabs(d / sqrt(d * d + 0.25));
            }
            CHECK(fabs(outd[i] - s) <= 1e-12 * mag);
        }

        void *args2[] = {&pa, &po};
        void *args3[] = {&pa, &po, &n};
        static const char *const scalar[] = {"varying", "early", "priv", "branchy"};
        for (size_t sk = 0; sk < 4; sk++) {
            k = find_kernel(p, scalar[sk]);
            CHECK(k);
            memset(out, 0xff, sizeof(out));
            run_ndrange(k, sk == 0 ? args2 : args3, 1, &off, &gs, &ls, NULL);
            for (int i = 0; i < N; i++) {
                double want = 0.0, mag = 0.0;
                if (sk == 0) {
                    for (int j = 0; j < i % 7; j++) {
                        want += (double)a[j] * a[i];
                        mag += fabs((double)a[j] * a[i]);
                    }
                } else if (sk == 1) {
                    int j = 0;
                    while (j < NJ && !(a[j] > a[i]))
                        j++;
                    want = j;
                } else if (sk == 2) {
                    for (int j = 0; j < NJ; j++) {
                        double t = (double)a[i] * ((j + i) % 8) * a[j];
                        want += t;
                        mag += fabs(t);
                    }
                } else {
                    for (int j = 0; j < NJ; j++) {
                        double t = a[j] > 0.0f ? exp((double)a[j] - a[i]) : -(double)a[j];
                        want += t;
                        mag += fabs(t);
                    }
                }
                if (!(fabs(out[i] - want) <= 1e-5 * mag))
                    fprintf(stderr, "%s: item %d: got %.9g, expected %.9g\n", scalar[sk], i,
                            (double)out[i], want);
                CHECK(fabs(out[i] - want) <= 1e-5 * mag);
            }
        }

        k = find_kernel(p, "atom");
        CHECK(k);
        int *ph = h;
        void *argsa[] = {&pa, &ph, &n};
        memset(h, 0, sizeof(h));
        run_ndrange(k, argsa, 1, &off, &gs, &ls, NULL);
        int want[8] = {0};
        for (int i = 0; i < N; i++)
            for (int j = 0; j < NJ; j++)
                want[(int)(a[j] * 4.0f) & 7] += i & 3;
        for (int b = 0; b < 8; b++)
            CHECK(h[b] == want[b]);
    }
    cc->destroy(p);
    return 0;
}

/*
 * A copy into local memory followed by a copy out whose destination is known where the first
 * is made becomes __kiln_copy_in_ahead, which prefetches that destination for writing (the
 * copy stage, copy_ahead.c). A destination computed from a variable stored twice, and
 * -cl-opt-disable, leave the copy as it was.
 */
static int test_copy_ahead(void)
{
    static const char src[] =
        "kernel void k(global const int *in, global int *out, local int *t, int flip)\n"
        "{\n"
        "    size_t base = get_group_id(0) * get_local_size(0);\n"
        "#ifdef FLIP\n"
        "    if (flip)\n"
        "        base += get_local_size(0);\n"
        "#endif\n"
        "    event_t e = async_work_group_copy(t, in + base, get_local_size(0), 0);\n"
        "    wait_group_events(1, &e);\n"
        "    t[get_local_id(0)] += 1;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    e = async_work_group_copy(out + base, t, get_local_size(0), 0);\n"
        "    wait_group_events(1, &e);\n"
        "}\n";
    static const char copy_in[] = "call ptr @_Z21async_work_group_copyPU7CLlocal";
    static const char ahead[] = "call void @__kiln_copy_in_ahead(";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = dumped_ir(src, NULL, "2-copies");
    CHECK(text);
    CHECK(strstr(text, ahead));
    CHECK(!strstr(text, copy_in));
    free(text);
    text = dumped_ir(src, NULL, "9-optimized");
    CHECK(text);
    CHECK(line_with(text, "call void @llvm.prefetch", "i32 1, i32 3"));
    free(text);
    static const char *const kept[] = {"-DFLIP", "-cl-opt-disable"};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        text = dumped_ir(src, kept[i], "2-copies");
        CHECK(text);
        CHECK(strstr(text, copy_in));
        CHECK(!strstr(text, ahead));
        free(text);
    }
    return 0;
}

/*
 * A loop from the local id by the fixed local size, to a multiple of it, runs as often in
 * every work-item (strided_loops.c): it is unrolled and the work-item loop around it is
 * vectorised, so the stores to `out` are vector stores.
 */
static int test_strided_loops(void)
{
    static const char src[] =
        "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
        "kernel void k(global int *out, global const int *in)\n"
        "{\n"
        "    size_t base = get_group_id(0) * 512;\n"
        "    for (size_t i = get_local_id(0); i < 512; i += get_local_size(0))\n"
        "        out[base + i] = in[base + i] * 5 + 1;\n"
        "}\n";
    char *text = dumped_ir(src, NULL, "9-optimized");
    CHECK(text);
    CHECK(line_with(text, "store <", "ptr addrspace(1)"));
    free(text);
    return 0;
}

/*
 * A tile staged through local memory and read in a circle, r[i] = 3 t[i] + t[(i + 1) % 1024]:
 * the work-item loop is cut where the index wraps (wrap_split.c), so the arithmetic is vector
 * arithmetic.
 */
static int test_wrap_split(void)
{
    static const char src[] =
        "#define TILE 1024\n"
        "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\n"
        "void k(__global const uint *in, __global uint *out)\n"
        "{\n"
        "    __local uint t[TILE], r[TILE];\n"
        "    size_t base = get_group_id(0) * TILE;\n"
        "    event_t e = async_work_group_copy(t, in + base, TILE, 0);\n"
        "    wait_group_events(1, &e);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (size_t i = get_local_id(0); i < TILE; i += get_local_size(0))\n"
        "        r[i] = 3 * t[i] + t[(i + 1) % TILE];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    e = async_work_group_copy(out + base, r, TILE, 0);\n"
        "    wait_group_events(1, &e);\n"
        "}\n";
    unsetenv("KILN_BARRIER_STRATEGY");
    char *text = dumped_ir(src, NULL, "9-optimized");
    CHECK(text);
    CHECK(line_with(text, "= mul <", " x i32>"));
    free(text);
    return 0;
}

struct test {
    const char *name;
    int (*run)(void);
};

static const struct test tests[] = {
    {"vector_add", test_vector_add},
    {"saxpy", test_saxpy},
    {"two_d", test_two_d},
    {"local_ptr", test_local_ptr},
    {"struct_arg", test_struct_arg},
    {"work_dims", test_work_dims},
    {"math", test_math},
    {"syntax_error", test_syntax_error},
    {"clean_log", test_clean_log},
    {"barrier_strategy", test_barrier_strategy},
    {"barrier_scopes", test_barrier_scopes},
    {"barrier_fibers", test_barrier_fibers},
    {"barrier_memory", test_barrier_memory},
    {"fixed_local_size", test_fixed_local_size},
    {"variants", test_variants},
    {"narrow_loops", test_narrow_loops},
    {"unsupported_refused", test_unsupported_refused},
    {"invalid_options", test_invalid_options},
    {"options", test_options},
    {"vector_asm", test_vector_asm},
    {"math_vector_asm", test_math_vector_asm},
    {"math_misc_vector_asm", test_math_misc_vector_asm},
    {"threads", test_threads},
    {"dump_ir", test_dump_ir},
    {"builtins_vectorise", test_builtins_vectorise},
    {"outer_nbody", test_outer_nbody},
    {"outer_loops", test_outer_loops},
    {"copy_ahead", test_copy_ahead},
    {"strided_loops", test_strided_loops},
    {"wrap_split", test_wrap_split},
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBKILN_CC TEST\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    kiln_cc_interface_fn get = (kiln_cc_interface_fn)dlsym(lib, KILN_CC_INTERFACE_SYMBOL);
    if (!get) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    cc = get();
    if (cc->abi_version != KILN_CC_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, expected %u\n", cc->abi_version, KILN_CC_ABI_VERSION);
        return 1;
    }
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(argv[2], tests[i].name) == 0)
            return tests[i].run();
    fprintf(stderr, "no test named %s\n", argv[2]);
    return 2;
}
