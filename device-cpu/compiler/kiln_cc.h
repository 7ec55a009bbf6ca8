/*
 * Interface of the kernel compiler library (libkiln-cc.so).
 *
 * The runtime never links LLVM: it dlopen()s libkiln-cc.so on the first program
 * build and calls kiln_cc_interface() (the only symbol it looks up) to get the
 * function table below. Nothing here uses OpenCL API types; kernel argument
 * information comes back as the raw strings and numbers Clang's metadata carries.
 *
 * Thread safety: every function may be called from several threads at once on
 * different programs; a built program is immutable and may be shared.
 */
#ifndef KILN_COMPILER_KILN_CC_H
#define KILN_COMPILER_KILN_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln_abi.h" /* kiln_wg_fn, the compiled work-group function */

enum kiln_cc_status {
    KILN_CC_OK = 0,
    KILN_CC_BUILD_FAILED,    /* the source did not compile; the log says why */
    KILN_CC_INVALID_OPTIONS, /* the options string was rejected; the log says why */
    KILN_CC_OUT_OF_MEMORY,
    KILN_CC_INTERNAL,       /* a compiler stage failed on valid input; the log says why */
    KILN_CC_INVALID_BINARY, /* load_binary: not a binary this library can load; the log says why */
};

/* Address spaces as Clang numbers them with -ffake-address-space-map. */
enum kiln_cc_addr_space {
    KILN_CC_AS_PRIVATE = 0,
    KILN_CC_AS_GLOBAL = 1,
    KILN_CC_AS_CONSTANT = 2,
    KILN_CC_AS_LOCAL = 3,
    KILN_CC_AS_GENERIC = 4,
};

enum kiln_cc_arg_kind {
    KILN_CC_ARG_GLOBAL_PTR,   /* __global T *: host passes a cl_mem */
    KILN_CC_ARG_CONSTANT_PTR, /* __constant T *: host passes a cl_mem */
    KILN_CC_ARG_LOCAL_PTR,    /* __local T *: host passes a size and NULL */
    KILN_CC_ARG_VALUE,        /* by value: host passes exactly `size` bytes */
    KILN_CC_ARG_UNSUPPORTED,  /* a kind no runtime can pass (never in a built program) */
    KILN_CC_ARG_PIPE,         /* pipe T: host passes a cl_mem made by clCreatePipe */
    /* queue_t: host passes a device queue (cl_command_queue); the kernel gets a pointer the
     * runtime chooses (docs/runtime.md, "Device queues"). */
    KILN_CC_ARG_QUEUE,
    /* image2d_t and every image type: host passes an image's cl_mem; the kernel gets its
     * struct kiln_image (include/kiln_image.h). access_qual says read_only, write_only or
     * read_write. */
    KILN_CC_ARG_IMAGE,
    /* sampler_t: host passes a cl_sampler; the kernel gets its bits as the pointer value
     * (kiln_image.h). The last kind (container.c). */
    KILN_CC_ARG_SAMPLER,
};

/* CL_DEVICE_MAX_PIPE_ARGS: a kernel with more pipe arguments fails to build. */
#define KILN_CC_MAX_PIPE_ARGS 16

struct kiln_cc_arg {
    enum kiln_cc_arg_kind kind;
    uint32_t size;           /* bytes clSetKernelArg must be given (8 for pointers) */
    uint32_t align;          /* alignment of the value's type */
    uint32_t addr_space;     /* kernel_arg_addr_space, enum kiln_cc_addr_space */
    const char *name;        /* kernel_arg_name, always recorded (see options.c) */
    const char *type_name;   /* kernel_arg_type, e.g. "float*" */
    const char *access_qual; /* kernel_arg_access_qual: "none", "read_only", ... */
    const char *type_qual;   /* kernel_arg_type_qual: "", "const", "restrict volatile" ... */
};

struct kiln_cc_kernel {
    const char *name;
    unsigned num_args;
    const struct kiln_cc_arg *args;
    size_t reqd_work_group_size[3]; /* all zero when not given */
    size_t work_group_size_hint[3]; /* all zero when not given */
    const char *attributes;         /* CL_KERNEL_ATTRIBUTES text, "" when none */
    kiln_wg_fn wg;                  /* the work-group function, never NULL */
    /* Bytes of kernel-scope __local variables, at the start of the arena. */
    size_t local_mem_static;
    /* Scratch the work-group function needs: fixed + per_item * work-items in the group. */
    size_t scratch_fixed;
    size_t scratch_per_item;
    /* CL_KERNEL_PRIVATE_MEM_SIZE: private bytes one work-item uses, as far as known. */
    size_t private_mem;
    /* Non-zero when the kernel can reach printf: its commands need a printf buffer. */
    unsigned uses_printf;
    /* Non-zero when the program uses device-side enqueue: its groups need ctx->enqueue. */
    unsigned enqueues;
    /*
     * Non-zero for a block's kernel (enqueue_kernel): launched by the device only, never
     * named to the application. The table holds them after every other kernel.
     */
    unsigned block;
    /*
     * Non-zero when some load from global memory walks through data in a loop with no part
     * of its address from the group's row (5-optimize/column_reuse.c): groups of one column
     * read the same data, and the device runs groups in column bands.
     */
    unsigned column_reuse;
};

