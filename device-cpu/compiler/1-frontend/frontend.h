/*
 * Stage 1, the front end: build options into cc1 arguments (options.c), then OpenCL C into
 * an LLVM module by Clang in process (frontend.c, frontend_shim.cpp). What the drivers call.
 */
#ifndef KILN_COMPILER_FRONTEND_FRONTEND_H
#define KILN_COMPILER_FRONTEND_FRONTEND_H

#include "cc_util.h"

enum kiln_cc_status kiln_cc_options_parse(const char *options, struct kiln_cc_options *out,
                                          struct kiln_cc_log *log);
void kiln_cc_options_fini(struct kiln_cc_options *opts);
enum kiln_cc_status kiln_cc_link_options_parse(const char *options,
                                               struct kiln_cc_link_options *out,
                                               struct kiln_cc_log *log);

/*
 * The language user kernels see from now on: `extensions` and `features` as the device
 * reports them, space-separated (kiln_cc.h, set_language). The strings are kept, not
 * copied. Before the first build; until then kernels see the kernel library's language.
 */
void kiln_cc_frontend_language_set(const char *extensions, const char *features);

/* Whether the language user kernels see lists extension or feature `name`. */
bool kiln_cc_frontend_reports(const char *name);

/* OpenCL C `source` into b->mod, diagnostics into b->log. */
enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source);

#endif
