/*
 * libkiln-cc.so's entry point: the interface table the runtime gets from
 * kiln_cc_interface(). This library links no LLVM (cc_common.h says how the two
 * halves divide the work):
 *  - build() asks the kernel cache (cache.c) first; a hit is loaded here and runs
 *    no stage. KILN_DUMP_IR and KILN_KEEP_ASM builds bypass the cache, as their
 *    point is to run the stages.
 *  - On a miss, and for compile() and link(), libkiln-cc-llvm.so is opened (once,
 *    from the directory this library was loaded from) and does the work; what it
 *    hands back is a program with its kernel descriptions and its container (the
 *    program's binary, stored in the cache after a build), whose object is loaded
 *    here (load_made) without reading the rest of the container back.
 *  - build_variant() is build() of one kernel for one local size (struct kiln_cc_variant),
 *    cached under a key of its own.
 *  - load_binary() is the loading alone.
 */
#include "binary.h"
#include "kiln_cc_cl_flags.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t backend_once = PTHREAD_ONCE_INIT;
static const struct kiln_cc_backend *backend;
static char backend_error[512];

/*
 * The language user kernels see (set_language): the kernel library's until the runtime
 * gives the device's, which it does once, before its first build; read-only after that.
 */
static const char *language_extensions = KILN_CC_LIB_EXTENSIONS;
static const char *language_features = KILN_CC_LIB_FEATURES;
static bool language_set;

void kiln_cc_language_get(const char **extensions, const char **features)
{
    *extensions = language_extensions;
    *features = language_features;
}

static enum kiln_cc_status set_language(const char *extensions, const char *features)
{
    if (language_set)
        return KILN_CC_INVALID_OPTIONS;
    /* Kept for the life of the process, as the back end holds them. */
    char *e = strdup(extensions), *f = strdup(features);
    if (!e || !f) {
        free(e);
        free(f);
        return KILN_CC_OUT_OF_MEMORY;
    }
    language_extensions = e;
    language_features = f;
    language_set = true;
    return KILN_CC_OK;
}

/* Opens libkiln-cc-llvm.so for good: nothing is ever unloaded. */
static void open_backend(void)
{
    const char *path = kiln_cc_backend_path();
    if (!path) {
        snprintf(backend_error, sizeof(backend_error), "cannot locate %s", KILN_CC_BACKEND_LIBRARY);
        return;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(backend_error, sizeof(backend_error), "cannot load the compiler: %s", dlerror());
        return;
    }
    kiln_cc_backend_fn get = (kiln_cc_backend_fn)dlsym(lib, KILN_CC_BACKEND_SYMBOL);
    const struct kiln_cc_backend *b = get ? get() : NULL;
    if (!b || b->abi_version != KILN_CC_BACKEND_VERSION) {
        snprintf(backend_error, sizeof(backend_error), "%s does not match libkiln-cc.so", path);
        return;
    }
    if (!b->init(kiln_cc_target_id(), language_extensions, language_features)) {
        snprintf(backend_error, sizeof(backend_error), "LLVM has no code generator for this host");
        return;
    }
    backend = b;
}

/* The back end, or NULL with the reason in the log. */
static const struct kiln_cc_backend *get_backend(struct kiln_cc_log *log)
{
    if (pthread_once(&backend_once, open_backend) != 0)
        abort();
    if (!backend)
        kiln_cc_log_printf(log, "error: %s\n", backend_error);
    return backend;
}

/* Frees p and its code. */
static void destroy(struct kiln_cc_program *p)
{
    if (p)
        kiln_cc_elf_unload(&p->code);
    kiln_cc_program_free(p);
}

static enum kiln_cc_status load_code(const void *object, size_t size, const char *const *wg_names,
                                     struct kiln_cc_program *p, struct kiln_cc_log *log)
{
    uintptr_t *addresses = calloc(p->num_kernels ? p->num_kernels : 1, sizeof(*addresses));
    if (!addresses)
        return KILN_CC_OUT_OF_MEMORY;
    bool ok = kiln_cc_elf_load(object, size, wg_names, p->num_kernels, &p->code, addresses, log);
    for (unsigned k = 0; ok && k < p->num_kernels; k++)
        p->kernels[k].wg = (kiln_wg_fn)addresses[k];
    free(addresses);
    return ok ? KILN_CC_OK : KILN_CC_INVALID_BINARY;
}

