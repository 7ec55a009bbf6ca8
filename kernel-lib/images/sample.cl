/*
 * Sampled image reads (OpenCL C 3.0 §6.15.15.3, "Built-in Image Read Functions"):
 * read_imagef, read_imagei, read_imageui and read_imageh with a sampler, with int
 * and float coordinates, for read_only image1d_t, image1d_array_t, image2d_t,
 * image2d_array_t, image3d_t (and read_imagef for image2d_depth_t and
 * image2d_array_depth_t). OpenCL C allows no sampler with read_write images
 * (without cl_khr_mipmap_image) nor with image1d_buffer_t, so those have none.
 *
 * The addressing and filtering follow the OpenCL C specification's chapter "Image
 * Addressing and Filtering" (docs/kernel-lib.md, "Sampled image reads", says where
 * the code departs from its formulas and why). The texels themselves, converted,
 * channel-mapped and sRGB-decoded, come from kiln_texel_f/i/ui (images/
 * kiln_image_lib.h) at in-range coordinates; this file only chooses which texels
 * and how to weigh them.
 *
 * A sampler_t is its bits as a pointer value (include/kiln_image.h). Every function
 * here is inlined, so where the sampler is a constant (a literal, a program-scope
 * sampler) its bits fold and only the code of its one addressing and filter mode
 * remains: a read with a constant NEAREST, CLAMP_TO_EDGE sampler is a few min/max
 * and a texel load.
 */
#include "kiln_image_lib.h"
#include "kiln_lib.h"

#include "kiln_image.h"

#define KILN_SAMPLE static inline __attribute__((always_inline))

/*
 * The bits of a sampler. sampler_t cannot be cast in OpenCL C, so the declaration
 * taking a sampler_t and the definition taking a __constant pointer share one symbol
 * name: in LLVM both are a `ptr addrspace(2)`, and the call folds after inlining.
 */
uint kiln_sampler_bits(sampler_t s) __asm("kiln.sampler.bits");
uint kiln_sampler_bits_of(__constant void *s) __asm("kiln.sampler.bits");
uint kiln_sampler_bits_of(__constant void *s)
{
    return (uint)(ulong)s;
}

/*
 * The sample locations along one axis of `size` texels for coordinate s, and the
 * weight of the second (linear filtering). i0 (and i1) always lie inside the image,
 * so the texel reads are safe whatever the coordinate; in0 (in1) says whether the
 * location the specification computes lies inside, which only CLK_ADDRESS_CLAMP
 * turns into the border colour.
 */
struct kiln_axis {
    int i0, i1;
    int in0, in1;
    float a;
};

/* The three axes of a read: x, y and z as kiln_texel_* take them. */
struct kiln_axes {
    struct kiln_axis x, y, z;
};

/*
 * Non-repeating modes: the specification's address_mode() on floor(u) (NEAREST) or
 * floor(u - 0.5) and its successor (LINEAR). u is first clamped to [-1, size + 1]:
 * beyond that range every location the formulas give is outside the image on the
 * same side, so CLAMP_TO_EDGE and CLAMP read the same texels, and the clamp keeps
 * infinities and huge values from overflowing the int conversion; fmax() turns a NaN
 * into -1 (the specification leaves NaN and INF coordinates undefined). NONE (the
 * programmer promises in-range coordinates) clamps to the edge like CLAMP_TO_EDGE, so
 * that a broken promise never reads outside the image.
 */
KILN_SAMPLE struct kiln_axis kiln_axis_clamp(float u, int size, bool linear)
{
    struct kiln_axis r;
    float fsize = (float)size;
    u = fmin(fmax(u, -1.0f), fsize + 1.0f);
    float base = linear ? u - 0.5f : u;
    float f = floor(base);
    int i = (int)f;
    r.a = linear ? base - f : 0.0f;
    r.in0 = i >= 0 && i < size;
    r.in1 = i + 1 >= 0 && i + 1 < size;
    r.i0 = clamp(i, 0, size - 1);
    r.i1 = clamp(i + 1, 0, size - 1);
    return r;
}

/*
 * CLK_ADDRESS_REPEAT with normalised coordinates, as the specification writes it:
 * u = (s - floor(s)) * size, then the locations wrapped by one period. s - floor(s)
 * is clamped to [0, 1] (fmax() takes NaN, from a NaN or infinite s, to 0); the clamp
 * of the indices changes nothing for a finite s and keeps the reads inside.
 */
