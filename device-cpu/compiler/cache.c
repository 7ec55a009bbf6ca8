/*
 * The kernel cache: a build whose key is found skips Clang, the passes and code
 * generation, and loads the stored object and kernel descriptions instead.
 *
 * Where: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln.
 * KILN_CACHE_DIR=off (or set but empty) turns the cache off. The variables are read
 * at every build. One file per key, <64 hex digits>.kiln, in the container format
 * of container.c.
 *
 * The key is SHA-256 over: the source, the build options as given, the cc1 flags
 * every kernel is compiled with (OpenCL C version and features), the target
 * (host CPU name and features, LLVM version, this library's build id: see
 * kiln_cc_target_id) and the environment variables that change code generation.
 * Each input is length-prefixed, so no two different inputs hash the same bytes.
 *
 * Writes go to a file of a name no other writer uses (pid and a counter) in the
 * same directory, then rename() puts it in place: readers see an old entry, a new
 * one, or none, never half of one, and two processes storing the same key both
 * succeed. A file that fails any check of container.c is ignored and replaced by
 * the rebuild. Nothing here ever fails a build: an unusable directory only means
 * no caching, and the build log gets a note only when an entry could not be written.
 */
#include "cc_internal.h"
#include "kiln_cc_cl_flags.h"

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

/* Finds the GNU build-id note of the object loaded at search->base. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct build_id_search *s = data;
    if ((const void *)info->dlpi_addr != s->base)
        return 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *at = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = at + ph->p_memsz;
        while (at + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)at;
            const uint8_t *name = at + sizeof(*n);
            const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                n->n_descsz <= 64) {
                for (unsigned j = 0; j < n->n_descsz; j++)
                    sprintf(s->hex + 2 * j, "%02x", desc[j]);
                return 1;
            }
            at = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

/*
 * This library's build id: the linker's build-id note, which changes whenever the
 * code or the embedded kernel library does; without one, a hash of the embedded
 * kernel library and the container version.
 */
static void build_id(char hex[2 * 64 + 1])
{
    struct build_id_search s = {0};
    Dl_info info;
    if (dladdr((void *)&kiln_cc_target_id, &info) && info.dli_fbase) {
        s.base = info.dli_fbase;
        if (dl_iterate_phdr(find_build_id, &s)) {
            memcpy(hex, s.hex, sizeof(s.hex));
            return;
        }
    }
    uint8_t digest[KILN_CC_HASH_SIZE];
    kiln_cc_sha256(kiln_cc_kernel_lib_start,
                   (size_t)(kiln_cc_kernel_lib_end - kiln_cc_kernel_lib_start), digest);
    for (unsigned j = 0; j < sizeof(digest); j++)
        sprintf(hex + 2 * j, "%02x", digest[j]);
}

static void init_target(void)
{
    const struct kiln_cc_host *host = kiln_cc_init();
    if (!host)
        return;
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    char id[2 * 64 + 1] = "";
    build_id(id);
    size_t len = strlen(host->cpu) + strlen(host->features) + strlen(id) + 96;
    target_id = malloc(len);
    if (target_id)
        snprintf(target_id, len, "%s;%s;%s;llvm %u.%u.%u;kiln %u %s", KILN_CC_TRIPLE, host->cpu,
                 host->features, major, minor, patch, KILN_CC_CONTAINER_VERSION, id);
}

const char *kiln_cc_target_id(void)
{
    if (pthread_once(&target_once, init_target) != 0)
        abort();
    return target_id;
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

bool kiln_cc_cache_key(const char *source, const char *options, uint8_t key[KILN_CC_HASH_SIZE])
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
    hash_field(&s, "options");
    hash_field(&s, options ? options : "");
    for (size_t i = 0; i < sizeof(codegen_env) / sizeof(codegen_env[0]); i++) {
        hash_field(&s, codegen_env[i]);
        hash_field(&s, getenv(codegen_env[i])); /* unset and empty differ */
    }
    hash_field(&s, "source");
    hash_field(&s, source);
    kiln_cc_sha256_final(&s, key);
    return true;
}

/* The cache directory (malloc()ed), or NULL when the cache is off or has no home. */
static char *cache_dir(void)
{
    const char *dir = getenv("KILN_CACHE_DIR");
    if (dir)
        return *dir && strcmp(dir, "off") != 0 ? strdup(dir) : NULL;
    const char *base = getenv("XDG_CACHE_HOME");
    const char *suffix = "/kiln";
    if (!base || base[0] != '/') {
        base = getenv("HOME");
        suffix = "/.cache/kiln";
    }
    if (!base || !*base)
        return NULL;
    size_t len = strlen(base) + strlen(suffix) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s%s", base, suffix);
    return path;
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

bool kiln_cc_cache_enabled(void)
{
    char *dir = cache_dir();
    free(dir);
    return dir != NULL;
}

bool kiln_cc_cache_read(const uint8_t key[KILN_CC_HASH_SIZE], uint8_t **data, size_t *size)
{
    char *dir = cache_dir();
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
    char *dir = cache_dir();
    if (!dir)
        return;
    char suffix[64];
    snprintf(suffix, sizeof(suffix), ".tmp.%ld.%u", (long)getpid(),
             atomic_fetch_add_explicit(&temp_counter, 1, memory_order_relaxed));
    char *temp = entry_path(dir, key, suffix);
    char *path = entry_path(dir, key, ".kiln");
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
    }
out_free:
    free(temp);
    free(path);
    free(dir);
}
