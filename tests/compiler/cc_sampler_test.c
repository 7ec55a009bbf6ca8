/*
 * Sampled image reads (kernel-lib/images/sample.cl) run through the compiler library on
 * hand-built image descriptors (include/kiln_image.h), against a host reference written
 * from the OpenCL C specification's chapter "Image Addressing and Filtering".
 *
 * The tables cover every image type with a sampler (1D, 1D array, 2D, 2D array, 3D, 2D
 * depth, 2D array depth) x every read function (read_imagef, read_imagei, read_imageui,
 * and read_imageh in its own entry) x float and int coordinates x every addressing mode x
 * NEAREST and LINEAR x normalised and unnormalised coordinates that the specification
 * defines, over coordinates in range, on texel centres and edges, far outside, negative,
 * infinite and NaN. The formats: RGBA FLOAT, RGBA UNORM_INT8, R FLOAT (border alpha 1),
 * sRGBA UNORM_INT8 (decoded before filtering), DEPTH FLOAT, RGBA SIGNED_INT32 and
 * UNSIGNED_INT32.
 *
 * The reference computes the locations as the specification's formulas do, in float (as the
 * CTS's reference does too), with the int conversion made safe for huge values by clamping
 * in double, and blends in double. Where the specification leaves a result undefined, the
 * test checks what docs/kernel-lib.md ("Sampled image reads") promises: NaN coordinates
 * read as -1 (unnormalised after scaling; REPEAT and MIRRORED_REPEAT: as 0), CLK_ADDRESS_NONE
 * is only given coordinates it defines, and unnormalised REPEAT and MIRRORED_REPEAT are not
 * tested. NEAREST reads of float texels must be exact; LINEAR within 2^-18 of the largest
 * tap (the CTS allows 2^-7); decoded sRGB and UNORM texels within their conversion bounds.
 */
#include "cc_harness.h"
#include "kiln_image.h"

#include <CL/cl.h>
#include <float.h>
#include <limits.h>
#include <math.h>

enum img_type { T1D, T1DA, T2D, T2DA, T3D, T2DD, T2DAD, NUM_TYPES };

static const struct {
    const char *cl;     /* the OpenCL C type */
    const char *suffix; /* kernel name part */
    const char *fcoord; /* float coordinate from float4 c */
    const char *icoord; /* int coordinate from int4 c */
    cl_mem_object_type type;
    int dims; /* filtered axes */
    int array;
    int depth_image;
} types[NUM_TYPES] = {
    {"image1d_t", "1d", "c.x", "c.x", CL_MEM_OBJECT_IMAGE1D, 1, 0, 0},
    {"image1d_array_t", "1da", "c.xy", "c.xy", CL_MEM_OBJECT_IMAGE1D_ARRAY, 1, 1, 0},
    {"image2d_t", "2d", "c.xy", "c.xy", CL_MEM_OBJECT_IMAGE2D, 2, 0, 0},
    {"image2d_array_t", "2da", "c", "c", CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, 1, 0},
    {"image3d_t", "3d", "c", "c", CL_MEM_OBJECT_IMAGE3D, 3, 0, 0},
    {"image2d_depth_t", "2dd", "c.xy", "c.xy", CL_MEM_OBJECT_IMAGE2D, 2, 0, 1},
    {"image2d_array_depth_t", "2dad", "c", "c", CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, 1, 1},
};

enum fmt {
    RGBA_FLOAT,
    RGBA_UNORM8,
    R_FLOAT,
    SRGBA_UNORM8,
    RGBA_HALF,
    DEPTH_FLOAT,
    RGBA_SINT32,
    RGBA_UINT32
};

static const struct {
    const char *name;
    cl_channel_order order;
    cl_channel_type data_type;
    unsigned elem_size, channels;
} fmts[] = {
    [RGBA_FLOAT] = {"RGBA FLOAT", CL_RGBA, CL_FLOAT, 16, 4},
    [RGBA_UNORM8] = {"RGBA UNORM_INT8", CL_RGBA, CL_UNORM_INT8, 4, 4},
    [R_FLOAT] = {"R FLOAT", CL_R, CL_FLOAT, 4, 1},
    [SRGBA_UNORM8] = {"sRGBA UNORM_INT8", CL_sRGBA, CL_UNORM_INT8, 4, 4},
    [RGBA_HALF] = {"RGBA HALF_FLOAT", CL_RGBA, CL_HALF_FLOAT, 8, 4},
    [DEPTH_FLOAT] = {"DEPTH FLOAT", CL_DEPTH, CL_FLOAT, 4, 1},
    [RGBA_SINT32] = {"RGBA SIGNED_INT32", CL_RGBA, CL_SIGNED_INT32, 16, 4},
    [RGBA_UINT32] = {"RGBA UNSIGNED_INT32", CL_RGBA, CL_UNSIGNED_INT32, 16, 4},
};

/* Odd, unequal sizes so that a swapped axis shows; padded pitches. */
enum { W = 5, H = 4, D = 3, L = 3, PAD = 24, N = 512 };

