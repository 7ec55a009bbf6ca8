/*
 * Shared virtual memory (svm.c): what other objects ask of a context's SVM allocations.
 */
#ifndef KILN_RUNTIME_RT_SVM_H
#define KILN_RUNTIME_RT_SVM_H

#include <CL/cl.h>
#include <stddef.h>

struct kiln_rt_svm;
/* Free what clSVMAlloc gave out in `c` and clSVMFree did not take back (c is dying). */
void kiln_rt_svm_free_all(cl_context c);
/* When `p` lies inside one of c's SVM allocations, the bytes from p to its end; else 0. */
size_t kiln_rt_svm_extent(cl_context c, const void *p);

#endif
