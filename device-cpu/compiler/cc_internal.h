/*
 * Internals shared by the LLVM stages of the kernel compiler (libkiln-cc-llvm.so);
 * never leaves this folder.
 *
 * A build runs the stages in this order, each in its own file, each handing the
 * module on through struct kiln_cc_build:
 *
 *   options.c       user build options -> cc1 arguments
 *   frontend.c      + frontend_shim.cpp: OpenCL C -> LLVM module
 *   kernel_info.c   kernel argument metadata -> struct kiln_cc_kernel
 *   copy_ahead.c    a copy into local memory also prefetches a later copy out's lines
 *   link_library.c  link the embedded kernel library
 *   lower_printf.c  printf calls -> records in the command's printf buffer
 *   wg_wrapper.c    one work-group function per kernel, everything inlined
 *                   (wg_regions.c: the region transform for kernels with barriers;
 *                   wg_fibers.c: the same on per-work-item fibers)
 *   lower_local.c   kernel-scope __local variables -> offsets in the arena
 *   check_support.c refuse what this compiler cannot run correctly
 *   optimize.c      host CPU attributes, default<O3>
 *   codegen.c       object (and optionally assembly) in memory
 *   (container)     object and kernel descriptions into the program's container
 *
 * backend.c drives them: it is libkiln-cc-llvm.so's table (cc_common.h). The
 * container it ends with is loaded by libkiln-cc.so (elf_load.c), which also asks
 * the kernel cache before it calls the back end at all.
 */
#ifndef KILN_COMPILER_CC_INTERNAL_H
#define KILN_COMPILER_CC_INTERNAL_H

#include "cc_common.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Name prefix of the work-group functions; the dot keeps them apart from C names. */
#define KILN_CC_WG_PREFIX "kiln.wg."
/* Name prefix of the per-work-item functions of the fiber strategy. */
#define KILN_CC_WI_PREFIX "kiln.wi."
/* The hooks the kernel library calls (kernel-lib/include/kiln_lib.h). */
#define KILN_CC_HOOK_CTX      "__kiln_ctx"
#define KILN_CC_HOOK_LOCAL_ID "__kiln_local_id"
#define KILN_CC_HOOK_LEADER   "__kiln_group_leader"
/* Clang's calling convention number for spir_kernel functions. */
#define KILN_CC_SPIR_KERNEL_CC 76

/* User build options, translated. */
struct kiln_cc_options {
    char **cc1_args; /* malloc()ed strings for cc1, in order */
    size_t num_cc1_args;
    bool opt_disable; /* -cl-opt-disable: no IR optimisation, fast code generation */
    bool uniform_wg;  /* -cl-uniform-work-group-size */
    /*
     * Not from the options string: backend.c copies build()'s struct kiln_cc_variant here.
     * Build that one kernel for launches whose groups are all exactly variant_local, and with
     * a zero global offset when variant_zero_offset. variant_kernel is the caller's string,
     * NULL for an ordinary build.
     */
    const char *variant_kernel;
    size_t variant_local[3];
    bool variant_zero_offset;
};

enum kiln_cc_status kiln_cc_options_parse(const char *options, struct kiln_cc_options *out,
                                          struct kiln_cc_log *log);
void kiln_cc_options_fini(struct kiln_cc_options *opts);

/* Link options (OpenCL 3.0 API §5.8.7), parsed by options.c. */
struct kiln_cc_link_options {
    bool create_library;      /* -create-library */
    bool enable_link_options; /* -enable-link-options (only with -create-library) */
    bool no_signed_zeros;     /* -cl-no-signed-zeros, implied by the two below */
    bool unsafe_math;         /* -cl-unsafe-math-optimizations, implied by fast-relaxed */
    bool finite_math;         /* -cl-finite-math-only, implied by fast-relaxed */
};

enum kiln_cc_status kiln_cc_link_options_parse(const char *options,
                                               struct kiln_cc_link_options *out,
                                               struct kiln_cc_log *log);

