/*
 * Programs from source and from Kiln binaries (clCreateProgramWithSource,
 * clCreateProgramWithBinary, clBuildProgram, clCompileProgram, clLinkProgram,
 * clGetProgramInfo, clGetProgramBuildInfo, clRetain/ReleaseProgram) and the
 * answers for program kinds Kiln does not build yet (IL, built-in kernels): the
 * error codes the specification gives a device without them.
 *
 * A program's `built` is the compiler's program of one of three kinds
 * (kiln_cc.h): an executable (clBuildProgram, clLinkProgram, or a binary of one),
 * a compiled object (clCompileProgram) or a library (clLinkProgram with
 * -create-library), the last two holding bitcode for clLinkProgram. Kernels come
 * from executables only.
 *
 * A binary is the compiler library's container (docs/compiler.md): the object
 * code and kernel descriptions of a built program. clCreateProgramWithBinary
 * checks and loads it at once, so a binary that is not Kiln's, damaged, or made
 * for another CPU or Kiln build is refused there with CL_INVALID_BINARY;
 * clBuildProgram then has nothing left to compile.
 */
#include "rt_program.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_object.h"
#include "rt_variant.h"

#include "kiln_alloc.h"
#include "kiln_cc.h"

#include <pthread.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void program_destroy(struct kiln_object *obj)
{
    cl_program p = (cl_program)obj;
    kiln_rt_variants_free(atomic_load_explicit(&p->variants, memory_order_relaxed),
                          p->variant_rows);
    free(p->dev_kernels);
    if (p->built) {
        const struct kiln_cc_interface *cc = NULL;
        if (kiln_rt_compiler(&cc) == CL_SUCCESS)
            cc->destroy(p->built);
    }
    free(p->source);
    free(p->options);
    free(p->log);
    pthread_mutex_destroy(&p->lock);
    kiln_rt_obj_drop(&p->context->obj);
    free(p);
}

cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                 const char **strings, const size_t *lengths,
                                                 cl_int *errcode_ret)
{
    cl_program p = NULL;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (count == 0 || strings == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "count %u, strings %p", count, (void *)strings);
    size_t total = 0;
    for (cl_uint i = 0; err == CL_SUCCESS && i < count; i++) {
        if (!strings[i])
            err = KILN_ERR(CL_INVALID_VALUE, "strings[%u] is NULL", i);
        else
            total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    }
    if (err == CL_SUCCESS) {
        p = kiln_calloc(1, sizeof(*p));
        char *src = kiln_malloc(total + 1);
        if (!p || !src) {
            free(p);
            free(src);
            p = NULL;
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "program of %zu bytes", total);
        } else {
            size_t at = 0;
            for (cl_uint i = 0; i < count; i++) {
                size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
                memcpy(src + at, strings[i], n);
                at += n;
            }
            src[at] = '\0';
            p->source = src;
            pthread_mutex_init(&p->lock, NULL);
            kiln_rt_obj_init(&p->obj, KILN_TAG_PROGRAM, program_destroy);
            p->context = context;
            kiln_rt_obj_hold(&context->obj);
            p->status = CL_BUILD_NONE;
            atomic_init(&p->num_kernel_objs, 0);
        }
    }
    kiln_set_errcode(errcode_ret, err);
    return p;
}

/* The program's devices: the one a binary was given for, else every device of its context. */
const cl_device_id *kiln_rt_program_devices(cl_program p, cl_uint *n)
{
    if (p->from_binary) {
        *n = 1;
        return &p->binary_device;
    }
    *n = p->context->num_devices;
    return p->context->devices;
}

bool kiln_rt_program_uniform(cl_program p)
{
    const struct kiln_cc_interface *cc = NULL;
    unsigned flags = 0;
    bool uniform = p->options && strstr(p->options, "-cl-uniform-work-group-size");
    if (p->built && kiln_rt_compiler(&cc) == CL_SUCCESS)
        cc->kind(p->built, &flags);
    return uniform || (flags & KILN_CC_FLAG_UNIFORM_WG);
}

cl_int kiln_rt_program_has_device(cl_program p, cl_device_id d)
{
    cl_uint n;
    const cl_device_id *devs = kiln_rt_program_devices(p, &n);
    for (cl_uint i = 0; i < n; i++)
        if (devs[i] == d)
            return CL_SUCCESS;
    return KILN_ERR(CL_INVALID_DEVICE, "device %p is not a device of program %p", (void *)d,
                    (void *)p);
}

