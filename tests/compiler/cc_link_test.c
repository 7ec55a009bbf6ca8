/*
 * Compiler tests of the kernel library linked in, and the copy stage before it (docs/compiler.md,
 * "Stages").
 *
 * Usage: kiln-cc-link-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

#include <math.h>

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
    struct kiln_cc_program *p = ct_build_ok(src, "-cl-std=CL2.0");
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "dims");
    CHECK(k);
    unsigned long *po = out;
    for (unsigned d = 0; d < 5; d++) {
        unsigned dd = d == 4 ? 9 : d;
        memset(out, 0xee, sizeof(out));
        void *args[] = {&po, &dd};
        size_t off[2] = {3, 10}, gs[2] = {W, H}, ls[2] = {4, 2};
        ct_run_ndrange(k, args, 2, off, gs, ls, NULL);
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
    ct_cc->destroy(p);
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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "m");
    CHECK(k);
    for (int i = 0; i < N * 4; i++)
        a[i] = (float)(i - 17) * 0.25f;
    float *pa = a, *po = out;
    double *pd = dout;
    void *args[] = {&pa, &po, &pd};
    size_t off = 0, gs = N, ls = 4;
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
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
    ct_cc->destroy(p);
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
    char *text = ct_dumped_ir(src, NULL, "copies");
    CHECK(text);
    CHECK(strstr(text, ahead));
    CHECK(!strstr(text, copy_in));
    free(text);
    text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(ct_line_with(text, "call void @llvm.prefetch", "i32 1, i32 3"));
    free(text);
    static const char *const kept[] = {"-DFLIP", "-cl-opt-disable"};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        text = ct_dumped_ir(src, kept[i], "copies");
        CHECK(text);
        CHECK(strstr(text, copy_in));
        CHECK(!strstr(text, ahead));
        free(text);
    }
    return 0;
}

/*
 * The group function's packets move as whole vectors in a variant of a fixed local size, as
 * the runtime builds for the size it chooses: plain vector loads and stores, not masked ones.
 * They did not while a group without a reservation made its one-packet calls (atomics) in the
 * same stretch between barriers: the work-item loop then reloaded the reservation for every
 * work-item and stayed scalar.
 */
static int pipe_group_vectors(void)
{
    static const char src[] = "kernel void w(global const uint *in, write_only pipe uint p)\n"
                              "{ write_pipe(p, &in[get_global_id(0)]); }\n"
                              "kernel void r(read_only pipe uint p, global uint *out)\n"
                              "{ read_pipe(p, &out[get_global_id(0)]); }\n";
    static const char *const kernels[] = {"w", "r"};
    for (size_t i = 0; i < 2; i++) {
        struct kiln_cc_variant v = {kernels[i], {4096, 1, 1}, true, 0, {{0}}};
        struct kiln_cc_program *p = NULL;
        char *log = NULL;
        char *ir = ct_build_variant_dumped_ir(src, "-cl-std=CL2.0", &v, "optimized", &p, &log);
        char *fn = ir ? ct_wg_function(ir, kernels[i]) : NULL;
        bool ok = fn && ct_line_with(fn, "load <", " x i32>, ptr addrspace(1)") &&
                  ct_line_with(fn, "store <", " x i32> ");
        if (!ok)
            fprintf(stderr,
                    "pipe_groups: the %s variant of kernel %s moves no packet as a vector\n",
                    fn ? "4096x1x1" : "(missing)", kernels[i]);
        free(fn);
        free(ir);
        free(log);
        if (p)
            ct_cc->destroy(p);
        if (!ok)
            return 1;
    }
    return 0;
}

/*
 * A read_pipe or write_pipe without a reservation that every work-item makes once, in a kernel
 * where nothing waits, becomes the library's group function (pipe_groups.c); each -D below
 * breaks one condition and keeps the one-packet call.
 */
static int test_pipe_groups(void)
{
    static const char src[] =
        "#if defined(HELPER)\n"
        "int put(write_only pipe int p, int v) { return write_pipe(p, &v); }\n"
        "#endif\n"
        "kernel void w(global const int *in, write_only pipe int p, global int *st, uint n,\n"
        "              global int *c)\n"
        "{\n"
        "    size_t g = get_global_id(0);\n"
        "    int s = 0;\n"
        "#if defined(GUARDED)\n"
        "    if (g < n)\n"
        "#elif defined(RETURNS)\n"
        "    if (g >= n)\n"
        "        return;\n"
        "#elif defined(LOOPED)\n"
        "    for (uint i = 0; i < n; i++)\n"
        "#endif\n"
        "#if defined(HELPER)\n"
        "        s = put(p, in[g]);\n"
        "#else\n"
        "        s = write_pipe(p, &in[g]);\n"
        "#endif\n"
        "#if defined(TWICE)\n"
        "    s += write_pipe(p, &in[g + 1]);\n"
        "#elif defined(ATOMIC)\n"
        "    atomic_inc(c);\n"
        "#elif defined(BARRIER)\n"
        "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
        "#elif defined(VOLATILE)\n"
        "    while (*(volatile global int *)c == 0)\n"
        "        ;\n"
        "#endif\n"
        "    st[g] = s + (int)sqrt((float)g);\n"
        "}\n"
        "kernel void r(read_only pipe int p, global int *out, global int *st)\n"
        "{\n"
        "    int v = 0;\n"
        "    int s = read_pipe(p, &v);\n"
        "    out[get_global_id(0)] = v;\n"
        "    st[get_global_id(0)] = s;\n"
        "}\n";
    static const char write_one[] = "call i32 @__write_pipe_2(";
    static const char write_group[] = "call i32 @__kiln_write_pipe_group(";
    char *text = ct_dumped_ir(src, "-cl-std=CL2.0", "linked");
    CHECK(text);
    CHECK(strstr(text, write_group));
    CHECK(strstr(text, "call i32 @__kiln_read_pipe_group("));
    CHECK(!strstr(text, write_one));
    CHECK(!strstr(text, "call i32 @__read_pipe_2("));
    free(text);
    static const char *const kept[] = {
        "-cl-std=CL2.0 -DGUARDED", "-cl-std=CL2.0 -DRETURNS",  "-cl-std=CL2.0 -DLOOPED",
        "-cl-std=CL2.0 -DHELPER",  "-cl-std=CL2.0 -DTWICE",    "-cl-std=CL2.0 -DATOMIC",
        "-cl-std=CL2.0 -DBARRIER", "-cl-std=CL2.0 -DVOLATILE", "-cl-std=CL2.0 -cl-opt-disable",
    };
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        text = ct_dumped_ir(src, kept[i], "linked");
        CHECK(text);
        if (!strstr(text, write_one) || strstr(text, write_group)) {
            fprintf(stderr, "pipe_groups: %s: the write was rewritten\n", kept[i]);
            free(text);
            return 1;
        }
        free(text);
    }
    return pipe_group_vectors();
}

const struct ct_test ct_tests[] = {
    {"math", test_math},
    {"work_dims", test_work_dims},
    {"copy_ahead", test_copy_ahead},
    {"pipe_groups", test_pipe_groups},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