struct image {
    struct kiln_image desc;
    unsigned char *data;
    enum fmt fmt;
    enum img_type type;
};

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rand32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static float randf(float lo, float hi)
{
    return lo + (hi - lo) * (float)(rand32() & 0xffffff) / (float)0x1000000;
}

static int image_make(struct image *im, enum img_type t, enum fmt f)
{
    memset(im, 0, sizeof(*im));
    im->fmt = f;
    im->type = t;
    struct kiln_image *d = &im->desc;
    d->type = types[t].type;
    d->order = fmts[f].order;
    d->data_type = fmts[f].data_type;
    d->elem_size = fmts[f].elem_size;
    d->num_channels = fmts[f].channels;
    d->width = W;
    d->height = types[t].dims >= 2 ? H : 1;
    d->depth = t == T3D ? D : 1;
    d->array_size = types[t].array ? L : 1;
    d->row_pitch = (uint64_t)W * d->elem_size + (t == T1D ? 0 : PAD);
    if (t == T1DA)
        d->slice_pitch = d->row_pitch;
    else if (t == T3D || t == T2DA || t == T2DAD)
        d->slice_pitch = d->row_pitch * (uint64_t)d->height + PAD;
    size_t planes = (size_t)(d->depth > d->array_size ? d->depth : d->array_size);
    size_t bytes = d->slice_pitch ? d->slice_pitch * planes : d->row_pitch * (size_t)d->height;
    im->data = malloc(bytes);
    CHECK(im->data);
    for (size_t i = 0; i < bytes; i++)
        im->data[i] = (unsigned char)rand32();
    /* Float texels: finite values of both signs and several magnitudes. */
    if (d->data_type == CL_FLOAT)
        for (size_t i = 0; i + 4 <= bytes; i += 4) {
            float v = randf(-2.0f, 2.0f) * ((rand32() & 3) == 0 ? 100.0f : 1.0f);
            memcpy(im->data + i, &v, 4);
        }
    /* Half texels: finite (exponent field below 31). */
    if (d->data_type == CL_HALF_FLOAT)
        for (size_t i = 1; i < bytes; i += 2)
            if ((im->data[i] & 0x7c) == 0x7c)
                im->data[i] &= 0xbb;
    d->data = im->data;
    return 0;
}

/* A half's value (no half type needed on the host). */
static float half_to_float(uint16_t h)
{
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000 ? -v : v;
}

