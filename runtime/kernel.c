/*
 * Kernels and NDRange launches (clCreateKernel, clCreateKernelsInProgram,
 * clRetain/ReleaseKernel, clSetKernelArg, clGetKernelInfo, clGetKernelArgInfo,
 * clGetKernelWorkGroupInfo, clEnqueueNDRangeKernel, clEnqueueTask, clCloneKernel).
 *
 * Arguments are snapshotted at enqueue (OpenCL 3.0 §5.9.2: changing an argument
 * after enqueue does not affect that launch): buffer data pointers, image descriptors,
 * sampler bits, __local offsets and by-value bytes are copied into the command, laid out
 * as kiln_abi.h describes.
 */
#include "rt_program.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_mem.h"
#include "rt_object.h"
#include "rt_queue.h"
#include "rt_sampler.h"
#include "rt_variant.h"

#include "kiln_abi.h"
#include "kiln_alloc.h"
#include "kiln_cc.h"
#include "kiln_image.h"

#include "kiln_pipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void kernel_destroy(struct kiln_object *obj)
{
    cl_kernel k = (cl_kernel)obj;
    for (unsigned i = 0; i < k->cc->num_args; i++)
        free(k->args[i].value);
    free(k->args);
    pthread_mutex_destroy(&k->lock);
    atomic_fetch_sub_explicit(&k->program->num_kernel_objs, 1, memory_order_release);
    kiln_rt_obj_drop(&k->program->obj);
    free(k);
}

static cl_int kernel_create(cl_program p, const struct kiln_cc_kernel *info, unsigned index,
                            cl_kernel *out)
{
    cl_kernel k = kiln_calloc(1, sizeof(*k));
    struct kiln_rt_arg *args = kiln_calloc(info->num_args ? info->num_args : 1, sizeof(*args));
    if (!k || !args) {
        free(k);
        free(args);
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "kernel %s", info->name);
    }
    pthread_mutex_init(&k->lock, NULL);
    kiln_rt_obj_init(&k->obj, KILN_TAG_KERNEL, kernel_destroy);
    k->program = p;
    kiln_rt_obj_hold(&p->obj);
    atomic_fetch_add_explicit(&p->num_kernel_objs, 1, memory_order_acq_rel);
    k->cc = info;
    k->index = index;
    k->args = args;
    for (unsigned i = 0; i < info->num_args; i++)
        k->num_image_args += info->args[i].kind == KILN_CC_ARG_IMAGE;
    *out = k;
    return CL_SUCCESS;
}

/* The built program of p, or CL_INVALID_PROGRAM_EXECUTABLE. */
static cl_int built_program(cl_program p, const struct kiln_cc_interface **cc,
                            struct kiln_cc_program **built)
{
    pthread_mutex_lock(&p->lock);
    *built = p->status == CL_BUILD_SUCCESS ? p->built : NULL;
    pthread_mutex_unlock(&p->lock);
    if (!*built)
        return KILN_ERR(CL_INVALID_PROGRAM_EXECUTABLE, "the program has no successful build");
    cl_int err = kiln_rt_compiler(cc);
    if (err == CL_SUCCESS && (*cc)->kind(*built, NULL) != KILN_CC_EXECUTABLE)
        err = KILN_ERR(CL_INVALID_PROGRAM_EXECUTABLE,
                       "the program is a compiled object or library, not an executable");
    return err;
}

cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name,
                                     cl_int *errcode_ret)
{
    cl_kernel k = NULL;
    const struct kiln_cc_interface *cc = NULL;
    struct kiln_cc_program *built = NULL;
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        err = built_program(program, &cc, &built);
    if (err == CL_SUCCESS && kernel_name == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "kernel_name is NULL");
    const struct kiln_cc_kernel *info = NULL;
    unsigned index = 0;
    if (err == CL_SUCCESS) {
        unsigned n = cc->num_kernels(built);
        for (unsigned i = 0; i < n && !info; i++)
            if (strcmp(cc->kernel(built, i)->name, kernel_name) == 0) {
                info = cc->kernel(built, i);
                index = i;
            }
        if (!info)
            err = KILN_ERR(CL_INVALID_KERNEL_NAME, "no kernel \"%s\" in the program", kernel_name);
    }
    if (err == CL_SUCCESS)
        err = kernel_create(program, info, index, &k);
    kiln_set_errcode(errcode_ret, err);
    return k;
}

cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                            cl_kernel *kernels, cl_uint *num_kernels_ret)
{
    const struct kiln_cc_interface *cc = NULL;
    struct kiln_cc_program *built = NULL;
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        err = built_program(program, &cc, &built);
    if (err != CL_SUCCESS)
        return err;
    unsigned n = cc->num_kernels(built);
    if (kernels && num_kernels < n)
        return KILN_ERR(CL_INVALID_VALUE, "num_kernels %u is less than the program's %u",
                        num_kernels, n);
    if (kernels) {
        for (unsigned i = 0; i < n; i++) {
            err = kernel_create(program, cc->kernel(built, i), i, &kernels[i]);
            if (err != CL_SUCCESS) {
                while (i--)
                    kiln_rt_obj_release(&kernels[i]->obj);
                return err;
            }
        }
    }
    if (num_kernels_ret)
        *num_kernels_ret = n;
    return CL_SUCCESS;
}

cl_int CL_API_CALL clRetainKernel(cl_kernel kernel)
{
    cl_int err = kiln_rt_check_kernel(kernel);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&kernel->obj);
    return err;
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel)
{
    cl_int err = kiln_rt_check_kernel(kernel);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&kernel->obj);
    return err;
}

/* Make `arg` argument `index` of the kernel (under its lock), freeing the old value. */
static void store_arg(cl_kernel kernel, cl_uint index, struct kiln_rt_arg arg)
{
    pthread_mutex_lock(&kernel->lock);
    unsigned char *old = kernel->args[index].value;
    kernel->args[index] = arg;
    pthread_mutex_unlock(&kernel->lock);
    free(old);
}

/*
 * The size of a built-in scalar or vector type named as Clang's kernel_arg_type
 * metadata writes it ("int", "float4", "uchar16"), or 0 for any other type (a
 * struct, whose layout the runtime does not know).
 */
