/*
 * Internals shared by the stages of the kernel compiler; never leaves this folder.
 *
 * A build runs the stages in this order, each in its own file, each handing the
 * module on through struct kiln_cc_build:
 *
 *   options.c       user build options -> cc1 arguments
 *   frontend.c      + frontend_shim.cpp: OpenCL C -> LLVM module
 *   kernel_info.c   kernel argument metadata -> struct kiln_cc_kernel
 *   link_library.c  link the embedded kernel library
 *   wg_wrapper.c    one work-group function per kernel, everything inlined
 *   check_support.c refuse what this compiler cannot run correctly
 *   optimize.c      host CPU attributes, default<O3>
 *   codegen.c       object (and optionally assembly) in memory
 *   jit_load.c      LLJIT loads the object, wrappers are looked up
 *
 * compiler.c drives them and holds the interface table. Before the front end it
 * asks the kernel cache (cache.c) for the build's key; on a hit the stored
 * container (container.c) is loaded instead of running any stage, and after code
 * generation a miss stores one. hash.c is the SHA-256 both use.
 */
#ifndef KILN_COMPILER_CC_INTERNAL_H
#define KILN_COMPILER_CC_INTERNAL_H

#include "hash.h"
#include "kiln_cc.h"

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/TargetMachine.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Name prefix of the work-group functions; the dot keeps them apart from C names. */
#define KILN_CC_WG_PREFIX "kiln.wg."
/* The hooks the kernel library calls (kernel-lib/include/kiln_lib.h). */
#define KILN_CC_HOOK_CTX      "__kiln_ctx"
#define KILN_CC_HOOK_LOCAL_ID "__kiln_local_id"
/* Clang's calling convention number for spir_kernel functions. */
#define KILN_CC_SPIR_KERNEL_CC 76

/* A growing, always NUL-terminated build log. */
struct kiln_cc_log {
    char *text;
    size_t len;
    size_t cap;
    bool out_of_memory; /* an append failed; the log is truncated */
};

