/*
 * The CPU device's operations (device-cpu/kiln_device.h) driven directly, without the
 * runtime: every launch kind produces its result and calls its completion callback
 * exactly once with CL_COMPLETE, small copies before the operation returns, on the
 * root device's pool and on a sub-device's pool over one core.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_device.h"
#include "sched_test.h"

/* A launch record and what its callback saw. */
struct probe {
    struct kiln_dev_launch launch;
    atomic_int calls;  /* relaxed */
    atomic_int status; /* relaxed */
    atomic_int ended;  /* release by the callback, acquire by the waiter */
};

static void probe_done(struct kiln_dev_launch *l, cl_int status)
{
    struct probe *p = (struct probe *)l;
    atomic_fetch_add_explicit(&p->calls, 1, memory_order_relaxed);
    atomic_store_explicit(&p->status, status, memory_order_relaxed);
    atomic_store_explicit(&p->ended, 1, memory_order_release);
}

static void probe_init(struct probe *p)
{
    memset(p, 0, sizeof(*p));
    p->launch.done = probe_done;
    atomic_store_explicit(&p->status, 1, memory_order_relaxed);
}

/* Waits the way the runtime does: help, and yield when there is nothing to claim. */
static void probe_wait(struct kiln_dev *dev, struct probe *p)
{
    while (!atomic_load_explicit(&p->ended, memory_order_acquire))
        if (kiln_cpu_ops.help(dev) == 0)
            sched_yield();
    CHECK(atomic_load_explicit(&p->calls, memory_order_relaxed) == 1);
    CHECK(atomic_load_explicit(&p->status, memory_order_relaxed) == CL_COMPLETE);
}

#define GX 7
#define GY 3
#define GZ 2

/* Each group adds one to its slot and checks its size, its scratch and its printf buffer. */
struct groups {
    atomic_int hits[GZ][GY][GX];
    int wants_printf;
};

static void wg(void *const *args, struct kiln_wg_ctx *ctx)
{
    struct groups *g = *(struct groups *const *)args[0];
    for (int d = 0; d < 3; d++) {
        size_t left = ctx->global_size[d] - ctx->group_id[d] * ctx->enqueued_local_size[d];
        size_t want = left < ctx->enqueued_local_size[d] ? left : ctx->enqueued_local_size[d];
        CHECK(ctx->local_size[d] == want);
    }
    CHECK(ctx->local_mem != NULL && ctx->group_shared != NULL);
    CHECK(ctx->scratch != NULL && ((uintptr_t)ctx->scratch % KILN_SCRATCH_ALIGN) == 0);
    memset(ctx->scratch, 0xab, ctx->scratch_size);
    CHECK((ctx->printf_buffer != NULL) == g->wants_printf);
    atomic_fetch_add_explicit(&g->hits[ctx->group_id[2]][ctx->group_id[1]][ctx->group_id[0]], 1,
                              memory_order_relaxed);
}

static void check_ndrange(struct kiln_dev *dev, int wants_printf)
{
    static struct groups g;
    memset(&g, 0, sizeof(g));
    g.wants_printf = wants_printf;
    struct groups *gp = &g;
    void *args[1] = {&gp};
    struct kiln_dev_ndrange nd = {.wg = wg, .args = args, .uses_printf = wants_printf != 0};
    /* 7 x 3 x 2 groups of 4 x 2 x 1, the last group partial in x and y. */
    const size_t global[3] = {4 * GX - 1, 2 * GY - 1, GZ}, local[3] = {4, 2, 1};
    nd.base.work_dim = 3;
    for (int d = 0; d < 3; d++) {
        nd.base.global_size[d] = global[d];
        nd.base.enqueued_local_size[d] = local[d];
        nd.base.num_groups[d] = (global[d] + local[d] - 1) / local[d];
        nd.groups[d] = nd.base.num_groups[d];
    }
    nd.base.scratch_size = KILN_SCRATCH_ALIGN;
    struct probe p;
    probe_init(&p);
    CHECK(kiln_cpu_ops.ndrange(dev, &nd, &p.launch) == CL_SUCCESS);
    probe_wait(dev, &p);
    for (int z = 0; z < GZ; z++)
        for (int y = 0; y < GY; y++)
            for (int x = 0; x < GX; x++)
                CHECK(atomic_load_explicit(&g.hits[z][y][x], memory_order_relaxed) == 1);
    /* The device's memory for the launch is gone before done. */
    CHECK(nd.scratch == NULL && nd.printf_buf == NULL);
}

