/*
 * Allocation-failure injection (kiln_alloc.h): compiled only into builds
 * configured with -DKILN_FAULT_INJECTION=ON.
 *
 * KILN_FAIL_ALLOC=N (a positive decimal number) makes the Nth call of
 * kiln_malloc/calloc/realloc/aligned_alloc/strdup in the process return NULL;
 * every other call allocates. Unset, empty, 0 or not a number: nothing fails,
 * and the calls are still counted. The count is one atomic shared by every
 * thread, so with worker threads the order of their allocations against the
 * application thread's may differ between runs; the calling thread's own
 * order does not.
 */
#include "kiln_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static unsigned long fail_at; /* written once under env_once, then read only */
static atomic_ulong calls;    /* relaxed: only its atomicity matters */

static void read_env(void)
{
    const char *v = getenv("KILN_FAIL_ALLOC");
    char *end;

    if (!v || !*v)
        return;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (!errno && !*end && v[0] != '-')
        fail_at = n;
}

bool kiln_alloc_fails(void)
{
    if (pthread_once(&env_once, read_env) != 0)
        abort();
    unsigned long n = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1;
    if (fail_at == 0 || n != fail_at)
        return false;
    fprintf(stderr, "kiln: injected allocation failure %lu\n", n);
    return true;
}
