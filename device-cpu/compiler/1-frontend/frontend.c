/*
 * Front-end stage, C side: assembles the cc1 command line and the in-memory files,
 * runs frontend_shim.cpp, and copies Clang's diagnostics into the build log.
 *
 * The command line is the kernel library's (kiln_cc_cl_flags.h, generated from
 * kernel-lib/cl-flags.cmake) plus -cl-kernel-arg-info and the translated user
 * options, so builtins and kernels always agree on names and argument lowering.
 * Clang's OpenCL base header is embedded and served from a virtual directory, so a
 * machine with only the Clang and LLVM shared libraries can build kernels.
 *
 * clCompileProgram's input headers are in-memory files too: a header named "a/b.h"
 * is /kiln/a/b.h, beside the source, so `#include "a/b.h"` finds it first (an
 * absolute name is used as it is); /kiln is also the last -I directory, so
 * `#include <a/b.h>` finds it after the user's own -I directories.
 */
#include "frontend.h"
#include "frontend_shim.h"
#include "kiln_cc_cl_flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIRTUAL_DIR         "/kiln"
#define VIRTUAL_INCLUDE_DIR "/kiln/include"
#define VIRTUAL_SOURCE      "/kiln/program.cl"
/* Diagnostics name the source "program.cl", not its virtual path. */
#define LINE_DIRECTIVE "#line 1 \"program.cl\"\n"

/*
 * After the library's flags, what differs for user kernels (OpenCL C 3.0 §6.12): the
 * features and extensions the library is compiled with (kernel-lib/cl-flags.cmake) but the
 * device does not report are turned off again, so a kernel sees exactly the reported ones
 * (images, and cl_khr_subgroups, which needs independent
 * forward progress: OpenCL C 3.0 kernels have sub-groups through __opencl_c_subgroups);
 * __OPENCL_VERSION__ is the device's OpenCL version, which Clang defines only for SPIR
 * targets; __IMAGE_SUPPORT__ is undefined
 * because the device reports no image support. Turning features off hides declarations
 * only: the names of the builtins the library defines stay the same.
 */
static const char *const base_args[] = {
    KILN_CC_CL_FLAGS "-cl-ext=-__opencl_c_images,-__opencl_c_read_write_images,"
                     "-__opencl_c_3d_image_writes,-cl_khr_3d_image_writes,-cl_khr_depth_images,"
                     "-cl_khr_subgroups",
    "-internal-isystem",
    VIRTUAL_INCLUDE_DIR,
    "-cl-kernel-arg-info",
    "-D__OPENCL_VERSION__=300",
    "-U__IMAGE_SUPPORT__",
};

enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source)
{
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    const size_t num_base = sizeof(base_args) / sizeof(base_args[0]);
    const size_t num_args = num_base + b->opts->num_cc1_args + 5;
    const char **args = malloc(num_args * sizeof(*args));
    size_t source_len = strlen(source);
    char *text = malloc(sizeof(LINE_DIRECTIVE) + source_len);
    char *diagnostics = NULL;
    struct kiln_cc_vfile *files = calloc(2 + b->num_headers, sizeof(*files));
    char **paths = calloc(b->num_headers + 1, sizeof(*paths));

    if (!args || !text || !files || !paths)
        goto out_free;
    for (unsigned i = 0; i < b->num_headers; i++) {
        const char *name = b->headers[i].name;
        size_t len = strlen(VIRTUAL_DIR) + strlen(name) + 2;
        paths[i] = malloc(len);
        if (!paths[i])
            goto out_free;
        if (name[0] == '/')
            memcpy(paths[i], name, strlen(name) + 1);
        else
            snprintf(paths[i], len, "%s/%s", VIRTUAL_DIR, name);
        files[2 + i] =
            (struct kiln_cc_vfile){paths[i], b->headers[i].text, strlen(b->headers[i].text)};
    }
    size_t n = 0;
    for (size_t i = 0; i < num_base; i++)
        args[n++] = base_args[i];
    for (size_t i = 0; i < b->opts->num_cc1_args; i++)
        args[n++] = b->opts->cc1_args[i];
    if (b->num_headers) {
        args[n++] = "-I";
        args[n++] = VIRTUAL_DIR;
    }
    args[n++] = "-x";
    args[n++] = "cl";
    args[n++] = VIRTUAL_SOURCE;

    memcpy(text, LINE_DIRECTIVE, sizeof(LINE_DIRECTIVE) - 1);
    memcpy(text + sizeof(LINE_DIRECTIVE) - 1, source, source_len + 1);
    files[0] =
        (struct kiln_cc_vfile){VIRTUAL_SOURCE, text, sizeof(LINE_DIRECTIVE) - 1 + source_len};
    files[1] =
        (struct kiln_cc_vfile){VIRTUAL_INCLUDE_DIR "/opencl-c-base.h", kiln_cc_opencl_base_h_start,
                               (size_t)(kiln_cc_opencl_base_h_end - kiln_cc_opencl_base_h_start)};

    switch (kiln_cc_frontend_compile(b->ctx, args, n, files, 2 + b->num_headers, &b->mod,
                                     &diagnostics)) {
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
    for (unsigned i = 0; paths && i < b->num_headers; i++)
        free(paths[i]);
    free(paths);
    free(files);
    free(text);
    free(args);
    return status;
}
