/*
 * Image-format variants (docs/compiler.md, "Local-size variants"): one
 * image copy kernel launched, alternately, on images of two formats (CL_RGBA/CL_UNORM_INT8
 * and CL_R/CL_FLOAT) with one local size, more times than KILN_VARIANTS each. Past the
 * threshold each format has a variant of its own, built with that format's fields as
 * constants: a launch given the other format's variant would read and write the wrong bytes.
 * Every launch's output image and the float values it read are compared with the input, so
 * generic launches, the variant launches and the switches between them are all checked.
 * tests/api/CMakeLists.txt checks the KILN_DEBUG=cc lines that say the two variants were
 * built, each for its format.
 */
#include "kiln_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define W        32
#define H        16
#define LAUNCHES 6 /* per format; more than KILN_VARIANTS (4) */

static const char *src =
    "kernel void copy(read_only image2d_t in, write_only image2d_t out, global float4 *seen) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float4 v = read_imagef(in, c);\n"
    "  seen[c.y * get_image_width(in) + c.x] = v;\n"
    "  write_imagef(out, c, v);\n"
    "}\n";

struct format {
    cl_image_format fmt;
    size_t elem; /* bytes per pixel */
};
static const struct format formats[2] = {
    {{CL_RGBA, CL_UNORM_INT8}, 4},
    {{CL_R, CL_FLOAT}, 4},
};

/* What read_imagef gives for pixel bytes `p` of format f. */
static void expected(const struct format *f, const unsigned char *p, float out[4])
{
    if (f->fmt.image_channel_order == CL_RGBA) {
        for (int c = 0; c < 4; c++)
            out[c] = (float)p[c] / 255.0f;
        return;
    }
    memcpy(&out[0], p, sizeof(float));
    out[1] = out[2] = 0.0f;
    out[3] = 1.0f;
}

/* The input pixels of format f for launch `round`: different each time. */
static void fill(const struct format *f, unsigned round, unsigned char *pix)
{
    for (size_t i = 0; i < W * H; i++) {
        if (f->fmt.image_channel_order == CL_RGBA) {
            for (int c = 0; c < 4; c++)
                pix[i * 4 + c] = (unsigned char)(i * 7 + (size_t)c * 31 + round * 13);
        } else {
            float v = (float)i * 0.25f - (float)round * 3.5f;
            memcpy(pix + i * 4, &v, sizeof(v));
        }
    }
}

static void launch(struct kt_env *env, cl_kernel k, const struct format *f, unsigned round)
{
    cl_int err;
    unsigned char in_pix[W * H * 4], out_pix[W * H * 4];
    float seen[W * H * 4];
    fill(f, round, in_pix);
    memset(out_pix, 0xa5, sizeof(out_pix));
    cl_mem in = clCreateImage2D(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &f->fmt, W,
                                H, 0, in_pix, &err);
    KT_REQUIRE(err == CL_SUCCESS, "input image: %d", err);
    cl_mem out = clCreateImage2D(env->context, CL_MEM_WRITE_ONLY, &f->fmt, W, H, 0, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "output image: %d", err);
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, sizeof(seen), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(in), &in));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(out), &out));
    KT_REQUIRE_OK(clSetKernelArg(k, 2, sizeof(buf), &buf));
    size_t global[2] = {W, H}, local[2] = {8, 2};
    KT_REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, local, 0, NULL, NULL));
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    KT_REQUIRE_OK(clEnqueueReadImage(env->queue, out, CL_TRUE, origin, region, W * f->elem, 0,
                                     out_pix, 0, NULL, NULL));
    KT_REQUIRE_OK(
        clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(seen), seen, 0, NULL, NULL));
    unsigned bad = 0;
    for (size_t i = 0; i < W * H; i++) {
        float want[4];
        expected(f, in_pix + i * f->elem, want);
        bool same = memcmp(in_pix + i * f->elem, out_pix + i * f->elem, f->elem) == 0;
        for (int c = 0; c < 4; c++)
            same &= fabsf(seen[i * 4 + c] - want[c]) <= 1e-6f * fmaxf(1.0f, fabsf(want[c]));
        if (!same && bad++ < 3)
            fprintf(stderr, "format %#x/%#x, launch %u, pixel %zu: read %g %g %g %g\n",
                    f->fmt.image_channel_order, f->fmt.image_channel_data_type, round, i,
                    seen[i * 4], seen[i * 4 + 1], seen[i * 4 + 2], seen[i * 4 + 3]);
    }
    KT_CHECK(bad == 0, "format %#x/%#x, launch %u: %u wrong pixels", f->fmt.image_channel_order,
             f->fmt.image_channel_data_type, round, bad);
    clReleaseMemObject(buf);
    clReleaseMemObject(out);
    clReleaseMemObject(in);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    kt_require_images(env.device);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "copy", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    /* Alternating: each launch of one format comes after one of the other. */
    for (unsigned round = 0; round < LAUNCHES; round++)
        for (int f = 0; f < 2; f++)
            launch(&env, k, &formats[f], round);
    /* And a run of one format after both variants exist. */
    for (unsigned round = 0; round < 3; round++)
        launch(&env, k, &formats[1], LAUNCHES + round);
    clReleaseKernel(k);
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("image_variants");
}
