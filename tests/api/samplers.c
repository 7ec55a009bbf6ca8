/*
 * Sampler objects (OpenCL 3.0 §5.4) through the ICD loader: clCreateSampler,
 * clCreateSamplerWithProperties, clRetainSampler, clReleaseSampler, clGetSamplerInfo.
 *
 *  - every normalised x addressing x filter combination through both creation calls, each
 *    query answering what was asked; the defaults of an empty or NULL property list;
 *    CL_SAMPLER_PROPERTIES as given (order kept, terminator included), size 0 for
 *    clCreateSampler and NULL properties;
 *  - the reference count through retain and release; the sampler keeps its context alive
 *    after the application releases the context;
 *  - every error: CL_INVALID_CONTEXT, CL_INVALID_VALUE for each bad mode, an unknown or
 *    repeated property, a bad property value, a too small param_value_size and an unknown
 *    query, CL_INVALID_SAMPLER for handles that are not samplers; NULL comes back on
 *    failure and errcode_ret may be NULL;
 *  - with the argument `off` (the ctest entry with KILN_IMAGES=0): CL_INVALID_OPERATION
 *    from both creation calls, as for a device without images, after the context check.
 */
#include "kiln_test.h"

#include <stdbool.h>

static const cl_bool norms[] = {CL_FALSE, CL_TRUE};
static const cl_addressing_mode addrs[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                           CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                           CL_ADDRESS_MIRRORED_REPEAT};
static const cl_filter_mode filters[] = {CL_FILTER_NEAREST, CL_FILTER_LINEAR};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void check_modes(cl_sampler s, cl_bool norm, cl_addressing_mode addr, cl_filter_mode filter,
                        const char *what)
{
    cl_bool b = 99;
    cl_addressing_mode a = 0;
    cl_filter_mode f = 0;
    size_t size = 0;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(b), &b, &size), CL_SUCCESS);
    KT_CHECK(b == norm && size == sizeof(b), "%s: normalized %u size %zu", what, b, size);
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(a), &a, &size), CL_SUCCESS);
    KT_CHECK(a == addr && size == sizeof(a), "%s: addressing 0x%x size %zu", what, a, size);
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(f), &f, &size), CL_SUCCESS);
    KT_CHECK(f == filter && size == sizeof(f), "%s: filter 0x%x size %zu", what, f, size);
}

/* CL_SAMPLER_PROPERTIES must be exactly `want` (n entries; n == 0: size 0). */
static void check_props(cl_sampler s, const cl_sampler_properties *want, size_t n, const char *what)
{
    size_t size = 99;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    KT_CHECK(size == n * sizeof(cl_sampler_properties), "%s: properties size %zu, want %zu", what,
             size, n * sizeof(cl_sampler_properties));
    cl_sampler_properties got[8];
    if (n == 0 || n > 8)
        return;
    memset(got, 0x5a, sizeof(got));
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof(got), got, NULL), CL_SUCCESS);
    KT_CHECK(memcmp(got, want, n * sizeof(*want)) == 0, "%s: properties differ", what);
}

static cl_uint refcount(cl_sampler s)
{
    cl_uint n = 0;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(n), &n, NULL), CL_SUCCESS);
    return n;
}

static void test_modes(struct kt_env *env)
{
    for (size_t i = 0; i < COUNT(norms); i++)
        for (size_t j = 0; j < COUNT(addrs); j++)
            for (size_t k = 0; k < COUNT(filters); k++) {
                char what[96];
                cl_int err = 1;
                snprintf(what, sizeof(what), "clCreateSampler(%u, 0x%x, 0x%x)", norms[i], addrs[j],
                         filters[k]);
                cl_sampler s = clCreateSampler(env->context, norms[i], addrs[j], filters[k], &err);
                KT_CHECK(err == CL_SUCCESS && s != NULL, "%s: %d", what, err);
                if (!s)
                    continue;
                check_modes(s, norms[i], addrs[j], filters[k], what);
                check_props(s, NULL, 0, what);
                cl_context c = NULL;
                KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(c), &c, NULL), CL_SUCCESS);
                KT_CHECK(c == env->context, "%s: context %p", what, (void *)c);
                KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);

                /* The same modes as properties, filter first: the order is kept. */
                cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE,
                                                 filters[k],
                                                 CL_SAMPLER_NORMALIZED_COORDS,
                                                 norms[i],
                                                 CL_SAMPLER_ADDRESSING_MODE,
                                                 addrs[j],
                                                 0};
                snprintf(what, sizeof(what), "clCreateSamplerWithProperties(%u, 0x%x, 0x%x)",
                         norms[i], addrs[j], filters[k]);
                s = clCreateSamplerWithProperties(env->context, props, &err);
                KT_CHECK(err == CL_SUCCESS && s != NULL, "%s: %d", what, err);
                if (!s)
                    continue;
                check_modes(s, norms[i], addrs[j], filters[k], what);
                check_props(s, props, COUNT(props), what);
                KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
            }

    /* Defaults (§5.4.1): normalised, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST. */
    cl_int err = 1;
    cl_sampler s = clCreateSamplerWithProperties(env->context, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS && s, "NULL properties: %d", err);
    check_modes(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, "NULL properties");
    check_props(s, NULL, 0, "NULL properties");
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
    const cl_sampler_properties empty[] = {0};
    s = clCreateSamplerWithProperties(env->context, empty, NULL);
    KT_REQUIRE(s, "an empty property list");
    check_modes(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, "empty properties");
    check_props(s, empty, 1, "empty properties");
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
    const cl_sampler_properties one[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
    s = clCreateSamplerWithProperties(env->context, one, NULL);
    KT_REQUIRE(s, "only a filter mode");
    check_modes(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, "only a filter mode");
    check_props(s, one, COUNT(one), "only a filter mode");
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
}

