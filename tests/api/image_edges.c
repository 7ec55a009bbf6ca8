/*
 * A 5x5 Gaussian (tests/perf's image-conv) that reads through a clamp-to-edge sampler and writes an
 * image, launched over more work-items than the image has pixels, often enough that its format
 * variant runs (the work-item loops split around their clamps and range checks, docs/compiler.md):
 * every pixel must match a host reference, and no write may land outside the image. The output
 * image is a 2D image made from a larger buffer (cl_khr_image2d_from_buffer) with padding after
 * each row and spare rows after the last, all filled with a pattern that must survive every launch.
 */
#include "kiln_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define W        60 /* the image; the NDRange is 64 x (H + 3) */
#define H        21
#define GX       64
#define GY       (H + 3)
#define SPARE    3 /* rows of the buffer after the image's */
#define PATTERN  0x5a
#define LAUNCHES 7 /* more than KILN_VARIANTS (4) */

static const char *src =
    "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
    "                       CLK_FILTER_NEAREST;\n"
    "constant float w[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};\n"
    "kernel void blur(read_only image2d_t in, write_only image2d_t out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int j = 0; j < 5; j++)\n"
    "    for (int i = 0; i < 5; i++)\n"
    "      sum += (w[j] * w[i]) * read_imagef(in, s, (int2)(x + i - 2, y + j - 2));\n"
    "  write_imagef(out, (int2)(x, y), sum);\n"
    "}\n";

static const float wt[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};

static int clampi(int v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    kt_require_images(env.device);
    cl_uint align = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof(align), &align, NULL));
    KT_REQUIRE(align > 0, "CL_DEVICE_IMAGE_PITCH_ALIGNMENT is 0");
    /* At least GX pixels a row, so that a write past the width lands in the padding. */
    size_t pitch_px = (GX + 4 + align - 1) / align * align, pitch = pitch_px * 4;
    size_t bytes = pitch * (H + SPARE);

    cl_int err;
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    cl_kernel k = clCreateKernel(p, "blur", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    unsigned char *in_pix = malloc(W * H * 4), *got = malloc(bytes);
    KT_REQUIRE(in_pix && got, "out of memory");

    for (unsigned round = 0; round < LAUNCHES; round++) {
        for (size_t i = 0; i < W * H * 4; i++)
            in_pix[i] = (unsigned char)(i * 37 + round * 11 + (i >> 5));
        cl_mem in = clCreateImage2D(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, W,
                                    H, 0, in_pix, &err);
        KT_REQUIRE(err == CL_SUCCESS, "input image: %d", err);
        memset(got, PATTERN, bytes);
        cl_mem buf =
            clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, got, &err);
        KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
        cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                              .image_width = W,
                              .image_height = H,
                              .image_row_pitch = pitch,
                              .buffer = buf};
        cl_mem out = clCreateImage(env.context, CL_MEM_WRITE_ONLY, &fmt, &desc, NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "image from buffer: %d", err);
        KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(in), &in));
        KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(out), &out));
        size_t global[2] = {GX, GY}, local[2] = {16, 1};
        KT_REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0, NULL, NULL));
        KT_REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, bytes, got, 0, NULL, NULL));

        unsigned bad = 0, spilled = 0;
        for (size_t y = 0; y < H + SPARE; y++)
            for (size_t x = 0; x < pitch_px; x++)
                for (int c = 0; c < 4; c++) {
                    unsigned char g = got[y * pitch + x * 4 + c];
                    if (y >= H || x >= W) {
                        spilled += g != PATTERN;
                        continue;
                    }
                    float sum = 0.0f;
                    for (int j = 0; j < 5; j++)
                        for (int i = 0; i < 5; i++) {
                            int xx = clampi((int)x + i - 2, W - 1);
                            int yy = clampi((int)y + j - 2, H - 1);
                            sum +=
                                (wt[j] * wt[i]) * ((float)in_pix[(yy * W + xx) * 4 + c] / 255.0f);
                        }
                    float want = rintf(fminf(fmaxf(sum * 255.0f, 0.0f), 255.0f));
                    if (fabsf((float)g - want) > 1.0f && bad++ < 3)
                        fprintf(stderr, "launch %u, pixel (%zu, %zu).%d: %u, want %g\n", round, x,
                                y, c, g, want);
                }
        KT_CHECK(bad == 0, "launch %u: %u wrong channels", round, bad);
        KT_CHECK(spilled == 0, "launch %u: %u bytes written outside the image", round, spilled);
        clReleaseMemObject(out);
        clReleaseMemObject(buf);
        clReleaseMemObject(in);
    }
    free(got);
    free(in_pix);
    clReleaseKernel(k);
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("image_edges");
}
