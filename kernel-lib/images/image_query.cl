/*
 * The image queries (OpenCL C 3.0 §6.15.15.5): get_image_width, get_image_height,
 * get_image_depth, get_image_dim, get_image_array_size, get_image_channel_data_type and
 * get_image_channel_order, for every image type that has them and every access
 * qualifier. Each is one load of a descriptor field, which is fixed at the image's
 * creation (the channel type and order are cl.h's values, as the CLK_* constants are).
 */
#include "kiln_image_lib.h"

#define KILN_QUERY_ACCESS(R, NAME, T, ACCESS, EXPR)                                                \
    R KILN_OVERLOAD NAME(ACCESS T image)                                                           \
    {                                                                                              \
        kiln_image_desc_t d = kiln_image_desc(image);                                              \
        return EXPR;                                                                               \
    }
#define KILN_QUERY(R, NAME, T, EXPR)                                                               \
    KILN_QUERY_ACCESS(R, NAME, T, read_only, EXPR)                                                 \
    KILN_QUERY_ACCESS(R, NAME, T, write_only, EXPR)                                                \
    KILN_QUERY_ACCESS(R, NAME, T, read_write, EXPR)

#define KILN_QUERY_ALL(T, S, C)                                                                    \
    KILN_QUERY(int, get_image_width, T, d->width)                                                  \
    KILN_QUERY(int, get_image_channel_data_type, T, (int)d->data_type)                             \
    KILN_QUERY(int, get_image_channel_order, T, (int)d->order)
KILN_IMAGE_TYPES(KILN_QUERY_ALL)

/* Types with a height and a two-component get_image_dim. */
#define KILN_QUERY_2D(T)                                                                           \
    KILN_QUERY(int, get_image_height, T, d->height)                                                \
    KILN_QUERY(int2, get_image_dim, T, (int2)(d->width, d->height))
KILN_QUERY_2D(image2d_t)
KILN_QUERY_2D(image2d_array_t)
KILN_QUERY_2D(image2d_depth_t)
KILN_QUERY_2D(image2d_array_depth_t)

KILN_QUERY(int, get_image_height, image3d_t, d->height)
KILN_QUERY(int, get_image_depth, image3d_t, d->depth)
KILN_QUERY(int4, get_image_dim, image3d_t, (int4)(d->width, d->height, d->depth, 0))

KILN_QUERY(size_t, get_image_array_size, image1d_array_t, (size_t)d->array_size)
KILN_QUERY(size_t, get_image_array_size, image2d_array_t, (size_t)d->array_size)
KILN_QUERY(size_t, get_image_array_size, image2d_array_depth_t, (size_t)d->array_size)
