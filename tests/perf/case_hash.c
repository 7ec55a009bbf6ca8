/* kiln-bench's integer hashing cases: the MD5 compression function (RFC 1321's 64 steps, its
 * F/G/H/I functions, constants and rotations) over explicit vectors, one candidate message per
 * lane, as a password cracker runs it. Two cases, one kernel built with -DVW=<lanes>:
 *   hash:  uint16 vectors (16 candidates per work-item, one zmm register with AVX-512);
 *   hash4: uint4 vectors, what a narrow explicit vector gives the same work.
 *
 * In iteration it (0 to HASH_ITERS - 1), lane l of work-item gid hashes the block whose word 0 is
 * gid * VW + l, word 1 is it and words 2 to 15 are fixed constants (a kernel argument); the
 * loop makes a launch compute-bound. Each work-item XORs the four digest words
 * (state + initial value) of all its lanes and iterations into the one uint4 it writes. The
 * number of hashes is the --size-mib bytes / 4 (16 Mi at the default 64 MiB, one per uint of an
 * array, rounded down to a multiple of 16 * HASH_ITERS): tens of ms per repetition on two cores
 * with AVX-512. The rate is million hashes per second (MH/s), one hash being one compression.
 *
 * The plain-C row is the ceiling for the same hashes: GCC vector extensions one vector register
 * wide whatever the case's VW (compiled with -march=native: 16 lanes and vprold where the CPU has
 * AVX-512, 8 lanes otherwise), four independent candidate vectors interleaved so that the 64
 * dependent steps of one do not leave the vector units idle. Kernel and C row expand the same step
 * list (MD5_STEPS). The check compares every work-item's uint4 with a scalar reference written
 * independently (the RFC's loop form, its constants computed from sin()), itself checked first
 * against the known digest of the empty message, and computed once for all rows. */
#include "bench.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The C row's candidates per block: the widest work-item's lanes (the hash case's VW), so that a
 * block's results fold into whole work-items of either case. */
#define HASH_BLOCK 16
/* The C row's lanes: one vector register of uint32. With AVX2 a vector of 16 lanes takes two
 * registers per state word, and four chains of them do not fit its 16 registers: on a 2-core
 * AMD EPYC (Zen 3, AVX2, GCC 12, 2026-11-29) the row gave 80 MH/s with 16 lanes, 170 and 216
 * with 8 (two runs). */
#if defined(__AVX512F__)
#define HASH_CLANES 16
#else
#define HASH_CLANES 8
#endif
_Static_assert(HASH_BLOCK % HASH_CLANES == 0, "a block is whole C vectors");
/* The C row's independent candidate vectors in flight: one step is a chain of four dependent
 * operations, so a single chain leaves most issue slots idle. On a 2-core AMD EPYC with AVX-512
 * (2026-11-28, one thread) 1, 2, 4 and 8 chains gave about 156, 220, 300 and 300 MH/s. */
#define HASH_CHAINS 4

/* Hashes per lane per work-item: enough that a work-item's loop dwarfs its launch share. A multiple
 * of HASH_CHAINS, as the C row hashes that many iterations at a time. */
#define HASH_ITERS 64
_Static_assert(HASH_ITERS % HASH_CHAINS == 0, "the C row hashes HASH_CHAINS iterations at once");
/* MD5's initial state (RFC 1321, 3.3). */
#define MD5_A0 0x67452301u
#define MD5_B0 0xefcdab89u
#define MD5_C0 0x98badcfeu
#define MD5_D0 0x10325476u

/* The 64 steps of the MD5 compression function (RFC 1321, 3.4), each
 *   S(function, a, b, c, d, message word, constant, rotation)
 * meaning a = b + rotl(a + function(b, c, d) + M[word] + constant, rotation). The kernel's source
 * and the C row are both expanded from this list; the reference does not use it. */
