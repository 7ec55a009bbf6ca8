/*
 * Creating and destroying pools in a loop leaves no thread behind, with or
 * without work run in between; a worker that cannot allocate its arena makes
 * kiln_sched_create() fail with ENOMEM, and that leaves no thread behind either.
 */
#include <errno.h>
#include <stdint.h>

#include "sched_test.h"

int main(void)
{
    static const int counts[] = {-1, 0, 1, 3};
    int before = thread_baseline();

    unsetenv("KILN_NUM_THREADS");
    for (int i = 0; i < 40; i++) {
        struct kiln_sched_config cfg = {.num_threads = counts[i % 4], .local_mem_size = 4096};
        struct kiln_sched *s;
        CHECK(kiln_sched_create(&cfg, &s) == 0);
        if (i % 3 == 0) {
            struct count_job *c = count_job_new(100, 0);
            kiln_sched_submit(s, &c->job);
            count_job_wait(s, c);
            count_job_free(c);
        }
        kiln_sched_destroy(s);
        CHECK(thread_count_settles(before));
    }
    for (int i = 0; i < 4; i++) {
        /* No allocator grants this, so every worker's handshake reports failure. */
        struct kiln_sched_config cfg = {.num_threads = counts[i], .local_mem_size = SIZE_MAX / 2};
        struct kiln_sched *s = NULL;
        CHECK(kiln_sched_create(&cfg, &s) == ENOMEM);
        CHECK(s == NULL);
        CHECK(thread_count_settles(before));
    }
    CHECK(kiln_sched_create(NULL, NULL) == EINVAL);
    return 0;
}