static void check_bytes(struct kiln_dev *dev, size_t size)
{
    unsigned char *src = malloc(size), *dst = malloc(size);
    CHECK(src && dst);
    for (size_t i = 0; i < size; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    memset(dst, 0, size);
    struct kiln_dev_bytes b = {.dst = dst, .src = src, .size = size};
    struct probe p;
    probe_init(&p);
    CHECK(kiln_cpu_ops.copy(dev, &b, &p.launch) == CL_SUCCESS);
    /* Below 256 KiB the copy runs on this thread: it has ended when the op returns. */
    if (size < 256 * 1024)
        CHECK(atomic_load_explicit(&p.ended, memory_order_acquire));
    probe_wait(dev, &p);
    CHECK(memcmp(src, dst, size) == 0);

    const uint32_t pattern = 0x01020304;
    struct kiln_dev_bytes f = {.dst = dst, .size = size / 4 * 4, .pattern_size = 4};
    memcpy(f.pattern_store, &pattern, 4);
    f.pattern = f.pattern_store;
    probe_init(&p);
    CHECK(kiln_cpu_ops.fill(dev, &f, &p.launch) == CL_SUCCESS);
    probe_wait(dev, &p);
    for (size_t i = 0; i < f.size; i += 4)
        CHECK(memcmp(dst + i, &pattern, 4) == 0);
    free(src);
    free(dst);
}

static void check_rect(struct kiln_dev *dev)
{
    /* 3 slices of 200 rows of 1000 bytes: 600 KB, enough to go to the workers. */
    const size_t w = 1000, h = 200, slices = 3, pitch = 1024, slice = pitch * h;
    unsigned char *src = malloc(slice * slices), *dst = calloc(slices, slice);
    CHECK(src && dst);
    for (size_t i = 0; i < slice * slices; i++)
        src[i] = (unsigned char)(i % 251);
    struct kiln_dev_rect r = {.dst = dst,
                              .src = src,
                              .region = {w, h, slices},
                              .dst_row = pitch,
                              .dst_slice = slice,
                              .src_row = pitch,
                              .src_slice = slice};
    struct probe p;
    probe_init(&p);
    CHECK(kiln_cpu_ops.rect(dev, &r, &p.launch) == CL_SUCCESS);
    probe_wait(dev, &p);
    for (size_t z = 0; z < slices; z++)
        for (size_t y = 0; y < h; y++) {
            size_t at = z * slice + y * pitch;
            CHECK(memcmp(dst + at, src + at, w) == 0);
            for (size_t x = w; x < pitch; x++)
                CHECK(dst[at + x] == 0); /* the pitch's padding is left alone */
        }
    free(src);
    free(dst);
}

static void native_fn(void *args)
{
    atomic_fetch_add_explicit((atomic_int *)args, 1, memory_order_relaxed);
}

static void check_native(struct kiln_dev *dev)
{
    atomic_int ran = 0;
    struct kiln_dev_native n = {.fn = native_fn, .args = &ran};
    struct probe p;
    probe_init(&p);
    CHECK(kiln_cpu_ops.native(dev, &n, &p.launch) == CL_SUCCESS);
    probe_wait(dev, &p);
    CHECK(atomic_load_explicit(&ran, memory_order_relaxed) == 1);
}

static void check_all(struct kiln_dev *dev)
{
    check_ndrange(dev, 0);
    check_ndrange(dev, 1);
    check_bytes(dev, 1000);
    check_bytes(dev, (5u << 20) + 12);
    check_rect(dev);
    check_native(dev);
}

int main(void)
{
    struct kiln_dev *root = kiln_cpu_ops.root(64 * 1024);
    CHECK(root != NULL && kiln_cpu_ops.root(64 * 1024) == root);
    check_all(root);

    const unsigned core = 0;
    const struct kiln_dev_config cfg = {
        .local_mem_size = 64 * 1024, .cores = &core, .num_cores = 1};
    struct kiln_dev *sub = NULL;
    CHECK(kiln_cpu_ops.create(&cfg, &sub) == CL_SUCCESS && sub != NULL && sub != root);
    check_all(sub);
    CHECK(kiln_cpu_ops.release(sub) == CL_SUCCESS);
    /* A sub-device that never ran anything has no pool to stop. */
    CHECK(kiln_cpu_ops.create(&cfg, &sub) == CL_SUCCESS);
    CHECK(kiln_cpu_ops.release(sub) == CL_SUCCESS);
    printf("device ops: every launch kind ran and completed once, on the root and a sub-device\n");
    return 0;
}
