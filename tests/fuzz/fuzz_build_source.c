/*
 * libFuzzer harness: OpenCL C source bytes through clCreateProgramWithSource and
 * clBuildProgram (the front end, the kernel library link, every pass, code generation,
 * the container and the ELF loader), then the kernels of a program that built and
 * their information (fuzz_common.h). A first line "// options: ..." gives the build
 * options, so option parsing is fuzzed too. One context serves the whole run.
 *
 * The kernel cache is off (KILN_CACHE_DIR=off): every input is a new source, and a
 * cache would only fill the disk with entries nobody reads.
 */
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("KILN_CACHE_DIR", "off", 1);
    fz_setup_context();
    /* The first build loads both compiler libraries before the first input. */
    cl_program p = fz_build_source(fz_small_src);
    FZ_REQUIRE(p, "a one-line kernel does not build");
    clReleaseProgram(p);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Sources are text: a NUL would only end the source early. */
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    cl_program p = fz_build_source(src);
    free(src);
    if (p) {
        fz_inspect_program(p);
        clReleaseProgram(p);
    }
    return 0;
}
