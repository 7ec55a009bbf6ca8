/*
 * The images family of the kernel library (kernel-lib/images/) run on hand-built image
 * descriptors (include/kiln_image.h): write_image{f,i,ui,h}, the sampler-less
 * read_image{f,i,ui,h} and the get_image_* queries, for every image type and every
 * channel order and data type pair the specification allows, against a host reference
 * of OpenCL C 3.0's "Conversion Rules". The cases are generated from the tables below.
 *
 * Bounds: writes exact (round to nearest even, saturation, NaN to 0), except sRGB,
 * whose stored value may be one off where the encoded value lies within 1/100 of a
 * rounding tie; reads exact for integer, half and float formats, correctly rounded
 * (0.5 ulp) for normalised formats, tighter than the specification's 1.5 ulp with exact
 * end points: Kiln divides exactly without a division instruction (texel.cl), within
 * KILN_SRGB_READ_ULP ulp for sRGB (correctly rounded). read_imageh/write_imageh: every
 * half through a CL_HALF_FLOAT image bit-exactly, normalised formats within 1.5 half ulp.
 *
 * Usage: kiln-cc-images-test LIBKILN_CC.so TEST (cc_harness.c); KILN_IMAGES=1 gives
 * kernels the image features (half they have unless KILN_FP16=0).
 */
#define _POSIX_C_SOURCE          200809L
#define CL_TARGET_OPENCL_VERSION 300
#include "cc_harness.h"
#include "kiln_image.h"

#include <CL/cl.h>
#include <math.h>

/* sRGB reads look the code up in a correctly rounded table (kernel-lib/images/srgb_table.h). */
#define KILN_SRGB_READ_ULP 0.5

/* ------------------------------------------------------------------ formats */

struct fmt {
    cl_uint order, type;
    unsigned nch;  /* channels stored */
    unsigned elem; /* bytes per pixel */
};

static bool is_packed(cl_uint t)
{
    return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010 ||
           t == CL_UNORM_INT_101010_2;
}

static unsigned chan_bytes(cl_uint t)
{
    switch (t) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
        return 1;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
        return 2;
    default:
        return 4;
    }
}

static const cl_uint all_types[] = {CL_SNORM_INT8,        CL_SNORM_INT16,     CL_UNORM_INT8,
                                    CL_UNORM_INT16,       CL_UNORM_SHORT_565, CL_UNORM_SHORT_555,
                                    CL_UNORM_INT_101010,  CL_SIGNED_INT8,     CL_SIGNED_INT16,
                                    CL_SIGNED_INT32,      CL_UNSIGNED_INT8,   CL_UNSIGNED_INT16,
                                    CL_UNSIGNED_INT32,    CL_HALF_FLOAT,      CL_FLOAT,
                                    CL_UNORM_INT_101010_2};
static const cl_uint all_orders[] = {CL_R,         CL_A,     CL_RG,    CL_RA,   CL_RGB,
                                     CL_RGBA,      CL_BGRA,  CL_ARGB,  CL_ABGR, CL_INTENSITY,
                                     CL_LUMINANCE, CL_Rx,    CL_RGx,   CL_RGBx, CL_DEPTH,
                                     CL_sRGB,      CL_sRGBx, CL_sRGBA, CL_sBGRA};

/* Whether the specification allows the pair (OpenCL 3.0 API §5.3.1.1), and its layout. */
static bool fmt_make(cl_uint order, cl_uint type, struct fmt *f)
{
    bool norm8 = type == CL_UNORM_INT8, packed = is_packed(type);
    bool eight = type == CL_UNORM_INT8 || type == CL_SNORM_INT8 || type == CL_SIGNED_INT8 ||
                 type == CL_UNSIGNED_INT8;
    bool plain = !packed;
    bool ok;
    unsigned nch;
    switch (order) {
    case CL_R:
    case CL_A:
        ok = plain, nch = 1;
        break;
    case CL_Rx:
    case CL_RG:
    case CL_RA:
        ok = plain, nch = 2;
        break;
    case CL_RGx:
        ok = plain, nch = 3;
        break;
    case CL_RGB:
    case CL_RGBx:
        ok = packed && type != CL_UNORM_INT_101010_2, nch = 3;
        break;
    case CL_RGBA:
        ok = plain || type == CL_UNORM_INT_101010_2, nch = 4;
        break;
    case CL_BGRA:
    case CL_ARGB:
    case CL_ABGR:
        ok = eight, nch = 4;
        break;
    case CL_INTENSITY:
    case CL_LUMINANCE:
        ok = type == CL_UNORM_INT8 || type == CL_UNORM_INT16 || type == CL_SNORM_INT8 ||
             type == CL_SNORM_INT16 || type == CL_HALF_FLOAT || type == CL_FLOAT;
        nch = 1;
        break;
    case CL_DEPTH:
        ok = type == CL_UNORM_INT16 || type == CL_FLOAT, nch = 1;
        break;
    case CL_sRGB:
        ok = norm8, nch = 3;
        break;
    default: /* sRGBx, sRGBA, sBGRA */
        ok = norm8, nch = 4;
        break;
    }
    if (!ok)
        return false;
    f->order = order;
    f->type = type;
    f->nch = nch;
    if (type == CL_UNORM_INT_101010_2)
        f->nch = 4;
    f->elem = packed ? (type == CL_UNORM_SHORT_565 || type == CL_UNORM_SHORT_555 ? 2 : 4)
                     : nch * chan_bytes(type);
    return true;
}

enum fclass { FC_FLOAT, FC_INT, FC_UINT };

static enum fclass fmt_class(cl_uint t)
{
    if (t == CL_SIGNED_INT8 || t == CL_SIGNED_INT16 || t == CL_SIGNED_INT32)
        return FC_INT;
    if (t == CL_UNSIGNED_INT8 || t == CL_UNSIGNED_INT16 || t == CL_UNSIGNED_INT32)
        return FC_UINT;
    return FC_FLOAT;
}

static bool is_srgb(cl_uint o)
{
    return o == CL_sRGB || o == CL_sRGBx || o == CL_sRGBA || o == CL_sBGRA;
}

/*
 * Colour component stored in channel i (memory order), -1 for padding: the inverse of
 * the read mapping below.
 */
