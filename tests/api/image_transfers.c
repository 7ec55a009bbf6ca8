/*
 * Image commands (OpenCL 3.0 §5.3.3 to §5.3.6): clEnqueueRead/Write/Copy/FillImage,
 * clEnqueueCopyImageToBuffer, clEnqueueCopyBufferToImage and clEnqueueMapImage on every image
 * type and several formats, each result against a host model of the image's pixels; the fill
 * colours against hand-worked conversions; and the commands' errors, with the event left
 * untouched.
 */
#include "kiln_test.h"

#include <stdint.h>

/* Image box coordinates as the commands take them: a 1D array's layers are region[1], a 2D
 * array's region[2]. */
struct dims {
    size_t n[3];
};

static uint32_t seed = 12345;

static uint32_t rnd(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

/* A random box inside `d`: origin and region. */
static void random_box(const struct dims *d, size_t *origin, size_t *region)
{
    for (int i = 0; i < 3; i++) {
        origin[i] = rnd() % d->n[i];
        region[i] = 1 + rnd() % (d->n[i] - origin[i]);
    }
}

/* The model: the image's pixels tightly packed, x fastest. */
static unsigned char *model_px(unsigned char *model, const struct dims *d, size_t elem, size_t x,
                               size_t y, size_t z)
{
    return model + ((z * d->n[1] + y) * d->n[0] + x) * elem;
}

/*
 * The host side of a box: the pitches passed to the command (padded by `pad` pixels or rows)
 * and the strides they give region[1] and region[2] (for a 1D array, its layers step by the
 * slice pitch).
 */
struct host_side {
    size_t row_param, slice_param, ystride, zstride, bytes;
};

static struct host_side host_side_of(cl_mem_object_type t, const size_t *region, size_t elem,
                                     size_t pad)
{
    struct host_side h = {0};
    const size_t row = (region[0] + pad) * elem;
    h.row_param = pad ? row : 0;
    h.ystride = row;
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        h.slice_param = pad ? row + pad * elem : 0;
        h.ystride = pad ? h.slice_param : row;
        h.zstride = 0;
        h.bytes = h.ystride * region[1];
        break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE3D:
        h.zstride = row * (region[1] + pad);
        h.slice_param = pad ? h.zstride : 0;
        h.bytes = h.zstride * region[2];
        break;
    default:
        h.bytes = row * region[1];
        break;
    }
    return h;
}

static int box_matches(const unsigned char *model, const struct dims *d, size_t elem,
                       const size_t *origin, const size_t *region, const unsigned char *host,
                       size_t ystride, size_t zstride, const char *what)
{
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            for (size_t x = 0; x < region[0]; x++) {
                const unsigned char *want = model_px((unsigned char *)model, d, elem, origin[0] + x,
                                                     origin[1] + y, origin[2] + z);
                const unsigned char *got = host + z * zstride + y * ystride + x * elem;
                if (memcmp(want, got, elem) != 0) {
                    KT_CHECK(0, "%s: pixel (%zu, %zu, %zu) of the box at (%zu, %zu, %zu) differs",
                             what, x, y, z, origin[0], origin[1], origin[2]);
                    return 0;
                }
            }
    return 1;
}

