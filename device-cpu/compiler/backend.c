/*
 * libkiln-cc-llvm.so: runs the stages in order on one LLVM context per build, and hands
 * libkiln-cc.so its table (struct kiln_cc_backend). Each stage is a folder with its own
 * header; a build runs them in this order, handing the module on through
 * struct kiln_cc_build (util/cc_util.h), and dumps it after each step (KILN_DUMP_IR):
 *
 *   1-frontend   options.c: user build options -> cc1 arguments; frontend.c and
 *                frontend_shim.cpp: OpenCL C -> LLVM module            (0-frontend)
 *   2-link       kernel_info.c: kernel argument metadata                (1-kernels)
 *                copy_ahead.c: copies into local memory prefetch later copies out
 *                                                                       (2-copies)
 *                link_library.c: the embedded kernel library            (3-linked)
 *                guard_div.c: integer divisions that cannot trap        (4-divisions)
 *                lower_printf.c: printf -> records in the printf buffer (5-printf)
 *   3-workgroup  wg_wrapper.c: one work-group function per kernel, with the region
 *                passes (wg_transform.c and the wg_*.c it runs) or fibers (wg_fibers.c)
 *                for kernels with barriers                              (6-wrapped)
 *                lower_local.c: kernel-scope __local -> arena offsets   (7-locals)
 *                check_support.c: refuse what this compiler cannot run  (8-checked)
 *   4-loops      loop passes the optimisation runs between the parts of O3
 *   5-optimize   host CPU attributes, default<O3>                       (9-optimized)
 *   6-codegen    object (and optionally assembly) in memory
 *   7-binary     the container (container.c); the rest of 7-binary is libkiln-cc.so's
 *
 * util/ lies below every stage. A file includes headers of its own stage and of earlier
 * ones only (tests/style/stage_order.py).
 *
 * Design, in short (docs/compiler.md has the whole story):
 *  - Every build owns its LLVMContext and target machine, so builds on different
 *    threads share nothing but the host facts computed once at first use.
 *  - Nothing is printed: Clang's diagnostics and LLVM's all go into the build log.
 *  - KILN_DUMP_IR=dir writes the module after each stage to
 *    dir/kiln-<build>-<n>-<stage>.ll; in debug builds the module is verified
 *    between stages as well.
 *  - Every program ends as a container (7-binary/container.c): the object and kernel
 *    descriptions of an executable, the bitcode of an object or library. Loading
 *    the object and the kernel cache are libkiln-cc.so's business.
 */
#include "binary.h"
#include "cc_util.h"
#include "frontend.h"
#include "frontend_shim.h"
#include "link_stage.h"
#include "workgroup.h"
#include "optimize.h"
#include "codegen.h"
#include "kiln_cc_cl_flags.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct kiln_cc_host host;
static bool host_ok;
static const char *target; /* from init(), for the containers */
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
    host.avx512fp16 = host.features && strstr(host.features, "+avx512fp16") != NULL;
    if (LLVMGetTargetFromTriple(KILN_CC_TRIPLE, &host.target, &error)) {
        LLVMDisposeMessage(error);
        return;
    }
    host_ok = host.cpu && host.features;
    /*
     * LLVM's own options for the vectorisation of work-item loops that contain loops
     * (outer_vec.c): the VPlan-native path for outer loops that ask for it, and a
     * scalarizer that also splits loads and stores. Neither changes anything else:
     * only loops with an explicit vectorize hint on an outer loop take that path, and
     * Kiln runs the scalarizer itself. The third is the instruction scheduler that runs
     * before register allocation: the ILP list scheduler interleaves independent chains
     * of operations, which a jammed work-item loop is made of (kiln_cc_jam_wide_loops); the
     * default one leaves them one after the other, each waiting on its own latencies
     * (docs/compiler.md, "Work-item loops of wide vectors"). They are process-wide, so
     * set once, here.
     */
    static const char *const llvm_args[] = {"kiln", "-enable-vplan-native-path",
                                            "-scalarize-load-store", "-pre-RA-sched=list-ilp"};
    LLVMParseCommandLineOptions(4, llvm_args, NULL);
}

/* Initialises LLVM's native target once; returns NULL if that failed. */
static const struct kiln_cc_host *host_init(void)
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

/*
 * Serialises the built program into b->prog->binary, and keeps what libkiln-cc.so needs to
 * load its object from there (object_size, wg_names) without parsing the rest back.
 */