static int stored_from(cl_uint order, unsigned i)
{
    static const int r[] = {0, -1, -1, -1}, a[] = {3, -1, -1, -1}, rg[] = {0, 1, -1, -1},
                     ra[] = {0, 3, -1, -1}, rgb[] = {0, 1, 2, -1}, rgba[] = {0, 1, 2, 3},
                     bgra[] = {2, 1, 0, 3}, argb[] = {3, 0, 1, 2}, abgr[] = {3, 2, 1, 0};
    switch (order) {
    case CL_A:
        return a[i];
    case CL_RG:
    case CL_RGx:
        return rg[i];
    case CL_RA:
        return ra[i];
    case CL_RGB:
    case CL_RGBx:
    case CL_sRGB:
    case CL_sRGBx:
        return rgb[i];
    case CL_RGBA:
    case CL_sRGBA:
        return rgba[i];
    case CL_BGRA:
    case CL_sBGRA:
        return bgra[i];
    case CL_ARGB:
        return argb[i];
    case CL_ABGR:
        return abgr[i];
    default: /* R, Rx, INTENSITY, LUMINANCE, DEPTH: the first component */
        return r[i];
    }
}

#define SRC_ZERO (-1)
#define SRC_ONE  (-2)
/* Stored channel that read component j comes from, or SRC_ZERO / SRC_ONE. */
static int read_from(cl_uint order, unsigned j)
{
    static const int r[] = {0, SRC_ZERO, SRC_ZERO, SRC_ONE},
                     a[] = {SRC_ZERO, SRC_ZERO, SRC_ZERO, 0}, rg[] = {0, 1, SRC_ZERO, SRC_ONE},
                     ra[] = {0, SRC_ZERO, SRC_ZERO, 1}, rgb[] = {0, 1, 2, SRC_ONE},
                     rgba[] = {0, 1, 2, 3}, bgra[] = {2, 1, 0, 3}, argb[] = {1, 2, 3, 0},
                     abgr[] = {3, 2, 1, 0}, in[] = {0, 0, 0, 0}, lum[] = {0, 0, 0, SRC_ONE};
    switch (order) {
    case CL_A:
        return a[j];
    case CL_RG:
    case CL_RGx:
        return rg[j];
    case CL_RA:
        return ra[j];
    case CL_RGB:
    case CL_RGBx:
    case CL_sRGB:
    case CL_sRGBx:
        return rgb[j];
    case CL_RGBA:
    case CL_sRGBA:
        return rgba[j];
    case CL_BGRA:
    case CL_sBGRA:
        return bgra[j];
    case CL_ARGB:
        return argb[j];
    case CL_ABGR:
        return abgr[j];
    case CL_INTENSITY:
        return in[j];
    case CL_LUMINANCE:
        return lum[j];
    default:
        return r[j];
    }
}

/* The stored channels of a pixel's bytes, packed fields taken apart. */
static void unpack(const struct fmt *f, const unsigned char *p, uint32_t raw[4])
{
    uint16_t s;
    uint32_t w;
    memset(raw, 0, 4 * sizeof(raw[0]));
    switch (f->type) {
    case CL_UNORM_SHORT_565:
        memcpy(&s, p, 2);
        raw[0] = s >> 11, raw[1] = (s >> 5) & 63, raw[2] = s & 31;
        return;
    case CL_UNORM_SHORT_555:
        memcpy(&s, p, 2);
        raw[0] = (s >> 10) & 31, raw[1] = (s >> 5) & 31, raw[2] = s & 31;
        return;
    case CL_UNORM_INT_101010:
        memcpy(&w, p, 4);
        raw[0] = (w >> 20) & 1023, raw[1] = (w >> 10) & 1023, raw[2] = w & 1023;
        return;
    case CL_UNORM_INT_101010_2:
        memcpy(&w, p, 4);
        raw[0] = w >> 22, raw[1] = (w >> 12) & 1023, raw[2] = (w >> 2) & 1023, raw[3] = w & 3;
        return;
    default:
        for (unsigned i = 0; i < f->nch; i++) {
            unsigned b = chan_bytes(f->type);
            uint32_t v = 0;
            memcpy(&v, p + i * b, b); /* little-endian host, as the device */
            raw[i] = v;
        }
    }
}

/* ------------------------------------------------------------------ half reference */

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* The half nearest x, ties to even (any NaN half for a NaN). */
static uint16_t float_to_half(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return sign | 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    int e = a == 0 ? -14 : ilogb(a);
    if (e < -14)
        e = -14;
    double q = nearbyint(ldexp(a, 10 - e)); /* the significand in units of the last place */
    double v = ldexp(q, e - 10);            /* the rounded value, a half */
    if (v == 0)
        return sign;
    if (v < 0x1p-14)
        return sign | (uint16_t)ldexp(v, 24);
    int ve = ilogb(v);
    return sign | (uint16_t)((ve + 15) << 10) | (uint16_t)(ldexp(v, 10 - ve) - 1024);
}

/* ------------------------------------------------------------------ write reference */

/* convert_<type>_sat_rte(f * scale) over [lo, hi], as the device computes f * scale. */
static uint32_t sat_rte(float f, float scale, float lo, float hi)
{
    float p = f * scale;
    if (isnan(p))
        return 0;
    p = p < lo ? lo : (p > hi ? hi : p);
    return (uint32_t)(int32_t)nearbyintf(p);
}

