/*
 * The CPU device's execution: NDRanges as work-groups dealt to the device's worker
 * pool, copies and fills in slices, rectangles in rows, native kernels as one item.
 *
 * Each launch becomes one scheduler job, the one embedded in the launch record; the
 * job's done() finishes the launch (printf output, the launch's memory) and calls
 * the runtime's completion callback. Work too small to be worth waking a worker for
 * runs on the calling thread before the launch op returns.
 */
#include "cpu_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <emmintrin.h>

#include "kiln_alloc.h"

/* Copies, fills and rectangles below this many bytes run on the thread that launches them. */
#define INLINE_BYTES (256u * 1024)
/* Copies and fills are dealt to workers in slices of this size. */
#define SLICE_BYTES (2u * 1024 * 1024)

static struct kiln_dev_launch *launch_of(struct kiln_sched_job *job)
{
    return (struct kiln_dev_launch *)((char *)job - offsetof(struct kiln_dev_launch, job));
}

/* ---- NDRange -------------------------------------------------------------------- */

/* The size of group `id` along one dimension: the last group may be partial. */
static size_t group_extent(const struct kiln_wg_ctx *ctx, int d, size_t id)
{
    size_t left = ctx->global_size[d] - id * ctx->enqueued_local_size[d];
    return left < ctx->enqueued_local_size[d] ? left : ctx->enqueued_local_size[d];
}

/*
 * The calling thread's stack, [*lo, *hi): the kernel library's to_private looks for
 * private variables there (kiln_abi.h). Asked once per thread; 0, 0 if unknown.
 */
void kiln_cpu_thread_stack(kiln_abi_ptr *lo, kiln_abi_ptr *hi)
{
    static _Thread_local unsigned char *stack_lo, *stack_hi;
    static _Thread_local bool known;
    if (!known) {
        pthread_attr_t attr;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                stack_lo = addr;
                stack_hi = stack_lo + size;
            }
            pthread_attr_destroy(&attr);
        }
        known = true;
    }
    *lo = stack_lo;
    *hi = stack_hi;
}

/*
 * Runs groups [first, first + count) of the walk order (kiln_cpu_group_first). The ids are
 * worked out once per chunk and then stepped, so a group costs one call of the work-group
 * function and no division: small groups stay cheap.
 */
