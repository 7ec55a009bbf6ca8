/*
 * Device-side enqueue from kernels (OpenCL C 2.0 and 3.0, __opencl_c_device_enqueue): each
 * builtin and flag, checked against what the host computes. Children of a parent, a
 * recursive tree ten levels deep, 10^5 children of one parent, WAIT_KERNEL and
 * WAIT_WORK_GROUP ordering, events between children, markers, a user event set by another
 * child, a failed user event failing the host's event (also from under a NO_WAIT child),
 * children the device may run inline with flags of their own, inline children beside a
 * parent's __local memory and collectives, blocks with __local arguments and a
 * barrier, 2D and 3D ranges with offsets, the kernel queries, profiling, and a device queue
 * filled to its limit (an error, no hang). Skipped under KILN_DEVICE_ENQUEUE=0.
 */
#include "kiln_test.h"

#include <stdbool.h>
#include <stdint.h>

static const char *options = "-cl-std=CL2.0";

static cl_command_queue device_queue(struct kt_env *env, cl_uint size, bool is_default)
{
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                       (is_default ? CL_QUEUE_ON_DEVICE_DEFAULT : 0),
                                   CL_QUEUE_SIZE, size, 0};
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
    KT_REQUIRE(err == CL_SUCCESS, "device queue of %u bytes: %d", size, err);
    return q;
}

/* Runs `name` over `global` items with a buffer of `n` ints (in and out) and an int `arg`. */
static cl_int run(struct kt_env *env, cl_program p, const char *name, size_t global, size_t local,
                  int *data, size_t n, int arg)
{
    struct kt_arg args[] = {{KT_INOUT, n * sizeof(int), data}, {KT_VALUE, sizeof(arg), &arg}};
    return kt_run_in(env, p, name, global, local, 2, args);
}