static cl_int check_program_devices(cl_program p, cl_uint num_devices,
                                    const cl_device_id *device_list)
{
    if ((num_devices == 0) != (device_list == NULL))
        return KILN_ERR(CL_INVALID_VALUE, "num_devices %u with device_list %p", num_devices,
                        (void *)device_list);
    for (cl_uint i = 0; i < num_devices; i++) {
        cl_int err = kiln_rt_check_device(device_list[i]);
        if (err != CL_SUCCESS)
            return err;
        err = kiln_rt_program_has_device(p, device_list[i]);
        if (err != CL_SUCCESS)
            return err;
    }
    return CL_SUCCESS;
}

/*
 * Build options starting with -kiln- are reserved for Kiln: an application's are refused, with
 * CL_INVALID_BUILD_OPTIONS, whatever follows (the compiler takes none today; a variant is
 * asked for through build_variant(), variant.c). A word starts after a blank or a double quote
 * (the option parser drops quotes).
 */
static bool has_private_option(const char *options)
{
    for (const char *s = options; s && (s = strstr(s, "-kiln-")); s++)
        if (s == options || isspace((unsigned char)s[-1]) || s[-1] == '"')
            return true;
    return false;
}

/* What a build, compile or link failure is called. */
static cl_int failure_code(enum kiln_cc_status st, bool compile, const char *opts)
{
    switch (st) {
    case KILN_CC_OK:
        return CL_SUCCESS;
    case KILN_CC_INVALID_OPTIONS:
        return compile ? KILN_ERR(CL_INVALID_COMPILER_OPTIONS, "options \"%s\" rejected", opts)
                       : KILN_ERR(CL_INVALID_BUILD_OPTIONS, "options \"%s\" rejected", opts);
    case KILN_CC_OUT_OF_MEMORY:
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "while compiling");
    case KILN_CC_BUILD_FAILED:
    case KILN_CC_INTERNAL:
    default:
        return compile ? KILN_ERR(CL_COMPILE_PROGRAM_FAILURE, "see the build log")
                       : KILN_ERR(CL_BUILD_PROGRAM_FAILURE, "see the build log");
    }
}

/*
 * clBuildProgram (compile false) and clCompileProgram (compile true, with its
 * input headers): replaces the program's built code, log and options.
 */
static cl_int build(cl_program p, const char *options, bool compile,
                    const struct kiln_cc_header *headers, unsigned num_headers)
{
    const struct kiln_cc_interface *cc = NULL;
    cl_int err = kiln_rt_compiler(&cc);
    if (err != CL_SUCCESS)
        return err;
    char *opts = kiln_strdup(options ? options : "");
    if (!opts)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "build options");

    pthread_mutex_lock(&p->lock);
    if (p->status == CL_BUILD_IN_PROGRESS) {
        pthread_mutex_unlock(&p->lock);
        free(opts);
        return KILN_ERR(CL_INVALID_OPERATION, "a build of this program is in progress");
    }
    if (atomic_load_explicit(&p->num_kernel_objs, memory_order_acquire) > 0) {
        pthread_mutex_unlock(&p->lock);
        free(opts);
        return KILN_ERR(CL_INVALID_OPERATION, "kernel objects are attached to the program");
    }
    if (p->from_binary && cc->kind(p->built, NULL) == KILN_CC_EXECUTABLE) {
        /* Loaded by clCreateProgramWithBinary; the log is the original build's. */
        p->status = CL_BUILD_SUCCESS;
        free(p->options);
        p->options = opts;
        pthread_mutex_unlock(&p->lock);
        return CL_SUCCESS;
    }
    p->status = CL_BUILD_IN_PROGRESS;
    /* A compiled object or library from a binary is linked on its own. */
    const struct kiln_cc_program *input = p->from_binary ? p->built : NULL;
    pthread_mutex_unlock(&p->lock);
    /* No kernel object is left to queue a variant, but one released may have queued some. */
    kiln_rt_variant_jobs_cancel(p);

    struct kiln_cc_program *built = NULL;
    char *log = NULL;
    enum kiln_cc_status st;
    if (input)
        st = cc->link(&input, 1, "", &built, &log);
    else if (compile)
        st = cc->compile(p->source, opts, headers, num_headers, &built, &log);
    else
        st = cc->build(p->source, opts, &built, &log);
    err = failure_code(st, compile, opts);
    if (st == KILN_CC_OK)
        KILN_LOG(KILN_DBG_CC, "program %p: %s", (void *)p,
                 compile                 ? "compiled to an object"
                 : input                 ? "linked from its binary"
                 : cc->from_cache(built) ? "loaded from the kernel cache"
                                         : "compiled");

    pthread_mutex_lock(&p->lock);
    struct kiln_cc_program *old = p->built;
    /* The old executable's variants go with it. */
    struct kiln_rt_variant *old_variants = atomic_load_explicit(&p->variants, memory_order_relaxed);
    unsigned old_rows = p->variant_rows;
    atomic_store_explicit(&p->variants, NULL, memory_order_relaxed);
    p->variant_rows = 0;
    free(p->dev_kernels);
    p->dev_kernels = NULL;
    /* A binary's object or library stays when linking it failed. */
    if (input && !built)
        old = NULL;
    else
        p->built = built;
    free(p->log);
    p->log = log;
    free(p->options);
    p->options = opts;
    p->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    pthread_mutex_unlock(&p->lock);
    kiln_rt_variants_free(old_variants, old_rows);
    if (old)
        cc->destroy(old);
    return err;
}

cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                  const cl_device_id *device_list, const char *options,
                                  void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                  void *user_data)
{
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        err = check_program_devices(program, num_devices, device_list);
    if (err == CL_SUCCESS && pfn_notify == NULL && user_data != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "user_data without pfn_notify");
    if (err == CL_SUCCESS && has_private_option(options))
        err = KILN_ERR(CL_INVALID_BUILD_OPTIONS,
                       "build options starting with -kiln- are Kiln's own (\"%s\")", options);
    if (err == CL_SUCCESS && program->source == NULL && !program->from_binary)
        err = KILN_ERR(CL_INVALID_OPERATION, "the program has no source or binary to build");
    if (err != CL_SUCCESS)
        return err;
    err = build(program, options, false, NULL, 0);
    /* The build is synchronous; the callback comes when it has ended, success or not. */
    if (pfn_notify)
        pfn_notify(program, user_data);
    return err;
}

cl_int CL_API_CALL clRetainProgram(cl_program program)
{
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&program->obj);
    return err;
}

cl_int CL_API_CALL clReleaseProgram(cl_program program)
{
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&program->obj);
    return err;
}

/* Kernel names joined by ';', malloc()ed. */
static char *kernel_names(cl_program p)
{
    const struct kiln_cc_interface *cc = NULL;
    if (kiln_rt_compiler(&cc) != CL_SUCCESS)
        return NULL;
    unsigned n = cc->num_kernels(p->built);
    size_t len = 1;
    for (unsigned i = 0; i < n; i++)
        len += strlen(cc->kernel(p->built, i)->name) + 1;
    char *s = kiln_malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        if (i)
            strcat(s, ";");
        strcat(s, cc->kernel(p->built, i)->name);
    }
    return s;
}

/*
 * CL_PROGRAM_BINARIES: param_value is an array of one pointer per device (one
 * here) to memory of CL_PROGRAM_BINARY_SIZES bytes; a NULL entry is skipped.
 */
