/*
 * Everything the device reports against what it does: each capability query is checked
 * against a kernel or an API call that uses it, at its limit where it has one.
 *
 *  - CL_DEVICE_EXTENSIONS and CL_DEVICE_EXTENSIONS_WITH_VERSION name the same extensions,
 *    each once and with a version; every one is a known language or API-only extension;
 *  - CL_DEVICE_NUMERIC_VERSION and CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR agree with the
 *    CL_DEVICE_VERSION and CL_DEVICE_OPENCL_C_VERSION strings, and the latter is listed in
 *    CL_DEVICE_OPENCL_C_ALL_VERSIONS;
 *  - every OpenCL C version listed builds with its -cl-std and sets __OPENCL_C_VERSION__;
 *    OpenCL C 2.0 is listed exactly when device-side enqueue, which it makes mandatory, is
 *    reported (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES), and then a kernel enqueues a child;
 *    device-side enqueue is reported exactly when KILN_DEVICE_ENQUEUE=0 is not set (ctest
 *    runs this test both ways);
 *  - of every known __opencl_c_* macro an OpenCL C 3.0 kernel sees exactly the reported
 *    features, and a 1.x or 2.0 kernel only reported ones (feature macros belong to OpenCL C
 *    3.0: docs/compiler.md, "What a kernel sees"); each feature agrees with the device query
 *    that describes it;
 *  - of every known language extension a kernel sees exactly the reported ones, at every
 *    -cl-std from CL1.0 to CL3.0;
 *  - cl_khr_fp16 is reported exactly when KILN_FP16=0 is not set (docs/envvars.md; ctest
 *    runs this test both ways), with CL_DEVICE_HALF_FP_CONFIG and the half vector
 *    widths to match; unreported, a kernel's half arithmetic fails to build and its
 *    `#pragma OPENCL EXTENSION cl_khr_fp16 : enable` draws Clang's warning;
 *  - CL_DEVICE_ILS_WITH_VERSION and CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION are empty, and so
 *    clCreateProgramWithIL and clCreateProgramWithBuiltInKernels refuse;
 *  - CL_DEVICE_MAX_CONSTANT_ARGS __constant arguments run with correct results, one more is
 *    refused at enqueue; a __constant buffer of CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (1 MiB)
 *    is read whole, one byte more is refused; arguments of exactly
 *    CL_DEVICE_MAX_PARAMETER_SIZE bytes (scalars, and a structure) run, more are refused.
 *    The refusals are CL_OUT_OF_RESOURCES (runtime/kernel.c, check_arg_limits, says why).
 */
#include "kiln_test.h"

#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Language extensions of the Khronos registry and of Clang (every name of Clang 19's
 * OpenCLExtensions.def and of its opencl-c-base.h among them): a kernel may see their macros.
 */
static const char *const language_exts[] = {
    "cl_khr_byte_addressable_store",
    "cl_khr_3d_image_writes",
    "cl_khr_fp16",
    "cl_khr_fp64",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cles_khr_int64",
    "cl_khr_select_fprounding_mode",
    "cl_khr_depth_images",
    "cl_khr_gl_depth_images",
    "cl_khr_gl_msaa_sharing",
    "cl_khr_device_enqueue_local_arg_types",
    "cl_khr_subgroups",
    "cl_khr_mipmap_image",
    "cl_khr_mipmap_image_writes",
    "cl_khr_srgb_image_writes",
    "cl_khr_subgroup_named_barrier",
    "cl_khr_extended_async_copies",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product",
    "cl_khr_subgroup_rotate",
    "cl_khr_kernel_clock",
    "cl_ext_float_atomics",
    "cl_ext_image_raw10_raw12",
    "cl_clang_storage_class_specifiers",
    "__cl_clang_function_pointers",
    "__cl_clang_variadic_functions",
    "__cl_clang_non_portable_kernel_param_types",
    "__cl_clang_bitfields",
    "cl_amd_media_ops",
    "cl_amd_media_ops2",
    "cl_arm_integer_dot_product_int8",
    "cl_arm_integer_dot_product_accumulate_int8",
    "cl_arm_integer_dot_product_accumulate_int16",
    "cl_arm_integer_dot_product_accumulate_saturate_int8",
    "cl_intel_subgroups",
    "cl_intel_subgroups_short",
    "cl_intel_subgroups_char",
    "cl_intel_subgroups_long",
    "cl_intel_required_subgroup_size",
    "cl_intel_device_side_avc_motion_estimation",
    "cl_intel_planar_yuv",
    "cl_intel_bit_instructions",
};

/* Extensions with no OpenCL C part: no macro is promised. */
static const char *const api_exts[] = {
    "cl_khr_icd",
    "cl_khr_extended_versioning",
    "cl_khr_device_uuid",
    "cl_khr_il_program",
    "cl_khr_spir",
    "cl_khr_create_command_queue",
    "cl_khr_image2d_from_buffer",
    "cl_khr_initialize_memory",
    "cl_khr_terminate_context",
    "cl_khr_priority_hints",
    "cl_khr_throttle_hints",
    "cl_khr_pci_bus_info",
    "cl_khr_suggested_local_work_size",
};