#define MD5_STEPS(S)                                                                               \
    S(F, a, b, c, d, 0, 0xd76aa478u, 7)                                                            \
    S(F, d, a, b, c, 1, 0xe8c7b756u, 12)                                                           \
    S(F, c, d, a, b, 2, 0x242070dbu, 17)                                                           \
    S(F, b, c, d, a, 3, 0xc1bdceeeu, 22)                                                           \
    S(F, a, b, c, d, 4, 0xf57c0fafu, 7)                                                            \
    S(F, d, a, b, c, 5, 0x4787c62au, 12)                                                           \
    S(F, c, d, a, b, 6, 0xa8304613u, 17)                                                           \
    S(F, b, c, d, a, 7, 0xfd469501u, 22)                                                           \
    S(F, a, b, c, d, 8, 0x698098d8u, 7)                                                            \
    S(F, d, a, b, c, 9, 0x8b44f7afu, 12)                                                           \
    S(F, c, d, a, b, 10, 0xffff5bb1u, 17)                                                          \
    S(F, b, c, d, a, 11, 0x895cd7beu, 22)                                                          \
    S(F, a, b, c, d, 12, 0x6b901122u, 7)                                                           \
    S(F, d, a, b, c, 13, 0xfd987193u, 12)                                                          \
    S(F, c, d, a, b, 14, 0xa679438eu, 17)                                                          \
    S(F, b, c, d, a, 15, 0x49b40821u, 22)                                                          \
    S(G, a, b, c, d, 1, 0xf61e2562u, 5)                                                            \
    S(G, d, a, b, c, 6, 0xc040b340u, 9)                                                            \
    S(G, c, d, a, b, 11, 0x265e5a51u, 14)                                                          \
    S(G, b, c, d, a, 0, 0xe9b6c7aau, 20)                                                           \
    S(G, a, b, c, d, 5, 0xd62f105du, 5)                                                            \
    S(G, d, a, b, c, 10, 0x02441453u, 9)                                                           \
    S(G, c, d, a, b, 15, 0xd8a1e681u, 14)                                                          \
    S(G, b, c, d, a, 4, 0xe7d3fbc8u, 20)                                                           \
    S(G, a, b, c, d, 9, 0x21e1cde6u, 5)                                                            \
    S(G, d, a, b, c, 14, 0xc33707d6u, 9)                                                           \
    S(G, c, d, a, b, 3, 0xf4d50d87u, 14)                                                           \
    S(G, b, c, d, a, 8, 0x455a14edu, 20)                                                           \
    S(G, a, b, c, d, 13, 0xa9e3e905u, 5)                                                           \
    S(G, d, a, b, c, 2, 0xfcefa3f8u, 9)                                                            \
    S(G, c, d, a, b, 7, 0x676f02d9u, 14)                                                           \
    S(G, b, c, d, a, 12, 0x8d2a4c8au, 20)                                                          \
    S(H, a, b, c, d, 5, 0xfffa3942u, 4)                                                            \
    S(H, d, a, b, c, 8, 0x8771f681u, 11)                                                           \
    S(H, c, d, a, b, 11, 0x6d9d6122u, 16)                                                          \
    S(H, b, c, d, a, 14, 0xfde5380cu, 23)                                                          \
    S(H, a, b, c, d, 1, 0xa4beea44u, 4)                                                            \
    S(H, d, a, b, c, 4, 0x4bdecfa9u, 11)                                                           \
    S(H, c, d, a, b, 7, 0xf6bb4b60u, 16)                                                           \
    S(H, b, c, d, a, 10, 0xbebfbc70u, 23)                                                          \
    S(H, a, b, c, d, 13, 0x289b7ec6u, 4)                                                           \
    S(H, d, a, b, c, 0, 0xeaa127fau, 11)                                                           \
    S(H, c, d, a, b, 3, 0xd4ef3085u, 16)                                                           \
    S(H, b, c, d, a, 6, 0x04881d05u, 23)                                                           \
    S(H, a, b, c, d, 9, 0xd9d4d039u, 4)                                                            \
    S(H, d, a, b, c, 12, 0xe6db99e5u, 11)                                                          \
    S(H, c, d, a, b, 15, 0x1fa27cf8u, 16)                                                          \
    S(H, b, c, d, a, 2, 0xc4ac5665u, 23)                                                           \
    S(I, a, b, c, d, 0, 0xf4292244u, 6)                                                            \
    S(I, d, a, b, c, 7, 0x432aff97u, 10)                                                           \
    S(I, c, d, a, b, 14, 0xab9423a7u, 15)                                                          \
    S(I, b, c, d, a, 5, 0xfc93a039u, 21)                                                           \
    S(I, a, b, c, d, 12, 0x655b59c3u, 6)                                                           \
    S(I, d, a, b, c, 3, 0x8f0ccc92u, 10)                                                           \
    S(I, c, d, a, b, 10, 0xffeff47du, 15)                                                          \
    S(I, b, c, d, a, 1, 0x85845dd1u, 21)                                                           \
    S(I, a, b, c, d, 8, 0x6fa87e4fu, 6)                                                            \
    S(I, d, a, b, c, 15, 0xfe2ce6e0u, 10)                                                          \
    S(I, c, d, a, b, 6, 0xa3014314u, 15)                                                           \
    S(I, b, c, d, a, 13, 0x4e0811a1u, 21)                                                          \
    S(I, a, b, c, d, 4, 0xf7537e82u, 6)                                                            \
    S(I, d, a, b, c, 11, 0xbd3af235u, 10)                                                          \
    S(I, c, d, a, b, 2, 0x2ad7d2bbu, 15)                                                           \
    S(I, b, c, d, a, 9, 0xeb86d391u, 21)

