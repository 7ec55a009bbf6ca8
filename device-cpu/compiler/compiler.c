/*
 * The kernel compiler library's entry point: the interface table the runtime gets
 * from kiln_cc_interface(), and build(), which runs the stages of cc_internal.h in
 * order on one LLVM context per build.
 *
 * Design, in short (docs/compiler.md has the whole story):
 *  - Every build owns its LLVMContext, target machine and LLJIT, so builds on
 *    different threads share nothing but the host facts computed once at first use.
 *  - Nothing is printed: Clang's diagnostics, LLVM's diagnostics and JIT errors all
 *    go into the build log.
 *  - KILN_DUMP_IR=dir writes the module after each stage to
 *    dir/kiln-<build>-<n>-<stage>.ll; in debug builds the module is verified
 *    between stages as well.
 *  - The kernel cache (cache.c) is asked before the front end runs; a hit loads
 *    the stored object and descriptions and runs no stage. Every built program
 *    keeps its container (container.c): it is the cache entry a miss stores and
 *    the program binary the runtime hands out. KILN_DUMP_IR and KILN_KEEP_ASM
 *    builds bypass the cache, as their point is to run the stages.
 */
#include "cc_internal.h"
#include "kiln_cc_cl_flags.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct kiln_cc_host host;
static bool host_ok;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static atomic_uint build_counter;

static void init_host(void)
{
    char *error = NULL;
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
        return;
    host.cpu = LLVMGetHostCPUName();
    host.features = LLVMGetHostCPUFeatures();
    host.avx512 = host.features && strstr(host.features, "+avx512f") != NULL;
    if (LLVMGetTargetFromTriple(KILN_CC_TRIPLE, &host.target, &error)) {
        LLVMDisposeMessage(error);
        return;
    }
    host_ok = host.cpu && host.features;
}

const struct kiln_cc_host *kiln_cc_init(void)
{
    if (pthread_once(&host_once, init_host) != 0)
        abort();
    return host_ok ? &host : NULL;
}

/* LLVM's own diagnostics (linker warnings, say) would go to stderr otherwise. */
static void diagnostic_to_log(LLVMDiagnosticInfoRef info, void *ctx)
{
    struct kiln_cc_log *log = ctx;
    /* Remarks (code generation's instruction counts, say) are not the user's business:
     * a clean build has an empty log. */
    if (LLVMGetDiagInfoSeverity(info) == LLVMDSRemark)
        return;
    char *text = LLVMGetDiagInfoDescription(info);
    const char *what = "note";
    switch (LLVMGetDiagInfoSeverity(info)) {
    case LLVMDSError:
        what = "error";
        break;
    case LLVMDSWarning:
        what = "warning";
        break;
    default:
        break;
    }
    kiln_cc_log_printf(log, "%s: %s\n", what, text);
    LLVMDisposeMessage(text);
}

static void dump_stage(struct kiln_cc_build *b, unsigned n, const char *stage)
{
    if (!b->dump_dir || !b->mod)
        return;
    size_t len = strlen(b->dump_dir) + strlen(stage) + 48;
    char *path = malloc(len);
    char *msg = NULL;
    if (!path)
        return;
    snprintf(path, len, "%s/kiln-%u-%u-%s.ll", b->dump_dir, b->id, n, stage);
    if (LLVMPrintModuleToFile(b->mod, path, &msg))
        kiln_cc_log_printf(b->log, "warning: KILN_DUMP_IR: %s: %s\n", path, msg ? msg : "");
    LLVMDisposeMessage(msg);
    free(path);
}

static enum kiln_cc_status verify(struct kiln_cc_build *b, const char *stage)
{
#ifndef NDEBUG
    char *msg = NULL;
    if (LLVMVerifyModule(b->mod, LLVMReturnStatusAction, &msg)) {
        kiln_cc_log_printf(b->log, "error: invalid IR after stage %s:\n%s\n", stage, msg);
        LLVMDisposeMessage(msg);
        return KILN_CC_INTERNAL;
    }
    LLVMDisposeMessage(msg);
#else
    (void)b;
    (void)stage;
#endif
    return KILN_CC_OK;
}

static LLVMTargetMachineRef create_target_machine(const struct kiln_cc_options *opts)
{
    return LLVMCreateTargetMachine(host.target, KILN_CC_TRIPLE, host.cpu, host.features,
                                   opts->opt_disable ? LLVMCodeGenLevelNone
                                                     : LLVMCodeGenLevelAggressive,
                                   LLVMRelocPIC, LLVMCodeModelSmall);
}

