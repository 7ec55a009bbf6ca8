/*
 * Images and samplers as kernel arguments (OpenCL 3.0 §5.9.2, clSetKernelArg and
 * clGetKernelArgInfo; §5.10, the launch):
 *
 *  - every image argument type against an image of every type, a generated table: an image
 *    of the argument's type is taken, every other one is CL_INVALID_MEM_OBJECT (a CL_DEPTH
 *    image only for the depth types), as are a buffer, a sampler, NULL and a pointer to NULL;
 *    a wrong size is CL_INVALID_ARG_SIZE, an image of another context CL_INVALID_CONTEXT;
 *  - access: a CL_MEM_WRITE_ONLY image for a read_only argument and a CL_MEM_READ_ONLY one
 *    for a write_only argument are CL_INVALID_ARG_VALUE; read_write arguments take both;
 *  - sampler_t arguments: CL_INVALID_SAMPLER for NULL, a pointer to NULL or another object,
 *    CL_INVALID_ARG_SIZE, CL_INVALID_CONTEXT for a sampler of another context;
 *  - clGetKernelArgInfo: access, address and type qualifiers and type names of image,
 *    sampler and buffer arguments;
 *  - launches: a kernel receives each image argument as the image's descriptor (its type
 *    and sizes, read from the struct kiln_image of include/kiln_image.h) and each sampler
 *    as its bits, for sampler objects of every mode (also after the application released
 *    the object), program-scope samplers, sampler variables and literals;
 *  - the argument limits: 16 samplers and 64 write_only or read_write images launch, one
 *    more is CL_OUT_OF_RESOURCES at enqueue.
 *
 * A kernel cannot look at a sampler's bits or an image's pointer in OpenCL C, so the kernels
 * call a function declared with those types under an asm label that names a function taking
 * the pointer-sized value (noinline, so the two signatures never meet in one body).
 */
#include "kiln_test.h"
#include "kiln_image.h"

#include <stdbool.h>
#include <stdint.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The image argument types, the object type each takes, whether it is a depth type, and a
 * read of it that OpenCL C accepts (so each kernel uses its argument). */
static const struct {
    const char *name;
    cl_mem_object_type type;
    bool depth;
} arg_types[] = {
    {"image1d_t", CL_MEM_OBJECT_IMAGE1D, false},
    {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER, false},
    {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY, false},
    {"image2d_t", CL_MEM_OBJECT_IMAGE2D, false},
    {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, false},
    {"image3d_t", CL_MEM_OBJECT_IMAGE3D, false},
    {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D, true},
    {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, true},
};
#define NTYPES COUNT(arg_types)

/* One image of every argument type, 5 x 3 x 2 (unused dimensions 1), layers 4. */
struct images {
    cl_mem buffer; /* behind the 1D image buffer */
    cl_mem img[NTYPES];
};

static cl_mem make_image(struct kt_env *env, cl_context ctx, cl_mem_object_type type, bool depth,
                         cl_mem_flags flags, cl_mem buffer)
{
    cl_image_format fmt = {depth ? CL_DEPTH : CL_RGBA, depth ? CL_FLOAT : CL_UNORM_INT8};
    cl_image_desc desc = {.image_type = type, .image_width = 5};
    if (type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER &&
        type != CL_MEM_OBJECT_IMAGE1D_ARRAY)
        desc.image_height = 3;
    if (type == CL_MEM_OBJECT_IMAGE3D)
        desc.image_depth = 2;
    if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        desc.image_array_size = 4;
    desc.buffer = buffer;
    cl_int err = 1;
    cl_mem m = clCreateImage(ctx, flags, &fmt, &desc, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS && m, "clCreateImage type 0x%x%s: %d", type,
               depth ? " CL_DEPTH" : "", err);
    (void)env;
    return m;
}

static void make_images(struct kt_env *env, cl_context ctx, cl_mem_flags flags, struct images *im)
{
    cl_int err = 1;
    im->buffer = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 5 * 4, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    for (size_t t = 0; t < NTYPES; t++)
        im->img[t] =
            make_image(env, ctx, arg_types[t].type, arg_types[t].depth, flags,
                       arg_types[t].type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? im->buffer : NULL);
}

static void free_images(struct images *im)
{
    for (size_t t = 0; t < NTYPES; t++)
        KT_EXPECT(clReleaseMemObject(im->img[t]), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(im->buffer), CL_SUCCESS);
}

