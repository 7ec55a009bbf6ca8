/*
 * The front-end stage: Clang 19 run in process on an OpenCL C source held in memory.
 *
 * This is the C face of frontend_shim.cpp, the only C++ in Kiln; Clang has no C API
 * that generates code. Everything after this stage uses the LLVM-C API.
 */
#ifndef KILN_COMPILER_FRONTEND_SHIM_H
#define KILN_COMPILER_FRONTEND_SHIM_H

#include <llvm-c/Types.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A file Clang sees at `path` although it exists only in memory. */
struct kiln_cc_vfile {
    const char *path;
    const char *data;
    size_t size;
};

enum kiln_cc_frontend_result {
    KILN_CC_FRONTEND_OK = 0,
    KILN_CC_FRONTEND_ERROR,    /* the source or the arguments had errors; see diagnostics */
    KILN_CC_FRONTEND_NO_MEMORY /* *diagnostics could not be allocated */
};

/*
 * Runs `clang -cc1 args...` with the files in `files` visible on top of the real file
 * system (the input file named in args is normally one of them). On success *out is
 * a new module in `ctx`, owned by the caller. In every case but NO_MEMORY,
 * *diagnostics is a malloc()ed NUL-terminated string, Clang's diagnostics exactly as
 * it would print them (possibly empty); nothing is written to stdout or stderr.
 * Safe to call from several threads with different contexts.
 */
enum kiln_cc_frontend_result kiln_cc_frontend_compile(LLVMContextRef ctx, const char *const *args,
                                                      size_t num_args,
                                                      const struct kiln_cc_vfile *files,
                                                      size_t num_files, LLVMModuleRef *out,
                                                      char **diagnostics);

/*
 * Makes now what Clang otherwise makes on its first run and destroys at exit: its table of
 * command-line options. The back end's init() calls it, so that those destructors are
 * registered before the runtime's exit handler that waits for background builds
 * (runtime/variant.c) and run after it.
 */
void kiln_cc_frontend_prepare(void);

#ifdef __cplusplus
}
#endif

#endif