void kiln_cc_log_init(struct kiln_cc_log *log);
void kiln_cc_log_append(struct kiln_cc_log *log, const char *text);
void kiln_cc_log_printf(struct kiln_cc_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the text to the caller (never NULL unless out of memory) and resets the log. */
char *kiln_cc_log_take(struct kiln_cc_log *log);

/* User build options, translated. */
struct kiln_cc_options {
    char **cc1_args; /* malloc()ed strings for cc1, in order */
    size_t num_cc1_args;
    bool opt_disable; /* -cl-opt-disable: no IR optimisation, fast code generation */
};

enum kiln_cc_status kiln_cc_options_parse(const char *options, struct kiln_cc_options *out,
                                          struct kiln_cc_log *log);
void kiln_cc_options_fini(struct kiln_cc_options *opts);

/* Host facts computed once by kiln_cc_init(). */
struct kiln_cc_host {
    char *cpu;      /* LLVMGetHostCPUName */
    char *features; /* LLVMGetHostCPUFeatures */
    bool avx512;    /* features enable avx512f */
    LLVMTargetRef target;
};

/* Initialises LLVM's native target once; returns NULL if that failed. */
const struct kiln_cc_host *kiln_cc_init(void);

struct kiln_cc_program {
    LLVMOrcLLJITRef jit; /* owns the code of every wg function */
    unsigned num_kernels;
    struct kiln_cc_kernel *kernels;
    char *assembly;              /* NULL unless KILN_KEEP_ASM=1 */
    struct kiln_cc_log *jit_log; /* where JIT errors go while building; NULL after */
    uint8_t *binary;             /* the program as a container (container.c), malloc()ed */
    size_t binary_size;
    bool from_cache; /* build() found it in the kernel cache */
};

/* State of one build, passed from stage to stage. */
struct kiln_cc_build {
    const struct kiln_cc_host *host;
    const struct kiln_cc_options *opts;
    struct kiln_cc_log *log;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    struct kiln_cc_program *prog;
    LLVMValueRef *kernel_fns; /* prog->num_kernels entries, the spir_kernel functions */
    LLVMValueRef *wrappers;   /* prog->num_kernels entries, after wg_wrapper.c */
    LLVMTargetMachineRef tm;
    unsigned id;          /* numbers this build's IR dumps */
    const char *dump_dir; /* KILN_DUMP_IR, or NULL */
};

enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source);
enum kiln_cc_status kiln_cc_kernels_read(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_wrappers_build(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_check_support(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_optimize(struct kiln_cc_build *b);
/* On KILN_CC_OK *object is the emitted ELF object, owned by the caller. */
enum kiln_cc_status kiln_cc_codegen(struct kiln_cc_build *b, LLVMMemoryBufferRef *object);
/* Takes ownership of `object` in every case. */
enum kiln_cc_status kiln_cc_jit_load(struct kiln_cc_build *b, LLVMMemoryBufferRef object);

/*
 * Loads `object` into a new LLJIT of p and sets p->kernels[k].wg to the address of
 * wg_names[k]. Takes ownership of `object` in every case.
 */
enum kiln_cc_status kiln_cc_jit_load_object(struct kiln_cc_program *p, struct kiln_cc_log *log,
                                            LLVMMemoryBufferRef object,
                                            const char *const *wg_names);

/* The program container (container.c). Bump the version with any change to it. */
#define KILN_CC_CONTAINER_VERSION 1
#define KILN_CC_CONTAINER_HEADER  104
struct kiln_cc_container {
    uint8_t key[KILN_CC_HASH_SIZE];
    const uint8_t *info, *object;
    size_t info_size, object_size;
};
/* Serialises a built program; *out is malloc()ed. wg_names[k] is kernel k's symbol. */
enum kiln_cc_status kiln_cc_container_write(const struct kiln_cc_program *p,
                                            const char *const *wg_names, const char *log,
                                            const uint8_t key[KILN_CC_HASH_SIZE],
                                            const void *object, size_t object_size, uint8_t **out,
                                            size_t *out_size);
/* Checks magic, version, lengths, checksum and target; KILN_CC_INVALID_BINARY and a log line if any
 * is wrong. */
enum kiln_cc_status kiln_cc_container_check(const uint8_t *data, size_t size,
                                            struct kiln_cc_container *c, struct kiln_cc_log *log);
/*
 * Checks the container (and that its key is `key`, unless NULL) and loads it into
 * the empty program p (kernels and JIT); *stored_log is the build log stored with
 * it (malloc()ed) on KILN_CC_OK.
 */
enum kiln_cc_status kiln_cc_container_load(const uint8_t *data, size_t size, const uint8_t *key,
                                           struct kiln_cc_program *p, struct kiln_cc_log *log,
                                           char **stored_log);

/* The kernel cache (cache.c). */
/* "triple;cpu;features;llvm version;kiln format and build id", or NULL without a host. */
const char *kiln_cc_target_id(void);
/* False when the host could not be described. */
bool kiln_cc_cache_key(const char *source, const char *options, uint8_t key[KILN_CC_HASH_SIZE]);
bool kiln_cc_cache_enabled(void);
/* The entry's bytes (malloc()ed) if a file exists for the key; not checked yet. */
bool kiln_cc_cache_read(const uint8_t key[KILN_CC_HASH_SIZE], uint8_t **data, size_t *size);
/* Stores an entry; failures are silent but for a note in `log` when a write failed. */
void kiln_cc_cache_write(const uint8_t key[KILN_CC_HASH_SIZE], const uint8_t *data, size_t size,
                         struct kiln_cc_log *log);

/* Frees what kernel_info.c allocated in p->kernels. */
void kiln_cc_kernels_free(struct kiln_cc_program *p);

/* Embedded data (embedded.S). */
extern const char kiln_cc_kernel_lib_start[], kiln_cc_kernel_lib_end[];
extern const char kiln_cc_opencl_base_h_start[], kiln_cc_opencl_base_h_end[];

#endif