static const char *src_children =
    "kernel void children(global int *out, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int v = (int)i * 10;\n"
    "  int r = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4),\n"
    "                         ^{ out[i * 4 + get_global_id(0)] = v + (int)get_global_id(0); });\n"
    "  if (r != CLK_SUCCESS) out[i * 4] = -1000 + r;\n"
    "}\n"
    /* Each level adds one per work-item, then two children go a level deeper. */
    "void level(global atomic_int *count, global int *depths, int depth) {\n"
    "  atomic_fetch_add_explicit(count, 1, memory_order_relaxed);\n"
    "  atomic_fetch_add_explicit((global atomic_int *)&depths[depth], 1,\n"
    "                            memory_order_relaxed);\n"
    "  if (depth > 0 && get_global_id(0) == 0)\n"
    "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(2),\n"
    "                   ^{ level(count, depths, depth - 1); });\n"
    "}\n"
    "kernel void tree(global int *out, int depth) {\n"
    "  level((global atomic_int *)out, out + 1, depth);\n"
    "}\n"
    /* Every work-item writes after its enqueue: a WAIT_KERNEL child sees all of it. */
    "kernel void wait_kernel(global int *out, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i == 0)\n"
    "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(1), ^{\n"
    "      int sum = 0;\n"
    "      for (int j = 1; j < n; j++) sum += out[j];\n"
    "      out[0] = sum;\n"
    "    });\n"
    "  for (volatile int spin = 0; spin < 1000; spin++) ;\n"
    "  if (i > 0) out[i] = (int)i;\n"
    "}\n"
    /* The group's work-items write after work-item 0's enqueue: WAIT_WORK_GROUP sees it. */
    "kernel void wait_group(global int *out, int n) {\n"
    "  size_t g = get_group_id(0), l = get_local_id(0), ls = get_local_size(0);\n"
    "  global int *mine = out + g * (ls + 1);\n"
    "  if (l == 0)\n"
    "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(1),\n"
    "                   ^{ int s = 0; for (size_t j = 1; j <= ls; j++) s += mine[j];\n"
    "                      mine[0] = s; });\n"
    "  mine[l + 1] = (int)l + 1;\n"
    "}\n"
    /* Many children, each adding its index to one counter. */
    "kernel void many(global int *out, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int r = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
    "      ^{ atomic_fetch_add_explicit((global atomic_int *)out, (int)i & 7,\n"
    "                                   memory_order_relaxed); });\n"
    "  if (r != CLK_SUCCESS) atomic_fetch_add_explicit((global atomic_int *)&out[1], 1,\n"
    "                                                 memory_order_relaxed);\n"
    "}\n"
    /* Events: b waits for a's event and sees a's stores; a marker waits for both; c waits
     * for a user event that b sets. */
    "kernel void events(global int *out, int n) {\n"
    "  queue_t q = get_default_queue();\n"
    "  clk_event_t a, b, m, u = create_user_event();\n"
    "  out[10] = is_valid_event(u);\n"
    "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, NULL, &a,\n"
    "                 ^{ for (volatile int s = 0; s < 20000; s++) ; out[0] = 11; });\n"
    "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &a, &b,\n"
    "                 ^{ out[1] = out[0] + 1; set_user_event_status(u, CL_COMPLETE); });\n"
    "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u, NULL,\n"
    "                 ^{ out[2] = out[1] + 1; });\n"
    "  clk_event_t both[2] = {a, b};\n"
    "  out[11] = enqueue_marker(q, 2, both, &m);\n"
    "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &m, NULL,\n"
    "                 ^{ out[3] = out[0] + out[1]; });\n"
    "  retain_event(a);\n"
    "  release_event(a);\n"
    "  release_event(a);\n"
    "  release_event(b);\n"
    "  release_event(m);\n"
    "  release_event(u);\n"
    "  out[12] = is_valid_event(CLK_NULL_EVENT);\n"
    "}\n"
    /* A block with two __local arguments and a barrier: a group sum through local memory. */
    "kernel void locals(global int *out, int n) {\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(64, 16),\n"
    "    ^(local void *a, local void *b) {\n"
    "      local int *t = a;\n"
    "      size_t l = get_local_id(0);\n"
    "      t[l] = (int)get_global_id(0);\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      if (l == 0) { int s = 0; for (int j = 0; j < 16; j++) s += t[j];\n"
    "                    ((local int *)b)[0] = s; }\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      out[get_global_id(0)] = ((local int *)b)[0];\n"
    "    }, (uint)(16 * sizeof(int)), (uint)sizeof(int));\n"
    "}\n"
    /* 2D and 3D ranges with offsets: each child item writes its linear id. */
    "kernel void ranges(global int *out, int n) {\n"
    "  size_t off2[2] = {1, 2}, g2[2] = {4, 3}, l2[2] = {2, 1};\n"
    "  size_t off3[3] = {0, 0, 1}, g3[3] = {2, 2, 2}, l3[3] = {1, 2, 2};\n"
    "  enqueue_kernel(get_default_queue(), 0, ndrange_2D(off2, g2, l2), ^{\n"
    "    size_t x = get_global_id(0) - 1, y = get_global_id(1) - 2;\n"
    "    out[y * 4 + x] = (int)(get_global_size(0) * 100 + get_local_size(0) * 10 +\n"
    "                           get_num_groups(0)); });\n"
    "  enqueue_kernel(get_default_queue(), 0, ndrange_3D(off3, g3, l3), ^{\n"
    "    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2) - 1;\n"
    "    out[12 + z * 4 + y * 2 + x] = (int)get_work_dim() * 1000 + (int)get_global_offset(2);\n"
    "  });\n"
    "}\n"
    /* The kernel queries and an enqueue error code, precise with -g. */
    "kernel void queries(global int *out, int n) {\n"
    "  void (^b)(void) = ^{ out[5] = 1; };\n"
    "  out[0] = (int)get_kernel_work_group_size(b);\n"
    "  out[1] = (int)get_kernel_preferred_work_group_size_multiple(b);\n"
    "#ifdef __opencl_c_subgroups\n"
    "  out[2] = (int)get_kernel_max_sub_group_size_for_ndrange(ndrange_1D(64, 8), b);\n"
    "  out[3] = (int)get_kernel_sub_group_count_for_ndrange(ndrange_1D(64, 8), b);\n"
    "#else\n"
    "  out[2] = 1;\n"
    "  out[3] = 8;\n"
    "#endif\n"
    "  out[4] = enqueue_kernel(get_default_queue(), 0, ndrange_1D(0), b);\n"
    "  queue_t none = CLK_NULL_QUEUE;\n"
    "  out[6] = enqueue_kernel(none, 0, ndrange_1D(1), b);\n"
    "  out[7] = enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 1, NULL, NULL, b);\n"
    "  out[8] = enqueue_kernel(get_default_queue(), 0, ndrange_1D(1),\n"
    "                          ^(local void *l) { out[5] = 2; }, 0u);\n"
    "  out[9] = enqueue_kernel(get_default_queue(), 0, ndrange_1D(1),\n"
    "                          ^(local void *l) { out[5] = 3; }, 0x40000000u);\n"
    /* The pool of device events, used up by user events: one more is refused. */
    "  clk_event_t held[4096], e;\n"
    "  int made = 0;\n"
    "  for (; made < 4096; made++) {\n"
    "    held[made] = create_user_event();\n"
    "    if (!is_valid_event(held[made])) break;\n"
    "  }\n"
    "  out[10] = made;\n"
    "  out[11] = enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 0, NULL, &e, b);\n"
    "  for (int i = 0; i < made; i++) release_event(held[i]);\n"
    "}\n"
    /* A child waiting for a user event that fails: it never runs, and the launch fails. */
    "kernel void failing(global int *out, int n) {\n"
    "  clk_event_t u = create_user_event();\n"
    "  enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 1, &u, NULL, ^{ out[0] = 1; });\n"
    "  set_user_event_status(u, -1);\n"
    "  release_event(u);\n"
    "}\n"
    /* Profiling: the child's times land in out once it completes, before a child waiting
     * on its event starts, which checks them. */
    "kernel void profile(global ulong *out, int n) {\n"
    "  size_t t = get_global_id(0);\n"
    "  global ulong *mine = out + 3 * t;\n"
    "  clk_event_t e, u = create_user_event();\n"
    "  enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 1, &u, &e,\n"
    "                 ^{ for (volatile int s = 0; s < 1000; s++) ; });\n"
    "  capture_event_profiling_info(e, CLK_PROFILING_COMMAND_EXEC_TIME, mine);\n"
    "  set_user_event_status(u, CL_COMPLETE);\n"
    "  enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 1, &e, NULL,\n"
    "                 ^{ mine[2] = mine[0] > 0 && mine[1] >= mine[0] ? 1 : 2; });\n"
    "  release_event(e);\n"
    "  release_event(u);\n"
    "}\n"
    /* Children the device may run inline, inside the enqueue (docs/device.md): a NO_WAIT
     * child of four groups whose groups and whole kernel have WAIT_WORK_GROUP and WAIT_KERNEL
     * children of their own, which must see the child's stores made after those enqueues. */
    "kernel void inline_kids(global int *out, int n) {\n"
    "  size_t p = get_global_id(0);\n"
    "  global int *mine = out + p * 24;\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(16, 4), ^{\n"
    "    size_t i = get_global_id(0), g = get_group_id(0);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(1),\n"
    "          ^{ int s = 0; for (int j = 0; j < 4; j++) s += mine[g * 4 + j];\n"
    "             mine[16 + g] = s; });\n"
    "      if (g == 0)\n"
    "        enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(1),\n"
    "            ^{ int s = 0; for (int j = 0; j < 16; j++) s += mine[j]; mine[20] = s; });\n"
    "    }\n"
    "    for (volatile int spin = 0; spin < 200; spin++) ;\n"
    "    mine[i] = (int)(p * 100 + i) + 1;\n"
    "  });\n"
    "}\n"
    /* A parent with __local memory and a collective enqueues, between its barriers, a child
     * with a collective of its own and one without: neither disturbs the parent's group. */
    "kernel void inline_barrier(global int *out, int n) {\n"
    "  local int t[8];\n"
    "  size_t l = get_local_id(0), i = get_global_id(0);\n"
    "  t[l] = (int)i;\n"
    "  int s = work_group_reduce_add((int)i);\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(8, 8), ^{\n"
    "    out[32 + i * 8 + get_local_id(0)] =\n"
    "        work_group_reduce_add((int)get_local_id(0)) + (int)i; });\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
    "                 ^{ out[16 + i] = (int)i * 3; });\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[i] = s * 1000 + t[(l + 1) % 8];\n"
    "}\n"
    /* failing, one level down: the child that waits sits under a NO_WAIT child. */
    "kernel void failing_deep(global int *out, int n) {\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{\n"
    "    clk_event_t u = create_user_event();\n"
    "    enqueue_kernel(get_default_queue(), 0, ndrange_1D(1), 1, &u, NULL, ^{ out[0] = 1; });\n"
    "    set_user_event_status(u, -1);\n"
    "    release_event(u);\n"
    "  });\n"
    "}\n"
    /* Fill a small queue: WAIT_KERNEL children stay pending until the parent ends. */
    "kernel void fill(global int *out, queue_t small) {\n"
    "  for (int i = 0; i < 10000; i++) {\n"
    "    int r = enqueue_kernel(small, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(1),\n"
    "                           ^{ atomic_inc(&out[1]); });\n"
    "    if (r != CLK_SUCCESS) { out[0] = r; out[2] = i; return; }\n"
    "  }\n"
    "}\n";

