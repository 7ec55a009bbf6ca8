/*
 * The image formats Kiln supports (docs/images.md has the same table for the kernel
 * library's conversions), the specification's valid pairings of channel order and data
 * type, and the conversion of clEnqueueFillImage's colour into one pixel.
 *
 * Conversions follow OpenCL C 3.0 "Conversion Rules" for writes, as the spec asks of fills
 * (OpenCL 3.0 §5.3.4): a float goes to a normalised type by scaling, saturating and rounding
 * to nearest even (NaN becomes 0), to half by rounding to nearest even, to an sRGB channel
 * through the sRGB transfer function before that; integers saturate to the channel's range.
 */
#include "rt_image.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define RW (KILN_FMT_WRITE | KILN_FMT_READ_WRITE)

/* The twelve plain data types every "any type" channel order takes, and their sizes. */
#define PLAIN_TYPES(order, n)                                                                      \
    {order, CL_SNORM_INT8, (n), (n), RW}, {order, CL_SNORM_INT16, 2 * (n), (n), RW},               \
        {order, CL_UNORM_INT8, (n), (n), RW}, {order, CL_UNORM_INT16, 2 * (n), (n), RW},           \
        {order, CL_SIGNED_INT8, (n), (n), RW}, {order, CL_SIGNED_INT16, 2 * (n), (n), RW},         \
        {order, CL_SIGNED_INT32, 4 * (n), (n), RW}, {order, CL_UNSIGNED_INT8, (n), (n), RW},       \
        {order, CL_UNSIGNED_INT16, 2 * (n), (n), RW},                                              \
        {order, CL_UNSIGNED_INT32, 4 * (n), (n), RW}, {order, CL_HALF_FLOAT, 2 * (n), (n), RW},    \
    {                                                                                              \
        order, CL_FLOAT, 4 * (n), (n), RW                                                          \
    }

/* The normalised and floating types only (CL_INTENSITY, CL_LUMINANCE). */
#define FLOAT_TYPES(order)                                                                         \
    {order, CL_SNORM_INT8, 1, 1, RW}, {order, CL_SNORM_INT16, 2, 1, RW},                           \
        {order, CL_UNORM_INT8, 1, 1, RW}, {order, CL_UNORM_INT16, 2, 1, RW},                       \
        {order, CL_HALF_FLOAT, 2, 1, RW},                                                          \
    {                                                                                              \
        order, CL_FLOAT, 4, 1, RW                                                                  \
    }

/*
 * The table, in the order clGetSupportedImageFormats lists it. sRGB formats are read-only:
 * writing them needs cl_khr_srgb_image_writes, which Kiln does not report.
 */