struct kiln_cc_program;

/* What a program holds (clGetProgramBuildInfo's CL_PROGRAM_BINARY_TYPE). */
enum kiln_cc_kind {
    KILN_CC_EXECUTABLE = 0, /* loaded code and kernels: from build(), link() or a binary */
    KILN_CC_OBJECT,         /* compile(): the front end's bitcode, for link() */
    KILN_CC_LIBRARY,        /* link() with -create-library: linked bitcode, for link() */
};

/* Facts about a program that outlive its options string (kind()'s *flags). */
#define KILN_CC_FLAG_UNIFORM_WG   1u /* some part was compiled with -cl-uniform-work-group-size */
#define KILN_CC_FLAG_OPT_DISABLE  2u /* some part was compiled with -cl-opt-disable */
#define KILN_CC_FLAG_LINK_OPTIONS 4u /* a library made with -enable-link-options */

/* An in-memory header for compile(): `#include "name"` reads `text`. */
struct kiln_cc_header {
    const char *name;
    const char *text;
};

/*
 * The format of one image argument a variant is built for: the argument's index and the
 * fields of its struct kiln_image (kiln_image.h) that follow from the format. elem_size
 * and num_channels are functions of (order, data_type); the runtime passes them so that
 * the compiler needs no table of formats.
 */
struct kiln_cc_variant_image {
    uint32_t arg;
    uint32_t order;     /* CL_RGBA ... */
    uint32_t data_type; /* CL_UNORM_INT8 ... */
    uint32_t elem_size; /* bytes per pixel, 1 to 16 */
    uint32_t num_channels;
};
/* Image arguments a variant can be specialised on; a kernel with more has no image variant. */
#define KILN_CC_VARIANT_IMAGES 8

/*
 * A local-size variant (docs/compiler.md, "Local-size variants"): `kernel` alone, built for
 * launches whose groups all have exactly `local` work-items (each 1 to KILN_CC_VARIANT_MAX)
 * and, when `zero_offset`, a zero global offset; and, for each of its first `num_images`
 * entries of `images`, whose image argument has that format (distinct arguments, each an
 * image argument of the kernel).
 */
struct kiln_cc_variant {
    const char *kernel;
    size_t local[3];
    bool zero_offset;
    unsigned num_images;
    struct kiln_cc_variant_image images[KILN_CC_VARIANT_IMAGES];
};
#define KILN_CC_VARIANT_MAX 65536

