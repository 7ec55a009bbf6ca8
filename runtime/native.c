/*
 * Native kernels (clEnqueueNativeKernel): a host function run as a command of the queue,
 * on one of the device's workers, with a copy of its argument block in which each pointer
 * the application marked in args_mem_loc is replaced by the address of the named buffer's
 * memory (OpenCL 3.0 §5.10). The buffers are held until the command completes.
 */
#include "rt_command.h"
#include "rt_debug.h"
#include "rt_mem.h"
#include "rt_object.h"
#include "rt_queue.h"

#include "kiln_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cl_int check_native(cl_command_queue q, void(CL_CALLBACK *fn)(void *), const void *args,
                           size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list,
                           const void **args_mem_loc)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err != CL_SUCCESS)
        return err;
    if (fn == NULL)
        return KILN_ERR(CL_INVALID_VALUE, "user_func is NULL");
    if ((args == NULL) != (cb_args == 0))
        return KILN_ERR(CL_INVALID_VALUE, "args %p with cb_args %zu", args, cb_args);
    if (num_mem_objects && (args == NULL || mem_list == NULL || args_mem_loc == NULL))
        return KILN_ERR(CL_INVALID_VALUE,
                        "%u memory objects with args %p, mem_list %p, "
                        "args_mem_loc %p",
                        num_mem_objects, args, (const void *)mem_list, (const void *)args_mem_loc);
    if (!num_mem_objects && (mem_list || args_mem_loc))
        return KILN_ERR(CL_INVALID_VALUE, "mem_list or args_mem_loc without memory objects");
    for (cl_uint i = 0; i < num_mem_objects; i++) {
        if (!kiln_rt_obj_is(mem_list[i], KILN_TAG_MEM) || mem_list[i]->type != CL_MEM_OBJECT_BUFFER)
            return KILN_ERR(CL_INVALID_MEM_OBJECT, "mem_list[%u] is not a buffer", i);
        if (mem_list[i]->context != q->context)
            return KILN_ERR(CL_INVALID_CONTEXT, "mem_list[%u] is of another context", i);
        uintptr_t at = (uintptr_t)args_mem_loc[i], base = (uintptr_t)args;
        if (at < base || cb_args < sizeof(void *) || at - base > cb_args - sizeof(void *))
            return KILN_ERR(CL_INVALID_VALUE, "args_mem_loc[%u] is not a pointer inside args", i);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *fn)(void *),
                                         void *args, size_t cb_args, cl_uint num_mem_objects,
                                         const cl_mem *mem_list, const void **args_mem_loc,
                                         cl_uint n, const cl_event *list, cl_event *event)
{
    cl_int err = check_native(q, fn, args, cb_args, num_mem_objects, mem_list, args_mem_loc);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_NATIVE, CL_COMMAND_NATIVE_KERNEL, &cmd);
    if (err != CL_SUCCESS)
        return err;
    struct kiln_rt_native *nat = &cmd->u.native;
    nat->work.fn = fn;
    nat->work.args = cb_args ? kiln_malloc(cb_args) : NULL;
    nat->held = num_mem_objects ? kiln_malloc(num_mem_objects * sizeof(cl_mem)) : NULL;
    if ((cb_args && !nat->work.args) || (num_mem_objects && !nat->held)) {
        kiln_rt_command_discard(cmd);
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "native kernel arguments");
    }
    if (cb_args)
        memcpy(nat->work.args, args, cb_args);
    for (cl_uint i = 0; i < num_mem_objects; i++) {
        void *data = mem_list[i]->data;
        size_t at = (size_t)((const unsigned char *)args_mem_loc[i] - (unsigned char *)args);
        memcpy((unsigned char *)nat->work.args + at, &data, sizeof(data));
        kiln_rt_obj_hold(&mem_list[i]->obj);
        nat->held[nat->num_held++] = mem_list[i];
    }
    return kiln_rt_command_submit(cmd, n, list, event, false);
}
