/*
 * Program binaries: CL_PROGRAM_BINARIES of a built program, loaded again with
 * clCreateProgramWithBinary, runs and gives the same results and kernel
 * information; binaries that are not Kiln's, truncated, corrupted, or made for
 * another CPU are refused with CL_INVALID_BINARY in binary_status and errcode_ret.
 */
#include "hash.h"
#include "kiln_test.h"

#include <stdbool.h>

static const char *src = "__attribute__((reqd_work_group_size(16, 1, 1)))\n"
                         "kernel void scale(global const float *in, global float *out, float f) {\n"
                         "  size_t i = get_global_id(0);\n"
                         "  out[i] = in[i] * f + (float)get_local_size(0);\n"
                         "}\n";

enum { N = 256 };

/* arg_info: the program came from source, built with -cl-kernel-arg-info. */
static void run_scale(struct kt_env *env, cl_program p, float *out, bool arg_info)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, "scale", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
    float in[N], f = 2.5f;
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    cl_mem a = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    cl_mem b = clCreateBuffer(env->context, 0, sizeof(in), NULL, &err);
    KT_EXPECT(clSetKernelArg(k, 0, sizeof(a), &a), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 1, sizeof(b), &b), CL_SUCCESS);
    KT_EXPECT(clSetKernelArg(k, 2, sizeof(f), &f), CL_SUCCESS);
    size_t global = N;
    KT_EXPECT(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(in), out, 0, NULL, NULL),
              CL_SUCCESS);
    size_t wg[3] = {0};
    KT_EXPECT(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                       sizeof(wg), wg, NULL),
              CL_SUCCESS);
    KT_CHECK(wg[0] == 16 && wg[1] == 1 && wg[2] == 1, "compile size %zu %zu %zu", wg[0], wg[1],
             wg[2]);
    char name[64] = "";
    if (arg_info) {
        KT_EXPECT(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL),
                  CL_SUCCESS);
        KT_CHECK(strcmp(name, "f") == 0, "argument 2 is named '%s'", name);
    } else {
        /* The specification gives argument information to programs from source only. */
        KT_EXPECT(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL),
                  CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
}

/* The program's binary, malloc()ed. */
static unsigned char *get_binary(cl_program p, size_t *size)
{
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL), CL_SUCCESS);
    KT_REQUIRE(*size > 0, "binary size 0");
    unsigned char *bin = malloc(*size);
    size_t ret = 0;
    KT_EXPECT(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, &ret), CL_SUCCESS);
    KT_CHECK(ret == sizeof(unsigned char *), "size_ret %zu", ret);
    return bin;
}

static void expect_refused(struct kt_env *env, const unsigned char *bin, size_t size, cl_int want,
                           const char *what)
{
    cl_int err = 12345, status = 12345;
    cl_program p =
        clCreateProgramWithBinary(env->context, 1, &env->device, &size, &bin, &status, &err);
    KT_CHECK(p == NULL && err == want && status == want, "%s: program %p, err %d, status %d", what,
             (void *)p, err, status);
    if (p)
        clReleaseProgram(p);
}

