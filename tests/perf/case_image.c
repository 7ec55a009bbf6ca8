/* kiln-bench's image cases, one work-item per output pixel reading through a program-scope
 * sampler, and a buffer twin of the first:
 *
 *  - image-conv: a 5x5 Gaussian (the binomial weights 1 4 6 4 1 / 16 in each direction, exact in
 *    float) over a square CL_RGBA / CL_UNORM_INT8 image of --size-mib bytes, read with
 *    read_imagef at integer coordinates through an unnormalised, clamp-to-edge, nearest sampler
 *    and written with write_imagef to a second image of the same format. The C row is the same
 *    convolution over the same bytes, clamped at the edges, rows split over the threads.
 *  - image-resize: a bilinear resize of a square CL_RGBA / CL_FLOAT image of --size-mib bytes to
 *    3/4 of its width and height, read at ((x + 0.5) / out_w, (y + 0.5) / out_h) through a
 *    normalised, clamp-to-edge, linear sampler. The C row does the same filter in plain C.
 *  - conv-buffer: image-conv's arithmetic over the same bytes as uchar4 buffers, the indices
 *    clamped in the kernel: what the convolution costs a driver without the image builtins,
 *    and so how much of image-conv's time they take. Its C row is image-conv's.
 *
 * The rate is megapixels written per second. A platform whose device reports no image support,
 * or not the format, gets the row "unsupported" in the image cases. image-conv and conv-buffer
 * check every output pixel against a float reference rounded to nearest (one code apart
 * allowed); image-resize every output pixel against the OpenCL specification's
 * CLK_FILTER_LINEAR formula in double (1e-4 apart allowed, the input values being in [0, 1)). */
#include "bench.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CONV_BUF is image-conv's twin over buffers: what the same arithmetic costs without the image
 * builtins. */
enum kind { CONV, RESIZE, CONV_BUF };

/* The images stay square and within every 2D limit the specification guarantees (8192 under
 * OpenCL 1.2's CL_DEVICE_IMAGE2D_MAX_WIDTH minimum), and a multiple of 64 so that any driver
 * can pick a work-group size that divides them. */
#define SIDE_STEP 64
#define SIDE_MAX  8192

static const char *const sources[] = {
    [CONV] = "constant sampler_t near = CLK_NORMALIZED_COORDS_FALSE |\n"
             "    CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
             "constant float w[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};\n"
             "__kernel void conv(read_only image2d_t in, write_only image2d_t out)\n"
             "{\n"
             "    int x = get_global_id(0), y = get_global_id(1);\n"
             "    float4 sum = 0.0f;\n"
             "    for (int j = 0; j < 5; j++)\n"
             "        for (int i = 0; i < 5; i++)\n"
             "            sum += (w[j] * w[i]) * read_imagef(in, near, (int2)(x + i - 2, y + j - "
             "2));\n"
             "    write_imagef(out, (int2)(x, y), sum);\n"
             "}\n",
    [RESIZE] = "constant sampler_t lin = CLK_NORMALIZED_COORDS_TRUE |\n"
               "    CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
               "__kernel void resize(read_only image2d_t in, write_only image2d_t out,\n"
               "                     float out_w, float out_h)\n"
               "{\n"
               "    int x = get_global_id(0), y = get_global_id(1);\n"
               "    float2 s = (float2)((x + 0.5f) / out_w, (y + 0.5f) / out_h);\n"
               "    write_imagef(out, (int2)(x, y), read_imagef(in, lin, s));\n"
               "}\n",
    [CONV_BUF] =
        "constant float w[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};\n"
        "__kernel void conv_buf(__global const uchar4 *in, __global uchar4 *out,\n"
        "                       int w_px, int h_px)\n"
        "{\n"
        "    int x = get_global_id(0), y = get_global_id(1);\n"
        "    float4 sum = 0.0f;\n"
        "    for (int j = 0; j < 5; j++)\n"
        "        for (int i = 0; i < 5; i++) {\n"
        "            int xx = clamp(x + i - 2, 0, w_px - 1), yy = clamp(y + j - 2, 0, h_px - 1);\n"
        "            sum += (w[j] * w[i]) * (convert_float4(in[yy * w_px + xx]) * (1.0f / 255));\n"
        "        }\n"
        "    out[y * w_px + x] = convert_uchar4_sat_rte(sum * 255.0f);\n"
        "}\n",
};

