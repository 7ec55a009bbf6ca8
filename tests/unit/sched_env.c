/*
 * KILN_NUM_THREADS sets the number of workers when the configuration asks for
 * the default: run with it set to argv[1] ("cores" means: an invalid value is
 * ignored and the default, one per physical core, applies).
 */
#include "kiln_device.h"
#include "sched_test.h"

int main(int argc, char **argv)
{
    struct kiln_sched_config cfg = {.num_threads = -1, .local_mem_size = 128};
    struct kiln_sched *s;

    CHECK(argc == 2);
    unsigned want = strcmp(argv[1], "cores") == 0 ? kiln_cpu_info_get()->physical_cores
                                                  : (unsigned)atoi(argv[1]);
    CHECK(kiln_sched_create(&cfg, &s) == 0);
    CHECK(kiln_sched_num_workers(s) == want);
    CHECK(for_each_named("kiln-wg-", NULL, NULL) == (int)want);
    struct count_job *c = count_job_new(777, 0);
    kiln_sched_submit(s, &c->job);
    if (want == 0)
        CHECK(atomic_load_explicit(&c->finished, memory_order_acquire));
    count_job_wait(s, c);
    CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
    count_job_free(c);
    kiln_sched_destroy(s);
    return 0;
}