/*
 * The kernel source: per image type T a kernel desc_T(global int *out, read_only T img)
 * writing the descriptor's type, order, width, height, depth and array size, and the
 * sampler kernel. The descriptor's fields are read at the offsets of struct kiln_image
 * (checked against the header in main).
 */
static char *kernels_src(void)
{
    static const char head[] =
        "ulong sampler_bits(sampler_t s) __asm(\"kiln_test_identity\");\n"
        "ulong kiln_test_identity_impl(ulong x) __asm(\"kiln_test_identity\");\n"
        "__attribute__((noinline)) ulong kiln_test_identity_impl(ulong x) { return x; }\n"
        "__attribute__((noinline)) void kiln_test_desc_impl(global const uint *d, global int *o)\n"
        "    __asm(\"kiln_test_desc\");\n"
        "__attribute__((noinline)) void kiln_test_desc_impl(global const uint *d, global int *o)\n"
        "{ o[0] = d[2]; o[1] = d[3]; o[2] = d[7]; o[3] = d[8]; o[4] = d[9]; o[5] = d[10]; }\n"
        "constant sampler_t program_sampler =\n"
        "    CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
        "kernel void samplers(global ulong *o, sampler_t a) {\n"
        "  size_t i = get_global_id(0);\n"
        "  const sampler_t local_sampler = CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
        "  o[4 * i] = sampler_bits(a);\n"
        "  o[4 * i + 1] = sampler_bits(program_sampler);\n"
        "  o[4 * i + 2] = sampler_bits(local_sampler);\n"
        "  o[4 * i + 3] = sampler_bits(CLK_NORMALIZED_COORDS_TRUE |\n"
        "                              CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST);\n"
        "}\n"
        "kernel void access(read_only image2d_t r, write_only image2d_t w, read_write image2d_t "
        "rw,\n"
        "                   sampler_t s, global float *b) { }\n";
    size_t cap = sizeof(head) + NTYPES * 256;
    char *src = malloc(cap);
    KT_REQUIRE(src, "out of memory");
    size_t at = (size_t)snprintf(src, cap, "%s", head);
    for (size_t t = 0; t < NTYPES; t++)
        at += (size_t)snprintf(
            src + at, cap - at,
            "void desc_%s(read_only %s img, global int *o) __asm(\"kiln_test_desc\");\n"
            "kernel void k_%s(read_only %s img, global int *o) { desc_%s(img, o); }\n",
            arg_types[t].name, arg_types[t].name, arg_types[t].name, arg_types[t].name,
            arg_types[t].name);
    return src;
}

static cl_kernel kernel(cl_program p, const char *name)
{
    cl_int err = 1;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    return k;
}

/* Every image argument type against every image, and the other wrong values. */
static void test_image_types(struct kt_env *env, cl_program p, const struct images *im)
{
    cl_int err = 1;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_sampler s =
        clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateSampler: %d", err);
    for (size_t a = 0; a < NTYPES; a++) {
        char name[64];
        snprintf(name, sizeof(name), "k_%s", arg_types[a].name);
        cl_kernel k = kernel(p, name);
        for (size_t t = 0; t < NTYPES; t++) {
            bool fits =
                arg_types[t].type == arg_types[a].type && arg_types[t].depth == arg_types[a].depth;
            cl_int got = clSetKernelArg(k, 0, sizeof(cl_mem), &im->img[t]);
            KT_CHECK(got == (fits ? CL_SUCCESS : CL_INVALID_MEM_OBJECT),
                     "%s given an image made as %s: %d", arg_types[a].name, arg_types[t].name, got);
        }
        cl_mem null_mem = NULL;
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_MEM_OBJECT);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &null_mem), CL_INVALID_MEM_OBJECT);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_INVALID_MEM_OBJECT);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &s), CL_INVALID_MEM_OBJECT);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem) / 2, &im->img[a]), CL_INVALID_ARG_SIZE);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem) * 2, &im->img[a]), CL_INVALID_ARG_SIZE);
        /* An image given to a buffer argument is refused too (the existing buffer check). */
        cl_int got = clSetKernelArg(k, 1, sizeof(cl_mem), &im->img[a]);
        KT_CHECK(got != CL_SUCCESS, "an image for a global int * argument: %d", got);
        KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    }
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
}

