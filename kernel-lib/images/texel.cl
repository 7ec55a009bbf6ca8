/*
 * The texel functions of kiln_image_lib.h: one pixel loaded or stored at integer
 * coordinates, converted between the image's format and float, int, uint or half by
 * OpenCL C 3.0 "Conversion Rules" (normalised integers, half, float, saturating
 * integers, the packed 565/555/101010 formats, sRGB), and put in (r, g, b, a) order by
 * the channel order.
 *
 * Every format decision is a switch on a descriptor field. The descriptor is the same
 * for every work-item of a launch and marked const restrict, so once these functions are
 * inlined into a work-item loop the switches are loop-invariant and LLVM may unswitch
 * them; nothing here calls anything but other library functions that are inlined too.
 * Loads and stores touch only the pixel's own bytes: channel by channel, or as one word
 * for four 8-bit or 16-bit channels (kiln_word32_u below), at any alignment.
 */
#include "kiln_image_lib.h"
#include "kiln_conv.h"
#include "srgb_table.h"

bool kiln_texel_in_range(kiln_image_desc_t d, int x, int y, int z)
{
    /* Unused dimensions are 1, so depth * array_size is the extent of z for every type.
     * `&`, not `&&`: every field is loaded, so in a work-item loop all three loads are
     * hoisted and only x's test varies (clamp_split.c then folds it in the interior). */
    return ((uint)x < (uint)d->width) & ((uint)y < (uint)d->height) &
           ((uint)z < (uint)(d->depth * d->array_size));
}

static __global uchar *pixel(kiln_image_desc_t d, int x, int y, int z)
{
    return d->data + (long)x * d->elem_size + (long)y * (long)d->row_pitch +
           (long)z * (long)d->slice_pitch;
}

/* The first n channels of type T at p, widened to uint; only those n are read. */
#define KILN_LOAD_CHANNELS(T, p, n)                                                                \
    ((uint4)((uint)((const __global T *)(p))[0],                                                   \
             (n) > 1 ? (uint)((const __global T *)(p))[1] : 0u,                                    \
             (n) > 2 ? (uint)((const __global T *)(p))[2] : 0u,                                    \
             (n) > 3 ? (uint)((const __global T *)(p))[3] : 0u))

#define KILN_STORE_CHANNELS(T, p, n, v)                                                            \
    do {                                                                                           \
        __global T *q_ = (__global T *)(p);                                                        \
        q_[0] = (T)(v).x;                                                                          \
        if ((n) > 1)                                                                               \
            q_[1] = (T)(v).y;                                                                      \
        if ((n) > 2)                                                                               \
            q_[2] = (T)(v).z;                                                                      \
        if ((n) > 3)                                                                               \
            q_[3] = (T)(v).w;                                                                      \
    } while (0)

/*
 * A pixel of four 8-bit or four 16-bit channels is loaded and stored as one 32-bit or
 * 64-bit word at byte alignment and split or joined as a vector: one access per pixel,
 * which stays one access when a work-item loop is widened across work-items (the
 * scalarizer turns the split into shifts), where four channel accesses would become four
 * gathers, and x86 has no gather of bytes or 16-bit words. Kiln's hosts are little-endian,
 * so the first channel is the word's low bits.
 */
typedef uint __attribute__((aligned(1))) kiln_word32_u;
typedef ulong __attribute__((aligned(1))) kiln_word64_u;

