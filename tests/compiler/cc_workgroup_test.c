/*
 * Compiler tests of the work-group stage: work-item loops, barriers (regions and fibers), __local
 * layout, fixed local sizes and variants (docs/compiler.md, "Stages").
 *
 * Usage: kiln-cc-workgroup-test LIBKILN_CC.so TEST (cc_harness.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "fill");
    CHECK(k);
    memset(out, 0xff, sizeof(out));
    int *po = out;
    void *args[] = {&po};
    size_t off[2] = {0, 0}, gs[2] = {W, H}, ls[2] = {8, 4};
    ct_run_ndrange(k, args, 2, off, gs, ls, NULL);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            CHECK(out[y * W + x] == y * 1000 + x + 100000 * H);
    ct_cc->destroy(p);
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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "slots");
    CHECK(k && k->num_args == 2);
    CHECK(k->args[1].kind == KILN_CC_ARG_LOCAL_PTR && k->args[1].addr_space == KILN_CC_AS_LOCAL);
    int *po = out;
    size_t offset = 2 * KILN_LOCAL_ALIGN; /* not at the start of the arena */
    void *args[] = {&po, &offset};
    size_t off = 0, gs = N, ls = LS;
    ct_run_ndrange(k, args, 1, &off, &gs, &ls, arena);
    for (int i = 0; i < N; i++) {
        int group_size = i / LS == N / LS ? N % LS : LS;
        CHECK(out[i] == 3 * i + group_size);
    }
    /* The last group wrote its slots where the offset says. */
    int slot;
    memcpy(&slot, arena + offset, sizeof(slot));
    CHECK(slot == 3 * (N / LS) * LS);
    ct_cc->destroy(p);
    return 0;
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
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = ct_find_kernel(p, "k");
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
    ct_cc->destroy(p);
    static const char *const bogus[] = {"KILN_BARRIER_STRATEGY='stacks'", NULL};
    setenv("KILN_BARRIER_STRATEGY", "fibers", 1);
    p = ct_build_ok(src, NULL);
    CHECK(p);
    ct_cc->destroy(p);
    setenv("KILN_BARRIER_STRATEGY", "stacks", 1);
    int bad = ct_expect_failure(src, NULL, KILN_CC_BUILD_FAILED, bogus);
    unsetenv("KILN_BARRIER_STRATEGY");
    return bad;
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
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    CHECK(strstr(text, "!alias.scope"));
    CHECK(strstr(text, "!noalias"));
    free(text);
    return 0;
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
    char *text = ct_dumped_ir(src, "-cl-std=CL2.0", "optimized");
    CHECK(text);
    CHECK(ct_line_with(text, "load i32, ptr addrspace(2)", "!invariant.load"));
    CHECK(ct_line_with(text, "store i32", "ptr addrspace(1)"));
    CHECK(!ct_line_with(text, "store i32", "ptr addrspace(4)"));
    CHECK(ct_line_with(text, "store i32", "!llvm.access.group"));
    free(text);
    text = ct_dumped_ir(src, "-cl-std=CL2.0", "wrapped");
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
        char *text = ct_dumped_ir(src, builds[i].options, "optimized");
        CHECK(text);
        CHECK((strstr(text, "i32 1064") != NULL) == builds[i].fixed);
        CHECK((strstr(text, "i32 2064") != NULL) == builds[i].fixed);
        free(text);
    }
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
    enum kiln_cc_status status = ct_cc->build(src, NULL, &p, &log);
    unsetenv("KILN_BARRIER_STRATEGY");
    if (status != KILN_CC_OK)
        fprintf(stderr, "%s\n", log);
    free(log);
    CHECK(status == KILN_CC_OK);
    const struct kiln_cc_kernel *k = ct_cc->kernel(p, 0), *plain = ct_cc->kernel(p, 1);
    /* One variable at 0, the other at its alignment (Clang gives arrays 16) after it. */
    fprintf(stderr, "local_mem_static %zu\n", k->local_mem_static);
    CHECK(k->local_mem_static == 16 + 16 * 4 || k->local_mem_static == 16 * 4 + 1);
    CHECK(k->scratch_per_item >= 16384 && k->scratch_fixed > 0);
    CHECK(plain->local_mem_static == 0 && plain->scratch_per_item == 0);
    ct_cc->destroy(p);
    return 0;
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
    static const struct kiln_cc_variant k64 = {"k", {64, 1, 1}, false, 0, {{0}}};
    static const struct kiln_cc_variant o16 = {"o", {16, 1, 1}, false, 0, {{0}}};
    static const struct kiln_cc_variant o16z = {"o", {16, 1, 1}, true, 0, {{0}}};
    static const struct kiln_cc_variant b32z = {"b", {32, 1, 1}, true, 0, {{0}}};
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
        char *text = ct_build_variant_dumped_ir(src, "-cl-std=CL2.0", builds[i].variant,
                                                "optimized", &p, &log);
        CHECK(text && p);
        const char *name = builds[i].variant ? builds[i].variant->kernel : NULL;
        CHECK(ct_cc->num_kernels(p) == (name ? 1u : 3u));
        if (name)
            CHECK(strcmp(ct_cc->kernel(p, 0)->name, name) == 0);
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
        const struct kiln_cc_kernel *kk = ct_find_kernel(p, name ? name : "b");
        size_t local[1] = {name && name[0] == 'k' ? 64 : name && name[0] == 'o' ? 16 : 32};
        memset(out, 0, sizeof(out));
        ct_run_ndrange(kk, args, 1, zero, global, local, arena);
        uint32_t want = kk->name[0] == 'k' ? 1064u : kk->name[0] == 'o' ? 3000u : 2032u;
        for (size_t j = 0; j < 128; j++)
            CHECK(out[j] == want);
        if (i < 4 && (!name || name[0] == 'o'))
            o_fn[i == 0 ? 0 : i - 1] = ct_wg_function(text, "o");
        free(text);
        free(log);
        ct_cc->destroy(p);
    }
    /*
     * The work-item loops of o: the generic function reads the group's size from ctx (at byte
     * 72, local_size[0]) for their bounds, a variant does not; the zero-offset variant loads
     * one value less from ctx than the other (global_offset[0]).
     */
    CHECK(o_fn[0] && o_fn[1] && o_fn[2]);
    CHECK(strstr(o_fn[0], "ptr %1, i64 72"));
    CHECK(!strstr(o_fn[1], "ptr %1, i64 72") && !strstr(o_fn[2], "ptr %1, i64 72"));
    CHECK(ct_count_of(o_fn[2], "load i64") + 1 == ct_count_of(o_fn[1], "load i64"));
    for (int i = 0; i < 3; i++)
        free(o_fn[i]);

    static const char *const malformed[] = {"error: malformed variant of kernel '", NULL};
    static const struct kiln_cc_variant bad[] = {
        {"k", {0, 1, 1}, true, 0, {{0}}},     {"k", {64, 0, 1}, false, 0, {{0}}},
        {"k", {64, 1, 0}, false, 0, {{0}}},   {"", {64, 1, 1}, true, 0, {{0}}},
        {NULL, {64, 1, 1}, false, 0, {{0}}},  {"k x", {64, 1, 1}, false, 0, {{0}}},
        {"k", {65537, 1, 1}, true, 0, {{0}}}, {"k", {(size_t)-1, 1, 1}, false, 0, {{0}}},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (ct_expect_variant_failure(src, "-cl-std=CL2.0", &bad[i], KILN_CC_INVALID_OPTIONS,
                                      malformed))
            return 1;
    static const char *const unknown[] = {"unknown build option '-kiln-variant=k:64,1,1:0'", NULL};
    if (ct_expect_failure(src, "-cl-std=CL2.0 -kiln-variant=k:64,1,1:0", KILN_CC_INVALID_OPTIONS,
                          unknown))
        return 1;
    static const char *const missing[] = {"no kernel 'zz' to build a variant of", NULL};
    static const char globals[] = "global int count;\n"
                                  "kernel void g(global int *p) { p[0] = count++; }\n";
    static const char *const copy[] = {
        "no variant of kernel 'g': the program-scope variable 'count' would have a second copy",
        NULL};
    static const struct kiln_cc_variant zz = {"zz", {8, 1, 1}, false, 0, {{0}}};
    static const struct kiln_cc_variant g8 = {"g", {8, 1, 1}, false, 0, {{0}}};
    return ct_expect_variant_failure(src, "-cl-std=CL2.0", &zz, KILN_CC_BUILD_FAILED, missing) ||
           ct_expect_variant_failure(globals, "-cl-std=CL2.0", &g8, KILN_CC_BUILD_FAILED, copy);
}

const struct ct_test ct_tests[] = {
    {"two_d", test_two_d},
    {"local_ptr", test_local_ptr},
    {"barrier_strategy", test_barrier_strategy},
    {"barrier_scopes", test_barrier_scopes},
    {"barrier_fibers", test_barrier_fibers},
    {"barrier_memory", test_barrier_memory},
    {"fixed_local_size", test_fixed_local_size},
    {"variants", test_variants},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
