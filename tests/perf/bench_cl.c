/* OpenCL helpers for kiln-bench's harness and cases: finding a platform by name, building a
 * kernel with its log printed on failure, and reporting a failed call by the name of its error
 * code. */
#include "bench.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *error_name(cl_int err)
{
    switch (err) {
    case CL_DEVICE_NOT_FOUND:
        return "CL_DEVICE_NOT_FOUND";
    case CL_COMPILER_NOT_AVAILABLE:
        return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
        return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE:
        return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT:
        return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE:
        return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT:
        return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
        return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
        return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_SIZE:
        return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_PLATFORM_NOT_FOUND_KHR:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "CL_<other>";
    }
}

int bench_cl_fail(const char *target, const char *what, cl_int err)
{
    fprintf(stderr, "%s: %s failed: %s (%d)\n", target, what, error_name(err), err);
    return -1;
}

char *bench_cl_platform_string(cl_platform_id p, cl_platform_info what)
{
    size_t size = 0;
    if (clGetPlatformInfo(p, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return NULL;
    char *s = malloc(size);
    if (s != NULL && clGetPlatformInfo(p, what, size, s, NULL) != CL_SUCCESS) {
        free(s);
        s = NULL;
    }
    return s;
}

cl_platform_id bench_cl_find_platform(const char *substring)
{
    cl_platform_id ids[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, ids, &count) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < count && i < 16; i++) {
        char *name = bench_cl_platform_string(ids[i], CL_PLATFORM_NAME);
        int match = name != NULL && strstr(name, substring) != NULL;
        free(name);
        if (match)
            return ids[i];
    }
    return NULL;
}

static void print_build_log(const struct bench_env *env, cl_program program)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size);
    if (log == NULL)
        return;
    if (clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
        CL_SUCCESS)
        fprintf(stderr, "%s: build log:\n%s\n", env->target, log);
    free(log);
}

int bench_cl_kernel_build(const struct bench_env *env, const char *source, const char *name,
                          cl_program *program, cl_kernel *kernel)
{
    return bench_cl_kernel_build_opts(env, source, "", name, program, kernel);
}

int bench_cl_kernel_build_opts(const struct bench_env *env, const char *source, const char *options,
                               const char *name, cl_program *program, cl_kernel *kernel)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k;
    cl_program prog = clCreateProgramWithSource(env->ctx, 1, &source, NULL, &err);
    if (err != CL_SUCCESS)
        goto out;
    err = clBuildProgram(prog, 1, &env->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        print_build_log(env, prog);
        goto out_release_program;
    }
    k = clCreateKernel(prog, name, &err);
    if (err != CL_SUCCESS)
        goto out_release_program;
    *program = prog;
    *kernel = k;
    return 0;

out_release_program:
    clReleaseProgram(prog);
out:
    return bench_cl_fail(env->target, name, err);
}
