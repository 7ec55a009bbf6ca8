/*
 * Image objects (OpenCL 3.0 §5.3): creation of every image type and from buffers and
 * images, the flags, clGetSupportedImageFormats, clGetImageInfo and clGetMemObjectInfo on
 * images, and every error of the creation entry points with the outputs left untouched.
 *
 * Run as `images on` (the device reports images) and as `images off` with KILN_IMAGES=0:
 * then nothing about images is reported and creation is CL_INVALID_OPERATION.
 */
#include "kiln_test.h"

#include <stdint.h>

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};

static cl_image_desc desc_of(cl_mem_object_type t, size_t w, size_t h, size_t d, size_t layers)
{
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = t;
    desc.image_width = w;
    desc.image_height = h;
    desc.image_depth = d;
    desc.image_array_size = layers;
    return desc;
}

/* A creation that must fail with `want`, returning NULL and leaving nothing else behind. */
#define EXPECT_IMAGE_FAILS(ctx, flags, fmt, desc, ptr, want)                                       \
    do {                                                                                           \
        cl_int e_ = 1;                                                                             \
        cl_mem m_ = clCreateImage((ctx), (flags), (fmt), (desc), (ptr), &e_);                      \
        KT_CHECK(m_ == NULL && e_ == (want), "got %p / %d, want %d (%s)", (void *)m_, e_, (want),  \
                 #want);                                                                           \
        if (m_)                                                                                    \
            clReleaseMemObject(m_);                                                                \
    } while (0)

static size_t image_size_info(cl_mem m, cl_image_info what)
{
    size_t v = 12345;
    KT_EXPECT(clGetImageInfo(m, what, sizeof(v), &v, NULL), CL_SUCCESS);
    return v;
}

static void test_off(struct kt_env *env)
{
    cl_bool images = CL_TRUE;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
              CL_SUCCESS);
    KT_CHECK(images == CL_FALSE, "CL_DEVICE_IMAGE_SUPPORT under KILN_IMAGES=0");
    KT_CHECK(!kt_has_extension(env->device, "cl_khr_image2d_from_buffer"),
             "an image extension under KILN_IMAGES=0");
    cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d, NULL, CL_INVALID_OPERATION);
    cl_int err = 1;
    KT_CHECK(clCreateImage2D(env->context, 0, &rgba8, 4, 4, 0, NULL, &err) == NULL &&
                 err == CL_INVALID_OPERATION,
             "clCreateImage2D: %d", err);
    cl_uint n = 7;
    KT_EXPECT(clGetSupportedImageFormats(env->context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0,
                                         NULL, &n),
              CL_SUCCESS);
    KT_CHECK(n == 0, "%u formats under KILN_IMAGES=0", n);
    cl_mem buf = clCreateBuffer(env->context, 0, 64, NULL, &err);
    KT_REQUIRE_OK(err);
    size_t v;
    KT_EXPECT(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(v), &v, NULL), CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(buf);
}

static int has_format(const cl_image_format *list, cl_uint n, cl_channel_order o, cl_channel_type t)
{
    for (cl_uint i = 0; i < n; i++)
        if (list[i].image_channel_order == o && list[i].image_channel_data_type == t)
            return 1;
    return 0;
}