static void test_children(struct kt_env *env, cl_program p)
{
    int out[256];
    memset(out, 0xff, sizeof(out));
    KT_EXPECT(run(env, p, "children", 64, 0, out, 256, 0), CL_SUCCESS);
    for (int i = 0; i < 256; i++)
        KT_CHECK(out[i] == (i / 4) * 10 + i % 4, "children: out[%d] = %d", i, out[i]);
}

static void test_tree(struct kt_env *env, cl_program p)
{
    enum { DEPTH = 10 };
    int out[2 + DEPTH] = {0};
    KT_EXPECT(run(env, p, "tree", 2, 0, out, 2 + DEPTH, DEPTH), CL_SUCCESS);
    /* Level DEPTH has 2 items; each level below has 2 children of one item each... */
    int want = 0;
    for (int d = DEPTH; d >= 0; d--) {
        KT_CHECK(out[1 + d] == 2, "tree: depth %d ran %d work-items, want 2", d, out[1 + d]);
        want += 2;
    }
    KT_CHECK(out[0] == want, "tree: %d work-items, want %d", out[0], want);
}

static void test_waits(struct kt_env *env, cl_program p)
{
    enum { N = 512 };
    int out[N] = {0};
    KT_EXPECT(run(env, p, "wait_kernel", N, 0, out, N, N), CL_SUCCESS);
    KT_CHECK(out[0] == N * (N - 1) / 2, "WAIT_KERNEL child saw sum %d, want %d", out[0],
             N * (N - 1) / 2);
    enum { G = 8, L = 32 };
    int grp[G * (L + 1)];
    memset(grp, 0, sizeof(grp));
    KT_EXPECT(run(env, p, "wait_group", G * L, L, grp, G * (L + 1), 0), CL_SUCCESS);
    for (int g = 0; g < G; g++)
        KT_CHECK(grp[g * (L + 1)] == L * (L + 1) / 2, "WAIT_WORK_GROUP group %d saw %d, want %d", g,
                 grp[g * (L + 1)], L * (L + 1) / 2);
}