static const char *const kernel_names[] = {
    [CONV] = "conv", [RESIZE] = "resize", [CONV_BUF] = "conv_buf"};

/* The 1D weights; the 2D weight of tap (i, j) is w[j] * w[i], a multiple of 1/256. */
static const float conv_w[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};

struct icase {
    enum kind kind;
    const char *target;
    size_t in_w, in_h, out_w, out_h, elem; /* elem: bytes per pixel, 4 or 16 */
    void *in, *out;                        /* in_w x in_h and out_w x out_h pixels, packed */
    /* host version */
    struct bench_pool *pool;
    /* OpenCL version */
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem in_img, out_img;
};

/* The side of the square input image: --size-mib bytes of pixels. */
static size_t in_side(size_t size_bytes, size_t elem)
{
    double side = floor(sqrt((double)(size_bytes / elem)));
    size_t s = (size_t)side / SIDE_STEP * SIDE_STEP;
    if (s < SIDE_STEP)
        s = SIDE_STEP;
    return s > SIDE_MAX ? SIDE_MAX : s;
}

static void sizes(enum kind kind, size_t size_bytes, struct icase *c)
{
    c->elem = kind == RESIZE ? 16 : 4;
    c->in_w = c->in_h = in_side(size_bytes, c->elem);
    c->out_w = kind == RESIZE ? c->in_w * 3 / 4 : c->in_w;
    c->out_h = kind == RESIZE ? c->in_h * 3 / 4 : c->in_h;
}

/* Deterministic inputs: a hash of the index, as bytes or as floats in [0, 1). */
static uint32_t hash(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    x ^= x >> 15;
    x *= 2246822519u;
    return x ^ (x >> 13);
}

static void icase_free(struct icase *c)
{
    free(c->out);
    free(c->in);
    free(c);
}

static struct icase *icase_alloc(enum kind kind, const struct bench_env *env)
{
    struct icase *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->kind = kind;
    c->target = env->target;
    sizes(kind, env->size_bytes, c);
    c->in = malloc(c->in_w * c->in_h * c->elem);
    c->out = calloc(c->out_w * c->out_h, c->elem);
    if (c->in == NULL || c->out == NULL) {
        fprintf(stderr, "%s: out of memory for %zux%zu pixels\n", env->target, c->in_w, c->in_h);
        icase_free(c);
        return NULL;
    }
    size_t n = c->in_w * c->in_h * 4;
    if (kind != RESIZE) {
        uint8_t *in = c->in;
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)(hash(i) >> 24);
    } else {
        float *in = c->in;
        for (size_t i = 0; i < n; i++)
            in[i] = (float)(hash(i) >> 8) * (1.0f / 16777216.0f);
    }
    return c;
}

static size_t clampz(long v, size_t n)
{
    return v < 0 ? 0 : (size_t)v >= n ? n - 1 : (size_t)v;
}

/* ---- image-conv: reference and check ---- */

/* The expected code of channel ch of pixel (x, y): the sum in float of each weight times the
 * texel as read_imagef gives it (code / 255), rounded to nearest as write_imagef does. */
static int conv_want(const struct icase *c, size_t x, size_t y, int ch)
{
    const uint8_t *in = c->in;
    float sum = 0.0f;
    for (int j = 0; j < 5; j++) {
        size_t yy = clampz((long)y + j - 2, c->in_h);
        for (int i = 0; i < 5; i++) {
            size_t xx = clampz((long)x + i - 2, c->in_w);
            sum += (conv_w[j] * conv_w[i]) * ((float)in[(yy * c->in_w + xx) * 4 + ch] / 255.0f);
        }
    }
    sum = sum < 0.0f ? 0.0f : sum > 1.0f ? 1.0f : sum;
    return (int)(sum * 255.0f + 0.5f);
}