uint4 kiln_texel_load_raw(kiln_image_desc_t d, int x, int y, int z)
{
    const __global uchar *p = pixel(d, x, y, z);
    uint n = d->num_channels;
    uint w;
    switch (d->data_type) {
    case KILN_CL_SNORM_INT8:
    case KILN_CL_UNORM_INT8:
    case KILN_CL_SIGNED_INT8:
    case KILN_CL_UNSIGNED_INT8:
        if (n == 4)
            return convert_uint4(as_uchar4(*(const __global kiln_word32_u *)p));
        return KILN_LOAD_CHANNELS(uchar, p, n);
    case KILN_CL_SNORM_INT16:
    case KILN_CL_UNORM_INT16:
    case KILN_CL_SIGNED_INT16:
    case KILN_CL_UNSIGNED_INT16:
    case KILN_CL_HALF_FLOAT:
        if (n == 4)
            return convert_uint4(as_ushort4(*(const __global kiln_word64_u *)p));
        return KILN_LOAD_CHANNELS(ushort, p, n);
    case KILN_CL_UNORM_SHORT_565:
        w = *(const __global ushort *)p;
        return (uint4)(w >> 11, (w >> 5) & 0x3f, w & 0x1f, 0);
    case KILN_CL_UNORM_SHORT_555:
        w = *(const __global ushort *)p;
        return (uint4)((w >> 10) & 0x1f, (w >> 5) & 0x1f, w & 0x1f, 0);
    case KILN_CL_UNORM_INT_101010:
        w = *(const __global uint *)p;
        return (uint4)((w >> 20) & 0x3ff, (w >> 10) & 0x3ff, w & 0x3ff, 0);
    case KILN_CL_UNORM_INT_101010_2:
        w = *(const __global uint *)p;
        return (uint4)(w >> 22, (w >> 12) & 0x3ff, (w >> 2) & 0x3ff, w & 3);
    default: /* 32-bit channels: SIGNED_INT32, UNSIGNED_INT32, FLOAT */
        return KILN_LOAD_CHANNELS(uint, p, n);
    }
}

void kiln_texel_store_raw(kiln_image_desc_t d, int x, int y, int z, uint4 raw)
{
    __global uchar *p = pixel(d, x, y, z);
    uint n = d->num_channels;
    switch (d->data_type) {
    case KILN_CL_SNORM_INT8:
    case KILN_CL_UNORM_INT8:
    case KILN_CL_SIGNED_INT8:
    case KILN_CL_UNSIGNED_INT8:
        if (n == 4)
            *(__global kiln_word32_u *)p = as_uint(convert_uchar4(raw));
        else
            KILN_STORE_CHANNELS(uchar, p, n, raw);
        break;
    case KILN_CL_SNORM_INT16:
    case KILN_CL_UNORM_INT16:
    case KILN_CL_SIGNED_INT16:
    case KILN_CL_UNSIGNED_INT16:
    case KILN_CL_HALF_FLOAT:
        if (n == 4)
            *(__global kiln_word64_u *)p = as_ulong(convert_ushort4(raw));
        else
            KILN_STORE_CHANNELS(ushort, p, n, raw);
        break;
    case KILN_CL_UNORM_SHORT_565:
        *(__global ushort *)p =
            (ushort)(((raw.x & 0x1f) << 11) | ((raw.y & 0x3f) << 5) | (raw.z & 0x1f));
        break;
    case KILN_CL_UNORM_SHORT_555:
        *(__global ushort *)p =
            (ushort)(((raw.x & 0x1f) << 10) | ((raw.y & 0x1f) << 5) | (raw.z & 0x1f));
        break;
    case KILN_CL_UNORM_INT_101010:
        *(__global uint *)p = ((raw.x & 0x3ff) << 20) | ((raw.y & 0x3ff) << 10) | (raw.z & 0x3ff);
        break;
    case KILN_CL_UNORM_INT_101010_2:
        *(__global uint *)p = ((raw.x & 0x3ff) << 22) | ((raw.y & 0x3ff) << 12) |
                              ((raw.z & 0x3ff) << 2) | (raw.w & 3);
        break;
    default:
        KILN_STORE_CHANNELS(uint, p, n, raw);
        break;
    }
}

/*
 * The stored channels s (memory order) in (r, g, b, a) order, `one` for a missing alpha:
 * the same mapping for every result type.
 */