/* The required formats (OpenCL 3.0 §5.3.2.1) are listed for every type and access. */
static void test_formats(struct kt_env *env)
{
    static const cl_mem_object_type types[] = {
        CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY,  CL_MEM_OBJECT_IMAGE3D,
    };
    static const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE,
                                         CL_MEM_KERNEL_READ_AND_WRITE};
    static const cl_channel_type all[] = {
        CL_UNORM_INT8,     CL_UNORM_INT16,    CL_SNORM_INT8,   CL_SNORM_INT16,
        CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT,
    };
    for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
        for (size_t fi = 0; fi < sizeof(flags) / sizeof(flags[0]); fi++) {
            cl_uint n = 0, n2 = 0;
            KT_EXPECT(clGetSupportedImageFormats(env->context, flags[fi], types[ti], 0, NULL, &n),
                      CL_SUCCESS);
            KT_REQUIRE(n > 0 && n < 256, "%u formats", n);
            cl_image_format list[256];
            memset(list, 0xab, sizeof(list));
            KT_EXPECT(clGetSupportedImageFormats(env->context, flags[fi], types[ti], n, list, &n2),
                      CL_SUCCESS);
            KT_CHECK(n2 == n, "count %u then %u", n, n2);
            /* A short array gets exactly num_entries entries. */
            cl_image_format two[3];
            memset(two, 0xab, sizeof(two));
            KT_EXPECT(clGetSupportedImageFormats(env->context, flags[fi], types[ti], 2, two, NULL),
                      CL_SUCCESS);
            KT_CHECK(two[2].image_channel_order == 0xabababab, "wrote past num_entries");
            for (size_t c = 0; c < sizeof(all) / sizeof(all[0]); c++) {
                KT_CHECK(has_format(list, n, CL_RGBA, all[c]), "type 0x%x flags 0x%llx: RGBA 0x%x",
                         types[ti], (unsigned long long)flags[fi], all[c]);
                KT_CHECK(has_format(list, n, CL_R, all[c]), "type 0x%x flags 0x%llx: R 0x%x",
                         types[ti], (unsigned long long)flags[fi], all[c]);
            }
            KT_CHECK(has_format(list, n, CL_BGRA, CL_UNORM_INT8), "BGRA");
            const int depth_type =
                types[ti] == CL_MEM_OBJECT_IMAGE2D || types[ti] == CL_MEM_OBJECT_IMAGE2D_ARRAY;
            KT_CHECK(has_format(list, n, CL_DEPTH, CL_FLOAT) == depth_type,
                     "CL_DEPTH listed for type 0x%x: %d", types[ti], !depth_type);
            KT_CHECK(has_format(list, n, CL_sRGBA, CL_UNORM_INT8) ==
                         (flags[fi] == CL_MEM_READ_ONLY),
                     "sRGBA for flags 0x%llx", (unsigned long long)flags[fi]);
        }
    }
    cl_uint n = 5;
    KT_EXPECT(clGetSupportedImageFormats(NULL, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
              CL_INVALID_CONTEXT);
    KT_EXPECT(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_BUFFER, 0, NULL, &n),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetSupportedImageFormats(env->context, (cl_mem_flags)1 << 40, CL_MEM_OBJECT_IMAGE2D,
                                         0, NULL, &n),
              CL_INVALID_VALUE);
    cl_image_format one;
    KT_EXPECT(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_IMAGE2D, 0, &one, &n),
              CL_INVALID_VALUE);
    KT_CHECK(n == 5, "num_image_formats written on error");
}

static void test_reported(struct kt_env *env)
{
    cl_bool images = CL_FALSE;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
              CL_SUCCESS);
    KT_CHECK(images == CL_TRUE, "no CL_DEVICE_IMAGE_SUPPORT");
    static const struct {
        cl_device_info what;
        size_t least;
    } sizes[] = {
        {CL_DEVICE_IMAGE2D_MAX_WIDTH, 16384},     {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 16384},
        {CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048},      {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 2048},
        {CL_DEVICE_IMAGE3D_MAX_DEPTH, 2048},      {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048},
        {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t v = 0;
        KT_EXPECT(clGetDeviceInfo(env->device, sizes[i].what, sizeof(v), &v, NULL), CL_SUCCESS);
        KT_CHECK(v >= sizes[i].least, "query 0x%x: %zu < %zu", sizes[i].what, v, sizes[i].least);
    }
    static const struct {
        cl_device_info what;
        cl_uint least;
    } u32s[] = {
        {CL_DEVICE_MAX_READ_IMAGE_ARGS, 128},      {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64},
        {CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 64}, {CL_DEVICE_MAX_SAMPLERS, 16},
        {CL_DEVICE_IMAGE_PITCH_ALIGNMENT, 1},      {CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, 1},
    };
    for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
        cl_uint v = 0;
        KT_EXPECT(clGetDeviceInfo(env->device, u32s[i].what, sizeof(v), &v, NULL), CL_SUCCESS);
        KT_CHECK(v >= u32s[i].least, "query 0x%x: %u < %u", u32s[i].what, v, u32s[i].least);
    }
    KT_CHECK(kt_has_extension(env->device, "cl_khr_image2d_from_buffer"), "image2d_from_buffer");
    KT_CHECK(kt_has_extension(env->device, "cl_khr_depth_images"), "depth_images");
    KT_CHECK(kt_has_extension(env->device, "cl_khr_3d_image_writes"), "3d_image_writes");
    char features[4096] = "";
    cl_name_version list[64];
    size_t size = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, sizeof(list), list, &size),
              CL_SUCCESS);
    for (size_t i = 0; i < size / sizeof(list[0]); i++) {
        strcat(features, list[i].name);
        strcat(features, " ");
    }
    KT_CHECK(strstr(features, "__opencl_c_images ") &&
                 strstr(features, "__opencl_c_read_write_images ") &&
                 strstr(features, "__opencl_c_3d_image_writes "),
             "features: %s", features);
}

