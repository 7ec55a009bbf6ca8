/*
 * Build options (OpenCL 3.0 API §5.8.6): the user's option string becomes cc1
 * arguments.
 *
 * Only options the specification defines are accepted; anything else is
 * KILN_CC_INVALID_OPTIONS with the offending word in the log (clBuildProgram must
 * answer CL_INVALID_BUILD_OPTIONS rather than pass junk to Clang).
 * -cl-opt-disable is kept from Clang on purpose: at cc1 level it means optnone on
 * every function, while Kiln must still inline the kernel into its work-group loop;
 * the back end honours it instead (no IR optimisation, fast instruction selection).
 */
#include "frontend.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Options passed to cc1 unchanged; they are cc1 options with the same meaning. */
static const char *const passthrough[] = {
    "-w",
    "-Werror",
    "-cl-mad-enable",
    "-cl-fast-relaxed-math",
    "-cl-finite-math-only",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-uniform-work-group-size",
};

static const char *const cl_std_values[] = {"CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Splits on blanks; a double-quoted part keeps its blanks (-D "X=a b"). */
static char *next_word(const char **cursor)
{
    const char *s = *cursor;
    while (*s && isspace((unsigned char)*s))
        s++;
    if (!*s) {
        *cursor = s;
        return NULL;
    }
    char *word = malloc(strlen(s) + 1);
    if (!word)
        return NULL;
    size_t n = 0;
    bool quoted = false;
    for (; *s && (quoted || !isspace((unsigned char)*s)); s++) {
        if (*s == '"')
            quoted = !quoted;
        else
            word[n++] = *s;
    }
    word[n] = '\0';
    *cursor = s;
    return word;
}

static bool push(struct kiln_cc_options *o, char *arg)
{
    char **args = realloc(o->cc1_args, (o->num_cc1_args + 1) * sizeof(*args));
    if (!args) {
        free(arg);
        return false;
    }
    o->cc1_args = args;
    o->cc1_args[o->num_cc1_args++] = arg;
    return true;
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

static bool is_passthrough(const char *word)
{
    for (size_t i = 0; i < ARRAY_LEN(passthrough); i++)
        if (strcmp(word, passthrough[i]) == 0)
            return true;
    return false;
}

static bool is_cl_std(const char *value)
{
    for (size_t i = 0; i < ARRAY_LEN(cl_std_values); i++)
        if (strcmp(value, cl_std_values[i]) == 0)
            return true;
    return false;
}

/*
 * Translates one word (and, for "-D x" and "-I dir", the word after it) into
 * *arg. Returns KILN_CC_OK, KILN_CC_INVALID_OPTIONS or KILN_CC_OUT_OF_MEMORY;
 * *arg stays NULL for options that produce no cc1 argument.
 */
static enum kiln_cc_status translate(char *word, const char **cursor, struct kiln_cc_options *o,
                                     bool *have_std, char **arg, struct kiln_cc_log *log)
{
    *arg = NULL;
    if (strcmp(word, "-D") == 0 || strcmp(word, "-I") == 0) {
        char *value = next_word(cursor);
        if (!value) {
            if (**cursor)
                return KILN_CC_OUT_OF_MEMORY;
            kiln_cc_log_printf(log, "error: build option '%s' needs a value\n", word);
            return KILN_CC_INVALID_OPTIONS;
        }
        *arg = concat(word, value);
        free(value);
        return *arg ? KILN_CC_OK : KILN_CC_OUT_OF_MEMORY;
    }
    if (strcmp(word, "-cl-uniform-work-group-size") == 0)
        o->uniform_wg = true;
    if (strncmp(word, "-D", 2) == 0 || strncmp(word, "-I", 2) == 0 || is_passthrough(word)) {
        *arg = concat(word, "");
        return *arg ? KILN_CC_OK : KILN_CC_OUT_OF_MEMORY;
    }
    if (strncmp(word, "-cl-std=", 8) == 0) {
        if (!is_cl_std(word + 8)) {
            kiln_cc_log_printf(log,
                               "error: unsupported OpenCL C version in build option '%s' "
                               "(CL1.0, CL1.1, CL1.2, CL2.0 and CL3.0 are accepted)\n",
                               word);
            return KILN_CC_INVALID_OPTIONS;
        }
        *have_std = true;
        o->cl_version = (unsigned)(word[10] - '0') * 100 + (unsigned)(word[12] - '0') * 10;
        /* OpenCL C 1.x has no non-uniform work-groups: the global size must be a multiple
         * of the local size, as -cl-uniform-work-group-size asks (OpenCL 3.0 §5.8.4.7). */
        if (strncmp(word + 8, "CL1.", 4) == 0)
            o->uniform_wg = true;
        *arg = concat(word, "");
        return *arg ? KILN_CC_OK : KILN_CC_OUT_OF_MEMORY;
    }
    if (strcmp(word, "-cl-opt-disable") == 0) {
        o->opt_disable = true;
        return KILN_CC_OK;
    }
    /* Argument names are always recorded (clGetKernelArgInfo may always answer). */
    if (strcmp(word, "-cl-kernel-arg-info") == 0)
        return KILN_CC_OK;
    /*
     * Only a permission to flush single-precision denormals; the clang driver drops it
     * for x86 (cc1 has no such option), and so does Kiln: denormals stay exact.
     */
    if (strcmp(word, "-cl-denorms-are-zero") == 0)
        return KILN_CC_OK;
    /*
     * -cl-no-subgroup-ifp waives independent forward progress of sub-groups, which run one
     * after another on one thread anyway; -g asks for the precise errors of the device-side
     * enqueue builtins, which the runtime reads from the program's options
     * (runtime/devenqueue.c), not the front end; -cl-strict-aliasing is OpenCL 1.0's
     * aliasing promise (deprecated, still valid). All three change nothing here.
     */
    if (strcmp(word, "-cl-no-subgroup-ifp") == 0 || strcmp(word, "-g") == 0 ||
        strcmp(word, "-cl-strict-aliasing") == 0)
        return KILN_CC_OK;
    kiln_cc_log_printf(log, "error: unknown build option '%s'\n", word);
    return KILN_CC_INVALID_OPTIONS;
}

enum kiln_cc_status kiln_cc_options_parse(const char *options, struct kiln_cc_options *out,
                                          struct kiln_cc_log *log)
{
    enum kiln_cc_status status = KILN_CC_OK;
    const char *cursor = options ? options : "";
    bool have_std = false;

    out->cc1_args = NULL;
    out->num_cc1_args = 0;
    out->opt_disable = false;
    out->uniform_wg = false;
    out->variant_kernel = NULL;
    memset(out->variant_local, 0, sizeof(out->variant_local));
    out->variant_zero_offset = false;
    out->variant_num_images = 0;

    for (;;) {
        char *word = next_word(&cursor);
        char *arg;
        if (!word) {
            if (*cursor)
                status = KILN_CC_OUT_OF_MEMORY;
            break;
        }
        status = translate(word, &cursor, out, &have_std, &arg, log);
        free(word);
        if (status != KILN_CC_OK)
            break;
        if (arg && !push(out, arg)) {
            status = KILN_CC_OUT_OF_MEMORY;
            break;
        }
    }
    /* §5.8.6: without -cl-std the highest OpenCL C 1.x version is used, with its uniform
     * work-groups. */
    if (status == KILN_CC_OK && !have_std) {
        out->uniform_wg = true;
        out->cl_version = 120;
        char *arg = concat("-cl-std=CL1.2", "");
        if (!arg || !push(out, arg))
            status = KILN_CC_OUT_OF_MEMORY;
    }
    if (status != KILN_CC_OK)
        kiln_cc_options_fini(out);
    return status;
}

void kiln_cc_options_fini(struct kiln_cc_options *opts)
{
    for (size_t i = 0; i < opts->num_cc1_args; i++)
        free(opts->cc1_args[i]);
    free(opts->cc1_args);
    opts->cc1_args = NULL;
    opts->num_cc1_args = 0;
}

/*
 * Link options. The program-linking ones may be given to any link; they apply to
 * compiled objects and to libraries made with -enable-link-options (linking.c).
 * -cl-denorms-are-zero and -cl-no-subgroup-ifp are accepted and change nothing, as
 * for builds: denormals stay exact, and there are no sub-groups to make progress.
 */
enum kiln_cc_status kiln_cc_link_options_parse(const char *options,
                                               struct kiln_cc_link_options *out,
                                               struct kiln_cc_log *log)
{
    const char *cursor = options ? options : "";
    memset(out, 0, sizeof(*out));
    for (;;) {
        char *word = next_word(&cursor);
        if (!word && *cursor)
            return KILN_CC_OUT_OF_MEMORY;
        if (!word)
            break;
        bool known = true;
        if (strcmp(word, "-create-library") == 0)
            out->create_library = true;
        else if (strcmp(word, "-enable-link-options") == 0)
            out->enable_link_options = true;
        else if (strcmp(word, "-cl-no-signed-zeros") == 0)
            out->no_signed_zeros = true;
        else if (strcmp(word, "-cl-unsafe-math-optimizations") == 0)
            out->unsafe_math = out->no_signed_zeros = true;
        else if (strcmp(word, "-cl-finite-math-only") == 0)
            out->finite_math = true;
        else if (strcmp(word, "-cl-fast-relaxed-math") == 0)
            out->unsafe_math = out->no_signed_zeros = out->finite_math = true;
        else if (strcmp(word, "-cl-denorms-are-zero") != 0 &&
                 strcmp(word, "-cl-no-subgroup-ifp") != 0)
            known = false;
        if (!known)
            kiln_cc_log_printf(log, "error: unknown link option '%s'\n", word);
        free(word);
        if (!known)
            return KILN_CC_INVALID_OPTIONS;
    }
    if (out->enable_link_options && !out->create_library) {
        kiln_cc_log_append(log, "error: link option '-enable-link-options' is only allowed "
                                "with '-create-library'\n");
        return KILN_CC_INVALID_OPTIONS;
    }
    return KILN_CC_OK;
}
