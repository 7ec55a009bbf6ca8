/*
 * What every LLVM stage of the kernel compiler (libkiln-cc-llvm.so) shares: the state a
 * build hands from stage to stage, and the IR helpers more than one stage uses. It lies
 * below every stage (docs/compiler.md) and declares nothing of theirs; each stage's
 * own header says what later stages and the drivers may call.
 */
#ifndef KILN_COMPILER_UTIL_CC_UTIL_H
#define KILN_COMPILER_UTIL_CC_UTIL_H

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
/* A fact about the host CPU the library asks (link_library.c defines it per build). */
#define KILN_CC_HOOK_HALF_ARITH "__kiln_host_half_arith"
/* Clang's calling convention number for spir_kernel functions. */
#define KILN_CC_SPIR_KERNEL_CC 76

/* User build options, translated (1-frontend/options.c). */
struct kiln_cc_options {
    char **cc1_args; /* malloc()ed strings for cc1, in order */
    size_t num_cc1_args;
    bool opt_disable;    /* -cl-opt-disable: no IR optimisation, fast code generation */
    bool uniform_wg;     /* -cl-uniform-work-group-size */
    unsigned cl_version; /* -cl-std as 100 to 300 (120 without it) */
    /*
     * Not from the options string: backend.c copies build()'s struct kiln_cc_variant here.
     * Build that one kernel for launches whose groups are all exactly variant_local, and with
     * a zero global offset when variant_zero_offset, and whose image arguments
     * variant_images[0 .. variant_num_images) have those formats. variant_kernel is the
     * caller's string, NULL for an ordinary build.
     */
    const char *variant_kernel;
    size_t variant_local[3];
    bool variant_zero_offset;
    unsigned variant_num_images;
    struct kiln_cc_variant_image variant_images[KILN_CC_VARIANT_IMAGES];
};

/* Link options (OpenCL 3.0 API §5.8.7), parsed by 1-frontend/options.c. */
struct kiln_cc_link_options {
    bool create_library;      /* -create-library */
    bool enable_link_options; /* -enable-link-options (only with -create-library) */
    bool no_signed_zeros;     /* -cl-no-signed-zeros, implied by the two below */
    bool unsafe_math;         /* -cl-unsafe-math-optimizations, implied by fast-relaxed */
    bool finite_math;         /* -cl-finite-math-only, implied by fast-relaxed */
};

/* Host facts computed once by the back end's driver (backend.c). */
struct kiln_cc_host {
    char *cpu;       /* LLVMGetHostCPUName */
    char *features;  /* LLVMGetHostCPUFeatures */
    bool avx512;     /* features enable avx512f */
    bool avx512fp16; /* features enable avx512fp16: LLVM computes half in half lanes */
    LLVMTargetRef target;
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
     * The region transform refused a kernel (3-workgroup/wg_transform.c): the build is then
     * made again with force_fibers, which puts every barrier kernel on fibers.
     */
    bool regions_refused;
    bool force_fibers;
};

/* Embedded data (embedded.S): the kernel library's bitcode and Clang's opencl-c-base.h. */
extern const char kiln_cc_kernel_lib_start[], kiln_cc_kernel_lib_end[];
extern const char kiln_cc_opencl_base_h_start[], kiln_cc_opencl_base_h_end[];

/* ---- ptr_map.c: a set of pointers, or a map from pointers to pointers ---- */

/* Open addressing; {0} is an empty map. Its slots (keys[i] non-NULL) may be walked. */
struct kiln_cc_ptr_map {
    const void **keys;
    void **vals;
    size_t cap, len;
};

/* Whether p is in the map. */
bool kiln_cc_ptr_map_has(const struct kiln_cc_ptr_map *m, const void *p);
/* The value stored for p, or NULL. */
void *kiln_cc_ptr_map_get(const struct kiln_cc_ptr_map *m, const void *p);
/* Adds p (with value v, replacing any); false when out of memory. */
bool kiln_cc_ptr_map_put(struct kiln_cc_ptr_map *m, const void *p, void *v);
/* Adds p with value NULL unless present; false when out of memory. */
bool kiln_cc_ptr_map_add(struct kiln_cc_ptr_map *m, const void *p);
/* Removes p if present. */
void kiln_cc_ptr_map_remove(struct kiln_cc_ptr_map *m, const void *p);
/* Frees the slots; the map is empty again. */
void kiln_cc_ptr_map_free(struct kiln_cc_ptr_map *m);

/* ---- counted_loop.c ---- */

/*
 * A loop that counts x from 0 by 1 while x + 1 is below the constant bound (the shape is
 * at the top of counted_loop.c).
 */
struct kiln_cc_counted_loop {
    LLVMBasicBlockRef pre, header, latch, exit;
    LLVMValueRef x, next, test, br; /* the counter, x + 1, its test and the latch's branch */
    uint64_t bound;
};
/* Matches the loop whose back edge ends `latch`. */
bool kiln_cc_counted_loop(LLVMBasicBlockRef latch, struct kiln_cc_counted_loop *c);
/* Most edges of an exit phi kiln_cc_exit_phis_from() rebuilds; callers check before. */
#define KILN_CC_EXIT_MAX_INCOMING 16
/*
 * After a rewrite that leaves counted loop c by way of block `from` instead of its latch: each
 * phi of c's exit (at most KILN_CC_EXIT_MAX_INCOMING edges) rebuilt with `from` for the latch
 * (the C API cannot change a phi's incoming block).
 */