/* Every image type: its info, its memory object info, and a release. */
static void test_types(struct kt_env *env)
{
    static const struct {
        cl_mem_object_type t;
        size_t w, h, d, layers;
        size_t want_h, want_d, want_layers, want_slice; /* clGetImageInfo's answers */
    } cases[] = {
        {CL_MEM_OBJECT_IMAGE1D, 17, 0, 0, 0, 0, 0, 0, 0},
        {CL_MEM_OBJECT_IMAGE1D_ARRAY, 17, 0, 0, 5, 0, 0, 5, 17 * 4},
        {CL_MEM_OBJECT_IMAGE2D, 17, 9, 0, 0, 9, 0, 0, 0},
        {CL_MEM_OBJECT_IMAGE2D_ARRAY, 17, 9, 0, 3, 9, 0, 3, 17 * 4 * 9},
        {CL_MEM_OBJECT_IMAGE3D, 17, 9, 4, 0, 9, 4, 0, 17 * 4 * 9},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cl_int err;
        cl_image_desc d = desc_of(cases[i].t, cases[i].w, cases[i].h, cases[i].d, cases[i].layers);
        cl_mem m = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &d, NULL, &err);
        KT_CHECK(m && err == CL_SUCCESS, "type 0x%x: %d", cases[i].t, err);
        if (!m)
            continue;
        cl_image_format f = {0, 0};
        KT_EXPECT(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof(f), &f, NULL), CL_SUCCESS);
        KT_CHECK(f.image_channel_order == CL_RGBA && f.image_channel_data_type == CL_UNORM_INT8,
                 "format");
        KT_CHECK(image_size_info(m, CL_IMAGE_ELEMENT_SIZE) == 4, "element size");
        KT_CHECK(image_size_info(m, CL_IMAGE_WIDTH) == 17, "width");
        KT_CHECK(image_size_info(m, CL_IMAGE_HEIGHT) == cases[i].want_h, "type 0x%x height %zu",
                 cases[i].t, image_size_info(m, CL_IMAGE_HEIGHT));
        KT_CHECK(image_size_info(m, CL_IMAGE_DEPTH) == cases[i].want_d, "depth");
        KT_CHECK(image_size_info(m, CL_IMAGE_ARRAY_SIZE) == cases[i].want_layers, "array size");
        KT_CHECK(image_size_info(m, CL_IMAGE_ROW_PITCH) == 17 * 4, "row pitch");
        KT_CHECK(image_size_info(m, CL_IMAGE_SLICE_PITCH) == cases[i].want_slice,
                 "type 0x%x slice pitch %zu", cases[i].t, image_size_info(m, CL_IMAGE_SLICE_PITCH));
        cl_uint u = 9;
        KT_EXPECT(clGetImageInfo(m, CL_IMAGE_NUM_MIP_LEVELS, sizeof(u), &u, NULL), CL_SUCCESS);
        KT_CHECK(u == 0, "mip levels");
        u = 9;
        KT_EXPECT(clGetImageInfo(m, CL_IMAGE_NUM_SAMPLES, sizeof(u), &u, NULL), CL_SUCCESS);
        KT_CHECK(u == 0, "samples");
        cl_mem buf = (cl_mem)1;
        KT_EXPECT(clGetImageInfo(m, CL_IMAGE_BUFFER, sizeof(buf), &buf, NULL), CL_SUCCESS);
        KT_CHECK(buf == NULL, "CL_IMAGE_BUFFER of a plain image");
        cl_mem_object_type t = 0;
        KT_EXPECT(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof(t), &t, NULL), CL_SUCCESS);
        KT_CHECK(t == cases[i].t, "CL_MEM_TYPE 0x%x", t);
        size_t bytes = 0;
        KT_EXPECT(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(bytes), &bytes, NULL), CL_SUCCESS);
        KT_CHECK(bytes >= 17 * 4 * (cases[i].h ? cases[i].h : 1), "CL_MEM_SIZE %zu", bytes);
        /* Errors of the query: a short value, an unknown name, a buffer. */
        size_t small;
        KT_EXPECT(clGetImageInfo(m, CL_IMAGE_FORMAT, 2, &small, NULL), CL_INVALID_VALUE);
        KT_EXPECT(clGetImageInfo(m, 0x7777, sizeof(small), &small, NULL), CL_INVALID_VALUE);
        KT_EXPECT(clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof(small), &small, NULL),
                  CL_INVALID_MEM_OBJECT);
        KT_EXPECT(clReleaseMemObject(m), CL_SUCCESS);
    }
    /* The OpenCL 1.1 entry points. */
    cl_int err;
    cl_mem m2 = clCreateImage2D(env->context, 0, &rgba8, 8, 3, 0, NULL, &err);
    KT_CHECK(m2 && err == CL_SUCCESS && image_size_info(m2, CL_IMAGE_HEIGHT) == 3, "2D: %d", err);
    clReleaseMemObject(m2);
    cl_mem m3 = clCreateImage3D(env->context, 0, &rgba8, 8, 3, 2, 0, 0, NULL, &err);
    KT_CHECK(m3 && err == CL_SUCCESS && image_size_info(m3, CL_IMAGE_DEPTH) == 2, "3D: %d", err);
    clReleaseMemObject(m3);
    /* With (an empty list of) properties: CL_MEM_PROPERTIES gives the list back. */
    cl_mem_properties none = 0;
    cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    cl_mem mp = clCreateImageWithProperties(env->context, &none, 0, &rgba8, &d, NULL, &err);
    KT_CHECK(mp && err == CL_SUCCESS, "with properties: %d", err);
    size_t psize = 99;
    KT_EXPECT(clGetMemObjectInfo(mp, CL_MEM_PROPERTIES, 0, NULL, &psize), CL_SUCCESS);
    KT_CHECK(psize == sizeof(cl_mem_properties), "CL_MEM_PROPERTIES size %zu", psize);
    clReleaseMemObject(mp);
    cl_mem_properties bogus[] = {0x4242, 1, 0};
    err = 1;
    KT_CHECK(clCreateImageWithProperties(env->context, bogus, 0, &rgba8, &d, NULL, &err) == NULL &&
                 err == CL_INVALID_PROPERTY,
             "unknown property: %d", err);
}

