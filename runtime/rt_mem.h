/*
 * Memory objects: buffers, sub-buffers, pipes and images (mem.c, pipe.c, image.c). Lock order:
 * docs/locking.md.
 */
#ifndef KILN_RUNTIME_RT_MEM_H
#define KILN_RUNTIME_RT_MEM_H

#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "rt_object.h"

struct kiln_rt_callback;

struct kiln_rt_mapping {
    void *ptr;
    size_t offset, size;
    cl_map_flags flags;
    struct kiln_rt_mapping *next;
};

struct _cl_mem {
    struct kiln_object obj;
    cl_context context; /* held */
    cl_mem_object_type type;
    cl_mem_flags flags;
    size_t size;
    void *host_ptr; /* as given with CL_MEM_USE_HOST_PTR, else NULL */
    unsigned char *data;
    bool owns_data;
    bool has_props; /* made by clCreateBufferWithProperties with a (necessarily empty) list */
    cl_mem parent;  /* sub-buffers: the buffer they view (held); else NULL */
    size_t offset;  /* sub-buffers: origin in the parent */
    pthread_mutex_t lock;
    struct kiln_rt_mapping *maps; /* under lock */
    atomic_uint map_count;
    struct kiln_rt_callback *dtors; /* under lock: destructor callbacks, newest first */
    /* Images: what a kernel's image argument points to (include/kiln_image.h); else NULL. */
    struct kiln_image *image;
};

/*
 * A memory object of `type` (buffer or pipe) and `size` bytes over the caller's
 * host_ptr (CL_MEM_USE_HOST_PTR) or a new allocation, 128-byte aligned. Flags
 * and size are valid. Returns CL_OUT_OF_HOST_MEMORY or
 * CL_MEM_OBJECT_ALLOCATION_FAILURE on failure.
 */
cl_int kiln_rt_mem_create(cl_context ctx, cl_mem_object_type type, cl_mem_flags flags, size_t size,
                          void *host_ptr, cl_mem *out);

#endif
