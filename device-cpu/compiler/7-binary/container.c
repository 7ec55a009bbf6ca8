/*
 * The Kiln program container: one format for kernel-cache entries and for the
 * binaries clGetProgramInfo(CL_PROGRAM_BINARIES) hands out.
 *
 * Layout (integers little-endian):
 *
 *   0   magic "KILNPROG"
 *   8   u32 format version (KILN_CC_CONTAINER_VERSION)
 *   12  u32 header size (KILN_CC_CONTAINER_HEADER)
 *   16  u8[32] cache key (SHA-256, see cache.c); informational in a binary
 *   48  u64 target length     \
 *   56  u64 info length        } the three sections follow the header in this order
 *   64  u64 object length     /
 *   72  u8[32] SHA-256 of bytes 0..71 and of the three sections
 *   104 target: "cpu;features;llvm version;kiln build id", compared byte for byte
 *       with this process's before anything else is read
 *       info: the program's kind and flags, the kernel descriptions and the build log
 *       object: the ELF object the code generator emitted or, for a compiled object
 *       or a library (clCompileProgram, clLinkProgram -create-library), its LLVM
 *       bitcode; those have no kernel descriptions
 *
 * The reader checks the lengths against the size it was given and the checksum
 * before it parses a single description, and then bounds-checks every field, so a
 * truncated, corrupted or foreign container is refused with a reason, never
 * trusted.
 */
#include "binary.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC        "KILNPROG"
#define OFF_VERSION  8
#define OFF_HDR_SIZE 12
#define OFF_KEY      16
#define OFF_LENS     48
#define OFF_SUM      72
/* The largest section accepted: far beyond any real program, small enough to add. */
#define MAX_SECTION ((uint64_t)1 << 40)

/* A growing byte buffer; `failed` once an allocation failed. */
struct out {
    uint8_t *data;
    size_t len, cap;
    bool failed;
};

static void put(struct out *o, const void *data, size_t len)
{
    if (o->failed)
        return;
    if (o->len + len > o->cap) {
        size_t cap = o->cap ? o->cap : 1024;
        while (cap < o->len + len)
            cap *= 2;
        uint8_t *grown = realloc(o->data, cap);
        if (!grown) {
            o->failed = true;
            return;
        }
        o->data = grown;
        o->cap = cap;
    }
    memcpy(o->data + o->len, data, len);
    o->len += len;
}

static void put_u32(struct out *o, uint32_t v)
{
    uint8_t b[4];
    for (unsigned i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, sizeof(b));
}

static void put_u64(struct out *o, uint64_t v)
{
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, sizeof(b));
}