/* Access qualifiers against the image's flags, and objects of another context. */
static void test_access(struct kt_env *env, cl_program p)
{
    cl_kernel k = kernel(p, "access");
    cl_mem ro = make_image(env, env->context, CL_MEM_OBJECT_IMAGE2D, false, CL_MEM_READ_ONLY, NULL);
    cl_mem wo =
        make_image(env, env->context, CL_MEM_OBJECT_IMAGE2D, false, CL_MEM_WRITE_ONLY, NULL);
    cl_mem rw =
        make_image(env, env->context, CL_MEM_OBJECT_IMAGE2D, false, CL_MEM_READ_WRITE, NULL);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &ro), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &rw), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &wo), CL_INVALID_ARG_VALUE);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &wo), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &rw), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &ro), CL_INVALID_ARG_VALUE);
    /* §5.9.2 names no error for read_write arguments: any image of the type is taken. */
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &ro), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &wo), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &rw), CL_SUCCESS);

    /* Samplers. */
    cl_int err = 1;
    cl_sampler s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateSampler: %d", err);
    cl_sampler null_sampler = NULL;
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), &s), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), NULL), CL_INVALID_SAMPLER);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), &null_sampler), CL_INVALID_SAMPLER);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), &ro), CL_INVALID_SAMPLER);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), &env->context), CL_INVALID_SAMPLER);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler) * 2, &s), CL_INVALID_ARG_SIZE);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler) / 2, &s), CL_INVALID_ARG_SIZE);
    /* A sampler for an image argument and an image for a buffer argument. */
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &s), CL_INVALID_MEM_OBJECT);

    /* Objects of another context. */
    cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_mem foreign = make_image(env, other, CL_MEM_OBJECT_IMAGE2D, false, CL_MEM_READ_WRITE, NULL);
    cl_sampler foreign_s =
        clCreateSampler(other, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateSampler: %d", err);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(cl_mem), &foreign), CL_INVALID_CONTEXT);
    KT_EXPECT(clSetKernelArg(k, 3, sizeof(cl_sampler), &foreign_s), CL_INVALID_CONTEXT);
    KT_EXPECT(clReleaseSampler(foreign_s), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(foreign), CL_SUCCESS);
    KT_EXPECT(clReleaseContext(other), CL_SUCCESS);

    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(ro), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(wo), CL_SUCCESS);
    KT_EXPECT(clReleaseMemObject(rw), CL_SUCCESS);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
}

static void test_arg_info(cl_program p)
{
    cl_kernel k = kernel(p, "access");
    static const struct {
        cl_kernel_arg_access_qualifier access;
        cl_kernel_arg_address_qualifier address;
        const char *type;
    } want[] = {
        {CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL, "image2d_t"},
        {CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL, "image2d_t"},
        {CL_KERNEL_ARG_ACCESS_READ_WRITE, CL_KERNEL_ARG_ADDRESS_GLOBAL, "image2d_t"},
        {CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_PRIVATE, "sampler_t"},
        {CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*"},
    };
    for (cl_uint i = 0; i < COUNT(want); i++) {
        cl_kernel_arg_access_qualifier access = 0;
        cl_kernel_arg_address_qualifier address = 0;
        cl_kernel_arg_type_qualifier tq = 99;
        char type[64] = "";
        KT_EXPECT(
            clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(access), &access, NULL),
            CL_SUCCESS);
        KT_CHECK(access == want[i].access, "argument %u: access 0x%x, want 0x%x", i, access,
                 want[i].access);
        KT_EXPECT(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(address),
                                     &address, NULL),
                  CL_SUCCESS);
        KT_CHECK(address == want[i].address, "argument %u: address 0x%x, want 0x%x", i, address,
                 want[i].address);
        KT_EXPECT(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(type), type, NULL),
                  CL_SUCCESS);
        KT_CHECK(strcmp(type, want[i].type) == 0, "argument %u: type %s, want %s", i, type,
                 want[i].type);
        KT_EXPECT(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL),
                  CL_SUCCESS);
        KT_CHECK(tq == CL_KERNEL_ARG_TYPE_NONE, "argument %u: type qualifier 0x%llx", i,
                 (unsigned long long)tq);
    }
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
}