/* The four boolean functions in the forms with one operation fewer than the RFC's (F and G as
 * bit selects, I with one OR); the kernel defines the same. */
#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))

/* One kernel source line per step; the kernel's STEP macro does the arithmetic. */
#define CL_STEP(f, a, b, c, d, i, k, s)                                                            \
    "        STEP(" #f ", " #a ", " #b ", " #c ", " #d ", " #i ", " #k ", " #s ");\n"

/* The kernel around its steps. fold() reads the lanes through a pointer, which works for every
 * VW (OpenCL C has no subscript on vectors). */
#define HASH_SOURCE_HEAD                                                                           \
    "#ifndef VW\n"                                                                                 \
    "#define VW 16\n"                                                                              \
    "#endif\n"                                                                                     \
    "#if VW == 4\n"                                                                                \
    "typedef uint4 uv;\n"                                                                          \
    "#define LANES (uv)(0, 1, 2, 3)\n"                                                             \
    "#elif VW == 8\n"                                                                              \
    "typedef uint8 uv;\n"                                                                          \
    "#define LANES (uv)(0, 1, 2, 3, 4, 5, 6, 7)\n"                                                 \
    "#elif VW == 16\n"                                                                             \
    "typedef uint16 uv;\n"                                                                         \
    "#define LANES (uv)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)\n"                   \
    "#else\n"                                                                                      \
    "#error VW must be 4, 8 or 16\n"                                                               \
    "#endif\n"                                                                                     \
    "#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))\n"                                             \
    "#define G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))\n"                                             \
    "#define H(x, y, z) ((x) ^ (y) ^ (z))\n"                                                       \
    "#define I(x, y, z) ((y) ^ ((x) | ~(z)))\n"                                                    \
    "#define STEP(f, a, b, c, d, i, k, s) a = b + rotate(a + f(b, c, d) + M##i + (k), (uv)(s))\n"  \
    "\n"                                                                                           \
    "uint fold(uv x)\n"                                                                            \
    "{\n"                                                                                          \
    "    uint r = 0;\n"                                                                            \
    "    for (int l = 0; l < VW; l++)\n"                                                           \
    "        r ^= ((const uint *)&x)[l];\n"                                                        \
    "    return r;\n"                                                                              \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "__kernel void hash(__constant uint *msg, __global uint4 *out, uint iters)\n"                  \
    "{\n"                                                                                          \
    "    uint gid = (uint)get_global_id(0);\n"                                                     \
    "    uv M0 = (uv)(gid * VW) + LANES;\n"                                                        \
    "    uint M2 = msg[2], M3 = msg[3], M4 = msg[4], M5 = msg[5], M6 = msg[6], M7 = msg[7];\n"     \
    "    uint M8 = msg[8], M9 = msg[9], M10 = msg[10], M11 = msg[11], M12 = msg[12];\n"            \
    "    uint M13 = msg[13], M14 = msg[14], M15 = msg[15];\n"                                      \
    "    uv xa = 0, xb = 0, xc = 0, xd = 0;\n"                                                     \
    "    for (uint M1 = 0; M1 < iters; M1++) {\n"                                                  \
    "        uv a = 0x67452301u, b = 0xefcdab89u, c = 0x98badcfeu, d = 0x10325476u;\n"
