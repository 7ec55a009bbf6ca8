/*
 * The sampler-less reads (OpenCL C 3.0 §6.15.15.2): read_imagef, read_imagei,
 * read_imageui and read_imageh with integer coordinates, for every image type that has
 * them and the read_only and read_write access qualifiers. They read as a sampler with
 * CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST would. A
 * coordinate outside the image is undefined behaviour by the specification; here it
 * returns the border colour of CLK_ADDRESS_CLAMP and reads pixel (0, 0, 0), which every
 * image has, instead of its own: the load is then unconditional, with no branch in a
 * work-item loop, and never leaves the image.
 */
#include "kiln_image_lib.h"

#define KILN_READ_FORM(R, NAME, SUFFIX, T, S, C, ACCESS)                                           \
    R KILN_OVERLOAD NAME(ACCESS T image, C coord)                                                  \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(image);                                              \
        int x = KILN_IMAGE_X_##S(coord), y = KILN_IMAGE_Y_##S(coord), z = KILN_IMAGE_Z_##S(coord); \
        bool in = kiln_texel_in_range(d, x, y, z);                                                 \
        R v = kiln_texel_##SUFFIX(d, in ? x : 0, in ? y : 0, in ? z : 0);                          \
        return in ? v : kiln_texel_border_##SUFFIX(d);                                             \
    }

#define KILN_READ_COLOUR(T, S, C)                                                                  \
    KILN_READ_FORM(float4, read_imagef, f, T, S, C, read_only)                                     \
    KILN_READ_FORM(float4, read_imagef, f, T, S, C, read_write)                                    \
    KILN_READ_FORM(int4, read_imagei, i, T, S, C, read_only)                                       \
    KILN_READ_FORM(int4, read_imagei, i, T, S, C, read_write)                                      \
    KILN_READ_FORM(uint4, read_imageui, ui, T, S, C, read_only)                                    \
    KILN_READ_FORM(uint4, read_imageui, ui, T, S, C, read_write)                                   \
    KILN_READ_FORM(half4, read_imageh, h, T, S, C, read_only)                                      \
    KILN_READ_FORM(half4, read_imageh, h, T, S, C, read_write)
KILN_IMAGE_COLOUR_TYPES(KILN_READ_COLOUR)

/* A depth image reads one float, the depth (the texel functions' r). */
#define KILN_READ_DEPTH_FORM(T, S, C, ACCESS)                                                      \
    float KILN_OVERLOAD read_imagef(ACCESS T image, C coord)                                       \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(image);                                              \
        int x = KILN_IMAGE_X_##S(coord), y = KILN_IMAGE_Y_##S(coord), z = KILN_IMAGE_Z_##S(coord); \
        bool in = kiln_texel_in_range(d, x, y, z);                                                 \
        float v = kiln_texel_f(d, in ? x : 0, in ? y : 0, in ? z : 0).x;                           \
        return in ? v : kiln_texel_border_f(d).x;                                                  \
    }
#define KILN_READ_DEPTH(T, S, C)                                                                   \
    KILN_READ_DEPTH_FORM(T, S, C, read_only)                                                       \
    KILN_READ_DEPTH_FORM(T, S, C, read_write)
KILN_IMAGE_DEPTH_TYPES(KILN_READ_DEPTH)