#define KILN_SWIZZLE(T, order, s, one)                                                             \
    switch (order) {                                                                               \
    case KILN_CL_R:                                                                                \
    case KILN_CL_Rx:                                                                               \
    case KILN_CL_DEPTH:                                                                            \
        return (T)((s).x, 0, 0, one);                                                              \
    case KILN_CL_A:                                                                                \
        return (T)(0, 0, 0, (s).x);                                                                \
    case KILN_CL_RG:                                                                               \
    case KILN_CL_RGx:                                                                              \
        return (T)((s).x, (s).y, 0, one);                                                          \
    case KILN_CL_RA:                                                                               \
        return (T)((s).x, 0, 0, (s).y);                                                            \
    case KILN_CL_RGB:                                                                              \
    case KILN_CL_RGBx:                                                                             \
    case KILN_CL_sRGB:                                                                             \
    case KILN_CL_sRGBx:                                                                            \
        return (T)((s).x, (s).y, (s).z, one);                                                      \
    case KILN_CL_BGRA:                                                                             \
    case KILN_CL_sBGRA:                                                                            \
        return (s).zyxw;                                                                           \
    case KILN_CL_ARGB:                                                                             \
        return (s).yzwx;                                                                           \
    case KILN_CL_ABGR:                                                                             \
        return (s).wzyx;                                                                           \
    case KILN_CL_INTENSITY:                                                                        \
        return (s).xxxx;                                                                           \
    case KILN_CL_LUMINANCE:                                                                        \
        return (T)((s).x, (s).x, (s).x, one);                                                      \
    default: /* CL_RGBA, CL_sRGBA */                                                               \
        return (s);                                                                                \
    }

/* The stored channels of colour c (r, g, b, a), the inverse of KILN_SWIZZLE; padding gets 0. */
#define KILN_UNSWIZZLE(T, order, c)                                                                \
    switch (order) {                                                                               \
    case KILN_CL_R:                                                                                \
    case KILN_CL_Rx:                                                                               \
    case KILN_CL_DEPTH:                                                                            \
    case KILN_CL_INTENSITY:                                                                        \
    case KILN_CL_LUMINANCE:                                                                        \
        return (T)((c).x, 0, 0, 0);                                                                \
    case KILN_CL_A:                                                                                \
        return (T)((c).w, 0, 0, 0);                                                                \
    case KILN_CL_RG:                                                                               \
    case KILN_CL_RGx:                                                                              \
        return (T)((c).x, (c).y, 0, 0);                                                            \
    case KILN_CL_RA:                                                                               \
        return (T)((c).x, (c).w, 0, 0);                                                            \
    case KILN_CL_RGB:                                                                              \
    case KILN_CL_RGBx:                                                                             \
    case KILN_CL_sRGB:                                                                             \
    case KILN_CL_sRGBx:                                                                            \
        return (T)((c).x, (c).y, (c).z, 0);                                                        \
    case KILN_CL_BGRA:                                                                             \
    case KILN_CL_sBGRA:                                                                            \
        return (c).zyxw;                                                                           \
    case KILN_CL_ARGB:                                                                             \
        return (c).wxyz;                                                                           \
    case KILN_CL_ABGR:                                                                             \
        return (c).wzyx;                                                                           \
    default:                                                                                       \
        return (c);                                                                                \
    }

static float4 swizzle_f(uint order, float4 s)
{
    KILN_SWIZZLE(float4, order, s, 1.0f)
}
static int4 swizzle_i(uint order, int4 s)
{
    KILN_SWIZZLE(int4, order, s, 1)
}
static uint4 swizzle_ui(uint order, uint4 s, uint one)
{
    KILN_SWIZZLE(uint4, order, s, one)
}
static float4 unswizzle_f(uint order, float4 c)
{
    KILN_UNSWIZZLE(float4, order, c)
}
static int4 unswizzle_i(uint order, int4 c)
{
    KILN_UNSWIZZLE(int4, order, c)
}
static uint4 unswizzle_ui(uint order, uint4 c)
{
    KILN_UNSWIZZLE(uint4, order, c)
}

static bool is_srgb(uint order)
{
    return order == KILN_CL_sRGB || order == KILN_CL_sRGBx || order == KILN_CL_sRGBA ||
           order == KILN_CL_sBGRA;
}