/* kiln_cc_finish with this library's destroy. */
static enum kiln_cc_status finish(enum kiln_cc_status status, struct kiln_cc_program *p,
                                  struct kiln_cc_log *log, struct kiln_cc_program **out,
                                  char **log_out)
{
    return kiln_cc_finish(status, p, log, out, log_out, destroy);
}

/*
 * A program loaded from the container data[0..size) (taken over on success: it
 * becomes the program's binary), or NULL with the reason in the log. *stored_log
 * gets the build log the container carries.
 */
static struct kiln_cc_program *load(uint8_t *data, size_t size, const uint8_t *key,
                                    struct kiln_cc_log *log, char **stored_log)
{
    struct kiln_cc_program *p = calloc(1, sizeof(*p));
    if (!p) {
        log->out_of_memory = true;
        return NULL;
    }
    if (kiln_cc_container_load(data, size, key, load_code, p, log, stored_log) != KILN_CC_OK) {
        destroy(p);
        return NULL;
    }
    p->binary = data;
    p->binary_size = size;
    return p;
}

/*
 * Loads the object of the back end's executable `made` (no code yet) into it, from the
 * end of its container (struct kiln_cc_program's object_size); its kernel descriptions
 * are the back end's own, so the container is not checked or parsed again. On failure
 * `made` is destroyed and set to NULL.
 */
static enum kiln_cc_status load_made(struct kiln_cc_program **made, struct kiln_cc_log *log)
{
    struct kiln_cc_program *m = *made;
    enum kiln_cc_status status = KILN_CC_INTERNAL;
    if (m->wg_names && m->object_size <= m->binary_size)
        status = load_code(m->binary + (m->binary_size - m->object_size), m->object_size,
                           (const char *const *)m->wg_names, m, log);
    kiln_cc_wg_names_free(m);
    if (status == KILN_CC_OK)
        return KILN_CC_OK;
    destroy(m);
    *made = NULL;
    return status == KILN_CC_OUT_OF_MEMORY || log->out_of_memory ? KILN_CC_OUT_OF_MEMORY
                                                                 : KILN_CC_INTERNAL;
}

/*
 * Takes what the back end answered: its log into `log`, and an executable it made
 * (status KILN_CC_OK) loaded here (load_made).
 */
static enum kiln_cc_status take_made(enum kiln_cc_status status, struct kiln_cc_program **made,
                                     char *made_log, struct kiln_cc_log *log)
{
    kiln_cc_log_append(log, made_log ? made_log : "");
    free(made_log);
    if (status == KILN_CC_OK && (*made)->kind == KILN_CC_EXECUTABLE)
        status = load_made(made, log);
    return status;
}

/* Whether this build may use the cache: tracing builds must run every stage. */
static bool cache_wanted(void)
{
    const char *dump_dir = getenv("KILN_DUMP_IR");
    const char *keep_asm = getenv("KILN_KEEP_ASM");
    return !(dump_dir && *dump_dir) && !(keep_asm && strcmp(keep_asm, "1") == 0) &&
           kiln_cc_cache_enabled();
}

/*
 * Loads the cache entry for `key` into a new program, or NULL on a miss. An entry
 * that fails any check is a miss (the build that follows replaces it); what was
 * wrong goes nowhere, as the user asked for a build, not for the cache.
 */
static struct kiln_cc_program *cache_lookup(const uint8_t key[KILN_CC_HASH_SIZE], char **log_out)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!kiln_cc_cache_read(key, &data, &size))
        return NULL;
    struct kiln_cc_log scratch;
    kiln_cc_log_init(&scratch);
    char *stored_log = NULL;
    struct kiln_cc_program *p = load(data, size, key, &scratch, &stored_log);
    if (p && (scratch.out_of_memory || p->kind != KILN_CC_EXECUTABLE)) {
        p->binary = NULL;
        destroy(p);
        p = NULL;
    }
    if (p) {
        p->from_cache = true;
        *log_out = stored_log;
    } else {
        free(stored_log);
        free(data);
    }
    free(kiln_cc_log_take(&scratch));
    return p;
}

/*
 * Whether a build in this process has run every stage, from the front end to code generation
 * (an optimised build that succeeded). LLVM and Clang set some of their tables up on first use
 * (TargetLibraryInfo's index of library function names is one) and register their exit-time
 * destructors then; after such a build those registrations are made.
 */
static atomic_bool ran_every_stage;
static pthread_once_t prime_once = PTHREAD_ONCE_INIT;

/* A small program whose build takes the common path of every stage: a library builtin, a
 * loop the vectoriser takes, `__local` memory across a barrier, an atomic. */
