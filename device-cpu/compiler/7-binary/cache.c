/*
 * The kernel cache: a build whose key is found skips Clang, the passes and code
 * generation, and loads the stored object and kernel descriptions instead.
 *
 * Where: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln.
 * KILN_CACHE_DIR=off (or set but empty) or KILN_CACHE_MAX_MIB=0 turns the cache off.
 * The variables are read at every build (cache_dir.c, shared with the kiln-cache
 * command). One file per key, <64 hex digits>.kiln, in the container format of
 * container.c. The directory is held to its size limit by evicting the least
 * recently used entries (cache_dir.c): a hit sets its entry's mtime, and a store
 * accounts for its entry and trims when the directory is over the limit.
 *
 * The key is SHA-256 over: the source, the build options as given, a local-size variant's
 * kernel, sizes, offset flag and image formats (only a variant's key has them), the cc1 flags
 * every kernel is compiled with (OpenCL C version and features), the target
 * (the CPU as CPUID describes it, the build ids of libkiln-cc.so and
 * libkiln-cc-llvm.so: see kiln_cc_target_id; no LLVM is loaded to compute it) and the environment
 * variables that change code generation. Each input is length-prefixed, so no two different inputs
 * hash the same bytes.
 *
 * Writes go to a file of a name no other writer uses (pid and a counter) in the
 * same directory, then rename() puts it in place: readers see an old entry, a new
 * one, or none, never half of one, and two processes storing the same key both
 * succeed. A file that fails any check of container.c is ignored and replaced by
 * the rebuild. Nothing here ever fails a build: an unusable directory only means
 * no caching, and the build log gets a note only when an entry could not be written.
 */
#include "binary.h"
#include "cache_dir.h"
#include "kiln_cc_cl_flags.h"

#include <cpuid.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Environment variables whose values change the code a build produces. */
static const char *const codegen_env[] = {"KILN_BARRIER_STRATEGY"};

/* An entry larger than this is not read (a sanity limit, not a quota). */
#define MAX_ENTRY ((off_t)1 << 30)

static char *target_id;
static pthread_once_t target_once = PTHREAD_ONCE_INIT;
static atomic_uint temp_counter;

struct build_id_search {
    const void *base;
    char hex[2 * 64 + 1];
};

/* The hex digits of a GNU build-id note in the notes [at, end), or false. */
static bool note_build_id(const uint8_t *at, const uint8_t *end, char hex[2 * 64 + 1])
{
    while (at + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)at;
        const uint8_t *name = at + sizeof(*n);
        const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
        if (desc > end || n->n_descsz > (size_t)(end - desc))
            return false;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
            n->n_descsz <= 64) {
            for (unsigned j = 0; j < n->n_descsz; j++)
                sprintf(hex + 2 * j, "%02x", desc[j]);
            return true;
        }
        at = desc + ((n->n_descsz + 3) & ~3u);
    }
    return false;
}

/* Finds the GNU build-id note of the object loaded at search->base. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct build_id_search *s = data;
    if ((const void *)info->dlpi_addr != s->base)
        return 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const uint8_t *at = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_NOTE && note_build_id(at, at + ph->p_memsz, s->hex))
            return 1;
    }
    return 0;
}

/* The build id of the ELF file at `path`, read from its notes without loading it. */
static bool file_build_id(const char *path, char hex[2 * 64 + 1])
{
    bool found = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ElfW(Ehdr) eh;
    if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
        memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_phentsize == sizeof(ElfW(Phdr)) &&
        eh.e_phnum < 64) {
        ElfW(Phdr) ph[64];
        size_t bytes = eh.e_phnum * sizeof(ElfW(Phdr));
        if (pread(fd, ph, bytes, (off_t)eh.e_phoff) == (ssize_t)bytes) {
            for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
                uint8_t notes[512];
                if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > sizeof(notes) ||
                    pread(fd, notes, ph[i].p_filesz, (off_t)ph[i].p_offset) !=
                        (ssize_t)ph[i].p_filesz)
                    continue;
                found = note_build_id(notes, notes + ph[i].p_filesz, hex);
            }
        }
    }
    close(fd);
    return found;
}

static char *backend_path;

/*
 * This library's build id and the back end's (each changes whenever its code or,
 * for the back end, the embedded kernel library does), read from their notes; a
 * library without one counts as "none". Also sets backend_path, next to this one.
 */
