/*
 * What the libFuzzer harnesses of tests/fuzz share: Kiln's platform, device and one
 * context through the ICD loader, kept for the whole run; the kernel-information
 * queries every harness makes on a built program; and the fix-up that lets a mutated
 * program container get past the checks that no mutation passes by chance (the target
 * id and the SHA-256 checksum, device-cpu/compiler/7-binary/container.c).
 *
 * Everything is set up in LLVMFuzzerInitialize, before the first input, so that
 * libkiln.so and both compiler libraries are loaded (and their coverage counters
 * known to libFuzzer) before fuzzing starts.
 */
#ifndef KILN_TESTS_FUZZ_COMMON_H
#define KILN_TESTS_FUZZ_COMMON_H

#include "hash.h"

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The container's header (container.c): its fields' offsets and its size. */
#define FZ_MAGIC      "KILNPROG"
#define FZ_OFF_KEY    16
#define FZ_OFF_LENS   48
#define FZ_OFF_SUM    72
#define FZ_HEADER     104
#define FZ_HASH_BYTES KILN_CC_HASH_SIZE

struct fz_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    /* The target section of this process's containers: CPU, LLVM and Kiln build. */
    uint8_t *target;
    size_t target_len;
};

static struct fz_env fz;

/* A kernel that builds: the setup's first build, and the cache harness's program. */
static const char fz_small_src[] = "kernel void k(global int *a) { a[0] = 1; }\n";

/* Setting up failed: nothing can be fuzzed, so the run stops at once. */
#define FZ_REQUIRE(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz setup: %s: ", #cond);                                            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline uint64_t fz_get_le(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void fz_put_le(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Kiln's platform and CPU device, and a context on it. */
static inline void fz_setup_context(void)
{
    cl_platform_id ids[16];
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(16, ids, &n);
    FZ_REQUIRE(err == CL_SUCCESS && n > 0, "clGetPlatformIDs: %d", err);
    for (cl_uint i = 0; i < n && i < 16 && !fz.platform; i++) {
        char name[256] = "";
        clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strcmp(name, "Kiln") == 0)
            fz.platform = ids[i];
    }
    FZ_REQUIRE(fz.platform, "the loader lists no platform named Kiln");
    err = clGetDeviceIDs(fz.platform, CL_DEVICE_TYPE_CPU, 1, &fz.device, NULL);
    FZ_REQUIRE(err == CL_SUCCESS, "clGetDeviceIDs: %d", err);
    fz.context = clCreateContext(NULL, 1, &fz.device, NULL, NULL, &err);
    FZ_REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
}

/* The build options an input names on its first line ("// options: ..."), malloc()ed. */
static inline char *fz_options(const char *src)
{
    static const char tag[] = "// options: ";
    if (strncmp(src, tag, sizeof(tag) - 1) != 0)
        return NULL;
    const char *at = src + sizeof(tag) - 1;
    size_t len = strcspn(at, "\n");
    char *options = malloc(len + 1);
    if (options) {
        memcpy(options, at, len);
        options[len] = '\0';
    }
    return options;
}

/* Reads the build log, as an application does after a build. */
static inline void fz_read_log(cl_program p)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(p, fz.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
        (log = malloc(size + 1)) != NULL)
        clGetProgramBuildInfo(p, fz.device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    free(log);
}

/* Builds `src` (with the options of its first line); NULL if the build failed. */
static inline cl_program fz_build_source(const char *src)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(fz.context, 1, &src, NULL, &err);
    if (!p)
        return NULL;
    char *options = fz_options(src);
    err = clBuildProgram(p, 1, &fz.device, options, NULL, NULL);
    free(options);
    fz_read_log(p);
    if (err != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

/* The program's binary for the device, malloc()ed, or NULL. */
static inline uint8_t *fz_program_binary(cl_program p, size_t *size)
{
    *size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL) != CL_SUCCESS ||
        *size == 0)
        return NULL;
    uint8_t *bin = malloc(*size);
    if (bin && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL) != CL_SUCCESS) {
        free(bin);
        bin = NULL;
    }
    return bin;
}

/*
 * Builds a small kernel once and keeps the target section of its binary: the fix-up
 * below writes it into every input, so that seeds made on another CPU or by another
 * Kiln build reach past the target check too.
 */
static inline void fz_setup_target(void)
{
    cl_program p = fz_build_source(fz_small_src);
    FZ_REQUIRE(p, "a one-line kernel does not build");
    size_t size;
    uint8_t *bin = fz_program_binary(p, &size);
    clReleaseProgram(p);
    FZ_REQUIRE(bin && size > FZ_HEADER && memcmp(bin, FZ_MAGIC, 8) == 0, "no Kiln binary");
    fz.target_len = (size_t)fz_get_le(bin + FZ_OFF_LENS);
    FZ_REQUIRE(fz.target_len <= size - FZ_HEADER, "target of %zu bytes", fz.target_len);
    fz.target = malloc(fz.target_len);
    FZ_REQUIRE(fz.target, "out of memory");
    memcpy(fz.target, bin + FZ_HEADER, fz.target_len);
    free(bin);
}

