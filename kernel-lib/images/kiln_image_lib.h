/*
 * The images family's private interface (DESIGN.md §7), shared by every file of
 * kernel-lib/images/: how a builtin reaches the descriptor behind an image argument, the
 * channel orders and data types it switches on, and the texel functions that fetch and
 * store one pixel at integer coordinates with the specification's conversions (OpenCL C
 * 3.0 §6.15.15, "Conversion Rules"). texel.cl defines them; the sampler-less reads, the
 * writes, the queries and the sampled reads are built on them.
 *
 * Descriptor access. OpenCL C forbids casting an image to anything, but in LLVM IR every
 * image type is the same pointer to global memory (Clang gives the image types address
 * space 1, __global, under -ffake-address-space-map) and that pointer is the image's
 * struct kiln_image (include/kiln_image.h). kiln_image_desc() is declared once per image
 * type and access qualifier, every declaration under the one symbol name
 * __kiln_image_desc, which image_desc.cl defines as the identity on a struct kiln_image
 * pointer. After the library is linked into a kernel and inlined, the call is gone and
 * the builtin reads the descriptor fields directly.
 *
 * Coordinates. The texel functions take (x, y, z) in the descriptor's addressing rule:
 * the pixel is at data + x * elem_size + y * row_pitch + z * slice_pitch. So a 1D
 * array's layer is z (y = 0), a 2D array's layer is z, a 3D image's slice is z. They
 * assume the coordinates are inside the image (kiln_texel_in_range); the callers do the
 * addressing or return the border.
 *
 * The descriptor is never written after creation, so every function takes it as
 * `const ... *restrict`: its field loads are loop-invariant in a work-item loop, and a
 * switch on its data type or channel order can be hoisted out of the loop.
 */
#ifndef KILN_KERNEL_LIB_IMAGES_KILN_IMAGE_LIB_H
#define KILN_KERNEL_LIB_IMAGES_KILN_IMAGE_LIB_H

#include "kiln_lib.h"
#include "kiln_image.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/*
 * What every image function is handed: the image's descriptor, read-only, and the only
 * pointer to it that the function uses.
 */
typedef const __global struct kiln_image *restrict kiln_image_desc_t;

/*
 * The image types a builtin is written for, X(type, suffix, coord): `coord` is the integer
 * coordinate type of the sampler-less reads and the writes. The depth images' reads
 * return and writes take one float, and they have no int, uint or half forms.
 */
#define KILN_IMAGE_COLOUR_TYPES(X)                                                                 \
    X(image1d_t, 1d, int)                                                                          \
    X(image1d_buffer_t, 1d_buffer, int)                                                            \
    X(image1d_array_t, 1d_array, int2)                                                             \
    X(image2d_t, 2d, int2)                                                                         \
    X(image2d_array_t, 2d_array, int4)                                                             \
    X(image3d_t, 3d, int4)
#define KILN_IMAGE_DEPTH_TYPES(X)                                                                  \
    X(image2d_depth_t, 2d_depth, int2)                                                             \
    X(image2d_array_depth_t, 2d_array_depth, int4)
#define KILN_IMAGE_TYPES(X) KILN_IMAGE_COLOUR_TYPES(X) KILN_IMAGE_DEPTH_TYPES(X)

/* The descriptor of an image argument of any type and access (image_desc.cl). */
#define KILN_IMAGE_DESC_DECL(T, S, C)                                                              \
    KILN_OVERLOAD const __global struct kiln_image *kiln_image_desc(read_only T) __asm(            \
        "__kiln_image_desc");                                                                      \
    KILN_OVERLOAD const __global struct kiln_image *kiln_image_desc(write_only T) __asm(           \
        "__kiln_image_desc");                                                                      \
    KILN_OVERLOAD const __global struct kiln_image *kiln_image_desc(read_write T) __asm(           \
        "__kiln_image_desc");
KILN_IMAGE_TYPES(KILN_IMAGE_DESC_DECL)

/*
 * An image's integer coordinate as the texel functions' (x, y, z), by coordinate type:
 * KILN_IMAGE_X/Y/Z_<suffix>(c). The layer of a 1D array is its z.
 */
#define KILN_IMAGE_X_1d(c)             (c)
#define KILN_IMAGE_Y_1d(c)             0
#define KILN_IMAGE_Z_1d(c)             0
#define KILN_IMAGE_X_1d_buffer(c)      (c)
#define KILN_IMAGE_Y_1d_buffer(c)      0
#define KILN_IMAGE_Z_1d_buffer(c)      0
#define KILN_IMAGE_X_1d_array(c)       (c).x
#define KILN_IMAGE_Y_1d_array(c)       0
#define KILN_IMAGE_Z_1d_array(c)       (c).y
#define KILN_IMAGE_X_2d(c)             (c).x
#define KILN_IMAGE_Y_2d(c)             (c).y
#define KILN_IMAGE_Z_2d(c)             0
#define KILN_IMAGE_X_2d_array(c)       (c).x
#define KILN_IMAGE_Y_2d_array(c)       (c).y
#define KILN_IMAGE_Z_2d_array(c)       (c).z
#define KILN_IMAGE_X_3d(c)             (c).x
#define KILN_IMAGE_Y_3d(c)             (c).y
#define KILN_IMAGE_Z_3d(c)             (c).z
#define KILN_IMAGE_X_2d_depth(c)       (c).x
#define KILN_IMAGE_Y_2d_depth(c)       (c).y
#define KILN_IMAGE_Z_2d_depth(c)       0
#define KILN_IMAGE_X_2d_array_depth(c) (c).x
#define KILN_IMAGE_Y_2d_array_depth(c) (c).y
#define KILN_IMAGE_Z_2d_array_depth(c) (c).z

