/*
 * A scheduler given a core subset starts one worker per listed CPU, pins each to
 * exactly its CPU in the listed order, and rejects a bad list. The subset is
 * taken from the CPUs this process may use, so the test fits 1, 2 or many.
 */
#include "sched_test.h"

#include <errno.h>

struct seen {
    struct kiln_sched *s;
    int count;
    int bad;
};

static void check_worker(int tid, const char *comm, void *arg)
{
    struct seen *seen = arg;
    unsigned i = (unsigned)atoi(comm + strlen("kiln-sub-"));
    cpu_set_t set;

    seen->count++;
    if (i >= kiln_sched_num_workers(seen->s) || sched_getaffinity(tid, sizeof set, &set) != 0 ||
        CPU_COUNT(&set) != 1 || !CPU_ISSET(kiln_sched_worker_cpu(seen->s, i), &set))
        seen->bad++;
}

int main(void)
{
    struct kiln_sched *s;
    cpu_set_t allowed;

    /* Up to two CPUs this process may run on, the last two in reverse order. */
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int subset[2] = {-1, -1};
    unsigned avail = 0;
    for (int c = CPU_SETSIZE - 1; c >= 0 && avail < 2; c--)
        if (CPU_ISSET(c, &allowed))
            subset[avail++] = c;
    CHECK(avail >= 1);

    for (unsigned k = 1; k <= avail; k++) {
        struct kiln_sched_config sub = {.num_threads = -1,
                                        .local_mem_size = 256,
                                        .name = "kiln-sub",
                                        .cpus = subset,
                                        .num_cpus = k};
        CHECK(kiln_sched_create(&sub, &s) == 0);
        CHECK(kiln_sched_num_workers(s) == k);
        for (unsigned i = 0; i < k; i++)
            CHECK(kiln_sched_worker_cpu(s, i) == subset[i]);
        struct seen seen = {.s = s};
        CHECK(for_each_named("kiln-sub-", check_worker, &seen) == (int)k);
        CHECK(seen.count == (int)k && seen.bad == 0);
        kiln_sched_destroy(s);
    }

    /* More workers than listed CPUs, a negative CPU, a missing list: EINVAL. */
    struct kiln_sched_config bad = {.num_threads = 2, .cpus = subset, .num_cpus = 1};
    CHECK(kiln_sched_create(&bad, &s) == EINVAL);
    int negative = -1;
    bad = (struct kiln_sched_config){.num_threads = -1, .cpus = &negative, .num_cpus = 1};
    CHECK(kiln_sched_create(&bad, &s) == EINVAL);
    bad = (struct kiln_sched_config){.num_threads = -1, .cpus = NULL, .num_cpus = 1};
    CHECK(kiln_sched_create(&bad, &s) == EINVAL);
    return 0;
}