/*
 * The sRGB transfer functions (OpenCL C 3.0, "Conversion rules for sRGBA and sBGRA
 * images") on r, g and b; alpha is linear. Decoding: c / 12.92 up to c = 0.04045, else
 * ((c + 0.055) / 1.055)^2.4; sRGB images are CL_UNORM_INT8 only, so a read looks the
 * code up in srgb_table.h, correctly rounded. Encoding: NaN and negative to 0, above 1
 * to 1, 12.92 c below 0.0031308, else 1.055 c^(1/2.4) - 0.055 through powr.
 */
static float4 srgb_encode(float4 c)
{
    float4 v = KILN_EMIN(KILN_EMAX(c, (float4)0.0f), (float4)1.0f); /* NaN -> 0 */
    float4 curve = 1.055f * powr(v, 1.0f / 2.4f) - 0.055f;
    float4 r = v < 0.0031308f ? 12.92f * v : curve;
    r.w = c.w;
    return r;
}

/* Channels of 32 - shift bits sign-extended. */
static int4 sext(uint4 raw, int shift)
{
    return as_int4(raw << (uint)shift) >> shift;
}

/*
 * x / d for the integers x of a normalised format (|x| <= 65536) and its divisors 1, 3, 31,
 * 63, 127, 255, 1023, 32767 and 65535, correctly rounded without a division: x times the
 * reciprocal, then one step of Newton's correction on the exact remainder fma(-q, d, x).
 * Checked equal to the division, sign of zero included, for every such x and d. A vector
 * division costs several times the three fused operations, and a read converts every texel.
 */
static float4 div_exact(float4 x, float4 d)
{
    float4 r = 1.0f / d;
    float4 q = x * r;
    return __builtin_elementwise_fma(__builtin_elementwise_fma(-q, d, x), r, q);
}

float4 kiln_texel_raw_f(kiln_image_desc_t d, uint4 raw)
{
    float4 s;
    if (is_srgb(d->order)) {
        /* Stored channel 3 is alpha (sRGBA, sBGRA) or padding. */
        uint4 k = raw & 0xffu;
        s = (float4)(kiln_srgb_table[k.x], kiln_srgb_table[k.y], kiln_srgb_table[k.z],
                     div_exact((float4)k.w, (float4)255.0f).x);
        return swizzle_f(d->order, s);
    }
    switch (d->data_type) {
    case KILN_CL_UNORM_INT8:
        s = div_exact(convert_float4(raw), (float4)255.0f);
        break;
    case KILN_CL_UNORM_INT16:
        s = div_exact(convert_float4(raw), (float4)65535.0f);
        break;
    case KILN_CL_SNORM_INT8:
        s = KILN_EMAX(div_exact(convert_float4(sext(raw, 24)), (float4)127.0f), (float4)-1.0f);
        break;
    case KILN_CL_SNORM_INT16:
        s = KILN_EMAX(div_exact(convert_float4(sext(raw, 16)), (float4)32767.0f), (float4)-1.0f);
        break;
    case KILN_CL_UNORM_SHORT_565:
        s = div_exact(convert_float4(raw), (float4)(31.0f, 63.0f, 31.0f, 1.0f));
        break;
    case KILN_CL_UNORM_SHORT_555:
        s = div_exact(convert_float4(raw), (float4)31.0f);
        break;
    case KILN_CL_UNORM_INT_101010:
        s = div_exact(convert_float4(raw), (float4)1023.0f);
        break;
    case KILN_CL_UNORM_INT_101010_2:
        s = div_exact(convert_float4(raw), (float4)(1023.0f, 1023.0f, 1023.0f, 3.0f));
        break;
    case KILN_CL_HALF_FLOAT:
        s = kiln_h2f4(convert_ushort4(raw));
        break;
    case KILN_CL_SIGNED_INT8: /* read_imagef of an integer format is undefined: as int */
        s = convert_float4(sext(raw, 24));
        break;
    case KILN_CL_SIGNED_INT16:
        s = convert_float4(sext(raw, 16));
        break;
    case KILN_CL_SIGNED_INT32:
        s = convert_float4(as_int4(raw));
        break;
    case KILN_CL_UNSIGNED_INT8:
    case KILN_CL_UNSIGNED_INT16:
    case KILN_CL_UNSIGNED_INT32:
        s = convert_float4(raw);
        break;
    default: /* CL_FLOAT */
        s = as_float4(raw);
        break;
    }
    return swizzle_f(d->order, s);
}