static void test_inline(struct kt_env *env, cl_program p)
{
    enum { P = 8 };
    int out[P * 24];
    memset(out, 0xff, sizeof(out));
    KT_EXPECT(run(env, p, "inline_kids", P, 4, out, P * 24, 0), CL_SUCCESS);
    for (int q = 0; q < P; q++) {
        const int *mine = out + q * 24;
        for (int i = 0; i < 16; i++)
            KT_CHECK(mine[i] == q * 100 + i + 1, "inline child %d: item %d wrote %d", q, i,
                     mine[i]);
        for (int g = 0; g < 4; g++) {
            int want = 4 * (q * 100 + 1) + 4 * g * 4 + 6;
            KT_CHECK(mine[16 + g] == want,
                     "inline child %d: WAIT_WORK_GROUP of group %d saw %d, "
                     "want %d",
                     q, g, mine[16 + g], want);
        }
        KT_CHECK(mine[20] == 16 * (q * 100 + 1) + 120,
                 "inline child %d: WAIT_KERNEL child saw %d, want %d", q, mine[20],
                 16 * (q * 100 + 1) + 120);
    }

    enum { N = 16, L = 8 };
    int b[32 + N * 8];
    memset(b, 0xff, sizeof(b));
    KT_EXPECT(run(env, p, "inline_barrier", N, L, b, 32 + N * 8, 0), CL_SUCCESS);
    for (int i = 0; i < N; i++) {
        int base = i / L * L, s = L * base + L * (L - 1) / 2;
        int want = s * 1000 + base + (i % L + 1) % L;
        KT_CHECK(b[i] == want, "inline_barrier: parent %d wrote %d, want %d", i, b[i], want);
        KT_CHECK(b[16 + i] == 3 * i, "inline_barrier: child of %d wrote %d", i, b[16 + i]);
        for (int j = 0; j < 8; j++)
            KT_CHECK(b[32 + i * 8 + j] == 28 + i,
                     "inline_barrier: collective child of %d, item "
                     "%d wrote %d, want %d",
                     i, j, b[32 + i * 8 + j], 28 + i);
    }
}