static double srgb_encode(double c)
{
    if (isnan(c) || c <= 0)
        return 0;
    if (c >= 1)
        return 1;
    return c < 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

/*
 * Expected stored channel i of colour c written with write_imagef; *tol is how far the
 * device may be off, *any_nan that any NaN is right.
 */
static uint32_t expect_store_f(const struct fmt *f, unsigned i, const float c[4], uint32_t *tol,
                               bool *any_nan)
{
    int src = stored_from(f->order, i);
    float v = c[src];
    *tol = 0;
    *any_nan = false;
    if (is_srgb(f->order) && src != 3) {
        double e = srgb_encode(v) * 255.0;
        if (fabs(e - floor(e) - 0.5) < 0.01)
            *tol = 1;
        return (uint32_t)nearbyint(e);
    }
    float x = i == 3 ? 3.0f : (i == 1 ? 63.0f : 31.0f);
    switch (f->type) {
    case CL_UNORM_INT8:
        return sat_rte(v, 255.0f, 0, 255);
    case CL_UNORM_INT16:
        return sat_rte(v, 65535.0f, 0, 65535);
    case CL_SNORM_INT8:
        return sat_rte(v, 127.0f, -128, 127) & 0xff;
    case CL_SNORM_INT16:
        return sat_rte(v, 32767.0f, -32768, 32767) & 0xffff;
    case CL_UNORM_SHORT_565:
        return sat_rte(v, x, 0, x);
    case CL_UNORM_SHORT_555:
        return sat_rte(v, 31.0f, 0, 31);
    case CL_UNORM_INT_101010:
        return sat_rte(v, 1023.0f, 0, 1023);
    case CL_UNORM_INT_101010_2:
        return i == 3 ? sat_rte(v, 3.0f, 0, 3) : sat_rte(v, 1023.0f, 0, 1023);
    case CL_HALF_FLOAT:
        *any_nan = isnan(v);
        return float_to_half(v);
    default: { /* CL_FLOAT */
        uint32_t b;
        memcpy(&b, &v, 4);
        *any_nan = isnan(v);
        return b;
    }
    }
}

/* Expected stored channel i of an int (write_imagei) or uint (write_imageui) colour. */
static uint32_t expect_store_int(const struct fmt *f, unsigned i, const int64_t c[4])
{
    int64_t v = c[stored_from(f->order, i)], lo, hi;
    switch (f->type) {
    case CL_SIGNED_INT8:
        lo = -128, hi = 127;
        break;
    case CL_SIGNED_INT16:
        lo = -32768, hi = 32767;
        break;
    case CL_SIGNED_INT32:
        lo = INT32_MIN, hi = INT32_MAX;
        break;
    case CL_UNSIGNED_INT8:
        lo = 0, hi = 255;
        break;
    case CL_UNSIGNED_INT16:
        lo = 0, hi = 65535;
        break;
    default:
        lo = 0, hi = UINT32_MAX;
        break;
    }
    v = v < lo ? lo : (v > hi ? hi : v);
    uint32_t mask = chan_bytes(f->type) == 4 ? 0xffffffffu : (1u << (8 * chan_bytes(f->type))) - 1;
    return (uint32_t)v & mask;
}

/* ------------------------------------------------------------------ read reference */

static int32_t sext(uint32_t v, unsigned bits)
{
    return bits == 32 ? (int32_t)v : (int32_t)(v << (32 - bits)) >> (32 - bits);
}

/* The exact value a read_imagef of stored channel value raw (channel i) means. */
static double exact_read_f(const struct fmt *f, unsigned i, uint32_t raw, bool *exact)
{
    *exact = false;
    double v;
    switch (f->type) {
    case CL_UNORM_INT8:
        v = raw / 255.0;
        break;
    case CL_UNORM_INT16:
        v = raw / 65535.0;
        break;
    case CL_SNORM_INT8:
        v = fmax(sext(raw, 8) / 127.0, -1.0);
        break;
    case CL_SNORM_INT16:
        v = fmax(sext(raw, 16) / 32767.0, -1.0);
        break;
    case CL_UNORM_SHORT_565:
        v = raw / (i == 1 ? 63.0 : 31.0);
        break;
    case CL_UNORM_SHORT_555:
        v = raw / 31.0;
        break;
    case CL_UNORM_INT_101010:
        v = raw / 1023.0;
        break;
    case CL_UNORM_INT_101010_2:
        v = raw / (i == 3 ? 3.0 : 1023.0);
        break;
    case CL_HALF_FLOAT:
        *exact = true;
        return half_to_float((uint16_t)raw);
    default: {
        float x;
        memcpy(&x, &raw, 4);
        *exact = true;
        return x;
    }
    }
    if (v == 0 || v == 1 || v == -1)
        *exact = true; /* the end points are exact */
    return v;
}

static double ulp_of(double v, int mant_bits, int min_exp)
{
    int e = v == 0 ? min_exp : ilogb(v);
    if (e < min_exp)
        e = min_exp;
    return ldexp(1.0, e - mant_bits);
}

/* Whether a float result fits an exact reference within `ulps` float ulp. */
static bool close_f(float got, double want, bool exact, double ulps)
{
    if (isnan(want))
        return isnan(got);
    if (exact)
        return got == want && !signbit(got) == !signbit(want);
    return fabs(got - want) <= ulps * ulp_of(fabs(want), 23, -126);
}

/* ------------------------------------------------------------------ image types */

struct itype {
    const char *type, *suffix, *coord;
    cl_uint cl_type;
    int w, h, l; /* width, height, depth or layers */
    bool depth, array;
};

static const struct itype itypes[] = {
    {"image1d_t", "1d", "x", CL_MEM_OBJECT_IMAGE1D, 7, 1, 1, false, false},
    {"image1d_buffer_t", "1d_buffer", "x", CL_MEM_OBJECT_IMAGE1D_BUFFER, 9, 1, 1, false, false},
    {"image1d_array_t", "1d_array", "(int2)(x, z)", CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 1, 3, false,
     true},
    {"image2d_t", "2d", "(int2)(x, y)", CL_MEM_OBJECT_IMAGE2D, 5, 3, 1, false, false},
    {"image2d_array_t", "2d_array", "(int4)(x, y, z, 0)", CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 2,
     false, true},
    {"image3d_t", "3d", "(int4)(x, y, z, 0)", CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, false, false},
    {"image2d_depth_t", "2d_depth", "(int2)(x, y)", CL_MEM_OBJECT_IMAGE2D, 5, 3, 1, true, false},
    {"image2d_array_depth_t", "2d_array_depth", "(int4)(x, y, z, 0)", CL_MEM_OBJECT_IMAGE2D_ARRAY,
     4, 3, 2, true, true},
};
#define NUM_ITYPES (sizeof(itypes) / sizeof(itypes[0]))

/* An image: its descriptor and memory, every byte outside the pixels a sentinel. */
struct img {
    struct kiln_image desc;
    unsigned char *mem;
    size_t size;
};

#define SENTINEL 0xa5

static int img_make(struct img *im, const struct itype *t, const struct fmt *f)
{
    memset(&im->desc, 0, sizeof(im->desc));
    struct kiln_image *d = &im->desc;
    d->type = t->cl_type;
    d->order = f->order;
    d->data_type = f->type;
    d->elem_size = f->elem;
    d->num_channels = f->nch;
    d->width = t->w;
    d->height = t->h;
    d->depth = t->array ? 1 : t->l;
    d->array_size = t->array ? t->l : 1;
    /* Pitches with room for one more pixel per row, which the tests touch out of range. */
    size_t row = (size_t)(t->w + 2) * f->elem;
    if (t->h == 1 && !t->array && t->l == 1) {
        d->row_pitch = (size_t)t->w * f->elem;
        d->slice_pitch = 0;
    } else if (t->h == 1) { /* 1D array: layers step by the slice pitch */
        d->row_pitch = row;
        d->slice_pitch = row;
    } else {
        d->row_pitch = row;
        d->slice_pitch = t->l > 1 ? row * (size_t)t->h + 16 : 0;
    }
    im->size = 64 + (d->slice_pitch ? d->slice_pitch * (size_t)t->l : row * (size_t)t->h);
    im->mem = aligned_alloc(64, (im->size + 63) / 64 * 64);
    if (!im->mem)
        return 1;
    memset(im->mem, SENTINEL, im->size);
    d->data = im->mem;
    return 0;
}

static size_t pixel_off(const struct kiln_image *d, int x, int y, int z)
{
    return (size_t)x * d->elem_size + (size_t)y * d->row_pitch + (size_t)z * d->slice_pitch;
}

/* Whether byte b of the image lies in a pixel. */
static bool in_pixel(const struct img *im, const struct itype *t, size_t b)
{
    const struct kiln_image *d = &im->desc;
    for (int z = 0; z < t->l; z++)
        for (int y = 0; y < t->h; y++) {
            size_t start = pixel_off(d, 0, y, z);
            if (b >= start && b < start + (size_t)t->w * d->elem_size)
                return true;
        }
    return false;
}

/* ------------------------------------------------------------------ kernels */

/*
 * One program per access qualifier pair: for every image type, kernels w<f|i|ui|h>_<type>
 * (write in[i] at the work-item's pixel) and r<f|i|ui|h>_<type> (read into out[i]), over
 * a (w + 1) x h x l range whose last column is outside the image.
 */
static char *kernels_source(const char *wacc, const char *racc)
{
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                            "#define IDX int x = get_global_id(0), y = get_global_id(1), "
                            "z = get_global_id(2); int i = (z * h + y) * w + x;\n");
    static const char *const sfx[] = {"f", "i", "ui", "h"};
    static const char *const vec[] = {"float4", "int4", "uint4", "half4"};
    for (size_t t = 0; t < NUM_ITYPES; t++) {
        const struct itype *it = &itypes[t];
        for (unsigned k = 0; k < (it->depth ? 1u : 4u); k++) {
            len += (size_t)snprintf(
                s + len, cap - len,
                "kernel void w%s_%s(%s %s img, global const %s *in, int w, int h)\n"
                "{ IDX write_image%s(img, %s, in[i]%s); }\n"
                "kernel void r%s_%s(%s %s img, global %s *out, int w, int h)\n"
                "{ IDX out[i] = %sread_image%s(img, %s)%s; }\n",
                sfx[k], it->suffix, wacc, it->type, vec[k], sfx[k], it->coord,
                it->depth ? ".x" : "", sfx[k], it->suffix, racc, it->type, vec[k],
                it->depth ? "(float4)(" : "", sfx[k], it->coord, it->depth ? ", 0, 0, 0)" : "");
            if (len >= cap) {
                free(s);
                return NULL;
            }
        }
    }
    return s;
}

