/*
 * What the compiler tests of every stage share (cc_harness.c): the library's interface,
 * builds, an NDRange run the way the runtime runs one, and the IR a build dumps after a
 * stage, found by the stage's name (docs/compiler.md, "Stages"), never by its number.
 *
 * Each cc_<stage>_test.c defines ct_tests[] and ct_num_tests; the harness's main() runs the
 * one named on the command line.
 */
#ifndef KILN_TESTS_COMPILER_CC_HARNESS_H
#define KILN_TESTS_COMPILER_CC_HARNESS_H

#include "check.h"
#include "kiln_abi.h"
#include "kiln_cc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ct_test {
    const char *name;
    int (*run)(void); /* 0 on success */
};
extern const struct ct_test ct_tests[];
extern const size_t ct_num_tests;

/* libkiln-cc.so's interface, set before any test runs. */
extern const struct kiln_cc_interface *ct_cc;

/* Builds `source`; prints the log to stderr on failure. NULL unless KILN_CC_OK. */
struct kiln_cc_program *ct_build_ok(const char *source, const char *options);
/* Kernel `name` of p, or NULL. */
const struct kiln_cc_kernel *ct_find_kernel(const struct kiln_cc_program *p, const char *name);
/*
 * Runs an NDRange the way the runtime will: every group in turn, the last group in
 * a dimension smaller when local does not divide global, with the barrier scratch the kernel
 * asks for.
 */
void ct_run_ndrange(const struct kiln_cc_kernel *k, void *const *args, unsigned dims,
                    const size_t *offset, const size_t *global, const size_t *local,
                    void *local_mem);
/* The whole file at `path`, malloc()ed and NUL-terminated, or NULL. */
char *ct_read_text(const char *path);

/*
 * Builds `src` (with build_variant() when `variant` is not NULL) with stdout and stderr
 * redirected, which must stay empty; the status must be `want` and the log hold every
 * string of the NULL-terminated `needles`. 0 when all of that holds.
 */
int ct_expect_variant_failure(const char *src, const char *options,
                              const struct kiln_cc_variant *variant, enum kiln_cc_status want,
                              const char *const *needles);
/* The same for build(). */
int ct_expect_failure(const char *src, const char *options, enum kiln_cc_status want,
                      const char *const *needles);

/*
 * The module a KILN_DUMP_IR build wrote into `dir` after stage `stage` ("frontend",
 * "wrapped", "optimized": backend.c's names), malloc()ed, or NULL when there is none; *number
 * (may be NULL) gets the stage's place in the order of the dumps.
 */
/*
 * A new empty directory under TMPDIR (else /tmp) for dumps, named in `dir` (room for
 * `size` bytes); false when it could not be made.
 */
bool ct_temp_dir(char *dir, size_t size);
char *ct_dump_read(const char *dir, const char *stage, int *number);
/* Removes a dump directory and every file in it. */
void ct_dump_dir_remove(const char *dir);
/*
 * Builds `src` with KILN_DUMP_IR (a variant when `variant` is not NULL) and returns the
 * module after `stage`, malloc()ed, or NULL when the build failed (its log on stderr). The
 * program and the log go to *out and *log_out; the dumped files are removed.
 */
char *ct_build_variant_dumped_ir(const char *src, const char *options,
                                 const struct kiln_cc_variant *variant, const char *stage,
                                 struct kiln_cc_program **out, char **log_out);
/* The same for build(). */
char *ct_build_dumped_ir(const char *src, const char *options, const char *stage,
                         struct kiln_cc_program **out, char **log_out);
/* The same, for a test that needs neither the program nor the log. */
char *ct_dumped_ir(const char *src, const char *options, const char *stage);

/* Whether a line of `text` holds both `a` and `b`. */
bool ct_line_with(const char *text, const char *a, const char *b);
/* The text of work-group function `kernel` in `ir`, malloc()ed, or NULL. */
char *ct_wg_function(const char *ir, const char *kernel);
/* The widest "phi <N x TYPE>" in fn (a vector accumulator or induction), 0 if none. */
unsigned ct_widest_vector_phi(const char *fn, const char *type);
/* How many times `what` occurs in `text`. */
size_t ct_count_of(const char *text, const char *what);

#endif