/*
 * The input as a container this process would accept up to its checksum, malloc()ed
 * (*size its length), or NULL for an input that is to be passed on as it is.
 *
 * A mutation almost never keeps the SHA-256 checksum right, and no mutation of a seed
 * made elsewhere turns its target id into this machine's: without help every input
 * would stop at container.c's first checks and the kernel descriptions, the ELF
 * loader and (for the cache) the entry lookup would never see a mutated byte. So an
 * input that starts with the magic gets this process's target section in place of its
 * own, an object length that ends the container where the input ends (when its info
 * length fits), the cache key `key` (when not NULL) and then the checksum of the result,
 * computed with Kiln's own SHA-256 (hash.c). The magic, version, header size and info
 * length stay the fuzzer's; an input without the magic goes in untouched, so the early
 * refusals are still fuzzed.
 */
static inline uint8_t *fz_fix_container(const uint8_t *data, size_t size, const uint8_t *key,
                                        size_t *out_size)
{
    if (size < FZ_HEADER || memcmp(data, FZ_MAGIC, 8) != 0)
        return NULL;
    size_t rest = size - FZ_HEADER;
    uint64_t their_target = fz_get_le(data + FZ_OFF_LENS);
    if (their_target > rest)
        their_target = rest;
    rest -= (size_t)their_target;
    size_t n = FZ_HEADER + fz.target_len + rest;
    uint8_t *c = malloc(n);
    if (!c)
        return NULL;
    memcpy(c, data, FZ_HEADER);
    memcpy(c + FZ_HEADER, fz.target, fz.target_len);
    memcpy(c + FZ_HEADER + fz.target_len, data + FZ_HEADER + their_target, rest);
    fz_put_le(c + FZ_OFF_LENS, fz.target_len);
    uint64_t info = fz_get_le(c + FZ_OFF_LENS + 8);
    if (info <= rest)
        fz_put_le(c + FZ_OFF_LENS + 16, rest - info);
    if (key)
        memcpy(c + FZ_OFF_KEY, key, FZ_HASH_BYTES);
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    kiln_cc_sha256_update(&s, c, FZ_OFF_SUM);
    kiln_cc_sha256_update(&s, c + FZ_HEADER, n - FZ_HEADER);
    kiln_cc_sha256_final(&s, c + FZ_OFF_SUM);
    *out_size = n;
    return c;
}

/* Asks a size, then the value, as an application does; the answers are not checked. */
static inline void fz_kernel_query(cl_kernel k, cl_kernel_info what)
{
    size_t size = 0;
    if (clGetKernelInfo(k, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return;
    void *value = malloc(size);
    if (value)
        clGetKernelInfo(k, what, size, value, NULL);
    free(value);
}

static inline void fz_arg_query(cl_kernel k, cl_uint arg, cl_kernel_arg_info what)
{
    size_t size = 0;
    if (clGetKernelArgInfo(k, arg, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return;
    void *value = malloc(size);
    if (value)
        clGetKernelArgInfo(k, arg, what, size, value, NULL);
    free(value);
}

/*
 * What an application asks of a built program: its kernels (clCreateKernelsInProgram),
 * each kernel's information, argument information and work-group information, and the
 * program's binary. Nothing runs: the code of a fuzzed program may loop forever or
 * write anywhere, which is the kernel's right, not a bug of Kiln's.
 */
static inline void fz_inspect_program(cl_program p)
{
    size_t size = 0;
    char *names = NULL;
    if (clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) == CL_SUCCESS &&
        (names = malloc(size + 1)) != NULL)
        clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, size, names, NULL);
    free(names);
    free(fz_program_binary(p, &size));

    cl_uint n = 0;
    if (clCreateKernelsInProgram(p, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return;
    cl_kernel *kernels = calloc(n, sizeof(*kernels));
    if (!kernels)
        return;
    if (clCreateKernelsInProgram(p, n, kernels, NULL) != CL_SUCCESS) {
        free(kernels);
        return;
    }
    for (cl_uint i = 0; i < n; i++) {
        cl_kernel k = kernels[i];
        fz_kernel_query(k, CL_KERNEL_FUNCTION_NAME);
        fz_kernel_query(k, CL_KERNEL_ATTRIBUTES);
        cl_uint num_args = 0;
        clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args, NULL);
        for (cl_uint a = 0; a < num_args; a++) {
            fz_arg_query(k, a, CL_KERNEL_ARG_ADDRESS_QUALIFIER);
            fz_arg_query(k, a, CL_KERNEL_ARG_ACCESS_QUALIFIER);
            fz_arg_query(k, a, CL_KERNEL_ARG_TYPE_NAME);
            fz_arg_query(k, a, CL_KERNEL_ARG_TYPE_QUALIFIER);
            fz_arg_query(k, a, CL_KERNEL_ARG_NAME);
        }
        size_t wg[3];
        cl_ulong mem;
        clGetKernelWorkGroupInfo(k, fz.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg[0]), wg, NULL);
        clGetKernelWorkGroupInfo(k, fz.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(wg), wg,
                                 NULL);
        clGetKernelWorkGroupInfo(k, fz.device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                 sizeof(wg[0]), wg, NULL);
        clGetKernelWorkGroupInfo(k, fz.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(mem), &mem, NULL);
        clGetKernelWorkGroupInfo(k, fz.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(mem), &mem, NULL);
        clReleaseKernel(k);
    }
    free(kernels);
}

#endif
