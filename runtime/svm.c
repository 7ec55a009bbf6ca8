/*
 * Shared virtual memory (clSVMAlloc, clSVMFree, the clEnqueueSVM* commands; the
 * kernel side, clSetKernelArgSVMPointer and clSetKernelExecInfo, is in kernel.c).
 *
 * Host and device are the same processor with one address space, so every kind of SVM
 * is plain memory: coarse- and fine-grained buffers are allocations the context keeps
 * a list of, fine-grained system SVM is any pointer the process owns, and atomics are
 * coherent between host threads and kernels because they run on the same cores. The
 * commands keep the queue's order and events; mapping moves nothing.
 *
 * Each context lists its allocations (under its leaf lock) so clSVMFree can find them,
 * CL_MEM_USES_SVM_POINTER can answer, and a context destroyed with allocations left
 * frees them rather than leaking them.
 */
#include "rt_svm.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_queue.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One clSVMAlloc allocation. */
struct kiln_rt_svm {
    void *ptr;
    size_t size;
    cl_svm_mem_flags flags;
    struct kiln_rt_svm *next;
};

/* The largest type's alignment (long16, double16): the most clSVMAlloc accepts. */
#define SVM_MAX_ALIGN 128

void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                             cl_uint alignment)
{
    if (kiln_rt_check_context(context) != CL_SUCCESS)
        return NULL;
    const cl_svm_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_svm_mem_flags known = access | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;
    cl_svm_mem_flags a = flags & access;
    if (flags & ~known) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMAlloc: unknown flags 0x%llx",
                 (unsigned long long)(flags & ~known));
        return NULL;
    }
    if (a & (a - 1)) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMAlloc: more than one access flag");
        return NULL;
    }
    if ((flags & CL_MEM_SVM_ATOMICS) && !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER)) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMAlloc: CL_MEM_SVM_ATOMICS without FINE_GRAIN_BUFFER");
        return NULL;
    }
    if (size == 0 || size > context->device->max_alloc) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMAlloc: size %zu (1 to %llu bytes)", size,
                 (unsigned long long)context->device->max_alloc);
        return NULL;
    }
    if ((alignment & (alignment - 1)) || alignment > SVM_MAX_ALIGN) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMAlloc: alignment %u (a power of two up to %u)", alignment,
                 SVM_MAX_ALIGN);
        return NULL;
    }
    struct kiln_rt_svm *s = kiln_calloc(1, sizeof(*s));
    /* Always 128-byte aligned, like buffers; aligned_alloc wants a multiple of it. */
    size_t rounded = (size + SVM_MAX_ALIGN - 1) / SVM_MAX_ALIGN * SVM_MAX_ALIGN;
    void *p = s ? kiln_aligned_alloc(SVM_MAX_ALIGN, rounded) : NULL;
    if (!p) {
        free(s);
        KILN_ERR(CL_OUT_OF_HOST_MEMORY, "clSVMAlloc: %zu bytes", size);
        return NULL;
    }
    s->ptr = p;
    s->size = size;
    s->flags = flags;
    pthread_mutex_lock(&context->lock);
    s->next = context->svm;
    context->svm = s;
    pthread_mutex_unlock(&context->lock);
    KILN_LOG(KILN_DBG_MEM, "SVM allocation %p of %zu bytes, flags 0x%llx", p, size,
             (unsigned long long)flags);
    return p;
}

void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer)
{
    if (kiln_rt_check_context(context) != CL_SUCCESS || svm_pointer == NULL)
        return;
    pthread_mutex_lock(&context->lock);
    struct kiln_rt_svm **at = &context->svm;
    while (*at && (*at)->ptr != svm_pointer)
        at = &(*at)->next;
    struct kiln_rt_svm *s = *at;
    if (s)
        *at = s->next;
    pthread_mutex_unlock(&context->lock);
    if (!s) {
        KILN_ERR(CL_INVALID_VALUE, "clSVMFree: %p is not an SVM allocation of context %p",
                 svm_pointer, (void *)context);
        return;
    }
    free(s->ptr);
    free(s);
}

void kiln_rt_svm_free_all(cl_context context)
{
    while (context->svm) {
        struct kiln_rt_svm *s = context->svm;
        context->svm = s->next;
        free(s->ptr);
        free(s);
    }
}

size_t kiln_rt_svm_extent(cl_context context, const void *p)
{
    size_t left = 0;
    uintptr_t at = (uintptr_t)p;
    pthread_mutex_lock(&context->lock);
    for (struct kiln_rt_svm *s = context->svm; s && !left; s = s->next)
        if (at >= (uintptr_t)s->ptr && at - (uintptr_t)s->ptr < s->size)
            left = s->size - (at - (uintptr_t)s->ptr);
    pthread_mutex_unlock(&context->lock);
    return left;
}

/* ---- commands ----------------------------------------------------------------- */

/* clEnqueueSVMFree without a callback: clSVMFree of each pointer, run as the command. */
static void CL_CALLBACK free_each(cl_command_queue q, cl_uint num, void *ptrs[], void *user_data)
{
    (void)user_data;
    for (cl_uint i = 0; i < num; i++)
        clSVMFree(q->context, ptrs[i]);
}

