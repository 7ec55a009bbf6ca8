/* Platform and device choice, program building and error naming for the example programs. */
#include "example_common.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PLATFORMS = 16 };

/* Copies a platform string query into a fresh heap buffer; NULL on any failure. */
static char *platform_string(cl_platform_id platform, cl_platform_info param)
{
    size_t size = 0;
    if (clGetPlatformInfo(platform, param, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return NULL;
    char *text = malloc(size);
    if (text == NULL)
        return NULL;
    if (clGetPlatformInfo(platform, param, size, text, NULL) != CL_SUCCESS) {
        free(text);
        return NULL;
    }
    return text;
}

static int platform_name_contains(cl_platform_id platform, const char *needle)
{
    char *name = platform_string(platform, CL_PLATFORM_NAME);
    int found = name != NULL && strstr(name, needle) != NULL;
    free(name);
    return found;
}

cl_int example_platform_pick(cl_platform_id *platform)
{
    cl_platform_id ids[MAX_PLATFORMS];
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, ids, &count);
    if (err != CL_SUCCESS)
        return err;
    if (count > MAX_PLATFORMS)
        count = MAX_PLATFORMS;

    const char *wanted = getenv("KILN_EXAMPLE_PLATFORM");
    int chosen = -1;
    if (wanted != NULL && wanted[0] != '\0') {
        for (cl_uint i = 0; i < count && chosen < 0; i++)
            if (platform_name_contains(ids[i], wanted))
                chosen = (int)i;
        if (chosen < 0) {
            fprintf(stderr, "no platform name contains \"%s\" (KILN_EXAMPLE_PLATFORM)\n", wanted);
            return CL_INVALID_PLATFORM;
        }
    } else {
        for (cl_uint i = 0; i < count && chosen < 0; i++)
            if (platform_name_contains(ids[i], "Kiln"))
                chosen = (int)i;
        if (chosen < 0)
            chosen = 0;
    }

    char *name = platform_string(ids[chosen], CL_PLATFORM_NAME);
    char *version = platform_string(ids[chosen], CL_PLATFORM_VERSION);
    printf("Platform: %s %s\n", name ? name : "(unnamed)", version ? version : "(no version)");
    free(version);
    free(name);
    *platform = ids[chosen];
    return CL_SUCCESS;
}

cl_int example_device_pick(cl_platform_id platform, cl_device_id *device)
{
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, device, NULL);
    if (err != CL_SUCCESS)
        return err;

    char name[256] = "(unnamed)";
    err = clGetDeviceInfo(*device, CL_DEVICE_NAME, sizeof(name), name, NULL);
    if (err != CL_SUCCESS)
        return err;
    printf("Device: %s\n", name);
    return CL_SUCCESS;
}

static void print_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size);
    if (log == NULL)
        return;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS)
        fprintf(stderr, "build log:\n%s\n", log);
    free(log);
}

cl_int example_program_build(cl_context ctx, cl_device_id device, const char *source,
                             cl_program *program)
{
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        print_build_log(prog, device);
        clReleaseProgram(prog);
        return err;
    }
    *program = prog;
    return CL_SUCCESS;
}

size_t example_local_size_1d(cl_device_id device, size_t preferred)
{
    size_t max_group = 1;
    size_t max_items[3] = {1, 1, 1};
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_group), &max_group,
                        NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(max_items), max_items,
                        NULL) != CL_SUCCESS)
        return 1;
    size_t local = preferred;
    if (local > max_group)
        local = max_group;
    if (local > max_items[0])
        local = max_items[0];
    return local > 0 ? local : 1;
}

void example_report(const char *example, const char *what, cl_int err)
{
    fprintf(stderr, "%s: %s failed: %s (%d)\n", example, what, example_error_name(err), err);
}

const char *example_error_name(cl_int err)
{
    switch (err) {
#define NAME(code)                                                                                 \
    case code:                                                                                     \
        return #code;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef NAME
    default:
        return "CL_<unknown>";
    }
}