static enum kiln_cc_status keep_container(struct kiln_cc_build *b, LLVMMemoryBufferRef object,
                                          const uint8_t key[KILN_CC_HASH_SIZE])
{
    struct kiln_cc_program *p = b->prog;
    p->wg_names = calloc(p->num_kernels ? p->num_kernels : 1, sizeof(*p->wg_names));
    if (!p->wg_names)
        return KILN_CC_OUT_OF_MEMORY;
    for (unsigned k = 0; k < p->num_kernels; k++)
        if (!(p->wg_names[k] = strdup(LLVMGetValueName(b->wrappers[k]))))
            return KILN_CC_OUT_OF_MEMORY;
    p->object_size = LLVMGetBufferSize(object);
    return kiln_cc_container_write(
        p, (const char *const *)p->wg_names, b->log->text ? b->log->text : "", key,
        LLVMGetBufferStart(object), p->object_size, &p->binary, &p->binary_size);
}

/*
 * clLinkProgram: a function (or variable) the linked objects and libraries use but
 * none defines.
 * Runs after the kernel library is linked; what may stay undefined is what later
 * stages replace (the library's hooks, barriers, printf) and LLVM's intrinsics.
 */
static enum kiln_cc_status check_undefined(struct kiln_cc_build *b)
{
    enum kiln_cc_status status = KILN_CC_OK;
    for (LLVMValueRef f = LLVMGetFirstFunction(b->mod); f; f = LLVMGetNextFunction(f)) {
        const char *name = LLVMGetValueName(f);
        if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) != 0 || !LLVMGetFirstUse(f) ||
            strncmp(name, "llvm.", 5) == 0 || strncmp(name, "__kiln_", 7) == 0 ||
            strcmp(name, "printf") == 0 || kiln_cc_is_barrier(f))
            continue;
        char base[256];
        kiln_cc_base_name(name, base, sizeof(base));
        kiln_cc_log_printf(b->log, "error: undefined function '%s' (symbol %s)\n", base, name);
        status = KILN_CC_BUILD_FAILED;
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(b->mod); g; g = LLVMGetNextGlobal(g)) {
        const char *name = LLVMGetValueName(g);
        if (!LLVMIsDeclaration(g) || !LLVMGetFirstUse(g) || strncmp(name, "llvm.", 5) == 0)
            continue;
        kiln_cc_log_printf(b->log, "error: undefined variable '%s'\n", name);
        status = KILN_CC_BUILD_FAILED;
    }
    return status;
}

/*
 * Runs every stage after the front end on b's module: kernels, library, ...,
 * code generation and the container. `check_links` (clLinkProgram) refuses undefined
 * functions and variables once the library is in.
 */
static enum kiln_cc_status run_back_stages(struct kiln_cc_build *b, bool check_links,
                                           const uint8_t key[KILN_CC_HASH_SIZE])
{
    static const struct {
        const char *name;
        enum kiln_cc_status (*run)(struct kiln_cc_build *);
    } stages[] = {
        {"kernels", kiln_cc_kernels_read}, {"copies", kiln_cc_copy_ahead},
        {"linked", kiln_cc_link_library},  {"divisions", kiln_cc_guard_divisions},
        {"printf", kiln_cc_lower_printf},  {"wrapped", kiln_cc_wrappers_build},
        {"locals", kiln_cc_lower_local},   {"checked", kiln_cc_check_support},
        {"optimized", kiln_cc_optimize},
    };
    enum kiln_cc_status status;
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        status = stages[i].run(b);
        if (status == KILN_CC_OK && check_links && stages[i].run == kiln_cc_link_library)
            status = check_undefined(b);
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
    LLVMDisposeMemoryBuffer(object);
    return status;
}

/* The front end, then every other stage. */
static enum kiln_cc_status run_stages(struct kiln_cc_build *b, const char *source,
                                      const uint8_t key[KILN_CC_HASH_SIZE])
{
    enum kiln_cc_status status = kiln_cc_frontend_run(b, source);
    if (status != KILN_CC_OK)
        return status;
    dump_stage(b, 0, "frontend");
    return run_back_stages(b, false, key);
}

/* Disposes what a build made besides its program. */
static void release_build(struct kiln_cc_build *b)
{
    if (b->mod)
        LLVMDisposeModule(b->mod);
    if (b->tm)
        LLVMDisposeTargetMachine(b->tm);
    if (b->ctx)
        LLVMContextDispose(b->ctx);
    free(b->wrappers);
    free(b->bodies);
    free(b->kernel_fns);
}

/* kiln_cc_finish; the back end's programs hold no code. */
static enum kiln_cc_status finish(enum kiln_cc_status status, struct kiln_cc_program *p,
                                  struct kiln_cc_log *log, struct kiln_cc_program **out,
                                  char **log_out)
{
    return kiln_cc_finish(status, p, log, out, log_out, kiln_cc_program_free);
}