KILN_SAMPLE struct kiln_axis kiln_axis_repeat(float s, int size, bool linear)
{
    struct kiln_axis r;
    float u = fmin(fmax(s - floor(s), 0.0f), 1.0f) * (float)size;
    float base = linear ? u - 0.5f : u;
    float f = floor(base);
    int i0 = (int)f;
    int i1 = i0 + 1;
    i0 = i0 < 0 ? i0 + size : i0;
    i0 = i0 > size - 1 ? i0 - size : i0;
    i1 = i1 > size - 1 ? i1 - size : i1;
    r.a = linear ? base - f : 0.0f;
    r.in0 = r.in1 = 1;
    r.i0 = clamp(i0, 0, size - 1);
    r.i1 = clamp(i1, 0, size - 1);
    return r;
}

/*
 * CLK_ADDRESS_MIRRORED_REPEAT with normalised coordinates: s' = |s - 2 rint(s / 2)|,
 * u = s' * size, and the locations clamped to the image (the specification's max and
 * min). A NaN s' (from a NaN or infinite s) becomes 0.
 */
KILN_SAMPLE struct kiln_axis kiln_axis_mirror(float s, int size, bool linear)
{
    struct kiln_axis r;
    float sp = fabs(s - 2.0f * rint(0.5f * s));
    float u = fmin(fmax(sp, 0.0f), 1.0f) * (float)size;
    float base = linear ? u - 0.5f : u;
    float f = floor(base);
    int i = (int)f;
    r.a = linear ? base - f : 0.0f;
    r.in0 = r.in1 = 1;
    r.i0 = clamp(i, 0, size - 1);
    r.i1 = clamp(i + 1, 0, size - 1);
    return r;
}

/* One axis of a float coordinate under the sampler's bits. */
KILN_SAMPLE struct kiln_axis kiln_axis_f(float s, int size, uint bits, bool linear)
{
    uint mode = bits & KILN_SAMPLER_ADDRESS_MASK;
    bool norm = (bits & KILN_SAMPLER_NORMALIZED_COORDS) != 0;
    /* REPEAT and MIRRORED_REPEAT are defined for normalised coordinates only; with
     * unnormalised ones the result is undefined and they clamp to the edge. */
    if (norm && mode == KILN_SAMPLER_ADDRESS_REPEAT)
        return kiln_axis_repeat(s, size, linear);
    if (norm && mode == KILN_SAMPLER_ADDRESS_MIRRORED)
        return kiln_axis_mirror(s, size, linear);
    return kiln_axis_clamp(norm ? s * (float)size : s, size, linear);
}

/*
 * One axis of an int coordinate. The specification defines int coordinates only
 * with unnormalised NEAREST samplers addressing NONE, CLAMP_TO_EDGE or CLAMP; then
 * the location is the coordinate itself, exactly (a float detour would round
 * coordinates beyond 2^24). Other samplers get the same treatment.
 */
KILN_SAMPLE struct kiln_axis kiln_axis_i(int x, int size)
{
    struct kiln_axis r;
    r.in0 = r.in1 = x >= 0 && x < size;
    r.i0 = r.i1 = clamp(x, 0, size - 1);
    r.a = 0.0f;
    return r;
}

/* The axis of an array's layer coordinate: clamp(rint(c), 0, layers - 1), never filtered. */
KILN_SAMPLE struct kiln_axis kiln_axis_layer_f(float c, int layers)
{
    struct kiln_axis r;
    /* fmax() takes a NaN to 0. */
    r.i0 = r.i1 = (int)fmin(fmax(rint(c), 0.0f), (float)(layers - 1));
    r.in0 = r.in1 = 1;
    r.a = 0.0f;
    return r;
}

KILN_SAMPLE struct kiln_axis kiln_axis_layer_i(int c, int layers)
{
    struct kiln_axis r;
    r.i0 = r.i1 = clamp(c, 0, layers - 1);
    r.in0 = r.in1 = 1;
    r.a = 0.0f;
    return r;
}

/* The unused axes of 1D and 2D images: location 0, always inside. */
KILN_SAMPLE struct kiln_axis kiln_axis_none(void)
{
    struct kiln_axis r;
    r.i0 = r.i1 = 0;
    r.in0 = r.in1 = 1;
    r.a = 0.0f;
    return r;
}