/* USE_HOST_PTR in place with the application's pitches; COPY_HOST_PTR; ALLOC_HOST_PTR. */
static void test_host_ptr(struct kt_env *env)
{
    enum { W = 5, H = 3, ROW = 32 };
    uint32_t host[H * ROW / 4];
    for (size_t i = 0; i < sizeof(host) / 4; i++)
        host[i] = (uint32_t)i * 2654435761u;
    cl_int err;
    cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    d.image_row_pitch = ROW;
    cl_mem use = clCreateImage(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &d, host, &err);
    KT_REQUIRE(use && err == CL_SUCCESS, "USE_HOST_PTR: %d", err);
    KT_CHECK(image_size_info(use, CL_IMAGE_ROW_PITCH) == ROW, "USE_HOST_PTR keeps the row pitch");
    void *hp = NULL;
    KT_EXPECT(clGetMemObjectInfo(use, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL), CL_SUCCESS);
    KT_CHECK(hp == host, "CL_MEM_HOST_PTR %p, want %p", hp, (void *)host);
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1}, rp = 0;
    void *mapped = clEnqueueMapImage(env->queue, use, CL_TRUE, CL_MAP_READ, origin, region, &rp,
                                     NULL, 0, NULL, NULL, &err);
    KT_CHECK(mapped == host && rp == ROW && err == CL_SUCCESS,
             "mapping USE_HOST_PTR is in place: %p pitch %zu err %d", mapped, rp, err);
    if (mapped)
        KT_EXPECT(clEnqueueUnmapMemObject(env->queue, use, mapped, 0, NULL, NULL), CL_SUCCESS);

    cl_mem copy = clCreateImage(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &d, host, &err);
    KT_REQUIRE(copy && err == CL_SUCCESS, "COPY_HOST_PTR: %d", err);
    KT_CHECK(image_size_info(copy, CL_IMAGE_ROW_PITCH) == W * 4, "a copy is tightly packed");
    uint32_t back[W * H];
    KT_EXPECT(
        clEnqueueReadImage(env->queue, copy, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
        CL_SUCCESS);
    int same = 1;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++)
            same &= back[y * W + x] == host[y * ROW / 4 + x];
    KT_CHECK(same, "COPY_HOST_PTR read back the application's pixels");
    hp = (void *)1;
    KT_EXPECT(clGetMemObjectInfo(copy, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL), CL_SUCCESS);
    KT_CHECK(hp == NULL, "CL_MEM_HOST_PTR of a copy");

    cl_image_desc d0 = desc_of(CL_MEM_OBJECT_IMAGE2D, W, H, 0, 0);
    cl_mem alloc = clCreateImage(env->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_HOST_READ_ONLY,
                                 &rgba8, &d0, NULL, &err);
    KT_CHECK(alloc && err == CL_SUCCESS, "ALLOC_HOST_PTR: %d", err);
    KT_EXPECT(
        clEnqueueWriteImage(env->queue, alloc, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
        CL_INVALID_OPERATION); /* HOST_READ_ONLY */
    cl_mem_flags f = 0;
    KT_EXPECT(clGetMemObjectInfo(alloc, CL_MEM_FLAGS, sizeof(f), &f, NULL), CL_SUCCESS);
    KT_CHECK(f == (CL_MEM_ALLOC_HOST_PTR | CL_MEM_HOST_READ_ONLY | CL_MEM_READ_WRITE),
             "flags 0x%llx", (unsigned long long)f);
    clReleaseMemObject(alloc);
    clReleaseMemObject(copy);
    clReleaseMemObject(use);
}

