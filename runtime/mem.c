/*
 * Buffers and their transfer commands (clCreateBuffer[WithProperties],
 * clRetain/ReleaseMemObject, clGetMemObjectInfo, clEnqueueRead/Write/Copy/FillBuffer,
 * clEnqueueMapBuffer, clEnqueueUnmapMemObject).
 *
 * Host and device share memory, so a buffer is one allocation, 128-byte aligned
 * (page aligned and huge-page advised when large). CL_MEM_USE_HOST_PTR uses the
 * caller's memory directly, and mapping returns a pointer into the buffer: both
 * are zero-copy.
 */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BUFFER_ALIGN 128
#define LARGE_BUFFER (2u * 1024 * 1024)

cl_int kiln_rt_check_mem(cl_mem m)
{
    if (!kiln_rt_obj_is(m, KILN_TAG_MEM))
        return KILN_ERR(CL_INVALID_MEM_OBJECT, "%p is not a memory object", (void *)m);
    return CL_SUCCESS;
}

static void mem_destroy(struct kiln_object *obj)
{
    cl_mem m = (cl_mem)obj;
    while (m->maps) {
        struct kiln_rt_mapping *next = m->maps->next;
        free(m->maps);
        m->maps = next;
    }
    if (m->owns_data)
        free(m->data);
    pthread_mutex_destroy(&m->lock);
    kiln_rt_obj_drop(&m->context->obj);
    free(m);
}

static cl_int check_mem_flags(cl_mem_flags flags, void *host_ptr)
{
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_mem_flags host =
        CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    const cl_mem_flags known = access | host | CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
                               CL_MEM_COPY_HOST_PTR | CL_MEM_KERNEL_READ_AND_WRITE;
    if (flags & ~known)
        return KILN_ERR(CL_INVALID_VALUE, "unknown memory flags 0x%llx", (unsigned long long)flags);
    if (__builtin_popcountll(flags & access) > 1)
        return KILN_ERR(CL_INVALID_VALUE, "more than one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    if (__builtin_popcountll(flags & host) > 1)
        return KILN_ERR(CL_INVALID_VALUE,
                        "more than one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
        return KILN_ERR(CL_INVALID_VALUE, "USE_HOST_PTR with ALLOC_HOST_PTR or COPY_HOST_PTR");
    bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
    if (wants_ptr && !host_ptr)
        return KILN_ERR(CL_INVALID_HOST_PTR, "USE_HOST_PTR or COPY_HOST_PTR with a NULL host_ptr");
    if (!wants_ptr && host_ptr)
        return KILN_ERR(CL_INVALID_HOST_PTR,
                        "host_ptr given without USE_HOST_PTR or COPY_HOST_PTR");
    return CL_SUCCESS;
}

static cl_int buffer_create(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr,
                            cl_mem *out)
{
    cl_mem m = calloc(1, sizeof(*m));
    if (!m)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "buffer object");
    if (flags & CL_MEM_USE_HOST_PTR) {
        m->data = host_ptr;
        m->host_ptr = host_ptr;
    } else {
        size_t align = size >= LARGE_BUFFER ? 4096 : BUFFER_ALIGN;
        size_t rounded = (size + align - 1) / align * align;
        m->data = aligned_alloc(align, rounded);
        if (!m->data) {
            free(m);
            return KILN_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE, "%zu bytes", size);
        }
        if (size >= LARGE_BUFFER)
            madvise(m->data, rounded, MADV_HUGEPAGE);
        m->owns_data = true;
        if (flags & CL_MEM_COPY_HOST_PTR)
            memcpy(m->data, host_ptr, size);
    }
    if (!(flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)))
        flags |= CL_MEM_READ_WRITE;
    pthread_mutex_init(&m->lock, NULL);
    kiln_rt_obj_init(&m->obj, KILN_TAG_MEM, mem_destroy);
    m->context = ctx;
    kiln_rt_obj_hold(&ctx->obj);
    m->type = CL_MEM_OBJECT_BUFFER;
    m->flags = flags;
    m->size = size;
    atomic_init(&m->map_count, 0);
    KILN_LOG(KILN_DBG_MEM, "buffer %p: %zu bytes at %p", (void *)m, size, (void *)m->data);
    *out = m;
    return CL_SUCCESS;
}

