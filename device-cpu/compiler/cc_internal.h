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
 *   wg_regions.c    (within it) the region transform for kernels with barriers
 *   check_support.c refuse what this compiler cannot run correctly
 *   optimize.c      host CPU attributes, default<O3>
 *   codegen.c       object (and optionally assembly) in memory
 *   jit_load.c      LLJIT loads the object, wrappers are looked up
 *
 * compiler.c drives them and holds the interface table.
 */
#ifndef KILN_COMPILER_CC_INTERNAL_H
#define KILN_COMPILER_CC_INTERNAL_H

#include "kiln_cc.h"

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/TargetMachine.h>

#include <stdbool.h>
#include <stddef.h>

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

/* The source-level name of a possibly Itanium-mangled function name (check_support.c). */
void kiln_cc_base_name(const char *name, char *buf, size_t size);

/* !{self, !{"llvm.loop.parallel_accesses", group}}, a new distinct loop id (wg_wrapper.c). */
LLVMMetadataRef kiln_cc_parallel_loop_id(LLVMContextRef ctx, LLVMMetadataRef group);

/* wg_regions.c: is `callee` barrier() or work_group_barrier(), any overload? */
bool kiln_cc_is_barrier(LLVMValueRef callee);
/* Sets uses_barrier[k] for each kernel that can reach a barrier call. */
enum kiln_cc_status kiln_cc_barrier_kernels(struct kiln_cc_build *b, bool *uses_barrier);
/* KILN_BARRIER_STRATEGY: KILN_CC_OK for the region transform, else logs why not. */
enum kiln_cc_status kiln_cc_barrier_strategy(struct kiln_cc_build *b, const char *kernel);
/*
 * Rewrites each wrapper with flat[k] (built without a loop nest, everything
 * inlined, hooks still calls) into region loops; groups[k] is its access group.
 * Sets scratch_fixed and scratch_per_item of those kernels.
 */
enum kiln_cc_status kiln_cc_regions_build(struct kiln_cc_build *b, const bool *flat,
                                          LLVMMetadataRef const *groups);

/* Frees what kernel_info.c allocated in p->kernels. */
void kiln_cc_kernels_free(struct kiln_cc_program *p);

/* Embedded data (embedded.S). */
extern const char kiln_cc_kernel_lib_start[], kiln_cc_kernel_lib_end[];
extern const char kiln_cc_opencl_base_h_start[], kiln_cc_opencl_base_h_end[];

#endif
