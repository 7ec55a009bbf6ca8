/*
 * SHA-256 (FIPS 180-4), for the kernel cache's keys and the container checksums.
 * Plain C without LLVM, so tests can compile hash.c on its own.
 */
#ifndef KILN_COMPILER_HASH_H
#define KILN_COMPILER_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KILN_CC_HASH_SIZE 32

struct kiln_cc_sha256 {
    uint32_t state[8];
    uint64_t total; /* bytes hashed so far */
    size_t fill;    /* bytes waiting in block */
    uint8_t block[64];
};

void kiln_cc_sha256_init(struct kiln_cc_sha256 *s);
void kiln_cc_sha256_update(struct kiln_cc_sha256 *s, const void *data, size_t len);
void kiln_cc_sha256_final(struct kiln_cc_sha256 *s, uint8_t digest[KILN_CC_HASH_SIZE]);
/* All of it in one call. */
void kiln_cc_sha256(const void *data, size_t len, uint8_t digest[KILN_CC_HASH_SIZE]);

#endif