static int conv_check(const struct icase *c)
{
    const uint8_t *out = c->out;
    for (size_t y = 0; y < c->out_h; y++)
        for (size_t x = 0; x < c->out_w; x++)
            for (int ch = 0; ch < 4; ch++) {
                int got = out[(y * c->out_w + x) * 4 + ch], want = conv_want(c, x, y, ch);
                if (abs(got - want) > 1) {
                    fprintf(stderr,
                            "%s: %s: pixel (%zu, %zu) channel %d is %d, expected %d "
                            "(one code apart allowed)\n",
                            c->target, c->kind == CONV ? "image-conv" : "conv-buffer", x, y, ch,
                            got, want);
                    return -1;
                }
            }
    return 0;
}

/* ---- image-resize: reference and check ---- */

/* The OpenCL specification's CLK_FILTER_LINEAR on a 2D image with CLK_ADDRESS_CLAMP_TO_EDGE, in
 * double, at the normalised coordinate the kernel computes in float. */
static double resize_want(const struct icase *c, size_t x, size_t y, int ch)
{
    const float *in = c->in;
    float s = ((float)x + 0.5f) / (float)c->out_w, t = ((float)y + 0.5f) / (float)c->out_h;
    double u = (double)s * (double)c->in_w - 0.5, v = (double)t * (double)c->in_h - 0.5;
    double fu = floor(u), fv = floor(v), a = u - fu, b = v - fv;
    size_t i0 = clampz((long)fu, c->in_w), i1 = clampz((long)fu + 1, c->in_w);
    size_t j0 = clampz((long)fv, c->in_h), j1 = clampz((long)fv + 1, c->in_h);
#define T(i, j) ((double)in[((j)*c->in_w + (i)) * 4 + ch])
    return (1 - a) * (1 - b) * T(i0, j0) + a * (1 - b) * T(i1, j0) + (1 - a) * b * T(i0, j1) +
           a * b * T(i1, j1);
#undef T
}

static int resize_check(const struct icase *c)
{
    const float *out = c->out;
    for (size_t y = 0; y < c->out_h; y++)
        for (size_t x = 0; x < c->out_w; x++)
            for (int ch = 0; ch < 4; ch++) {
                double got = out[(y * c->out_w + x) * 4 + ch], want = resize_want(c, x, y, ch);
                if (!(fabs(got - want) <= 1e-4)) {
                    fprintf(stderr,
                            "%s: image-resize: pixel (%zu, %zu) channel %d is %.7g, expected "
                            "%.7g (1e-4 apart allowed)\n",
                            c->target, x, y, ch, got, want);
                    return -1;
                }
            }
    return 0;
}

static int icase_check(void *state)
{
    struct icase *c = state;
    return c->kind == RESIZE ? resize_check(c) : conv_check(c);
}

/* ---- host version ---- */

/* One output byte of the convolution with every coordinate clamped: the edges. */
static uint8_t conv_edge(const struct icase *c, size_t x, size_t y, int ch)
{
    const uint8_t *in = c->in;
    float sum = 0.0f;
    for (int j = 0; j < 5; j++) {
        size_t yy = clampz((long)y + j - 2, c->in_h);
        for (int i = 0; i < 5; i++)
            sum += (conv_w[j] * conv_w[i]) *
                   (float)in[(yy * c->in_w + clampz((long)x + i - 2, c->in_w)) * 4 + ch];
    }
    return (uint8_t)(sum + 0.5f);
}

/* Thread t of count: its share of the rows. Inside a row the 2 pixels at each end clamp their
 * columns; the interior is one loop over bytes with no clamp, which the compiler vectorises. The
 * weights sum to 1, so the weighted sum of codes is already the output code before rounding. */