static void put_str(struct out *o, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    put_u32(o, (uint32_t)len);
    put(o, s, len);
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A bounds-checked reader; `bad` once a read ran past the end. */
struct in {
    const uint8_t *at, *end;
    bool bad;
};

static uint64_t get_n(struct in *in, unsigned bytes)
{
    if (in->bad || (size_t)(in->end - in->at) < bytes) {
        in->bad = true;
        return 0;
    }
    uint64_t v = get_le(in->at, bytes);
    in->at += bytes;
    return v;
}

/* A malloc()ed copy of the next string, or NULL (and `bad` if it was not there). */
static char *get_str(struct in *in)
{
    uint64_t len = get_n(in, 4);
    if (in->bad || (uint64_t)(in->end - in->at) < len) {
        in->bad = true;
        return NULL;
    }
    char *s = malloc(len + 1);
    if (!s) {
        in->bad = true;
        return NULL;
    }
    memcpy(s, in->at, len);
    s[len] = '\0';
    in->at += len;
    return s;
}

static void put_info(struct out *o, const struct kiln_cc_program *p, const char *const *wg_names,
                     const char *log)
{
    put_u32(o, (uint32_t)p->kind);
    put_u32(o, p->flags);
    put_u32(o, p->num_kernels);
    for (unsigned i = 0; i < p->num_kernels; i++) {
        const struct kiln_cc_kernel *k = &p->kernels[i];
        put_str(o, k->name);
        put_str(o, wg_names[i]);
        put_u32(o, k->num_args);
        for (unsigned j = 0; j < k->num_args; j++) {
            const struct kiln_cc_arg *a = &k->args[j];
            put_u32(o, (uint32_t)a->kind);
            put_u32(o, a->size);
            put_u32(o, a->align);
            put_u32(o, a->addr_space);
            put_str(o, a->name);
            put_str(o, a->type_name);
            put_str(o, a->access_qual);
            put_str(o, a->type_qual);
        }
        for (unsigned d = 0; d < 3; d++)
            put_u64(o, k->reqd_work_group_size[d]);
        for (unsigned d = 0; d < 3; d++)
            put_u64(o, k->work_group_size_hint[d]);
        put_str(o, k->attributes);
        put_u64(o, k->local_mem_static);
        put_u64(o, k->scratch_fixed);
        put_u64(o, k->scratch_per_item);
        put_u64(o, k->private_mem);
        put_u32(o, k->uses_printf);
        put_u32(o, k->enqueues);
        put_u32(o, k->block);
        put_u32(o, k->column_reuse);
    }
    put_str(o, log);
}

static void checksum(const uint8_t *data, size_t size, uint8_t sum[KILN_CC_HASH_SIZE])
{
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    kiln_cc_sha256_update(&s, data, OFF_SUM);
    kiln_cc_sha256_update(&s, data + KILN_CC_CONTAINER_HEADER, size - KILN_CC_CONTAINER_HEADER);
    kiln_cc_sha256_final(&s, sum);
}

enum kiln_cc_status kiln_cc_container_write(const struct kiln_cc_program *p,
                                            const char *const *wg_names, const char *log,
                                            const uint8_t key[KILN_CC_HASH_SIZE],
                                            const void *object, size_t object_size, uint8_t **out,
                                            size_t *out_size)
{
    struct out info = {0}, o = {0};
    const char *target = kiln_cc_target_id();
    if (!target)
        return KILN_CC_INTERNAL;
    put_info(&info, p, wg_names, log);
    put(&o, MAGIC, 8);
    put_u32(&o, KILN_CC_CONTAINER_VERSION);
    put_u32(&o, KILN_CC_CONTAINER_HEADER);
    put(&o, key, KILN_CC_HASH_SIZE);
    put_u64(&o, strlen(target));
    put_u64(&o, info.len);
    put_u64(&o, object_size);
    uint8_t zero[KILN_CC_HASH_SIZE] = {0};
    put(&o, zero, sizeof(zero));
    put(&o, target, strlen(target));
    put(&o, info.data, info.len);
    put(&o, object, object_size);
    free(info.data);
    if (o.failed || info.failed) {
        free(o.data);
        return KILN_CC_OUT_OF_MEMORY;
    }
    checksum(o.data, o.len, o.data + OFF_SUM);
    *out = o.data;
    *out_size = o.len;
    return KILN_CC_OK;
}

enum kiln_cc_status kiln_cc_container_check(const uint8_t *data, size_t size,
                                            struct kiln_cc_container *c, struct kiln_cc_log *log)
{
    if (size < KILN_CC_CONTAINER_HEADER || memcmp(data, MAGIC, 8) != 0) {
        kiln_cc_log_append(log, "error: not a Kiln program binary\n");
        return KILN_CC_INVALID_BINARY;
    }
    uint32_t version = (uint32_t)get_le(data + OFF_VERSION, 4);
    if (version != KILN_CC_CONTAINER_VERSION ||
        get_le(data + OFF_HDR_SIZE, 4) != KILN_CC_CONTAINER_HEADER) {
        kiln_cc_log_printf(log, "error: Kiln binary format %u, this Kiln reads format %u\n",
                           version, KILN_CC_CONTAINER_VERSION);
        return KILN_CC_INVALID_BINARY;
    }
    uint64_t lens[3];
    uint64_t total = KILN_CC_CONTAINER_HEADER;
    for (unsigned i = 0; i < 3; i++) {
        lens[i] = get_le(data + OFF_LENS + 8 * i, 8);
        total += lens[i] < MAX_SECTION ? lens[i] : MAX_SECTION;
    }
    if (total != size || lens[0] >= MAX_SECTION || lens[1] >= MAX_SECTION ||
        lens[2] >= MAX_SECTION) {
        kiln_cc_log_printf(log, "error: Kiln binary of %zu bytes, its header says %llu\n", size,
                           (unsigned long long)total);
        return KILN_CC_INVALID_BINARY;
    }
    uint8_t sum[KILN_CC_HASH_SIZE];
    checksum(data, size, sum);
    if (memcmp(sum, data + OFF_SUM, sizeof(sum)) != 0) {
        kiln_cc_log_append(log, "error: Kiln binary is corrupted (checksum mismatch)\n");
        return KILN_CC_INVALID_BINARY;
    }
    const char *target = kiln_cc_target_id();
    const char *their = (const char *)data + KILN_CC_CONTAINER_HEADER;
    if (!target || strlen(target) != lens[0] || memcmp(target, their, lens[0]) != 0) {
        kiln_cc_log_printf(log,
                           "error: Kiln binary made for another CPU or Kiln build:\n"
                           "  binary: %.*s\n  here:   %s\n",
                           (int)(lens[0] < 4096 ? lens[0] : 4096), their, target ? target : "?");
        return KILN_CC_INVALID_BINARY;
    }
    memcpy(c->key, data + OFF_KEY, KILN_CC_HASH_SIZE);
    c->info = data + KILN_CC_CONTAINER_HEADER + lens[0];
    c->info_size = lens[1];
    c->object = c->info + lens[1];
    c->object_size = lens[2];
    return KILN_CC_OK;
}

/* Reads the kernel descriptions into p (which kiln_cc_kernels_free can free at any point). */
static bool read_info(struct in *in, struct kiln_cc_program *p, char ***wg_names, char **log)
{
    uint64_t kind = get_n(in, 4);
    if (kind > KILN_CC_LIBRARY)
        return false;
    p->kind = (enum kiln_cc_kind)kind;
    p->flags = (unsigned)get_n(in, 4);
    uint64_t n = get_n(in, 4);
    if (p->kind != KILN_CC_EXECUTABLE && n != 0)
        return false;
    /* Each kernel takes well over 4 bytes, so more than the bytes left is a lie. */
    if (in->bad || n > (uint64_t)(in->end - in->at))
        return false;
    p->kernels = calloc(n ? n : 1, sizeof(*p->kernels));
    *wg_names = calloc(n ? n : 1, sizeof(**wg_names));
    if (!p->kernels || !*wg_names)
        return false;
    for (unsigned i = 0; i < n; i++) {
        struct kiln_cc_kernel *k = &p->kernels[i];
        p->num_kernels = i + 1;
        k->name = get_str(in);
        (*wg_names)[i] = get_str(in);
        uint64_t num_args = get_n(in, 4);
        if (in->bad || num_args > (uint64_t)(in->end - in->at))
            return false;
        struct kiln_cc_arg *args = calloc(num_args ? num_args : 1, sizeof(*args));
        if (!args)
            return false;
        k->args = args;
        k->num_args = (unsigned)num_args;
        for (unsigned j = 0; j < num_args; j++) {
            uint64_t kind = get_n(in, 4);
            args[j].kind =
                kind <= KILN_CC_ARG_SAMPLER ? (enum kiln_cc_arg_kind)kind : KILN_CC_ARG_UNSUPPORTED;
            if (kind > KILN_CC_ARG_SAMPLER)
                in->bad = true;
            args[j].size = (uint32_t)get_n(in, 4);
            args[j].align = (uint32_t)get_n(in, 4);
            args[j].addr_space = (uint32_t)get_n(in, 4);
            args[j].name = get_str(in);
            args[j].type_name = get_str(in);
            args[j].access_qual = get_str(in);
            args[j].type_qual = get_str(in);
        }
        for (unsigned d = 0; d < 3; d++)
            k->reqd_work_group_size[d] = get_n(in, 8);
        for (unsigned d = 0; d < 3; d++)
            k->work_group_size_hint[d] = get_n(in, 8);
        k->attributes = get_str(in);
        k->local_mem_static = get_n(in, 8);
        k->scratch_fixed = get_n(in, 8);
        k->scratch_per_item = get_n(in, 8);
        k->private_mem = get_n(in, 8);
        k->uses_printf = get_n(in, 4) != 0;
        k->enqueues = get_n(in, 4) != 0;
        k->block = get_n(in, 4) != 0;
        k->column_reuse = get_n(in, 4) != 0;
        if (in->bad)
            return false;
    }
    *log = get_str(in);
    return !in->bad && in->at == in->end;
}

enum kiln_cc_status kiln_cc_container_load(const uint8_t *data, size_t size, const uint8_t *key,
                                           kiln_cc_code_loader load_code, struct kiln_cc_program *p,
                                           struct kiln_cc_log *log, char **stored_log)
{
    struct kiln_cc_container c;
    enum kiln_cc_status status = kiln_cc_container_check(data, size, &c, log);
    if (status != KILN_CC_OK)
        return status;
    if (key && memcmp(c.key, key, KILN_CC_HASH_SIZE) != 0) {
        kiln_cc_log_append(log, "error: Kiln binary was built from another program\n");
        return KILN_CC_INVALID_BINARY;
    }
    struct in in = {c.info, c.info + c.info_size, false};
    char **wg_names = NULL;
    *stored_log = NULL;
    if (!read_info(&in, p, &wg_names, stored_log)) {
        kiln_cc_log_append(log, "error: Kiln binary has malformed kernel descriptions\n");
        status = KILN_CC_INVALID_BINARY;
        goto out_free_names;
    }
    if (p->kind != KILN_CC_EXECUTABLE) {
        /* Bitcode, parsed only when linked. */
        p->bitcode = malloc(c.object_size ? c.object_size : 1);
        if (!p->bitcode) {
            status = KILN_CC_OUT_OF_MEMORY;
            goto out_free_names;
        }
        memcpy(p->bitcode, c.object, c.object_size);
        p->bitcode_size = c.object_size;
        goto out_free_names;
    }
    if (!load_code)
        goto out_free_names;
    status = load_code(c.object, c.object_size, (const char *const *)wg_names, p, log);
out_free_names:
    for (unsigned i = 0; wg_names && i < p->num_kernels; i++)
        free(wg_names[i]);
    free(wg_names);
    if (status != KILN_CC_OK) {
        free(*stored_log);
        *stored_log = NULL;
    }
    return status;
}
