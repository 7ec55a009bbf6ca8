/*
 * Buffers, sub-buffers and their transfer commands (clCreateBuffer[WithProperties],
 * clCreateSubBuffer, clRetain/ReleaseMemObject, clGetMemObjectInfo,
 * clSetMemObjectDestructorCallback, clEnqueueRead/Write/Copy/FillBuffer,
 * clEnqueueRead/Write/CopyBufferRect, clEnqueueMapBuffer, clEnqueueUnmapMemObject,
 * clEnqueueMigrateMemObjects).
 *
 * Host and device share memory, so a buffer is one allocation, 128-byte aligned
 * (page aligned and huge-page advised when large). CL_MEM_USE_HOST_PTR uses the
 * caller's memory directly, and mapping returns a pointer into the buffer: both
 * are zero-copy.
 */
#include "rt_mem.h"
#include "rt_callback.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_object.h"
#include "rt_queue.h"
#include "rt_svm.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BUFFER_ALIGN 128
#define LARGE_BUFFER (2u * 1024 * 1024)

static void mem_destroy(struct kiln_object *obj)
{
    cl_mem m = (cl_mem)obj;
    /* OpenCL 3.0 §5.5.6: the callbacks run in reverse order of registration, before
     * the object's resources are freed. The object is no longer shared: no lock. */
    while (m->dtors) {
        struct kiln_rt_callback *cb = m->dtors;
        m->dtors = cb->next;
        ((void(CL_CALLBACK *)(cl_mem, void *))cb->fn)(m, cb->user_data);
        free(cb);
    }
    while (m->maps) {
        struct kiln_rt_mapping *next = m->maps->next;
        free(m->maps);
        m->maps = next;
    }
    if (m->owns_data)
        free(m->data);
    free(m->image);
    pthread_mutex_destroy(&m->lock);
    if (m->parent)
        kiln_rt_obj_drop(&m->parent->obj);
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

cl_int kiln_rt_mem_create(cl_context ctx, cl_mem_object_type type, cl_mem_flags flags, size_t size,
                          void *host_ptr, cl_mem *out)
{
    cl_mem m = kiln_calloc(1, sizeof(*m));
    if (!m)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "buffer object");
    if (flags & CL_MEM_USE_HOST_PTR) {
        m->data = host_ptr;
        m->host_ptr = host_ptr;
    } else {
        size_t align = size >= LARGE_BUFFER ? 4096 : BUFFER_ALIGN;
        size_t rounded = (size + align - 1) / align * align;
        m->data = kiln_aligned_alloc(align, rounded);
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
    m->type = type;
    m->flags = flags;
    m->size = size;
    atomic_init(&m->map_count, 0);
    KILN_LOG(KILN_DBG_MEM, "%s %p: %zu bytes at %p", type == CL_MEM_OBJECT_PIPE ? "pipe" : "buffer",
             (void *)m, size, (void *)m->data);
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
    if (err == CL_SUCCESS && (flags & CL_MEM_USE_HOST_PTR)) {
        /* A buffer on SVM memory must lie inside the allocation (OpenCL 3.0 §5.2.1). */
        size_t left = kiln_rt_svm_extent(context, host_ptr);
        if (left && size > left)
            err = KILN_ERR(CL_INVALID_BUFFER_SIZE,
                           "%zu bytes at %p run past the end of its SVM allocation (%zu left)",
                           size, host_ptr, left);
    }
    if (err == CL_SUCCESS)
        err = kiln_rt_mem_create(context, CL_MEM_OBJECT_BUFFER, flags, size, host_ptr, &mem);
    if (err == CL_SUCCESS)
        mem->has_props = properties != NULL;
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
        return kiln_rt_info(&m->parent, sizeof(m->parent), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_OFFSET:
        return kiln_rt_info(&m->offset, sizeof(m->offset), param_value_size, param_value,
                            param_value_size_ret);
    case CL_MEM_USES_SVM_POINTER: {
        const cl_mem root = m->parent ? m->parent : m;
        cl_bool svm = root->host_ptr && kiln_rt_svm_extent(m->context, root->host_ptr) != 0;
        return kiln_rt_info(&svm, sizeof(svm), param_value_size, param_value, param_value_size_ret);
    }
    case CL_MEM_PROPERTIES: {
        /* The list given to clCreateBufferWithProperties: only the empty one is accepted. */
        const cl_mem_properties none = 0;
        return kiln_rt_info(&none, m->has_props ? sizeof(none) : 0, param_value_size, param_value,
                            param_value_size_ret);
    }
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown memory object query 0x%x", param_name);
    }
}

/* ---- sub-buffers ------------------------------------------------------------- */

/*
 * The flags of a sub-buffer of `parent` (OpenCL 3.0 §5.2.1): access and host-access
 * flags not given are inherited, the host-pointer flags always are and may not be
 * given; a given flag may not widen what the parent allows.
 */
static cl_int sub_buffer_flags(cl_mem parent, cl_mem_flags flags, cl_mem_flags *out)
{
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_mem_flags host =
        CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    const cl_mem_flags ptr_flags =
        CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
    if (flags & ~(access | host | ptr_flags))
        return KILN_ERR(CL_INVALID_VALUE, "unknown sub-buffer flags 0x%llx",
                        (unsigned long long)flags);
    if (flags & ptr_flags)
        return KILN_ERR(CL_INVALID_VALUE,
                        "USE_HOST_PTR, ALLOC_HOST_PTR and COPY_HOST_PTR are inherited, not given");
    if (__builtin_popcountll(flags & access) > 1)
        return KILN_ERR(CL_INVALID_VALUE, "more than one of READ_WRITE, WRITE_ONLY, READ_ONLY");
    if (__builtin_popcountll(flags & host) > 1)
        return KILN_ERR(CL_INVALID_VALUE,
                        "more than one of HOST_WRITE_ONLY, HOST_READ_ONLY, HOST_NO_ACCESS");
    if ((parent->flags & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
        return KILN_ERR(CL_INVALID_VALUE, "the parent is WRITE_ONLY: the sub-buffer cannot read");
    if ((parent->flags & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
        return KILN_ERR(CL_INVALID_VALUE, "the parent is READ_ONLY: the sub-buffer cannot write");
    if ((parent->flags & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY))
        return KILN_ERR(CL_INVALID_VALUE, "the parent is HOST_WRITE_ONLY: the host cannot read");
    if ((parent->flags & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY))
        return KILN_ERR(CL_INVALID_VALUE, "the parent is HOST_READ_ONLY: the host cannot write");
    if ((parent->flags & CL_MEM_HOST_NO_ACCESS) &&
        (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
        return KILN_ERR(CL_INVALID_VALUE, "the parent is HOST_NO_ACCESS");
    if (!(flags & access))
        flags |= parent->flags & access;
    if (!(flags & host))
        flags |= parent->flags & host;
    *out = flags | (parent->flags & ptr_flags);
    return CL_SUCCESS;
}

static cl_int sub_buffer_create(cl_mem parent, cl_mem_flags flags, const cl_buffer_region *r,
                                cl_mem *out)
{
    cl_mem m = kiln_calloc(1, sizeof(*m));
    if (!m)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "sub-buffer object");
    pthread_mutex_init(&m->lock, NULL);
    kiln_rt_obj_init(&m->obj, KILN_TAG_MEM, mem_destroy);
    m->context = parent->context;
    kiln_rt_obj_hold(&m->context->obj);
    m->parent = parent; /* a sub-buffer holds its parent (STYLE H5) */
    kiln_rt_obj_hold(&parent->obj);
    m->type = CL_MEM_OBJECT_BUFFER;
    m->flags = flags;
    m->size = r->size;
    m->offset = r->origin;
    m->data = parent->data + r->origin;
    /* §5.5.6 CL_MEM_HOST_PTR: host_ptr + origin for a parent made with USE_HOST_PTR. */
    if (parent->host_ptr)
        m->host_ptr = (unsigned char *)parent->host_ptr + r->origin;
    atomic_init(&m->map_count, 0);
    KILN_LOG(KILN_DBG_MEM, "sub-buffer %p of %p: %zu bytes at offset %zu", (void *)m,
             (void *)parent, r->size, r->origin);
    *out = m;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                                     const void *info, cl_int *errcode_ret)
{
    cl_mem mem = NULL;
    const cl_buffer_region *r = info;
    cl_mem_flags effective = 0;
    cl_int err = kiln_rt_check_mem(buffer);
    if (err == CL_SUCCESS && (buffer->type != CL_MEM_OBJECT_BUFFER || buffer->parent))
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "%s",
                       buffer->parent ? "a sub-buffer's sub-buffer" : "not a buffer");
    if (err == CL_SUCCESS)
        err = sub_buffer_flags(buffer, flags, &effective);
    if (err == CL_SUCCESS && type != CL_BUFFER_CREATE_TYPE_REGION)
        err = KILN_ERR(CL_INVALID_VALUE, "buffer_create_type 0x%x", type);
    if (err == CL_SUCCESS && r == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "buffer_create_info is NULL");
    if (err == CL_SUCCESS && r->size == 0)
        err = KILN_ERR(CL_INVALID_BUFFER_SIZE, "the region's size is 0");
    if (err == CL_SUCCESS && (r->origin > buffer->size || r->size > buffer->size - r->origin))
        err = KILN_ERR(CL_INVALID_VALUE, "origin %zu + size %zu exceeds the buffer's %zu bytes",
                       r->origin, r->size, buffer->size);
    if (err == CL_SUCCESS && r->origin % BUFFER_ALIGN)
        err = KILN_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET,
                       "origin %zu is not a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN (%d bytes)",
                       r->origin, BUFFER_ALIGN);
    if (err == CL_SUCCESS)
        err = sub_buffer_create(buffer, effective, r, &mem);
    kiln_set_errcode(errcode_ret, err);
    return mem;
}

cl_int CL_API_CALL clSetMemObjectDestructorCallback(cl_mem memobj,
                                                    void(CL_CALLBACK *fn)(cl_mem, void *),
                                                    void *user_data)
{
    cl_int err = kiln_rt_check_mem(memobj);
    if (err == CL_SUCCESS && fn == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "pfn_notify is NULL");
    if (err == CL_SUCCESS)
        err = kiln_rt_dtor_push(&memobj->dtors, &memobj->lock, (void (*)(void))fn, user_data);
    return err;
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

/* The buffer whose bytes m views: its parent for a sub-buffer, else itself. */
static cl_mem root_of(cl_mem m)
{
    return m->parent ? m->parent : m;
}

static cl_int check_range(cl_mem m, size_t offset, size_t size)
{
    if (offset > m->size || size > m->size - offset)
        return KILN_ERR(CL_INVALID_VALUE, "offset %zu + size %zu exceeds the buffer's %zu bytes",
                        offset, size, m->size);
    return CL_SUCCESS;
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
        err = kiln_rt_submit_bytes(q, KILN_CMD_READ, CL_COMMAND_READ_BUFFER, ptr,
                                   buffer->data + offset, size, buffer, NULL, NULL, 0, blocking, n,
                                   list, event);
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
        err =
            kiln_rt_submit_bytes(q, KILN_CMD_WRITE, CL_COMMAND_WRITE_BUFFER, buffer->data + offset,
                                 ptr, size, buffer, NULL, NULL, 0, blocking, n, list, event);
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
    /* §5.2.3: also between sub-buffers of one buffer (and a sub-buffer and its
     * parent): compare the ranges in the underlying buffer. */
    if (err == CL_SUCCESS && root_of(src) == root_of(dst)) {
        size_t a = src->offset + src_offset, b = dst->offset + dst_offset;
        if ((a < b ? b - a : a - b) < size)
            err = KILN_ERR(CL_MEM_COPY_OVERLAP, "source and destination regions overlap");
    }
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = kiln_rt_submit_bytes(q, KILN_CMD_COPY, CL_COMMAND_COPY_BUFFER, dst->data + dst_offset,
                                   src->data + src_offset, size, src, dst, NULL, 0, CL_FALSE, n,
                                   list, event);
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
        err = kiln_rt_submit_bytes(q, KILN_CMD_FILL, CL_COMMAND_FILL_BUFFER, buffer->data + offset,
                                   NULL, size, buffer, NULL, pattern, pattern_size, CL_FALSE, n,
                                   list, event);
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
        map = kiln_calloc(1, sizeof(*map));
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

/* ---- rectangles (OpenCL 3.0 §5.2.3) -------------------------------------------- */

/* One side of a rectangular transfer: where the box starts and how it is laid out. */
struct rect_side {
    const size_t *origin;
    size_t row, slice; /* pitches; 0 on entry means "tightly packed" */
    size_t offset;     /* byte offset of the box's first byte, once checked */
};

/*
 * Apply the zero-pitch defaults and check the pitches against `region`; when
 * `limit` is not 0 (a buffer's size) also check the box lies inside it. `what`
 * names the side in the message.
 */
static cl_int rect_side_check(struct rect_side *s, const size_t *region, size_t limit,
                              const char *what)
{
    if (s->row == 0)
        s->row = region[0];
    else if (s->row < region[0])
        return KILN_ERR(CL_INVALID_VALUE, "%s row pitch %zu is less than region[0] %zu", what,
                        s->row, region[0]);
    size_t min_slice;
    if (__builtin_mul_overflow(region[1], s->row, &min_slice))
        return KILN_ERR(CL_INVALID_VALUE, "%s: region[1] * row pitch overflows", what);
    if (s->slice == 0)
        s->slice = min_slice;
    else if (s->slice < min_slice || s->slice % s->row)
        return KILN_ERR(CL_INVALID_VALUE,
                        "%s slice pitch %zu: less than region[1] * row pitch (%zu) or not a "
                        "multiple of the row pitch %zu",
                        what, s->slice, min_slice, s->row);
    size_t a, b, off, last;
    if (__builtin_mul_overflow(s->origin[2], s->slice, &a) ||
        __builtin_mul_overflow(s->origin[1], s->row, &b) || __builtin_add_overflow(a, b, &off) ||
        __builtin_add_overflow(off, s->origin[0], &off))
        return KILN_ERR(CL_INVALID_VALUE, "%s origin overflows", what);
    /* The byte after the box: off + (d-1)*slice + (h-1)*row + w. */
    if (__builtin_mul_overflow(region[2] - 1, s->slice, &a) ||
        __builtin_mul_overflow(region[1] - 1, s->row, &b) ||
        __builtin_add_overflow(off, a, &last) || __builtin_add_overflow(last, b, &last) ||
        __builtin_add_overflow(last, region[0], &last) || (limit && last > limit))
        return KILN_ERR(CL_INVALID_VALUE, "%s box ends past the buffer's %zu bytes", what, limit);
    s->offset = off;
    return CL_SUCCESS;
}

static cl_int rect_region_check(const size_t *region)
{
    if (!region)
        return KILN_ERR(CL_INVALID_VALUE, "region is NULL");
    if (region[0] == 0 || region[1] == 0 || region[2] == 0)
        return KILN_ERR(CL_INVALID_VALUE, "region {%zu, %zu, %zu} has a zero extent", region[0],
                        region[1], region[2]);
    return CL_SUCCESS;
}

/* floor(a / b) for b > 0. */
static long long floor_div(long long a, long long b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/*
 * Whether two boxes of the same `region`, laid out with the same pitches, share a
 * byte. A byte of box A at (x1, y1, z1) equals one of box B at (x2, y2, z2) when
 * dz*slice + dy*row + dx = b - a for differences |dx| < w, |dy| < h, |dz| < d.
 * The checked pitches give row >= w and slice >= h*row, so |dy*row + dx| < slice
 * and |dx| < row: dz can only be the quotient of b - a by slice rounded down or
 * up, and for each, dy the quotient of the rest by row rounded down or up; each
 * candidate fixes dx, which is then range checked. Constant time, and exact even
 * when an origin runs past the end of a row or slice.
 */
static bool rect_overlap(size_t a, size_t b, const size_t *region, size_t row, size_t slice)
{
    const long long delta = (long long)b - (long long)a;
    const long long w = (long long)region[0], h = (long long)region[1], d = (long long)region[2];
    const long long R = (long long)row, S = (long long)slice;
    const long long qz = floor_div(delta, S);
    for (long long dz = qz; dz <= qz + 1; dz++) {
        if (dz <= -d || dz >= d)
            continue;
        const long long rest = delta - dz * S;
        const long long qy = floor_div(rest, R);
        for (long long dy = qy; dy <= qy + 1; dy++) {
            const long long dx = rest - dy * R;
            if (dy > -h && dy < h && dx > -w && dx < w)
                return true;
        }
    }
    return false;
}

/*
 * Whether a copy between two boxes of one underlying buffer (the same object, or
 * sub-buffers of one buffer, or a sub-buffer and its parent) touches a byte twice.
 * With equal pitches the answer is exact; with different pitches (possible only
 * between different objects) Kiln compares the spans from the first to the last
 * byte of each box, which may refuse a copy whose boxes interleave without
 * touching.
 */
static bool rect_shares_bytes(cl_mem src, const struct rect_side *ss, cl_mem dst,
                              const struct rect_side *ds, const size_t *region)
{
    size_t a = src->offset + ss->offset, b = dst->offset + ds->offset;
    if (ss->row == ds->row && ss->slice == ds->slice)
        return rect_overlap(a, b, region, ss->row, ss->slice);
    size_t a_end = a + (region[2] - 1) * ss->slice + (region[1] - 1) * ss->row + region[0];
    size_t b_end = b + (region[2] - 1) * ds->slice + (region[1] - 1) * ds->row + region[0];
    return a < b_end && b < a_end;
}

static cl_int submit_rect(cl_command_queue q, cl_command_type type, unsigned char *dst,
                          const struct rect_side *ds, const unsigned char *src,
                          const struct rect_side *ss, const size_t *region, cl_mem mem_a,
                          cl_mem mem_b, cl_bool blocking, cl_uint n, const cl_event *list,
                          cl_event *event)
{
    struct kiln_rt_command *cmd = NULL;
    cl_int err = kiln_rt_command_create(q, KILN_CMD_RECT, type, &cmd);
    if (err != CL_SUCCESS)
        return err;
    struct kiln_dev_rect *r = &cmd->u.rect;
    r->dst = dst + ds->offset;
    r->src = src + ss->offset;
    memcpy(r->region, region, sizeof(r->region));
    r->dst_row = ds->row;
    r->dst_slice = ds->slice;
    r->src_row = ss->row;
    r->src_slice = ss->slice;
    kiln_rt_command_hold(cmd, mem_a, mem_b);
    return kiln_rt_command_submit(cmd, n, list, event, blocking);
}

/* clEnqueueReadBufferRect (to_host) and clEnqueueWriteBufferRect. */
static cl_int buffer_rect_io(cl_command_queue q, cl_mem buffer, bool to_host, cl_bool blocking,
                             const size_t *buffer_origin, const size_t *host_origin,
                             const size_t *region, size_t buffer_row_pitch,
                             size_t buffer_slice_pitch, size_t host_row_pitch,
                             size_t host_slice_pitch, void *ptr, cl_uint n, const cl_event *list,
                             cl_event *event)
{
    struct rect_side bs = {buffer_origin, buffer_row_pitch, buffer_slice_pitch, 0};
    struct rect_side hs = {host_origin, host_row_pitch, host_slice_pitch, 0};
    const cl_mem_flags denied = to_host ? CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS
                                        : CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    cl_int err = check_buffer_in_queue(q, buffer);
    if (err == CL_SUCCESS && (!ptr || !buffer_origin || !host_origin))
        err = KILN_ERR(CL_INVALID_VALUE, "ptr %p, buffer_origin %p, host_origin %p", ptr,
                       (const void *)buffer_origin, (const void *)host_origin);
    if (err == CL_SUCCESS)
        err = rect_region_check(region);
    if (err == CL_SUCCESS)
        err = rect_side_check(&bs, region, buffer->size, "buffer");
    if (err == CL_SUCCESS)
        err = rect_side_check(&hs, region, 0, "host");
    if (err == CL_SUCCESS && (buffer->flags & denied))
        err = KILN_ERR(CL_INVALID_OPERATION, "the buffer's host-access flags forbid a %s",
                       to_host ? "read" : "write");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS && to_host)
        err = submit_rect(q, CL_COMMAND_READ_BUFFER_RECT, ptr, &hs, buffer->data, &bs, region,
                          buffer, NULL, blocking, n, list, event);
    else if (err == CL_SUCCESS)
        err = submit_rect(q, CL_COMMAND_WRITE_BUFFER_RECT, buffer->data, &bs, ptr, &hs, region,
                          buffer, NULL, blocking, n, list, event);
    return err;
}

cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                           const size_t *buffer_origin, const size_t *host_origin,
                                           const size_t *region, size_t buffer_row_pitch,
                                           size_t buffer_slice_pitch, size_t host_row_pitch,
                                           size_t host_slice_pitch, void *ptr, cl_uint n,
                                           const cl_event *list, cl_event *event)
{
    return buffer_rect_io(q, buffer, true, blocking, buffer_origin, host_origin, region,
                          buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                          ptr, n, list, event);
}

cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                            const size_t *buffer_origin, const size_t *host_origin,
                                            const size_t *region, size_t buffer_row_pitch,
                                            size_t buffer_slice_pitch, size_t host_row_pitch,
                                            size_t host_slice_pitch, const void *ptr, cl_uint n,
                                            const cl_event *list, cl_event *event)
{
    return buffer_rect_io(q, buffer, false, blocking, buffer_origin, host_origin, region,
                          buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                          (void *)ptr, n, list, event);
}

cl_int CL_API_CALL clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                           const size_t *src_origin, const size_t *dst_origin,
                                           const size_t *region, size_t src_row_pitch,
                                           size_t src_slice_pitch, size_t dst_row_pitch,
                                           size_t dst_slice_pitch, cl_uint n, const cl_event *list,
                                           cl_event *event)
{
    struct rect_side ss = {src_origin, src_row_pitch, src_slice_pitch, 0};
    struct rect_side ds = {dst_origin, dst_row_pitch, dst_slice_pitch, 0};
    cl_int err = check_buffer_in_queue(q, src);
    if (err == CL_SUCCESS)
        err = check_buffer_in_queue(q, dst);
    if (err == CL_SUCCESS && (!src_origin || !dst_origin))
        err = KILN_ERR(CL_INVALID_VALUE, "src_origin %p, dst_origin %p", (const void *)src_origin,
                       (const void *)dst_origin);
    if (err == CL_SUCCESS)
        err = rect_region_check(region);
    if (err == CL_SUCCESS)
        err = rect_side_check(&ss, region, src->size, "source");
    if (err == CL_SUCCESS)
        err = rect_side_check(&ds, region, dst->size, "destination");
    /* Within one buffer the pitches must agree (§5.2.3); Kiln rejects a difference in
     * either, which is also what makes the overlap test below well defined. */
    if (err == CL_SUCCESS && src == dst && (ss.row != ds.row || ss.slice != ds.slice))
        err = KILN_ERR(CL_INVALID_VALUE,
                       "one buffer with different pitches: rows %zu/%zu, slices %zu/%zu", ss.row,
                       ds.row, ss.slice, ds.slice);
    if (err == CL_SUCCESS && root_of(src) == root_of(dst) &&
        rect_shares_bytes(src, &ss, dst, &ds, region))
        err = KILN_ERR(CL_MEM_COPY_OVERLAP, "source and destination boxes share bytes");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    if (err == CL_SUCCESS)
        err = submit_rect(q, CL_COMMAND_COPY_BUFFER_RECT, dst->data, &ds, src->data, &ss, region,
                          src, dst, CL_FALSE, n, list, event);
    return err;
}

/* ---- migration ------------------------------------------------------------------ */

/*
 * One device that shares the host's memory: there is nothing to move, but the
 * migration is still a command with an event, ordered in its queue (§5.5.5).
 */
cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint num_mem_objects,
                                              const cl_mem *mem_objects,
                                              cl_mem_migration_flags flags, cl_uint n,
                                              const cl_event *list, cl_event *event)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS && (num_mem_objects == 0 || mem_objects == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_mem_objects %u, mem_objects %p", num_mem_objects,
                       (const void *)mem_objects);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_mem_objects; i++) {
        if (!kiln_rt_obj_is(mem_objects[i], KILN_TAG_MEM))
            err = KILN_ERR(CL_INVALID_MEM_OBJECT, "entry %u is not a memory object", i);
        else if (mem_objects[i]->context != q->context)
            err = KILN_ERR(CL_INVALID_CONTEXT, "memory object %u belongs to another context", i);
    }
    if (err == CL_SUCCESS &&
        (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                           CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
        err =
            KILN_ERR(CL_INVALID_VALUE, "unknown migration flags 0x%llx", (unsigned long long)flags);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_MIGRATE, CL_COMMAND_MIGRATE_MEM_OBJECTS, &cmd);
    if (err == CL_SUCCESS)
        err = kiln_rt_command_submit(cmd, n, list, event, false);
    return err;
}