/* Read the whole image tightly and compare it with the model. */
static void check_whole(struct kt_env *env, cl_mem img, const unsigned char *model,
                        const struct dims *d, size_t elem, const char *what)
{
    size_t origin[3] = {0, 0, 0};
    size_t bytes = d->n[0] * d->n[1] * d->n[2] * elem;
    unsigned char *back = malloc(bytes);
    KT_REQUIRE(back, "out of memory");
    KT_EXPECT(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, d->n, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    box_matches(model, d, elem, origin, d->n, back, d->n[0] * elem, d->n[0] * d->n[1] * elem, what);
    free(back);
}

struct fmt_case {
    cl_image_format f;
    size_t elem;
};

static const struct fmt_case fmts[] = {
    {{CL_RGBA, CL_UNORM_INT8}, 4},   {{CL_R, CL_FLOAT}, 4},
    {{CL_RGBA, CL_FLOAT}, 16},       {{CL_RG, CL_HALF_FLOAT}, 4},
    {{CL_R, CL_UNSIGNED_INT8}, 1},   {{CL_RGB, CL_UNORM_SHORT_565}, 2},
    {{CL_RGBA, CL_SIGNED_INT16}, 8},
};

/* Writes, reads, copies within the image and through a buffer, and a map, for one image. */
static void round_trips(struct kt_env *env, cl_mem_object_type t, const struct fmt_case *fc)
{
    struct dims d = {{13, 1, 1}};
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = t;
    desc.image_width = 13;
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        desc.image_array_size = d.n[1] = 5;
        break;
    case CL_MEM_OBJECT_IMAGE2D:
        desc.image_height = d.n[1] = 7;
        break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        desc.image_height = d.n[1] = 7;
        desc.image_array_size = d.n[2] = 4;
        break;
    case CL_MEM_OBJECT_IMAGE3D:
        desc.image_height = d.n[1] = 7;
        desc.image_depth = d.n[2] = 3;
        break;
    default:
        break;
    }
    const size_t elem = fc->elem;
    cl_int err;
    cl_mem backing = NULL;
    if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        backing = clCreateBuffer(env->context, 0, 13 * elem + 64, NULL, &err);
        KT_REQUIRE_OK(err);
        desc.mem_object = backing;
    }
    cl_mem img = clCreateImage(env->context, 0, &fc->f, &desc, NULL, &err);
    KT_REQUIRE(img && err == CL_SUCCESS, "type 0x%x format 0x%x/0x%x: %d", t,
               fc->f.image_channel_order, fc->f.image_channel_data_type, err);
    const size_t total = d.n[0] * d.n[1] * d.n[2] * elem;
    unsigned char *model = malloc(total);
    unsigned char *host = malloc(total * 8 + 4096);
    KT_REQUIRE(model && host, "out of memory");

    /* The whole image from padded host memory. */
    size_t zero[3] = {0, 0, 0};
    struct host_side h = host_side_of(t, d.n, elem, 2);
    for (size_t i = 0; i < h.bytes; i++)
        host[i] = (unsigned char)rnd();
    for (size_t z = 0; z < d.n[2]; z++)
        for (size_t y = 0; y < d.n[1]; y++)
            memcpy(model_px(model, &d, elem, 0, y, z), host + z * h.zstride + y * h.ystride,
                   d.n[0] * elem);
    KT_EXPECT(clEnqueueWriteImage(env->queue, img, CL_TRUE, zero, d.n, h.row_param, h.slice_param,
                                  host, 0, NULL, NULL),
              CL_SUCCESS);
    check_whole(env, img, model, &d, elem, "whole write");

    for (int round = 0; round < 12; round++) {
        size_t origin[3], region[3];
        /* A box written from padded memory, another read back into padded memory. */
        random_box(&d, origin, region);
        h = host_side_of(t, region, elem, round % 3);
        for (size_t i = 0; i < h.bytes; i++)
            host[i] = (unsigned char)rnd();
        for (size_t z = 0; z < region[2]; z++)
            for (size_t y = 0; y < region[1]; y++)
                memcpy(model_px(model, &d, elem, origin[0], origin[1] + y, origin[2] + z),
                       host + z * h.zstride + y * h.ystride, region[0] * elem);
        KT_EXPECT(clEnqueueWriteImage(env->queue, img, CL_FALSE, origin, region, h.row_param,
                                      h.slice_param, host, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        random_box(&d, origin, region);
        h = host_side_of(t, region, elem, (round + 1) % 3);
        KT_EXPECT(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, h.row_param,
                                     h.slice_param, host, 0, NULL, NULL),
                  CL_SUCCESS);
        box_matches(model, &d, elem, origin, region, host, h.ystride, h.zstride, "box read");

        /* A copy inside the image between boxes that do not overlap: the left and right
         * halves of the x range. */
        if (d.n[0] >= 2) {
            size_t half = d.n[0] / 2;
            size_t so[3], dst_o[3], reg[3];
            random_box(&d, so, reg);
            reg[0] = 1 + rnd() % half;
            so[0] = rnd() % (half - reg[0] + 1);
            dst_o[0] = half + rnd() % (d.n[0] - half - reg[0] + 1);
            dst_o[1] = so[1];
            dst_o[2] = so[2];
            if (round & 1) { /* the other way */
                size_t tmp = so[0];
                so[0] = dst_o[0];
                dst_o[0] = tmp;
            }
            unsigned char *tmp = malloc(reg[0] * reg[1] * reg[2] * elem);
            KT_REQUIRE(tmp, "out of memory");
            for (size_t z = 0; z < reg[2]; z++)
                for (size_t y = 0; y < reg[1]; y++)
                    memcpy(tmp + (z * reg[1] + y) * reg[0] * elem,
                           model_px(model, &d, elem, so[0], so[1] + y, so[2] + z), reg[0] * elem);
            for (size_t z = 0; z < reg[2]; z++)
                for (size_t y = 0; y < reg[1]; y++)
                    memcpy(model_px(model, &d, elem, dst_o[0], dst_o[1] + y, dst_o[2] + z),
                           tmp + (z * reg[1] + y) * reg[0] * elem, reg[0] * elem);
            free(tmp);
            KT_EXPECT(clEnqueueCopyImage(env->queue, img, img, so, dst_o, reg, 0, NULL, NULL),
                      CL_SUCCESS);
            check_whole(env, img, model, &d, elem, "copy within the image");
        }

        /* Image to buffer (at an offset), then the buffer's box back at another origin. */
        random_box(&d, origin, region);
        const size_t box_bytes = region[0] * region[1] * region[2] * elem;
        cl_mem buf = clCreateBuffer(env->context, 0, box_bytes + 24, NULL, &err);
        KT_REQUIRE_OK(err);
        KT_EXPECT(
            clEnqueueCopyImageToBuffer(env->queue, img, buf, origin, region, 24, 0, NULL, NULL),
            CL_SUCCESS);
        KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 24, box_bytes, host, 0, NULL, NULL),
                  CL_SUCCESS);
        box_matches(model, &d, elem, origin, region, host, region[0] * elem,
                    region[0] * region[1] * elem, "image to buffer");
        size_t o2[3];
        for (int i = 0; i < 3; i++)
            o2[i] = rnd() % (d.n[i] - region[i] + 1);
        KT_EXPECT(clEnqueueCopyBufferToImage(env->queue, buf, img, 24, o2, region, 0, NULL, NULL),
                  CL_SUCCESS);
        for (size_t z = 0; z < region[2]; z++)
            for (size_t y = 0; y < region[1]; y++)
                memcpy(model_px(model, &d, elem, o2[0], o2[1] + y, o2[2] + z),
                       host + (z * region[1] + y) * region[0] * elem, region[0] * elem);
        check_whole(env, img, model, &d, elem, "buffer to image");
        clReleaseMemObject(buf);

        /* A map: the box's pixels at the returned pitches, written through, then unmapped. */
        random_box(&d, origin, region);
        size_t rp = 0, sp = 0;
        unsigned char *p = clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                             origin, region, &rp, &sp, 0, NULL, NULL, &err);
        KT_REQUIRE(p && err == CL_SUCCESS, "map: %d", err);
        const size_t ys = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? sp : rp;
        box_matches(model, &d, elem, origin, region, p, ys, sp, "mapped box");
        for (size_t z = 0; z < region[2]; z++)
            for (size_t y = 0; y < region[1]; y++)
                for (size_t x = 0; x < region[0] * elem; x++) {
                    unsigned char v = (unsigned char)rnd();
                    p[z * sp + y * ys + x] = v;
                    model_px(model, &d, elem, origin[0], origin[1] + y, origin[2] + z)[x] = v;
                }
        KT_EXPECT(clEnqueueUnmapMemObject(env->queue, img, p, 0, NULL, NULL), CL_SUCCESS);
        check_whole(env, img, model, &d, elem, "written through a map");
    }
    free(host);
    free(model);
    clReleaseMemObject(img);
    if (backing)
        clReleaseMemObject(backing);
}