/* clCreateBuffer and clCreateBufferWithProperties after the properties. */
static cl_mem create_buffer(cl_context context, const cl_mem_properties *properties,
                            cl_mem_flags flags, size_t size, void *host_ptr, cl_int *errcode_ret)
{
    cl_mem mem = NULL;
    cl_int err = kiln_rt_check_context(context);
    /* OpenCL 3.0 defines no buffer property Kiln supports: only an empty list is valid. */
    if (err == CL_SUCCESS && properties && properties[0] != 0)
        err = KILN_ERR(CL_INVALID_PROPERTY, "unknown buffer property 0x%llx",
                       (unsigned long long)properties[0]);
    if (err == CL_SUCCESS)
        err = check_mem_flags(flags, host_ptr);
    if (err == CL_SUCCESS && (size == 0 || size > context->device->max_alloc))
        err = KILN_ERR(CL_INVALID_BUFFER_SIZE, "size %zu (the most is %llu)", size,
                       (unsigned long long)context->device->max_alloc);
    if (err == CL_SUCCESS)
        err = buffer_create(context, flags, size, host_ptr, &mem);
    kiln_set_errcode(errcode_ret, err);
    return mem;
}

cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                  void *host_ptr, cl_int *errcode_ret)
{
    return create_buffer(context, NULL, flags, size, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context,
                                                const cl_mem_properties *properties,
                                                cl_mem_flags flags, size_t size, void *host_ptr,
                                                cl_int *errcode_ret)
{
    return create_buffer(context, properties, flags, size, host_ptr, errcode_ret);
}

cl_int CL_API_CALL clRetainMemObject(cl_mem memobj)
{
    cl_int err = kiln_rt_check_mem(memobj);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&memobj->obj);
    return err;
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj)
{
    cl_int err = kiln_rt_check_mem(memobj);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&memobj->obj);
    return err;
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param_name, size_t param_value_size,
                                      void *param_value, size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_mem(m);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    size_t zero = 0;
    cl_mem none = NULL;
    cl_bool no = CL_FALSE;
    switch (param_name) {
    case CL_MEM_TYPE:
        return kiln_rt_info(&m->type, sizeof(m->type), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_FLAGS:
        return kiln_rt_info(&m->flags, sizeof(m->flags), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_SIZE:
        return kiln_rt_info(&m->size, sizeof(m->size), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_HOST_PTR:
        return kiln_rt_info(&m->host_ptr, sizeof(m->host_ptr), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_MAP_COUNT:
        u = atomic_load_explicit(&m->map_count, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_MEM_REFERENCE_COUNT:
        u = atomic_load_explicit(&m->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_MEM_CONTEXT:
        return kiln_rt_info(&m->context, sizeof(m->context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_ASSOCIATED_MEMOBJECT:
        return kiln_rt_info(&none, sizeof(none), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_OFFSET:
        return kiln_rt_info(&zero, sizeof(zero), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_USES_SVM_POINTER:
        return kiln_rt_info(&no, sizeof(no), param_value_size, param_value, param_value_size_ret);
    case CL_MEM_PROPERTIES:
        return kiln_rt_info(NULL, 0, param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown memory object query 0x%x", param_name);
    }
}

/* ---- transfers ---------------------------------------------------------------- */

static cl_int check_buffer_in_queue(cl_command_queue q, cl_mem m)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_mem(m);
    if (err == CL_SUCCESS && m->type != CL_MEM_OBJECT_BUFFER)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "not a buffer");
    if (err == CL_SUCCESS && m->context != q->context)
        err = KILN_ERR(CL_INVALID_CONTEXT, "the buffer and the queue have different contexts");
    return err;
}

static cl_int check_range(cl_mem m, size_t offset, size_t size)
{
    if (offset > m->size || size > m->size - offset)
        return KILN_ERR(CL_INVALID_VALUE, "offset %zu + size %zu exceeds the buffer's %zu bytes",
                        offset, size, m->size);
    return CL_SUCCESS;
}

/* Build and submit a byte-moving command. mem_a and mem_b are held until it completes. */
static cl_int submit_bytes(cl_command_queue q, enum kiln_rt_cmd_kind kind, cl_command_type type,
                           void *dst, const void *src, size_t size, cl_mem mem_a, cl_mem mem_b,
                           const void *pattern, size_t pattern_size, cl_bool blocking, cl_uint n,
                           const cl_event *list, cl_event *event)
{
    struct kiln_rt_command *cmd = NULL;
    cl_int err = kiln_rt_command_create(q, kind, type, &cmd);
    if (err != CL_SUCCESS)
        return err;
    cmd->u.copy.dst = dst;
    cmd->u.copy.src = src;
    cmd->u.copy.size = size;
    if (pattern) {
        memcpy(cmd->u.copy.pattern_store, pattern, pattern_size);
        cmd->u.copy.pattern = cmd->u.copy.pattern_store;
        cmd->u.copy.pattern_size = pattern_size;
    }
    cmd->mems[0] = mem_a;
    kiln_rt_obj_hold(&mem_a->obj);
    if (mem_b) {
        cmd->mems[1] = mem_b;
        kiln_rt_obj_hold(&mem_b->obj);
    }
    return kiln_rt_command_submit(cmd, n, list, event, blocking);
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                       size_t offset, size_t size, void *ptr, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    cl_int err = check_buffer_in_queue(q, buffer);
    if (err == CL_SUCCESS && ptr == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "ptr is NULL");
    if (err == CL_SUCCESS)
        err = check_range(buffer, offset, size);
    if (err == CL_SUCCESS && (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
        err = KILN_ERR(CL_INVALID_OPERATION, "the buffer was created HOST_WRITE_ONLY or NO_ACCESS");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_bytes(q, KILN_CMD_READ, CL_COMMAND_READ_BUFFER, ptr, buffer->data + offset,
                           size, buffer, NULL, NULL, 0, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                        size_t offset, size_t size, const void *ptr, cl_uint n,
                                        const cl_event *list, cl_event *event)
{
    cl_int err = check_buffer_in_queue(q, buffer);
    if (err == CL_SUCCESS && ptr == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "ptr is NULL");
    if (err == CL_SUCCESS)
        err = check_range(buffer, offset, size);
    if (err == CL_SUCCESS && (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
        err = KILN_ERR(CL_INVALID_OPERATION, "the buffer was created HOST_READ_ONLY or NO_ACCESS");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_bytes(q, KILN_CMD_WRITE, CL_COMMAND_WRITE_BUFFER, buffer->data + offset, ptr,
                           size, buffer, NULL, NULL, 0, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                       size_t src_offset, size_t dst_offset, size_t size, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    cl_int err = check_buffer_in_queue(q, src);
    if (err == CL_SUCCESS)
        err = check_buffer_in_queue(q, dst);
    if (err == CL_SUCCESS)
        err = check_range(src, src_offset, size);
    if (err == CL_SUCCESS)
        err = check_range(dst, dst_offset, size);
    if (err == CL_SUCCESS && src == dst &&
        (src_offset < dst_offset ? dst_offset - src_offset : src_offset - dst_offset) < size)
        err = KILN_ERR(CL_MEM_COPY_OVERLAP, "source and destination regions overlap");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err =
            submit_bytes(q, KILN_CMD_COPY, CL_COMMAND_COPY_BUFFER, dst->data + dst_offset,
                         src->data + src_offset, size, src, dst, NULL, 0, CL_FALSE, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem buffer, const void *pattern,
                                       size_t pattern_size, size_t offset, size_t size, cl_uint n,
                                       const cl_event *list, cl_event *event)
{
    cl_int err = check_buffer_in_queue(q, buffer);
    if (err == CL_SUCCESS && (!pattern || pattern_size == 0 || pattern_size > 128 ||
                              (pattern_size & (pattern_size - 1))))
        err = KILN_ERR(CL_INVALID_VALUE, "pattern %p of %zu bytes (1, 2, 4, ..., 128 allowed)",
                       pattern, pattern_size);
    if (err == CL_SUCCESS && (offset % pattern_size || size % pattern_size))
        err = KILN_ERR(CL_INVALID_VALUE, "offset %zu or size %zu not a multiple of %zu", offset,
                       size, pattern_size);
    if (err == CL_SUCCESS)
        err = check_range(buffer, offset, size);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_bytes(q, KILN_CMD_FILL, CL_COMMAND_FILL_BUFFER, buffer->data + offset, NULL,
                           size, buffer, NULL, pattern, pattern_size, CL_FALSE, n, list, event);
    return err;
}

void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                     cl_map_flags flags, size_t offset, size_t size, cl_uint n,
                                     const cl_event *list, cl_event *event, cl_int *errcode_ret)
{
    void *ptr = NULL;
    struct kiln_rt_mapping *map = NULL;
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int err = check_buffer_in_queue(q, buffer);
    if (err == CL_SUCCESS && (flags & ~known || ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                                                 (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        err = KILN_ERR(CL_INVALID_VALUE, "map flags 0x%llx", (unsigned long long)flags);
    if (err == CL_SUCCESS && size == 0)
        err = KILN_ERR(CL_INVALID_VALUE, "size is 0");
    if (err == CL_SUCCESS)
        err = check_range(buffer, offset, size);
    if (err == CL_SUCCESS && (flags & CL_MAP_READ) &&
        (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
        err = KILN_ERR(CL_INVALID_OPERATION, "CL_MAP_READ of a HOST_WRITE_ONLY/NO_ACCESS buffer");
    if (err == CL_SUCCESS && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
        (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
        err = KILN_ERR(CL_INVALID_OPERATION, "CL_MAP_WRITE of a HOST_READ_ONLY/NO_ACCESS buffer");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS) {
        map = calloc(1, sizeof(*map));
        if (!map)
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "mapping record");
    }
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_MAP, CL_COMMAND_MAP_BUFFER, &cmd);
    if (err == CL_SUCCESS) {
        ptr = buffer->data + offset;
        map->ptr = ptr;
        map->offset = offset;
        map->size = size;
        map->flags = flags;
        pthread_mutex_lock(&buffer->lock);
        map->next = buffer->maps;
        buffer->maps = map;
        pthread_mutex_unlock(&buffer->lock);
        map = NULL;
        atomic_fetch_add_explicit(&buffer->map_count, 1, memory_order_relaxed);
        cmd->mems[0] = buffer;
        kiln_rt_obj_hold(&buffer->obj);
        err = kiln_rt_command_submit(cmd, n, list, event, blocking);
    }
    free(map);
    if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        ptr = NULL;
    kiln_set_errcode(errcode_ret, err);
    return ptr;
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem memobj, void *mapped_ptr,
                                           cl_uint n, const cl_event *list, cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_mem(memobj);
    if (err == CL_SUCCESS && memobj->context != q->context)
        err = KILN_ERR(CL_INVALID_CONTEXT, "the memory object and the queue differ in context");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_mapping *found = NULL;
    if (err == CL_SUCCESS) {
        pthread_mutex_lock(&memobj->lock);
        for (struct kiln_rt_mapping **p = &memobj->maps; *p; p = &(*p)->next) {
            if ((*p)->ptr == mapped_ptr) {
                found = *p;
                *p = found->next;
                break;
            }
        }
        pthread_mutex_unlock(&memobj->lock);
        if (!found)
            err = KILN_ERR(CL_INVALID_VALUE, "%p is not a pointer mapped from this object",
                           mapped_ptr);
    }
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_UNMAP, CL_COMMAND_UNMAP_MEM_OBJECT, &cmd);
    if (err == CL_SUCCESS) {
        atomic_fetch_sub_explicit(&memobj->map_count, 1, memory_order_relaxed);
        cmd->mems[0] = memobj;
        kiln_rt_obj_hold(&memobj->obj);
        free(found);
        found = NULL;
        err = kiln_rt_command_submit(cmd, n, list, event, false);
    }
    if (found) { /* could not enqueue: keep the mapping */
        pthread_mutex_lock(&memobj->lock);
        found->next = memobj->maps;
        memobj->maps = found;
        pthread_mutex_unlock(&memobj->lock);
    }
    return err;
}