int main(void)
{
    struct kt_env env;
    cl_int err;
    kt_setup(&env, 0);

    /* A program from source, not built yet, has no binary. */
    cl_program unbuilt = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
    size_t size = 99;
    KT_EXPECT(clGetProgramInfo(unbuilt, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
              CL_SUCCESS);
    KT_CHECK(size == 0, "unbuilt binary size %zu", size);
    clReleaseProgram(unbuilt);

    cl_program from_source = kt_build(&env, src, "-cl-kernel-arg-info");
    float want[N], got[N];
    run_scale(&env, from_source, want, true);
    for (int i = 0; i < N; i++)
        KT_CHECK(want[i] == 2.5f * (float)i + 16.0f, "out[%d] = %g", i, (double)want[i]);
    unsigned char *bin = get_binary(from_source, &size);
    unsigned char *small = NULL;
    KT_EXPECT(clGetProgramInfo(from_source, CL_PROGRAM_BINARIES, sizeof(small) - 1, &small, NULL),
              CL_INVALID_VALUE);
    cl_program_binary_type type = 0;
    KT_EXPECT(clGetProgramBuildInfo(from_source, env.device, CL_PROGRAM_BINARY_TYPE, sizeof(type),
                                    &type, NULL),
              CL_SUCCESS);
    KT_CHECK(type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %d", (int)type);

    /* The round trip. */
    const unsigned char *cbin = bin;
    cl_int status = 12345;
    cl_program from_binary =
        clCreateProgramWithBinary(env.context, 1, &env.device, &size, &cbin, &status, &err);
    KT_REQUIRE(from_binary && err == CL_SUCCESS && status == CL_SUCCESS, "err %d, status %d", err,
               status);
    cl_build_status build_status = 0;
    KT_EXPECT(clGetProgramBuildInfo(from_binary, env.device, CL_PROGRAM_BUILD_STATUS,
                                    sizeof(build_status), &build_status, NULL),
              CL_SUCCESS);
    KT_CHECK(build_status == CL_BUILD_NONE, "status %d before clBuildProgram", build_status);
    KT_EXPECT(clGetProgramBuildInfo(from_binary, env.device, CL_PROGRAM_BINARY_TYPE, sizeof(type),
                                    &type, NULL),
              CL_SUCCESS);
    KT_CHECK(type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type %d", (int)type);
    cl_kernel none = clCreateKernel(from_binary, "scale", &err);
    KT_CHECK(none == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel before build: %d", err);
    KT_EXPECT(clBuildProgram(from_binary, 1, &env.device, NULL, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clGetProgramBuildInfo(from_binary, env.device, CL_PROGRAM_BUILD_STATUS,
                                    sizeof(build_status), &build_status, NULL),
              CL_SUCCESS);
    KT_CHECK(build_status == CL_BUILD_SUCCESS, "status %d after clBuildProgram", build_status);
    char names[64] = "";
    KT_EXPECT(clGetProgramInfo(from_binary, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL),
              CL_SUCCESS);
    KT_CHECK(strcmp(names, "scale") == 0, "kernel names '%s'", names);
    run_scale(&env, from_binary, got, false);
    KT_CHECK(memcmp(got, want, sizeof(got)) == 0, "results differ from the source program's");
    size_t size2 = 0;
    unsigned char *bin2 = get_binary(from_binary, &size2);
    KT_CHECK(size2 == size && memcmp(bin, bin2, size) == 0, "the binary changed on the way");
    free(bin2);
    KT_EXPECT(clReleaseProgram(from_binary), CL_SUCCESS);

    /* Missing binaries are CL_INVALID_VALUE. */
    const unsigned char *null_bin = NULL;
    expect_refused(&env, bin, 0, CL_INVALID_VALUE, "length 0");
    expect_refused(&env, null_bin, size, CL_INVALID_VALUE, "NULL binary");

    /* Not Kiln's: an ELF object header, and text. */
    static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    expect_refused(&env, elf, sizeof(elf), CL_INVALID_BINARY, "ELF file");
    const unsigned char *text = (const unsigned char *)src;
    expect_refused(&env, text, strlen(src), CL_INVALID_BINARY, "source text");
    /* Truncated. */
    expect_refused(&env, bin, size - 1, CL_INVALID_BINARY, "one byte short");
    expect_refused(&env, bin, 40, CL_INVALID_BINARY, "header cut");
    /* Corrupted: one bit, in the object and in the header's lengths. */
    unsigned char *bad = malloc(size);
    memcpy(bad, bin, size);
    bad[size - 10] ^= 4;
    expect_refused(&env, bad, size, CL_INVALID_BINARY, "object bit flipped");
    memcpy(bad, bin, size);
    bad[56] ^= 1;
    expect_refused(&env, bad, size, CL_INVALID_BINARY, "length bit flipped");
    /*
     * Made for another CPU: the header's target names another CPU, and the checksum
     * is right for it (header bytes 0..71 and everything from byte 104).
     */
    memcpy(bad, bin, size);
    unsigned char *cpu = memchr(bad + 104, ';', 64);
    KT_REQUIRE(cpu != NULL, "no target in the binary");
    cpu[1] = cpu[1] == 'z' ? 'y' : 'z';
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    kiln_cc_sha256_update(&s, bad, 72);
    kiln_cc_sha256_update(&s, bad + 104, size - 104);
    kiln_cc_sha256_final(&s, bad + 72);
    expect_refused(&env, bad, size, CL_INVALID_BINARY, "another CPU");
    free(bad);

    free(bin);
    KT_EXPECT(clReleaseProgram(from_source), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("binaries");
}
