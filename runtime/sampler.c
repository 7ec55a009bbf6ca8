/*
 * Sampler objects (OpenCL 3.0 §5.4): clCreateSampler, clCreateSamplerWithProperties,
 * clRetainSampler, clReleaseSampler, clGetSamplerInfo.
 *
 * A sampler is its three modes and nothing else on a CPU: the bits a kernel reads
 * with (KILN_SAMPLER_*, include/kiln_image.h) are computed here once, and
 * clSetKernelArg copies them into the argument (kernel.c), so a kernel never
 * touches the object and releasing it after clSetKernelArg is harmless.
 */
#include "rt_sampler.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"

#include "kiln_alloc.h"
#include "kiln_image.h"

#include <stdlib.h>
#include <string.h>

static void sampler_destroy(struct kiln_object *obj)
{
    cl_sampler s = (cl_sampler)obj;
    kiln_rt_obj_drop(&s->context->obj);
    free(s->props);
    free(s);
}

/* The KILN_SAMPLER_* bits of a valid addressing mode, or CL_INVALID_VALUE. */
static cl_int addressing_bits(cl_addressing_mode mode, uint32_t *bits)
{
    switch (mode) {
    case CL_ADDRESS_NONE:
        *bits = KILN_SAMPLER_ADDRESS_NONE;
        return CL_SUCCESS;
    case CL_ADDRESS_CLAMP_TO_EDGE:
        *bits = KILN_SAMPLER_ADDRESS_CLAMP_EDGE;
        return CL_SUCCESS;
    case CL_ADDRESS_CLAMP:
        *bits = KILN_SAMPLER_ADDRESS_CLAMP;
        return CL_SUCCESS;
    case CL_ADDRESS_REPEAT:
        *bits = KILN_SAMPLER_ADDRESS_REPEAT;
        return CL_SUCCESS;
    case CL_ADDRESS_MIRRORED_REPEAT:
        *bits = KILN_SAMPLER_ADDRESS_MIRRORED;
        return CL_SUCCESS;
    default:
        return KILN_ERR(CL_INVALID_VALUE, "addressing mode 0x%x", (unsigned)mode);
    }
}

/*
 * The sampler's bits from its three modes: CL_INVALID_VALUE for a value outside each
 * mode's list (a cl_bool other than CL_TRUE and CL_FALSE included). Unnormalised
 * coordinates with CL_ADDRESS_REPEAT or CL_ADDRESS_MIRRORED_REPEAT are accepted: OpenCL C
 * leaves a read through such a sampler undefined (§6.15.15, "Image Addressing and
 * Filtering"), but the API names no such combination invalid, and applications create
 * them without reading through them.
 */
static cl_int sampler_bits(cl_bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
                           uint32_t *out)
{
    uint32_t bits = 0;
    if (normalized != CL_TRUE && normalized != CL_FALSE)
        return KILN_ERR(CL_INVALID_VALUE, "normalized_coords %u is neither CL_TRUE nor CL_FALSE",
                        (unsigned)normalized);
    cl_int err = addressing_bits(addressing, &bits);
    if (err != CL_SUCCESS)
        return err;
    if (filter == CL_FILTER_NEAREST)
        bits |= KILN_SAMPLER_FILTER_NEAREST;
    else if (filter == CL_FILTER_LINEAR)
        bits |= KILN_SAMPLER_FILTER_LINEAR;
    else
        return KILN_ERR(CL_INVALID_VALUE, "filter mode 0x%x", (unsigned)filter);
    if (normalized)
        bits |= KILN_SAMPLER_NORMALIZED_COORDS;
    *out = bits;
    return CL_SUCCESS;
}

/* §5.4.1: "CL_INVALID_OPERATION if images are not supported by any device associated with
 * context". */
static cl_int check_image_support(cl_context ctx)
{
    (void)ctx; /* every device of a Kiln context is the CPU device or a part of it */
    if (!kiln_rt_images_enabled())
        return KILN_ERR(CL_INVALID_OPERATION, "the device does not support images");
    return CL_SUCCESS;
}

/*
 * Read a sampler property list into the three modes (defaults: normalised, CL_ADDRESS_CLAMP,
 * CL_FILTER_NEAREST; §5.4.1) and count its entries, terminator included, into *num
 * (0 for NULL). CL_INVALID_VALUE for an unknown name, a bad value or a name given twice.
 */
