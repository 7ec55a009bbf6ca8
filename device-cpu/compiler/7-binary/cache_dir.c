/*
 * The kernel cache's directory as a whole: where it is, its size limit, and the
 * least-recently-used eviction that holds it to the limit (docs/compiler.md).
 *
 * Design. An entry's mtime is its last use: the writer's rename() leaves the write
 * time, and every hit sets it to now with futimens() (cache.c), since filesystem
 * atimes are often not kept. Readers take no lock and never scan. Writers, after
 * their rename(), take an flock() on "kiln-cache.lock" in the directory and add
 * the entry's size to a running estimate kept as text in that file; only when the
 * estimate passes the limit (or is unknown: no lock file yet, or a crash left it
 * empty) do they scan the directory, sort the entries by mtime and remove the
 * oldest until the rest fit in seven eighths of the limit. The margin makes scans
 * rare once the cache is full: one per limit/8 bytes stored, not one per store.
 *
 * Several processes at once. The lock serialises evictors and the estimate, so two
 * never remove for the same overshoot twice and neither loops: each removes from
 * its own sorted list, once. A reader that opened an entry keeps reading it after
 * unlink(); one that opens it afterwards gets ENOENT, a miss. An entry used (its
 * mtime moved) between the scan and its removal is kept. The estimate only grows
 * past the truth (an entry stored twice under one key counts twice, files removed by
 * hand still count), which at worst brings a scan forward; every scan resets it.
 *
 * Names. Entries are <64 hex digits>.kiln and temporary files <64 hex>.tmp.<pid>.<n>
 * (cache.c). A temporary file younger than a minute belongs to a writer at work and
 * is left alone; an older one was left by a writer that died and is removed. No
 * other file is touched, so a KILN_CACHE_DIR shared with other files is safe.
 */
#include "cache_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_HEX      64
#define ENTRY_SUFFIX ".kiln"
#define TEMP_INFIX   ".tmp."
#define LOCK_NAME    "kiln-cache.lock"
/* A temporary file this old (seconds) belongs to no live writer. */
#define STALE_TEMP_S 60
/* KILN_CACHE_MAX_MIB values above this are taken as this (2^40 MiB: no overflow). */
#define MAX_MIB ((uint64_t)1 << 40)

char *kiln_cc_cache_dir(void)
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

uint64_t kiln_cc_cache_limit(void)
{
    const char *text = getenv("KILN_CACHE_MAX_MIB");
    uint64_t mib = 0;
    if (!text || !*text)
        return (uint64_t)KILN_CC_CACHE_DEFAULT_MIB << 20;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return (uint64_t)KILN_CC_CACHE_DEFAULT_MIB << 20;
        if (mib < MAX_MIB)
            mib = mib * 10 + (uint64_t)(*c - '0');
    }
    return (mib < MAX_MIB ? mib : MAX_MIB) << 20;
}

static bool key_prefix(const char *name)
{
    for (int i = 0; i < KEY_HEX; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return true;
}

static bool is_entry(const char *name)
{
    return strlen(name) == KEY_HEX + strlen(ENTRY_SUFFIX) && key_prefix(name) &&
           strcmp(name + KEY_HEX, ENTRY_SUFFIX) == 0;
}

static bool is_temp(const char *name)
{
    return strlen(name) > KEY_HEX + strlen(TEMP_INFIX) && key_prefix(name) &&
           strncmp(name + KEY_HEX, TEMP_INFIX, strlen(TEMP_INFIX)) == 0;
}

struct entry {
    char name[KEY_HEX + sizeof(ENTRY_SUFFIX)];
    struct timespec used; /* mtime: the last hit, or the write */
    uint64_t size;
};

static int by_use(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/*
 * Lists the entries of the open directory `d` into *list (malloc()ed, or NULL when
 * `list` is NULL: then only counts) and sums them into `u`; with `sweep`, removes
 * stale temporary files on the way. False when out of memory.
 */
static bool scan(DIR *d, bool sweep, struct entry **list, size_t *count,
                 struct kiln_cc_cache_usage *u)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    size_t n = 0, cap = 0;
    struct entry *all = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        bool entry = is_entry(e->d_name);
        if (!entry && !(sweep && is_temp(e->d_name)))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue; /* gone meanwhile, or not ours */
        if (!entry) {
            if (st.st_mtim.tv_sec + STALE_TEMP_S < now.tv_sec &&
                unlinkat(dirfd(d), e->d_name, 0) == 0)
                u->removed_temps++;
            continue;
        }
        u->entries++;
        u->bytes += (uint64_t)st.st_size;
        if (!list)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            struct entry *grown = realloc(all, cap * sizeof(*all));
            if (!grown) {
                free(all);
                return false;
            }
            all = grown;
        }
        memcpy(all[n].name, e->d_name, sizeof(all[n].name));
        all[n].used = st.st_mtim;
        all[n].size = (uint64_t)st.st_size;
        n++;
    }
    if (list) {
        *list = all;
        *count = n;
    }
    return true;
}