static size_t builtin_type_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } scalars[] = {{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"half", 2},  {"int", 4},
                   {"uint", 4}, {"float", 4}, {"long", 8},  {"ulong", 8},  {"double", 8}};
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        size_t n = strlen(scalars[i].name);
        if (strncmp(name, scalars[i].name, n) != 0)
            continue;
        const char *w = name + n;
        if (*w == '\0')
            return scalars[i].size;
        /* A 3-component vector takes the room of 4 (OpenCL C 3.0 §6.3.5). */
        static const char *const widths[] = {"2", "3", "4", "8", "16"};
        static const size_t lanes[] = {2, 4, 4, 8, 16};
        for (size_t j = 0; j < 5; j++)
            if (strcmp(w, widths[j]) == 0)
                return scalars[i].size * lanes[j];
    }
    return 0;
}

/*
 * A pipe argument's packet type against the pipe's packet size, where the
 * runtime can know the type's size (built-in scalars and vectors): the pipe
 * builtins would otherwise fail on every packet (kernel-lib/pipes/pipes.cl).
 */
static cl_int check_packet_type(const struct kiln_cc_arg *a, cl_mem pipe, cl_uint index)
{
    size_t want = builtin_type_size(a->type_name);
    cl_uint have = ((const struct kiln_pipe *)pipe->data)->packet_size;
    if (want != 0 && want != have)
        return KILN_ERR(CL_INVALID_ARG_VALUE,
                        "argument %u is a pipe of %s (%zu bytes); this pipe's packets are %u bytes",
                        index, a->type_name, want, have);
    return CL_SUCCESS;
}

/*
 * The image argument types (Clang's kernel_arg_type) and the image each takes: OpenCL 3.0
 * §5.9.2 names the memory object type for each, and for the depth types the channel order
 * CL_DEPTH. A CL_DEPTH image is refused by the other types as well (§5.9.2 pairs CL_DEPTH
 * with the depth types only), so a depth image is never read through a type whose builtins
 * return four channels.
 */
static const struct {
    const char *name;
    cl_mem_object_type type;
    bool depth;
} image_arg_types[] = {
    {"image1d_t", CL_MEM_OBJECT_IMAGE1D, false},
    {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER, false},
    {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY, false},
    {"image2d_t", CL_MEM_OBJECT_IMAGE2D, false},
    {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, false},
    {"image3d_t", CL_MEM_OBJECT_IMAGE3D, false},
    {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D, true},
    {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, true},
};

/*
 * An image argument's value (§5.9.2, clSetKernelArg): CL_INVALID_MEM_OBJECT when it is not an
 * image of the argument's type (NULL included: only buffers may be NULL); CL_INVALID_CONTEXT
 * for an image of another context; CL_INVALID_ARG_VALUE for a CL_MEM_WRITE_ONLY image given
 * to a read_only argument or a CL_MEM_READ_ONLY image to a write_only one.
 */
static cl_int check_image_arg(cl_kernel kernel, const struct kiln_cc_arg *a, cl_mem mem,
                              cl_uint index)
{
    if (!kiln_rt_obj_is(mem, KILN_TAG_MEM))
        return KILN_ERR(CL_INVALID_MEM_OBJECT, "image argument %u: %p is not a memory object",
                        index, (void *)mem);
    if (!mem->image)
        return KILN_ERR(CL_INVALID_MEM_OBJECT, "image argument %u (%s) needs an image", index,
                        a->type_name);
    size_t t = 0, n = sizeof(image_arg_types) / sizeof(image_arg_types[0]);
    while (t < n && strcmp(a->type_name, image_arg_types[t].name) != 0)
        t++;
    bool depth = mem->image->order == CL_DEPTH;
    if (t == n || mem->type != image_arg_types[t].type || depth != image_arg_types[t].depth)
        return KILN_ERR(CL_INVALID_MEM_OBJECT,
                        "image argument %u is a %s; the image is of type 0x%x%s", index,
                        a->type_name, (unsigned)mem->type, depth ? ", order CL_DEPTH" : "");
    if (mem->context != kernel->program->context)
        return KILN_ERR(CL_INVALID_CONTEXT, "image argument %u: the image is of another context",
                        index);
    const char *access = a->access_qual ? a->access_qual : "";
    if (strcmp(access, "read_only") == 0 && (mem->flags & CL_MEM_WRITE_ONLY))
        return KILN_ERR(CL_INVALID_ARG_VALUE,
                        "read_only image argument %u given a CL_MEM_WRITE_ONLY image", index);
    if (strcmp(access, "write_only") == 0 && (mem->flags & CL_MEM_READ_ONLY))
        return KILN_ERR(CL_INVALID_ARG_VALUE,
                        "write_only image argument %u given a CL_MEM_READ_ONLY image", index);
    return CL_SUCCESS;
}