/* 1D image buffers and 2D images from buffers share the buffer; 2D images from images. */
static void test_from_buffer(struct kt_env *env)
{
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_ONLY, 4096, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 1024, 0, 0, 0);
    d.mem_object = buf;
    cl_mem img = clCreateImage(env->context, 0, &rgba8, &d, NULL, &err);
    KT_REQUIRE(img && err == CL_SUCCESS, "1D image buffer: %d", err);
    cl_mem assoc = NULL, ib = NULL;
    KT_EXPECT(clGetMemObjectInfo(img, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL),
              CL_SUCCESS);
    KT_EXPECT(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof(ib), &ib, NULL), CL_SUCCESS);
    KT_CHECK(assoc == buf && ib == buf, "associated %p, CL_IMAGE_BUFFER %p, want %p", (void *)assoc,
             (void *)ib, (void *)buf);
    cl_mem_flags f = 0;
    KT_EXPECT(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof(f), &f, NULL), CL_SUCCESS);
    KT_CHECK(f == CL_MEM_READ_ONLY, "inherited flags 0x%llx", (unsigned long long)f);
    /* The image holds the buffer: a write through the buffer is seen through the image. */
    cl_uint refs = 0;
    KT_EXPECT(clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS);
    KT_CHECK(refs >= 1, "refs");
    uint32_t px = 0x01020304;
    KT_EXPECT(clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, 40, 4, &px, 0, NULL, NULL),
              CL_SUCCESS);
    size_t origin[3] = {10, 0, 0}, region[3] = {1, 1, 1};
    uint32_t got = 0;
    KT_EXPECT(
        clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, 0, 0, &got, 0, NULL, NULL),
        CL_SUCCESS);
    KT_CHECK(got == px, "the image shares the buffer's bytes: %08x", got);
    /* Errors: flags wider than the buffer's, too many pixels, host pointer flags. */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_READ_WRITE, &rgba8, &d, NULL, CL_INVALID_VALUE);
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &d, &px, CL_INVALID_VALUE);
    d.image_width = 1025;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d, NULL, CL_INVALID_IMAGE_SIZE);
    d.image_width = 1024;
    cl_image_desc no_buf = desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &no_buf, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    /* Releasing the buffer first: the image keeps its storage alive. */
    clReleaseMemObject(buf);
    KT_EXPECT(
        clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, 0, 0, &got, 0, NULL, NULL),
        CL_SUCCESS);
    KT_CHECK(got == px, "after the buffer's release: %08x", got);
    clReleaseMemObject(img);

    /* 2D from a buffer, with a row pitch; then a 2D image from that image. */
    cl_mem buf2 = clCreateBuffer(env->context, 0, 64 * 8, NULL, &err);
    KT_REQUIRE_OK(err);
    cl_image_desc d2 = desc_of(CL_MEM_OBJECT_IMAGE2D, 10, 8, 0, 0);
    d2.image_row_pitch = 64;
    d2.mem_object = buf2;
    cl_mem i2 = clCreateImage(env->context, 0, &rgba8, &d2, NULL, &err);
    KT_REQUIRE(i2 && err == CL_SUCCESS, "2D from buffer: %d", err);
    KT_CHECK(image_size_info(i2, CL_IMAGE_ROW_PITCH) == 64, "row pitch of a 2D from buffer");
    d2.image_row_pitch = 65; /* not a multiple of the pixel */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d2, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d2.image_row_pitch = 36; /* less than width * 4 */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d2, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    d2.image_row_pitch = 68; /* 68 * 8 > 512 bytes */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d2, NULL, CL_INVALID_IMAGE_SIZE);

    const cl_image_format srgba = {CL_sRGBA, CL_UNORM_INT8};
    cl_image_desc d3 = desc_of(CL_MEM_OBJECT_IMAGE2D, 10, 8, 0, 0);
    d3.mem_object = i2;
    cl_mem i3 = clCreateImage(env->context, CL_MEM_READ_ONLY, &srgba, &d3, NULL, &err);
    KT_CHECK(i3 && err == CL_SUCCESS, "sRGBA view of an RGBA image: %d", err);
    assoc = NULL;
    KT_EXPECT(clGetMemObjectInfo(i3, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL),
              CL_SUCCESS);
    KT_CHECK(assoc == i2, "a view's associated object is the image");
    KT_CHECK(image_size_info(i3, CL_IMAGE_ROW_PITCH) == 64, "a view keeps the row pitch");
    const cl_image_format bgra = {CL_BGRA, CL_UNORM_INT8};
    EXPECT_IMAGE_FAILS(env->context, 0, &bgra, &d3, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    d3.image_width = 9;
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_READ_ONLY, &srgba, &d3, NULL,
                       CL_INVALID_IMAGE_DESCRIPTOR);
    clReleaseMemObject(i3);
    clReleaseMemObject(i2);
    clReleaseMemObject(buf2);

    /* A 2D image over a USE_HOST_PTR buffer inherits the flag, with a NULL host_ptr given;
     * its pixels are the application's memory. */
    static uint32_t host[16 * 4];
    cl_mem ubuf = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, sizeof(host), host, &err);
    KT_REQUIRE_OK(err);
    cl_image_desc d4 = desc_of(CL_MEM_OBJECT_IMAGE2D, 16, 4, 0, 0);
    d4.mem_object = ubuf;
    cl_mem i4 = clCreateImage(env->context, CL_MEM_READ_ONLY, &rgba8, &d4, NULL, &err);
    KT_CHECK(i4 && err == CL_SUCCESS, "2D image over a USE_HOST_PTR buffer: %d", err);
    f = 0;
    if (i4)
        KT_EXPECT(clGetMemObjectInfo(i4, CL_MEM_FLAGS, sizeof(f), &f, NULL), CL_SUCCESS);
    KT_CHECK(f == (CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR), "inherited flags 0x%llx",
             (unsigned long long)f);
    host[3 * 16 + 5] = 0xa1b2c3d4;
    size_t o4[3] = {5, 3, 0};
    got = 0;
    if (i4)
        KT_EXPECT(
            clEnqueueReadImage(env->queue, i4, CL_TRUE, o4, region, 0, 0, &got, 0, NULL, NULL),
            CL_SUCCESS);
    KT_CHECK(got == 0xa1b2c3d4, "the image reads the application's memory: %08x", got);
    if (i4)
        clReleaseMemObject(i4);
    clReleaseMemObject(ubuf);
}