/* Fill colours against conversions worked by hand (OpenCL C "Conversion Rules"). */
static void fills(struct kt_env *env)
{
    static const struct {
        cl_image_format f;
        float fc[4];
        cl_uint uc[4]; /* integer formats: the colour's bits */
        int integer;
        size_t elem;
        unsigned char want[16];
    } cases[] = {
        /* 127.5 rounds to even 128, 63.75 to 64; 1.2 and -0.3 saturate. */
        {{CL_RGBA, CL_UNORM_INT8}, {0.5f, 1.2f, -0.3f, 0.25f}, {0}, 0, 4, {128, 255, 0, 64}},
        {{CL_BGRA, CL_UNORM_INT8}, {1.0f, 0.0f, 0.5f, 1.0f}, {0}, 0, 4, {128, 0, 255, 255}},
        /* -1.5 saturates to -127 (0x81); 0.5 * 127 = 63.5 rounds to even 64. */
        {{CL_R, CL_SNORM_INT8}, {-1.5f, 9, 9, 9}, {0}, 0, 1, {0x81}},
        {{CL_RG, CL_SNORM_INT8}, {0.5f, -0.5f, 9, 9}, {0}, 0, 2, {64, 0xc0}},
        /* 0.5 * 65535 = 32767.5 rounds to even 32768. */
        {{CL_R, CL_UNORM_INT16}, {0.5f, 0, 0, 0}, {0}, 0, 2, {0x00, 0x80}},
        /* half: 1 + 2^-11 is half-way between 1 and 1 + 2^-10: even is 1 (0x3c00); 1 + 3 *
         * 2^-11 rounds up to 1 + 2^-9 (0x3c02); 70000 is past the largest half: infinity. */
        {{CL_RGBA, CL_HALF_FLOAT},
         {1.00048828125f, 1.00146484375f, 70000.0f, -2.0f},
         {0},
         0,
         8,
         {0x00, 0x3c, 0x02, 0x3c, 0x00, 0x7c, 0x00, 0xc0}},
        {{CL_R, CL_FLOAT}, {-3.25f, 9, 9, 9}, {0}, 0, 4, {0x00, 0x00, 0x50, 0xc0}},
        {{CL_A, CL_UNORM_INT8}, {0.0f, 0.0f, 0.0f, 1.0f}, {0}, 0, 1, {255}},
        {{CL_RA, CL_UNORM_INT8}, {1.0f, 0.0f, 0.0f, 0.0f}, {0}, 0, 2, {255, 0}},
        /* 565: R 31, G 31.5 -> 32, B 0: 0xf800 | 0x0400. */
        {{CL_RGB, CL_UNORM_SHORT_565}, {1.0f, 0.5f, 0.0f, 0.0f}, {0}, 0, 2, {0x00, 0xfc}},
        /* 101010: 1023 << 20 | 0 | 1023. */
        {{CL_RGB, CL_UNORM_INT_101010},
         {1.0f, 0.0f, 1.0f, 0.0f},
         {0},
         0,
         4,
         {0xff, 0x03, 0xf0, 0x3f}},
        /* sRGB: 0.5 linear is 0.73536 encoded, 187.52 -> 188; alpha stays linear. */
        {{CL_sRGBA, CL_UNORM_INT8}, {0.5f, 1.0f, 0.0f, 0.5f}, {0}, 0, 4, {188, 255, 0, 128}},
        /* Integers saturate: 300 -> 255; -40000 -> -32768 (0x8000), 40000 -> 32767. */
        {{CL_RGBA, CL_UNSIGNED_INT8}, {0}, {300, 7, 0, 255}, 1, 4, {255, 7, 0, 255}},
        {{CL_RG, CL_SIGNED_INT16},
         {0},
         {(cl_uint)-40000, 40000, 0, 0},
         1,
         4,
         {0x00, 0x80, 0xff, 0x7f}},
        {{CL_R, CL_SIGNED_INT8}, {0}, {(cl_uint)-5, 0, 0, 0}, 1, 1, {0xfb}},
        {{CL_DEPTH, CL_UNORM_INT16}, {1.0f, 9, 9, 9}, {0}, 0, 2, {0xff, 0xff}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_int err;
        cl_image_desc desc;
        memset(&desc, 0, sizeof(desc));
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 9;
        desc.image_height = 5;
        const cl_mem_flags flags =
            cases[i].f.image_channel_order == CL_sRGBA ? CL_MEM_READ_ONLY : 0;
        cl_mem img = clCreateImage(env->context, flags, &cases[i].f, &desc, NULL, &err);
        KT_REQUIRE(img && err == CL_SUCCESS, "fill case %zu: %d", i, err);
        const size_t elem = cases[i].elem;
        unsigned char before[9 * 5 * 16], after[9 * 5 * 16];
        for (size_t b = 0; b < sizeof(before); b++)
            before[b] = (unsigned char)rnd();
        size_t zero[3] = {0, 0, 0}, all[3] = {9, 5, 1};
        KT_EXPECT(
            clEnqueueWriteImage(env->queue, img, CL_TRUE, zero, all, 0, 0, before, 0, NULL, NULL),
            CL_SUCCESS);
        size_t origin[3] = {2, 1, 0}, region[3] = {6, 3, 1};
        const void *color =
            cases[i].integer ? (const void *)cases[i].uc : (const void *)cases[i].fc;
        KT_EXPECT(clEnqueueFillImage(env->queue, img, color, origin, region, 0, NULL, NULL),
                  CL_SUCCESS);
        KT_EXPECT(
            clEnqueueReadImage(env->queue, img, CL_TRUE, zero, all, 0, 0, after, 0, NULL, NULL),
            CL_SUCCESS);
        int ok = 1;
        for (size_t y = 0; y < 5; y++)
            for (size_t x = 0; x < 9; x++) {
                const int inside = x >= 2 && x < 8 && y >= 1 && y < 4;
                const unsigned char *want = inside ? cases[i].want : before + (y * 9 + x) * elem;
                ok &= memcmp(after + (y * 9 + x) * elem, want, elem) == 0;
            }
        KT_CHECK(ok, "fill case %zu (order 0x%x type 0x%x): pixel %02x %02x %02x %02x", i,
                 cases[i].f.image_channel_order, cases[i].f.image_channel_data_type,
                 after[(1 * 9 + 2) * elem], after[(1 * 9 + 2) * elem + 1 % elem],
                 after[(1 * 9 + 2) * elem + 2 % elem], after[(1 * 9 + 2) * elem + 3 % elem]);
        clReleaseMemObject(img);
    }
}

/* A large image: its transfers run on the worker threads, by rows. */
static void large(struct kt_env *env)
{
    enum { W = 1000, H = 600 };
    const cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_int err;
    cl_mem img = clCreateImage(env->context, 0, &f, &desc, NULL, &err);
    KT_REQUIRE_OK(err);
    uint32_t *in = malloc((size_t)W * H * 4), *out = malloc((size_t)W * H * 4);
    KT_REQUIRE(in && out, "out of memory");
    for (size_t i = 0; i < (size_t)W * H; i++)
        in[i] = rnd();
    size_t zero[3] = {0, 0, 0}, all[3] = {W, H, 1};
    KT_EXPECT(clEnqueueWriteImage(env->queue, img, CL_FALSE, zero, all, 0, 0, in, 0, NULL, NULL),
              CL_SUCCESS);
    const float white[4] = {1, 1, 1, 1};
    size_t fo[3] = {100, 50, 0}, fr[3] = {800, 500, 1};
    KT_EXPECT(clEnqueueFillImage(env->queue, img, white, fo, fr, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, all, 0, 0, out, 0, NULL, NULL),
              CL_SUCCESS);
    size_t bad = 0;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++) {
            const int inside = x >= 100 && x < 900 && y >= 50 && y < 550;
            bad += out[y * W + x] != (inside ? 0xffffffffu : in[y * W + x]);
        }
    KT_CHECK(bad == 0, "large image: %zu pixels differ", bad);
    free(in);
    free(out);
    clReleaseMemObject(img);
}

