/*
 * The orders the CPU device runs a launch's groups in (kiln_cpu_group_first and _next,
 * device-cpu/exec.c), row by row and in column bands: every group of the grid exactly once,
 * with its size (partial last groups), in the order's sequence; and a chunk that starts at
 * any position of the order continues it exactly as stepping from the start does.
 */
#include "cpu_internal.h"
#include "sched_test.h"

#include "kiln_abi.h"

enum { MAX_GROUPS = 4096 };

static struct kiln_wg_ctx grid(const size_t groups[3], const size_t local[3],
                               const size_t short_by[3])
{
    struct kiln_wg_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    for (int d = 0; d < 3; d++) {
        ctx.num_groups[d] = groups[d];
        ctx.enqueued_local_size[d] = local[d];
        ctx.global_size[d] = groups[d] * local[d] - short_by[d];
    }
    return ctx;
}

static size_t linear(const struct kiln_wg_ctx *c)
{
    return (c->group_id[2] * c->num_groups[1] + c->group_id[1]) * c->num_groups[0] + c->group_id[0];
}

/* The size of group `id` along d: the last one is short. */
static size_t want_size(const size_t groups[3], const size_t local[3], const size_t short_by[3],
                        int d, size_t id)
{
    return id + 1 == groups[d] ? local[d] - short_by[d] : local[d];
}

static void check_grid(size_t gx, size_t gy, size_t gz, bool bands)
{
    const size_t groups[3] = {gx, gy, gz}, local[3] = {4, 3, 2}, short_by[3] = {1, 2, 1};
    const size_t total = gx * gy * gz;
    CHECK(total <= MAX_GROUPS);
    static unsigned char seen[MAX_GROUPS];
    static size_t order[MAX_GROUPS];
    memset(seen, 0, total);
    struct kiln_wg_ctx ctx = grid(groups, local, short_by);
    struct kiln_cpu_walk walk;
    kiln_cpu_group_first(&ctx, &walk, bands, 0);
    for (size_t n = 0; n < total; n++) {
        for (int d = 0; d < 3; d++) {
            CHECK(ctx.group_id[d] < groups[d]);
            CHECK(ctx.local_size[d] == want_size(groups, local, short_by, d, ctx.group_id[d]));
        }
        size_t id = linear(&ctx);
        CHECK(!seen[id]);
        seen[id] = 1;
        order[n] = id;
        if (bands) {
            /* Step n lies in the band its position says, every band before it full. */
            size_t in_slice = n % (gx * gy), band = in_slice / (KILN_CPU_BAND * gy);
            CHECK(ctx.group_id[2] == n / (gx * gy));
            CHECK(ctx.group_id[0] / KILN_CPU_BAND == band);
        } else {
            CHECK(id == n); /* row by row: x fastest, then y, then z */
        }
        kiln_cpu_group_next(&ctx, &walk);
    }
    /* A chunk may start anywhere: it lands where stepping got, and goes on the same way. */
    for (size_t first = 0; first < total; first++) {
        struct kiln_wg_ctx c = grid(groups, local, short_by);
        kiln_cpu_group_first(&c, &walk, bands, first);
        for (size_t n = first; n < total && n < first + 3; n++) {
            CHECK(linear(&c) == order[n]);
            for (int d = 0; d < 3; d++)
                CHECK(c.local_size[d] == want_size(groups, local, short_by, d, c.group_id[d]));
            kiln_cpu_group_next(&c, &walk);
        }
    }
}

int main(void)
{
    /* Narrower than a band, one band, a band and one column, several bands with a narrow
     * last one; one row, several rows; one slice and several. */
    static const size_t shapes[][3] = {
        {1, 1, 1},  {5, 1, 1},  {5, 7, 1},  {8, 3, 1},   {9, 3, 1},   {9, 1, 2},
        {17, 5, 1}, {20, 3, 2}, {24, 4, 3}, {100, 1, 1}, {33, 11, 2}, {64, 64, 1},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        for (int bands = 0; bands < 2; bands++)
            check_grid(shapes[i][0], shapes[i][1], shapes[i][2], bands);
    /* Bands of 20 columns: the first band's 8 columns run down every row before column 8. */
    const size_t groups[3] = {20, 3, 1}, local[3] = {1, 1, 1}, none[3] = {0, 0, 0};
    struct kiln_wg_ctx ctx = grid(groups, local, none);
    struct kiln_cpu_walk walk;
    kiln_cpu_group_first(&ctx, &walk, true, 0);
    for (size_t n = 0; n < 8 * 3; n++) {
        CHECK(ctx.group_id[0] == n % 8 && ctx.group_id[1] == n / 8);
        kiln_cpu_group_next(&ctx, &walk);
    }
    CHECK(ctx.group_id[0] == 8 && ctx.group_id[1] == 0);
    printf("cpu walk: all checks passed\n");
    return 0;
}