struct kiln_cc_interface {
    unsigned abi_version; /* KILN_CC_ABI_VERSION */
    /*
     * Compile `source` (NUL-terminated OpenCL C) with the OpenCL build `options`
     * (may be NULL) into a loaded program. On return *log is a malloc()ed,
     * NUL-terminated build log (possibly empty, never NULL unless out of memory)
     * that the caller frees; *out is set only on KILN_CC_OK.
     */
    enum kiln_cc_status (*build)(const char *source, const char *options,
                                 struct kiln_cc_program **out, char **log);
    /* The kernels the application sees (the block kernels follow them in the table). */
    unsigned (*num_kernels)(const struct kiln_cc_program *p);
    /*
     * Kernel i in source order, for i below table_size(): the application's kernels, then
     * the block kernels of enqueue_kernel. Valid until the program is destroyed.
     */
    const struct kiln_cc_kernel *(*kernel)(const struct kiln_cc_program *p, unsigned i);
    unsigned (*table_size)(const struct kiln_cc_program *p);
    void (*destroy)(struct kiln_cc_program *p);
    /*
     * For tests: the assembly text the code generator emitted for the program,
     * malloc()ed, caller frees; NULL if not kept.
     */
    char *(*assembly)(const struct kiln_cc_program *p);
    /*
     * The program as a Kiln binary (the kernel cache's container: docs/compiler.md),
     * valid until the program is destroyed; *size is set to its length.
     */
    const unsigned char *(*binary)(const struct kiln_cc_program *p, size_t *size);
    /*
     * Loads what binary() returned, possibly in another process. Answers
     * KILN_CC_INVALID_BINARY, with the reason in the log, for anything that is not
     * an intact Kiln binary made for this CPU by this build of the library.
     * *log and *out as for build(); *log holds the original build's log on success.
     */
    enum kiln_cc_status (*load_binary)(const unsigned char *data, size_t size,
                                       struct kiln_cc_program **out, char **log);
    /* Non-zero when build() found the program in the kernel cache (for tests). */
    int (*from_cache)(const struct kiln_cc_program *p);
    /*
     * clCompileProgram: runs the front end only (options as for build(), headers
     * visible to #include) and keeps its module as bitcode in a KILN_CC_OBJECT
     * program, whose binary() is a container of that bitcode. *log and *out as for
     * build(). The kernel cache is not used.
     */
    enum kiln_cc_status (*compile)(const char *source, const char *options,
                                   const struct kiln_cc_header *headers, unsigned num_headers,
                                   struct kiln_cc_program **out, char **log);
    /*
     * clLinkProgram: links the bitcode of `inputs` (each KILN_CC_OBJECT or
     * KILN_CC_LIBRARY) under the link `options`: with -create-library into a
     * KILN_CC_LIBRARY, otherwise through every stage after the front end into an
     * executable. KILN_CC_INVALID_OPTIONS for options the linker refuses,
     * KILN_CC_BUILD_FAILED (the log names the function) for an undefined or
     * duplicate definition. The kernel cache is not used.
     */
    enum kiln_cc_status (*link)(const struct kiln_cc_program *const *inputs, unsigned num_inputs,
                                const char *options, struct kiln_cc_program **out, char **log);
    /* The program's kind; *flags (may be NULL) gets its KILN_CC_FLAG_* bits. */
    enum kiln_cc_kind (*kind)(const struct kiln_cc_program *p, unsigned *flags);
    /*
     * build() of `variant`: the program holds that one kernel alone. The kernel cache keys
     * it apart from the ordinary build and from every other variant. KILN_CC_INVALID_OPTIONS
     * for a malformed variant (no kernel name, a size of 0 or above KILN_CC_VARIANT_MAX, more
     * than KILN_CC_VARIANT_IMAGES images, an image format out of range),
     * KILN_CC_BUILD_FAILED when the source has no such kernel, the kernel cannot have a
     * variant or an image entry names an argument that is not an image; the log says why.
     */
    enum kiln_cc_status (*build_variant)(const char *source, const char *options,
                                         const struct kiln_cc_variant *variant,
                                         struct kiln_cc_program **out, char **log);
    /*
     * CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: bytes of the program-scope variables of
     * an executable (0 for other kinds), however it was made (built, linked, cached or
     * loaded from a binary).
     */
    size_t (*variable_bytes)(const struct kiln_cc_program *p);
    /*
     * The OpenCL C the device reports, which is exactly what user kernels see
     * (docs/compiler.md, "What a kernel sees"): `extensions` as CL_DEVICE_EXTENSIONS, and the
     * names of CL_DEVICE_OPENCL_C_FEATURES in `features`, each space-separated. Both are
     * copied. Call it once, before the first build(), compile() or link(); without it user
     * kernels see the kernel library's own language. KILN_CC_OUT_OF_MEMORY, or
     * KILN_CC_INVALID_OPTIONS when called a second time.
     */
    enum kiln_cc_status (*set_language)(const char *extensions, const char *features);
    /*
     * What this library's binaries are made for: the target, the CPU (its CPUID words) and the
     * builds of this library and its back end. load_binary() takes only binaries made for the
     * same, so the runtime folds it into CL_DRIVER_VERSION, which programs key their caches of
     * binaries on. NULL when it cannot be computed.
     */
    const char *(*target)(void);
    /*
     * Opens the back end (libkiln-cc-llvm.so, and with it LLVM and Clang) now if no build has
     * yet, and, unless an optimised build in this process has already run every stage, builds a
     * small program through them all (not cached, thrown away): LLVM and Clang set some tables
     * up on first use and register their exit-time destructors then. False when the back end cannot
     * be opened. A thread that is about to compile in the background calls it and then
     * registers an exit handler that waits for its builds: that handler then runs before the
     * destructors of what a build sets up (runtime/variant.c).
     */
    bool (*prime_backend)(void);
    /*
     * Whether the kernel cache holds an entry for build_variant (or build, `variant` NULL) of
     * this source and these options now: a build that would not compile. The entry is read, not
     * checked; it may be gone, or be found invalid, by the time the build looks.
     */
    bool (*cached)(const char *source, const char *options, const struct kiln_cc_variant *variant);
};

#define KILN_CC_ABI_VERSION 18

/*
 * CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: a program with a larger program-scope variable fails to
 * build. CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE is the same figure: beyond it the
 * variables still work, but each copy of the program holds them all.
 */
#define KILN_CC_MAX_VARIABLE_SIZE ((size_t)16 << 20)

/* The one exported symbol of libkiln-cc.so. */
typedef const struct kiln_cc_interface *(*kiln_cc_interface_fn)(void);
#define KILN_CC_INTERFACE_SYMBOL "kiln_cc_interface"

#endif