/*
 * Whether the border colour's alpha is 1: the specification's table ("Determining
 * the Border Color or Value") gives (0, 0, 0, 1) for CL_R, CL_RG, CL_RGB and
 * CL_LUMINANCE, and (0, 0, 0, 0) for every order with alpha and for CL_Rx, CL_RGx,
 * CL_RGBx and CL_sRGBx. CL_sRGB, which the table omits, is read like CL_RGB (alpha 1),
 * so its border is too. CL_DEPTH's border is 0.0f, the x of either.
 */
KILN_SAMPLE bool kiln_border_alpha_one(uint order)
{
    return order == KILN_CL_R || order == KILN_CL_RG || order == KILN_CL_RGB ||
           order == KILN_CL_LUMINANCE || order == KILN_CL_sRGB;
}

/* One texel, or the border colour where its location lies outside (CLAMP only). */
KILN_SAMPLE float4 kiln_tap_f(kiln_image_desc_t d, int x, int y, int z, bool in, float4 border)
{
    float4 t = kiln_texel_f(d, x, y, z);
    return in ? t : border;
}

/*
 * A float read through three axes, x, y and z as kiln_texel_* take them (a 1D array's
 * layer is z, as its layers step by slice_pitch). `dims` is how many of the axes filter
 * (1, 2 or 3); it is a constant at every call, and so is the sampler where the kernel's
 * is, so one shape remains.
 */
KILN_SAMPLE float4 kiln_sample_f(kiln_image_desc_t d, uint bits, struct kiln_axes axes, int dims)
{
    struct kiln_axis ax = axes.x, ay = axes.y, az = axes.z;
    float4 border = (float4)(0.0f, 0.0f, 0.0f, kiln_border_alpha_one(d->order) ? 1.0f : 0.0f);
    bool clamp_border = (bits & KILN_SAMPLER_ADDRESS_MASK) == KILN_SAMPLER_ADDRESS_CLAMP;
    /* Only CLK_ADDRESS_CLAMP has a border; the other modes' flags are all 1 already,
     * but saying so lets the compiler drop the selects. */
    if (!clamp_border)
        ax.in0 = ax.in1 = ay.in0 = ay.in1 = az.in0 = az.in1 = 1;
    if ((bits & KILN_SAMPLER_FILTER_MASK) != KILN_SAMPLER_FILTER_LINEAR)
        return kiln_tap_f(d, ax.i0, ay.i0, az.i0, ax.in0 && ay.in0 && az.in0, border);

    /* The specification's sums of weighted texels, the weights as it writes them. */
    float a = ax.a, b = ay.a, c = az.a;
    float4 t0 = kiln_tap_f(d, ax.i0, ay.i0, az.i0, ax.in0 && ay.in0 && az.in0, border);
    float4 t1 = kiln_tap_f(d, ax.i1, ay.i0, az.i0, ax.in1 && ay.in0 && az.in0, border);
    if (dims == 1)
        return (1.0f - a) * t0 + a * t1;
    float4 t2 = kiln_tap_f(d, ax.i0, ay.i1, az.i0, ax.in0 && ay.in1 && az.in0, border);
    float4 t3 = kiln_tap_f(d, ax.i1, ay.i1, az.i0, ax.in1 && ay.in1 && az.in0, border);
    if (dims == 2)
        return (1.0f - a) * (1.0f - b) * t0 + a * (1.0f - b) * t1 + (1.0f - a) * b * t2 +
               a * b * t3;
    float4 t4 = kiln_tap_f(d, ax.i0, ay.i0, az.i1, ax.in0 && ay.in0 && az.in1, border);
    float4 t5 = kiln_tap_f(d, ax.i1, ay.i0, az.i1, ax.in1 && ay.in0 && az.in1, border);
    float4 t6 = kiln_tap_f(d, ax.i0, ay.i1, az.i1, ax.in0 && ay.in1 && az.in1, border);
    float4 t7 = kiln_tap_f(d, ax.i1, ay.i1, az.i1, ax.in1 && ay.in1 && az.in1, border);
    return (1.0f - a) * (1.0f - b) * (1.0f - c) * t0 + a * (1.0f - b) * (1.0f - c) * t1 +
           (1.0f - a) * b * (1.0f - c) * t2 + a * b * (1.0f - c) * t3 +
           (1.0f - a) * (1.0f - b) * c * t4 + a * (1.0f - b) * c * t5 + (1.0f - a) * b * c * t6 +
           a * b * c * t7;
}

