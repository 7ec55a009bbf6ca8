/*
 * Through the real loader: Kiln's platform is listed, and the dispatch table its
 * handles point at has every OpenCL 3.0 slot filled (STYLE H12). Sharing-extension
 * slots (GL, D3D, DX9, EGL) are not Kiln's and are not checked.
 */
#include <CL/cl_icd.h>
#include <stddef.h>

#include "kiln_test.h"

#define SLOT(name)                                                                                 \
    {                                                                                              \
#name, offsetof(cl_icd_dispatch, name)                                                     \
    }

static const struct {
    const char *name;
    size_t offset;
} core_slots[] = {
    SLOT(clGetPlatformIDs),
    SLOT(clGetPlatformInfo),
    SLOT(clGetDeviceIDs),
    SLOT(clGetDeviceInfo),
    SLOT(clCreateContext),
    SLOT(clCreateContextFromType),
    SLOT(clRetainContext),
    SLOT(clReleaseContext),
    SLOT(clGetContextInfo),
    SLOT(clCreateCommandQueue),
    SLOT(clRetainCommandQueue),
    SLOT(clReleaseCommandQueue),
    SLOT(clGetCommandQueueInfo),
    SLOT(clSetCommandQueueProperty),
    SLOT(clCreateBuffer),
    SLOT(clCreateImage2D),
    SLOT(clCreateImage3D),
    SLOT(clRetainMemObject),
    SLOT(clReleaseMemObject),
    SLOT(clGetSupportedImageFormats),
    SLOT(clGetMemObjectInfo),
    SLOT(clGetImageInfo),
    SLOT(clCreateSampler),
    SLOT(clRetainSampler),
    SLOT(clReleaseSampler),
    SLOT(clGetSamplerInfo),
    SLOT(clCreateProgramWithSource),
    SLOT(clCreateProgramWithBinary),
    SLOT(clRetainProgram),
    SLOT(clReleaseProgram),
    SLOT(clBuildProgram),
    SLOT(clUnloadCompiler),
    SLOT(clGetProgramInfo),
    SLOT(clGetProgramBuildInfo),
    SLOT(clCreateKernel),
    SLOT(clCreateKernelsInProgram),
    SLOT(clRetainKernel),
    SLOT(clReleaseKernel),
    SLOT(clSetKernelArg),
    SLOT(clGetKernelInfo),
    SLOT(clGetKernelWorkGroupInfo),
    SLOT(clWaitForEvents),
    SLOT(clGetEventInfo),
    SLOT(clRetainEvent),
    SLOT(clReleaseEvent),
    SLOT(clGetEventProfilingInfo),
    SLOT(clFlush),
    SLOT(clFinish),
    SLOT(clEnqueueReadBuffer),
    SLOT(clEnqueueWriteBuffer),
    SLOT(clEnqueueCopyBuffer),
    SLOT(clEnqueueReadImage),
    SLOT(clEnqueueWriteImage),
    SLOT(clEnqueueCopyImage),
    SLOT(clEnqueueCopyImageToBuffer),
    SLOT(clEnqueueCopyBufferToImage),
    SLOT(clEnqueueMapBuffer),
    SLOT(clEnqueueMapImage),
    SLOT(clEnqueueUnmapMemObject),
    SLOT(clEnqueueNDRangeKernel),
    SLOT(clEnqueueTask),
    SLOT(clEnqueueNativeKernel),
    SLOT(clEnqueueMarker),
    SLOT(clEnqueueWaitForEvents),
    SLOT(clEnqueueBarrier),
    SLOT(clGetExtensionFunctionAddress),
    SLOT(clSetEventCallback),
    SLOT(clCreateSubBuffer),
    SLOT(clSetMemObjectDestructorCallback),
    SLOT(clCreateUserEvent),
    SLOT(clSetUserEventStatus),
    SLOT(clEnqueueReadBufferRect),
    SLOT(clEnqueueWriteBufferRect),
    SLOT(clEnqueueCopyBufferRect),
    SLOT(clCreateSubDevices),
    SLOT(clRetainDevice),
    SLOT(clReleaseDevice),
    SLOT(clCreateImage),
    SLOT(clCreateProgramWithBuiltInKernels),
    SLOT(clCompileProgram),
    SLOT(clLinkProgram),
    SLOT(clUnloadPlatformCompiler),
    SLOT(clGetKernelArgInfo),
    SLOT(clEnqueueFillBuffer),
    SLOT(clEnqueueFillImage),
    SLOT(clEnqueueMigrateMemObjects),
    SLOT(clEnqueueMarkerWithWaitList),
    SLOT(clEnqueueBarrierWithWaitList),
    SLOT(clGetExtensionFunctionAddressForPlatform),
    SLOT(clCreateCommandQueueWithProperties),
    SLOT(clCreatePipe),
    SLOT(clGetPipeInfo),
    SLOT(clSVMAlloc),
    SLOT(clSVMFree),
    SLOT(clEnqueueSVMFree),
    SLOT(clEnqueueSVMMemcpy),
    SLOT(clEnqueueSVMMemFill),
    SLOT(clEnqueueSVMMap),
    SLOT(clEnqueueSVMUnmap),
    SLOT(clCreateSamplerWithProperties),
    SLOT(clSetKernelArgSVMPointer),
    SLOT(clSetKernelExecInfo),
    SLOT(clCloneKernel),
    SLOT(clCreateProgramWithIL),
    SLOT(clEnqueueSVMMigrateMem),
    SLOT(clGetDeviceAndHostTimer),
    SLOT(clGetHostTimer),
    SLOT(clGetKernelSubGroupInfo),
    SLOT(clSetDefaultDeviceCommandQueue),
    SLOT(clSetProgramReleaseCallback),
    SLOT(clSetProgramSpecializationConstant),
    SLOT(clCreateBufferWithProperties),
    SLOT(clCreateImageWithProperties),
    SLOT(clSetContextDestructorCallback),
};

int main(void)
{
    cl_platform_id p = kt_kiln_platform();
    const cl_icd_dispatch *d = *(const cl_icd_dispatch *const *)p;
    KT_REQUIRE(d != NULL, "the platform handle has no dispatch table");
    for (size_t i = 0; i < sizeof(core_slots) / sizeof(core_slots[0]); i++) {
        void *fn = *(void *const *)((const char *)d + core_slots[i].offset);
        KT_CHECK(fn != NULL, "dispatch slot %s is empty", core_slots[i].name);
    }
    /* The device and every object made from it share the table. */
    cl_device_id dev;
    KT_EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
    KT_CHECK(*(const cl_icd_dispatch *const *)dev == d, "device dispatch differs");
    char version[128] = "";
    KT_EXPECT(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(version), version, NULL),
              CL_SUCCESS);
    KT_CHECK(strncmp(version, "OpenCL 3.0 ", 11) == 0, "platform version \"%s\"", version);
    char suffix[32] = "";
    KT_EXPECT(clGetPlatformInfo(p, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof(suffix), suffix, NULL),
              CL_SUCCESS);
    KT_CHECK(strcmp(suffix, "Kiln") == 0, "ICD suffix \"%s\"", suffix);
    KT_CHECK(clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunctionKILN") == NULL,
             "unknown extension function resolved");
    return kt_finish("icd/dispatch");
}