static const char prime_source[] =
    "kernel void kiln_prime(global float *o, local float *l, global int *c, int n) {\n"
    "  float s = 0.0f;\n"
    "  for (int i = 0; i < n; i++) s += sin(o[i]) * 2.0f;\n"
    "  l[get_local_id(0)] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  o[get_global_id(0)] = l[0] + (float)atomic_inc(c);\n"
    "}\n";

/* Builds prime_source through every stage, without the cache, and throws it away. */
static void prime(void)
{
    if (!backend || atomic_load(&ran_every_stage))
        return;
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    uint8_t key[KILN_CC_HASH_SIZE] = {0};
    struct kiln_cc_program *p = NULL;
    char *made_log = NULL;
    enum kiln_cc_status status = backend->build(prime_source, "", NULL, key, &p, &made_log);
    status = take_made(status, &p, made_log, &log);
    if (status == KILN_CC_OK) {
        destroy(p);
        atomic_store(&ran_every_stage, true);
    }
    free(kiln_cc_log_take(&log));
}

/* The interface's prime_backend. */
static bool prime_backend(void)
{
    if (pthread_once(&backend_once, open_backend) != 0 || pthread_once(&prime_once, prime) != 0)
        abort();
    return backend != NULL;
}

/*
 * Whether `v` is a variant the back end can build: a kernel name (a C identifier), sizes of
 * 1 to KILN_CC_VARIANT_MAX and at most KILN_CC_VARIANT_IMAGES images, each of a distinct
 * argument with a pixel of 1 to 16 bytes and 1 to 4 channels; if not, the log says why.
 * Whether each names an image argument only the back end can tell.
 */
static bool variant_valid(const struct kiln_cc_variant *v, struct kiln_cc_log *log)
{
    bool ok = v->kernel && *v->kernel;
    for (const char *c = v->kernel; ok && *c; c++)
        ok = isalnum((unsigned char)*c) || *c == '_';
    for (unsigned d = 0; ok && d < 3; d++)
        ok = v->local[d] >= 1 && v->local[d] <= KILN_CC_VARIANT_MAX;
    bool images_ok = v->num_images <= KILN_CC_VARIANT_IMAGES;
    for (unsigned i = 0; images_ok && i < v->num_images; i++) {
        const struct kiln_cc_variant_image *im = &v->images[i];
        images_ok = im->elem_size >= 1 && im->elem_size <= 16 && im->num_channels >= 1 &&
                    im->num_channels <= 4;
        for (unsigned j = 0; images_ok && j < i; j++)
            images_ok = v->images[j].arg != im->arg;
    }
    if (!ok || !images_ok)
        kiln_cc_log_printf(log, "error: malformed variant of kernel '%s': %zux%zux%zu%s\n",
                           v->kernel ? v->kernel : "(null)", v->local[0], v->local[1], v->local[2],
                           images_ok ? "" : ", its image formats");
    return ok && images_ok;
}

/* The interface's cached: whether the kernel cache holds an entry for this build now. */
static bool cached(const char *source, const char *options, const struct kiln_cc_variant *variant)
{
    uint8_t key[KILN_CC_HASH_SIZE] = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    if (!kiln_cc_cache_key(source, options, variant, key) || !cache_wanted() ||
        !kiln_cc_cache_read(key, &data, &size))
        return false;
    free(data);
    return true;
}

/* build() and build_variant(): `variant` is NULL for an ordinary build. */
static enum kiln_cc_status build_common(const char *source, const char *options,
                                        const struct kiln_cc_variant *variant,
                                        struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    if (variant && !variant_valid(variant, &log))
        return finish(KILN_CC_INVALID_OPTIONS, NULL, &log, out, log_out);
    uint8_t key[KILN_CC_HASH_SIZE] = {0};
    bool use_cache = kiln_cc_cache_key(source, options, variant, key) && cache_wanted();
    if (use_cache) {
        char *stored_log = NULL;
        struct kiln_cc_program *hit = cache_lookup(key, &stored_log);
        if (hit) {
            kiln_cc_log_append(&log, stored_log ? stored_log : "");
            free(stored_log);
            return finish(KILN_CC_OK, hit, &log, out, log_out);
        }
    }
    const struct kiln_cc_backend *be = get_backend(&log);
    if (!be)
        return finish(KILN_CC_INTERNAL, NULL, &log, out, log_out);
    struct kiln_cc_program *p = NULL;
    char *made_log = NULL;
    enum kiln_cc_status status = be->build(source, options, variant, key, &p, &made_log);
    status = take_made(status, &p, made_log, &log);
    if (status == KILN_CC_OK && !(options && strstr(options, "-cl-opt-disable")))
        atomic_store(&ran_every_stage, true);
    if (status == KILN_CC_OK && use_cache)
        kiln_cc_cache_write(key, p->binary, p->binary_size, &log);
    return finish(status, p, &log, out, log_out);
}

