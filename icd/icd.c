/*
 * The ICD face of Kiln: the dispatch table and the three symbols libkiln.so exports.
 *
 * The loader (ocl-icd or Khronos') calls clGetExtensionFunctionAddress to find
 * clIcdGetPlatformIDsKHR, then calls every other entry point through the dispatch
 * pointer at the start of each handle. Every OpenCL 3.0 slot is filled with a
 * designated initialiser; the slots of sharing extensions Kiln does not report
 * (GL, D3D, DX9, EGL) stay NULL, which the loader answers for us.
 */
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <string.h>

#include "kiln_rt.h"

#define KILN_EXPORT __attribute__((visibility("default")))

const cl_icd_dispatch kiln_icd_dispatch = {
    /* OpenCL 1.0 */
    .clGetPlatformIDs = clGetPlatformIDs,
    .clGetPlatformInfo = clGetPlatformInfo,
    .clGetDeviceIDs = clGetDeviceIDs,
    .clGetDeviceInfo = clGetDeviceInfo,
    .clCreateContext = clCreateContext,
    .clCreateContextFromType = clCreateContextFromType,
    .clRetainContext = clRetainContext,
    .clReleaseContext = clReleaseContext,
    .clGetContextInfo = clGetContextInfo,
    .clCreateCommandQueue = clCreateCommandQueue,
    .clRetainCommandQueue = clRetainCommandQueue,
    .clReleaseCommandQueue = clReleaseCommandQueue,
    .clGetCommandQueueInfo = clGetCommandQueueInfo,
    .clSetCommandQueueProperty = clSetCommandQueueProperty,
    .clCreateBuffer = clCreateBuffer,
    .clCreateImage2D = clCreateImage2D,
    .clCreateImage3D = clCreateImage3D,
    .clRetainMemObject = clRetainMemObject,
    .clReleaseMemObject = clReleaseMemObject,
    .clGetSupportedImageFormats = clGetSupportedImageFormats,
    .clGetMemObjectInfo = clGetMemObjectInfo,
    .clGetImageInfo = clGetImageInfo,
    .clCreateSampler = clCreateSampler,
    .clRetainSampler = clRetainSampler,
    .clReleaseSampler = clReleaseSampler,
    .clGetSamplerInfo = clGetSamplerInfo,
    .clCreateProgramWithSource = clCreateProgramWithSource,
    .clCreateProgramWithBinary = clCreateProgramWithBinary,
    .clRetainProgram = clRetainProgram,
    .clReleaseProgram = clReleaseProgram,
    .clBuildProgram = clBuildProgram,
    .clUnloadCompiler = clUnloadCompiler,
    .clGetProgramInfo = clGetProgramInfo,
    .clGetProgramBuildInfo = clGetProgramBuildInfo,
    .clCreateKernel = clCreateKernel,
    .clCreateKernelsInProgram = clCreateKernelsInProgram,
    .clRetainKernel = clRetainKernel,
    .clReleaseKernel = clReleaseKernel,
    .clSetKernelArg = clSetKernelArg,
    .clGetKernelInfo = clGetKernelInfo,
    .clGetKernelWorkGroupInfo = clGetKernelWorkGroupInfo,
    .clWaitForEvents = clWaitForEvents,
    .clGetEventInfo = clGetEventInfo,
    .clRetainEvent = clRetainEvent,
    .clReleaseEvent = clReleaseEvent,
    .clGetEventProfilingInfo = clGetEventProfilingInfo,
    .clFlush = clFlush,
    .clFinish = clFinish,
    .clEnqueueReadBuffer = clEnqueueReadBuffer,
    .clEnqueueWriteBuffer = clEnqueueWriteBuffer,
    .clEnqueueCopyBuffer = clEnqueueCopyBuffer,
    .clEnqueueReadImage = clEnqueueReadImage,
    .clEnqueueWriteImage = clEnqueueWriteImage,
    .clEnqueueCopyImage = clEnqueueCopyImage,
    .clEnqueueCopyImageToBuffer = clEnqueueCopyImageToBuffer,
    .clEnqueueCopyBufferToImage = clEnqueueCopyBufferToImage,
    .clEnqueueMapBuffer = clEnqueueMapBuffer,
    .clEnqueueMapImage = clEnqueueMapImage,
    .clEnqueueUnmapMemObject = clEnqueueUnmapMemObject,
    .clEnqueueNDRangeKernel = clEnqueueNDRangeKernel,
    .clEnqueueTask = clEnqueueTask,
    .clEnqueueNativeKernel = clEnqueueNativeKernel,
    .clEnqueueMarker = clEnqueueMarker,
    .clEnqueueWaitForEvents = clEnqueueWaitForEvents,
    .clEnqueueBarrier = clEnqueueBarrier,
    .clGetExtensionFunctionAddress = clGetExtensionFunctionAddress,
    /* OpenCL 1.1 */
    .clSetEventCallback = clSetEventCallback,
    .clCreateSubBuffer = clCreateSubBuffer,
    .clSetMemObjectDestructorCallback = clSetMemObjectDestructorCallback,
    .clCreateUserEvent = clCreateUserEvent,
    .clSetUserEventStatus = clSetUserEventStatus,
    .clEnqueueReadBufferRect = clEnqueueReadBufferRect,
    .clEnqueueWriteBufferRect = clEnqueueWriteBufferRect,
    .clEnqueueCopyBufferRect = clEnqueueCopyBufferRect,
    /* OpenCL 1.2 */
    .clCreateSubDevices = clCreateSubDevices,
    .clRetainDevice = clRetainDevice,
    .clReleaseDevice = clReleaseDevice,
    .clCreateImage = clCreateImage,
    .clCreateProgramWithBuiltInKernels = clCreateProgramWithBuiltInKernels,
    .clCompileProgram = clCompileProgram,
    .clLinkProgram = clLinkProgram,
    .clUnloadPlatformCompiler = clUnloadPlatformCompiler,
    .clGetKernelArgInfo = clGetKernelArgInfo,
    .clEnqueueFillBuffer = clEnqueueFillBuffer,
    .clEnqueueFillImage = clEnqueueFillImage,
    .clEnqueueMigrateMemObjects = clEnqueueMigrateMemObjects,
    .clEnqueueMarkerWithWaitList = clEnqueueMarkerWithWaitList,
    .clEnqueueBarrierWithWaitList = clEnqueueBarrierWithWaitList,
    .clGetExtensionFunctionAddressForPlatform = clGetExtensionFunctionAddressForPlatform,
    /* OpenCL 2.0 */
    .clCreateCommandQueueWithProperties = clCreateCommandQueueWithProperties,
    .clCreatePipe = clCreatePipe,
    .clGetPipeInfo = clGetPipeInfo,
    .clSVMAlloc = clSVMAlloc,
    .clSVMFree = clSVMFree,
    .clEnqueueSVMFree = clEnqueueSVMFree,
    .clEnqueueSVMMemcpy = clEnqueueSVMMemcpy,
    .clEnqueueSVMMemFill = clEnqueueSVMMemFill,
    .clEnqueueSVMMap = clEnqueueSVMMap,
    .clEnqueueSVMUnmap = clEnqueueSVMUnmap,
    .clCreateSamplerWithProperties = clCreateSamplerWithProperties,
    .clSetKernelArgSVMPointer = clSetKernelArgSVMPointer,
    .clSetKernelExecInfo = clSetKernelExecInfo,
    /* OpenCL 2.1 */
    .clCloneKernel = clCloneKernel,
    .clCreateProgramWithIL = clCreateProgramWithIL,
    .clEnqueueSVMMigrateMem = clEnqueueSVMMigrateMem,
    .clGetDeviceAndHostTimer = clGetDeviceAndHostTimer,
    .clGetHostTimer = clGetHostTimer,
    .clGetKernelSubGroupInfo = clGetKernelSubGroupInfo,
    .clSetDefaultDeviceCommandQueue = clSetDefaultDeviceCommandQueue,
    /* OpenCL 2.2 */
    .clSetProgramReleaseCallback = clSetProgramReleaseCallback,
    .clSetProgramSpecializationConstant = clSetProgramSpecializationConstant,
    /* OpenCL 3.0 */
    .clCreateBufferWithProperties = clCreateBufferWithProperties,
    .clCreateImageWithProperties = clCreateImageWithProperties,
    .clSetContextDestructorCallback = clSetContextDestructorCallback,
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
    kiln_rt_init(&kiln_icd_dispatch);
}

KILN_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                      cl_platform_id *platforms,
                                                      cl_uint *num_platforms)
{
    pthread_once(&init_once, init);
    if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
        return CL_INVALID_VALUE;
    return kiln_rt_platform_ids(num_entries, platforms, num_platforms);
}

/*
 * Entry points Kiln hands out by name. clGetPlatformInfo is among them because
 * ocl-icd asks for it by name (symbol first, then through this function) before it
 * accepts a driver, and libkiln.so exports no cl* symbol besides the ICD three.
 */
static const struct {
    const char *name;
    void *fn;
} extension_fns[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
    {"clGetPlatformInfo", (void *)clGetPlatformInfo},
};

KILN_EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name)
{
    if (!func_name)
        return NULL;
    for (size_t i = 0; i < sizeof(extension_fns) / sizeof(extension_fns[0]); i++)
        if (strcmp(func_name, extension_fns[i].name) == 0)
            return extension_fns[i].fn;
    return NULL;
}

KILN_EXPORT void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                       const char *func_name)
{
    if (kiln_rt_platform_is(platform) != CL_SUCCESS)
        return NULL;
    return clGetExtensionFunctionAddress(func_name);
}
