/* vector_add: c[i] = a[i] + b[i] over a 1D range, run once with the work-group size left to the
 * driver and once with an explicit one (the global size rounded up, the kernel guarding the
 * tail). Every element is checked against the same sum computed in C. */
#include "example_common.h"

#include <stdio.h>
#include <stdlib.h>

#define EXAMPLE "vector_add"

/* Deliberately not a multiple of any work-group size. */
enum { N = 1000003 };

static const char *source =
    "__kernel void vector_add(__global const float *a, __global const float *b,\n"
    "                         __global float *c, uint n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

/* Inputs are small multiples of 1/4, so every sum is exact and compared with ==. */
static float input_a(size_t i)
{
    return (float)(i % 1000) * 0.5f;
}

static float input_b(size_t i)
{
    return (float)(i % 777) * 0.25f;
}

/* Returns 0 when every c[i] equals a[i] + b[i], else prints the first mismatch and returns -1. */
static int check(const float *c, const char *run)
{
    for (size_t i = 0; i < N; i++) {
        float want = input_a(i) + input_b(i);
        if (c[i] != want) {
            fprintf(stderr, EXAMPLE ": %s: mismatch at %zu: got %g, expected %g\n", run, i,
                    (double)c[i], (double)want);
            return -1;
        }
    }
    printf(EXAMPLE ": %s: OK\n", run);
    return 0;
}

/* One launch: fills c with a sentinel, runs the kernel with local size `local` (0: driver's
 * choice), reads c back into host_c. */
static cl_int launch(cl_command_queue queue, cl_kernel kernel, cl_mem c, size_t local,
                     float *host_c)
{
    for (size_t i = 0; i < N; i++)
        host_c[i] = -1.0f;
    cl_int err =
        clEnqueueWriteBuffer(queue, c, CL_TRUE, 0, N * sizeof(float), host_c, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return err;

    size_t global = N;
    if (local > 0)
        global = (N + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, local > 0 ? &local : NULL, 0,
                                 NULL, NULL);
    if (err != CL_SUCCESS)
        return err;
    err = clFinish(queue);
    if (err != CL_SUCCESS)
        return err;
    return clEnqueueReadBuffer(queue, c, CL_TRUE, 0, N * sizeof(float), host_c, 0, NULL, NULL);
}

int main(void)
{
    /* Line-buffered, so that under ctest (a pipe) the log keeps stdout and stderr in order. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int status = EXIT_FAILURE;
    const char *what = "allocating host arrays";
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem a_buf, b_buf, c_buf;

    float *a = malloc(N * sizeof(float));
    float *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    if (a == NULL || b == NULL || c == NULL)
        goto out_free_host;
    for (size_t i = 0; i < N; i++) {
        a[i] = input_a(i);
        b[i] = input_b(i);
    }

    what = "choosing a platform";
    err = example_platform_pick(&platform);
    if (err != CL_SUCCESS)
        goto out_free_host;
    what = "choosing a device";
    err = example_device_pick(platform, &device);
    if (err != CL_SUCCESS)
        goto out_free_host;

    what = "clCreateContext";
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        goto out_free_host;
    what = "clCreateCommandQueueWithProperties";
    queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    if (err != CL_SUCCESS)
        goto out_release_context;

    what = "building the program";
    err = example_program_build(ctx, device, source, &program);
    if (err != CL_SUCCESS)
        goto out_release_queue;
    what = "clCreateKernel";
    kernel = clCreateKernel(program, "vector_add", &err);
    if (err != CL_SUCCESS)
        goto out_release_program;

    what = "clCreateBuffer";
    a_buf =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), a, &err);
    if (err != CL_SUCCESS)
        goto out_release_kernel;
    b_buf =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), b, &err);
    if (err != CL_SUCCESS)
        goto out_release_a;
    c_buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS)
        goto out_release_b;

    what = "clSetKernelArg";
    cl_uint n = N;
    err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &a_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &b_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, sizeof(cl_mem), &c_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 3, sizeof(cl_uint), &n);
    if (err != CL_SUCCESS)
        goto out_release_c;

    what = "the launch with the driver's work-group size";
    err = launch(queue, kernel, c_buf, 0, c);
    if (err != CL_SUCCESS)
        goto out_release_c;
    if (check(c, "local size chosen by the driver") != 0)
        goto out_release_c;

    size_t local = example_local_size_1d(device, 64);
    what = "the launch with an explicit work-group size";
    err = launch(queue, kernel, c_buf, local, c);
    if (err != CL_SUCCESS)
        goto out_release_c;
    char run[64];
    snprintf(run, sizeof(run), "local size %zu", local);
    if (check(c, run) != 0)
        goto out_release_c;

    printf(EXAMPLE ": %d elements checked, OK\n", N);
    status = EXIT_SUCCESS;

out_release_c:
    clReleaseMemObject(c_buf);
out_release_b:
    clReleaseMemObject(b_buf);
out_release_a:
    clReleaseMemObject(a_buf);
out_release_kernel:
    clReleaseKernel(kernel);
out_release_program:
    clReleaseProgram(program);
out_release_queue:
    clReleaseCommandQueue(queue);
out_release_context:
    clReleaseContext(ctx);
out_free_host:
    if (err != CL_SUCCESS)
        example_report(EXAMPLE, what, err);
    free(c);
    free(b);
    free(a);
    return status;
}
