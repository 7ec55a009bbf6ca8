/*
 * The image writes (OpenCL C 3.0 §6.15.15.3): write_imagef, write_imagei, write_imageui
 * and write_imageh for every writable image type (3D through cl_khr_3d_image_writes,
 * depth through cl_khr_depth_images) and the write_only and read_write access
 * qualifiers, converted by the write rules of kiln_texel_store_*. A coordinate outside
 * the image is undefined behaviour by the specification; here it writes nothing.
 */
#include "kiln_image_lib.h"

#define KILN_WRITE_FORM(NAME, SUFFIX, V, T, S, C, ACCESS)                                          \
    void KILN_OVERLOAD NAME(ACCESS T image, C coord, V color)                                      \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(image);                                              \
        int x = KILN_IMAGE_X_##S(coord), y = KILN_IMAGE_Y_##S(coord), z = KILN_IMAGE_Z_##S(coord); \
        if (kiln_texel_in_range(d, x, y, z))                                                       \
            kiln_texel_store_##SUFFIX(d, x, y, z, color);                                          \
    }

#define KILN_WRITE_COLOUR(T, S, C)                                                                 \
    KILN_WRITE_FORM(write_imagef, f, float4, T, S, C, write_only)                                  \
    KILN_WRITE_FORM(write_imagef, f, float4, T, S, C, read_write)                                  \
    KILN_WRITE_FORM(write_imagei, i, int4, T, S, C, write_only)                                    \
    KILN_WRITE_FORM(write_imagei, i, int4, T, S, C, read_write)                                    \
    KILN_WRITE_FORM(write_imageui, ui, uint4, T, S, C, write_only)                                 \
    KILN_WRITE_FORM(write_imageui, ui, uint4, T, S, C, read_write)                                 \
    KILN_WRITE_FORM(write_imageh, h, half4, T, S, C, write_only)                                   \
    KILN_WRITE_FORM(write_imageh, h, half4, T, S, C, read_write)
KILN_IMAGE_COLOUR_TYPES(KILN_WRITE_COLOUR)

/* A depth image stores one float, the depth. */
#define KILN_WRITE_DEPTH_FORM(T, S, C, ACCESS)                                                     \
    void KILN_OVERLOAD write_imagef(ACCESS T image, C coord, float depth)                          \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(image);                                              \
        int x = KILN_IMAGE_X_##S(coord), y = KILN_IMAGE_Y_##S(coord), z = KILN_IMAGE_Z_##S(coord); \
        if (kiln_texel_in_range(d, x, y, z))                                                       \
            kiln_texel_store_f(d, x, y, z, (float4)(depth, 0.0f, 0.0f, 0.0f));                     \
    }
#define KILN_WRITE_DEPTH(T, S, C)                                                                  \
    KILN_WRITE_DEPTH_FORM(T, S, C, write_only)                                                     \
    KILN_WRITE_DEPTH_FORM(T, S, C, read_write)
KILN_IMAGE_DEPTH_TYPES(KILN_WRITE_DEPTH)
