/*
 * What a kernel sees of the device through the preprocessor (OpenCL C 3.0 §6.12) and the
 * build options the specification defines, the deprecated ones included: __OPENCL_VERSION__
 * is the device's version (300), __OPENCL_C_VERSION__ the -cl-std in force,
 * __IMAGE_SUPPORT__ is defined exactly when CL_DEVICE_IMAGE_SUPPORT is true (ctest runs it
 * also under KILN_IMAGES=0), and -cl-strict-aliasing (OpenCL 1.0, deprecated) builds.
 */
#include "kiln_test.h"

static const char *src = "kernel void macros(global int *out)\n"
                         "{\n"
                         "#ifdef __OPENCL_VERSION__\n"
                         "    out[0] = __OPENCL_VERSION__;\n"
                         "#else\n"
                         "    out[0] = -1;\n"
                         "#endif\n"
                         "#ifdef __IMAGE_SUPPORT__\n"
                         "    out[1] = 1;\n"
                         "#else\n"
                         "    out[1] = 0;\n"
                         "#endif\n"
                         "    out[2] = __OPENCL_C_VERSION__;\n"
                         "    out[3] = CL_VERSION_1_2;\n"
                         "}\n";

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);

    cl_bool images = CL_TRUE;
    KT_EXPECT(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
              CL_SUCCESS);
    static const struct {
        const char *options;
        int c_version;
    } builds[] = {
        {"", 120},
        {"-cl-std=CL1.0 -cl-strict-aliasing", 100},
        {"-cl-std=CL1.1 -cl-strict-aliasing -cl-mad-enable", 110},
        {"-cl-std=CL3.0", 300},
    };
    for (size_t b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
        int out[4] = {-7, -7, -7, -7};
        struct kt_arg args[] = {{KT_OUT, sizeof(out), out}};
        KT_EXPECT(kt_run(&env, src, builds[b].options, "macros", 1, 1, 1, args), CL_SUCCESS);
        KT_CHECK(out[0] == 300, "'%s': __OPENCL_VERSION__ %d, want 300", builds[b].options, out[0]);
        KT_CHECK(out[1] == (images ? 1 : 0), "'%s': __IMAGE_SUPPORT__ %s, device image support %d",
                 builds[b].options, out[1] ? "defined" : "undefined", (int)images);
        KT_CHECK(out[2] == builds[b].c_version, "'%s': __OPENCL_C_VERSION__ %d, want %d",
                 builds[b].options, out[2], builds[b].c_version);
        KT_CHECK(out[3] == 120, "'%s': CL_VERSION_1_2 %d", builds[b].options, out[3]);
    }
    kt_teardown(&env);
    return kt_finish("api/predefined");
}