/* Errors of the commands, the event untouched on each. */
static void errors(struct kt_env *env)
{
    cl_int err;
    const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8}, r32 = {CL_R, CL_FLOAT};
    cl_image_desc d2;
    memset(&d2, 0, sizeof(d2));
    d2.image_type = CL_MEM_OBJECT_IMAGE2D;
    d2.image_width = 8;
    d2.image_height = 8;
    cl_mem img = clCreateImage(env->context, 0, &rgba8, &d2, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_mem other = clCreateImage(env->context, 0, &r32, &d2, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_image_desc d3 = d2;
    d3.image_type = CL_MEM_OBJECT_IMAGE3D;
    d3.image_depth = 2;
    cl_mem img3 = clCreateImage(env->context, 0, &rgba8, &d3, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_mem buf = clCreateBuffer(env->context, 0, 256, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_mem ro = clCreateImage(env->context, CL_MEM_HOST_NO_ACCESS, &rgba8, &d2, NULL, &err);
    KT_REQUIRE_OK(err);
    unsigned char host[8 * 8 * 4 * 2];
    size_t zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, all[3] = {8, 8, 1};
    cl_event ev = (cl_event)0x1234;
#define EXPECT_CMD(expr, want)                                                                     \
    do {                                                                                           \
        KT_EXPECT((expr), (want));                                                                 \
        KT_CHECK(ev == (cl_event)0x1234, "event written on failure");                              \
    } while (0)
    EXPECT_CMD(clEnqueueReadImage(NULL, img, CL_TRUE, zero, one, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_COMMAND_QUEUE);
    EXPECT_CMD(clEnqueueReadImage(env->queue, buf, CL_TRUE, zero, one, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT);
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, NULL, one, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_VALUE);
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, one, 0, 0, NULL, 0, NULL, &ev),
               CL_INVALID_VALUE);
    size_t past[3] = {8, 1, 1}, at[3] = {1, 0, 0};
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, at, past, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_VALUE);
    size_t deep[3] = {1, 1, 2};
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, deep, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_VALUE); /* a 2D image has one slice */
    size_t none[3] = {1, 0, 1};
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, none, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_VALUE);
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, all, 31, 0, host, 0, NULL, &ev),
               CL_INVALID_VALUE); /* row pitch below 8 pixels */
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, all, 0, 256, host, 0, NULL, &ev),
               CL_INVALID_VALUE); /* a slice pitch for a 2D image */
    size_t two[3] = {8, 8, 2};
    EXPECT_CMD(
        clEnqueueWriteImage(env->queue, img3, CL_TRUE, zero, two, 32, 200, host, 0, NULL, &ev),
        CL_INVALID_VALUE); /* slice pitch below 8 rows */
    EXPECT_CMD(clEnqueueReadImage(env->queue, ro, CL_TRUE, zero, one, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_OPERATION);
    EXPECT_CMD(clEnqueueWriteImage(env->queue, ro, CL_TRUE, zero, one, 0, 0, host, 0, NULL, &ev),
               CL_INVALID_OPERATION);
    EXPECT_CMD(clEnqueueReadImage(env->queue, img, CL_TRUE, zero, one, 0, 0, host, 1, NULL, &ev),
               CL_INVALID_EVENT_WAIT_LIST);
    /* Copies. */
    EXPECT_CMD(clEnqueueCopyImage(env->queue, img, other, zero, zero, one, 0, NULL, &ev),
               CL_IMAGE_FORMAT_MISMATCH);
    size_t o1[3] = {1, 1, 0}, r2[3] = {2, 2, 1};
    EXPECT_CMD(clEnqueueCopyImage(env->queue, img, img, zero, o1, r2, 0, NULL, &ev),
               CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueCopyImage(env->queue, img, img3, zero, zero, all, 0, NULL, NULL),
              CL_SUCCESS); /* 2D to a slice of a 3D image */
    EXPECT_CMD(clEnqueueCopyImage(env->queue, img, img3, zero, zero, two, 0, NULL, &ev),
               CL_INVALID_VALUE); /* two slices of a 2D source */
    EXPECT_CMD(clEnqueueCopyImageToBuffer(env->queue, img, buf, zero, all, 4, 0, NULL, &ev),
               CL_INVALID_VALUE); /* 8 x 8 pixels at offset 4 run past 256 bytes */
    EXPECT_CMD(clEnqueueCopyImageToBuffer(env->queue, img, img, zero, one, 0, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT);
    EXPECT_CMD(clEnqueueCopyBufferToImage(env->queue, buf, img, 253, zero, one, 0, NULL, &ev),
               CL_INVALID_VALUE);
    EXPECT_CMD(clEnqueueCopyBufferToImage(env->queue, img, img, 0, zero, one, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT);
    cl_image_desc db;
    memset(&db, 0, sizeof(db));
    db.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    db.image_width = 16;
    db.mem_object = buf;
    cl_mem ib = clCreateImage(env->context, 0, &rgba8, &db, NULL, &err);
    KT_REQUIRE_OK(err);
    EXPECT_CMD(clEnqueueCopyImageToBuffer(env->queue, ib, buf, zero, one, 128, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT); /* the image was made from that buffer */
    EXPECT_CMD(clEnqueueCopyBufferToImage(env->queue, buf, ib, 128, zero, one, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(ib);
    /* Fill and map. */
    float color[4] = {0, 0, 0, 0};
    EXPECT_CMD(clEnqueueFillImage(env->queue, img, NULL, zero, one, 0, NULL, &ev),
               CL_INVALID_VALUE);
    EXPECT_CMD(clEnqueueFillImage(env->queue, buf, color, zero, one, 0, NULL, &ev),
               CL_INVALID_MEM_OBJECT);
    EXPECT_CMD(clEnqueueFillImage(env->queue, img, color, past, one, 0, NULL, &ev),
               CL_INVALID_VALUE);
    size_t rp = 77, sp = 77;
    err = 1;
    KT_CHECK(clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_READ, zero, one, NULL, &sp, 0, NULL,
                               &ev, &err) == NULL &&
                 err == CL_INVALID_VALUE && ev == (cl_event)0x1234,
             "map without image_row_pitch: %d", err);
    KT_CHECK(clEnqueueMapImage(env->queue, img3, CL_TRUE, CL_MAP_READ, zero, one, &rp, NULL, 0,
                               NULL, &ev, &err) == NULL &&
                 err == CL_INVALID_VALUE && ev == (cl_event)0x1234,
             "map of a 3D image without image_slice_pitch: %d", err);
    KT_CHECK(clEnqueueMapImage(env->queue, img, CL_TRUE,
                               CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, zero, one, &rp, &sp, 0,
                               NULL, &ev, &err) == NULL &&
                 err == CL_INVALID_VALUE,
             "map flags: %d", err);
    KT_CHECK(clEnqueueMapImage(env->queue, ro, CL_TRUE, CL_MAP_READ, zero, one, &rp, &sp, 0, NULL,
                               &ev, &err) == NULL &&
                 err == CL_INVALID_OPERATION,
             "map of a HOST_NO_ACCESS image: %d", err);
    KT_CHECK(rp == 77 && sp == 77, "pitches written on failure");
    /* A 2D image's slice pitch is 0 when asked; the map is counted until unmapped. */
    void *p = clEnqueueMapImage(env->queue, img, CL_TRUE, CL_MAP_WRITE, zero, one, &rp, &sp, 0,
                                NULL, NULL, &err);
    KT_CHECK(p && err == CL_SUCCESS && rp == 32 && sp == 0, "map: %d, pitches %zu %zu", err, rp,
             sp);
    cl_uint count = 0;
    KT_EXPECT(clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL), CL_SUCCESS);
    KT_CHECK(count == 1, "map count %u", count);
    KT_EXPECT(clEnqueueUnmapMemObject(env->queue, img, p, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
#undef EXPECT_CMD
    clReleaseMemObject(ro);
    clReleaseMemObject(buf);
    clReleaseMemObject(img3);
    clReleaseMemObject(other);
    clReleaseMemObject(img);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    kt_require_images(env.device);
    static const cl_mem_object_type types[] = {
        CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY,  CL_MEM_OBJECT_IMAGE3D,
    };
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
        for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
            round_trips(&env, types[t], &fmts[f]);
    fills(&env);
    large(&env);
    errors(&env);
    kt_teardown(&env);
    return kt_finish("api/image_transfers");
}