#define HASH_SOURCE_TAIL                                                                           \
    "        xa ^= a + 0x67452301u;\n"                                                             \
    "        xb ^= b + 0xefcdab89u;\n"                                                             \
    "        xc ^= c + 0x98badcfeu;\n"                                                             \
    "        xd ^= d + 0x10325476u;\n"                                                             \
    "    }\n"                                                                                      \
    "    out[gid] = (uint4)(fold(xa), fold(xb), fold(xc), fold(xd));\n"                            \
    "}\n"

static const char *source = HASH_SOURCE_HEAD MD5_STEPS(CL_STEP) HASH_SOURCE_TAIL;

struct hash {
    const char *target;
    unsigned vw;      /* lanes per work-item: the kernel's VW */
    size_t messages;  /* hashes per repetition */
    size_t items;     /* work-items: messages / (vw * HASH_ITERS) */
    uint32_t msg[16]; /* words 2 to 15 of every message (0 and 1 unused) */
    uint32_t (*out)[4];
    struct bench_pool *pool; /* host version */
    cl_command_queue queue;  /* OpenCL version */
    cl_program program;
    cl_kernel kernel;
    cl_mem msg_buf, out_buf;
};

static size_t hash_messages(const struct bench_env *env)
{
    size_t unit = (size_t)HASH_BLOCK * HASH_ITERS;
    size_t n = env->size_bytes / 4 / unit * unit;
    return n != 0 ? n : unit;
}

/* ---- the reference: scalar, the RFC's loop form ---- */

/* One MD5 compression of block m from the initial state, the digest words (state + initial
 * value) in h. */