static void host_conv(void *arg, unsigned t, unsigned count)
{
    const struct icase *c = arg;
    const uint8_t *in = c->in;
    uint8_t *out = c->out;
    size_t w = c->in_w, h = c->in_h, row = w * 4;
    float wt[5][5];
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++)
            wt[j][i] = conv_w[j] * conv_w[i];
    for (size_t y = h * t / count; y < h * (t + 1) / count; y++) {
        const uint8_t *r[5];
        for (int j = 0; j < 5; j++)
            r[j] = in + clampz((long)y + j - 2, h) * row;
        uint8_t *restrict o = out + y * row;
        for (int ch = 0; ch < 4; ch++) {
            o[0 * 4 + ch] = conv_edge(c, 0, y, ch);
            o[1 * 4 + ch] = conv_edge(c, 1, y, ch);
            o[(w - 2) * 4 + ch] = conv_edge(c, w - 2, y, ch);
            o[(w - 1) * 4 + ch] = conv_edge(c, w - 1, y, ch);
        }
        for (size_t k = 8; k < row - 8; k++) {
            float sum = 0.0f;
            for (int j = 0; j < 5; j++)
                for (int i = 0; i < 5; i++)
                    sum += wt[j][i] * (float)r[j][k + 4 * (size_t)i - 8];
            o[k] = (uint8_t)(sum + 0.5f);
        }
    }
}

/* Thread t of count: its share of the output rows, each pixel by the filter in float. */
static void host_resize(void *arg, unsigned t, unsigned count)
{
    const struct icase *c = arg;
    const float *in = c->in;
    float *out = c->out;
    long w = (long)c->in_w, h = (long)c->in_h;
    for (size_t y = c->out_h * t / count; y < c->out_h * (t + 1) / count; y++) {
        float v = ((float)y + 0.5f) / (float)c->out_h * (float)h - 0.5f;
        float fv = floorf(v), b = v - fv;
        long j0 = (long)fv < 0 ? 0 : (long)fv, j1 = (long)fv + 1 >= h ? h - 1 : (long)fv + 1;
        const float *r0 = in + j0 * w * 4, *r1 = in + j1 * w * 4;
        for (size_t x = 0; x < c->out_w; x++) {
            float u = ((float)x + 0.5f) / (float)c->out_w * (float)w - 0.5f;
            float fu = floorf(u), a = u - fu;
            long i0 = (long)fu < 0 ? 0 : (long)fu, i1 = (long)fu + 1 >= w ? w - 1 : (long)fu + 1;
            for (int ch = 0; ch < 4; ch++)
                out[(y * c->out_w + x) * 4 + ch] =
                    (1 - a) * (1 - b) * r0[i0 * 4 + ch] + a * (1 - b) * r0[i1 * 4 + ch] +
                    (1 - a) * b * r1[i0 * 4 + ch] + a * b * r1[i1 * 4 + ch];
        }
    }
}

static int host_setup(enum kind kind, const struct bench_env *env, void **state)
{
    struct icase *c = icase_alloc(kind, env);
    if (c == NULL)
        return -1;
    c->pool = env->pool;
    *state = c;
    return 0;
}

static int host_setup_conv(const struct bench_env *env, void **state)
{
    return host_setup(CONV, env, state);
}

static int host_setup_resize(const struct bench_env *env, void **state)
{
    return host_setup(RESIZE, env, state);
}

static int host_setup_buf(const struct bench_env *env, void **state)
{
    return host_setup(CONV_BUF, env, state);
}

static int host_run(void *state)
{
    struct icase *c = state;
    bench_pool_run(c->pool, c->kind == RESIZE ? host_resize : host_conv, c);
    return 0;
}

static void host_teardown(void *state)
{
    icase_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct icase *c)
{
    if (c->out_img != NULL)
        clReleaseMemObject(c->out_img);
    if (c->in_img != NULL)
        clReleaseMemObject(c->in_img);
    if (c->kernel != NULL)
        clReleaseKernel(c->kernel);
    if (c->program != NULL)
        clReleaseProgram(c->program);
    icase_free(c);
}