static const struct kiln_rt_format formats[] = {
    PLAIN_TYPES(CL_RGBA, 4),
    {CL_BGRA, CL_UNORM_INT8, 4, 4, RW},
    PLAIN_TYPES(CL_R, 1),
    PLAIN_TYPES(CL_RG, 2),
    PLAIN_TYPES(CL_RA, 2),
    PLAIN_TYPES(CL_A, 1),
    FLOAT_TYPES(CL_INTENSITY),
    FLOAT_TYPES(CL_LUMINANCE),
    {CL_RGB, CL_UNORM_SHORT_565, 2, 3, RW},
    {CL_RGB, CL_UNORM_SHORT_555, 2, 3, RW},
    {CL_RGB, CL_UNORM_INT_101010, 4, 3, RW},
    {CL_sRGBA, CL_UNORM_INT8, 4, 4, 0},
    {CL_sBGRA, CL_UNORM_INT8, 4, 4, 0},
    {CL_DEPTH, CL_FLOAT, 4, 1, RW | KILN_FMT_DEPTH},
    {CL_DEPTH, CL_UNORM_INT16, 2, 1, RW | KILN_FMT_DEPTH},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct kiln_rt_format *kiln_rt_format_find(const cl_image_format *f)
{
    for (size_t i = 0; i < COUNT(formats); i++)
        if (formats[i].order == f->image_channel_order &&
            formats[i].type == f->image_channel_data_type)
            return &formats[i];
    return NULL;
}

static bool is_plain_type(cl_channel_type t)
{
    return (t >= CL_SNORM_INT8 && t <= CL_UNORM_INT16) || (t >= CL_SIGNED_INT8 && t <= CL_FLOAT);
}

static bool is_float_type(cl_channel_type t)
{
    return (t >= CL_SNORM_INT8 && t <= CL_UNORM_INT16) || t == CL_HALF_FLOAT || t == CL_FLOAT;
}

bool kiln_rt_format_valid(const cl_image_format *f)
{
    const cl_channel_type t = f->image_channel_data_type;
    switch (f->image_channel_order) {
    case CL_R:
    case CL_A:
    case CL_RG:
    case CL_RA:
    case CL_RGBA:
    case CL_Rx:
    case CL_RGx:
        return is_plain_type(t);
    case CL_INTENSITY:
    case CL_LUMINANCE:
        return is_float_type(t);
    case CL_RGB:
    case CL_RGBx:
        return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010;
    case CL_ARGB:
    case CL_BGRA:
    case CL_ABGR:
        return t == CL_UNORM_INT8 || t == CL_SNORM_INT8 || t == CL_SIGNED_INT8 ||
               t == CL_UNSIGNED_INT8;
    case CL_sRGB:
    case CL_sRGBx:
    case CL_sRGBA:
    case CL_sBGRA:
        return t == CL_UNORM_INT8;
    case CL_DEPTH:
        return t == CL_UNORM_INT16 || t == CL_FLOAT;
    default:
        return false;
    }
}

unsigned kiln_rt_format_list(cl_mem_flags flags, cl_mem_object_type type, cl_image_format *out,
                             unsigned cap)
{
    unsigned need = 0;
    if (flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE))
        need |= KILN_FMT_WRITE;
    if (flags & CL_MEM_KERNEL_READ_AND_WRITE)
        need |= KILN_FMT_READ_WRITE;
    const bool depth_ok = type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    unsigned n = 0;
    for (size_t i = 0; i < COUNT(formats); i++) {
        if ((formats[i].use & need) != need)
            continue;
        if ((formats[i].use & KILN_FMT_DEPTH) && !depth_ok)
            continue;
        if (n < cap) {
            out[n].image_channel_order = formats[i].order;
            out[n].image_channel_data_type = formats[i].type;
        }
        n++;
    }
    return n;
}

/* ---- conversions ---------------------------------------------------------------- */

/* round(clamp(v, lo, hi) * scale) to nearest even; NaN is 0. */
static long norm(float v, float lo, float scale)
{
    if (isnan(v))
        return 0;
    if (v < lo)
        v = lo;
    if (v > 1.0f)
        v = 1.0f;
    return (long)rintf(v * scale);
}

/* The sRGB transfer function (linear to encoded), in double so the rounding that follows is
 * the only one that matters. */
static float srgb_encode(float v)
{
    if (isnan(v))
        return 0.0f;
    double x = v <= 0.0f ? 0.0 : v >= 1.0f ? 1.0 : (double)v;
    return (float)(x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055);
}

/* float to IEEE half, rounded to nearest even; NaN stays a (quiet) NaN. */
static uint16_t to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) /* NaN */
        return sign | 0x7e00u;
    if (abs >= 0x477ff000u) /* rounds to or past 65520: infinity */
        return sign | 0x7c00u;
    if (abs < 0x38800000u) {   /* below 2^-14: a subnormal half or zero */
        if (abs < 0x33000000u) /* at most 2^-25: rounds to 0 */
            return sign;
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const int shift = 126 - (int)(abs >> 23); /* 14..24 + the implicit bit's offset */
        const uint32_t kept = mant >> shift, rest = mant & ((1u << shift) - 1);
        const uint32_t half_way = 1u << (shift - 1);
        uint32_t h = kept;
        if (rest > half_way || (rest == half_way && (kept & 1)))
            h++;
        return sign | (uint16_t)h;
    }
    /* Normal: rebias the exponent, round the 13 dropped bits to nearest even (a carry into
     * the exponent is the right answer, up to infinity, excluded above). */
    uint32_t h = ((abs - 0x38000000u) >> 13);
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