static enum kiln_cc_status build(const char *source, const char *options,
                                 struct kiln_cc_program **out, char **log_out)
{
    return build_common(source, options, NULL, out, log_out);
}

static enum kiln_cc_status build_variant(const char *source, const char *options,
                                         const struct kiln_cc_variant *variant,
                                         struct kiln_cc_program **out, char **log_out)
{
    return build_common(source, options, variant, out, log_out);
}

static enum kiln_cc_status load_binary(const unsigned char *data, size_t size,
                                       struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return finish(KILN_CC_OUT_OF_MEMORY, NULL, &log, out, log_out);
    memcpy(copy, data, size);
    char *stored_log = NULL;
    struct kiln_cc_program *p = load(copy, size, NULL, &log, &stored_log);
    if (!p) {
        free(copy);
        return finish(log.out_of_memory ? KILN_CC_OUT_OF_MEMORY : KILN_CC_INVALID_BINARY, NULL,
                      &log, out, log_out);
    }
    kiln_cc_log_append(&log, stored_log ? stored_log : "");
    free(stored_log);
    return finish(KILN_CC_OK, p, &log, out, log_out);
}

static enum kiln_cc_status compile(const char *source, const char *options,
                                   const struct kiln_cc_header *headers, unsigned num_headers,
                                   struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    const struct kiln_cc_backend *be = get_backend(&log);
    if (!be)
        return finish(KILN_CC_INTERNAL, NULL, &log, out, log_out);
    free(kiln_cc_log_take(&log));
    return be->compile(source, options, headers, num_headers, out, log_out);
}

static enum kiln_cc_status link(const struct kiln_cc_program *const *inputs, unsigned num_inputs,
                                const char *options, struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    const struct kiln_cc_backend *be = get_backend(&log);
    if (!be)
        return finish(KILN_CC_INTERNAL, NULL, &log, out, log_out);
    struct kiln_cc_program *p = NULL;
    char *made_log = NULL;
    enum kiln_cc_status status = be->link(inputs, num_inputs, options, &p, &made_log);
    status = take_made(status, &p, made_log, &log);
    return finish(status, p, &log, out, log_out);
}

static unsigned table_size(const struct kiln_cc_program *p)
{
    return p->num_kernels;
}

static unsigned num_kernels(const struct kiln_cc_program *p)
{
    unsigned n = p->num_kernels;
    while (n > 0 && p->kernels[n - 1].block)
        n--;
    return n;
}

static const struct kiln_cc_kernel *kernel(const struct kiln_cc_program *p, unsigned i)
{
    return i < p->num_kernels ? &p->kernels[i] : NULL;
}

static char *assembly(const struct kiln_cc_program *p)
{
    return p->assembly ? strdup(p->assembly) : NULL;
}

static const unsigned char *binary(const struct kiln_cc_program *p, size_t *size)
{
    *size = p->binary_size;
    return p->binary;
}

static size_t variable_bytes(const struct kiln_cc_program *p)
{
    return p->code.variable_bytes;
}

static int from_cache(const struct kiln_cc_program *p)
{
    return p->from_cache;
}

static enum kiln_cc_kind kind(const struct kiln_cc_program *p, unsigned *flags)
{
    if (flags)
        *flags = p->flags;
    return p->kind;
}

static const struct kiln_cc_interface interface = {
    .abi_version = KILN_CC_ABI_VERSION,
    .build = build,
    .num_kernels = num_kernels,
    .table_size = table_size,
    .kernel = kernel,
    .destroy = destroy,
    .assembly = assembly,
    .binary = binary,
    .load_binary = load_binary,
    .from_cache = from_cache,
    .variable_bytes = variable_bytes,
    .compile = compile,
    .link = link,
    .kind = kind,
    .build_variant = build_variant,
    .set_language = set_language,
    .target = kiln_cc_target_id,
    .prime_backend = prime_backend,
    .cached = cached,
};

__attribute__((visibility("default"))) const struct kiln_cc_interface *kiln_cc_interface(void)
{
    return &interface;
}
