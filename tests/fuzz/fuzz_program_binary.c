/*
 * libFuzzer harness: bytes as a program binary through clCreateProgramWithBinary,
 * clBuildProgram and clCreateKernelsInProgram, with the kernels' information
 * (fuzz_common.h). This reaches the container reader (device-cpu/compiler/7-binary/container.c:
 * the header, the kernel descriptions) and the ELF loader (elf_load.c: sections,
 * symbols, relocations).
 *
 * The input's target section and checksum are rewritten before the call
 * (fz_fix_container): a mutated container would otherwise be refused for its SHA-256
 * before a single description or ELF byte is read, and seeds are valid on any CPU.
 * The seeds are binaries Kiln made: tests/fuzz/corpus/fuzz_program_binary/ and those
 * fuzz_make_seeds writes at run time.
 *
 * A compiled object or library carries LLVM bitcode, which only a link would parse:
 * the harness does not build those, as that would fuzz LLVM's bitcode reader, which
 * is not written to survive hostile input.
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
    fz_setup_target();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t fixed_size = 0;
    uint8_t *fixed = fz_fix_container(data, size, NULL, &fixed_size);
    const unsigned char *bin = fixed ? fixed : data;
    size_t len = fixed ? fixed_size : size;
    cl_int status = CL_SUCCESS, err;
    cl_program p = clCreateProgramWithBinary(fz.context, 1, &fz.device, &len, &bin, &status, &err);
    free(fixed);
    if (!p)
        return 0;
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    clGetProgramBuildInfo(p, fz.device, CL_PROGRAM_BINARY_TYPE, sizeof(type), &type, NULL);
    if (type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE &&
        clBuildProgram(p, 1, &fz.device, NULL, NULL, NULL) == CL_SUCCESS)
        fz_inspect_program(p);
    fz_read_log(p);
    clReleaseProgram(p);
    return 0;
}