/* Each image argument reaches the kernel as the image's descriptor. */
static void test_descriptors(struct kt_env *env, cl_program p, const struct images *im)
{
    cl_int err = 1;
    cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 6 * sizeof(cl_int), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    for (size_t t = 0; t < NTYPES; t++) {
        char name[64];
        snprintf(name, sizeof(name), "k_%s", arg_types[t].name);
        cl_kernel k = kernel(p, name);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &im->img[t]), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_mem), &out), CL_SUCCESS);
        const cl_int fill = -1;
        KT_EXPECT(clEnqueueFillBuffer(env->queue, out, &fill, sizeof(fill), 0, 6 * sizeof(cl_int),
                                      0, NULL, NULL),
                  CL_SUCCESS);
        size_t one = 1;
        KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        cl_int got[6];
        KT_EXPECT(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                  CL_SUCCESS);
        cl_mem_object_type type = arg_types[t].type;
        bool one_d = type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                     type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
        bool array = type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
        const cl_int want[6] = {
            (cl_int)type,  arg_types[t].depth ? CL_DEPTH : CL_RGBA, 5,
            one_d ? 1 : 3, type == CL_MEM_OBJECT_IMAGE3D ? 2 : 1,   array ? 4 : 1};
        KT_CHECK(memcmp(got, want, sizeof(want)) == 0,
                 "%s: the kernel saw type 0x%x order 0x%x %d x %d x %d, %d layers", name, got[0],
                 got[1], got[2], got[3], got[4], got[5]);
        KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
    }
    KT_EXPECT(clReleaseMemObject(out), CL_SUCCESS);
}

static uint32_t bits_of(cl_bool norm, cl_addressing_mode addr, cl_filter_mode filter)
{
    static const uint32_t addr_bits[] = {KILN_SAMPLER_ADDRESS_NONE, KILN_SAMPLER_ADDRESS_CLAMP_EDGE,
                                         KILN_SAMPLER_ADDRESS_CLAMP, KILN_SAMPLER_ADDRESS_REPEAT,
                                         KILN_SAMPLER_ADDRESS_MIRRORED};
    return (norm ? KILN_SAMPLER_NORMALIZED_COORDS : 0) | addr_bits[addr - CL_ADDRESS_NONE] |
           (filter == CL_FILTER_LINEAR ? KILN_SAMPLER_FILTER_LINEAR : KILN_SAMPLER_FILTER_NEAREST);
}

/* Sampler objects of every mode, and samplers written in the source, reach the kernel as
 * their bits (the CLK_* values). */
static void test_sampler_bits(struct kt_env *env, cl_program p)
{
    enum { N = 37 }; /* work-items: a partial vector and more than one group's worth */
    cl_int err = 1;
    cl_kernel k = kernel(p, "samplers");
    cl_mem out =
        clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4 * N * sizeof(cl_ulong), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(cl_mem), &out), CL_SUCCESS);
    for (cl_uint norm = 0; norm < 2; norm++)
        for (cl_addressing_mode addr = CL_ADDRESS_NONE; addr <= CL_ADDRESS_MIRRORED_REPEAT; addr++)
            for (cl_filter_mode f = CL_FILTER_NEAREST; f <= CL_FILTER_LINEAR; f++) {
                cl_sampler s = clCreateSampler(env->context, norm, addr, f, &err);
                KT_REQUIRE(err == CL_SUCCESS, "clCreateSampler: %d", err);
                KT_EXPECT(clSetKernelArg(k, 1, sizeof(cl_sampler), &s), CL_SUCCESS);
                /* The argument keeps the sampler's bits, not the object (§5.9.2). */
                KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
                size_t global = N;
                KT_EXPECT(
                    clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
                    CL_SUCCESS);
                cl_ulong got[4 * N];
                KT_EXPECT(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got), got, 0,
                                              NULL, NULL),
                          CL_SUCCESS);
                const cl_ulong want[4] = {
                    bits_of(norm, addr, f),
                    bits_of(CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR),
                    bits_of(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
                    bits_of(CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST),
                };
                for (int i = 0; i < N; i++)
                    KT_CHECK(memcmp(&got[4 * i], want, sizeof(want)) == 0,
                             "sampler (%u, 0x%x, 0x%x), work-item %d: bits 0x%llx 0x%llx 0x%llx "
                             "0x%llx, want 0x%llx 0x%llx 0x%llx 0x%llx",
                             norm, addr, f, i, (unsigned long long)got[4 * i],
                             (unsigned long long)got[4 * i + 1], (unsigned long long)got[4 * i + 2],
                             (unsigned long long)got[4 * i + 3], (unsigned long long)want[0],
                             (unsigned long long)want[1], (unsigned long long)want[2],
                             (unsigned long long)want[3]);
            }
    KT_EXPECT(clReleaseMemObject(out), CL_SUCCESS);
    KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
}