/* The kernel handle and the argument index, as every per-argument entry point checks them. */
static cl_int check_arg_index(cl_kernel kernel, cl_uint arg_index)
{
    cl_int err = kiln_rt_check_kernel(kernel);
    if (err == CL_SUCCESS && arg_index >= kernel->cc->num_args)
        err = KILN_ERR(CL_INVALID_ARG_INDEX, "index %u, kernel %s has %u arguments", arg_index,
                       kernel->cc->name, kernel->cc->num_args);
    return err;
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                  const void *arg_value)
{
    cl_int err = check_arg_index(kernel, arg_index);
    if (err != CL_SUCCESS)
        return err;
    const struct kiln_cc_arg *a = &kernel->cc->args[arg_index];
    struct kiln_rt_arg next = {.set = true, .size = arg_size};
    switch (a->kind) {
    case KILN_CC_ARG_GLOBAL_PTR:
    case KILN_CC_ARG_CONSTANT_PTR:
        if (arg_size != sizeof(cl_mem))
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u is a buffer: size %zu, not %zu",
                            arg_index, arg_size, sizeof(cl_mem));
        next.mem = arg_value ? *(const cl_mem *)arg_value : NULL;
        if (next.mem && !kiln_rt_obj_is(next.mem, KILN_TAG_MEM))
            return KILN_ERR(CL_INVALID_MEM_OBJECT, "argument %u is not a memory object", arg_index);
        if (next.mem && next.mem->type != CL_MEM_OBJECT_BUFFER)
            return KILN_ERR(CL_INVALID_ARG_VALUE, "argument %u needs a buffer", arg_index);
        break;
    case KILN_CC_ARG_LOCAL_PTR:
        if (arg_size == 0)
            return KILN_ERR(CL_INVALID_ARG_SIZE, "__local argument %u with size 0", arg_index);
        if (arg_value != NULL)
            return KILN_ERR(CL_INVALID_ARG_VALUE, "__local argument %u with a non-NULL value",
                            arg_index);
        break;
    case KILN_CC_ARG_VALUE:
        if (arg_size != a->size)
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u (%s): size %zu, not %u", arg_index,
                            a->type_name, arg_size, a->size);
        if (arg_value == NULL)
            return KILN_ERR(CL_INVALID_ARG_VALUE, "argument %u: arg_value is NULL", arg_index);
        next.value = kiln_malloc(arg_size);
        if (!next.value)
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "argument %u", arg_index);
        memcpy(next.value, arg_value, arg_size);
        break;
    case KILN_CC_ARG_PIPE:
        if (arg_size != sizeof(cl_mem))
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u is a pipe: size %zu, not %zu",
                            arg_index, arg_size, sizeof(cl_mem));
        next.mem = arg_value ? *(const cl_mem *)arg_value : NULL;
        if (!kiln_rt_obj_is(next.mem, KILN_TAG_MEM))
            return KILN_ERR(CL_INVALID_MEM_OBJECT, "argument %u is not a memory object", arg_index);
        if (next.mem->type != CL_MEM_OBJECT_PIPE)
            return KILN_ERR(CL_INVALID_ARG_VALUE, "argument %u needs a pipe", arg_index);
        err = check_packet_type(a, next.mem, arg_index);
        if (err != CL_SUCCESS)
            return err;
        break;
    case KILN_CC_ARG_QUEUE:
        if (arg_size != sizeof(cl_command_queue))
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u is a queue_t: size %zu, not %zu",
                            arg_index, arg_size, sizeof(cl_command_queue));
        if (arg_value == NULL)
            return KILN_ERR(CL_INVALID_ARG_VALUE, "queue_t argument %u: arg_value is NULL",
                            arg_index);
        /* OpenCL 3.0 §5.9.2: CL_INVALID_DEVICE_QUEUE "when the specified arg_value is not a
         * valid device queue object". The handle is looked up among the context's device
         * queues, never read: a host queue, a released queue or garbage all miss. */
        memcpy(&next.queue, arg_value, sizeof(next.queue));
        if (!kiln_rt_devq_is_live(kernel->program->context, next.queue))
            return KILN_ERR(CL_INVALID_DEVICE_QUEUE,
                            "queue_t argument %u: %p is not a device queue of the kernel's context",
                            arg_index, (void *)next.queue);
        break;
    case KILN_CC_ARG_IMAGE:
        if (arg_size != sizeof(cl_mem))
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u is an image: size %zu, not %zu",
                            arg_index, arg_size, sizeof(cl_mem));
        next.mem = arg_value ? *(const cl_mem *)arg_value : NULL;
        err = check_image_arg(kernel, a, next.mem, arg_index);
        if (err != CL_SUCCESS)
            return err;
        break;
    case KILN_CC_ARG_SAMPLER: {
        if (arg_size != sizeof(cl_sampler))
            return KILN_ERR(CL_INVALID_ARG_SIZE, "argument %u is a sampler_t: size %zu, not %zu",
                            arg_index, arg_size, sizeof(cl_sampler));
        cl_sampler sampler = arg_value ? *(const cl_sampler *)arg_value : NULL;
        if (!kiln_rt_obj_is(sampler, KILN_TAG_SAMPLER))
            return KILN_ERR(CL_INVALID_SAMPLER, "sampler_t argument %u: %p is not a sampler",
                            arg_index, (void *)sampler);
        if (sampler->context != kernel->program->context)
            return KILN_ERR(CL_INVALID_CONTEXT,
                            "sampler_t argument %u: the sampler is of another context", arg_index);
        next.sampler_bits = sampler->bits;
        break;
    }
    case KILN_CC_ARG_UNSUPPORTED:
    default:
        return KILN_ERR(CL_INVALID_ARG_VALUE, "argument %u is of a kind Kiln cannot pass yet",
                        arg_index);
    }
    store_arg(kernel, arg_index, next);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param_name, size_t param_value_size,
                                   void *param_value, size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_kernel(k);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    switch (param_name) {
    case CL_KERNEL_FUNCTION_NAME:
        return kiln_rt_info_str(k->cc->name, param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_NUM_ARGS:
        u = k->cc->num_args;
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_REFERENCE_COUNT:
        u = atomic_load_explicit(&k->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_CONTEXT:
        return kiln_rt_info(&k->program->context, sizeof(cl_context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_KERNEL_PROGRAM:
        return kiln_rt_info(&k->program, sizeof(k->program), param_value_size, param_value,
                            param_value_size_ret);
    case CL_KERNEL_ATTRIBUTES:
        return kiln_rt_info_str(k->cc->attributes ? k->cc->attributes : "", param_value_size,
                                param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown kernel query 0x%x", param_name);
    }
}

static cl_kernel_arg_address_qualifier address_qualifier(uint32_t as)
{
    switch (as) {
    case KILN_CC_AS_GLOBAL:
        return CL_KERNEL_ARG_ADDRESS_GLOBAL;
    case KILN_CC_AS_CONSTANT:
        return CL_KERNEL_ARG_ADDRESS_CONSTANT;
    case KILN_CC_AS_LOCAL:
        return CL_KERNEL_ARG_ADDRESS_LOCAL;
    default:
        return CL_KERNEL_ARG_ADDRESS_PRIVATE;
    }
}

static cl_kernel_arg_access_qualifier access_qualifier(const char *s)
{
    if (strcmp(s, "read_only") == 0)
        return CL_KERNEL_ARG_ACCESS_READ_ONLY;
    if (strcmp(s, "write_only") == 0)
        return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
    if (strcmp(s, "read_write") == 0)
        return CL_KERNEL_ARG_ACCESS_READ_WRITE;
    return CL_KERNEL_ARG_ACCESS_NONE;
}

static cl_kernel_arg_type_qualifier type_qualifier(const char *s)
{
    cl_kernel_arg_type_qualifier q = CL_KERNEL_ARG_TYPE_NONE;
    if (strstr(s, "const"))
        q |= CL_KERNEL_ARG_TYPE_CONST;
    if (strstr(s, "restrict"))
        q |= CL_KERNEL_ARG_TYPE_RESTRICT;
    if (strstr(s, "volatile"))
        q |= CL_KERNEL_ARG_TYPE_VOLATILE;
    if (strstr(s, "pipe"))
        q |= CL_KERNEL_ARG_TYPE_PIPE;
    return q;
}

cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel k, cl_uint arg_index, cl_kernel_arg_info param_name,
                                      size_t param_value_size, void *param_value,
                                      size_t *param_value_size_ret)
{
    cl_int err = check_arg_index(k, arg_index);
    if (err != CL_SUCCESS)
        return err;
    pthread_mutex_lock(&k->program->lock);
    bool have_info = k->program->options && strstr(k->program->options, "-cl-kernel-arg-info");
    /*
     * clGetKernelArgInfo: "Kernel argument information is only available if the program
     * object associated with kernel is created with clCreateProgramWithSource".
     */
    if (k->program->from_binary)
        have_info = false;
    pthread_mutex_unlock(&k->program->lock);
    if (!have_info)
        return KILN_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                        "the program was not built with -cl-kernel-arg-info");
    const struct kiln_cc_arg *a = &k->cc->args[arg_index];
    cl_uint u;
    cl_bitfield b;
    switch (param_name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
        u = address_qualifier(a->addr_space);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
        u = access_qualifier(a->access_qual ? a->access_qual : "");
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_ARG_TYPE_NAME:
        return kiln_rt_info_str(a->type_name ? a->type_name : "", param_value_size, param_value,
                                param_value_size_ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
        b = type_qualifier(a->type_qual ? a->type_qual : "");
        return kiln_rt_info(&b, sizeof(b), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_ARG_NAME:
        return kiln_rt_info_str(a->name ? a->name : "", param_value_size, param_value,
                                param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown kernel argument query 0x%x", param_name);
    }
}

/* Bytes of local memory the kernel's __local arguments take, as currently set. */
/* Arena bytes: the kernel-scope __local variables, then every __local argument. */
static size_t local_args_bytes(cl_kernel k)
{
    size_t total = k->cc->local_mem_static;
    for (unsigned i = 0; i < k->cc->num_args; i++)
        if (k->cc->args[i].kind == KILN_CC_ARG_LOCAL_PTR && k->args[i].set)
            total = (total + KILN_LOCAL_ALIGN - 1) / KILN_LOCAL_ALIGN * KILN_LOCAL_ALIGN +
                    k->args[i].size;
    return total;
}

static size_t kernel_max_wg(cl_kernel k)
{
    const size_t *r = k->cc->reqd_work_group_size;
    if (r[0])
        return r[0] * (r[1] ? r[1] : 1) * (r[2] ? r[2] : 1);
    return k->program->context->device->max_wg_size;
}

/* The checks shared by the work-group and sub-group queries: a kernel, and a device of its
 * program (NULL only when the program has one device). */
static cl_int check_kernel_device(cl_kernel k, cl_device_id device)
{
    cl_int err = kiln_rt_check_kernel(k);
    if (err == CL_SUCCESS && device != NULL) {
        err = kiln_rt_check_device(device);
        if (err == CL_SUCCESS)
            err = kiln_rt_program_has_device(k->program, device);
    } else if (err == CL_SUCCESS) {
        cl_uint n;
        kiln_rt_program_devices(k->program, &n);
        if (n > 1)
            err = KILN_ERR(CL_INVALID_DEVICE, "device is NULL but the kernel has %u devices", n);
    }
    return err;
}

cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id device,
                                            cl_kernel_work_group_info param_name,
                                            size_t param_value_size, void *param_value,
                                            size_t *param_value_size_ret)
{
    cl_int err = check_kernel_device(k, device);
    if (err != CL_SUCCESS)
        return err;
    size_t sz;
    cl_ulong ul;
    switch (param_name) {
    case CL_KERNEL_WORK_GROUP_SIZE:
        sz = kernel_max_wg(k);
        return kiln_rt_info(&sz, sizeof(sz), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
        return kiln_rt_info(k->cc->reqd_work_group_size, 3 * sizeof(size_t), param_value_size,
                            param_value, param_value_size_ret);
    case CL_KERNEL_LOCAL_MEM_SIZE:
        pthread_mutex_lock(&k->lock);
        ul = local_args_bytes(k);
        pthread_mutex_unlock(&k->lock);
        return kiln_rt_info(&ul, sizeof(ul), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        sz = KILN_RT_WG_MULTIPLE;
        return kiln_rt_info(&sz, sizeof(sz), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_PRIVATE_MEM_SIZE:
        ul = k->cc->private_mem;
        return kiln_rt_info(&ul, sizeof(ul), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_GLOBAL_WORK_SIZE:
        return KILN_ERR(CL_INVALID_VALUE,
                        "CL_KERNEL_GLOBAL_WORK_SIZE is for custom devices and built-in kernels");
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown work-group query 0x%x", param_name);
    }
}

/*
 * Sub-groups have one work-item each (docs/kernel-lib.md): a group of n work-items has n
 * sub-groups of size 1, whatever its shape.
 */
static cl_int local_size_input(cl_kernel_sub_group_info param_name, size_t in_size,
                               const void *in_value, size_t *items)
{
    if (!in_value || in_size == 0 || in_size % sizeof(size_t) != 0 || in_size / sizeof(size_t) > 3)
        return KILN_ERR(CL_INVALID_VALUE,
                        "query 0x%x needs a local size of 1 to 3 size_t values (got %zu bytes%s)",
                        param_name, in_size, in_value ? "" : ", NULL");
    const size_t *local = in_value;
    *items = 1;
    for (size_t d = 0; d < in_size / sizeof(size_t); d++)
        *items *= local[d];
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel k, cl_device_id device,
                                           cl_kernel_sub_group_info param_name, size_t in_size,
                                           const void *in_value, size_t size, void *value,
                                           size_t *size_ret)
{
    cl_int err = check_kernel_device(k, device);
    if (err != CL_SUCCESS)
        return err;
    size_t out[3] = {0, 0, 0}, items;
    switch (param_name) {
    case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
        err = local_size_input(param_name, in_size, in_value, &items);
        out[0] = 1;
        break;
    case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
        err = local_size_input(param_name, in_size, in_value, &items);
        out[0] = items;
        break;
    case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
        if (!in_value || in_size != sizeof(size_t))
            return KILN_ERR(CL_INVALID_VALUE,
                            "CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT needs one size_t count");
        size_t dims = value ? size / sizeof(size_t) : 3;
        if (value && (size % sizeof(size_t) != 0 || dims == 0 || dims > 3))
            return KILN_ERR(CL_INVALID_VALUE,
                            "CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT returns 1 to 3 size_t "
                            "values (got room for %zu bytes)",
                            size);
        size_t count = *(const size_t *)in_value;
        const size_t *r = k->cc->reqd_work_group_size;
        /* count sub-groups are count work-items; a required size is the only shape allowed.
         * No shape in `dims` dimensions: all zeros. */
        if (r[0] && count == kernel_max_wg(k)) {
            for (size_t d = 0; d < 3; d++)
                out[d] = r[d] ? r[d] : 1;
            for (size_t d = dims; d < 3; d++)
                if (out[d] != 1)
                    memset(out, 0, sizeof(out));
        } else if (!r[0] && count > 0 && count <= kernel_max_wg(k)) {
            out[0] = count;
            out[1] = out[2] = 1;
        }
        return kiln_rt_info(out, dims * sizeof(size_t), size, value, size_ret);
    }
    case CL_KERNEL_MAX_NUM_SUB_GROUPS:
        out[0] = kernel_max_wg(k);
        break;
    case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
        out[0] = 0; /* Kiln has no attribute that fixes it */
        break;
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown sub-group query 0x%x", param_name);
    }
    if (err != CL_SUCCESS)
        return err;
    return kiln_rt_info(out, sizeof(size_t), size, value, size_ret);
}

/* ---- launching ------------------------------------------------------------------ */

/*
 * The most work-items a chosen local size gives x: 1024, or, for a kernel whose pipe
 * arguments all have room for it, the device's largest group. Such a kernel makes one
 * reservation of each pipe per group (its work_group_reserve_* calls, or the one-packet calls
 * every work-item makes, docs/compiler.md), on words every worker writes: on 16 workers those
 * reservations, not the packets, set the pace. Room: two groups' packets in the pipe, and a
 * group's packets within its spill area (include/kiln_pipe.h); otherwise 1024, as before.
 */
static size_t local_ceiling(cl_kernel k, cl_device_id dev)
{
    size_t big = dev->max_wg_size;
    bool pipes = false, room = true;
    pthread_mutex_lock(&k->lock);
    for (unsigned i = 0; i < k->cc->num_args && room; i++) {
        if (k->cc->args[i].kind != KILN_CC_ARG_PIPE)
            continue;
        cl_mem m = k->args[i].mem;
        const struct kiln_pipe *p =
            m && m->type == CL_MEM_OBJECT_PIPE ? (const struct kiln_pipe *)m->data : NULL;
        pipes = true;
        room = p && (uint64_t)big * p->packet_size <= KILN_PIPE_SPILL_MAX &&
               (uint64_t)p->max_packets >= 2 * (uint64_t)big;
    }
    pthread_mutex_unlock(&k->lock);
    return pipes && room && big > 1024 ? big : 1024;
}

/*
 * Choose a local size when the caller gave none: the x dimension carries the
 * vectorised work-item loop, so give it up to 1024 work-items (a group costs one
 * call, so long groups amortise it; no kernel has barriers yet; local_ceiling), but keep at
 * least four groups per compute unit when the range allows it. A divisor of the global
 * size is preferred; otherwise the last group is partial (non-uniform groups).
 */
static void pick_local_size(cl_kernel k, cl_device_id dev, cl_uint dim, const size_t *global,
                            bool uniform, size_t *local)
{
    const size_t *r = k->cc->reqd_work_group_size;
    for (cl_uint d = 0; d < 3; d++)
        local[d] = 1;
    if (r[0]) {
        for (cl_uint d = 0; d < dim; d++)
            local[d] = r[d] ? r[d] : 1;
        return;
    }
    size_t others = 1;
    for (cl_uint d = 1; d < dim; d++)
        others *= global[d];
    size_t cu = dev->compute_units;
    size_t want = local_ceiling(k, dev);
    while (want > 16 && (global[0] / want) * others < 4 * cu)
        want /= 2;
    if (want > global[0])
        want = global[0];
    size_t best = 1;
    for (size_t l = want; l >= 1; l--) {
        if (global[0] % l == 0) {
            best = l;
            break;
        }
    }
    local[0] = (uniform || best * 4 >= want) ? best : want;
}

/*
 * The argument limits the device reports (rt_device.h): CL_DEVICE_MAX_CONSTANT_ARGS,
 * CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE for each __constant buffer, CL_DEVICE_MAX_PARAMETER_SIZE.
 * The specification gives no code of its own for them; like the image and sampler counts
 * that clEnqueueNDRangeKernel's CL_OUT_OF_RESOURCES names as its examples (OpenCL 3.0
 * §5.10), they are resources a kernel's launch needs, and the Khronos conformance tests
 * take CL_OUT_OF_RESOURCES as the answer to a constant buffer too large. They are checked
 * at enqueue, not at build, so that a program whose unused kernel exceeds one still builds.
 * An SVM pointer given to a __constant argument is not measured: the runtime cannot know
 * how much of it the kernel reads. snapshot_args counts them in its first pass over the
 * arguments (no pass of their own on the launch path) and calls these with k->lock held.
 */
static cl_int check_constant_arg(cl_kernel k, unsigned i)
{
    const struct kiln_rt_arg *a = &k->args[i];
    if (a->mem && a->mem->size > KILN_RT_MAX_CONSTANT_BUFFER_SIZE)
        return KILN_ERR(CL_OUT_OF_RESOURCES,
                        "__constant argument %u of %s: a buffer of %zu bytes, above "
                        "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (%llu)",
                        i, k->cc->name, a->mem->size,
                        (unsigned long long)KILN_RT_MAX_CONSTANT_BUFFER_SIZE);
    return CL_SUCCESS;
}

/* Image and sampler arguments of one kernel, by kind, against the limits of rt_device.h. */
struct image_counts {
    unsigned read, write, read_write, samplers;
};

static void count_image_arg(const struct kiln_cc_arg *a, struct image_counts *c)
{
    if (a->kind == KILN_CC_ARG_SAMPLER) {
        c->samplers++;
    } else if (a->kind == KILN_CC_ARG_IMAGE) {
        const char *access = a->access_qual ? a->access_qual : "";
        if (strcmp(access, "write_only") == 0)
            c->write++;
        else if (strcmp(access, "read_write") == 0)
            c->read_write++;
        else
            c->read++;
    }
}

static cl_int check_image_totals(cl_kernel k, const struct image_counts *c)
{
    const struct {
        unsigned have, limit;
        const char *what, *query;
    } checks[] = {
        {c->read, KILN_RT_MAX_READ_IMAGE_ARGS, "read_only images", "MAX_READ_IMAGE_ARGS"},
        {c->write, KILN_RT_MAX_WRITE_IMAGE_ARGS, "write_only images", "MAX_WRITE_IMAGE_ARGS"},
        {c->read_write, KILN_RT_MAX_READ_WRITE_IMAGE_ARGS, "read_write images",
         "MAX_READ_WRITE_IMAGE_ARGS"},
        {c->samplers, KILN_RT_MAX_SAMPLERS, "sampler_t arguments", "MAX_SAMPLERS"},
    };
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
        if (checks[i].have > checks[i].limit)
            return KILN_ERR(CL_OUT_OF_RESOURCES, "kernel %s has %u %s, above CL_DEVICE_%s (%u)",
                            k->cc->name, checks[i].have, checks[i].what, checks[i].query,
                            checks[i].limit);
    return CL_SUCCESS;
}

static cl_int check_arg_totals(cl_kernel k, unsigned constants, size_t params)
{
    if (constants > KILN_RT_MAX_CONSTANT_ARGS)
        return KILN_ERR(CL_OUT_OF_RESOURCES,
                        "kernel %s has %u __constant arguments, above CL_DEVICE_MAX_CONSTANT_ARGS "
                        "(%u)",
                        k->cc->name, constants, KILN_RT_MAX_CONSTANT_ARGS);
    if (params > KILN_RT_MAX_PARAMETER_SIZE)
        return KILN_ERR(CL_OUT_OF_RESOURCES,
                        "the arguments of kernel %s take %zu bytes, above "
                        "CL_DEVICE_MAX_PARAMETER_SIZE (%zu)",
                        k->cc->name, params, KILN_RT_MAX_PARAMETER_SIZE);
    return CL_SUCCESS;
}

static cl_int snapshot_args(cl_kernel k, struct kiln_rt_command *cmd, size_t local_limit)
{
    struct kiln_rt_ndrange *nd = &cmd->u.nd;
    const unsigned n = k->cc->num_args;
    size_t store = 0, local = k->cc->local_mem_static, params = 0;
    unsigned num_mems = 0, constants = 0;
    struct image_counts images = {0};
    cl_int err;
    for (unsigned i = 0; i < n; i++) {
        const struct kiln_rt_arg *a = &k->args[i];
        if (!a->set)
            return KILN_ERR(CL_INVALID_KERNEL_ARGS, "argument %u of %s is not set", i, k->cc->name);
        size_t bytes = k->cc->args[i].kind == KILN_CC_ARG_VALUE ? a->size : sizeof(size_t);
        store = (store + 15) / 16 * 16 + bytes;
        params += bytes;
        if (k->cc->args[i].kind == KILN_CC_ARG_LOCAL_PTR)
            local = (local + KILN_LOCAL_ALIGN - 1) / KILN_LOCAL_ALIGN * KILN_LOCAL_ALIGN + a->size;
        if (k->cc->args[i].kind == KILN_CC_ARG_CONSTANT_PTR) {
            constants++;
            if ((err = check_constant_arg(k, i)) != CL_SUCCESS)
                return err;
        }
        if (a->mem)
            num_mems++;
        count_image_arg(&k->cc->args[i], &images);
        if (k->cc->args[i].kind == KILN_CC_ARG_QUEUE &&
            !kiln_rt_devq_is_live(k->program->context, a->queue))
            return KILN_ERR(CL_INVALID_KERNEL_ARGS,
                            "queue_t argument %u of %s: its device queue was released", i,
                            k->cc->name);
    }
    if ((err = check_arg_totals(k, constants, params)) != CL_SUCCESS)
        return err;
    if ((err = check_image_totals(k, &images)) != CL_SUCCESS)
        return err;
    if (local > local_limit)
        return KILN_ERR(CL_OUT_OF_RESOURCES,
                        "__local variables and arguments need %zu bytes, the device has %zu", local,
                        local_limit);
    /* One allocation: the argument pointers, the held buffers, then the 16-byte aligned
     * store the pointers point into (freed through nd->args). */
    size_t ptrs = (n ? n : 1) * sizeof(void *), mems = (num_mems ? num_mems : 1) * sizeof(cl_mem);
    size_t head = (ptrs + mems + 15) / 16 * 16;
    size_t bytes = (head + (store ? store : 1) + 15) / 16 * 16;
    unsigned char *block =
        bytes <= sizeof(cmd->inline_args) ? cmd->inline_args : kiln_aligned_alloc(16, bytes);
    if (!block)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "kernel arguments");
    memset(block, 0, head + (store ? store : 1));
    nd->work.args = (void **)block;
    nd->held = (cl_mem *)(block + ptrs);
    nd->arg_store = block + head;
    size_t at = 0;
    local = k->cc->local_mem_static;
    for (unsigned i = 0; i < n; i++) {
        const struct kiln_rt_arg *a = &k->args[i];
        at = (at + 15) / 16 * 16;
        unsigned char *slot = nd->arg_store + at;
        nd->work.args[i] = slot;
        switch (k->cc->args[i].kind) {
        case KILN_CC_ARG_VALUE:
            memcpy(slot, a->value, a->size);
            at += a->size;
            break;
        case KILN_CC_ARG_LOCAL_PTR:
            local = (local + KILN_LOCAL_ALIGN - 1) / KILN_LOCAL_ALIGN * KILN_LOCAL_ALIGN;
            memcpy(slot, &local, sizeof(size_t));
            local += a->size;
            at += sizeof(size_t);
            break;
        case KILN_CC_ARG_QUEUE:
            /* The kernel's queue_t is the device's queue, never the API object. */
            memcpy(slot, &a->queue->device_queue.dev, sizeof(void *));
            at += sizeof(void *);
            break;
        case KILN_CC_ARG_SAMPLER: {
            /* A sampler_t's pointer value is its bits (include/kiln_image.h). */
            uintptr_t bits = a->sampler_bits;
            memcpy(slot, &bits, sizeof(bits));
            at += sizeof(void *);
            break;
        }
        default: {
            /* An image argument points to the image's descriptor; the image is held
             * like a buffer until the launch completes. */
            void *data = !a->mem ? a->svm : a->mem->image ? (void *)a->mem->image : a->mem->data;
            memcpy(slot, &data, sizeof(void *));
            at += sizeof(void *);
            if (a->mem) {
                kiln_rt_obj_hold(&a->mem->obj);
                nd->held[nd->num_held++] = a->mem;
            }
            break;
        }
        }
    }
    nd->local_bytes = local;
    return CL_SUCCESS;
}

/*
 * The checks of clEnqueueNDRangeKernel. A NULL global size, or one that is 0 in some
 * dimension, is an empty range (OpenCL 2.1 and later): *empty is set and the command
 * trivially succeeds once its dependencies are met.
 */
static cl_int check_ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                            const size_t *global, const size_t *local, bool *empty)
{
    cl_int err = kiln_rt_check_queue(q);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_kernel(k);
    if (err != CL_SUCCESS)
        return err;
    if (k->program->context != q->context)
        return KILN_ERR(CL_INVALID_CONTEXT, "the kernel and the queue differ in context");
    if (dim < 1 || dim > 3)
        return KILN_ERR(CL_INVALID_WORK_DIMENSION, "work_dim %u", dim);
    *empty = global == NULL;
    for (cl_uint d = 0; global && d < dim; d++)
        *empty |= global[d] == 0;
    if (*empty)
        return CL_SUCCESS;
    for (cl_uint d = 0; d < dim; d++) {
        size_t off = offset ? offset[d] : 0;
        if (global[d] > SIZE_MAX - off)
            return KILN_ERR(CL_INVALID_GLOBAL_OFFSET, "offset + size overflows in dimension %u", d);
    }
    const size_t *r = k->cc->reqd_work_group_size;
    const cl_device_id dev = q->device;
    if (k->program->from_binary && k->program->binary_device != dev)
        return KILN_ERR(CL_INVALID_PROGRAM_EXECUTABLE,
                        "the program was built from a binary for another device");
    if (local) {
        size_t total = 1;
        for (cl_uint d = 0; d < dim; d++) {
            if (local[d] == 0)
                return KILN_ERR(CL_INVALID_WORK_GROUP_SIZE, "local size 0 in dimension %u", d);
            if (local[d] > dev->max_wg_size)
                return KILN_ERR(CL_INVALID_WORK_ITEM_SIZE, "local size %zu in dimension %u",
                                local[d], d);
            total *= local[d];
        }
        if (total > kernel_max_wg(k))
            return KILN_ERR(CL_INVALID_WORK_GROUP_SIZE, "%zu work-items in a group, at most %zu",
                            total, kernel_max_wg(k));
        if (r[0])
            for (cl_uint d = 0; d < dim; d++)
                if (local[d] != (r[d] ? r[d] : 1))
                    return KILN_ERR(CL_INVALID_WORK_GROUP_SIZE,
                                    "reqd_work_group_size differs in dimension %u", d);
        pthread_mutex_lock(&k->program->lock);
        bool uniform = kiln_rt_program_uniform(k->program);
        pthread_mutex_unlock(&k->program->lock);
        for (cl_uint d = 0; uniform && d < dim; d++)
            if (global[d] % local[d])
                return KILN_ERR(CL_INVALID_WORK_GROUP_SIZE,
                                "-cl-uniform-work-group-size and global %zu %% local %zu != 0",
                                global[d], local[d]);
    } else if (r[0]) {
        for (cl_uint d = 0; d < dim; d++)
            if (global[d] % (r[d] ? r[d] : 1))
                return KILN_ERR(CL_INVALID_WORK_GROUP_SIZE,
                                "global size is not a multiple of reqd_work_group_size");
    }
    return CL_SUCCESS;
}

static cl_int enqueue_ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint n,
                              const cl_event *list, cl_event *event, cl_command_type type)
{
    bool empty = false;
    cl_int err = check_ndrange(q, k, dim, offset, global, local, &empty);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_wait_list(q, n, list);
    struct kiln_rt_command *cmd = NULL;
    if (err == CL_SUCCESS && empty) {
        err = kiln_rt_command_create(q, KILN_CMD_MARKER, type, &cmd);
        return err == CL_SUCCESS ? kiln_rt_command_submit(cmd, n, list, event, false) : err;
    }
    if (err == CL_SUCCESS)
        err = kiln_rt_command_create(q, KILN_CMD_NDRANGE, type, &cmd);
    if (err != CL_SUCCESS)
        return err;

    struct kiln_rt_ndrange *nd = &cmd->u.nd;
    nd->kernel = k;
    kiln_rt_obj_hold(&k->obj);
    size_t chosen[3];
    if (!local) {
        pthread_mutex_lock(&k->program->lock);
        bool uniform = kiln_rt_program_uniform(k->program);
        pthread_mutex_unlock(&k->program->lock);
        pick_local_size(k, q->device, dim, global, uniform, chosen);
        local = chosen;
    }
    struct kiln_wg_ctx *b = &nd->work.base;
    b->work_dim = dim;
    for (cl_uint d = 0; d < 3; d++) {
        bool in = d < dim;
        b->global_offset[d] = in && offset ? offset[d] : 0;
        b->global_size[d] = in ? global[d] : 1;
        b->enqueued_local_size[d] = in ? local[d] : 1;
        b->num_groups[d] =
            (b->global_size[d] + b->enqueued_local_size[d] - 1) / b->enqueued_local_size[d];
        nd->work.groups[d] = b->num_groups[d];
    }
    struct kiln_rt_variant_key key = {{0}, false, 0, {{0}}};
    const struct kiln_cc_kernel *cc = kiln_rt_variant_for(k, dim, offset, global, local, &key);
    pthread_mutex_lock(&k->lock);
    err = snapshot_args(k, cmd, (size_t)q->device->local_mem_size);
    if (err == CL_SUCCESS && k->cc->enqueues)
        err = kiln_rt_enqueue_prepare(q, k, nd);
    /* The variant was chosen before the snapshot: an image set since by another thread
     * (clSetKernelArg on a kernel being enqueued is the application's race, Appendix A.2) must
     * not run code made for another pixel size, so the launch takes the generic function. */
    if (cc != k->cc && key.num_images && !kiln_rt_variant_images_match(k, &key))
        cc = k->cc;
    pthread_mutex_unlock(&k->lock);
    /* A local-size variant's function needs its own scratch (variant.c). */
    nd->work.wg = cc->wg;
    nd->work.uses_printf = k->cc->uses_printf;
    nd->work.column_bands = k->cc->column_reuse != 0;
    if (cc->scratch_fixed || cc->scratch_per_item) {
        size_t items =
            b->enqueued_local_size[0] * b->enqueued_local_size[1] * b->enqueued_local_size[2];
        size_t bytes = cc->scratch_fixed + cc->scratch_per_item * items;
        b->scratch_size =
            (bytes + KILN_SCRATCH_ALIGN - 1) / KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN;
    }
    if (err != CL_SUCCESS) {
        kiln_rt_command_discard(cmd);
        return err;
    }
    return kiln_rt_command_submit(cmd, n, list, event, false);
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel kernel, cl_uint work_dim,
                                          const size_t *global_work_offset,
                                          const size_t *global_work_size,
                                          const size_t *local_work_size, cl_uint n,
                                          const cl_event *list, cl_event *event)
{
    return enqueue_ndrange(q, kernel, work_dim, global_work_offset, global_work_size,
                           local_work_size, n, list, event, CL_COMMAND_NDRANGE_KERNEL);
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue q, cl_kernel kernel, cl_uint n,
                                 const cl_event *list, cl_event *event)
{
    static const size_t one = 1;
    return enqueue_ndrange(q, kernel, 1, NULL, &one, &one, n, list, event, CL_COMMAND_TASK);
}

/*
 * OpenCL 3.0 §5.9.1: the clone has the source's program and a copy of every
 * argument value set so far; later clSetKernelArg calls affect one kernel only.
 */
cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret)
{
    cl_kernel k = NULL;
    cl_int err = kiln_rt_check_kernel(source_kernel);
    if (err == CL_SUCCESS)
        err = kernel_create(source_kernel->program, source_kernel->cc, source_kernel->index, &k);
    if (err == CL_SUCCESS) {
        pthread_mutex_lock(&source_kernel->lock);
        for (unsigned i = 0; err == CL_SUCCESS && i < k->cc->num_args; i++) {
            const struct kiln_rt_arg *a = &source_kernel->args[i];
            k->args[i] = *a;
            k->args[i].value = NULL;
            if (a->value && !(k->args[i].value = kiln_malloc(a->size)))
                err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "argument %u of the clone", i);
            else if (a->value)
                memcpy(k->args[i].value, a->value, a->size);
        }
        pthread_mutex_unlock(&source_kernel->lock);
    }
    if (err != CL_SUCCESS && k) {
        kiln_rt_obj_release(&k->obj);
        k = NULL;
    }
    kiln_set_errcode(errcode_ret, err);
    return k;
}

/* ---- shared virtual memory (the kernel side of docs/runtime.md, SVM) ------------ */

cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                            const void *arg_value)
{
    cl_int err = check_arg_index(kernel, arg_index);
    if (err != CL_SUCCESS)
        return err;
    enum kiln_cc_arg_kind kind = kernel->cc->args[arg_index].kind;
    if (kind != KILN_CC_ARG_GLOBAL_PTR && kind != KILN_CC_ARG_CONSTANT_PTR)
        return KILN_ERR(CL_INVALID_ARG_INDEX, "argument %u is not a __global or __constant pointer",
                        arg_index);
    /* Fine-grained system SVM: any address, NULL included, is a valid argument. */
    struct kiln_rt_arg next = {.set = true, .size = sizeof(void *), .svm = (void *)arg_value};
    store_arg(kernel, arg_index, next);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param_name,
                                       size_t size, const void *value)
{
    cl_int err = kiln_rt_check_kernel(kernel);
    if (err != CL_SUCCESS)
        return err;
    switch (param_name) {
    case CL_KERNEL_EXEC_INFO_SVM_PTRS:
        /* Every address is visible to kernels: the list needs no keeping. An empty list
         * (0, NULL) unsets an earlier one. */
        if (size % sizeof(void *) || (value == NULL) != (size == 0))
            return KILN_ERR(CL_INVALID_VALUE, "CL_KERNEL_EXEC_INFO_SVM_PTRS: %zu bytes at %p", size,
                            value);
        return CL_SUCCESS;
    case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
        if (size != sizeof(cl_bool) || value == NULL)
            return KILN_ERR(CL_INVALID_VALUE,
                            "CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM: %zu bytes at %p", size,
                            value);
        return CL_SUCCESS;
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown exec info 0x%x", param_name);
    }
}