/* Serialises the built program into b->prog->binary, before the JIT takes the object. */
static enum kiln_cc_status keep_container(struct kiln_cc_build *b, LLVMMemoryBufferRef object,
                                          const uint8_t key[KILN_CC_HASH_SIZE])
{
    struct kiln_cc_program *p = b->prog;
    const char **names = calloc(p->num_kernels ? p->num_kernels : 1, sizeof(*names));
    if (!names)
        return KILN_CC_OUT_OF_MEMORY;
    for (unsigned k = 0; k < p->num_kernels; k++)
        names[k] = LLVMGetValueName(b->wrappers[k]);
    enum kiln_cc_status status = kiln_cc_container_write(
        p, names, b->log->text ? b->log->text : "", key, LLVMGetBufferStart(object),
        LLVMGetBufferSize(object), &p->binary, &p->binary_size);
    free(names);
    return status;
}

/* Runs every stage after the front end; the module and context are b's. */
static enum kiln_cc_status run_stages(struct kiln_cc_build *b, const char *source,
                                      const uint8_t key[KILN_CC_HASH_SIZE])
{
    static const struct {
        const char *name;
        enum kiln_cc_status (*run)(struct kiln_cc_build *);
    } stages[] = {
        {"kernels", kiln_cc_kernels_read}, {"linked", kiln_cc_link_library},
        {"printf", kiln_cc_lower_printf},  {"wrapped", kiln_cc_wrappers_build},
        {"locals", kiln_cc_lower_local},   {"checked", kiln_cc_check_support},
        {"optimized", kiln_cc_optimize},
    };
    enum kiln_cc_status status = kiln_cc_frontend_run(b, source);
    if (status != KILN_CC_OK)
        return status;
    dump_stage(b, 0, "frontend");
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        status = stages[i].run(b);
        if (status != KILN_CC_OK)
            return status;
        dump_stage(b, (unsigned)i + 1, stages[i].name);
        status = verify(b, stages[i].name);
        if (status != KILN_CC_OK)
            return status;
    }
    LLVMMemoryBufferRef object;
    status = kiln_cc_codegen(b, &object);
    if (status != KILN_CC_OK)
        return status;
    status = keep_container(b, object, key);
    if (status != KILN_CC_OK) {
        LLVMDisposeMemoryBuffer(object);
        return status;
    }
    return kiln_cc_jit_load(b, object);
}

static void destroy(struct kiln_cc_program *p);

/* Whether this build may use the cache: tracing builds must run every stage. */
static bool cache_wanted(const char *dump_dir)
{
    const char *keep_asm = getenv("KILN_KEEP_ASM");
    return !dump_dir && !(keep_asm && strcmp(keep_asm, "1") == 0) && kiln_cc_cache_enabled();
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
    struct kiln_cc_program *p = calloc(1, sizeof(*p));
    char *stored_log = NULL;
    if (p && kiln_cc_container_load(data, size, key, p, &scratch, &stored_log) == KILN_CC_OK &&
        !scratch.out_of_memory) {
        p->jit_log = NULL;
        p->binary = data;
        p->binary_size = size;
        p->from_cache = true;
        *log_out = stored_log;
    } else {
        if (p)
            p->jit_log = NULL;
        destroy(p);
        free(stored_log);
        free(data);
        p = NULL;
    }
    free(kiln_cc_log_take(&scratch));
    return p;
}

static void destroy(struct kiln_cc_program *p)
{
    if (!p)
        return;
    if (p->jit)
        LLVMConsumeError(LLVMOrcDisposeLLJIT(p->jit));
    kiln_cc_kernels_free(p);
    free(p->assembly);
    free(p->binary);
    free(p);
}