/*
 * The OpenCL C 3.0 feature macros, those of cl_ext_float_atomics and cl_ext_image_raw10_raw12
 * included: every __opencl_c_* name Clang 19 or its opencl-c-base.h defines but the internal
 * __opencl_c_named_address_space_builtins.
 */
static const char *const known_features[] = {
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_generic_address_space",
    "__opencl_c_fp64",
    "__opencl_c_fp16",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_kernel_clock_scope_device",
    "__opencl_c_kernel_clock_scope_work_group",
    "__opencl_c_kernel_clock_scope_sub_group",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_ext_image_raw10_raw12",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const all_stds[] = {"-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2",
                                       "-cl-std=CL2.0", "-cl-std=CL3.0"};

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

static bool in_versions(const char *name, const cl_name_version *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, v[i].name) == 0)
            return true;
    return false;
}

/* A query's whole answer, malloc()ed; *size gets its bytes. */
static void *query(cl_device_id d, cl_device_info what, size_t *size)
{
    size_t n = 0;
    KT_REQUIRE_OK(clGetDeviceInfo(d, what, 0, NULL, &n));
    void *v = calloc(1, n + 1);
    KT_REQUIRE(v, "out of memory");
    KT_REQUIRE_OK(clGetDeviceInfo(d, what, n, v, NULL));
    *size = n;
    return v;
}

/* "OpenCL 3.0 ..." or "OpenCL C 1.2 ...": the version after `prefix`, as CL_MAKE_VERSION. */
static cl_version version_in(const char *s, const char *prefix)
{
    unsigned major = 0, minor = 0;
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || sscanf(s + n, "%u.%u", &major, &minor) != 2)
        return 0;
    return CL_MAKE_VERSION(major, minor, 0);
}

/*
 * Builds a kernel that writes, for each name, 1 when the macro is defined and 0 when not,
 * runs it with `options` and returns the flags (malloc()ed).
 */
static int *macros_defined(struct kt_env *env, const char *const *names, size_t n,
                           const char *options)
{
    size_t cap = 256 + n * 160, len = 0;
    char *src = malloc(cap);
    KT_REQUIRE(src, "out of memory");
    len += (size_t)snprintf(src + len, cap - len, "kernel void defined(global int *out) {\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(src + len, cap - len,
                                "#ifdef %s\n out[%zu] = 1;\n#else\n out[%zu] = 0;\n#endif\n",
                                names[i], i, i);
    snprintf(src + len, cap - len, "}\n");
    int *out = malloc(n * sizeof(int));
    KT_REQUIRE(out, "out of memory");
    for (size_t i = 0; i < n; i++)
        out[i] = -1;
    struct kt_arg args[] = {{KT_OUT, n * sizeof(int), out}};
    KT_EXPECT(kt_run(env, src, options, "defined", 1, 1, 1, args), CL_SUCCESS);
    free(src);
    return out;
}

/* ---- extensions ------------------------------------------------------------------ */

static void extensions(struct kt_env *env)
{
    size_t size = 0, vsize = 0;
    char *str = query(env->device, CL_DEVICE_EXTENSIONS, &size);
    cl_name_version *v = query(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION, &vsize);
    size_t nv = vsize / sizeof(*v);
    KT_CHECK(vsize % sizeof(*v) == 0, "CL_DEVICE_EXTENSIONS_WITH_VERSION: %zu bytes", vsize);
    KT_CHECK(size == strlen(str) + 1, "CL_DEVICE_EXTENSIONS: %zu bytes for %zu characters", size,
             strlen(str));

    /* The string's names, each once, are the list's names. */
    size_t in_string = 0;
    for (char *save = NULL, *w = strtok_r(str, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        in_string++;
        KT_CHECK(in_versions(w, v, nv), "%s is in CL_DEVICE_EXTENSIONS, not in _WITH_VERSION", w);
        KT_CHECK(in_list(w, language_exts, COUNT(language_exts)) ||
                     in_list(w, api_exts, COUNT(api_exts)),
                 "%s is neither a known language nor API extension: add it to a list", w);
    }
    KT_CHECK(in_string == nv, "CL_DEVICE_EXTENSIONS names %zu, _WITH_VERSION %zu", in_string, nv);
    for (size_t i = 0; i < nv; i++) {
        KT_CHECK(v[i].version != 0, "%s has version 0", v[i].name);
        for (size_t j = 0; j < i; j++)
            KT_CHECK(strcmp(v[i].name, v[j].name) != 0, "%s is listed twice", v[i].name);
    }

    /* A kernel sees the macros of exactly the reported language extensions. */
    for (size_t s = 0; s < COUNT(all_stds); s++) {
        int *def = macros_defined(env, language_exts, COUNT(language_exts), all_stds[s]);
        for (size_t i = 0; i < COUNT(language_exts); i++) {
            bool reported = in_versions(language_exts[i], v, nv);
            /* cl_khr_depth_images extends OpenCL C 1.2 (its specification requires 1.2): a
             * 1.0 or 1.1 kernel does not see it, reported or not. */
            if (s < 2 && strcmp(language_exts[i], "cl_khr_depth_images") == 0)
                reported = false;
            KT_CHECK(def[i] == (reported ? 1 : 0), "%s: %s is %s but %s", all_stds[s],
                     language_exts[i], def[i] ? "defined" : "not defined",
                     reported ? "reported" : "not reported");
        }
        free(def);
    }
    free(str);
    free(v);
}

/* ---- half precision ---------------------------------------------------------------- */

/* Half variables need the extension's pragma first (the cl_khr_fp16 specification; Clang
 * enforces it at every version). */
static const char *half_src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                              "kernel void h(global float *out, float x) {\n"
                              "  half a = (half)x;\n"
                              "  out[0] = (float)(a * a + a);\n"
                              "}\n";

static const char *pragma_src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                                "kernel void p(global float *out) { out[0] = 1.0f; }\n";

/* The build log of `src`, which must build (malloc()ed). */
static char *build_log(struct kt_env *env, const char *src, const char *options)
{
    cl_program p = kt_build(env, src, options);
    size_t n = 0;
    KT_REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n));
    char *log = calloc(1, n + 1);
    KT_REQUIRE(log, "out of memory");
    KT_REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, n, log, NULL));
    clReleaseProgram(p);
    return log;
}