static const struct kiln_cc_kernel *find(const struct kiln_cc_program *p, const char *prefix,
                                         const struct itype *t)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%s", prefix, t->suffix);
    return ct_find_kernel(p, name);
}

static void run(const struct kiln_cc_kernel *k, struct img *im, const struct itype *t, void *buf)
{
    const struct kiln_image *dp = &im->desc;
    int w = t->w + 1, h = t->h;
    void *args[] = {&dp, &buf, &w, &h};
    size_t off[3] = {0, 0, 0}, gs[3] = {(size_t)w, (size_t)h, (size_t)t->l}, ls[3] = {4, 2, 1};
    ct_run_ndrange(k, args, 3, off, gs, ls, NULL);
}

/* A small deterministic generator (xorshift) for the colours and bytes. */
static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static float rand_colour(unsigned n, bool wide)
{
    static const float special[] = {0.0f,  -0.0f,      1.0f,      -1.0f,      0.5f,
                                    NAN,   INFINITY,   -INFINITY, 1.0000001f, -1.0000001f,
                                    2.0f,  -2.0f,      1e-30f,    65504.0f,   65520.0f,
                                    1e-8f, 0.5f / 255, 1.5f / 31, 0x1p-25f,   0x1.8p-24f};
    if (n < sizeof(special) / sizeof(special[0]))
        return special[n];
    float u = (float)(rng() >> 8) * 0x1p-24f;
    return wide ? ldexpf(u * 2 - 1, (int)(rng() % 40) - 20) : u * 2.5f - 1.25f;
}

static int64_t rand_int(unsigned n, bool is_unsigned)
{
    static const int64_t special[] = {0,      1,     -1,    127,       128,       -128,
                                      -129,   255,   256,   32767,     32768,     -32768,
                                      -32769, 65535, 65536, INT32_MAX, INT32_MIN, -2};
    int64_t v = n < sizeof(special) / sizeof(special[0]) ? special[n] : (int32_t)rng();
    return is_unsigned ? (int64_t)(uint32_t)v : v;
}

static size_t npix(const struct itype *t)
{
    return (size_t)(t->w + 1) * (size_t)t->h * (size_t)t->l;
}

static size_t idx_of(const struct itype *t, int x, int y, int z)
{
    return ((size_t)z * (size_t)t->h + (size_t)y) * (size_t)(t->w + 1) + (size_t)x;
}

/* The formats of one image type: depth types take CL_DEPTH, the others every other order. */
static size_t formats_for(const struct itype *t, struct fmt *out)
{
    size_t n = 0;
    for (size_t o = 0; o < sizeof(all_orders) / sizeof(all_orders[0]); o++)
        for (size_t ty = 0; ty < sizeof(all_types) / sizeof(all_types[0]); ty++) {
            if ((all_orders[o] == CL_DEPTH) != t->depth)
                continue;
            if (fmt_make(all_orders[o], all_types[ty], &out[n]))
                n++;
        }
    return n;
}