/* Every error of clCreateImage, in the specification's order, and the outputs untouched. */
static void test_errors(struct kt_env *env)
{
    cl_int err;
    cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    EXPECT_IMAGE_FAILS(NULL, 0, &rgba8, &d, NULL, CL_INVALID_CONTEXT);
    EXPECT_IMAGE_FAILS((cl_context)env->queue, 0, &rgba8, &d, NULL, CL_INVALID_CONTEXT);
    /* Flags. */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, &d, NULL,
                       CL_INVALID_VALUE);
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, &rgba8, &d,
                       NULL, CL_INVALID_VALUE);
    EXPECT_IMAGE_FAILS(env->context, (cl_mem_flags)1 << 40, &rgba8, &d, NULL, CL_INVALID_VALUE);
    /* Formats: none, an unknown pairing, a valid pairing Kiln lacks. */
    EXPECT_IMAGE_FAILS(env->context, 0, NULL, &d, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    const cl_image_format bad = {CL_RGB, CL_UNORM_INT8};
    EXPECT_IMAGE_FAILS(env->context, 0, &bad, &d, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    const cl_image_format junk = {0x1234, CL_FLOAT};
    EXPECT_IMAGE_FAILS(env->context, 0, &junk, &d, NULL, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    const cl_image_format argb = {CL_ARGB, CL_UNORM_INT8};
    EXPECT_IMAGE_FAILS(env->context, 0, &argb, &d, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    const cl_image_format depth = {CL_DEPTH, CL_FLOAT};
    cl_image_desc d3 = desc_of(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &depth, &d3, NULL, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    const cl_image_format srgba = {CL_sRGBA, CL_UNORM_INT8};
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_WRITE_ONLY, &srgba, &d, NULL,
                       CL_IMAGE_FORMAT_NOT_SUPPORTED);
    /* Descriptors. */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, NULL, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_image_desc e = d;
    e.image_type = CL_MEM_OBJECT_BUFFER;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = d;
    e.image_width = 0;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = d;
    e.image_height = 0;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = d;
    e.num_mip_levels = 1;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = d;
    e.num_samples = 2;
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    e = d;
    e.image_row_pitch = 64; /* a pitch without host_ptr */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    uint32_t host[64 * 64];
    e.image_row_pitch = 12; /* less than 4 pixels */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &e, host,
                       CL_INVALID_IMAGE_DESCRIPTOR);
    e.image_row_pitch = 18; /* not a whole number of pixels */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &e, host,
                       CL_INVALID_IMAGE_DESCRIPTOR);
    e = d3;
    e.image_row_pitch = 16;
    e.image_slice_pitch = 48; /* less than 4 rows */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &e, host,
                       CL_INVALID_IMAGE_DESCRIPTOR);
    e = desc_of(CL_MEM_OBJECT_IMAGE1D, 4, 0, 0, 0);
    cl_mem buf = clCreateBuffer(env->context, 0, 64, NULL, &err);
    KT_REQUIRE_OK(err);
    e.mem_object = buf; /* only 1D buffers and 2D images take one */
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_DESCRIPTOR);
    clReleaseMemObject(buf);
    /* Sizes. */
    e = desc_of(CL_MEM_OBJECT_IMAGE2D, 16385, 1, 0, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_SIZE);
    e = desc_of(CL_MEM_OBJECT_IMAGE3D, 4, 4, 2049, 0);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_SIZE);
    e = desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 2049);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &e, NULL, CL_INVALID_IMAGE_SIZE);
    /* Host pointers. */
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &d, NULL, CL_INVALID_HOST_PTR);
    EXPECT_IMAGE_FAILS(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &d, NULL, CL_INVALID_HOST_PTR);
    EXPECT_IMAGE_FAILS(env->context, 0, &rgba8, &d, host, CL_INVALID_HOST_PTR);
    /* A NULL errcode_ret is allowed. */
    KT_CHECK(clCreateImage(NULL, 0, &rgba8, &d, NULL, NULL) == NULL, "NULL errcode_ret");
}

int main(int argc, char **argv)
{
    const int on = argc > 1 && strcmp(argv[1], "on") == 0;
    struct kt_env env;
    kt_setup(&env, 0);
    if (on) {
        test_reported(&env);
        test_formats(&env);
        test_types(&env);
        test_host_ptr(&env);
        test_from_buffer(&env);
        test_errors(&env);
    } else {
        test_off(&env);
    }
    kt_teardown(&env);
    return kt_finish(on ? "api/images" : "api/images-off");
}
