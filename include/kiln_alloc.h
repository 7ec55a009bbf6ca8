/*
 * The allocation functions of the runtime, the device layer and the scheduler:
 * malloc, calloc, realloc, aligned_alloc and strdup under Kiln's names.
 *
 * In a normal build each is the C library's function and nothing else. In a
 * build configured with -DKILN_FAULT_INJECTION=ON every call first asks
 * kiln_alloc_fails(), which counts the calls of the whole process and makes
 * the one numbered KILN_FAIL_ALLOC fail (return NULL without allocating), so a
 * test run can walk the cleanup path behind each allocation in turn
 * (docs/testing.md, "Allocation failures"). free() needs no wrapper.
 *
 * The header lives in include/, which every layer may use; its counter lives in
 * the scheduler, the lowest layer that allocates, so the runtime above and the
 * scheduler share one counter. Memory LLVM, the compiler library, hwloc or
 * the C library allocate on their own is not counted.
 */
#ifndef KILN_INCLUDE_KILN_ALLOC_H
#define KILN_INCLUDE_KILN_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef KILN_FAULT_INJECTION
/*
 * Counts one allocation; true when it is the one KILN_FAIL_ALLOC names, after
 * saying so on stderr ("kiln: injected allocation failure N"). Thread-safe.
 */
bool kiln_alloc_fails(void);
#else
static inline bool kiln_alloc_fails(void)
{
    return false;
}
#endif

static inline void *kiln_malloc(size_t size)
{
    return kiln_alloc_fails() ? NULL : malloc(size);
}

static inline void *kiln_calloc(size_t count, size_t size)
{
    return kiln_alloc_fails() ? NULL : calloc(count, size);
}

/* On failure, like realloc, `ptr` stays allocated and unchanged. */
static inline void *kiln_realloc(void *ptr, size_t size)
{
    return kiln_alloc_fails() ? NULL : realloc(ptr, size);
}

static inline void *kiln_aligned_alloc(size_t align, size_t size)
{
    return kiln_alloc_fails() ? NULL : aligned_alloc(align, size);
}

static inline char *kiln_strdup(const char *s)
{
    return kiln_alloc_fails() ? NULL : strdup(s);
}

#endif /* KILN_INCLUDE_KILN_ALLOC_H */