static double srgb_decode(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* The texel at an in-range location as read_imagef/i/ui return it, in double. */
static void texel(const struct image *im, int x, int y, int z, double out[4])
{
    const struct kiln_image *d = &im->desc;
    const unsigned char *p =
        im->data + (size_t)x * d->elem_size + (size_t)y * d->row_pitch + (size_t)z * d->slice_pitch;
    double v[4] = {0, 0, 0, 0};
    for (unsigned c = 0; c < d->num_channels; c++)
        switch (d->data_type) {
        case CL_FLOAT: {
            float f;
            memcpy(&f, p + 4 * c, 4);
            v[c] = f;
            break;
        }
        case CL_UNORM_INT8:
            v[c] = p[c] / 255.0;
            break;
        case CL_HALF_FLOAT: {
            uint16_t h;
            memcpy(&h, p + 2 * c, 2);
            v[c] = half_to_float(h);
            break;
        }
        case CL_SIGNED_INT32: {
            int32_t i;
            memcpy(&i, p + 4 * c, 4);
            v[c] = i;
            break;
        }
        default: {
            uint32_t u;
            memcpy(&u, p + 4 * c, 4);
            v[c] = u;
            break;
        }
        }
    if (d->order == CL_R) {
        v[1] = v[2] = 0;
        v[3] = 1;
    } else if (d->order == CL_sRGBA) {
        for (int c = 0; c < 3; c++)
            v[c] = srgb_decode(v[c]);
    }
    memcpy(out, v, sizeof(v));
}

/* The specification's border colour by channel order. */
static double border_alpha(cl_channel_order order)
{
    return order == CL_R || order == CL_RG || order == CL_RGB || order == CL_LUMINANCE ||
                   order == CL_sRGB
               ? 1.0
               : 0.0;
}

/* One axis: up to two locations (possibly outside the image) and the second's weight. */
struct ref_axis {
    long long i0, i1;
    double a;
};

static long long floor_to_ll(double f)
{
    f = floor(f);
    if (f < -1e12)
        return (long long)-1e12;
    if (f > 1e12)
        return (long long)1e12;
    return (long long)f;
}

static long long clampll(long long v, long long lo, long long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The specification's formulas for a float coordinate. */
static struct ref_axis ref_axis_f(float s, int n, unsigned bits, int linear)
{
    struct ref_axis r = {0, 0, 0};
    unsigned mode = bits & KILN_SAMPLER_ADDRESS_MASK;
    int norm = (bits & KILN_SAMPLER_NORMALIZED_COORDS) != 0;
    if (norm && mode == KILN_SAMPLER_ADDRESS_REPEAT) {
        float u = (s - floorf(s)) * (float)n;
        if (isnan(u))
            u = 0; /* Kiln's choice for NaN and infinite s */
        if (!linear) {
            long long i = floor_to_ll(u);
            r.i0 = r.i1 = i > n - 1 ? i - n : i;
        } else {
            long long i0 = floor_to_ll(u - 0.5f), i1 = i0 + 1;
            r.i0 = i0 < 0 ? n + i0 : i0;
            r.i1 = i1 > n - 1 ? i1 - n : i1;
            r.a = (u - 0.5f) - floorf(u - 0.5f);
        }
        return r;
    }
    if (norm && mode == KILN_SAMPLER_ADDRESS_MIRRORED) {
        float sp = 2.0f * rintf(0.5f * s);
        sp = fabsf(s - sp);
        if (isnan(sp))
            sp = 0;
        float u = sp * (float)n;
        if (!linear) {
            long long i = floor_to_ll(u);
            r.i0 = r.i1 = i < n - 1 ? i : n - 1;
        } else {
            long long i0 = floor_to_ll(u - 0.5f), i1 = i0 + 1;
            r.i0 = i0 > 0 ? i0 : 0;
            r.i1 = i1 < n - 1 ? i1 : n - 1;
            r.a = (u - 0.5f) - floorf(u - 0.5f);
        }
        return r;
    }
    float u = norm ? s * (float)n : s;
    if (isnan(u))
        u = -1.0f; /* Kiln's choice */
    long long lo = mode == KILN_SAMPLER_ADDRESS_CLAMP ? -1 : 0;
    long long hi = mode == KILN_SAMPLER_ADDRESS_CLAMP ? n : n - 1;
    if (!linear) {
        r.i0 = r.i1 = clampll(floor_to_ll(u), lo, hi);
    } else {
        float b = u - 0.5f;
        r.i0 = clampll(floor_to_ll(b), lo, hi);
        r.i1 = clampll(floor_to_ll(b) + 1, lo, hi);
        r.a = isinf(b) ? 0.0 : (double)(b - floorf(b));
    }
    return r;
}

static struct ref_axis ref_axis_i(int x, int n, unsigned bits)
{
    int clampb = (bits & KILN_SAMPLER_ADDRESS_MASK) == KILN_SAMPLER_ADDRESS_CLAMP;
    long long i = clampb ? clampll(x, -1, n) : clampll(x, 0, n - 1);
    struct ref_axis r = {i, i, 0};
    return r;
}

static struct ref_axis ref_layer_f(float c, int layers)
{
    float l = rintf(c);
    long long i = isnan(l) ? 0 : clampll(floor_to_ll(l), 0, layers - 1);
    struct ref_axis r = {i, i, 0};
    return r;
}

/* The texel at (x, y, z), or the border where a location lies outside. */
static void ref_tap(const struct image *im, long long x, long long y, long long z, double out[4])
{
    const struct kiln_image *d = &im->desc;
    int zlim = d->depth > d->array_size ? d->depth : d->array_size;
    if (x < 0 || x >= d->width || y < 0 || y >= d->height || z < 0 || z >= zlim) {
        out[0] = out[1] = out[2] = 0;
        out[3] = border_alpha(d->order);
        return;
    }
    texel(im, (int)x, (int)y, (int)z, out);
}

/*
 * The reference read: coordinates fc (float) or ic (int), the sampler's bits, and whether
 * the filter applies (read_imagef with float coordinates); out[4], and *maxabs, the
 * largest magnitude of the taps, for the tolerance.
 */
static void ref_read(const struct image *im, const float fc[4], const int ic[4], int use_float,
                     unsigned bits, int filters, double out[4], double *maxabs)
{
    const struct kiln_image *d = &im->desc;
    enum img_type t = im->type;
    int linear = filters && (bits & KILN_SAMPLER_FILTER_MASK) == KILN_SAMPLER_FILTER_LINEAR;
    int dims = types[t].dims;
    struct ref_axis ax[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    int sizes[3] = {d->width, d->height, d->depth};
    for (int k = 0; k < dims; k++)
        ax[k] = use_float ? ref_axis_f(fc[k], sizes[k], bits, linear)
                          : ref_axis_i(ic[k], sizes[k], bits);
    if (types[t].array) {
        /* The layer: c.y of a 1D array, c.z of a 2D array; its axis is z (slice_pitch). */
        int k = dims;
        if (use_float) {
            ax[2] = ref_layer_f(fc[k], d->array_size);
        } else {
            long long i = clampll(ic[k], 0, d->array_size - 1);
            ax[2].i0 = ax[2].i1 = i;
        }
    }
    for (int c = 0; c < 4; c++)
        out[c] = 0;
    *maxabs = 0;
    for (int corner = 0; corner < 8; corner++) {
        int cx = corner & 1, cy = corner >> 1 & 1, cz = corner >> 2 & 1;
        double w = 1.0;
        if (linear) {
            w *= cx ? ax[0].a : 1.0 - ax[0].a;
            w *= dims < 2 ? (cy ? 0.0 : 1.0) : (cy ? ax[1].a : 1.0 - ax[1].a);
            w *= dims < 3 ? (cz ? 0.0 : 1.0) : (cz ? ax[2].a : 1.0 - ax[2].a);
        } else {
            w = corner == 0 ? 1.0 : 0.0;
        }
        if (w == 0.0)
            continue;
        double tap[4];
        ref_tap(im, cx ? ax[0].i1 : ax[0].i0, cy ? ax[1].i1 : ax[1].i0, cz ? ax[2].i1 : ax[2].i0,
                tap);
        for (int c = 0; c < 4; c++) {
            out[c] += w * tap[c];
            if (fabs(tap[c]) > *maxabs)
                *maxabs = fabs(tap[c]);
        }
    }
}

/* The coordinates of one axis of `size` texels: specials first, then random values. */
static float axis_value(int i, int size, int norm, int defined_only, int linear)
{
    static const float unnorm_special[] = {0.0f,  0.5f,   1.0f,   -0.0f,  -0.5f,    -1.0f,
                                           -1.5f, -1e-7f, 1e30f,  -1e30f, INFINITY, -INFINITY,
                                           NAN,   2.25f,  -7.75f, 1e9f};
    static const float norm_special[] = {0.0f,      1.0f,  -0.0f, 0.999999f, -1e-7f, 1.5f,
                                         -0.25f,    2.75f, -3.3f, 1e30f,     -1e30f, INFINITY,
                                         -INFINITY, NAN,   0.5f,  1e-30f};
    float v;
    if (defined_only) {
        /* CLK_ADDRESS_NONE: inside, and for LINEAR every tap inside too. */
        float lo = linear ? 0.5f : 0.0f, hi = linear ? (float)size - 0.5f : (float)size - 0.01f;
        v = i % 7 == 0 ? lo : randf(lo, hi);
        return norm ? v / (float)size : v;
    }
    int n = (int)(sizeof(unnorm_special) / sizeof(unnorm_special[0]));
    if (i < n)
        return norm ? norm_special[i] : unnorm_special[i] + (i == 2 ? (float)size - 1.0f : 0.0f);
    if (i % 5 == 0) /* texel edges and centres */
        v = (float)((int)(rand32() % (unsigned)(3 * size)) - size) * 0.5f;
    else
        v = randf(-1.5f * (float)size, 2.5f * (float)size);
    return norm ? v / (float)size : v;
}

static float layer_value(int i)
{
    static const float special[] = {-5.0f, -0.5f, 0.49f, 0.5f,     1.5f,      2.5f,
                                    2.0f,  10.0f, NAN,   INFINITY, -INFINITY, 1e30f};
    int n = (int)(sizeof(special) / sizeof(special[0]));
    return i < n ? special[i] : randf(-2.0f, (float)L + 2.0f);
}

static int int_value(int i, int size, int defined_only)
{
    static const int special[] = {-100000, -2, -1, 0, 1, 2, 3, 4, 5, 6, INT_MAX, INT_MIN};
    if (defined_only)
        return (int)(rand32() % (unsigned)size);
    int n = (int)(sizeof(special) / sizeof(special[0]));
    return i < n ? special[i] : (int)(rand32() % (unsigned)(3 * size)) - size;
}

/* The kernels: one per image type x function x coordinate kind, the sampler an argument. */
enum fn { FN_F, FN_I, FN_UI, FN_H, NUM_FN };
static const char *const fn_names[NUM_FN] = {"read_imagef", "read_imagei", "read_imageui",
                                             "read_imageh"};
static const char *const fn_out[NUM_FN] = {"float4", "int4", "uint4", "ushort4"};

static char *kernel_source(int with_half)
{
    size_t cap = 64 * 1024, len = 0;
    char *src = malloc(cap);
    if (!src)
        return NULL;
    src[0] = '\0';
    if (with_half)
        len += (size_t)snprintf(src + len, cap - len,
                                "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    for (int t = 0; t < NUM_TYPES; t++)
        for (int f = 0; f < NUM_FN; f++)
            for (int ck = 0; ck < 2; ck++) {
                if (types[t].depth_image && f != FN_F)
                    continue;
                if (f == FN_H && !with_half)
                    continue;
                const char *out = types[t].depth_image ? "float" : fn_out[f];
                const char *call =
                    f == FN_H ? "as_ushort4(read_imageh(img, s, %s))" : "%s(img, s, %s)";
                char expr[128];
                if (f == FN_H)
                    snprintf(expr, sizeof(expr), call, ck ? types[t].icoord : types[t].fcoord);
                else
                    snprintf(expr, sizeof(expr), call, fn_names[f],
                             ck ? types[t].icoord : types[t].fcoord);
                len += (size_t)snprintf(
                    src + len, cap - len,
                    "kernel void r_%s_%d_%c(read_only %s img, sampler_t s, global const %s4 *cs,"
                    " global %s *out)\n"
                    "{\n    size_t i = get_global_id(0);\n    %s4 c = cs[i];\n"
                    "    out[i] = %s;\n}\n",
                    types[t].suffix, f, ck ? 'i' : 'f', types[t].cl, ck ? "int" : "float", out,
                    ck ? "int" : "float", expr);
            }
    return src;
}

/* The samplers the specification defines results for (no unnormalised REPEAT/MIRRORED). */
static int sampler_defined(unsigned bits)
{
    unsigned mode = bits & KILN_SAMPLER_ADDRESS_MASK;
    return (bits & KILN_SAMPLER_NORMALIZED_COORDS) ||
           (mode != KILN_SAMPLER_ADDRESS_REPEAT && mode != KILN_SAMPLER_ADDRESS_MIRRORED);
}

/* Runs one kernel over every sampler and N coordinates; 0 when all agree. */
static int run_case(const struct kiln_cc_program *p, enum img_type t, enum fn f, int ck,
                    enum fmt fm, size_t *checked)
{
    char name[64];
    snprintf(name, sizeof(name), "r_%s_%d_%c", types[t].suffix, (int)f, ck ? 'i' : 'f');
    const struct kiln_cc_kernel *k = ct_find_kernel(p, name);
    CHECK(k);
    struct image im;
    if (image_make(&im, t, fm))
        return 1;
    static float fc[N][4];
    static int ic[N][4];
    static unsigned char out[N * 16];
    int failures = 0;
    static const unsigned modes[] = {KILN_SAMPLER_ADDRESS_NONE, KILN_SAMPLER_ADDRESS_CLAMP_EDGE,
                                     KILN_SAMPLER_ADDRESS_CLAMP, KILN_SAMPLER_ADDRESS_REPEAT,
                                     KILN_SAMPLER_ADDRESS_MIRRORED};
    for (unsigned m = 0; m < 5; m++)
        for (unsigned filt = 0; filt < 2; filt++)
            for (unsigned norm = 0; norm < 2; norm++) {
                unsigned bits = modes[m] |
                                (filt ? KILN_SAMPLER_FILTER_LINEAR : KILN_SAMPLER_FILTER_NEAREST) |
                                (norm ? KILN_SAMPLER_NORMALIZED_COORDS : 0);
                if (!sampler_defined(bits))
                    continue;
                /* Int coordinates: unnormalised NEAREST with NONE, CLAMP_TO_EDGE or CLAMP. */
                if (ck && (norm || filt || m > 2))
                    continue;
                int filters = f == FN_F || f == FN_H;
                int linear = filters && filt;
                int none = modes[m] == KILN_SAMPLER_ADDRESS_NONE;
                int sizes[3] = {im.desc.width, im.desc.height, im.desc.depth};
                for (int i = 0; i < N; i++)
                    for (int a = 0; a < 4; a++) {
                        int is_layer = types[t].array && a == types[t].dims;
                        int size = a < 3 ? sizes[a] : 1;
                        /* Mix the specials of different axes. */
                        int idx = a == 0 ? i : (i * 7 + a * 3) % N;
                        fc[i][a] = is_layer ? layer_value(idx)
                                   : a < types[t].dims
                                       ? axis_value(idx, size, (int)norm, none, linear)
                                       : 0.0f;
                        int layer = is_layer ? int_value(idx, L + 4, 0) : 0;
                        /* Layers from -2 up; INT_MIN stays itself (no signed overflow). */
                        layer = layer == INT_MIN ? layer : layer - 2;
                        ic[i][a] = is_layer            ? layer
                                   : a < types[t].dims ? int_value(idx, size, none)
                                                       : 0;
                    }
                void *cs = ck ? (void *)ic : (void *)fc;
                void *po = out;
                struct kiln_image *pd = &im.desc;
                uintptr_t sb = bits;
                void *args[] = {&pd, &sb, &cs, &po};
                size_t off = 0, gs = N, ls = 16;
                ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
                for (int i = 0; i < N; i++) {
                    double want[4], maxabs;
                    ref_read(&im, fc[i], ic[i], !ck, bits, filters, want, &maxabs);
                    double got[4];
                    int nch = types[t].depth_image ? 1 : 4;
                    for (int c = 0; c < nch; c++) {
                        if (types[t].depth_image) {
                            got[c] = ((float *)out)[i];
                        } else if (f == FN_F) {
                            got[c] = ((float *)out)[4 * i + c];
                        } else if (f == FN_I) {
                            got[c] = ((int32_t *)out)[4 * i + c];
                        } else if (f == FN_UI) {
                            got[c] = ((uint32_t *)out)[4 * i + c];
                        } else {
                            got[c] = half_to_float(((uint16_t *)out)[4 * i + c]);
                        }
                    }
                    double tol = 0.0;
                    if (linear)
                        tol = ldexp(maxabs, -18);
                    if (im.desc.data_type == CL_UNORM_INT8)
                        tol += im.desc.order == CL_sRGBA ? 2e-5 : 1e-6;
                    for (int c = 0; c < nch; c++) {
                        double ct = tol;
                        /* read_imageh: one rounding to half, none for HALF_FLOAT under NEAREST. */
                        if (f == FN_H && (linear || im.desc.data_type != CL_HALF_FLOAT))
                            ct += ldexp(fabs(want[c]), -11) + ldexp(1.0, -25);
                        if (!(fabs(got[c] - want[c]) <= ct)) {
                            if (failures++ < 10)
                                fprintf(stderr,
                                        "%s %s %s-coord sampler 0x%x at (%g, %g, %g) / (%d, %d, "
                                        "%d): channel %d got %.9g want %.9g\n",
                                        fn_names[f], types[t].cl, ck ? "int" : "float", bits,
                                        (double)fc[i][0], (double)fc[i][1], (double)fc[i][2],
                                        ic[i][0], ic[i][1], ic[i][2], c, got[c], want[c]);
                        }
                        (*checked)++;
                    }
                }
            }
    if (failures)
        fprintf(stderr, "%s on %s: %d mismatches\n", name, fmts[fm].name, failures);
    free(im.data);
    return failures != 0;
}

static int run_table(int with_half)
{
    char *src = kernel_source(with_half);
    CHECK(src);
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    free(src);
    CHECK(p);
    int failed = 0;
    size_t checked = 0;
    for (int t = 0; t < NUM_TYPES; t++)
        for (int f = 0; f < NUM_FN; f++)
            for (int ck = 0; ck < 2; ck++) {
                if ((f == FN_H) != (with_half != 0))
                    continue;
                if (types[t].depth_image) {
                    if (f == FN_F)
                        failed |= run_case(p, t, f, ck, DEPTH_FLOAT, &checked);
                    continue;
                }
                if (f == FN_I) {
                    failed |= run_case(p, t, f, ck, RGBA_SINT32, &checked);
                } else if (f == FN_UI) {
                    failed |= run_case(p, t, f, ck, RGBA_UINT32, &checked);
                } else if (f == FN_H) {
                    failed |= run_case(p, t, f, ck, RGBA_FLOAT, &checked);
                    failed |= run_case(p, t, f, ck, RGBA_HALF, &checked);
                } else {
                    for (enum fmt fm = RGBA_FLOAT; fm <= RGBA_HALF; fm++)
                        failed |= run_case(p, t, f, ck, fm, &checked);
                }
            }
    printf("%zu channels checked\n", checked);
    ct_cc->destroy(p);
    return failed;
}

static int test_sampler_reads(void)
{
    return run_table(0);
}

static int test_sampler_half(void)
{
    return run_table(1);
}

/*
 * CLK_ADDRESS_CLAMP's border colour by channel order, as the specification's table lists
 * it: reads far outside a 2D image (NEAREST and LINEAR, normalised or not, every tap
 * outside) through read_imagef, and read_imagei/ui on integer formats.
 */
static int test_sampler_border(void)
{
    static const struct {
        cl_channel_order order;
        cl_channel_type type;
        unsigned elem_size, channels;
        int alpha_one; /* the table: (0, 0, 0, 1) rather than (0, 0, 0, 0) */
    } orders[] = {
        {CL_R, CL_UNORM_INT8, 1, 1, 1},         {CL_A, CL_UNORM_INT8, 1, 1, 0},
        {CL_RG, CL_UNORM_INT8, 2, 2, 1},        {CL_RA, CL_UNORM_INT8, 2, 2, 0},
        {CL_RGB, CL_UNORM_SHORT_565, 2, 3, 1},  {CL_RGBA, CL_UNORM_INT8, 4, 4, 0},
        {CL_BGRA, CL_UNORM_INT8, 4, 4, 0},      {CL_ARGB, CL_UNORM_INT8, 4, 4, 0},
        {CL_ABGR, CL_UNORM_INT8, 4, 4, 0},      {CL_INTENSITY, CL_UNORM_INT8, 1, 1, 0},
        {CL_LUMINANCE, CL_UNORM_INT8, 1, 1, 1}, {CL_Rx, CL_UNORM_INT8, 2, 2, 0},
        {CL_RGx, CL_UNORM_INT8, 4, 3, 0},       {CL_RGBx, CL_UNORM_SHORT_565, 2, 4, 0},
        {CL_sRGB, CL_UNORM_INT8, 3, 3, 1}, /* not in the table: read like CL_RGB */
        {CL_sRGBx, CL_UNORM_INT8, 4, 4, 0},     {CL_sRGBA, CL_UNORM_INT8, 4, 4, 0},
        {CL_sBGRA, CL_UNORM_INT8, 4, 4, 0},     {CL_DEPTH, CL_FLOAT, 4, 1, 0},
        {CL_R, CL_SIGNED_INT8, 1, 1, 1},        {CL_RGBA, CL_SIGNED_INT16, 8, 4, 0},
        {CL_RG, CL_UNSIGNED_INT32, 8, 2, 1},    {CL_RGBA, CL_UNSIGNED_INT8, 4, 4, 0},
    };
    char *src = kernel_source(0);
    CHECK(src);
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    free(src);
    CHECK(p);
    static unsigned char pixels[4096];
    memset(pixels, 0x5a, sizeof(pixels));
    static float fc[16][4];
    static int ic[16][4];
    static unsigned char out[16 * 16];
    static const float where[][2] = {
        {-3.0f, 1.0f},  {(float)W + 2.0f, 2.0f}, {1.5f, -1.5f}, {2.0f, (float)H + 1.6f},
        {-1e30f, 0.5f}, {2.0f, INFINITY},        {NAN, NAN},    {-1.0f, -1.0f}};
    const int n = (int)(sizeof(where) / sizeof(where[0]));
    int failures = 0;
    for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
        struct kiln_image d = {pixels,
                               CL_MEM_OBJECT_IMAGE2D,
                               orders[o].order,
                               orders[o].type,
                               orders[o].elem_size,
                               orders[o].channels,
                               W,
                               H,
                               1,
                               1,
                               0,
                               (uint64_t)W * orders[o].elem_size,
                               0};
        int integer = orders[o].type == CL_SIGNED_INT8 || orders[o].type == CL_SIGNED_INT16 ||
                      orders[o].type == CL_UNSIGNED_INT32 || orders[o].type == CL_UNSIGNED_INT8;
        int is_signed = orders[o].type == CL_SIGNED_INT8 || orders[o].type == CL_SIGNED_INT16;
        /* read_imagef (kernel r_2d_0_f) for normalised formats, read_imagei or _ui else. */
        char name[32];
        snprintf(name, sizeof(name), "r_2d_%d_f", integer ? (is_signed ? FN_I : FN_UI) : FN_F);
        const struct kiln_cc_kernel *k = ct_find_kernel(p, name);
        CHECK(k);
        for (unsigned v = 0; v < 4; v++) {
            unsigned norm = v & 1, linear = v >> 1 && !integer;
            unsigned bits = KILN_SAMPLER_ADDRESS_CLAMP |
                            (linear ? KILN_SAMPLER_FILTER_LINEAR : KILN_SAMPLER_FILTER_NEAREST) |
                            (norm ? KILN_SAMPLER_NORMALIZED_COORDS : 0);
            for (int i = 0; i < n; i++) {
                fc[i][0] = norm ? where[i][0] / (float)W : where[i][0];
                fc[i][1] = norm ? where[i][1] / (float)H : where[i][1];
                fc[i][2] = fc[i][3] = 0.0f;
                ic[i][0] = ic[i][1] = ic[i][2] = ic[i][3] = 0;
            }
            void *cs = fc, *po = out;
            struct kiln_image *pd = &d;
            uintptr_t sb = bits;
            void *args[] = {&pd, &sb, &cs, &po};
            size_t off = 0, gs = (size_t)n, ls = 4;
            ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
            for (int i = 0; i < n; i++)
                for (int c = 0; c < 4; c++) {
                    /* A depth image's read_imagef returns x alone, here of a float4 kernel. */
                    if (orders[o].order == CL_DEPTH && c > 0)
                        continue;
                    double want = c == 3 && orders[o].alpha_one ? 1.0 : 0.0;
                    double got = integer ? (is_signed ? (double)((int32_t *)out)[4 * i + c]
                                                      : (double)((uint32_t *)out)[4 * i + c])
                                         : (double)((float *)out)[4 * i + c];
                    if (got != want && failures++ < 10)
                        fprintf(stderr,
                                "order 0x%x type 0x%x sampler 0x%x at (%g, %g): "
                                "channel %d got %g want %g\n",
                                orders[o].order, orders[o].type, bits, (double)where[i][0],
                                (double)where[i][1], c, got, want);
                }
        }
    }
    ct_cc->destroy(p);
    return failures != 0;
}

/*
 * Samplers the compiler sees: a program-scope constant sampler, a literal and a local
 * const sampler_t (Clang's __translate_sampler_initializer calls), each read against the
 * reference with its bits, and the same reads through a sampler argument.
 */
static int test_sampler_constant(void)
{
    static const char src[] =
        "constant sampler_t ps = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT |\n"
        "                        CLK_FILTER_LINEAR;\n"
        "kernel void prog(read_only image2d_t img, global const float4 *cs, global float4 *out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = read_imagef(img, ps, cs[i].xy);\n"
        "}\n"
        "kernel void lit(read_only image2d_t img, global const float4 *cs, global float4 *out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = read_imagef(img, CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |\n"
        "                              CLK_FILTER_NEAREST, cs[i].xy);\n"
        "}\n"
        "kernel void var(read_only image3d_t img, global const float4 *cs, global float4 *out)\n"
        "{\n"
        "    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |\n"
        "                        CLK_FILTER_LINEAR;\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = read_imagef(img, s, cs[i]);\n"
        "}\n"
        "kernel void arg(read_only image2d_t img, sampler_t s, global const float4 *cs,\n"
        "                global float4 *out)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = read_imagef(img, s, cs[i].xy);\n"
        "}\n";
    static const struct {
        const char *kernel;
        enum img_type type;
        unsigned bits;
    } cases[] = {
        {"prog", T2D,
         KILN_SAMPLER_NORMALIZED_COORDS | KILN_SAMPLER_ADDRESS_MIRRORED |
             KILN_SAMPLER_FILTER_LINEAR},
        {"lit", T2D, KILN_SAMPLER_ADDRESS_CLAMP | KILN_SAMPLER_FILTER_NEAREST},
        {"var", T3D, KILN_SAMPLER_ADDRESS_CLAMP | KILN_SAMPLER_FILTER_LINEAR},
    };
    struct kiln_cc_program *p = ct_build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *karg = ct_find_kernel(p, "arg");
    CHECK(karg);
    static float fc[N][4];
    static float out[N][4], out_arg[N][4];
    int failures = 0;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct kiln_cc_kernel *k = ct_find_kernel(p, cases[c].kernel);
        CHECK(k);
        struct image im;
        if (image_make(&im, cases[c].type, RGBA_UNORM8))
            return 1;
        int norm = (cases[c].bits & KILN_SAMPLER_NORMALIZED_COORDS) != 0;
        int sizes[3] = {W, H, D};
        for (int i = 0; i < N; i++)
            for (int a = 0; a < 4; a++)
                fc[i][a] = a < types[cases[c].type].dims
                               ? axis_value(a == 0 ? i : (i * 7 + a * 3) % N, sizes[a], norm, 0, 1)
                               : 0.0f;
        void *cs = fc, *po = out, *pa = out_arg;
        struct kiln_image *pd = &im.desc;
        void *args[] = {&pd, &cs, &po};
        size_t off = 0, gs = N, ls = 16;
        ct_run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
        if (cases[c].type == T2D) {
            uintptr_t sb = cases[c].bits;
            void *aargs[] = {&pd, &sb, &cs, &pa};
            ct_run_ndrange(karg, aargs, 1, &off, &gs, &ls, NULL);
        }
        for (int i = 0; i < N; i++) {
            double want[4], maxabs;
            ref_read(&im, fc[i], NULL, 1, cases[c].bits, 1, want, &maxabs);
            double tol =
                1e-6 + ((cases[c].bits & KILN_SAMPLER_FILTER_MASK) == KILN_SAMPLER_FILTER_LINEAR
                            ? ldexp(maxabs, -18)
                            : 0.0);
            for (int ch = 0; ch < 4; ch++) {
                int bad = !(fabs(out[i][ch] - want[ch]) <= tol);
                /* A folded sampler reads exactly as the same bits passed at run time. */
                if (cases[c].type == T2D && out_arg[i][ch] != out[i][ch])
                    bad = 1;
                if (bad && failures++ < 10)
                    fprintf(stderr,
                            "%s at (%g, %g, %g): channel %d got %.9g (argument %.9g) "
                            "want %.9g\n",
                            cases[c].kernel, (double)fc[i][0], (double)fc[i][1], (double)fc[i][2],
                            ch, (double)out[i][ch], (double)out_arg[i][ch], want[ch]);
            }
        }
        free(im.data);
    }
    ct_cc->destroy(p);
    return failures != 0;
}

/*
 * The read of a 5x5 convolution with a constant NEAREST, CLAMP_TO_EDGE sampler: after
 * optimisation the work-group function calls nothing (every builtin inlined, the sampler
 * folded), and no compare against an addressing or filter mode is left (the sampler's
 * bits appear nowhere). Prints what the vectoriser made of it.
 */
static int test_sampler_ir(void)
{
    static const char src[] =
        "constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
        "                         CLK_FILTER_NEAREST;\n"
        "kernel void conv(read_only image2d_t src, write_only image2d_t dst,\n"
        "                 constant float *w)\n"
        "{\n"
        "    int x = get_global_id(0), y = get_global_id(1);\n"
        "    float4 acc = 0.0f;\n"
        "    for (int j = -2; j <= 2; j++)\n"
        "        for (int i = -2; i <= 2; i++)\n"
        "            acc += w[(j + 2) * 5 + i + 2] * read_imagef(src, smp, (int2)(x + i, y + j));\n"
        "    write_imagef(dst, (int2)(x, y), acc);\n"
        "}\n";
    char *text = ct_dumped_ir(src, NULL, "optimized");
    CHECK(text);
    char *fn = ct_wg_function(text, "conv");
    CHECK(fn);
    printf("conv: %zu calls, %zu switches, %zu branches, widest float phi %u, %zu gathers\n",
           ct_count_of(fn, " call "), ct_count_of(fn, " switch "), ct_count_of(fn, " br "),
           ct_widest_vector_phi(fn, "float"), ct_count_of(fn, "@llvm.masked.gather"));
    /* Calls left may only be LLVM intrinsics. */
    const char *at = fn;
    int bad = 0;
    while ((at = strstr(at, " call ")) != NULL) {
        const char *name = strchr(at, '@');
        const char *eol = strchr(at, '\n');
        if (!name || (eol && name > eol) || strncmp(name, "@llvm.", 6) != 0) {
            fprintf(stderr, "call left: %.*s\n", (int)(eol ? eol - at : 80), at);
            bad = 1;
        }
        at += 6;
    }
    /* No test of the sampler's bits: 18 (0x12) would be its whole value. */
    CHECK(!strstr(fn, "__translate_sampler_initializer"));
    CHECK(!strstr(fn, "kiln.sampler.bits"));
    free(fn);
    free(text);
    return bad;
}

const struct ct_test ct_tests[] = {
    {"sampler_reads", test_sampler_reads},   {"sampler_half", test_sampler_half},
    {"sampler_border", test_sampler_border}, {"sampler_constant", test_sampler_constant},
    {"sampler_ir", test_sampler_ir},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