/* ------------------------------------------------------------------ tests */

/* Checks one written image against the colours; k: 0 f, 1 i, 2 ui, 3 h. */
static int check_written(const struct img *im, const struct itype *t, const struct fmt *f,
                         unsigned k, const void *in)
{
    for (size_t b = 0; b < im->size; b++)
        if (!in_pixel(im, t, b) && im->mem[b] != SENTINEL) {
            fprintf(stderr, "byte %zu outside the pixels written\n", b);
            return 1;
        }
    for (int z = 0; z < t->l; z++)
        for (int y = 0; y < t->h; y++)
            for (int x = 0; x < t->w; x++) {
                size_t i = idx_of(t, x, y, z);
                uint32_t raw[4];
                unpack(f, im->mem + pixel_off(&im->desc, x, y, z), raw);
                float c[4];
                int64_t ic[4];
                for (unsigned j = 0; j < 4; j++) {
                    if (k == 0)
                        c[j] = ((const float *)in)[4 * i + j];
                    else if (k == 3)
                        c[j] = half_to_float(((const uint16_t *)in)[4 * i + j]);
                    else if (k == 1)
                        ic[j] = ((const int32_t *)in)[4 * i + j];
                    else
                        ic[j] = ((const uint32_t *)in)[4 * i + j];
                }
                for (unsigned ch = 0; ch < f->nch; ch++) {
                    if (stored_from(f->order, ch) < 0)
                        continue; /* padding */
                    uint32_t want, tol = 0;
                    bool any_nan = false;
                    if (k == 0 || k == 3)
                        want = expect_store_f(f, ch, c, &tol, &any_nan);
                    else
                        want = expect_store_int(f, ch, ic);
                    if (k == 3 && f->type == CL_HALF_FLOAT) {
                        /* write_imageh to a half image stores the half itself. */
                        want = ((const uint16_t *)in)[4 * i + stored_from(f->order, ch)];
                        any_nan = false;
                    }
                    bool ok;
                    if (any_nan)
                        ok = f->type == CL_HALF_FLOAT ? (raw[ch] & 0x7fff) > 0x7c00
                                                      : (raw[ch] & 0x7fffffff) > 0x7f800000;
                    else
                        ok = raw[ch] - want + tol <= 2 * tol;
                    if (!ok) {
                        fprintf(stderr,
                                "write_image%s order %#x type %#x %s (%d,%d,%d) channel %u: "
                                "stored %#x, want %#x (colour %a %a %a %a)\n",
                                k == 0   ? "f"
                                : k == 1 ? "i"
                                : k == 2 ? "ui"
                                         : "h",
                                f->order, f->type, t->type, x, y, z, ch, raw[ch], want,
                                (double)c[0], (double)c[1], (double)c[2], (double)c[3]);
                        return 1;
                    }
                }
            }
    return 0;
}

static int write_all(const char *wacc, const char *racc, const char *options)
{
    char *src = kernels_source(wacc, racc);
    CHECK(src);
    struct kiln_cc_program *p = ct_build_ok(src, options);
    free(src);
    CHECK(p);
    size_t cases = 0;
    for (size_t ti = 0; ti < NUM_ITYPES; ti++) {
        const struct itype *t = &itypes[ti];
        struct fmt fmts[256];
        size_t nf = formats_for(t, fmts);
        size_t n = npix(t);
        float *inf = malloc(n * 16);
        int32_t *ini = malloc(n * 16);
        uint16_t *inh = malloc(n * 8);
        CHECK(inf && ini && inh);
        for (size_t fi = 0; fi < nf; fi++) {
            const struct fmt *f = &fmts[fi];
            enum fclass fc = fmt_class(f->type);
            bool wide = f->type == CL_HALF_FLOAT || f->type == CL_FLOAT;
            for (size_t i = 0; i < 4 * n; i++) {
                inf[i] = rand_colour((unsigned)(i + fi) % 64, wide);
                ini[i] = (int32_t)rand_int((unsigned)(i + fi) % 64, fc == FC_UINT);
                inh[i] = float_to_half(rand_colour((unsigned)(i + fi) % 64, wide));
            }
            for (unsigned k = 0; k < 4; k++) {
                if ((fc == FC_FLOAT) != (k == 0 || k == 3) || (fc == FC_INT && k != 1) ||
                    (fc == FC_UINT && k != 2) || (t->depth && k != 0))
                    continue;
                static const char *const names[] = {"wf", "wi", "wui", "wh"};
                const struct kiln_cc_kernel *kk = find(p, names[k], t);
                CHECK(kk);
                struct img im;
                CHECK(img_make(&im, t, f) == 0);
                const void *in = k == 0   ? (const void *)inf
                                 : k == 3 ? (const void *)inh
                                          : (const void *)ini;
                run(kk, &im, t, (void *)in);
                int bad = check_written(&im, t, f, k, in);
                free(im.mem);
                if (bad)
                    return 1;
                cases++;
            }
        }
        free(inf);
        free(ini);
        free(inh);
    }
    printf("%zu write cases\n", cases);
    ct_cc->destroy(p);
    return 0;
}

/* Fills the pixels with random bytes; float and half formats get some specials. */
static void fill_random(struct img *im, const struct itype *t, const struct fmt *f)
{
    for (int z = 0; z < t->l; z++)
        for (int y = 0; y < t->h; y++)
            for (int x = 0; x < t->w; x++) {
                unsigned char *p = im->mem + pixel_off(&im->desc, x, y, z);
                for (unsigned b = 0; b < f->elem; b++)
                    p[b] = (unsigned char)rng();
                /* End points of the normalised formats. */
                if (x == 0 && f->type == CL_UNORM_INT8)
                    memset(p, y & 1 ? 0xff : 0, f->elem);
                if (x == 0 && (f->type == CL_SNORM_INT8 || f->type == CL_SNORM_INT16))
                    memset(p, y & 1 ? 0x80 : 0, f->elem);
            }
}