/*
 * The preferred and native vector widths: one vector register's worth of each type, at most
 * 16 elements. Registers of 64 bytes with AVX-512F, 32 with AVX for float and double and with
 * AVX2 for the integer types, else 16.
 */
static void vector_widths(struct kt_env *env)
{
    unsigned fbytes = 16, ibytes = 16;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        fbytes = ibytes = 64;
    else {
        fbytes = __builtin_cpu_supports("avx") ? 32 : 16;
        ibytes = __builtin_cpu_supports("avx2") ? 32 : 16;
    }
#endif
    static const struct {
        cl_device_info preferred, native;
        unsigned size;
        bool is_float;
        const char *name;
    } types[] = {
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, 1, false,
         "char"},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, 2, false,
         "short"},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, 4, false, "int"},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, 8, false,
         "long"},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, 4, true,
         "float"},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, 8, true,
         "double"},
    };
    for (size_t i = 0; i < COUNT(types); i++) {
        cl_uint preferred = 0, native = 0;
        KT_REQUIRE_OK(
            clGetDeviceInfo(env->device, types[i].preferred, sizeof(preferred), &preferred, NULL));
        KT_REQUIRE_OK(clGetDeviceInfo(env->device, types[i].native, sizeof(native), &native, NULL));
        unsigned want = (types[i].is_float ? fbytes : ibytes) / types[i].size;
        want = want > 16 ? 16 : want;
        KT_CHECK(preferred == want && native == want, "%s vector widths %u and %u, want %u",
                 types[i].name, preferred, native, want);
    }
}

static void half_precision(struct kt_env *env)
{
    size_t vsize = 0;
    cl_name_version *v = query(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION, &vsize);
    bool fp16 = in_versions("cl_khr_fp16", v, vsize / sizeof(*v));
    free(v);
    const char *switch_env = getenv("KILN_FP16");
    bool asked = !(switch_env && strcmp(switch_env, "0") == 0);
    KT_CHECK(fp16 == asked, "cl_khr_fp16 is %s under KILN_FP16=%s",
             fp16 ? "reported" : "not reported", switch_env ? switch_env : "(unset)");

    cl_device_fp_config config = 1;
    cl_uint preferred = 1, native = 1;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_HALF_FP_CONFIG, sizeof(config), &config, NULL));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
                                  sizeof(preferred), &preferred, NULL));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, sizeof(native),
                                  &native, NULL));
    if (fp16) {
        /* OpenCL 3.0 §4.2: with cl_khr_fp16, round to nearest (or to zero) and INF/NaN. */
        KT_CHECK(config == (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM),
                 "CL_DEVICE_HALF_FP_CONFIG 0x%llx", (unsigned long long)config);
        cl_uint float_width = 0;
        KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
                                      sizeof(float_width), &float_width, NULL));
        KT_CHECK(preferred == float_width && native == float_width,
                 "half vector widths %u and %u, float's are %u", preferred, native, float_width);
        for (size_t s = 0; s < COUNT(all_stds); s++) {
            float out = 0;
            float x = 1.5f;
            struct kt_arg args[] = {{KT_OUT, sizeof(out), &out}, {KT_VALUE, sizeof(x), &x}};
            KT_EXPECT(kt_run(env, half_src, all_stds[s], "h", 1, 1, 2, args), CL_SUCCESS);
            KT_CHECK(out == 3.75f, "%s: half arithmetic gave %g, not 3.75", all_stds[s], out);
        }
    } else {
        KT_CHECK(config == 0 && preferred == 0 && native == 0,
                 "without cl_khr_fp16: CL_DEVICE_HALF_FP_CONFIG 0x%llx, half widths %u and %u",
                 (unsigned long long)config, preferred, native);
        kt_build_fails(env, half_src, "-cl-std=CL3.0", "of type '__private half' is not allowed",
                       "half arithmetic");
        for (size_t s = 0; s < COUNT(all_stds); s++) {
            char *log = build_log(env, pragma_src, all_stds[s]);
            KT_CHECK(strstr(log, "warning: unsupported OpenCL extension 'cl_khr_fp16'"),
                     "%s: the pragma enabling unreported cl_khr_fp16 drew no warning: '%s'",
                     all_stds[s], log);
            free(log);
        }
    }
}