cl_int CL_API_CALL clEnqueueSVMFree(cl_command_queue q, cl_uint num, void *ptrs[],
                                    void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[],
                                                          void *),
                                    void *user_data, cl_uint n, const cl_event *list,
                                    cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (num == 0) != (ptrs == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_svm_pointers %u with svm_pointers %p", num,
                       (void *)ptrs);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num; i++)
        if (ptrs[i] == NULL)
            err = KILN_ERR(CL_INVALID_VALUE, "svm_pointers[%u] is NULL", i);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_SVM_FREE, CL_COMMAND_SVM_FREE, &cmd);
    if (err != CL_SUCCESS)
        return err;
    struct kiln_rt_svm_free *f = &cmd->u.svm_free;
    /* The application may reuse its array once the call returns: keep a copy. */
    f->ptrs = kiln_malloc((num ? num : 1) * sizeof(void *));
    if (!f->ptrs) {
        kiln_rt_command_discard(cmd);
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "SVM free list");
    }
    if (num)
        memcpy(f->ptrs, ptrs, num * sizeof(void *));
    f->num = num;
    f->fn = fn ? fn : free_each;
    f->user_data = user_data;
    return kiln_rt_command_submit(cmd, n, list, event, false);
}

cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void *dst,
                                      const void *src, size_t size, cl_uint n, const cl_event *list,
                                      cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (dst == NULL || src == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "dst_ptr %p, src_ptr %p", dst, src);
    if (err == CL_SUCCESS) {
        uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
        if ((d <= s && s - d < size) || (s < d && d - s < size))
            err = KILN_ERR(CL_MEM_COPY_OVERLAP, "%zu bytes from %p to %p overlap", size, src, dst);
    }
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = kiln_rt_submit_bytes(q, KILN_CMD_COPY, CL_COMMAND_SVM_MEMCPY, dst, src, size, NULL,
                                   NULL, NULL, 0, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue q, void *ptr, const void *pattern,
                                       size_t pattern_size, size_t size, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && ptr == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "svm_ptr is NULL");
    if (err == CL_SUCCESS && (!pattern || pattern_size == 0 || pattern_size > 128 ||
                              (pattern_size & (pattern_size - 1))))
        err = KILN_ERR(CL_INVALID_VALUE, "pattern %p of %zu bytes (1, 2, 4, ..., 128 allowed)",
                       pattern, pattern_size);
    if (err == CL_SUCCESS && ((uintptr_t)ptr % pattern_size || size % pattern_size))
        err = KILN_ERR(CL_INVALID_VALUE, "svm_ptr %p or size %zu not a multiple of %zu", ptr, size,
                       pattern_size);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = kiln_rt_submit_bytes(q, KILN_CMD_FILL, CL_COMMAND_SVM_MEMFILL, ptr, NULL, size, NULL,
                                   NULL, pattern, pattern_size, CL_FALSE, n, list, event);
    return err;
}

/* An ordered command that moves nothing: map, unmap and migrate of shared memory. */
static cl_int nothing_to_move(cl_command_queue q, cl_command_type type, cl_bool blocking, cl_uint n,
                              const cl_event *list, cl_event *event)
{
    cl_int err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_MARKER, type, &cmd);
    if (err == CL_SUCCESS)
        err = kiln_rt_command_submit(cmd, n, list, event, blocking);
    return err;
}

cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue q, cl_bool blocking, cl_map_flags flags,
                                   void *ptr, size_t size, cl_uint n, const cl_event *list,
                                   cl_event *event)
{
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (ptr == NULL || size == 0))
        err = KILN_ERR(CL_INVALID_VALUE, "svm_ptr %p, size %zu", ptr, size);
    if (err == CL_SUCCESS && (flags & ~known || ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                                                 (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        err = KILN_ERR(CL_INVALID_VALUE, "map flags 0x%llx", (unsigned long long)flags);
    if (err == CL_SUCCESS)
        err = nothing_to_move(q, CL_COMMAND_SVM_MAP, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue q, void *ptr, cl_uint n, const cl_event *list,
                                     cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && ptr == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "svm_ptr is NULL");
    if (err == CL_SUCCESS)
        err = nothing_to_move(q, CL_COMMAND_SVM_UNMAP, CL_FALSE, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue q, cl_uint num, const void **ptrs,
                                          const size_t *sizes, cl_mem_migration_flags flags,
                                          cl_uint n, const cl_event *list, cl_event *event)
{
    const cl_mem_migration_flags known =
        CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (num == 0 || ptrs == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_svm_pointers %u, svm_pointers %p", num,
                       (const void *)ptrs);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num; i++)
        if (ptrs[i] == NULL)
            err = KILN_ERR(CL_INVALID_VALUE, "svm_pointers[%u] is NULL", i);
    if (err == CL_SUCCESS && (flags & ~known))
        err = KILN_ERR(CL_INVALID_VALUE, "migration flags 0x%llx", (unsigned long long)flags);
    (void)sizes; /* any size, 0 meaning the whole allocation: nothing moves either way */
    if (err == CL_SUCCESS)
        err = nothing_to_move(q, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, n, list, event);
    return err;
}
