/*
 * __kiln_image_desc, the one definition behind every kiln_image_desc() overload of
 * kiln_image_lib.h: the identity on the descriptor pointer. The overloads take image
 * types, which OpenCL C cannot cast, and are declared under this symbol; in LLVM IR an
 * image is the same __global pointer as the descriptor, so this body serves them all and
 * disappears when the builtins are inlined into a kernel. It is defined here, apart from
 * the files that declare the image-typed forms, so that no file sees both types under
 * one name.
 */
#include "kiln_lib.h"
#include "kiln_image.h"

const __global struct kiln_image *
kiln_image_desc_identity(const __global struct kiln_image *d) __asm("__kiln_image_desc");

const __global struct kiln_image *kiln_image_desc_identity(const __global struct kiln_image *d)
{
    return d;
}
