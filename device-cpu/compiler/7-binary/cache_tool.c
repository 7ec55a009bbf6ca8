/*
 * kiln-cache: looks at, trims or empties the kernel cache (docs/compiler.md). It
 * finds the directory and the limit exactly as libkiln-cc.so does, from the same
 * environment variables, through the same code (cache_dir.c), and evicts under the
 * same lock, so it may run while programs build.
 *
 * Usage: kiln-cache size | trim | clear | dir
 */
#include "cache_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *to)
{
    fprintf(to,
            "usage: kiln-cache COMMAND\n"
            "  size   the cache's directory, its entries and bytes, and the limit\n"
            "  trim   remove the least recently used entries until the cache fits its limit\n"
            "  clear  remove every entry\n"
            "  dir    print the cache's directory\n"
            "The directory: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln.\n"
            "The limit: $KILN_CACHE_MAX_MIB MiB (default %d; 0 turns the cache off).\n",
            KILN_CC_CACHE_DEFAULT_MIB);
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "size") != 0 && strcmp(cmd, "trim") != 0 && strcmp(cmd, "clear") != 0 &&
        strcmp(cmd, "dir") != 0) {
        fprintf(stderr, "kiln-cache: no command named '%s'\n", cmd);
        usage(stderr);
        return 2;
    }
    char *dir = kiln_cc_cache_dir();
    if (!dir) {
        /* Nothing to look at or remove: not an error for any command. */
        printf("the kernel cache is off (KILN_CACHE_DIR is off or empty, or there is no home)\n");
        return 0;
    }
    uint64_t limit = kiln_cc_cache_limit();
    struct kiln_cc_cache_usage u;
    int status = 0;
    struct stat st;
    bool exists = stat(dir, &st) == 0;
    if (strcmp(cmd, "dir") == 0) {
        printf("%s\n", dir);
    } else if (strcmp(cmd, "size") == 0) {
        /* A directory not made yet is an empty cache. */
        if (!exists) {
            memset(&u, 0, sizeof(u));
        } else if (!kiln_cc_cache_count(dir, &u)) {
            fprintf(stderr, "kiln-cache: cannot read %s: %s\n", dir, strerror(errno));
            status = 1;
        }
        if (status)
            goto out_free_dir;
        printf("directory: %s\n", dir);
        printf("entries: %llu\n", (unsigned long long)u.entries);
        printf("bytes: %llu (%.1f MiB)\n", (unsigned long long)u.bytes, mib(u.bytes));
        printf("limit: %llu (%.0f MiB%s)\n", (unsigned long long)limit, mib(limit),
               limit ? "" : ": the cache is off");
    } else {
        /* clear keeps the writers' recent temporary files: they are about to be entries. */
        uint64_t target = strcmp(cmd, "clear") == 0 ? 0 : limit;
        if (!exists) {
            printf("nothing to remove: %s does not exist\n", dir);
        } else if (kiln_cc_cache_trim(dir, target, target, &u)) {
            printf("removed %llu entries (%llu bytes) and %llu stale temporary files; "
                   "%llu entries (%llu bytes) left\n",
                   (unsigned long long)u.removed_entries, (unsigned long long)u.removed_bytes,
                   (unsigned long long)u.removed_temps, (unsigned long long)u.entries,
                   (unsigned long long)u.bytes);
        } else {
            fprintf(stderr, "kiln-cache: cannot read %s: %s\n", dir, strerror(errno));
            status = 1;
        }
    }
out_free_dir:
    free(dir);
    return status;
}