void kiln_cc_exit_phis_from(const struct kiln_cc_counted_loop *c, LLVMBasicBlockRef from);
/* A constant integer of at most 64 bits, zero-extended. */
bool kiln_cc_const_u64(LLVMValueRef v, uint64_t *out);

/* ---- ir.c: questions about instructions and loop metadata ---- */

/*
 * Whether `op` computes its result from its operands alone, with no memory access, control
 * flow or other effect: integer and floating-point arithmetic, bitwise operations,
 * comparisons, conversions and casts, select and address arithmetic.
 */
bool kiln_cc_plain_opcode(LLVMOpcode op);
/* The function a call instruction calls directly, or NULL. */
LLVMValueRef kiln_cc_called_function(LLVMValueRef in);
/* Whether `call` calls an intrinsic that neither reads nor writes memory (a rotate, a min). */
bool kiln_cc_pure_intrinsic(LLVMValueRef call);
/* Replaces each operand of `in` that `map` holds (a struct kiln_cc_ptr_map) by its value there. */
void kiln_cc_remap_operands(LLVMValueRef in, const struct kiln_cc_ptr_map *map);
/* Whether metadata value v is the string s. */
bool kiln_cc_md_string_is(LLVMValueRef v, const char *s);
/*
 * The operands of a metadata node as values (NULL where the operand is null);
 * malloc()ed, *n set; NULL when out of memory.
 */
LLVMValueRef *kiln_cc_md_operands(LLVMValueRef node, unsigned *n);
/* The entry of loop id `id` named `name` (llvm.loop.parallel_accesses...), or NULL. */
LLVMValueRef kiln_cc_loop_entry(LLVMValueRef id, const char *name);
/* !{self, !{"llvm.loop.parallel_accesses", group}}, a new distinct loop id. */
LLVMMetadataRef kiln_cc_parallel_loop_id(LLVMContextRef ctx, LLVMMetadataRef group);
/*
 * Gives the loop of `br` a new id (or its first): its entries but those named in `drop`, plus
 * `extra`.
 * False when out of memory.
 */
bool kiln_cc_loop_id_replace(LLVMContextRef ctx, LLVMValueRef br, const char *const *drop,
                             size_t ndrop, const LLVMMetadataRef *extra, size_t nextra);

/* ---- wg_ctx.c: the work-group context and the memory the work-items share ---- */

/* Whether address space `as` is the group's or the launch's memory: global, constant or
 * local (not private, not generic). */
bool kiln_cc_shared_space(unsigned as);
/*
 * Loads and stores of `fn` through a generic pointer cast from a global, constant or local
 * one (with address arithmetic between) use the named pointer instead, so that they count
 * as shared-memory accesses of the work-item loops.
 */
void kiln_cc_named_spaces(LLVMContextRef ctx, LLVMValueRef fn);
/* Loads the field at byte `offset` of the kiln_wg_ctx `base` points to. */
LLVMValueRef kiln_cc_ctx_field(LLVMBuilderRef bld, LLVMContextRef ctx, LLVMValueRef base,
                               size_t offset, LLVMTypeRef type, const char *name);
/* Whether this build is a local-size variant (struct kiln_cc_variant) of kernel k. */
bool kiln_cc_is_variant(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k);
/*
 * The local size in dimension d when it is known at compile time, else 0. It is when the
 * program makes every work-group full (-cl-uniform-work-group-size, OpenCL C 1.x) and the
 * kernel has reqd_work_group_size: the runtime launches it with that size only; and in a
 * local-size variant's build (struct kiln_cc_variant) for its kernel, which the runtime uses for
 * full groups of that size only. Then the work-item loops get constant trip counts.
 */
size_t kiln_cc_fixed_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                int d);
/* ctx->local_size[d] loaded at the builder, or the constant kiln_cc_fixed_local_size gives. */
LLVMValueRef kiln_cc_local_size(const struct kiln_cc_build *b, const struct kiln_cc_kernel *k,
                                LLVMBuilderRef bld, LLVMValueRef wg_ctx, int d);

/* ---- passes.c: running LLVM pass pipelines ---- */

/*
 * Runs a pass pipeline on the module (verifying after each pass in debug builds with
 * KILN_VERIFY_EACH=1); a failure is logged as "optimisation failed" and is KILN_CC_INTERNAL.
 */
enum kiln_cc_status kiln_cc_run_passes(struct kiln_cc_build *b, const char *passes);
/*
 * The same on fns[i] with chosen[i] (every fns[i] when chosen is NULL) only: the other
 * defined functions are optnone and noinline meanwhile, and get back what they had.
 */
enum kiln_cc_status kiln_cc_run_on(struct kiln_cc_build *b, const LLVMValueRef *fns,
                                   const bool *chosen, unsigned n, const char *passes);

#endif
