/*
 * Data embedded in libkiln-cc.so so that building a kernel needs no file on disk:
 * the kernel library in parts (kernel-lib/, built by this build; include/kiln_lib_pack.h)
 * and Clang's OpenCL base header, which -finclude-default-header pulls in.
 * The paths come from CMake as KILN_KERNEL_LIB_PACK and KILN_OPENCL_BASE_H.
 */
#define KILN_STR2(x) #x
#define KILN_STR(x)  KILN_STR2(x)

    .section .rodata.kiln_embedded, "a"

    .balign 64
    .globl kiln_cc_kernel_lib_start
    .hidden kiln_cc_kernel_lib_start
kiln_cc_kernel_lib_start:
    .incbin KILN_STR(KILN_KERNEL_LIB_PACK)
    .globl kiln_cc_kernel_lib_end
    .hidden kiln_cc_kernel_lib_end
kiln_cc_kernel_lib_end:

    .balign 16
    .globl kiln_cc_opencl_base_h_start
    .hidden kiln_cc_opencl_base_h_start
kiln_cc_opencl_base_h_start:
    .incbin KILN_STR(KILN_OPENCL_BASE_H)
    .globl kiln_cc_opencl_base_h_end
    .hidden kiln_cc_opencl_base_h_end
kiln_cc_opencl_base_h_end:

    .section .note.GNU-stack, "", @progbits
