/*
 * What the ICD layer needs from the runtime. The cl* entry points themselves are
 * declared by <CL/cl.h>; the runtime defines them with hidden visibility.
 */
#ifndef KILN_RUNTIME_KILN_RT_H
#define KILN_RUNTIME_KILN_RT_H

#include <CL/cl.h>
#include <CL/cl_icd.h>

/* Set up the platform and device objects to use `dispatch`. Call once. */
void kiln_rt_init(const cl_icd_dispatch *dispatch);
/* clGetPlatformIDs for the loader. */
cl_int kiln_rt_platform_ids(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms);
/* CL_SUCCESS when `p` is Kiln's platform (NULL is not). */
cl_int kiln_rt_platform_is(cl_platform_id p);

#endif