/* Host facts computed once by kiln_cc_init(). */
struct kiln_cc_host {
    char *cpu;      /* LLVMGetHostCPUName */
    char *features; /* LLVMGetHostCPUFeatures */
    bool avx512;    /* features enable avx512f */
    LLVMTargetRef target;
};

/* Initialises LLVM's native target once; returns NULL if that failed. */
const struct kiln_cc_host *kiln_cc_init(void);

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
    /*
     * prog->num_kernels entries, after wg_wrapper.c: the function each kernel's code
     * was inlined into, the wrapper itself or, on fibers, its per-work-item function.
     * Parameter 1 of either is the struct kiln_wg_ctx pointer.
     */
    LLVMValueRef *bodies;
    LLVMTargetMachineRef tm;
    const struct kiln_cc_header *headers; /* compile(): in-memory headers for #include */
    unsigned num_headers;
    unsigned id;          /* numbers this build's IR dumps */
    const char *dump_dir; /* KILN_DUMP_IR, or NULL */
    /*
     * The region transform refused a kernel (wg_regions.c): the build is then made again
     * with force_fibers, which puts every barrier kernel on fibers.
     */
    bool regions_refused;
    bool force_fibers;
};

enum kiln_cc_status kiln_cc_frontend_run(struct kiln_cc_build *b, const char *source);
enum kiln_cc_status kiln_cc_kernels_read(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_copy_ahead(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_link_library(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_guard_divisions(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_lower_printf(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_wrappers_build(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_lower_local(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_check_support(struct kiln_cc_build *b);
enum kiln_cc_status kiln_cc_optimize(struct kiln_cc_build *b);
/* default<O3>, with work-item loops that contain loops vectorised (outer_vec.c). */
enum kiln_cc_status kiln_cc_optimize_o3(struct kiln_cc_build *b);
/* On KILN_CC_OK *object is the emitted ELF object, owned by the caller. */
enum kiln_cc_status kiln_cc_codegen(struct kiln_cc_build *b, LLVMMemoryBufferRef *object);

/*
 * The fiber strategy, called by wg_wrapper.c for kernels with barriers when
 * KILN_BARRIER_STRATEGY is "fibers". wrap builds the kernel's
 * work-group function around its per-work-item function `item`, of type
 * void(ptr args, ptr ctx, ptr group, i64 x, i64 y, i64 z); finish, once the
 * kernel is inlined into `item`, turns its barriers into switches and sets the
 * kernel's scratch and private-memory figures.
 */
enum kiln_cc_status kiln_cc_fibers_wrap(struct kiln_cc_build *b, unsigned k, LLVMValueRef item);
enum kiln_cc_status kiln_cc_fibers_finish(struct kiln_cc_build *b, unsigned k, LLVMValueRef item);

/* The source-level name of a possibly Itanium-mangled function name (check_support.c). */
void kiln_cc_base_name(const char *name, char *buf, size_t size);

/* wg_wrapper.c: whether address space `as` is the group's or the launch's memory: global,
 * constant or local (not private, not generic). */
bool kiln_cc_shared_space(unsigned as);
/* wg_wrapper.c: loads the field at byte `offset` of the kiln_wg_ctx `base` points to. */
LLVMValueRef kiln_cc_ctx_field(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef base,
                               size_t offset, LLVMTypeRef type, const char *name);
/*
 * wg_wrapper.c: the local size in dimension d when it is known at compile time, else 0. It
 * is when the program makes every work-group full (-cl-uniform-work-group-size, OpenCL C
 * 1.x) and the kernel has reqd_work_group_size: the runtime launches it with that size
 * only; and in a local-size variant's build (-kiln-variant) for its kernel, which the
 * runtime uses for full groups of that size only. Then the work-item loops get constant
 * trip counts.
 */
size_t kiln_cc_fixed_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                int d);
/* ctx->local_size[d] loaded at the builder, or the constant kiln_cc_fixed_local_size gives. */
LLVMValueRef kiln_cc_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                LLVMBuilderRef bld, LLVMValueRef wg_ctx, int d);

/*
 * narrow_loops.c: stops each loop of `fn` whose body is guarded by `x < v` (x its
 * induction variable from 0, v computed before it) at min(n, v); returns how many.
 */
unsigned kiln_cc_narrow_loops(LLVMContextRef ctx, LLVMValueRef fn);
/*
 * counted_loop.c: a loop that counts x from 0 by 1 while x + 1 is below the constant bound
 * (the shape is at the top of counted_loop.c).
 */
struct kiln_cc_counted_loop {
    LLVMBasicBlockRef pre, header, latch, exit;
    LLVMValueRef x, next, test, br; /* the counter, x + 1, its test and the latch's branch */
    uint64_t bound;
};
/* Matches the loop whose back edge ends `latch`. */
bool kiln_cc_counted_loop(LLVMBasicBlockRef latch, struct kiln_cc_counted_loop *c);
/* A constant integer of at most 64 bits, zero-extended. */
bool kiln_cc_const_u64(LLVMValueRef v, uint64_t *out);
/* outer_vec.c: the entry of loop id `id` named `name` (llvm.loop.parallel_accesses...), or NULL. */
LLVMValueRef kiln_cc_loop_entry(LLVMValueRef id, const char *name);
/* strided_loops.c: loops from a work-item's index get a constant trip count; how many. */
unsigned kiln_cc_count_strided_loops(LLVMContextRef ctx, LLVMValueRef fn);
/* wrap_split.c: work-item loops cut where an index (x + c) & (2^k - 1) wraps; how many. */
unsigned kiln_cc_split_wrapping_loops(LLVMContextRef ctx, LLVMValueRef fn);

/*
 * optimize.c: runs a pass pipeline on the module (verifying after each pass in debug
 * builds); a failure is logged as "optimisation failed" and is KILN_CC_INTERNAL.
 */
enum kiln_cc_status kiln_cc_run_passes(struct kiln_cc_build *b, const char *passes);
/*
 * optimize.c: the same on fns[i] with chosen[i] (every fns[i] when chosen is NULL) only:
 * the other defined functions are optnone and noinline meanwhile, and get back what they had.
 */
enum kiln_cc_status kiln_cc_run_on(struct kiln_cc_build *b, const LLVMValueRef *fns,
                                   const bool *chosen, unsigned n, const char *passes);

/* !{self, !{"llvm.loop.parallel_accesses", group}}, a new distinct loop id (wg_wrapper.c). */
LLVMMetadataRef kiln_cc_parallel_loop_id(LLVMContextRef ctx, LLVMMetadataRef group);

/*
 * wg_wrapper.c: loads and stores of `fn` through a generic pointer cast from a global,
 * constant or local one (with address arithmetic between) use the named pointer instead,
 * so that they count as shared-memory accesses of the work-item loops.
 */
void kiln_cc_named_spaces(LLVMContextRef ctx, LLVMValueRef fn);

/*
 * wg_regions.c: whether `op` computes its result from its operands alone, with no memory
 * access, control flow or other effect: integer and floating-point arithmetic, bitwise
 * operations, comparisons, conversions and casts, select and address arithmetic.
 */
bool kiln_cc_plain_opcode(LLVMOpcode op);
/* wg_regions.c: is `callee` barrier() or work_group_barrier(), any overload? */
bool kiln_cc_is_barrier(LLVMValueRef callee);
/* Sets uses_barrier[k] for each kernel that can reach a barrier call. */
enum kiln_cc_status kiln_cc_barrier_kernels(struct kiln_cc_build *b, bool *uses_barrier);
/* KILN_BARRIER_STRATEGY: *fibers for "fibers", false for the region transform
 * (unset, empty or "regions"); any other value logs why and fails the build. */
enum kiln_cc_status kiln_cc_barrier_strategy(struct kiln_cc_build *b, const char *kernel,
                                             bool *fibers);
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
