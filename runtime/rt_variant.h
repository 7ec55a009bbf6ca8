/*
 * Local-size variants of a program's kernels (variant.c): kernels compiled again for
 * the local size they are launched with.
 */
#ifndef KILN_RUNTIME_RT_VARIANT_H
#define KILN_RUNTIME_RT_VARIANT_H

#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kiln_cc.h" /* struct kiln_cc_variant_image */

/* Variants kept per program kernel; the launch count that builds one, unless KILN_VARIANTS. */
#define KILN_RT_VARIANTS         4
#define KILN_RT_VARIANT_LAUNCHES 4

enum kiln_rt_variant_state {
    KILN_VARIANT_FREE = 0,
    KILN_VARIANT_COUNTING, /* launches counted; not built yet */
    KILN_VARIANT_BUILDING, /* one thread builds it, without the program's lock */
    KILN_VARIANT_READY,    /* built: cc is the kernel to launch */
    KILN_VARIANT_FAILED, /* the generic function for good: the build failed or would add nothing */
};

/*
 * What a variant is built for: a local size, whether the offset is zero, and the formats of
 * the kernel's image arguments (num_images 0 for a kernel without any, or with more than
 * KILN_CC_VARIANT_IMAGES). Compared whole: unused image entries are zero.
 */
struct kiln_rt_variant_key {
    size_t local[3];
    bool zero_offset;
    unsigned num_images;
    struct kiln_cc_variant_image images[KILN_CC_VARIANT_IMAGES];
};

/*
 * One key of one program kernel. Its fields change under the program's lock only, and never
 * once it is READY or FAILED: a launch that reads `state` (acquire) as one of those may read
 * the rest without the lock (variant.c).
 */
struct kiln_rt_variant {
    struct kiln_rt_variant_key key;
    _Atomic int state; /* enum kiln_rt_variant_state */
    unsigned launches;
    struct kiln_cc_program *built;   /* READY: the variant's program, owned */
    const struct kiln_cc_kernel *cc; /* READY: its one kernel */
};

/*
 * The kernel description to launch k with for this range: a variant's when one is built, else
 * k->cc. The launch that reaches the count queues the variant's build and runs k->cc (or,
 * under KILN_VARIANT_BUILD=sync, builds it and runs it). local is
 * the local size the launch uses (given or chosen). Valid while k's program lives. When it
 * is a variant, *used is the key it was built for. Takes k->lock for a moment (the image
 * arguments), so the caller must not hold it.
 */
const struct kiln_cc_kernel *kiln_rt_variant_for(cl_kernel k, cl_uint dim, const size_t *offset,
                                                 const size_t *global, const size_t *local,
                                                 struct kiln_rt_variant_key *used);
/*
 * Under k->lock: whether k's image arguments still have the formats of `key`. A variant
 * built for image formats must run only on images of those formats: its pixel size and
 * channel layout are constants in its code.
 */
bool kiln_rt_variant_images_match(cl_kernel k, const struct kiln_rt_variant_key *key);
/*
 * Takes back the queued variant builds of p and waits for the one being built, if any: before
 * p's executable, which their entries belong to, is replaced. Without p->lock.
 */
void kiln_rt_variant_jobs_cancel(cl_program p);
/* Destroys the variants' programs of a table of `rows` kernels and frees it. */
void kiln_rt_variants_free(struct kiln_rt_variant *table, unsigned rows);

#endif