/* Removes entries of `list`, least recently used first, until u->bytes <= low. */
static void evict(DIR *d, struct entry *list, size_t n, uint64_t low, struct kiln_cc_cache_usage *u)
{
    qsort(list, n, sizeof(*list), by_use);
    for (size_t i = 0; i < n && u->bytes > low; i++) {
        struct stat st;
        if (fstatat(dirfd(d), list[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            /* Used or rewritten since the scan: it is not the oldest any more. */
            if (st.st_mtim.tv_sec != list[i].used.tv_sec ||
                st.st_mtim.tv_nsec != list[i].used.tv_nsec)
                continue;
            if (unlinkat(dirfd(d), list[i].name, 0) != 0 && errno != ENOENT)
                continue;
            u->removed_entries++;
            u->removed_bytes += list[i].size;
        }
        /* Removed here or by another process: either way it no longer counts. */
        u->entries--;
        u->bytes -= list[i].size;
    }
}

/* The lock file, open and locked (closing it unlocks), or -1. */
static int lock_dir(const char *dir)
{
    size_t len = strlen(dir) + sizeof("/" LOCK_NAME);
    char *path = malloc(len);
    if (!path)
        return -1;
    snprintf(path, len, "%s/%s", dir, LOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(path);
    while (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            fd = -1;
        }
    }
    return fd;
}

/* The size estimate in the lock file; false when there is none. */
static bool estimate_read(int fd, uint64_t *bytes)
{
    char text[32];
    ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
    if (n < 2 || text[n - 1] != '\n')
        return false;
    uint64_t v = 0;
    for (ssize_t i = 0; i < n - 1; i++) {
        if (text[i] < '0' || text[i] > '9' || v > UINT64_MAX / 16)
            return false;
        v = v * 10 + (uint64_t)(text[i] - '0');
    }
    *bytes = v;
    return true;
}

/* A failed write leaves a short or empty file: an unknown estimate, a scan next time. */
static void estimate_write(int fd, uint64_t bytes)
{
    char text[32];
    int len = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)bytes);
    if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)len, 0) != len)
        (void)ftruncate(fd, 0);
}

/* The scan and eviction of kiln_cc_cache_trim, with the lock (if any) already held. */
static bool trim_locked(const char *dir, uint64_t high, uint64_t low, struct kiln_cc_cache_usage *u)
{
    memset(u, 0, sizeof(*u));
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct entry *list = NULL;
    size_t n = 0;
    bool ok = scan(d, true, &list, &n, u);
    if (ok && u->bytes > high)
        evict(d, list, n, low, u);
    free(list);
    closedir(d);
    return ok;
}

bool kiln_cc_cache_trim(const char *dir, uint64_t high, uint64_t low,
                        struct kiln_cc_cache_usage *usage)
{
    /* Without a lock file (a read-only directory) the removals are still safe alone. */
    int lock = lock_dir(dir);
    bool ok = trim_locked(dir, high, low, usage);
    if (lock >= 0) {
        if (ok)
            estimate_write(lock, usage->bytes);
        close(lock);
    }
    return ok;
}

bool kiln_cc_cache_count(const char *dir, struct kiln_cc_cache_usage *usage)
{
    memset(usage, 0, sizeof(*usage));
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ok = scan(d, false, NULL, NULL, usage);
    closedir(d);
    return ok;
}

void kiln_cc_cache_account(const char *dir, uint64_t size, uint64_t limit)
{
    struct kiln_cc_cache_usage u;
    uint64_t bytes = 0;
    int lock = lock_dir(dir);
    if (lock < 0) {
        kiln_cc_cache_trim(dir, limit, limit - limit / 8, &u);
        return;
    }
    if (estimate_read(lock, &bytes) && bytes <= limit && size <= limit - bytes) {
        estimate_write(lock, bytes + size);
    } else if (trim_locked(dir, limit, limit - limit / 8, &u)) {
        estimate_write(lock, u.bytes);
    }
    close(lock);
}
