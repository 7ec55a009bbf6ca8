/*
 * Front-end stage, C side: assembles the cc1 command line and the in-memory files,
 * runs frontend_shim.cpp, and copies Clang's diagnostics into the build log.
 *
 * The command line is the kernel library's (kiln_cc_cl_flags.h, generated from
 * kernel-lib/cl-flags.cmake) plus -cl-kernel-arg-info, the language the device reports
 * (language_make) and the translated user options, so builtins and kernels always agree on
 * names and argument lowering, and a kernel sees the extensions and features the device
 * reports, no more and no fewer.
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

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIRTUAL_DIR         "/kiln"
#define VIRTUAL_INCLUDE_DIR "/kiln/include"
#define VIRTUAL_SOURCE      "/kiln/program.cl"
/* Diagnostics name the source "program.cl", not its virtual path. */
#define LINE_DIRECTIVE "#line 1 \"program.cl\"\n"

/*
 * After the library's flags, what differs for user kernels: __OPENCL_VERSION__ is the
 * device's OpenCL version, which Clang defines only for SPIR targets. The language comes
 * after these (language_make).
 */
static const char *const base_args[] = {
    KILN_CC_CL_FLAGS "-internal-isystem",
    VIRTUAL_INCLUDE_DIR,
    "-cl-kernel-arg-info",
    "-D__OPENCL_VERSION__=300",
};

/*
 * What the device reports (kiln_cc_frontend_language_set), space-separated; until it is
 * set, the kernel library's own language.
 */
static const char *language_extensions = KILN_CC_LIB_EXTENSIONS;
static const char *language_features = KILN_CC_LIB_FEATURES;

void kiln_cc_frontend_language_set(const char *extensions, const char *features)
{
    language_extensions = extensions;
    language_features = features;
}

/*
 * Feature macros Clang 19 or its opencl-c-base.h define whatever -cl-ext says: the header's
 * list for OpenCL C 2.0, and __opencl_c_int64, which Clang defines at every version.
 */
static const char *const clang_own_features[] = {
    "__opencl_c_pipes",
    "__opencl_c_generic_address_space",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_read_write_images",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_images",
    "__opencl_c_int64",
};

/* Whether the space-separated `list` holds the word `name`. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

bool kiln_cc_frontend_reports(const char *name)
{
    return listed(language_extensions, name) || listed(language_features, name);
}

/* The language of one build: cc1 arguments and the text put before the source. */
struct language {
    char **args; /* num_args malloc()ed strings */
    size_t num_args;
    char *prelude;
};

static void language_fini(struct language *l)
{
    for (size_t i = 0; l->args && i < l->num_args; i++)
        free(l->args[i]);
    free(l->args);
    free(l->prelude);
}

/*
 * The arguments and prelude that make a kernel of OpenCL C `version` (100 to 300) see
 * exactly the reported extensions and features (docs/compiler.md, "What a kernel sees"):
 *  - -cl-ext=-all,+name... for every reported extension and feature: what Clang itself
 *    checks (the pragmas, the half type, the builtins it declares) and the extension macros
 *    it defines. Names Clang does not know (API-only extensions) are ignored by it;
 *  - at 3.0, -D<feature>=1 for every reported feature, before opencl-c-base.h reads them:
 *    Clang's -cl-ext ignores the features it leaves to that header on x86 (work-group
 *    collectives, atomic scopes). Each is defined as Clang would define it, so a second
 *    definition is no redefinition;
 *  - -D__IMAGE_SUPPORT__=1 where images are reported;
 *  - a prelude that undefines what Clang or its header defines unasked
 *    (clang_own_features) where the device does not report it.
 * Feature macros belong to OpenCL C 3.0. Below it a kernel sees no unreported one, and of
 * the reported ones only those Clang or its header define themselves: at 2.0 the header's
 * list, at every version __opencl_c_int64. OpenCL C 2.0 has double and
 * sub-groups as extensions (cl_khr_fp64, cl_khr_subgroups), so Clang refuses sub-group
 * builtins at 2.0 whatever the macros say, and a 1.x kernel would be told of a generic
 * address space its language lacks.
 * False when out of memory.
 */