static cl_int program_binaries(cl_program p, bool has_binary, size_t param_value_size,
                               void *param_value, size_t *param_value_size_ret)
{
    const struct kiln_cc_interface *cc = NULL;
    if (param_value && param_value_size < sizeof(unsigned char *))
        return KILN_ERR(CL_INVALID_VALUE, "param_value_size %zu is less than one pointer",
                        param_value_size);
    cl_int err =
        kiln_rt_info(NULL, sizeof(unsigned char *), param_value_size, NULL, param_value_size_ret);
    if (err != CL_SUCCESS || !param_value)
        return err;
    unsigned char *dst = *(unsigned char **)param_value;
    if (!dst || !has_binary)
        return CL_SUCCESS;
    if ((err = kiln_rt_compiler(&cc)) != CL_SUCCESS)
        return err;
    size_t size = 0;
    const unsigned char *bin = cc->binary(p->built, &size);
    memcpy(dst, bin, size);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_program(p);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    size_t sz;
    cl_bool no = CL_FALSE;
    const struct kiln_cc_interface *cc = NULL;
    pthread_mutex_lock(&p->lock);
    bool built = p->built != NULL && p->status == CL_BUILD_SUCCESS &&
                 kiln_rt_compiler(&cc) == CL_SUCCESS &&
                 cc->kind(p->built, NULL) == KILN_CC_EXECUTABLE;
    /* A binary program has its binary before clBuildProgram, as it was given. */
    bool has_binary = p->built != NULL;
    pthread_mutex_unlock(&p->lock);
    switch (param_name) {
    case CL_PROGRAM_REFERENCE_COUNT:
        u = atomic_load_explicit(&p->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_CONTEXT:
        return kiln_rt_info(&p->context, sizeof(p->context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_PROGRAM_NUM_DEVICES:
        kiln_rt_program_devices(p, &u);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_DEVICES: {
        const cl_device_id *devs = kiln_rt_program_devices(p, &u);
        return kiln_rt_info(devs, u * sizeof(cl_device_id), param_value_size, param_value,
                            param_value_size_ret);
    }
    case CL_PROGRAM_SOURCE:
        return kiln_rt_info_str(p->source ? p->source : "", param_value_size, param_value,
                                param_value_size_ret);
    case CL_PROGRAM_IL:
        return kiln_rt_info(NULL, 0, param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_BINARY_SIZES:
        /* 0 until the program has an executable (section 5.8.9 of the specification). */
        sz = 0;
        if (has_binary) {
            if ((err = kiln_rt_compiler(&cc)) != CL_SUCCESS)
                return err;
            cc->binary(p->built, &sz);
        }
        return kiln_rt_info(&sz, sizeof(sz), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_BINARIES:
        return program_binaries(p, has_binary, param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_NUM_KERNELS:
        if (!built)
            return KILN_ERR(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not an executable");
        sz = cc->num_kernels(p->built);
        return kiln_rt_info(&sz, sizeof(sz), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_KERNEL_NAMES: {
        if (!built)
            return KILN_ERR(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not an executable");
        char *names = kernel_names(p);
        if (!names)
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "kernel names");
        err = kiln_rt_info_str(names, param_value_size, param_value, param_value_size_ret);
        free(names);
        return err;
    }
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
        return kiln_rt_info(&no, sizeof(no), param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown program query 0x%x", param_name);
    }
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id device,
                                         cl_program_build_info param_name, size_t param_value_size,
                                         void *param_value, size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_program(p);
    if (err == CL_SUCCESS)
        err = kiln_rt_check_device(device);
    if (err == CL_SUCCESS)
        err = kiln_rt_program_has_device(p, device);
    if (err != CL_SUCCESS)
        return err;
    cl_build_status status;
    cl_program_binary_type type;
    size_t variable_bytes = 0;
    const struct kiln_cc_interface *cc = NULL;
    pthread_mutex_lock(&p->lock);
    switch (param_name) {
    case CL_PROGRAM_BUILD_STATUS:
        status = p->status;
        err = kiln_rt_info(&status, sizeof(status), param_value_size, param_value,
                           param_value_size_ret);
        break;
    case CL_PROGRAM_BUILD_OPTIONS:
        err = kiln_rt_info_str(p->options ? p->options : "", param_value_size, param_value,
                               param_value_size_ret);
        break;
    case CL_PROGRAM_BUILD_LOG:
        err = kiln_rt_info_str(p->log ? p->log : "", param_value_size, param_value,
                               param_value_size_ret);
        break;
    case CL_PROGRAM_BINARY_TYPE:
        type = CL_PROGRAM_BINARY_TYPE_NONE;
        if (p->built && kiln_rt_compiler(&cc) == CL_SUCCESS) {
            switch (cc->kind(p->built, NULL)) {
            case KILN_CC_EXECUTABLE:
                type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                break;
            case KILN_CC_OBJECT:
                type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
                break;
            case KILN_CC_LIBRARY:
                type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
                break;
            }
        }
        err =
            kiln_rt_info(&type, sizeof(type), param_value_size, param_value, param_value_size_ret);
        break;
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
        /* 0 for a program that is not an executable: it has no variables yet. */
        if (p->built && kiln_rt_compiler(&cc) == CL_SUCCESS &&
            cc->kind(p->built, NULL) == KILN_CC_EXECUTABLE)
            variable_bytes = cc->variable_bytes(p->built);
        err = kiln_rt_info(&variable_bytes, sizeof(variable_bytes), param_value_size, param_value,
                           param_value_size_ret);
        break;
    default:
        err = KILN_ERR(CL_INVALID_VALUE, "unknown build query 0x%x", param_name);
        break;
    }
    pthread_mutex_unlock(&p->lock);
    return err;
}

/* Loads binary i; on failure *status is its binary_status entry. */
static cl_int load_binary(const struct kiln_cc_interface *cc, cl_uint i, const unsigned char *bin,
                          size_t length, struct kiln_cc_program **out, char **log, cl_int *status)
{
    enum kiln_cc_status st = cc->load_binary(bin, length, out, log);
    if (st == KILN_CC_OK)
        return *status = CL_SUCCESS;
    if (st == KILN_CC_OUT_OF_MEMORY)
        return *status = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "loading binary %u", i);
    /* The log's first line says what was wrong with it. */
    const char *why = *log ? *log : "";
    int len = (int)strcspn(why, "\n");
    *status = CL_INVALID_BINARY;
    return KILN_ERR(CL_INVALID_BINARY, "binary %u: %.*s", i, len, why);
}

cl_program CL_API_CALL clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                 const cl_device_id *device_list,
                                                 const size_t *lengths,
                                                 const unsigned char **binaries,
                                                 cl_int *binary_status, cl_int *errcode_ret)
{
    const struct kiln_cc_interface *cc = NULL;
    struct kiln_cc_program *built = NULL;
    char *log = NULL;
    cl_program p = NULL;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (num_devices == 0 || device_list == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_devices %u, device_list %p", num_devices,
                       (void *)device_list);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++) {
        err = kiln_rt_check_device(device_list[i]);
        if (err == CL_SUCCESS)
            err = kiln_rt_context_has_device(context, device_list[i]);
    }
    /* One program, one executable: a binary for one device at a time. */
    if (err == CL_SUCCESS && num_devices > 1)
        err =
            KILN_ERR(CL_INVALID_DEVICE, "Kiln loads a binary for one device, not %u", num_devices);
    if (err == CL_SUCCESS && (!lengths || !binaries || !lengths[0] || !binaries[0])) {
        err = KILN_ERR(CL_INVALID_VALUE, "binary 0 is NULL or empty");
        if (binary_status)
            binary_status[0] = CL_INVALID_VALUE;
    }
    if (err == CL_SUCCESS)
        err = kiln_rt_compiler(&cc);
    if (err == CL_SUCCESS) {
        cl_int status = CL_SUCCESS;
        err = load_binary(cc, 0, binaries[0], lengths[0], &built, &log, &status);
        if (binary_status)
            binary_status[0] = status;
    }
    if (err == CL_SUCCESS) {
        p = kiln_calloc(1, sizeof(*p));
        if (!p)
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "program object");
    }
    if (err == CL_SUCCESS) {
        pthread_mutex_init(&p->lock, NULL);
        kiln_rt_obj_init(&p->obj, KILN_TAG_PROGRAM, program_destroy);
        p->context = context;
        kiln_rt_obj_hold(&context->obj);
        p->status = CL_BUILD_NONE;
        p->built = built;
        p->log = log;
        p->from_binary = true;
        p->binary_device = device_list[0];
        atomic_init(&p->num_kernel_objs, 0);
    } else {
        if (built)
            cc->destroy(built);
        free(log);
    }
    kiln_set_errcode(errcode_ret, err);
    return p;
}

cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il, size_t length,
                                             cl_int *errcode_ret)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (il == NULL || length == 0))
        err = KILN_ERR(CL_INVALID_VALUE, "il %p, length %zu", il, length);
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_OPERATION, "the device accepts no intermediate language");
    kiln_set_errcode(errcode_ret, err);
    return NULL;
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                         const cl_device_id *device_list,
                                                         const char *kernel_names,
                                                         cl_int *errcode_ret)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (num_devices == 0 || device_list == NULL || kernel_names == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_devices %u, device_list %p, kernel_names %p",
                       num_devices, (void *)device_list, (const void *)kernel_names);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++) {
        err = kiln_rt_check_device(device_list[i]);
        if (err == CL_SUCCESS)
            err = kiln_rt_context_has_device(context, device_list[i]);
    }
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_VALUE, "the device has no built-in kernels (asked for \"%s\")",
                       kernel_names);
    kiln_set_errcode(errcode_ret, err);
    return NULL;
}