int4 kiln_texel_raw_i(kiln_image_desc_t d, uint4 raw)
{
    int4 s;
    switch (d->data_type) {
    case KILN_CL_SIGNED_INT8:
        s = sext(raw, 24);
        break;
    case KILN_CL_SIGNED_INT16:
        s = sext(raw, 16);
        break;
    default: /* SIGNED_INT32; read_imagei of another format is undefined: its bits */
        s = as_int4(raw);
        break;
    }
    return swizzle_i(d->order, s);
}

uint4 kiln_texel_raw_ui(kiln_image_desc_t d, uint4 raw)
{
    return swizzle_ui(d->order, raw, 1u);
}

half4 kiln_texel_raw_h(kiln_image_desc_t d, uint4 raw)
{
    /* Exact for half images: the stored bits, 1.0h (0x3c00) for a missing alpha. */
    if (d->data_type == KILN_CL_HALF_FLOAT)
        return as_half4(convert_ushort4(swizzle_ui(d->order, raw, 0x3c00u)));
    return as_half4(kiln_f2h4(kiln_texel_raw_f(d, raw), KILN_RM_RTE));
}

float4 kiln_texel_f(kiln_image_desc_t d, int x, int y, int z)
{
    return kiln_texel_raw_f(d, kiln_texel_load_raw(d, x, y, z));
}

int4 kiln_texel_i(kiln_image_desc_t d, int x, int y, int z)
{
    return kiln_texel_raw_i(d, kiln_texel_load_raw(d, x, y, z));
}

uint4 kiln_texel_ui(kiln_image_desc_t d, int x, int y, int z)
{
    return kiln_texel_raw_ui(d, kiln_texel_load_raw(d, x, y, z));
}

half4 kiln_texel_h(kiln_image_desc_t d, int x, int y, int z)
{
    return kiln_texel_raw_h(d, kiln_texel_load_raw(d, x, y, z));
}

float4 kiln_texel_border_f(kiln_image_desc_t d)
{
    return kiln_texel_raw_f(d, (uint4)0);
}

int4 kiln_texel_border_i(kiln_image_desc_t d)
{
    return kiln_texel_raw_i(d, (uint4)0);
}

uint4 kiln_texel_border_ui(kiln_image_desc_t d)
{
    return kiln_texel_raw_ui(d, (uint4)0);
}

half4 kiln_texel_border_h(kiln_image_desc_t d)
{
    return kiln_texel_raw_h(d, (uint4)0);
}

/* convert_<uint>_sat_rte(f * scale) into [0, max]; NaN becomes 0 (maxNum semantics). */
static uint4 unorm(float4 f, float4 scale)
{
    float4 v = KILN_EMIN(KILN_EMAX(f * scale, (float4)0.0f), scale);
    return convert_uint4(__builtin_elementwise_roundeven(v));
}

/* convert_<int>_sat_rte(f * scale) into [-scale - 1, scale]; NaN becomes 0. */
static uint4 snorm(float4 f, float scale)
{
    float4 p = f * scale;
    float4 v = KILN_EMIN(KILN_EMAX(p, (float4)(-scale - 1.0f)), (float4)scale);
    v = p == p ? v : 0.0f; /* maxNum would make NaN the lower bound */
    return as_uint4(convert_int4(__builtin_elementwise_roundeven(v)));
}