/* ---- versions -------------------------------------------------------------------- */

static const char *version_src =
    "kernel void v(global int *out) { out[0] = __OPENCL_C_VERSION__; }";

/* Device-side enqueue, which OpenCL C 2.0 requires of every device that lists it. */
static const char *enqueue_src =
    "kernel void parent(global int *out) {\n"
    "  queue_t q = get_default_queue();\n"
    "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[0] = 1; });\n"
    "}\n";

static void versions(struct kt_env *env)
{
    size_t size = 0;
    char *dev_version = query(env->device, CL_DEVICE_VERSION, &size);
    char *c_version = query(env->device, CL_DEVICE_OPENCL_C_VERSION, &size);
    cl_version num = 0, c_num = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_NUMERIC_VERSION, sizeof(num), &num, NULL),
              CL_SUCCESS);
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR, sizeof(c_num),
                              &c_num, NULL),
              CL_SUCCESS);
    KT_CHECK(version_in(dev_version, "OpenCL ") == num && num != 0,
             "CL_DEVICE_VERSION '%s' and CL_DEVICE_NUMERIC_VERSION %u.%u", dev_version,
             CL_VERSION_MAJOR(num), CL_VERSION_MINOR(num));
    KT_CHECK(version_in(c_version, "OpenCL C ") == c_num && c_num != 0,
             "CL_DEVICE_OPENCL_C_VERSION '%s' and CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR %u.%u",
             c_version, CL_VERSION_MAJOR(c_num), CL_VERSION_MINOR(c_num));

    size_t vsize = 0;
    cl_name_version *v = query(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &vsize);
    size_t nv = vsize / sizeof(*v);
    bool has_c_version = false, has_api_version = false, has_20 = false;
    for (size_t i = 0; i < nv; i++) {
        unsigned major = CL_VERSION_MAJOR(v[i].version), minor = CL_VERSION_MINOR(v[i].version);
        KT_CHECK(strcmp(v[i].name, "OpenCL C") == 0, "OpenCL C version named '%s'", v[i].name);
        has_c_version |= CL_MAKE_VERSION(major, minor, 0) == c_num;
        has_api_version |= CL_MAKE_VERSION(major, minor, 0) == num;
        has_20 |= major == 2 && minor == 0;
        /* Each listed version builds with its -cl-std and says so in __OPENCL_C_VERSION__. */
        char opt[32];
        snprintf(opt, sizeof(opt), "-cl-std=CL%u.%u", major, minor);
        int out = -1;
        struct kt_arg args[] = {{KT_OUT, sizeof(out), &out}};
        KT_EXPECT(kt_run(env, version_src, opt, "v", 1, 1, 1, args), CL_SUCCESS);
        KT_CHECK(out == (int)(major * 100 + minor * 10), "%s: __OPENCL_C_VERSION__ %d", opt, out);
    }
    KT_CHECK(has_c_version, "CL_DEVICE_OPENCL_C_VERSION '%s' is not in _ALL_VERSIONS", c_version);
    KT_CHECK(has_api_version, "OpenCL C %u.%u, the device's version, is not in _ALL_VERSIONS",
             CL_VERSION_MAJOR(num), CL_VERSION_MINOR(num));
    cl_device_device_enqueue_capabilities caps = 0;
    KT_EXPECT(clGetDeviceInfo(env->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(caps),
                              &caps, NULL),
              CL_SUCCESS);
    KT_CHECK(has_20 == (caps != 0), "OpenCL C 2.0 %s, device-side enqueue %s",
             has_20 ? "listed" : "not listed", caps ? "reported" : "not reported");
    const char *devenq_env = getenv("KILN_DEVICE_ENQUEUE");
    bool devenq_asked = !(devenq_env && strcmp(devenq_env, "0") == 0);
    KT_CHECK((caps != 0) == devenq_asked, "device-side enqueue is %s under KILN_DEVICE_ENQUEUE=%s",
             caps ? "reported" : "not reported", devenq_env ? devenq_env : "(unset)");
    if (has_20) {
        cl_int err;
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                       CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT |
                                           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                       0};
        cl_command_queue dq =
            clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
        KT_EXPECT(err, CL_SUCCESS);
        int out = 0;
        struct kt_arg args[] = {{KT_INOUT, sizeof(out), &out}};
        KT_EXPECT(kt_run(env, enqueue_src, "-cl-std=CL2.0", "parent", 1, 1, 1, args), CL_SUCCESS);
        KT_CHECK(out == 1, "the child of an OpenCL C 2.0 kernel wrote %d", out);
        if (dq)
            clReleaseCommandQueue(dq);
    }
    free(v);
    free(dev_version);
    free(c_version);
}

