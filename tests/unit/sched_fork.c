/*
 * After fork() the child has none of the parent's workers: a job submitted
 * there runs, done() included, on the calling thread before submit returns,
 * and the parent's pool keeps working.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "sched_test.h"

int main(void)
{
    struct kiln_sched_config cfg = {.num_threads = 2, .local_mem_size = 256};
    struct kiln_sched *s;

    CHECK(kiln_sched_create(&cfg, &s) == 0);
    struct count_job *c = count_job_new(500, 0);
    kiln_sched_submit(s, &c->job);
    count_job_wait(s, c);
    count_job_free(c);

    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct count_job *k = count_job_new(300, 0);
        kiln_sched_submit(s, &k->job);
        int ok = atomic_load_explicit(&k->finished, memory_order_acquire) &&
                 atomic_load_explicit(&k->all_ran, memory_order_relaxed) &&
                 kiln_sched_help(s, NULL) == 0;
        kiln_sched_destroy(s); /* releases nothing in the child */
        _exit(ok ? 0 : 3);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    c = count_job_new(500, 0);
    kiln_sched_submit(s, &c->job);
    count_job_wait(s, c);
    CHECK(atomic_load_explicit(&c->all_ran, memory_order_relaxed) == 1);
    count_job_free(c);
    kiln_sched_destroy(s);
    return 0;
}