/* Is the format among the device's 2D formats for these flags? */
static int format_listed(const struct bench_env *env, cl_mem_flags flags,
                         const cl_image_format *want)
{
    cl_uint n = 0;
    if (clGetSupportedImageFormats(env->ctx, flags, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n) !=
            CL_SUCCESS ||
        n == 0)
        return 0;
    cl_image_format *f = calloc(n, sizeof(*f));
    int found = 0;
    if (f != NULL && clGetSupportedImageFormats(env->ctx, flags, CL_MEM_OBJECT_IMAGE2D, n, f,
                                                NULL) == CL_SUCCESS)
        for (cl_uint i = 0; i < n && !found; i++)
            found = f[i].image_channel_order == want->image_channel_order &&
                    f[i].image_channel_data_type == want->image_channel_data_type;
    free(f);
    return found;
}

/* conv-buffer's setup: buffers of the same bytes, no image support needed. */
static int cl_setup_buf(const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    struct icase *c = icase_alloc(CONV_BUF, env);
    if (c == NULL)
        return -1;
    c->queue = env->queue;
    if (bench_cl_kernel_build(env, sources[CONV_BUF], kernel_names[CONV_BUF], &c->program,
                              &c->kernel) != 0)
        goto out_release;
    size_t bytes = c->in_w * c->in_h * c->elem;
    c->in_img =
        clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, c->in, &err);
    if (err == CL_SUCCESS)
        c->out_img = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    cl_int w_px = (cl_int)c->in_w, h_px = (cl_int)c->in_h;
    err = clSetKernelArg(c->kernel, 0, sizeof(cl_mem), &c->in_img);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 1, sizeof(cl_mem), &c->out_img);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 2, sizeof(w_px), &w_px);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 3, sizeof(h_px), &h_px);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = c;
    return 0;

out_release:
    cl_release(c);
    return -1;
}

static int cl_setup(enum kind kind, const struct bench_env *env, void **state)
{
    cl_int err = CL_SUCCESS;
    cl_bool images = CL_FALSE;
    size_t max_w = 0, max_h = 0;
    cl_image_format format = {CL_RGBA, kind == CONV ? CL_UNORM_INT8 : CL_FLOAT};
    err = clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(env->target, "clGetDeviceInfo(CL_DEVICE_IMAGE_SUPPORT)", err);
    if (!images) {
        fprintf(stderr, "%s: %s: the device reports no image support\n", env->target,
                kernel_names[kind]);
        return 1;
    }
    if (!format_listed(env, CL_MEM_READ_ONLY, &format) ||
        !format_listed(env, CL_MEM_WRITE_ONLY, &format)) {
        fprintf(stderr, "%s: %s: the device does not list the CL_RGBA format\n", env->target,
                kernel_names[kind]);
        return 1;
    }
    clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(max_w), &max_w, NULL);
    clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(max_h), &max_h, NULL);

    struct icase *c = icase_alloc(kind, env);
    if (c == NULL)
        return -1;
    if (c->in_w > max_w || c->in_h > max_h) {
        fprintf(stderr, "%s: %s: %zux%zu is above the device's 2D image limit %zux%zu\n",
                env->target, kernel_names[kind], c->in_w, c->in_h, max_w, max_h);
        icase_free(c);
        return 1;
    }
    c->queue = env->queue;
    if (bench_cl_kernel_build(env, sources[kind], kernel_names[kind], &c->program, &c->kernel) != 0)
        goto out_release;
    cl_image_desc in_desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = c->in_w, .image_height = c->in_h};
    cl_image_desc out_desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = c->out_w, .image_height = c->out_h};
    c->in_img = clCreateImage(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &in_desc,
                              c->in, &err);
    if (err == CL_SUCCESS)
        c->out_img = clCreateImage(env->ctx, CL_MEM_WRITE_ONLY, &format, &out_desc, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateImage", err);
        goto out_release;
    }
    err = clSetKernelArg(c->kernel, 0, sizeof(cl_mem), &c->in_img);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 1, sizeof(cl_mem), &c->out_img);
    if (err == CL_SUCCESS && kind == RESIZE) {
        cl_float ow = (cl_float)c->out_w, oh = (cl_float)c->out_h;
        err = clSetKernelArg(c->kernel, 2, sizeof(ow), &ow);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(c->kernel, 3, sizeof(oh), &oh);
    }
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = c;
    return 0;

