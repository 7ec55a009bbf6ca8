/*
 * The binary stage's interface (7-binary/): the program container, the kernel cache
 * and the ELF loader, for the drivers (compiler.c, backend.c) and the stage's own
 * files. No earlier stage includes it (tests/style/stage_order.py).
 */
#ifndef KILN_COMPILER_BINARY_H
#define KILN_COMPILER_BINARY_H

#include "cc_common.h"

/* The program container (container.c). Bump the version with any change to it. */
#define KILN_CC_CONTAINER_VERSION 7
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
 * Loads an executable's object into p->code and sets each kernel's wg to its
 * function wg_names[k]; KILN_CC_INVALID_BINARY, with the reason in the log, if it
 * cannot.
 */
typedef enum kiln_cc_status (*kiln_cc_code_loader)(const void *object, size_t size,
                                                   const char *const *wg_names,
                                                   struct kiln_cc_program *p,
                                                   struct kiln_cc_log *log);
/*
 * Checks the container (and that its key is `key`, unless NULL) and reads it into
 * the empty program p: kernel descriptions, bitcode, and an executable's object
 * through `load_code` unless that is NULL; *stored_log is the build log stored
 * with it (malloc()ed) on KILN_CC_OK. p->binary is not set.
 */
enum kiln_cc_status kiln_cc_container_load(const uint8_t *data, size_t size, const uint8_t *key,
                                           kiln_cc_code_loader load_code, struct kiln_cc_program *p,
                                           struct kiln_cc_log *log, char **stored_log);

/*
 * "triple;cpu;kiln format and build ids": what a container must have been made for
 * to load here, or NULL when the host could not be described. libkiln-cc.so
 * computes it (cache.c); libkiln-cc-llvm.so is given it (kiln_cc_backend.init).
 */
const char *kiln_cc_target_id(void);
/* cache.c: where libkiln-cc-llvm.so is (next to libkiln-cc.so), or NULL. */
const char *kiln_cc_backend_path(void);

/*
 * compiler.c: the language user kernels see, space-separated (kiln_cc.h, set_language):
 * the device's, or the kernel library's until it is set. Part of the cache key.
 */
void kiln_cc_language_get(const char **extensions, const char **features);

/* The kernel cache (cache.c, libkiln-cc.so only). */
/* False when the host could not be described. `variant` is NULL for an ordinary build. */
bool kiln_cc_cache_key(const char *source, const char *options,
                       const struct kiln_cc_variant *variant, uint8_t key[KILN_CC_HASH_SIZE]);
bool kiln_cc_cache_enabled(void);
/* The entry's bytes (malloc()ed) if a file exists for the key; not checked yet. */
bool kiln_cc_cache_read(const uint8_t key[KILN_CC_HASH_SIZE], uint8_t **data, size_t *size);
/* Stores an entry; failures are silent but for a note in `log` when a write failed. */
void kiln_cc_cache_write(const uint8_t key[KILN_CC_HASH_SIZE], const uint8_t *data, size_t size,
                         struct kiln_cc_log *log);

/*
 * elf_load.c: places an ELF relocatable object in executable memory, relocates it
 * and sets addresses[k] to the function names[k]; false, with the reason in the
 * log, for an object it cannot load. The object may lie at any address. kiln_cc_elf_unload
 * frees the memory.
 */
bool kiln_cc_elf_load(const void *object, size_t size, const char *const *names, unsigned n,
                      struct kiln_cc_code *code, uintptr_t *addresses, struct kiln_cc_log *log);
void kiln_cc_elf_unload(struct kiln_cc_code *code);

#endif