/*
 * A kernel of `n` arguments "QUAL TYPE aI" launched with `value` for each: CL_SUCCESS at the
 * device's limit, CL_OUT_OF_RESOURCES above it (§5.10).
 */
static void check_limit(struct kt_env *env, const char *decl, cl_uint limit, size_t size,
                        const void *value)
{
    for (cl_uint n = limit; n <= limit + 1; n++) {
        size_t cap = 64 + (size_t)n * 48;
        char *src = malloc(cap);
        KT_REQUIRE(src, "out of memory");
        size_t at = (size_t)snprintf(src, cap, "kernel void many(");
        for (cl_uint i = 0; i < n; i++)
            at += (size_t)snprintf(src + at, cap - at, "%s%s a%u", i ? ", " : "", decl, i);
        snprintf(src + at, cap - at, ") { }\n");
        cl_program p = kt_build(env, src, "-cl-std=CL3.0");
        free(src);
        cl_kernel k = kernel(p, "many");
        for (cl_uint i = 0; i < n; i++)
            KT_EXPECT(clSetKernelArg(k, i, size, value), CL_SUCCESS);
        size_t one = 1;
        cl_int got = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL);
        KT_CHECK(got == (n <= limit ? CL_SUCCESS : CL_OUT_OF_RESOURCES),
                 "%u arguments \"%s\" (limit %u): %d", n, decl, limit, got);
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        KT_EXPECT(clReleaseKernel(k), CL_SUCCESS);
        KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    }
}

static void test_limits(struct kt_env *env)
{
    cl_uint samplers = 0, writes = 0, read_writes = 0;
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_SAMPLERS, sizeof(samplers), &samplers, NULL),
        CL_SUCCESS);
    KT_EXPECT(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_WRITE_IMAGE_ARGS, sizeof(writes), &writes, NULL),
        CL_SUCCESS);
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, sizeof(read_writes),
                              &read_writes, NULL),
              CL_SUCCESS);
    KT_REQUIRE(samplers >= 16 && writes >= 64 && read_writes >= 64,
               "limits below the full profile's: %u samplers, %u write, %u read-write images",
               samplers, writes, read_writes);
    cl_int err = 1;
    cl_sampler s =
        clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateSampler: %d", err);
    cl_mem img =
        make_image(env, env->context, CL_MEM_OBJECT_IMAGE2D, false, CL_MEM_READ_WRITE, NULL);
    check_limit(env, "sampler_t", samplers, sizeof(s), &s);
    check_limit(env, "write_only image2d_t", writes, sizeof(img), &img);
    check_limit(env, "read_write image2d_t", read_writes, sizeof(img), &img);
    KT_EXPECT(clReleaseMemObject(img), CL_SUCCESS);
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
}

int main(void)
{
    /* The kernels read the descriptor as 32-bit words at these offsets. */
    KT_REQUIRE(offsetof(struct kiln_image, type) == 8 && offsetof(struct kiln_image, order) == 12 &&
                   offsetof(struct kiln_image, width) == 28 &&
                   offsetof(struct kiln_image, height) == 32 &&
                   offsetof(struct kiln_image, depth) == 36 &&
                   offsetof(struct kiln_image, array_size) == 40,
               "struct kiln_image moved: update kiln_test_desc_impl");
    struct kt_env env;
    kt_setup(&env, 0);
    kt_require_images(env.device);
    char *src = kernels_src();
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0 -cl-kernel-arg-info");
    free(src);
    struct images im;
    make_images(&env, env.context, CL_MEM_READ_WRITE, &im);
    test_image_types(&env, p, &im);
    test_access(&env, p);
    test_arg_info(p);
    test_descriptors(&env, p, &im);
    test_sampler_bits(&env, p);
    test_limits(&env);
    free_images(&im);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("image_args");
}
