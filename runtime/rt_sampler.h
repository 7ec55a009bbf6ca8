/*
 * The sampler object (sampler.c; OpenCL 3.0 §5.4). A sampler_t kernel argument is
 * passed as the sampler's bits (include/kiln_image.h), which kernel.c reads here.
 */
#ifndef KILN_RUNTIME_RT_SAMPLER_H
#define KILN_RUNTIME_RT_SAMPLER_H

#include <CL/cl.h>
#include <stdint.h>

#include "rt_object.h"

/* Every field is fixed at creation; nothing needs a lock. */
struct _cl_sampler {
    struct kiln_object obj;
    cl_context context; /* held */
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
    uint32_t bits; /* KILN_SAMPLER_* of the three above: what a kernel receives */
    /* CL_SAMPLER_PROPERTIES: a copy of the list given, its terminator included; NULL
     * (and 0 entries) when made by clCreateSampler or with NULL properties. */
    cl_sampler_properties *props;
    size_t num_props;
};

static inline cl_int kiln_rt_check_sampler(cl_sampler s)
{
    return kiln_rt_check_handle(s, KILN_TAG_SAMPLER);
}

#endif