static int check_read(const struct img *im, const struct itype *t, const struct fmt *f, unsigned k,
                      const void *out)
{
    for (int z = 0; z < t->l; z++)
        for (int y = 0; y < t->h; y++)
            for (int x = 0; x <= t->w; x++) {
                size_t i = idx_of(t, x, y, z);
                uint32_t raw[4] = {0, 0, 0, 0};
                if (x < t->w) /* the last column is outside: the border, stored zeros */
                    unpack(f, im->mem + pixel_off(&im->desc, x, y, z), raw);
                for (unsigned j = 0; j < (t->depth ? 1u : 4u); j++) {
                    int src = read_from(f->order, j);
                    bool ok;
                    double want;
                    bool exact = true;
                    double ulps = 0.5;
                    if (k == 1 || k == 2) {
                        int64_t wi = src == SRC_ZERO  ? 0
                                     : src == SRC_ONE ? 1
                                     : k == 1 ? (int64_t)sext(raw[src], 8 * chan_bytes(f->type))
                                              : (int64_t)raw[src];
                        int64_t got = k == 1 ? (int64_t)((const int32_t *)out)[4 * i + j]
                                             : (int64_t)((const uint32_t *)out)[4 * i + j];
                        ok = got == wi;
                        if (!ok) {
                            fprintf(stderr,
                                    "read_image%s order %#x type %#x %s (%d,%d,%d)[%u]: "
                                    "%lld, want %lld\n",
                                    k == 1 ? "i" : "ui", f->order, f->type, t->type, x, y, z, j,
                                    (long long)got, (long long)wi);
                            return 1;
                        }
                        continue;
                    }
                    if (src == SRC_ZERO || src == SRC_ONE)
                        want = src == SRC_ONE;
                    else
                        want = exact_read_f(f, (unsigned)src, raw[src], &exact);
                    if (is_srgb(f->order) && j < 3 && src >= 0) {
                        double c = want;
                        want = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
                        exact = want == 0 || want == 1;
                        ulps = KILN_SRGB_READ_ULP;
                    }
                    if (k == 0) {
                        float got = ((const float *)out)[4 * i + j];
                        ok = close_f(got, want, exact, ulps);
                        if (!ok) {
                            fprintf(stderr,
                                    "read_imagef order %#x type %#x %s (%d,%d,%d)[%u]: "
                                    "%a, want %a\n",
                                    f->order, f->type, t->type, x, y, z, j, (double)got, want);
                            return 1;
                        }
                    } else {
                        uint16_t got = ((const uint16_t *)out)[4 * i + j];
                        if (f->type == CL_HALF_FLOAT)
                            ok = src == SRC_ZERO  ? got == 0
                                 : src == SRC_ONE ? got == 0x3c00
                                                  : got == raw[src];
                        else if (isnan(want))
                            ok = (got & 0x7fff) > 0x7c00;
                        else if (exact)
                            ok = got == float_to_half(want);
                        else
                            ok = fabs(half_to_float(got) - want) <=
                                 1.5 * ulp_of(fabs(want), 10, -14);
                        if (!ok) {
                            fprintf(stderr,
                                    "read_imageh order %#x type %#x %s (%d,%d,%d)[%u]: "
                                    "%#x, want %a\n",
                                    f->order, f->type, t->type, x, y, z, j, got, want);
                            return 1;
                        }
                    }
                }
            }
    return 0;
}

static int read_all(const char *wacc, const char *racc, const char *options)
{
    char *src = kernels_source(wacc, racc);
    CHECK(src);
    struct kiln_cc_program *p = ct_build_ok(src, options);
    free(src);
    CHECK(p);
    size_t cases = 0;
    for (size_t ti = 0; ti < NUM_ITYPES; ti++) {
        const struct itype *t = &itypes[ti];
        struct fmt fmts[256];
        size_t nf = formats_for(t, fmts);
        size_t n = npix(t);
        void *out = malloc(n * 16);
        CHECK(out);
        for (size_t fi = 0; fi < nf; fi++) {
            const struct fmt *f = &fmts[fi];
            enum fclass fc = fmt_class(f->type);
            for (unsigned k = 0; k < 4; k++) {
                if ((fc == FC_FLOAT) != (k == 0 || k == 3) || (fc == FC_INT && k != 1) ||
                    (fc == FC_UINT && k != 2) || (t->depth && k != 0))
                    continue;
                static const char *const names[] = {"rf", "ri", "rui", "rh"};
                const struct kiln_cc_kernel *kk = find(p, names[k], t);
                CHECK(kk);
                struct img im;
                CHECK(img_make(&im, t, f) == 0);
                fill_random(&im, t, f);
                memset(out, 0xcd, n * 16);
                run(kk, &im, t, out);
                int bad = check_read(&im, t, f, k, out);
                free(im.mem);
                if (bad)
                    return 1;
                cases++;
            }
        }
        free(out);
    }
    printf("%zu read cases\n", cases);
    ct_cc->destroy(p);
    return 0;
}

/* The builtins have the same names at every -cl-std: the writes are built at 1.2. */
static int test_images_write(void)
{
    return write_all("write_only", "read_only", "-cl-std=CL1.2");
}

static int test_images_read(void)
{
    return read_all("write_only", "read_only", "-cl-std=CL3.0");
}

static int test_images_read_write(void)
{
    if (write_all("read_write", "read_write", "-cl-std=CL3.0"))
        return 1;
    return read_all("read_write", "read_write", "-cl-std=CL3.0");
}

