/* saxpy: y[i] = a * x[i] + y[i] over a 1D range. y is filled and read back by mapping the buffer
 * (clEnqueueMapBuffer / clEnqueueUnmapMemObject) rather than by copies, and the kernel runs once
 * with the driver's work-group size and once with an explicit one. Every element is checked
 * against the same expression computed in C. */
#include "example_common.h"

#include <stdio.h>
#include <stdlib.h>

#define EXAMPLE "saxpy"

/* Deliberately not a multiple of any work-group size. */
enum { N = (1 << 20) + 3 };
static const float A = 3.0f;

static const char *source = "__kernel void saxpy(float a, __global const float *x,\n"
                            "                    __global float *y, uint n)\n"
                            "{\n"
                            "    size_t i = get_global_id(0);\n"
                            "    if (i < n)\n"
                            "        y[i] = a * x[i] + y[i];\n"
                            "}\n";

/* Small multiples of 1/4 and 1/2: a * x + y is exact whether or not the compiler fuses it into
 * an fma, so results are compared with ==. */
static float input_x(size_t i)
{
    return (float)(i % 1000) * 0.25f;
}

static float input_y(size_t i)
{
    return (float)(i % 333) * 0.5f;
}

/* Maps y for writing, fills it with the initial values and unmaps it. */
static cl_int fill_y(cl_command_queue queue, cl_mem y)
{
    cl_int err = CL_SUCCESS;
    float *p = clEnqueueMapBuffer(queue, y, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                  N * sizeof(float), 0, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    for (size_t i = 0; i < N; i++)
        p[i] = input_y(i);
    err = clEnqueueUnmapMemObject(queue, y, p, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return err;
    return clFinish(queue);
}

/* Maps y for reading and compares it with the C result. Returns CL_SUCCESS and sets *ok. */
static cl_int check_y(cl_command_queue queue, cl_mem y, const char *run, int *ok)
{
    cl_int err = CL_SUCCESS;
    const float *p = clEnqueueMapBuffer(queue, y, CL_TRUE, CL_MAP_READ, 0, N * sizeof(float), 0,
                                        NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    *ok = 1;
    for (size_t i = 0; i < N && *ok; i++) {
        float want = A * input_x(i) + input_y(i);
        if (p[i] != want) {
            fprintf(stderr, EXAMPLE ": %s: mismatch at %zu: got %g, expected %g\n", run, i,
                    (double)p[i], (double)want);
            *ok = 0;
        }
    }
    if (*ok)
        printf(EXAMPLE ": %s: OK\n", run);
    err = clEnqueueUnmapMemObject(queue, y, (void *)p, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return err;
    return clFinish(queue);
}

/* One launch with local size `local` (0: the driver's choice) on a freshly filled y. */
static cl_int launch(cl_command_queue queue, cl_kernel kernel, cl_mem y, size_t local)
{
    cl_int err = fill_y(queue, y);
    if (err != CL_SUCCESS)
        return err;
    size_t global = N;
    if (local > 0)
        global = (N + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, local > 0 ? &local : NULL, 0,
                                 NULL, NULL);
    if (err != CL_SUCCESS)
        return err;
    return clFinish(queue);
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
    cl_mem x_buf, y_buf;
    int ok = 0;

    float *x = malloc(N * sizeof(float));
    if (x == NULL)
        goto out_free_host;
    for (size_t i = 0; i < N; i++)
        x[i] = input_x(i);

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
    kernel = clCreateKernel(program, "saxpy", &err);
    if (err != CL_SUCCESS)
        goto out_release_program;

    what = "clCreateBuffer";
    x_buf =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), x, &err);
    if (err != CL_SUCCESS)
        goto out_release_kernel;
    y_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS)
        goto out_release_x;

    what = "clSetKernelArg";
    cl_uint n = N;
    float a = A;
    err = clSetKernelArg(kernel, 0, sizeof(float), &a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &x_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, sizeof(cl_mem), &y_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 3, sizeof(cl_uint), &n);
    if (err != CL_SUCCESS)
        goto out_release_y;

    what = "the launch with the driver's work-group size";
    err = launch(queue, kernel, y_buf, 0);
    if (err == CL_SUCCESS)
        err = check_y(queue, y_buf, "local size chosen by the driver", &ok);
    if (err != CL_SUCCESS || !ok)
        goto out_release_y;

    size_t local = example_local_size_1d(device, 128);
    char run[64];
    snprintf(run, sizeof(run), "local size %zu", local);
    what = "the launch with an explicit work-group size";
    err = launch(queue, kernel, y_buf, local);
    if (err == CL_SUCCESS)
        err = check_y(queue, y_buf, run, &ok);
    if (err != CL_SUCCESS || !ok)
        goto out_release_y;

    printf(EXAMPLE ": %d elements checked, OK\n", N);
    status = EXIT_SUCCESS;

out_release_y:
    clReleaseMemObject(y_buf);
out_release_x:
    clReleaseMemObject(x_buf);
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
    free(x);
    return status;
}