/* ---- OpenCL C features ------------------------------------------------------------ */

static void features(struct kt_env *env)
{
    size_t vsize = 0;
    cl_name_version *v = query(env->device, CL_DEVICE_OPENCL_C_FEATURES, &vsize);
    size_t nv = vsize / sizeof(*v);
    for (size_t i = 0; i < nv; i++) {
        KT_CHECK(in_list(v[i].name, known_features, COUNT(known_features)),
                 "%s is not a known feature: add it to known_features", v[i].name);
        KT_CHECK(v[i].version == CL_MAKE_VERSION(3, 0, 0), "%s: version %u.%u.%u", v[i].name,
                 CL_VERSION_MAJOR(v[i].version), CL_VERSION_MINOR(v[i].version),
                 CL_VERSION_PATCH(v[i].version));
    }
    /* 3.0: exactly the reported features; 1.x and 2.0: none but reported ones. */
    for (size_t s = 0; s < COUNT(all_stds); s++) {
        bool exact = strcmp(all_stds[s], "-cl-std=CL3.0") == 0;
        int *def = macros_defined(env, known_features, COUNT(known_features), all_stds[s]);
        for (size_t i = 0; i < COUNT(known_features); i++) {
            bool reported = in_versions(known_features[i], v, nv);
            if (exact || !reported)
                KT_CHECK(def[i] == (reported ? 1 : 0), "%s: %s is %s but %s", all_stds[s],
                         known_features[i], def[i] ? "defined" : "not defined",
                         reported ? "reported" : "not reported");
        }
        free(def);
    }

    /* Each feature agrees with the device query that describes the same capability. */
    cl_bool pipes = 0, generic = 0, collectives = 0, images = 0;
    cl_device_device_enqueue_capabilities enqueue = 0;
    size_t globals = 0;
    cl_uint sub_groups = 0;
    cl_device_fp_config fp64 = 0;
    cl_device_atomic_capabilities atomics = 0;
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                                  sizeof(generic), &generic, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                                  sizeof(collectives), &collectives, 0));
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
                                  sizeof(enqueue), &enqueue, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(globals),
                                  &globals, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(sub_groups),
                                  &sub_groups, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, 0));
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
                                  sizeof(atomics), &atomics, 0));
    static const struct {
        const char *feature;
        int bit;
    } same[] = {{"__opencl_c_pipes", 0},
                {"__opencl_c_generic_address_space", 1},
                {"__opencl_c_work_group_collective_functions", 2},
                {"__opencl_c_images", 3},
                {"__opencl_c_device_enqueue", 4},
                {"__opencl_c_program_scope_global_variables", 5},
                {"__opencl_c_subgroups", 6},
                {"__opencl_c_fp64", 7},
                {"__opencl_c_atomic_order_acq_rel", 8},
                {"__opencl_c_atomic_order_seq_cst", 9},
                {"__opencl_c_atomic_scope_device", 10},
                {"__opencl_c_atomic_scope_all_devices", 11}};
    const bool query_says[] = {
        pipes != 0,
        generic != 0,
        collectives != 0,
        images != 0,
        enqueue != 0,
        globals != 0,
        sub_groups != 0,
        fp64 != 0,
        (atomics & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) != 0,
        (atomics & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) != 0,
        (atomics & CL_DEVICE_ATOMIC_SCOPE_DEVICE) != 0,
        (atomics & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) != 0,
    };
    for (size_t i = 0; i < COUNT(same); i++) {
        bool listed = in_versions(same[i].feature, v, nv);
        KT_CHECK(listed == query_says[same[i].bit], "%s is %s but its device query says %s",
                 same[i].feature, listed ? "reported" : "not reported",
                 query_says[same[i].bit] ? "supported" : "unsupported");
    }
    free(v);
}

/* ---- ILs and built-in kernels ------------------------------------------------------- */

