/*
 * Compiler tests of front end, options, kernel descriptions and refusals (docs/compiler.md,
 * "Stages").
 *
 * Usage: kiln-cc-frontend-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "vadd");
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
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N + OFF; i++)
        CHECK(c[i] == (i < OFF ? -1.0f : 3.0f * (float)i));
    ct_cc->destroy(p);
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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "use");
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
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N; i++)
        CHECK(out[i] == 0.5f * (float)i + 7.0f + 100.0f + 1000.0f);
    ct_cc->destroy(p);
    return 0;
}

/*
 * KILN_DUMP_IR writes every stage, numbered in the order they run; the wrapper stage marks the
 * x loop parallel, and the optimised module is vectorised for the host CPU.
 */
static int test_dump_ir(void)
{
    static const char *const stages[] = {"frontend", "kernels", "copies", "linked",  "divisions",
                                         "printf",   "wrapped", "locals", "checked", "optimized"};
    char dir[4096];
    int previous = -1;
    CHECK(ct_temp_dir(dir, sizeof(dir)));
    setenv("KILN_DUMP_IR", dir, 1);
    int failed = test_vector_add();
    unsetenv("KILN_DUMP_IR");
    CHECK(!failed);
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        int number = -1;
        char *text = ct_dump_read(dir, stages[i], &number);
        if (!text)
            fprintf(stderr, "no dump of stage %s\n", stages[i]);
        CHECK(text);
        CHECK(number > previous);
        previous = number;
        if (strcmp(stages[i], "wrapped") == 0) {
            CHECK(strstr(text, "define void @kiln.wg.vadd(ptr noalias"));
            CHECK(strstr(text, "!\"llvm.loop.parallel_accesses\""));
            CHECK(strstr(text, "!llvm.access.group"));
            CHECK(!strstr(text, "call ptr addrspace(4) @__kiln_ctx"));
            CHECK(!strstr(text, "call i64 @__kiln_local_id"));
        }
        if (strcmp(stages[i], "optimized") == 0) {
            CHECK(strstr(text, "x float>"));
            CHECK(!strstr(text, "\"target-cpu\"=\"x86-64\""));
        }
        free(text);
    }
    ct_dump_dir_remove(dir);
    return 0;
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
        enum kiln_cc_status status = ct_cc->build(srcs[i], "-cl-std=CL3.0", &p, &log);
        if (log && *log)
            fprintf(stderr, "build log of a clean kernel: %s\n", log);
        CHECK(status == KILN_CC_OK && log && *log == '\0');
        free(log);
        ct_cc->destroy(p);
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
    return ct_expect_failure(src, NULL, KILN_CC_BUILD_FAILED, needles);
}

static int test_unsupported_refused(void)
{
    static const char image[] = "kernel void k(read_only image2d_t img, global int *p)\n"
                                "{\n"
                                "    p[0] = get_image_width(img);\n"
                                "}\n";
    static const char *const image_needles[] = {"the device does not support images", NULL};
    /* Run under KILN_IMAGES=0 (tests/compiler/CMakeLists.txt): OpenCL C 3.0 kernels do not
     * even see image types when the device reports no images. */
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
    return ct_expect_failure(image, "-cl-std=CL3.0", KILN_CC_BUILD_FAILED, image_needles30) ||
           ct_expect_failure(image, "-cl-std=CL1.2", KILN_CC_BUILD_FAILED, image_needles) ||
           ct_expect_failure(undefined, NULL, KILN_CC_BUILD_FAILED, undefined_needles) ||
           ct_expect_failure(undefined_fibers, NULL, KILN_CC_BUILD_FAILED, fibers_needles) ||
           ct_expect_failure(recursive_local, NULL, KILN_CC_BUILD_FAILED, recursive_needles) ||
           ct_expect_failure(collective, "-cl-std=CL2.0", KILN_CC_BUILD_FAILED, collective_needles);
}

static int test_invalid_options(void)
{
    static const char src[] = "kernel void k(global int *p) { p[0] = 1; }\n";
    static const char *const unknown[] = {"unknown build option '-fno-such-thing'", NULL};
    static const char *const std[] = {"-cl-std=CL9.9", NULL};
    static const char *const missing[] = {"'-D' needs a value", NULL};
    return ct_expect_failure(src, "-cl-mad-enable -fno-such-thing", KILN_CC_INVALID_OPTIONS,
                             unknown) ||
           ct_expect_failure(src, "-cl-std=CL9.9", KILN_CC_INVALID_OPTIONS, std) ||
           ct_expect_failure(src, "-w -D", KILN_CC_INVALID_OPTIONS, missing);
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
        struct kiln_cc_program *p = ct_build_ok(code, option_sets[s]);
        CHECK(p);
        CHECK(ct_cc->num_kernels(p) == 2);
        const struct kiln_cc_kernel *k = ct_cc->kernel(p, 0);
        CHECK(strcmp(k->name, "first") == 0 && strcmp(ct_cc->kernel(p, 1)->name, "second") == 0);
        CHECK(ct_cc->kernel(p, 2) == NULL);
        CHECK(k->reqd_work_group_size[0] == 8 && k->reqd_work_group_size[1] == 1);
        CHECK(strcmp(k->attributes, "reqd_work_group_size(8,1,1)") == 0);
        CHECK(strcmp(ct_cc->kernel(p, 1)->attributes, "vec_type_hint(uint4)") == 0);
        int out[16];
        int *po = out;
        void *args[] = {&po};
        size_t off = 0, gs = 16, ls = 8;
        ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        for (int i = 0; i < 16; i++)
            CHECK(out[i] == 5 + 1 + i % 3 + 40);
        ct_cc->destroy(p);
    }
    /* A program may hold helper functions and no kernel at all. */
    struct kiln_cc_program *p = ct_build_ok("int helper(int x) { return x + 1; }\n", NULL);
    CHECK(p && ct_cc->num_kernels(p) == 0 && ct_cc->kernel(p, 0) == NULL);
    ct_cc->destroy(p);
    return 0;
}

/*
 * Only the image types are images: a kernel's own type whose name starts with "image" (the
 * CTS's image_kernel_data) is a plain pointer argument, built while the device reports no
 * images; and an image2d_t beside it is still refused.
 */
static int test_image_named_type(void)
{
    static const char src[] = "typedef struct { int width; } image_kernel_data;\n"
                              "kernel void k(global image_kernel_data *out)\n"
                              "{\n"
                              "    out->width = 7;\n"
                              "}\n";
    struct kiln_cc_program *p = ct_build_ok(src, "-cl-std=CL1.2");
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "k");
    CHECK(k && k->num_args == 1 && k->args[0].kind == KILN_CC_ARG_GLOBAL_PTR);
    int data = 0, *pd = &data;
    void *args[] = {&pd};
    size_t off = 0, one = 1;
    ct_run_ndrange(k, args, 1, &off, &one, &one, NULL);
    CHECK(data == 7);
    ct_cc->destroy(p);
    return 0;
}

const struct ct_test ct_tests[] = {
    {"vector_add", test_vector_add},
    {"dump_ir", test_dump_ir},
    {"syntax_error", test_syntax_error},
    {"clean_log", test_clean_log},
    {"invalid_options", test_invalid_options},
    {"options", test_options},
    {"struct_arg", test_struct_arg},
    {"unsupported_refused", test_unsupported_refused},
    {"image_named_type", test_image_named_type},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
