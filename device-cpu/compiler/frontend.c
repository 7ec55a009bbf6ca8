/*
 * Front-end stage, C side: assembles the cc1 command line and the in-memory files,
 * runs frontend_shim.cpp, and copies Clang's diagnostics into the build log.
 *
 * The command line is the kernel library's (kiln_cc_cl_flags.h, generated from
 * kernel-lib/cl-flags.cmake) plus -cl-kernel-arg-info and the translated user
 * options, so builtins and kernels always agree on names and argument lowering.
 * Clang's OpenCL base header is embedded and served from a virtual directory, so a
 * machine with only the Clang and LLVM shared libraries can build kernels.
 */
#include "cc_internal.h"
#include "frontend_shim.h"
#include "kiln_cc_cl_flags.h"

#include <stdlib.h>
#include <string.h>

#define VIRTUAL_INCLUDE_DIR "/kiln/include"
#define VIRTUAL_SOURCE      "/kiln/program.cl"
/* Diagnostics name the source "program.cl", not its virtual path. */
#define LINE_DIRECTIVE "#line 1 \"program.cl\"\n"

/*
 * After the library's flags, the macros that differ for user kernels (OpenCL C 3.0 §6.12):
 * __OPENCL_VERSION__ is the device's OpenCL version, which Clang defines only for SPIR
 * targets; __IMAGE_SUPPORT__, which the library's flags define (kernel-lib/cl-flags.cmake),
 * is undefined because the device reports no image support.
 */
static const char *const base_args[] = {
    KILN_CC_CL_FLAGS "-internal-isystem", VIRTUAL_INCLUDE_DIR,   "-cl-kernel-arg-info",
    "-D__OPENCL_VERSION__=300",           "-U__IMAGE_SUPPORT__",
};

enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source)
{
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    const size_t num_base = sizeof(base_args) / sizeof(base_args[0]);
    const size_t num_args = num_base + b->opts->num_cc1_args + 3;
    const char **args = malloc(num_args * sizeof(*args));
    size_t source_len = strlen(source);
    char *text = malloc(sizeof(LINE_DIRECTIVE) + source_len);
    char *diagnostics = NULL;

    if (!args || !text)
        goto out_free;
    size_t n = 0;
    for (size_t i = 0; i < num_base; i++)
        args[n++] = base_args[i];
    for (size_t i = 0; i < b->opts->num_cc1_args; i++)
        args[n++] = b->opts->cc1_args[i];
    args[n++] = "-x";
    args[n++] = "cl";
    args[n++] = VIRTUAL_SOURCE;

    memcpy(text, LINE_DIRECTIVE, sizeof(LINE_DIRECTIVE) - 1);
    memcpy(text + sizeof(LINE_DIRECTIVE) - 1, source, source_len + 1);
    const struct kiln_cc_vfile files[] = {
        {VIRTUAL_SOURCE, text, sizeof(LINE_DIRECTIVE) - 1 + source_len},
        {VIRTUAL_INCLUDE_DIR "/opencl-c-base.h", kiln_cc_opencl_base_h_start,
         (size_t)(kiln_cc_opencl_base_h_end - kiln_cc_opencl_base_h_start)},
    };

    switch (kiln_cc_frontend_compile(b->ctx, args, n, files, 2, &b->mod, &diagnostics)) {
    case KILN_CC_FRONTEND_OK:
        status = KILN_CC_OK;
        break;
    case KILN_CC_FRONTEND_ERROR:
        status = KILN_CC_BUILD_FAILED;
        break;
    case KILN_CC_FRONTEND_NO_MEMORY:
        goto out_free;
    }
    /* Warnings go into the log of a successful build too, verbatim. */
    kiln_cc_log_append(b->log, diagnostics);
    free(diagnostics);
out_free:
    free(text);
    free(args);
    return status;
}
