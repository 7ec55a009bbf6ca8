/* matrix_2d: a 2D kernel over a W x H grid. Each work-item (x, y) = (get_global_id(0),
 * get_global_id(1)) writes the transpose of a W x H matrix, scaled and offset by its own
 * coordinates so that a swapped or repeated index shows up in the result. Runs once with the
 * driver's work-group size and once with an explicit 2D one (the global size rounded up, the
 * kernel guarding the edges); every element is checked against C. */
#include "example_common.h"

#include <stdio.h>
#include <stdlib.h>

#define EXAMPLE "matrix_2d"

/* Neither is a multiple of a work-group size; W != H so a swapped index cannot pass. */
enum { W = 1023, H = 517 };

static const char *source =
    "__kernel void matrix_2d(__global const float *in, __global float *out,\n"
    "                        uint width, uint height)\n"
    "{\n"
    "    size_t x = get_global_id(0);\n"
    "    size_t y = get_global_id(1);\n"
    "    if (x < width && y < height)\n"
    "        out[x * height + y] = 2.0f * in[y * width + x] + (float)x - (float)y;\n"
    "}\n";

/* Integers below 2^24: all arithmetic above is exact, so results are compared with ==. */
static float input(size_t x, size_t y)
{
    return (float)(y * W + x);
}

static float expected(size_t x, size_t y)
{
    return 2.0f * input(x, y) + (float)x - (float)y;
}

/* Returns 0 when out is the expected transpose, else prints the first mismatch and returns -1. */
static int check(const float *out, const char *run)
{
    for (size_t x = 0; x < W; x++) {
        for (size_t y = 0; y < H; y++) {
            float got = out[x * H + y];
            float want = expected(x, y);
            if (got != want) {
                fprintf(stderr, EXAMPLE ": %s: mismatch at (x %zu, y %zu): got %g, expected %g\n",
                        run, x, y, (double)got, (double)want);
                return -1;
            }
        }
    }
    printf(EXAMPLE ": %s: OK\n", run);
    return 0;
}

/* A 2D work-group size near 16 x 8 that the device accepts. */
static void local_size_2d(cl_device_id device, size_t local[2])
{
    size_t max_group = 1;
    size_t max_items[3] = {1, 1, 1};
    local[0] = 16;
    local[1] = 8;
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_group), &max_group,
                        NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(max_items), max_items,
                        NULL) != CL_SUCCESS) {
        local[0] = local[1] = 1;
        return;
    }
    for (int d = 0; d < 2; d++)
        if (local[d] > max_items[d])
            local[d] = max_items[d];
    while (local[0] * local[1] > max_group)
        if (local[1] > 1)
            local[1] /= 2;
        else
            local[0] /= 2;
}

/* One launch: fills out with a sentinel, runs the kernel with the 2D work-group size `local`
 * (NULL: the driver's choice) and reads out back into host_out. */
static cl_int launch(cl_command_queue queue, cl_kernel kernel, cl_mem out, const size_t *local,
                     float *host_out)
{
    for (size_t i = 0; i < (size_t)W * H; i++)
        host_out[i] = -1.0f;
    cl_int err = clEnqueueWriteBuffer(queue, out, CL_TRUE, 0, (size_t)W * H * sizeof(float),
                                      host_out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return err;

    size_t global[2] = {W, H};
    if (local != NULL)
        for (int d = 0; d < 2; d++)
            global[d] = (global[d] + local[d] - 1) / local[d] * local[d];
    err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return err;
    err = clFinish(queue);
    if (err != CL_SUCCESS)
        return err;
    return clEnqueueReadBuffer(queue, out, CL_TRUE, 0, (size_t)W * H * sizeof(float), host_out, 0,
                               NULL, NULL);
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
    cl_mem in_buf, out_buf;
    const size_t bytes = (size_t)W * H * sizeof(float);

    float *in = malloc(bytes);
    float *out = malloc(bytes);
    if (in == NULL || out == NULL)
        goto out_free_host;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
            in[y * W + x] = input(x, y);

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
    kernel = clCreateKernel(program, "matrix_2d", &err);
    if (err != CL_SUCCESS)
        goto out_release_program;

    what = "clCreateBuffer";
    in_buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in, &err);
    if (err != CL_SUCCESS)
        goto out_release_kernel;
    out_buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        goto out_release_in;

    what = "clSetKernelArg";
    cl_uint width = W, height = H;
    err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &in_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &out_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, sizeof(cl_uint), &width);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 3, sizeof(cl_uint), &height);
    if (err != CL_SUCCESS)
        goto out_release_out;

    what = "the launch with the driver's work-group size";
    err = launch(queue, kernel, out_buf, NULL, out);
    if (err != CL_SUCCESS)
        goto out_release_out;
    if (check(out, "local size chosen by the driver") != 0)
        goto out_release_out;

    size_t local[2];
    local_size_2d(device, local);
    char run[64];
    snprintf(run, sizeof(run), "local size %zu x %zu", local[0], local[1]);
    what = "the launch with an explicit work-group size";
    err = launch(queue, kernel, out_buf, local, out);
    if (err != CL_SUCCESS)
        goto out_release_out;
    if (check(out, run) != 0)
        goto out_release_out;

    printf(EXAMPLE ": %d elements checked (%d x %d), OK\n", W * H, W, H);
    status = EXIT_SUCCESS;

out_release_out:
    clReleaseMemObject(out_buf);
out_release_in:
    clReleaseMemObject(in_buf);
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
    free(out);
    free(in);
    return status;
}
