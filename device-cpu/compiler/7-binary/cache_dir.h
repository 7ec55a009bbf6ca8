/*
 * The kernel cache's directory as a whole (cache_dir.c): where it is, how large it
 * may grow, and the eviction that keeps it there. Shared by libkiln-cc.so (cache.c)
 * and the kiln-cache command (cache_tool.c), so both find and trim the same
 * directory the same way. Needs nothing but libc.
 */
#ifndef KILN_COMPILER_CACHE_DIR_H
#define KILN_COMPILER_CACHE_DIR_H

#include <stdbool.h>
#include <stdint.h>

/* The limit when KILN_CACHE_MAX_MIB is unset or not a whole number (docs/compiler.md). */
#define KILN_CC_CACHE_DEFAULT_MIB 256

/*
 * The cache directory (malloc()ed): $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else
 * $HOME/.cache/kiln. NULL when KILN_CACHE_DIR is "off" or empty, when there is no
 * home, or out of memory. Read from the environment at every call.
 */
char *kiln_cc_cache_dir(void);

/* The size limit in bytes from KILN_CACHE_MAX_MIB; 0 means no cache at all. */
uint64_t kiln_cc_cache_limit(void);

/* What a scan found and what it removed. */
struct kiln_cc_cache_usage {
    uint64_t entries; /* entries left */
    uint64_t bytes;   /* their file sizes, summed */
    uint64_t removed_entries;
    uint64_t removed_bytes;
    uint64_t removed_temps; /* temporary files of writers gone for a minute or more */
};

/*
 * Scans `dir` under its eviction lock. Temporary files older than a minute are
 * removed; then, if the entries' sizes sum to more than `high` bytes, the least
 * recently used entries are removed until they sum to `low` or less. Files of other
 * names are never touched. Readers take no lock and are never blocked; an entry
 * removed under one is a miss for the next. False if the directory cannot be read.
 */
bool kiln_cc_cache_trim(const char *dir, uint64_t high, uint64_t low,
                        struct kiln_cc_cache_usage *usage);

/* Counts the entries of `dir` and their bytes; removes nothing and takes no lock. */
bool kiln_cc_cache_count(const char *dir, struct kiln_cc_cache_usage *usage);

/*
 * After a writer renamed an entry of `size` bytes into `dir`: adds it to the
 * directory's running size estimate (kept in the lock file) and, when the estimate
 * is over `limit` or unknown, scans and trims to seven eighths of the limit.
 */
void kiln_cc_cache_account(const char *dir, uint64_t size, uint64_t limit);

#endif