/* An int colour saturated to the integer format's range, as stored bits. */
static uint4 sat_from_int(uint type, int4 v)
{
    switch (type) {
    case KILN_CL_SIGNED_INT8:
        return as_uint4(clamp(v, -128, 127));
    case KILN_CL_SIGNED_INT16:
        return as_uint4(clamp(v, -32768, 32767));
    case KILN_CL_UNSIGNED_INT8:
        return as_uint4(clamp(v, 0, 255));
    case KILN_CL_UNSIGNED_INT16:
        return as_uint4(clamp(v, 0, 65535));
    case KILN_CL_UNSIGNED_INT32:
        return as_uint4(max(v, 0));
    default:
        return as_uint4(v);
    }
}

/* A uint colour saturated to the integer format's range, as stored bits. */
static uint4 sat_from_uint(uint type, uint4 v)
{
    switch (type) {
    case KILN_CL_SIGNED_INT8:
    case KILN_CL_UNSIGNED_INT8:
        return min(v, type == KILN_CL_SIGNED_INT8 ? 127u : 255u);
    case KILN_CL_SIGNED_INT16:
    case KILN_CL_UNSIGNED_INT16:
        return min(v, type == KILN_CL_SIGNED_INT16 ? 32767u : 65535u);
    case KILN_CL_SIGNED_INT32:
        return min(v, 0x7fffffffu);
    default:
        return v;
    }
}

void kiln_texel_store_f(kiln_image_desc_t d, int x, int y, int z, float4 c)
{
    uint order = d->order;
    float4 s = unswizzle_f(order, is_srgb(order) ? srgb_encode(c) : c);
    uint4 raw;
    switch (d->data_type) {
    case KILN_CL_UNORM_INT8:
        raw = unorm(s, (float4)255.0f);
        break;
    case KILN_CL_UNORM_INT16:
        raw = unorm(s, (float4)65535.0f);
        break;
    case KILN_CL_SNORM_INT8:
        raw = snorm(s, 127.0f);
        break;
    case KILN_CL_SNORM_INT16:
        raw = snorm(s, 32767.0f);
        break;
    case KILN_CL_UNORM_SHORT_565:
        raw = unorm(s, (float4)(31.0f, 63.0f, 31.0f, 0.0f));
        break;
    case KILN_CL_UNORM_SHORT_555:
        raw = unorm(s, (float4)31.0f);
        break;
    case KILN_CL_UNORM_INT_101010:
        raw = unorm(s, (float4)1023.0f);
        break;
    case KILN_CL_UNORM_INT_101010_2:
        raw = unorm(s, (float4)(1023.0f, 1023.0f, 1023.0f, 3.0f));
        break;
    case KILN_CL_HALF_FLOAT:
        raw = convert_uint4(kiln_f2h4(s, KILN_RM_RTE));
        break;
    case KILN_CL_FLOAT:
        raw = as_uint4(s);
        break;
    default: /* write_imagef to an integer format is undefined: saturated like an int */
        raw = sat_from_int(d->data_type, convert_int4_sat_rte(s));
        break;
    }
    kiln_texel_store_raw(d, x, y, z, raw);
}

void kiln_texel_store_i(kiln_image_desc_t d, int x, int y, int z, int4 c)
{
    kiln_texel_store_raw(d, x, y, z, sat_from_int(d->data_type, unswizzle_i(d->order, c)));
}

void kiln_texel_store_ui(kiln_image_desc_t d, int x, int y, int z, uint4 c)
{
    kiln_texel_store_raw(d, x, y, z, sat_from_uint(d->data_type, unswizzle_ui(d->order, c)));
}

void kiln_texel_store_h(kiln_image_desc_t d, int x, int y, int z, half4 c)
{
    if (d->data_type == KILN_CL_HALF_FLOAT) {
        uint4 bits = convert_uint4(as_ushort4(c));
        kiln_texel_store_raw(d, x, y, z, unswizzle_ui(d->order, bits));
        return;
    }
    kiln_texel_store_f(d, x, y, z, kiln_h2f4(as_ushort4(c)));
}