static void test_many(struct kt_env *env, cl_program p)
{
    enum { N = 100000 };
    int out[2] = {0, 0};
    KT_EXPECT(run(env, p, "many", N, 0, out, 2, 0), CL_SUCCESS);
    long want = 0;
    for (int i = 0; i < N; i++)
        want += i & 7;
    KT_CHECK(out[1] == 0, "%d of %d enqueues failed", out[1], N);
    KT_CHECK(out[0] == want, "10^5 children added %d, want %ld", out[0], want);
}

static void test_events(struct kt_env *env, cl_program p)
{
    int out[16];
    memset(out, 0, sizeof(out));
    KT_EXPECT(run(env, p, "events", 1, 1, out, 16, 0), CL_SUCCESS);
    KT_CHECK(out[0] == 11 && out[1] == 12 && out[2] == 13, "event chain: %d %d %d", out[0], out[1],
             out[2]);
    KT_CHECK(out[3] == 23, "child after the marker saw %d, want 23", out[3]);
    KT_CHECK(out[10] == 1, "is_valid_event(user event) = %d", out[10]);
    KT_CHECK(out[11] == 0, "enqueue_marker = %d", out[11]);
    KT_CHECK(out[12] == 0, "is_valid_event(CLK_NULL_EVENT) = %d", out[12]);
}

static void test_locals_ranges(struct kt_env *env, cl_program p)
{
    int out[64];
    memset(out, 0, sizeof(out));
    KT_EXPECT(run(env, p, "locals", 1, 1, out, 64, 0), CL_SUCCESS);
    for (int i = 0; i < 64; i++) {
        int g = i / 16, want = 16 * 16 * g + 15 * 16 / 2;
        KT_CHECK(out[i] == want, "locals: out[%d] = %d, want %d", i, out[i], want);
    }
    int r[20];
    memset(r, 0, sizeof(r));
    KT_EXPECT(run(env, p, "ranges", 1, 1, r, 20, 0), CL_SUCCESS);
    for (int i = 0; i < 12; i++)
        KT_CHECK(r[i] == 4 * 100 + 2 * 10 + 2, "2D child: out[%d] = %d", i, r[i]);
    for (int i = 12; i < 20; i++)
        KT_CHECK(r[i] == 3001, "3D child: out[%d] = %d", i, r[i]);
}

static void test_queries(struct kt_env *env, const char *src)
{
    static const char *opts[] = {"-cl-std=CL2.0", "-cl-std=CL2.0 -g"};
    for (int o = 0; o < 2; o++) {
        cl_program p = kt_build(env, src, opts[o]);
        int out[12];
        memset(out, 0, sizeof(out));
        KT_EXPECT(run(env, p, "queries", 1, 1, out, 12, 0), CL_SUCCESS);
        size_t max = 0;
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max), &max, NULL);
        KT_CHECK(out[0] == (int)max, "get_kernel_work_group_size %d, want %zu", out[0], max);
        KT_CHECK(out[1] == 16, "preferred multiple %d", out[1]);
        KT_CHECK(out[2] == 1 && out[3] == 8, "sub-group queries %d %d", out[2], out[3]);
        int want_nd = o ? -160 /* CLK_INVALID_NDRANGE */ : -101 /* CLK_ENQUEUE_FAILURE */;
        int want_q = o ? -102 /* CLK_INVALID_QUEUE */ : -101;
        KT_CHECK(out[4] == want_nd, "%s: empty ndrange gave %d, want %d", opts[o], out[4], want_nd);
        KT_CHECK(out[6] == want_q, "%s: null queue gave %d, want %d", opts[o], out[6], want_q);
        KT_CHECK(out[5] == 0, "a refused child ran (%d)", out[5]);
        int want_list = o ? -57 /* CLK_INVALID_EVENT_WAIT_LIST */ : -101;
        int want_size = o ? -51 /* CLK_INVALID_ARG_SIZE */ : -101;
        int want_res = o ? -5 /* CLK_OUT_OF_RESOURCES */ : -101;
        int want_ev = o ? -100 /* CLK_EVENT_ALLOCATION_FAILURE */ : -101;
        KT_CHECK(out[7] == want_list, "%s: 1 event and no list gave %d", opts[o], out[7]);
        KT_CHECK(out[8] == want_size, "%s: a __local size of 0 gave %d", opts[o], out[8]);
        KT_CHECK(out[9] == want_res, "%s: 1 GiB of __local gave %d", opts[o], out[9]);
        KT_CHECK(out[10] == 4096, "%d user events made, the pool has 4096", out[10]);
        KT_CHECK(out[11] == want_ev, "%s: an event past the pool gave %d", opts[o], out[11]);
        clReleaseProgram(p);
    }
}