static void build_ids(char self[2 * 64 + 1], char backend[2 * 64 + 1])
{
    struct build_id_search s = {0};
    Dl_info info;
    strcpy(self, "none");
    strcpy(backend, "none");
    if (!dladdr((void *)&kiln_cc_target_id, &info) || !info.dli_fname)
        return;
    s.base = info.dli_fbase;
    if (dl_iterate_phdr(find_build_id, &s))
        memcpy(self, s.hex, sizeof(s.hex));
    const char *slash = strrchr(info.dli_fname, '/');
    int dir_len = slash ? (int)(slash - info.dli_fname) + 1 : 0;
    size_t len = (size_t)dir_len + sizeof(KILN_CC_BACKEND_LIBRARY);
    backend_path = malloc(len);
    if (!backend_path)
        return;
    snprintf(backend_path, len, "%.*s%s", dir_len, info.dli_fname, KILN_CC_BACKEND_LIBRARY);
    file_build_id(backend_path, backend);
}

/*
 * What identifies this CPU to the code generator: the vendor, family, model and
 * stepping, and every feature flag LLVM reads to choose a CPU and its features
 * (CPUID leaves 1, 7 and 0x80000001, the AVX state the OS enables), as hex words.
 */
static void cpu_id(char out[192])
{
    unsigned a, b, c, d, max, words[13] = {0};
    if (!__get_cpuid(0, &max, &b, &c, &d)) {
        strcpy(out, "cpu unknown");
        return;
    }
    words[0] = b;
    words[1] = d;
    words[2] = c;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        words[3] = a;
        words[4] = c;
        words[5] = d;
        if (c & bit_OSXSAVE) {
            unsigned lo, hi;
            __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            words[11] = lo;
        }
    }
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        words[6] = b;
        words[7] = c;
        words[8] = d;
        __cpuid_count(7, 1, a, b, c, d);
        words[9] = a;
    }
    if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
        words[10] = c;
        words[12] = d;
    }
    int at = snprintf(out, 192, "cpuid");
    for (unsigned i = 0; i < 13; i++)
        at += snprintf(out + at, (size_t)(192 - at), " %08x", words[i]);
}

static void init_target(void)
{
    char self[2 * 64 + 1], backend[2 * 64 + 1], cpu[192];
    build_ids(self, backend);
    cpu_id(cpu);
    size_t len = strlen(cpu) + strlen(self) + strlen(backend) + 96;
    target_id = malloc(len);
    if (target_id)
        snprintf(target_id, len, "%s;%s;kiln %u %s %s", KILN_CC_TRIPLE, cpu,
                 KILN_CC_CONTAINER_VERSION, self, backend);
}

const char *kiln_cc_target_id(void)
{
    if (pthread_once(&target_once, init_target) != 0)
        abort();
    return target_id;
}

const char *kiln_cc_backend_path(void)
{
    return kiln_cc_target_id() ? backend_path : NULL;
}

static void hash_field(struct kiln_cc_sha256 *s, const char *text)
{
    uint64_t len = text ? strlen(text) + 1 : 0;
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(len >> (8 * i));
    kiln_cc_sha256_update(s, b, sizeof(b));
    if (text)
        kiln_cc_sha256_update(s, text, len);
}

bool kiln_cc_cache_key(const char *source, const char *options,
                       const struct kiln_cc_variant *variant, uint8_t key[KILN_CC_HASH_SIZE])
{
    static const char *const cl_flags[] = {KILN_CC_CL_FLAGS NULL};
    const char *target = kiln_cc_target_id();
    if (!target)
        return false;
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    hash_field(&s, "kiln kernel cache key");
    hash_field(&s, target);
    for (size_t i = 0; cl_flags[i]; i++)
        hash_field(&s, cl_flags[i]);
    const char *extensions, *features;
    kiln_cc_language_get(&extensions, &features);
    hash_field(&s, "language");
    hash_field(&s, extensions);
    hash_field(&s, features);
    hash_field(&s, "options");
    hash_field(&s, options ? options : "");
    for (size_t i = 0; i < sizeof(codegen_env) / sizeof(codegen_env[0]); i++) {
        hash_field(&s, codegen_env[i]);
        hash_field(&s, getenv(codegen_env[i])); /* unset and empty differ */
    }
    /* Only a variant has this field, so no variant shares a key with an ordinary build. */
    if (variant) {
        char shape[128];
        snprintf(shape, sizeof(shape), "%zu,%zu,%zu:%d", variant->local[0], variant->local[1],
                 variant->local[2], variant->zero_offset ? 1 : 0);
        hash_field(&s, "variant");
        hash_field(&s, variant->kernel);
        hash_field(&s, shape);
        /* Only an image-format variant has these: the other variants keep their keys. */
        for (unsigned i = 0; i < variant->num_images && i < KILN_CC_VARIANT_IMAGES; i++) {
            const struct kiln_cc_variant_image *im = &variant->images[i];
            snprintf(shape, sizeof(shape), "image %u:%x,%x,%u,%u", (unsigned)im->arg,
                     (unsigned)im->order, (unsigned)im->data_type, (unsigned)im->elem_size,
                     (unsigned)im->num_channels);
            hash_field(&s, shape);
        }
    }
    hash_field(&s, "source");
    hash_field(&s, source);
    kiln_cc_sha256_final(&s, key);
    return true;
}