/* Checks clCompileProgram's input headers; *out gets their names and texts. */
static cl_int check_headers(cl_uint n, const cl_program *headers, const char **names,
                            struct kiln_cc_header **out)
{
    *out = NULL;
    if (n == 0 && (headers || names))
        return KILN_ERR(CL_INVALID_VALUE, "no input headers, but input_headers %p, names %p",
                        (void *)headers, (void *)names);
    if (n && (!headers || !names))
        return KILN_ERR(CL_INVALID_VALUE, "%u input headers, input_headers %p, names %p", n,
                        (void *)headers, (void *)names);
    for (cl_uint i = 0; i < n; i++) {
        cl_int err = kiln_rt_check_program(headers[i]);
        if (err != CL_SUCCESS)
            return err;
        if (!names[i])
            return KILN_ERR(CL_INVALID_VALUE, "header_include_names[%u] is NULL", i);
        if (!headers[i]->source)
            return KILN_ERR(CL_INVALID_OPERATION, "input header %u (%s) has no source", i,
                            names[i]);
    }
    if (n == 0)
        return CL_SUCCESS;
    *out = kiln_malloc(n * sizeof(**out));
    if (!*out)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "%u input headers", n);
    /* A program's source never changes once created. */
    for (cl_uint i = 0; i < n; i++)
        (*out)[i] = (struct kiln_cc_header){names[i], headers[i]->source};
    return CL_SUCCESS;
}