static void test_refcount(struct kt_env *env)
{
    cl_int err = 1;
    cl_context ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    KT_REQUIRE(err == CL_SUCCESS && s, "clCreateSampler: %d", err);
    KT_CHECK(refcount(s) == 1, "new sampler: count %u", refcount(s));
    KT_EXPECT(clRetainSampler(s), CL_SUCCESS);
    KT_CHECK(refcount(s) == 2, "retained: count %u", refcount(s));
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
    KT_CHECK(refcount(s) == 1, "released once: count %u", refcount(s));
    /* The sampler holds its context: after the application's release both stay usable. */
    KT_EXPECT(clReleaseContext(ctx), CL_SUCCESS);
    cl_context c = NULL;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(c), &c, NULL), CL_SUCCESS);
    KT_CHECK(c == ctx, "context after its release: %p", (void *)c);
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
}

/* A creation that must fail with `want`: NULL back and errcode_ret set. */
static void expect_props_fail(struct kt_env *env, const cl_sampler_properties *props, cl_int want,
                              const char *what)
{
    cl_int err = 1;
    cl_sampler s = clCreateSamplerWithProperties(env->context, props, &err);
    KT_CHECK(s == NULL && err == want, "%s: sampler %p, error %d, want %d", what, (void *)s, err,
             want);
    if (s)
        clReleaseSampler(s);
}