out_release:
    cl_release(c);
    return -1;
}

static int cl_setup_conv(const struct bench_env *env, void **state)
{
    return cl_setup(CONV, env, state);
}

static int cl_setup_resize(const struct bench_env *env, void **state)
{
    return cl_setup(RESIZE, env, state);
}

/* One repetition: the kernel over every output pixel, to clFinish. */
static int cl_run(void *state)
{
    struct icase *c = state;
    size_t global[2] = {c->out_w, c->out_h};
    cl_int err = clEnqueueNDRangeKernel(c->queue, c->kernel, 2, NULL, global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(c->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(c->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(c->target, "clFinish", err);
    return 0;
}

/* Reads the output back (not timed), then checks it. */
static int cl_check(void *state)
{
    struct icase *c = state;
    size_t origin[3] = {0, 0, 0}, region[3] = {c->out_w, c->out_h, 1};
    cl_int err;
    if (c->kind == CONV_BUF) {
        err = clEnqueueReadBuffer(c->queue, c->out_img, CL_TRUE, 0, c->out_w * c->out_h * c->elem,
                                  c->out, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return bench_cl_fail(c->target, "clEnqueueReadBuffer", err);
    } else {
        err = clEnqueueReadImage(c->queue, c->out_img, CL_TRUE, origin, region, 0, 0, c->out, 0,
                                 NULL, NULL);
        if (err != CL_SUCCESS)
            return bench_cl_fail(c->target, "clEnqueueReadImage", err);
    }
    return icase_check(c);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double rate(enum kind kind, const struct bench_env *env, double seconds)
{
    struct icase c;
    sizes(kind, env->size_bytes, &c);
    return (double)(c.out_w * c.out_h) / seconds / 1e6;
}

static double rate_conv(const struct bench_env *env, double seconds)
{
    return rate(CONV, env, seconds);
}

static double rate_resize(const struct bench_env *env, double seconds)
{
    return rate(RESIZE, env, seconds);
}

static double rate_buf(const struct bench_env *env, double seconds)
{
    return rate(CONV_BUF, env, seconds);
}

const struct bench_case bench_case_image_conv = {
    .name = "image-conv",
    .summary = "5x5 Gaussian over an RGBA UNORM_INT8 image, sampler reads; Mpixel/s",
    .cl = {cl_setup_conv, cl_run, cl_check, cl_teardown},
    .host = {host_setup_conv, host_run, icase_check, host_teardown},
    .rate = rate_conv,
    .rate_unit = "Mpx/s",
};

const struct bench_case bench_case_image_resize = {
    .name = "image-resize",
    .summary = "bilinear resize to 3/4 of an RGBA FLOAT image, linear sampler; Mpixel/s of output",
    .cl = {cl_setup_resize, cl_run, cl_check, cl_teardown},
    .host = {host_setup_resize, host_run, icase_check, host_teardown},
    .rate = rate_resize,
    .rate_unit = "Mpx/s",
};

const struct bench_case bench_case_conv_buffer = {
    .name = "conv-buffer",
    .summary = "image-conv's 5x5 Gaussian over uchar4 buffers, clamped indices; Mpixel/s",
    .cl = {cl_setup_buf, cl_run, cl_check, cl_teardown},
    .host = {host_setup_buf, host_run, icase_check, host_teardown},
    .rate = rate_buf,
    .rate_unit = "Mpx/s",
};