/* A new build of its own context, diagnostics into `log`; KILN_CC_OK or out of memory. */
static enum kiln_cc_status start_build(struct kiln_cc_build *b, struct kiln_cc_log *log)
{
    b->log = log;
    b->dump_dir = getenv("KILN_DUMP_IR");
    if (b->dump_dir && !*b->dump_dir)
        b->dump_dir = NULL;
    b->prog = calloc(1, sizeof(*b->prog));
    b->ctx = LLVMContextCreate();
    if (!b->prog || !b->ctx)
        return KILN_CC_OUT_OF_MEMORY;
    LLVMContextSetDiagnosticHandler(b->ctx, diagnostic_to_log, log);
    b->id = atomic_fetch_add_explicit(&build_counter, 1, memory_order_relaxed);
    return KILN_CC_OK;
}

/*
 * One build of `source`; with `force_fibers` every barrier kernel goes on fibers. *refused
 * tells whether the region transform refused a kernel (the build then failed).
 */
static enum kiln_cc_status build_once(const char *source, const char *options,
                                      const struct kiln_cc_variant *variant,
                                      const uint8_t key[KILN_CC_HASH_SIZE], bool force_fibers,
                                      struct kiln_cc_program **out, char **log_out, bool *refused)
{
    struct kiln_cc_log log;
    struct kiln_cc_options opts;
    struct kiln_cc_build b = {0};
    enum kiln_cc_status status;

    kiln_cc_log_init(&log);
    b.force_fibers = force_fibers;
    b.host = host_init();
    if (!b.host) {
        kiln_cc_log_append(&log, "error: LLVM has no code generator for this host\n");
        status = KILN_CC_INTERNAL;
        goto out_log;
    }
    status = kiln_cc_options_parse(options, &opts, &log);
    if (status != KILN_CC_OK)
        goto out_log;
    if (variant) {
        opts.variant_kernel = variant->kernel;
        memcpy(opts.variant_local, variant->local, sizeof(opts.variant_local));
        opts.variant_zero_offset = variant->zero_offset;
        opts.variant_num_images = variant->num_images;
        memcpy(opts.variant_images, variant->images, sizeof(opts.variant_images));
    }
    b.opts = &opts;
    status = start_build(&b, &log);
    if (status == KILN_CC_OK && !(b.tm = create_target_machine(&opts)))
        status = KILN_CC_OUT_OF_MEMORY;
    if (status == KILN_CC_OK) {
        b.prog->flags = opts.uniform_wg ? KILN_CC_FLAG_UNIFORM_WG : 0;
        status = run_stages(&b, source, key);
    }
    release_build(&b);
    kiln_cc_options_fini(&opts);
out_log:
    *refused = b.regions_refused;
    return finish(status, b.prog, &log, out, log_out);
}

/*
 * A build; when the region transform refuses a kernel (DESIGN.md §4), the program is built
 * again with every barrier kernel on fibers, and the log says why.
 */
static enum kiln_cc_status build(const char *source, const char *options,
                                 const struct kiln_cc_variant *variant,
                                 const uint8_t key[KILN_CC_HASH_SIZE], struct kiln_cc_program **out,
                                 char **log_out)
{
    bool refused = false;
    enum kiln_cc_status status =
        build_once(source, options, variant, key, false, out, log_out, &refused);
    if (status != KILN_CC_BUILD_FAILED || !refused)
        return status;
    char *first = *log_out, *second = NULL;
    status = build_once(source, options, variant, key, true, out, &second, &refused);
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    /* The refusal, as a note now: each of its "error: " lines becomes "note: ". */
    for (char *line = first; line && *line;) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        if (strncmp(line, "error: ", 7) == 0)
            kiln_cc_log_printf(&log, "note: %.*s", (int)(len - 7), line + 7);
        else
            kiln_cc_log_printf(&log, "%.*s", (int)len, line);
        line += len;
    }
    kiln_cc_log_printf(&log, "note: the program's barrier kernels run on fibers instead\n");
    kiln_cc_log_append(&log, second ? second : "");
    free(first);
    free(second);
    *log_out = kiln_cc_log_take(&log);
    if (!*log_out && status == KILN_CC_OK) {
        kiln_cc_program_free(*out);
        status = KILN_CC_OUT_OF_MEMORY;
    }
    return status;
}