cl_int CL_API_CALL clCompileProgram(cl_program program, cl_uint num_devices,
                                    const cl_device_id *device_list, const char *options,
                                    cl_uint num_input_headers, const cl_program *input_headers,
                                    const char **header_include_names,
                                    void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                    void *user_data)
{
    struct kiln_cc_header *headers = NULL;
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS)
        err = check_program_devices(program, num_devices, device_list);
    if (err == CL_SUCCESS && pfn_notify == NULL && user_data != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "user_data without pfn_notify");
    if (err == CL_SUCCESS && has_private_option(options))
        err = KILN_ERR(CL_INVALID_COMPILER_OPTIONS,
                       "compiler options starting with -kiln- are Kiln's own (\"%s\")", options);
    if (err == CL_SUCCESS && program->source == NULL)
        err = KILN_ERR(CL_INVALID_OPERATION, "the program has no source to compile");
    if (err == CL_SUCCESS)
        err = check_headers(num_input_headers, input_headers, header_include_names, &headers);
    if (err != CL_SUCCESS)
        return err;
    err = build(program, options, true, headers, num_input_headers);
    free(headers);
    /* Synchronous, like clBuildProgram: the callback comes when it has ended. */
    if (pfn_notify)
        pfn_notify(program, user_data);
    return err;
}

/*
 * The compiled programs of clLinkProgram's inputs, each a compiled object or a
 * library whose compilation has ended; *out is malloc()ed.
 */
static cl_int link_inputs(const struct kiln_cc_interface *cc, cl_context context, cl_uint n,
                          const cl_program *inputs, const struct kiln_cc_program ***out)
{
    const struct kiln_cc_program **built = kiln_malloc(n * sizeof(*built));
    if (!built)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "%u input programs", n);
    cl_int err = CL_SUCCESS;
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++) {
        cl_program in = inputs[i];
        if (in->context != context) {
            err = KILN_ERR(CL_INVALID_PROGRAM, "input program %u is of another context", i);
            break;
        }
        pthread_mutex_lock(&in->lock);
        built[i] = in->built;
        bool busy = in->status == CL_BUILD_IN_PROGRESS;
        pthread_mutex_unlock(&in->lock);
        if (busy)
            err = KILN_ERR(CL_INVALID_OPERATION, "input program %u is being built", i);
        else if (!built[i] || cc->kind(built[i], NULL) == KILN_CC_EXECUTABLE)
            err = KILN_ERR(CL_INVALID_OPERATION,
                           "input program %u is not a compiled object or library", i);
    }
    if (err != CL_SUCCESS) {
        free(built);
        return err;
    }
    *out = built;
    return CL_SUCCESS;
}