/* get_image_*: every query of every type and access against the descriptor's fields. */
static int test_images_query(void)
{
    static const char *const access[] = {"read_only", "write_only", "read_write"};
    size_t cap = 1 << 15, len = 0;
    char *src = malloc(cap);
    CHECK(src);
    for (size_t a = 0; a < 3; a++)
        for (size_t t = 0; t < NUM_ITYPES; t++) {
            const struct itype *it = &itypes[t];
            bool two =
                it->cl_type == CL_MEM_OBJECT_IMAGE2D || it->cl_type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
            bool three = it->cl_type == CL_MEM_OBJECT_IMAGE3D;
            len += (size_t)snprintf(src + len, cap - len,
                                    "kernel void q%zu_%s(%s %s img, global int *o)\n{\n"
                                    "    o[0] = get_image_width(img);\n"
                                    "    o[1] = get_image_channel_data_type(img);\n"
                                    "    o[2] = get_image_channel_order(img);\n"
                                    "    %s\n    %s\n    %s\n    %s\n}\n",
                                    a, it->suffix, access[a], it->type,
                                    two || three ? "o[3] = get_image_height(img);" : "",
                                    three ? "o[4] = get_image_depth(img);" : "",
                                    two     ? "vstore2(get_image_dim(img), 0, o + 5);"
                                    : three ? "vstore4(get_image_dim(img), 0, o + 5);"
                                            : "",
                                    it->array ? "o[9] = (int)get_image_array_size(img);" : "");
            CHECK(len < cap);
        }
    struct kiln_cc_program *p = ct_build_ok(src, "-cl-std=CL3.0");
    free(src);
    CHECK(p);
    for (size_t a = 0; a < 3; a++)
        for (size_t t = 0; t < NUM_ITYPES; t++) {
            const struct itype *it = &itypes[t];
            char name[64];
            snprintf(name, sizeof name, "q%zu_%s", a, it->suffix);
            const struct kiln_cc_kernel *k = ct_find_kernel(p, name);
            CHECK(k);
            struct kiln_image d;
            memset(&d, 0, sizeof d);
            bool two =
                it->cl_type == CL_MEM_OBJECT_IMAGE2D || it->cl_type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
            bool three = it->cl_type == CL_MEM_OBJECT_IMAGE3D;
            d.type = it->cl_type;
            d.order = it->depth ? CL_DEPTH : CL_BGRA;
            d.data_type = it->depth ? CL_UNORM_INT16 : CL_SNORM_INT16;
            d.width = 1000 + (int)t;
            d.height = two || three ? 700 + (int)t : 1;
            d.depth = three ? 300 + (int)t : 1;
            d.array_size = it->array ? 2000 + (int)t : 1;
            int out[10];
            for (int i = 0; i < 10; i++)
                out[i] = -7;
            const struct kiln_image *dp = &d;
            int *op = out;
            void *args[] = {&dp, &op};
            size_t off = 0, one = 1;
            ct_run_ndrange(k, args, 1, &off, &one, &one, NULL);
            CHECK(out[0] == d.width);
            CHECK(out[1] == (int)d.data_type && out[2] == (int)d.order);
            CHECK(out[3] == (two || three ? d.height : -7));
            CHECK(out[4] == (three ? d.depth : -7));
            CHECK(out[5] == (two || three ? d.width : -7));
            CHECK(out[6] == (two || three ? d.height : -7));
            CHECK(out[7] == (three ? d.depth : -7));
            CHECK(out[8] == (three ? 0 : -7));
            CHECK(out[9] == (it->array ? d.array_size : -7));
        }
    ct_cc->destroy(p);
    return 0;
}

/*
 * Every half through a CL_RGBA CL_HALF_FLOAT 2D image, 256 x 64 pixels: write_imageh
 * stores each bit pattern unchanged, read_imageh returns it unchanged, read_imagef
 * returns its exact float value, and write_imagef of that float stores the half back
 * (NaNs as NaNs).
 */
static int test_images_half(void)
{
    static const char src[] = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                              "kernel void wh(write_only image2d_t img, global const half4 *in)\n"
                              "{ int x = get_global_id(0), y = get_global_id(1);\n"
                              "  write_imageh(img, (int2)(x, y), in[y * 256 + x]); }\n"
                              "kernel void rh(read_only image2d_t img, global half4 *out)\n"
                              "{ int x = get_global_id(0), y = get_global_id(1);\n"
                              "  out[y * 256 + x] = read_imageh(img, (int2)(x, y)); }\n"
                              "kernel void wf(write_only image2d_t img, global const float4 *in)\n"
                              "{ int x = get_global_id(0), y = get_global_id(1);\n"
                              "  write_imagef(img, (int2)(x, y), in[y * 256 + x]); }\n"
                              "kernel void rf(read_only image2d_t img, global float4 *out)\n"
                              "{ int x = get_global_id(0), y = get_global_id(1);\n"
                              "  out[y * 256 + x] = read_imagef(img, (int2)(x, y)); }\n";
    struct kiln_cc_program *p = ct_build_ok(src, "-cl-std=CL3.0");
    CHECK(p);
    const struct kiln_cc_kernel *wh = ct_find_kernel(p, "wh"), *rh = ct_find_kernel(p, "rh");
    const struct kiln_cc_kernel *wf = ct_find_kernel(p, "wf"), *rf = ct_find_kernel(p, "rf");
    CHECK(wh && rh && wf && rf);
    enum { W = 256, H = 64, N = W * H * 4 };
    uint16_t *bits = malloc(N * 2), *img = malloc(N * 2), *hout = malloc(N * 2);
    float *fout = malloc(N * 4);
    CHECK(bits && img && hout && fout);
    for (uint32_t i = 0; i < N; i++)
        bits[i] = (uint16_t)(i * 40503u); /* odd multiplier: every pattern once, mixed */
    struct kiln_image d;
    memset(&d, 0, sizeof d);
    d.data = (unsigned char *)img;
    d.type = CL_MEM_OBJECT_IMAGE2D;
    d.order = CL_RGBA;
    d.data_type = CL_HALF_FLOAT;
    d.elem_size = 8;
    d.num_channels = 4;
    d.width = W;
    d.height = H;
    d.depth = 1;
    d.array_size = 1;
    d.row_pitch = W * 8;
    const struct kiln_image *dp = &d;
    size_t off[2] = {0, 0}, gs[2] = {W, H}, ls[2] = {16, 4};
    void *buf = bits;
    void *args[] = {&dp, &buf};
    memset(img, 0, N * 2);
    ct_run_ndrange(wh, args, 2, off, gs, ls, NULL);
    for (uint32_t i = 0; i < N; i++)
        CHECK(img[i] == bits[i]);
    buf = hout;
    ct_run_ndrange(rh, args, 2, off, gs, ls, NULL);
    for (uint32_t i = 0; i < N; i++)
        CHECK(hout[i] == bits[i]);
    buf = fout;
    ct_run_ndrange(rf, args, 2, off, gs, ls, NULL);
    for (uint32_t i = 0; i < N; i++) {
        float want = half_to_float(bits[i]);
        CHECK(isnan(want) ? isnan(fout[i]) : memcmp(&fout[i], &want, 4) == 0);
    }
    memset(img, 0, N * 2);
    ct_run_ndrange(wf, args, 2, off, gs, ls, NULL);
    for (uint32_t i = 0; i < N; i++) {
        bool nan = (bits[i] & 0x7fff) > 0x7c00;
        CHECK(nan ? (img[i] & 0x7fff) > 0x7c00 : img[i] == bits[i]);
    }
    free(bits);
    free(img);
    free(hout);
    free(fout);
    ct_cc->destroy(p);
    return 0;
}

