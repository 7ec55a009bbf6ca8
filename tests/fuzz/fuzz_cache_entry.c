/*
 * libFuzzer harness: bytes as the kernel-cache entry of a known program
 * (device-cpu/compiler/7-binary/cache.c, read by container.c and elf_load.c), then a build of
 * that program, which looks the entry up. A hit hands out the kernels the entry
 * describes (their information is read, fuzz_common.h); an entry that fails a check
 * must be a miss, and the build compiles the source and stores a good entry again.
 *
 * The cache lives in a directory of its own under $TMPDIR (default /tmp), made at
 * start and removed at exit. As for program binaries, the input's target section,
 * cache key and checksum are rewritten (fz_fix_container) so that mutations reach
 * the kernel descriptions and the ELF loader instead of the checksum test.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char cache_dir[4096];
static char entry_path[4096 + 80];
static uint8_t entry_key[FZ_HASH_BYTES];

/* Removes the cache directory and what the builds left in it. */
static void remove_cache(void)
{
    DIR *d = opendir(cache_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[sizeof(cache_dir) + 256];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(cache_dir);
}

/* The one entry the first build stored: its path and, from its name, its key. */
static void find_entry(void)
{
    DIR *d = opendir(cache_dir);
    FZ_REQUIRE(d, "cannot read %s", cache_dir);
    struct dirent *e;
    unsigned found = 0;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".kiln") != 0 || dot - e->d_name != 2 * FZ_HASH_BYTES)
            continue;
        snprintf(entry_path, sizeof(entry_path), "%s/%s", cache_dir, e->d_name);
        for (unsigned i = 0; i < FZ_HASH_BYTES; i++) {
            unsigned byte;
            FZ_REQUIRE(sscanf(e->d_name + 2 * i, "%2x", &byte) == 1, "entry %s", e->d_name);
            entry_key[i] = (uint8_t)byte;
        }
        found++;
    }
    closedir(d);
    FZ_REQUIRE(found == 1, "%u cache entries in %s, want 1", found, cache_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof(cache_dir), "%s/kiln-fuzz-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    FZ_REQUIRE(mkdtemp(cache_dir), "cannot make %s", cache_dir);
    atexit(remove_cache);
    setenv("KILN_CACHE_DIR", cache_dir, 1);
    fz_setup_context();
    /* Builds fz_small_src: the entry to replace, and this process's target section. */
    fz_setup_target();
    find_entry();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t fixed_size = 0;
    uint8_t *fixed = fz_fix_container(data, size, entry_key, &fixed_size);
    FILE *f = fopen(entry_path, "wb");
    if (!f) {
        free(fixed);
        return 0;
    }
    fwrite(fixed ? fixed : data, 1, fixed ? fixed_size : size, f);
    fclose(f);
    free(fixed);
    cl_program p = fz_build_source(fz_small_src);
    if (p) {
        fz_inspect_program(p);
        clReleaseProgram(p);
    }
    return 0;
}
