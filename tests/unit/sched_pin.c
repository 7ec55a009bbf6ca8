/*
 * By default there is one worker per physical core, named kiln-wg-<i>, each
 * pinned to exactly one CPU, no two on the same CPU, as kiln_sched_worker_cpu()
 * says. A long name prefix is cut to the 15 characters Linux keeps.
 */
#include "kiln_device.h"
#include "sched_test.h"

struct seen {
    struct kiln_sched *s;
    int cpu_of[4096];
    int named[4096];
};

static void check_worker(int tid, const char *comm, void *arg)
{
    struct seen *seen = arg;
    unsigned i = (unsigned)atoi(comm + strlen("kiln-wg-"));
    cpu_set_t set;

    CHECK(i < kiln_sched_num_workers(seen->s));
    CHECK(!seen->named[i]);
    seen->named[i] = 1;
    CHECK(sched_getaffinity(tid, sizeof set, &set) == 0);
    CHECK(CPU_COUNT(&set) == 1);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            seen->cpu_of[i] = c;
    CHECK(seen->cpu_of[i] == kiln_sched_worker_cpu(seen->s, i));
}

static int count_long(void)
{
    return for_each_named("abcdefghij-", NULL, NULL);
}

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = -1, .local_mem_size = 1024};
    static struct seen seen;
    struct kiln_sched *s;

    unsetenv("KILN_NUM_THREADS");
    int before = thread_baseline();
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    unsigned n = kiln_sched_num_workers(s);
    CHECK(n == kiln_cpu_info_get()->physical_cores);
    seen.s = s;
    CHECK(for_each_named("kiln-wg-", check_worker, &seen) == (int)n);
    for (unsigned i = 0; i < n; i++) {
        CHECK(seen.named[i]);
        for (unsigned j = 0; j < i; j++)
            CHECK(seen.cpu_of[i] != seen.cpu_of[j]);
    }
    kiln_sched_destroy(s);
    CHECK(thread_count_settles(before));

    /* "abcdefghij-12" fits; the index may be cut off but the name is still set. */
    cfg.name = "abcdefghij";
    cfg.num_threads = 2;
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    CHECK(count_long() == 2);
    kiln_sched_destroy(s);
    return 0;
}