/* Channel orders (cl.h's values, which the descriptor holds). */
#define KILN_CL_R         0x10B0
#define KILN_CL_A         0x10B1
#define KILN_CL_RG        0x10B2
#define KILN_CL_RA        0x10B3
#define KILN_CL_RGB       0x10B4
#define KILN_CL_RGBA      0x10B5
#define KILN_CL_BGRA      0x10B6
#define KILN_CL_ARGB      0x10B7
#define KILN_CL_INTENSITY 0x10B8
#define KILN_CL_LUMINANCE 0x10B9
#define KILN_CL_Rx        0x10BA
#define KILN_CL_RGx       0x10BB
#define KILN_CL_RGBx      0x10BC
#define KILN_CL_DEPTH     0x10BD
#define KILN_CL_sRGB      0x10BF
#define KILN_CL_sRGBx     0x10C0
#define KILN_CL_sRGBA     0x10C1
#define KILN_CL_sBGRA     0x10C2
#define KILN_CL_ABGR      0x10C3

/* Channel data types (cl.h's values). */
#define KILN_CL_SNORM_INT8         0x10D0
#define KILN_CL_SNORM_INT16        0x10D1
#define KILN_CL_UNORM_INT8         0x10D2
#define KILN_CL_UNORM_INT16        0x10D3
#define KILN_CL_UNORM_SHORT_565    0x10D4
#define KILN_CL_UNORM_SHORT_555    0x10D5
#define KILN_CL_UNORM_INT_101010   0x10D6
#define KILN_CL_SIGNED_INT8        0x10D7
#define KILN_CL_SIGNED_INT16       0x10D8
#define KILN_CL_SIGNED_INT32       0x10D9
#define KILN_CL_UNSIGNED_INT8      0x10DA
#define KILN_CL_UNSIGNED_INT16     0x10DB
#define KILN_CL_UNSIGNED_INT32     0x10DC
#define KILN_CL_HALF_FLOAT         0x10DD
#define KILN_CL_FLOAT              0x10DE
#define KILN_CL_UNORM_INT_101010_2 0x10E0

/* Whether (x, y, z) is a pixel of the image (a layer of an array counts as z). */
bool kiln_texel_in_range(kiln_image_desc_t d, int x, int y, int z);

/*
 * The channels as stored, in memory order, widened to uint without conversion: the
 * bits of each channel (a packed format's fields taken apart), 0 for the channels the
 * format lacks. Reads only the pixel's own bytes.
 */
uint4 kiln_texel_load_raw(kiln_image_desc_t d, int x, int y, int z);
/* Stores stored channels (low bits of each lane) back; writes only the pixel's bytes. */
void kiln_texel_store_raw(kiln_image_desc_t d, int x, int y, int z, uint4 raw);

/*
 * Stored channels converted by the read rules and put in (r, g, b, a) order by the
 * channel order: missing colour channels 0, missing alpha 1; CL_INTENSITY (i, i, i, i),
 * CL_LUMINANCE (l, l, l, 1), CL_DEPTH (depth, 0, 0, 1); sRGB orders decoded to linear.
 * Normalised formats read as float (c / 255.0f ..., SNORM clamped to -1.0f); integer
 * formats as int (sign-extended) or uint (zero-extended). kiln_texel_raw_h is exact for
 * CL_HALF_FLOAT and the float value rounded to nearest even for the other formats.
 * A raw value of 0 gives the border colour of CLK_ADDRESS_CLAMP: (0, 0, 0, 0) for
 * orders with alpha, (0, 0, 0, 1) for those without.
 */
float4 kiln_texel_raw_f(kiln_image_desc_t d, uint4 raw);
int4 kiln_texel_raw_i(kiln_image_desc_t d, uint4 raw);
uint4 kiln_texel_raw_ui(kiln_image_desc_t d, uint4 raw);
half4 kiln_texel_raw_h(kiln_image_desc_t d, uint4 raw);

/* The pixel at (x, y, z), in range, converted as above. */
float4 kiln_texel_f(kiln_image_desc_t d, int x, int y, int z);
int4 kiln_texel_i(kiln_image_desc_t d, int x, int y, int z);
uint4 kiln_texel_ui(kiln_image_desc_t d, int x, int y, int z);
half4 kiln_texel_h(kiln_image_desc_t d, int x, int y, int z);

/* The border colour of CLK_ADDRESS_CLAMP for the image's channel order. */
float4 kiln_texel_border_f(kiln_image_desc_t d);
int4 kiln_texel_border_i(kiln_image_desc_t d);
uint4 kiln_texel_border_ui(kiln_image_desc_t d);
half4 kiln_texel_border_h(kiln_image_desc_t d);

/*
 * Stores a colour (r, g, b, a) at (x, y, z), in range, by the write rules: the channel
 * order picks the stored channels (CL_INTENSITY, CL_LUMINANCE and CL_DEPTH store r);
 * sRGB orders encode r, g, b; normalised formats round to nearest even and saturate
 * (convert_<type>_sat_rte(f * max)), NaN stores 0; CL_HALF_FLOAT rounds to nearest even;
 * integer formats saturate to the channel's range. kiln_texel_store_h stores a half
 * exactly in CL_HALF_FLOAT and converts through float for the other formats.
 */
void kiln_texel_store_f(kiln_image_desc_t d, int x, int y, int z, float4 c);
void kiln_texel_store_i(kiln_image_desc_t d, int x, int y, int z, int4 c);
void kiln_texel_store_ui(kiln_image_desc_t d, int x, int y, int z, uint4 c);
void kiln_texel_store_h(kiln_image_desc_t d, int x, int y, int z, half4 c);

#endif