/*
 * Integer formats: NEAREST always (the specification leaves LINEAR undefined for
 * them, and read_imagei/ui with float coordinates require NEAREST), so the one
 * location, or the border (0, 0, 0, 0 or 1) under CLK_ADDRESS_CLAMP.
 */
#define KILN_SAMPLE_INT(T, fn)                                                                     \
    KILN_SAMPLE T##4 kiln_sample_##T(kiln_image_desc_t d, uint bits, struct kiln_axes a)           \
    {                                                                                              \
        struct kiln_axis ax = a.x, ay = a.y, az = a.z;                                             \
        T##4 t = fn(d, ax.i0, ay.i0, az.i0);                                                       \
        T##4 border = (T##4)(0, 0, 0, kiln_border_alpha_one(d->order) ? 1 : 0);                    \
        bool clamp_border = (bits & KILN_SAMPLER_ADDRESS_MASK) == KILN_SAMPLER_ADDRESS_CLAMP;      \
        return clamp_border && !(ax.in0 && ay.in0 && az.in0) ? border : t;                         \
    }
KILN_SAMPLE_INT(int, kiln_texel_i)
KILN_SAMPLE_INT(uint, kiln_texel_ui)

/*
 * The three axes of each image type, for float (_f) and int (_i) coordinates, and how
 * many of them filter (KILN_DIMS_*). The filter only matters to float coordinates.
 */
#define KILN_DIMS_1D  1
#define KILN_DIMS_1DA 1
#define KILN_DIMS_2D  2
#define KILN_DIMS_2DA 2
#define KILN_DIMS_3D  3