static long long clamp_ll(long long v, long long lo, long long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One channel `c` (0..3: r, g, b, a of the colour) of type t at out. */
static void put_channel(cl_channel_type t, const void *color, int c, bool srgb, unsigned char *out)
{
    float f;
    int32_t i;
    uint32_t u;
    memcpy(&f, (const unsigned char *)color + 4 * c, 4);
    memcpy(&i, (const unsigned char *)color + 4 * c, 4);
    memcpy(&u, (const unsigned char *)color + 4 * c, 4);
    if (srgb && c < 3)
        f = srgb_encode(f);
    switch (t) {
    case CL_UNORM_INT8:
        out[0] = (unsigned char)norm(f, 0.0f, 255.0f);
        break;
    case CL_SNORM_INT8:
        out[0] = (unsigned char)(signed char)norm(f, -1.0f, 127.0f);
        break;
    case CL_UNORM_INT16: {
        uint16_t v = (uint16_t)norm(f, 0.0f, 65535.0f);
        memcpy(out, &v, 2);
        break;
    }
    case CL_SNORM_INT16: {
        int16_t v = (int16_t)norm(f, -1.0f, 32767.0f);
        memcpy(out, &v, 2);
        break;
    }
    case CL_HALF_FLOAT: {
        uint16_t v = to_half(f);
        memcpy(out, &v, 2);
        break;
    }
    case CL_FLOAT:
        memcpy(out, &f, 4);
        break;
    case CL_SIGNED_INT8:
        out[0] = (unsigned char)(signed char)clamp_ll(i, INT8_MIN, INT8_MAX);
        break;
    case CL_SIGNED_INT16: {
        int16_t v = (int16_t)clamp_ll(i, INT16_MIN, INT16_MAX);
        memcpy(out, &v, 2);
        break;
    }
    case CL_SIGNED_INT32:
        memcpy(out, &i, 4);
        break;
    case CL_UNSIGNED_INT8:
        out[0] = (unsigned char)(u > UINT8_MAX ? UINT8_MAX : u);
        break;
    case CL_UNSIGNED_INT16: {
        uint16_t v = (uint16_t)(u > UINT16_MAX ? UINT16_MAX : u);
        memcpy(out, &v, 2);
        break;
    }
    case CL_UNSIGNED_INT32:
        memcpy(out, &u, 4);
        break;
    default:
        break;
    }
}

void kiln_rt_format_pack(const struct kiln_rt_format *f, const void *color, unsigned char *out)
{
    /* Which colour channel each stored channel holds, in memory order. */
    static const int rgba[] = {0, 1, 2, 3}, bgra[] = {2, 1, 0, 3}, ra[] = {0, 3}, a[] = {3};
    const int *map = rgba;
    bool srgb = false;
    memset(out, 0, f->elem_size);
    switch (f->order) {
    case CL_BGRA:
        map = bgra;
        break;
    case CL_sRGBA:
        srgb = true;
        break;
    case CL_sBGRA:
        map = bgra;
        srgb = true;
        break;
    case CL_RA:
        map = ra;
        break;
    case CL_A:
        map = a;
        break;
    case CL_RGB: {
        /* Packed: red in the high bits (OpenCL 3.0 §5.3.1.1, the packed types). */
        float c[3];
        memcpy(c, color, sizeof(c));
        uint32_t v;
        if (f->type == CL_UNORM_INT_101010) {
            v = (uint32_t)norm(c[0], 0.0f, 1023.0f) << 20 |
                (uint32_t)norm(c[1], 0.0f, 1023.0f) << 10 | (uint32_t)norm(c[2], 0.0f, 1023.0f);
            memcpy(out, &v, 4);
        } else {
            const bool g6 = f->type == CL_UNORM_SHORT_565;
            const float gmax = g6 ? 63.0f : 31.0f;
            v = (uint32_t)norm(c[0], 0.0f, 31.0f) << (g6 ? 11 : 10) |
                (uint32_t)norm(c[1], 0.0f, gmax) << 5 | (uint32_t)norm(c[2], 0.0f, 31.0f);
            uint16_t s = (uint16_t)v;
            memcpy(out, &s, 2);
        }
        return;
    }
    default: /* R, RG, RGBA, INTENSITY, LUMINANCE, DEPTH: the first channels in order */
        break;
    }
    const size_t size = f->elem_size / f->num_channels;
    for (unsigned k = 0; k < f->num_channels; k++)
        put_channel(f->type, color, map[k], srgb, out + k * size);
}