static cl_int parse_props(const cl_sampler_properties *props, cl_bool *normalized,
                          cl_addressing_mode *addressing, cl_filter_mode *filter, size_t *num)
{
    *normalized = CL_TRUE;
    *addressing = CL_ADDRESS_CLAMP;
    *filter = CL_FILTER_NEAREST;
    *num = 0;
    if (!props)
        return CL_SUCCESS;
    bool seen_norm = false, seen_addr = false, seen_filter = false;
    size_t i = 0;
    for (; props[i] != 0; i += 2) {
        bool *seen;
        switch (props[i]) {
        case CL_SAMPLER_NORMALIZED_COORDS:
            seen = &seen_norm;
            *normalized = (cl_bool)props[i + 1];
            /* The value is a cl_bool widened: any other bit set is a bad value. */
            if (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)
                return KILN_ERR(CL_INVALID_VALUE,
                                "CL_SAMPLER_NORMALIZED_COORDS %lld is neither CL_TRUE nor CL_FALSE",
                                (long long)props[i + 1]);
            break;
        case CL_SAMPLER_ADDRESSING_MODE:
            seen = &seen_addr;
            *addressing = (cl_addressing_mode)props[i + 1];
            if ((cl_sampler_properties)*addressing != props[i + 1])
                return KILN_ERR(CL_INVALID_VALUE, "CL_SAMPLER_ADDRESSING_MODE 0x%llx",
                                (unsigned long long)props[i + 1]);
            break;
        case CL_SAMPLER_FILTER_MODE:
            seen = &seen_filter;
            *filter = (cl_filter_mode)props[i + 1];
            if ((cl_sampler_properties)*filter != props[i + 1])
                return KILN_ERR(CL_INVALID_VALUE, "CL_SAMPLER_FILTER_MODE 0x%llx",
                                (unsigned long long)props[i + 1]);
            break;
        default:
            return KILN_ERR(CL_INVALID_VALUE, "unknown sampler property 0x%llx",
                            (unsigned long long)props[i]);
        }
        if (*seen)
            return KILN_ERR(CL_INVALID_VALUE, "sampler property 0x%llx given twice",
                            (unsigned long long)props[i]);
        *seen = true;
    }
    *num = i + 1;
    return CL_SUCCESS;
}

/* Make a sampler of valid modes; `props` (num entries, or NULL) is copied. */
static cl_int sampler_create(cl_context ctx, cl_bool normalized, cl_addressing_mode addressing,
                             cl_filter_mode filter, uint32_t bits,
                             const cl_sampler_properties *props, size_t num, cl_sampler *out)
{
    cl_sampler s = kiln_calloc(1, sizeof(*s));
    if (!s)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "sampler object");
    if (num) {
        s->props = kiln_malloc(num * sizeof(*props));
        if (!s->props) {
            free(s);
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "sampler properties");
        }
        memcpy(s->props, props, num * sizeof(*props));
        s->num_props = num;
    }
    kiln_rt_obj_init(&s->obj, KILN_TAG_SAMPLER, sampler_destroy);
    s->context = ctx;
    kiln_rt_obj_hold(&ctx->obj); /* a sampler holds its context (STYLE H5) */
    s->normalized = normalized;
    s->addressing = addressing;
    s->filter = filter;
    s->bits = bits;
    KILN_LOG(KILN_DBG_API, "sampler %p: bits 0x%x", (void *)s, bits);
    *out = s;
    return CL_SUCCESS;
}

cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                     const cl_sampler_properties *properties,
                                                     cl_int *errcode_ret)
{
    cl_sampler s = NULL;
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
    uint32_t bits = 0;
    size_t num = 0;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = parse_props(properties, &normalized, &addressing, &filter, &num);
    if (err == CL_SUCCESS)
        err = sampler_bits(normalized, addressing, filter, &bits);
    if (err == CL_SUCCESS)
        err = check_image_support(context);
    if (err == CL_SUCCESS)
        err = sampler_create(context, normalized, addressing, filter, bits, properties, num, &s);
    kiln_set_errcode(errcode_ret, err);
    return s;
}

cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                       cl_addressing_mode addressing_mode,
                                       cl_filter_mode filter_mode, cl_int *errcode_ret)
{
    cl_sampler s = NULL;
    uint32_t bits = 0;
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        err = sampler_bits(normalized_coords, addressing_mode, filter_mode, &bits);
    if (err == CL_SUCCESS)
        err = check_image_support(context);
    if (err == CL_SUCCESS)
        err = sampler_create(context, normalized_coords, addressing_mode, filter_mode, bits, NULL,
                             0, &s);
    kiln_set_errcode(errcode_ret, err);
    return s;
}

cl_int CL_API_CALL clRetainSampler(cl_sampler sampler)
{
    cl_int err = kiln_rt_check_sampler(sampler);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&sampler->obj);
    return err;
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler)
{
    cl_int err = kiln_rt_check_sampler(sampler);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&sampler->obj);
    return err;
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_sampler(sampler);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    switch (param_name) {
    case CL_SAMPLER_REFERENCE_COUNT:
        u = atomic_load_explicit(&sampler->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_SAMPLER_CONTEXT:
        return kiln_rt_info(&sampler->context, sizeof(cl_context), param_value_size, param_value,
                            param_value_size_ret);
    case CL_SAMPLER_NORMALIZED_COORDS:
        return kiln_rt_info(&sampler->normalized, sizeof(cl_bool), param_value_size, param_value,
                            param_value_size_ret);
    case CL_SAMPLER_ADDRESSING_MODE:
        return kiln_rt_info(&sampler->addressing, sizeof(cl_addressing_mode), param_value_size,
                            param_value, param_value_size_ret);
    case CL_SAMPLER_FILTER_MODE:
        return kiln_rt_info(&sampler->filter, sizeof(cl_filter_mode), param_value_size, param_value,
                            param_value_size_ret);
    case CL_SAMPLER_PROPERTIES:
        /* §5.4.2: the list as given; size 0 when made by clCreateSampler or with NULL. */
        return kiln_rt_info(sampler->props, sampler->num_props * sizeof(cl_sampler_properties),
                            param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown sampler query 0x%x", param_name);
    }
}