static bool language_make(unsigned version, struct language *l)
{
    const char *ext = language_extensions, *feat = language_features;
    size_t words = 0;
    for (const char *p = feat; *p; p++)
        words += (p == feat || p[-1] == ' ') && *p != ' ';
    *l = (struct language){0};
    l->args = calloc(words + 2, sizeof(*l->args));
    size_t cap = 16 + 3 * (strlen(ext) + strlen(feat));
    char *cl_ext = malloc(cap);
    if (!l->args || !cl_ext) {
        free(cl_ext);
        return false;
    }
    l->args[l->num_args++] = cl_ext;
    size_t at = (size_t)snprintf(cl_ext, cap, "-cl-ext=-all");
    const char *lists[] = {ext, feat};
    for (size_t i = 0; i < 2; i++) {
        for (const char *word = lists[i] + strspn(lists[i], " "); *word;
             word += strspn(word, " ")) {
            size_t n = strcspn(word, " ");
            at += (size_t)snprintf(cl_ext + at, cap - at, ",+%.*s", (int)n, word);
            if (i == 1 && version >= 300) {
                size_t len = n + 5;
                char *define = malloc(len);
                if (!define)
                    return false;
                snprintf(define, len, "-D%.*s=1", (int)n, word);
                l->args[l->num_args++] = define;
            }
            word += n;
        }
    }
    if (listed(feat, "__opencl_c_images")) {
        l->args[l->num_args] = strdup("-D__IMAGE_SUPPORT__=1");
        if (!l->args[l->num_args++])
            return false;
    }
    size_t pcap = 1;
    for (size_t i = 0; i < sizeof(clang_own_features) / sizeof(clang_own_features[0]); i++)
        pcap += strlen("#undef \n") + strlen(clang_own_features[i]);
    l->prelude = malloc(pcap);
    if (!l->prelude)
        return false;
    size_t pat = 0;
    l->prelude[0] = '\0';
    for (size_t i = 0; i < sizeof(clang_own_features) / sizeof(clang_own_features[0]); i++)
        if (!listed(feat, clang_own_features[i]))
            pat += (size_t)snprintf(l->prelude + pat, pcap - pat, "#undef %s\n",
                                    clang_own_features[i]);
    return true;
}

enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source)
{
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;
    const size_t num_base = sizeof(base_args) / sizeof(base_args[0]);
    struct language lang;
    bool have_lang = language_make(b->opts->cl_version, &lang);
    const size_t num_args = num_base + lang.num_args + b->opts->num_cc1_args + 5;
    const char **args = malloc(num_args * sizeof(*args));
    size_t source_len = strlen(source), prelude_len = have_lang ? strlen(lang.prelude) : 0;
    size_t text_len = prelude_len + sizeof(LINE_DIRECTIVE) - 1 + source_len;
    char *text = malloc(text_len + 1);
    char *diagnostics = NULL;
    struct kiln_cc_vfile *files = calloc(2 + b->num_headers, sizeof(*files));
    char **paths = calloc(b->num_headers + 1, sizeof(*paths));

    if (!have_lang || !args || !text || !files || !paths)
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
    for (size_t i = 0; i < lang.num_args; i++)
        args[n++] = lang.args[i];
    for (size_t i = 0; i < b->opts->num_cc1_args; i++)
        args[n++] = b->opts->cc1_args[i];
    if (b->num_headers) {
        args[n++] = "-I";
        args[n++] = VIRTUAL_DIR;
    }
    args[n++] = "-x";
    args[n++] = "cl";
    args[n++] = VIRTUAL_SOURCE;

    /* The prelude goes before the #line: the source's first line is still line 1. */
    memcpy(text, lang.prelude, prelude_len);
    memcpy(text + prelude_len, LINE_DIRECTIVE, sizeof(LINE_DIRECTIVE) - 1);
    memcpy(text + prelude_len + sizeof(LINE_DIRECTIVE) - 1, source, source_len + 1);
    files[0] = (struct kiln_cc_vfile){VIRTUAL_SOURCE, text, text_len};
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
    language_fini(&lang);
    return status;
}
