/*
 * Samplers written in a kernel's source: a program-scope `constant sampler_t s =
 * CLK_...;`, a sampler_t variable initialised with a constant, or a literal
 * passed where a sampler_t is expected. Clang turns each into a call
 *     ptr addrspace(2) __translate_sampler_initializer(i32 bits)
 * whose result is the sampler. Kiln's sampler_t is not a pointer to anything:
 * its pointer value is the bits themselves (include/kiln_image.h), the same bits
 * the runtime passes for a cl_sampler argument, so this function only widens the
 * integer. Inlined, it folds to a constant, and a read through a sampler the
 * compiler can see specialises on its addressing and filter modes.
 *
 * OpenCL C has no way to return a sampler_t from a function, so the function is
 * defined under another name with the pointer type Clang's call expects, and the
 * asm label gives it the name Clang calls.
 */

__constant void *kiln_sampler_translate(int bits) __asm("__translate_sampler_initializer");

__constant void *kiln_sampler_translate(int bits)
{
    /* Only the low bits are meaningful (KILN_SAMPLER_*); the value is never negative. */
    return (__constant void *)(ulong)(uint)bits;
}