static void ils_and_builtins(struct kt_env *env)
{
    size_t n = 0;
    free(query(env->device, CL_DEVICE_ILS_WITH_VERSION, &n));
    KT_CHECK(n == 0, "CL_DEVICE_ILS_WITH_VERSION: %zu bytes", n);
    char *il = query(env->device, CL_DEVICE_IL_VERSION, &n);
    KT_CHECK(il[0] == '\0', "CL_DEVICE_IL_VERSION '%s' while no IL is listed", il);
    free(il);
    /* No IL: a SPIR-V module (its magic number and nothing else) is refused (§5.8.1). */
    static const uint32_t spirv[] = {0x07230203, 0x00010000, 0, 1, 0};
    cl_int err = 0;
    cl_program p = clCreateProgramWithIL(env->context, spirv, sizeof(spirv), &err);
    KT_CHECK(p == NULL && err == CL_INVALID_OPERATION, "clCreateProgramWithIL: %d", err);

    free(query(env->device, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &n));
    KT_CHECK(n == 0, "CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: %zu bytes", n);
    char *names = query(env->device, CL_DEVICE_BUILT_IN_KERNELS, &n);
    KT_CHECK(names[0] == '\0', "CL_DEVICE_BUILT_IN_KERNELS '%s' while none is listed", names);
    free(names);
    /* §5.8.1: a name no device supports is CL_INVALID_VALUE. */
    err = 0;
    p = clCreateProgramWithBuiltInKernels(env->context, 1, &env->device, "copy", &err);
    KT_CHECK(p == NULL && err == CL_INVALID_VALUE, "clCreateProgramWithBuiltInKernels: %d", err);
}

/* ---- argument limits ------------------------------------------------------------------ */

/* Builds `src`, sets `nargs` arguments from `mems` (buffers) or `values` (by value, each
 * `value_size` bytes, where mems[i] is NULL) and enqueues kernel `name` on one work-item. */
static cl_int launch(struct kt_env *env, const char *src, const char *name, cl_uint nargs,
                     const cl_mem *mems, const void *values, size_t value_size, size_t global)
{
    cl_program p = kt_build(env, src, "-cl-std=CL3.0");
    cl_int err = 0;
    cl_kernel k = clCreateKernel(p, name, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel %s: %d", name, err);
    for (cl_uint i = 0; i < nargs; i++) {
        if (mems[i])
            err = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
        else
            err = clSetKernelArg(k, i, value_size, (const char *)values + i * value_size);
        KT_CHECK(err == CL_SUCCESS, "%s: clSetKernelArg %u: %d", name, i, err);
    }
    cl_event ev = NULL;
    err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev);
    KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
    if (ev) {
        cl_int status = 1;
        KT_EXPECT(
            clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
            CL_SUCCESS);
        KT_CHECK(status == CL_COMPLETE, "%s: the command ended with %d", name, status);
        clReleaseEvent(ev);
    }
    clReleaseKernel(k);
    clReleaseProgram(p);
    return err;
}

static cl_mem buffer(struct kt_env *env, size_t size, const void *host)
{
    cl_int err = 0;
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                              size, (void *)host, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer of %zu bytes: %d", size, err);
    return m;
}

/* CL_DEVICE_MAX_CONSTANT_ARGS __constant arguments, and one more. */
static void constant_args(struct kt_env *env)
{
    cl_uint max = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_CONSTANT_ARGS, sizeof(max), &max, NULL));
    KT_CHECK(max >= 8, "CL_DEVICE_MAX_CONSTANT_ARGS %u, below the full profile's 8", max);
    KT_REQUIRE(max <= 64, "CL_DEVICE_MAX_CONSTANT_ARGS %u: the test makes at most 64", max);
    enum { N = 16 };
    for (cl_uint count = max; count <= max + 1; count++) {
        /* out[i] = sum over k of c_k[i] * (k + 1) */
        char src[8192];
        size_t len = (size_t)snprintf(src, sizeof(src), "kernel void sum(global int *out");
        for (cl_uint a = 0; a < count; a++)
            len += (size_t)snprintf(src + len, sizeof(src) - len, ", constant int *c%u", a);
        len += (size_t)snprintf(src + len, sizeof(src) - len,
                                ") {\n size_t i = get_global_id(0);\n int s = 0;\n");
        for (cl_uint a = 0; a < count; a++)
            len += (size_t)snprintf(src + len, sizeof(src) - len, " s += c%u[i] * %u;\n", a, a + 1);
        snprintf(src + len, sizeof(src) - len, " out[i] = s;\n}\n");

        cl_mem mems[66] = {0};
        int want[N] = {0};
        mems[0] = buffer(env, sizeof(want), NULL);
        for (cl_uint a = 0; a < count; a++) {
            int host[N];
            for (int i = 0; i < N; i++) {
                host[i] = (int)(a * 31 + (cl_uint)i * 7 + 1);
                want[i] += host[i] * (int)(a + 1);
            }
            mems[a + 1] = buffer(env, sizeof(host), host);
        }
        cl_int err = launch(env, src, "sum", count + 1, mems, NULL, 0, N);
        if (count == max) {
            KT_CHECK(err == CL_SUCCESS, "%u __constant arguments: %d", count, err);
            int got[N];
            KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, mems[0], CL_TRUE, 0, sizeof(got), got, 0,
                                              NULL, NULL));
            for (int i = 0; i < N; i++)
                KT_CHECK(got[i] == want[i], "%u __constant arguments: out[%d] %d, want %d", count,
                         i, got[i], want[i]);
        } else {
            KT_CHECK(err == CL_OUT_OF_RESOURCES, "%u __constant arguments (limit %u): %d", count,
                     max, err);
        }
        for (cl_uint a = 0; a <= count; a++)
            clReleaseMemObject(mems[a]);
    }
}