void kiln_cpu_run_groups(struct kiln_sched_job *job, size_t first, size_t count,
                         const struct kiln_sched_worker *w)
{
    const struct kiln_dev_ndrange *nd = job->user;
    struct kiln_wg_ctx ctx = nd->base;
    struct kiln_cpu_enq_site site;
    kiln_cpu_thread_stack(&ctx.stack_lo, &ctx.stack_hi);
    if (nd->node) {
        kiln_cpu_enq_group_begin(&site, nd->node, w, &ctx);
        ctx.enqueue = &site;
    }
    ctx.local_mem = w->local_mem;
    /* The arena ends with the collectives' area and then the combining tables (pools.c). */
    ctx.group_shared = (unsigned char *)w->local_mem + w->local_mem_size - KILN_GROUP_SHARED_SIZE -
                       KILN_COMBINE_SIZE;
    ctx.combine = (unsigned char *)ctx.group_shared + KILN_GROUP_SHARED_SIZE;
    if (nd->scratch)
        ctx.scratch = nd->scratch + (size_t)w->index * ctx.scratch_size;
    struct kiln_cpu_walk walk;
    kiln_cpu_group_first(&ctx, &walk, nd->column_bands, first);
    for (size_t n = 0; n < count; n++) {
        /* The last group of the chunk applies the sums its function combined (kiln_abi.h). */
        ctx.chunk_more = n + 1 < count;
        nd->wg((void *const *)nd->args, &ctx);
        if (nd->node)
            kiln_cpu_enq_group_end(&site);
        kiln_cpu_group_next(&ctx, &walk);
    }
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Enters column band `band_first` of the group grid at its top row. */
static void band_enter(struct kiln_wg_ctx *ctx, struct kiln_cpu_walk *walk, size_t band_first)
{
    walk->band_first = band_first;
    walk->band_width = min_size(walk->band, ctx->num_groups[0] - band_first);
}

void kiln_cpu_group_first(struct kiln_wg_ctx *ctx, struct kiln_cpu_walk *walk, bool bands,
                          size_t first)
{
    const size_t gx = ctx->num_groups[0], gy = ctx->num_groups[1];
    /* Row by row is one band as wide as the grid. */
    walk->band = bands ? KILN_CPU_BAND : gx;
    if (first == 0) { /* the usual first chunk, and every inline child (enqueue.c) */
        band_enter(ctx, walk, 0);
        for (int d = 0; d < 3; d++) {
            ctx->group_id[d] = 0;
            ctx->local_size[d] = group_extent(ctx, d, 0);
        }
        return;
    }
    const size_t in_slice = first % (gx * gy);
    /* Every band before this group's is walk->band columns wide. */
    band_enter(ctx, walk, in_slice / (walk->band * gy) * walk->band);
    const size_t in_band = in_slice - walk->band_first * gy;
    ctx->group_id[0] = walk->band_first + in_band % walk->band_width;
    ctx->group_id[1] = in_band / walk->band_width;
    ctx->group_id[2] = first / (gx * gy);
    for (int d = 0; d < 3; d++)
        ctx->local_size[d] = group_extent(ctx, d, ctx->group_id[d]);
}

void kiln_cpu_group_next(struct kiln_wg_ctx *ctx, struct kiln_cpu_walk *walk)
{
    if (++ctx->group_id[0] < walk->band_first + walk->band_width) {
        if (ctx->group_id[0] == ctx->num_groups[0] - 1)
            ctx->local_size[0] = group_extent(ctx, 0, ctx->group_id[0]);
        return;
    }
    if (++ctx->group_id[1] == ctx->num_groups[1]) { /* the band is done: the next one */
        ctx->group_id[1] = 0;
        size_t next = walk->band_first + walk->band_width;
        if (next == ctx->num_groups[0]) { /* and the slice: the next one */
            next = 0;
            ctx->group_id[2]++;
            ctx->local_size[2] = group_extent(ctx, 2, ctx->group_id[2]);
        }
        band_enter(ctx, walk, next);
    }
    ctx->local_size[1] = group_extent(ctx, 1, ctx->group_id[1]);
    ctx->group_id[0] = walk->band_first;
    ctx->local_size[0] = group_extent(ctx, 0, ctx->group_id[0]);
}

/* Frees what the launch allocated; the printf output goes out first, before done. */
static void ndrange_done(struct kiln_sched_job *job)
{
    struct kiln_dev_ndrange *nd = job->user;
    struct kiln_dev_launch *l = launch_of(job);
    l->note = NULL;
    if (nd->printf_buf) {
        if (!kiln_cpu_printf_flush(nd->printf_buf))
            l->note = "printf output truncated: out of host memory";
        free(nd->printf_buf);
        nd->printf_buf = NULL;
    }
    free(nd->scratch);
    nd->scratch = NULL;
    if (nd->node)
        kiln_cpu_enq_groups_done(nd->node); /* done once every enqueued kernel is */
    else
        l->done(l, CL_COMPLETE);
}

static void launch_done(struct kiln_sched_job *job)
{
    struct kiln_dev_launch *l = launch_of(job);
    l->note = NULL;
    l->done(l, CL_COMPLETE);
}

cl_int kiln_cpu_exec_ndrange(struct kiln_dev *dev, struct kiln_dev_ndrange *nd,
                             struct kiln_dev_launch *l)
{
    struct kiln_sched *sched;
    cl_int err = kiln_cpu_pool_get(dev, &sched, &l->note);
    if (err != CL_SUCCESS)
        return err;
    if (nd->uses_printf) {
        nd->printf_buf = kiln_cpu_printf_buffer_create(KILN_DEV_PRINTF_BUFFER_SIZE);
        if (!nd->printf_buf) {
            l->note = "no memory for a printf buffer";
            return CL_OUT_OF_HOST_MEMORY;
        }
        nd->base.printf_buffer = nd->printf_buf;
    }
    if (nd->base.scratch_size) {
        /* One area per worker and one for a calling thread that helps. */
        size_t parties = (size_t)kiln_sched_num_workers(sched) + 1;
        nd->scratch = kiln_aligned_alloc(KILN_SCRATCH_ALIGN, parties * nd->base.scratch_size);
        if (!nd->scratch) {
            free(nd->printf_buf);
            nd->printf_buf = NULL;
            l->note = "no memory for the kernel's scratch";
            return CL_OUT_OF_HOST_MEMORY;
        }
    }
    nd->node = NULL;
    if (nd->enq && (err = kiln_cpu_enq_root(dev, sched, nd, l)) != CL_SUCCESS) {
        free(nd->printf_buf);
        nd->printf_buf = NULL;
        free(nd->scratch);
        nd->scratch = NULL;
        return err;
    }
    struct kiln_sched_job *job = &l->job;
    job->user = nd;
    job->done = ndrange_done;
    job->num_items = nd->groups[0] * nd->groups[1] * nd->groups[2];
    job->min_chunk = 1;
    job->run = kiln_cpu_run_groups;
    kiln_sched_submit(sched, job);
    return CL_SUCCESS;
}

/* ---- copies and fills ------------------------------------------------------------ */

/* The bytes [*begin, *end) of slices [first, first + count): the last slice may be short. */
static void slices(const struct kiln_dev_bytes *c, size_t first, size_t count, size_t *begin,
                   size_t *end)
{
    *begin = first * SLICE_BYTES;
    *end = (first + count) * SLICE_BYTES;
    if (*end > c->size)
        *end = c->size;
}

static void run_copy(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    (void)w;
    const struct kiln_dev_bytes *c = job->user;
    size_t begin, end;
    slices(c, first, count, &begin, &end);
    memmove(c->dst + begin, c->src + begin, end - begin);
}

static void run_fill(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    (void)w;
    const struct kiln_dev_bytes *c = job->user;
    size_t begin, end;
    slices(c, first, count, &begin, &end);
    /*
     * SLICE_BYTES and the size are multiples of every pattern size (1..128, powers of
     * two), so a slice is whole patterns. A one-byte pattern is memset; any other is copied
     * into a 128-byte block (a whole number of patterns) and the block is written with
     * non-temporal 16-byte stores, which keep a large fill from reading the destination
     * into the cache first; the unaligned head and the tail go through memcpy.
     */
    const size_t ps = c->pattern_size;
    if (ps == 1) {
        memset(c->dst + begin, *(const unsigned char *)c->pattern, end - begin);
        return;
    }
    /* Two copies of the 128-byte period, so a 16-byte load at any phase stays inside. */
    unsigned char block[256] __attribute__((aligned(16)));
    for (size_t i = 0; i < sizeof(block); i += ps)
        memcpy(block + i, c->pattern, ps);
    const size_t period = 128;
    size_t off = begin;
    /* The phase of the pattern at dst + off is off % ps, 0 here: off is a multiple of ps. */
    size_t head = (size_t)(-(uintptr_t)(c->dst + off)) & 15;
    if (head > end - off)
        head = end - off;
    memcpy(c->dst + off, block, head);
    off += head;
    if (end - off >= period) {
        __m128i v[8];
        for (int i = 0; i < 8; i++)
            v[i] = _mm_loadu_si128((const __m128i *)(block + (head + 16 * (size_t)i) % period));
        for (; end - off >= period; off += period)
            for (int i = 0; i < 8; i++)
                _mm_stream_si128((__m128i *)(c->dst + off) + i, v[i]);
        _mm_sfence();
    }
    for (; off < end; off++)
        c->dst[off] = block[(off - begin) % period];
}

/*
 * Hands the job to the pool, or runs it here when it is below INLINE_BYTES of work
 * or empty. The pool is started either way, as for every other launch.
 */
static cl_int submit(struct kiln_dev *dev, struct kiln_dev_launch *l, size_t bytes)
{
    struct kiln_sched *sched;
    cl_int err = kiln_cpu_pool_get(dev, &sched, &l->note);
    if (err != CL_SUCCESS)
        return err;
    struct kiln_sched_job *job = &l->job;
    if (bytes < INLINE_BYTES || job->num_items == 0) {
        struct kiln_sched_worker none = {0};
        if (job->num_items)
            job->run(job, 0, job->num_items, &none);
        l->note = NULL;
        l->done(l, CL_COMPLETE);
        return CL_SUCCESS;
    }
    kiln_sched_submit(sched, job);
    return CL_SUCCESS;
}

static cl_int bytes_launch(struct kiln_dev *dev, struct kiln_dev_bytes *b,
                           struct kiln_dev_launch *l, kiln_sched_run_fn run)
{
    struct kiln_sched_job *job = &l->job;
    job->user = b;
    job->done = launch_done;
    job->num_items = (b->size + SLICE_BYTES - 1) / SLICE_BYTES;
    job->min_chunk = 1;
    job->run = run;
    return submit(dev, l, b->size);
}

cl_int kiln_cpu_exec_copy(struct kiln_dev *dev, struct kiln_dev_bytes *b, struct kiln_dev_launch *l)
{
    return bytes_launch(dev, b, l, run_copy);
}

cl_int kiln_cpu_exec_fill(struct kiln_dev *dev, struct kiln_dev_bytes *b, struct kiln_dev_launch *l)
{
    return bytes_launch(dev, b, l, run_fill);
}

/* ---- rectangles ------------------------------------------------------------------- */

/* One item per row, rows numbered slice by slice. */
static void run_rows(struct kiln_sched_job *job, size_t first, size_t count,
                     const struct kiln_sched_worker *w)
{
    (void)w;
    const struct kiln_dev_rect *r = job->user;
    size_t y = first % r->region[1], z = first / r->region[1];
    for (size_t n = 0; n < count; n++) {
        memmove(r->dst + z * r->dst_slice + y * r->dst_row,
                r->src + z * r->src_slice + y * r->src_row, r->region[0]);
        if (++y == r->region[1]) {
            y = 0;
            z++;
        }
    }
}

cl_int kiln_cpu_exec_rect(struct kiln_dev *dev, struct kiln_dev_rect *r, struct kiln_dev_launch *l)
{
    struct kiln_sched_job *job = &l->job;
    job->user = r;
    job->done = launch_done;
    job->num_items = r->region[1] * r->region[2];
    job->min_chunk = SLICE_BYTES / r->region[0] + 1;
    job->run = run_rows;
    return submit(dev, l, job->num_items * r->region[0]);
}

/* ---- native kernels ---------------------------------------------------------------- */

/* One item: the application's function on its argument copy. */
static void run_native(struct kiln_sched_job *job, size_t first, size_t count,
                       const struct kiln_sched_worker *w)
{
    (void)first, (void)count, (void)w;
    const struct kiln_dev_native *n = job->user;
    n->fn(n->args);
}

cl_int kiln_cpu_exec_native(struct kiln_dev *dev, struct kiln_dev_native *n,
                            struct kiln_dev_launch *l)
{
    struct kiln_sched *sched;
    cl_int err = kiln_cpu_pool_get(dev, &sched, &l->note);
    if (err != CL_SUCCESS)
        return err;
    struct kiln_sched_job *job = &l->job;
    job->user = n;
    job->done = launch_done;
    job->num_items = 1;
    job->min_chunk = 1;
    job->run = run_native;
    kiln_sched_submit(sched, job);
    return CL_SUCCESS;
}
