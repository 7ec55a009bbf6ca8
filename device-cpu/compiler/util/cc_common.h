/*
 * What the two halves of the kernel compiler share; never leaves device-cpu/compiler/.
 *
 * libkiln-cc.so, the library the runtime opens, links no LLVM: it holds the
 * interface table (compiler.c), the kernel cache (cache.c), the program container
 * (container.c), the object loader (elf_load.c) and the fiber runtime the loaded
 * code calls (fiber_rt.c). A program found in the cache or given as a binary is
 * loaded by these alone, in about a millisecond.
 *
 * libkiln-cc-llvm.so holds every stage that needs Clang or LLVM (one folder each,
 * backend.c drives them; cc_util.h is what they share). libkiln-cc.so opens it on
 * the first build that has to compile, and gets its table (struct kiln_cc_backend
 * below): a build, compile or link there ends in a container, kept as the program's
 * binary and for the cache, and libkiln-cc.so loads an executable's object from it
 * into the same program without reading the container back (its kernel descriptions
 * are already there).
 * log.c, hash.c, program.c (util/) and container.c (7-binary/) are compiled into both.
 */
#ifndef KILN_COMPILER_CC_COMMON_H
#define KILN_COMPILER_CC_COMMON_H

#include "hash.h"
#include "kiln_cc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The fiber strategy (wg_fibers.c, fiber_rt.c). Each work-item of a group runs on
 * its own KILN_FIBER_STACK-byte stack in the worker's scratch area, after a group
 * record of KILN_FIBER_FIXED bytes. A kernel may keep at most
 * KILN_FIBER_PRIVATE_MAX bytes in private variables; the rest of the stack is for
 * spills, calls into libm and the switch itself.
 */
#define KILN_FIBER_STACK       32768
#define KILN_FIBER_FIXED       128
#define KILN_FIBER_PRIVATE_MAX 16384
/* Runtime entry points the loader binds by name (fiber_rt.c). */
#define KILN_CC_FIBER_RUN     "kiln.fiber.run"
#define KILN_CC_FIBER_BARRIER "kiln.fiber.barrier"

struct kiln_cc_runtime_symbol {
    const char *name;
    void (*address)(void);
};
#define KILN_CC_NUM_RUNTIME_SYMBOLS 2
extern const struct kiln_cc_runtime_symbol kiln_cc_runtime_symbols[KILN_CC_NUM_RUNTIME_SYMBOLS];

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

/* Memory holding a loaded object (elf_load.c). */
struct kiln_cc_code {
    void *base;
    size_t size;
    /* Bytes of the program-scope variables the object defines (writable data symbols). */
    size_t variable_bytes;
};
/* Only libkiln-cc.so loads code, and frees it (kiln_cc_elf_unload) before the program. */

struct kiln_cc_program {
    struct kiln_cc_code code; /* executables of libkiln-cc.so: every wg function */
    unsigned num_kernels;
    struct kiln_cc_kernel *kernels;
    char *assembly;  /* NULL unless KILN_KEEP_ASM=1 */
    uint8_t *binary; /* the program as a container (container.c), malloc()ed */
    size_t binary_size;
    bool from_cache; /* build() found it in the kernel cache */
    enum kiln_cc_kind kind;
    unsigned flags; /* KILN_CC_FLAG_* */
    /* KILN_CC_OBJECT and KILN_CC_LIBRARY: the module as bitcode, malloc()ed; no code. */
    uint8_t *bitcode;
    size_t bitcode_size;
    /*
     * An executable the back end made, until libkiln-cc.so loads it: its object is the last
     * object_size bytes of binary, and wg_names[k] (malloc()ed, like the array) is kernel
     * k's work-group function in it. NULL in every other program.
     */
    size_t object_size;
    char **wg_names;
};

/* Frees everything p holds but its code (see struct kiln_cc_code), and p. */
void kiln_cc_program_free(struct kiln_cc_program *p);
/*
 * Hands p (on success) and the log to the caller as the interface promises (kiln_cc.h):
 * a lost log line or a log that cannot be handed over turns success into
 * KILN_CC_OUT_OF_MEMORY, and on failure p (may be NULL) goes to `destroy`.
 */
enum kiln_cc_status kiln_cc_finish(enum kiln_cc_status status, struct kiln_cc_program *p,
                                   struct kiln_cc_log *log, struct kiln_cc_program **out,
                                   char **log_out, void (*destroy)(struct kiln_cc_program *));
/* Frees the kernel descriptions in p->kernels. */
void kiln_cc_kernels_free(struct kiln_cc_program *p);
/* Frees p->wg_names (which names p->num_kernels functions) and sets it to NULL. */
void kiln_cc_wg_names_free(struct kiln_cc_program *p);

/*
 * libkiln-cc-llvm.so's table, from its one exported function. Its programs carry
 * no code: an executable's container is in p->binary, with object_size and wg_names
 * set for libkiln-cc.so to load its object.
 * build(), compile() and link() otherwise behave as the interface's (kiln_cc.h),
 * logs included; build() writes `key` into the container and does not use the cache,
 * and builds `variant` (checked by libkiln-cc.so) unless that is NULL.
 */
struct kiln_cc_backend {
    unsigned abi_version; /* KILN_CC_BACKEND_VERSION */
    /*
     * Once, before anything else: false if LLVM cannot generate code for this host. The
     * language user kernels see (kiln_cc.h, set_language), kept, not copied.
     */
    bool (*init)(const char *target_id, const char *extensions, const char *features);
    enum kiln_cc_status (*build)(const char *source, const char *options,
                                 const struct kiln_cc_variant *variant,
                                 const uint8_t key[KILN_CC_HASH_SIZE], struct kiln_cc_program **out,
                                 char **log);
    enum kiln_cc_status (*compile)(const char *source, const char *options,
                                   const struct kiln_cc_header *headers, unsigned num_headers,
                                   struct kiln_cc_program **out, char **log);
    enum kiln_cc_status (*link)(const struct kiln_cc_program *const *inputs, unsigned num_inputs,
                                const char *options, struct kiln_cc_program **out, char **log);
};

#define KILN_CC_BACKEND_VERSION 4
#define KILN_CC_BACKEND_LIBRARY "libkiln-cc-llvm.so"
typedef const struct kiln_cc_backend *(*kiln_cc_backend_fn)(void);
#define KILN_CC_BACKEND_SYMBOL "kiln_cc_backend"

#endif