static enum kiln_cc_status build(const char *source, const char *options,
                                 struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    struct kiln_cc_options opts;
    struct kiln_cc_build b = {0};
    enum kiln_cc_status status;

    kiln_cc_log_init(&log);
    b.log = &log;
    b.host = kiln_cc_init();
    if (!b.host) {
        kiln_cc_log_append(&log, "error: LLVM has no code generator for this host\n");
        status = KILN_CC_INTERNAL;
        goto out_log;
    }
    status = kiln_cc_options_parse(options, &opts, &log);
    if (status != KILN_CC_OK)
        goto out_log;
    b.opts = &opts;
    b.dump_dir = getenv("KILN_DUMP_IR");
    if (b.dump_dir && !*b.dump_dir)
        b.dump_dir = NULL;
    uint8_t key[KILN_CC_HASH_SIZE] = {0};
    bool use_cache = kiln_cc_cache_key(source, options, key) && cache_wanted(b.dump_dir);
    if (use_cache) {
        char *stored_log = NULL;
        struct kiln_cc_program *hit = cache_lookup(key, &stored_log);
        if (hit) {
            kiln_cc_log_append(&log, stored_log ? stored_log : "");
            free(stored_log);
            b.prog = hit;
            status = KILN_CC_OK;
            goto out_free_build;
        }
    }
    b.prog = calloc(1, sizeof(*b.prog));
    b.ctx = LLVMContextCreate();
    b.tm = create_target_machine(&opts);
    if (!b.prog || !b.ctx || !b.tm) {
        status = KILN_CC_OUT_OF_MEMORY;
        goto out_free_build;
    }
    LLVMContextSetDiagnosticHandler(b.ctx, diagnostic_to_log, &log);
    b.id = atomic_fetch_add_explicit(&build_counter, 1, memory_order_relaxed);

    status = run_stages(&b, source, key);
    if (b.prog->jit_log)
        b.prog->jit_log = NULL;
    if (status == KILN_CC_OK && use_cache)
        kiln_cc_cache_write(key, b.prog->binary, b.prog->binary_size, &log);

out_free_build:
    if (b.mod)
        LLVMDisposeModule(b.mod);
    if (b.tm)
        LLVMDisposeTargetMachine(b.tm);
    if (b.ctx)
        LLVMContextDispose(b.ctx);
    free(b.wrappers);
    free(b.bodies);
    free(b.kernel_fns);
    if (status == KILN_CC_OK && log.out_of_memory)
        status = KILN_CC_OUT_OF_MEMORY;
    if (status == KILN_CC_OK)
        *out = b.prog;
    else
        destroy(b.prog);
    kiln_cc_options_fini(&opts);
out_log:
    *log_out = kiln_cc_log_take(&log);
    if (!*log_out && status == KILN_CC_OK) {
        destroy(*out);
        status = KILN_CC_OUT_OF_MEMORY;
    }
    return status;
}

static unsigned num_kernels(const struct kiln_cc_program *p)
{
    return p->num_kernels;
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

static enum kiln_cc_status load_binary(const unsigned char *data, size_t size,
                                       struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    enum kiln_cc_status status;
    char *stored_log = NULL;
    struct kiln_cc_program *p = NULL;

    kiln_cc_log_init(&log);
    if (!kiln_cc_init()) {
        kiln_cc_log_append(&log, "error: LLVM has no code generator for this host\n");
        status = KILN_CC_INTERNAL;
        goto out_log;
    }
    p = calloc(1, sizeof(*p));
    if (!p) {
        status = KILN_CC_OUT_OF_MEMORY;
        goto out_log;
    }
    status = kiln_cc_container_load(data, size, NULL, p, &log, &stored_log);
    p->jit_log = NULL;
    if (status == KILN_CC_OK) {
        p->binary = malloc(size);
        if (!p->binary)
            status = KILN_CC_OUT_OF_MEMORY;
        else
            memcpy(p->binary, data, size);
        p->binary_size = size;
        kiln_cc_log_append(&log, stored_log ? stored_log : "");
    }
    free(stored_log);
    if (status == KILN_CC_OK && log.out_of_memory)
        status = KILN_CC_OUT_OF_MEMORY;
    if (status == KILN_CC_OK)
        *out = p;
    else
        destroy(p);
out_log:
    *log_out = kiln_cc_log_take(&log);
    if (!*log_out && status == KILN_CC_OK) {
        destroy(*out);
        status = KILN_CC_OUT_OF_MEMORY;
    }
    return status;
}

static int from_cache(const struct kiln_cc_program *p)
{
    return p->from_cache;
}

static const struct kiln_cc_interface interface = {
    .abi_version = KILN_CC_ABI_VERSION,
    .build = build,
    .num_kernels = num_kernels,
    .kernel = kernel,
    .destroy = destroy,
    .assembly = assembly,
    .binary = binary,
    .load_binary = load_binary,
    .from_cache = from_cache,
};

__attribute__((visibility("default"))) const struct kiln_cc_interface *kiln_cc_interface(void)
{
    return &interface;
}