/* Makes b's module the bitcode of an object or library program and its container. */
static enum kiln_cc_status keep_bitcode(struct kiln_cc_build *b, enum kiln_cc_kind kind)
{
    struct kiln_cc_program *p = b->prog;
    LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(b->mod);
    if (!buf)
        return KILN_CC_OUT_OF_MEMORY;
    size_t size = LLVMGetBufferSize(buf);
    p->kind = kind;
    p->bitcode = malloc(size ? size : 1);
    if (!p->bitcode) {
        LLVMDisposeMemoryBuffer(buf);
        return KILN_CC_OUT_OF_MEMORY;
    }
    memcpy(p->bitcode, LLVMGetBufferStart(buf), size);
    p->bitcode_size = size;
    LLVMDisposeMemoryBuffer(buf);
    /* The key of a bitcode container only names its contents. */
    uint8_t key[KILN_CC_HASH_SIZE];
    kiln_cc_sha256(p->bitcode, size, key);
    return kiln_cc_container_write(p, NULL, b->log->text ? b->log->text : "", key, p->bitcode, size,
                                   &p->binary, &p->binary_size);
}

static enum kiln_cc_status compile(const char *source, const char *options,
                                   const struct kiln_cc_header *headers, unsigned num_headers,
                                   struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    struct kiln_cc_options opts;
    struct kiln_cc_build b = {0};
    enum kiln_cc_status status;

    kiln_cc_log_init(&log);
    if (!host_init()) {
        kiln_cc_log_append(&log, "error: LLVM has no code generator for this host\n");
        return finish(KILN_CC_INTERNAL, NULL, &log, out, log_out);
    }
    status = kiln_cc_options_parse(options, &opts, &log);
    if (status != KILN_CC_OK)
        return finish(status, NULL, &log, out, log_out);
    b.opts = &opts;
    b.headers = headers;
    b.num_headers = num_headers;
    status = start_build(&b, &log);
    if (status == KILN_CC_OK)
        status = kiln_cc_frontend_run(&b, source);
    if (status == KILN_CC_OK) {
        dump_stage(&b, 0, "frontend");
        b.prog->flags = (opts.uniform_wg ? KILN_CC_FLAG_UNIFORM_WG : 0) |
                        (opts.opt_disable ? KILN_CC_FLAG_OPT_DISABLE : 0);
        status = keep_bitcode(&b, KILN_CC_OBJECT);
    }
    release_build(&b);
    kiln_cc_options_fini(&opts);
    return finish(status, b.prog, &log, out, log_out);
}

static void set_attr(LLVMContextRef ctx, LLVMValueRef fn, const char *kind)
{
    LLVMAttributeRef a = LLVMCreateStringAttribute(ctx, kind, (unsigned)strlen(kind), "true", 4);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
}

/*
 * The program-linking math options, as the attributes Clang gives every function
 * built with the same options; optimisation and code generation honour them.
 */
static void apply_link_options(LLVMContextRef ctx, LLVMModuleRef m,
                               const struct kiln_cc_link_options *lo)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f))
            continue;
        if (lo->no_signed_zeros)
            set_attr(ctx, f, "no-signed-zeros-fp-math");
        if (lo->unsafe_math) {
            set_attr(ctx, f, "unsafe-fp-math");
            set_attr(ctx, f, "approx-func-fp-math");
        }
        if (lo->finite_math) {
            set_attr(ctx, f, "no-infs-fp-math");
            set_attr(ctx, f, "no-nans-fp-math");
        }
    }
}

/* A function or variable both modules define with external linkage: the log names each. */
static bool find_duplicates(struct kiln_cc_build *b, LLVMModuleRef m)
{
    bool found = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || LLVMGetLinkage(f) != LLVMExternalLinkage)
            continue;
        const char *name = LLVMGetValueName(f);
        LLVMValueRef g = LLVMGetNamedFunction(b->mod, name);
        if (!g || LLVMIsDeclaration(g) || LLVMGetLinkage(g) != LLVMExternalLinkage)
            continue;
        char base[256];
        kiln_cc_base_name(name, base, sizeof(base));
        kiln_cc_log_printf(b->log, "error: duplicate definition of function '%s' (symbol %s)\n",
                           base, name);
        found = true;
    }
    for (LLVMValueRef v = LLVMGetFirstGlobal(m); v; v = LLVMGetNextGlobal(v)) {
        if (LLVMIsDeclaration(v) || LLVMGetLinkage(v) != LLVMExternalLinkage)
            continue;
        const char *name = LLVMGetValueName(v);
        LLVMValueRef g = LLVMGetNamedGlobal(b->mod, name);
        if (!g || LLVMIsDeclaration(g) || LLVMGetLinkage(g) != LLVMExternalLinkage)
            continue;
        kiln_cc_log_printf(b->log, "error: duplicate definition of variable '%s'\n", name);
        found = true;
    }
    return found;
}