/*
 * The linked program's status, log and options come from the link, like a build's;
 * it belongs to every device of its context. A link that could start but failed
 * still gives a program, with CL_BUILD_ERROR and its log (errcode
 * CL_LINK_PROGRAM_FAILURE), as the specification asks.
 */
cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                     const cl_device_id *device_list, const char *options,
                                     cl_uint num_input_programs, const cl_program *input_programs,
                                     void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                     void *user_data, cl_int *errcode_ret)
{
    const struct kiln_cc_interface *cc = NULL;
    const struct kiln_cc_program **inputs = NULL;
    struct kiln_cc_program *built = NULL;
    char *log = NULL, *opts = NULL;
    cl_program p = NULL;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && (num_devices == 0) != (device_list == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_devices %u with device_list %p", num_devices,
                       (void *)device_list);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++) {
        err = kiln_rt_check_device(device_list[i]);
        if (err == CL_SUCCESS)
            err = kiln_rt_context_has_device(context, device_list[i]);
    }
    if (err == CL_SUCCESS && (num_input_programs == 0 || input_programs == NULL))
        err = KILN_ERR(CL_INVALID_VALUE, "num_input_programs %u, input_programs %p",
                       num_input_programs, (void *)input_programs);
    if (err == CL_SUCCESS && pfn_notify == NULL && user_data != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "user_data without pfn_notify");
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_input_programs; i++)
        err = kiln_rt_check_program(input_programs[i]);
    if (err == CL_SUCCESS)
        err = kiln_rt_compiler(&cc);
    if (err == CL_SUCCESS)
        err = link_inputs(cc, context, num_input_programs, input_programs, &inputs);
    if (err == CL_SUCCESS && !(opts = kiln_strdup(options ? options : "")))
        err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "link options");
    if (err != CL_SUCCESS) {
        free(inputs);
        kiln_set_errcode(errcode_ret, err);
        return NULL;
    }
    /*
     * The inputs' compiled programs are immutable; the application must not rebuild
     * an input while it is being linked (§5.8.4: its result would be undefined).
     */
    enum kiln_cc_status st = cc->link(inputs, num_input_programs, opts, &built, &log);
    free(inputs);
    switch (st) {
    case KILN_CC_OK:
        err = CL_SUCCESS;
        KILN_LOG(KILN_DBG_CC, "linked %u programs", num_input_programs);
        break;
    case KILN_CC_INVALID_OPTIONS:
        err = KILN_ERR(CL_INVALID_LINKER_OPTIONS, "options \"%s\" rejected: %.*s", opts,
                       log ? (int)strcspn(log, "\n") : 0, log ? log : "");
        break;
    case KILN_CC_OUT_OF_MEMORY:
        err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "while linking");
        break;
    default:
        err = KILN_ERR(CL_LINK_PROGRAM_FAILURE, "see the build log");
        break;
    }
    if (err == CL_SUCCESS || err == CL_LINK_PROGRAM_FAILURE) {
        p = kiln_calloc(1, sizeof(*p));
        if (!p)
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "program object");
    }
    if (p) {
        pthread_mutex_init(&p->lock, NULL);
        kiln_rt_obj_init(&p->obj, KILN_TAG_PROGRAM, program_destroy);
        p->context = context;
        kiln_rt_obj_hold(&context->obj);
        p->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        p->built = built;
        p->log = log;
        p->options = opts;
        atomic_init(&p->num_kernel_objs, 0);
    } else {
        if (built)
            cc->destroy(built);
        free(log);
        free(opts);
    }
    kiln_set_errcode(errcode_ret, err);
    if (p && pfn_notify)
        pfn_notify(p, user_data);
    return p;
}

cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program program,
                                               void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                               void *user_data)
{
    (void)user_data;
    cl_int err = kiln_rt_check_program(program);
    if (err == CL_SUCCESS && pfn_notify == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "pfn_notify is NULL");
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_OPERATION,
                       "the device has no program-scope global destructors to call back after");
    return err;
}

cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                      size_t spec_size, const void *spec_value)
{
    (void)spec_id;
    (void)spec_size;
    (void)spec_value;
    cl_int err = kiln_rt_check_program(program);
    /* §5.8.3: a program none of whose devices takes IL is CL_INVALID_OPERATION. */
    if (err == CL_SUCCESS)
        err = KILN_ERR(CL_INVALID_OPERATION, "the device does not support IL programs");
    return err;
}