static void test_errors(struct kt_env *env)
{
    cl_int err = 1;
    cl_sampler s = clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_CONTEXT, "NULL context: %d", err);
    s = clCreateSampler((cl_context)env->queue, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_CONTEXT, "a queue as context: %d", err);
    s = clCreateSamplerWithProperties(NULL, NULL, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_CONTEXT, "NULL context with properties: %d", err);

    s = clCreateSampler(env->context, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_VALUE, "normalized_coords 2: %d", err);
    s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT + 1, CL_FILTER_NEAREST,
                        &err);
    KT_CHECK(s == NULL && err == CL_INVALID_VALUE, "addressing 0x1135: %d", err);
    s = clCreateSampler(env->context, CL_TRUE, CL_FILTER_NEAREST, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_VALUE, "a filter mode as addressing: %d", err);
    s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR + 1, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_VALUE, "filter 0x1142: %d", err);
    s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, CL_ADDRESS_CLAMP, NULL);
    KT_CHECK(s == NULL, "an addressing mode as filter, errcode_ret NULL");

    const cl_sampler_properties unknown[] = {CL_SAMPLER_LOD_MIN, 0, 0};
    expect_props_fail(env, unknown, CL_INVALID_VALUE, "CL_SAMPLER_LOD_MIN (no mipmaps)");
    const cl_sampler_properties junk[] = {0x4242, 1, 0};
    expect_props_fail(env, junk, CL_INVALID_VALUE, "unknown property 0x4242");
    const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                           CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
    expect_props_fail(env, twice, CL_INVALID_VALUE, "filter mode twice");
    const cl_sampler_properties twice_norm[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                                CL_TRUE,
                                                CL_SAMPLER_ADDRESSING_MODE,
                                                CL_ADDRESS_NONE,
                                                CL_SAMPLER_NORMALIZED_COORDS,
                                                CL_FALSE,
                                                0};
    expect_props_fail(env, twice_norm, CL_INVALID_VALUE, "normalized coords twice");
    const cl_sampler_properties bad_norm[] = {CL_SAMPLER_NORMALIZED_COORDS, 2, 0};
    expect_props_fail(env, bad_norm, CL_INVALID_VALUE, "normalized coords 2");
    /* Low 32 bits a valid mode: the value is still not one. */
    const cl_sampler_properties wide_addr[] = {
        CL_SAMPLER_ADDRESSING_MODE, ((cl_sampler_properties)1 << 32) | CL_ADDRESS_CLAMP, 0};
    expect_props_fail(env, wide_addr, CL_INVALID_VALUE, "addressing mode with high bits");
    const cl_sampler_properties bad_addr[] = {CL_SAMPLER_ADDRESSING_MODE, 0x1100, 0};
    expect_props_fail(env, bad_addr, CL_INVALID_VALUE, "addressing mode 0x1100");
    const cl_sampler_properties bad_filter[] = {CL_SAMPLER_FILTER_MODE, CL_ADDRESS_CLAMP, 0};
    expect_props_fail(env, bad_filter, CL_INVALID_VALUE, "an addressing mode as filter");

    /* Handles that are not samplers. */
    cl_sampler not_sampler = (cl_sampler)env->context;
    KT_EXPECT(clRetainSampler(NULL), CL_INVALID_SAMPLER);
    KT_EXPECT(clReleaseSampler(NULL), CL_INVALID_SAMPLER);
    KT_EXPECT(clRetainSampler(not_sampler), CL_INVALID_SAMPLER);
    KT_EXPECT(clReleaseSampler(not_sampler), CL_INVALID_SAMPLER);
    cl_uint n = 77;
    size_t size = 77;
    KT_EXPECT(clGetSamplerInfo(NULL, CL_SAMPLER_REFERENCE_COUNT, sizeof(n), &n, &size),
              CL_INVALID_SAMPLER);
    KT_EXPECT(clGetSamplerInfo(not_sampler, CL_SAMPLER_REFERENCE_COUNT, sizeof(n), &n, &size),
              CL_INVALID_SAMPLER);
    KT_CHECK(n == 77 && size == 77, "outputs written on failure: %u %zu", n, size);

    /* Queries: too small a buffer, an unknown name; the outputs left alone. */
    s = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
    KT_REQUIRE(err == CL_SUCCESS && s, "clCreateSampler: %d", err);
    unsigned char small[2] = {7, 7};
    size = 77;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(small), small, &size),
              CL_INVALID_VALUE);
    KT_CHECK(small[0] == 7 && small[1] == 7 && size == 77, "outputs written on failure");
    cl_context c = NULL;
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(c) - 1, &c, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clGetSamplerInfo(s, CL_SAMPLER_LOD_MAX, sizeof(n), &n, &size), CL_INVALID_VALUE);
    KT_EXPECT(clGetSamplerInfo(s, CL_KERNEL_REFERENCE_COUNT, sizeof(n), &n, &size),
              CL_INVALID_VALUE);
    KT_CHECK(n == 77 && size == 77, "outputs written on failure: %u %zu", n, size);
    KT_EXPECT(clReleaseSampler(s), CL_SUCCESS);
}

/* Under KILN_IMAGES=0 the device has no images: samplers are refused (§5.4.1). */
static void test_off(struct kt_env *env)
{
    cl_bool images = CL_TRUE;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
              CL_SUCCESS);
    KT_CHECK(images == CL_FALSE, "the device reports images under KILN_IMAGES=0");
    cl_int err = 1;
    cl_sampler s =
        clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_OPERATION, "clCreateSampler: %d", err);
    s = clCreateSamplerWithProperties(env->context, NULL, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_OPERATION, "clCreateSamplerWithProperties: %d", err);
    /* The context is checked first. */
    s = clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    KT_CHECK(s == NULL && err == CL_INVALID_CONTEXT, "NULL context: %d", err);
    KT_EXPECT(clRetainSampler(NULL), CL_INVALID_SAMPLER);
    KT_EXPECT(clGetSamplerInfo(NULL, CL_SAMPLER_REFERENCE_COUNT, 0, NULL, NULL),
              CL_INVALID_SAMPLER);
}

int main(int argc, char **argv)
{
    struct kt_env env;
    kt_setup(&env, 0);
    if (argc > 1 && strcmp(argv[1], "off") == 0) {
        test_off(&env);
    } else {
        test_modes(&env);
        test_refcount(&env);
        test_errors(&env);
    }
    kt_teardown(&env);
    return kt_finish("samplers");
}