/* A __constant buffer of CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE bytes, and one of a byte more. */
static void constant_buffer(struct kt_env *env)
{
    cl_ulong max = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof(max), &max, NULL));
    KT_CHECK(max >= (1u << 20), "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE %llu, below 1 MiB",
             (unsigned long long)max);
    KT_REQUIRE(max <= (64u << 20) && max % sizeof(cl_uint) == 0,
               "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE %llu: the test handles up to 64 MiB",
               (unsigned long long)max);
    static const char *src = "kernel void copy(global uint *out, constant uint *c) {\n"
                             "  size_t i = get_global_id(0);\n"
                             "  out[i] = c[i];\n"
                             "}\n";
    size_t words = (size_t)max / sizeof(cl_uint);
    cl_uint *host = malloc((size_t)max + 1), *got = malloc((size_t)max);
    KT_REQUIRE(host && got, "out of memory");
    for (size_t i = 0; i < words; i++)
        host[i] = (cl_uint)(i * 2654435761u);
    cl_mem mems[2] = {buffer(env, (size_t)max, NULL), buffer(env, (size_t)max, host)};
    KT_EXPECT(launch(env, src, "copy", 2, mems, NULL, 0, words), CL_SUCCESS);
    KT_REQUIRE_OK(
        clEnqueueReadBuffer(env->queue, mems[0], CL_TRUE, 0, (size_t)max, got, 0, NULL, NULL));
    size_t wrong = 0;
    for (size_t i = 0; i < words; i++)
        wrong += got[i] != host[i];
    KT_CHECK(wrong == 0, "%zu of %zu words read through a full __constant buffer are wrong", wrong,
             words);
    clReleaseMemObject(mems[1]);
    mems[1] = buffer(env, (size_t)max + 1, NULL);
    KT_EXPECT(launch(env, src, "copy", 2, mems, NULL, 0, words), CL_OUT_OF_RESOURCES);
    clReleaseMemObject(mems[1]);
    /* A sub-buffer of the largest size inside a larger buffer is a buffer of that size. */
    cl_mem big = buffer(env, (size_t)max * 2, NULL);
    cl_buffer_region region = {0, (size_t)max};
    cl_int err = 0;
    mems[1] = clCreateSubBuffer(big, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateSubBuffer: %d", err);
    KT_EXPECT(launch(env, src, "copy", 2, mems, NULL, 0, 1), CL_SUCCESS);
    clReleaseMemObject(mems[1]);
    clReleaseMemObject(big);
    clReleaseMemObject(mems[0]);
    free(host);
    free(got);
}