/*
 * A copy kernel through read_imagef and write_imagef inlines to a work-group function
 * that calls nothing: the descriptor accessor and every texel function are gone.
 */
static int test_images_no_calls(void)
{
    static const char src[] = "kernel void copy(read_only image2d_t in, write_only image2d_t out)\n"
                              "{\n"
                              "    int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
                              "    write_imagef(out, c, read_imagef(in, c));\n"
                              "}\n";
    char *ir = ct_dumped_ir(src, "-cl-std=CL3.0", "optimized");
    CHECK(ir);
    char *fn = ct_wg_function(ir, "copy");
    CHECK(fn);
    /* Calls of LLVM intrinsics (roundeven, maxnum, ...) are instructions, not calls. */
    for (const char *call = strstr(fn, "call "); call; call = strstr(call + 1, "call ")) {
        const char *at = strchr(call, '@'), *eol = strchr(call, '\n');
        bool intrinsic = at && (!eol || at < eol) && strncmp(at + 1, "llvm.", 5) == 0;
        if (!intrinsic)
            fprintf(stderr, "left: %.120s\n", call);
        CHECK(intrinsic);
    }
    CHECK(!strstr(fn, "__kiln_image_desc") && !strstr(fn, "kiln_texel"));
    free(fn);
    free(ir);
    return 0;
}

/* How many switch instructions work-group function `kernel` of `ir` holds; -1 if none found. */
static long switches_in(const char *ir, const char *kernel)
{
    char *fn = ct_wg_function(ir, kernel);
    if (!fn)
        return -1;
    long n = (long)ct_count_of(fn, " switch ");
    free(fn);
    return n;
}

/*
 * An image-format variant (struct kiln_cc_variant_image): the texel functions' switches on
 * the channel order and data type are gone from the optimised copy kernel, which the generic
 * build keeps, and so are the descriptor loads of the fields the format fixes.
 */
static int test_images_variant_folds(void)
{
    static const char src[] = "kernel void copy(read_only image2d_t in, write_only image2d_t out)\n"
                              "{\n"
                              "    int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
                              "    write_imagef(out, c, read_imagef(in, c));\n"
                              "}\n";
    struct kiln_cc_variant v = {"copy", {8, 1, 1}, true, 2, {{0}}};
    v.images[0] = (struct kiln_cc_variant_image){0, CL_RGBA, CL_UNORM_INT8, 4, 4};
    v.images[1] = (struct kiln_cc_variant_image){1, CL_RGBA, CL_UNORM_INT8, 4, 4};
    struct kiln_cc_variant plain = v;
    plain.num_images = 0;
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *generic = ct_dumped_ir(src, "-cl-std=CL3.0", "optimized");
    char *sized = ct_build_variant_dumped_ir(src, "-cl-std=CL3.0", &plain, "optimized", &p, &log);
    ct_cc->destroy(p);
    free(log);
    char *folded = ct_build_variant_dumped_ir(src, "-cl-std=CL3.0", &v, "optimized", &p, &log);
    CHECK(generic && sized && folded && p);
    long n_generic = switches_in(generic, "copy"), n_sized = switches_in(sized, "copy"),
         n_folded = switches_in(folded, "copy");
    fprintf(stderr, "switches: generic %ld, local-size variant %ld, format variant %ld\n",
            n_generic, n_sized, n_folded);
    CHECK(n_generic > 0 && n_sized > 0);
    CHECK(n_folded == 0);
    /* The formats' fields are constants; the rest of the descriptor is loaded invariantly. */
    struct kiln_cc_program *q = NULL;
    char *qlog = NULL;
    char *wrapped = ct_build_variant_dumped_ir(src, "-cl-std=CL3.0", &v, "wrapped", &q, &qlog);
    CHECK(wrapped && strstr(wrapped, "!invariant.load"));
    free(wrapped);
    ct_cc->destroy(q);
    free(qlog);
    free(generic);
    free(sized);
    free(folded);
    ct_cc->destroy(p);
    free(log);
    return 0;
}

/* A variant's image entry must name an image argument; a malformed format is refused. */
static int test_images_variant_refused(void)
{
    static const char src[] = "kernel void copy(read_only image2d_t in, global uint *out)\n"
                              "{\n"
                              "    out[0] = read_imageui(in, (int2)(0, 0)).x;\n"
                              "}\n";
    static const char *const not_image[] = {"argument 1 is not an image", NULL};
    static const char *const malformed[] = {"malformed variant", NULL};
    struct kiln_cc_variant v = {"copy", {1, 1, 1}, true, 1, {{1, CL_R, CL_UNSIGNED_INT32, 4, 1}}};
    CHECK(ct_expect_variant_failure(src, "-cl-std=CL3.0", &v, KILN_CC_BUILD_FAILED, not_image) ==
          0);
    v.images[0] = (struct kiln_cc_variant_image){0, CL_R, CL_UNSIGNED_INT32, 0, 1};
    CHECK(ct_expect_variant_failure(src, "-cl-std=CL3.0", &v, KILN_CC_INVALID_OPTIONS, malformed) ==
          0);
    v.num_images = KILN_CC_VARIANT_IMAGES + 1;
    CHECK(ct_expect_variant_failure(src, "-cl-std=CL3.0", &v, KILN_CC_INVALID_OPTIONS, malformed) ==
          0);
    return 0;
}

const struct ct_test ct_tests[] = {
    {"images_write", test_images_write},
    {"images_read", test_images_read},
    {"images_read_write", test_images_read_write},
    {"images_query", test_images_query},
    {"images_half", test_images_half},
    {"images_no_calls", test_images_no_calls},
    {"images_variant_folds", test_images_variant_folds},
    {"images_variant_refused", test_images_variant_refused},
};
const size_t ct_num_tests = sizeof(ct_tests) / sizeof(ct_tests[0]);