/* Parses input i's bitcode into b's context and links it into b->mod. */
static enum kiln_cc_status link_input(struct kiln_cc_build *b, const struct kiln_cc_program *in,
                                      unsigned i, const struct kiln_cc_link_options *lo)
{
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
        (const char *)in->bitcode, in->bitcode_size, "kiln-link-input", 0);
    LLVMModuleRef m;
    if (!buf)
        return KILN_CC_OUT_OF_MEMORY;
    /* Parsing does not take the buffer. */
    bool bad = LLVMParseBitcodeInContext2(b->ctx, buf, &m);
    LLVMDisposeMemoryBuffer(buf);
    if (bad) {
        kiln_cc_log_printf(b->log, "error: input %u holds no valid bitcode\n", i);
        return KILN_CC_INTERNAL;
    }
    /* §5.8.7: the options apply to objects, and to libraries only when they allow it. */
    if (in->kind == KILN_CC_OBJECT || (in->flags & KILN_CC_FLAG_LINK_OPTIONS))
        apply_link_options(b->ctx, m, lo);
    if (!b->mod) {
        b->mod = m;
        return KILN_CC_OK;
    }
    if (find_duplicates(b, m)) {
        LLVMDisposeModule(m);
        return KILN_CC_BUILD_FAILED;
    }
    /* Consumes m, even on failure; LLVM's reason went to the log. */
    if (LLVMLinkModules2(b->mod, m)) {
        kiln_cc_log_printf(b->log, "error: input %u could not be linked\n", i);
        return KILN_CC_BUILD_FAILED;
    }
    return KILN_CC_OK;
}

static enum kiln_cc_status link(const struct kiln_cc_program *const *inputs, unsigned num_inputs,
                                const char *options, struct kiln_cc_program **out, char **log_out)
{
    struct kiln_cc_log log;
    struct kiln_cc_link_options lo;
    struct kiln_cc_options opts = {0};
    struct kiln_cc_build b = {0};
    enum kiln_cc_status status;
    unsigned flags = 0;

    kiln_cc_log_init(&log);
    b.host = host_init();
    if (!b.host) {
        kiln_cc_log_append(&log, "error: LLVM has no code generator for this host\n");
        return finish(KILN_CC_INTERNAL, NULL, &log, out, log_out);
    }
    status = kiln_cc_link_options_parse(options, &lo, &log);
    for (unsigned i = 0; status == KILN_CC_OK && i < num_inputs; i++) {
        if (inputs[i]->kind == KILN_CC_EXECUTABLE || !inputs[i]->bitcode) {
            kiln_cc_log_printf(&log, "error: input %u is not a compiled object or library\n", i);
            status = KILN_CC_INTERNAL;
        }
        flags |= inputs[i]->flags & (KILN_CC_FLAG_UNIFORM_WG | KILN_CC_FLAG_OPT_DISABLE);
    }
    if (status != KILN_CC_OK)
        return finish(status, NULL, &log, out, log_out);
    opts.opt_disable = (flags & KILN_CC_FLAG_OPT_DISABLE) != 0;
    opts.uniform_wg = (flags & KILN_CC_FLAG_UNIFORM_WG) != 0;
    b.opts = &opts;
    status = start_build(&b, &log);
    for (unsigned i = 0; status == KILN_CC_OK && i < num_inputs; i++)
        status = link_input(&b, inputs[i], i, &lo);
    if (status == KILN_CC_OK) {
        dump_stage(&b, 0, "linked-inputs");
        b.prog->flags = flags;
        if (lo.create_library) {
            if (lo.enable_link_options)
                b.prog->flags |= KILN_CC_FLAG_LINK_OPTIONS;
            status = keep_bitcode(&b, KILN_CC_LIBRARY);
        } else {
            b.tm = create_target_machine(&opts);
            uint8_t key[KILN_CC_HASH_SIZE] = {0};
            status = b.tm ? run_back_stages(&b, true, key) : KILN_CC_OUT_OF_MEMORY;
        }
    }
    release_build(&b);
    return finish(status, b.prog, &log, out, log_out);
}

static bool init(const char *target_id, const char *extensions, const char *features)
{
    target = target_id;
    kiln_cc_frontend_language_set(extensions, features);
    kiln_cc_frontend_prepare();
    return target && host_init();
}

const char *kiln_cc_target_id(void)
{
    return target;
}

static const struct kiln_cc_backend backend = {
    .abi_version = KILN_CC_BACKEND_VERSION,
    .init = init,
    .build = build,
    .compile = compile,
    .link = link,
};

__attribute__((visibility("default"))) const struct kiln_cc_backend *kiln_cc_backend(void)
{
    return &backend;
}
