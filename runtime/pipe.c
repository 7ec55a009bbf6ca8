/*
 * Pipes (clCreatePipe, clGetPipeInfo; OpenCL 3.0 §5.3).
 *
 * A pipe is a memory object of type CL_MEM_OBJECT_PIPE whose bytes are the ring of
 * include/kiln_pipe.h: the header with both sides' indices, their
 * entry tables, then the packet slots. Kernels receive a pointer to it
 * (KILN_CC_ARG_PIPE) and the kernel library's pipe builtins run the ring protocol
 * on it; the host never touches the packets (a pipe is CL_MEM_HOST_NO_ACCESS, and
 * the buffer commands refuse it with CL_INVALID_MEM_OBJECT since it is not a
 * buffer). The rest of a pipe's life (retain, release, destructor callbacks,
 * clGetMemObjectInfo) is a memory object's, in mem.c.
 */
#include "rt_mem.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"

#include "kiln_cc.h"

#include "kiln_pipe.h"

_Static_assert(sizeof(struct kiln_pipe) % 128 == 0, "packets start 128-byte aligned");

/* Ring layout and packet limits checked before anything is allocated (§5.3.1). */
static cl_int check_pipe_args(cl_context ctx, cl_mem_flags flags, cl_uint packet_size,
                              cl_uint max_packets, const cl_pipe_properties *properties,
                              size_t *bytes)
{
    const cl_mem_flags allowed = CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS;
    if (flags & ~allowed)
        return KILN_ERR(CL_INVALID_VALUE,
                        "pipe flags 0x%llx: only CL_MEM_READ_WRITE and CL_MEM_HOST_NO_ACCESS",
                        (unsigned long long)flags);
    /* OpenCL 3.0 §5.3.1: "In all OpenCL versions, properties must be NULL", so an empty list
     * (a lone 0) is refused as well as any property. */
    if (properties)
        return KILN_ERR(CL_INVALID_VALUE,
                        "pipe properties must be NULL, got a list starting 0x%llx",
                        (unsigned long long)properties[0]);
    if (packet_size == 0 || packet_size > KILN_PIPE_MAX_PACKET_SIZE)
        return KILN_ERR(CL_INVALID_PIPE_SIZE,
                        "packet size %u (1 to CL_DEVICE_PIPE_MAX_PACKET_SIZE, %u)", packet_size,
                        KILN_PIPE_MAX_PACKET_SIZE);
    if (max_packets == 0 || max_packets > KILN_PIPE_MAX_PACKETS)
        return KILN_ERR(CL_INVALID_PIPE_SIZE, "max_packets %u (1 to %u)", max_packets,
                        KILN_PIPE_MAX_PACKETS);
    unsigned long long size = kiln_pipe_bytes(packet_size, max_packets);
    if (size > ctx->device->max_alloc)
        return KILN_ERR(CL_INVALID_PIPE_SIZE,
                        "%u packets of %u bytes need %llu bytes, above "
                        "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu)",
                        max_packets, packet_size, size, (unsigned long long)ctx->device->max_alloc);
    *bytes = (size_t)size;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags, cl_uint packet_size,
                                cl_uint max_packets, const cl_pipe_properties *properties,
                                cl_int *errcode_ret)
{
    cl_mem mem = NULL;
    size_t bytes = 0;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = check_pipe_args(context, flags, packet_size, max_packets, properties, &bytes);
    /* §5.3.1: flags 0 means CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS. */
    if (flags == 0)
        flags = CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS;
    if (err == CL_SUCCESS)
        err = kiln_rt_mem_create(context, CL_MEM_OBJECT_PIPE, flags, bytes, NULL, &mem);
    if (err == CL_SUCCESS) {
        kiln_pipe_init((struct kiln_pipe *)mem->data, packet_size, max_packets);
        KILN_LOG(KILN_DBG_PIPE, "pipe %p: %u packets of %u bytes", (void *)mem, max_packets,
                 packet_size);
    }
    kiln_set_errcode(errcode_ret, err);
    return mem;
}

cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name, size_t param_value_size,
                                 void *param_value, size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_mem(pipe);
    if (err == CL_SUCCESS && pipe->type != CL_MEM_OBJECT_PIPE)
        err = KILN_ERR(CL_INVALID_MEM_OBJECT, "%p is not a pipe", (void *)pipe);
    if (err != CL_SUCCESS)
        return err;
    const struct kiln_pipe *p = (const struct kiln_pipe *)pipe->data;
    cl_uint u;
    switch (param_name) {
    case CL_PIPE_PACKET_SIZE:
        u = p->packet_size;
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_PIPE_MAX_PACKETS:
        u = p->max_packets;
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_PIPE_PROPERTIES:
        /* §5.3.2: the properties given to clCreatePipe, which are always NULL: no bytes. */
        return kiln_rt_info(NULL, 0, param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown pipe query 0x%x", param_name);
    }
}