/* Arguments of exactly CL_DEVICE_MAX_PARAMETER_SIZE bytes, and more. */
static void parameter_size(struct kt_env *env)
{
    size_t max = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof(max), &max, NULL));
    KT_CHECK(max >= 1024, "CL_DEVICE_MAX_PARAMETER_SIZE %zu, below the full profile's 1024", max);
    KT_REQUIRE(max % 8 == 0 && max <= 4096, "CL_DEVICE_MAX_PARAMETER_SIZE %zu", max);

    /* A buffer and (max - 8) / 8 longs fill it; one long more goes past it. */
    size_t longs = (max - sizeof(cl_mem)) / sizeof(cl_long);
    for (size_t count = longs; count <= longs + 1; count++) {
        size_t cap = 256 + count * 48, len = 0;
        char *src = malloc(cap);
        KT_REQUIRE(src, "out of memory");
        len += (size_t)snprintf(src + len, cap - len, "kernel void many(global long *out");
        for (size_t a = 0; a < count; a++)
            len += (size_t)snprintf(src + len, cap - len, ", long a%zu", a);
        len += (size_t)snprintf(src + len, cap - len, ") {\n long s = 0;\n");
        for (size_t a = 0; a < count; a++)
            len += (size_t)snprintf(src + len, cap - len, " s += a%zu * %zu;\n", a, a + 1);
        snprintf(src + len, cap - len, " out[0] = s;\n}\n");
        cl_mem *mems = calloc(count + 1, sizeof(cl_mem));
        cl_long *values = calloc(count + 1, sizeof(cl_long)), want = 0;
        KT_REQUIRE(mems && values, "out of memory");
        mems[0] = buffer(env, sizeof(cl_long), NULL);
        for (size_t a = 0; a < count; a++) {
            values[a + 1] = (cl_long)(a * a + 3) << 20;
            want += values[a + 1] * (cl_long)(a + 1);
        }
        cl_int err = launch(env, src, "many", (cl_uint)count + 1, mems, values, sizeof(cl_long), 1);
        if (count == longs) {
            KT_CHECK(err == CL_SUCCESS, "%zu bytes of arguments: %d", 8 + 8 * count, err);
            cl_long got = 0;
            KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, mems[0], CL_TRUE, 0, sizeof(got), &got, 0,
                                              NULL, NULL));
            KT_CHECK(got == want, "%zu long arguments: sum %lld, want %lld", count, (long long)got,
                     (long long)want);
        } else {
            KT_CHECK(err == CL_OUT_OF_RESOURCES, "%zu bytes of arguments (limit %zu): %d",
                     8 + 8 * count, max, err);
        }
        clReleaseMemObject(mems[0]);
        free(mems);
        free(values);
        free(src);
    }

    /* A structure that fills what the buffer leaves, and one a byte larger (8 with padding). */
    for (int more = 0; more <= 1; more++) {
        size_t words = (max - sizeof(cl_mem)) / sizeof(cl_long);
        char src[512];
        snprintf(src, sizeof(src),
                 "typedef struct { long w[%zu];%s } big;\n"
                 "kernel void whole(global long *out, big b) {\n"
                 "  long s = 0;\n"
                 "  for (int i = 0; i < %zu; i++) s += b.w[i] * (i + 1);\n"
                 "  out[0] = s;\n"
                 "}\n",
                 words, more ? " char extra;" : "", words);
        size_t size = words * sizeof(cl_long) + (more ? sizeof(cl_long) : 0);
        cl_long *value = calloc(size / sizeof(cl_long), sizeof(cl_long)), want = 0;
        KT_REQUIRE(value, "out of memory");
        for (size_t i = 0; i < words; i++) {
            value[i] = (cl_long)(i * 7 + 1);
            want += value[i] * (cl_long)(i + 1);
        }
        cl_mem out = buffer(env, sizeof(cl_long), NULL);
        cl_program p = kt_build(env, src, "-cl-std=CL3.0");
        cl_int err = 0;
        cl_kernel k = clCreateKernel(p, "whole", &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel whole: %d", err);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
        KT_EXPECT(clSetKernelArg(k, 1, size, value), CL_SUCCESS);
        err = clEnqueueTask(env->queue, k, 0, NULL, NULL);
        if (!more) {
            KT_CHECK(err == CL_SUCCESS, "a %zu-byte structure and a buffer: %d", size, err);
            cl_long got = 0;
            KT_REQUIRE_OK(
                clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
            KT_CHECK(got == want, "structure argument: sum %lld, want %lld", (long long)got,
                     (long long)want);
        } else {
            KT_CHECK(err == CL_OUT_OF_RESOURCES, "a %zu-byte structure and a buffer: %d", size,
                     err);
        }
        KT_EXPECT(clFinish(env->queue), CL_SUCCESS);
        clReleaseKernel(k);
        clReleaseProgram(p);
        clReleaseMemObject(out);
        free(value);
    }
}

/*
 * CL_DRIVER_VERSION is CL_PLATFORM_VERSION's last word, "+" and eight hex digits naming what
 * the compiler's binaries are made for (runtime/rt_device.h), the same in every query.
 */
static void driver_version(struct kt_env *env)
{
    size_t size;
    char *driver = query(env->device, CL_DRIVER_VERSION, &size);
    char platform[256] = "";
    KT_REQUIRE_OK(
        clGetPlatformInfo(env->platform, CL_PLATFORM_VERSION, sizeof(platform), platform, NULL));
    const char *word = strrchr(platform, ' ');
    KT_REQUIRE(driver && word, "CL_DRIVER_VERSION or CL_PLATFORM_VERSION missing");
    word++;
    size_t n = strlen(word);
    bool hex = strlen(driver) == n + 9 && driver[n] == '+';
    for (size_t i = n + 1; hex && i < n + 9; i++)
        hex = (driver[i] >= '0' && driver[i] <= '9') || (driver[i] >= 'a' && driver[i] <= 'f');
    KT_CHECK(strncmp(driver, word, n) == 0 && hex, "CL_DRIVER_VERSION '%s' is not '%s+xxxxxxxx'",
             driver, word);
    char *again = query(env->device, CL_DRIVER_VERSION, &size);
    KT_CHECK(again && strcmp(driver, again) == 0, "CL_DRIVER_VERSION changed between queries");
    free(again);
    free(driver);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    extensions(&env);
    half_precision(&env);
    vector_widths(&env);
    versions(&env);
    features(&env);
    ils_and_builtins(&env);
    constant_args(&env);
    constant_buffer(&env);
    parameter_size(&env);
    driver_version(&env);
    kt_teardown(&env);
    return kt_finish("api/reported");
}