KILN_SAMPLE struct kiln_axes kiln_axes_1D_f(kiln_image_desc_t d, float c, uint bits, bool linear)
{
    struct kiln_axes r = {kiln_axis_f(c, d->width, bits, linear), kiln_axis_none(),
                          kiln_axis_none()};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_1D_i(kiln_image_desc_t d, int c)
{
    struct kiln_axes r = {kiln_axis_i(c, d->width), kiln_axis_none(), kiln_axis_none()};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_1DA_f(kiln_image_desc_t d, float2 c, uint bits, bool linear)
{
    struct kiln_axes r = {kiln_axis_f(c.x, d->width, bits, linear), kiln_axis_none(),
                          kiln_axis_layer_f(c.y, d->array_size)};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_1DA_i(kiln_image_desc_t d, int2 c)
{
    struct kiln_axes r = {kiln_axis_i(c.x, d->width), kiln_axis_none(),
                          kiln_axis_layer_i(c.y, d->array_size)};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_2D_f(kiln_image_desc_t d, float2 c, uint bits, bool linear)
{
    struct kiln_axes r = {kiln_axis_f(c.x, d->width, bits, linear),
                          kiln_axis_f(c.y, d->height, bits, linear), kiln_axis_none()};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_2D_i(kiln_image_desc_t d, int2 c)
{
    struct kiln_axes r = {kiln_axis_i(c.x, d->width), kiln_axis_i(c.y, d->height),
                          kiln_axis_none()};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_2DA_f(kiln_image_desc_t d, float4 c, uint bits, bool linear)
{
    struct kiln_axes r = {kiln_axis_f(c.x, d->width, bits, linear),
                          kiln_axis_f(c.y, d->height, bits, linear),
                          kiln_axis_layer_f(c.z, d->array_size)};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_2DA_i(kiln_image_desc_t d, int4 c)
{
    struct kiln_axes r = {kiln_axis_i(c.x, d->width), kiln_axis_i(c.y, d->height),
                          kiln_axis_layer_i(c.z, d->array_size)};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_3D_f(kiln_image_desc_t d, float4 c, uint bits, bool linear)
{
    struct kiln_axes r = {kiln_axis_f(c.x, d->width, bits, linear),
                          kiln_axis_f(c.y, d->height, bits, linear),
                          kiln_axis_f(c.z, d->depth, bits, linear)};
    return r;
}

KILN_SAMPLE struct kiln_axes kiln_axes_3D_i(kiln_image_desc_t d, int4 c)
{
    struct kiln_axes r = {kiln_axis_i(c.x, d->width), kiln_axis_i(c.y, d->height),
                          kiln_axis_i(c.z, d->depth)};
    return r;
}

/*
 * The read functions of one image type: image type IMG, float and int coordinate
 * types FC and IC, the suffix K of its kiln_axes_* functions. read_imageh converts
 * read_imagef's result: exact for HALF_FLOAT texels under NEAREST, and one rounding of
 * the filtered value otherwise.
 */
#define KILN_READS(IMG, FC, IC, K)                                                                 \
    float4 KILN_OVERLOAD read_imagef(read_only IMG img, sampler_t s, FC c)                         \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        bool linear = (bits & KILN_SAMPLER_FILTER_MASK) == KILN_SAMPLER_FILTER_LINEAR;             \
        struct kiln_axes a = kiln_axes_##K##_f(d, c, bits, linear);                                \
        return kiln_sample_f(d, bits, a, KILN_DIMS_##K);                                           \
    }                                                                                              \
    float4 KILN_OVERLOAD read_imagef(read_only IMG img, sampler_t s, IC c)                         \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s) & ~KILN_SAMPLER_FILTER_MASK;                              \
        return kiln_sample_f(d, bits, kiln_axes_##K##_i(d, c), 1);                                 \
    }                                                                                              \
    int4 KILN_OVERLOAD read_imagei(read_only IMG img, sampler_t s, FC c)                           \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        return kiln_sample_int(d, bits, kiln_axes_##K##_f(d, c, bits, false));                     \
    }                                                                                              \
    int4 KILN_OVERLOAD read_imagei(read_only IMG img, sampler_t s, IC c)                           \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        return kiln_sample_int(d, bits, kiln_axes_##K##_i(d, c));                                  \
    }                                                                                              \
    uint4 KILN_OVERLOAD read_imageui(read_only IMG img, sampler_t s, FC c)                         \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        return kiln_sample_uint(d, bits, kiln_axes_##K##_f(d, c, bits, false));                    \
    }                                                                                              \
    uint4 KILN_OVERLOAD read_imageui(read_only IMG img, sampler_t s, IC c)                         \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        return kiln_sample_uint(d, bits, kiln_axes_##K##_i(d, c));                                 \
    }                                                                                              \
    half4 KILN_OVERLOAD read_imageh(read_only IMG img, sampler_t s, FC c)                          \
    {                                                                                              \
        return convert_half4(read_imagef(img, s, c));                                              \
    }                                                                                              \
    half4 KILN_OVERLOAD read_imageh(read_only IMG img, sampler_t s, IC c)                          \
    {                                                                                              \
        return convert_half4(read_imagef(img, s, c));                                              \
    }

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

KILN_READS(image1d_t, float, int, 1D)
KILN_READS(image1d_array_t, float2, int2, 1DA)
KILN_READS(image2d_t, float2, int2, 2D)
KILN_READS(image2d_array_t, float4, int4, 2DA)
KILN_READS(image3d_t, float4, int4, 3D)

/* Depth images (cl_khr_depth_images): read_imagef returns the one channel. */
#define KILN_READS_DEPTH(IMG, FC, IC, K)                                                           \
    float KILN_OVERLOAD read_imagef(read_only IMG img, sampler_t s, FC c)                          \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s);                                                          \
        bool linear = (bits & KILN_SAMPLER_FILTER_MASK) == KILN_SAMPLER_FILTER_LINEAR;             \
        struct kiln_axes a = kiln_axes_##K##_f(d, c, bits, linear);                                \
        return kiln_sample_f(d, bits, a, KILN_DIMS_##K).x;                                         \
    }                                                                                              \
    float KILN_OVERLOAD read_imagef(read_only IMG img, sampler_t s, IC c)                          \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(img);                                                \
        uint bits = kiln_sampler_bits(s) & ~KILN_SAMPLER_FILTER_MASK;                              \
        return kiln_sample_f(d, bits, kiln_axes_##K##_i(d, c), 1).x;                               \
    }

KILN_READS_DEPTH(image2d_depth_t, float2, int2, 2D)
KILN_READS_DEPTH(image2d_array_depth_t, float4, int4, 2DA)