static void test_failure(struct kt_env *env, cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    int out[1] = {0}, n = 0;
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(out),
                              out, &err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(b), &b));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(n), &n));
    size_t one = 1;
    cl_event ev;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0, NULL, &ev), CL_SUCCESS);
    clWaitForEvents(1, &ev);
    cl_int status = 0;
    KT_EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
              CL_SUCCESS);
    KT_CHECK(status < 0, "%s: a launch whose descendant failed completed with %d", name, status);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    KT_CHECK(out[0] == 0, "%s: the child of a failed user event ran", name);
    clReleaseEvent(ev);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

/* Repeated: the capture and the waiting child race on the event's completion. */
static void test_profile(struct kt_env *env, cl_program p)
{
    enum { N = 256, RUNS = 8 };
    static cl_ulong times[3 * N];
    for (int run = 0; run < RUNS; run++) {
        memset(times, 0, sizeof(times));
        int n = 0;
        struct kt_arg args[] = {{KT_INOUT, sizeof(times), times}, {KT_VALUE, sizeof(n), &n}};
        KT_EXPECT(kt_run_in(env, p, "profile", N, 0, 2, args), CL_SUCCESS);
        for (int i = 0; i < N; i++) {
            KT_CHECK(times[3 * i] > 0 && times[3 * i + 1] >= times[3 * i],
                     "profiling %d: exec %llu, complete %llu", i, (unsigned long long)times[3 * i],
                     (unsigned long long)times[3 * i + 1]);
            KT_CHECK(times[3 * i + 2] == 1, "profiling %d: the waiting child saw %llu", i,
                     (unsigned long long)times[3 * i + 2]);
        }
    }
}

static void test_full(struct kt_env *env, cl_program p)
{
    cl_command_queue small = device_queue(env, 4096, false);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "fill", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    int out[3] = {0, 0, 0};
    cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(out),
                              out, &err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(b), &b));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(small), &small));
    size_t one = 1;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    KT_CHECK(out[0] == -161, "a full device queue gave %d, want CLK_DEVICE_QUEUE_FULL", out[0]);
    KT_CHECK(out[2] > 0 && out[1] == out[2], "%d children enqueued, %d ran", out[2], out[1]);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    clReleaseCommandQueue(small);
}

int main(void)
{
    const char *env_switch = getenv("KILN_DEVICE_ENQUEUE");
    if (env_switch && strcmp(env_switch, "0") == 0) {
        printf("api/devenqueue: skipped: KILN_DEVICE_ENQUEUE=0 is set\n");
        return 77;
    }
    struct kt_env env;
    kt_setup(&env, 0);
    cl_command_queue def = device_queue(&env, 64u << 20, true);
    cl_program p = kt_build(&env, src_children, "-cl-std=CL2.0 -g");
    (void)options;
    test_children(&env, p);
    test_tree(&env, p);
    test_waits(&env, p);
    test_many(&env, p);
    test_events(&env, p);
    test_locals_ranges(&env, p);
    test_inline(&env, p);
    test_failure(&env, p, "failing");
    test_failure(&env, p, "failing_deep");
    test_profile(&env, p);
    test_full(&env, p);
    clReleaseProgram(p);
    test_queries(&env, src_children);
    clReleaseCommandQueue(def);
    kt_teardown(&env);
    return kt_finish("api/devenqueue");
}
