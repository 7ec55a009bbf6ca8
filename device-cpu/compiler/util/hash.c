/*
 * SHA-256 as FIPS 180-4 specifies it, for the kernel cache's keys and the
 * checksums of cache entries and program binaries (cache.c). Byte-at-a-time input
 * buffering into 64-byte blocks; big-endian words as the standard defines them.
 */
#include "hash.h"

#include <string.h>

static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const uint8_t block[64])
{
    uint32_t w[64];
    for (unsigned t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
    for (unsigned t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (unsigned t = 0; t < 64; t++) {
        uint32_t big1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + big1 + ch + round_k[t] + w[t];
        uint32_t big0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = big0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void kiln_cc_sha256_init(struct kiln_cc_sha256 *s)
{
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->state, initial, sizeof(initial));
    s->total = 0;
    s->fill = 0;
}

void kiln_cc_sha256_update(struct kiln_cc_sha256 *s, const void *data, size_t len)
{
    const uint8_t *in = data;
    s->total += len;
    if (s->fill) {
        size_t take = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->block + s->fill, in, take);
        s->fill += take;
        in += take;
        len -= take;
        if (s->fill < 64)
            return;
        compress(s->state, s->block);
        s->fill = 0;
    }
    for (; len >= 64; in += 64, len -= 64)
        compress(s->state, in);
    memcpy(s->block, in, len);
    s->fill = len;
}

void kiln_cc_sha256_final(struct kiln_cc_sha256 *s, uint8_t digest[KILN_CC_HASH_SIZE])
{
    uint64_t bits = s->total * 8;
    uint8_t pad[72] = {0x80};
    /* Pad with 0x80 and zeros to 56 bytes mod 64, then the length in bits. */
    size_t pad_len = (s->fill < 56 ? 56 : 120) - s->fill;
    for (unsigned i = 0; i < 8; i++)
        pad[pad_len + i] = (uint8_t)(bits >> (56 - 8 * i));
    kiln_cc_sha256_update(s, pad, pad_len + 8);
    for (unsigned i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->state[i];
    }
}

void kiln_cc_sha256(const void *data, size_t len, uint8_t digest[KILN_CC_HASH_SIZE])
{
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    kiln_cc_sha256_update(&s, data, len);
    kiln_cc_sha256_final(&s, digest);
}