static void ref_md5_block(const uint32_t m[16], const uint32_t k[64], uint32_t h[4])
{
    static const unsigned rot[4][4] = {
        {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    uint32_t a = MD5_A0, b = MD5_B0, c = MD5_C0, d = MD5_D0;
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned g;
        switch (i / 16) {
        case 0:
            f = (b & c) | (~b & d);
            g = i;
            break;
        case 1:
            f = (b & d) | (c & ~d);
            g = (5 * i + 1) % 16;
            break;
        case 2:
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
            break;
        default:
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
            break;
        }
        uint32_t sum = a + f + k[i] + m[g];
        unsigned s = rot[i / 16][i % 4];
        uint32_t next = b + ((sum << s) | (sum >> (32 - s)));
        a = d;
        d = c;
        c = b;
        b = next;
    }
    h[0] = a + MD5_A0;
    h[1] = b + MD5_B0;
    h[2] = c + MD5_C0;
    h[3] = d + MD5_D0;
}

/* Computes the constants as the RFC defines them, floor(|sin(i + 1)| * 2^32), and checks the
 * reference on the one block of the empty message, whose MD5 is d41d8cd98f00b204e9800998ecf8427e
 * (the digest's bytes are the words' little-endian bytes). Returns 0, or -1 after printing. */
static int ref_init(const char *target, uint32_t k[64])
{
    for (unsigned i = 0; i < 64; i++)
        k[i] = (uint32_t)floor(fabs(sin((double)i + 1.0)) * 4294967296.0);
    uint32_t m[16] = {0x80u}, h[4];
    ref_md5_block(m, k, h);
    if (h[0] != 0xd98c1dd4u || h[1] != 0x04b2008fu || h[2] != 0x980980e9u || h[3] != 0x7e42f8ecu) {
        fprintf(stderr, "%s: hash: the reference MD5 of the empty message is wrong\n", target);
        return -1;
    }
    return 0;
}

/* Candidates per group of the reference: the narrowest case's lanes. */
#define REF_GROUP 4

/* The reference, computed once per process (it costs about as much as one repetition on one
 * core, scalar) and shared by every row of both cases, which the harness runs one after another:
 * for each group of REF_GROUP consecutive candidates, the XOR of their digest words over all
 * iterations. A hash4 work-item's result is one group, a hash work-item's the XOR of four. */
static struct {
    size_t groups;
    uint32_t (*want)[4]; /* groups entries, freed at exit */
} ref_cache;

static void ref_cache_free(void)
{
    free(ref_cache.want);
}

/* Returns the reference for h's messages, computing it on the first call, or NULL after
 * printing why. */
static const uint32_t (*ref_results(const struct hash *h))[4]
{
    size_t groups = h->messages / (REF_GROUP * HASH_ITERS);
    if (ref_cache.want != NULL && ref_cache.groups == groups)
        return (const uint32_t(*)[4])ref_cache.want;
    uint32_t k[64];
    if (ref_init(h->target, k) != 0)
        return NULL;
    uint32_t(*want)[4] = calloc(groups, sizeof(*want));
    if (want == NULL) {
        fprintf(stderr, "%s: hash: out of memory for the reference\n", h->target);
        return NULL;
    }
    uint32_t m[16], digest[4];
    for (unsigned w = 2; w < 16; w++)
        m[w] = h->msg[w];
    for (size_t g = 0; g < groups; g++) {
        for (unsigned lane = 0; lane < REF_GROUP; lane++) {
            m[0] = (uint32_t)(g * REF_GROUP + lane);
            for (uint32_t it = 0; it < HASH_ITERS; it++) {
                m[1] = it;
                ref_md5_block(m, k, digest);
                for (int j = 0; j < 4; j++)
                    want[g][j] ^= digest[j];
            }
        }
    }
    if (ref_cache.want == NULL)
        atexit(ref_cache_free);
    free(ref_cache.want);
    ref_cache.want = want;
    ref_cache.groups = groups;
    return (const uint32_t(*)[4])want;
}

/* Compares every work-item's output with the reference. */
static int check_output(const struct hash *h)
{
    const uint32_t(*ref)[4] = ref_results(h);
    if (ref == NULL)
        return -1;
    unsigned per_item = h->vw / REF_GROUP;
    for (size_t item = 0; item < h->items; item++) {
        uint32_t want[4] = {0, 0, 0, 0};
        for (unsigned g = 0; g < per_item; g++)
            for (int j = 0; j < 4; j++)
                want[j] ^= ref[item * per_item + g][j];
        for (int j = 0; j < 4; j++) {
            if (h->out[item][j] != want[j]) {
                fprintf(stderr,
                        "%s: hash: work-item %zu, digest word %d: got 0x%08x, expected 0x%08x\n",
                        h->target, item, j, h->out[item][j], want[j]);
                return -1;
            }
        }
    }
    return 0;
}

static void hash_free(struct hash *h)
{
    free(h->out);
    free(h);
}

static struct hash *hash_alloc(const struct bench_env *env, unsigned vw)
{
    struct hash *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    h->target = env->target;
    h->vw = vw;
    h->messages = hash_messages(env);
    h->items = h->messages / ((size_t)vw * HASH_ITERS);
    /* Fixed words that differ from each other and from zero. */
    for (unsigned w = 2; w < 16; w++)
        h->msg[w] = 0x9e3779b9u * w ^ 0x6b696c6eu;
    h->out = calloc(h->items, sizeof(*h->out));
    if (h->out == NULL) {
        fprintf(stderr, "%s: out of memory for %zu results\n", env->target, h->items);
        hash_free(h);
        return NULL;
    }
    return h;
}

/* ---- host version ---- */

typedef uint32_t hash_vec __attribute__((vector_size(HASH_CLANES * sizeof(uint32_t))));

enum md5_word { md5_a, md5_b, md5_c, md5_d }; /* indices of a chain's state words */
#define VROTL(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
/* One step on every chain; word 1 is the chain's own iteration, the other words are shared. */
#define C_WORD(i, x) ((i) == 1 ? w1[x] : w[i])
#define C_STEP(f, a, b, c, d, i, k, s)                                                             \
    for (unsigned x = 0; x < HASH_CHAINS; x++) {                                                   \
        hash_vec *st = state[x];                                                                   \
        hash_vec sum =                                                                             \
            st[md5_##a] + f(st[md5_##b], st[md5_##c], st[md5_##d]) + C_WORD(i, x) + (k);           \
        st[md5_##a] = st[md5_##b] + VROTL(sum, s);                                                 \
    }

/* Hashes blocks [first, end) of HASH_BLOCK consecutive candidates each, a vector of HASH_CLANES
 * at a time and HASH_CHAINS iterations at a time, and folds each work-item's lanes into its
 * output. */
static void host_hash_range(struct hash *h, size_t first, size_t end)
{
    hash_vec lanes = {0}, w[16], w1[HASH_CHAINS], state[HASH_CHAINS][4];
    for (unsigned l = 0; l < HASH_CLANES; l++)
        lanes[l] = l;
    for (unsigned i = 2; i < 16; i++)
        w[i] = (hash_vec){0} + h->msg[i];
    w[1] = (hash_vec){0}; /* unused: each chain has its own word 1 */
    for (size_t blk = first; blk < end; blk++) {
        uint32_t folded[4][HASH_BLOCK];
        for (unsigned l0 = 0; l0 < HASH_BLOCK; l0 += HASH_CLANES) {
            w[0] = lanes + (uint32_t)(blk * HASH_BLOCK + l0);
            hash_vec xa = {0}, xb = {0}, xc = {0}, xd = {0};
            for (uint32_t it = 0; it < HASH_ITERS; it += HASH_CHAINS) {
                for (unsigned x = 0; x < HASH_CHAINS; x++) {
                    w1[x] = (hash_vec){0} + (it + x);
                    state[x][md5_a] = (hash_vec){0} + MD5_A0;
                    state[x][md5_b] = (hash_vec){0} + MD5_B0;
                    state[x][md5_c] = (hash_vec){0} + MD5_C0;
                    state[x][md5_d] = (hash_vec){0} + MD5_D0;
                }
                MD5_STEPS(C_STEP)
                for (unsigned x = 0; x < HASH_CHAINS; x++) {
                    xa ^= state[x][md5_a] + MD5_A0;
                    xb ^= state[x][md5_b] + MD5_B0;
                    xc ^= state[x][md5_c] + MD5_C0;
                    xd ^= state[x][md5_d] + MD5_D0;
                }
            }
            for (unsigned l = 0; l < HASH_CLANES; l++) {
                folded[0][l0 + l] = xa[l];
                folded[1][l0 + l] = xb[l];
                folded[2][l0 + l] = xc[l];
                folded[3][l0 + l] = xd[l];
            }
        }
        for (unsigned l0 = 0; l0 < HASH_BLOCK; l0 += h->vw) {
            uint32_t *o = h->out[(blk * HASH_BLOCK + l0) / h->vw];
            o[0] = o[1] = o[2] = o[3] = 0;
            for (unsigned l = l0; l < l0 + h->vw; l++)
                for (int j = 0; j < 4; j++)
                    o[j] ^= folded[j][l];
        }
    }
}

static void host_compute(void *arg, unsigned t, unsigned count)
{
    struct hash *h = arg;
    size_t blocks = h->messages / ((size_t)HASH_BLOCK * HASH_ITERS);
    host_hash_range(h, blocks * t / count, blocks * (t + 1) / count);
}

static int host_setup(const struct bench_env *env, unsigned vw, void **state)
{
    struct hash *h = hash_alloc(env, vw);
    if (h == NULL)
        return -1;
    h->pool = env->pool;
    *state = h;
    return 0;
}

static int host_setup16(const struct bench_env *env, void **state)
{
    return host_setup(env, 16, state);
}

static int host_setup4(const struct bench_env *env, void **state)
{
    return host_setup(env, 4, state);
}

static int host_run(void *state)
{
    struct hash *h = state;
    bench_pool_run(h->pool, host_compute, h);
    return 0;
}

static int host_check(void *state)
{
    return check_output(state);
}

static void host_teardown(void *state)
{
    hash_free(state);
}

/* ---- OpenCL version ---- */

static void cl_release(struct hash *h)
{
    if (h->out_buf != NULL)
        clReleaseMemObject(h->out_buf);
    if (h->msg_buf != NULL)
        clReleaseMemObject(h->msg_buf);
    if (h->kernel != NULL)
        clReleaseKernel(h->kernel);
    if (h->program != NULL)
        clReleaseProgram(h->program);
    hash_free(h);
}

static int cl_setup(const struct bench_env *env, unsigned vw, void **state)
{
    cl_int err = CL_SUCCESS;
    struct hash *h = hash_alloc(env, vw);
    if (h == NULL)
        return -1;
    h->queue = env->queue;
    char options[16];
    snprintf(options, sizeof(options), "-DVW=%u", vw);
    if (bench_cl_kernel_build_opts(env, source, options, "hash", &h->program, &h->kernel) != 0)
        goto out_release;
    h->msg_buf = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(h->msg),
                                h->msg, &err);
    if (err == CL_SUCCESS)
        h->out_buf =
            clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, h->items * sizeof(*h->out), NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clCreateBuffer", err);
        goto out_release;
    }
    cl_uint iters = HASH_ITERS;
    err = clSetKernelArg(h->kernel, 0, sizeof(cl_mem), &h->msg_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 1, sizeof(cl_mem), &h->out_buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(h->kernel, 2, sizeof(iters), &iters);
    if (err != CL_SUCCESS) {
        bench_cl_fail(env->target, "clSetKernelArg", err);
        goto out_release;
    }
    *state = h;
    return 0;

out_release:
    cl_release(h);
    return -1;
}

static int cl_setup16(const struct bench_env *env, void **state)
{
    return cl_setup(env, 16, state);
}

static int cl_setup4(const struct bench_env *env, void **state)
{
    return cl_setup(env, 4, state);
}

static int cl_run(void *state)
{
    struct hash *h = state;
    size_t global = h->items;
    cl_int err = clEnqueueNDRangeKernel(h->queue, h->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueNDRangeKernel", err);
    err = clFinish(h->queue);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clFinish", err);
    return 0;
}

static int cl_check(void *state)
{
    struct hash *h = state;
    cl_int err = clEnqueueReadBuffer(h->queue, h->out_buf, CL_TRUE, 0, h->items * sizeof(*h->out),
                                     h->out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bench_cl_fail(h->target, "clEnqueueReadBuffer", err);
    return check_output(h);
}

static void cl_teardown(void *state)
{
    cl_release(state);
}

static double hash_rate(const struct bench_env *env, double seconds)
{
    return (double)hash_messages(env) / seconds / 1e6;
}

const struct bench_case bench_case_hash = {
    .name = "hash",
    .summary = "MD5 compressions over uint16 lanes with rotate(), 16 candidates a work-item; MH/s",
    .cl = {cl_setup16, cl_run, cl_check, cl_teardown},
    .host = {host_setup16, host_run, host_check, host_teardown},
    .rate = hash_rate,
    .rate_unit = "MH/s",
};

const struct bench_case bench_case_hash4 = {
    .name = "hash4",
    .summary = "the same over uint4 lanes, 4 candidates a work-item; MH/s",
    .cl = {cl_setup4, cl_run, cl_check, cl_teardown},
    .host = {host_setup4, host_run, host_check, host_teardown},
    .rate = hash_rate,
    .rate_unit = "MH/s",
};