/* mkdir -p; true if the directory exists at the end. */
static bool make_dirs(char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode);
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            *slash = '/';
            return false;
        }
        *slash = '/';
    }
    return (mkdir(path, 0755) == 0 || errno == EEXIST) && stat(path, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

/* dir/<hex key><suffix>, malloc()ed. */
static char *entry_path(const char *dir, const uint8_t key[KILN_CC_HASH_SIZE], const char *suffix)
{
    size_t len = strlen(dir) + 2 * KILN_CC_HASH_SIZE + strlen(suffix) + 2;
    char *path = malloc(len);
    if (!path)
        return NULL;
    size_t at = (size_t)snprintf(path, len, "%s/", dir);
    for (unsigned i = 0; i < KILN_CC_HASH_SIZE; i++)
        at += (size_t)snprintf(path + at, len - at, "%02x", key[i]);
    snprintf(path + at, len - at, "%s", suffix);
    return path;
}

/* The directory, or NULL when the cache is off: no directory, or a limit of 0. */
static char *cache_dir(uint64_t *limit)
{
    *limit = kiln_cc_cache_limit();
    return *limit ? kiln_cc_cache_dir() : NULL;
}

bool kiln_cc_cache_enabled(void)
{
    uint64_t limit;
    char *dir = cache_dir(&limit);
    free(dir);
    return dir != NULL;
}

bool kiln_cc_cache_read(const uint8_t key[KILN_CC_HASH_SIZE], uint8_t **data, size_t *size)
{
    uint64_t limit;
    char *dir = cache_dir(&limit);
    char *path = dir ? entry_path(dir, key, ".kiln") : NULL;
    bool ok = false;
    free(dir);
    if (!path)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < MAX_ENTRY) {
        size_t want = (size_t)st.st_size, got = 0;
        uint8_t *buf = malloc(want);
        while (buf && got < want) {
            ssize_t n = read(fd, buf + got, want - got);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                break;
            if (n > 0)
                got += (size_t)n;
        }
        if (buf && got == want) {
            /* A hit is a use: eviction goes by mtime (cache_dir.c). Failure only ages it. */
            futimens(fd, NULL);
            *data = buf;
            *size = want;
            ok = true;
        } else {
            free(buf);
        }
    }
    close(fd);
    return ok;
}

static bool write_all(int fd, const uint8_t *data, size_t size)
{
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= (size_t)n;
    }
    return true;
}

void kiln_cc_cache_write(const uint8_t key[KILN_CC_HASH_SIZE], const uint8_t *data, size_t size,
                         struct kiln_cc_log *log)
{
    uint64_t limit;
    char *dir = cache_dir(&limit);
    char *temp = NULL, *path = NULL;
    /* One program may not take more than a quarter of the cache (it would empty it). */
    if (!dir || size > limit / 4)
        goto out_free;
    char suffix[64];
    snprintf(suffix, sizeof(suffix), ".tmp.%ld.%u", (long)getpid(),
             atomic_fetch_add_explicit(&temp_counter, 1, memory_order_relaxed));
    temp = entry_path(dir, key, suffix);
    path = entry_path(dir, key, ".kiln");
    if (!temp || !path || !make_dirs(dir))
        goto out_free;
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        goto out_free;
    bool ok = write_all(fd, data, size);
    ok = close(fd) == 0 && ok;
    if (!ok || rename(temp, path) != 0) {
        kiln_cc_log_printf(log, "note: kernel cache: could not store %s: %s\n", path,
                           strerror(errno));
        unlink(temp);
    } else {
        /* Only now is the entry visible; so it is counted, and the cache trimmed, after. */
        kiln_cc_cache_account(dir, size, limit);
    }
out_free:
    free(temp);
    free(path);
    free(dir);
}
