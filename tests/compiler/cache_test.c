/*
 * Tests of the kernel cache and of program binaries at the compiler library's
 * interface. A cache hit must happen in a new process, so most tests re-execute
 * this program ("child" mode) with KILN_CACHE_DIR pointing at a directory the test
 * made; the child says through its exit status whether its build was a hit
 * (from_cache()) and whether the kernel computed the right results.
 *
 * Usage: kiln-cache-test LIBKILN_CC.so TEST
 *        kiln-cache-test LIBKILN_CC.so tool KILN_CACHE_COMMAND
 *        kiln-cache-test LIBKILN_CC.so child hit|miss|any
 *        kiln-cache-test LIBKILN_CC.so pad FIRST COUNT ROUNDS
 */
#include "check.h"
#include "hash.h"
#include "kiln_abi.h"
#include "kiln_cc.h"

#include <dirent.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct kiln_cc_interface *cc;
static const char *lib_path;

/* Every field of struct kiln_cc_kernel is set to something other than a default. */
static const char program[] =
    "__attribute__((reqd_work_group_size(16, 1, 1)))\n"
    "__attribute__((vec_type_hint(float4)))\n"
    "kernel void scale(global const float *restrict in, global float *out,\n"
    "                  const float factor, local float *tmp)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * factor + (float)get_local_size(0);\n"
    "}\n"
    "__attribute__((work_group_size_hint(8, 2, 1)))\n"
    "kernel void fill(global volatile int *out, int v) { out[get_global_id(0)] = v; }\n";
static const char options[] = "-cl-kernel-arg-info -DUNUSED=1";

enum { N = 64 };

static struct kiln_cc_program *build(const char *src, const char *opts)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->build(src, opts, &p, &log);
    if (s != KILN_CC_OK) {
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
        p = NULL;
    }
    free(log);
    return p;
}

/* Runs kernel "scale" over N items in groups of 16 and checks every result. */
static int run_scale(const struct kiln_cc_program *p)
{
    const struct kiln_cc_kernel *k = cc->kernel(p, 0);
    CHECK(k && strcmp(k->name, "scale") == 0 && k->wg);
    static float in[N], out[N];
    for (int i = 0; i < N; i++) {
        in[i] = (float)i;
        out[i] = -1.0f;
    }
    float *pin = in, *pout = out, factor = 3.0f;
    size_t tmp_offset = 0;
    void *args[] = {&pin, &pout, &factor, &tmp_offset};
    static _Alignas(128) char local_mem[4096];
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = 1;
    c.local_mem = local_mem;
    for (unsigned d = 0; d < 3; d++) {
        c.global_size[d] = d ? 1 : N;
        c.enqueued_local_size[d] = c.local_size[d] = d ? 1 : 16;
        c.num_groups[d] = d ? 1 : N / 16;
    }
    for (size_t g = 0; g < N / 16; g++) {
        c.group_id[0] = g;
        k->wg(args, &c);
    }
    for (int i = 0; i < N; i++)
        CHECK(out[i] == 3.0f * (float)i + 16.0f);
    return 0;
}

static bool same_str(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Compares every description field of two builds of the same program. */
static int same_descriptions(const struct kiln_cc_program *a, const struct kiln_cc_program *b)
{
    CHECK(cc->num_kernels(a) == 2 && cc->num_kernels(b) == 2);
    for (unsigned i = 0; i < 2; i++) {
        const struct kiln_cc_kernel *x = cc->kernel(a, i), *y = cc->kernel(b, i);
        CHECK(same_str(x->name, y->name) && x->num_args == y->num_args);
        CHECK(same_str(x->attributes, y->attributes));
        for (unsigned d = 0; d < 3; d++) {
            CHECK(x->reqd_work_group_size[d] == y->reqd_work_group_size[d]);
            CHECK(x->work_group_size_hint[d] == y->work_group_size_hint[d]);
        }
        CHECK(x->local_mem_static == y->local_mem_static);
        CHECK(x->scratch_fixed == y->scratch_fixed);
        CHECK(x->scratch_per_item == y->scratch_per_item);
        CHECK(x->private_mem == y->private_mem);
        CHECK(x->wg != NULL && y->wg != NULL);
        for (unsigned j = 0; j < x->num_args; j++) {
            const struct kiln_cc_arg *s = &x->args[j], *t = &y->args[j];
            CHECK(s->kind == t->kind && s->size == t->size && s->align == t->align);
            CHECK(s->addr_space == t->addr_space);
            CHECK(same_str(s->name, t->name) && same_str(s->type_name, t->type_name));
            CHECK(same_str(s->access_qual, t->access_qual));
            CHECK(same_str(s->type_qual, t->type_qual));
        }
    }
    /* The values themselves, so that two equally wrong descriptions cannot pass. */
    const struct kiln_cc_kernel *k = cc->kernel(a, 0);
    CHECK(k->reqd_work_group_size[0] == 16 && k->reqd_work_group_size[1] == 1);
    CHECK(strstr(k->attributes, "reqd_work_group_size(16,1,1)") != NULL);
    CHECK(k->num_args == 4 && same_str(k->args[0].name, "in"));
    CHECK(strstr(k->args[0].type_qual, "const") && strstr(k->args[0].type_qual, "restrict"));
    CHECK(k->args[2].kind == KILN_CC_ARG_VALUE && k->args[2].size == 4);
    CHECK(k->args[3].kind == KILN_CC_ARG_LOCAL_PTR);
    CHECK(same_str(k->args[3].type_name, "float*"));
    const struct kiln_cc_kernel *f = cc->kernel(a, 1);
    CHECK(f->work_group_size_hint[0] == 8 && f->work_group_size_hint[1] == 2);
    CHECK(same_str(f->args[0].type_qual, "volatile"));
    return 0;
}

/* Whether a file whose path contains `name` is mapped into this process. */
static bool mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = strstr(line, name) != NULL;
    if (f)
        fclose(f);
    return found;
}

/* Child mode: one build, its results, and whether it came from the cache. */
static int child(const char *expect)
{
    struct kiln_cc_program *p = build(program, options);
    CHECK(p);
    int hit = cc->from_cache(p);
    fprintf(stderr, "child %d: %s\n", (int)getpid(), hit ? "hit" : "miss");
    if (strcmp(expect, "hit") == 0)
        CHECK(hit);
    else if (strcmp(expect, "miss") == 0)
        CHECK(!hit);
    CHECK(run_scale(p) == 0);
    /* A hit, loaded and run, needs no LLVM: neither library may be in the process yet. */
    if (hit)
        CHECK(!mapped("libkiln-cc-llvm") && !mapped("libLLVM") && !mapped("libclang"));
    /* The descriptions equal those of a build that ran every stage. */
    char *dir = getenv("KILN_CACHE_DIR") ? strdup(getenv("KILN_CACHE_DIR")) : NULL;
    setenv("KILN_CACHE_DIR", "off", 1);
    struct kiln_cc_program *fresh = build(program, options);
    CHECK(fresh && !cc->from_cache(fresh));
    CHECK(same_descriptions(p, fresh) == 0);
    cc->destroy(fresh);
    if (dir)
        setenv("KILN_CACHE_DIR", dir, 1);
    free(dir);
    cc->destroy(p);
    return 0;
}

/* The variant the variant tests build first: fill, for groups of 8x2, any offset. */
static const struct kiln_cc_variant fill_8x2 = {"fill", {8, 2, 1}, false, 0, {{0}}};

/* A build_variant() of `program`, `options`; NULL (the log on stderr) unless it built. */
static struct kiln_cc_program *build_variant(const struct kiln_cc_variant *v)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->build_variant(program, options, v, &p, &log);
    if (s != KILN_CC_OK) {
        fprintf(stderr, "variant build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
        p = NULL;
    }
    free(log);
    return p;
}

/* Child mode: fill_8x2 built once; `expect` says whether the cache must have it. */
static int child_variant(const char *expect)
{
    struct kiln_cc_program *p = build_variant(&fill_8x2);
    CHECK(p && cc->num_kernels(p) == 1 && strcmp(cc->kernel(p, 0)->name, "fill") == 0);
    int hit = cc->from_cache(p);
    fprintf(stderr, "variant child %d: %s\n", (int)getpid(), hit ? "hit" : "miss");
    CHECK(hit == (strcmp(expect, "hit") == 0));
    cc->destroy(p);
    return 0;
}

static pid_t spawn_child(const char *expect)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "kiln-cache-test", lib_path, "child", expect, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static bool child_ok(pid_t pid)
{
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

static bool run_child(const char *expect)
{
    return child_ok(spawn_child(expect));
}

static char temp_dir[256];

/* A fresh, empty directory; KILN_CACHE_DIR points at it. */
static int fresh_cache(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(temp_dir, sizeof(temp_dir), "%s/kiln-cache-test.XXXXXX", base ? base : "/tmp");
    CHECK(mkdtemp(temp_dir) != NULL);
    setenv("KILN_CACHE_DIR", temp_dir, 1);
    return 0;
}

/*
 * Files in dir but the eviction lock (kiln-cache.lock, made by the first store);
 * *entry is set to the path of the last *.kiln one.
 */
static int count_files(const char *dir, char *entry, size_t entry_size)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "kiln-cache.lock") == 0)
            continue;
        n++;
        size_t len = strlen(e->d_name);
        if (entry && len > 5 && strcmp(e->d_name + len - 5, ".kiln") == 0)
            snprintf(entry, entry_size, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int test_hit(void)
{
    char entry[512] = "";
    CHECK(fresh_cache() == 0);
    CHECK(run_child("miss"));
    CHECK(count_files(temp_dir, entry, sizeof(entry)) == 1 && entry[0]);
    CHECK(run_child("hit"));
    CHECK(run_child("hit"));
    CHECK(count_files(temp_dir, NULL, 0) == 1);
    remove_tree(temp_dir);
    return 0;
}

/* Damages the entry with `how`, then expects a rebuild that repairs it. */
static int damage_and_rebuild(const char *entry, const char *how)
{
    long size = file_size(entry);
    CHECK(size > 200);
    FILE *f = NULL;
    if (strcmp(how, "truncate") == 0) {
        CHECK(truncate(entry, size / 2) == 0);
    } else if (strcmp(how, "empty") == 0) {
        CHECK(truncate(entry, 0) == 0);
    } else if (strcmp(how, "garbage") == 0) {
        CHECK((f = fopen(entry, "w")) != NULL);
        fputs("this is not a Kiln cache entry\n", f);
        CHECK(fclose(f) == 0);
    } else {
        /* Flip one bit: in the header's lengths, the descriptions, or the object. */
        long at = strcmp(how, "flip-header") == 0 ? 60
                  : strcmp(how, "flip-last") == 0 ? size - 1
                                                  : size / 2;
        CHECK((f = fopen(entry, "r+b")) != NULL);
        CHECK(fseek(f, at, SEEK_SET) == 0);
        int c = fgetc(f);
        CHECK(c != EOF);
        CHECK(fseek(f, at, SEEK_SET) == 0);
        fputc(c ^ 0x10, f);
        CHECK(fclose(f) == 0);
    }
    fprintf(stderr, "entry damaged: %s\n", how);
    CHECK(run_child("miss"));
    CHECK(file_size(entry) == size);
    CHECK(run_child("hit"));
    return 0;
}

static int test_corrupt(void)
{
    static const char *const damages[] = {"flip-middle", "flip-header", "flip-last",
                                          "truncate",    "empty",       "garbage"};
    char entry[512] = "";
    CHECK(fresh_cache() == 0);
    CHECK(run_child("miss"));
    CHECK(count_files(temp_dir, entry, sizeof(entry)) == 1 && entry[0]);
    for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++)
        CHECK(damage_and_rebuild(entry, damages[i]) == 0);
    remove_tree(temp_dir);
    return 0;
}

static int test_concurrent(void)
{
    enum { PROCS = 4 };
    pid_t pids[PROCS];
    CHECK(fresh_cache() == 0);
    for (int i = 0; i < PROCS; i++)
        pids[i] = spawn_child("any");
    for (int i = 0; i < PROCS; i++)
        CHECK(child_ok(pids[i]));
    /* One entry, no temporary file left behind, and it is a good one. */
    CHECK(count_files(temp_dir, NULL, 0) == 1);
    CHECK(run_child("hit"));
    remove_tree(temp_dir);
    return 0;
}

static int test_location(void)
{
    char path[512];
    CHECK(fresh_cache() == 0);
    /* off, or set and empty: nothing is stored, not even under XDG_CACHE_HOME. */
    setenv("XDG_CACHE_HOME", temp_dir, 1);
    static const char *const off[] = {"off", ""};
    for (int i = 0; i < 2; i++) {
        setenv("KILN_CACHE_DIR", off[i], 1);
        CHECK(run_child("miss"));
        CHECK(run_child("miss"));
        CHECK(count_files(temp_dir, NULL, 0) == 0);
    }
    /* Unset: $XDG_CACHE_HOME/kiln, created on demand. */
    unsetenv("KILN_CACHE_DIR");
    CHECK(run_child("miss"));
    snprintf(path, sizeof(path), "%s/kiln", temp_dir);
    CHECK(count_files(path, NULL, 0) == 1);
    CHECK(run_child("hit"));
    /* Without XDG_CACHE_HOME: $HOME/.cache/kiln. */
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", temp_dir, 1);
    CHECK(run_child("miss"));
    snprintf(path, sizeof(path), "%s/.cache/kiln", temp_dir);
    CHECK(count_files(path, NULL, 0) == 1);
    /* A directory that cannot be made (a file is in the way): builds still work. */
    snprintf(path, sizeof(path), "%s/a-file", temp_dir);
    FILE *f = fopen(path, "w");
    CHECK(f && fclose(f) == 0);
    strcat(path, "/cache");
    setenv("KILN_CACHE_DIR", path, 1);
    CHECK(run_child("miss"));
    CHECK(run_child("miss"));
    remove_tree(temp_dir);
    return 0;
}

static int expect_hit(const char *src, const char *opts, int want)
{
    struct kiln_cc_program *p = build(src, opts);
    CHECK(p);
    int hit = cc->from_cache(p);
    cc->destroy(p);
    if (hit != want)
        fprintf(stderr, "expected a %s\n", want ? "hit" : "miss");
    CHECK(hit == want);
    return 0;
}

/* A variant build of `program` must be a hit exactly when `want`, and hold v's kernel alone. */
static int expect_variant_hit(const struct kiln_cc_variant *v, int want)
{
    struct kiln_cc_program *p = build_variant(v);
    CHECK(p && cc->num_kernels(p) == 1 && strcmp(cc->kernel(p, 0)->name, v->kernel) == 0);
    int hit = cc->from_cache(p);
    cc->destroy(p);
    if (hit != want)
        fprintf(stderr, "variant %s %zux%zux%zu%s: expected a %s\n", v->kernel, v->local[0],
                v->local[1], v->local[2], v->zero_offset ? " zero offset" : "",
                want ? "hit" : "miss");
    CHECK(hit == want);
    return 0;
}

/*
 * Local-size variants have keys of their own: a variant never shares an entry with the
 * ordinary build of its source and options nor with another variant (another kernel, size or
 * offset flag), and its entry serves a later process.
 */
static int test_variant_key(void)
{
    static const struct kiln_cc_variant others[] = {
        {"fill", {8, 2, 1}, true, 0, {{0}}},
        {"fill", {8, 1, 2}, false, 0, {{0}}},
        {"fill", {16, 1, 1}, false, 0, {{0}}},
        {"scale", {16, 1, 1}, false, 0, {{0}}},
    };
    CHECK(fresh_cache() == 0);
    unsetenv("KILN_BARRIER_STRATEGY");
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(expect_variant_hit(&fill_8x2, 0) == 0);
    CHECK(expect_variant_hit(&fill_8x2, 1) == 0);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        CHECK(expect_variant_hit(&others[i], 0) == 0);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        CHECK(expect_variant_hit(&others[i], 1) == 0);
    /* The ordinary build still finds its own entry, with both kernels. */
    struct kiln_cc_program *p = build(program, options);
    CHECK(p && cc->from_cache(p) && cc->num_kernels(p) == 2);
    cc->destroy(p);
    CHECK(count_files(temp_dir, NULL, 0) == 6);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "kiln-cache-test", lib_path, "child-variant", "hit", (char *)NULL);
        _exit(127);
    }
    CHECK(child_ok(pid));
    remove_tree(temp_dir);
    return 0;
}

/* What the key covers: in one process, a miss, then hits until something changes. */
static int test_key(void)
{
    static const char other_source[] =
        "kernel void fill(global volatile int *out, int v) { out[get_global_id(0)] = v;  }\n";
    CHECK(fresh_cache() == 0);
    unsetenv("KILN_BARRIER_STRATEGY");
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(expect_hit(program, options, 1) == 0);
    CHECK(expect_hit(program, "-cl-kernel-arg-info -DUNUSED=2", 0) == 0);
    CHECK(expect_hit(program, NULL, 0) == 0);
    CHECK(expect_hit(program, "", 1) == 0); /* no options and "" are the same build */
    CHECK(expect_hit(other_source, options, 0) == 0);
    CHECK(expect_hit(other_source, options, 1) == 0);
    setenv("KILN_BARRIER_STRATEGY", "test-value", 1);
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(expect_hit(program, options, 1) == 0);
    unsetenv("KILN_BARRIER_STRATEGY");
    CHECK(expect_hit(program, options, 1) == 0);
    /* Builds that trace the stages bypass the cache, in both directions. */
    int files = count_files(temp_dir, NULL, 0);
    setenv("KILN_KEEP_ASM", "1", 1);
    struct kiln_cc_program *p = build(program, "-DKEEP_ASM");
    CHECK(p && !cc->from_cache(p));
    char *text = cc->assembly(p);
    CHECK(text && strstr(text, "kiln.wg.scale"));
    free(text);
    cc->destroy(p);
    CHECK(expect_hit(program, options, 0) == 0);
    unsetenv("KILN_KEEP_ASM");
    char dump[300];
    snprintf(dump, sizeof(dump), "%s-ir", temp_dir);
    CHECK(mkdir(dump, 0700) == 0);
    setenv("KILN_DUMP_IR", dump, 1);
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(count_files(dump, NULL, 0) > 0);
    unsetenv("KILN_DUMP_IR");
    CHECK(count_files(temp_dir, NULL, 0) == files);
    remove_tree(dump);
    remove_tree(temp_dir);
    return 0;
}

static const char other_program[] =
    "kernel void fill(global volatile int *out, int v) { out[get_global_id(0)] = v + 1; }\n";

/* An intact entry under another key's name (a copied file) is a miss, not a wrong program. */
static int test_swapped(void)
{
    char a[512] = "", b[512] = "", saved[600];
    CHECK(fresh_cache() == 0);
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(count_files(temp_dir, a, sizeof(a)) == 1 && a[0]);
    snprintf(saved, sizeof(saved), "%s/saved", temp_dir);
    CHECK(rename(a, saved) == 0);
    CHECK(expect_hit(other_program, NULL, 0) == 0);
    CHECK(count_files(temp_dir, b, sizeof(b)) == 2 && b[0] && strcmp(a, b) != 0);
    CHECK(rename(saved, b) == 0);
    CHECK(expect_hit(other_program, NULL, 0) == 0);
    CHECK(expect_hit(other_program, NULL, 1) == 0);
    remove_tree(temp_dir);
    return 0;
}

/*
 * The size limit and eviction (cache_dir.c). Programs of about 100 KB each (a
 * constant table the kernel reads at run time, so it stays in the object), told
 * apart by -DID, fill caches limited to 1 MiB.
 */
static const char pad_program[] =
    "constant uchar pad[PAD] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};\n"
    "kernel void pad_read(global uchar *out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = pad[i] + (uchar)ID;\n"
    "}\n";

enum { PAD_BYTES = 100000, PAD_ITEMS = 16, MAX_NAMES = 128 };

/* Builds pad program `id` and runs it; *hit says whether it came from the cache. */
static int build_pad(int id, int *hit)
{
    char opts[64];
    snprintf(opts, sizeof(opts), "-DPAD=%d -DID=%d", PAD_BYTES, id);
    struct kiln_cc_program *p = build(pad_program, opts);
    CHECK(p);
    *hit = cc->from_cache(p);
    const struct kiln_cc_kernel *k = cc->kernel(p, 0);
    CHECK(k && strcmp(k->name, "pad_read") == 0 && k->wg);
    static unsigned char out[PAD_ITEMS];
    memset(out, 0, sizeof(out));
    unsigned char *pout = out;
    void *args[] = {&pout};
    static _Alignas(128) char local_mem[256];
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = 1;
    c.local_mem = local_mem;
    for (unsigned d = 0; d < 3; d++) {
        c.global_size[d] = c.enqueued_local_size[d] = c.local_size[d] = d ? 1 : PAD_ITEMS;
        c.num_groups[d] = 1;
    }
    k->wg(args, &c);
    for (int i = 0; i < PAD_ITEMS; i++)
        CHECK(out[i] == (unsigned char)(i + 1 + id));
    cc->destroy(p);
    return 0;
}

/* What a cache directory holds. */
struct listing {
    int entries, temps, others;
    long long bytes; /* of the entries */
    char names[MAX_NAMES][80];
};

static int list_dir(const char *dir, struct listing *l)
{
    memset(l, 0, sizeof(*l));
    DIR *d = opendir(dir);
    CHECK(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        if (len == 69 && strcmp(e->d_name + 64, ".kiln") == 0) {
            char path[512];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            if (l->entries < MAX_NAMES)
                snprintf(l->names[l->entries], sizeof(l->names[0]), "%s", e->d_name);
            l->entries++;
            l->bytes += file_size(path);
        } else if (strstr(e->d_name, ".tmp.")) {
            l->temps++;
        } else if (strcmp(e->d_name, "kiln-cache.lock") != 0) {
            l->others++;
        }
    }
    closedir(d);
    return 0;
}

static bool listed(const struct listing *l, const char *name)
{
    for (int i = 0; i < l->entries && i < MAX_NAMES; i++)
        if (strcmp(l->names[i], name) == 0)
            return true;
    return false;
}

/*
 * The entries of a cache in order of last use, oldest first, as the test drove it:
 * after every build the directory must hold within the limit and its entries must be
 * the most recently used ones: a suffix of this list.
 */
struct lru {
    int n;
    char names[MAX_NAMES][80];
    int id[MAX_NAMES];
};

static void lru_use(struct lru *r, int at)
{
    char name[80];
    int id = r->id[at];
    memcpy(name, r->names[at], sizeof(name));
    memmove(&r->names[at], &r->names[at + 1], (size_t)(r->n - at - 1) * sizeof(name));
    memmove(&r->id[at], &r->id[at + 1], (size_t)(r->n - at - 1) * sizeof(int));
    memcpy(r->names[r->n - 1], name, sizeof(name));
    r->id[r->n - 1] = id;
}

static int lru_find(const struct lru *r, int id)
{
    for (int i = 0; i < r->n; i++)
        if (r->id[i] == id)
            return i;
    return -1;
}

/* Builds pad program `id`, expects a hit exactly when `r` says it is still there. It first
 * waits 20 ms: the kernel stamps files from a clock that ticks every few milliseconds, and a
 * hit takes less than one, so two uses without the wait could get the same mtime and the
 * eviction order between them would be a toss-up. */
static int lru_build(struct lru *r, int id, long long limit)
{
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    struct listing before, after;
    CHECK(list_dir(temp_dir, &before) == 0);
    int at = lru_find(r, id);
    bool there = at >= 0 && listed(&before, r->names[at]);
    int hit = 0;
    CHECK(build_pad(id, &hit) == 0);
    if (hit != there)
        fprintf(stderr, "program %d: expected a %s\n", id, there ? "hit" : "miss");
    CHECK(hit == there);
    CHECK(list_dir(temp_dir, &after) == 0);
    if (hit) {
        lru_use(r, at);
    } else {
        /* The new entry: the one name not there before. */
        int found = -1;
        for (int i = 0; i < after.entries && i < MAX_NAMES; i++)
            if (!listed(&before, after.names[i]))
                found = i;
        CHECK(found >= 0 && r->n < MAX_NAMES);
        if (at >= 0) /* built again after its eviction */
            lru_use(r, at);
        else
            r->id[r->n++] = id;
        memcpy(r->names[r->n - 1], after.names[found], sizeof(after.names[0]));
    }
    if (after.bytes > limit)
        fprintf(stderr, "%lld bytes in the cache, limit %lld\n", after.bytes, limit);
    CHECK(after.bytes <= limit && after.temps == 0);
    /* What is left is the most recently used: once one entry is gone, so are all older. */
    bool gone_seen = false;
    for (int i = r->n - 1; i >= 0; i--) {
        bool present = listed(&after, r->names[i]);
        if (present && gone_seen)
            fprintf(stderr, "program %d kept after a more recently used one went\n", r->id[i]);
        CHECK(!(present && gone_seen));
        gone_seen = gone_seen || !present;
    }
    return 0;
}

static bool lru_present(const struct lru *r, int id)
{
    struct listing l;
    int at = lru_find(r, id);
    return at >= 0 && list_dir(temp_dir, &l) == 0 && listed(&l, r->names[at]);
}

/*
 * Three times the limit, built in order: the cache stays within it, oldest out first.
 * Recency is the mtime, so the order needs timestamps finer than the tens of
 * milliseconds between two builds (ext4, xfs, btrfs and tmpfs keep nanoseconds).
 */
static int test_limit(void)
{
    static struct lru r;
    CHECK(fresh_cache() == 0);
    setenv("KILN_CACHE_MAX_MIB", "1", 1);
    for (int id = 0; id < 30; id++)
        CHECK(lru_build(&r, id, 1 << 20) == 0);
    CHECK(!lru_present(&r, 0) && lru_present(&r, 29));
    struct listing l;
    CHECK(list_dir(temp_dir, &l) == 0);
    fprintf(stderr, "%d entries, %lld bytes left\n", l.entries, l.bytes);
    CHECK(l.entries >= 5 && l.others == 0);
    /* The oldest built again: a miss, stored again, and now the newest. */
    CHECK(lru_build(&r, 0, 1 << 20) == 0 && lru_present(&r, 0));
    CHECK(lru_build(&r, 29, 1 << 20) == 0);
    remove_tree(temp_dir);
    return 0;
}

/* A hit makes its entry the most recently used: it outlives entries stored after it. */
static int test_recency(void)
{
    static struct lru r;
    CHECK(fresh_cache() == 0);
    setenv("KILN_CACHE_MAX_MIB", "1", 1);
    for (int id = 0; id < 4; id++)
        CHECK(lru_build(&r, id, 1 << 20) == 0);
    CHECK(lru_build(&r, 0, 1 << 20) == 0 && r.id[r.n - 1] == 0); /* a hit */
    int id = 4;
    while (lru_present(&r, 1) && id < 40)
        CHECK(lru_build(&r, id++, 1 << 20) == 0);
    CHECK(!lru_present(&r, 1));
    /* Program 0 was built before 1, but used after it. */
    CHECK(lru_present(&r, 0));
    /* In a new process too: its hit is a use. */
    CHECK(run_child("miss"));
    CHECK(run_child("hit"));
    while (lru_present(&r, 0) && id < 60)
        CHECK(lru_build(&r, id++, 1 << 20) == 0);
    CHECK(!lru_present(&r, 0) && !lru_present(&r, 2) && !lru_present(&r, 3));
    remove_tree(temp_dir);
    return 0;
}

static bool exists(const char *name);

/* KILN_CACHE_MAX_MIB=0: no cache. Nothing is written, an entry there is not read or touched. */
static int test_off(void)
{
    char entry[512] = "";
    CHECK(fresh_cache() == 0);
    setenv("KILN_CACHE_MAX_MIB", "0", 1);
    CHECK(run_child("miss"));
    CHECK(run_child("miss"));
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(expect_hit(program, options, 0) == 0);
    CHECK(count_files(temp_dir, NULL, 0) == 0 && !exists("kiln-cache.lock"));
    unsetenv("KILN_CACHE_MAX_MIB");
    CHECK(run_child("miss"));
    CHECK(count_files(temp_dir, entry, sizeof(entry)) >= 1 && entry[0]);
    struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
    CHECK(utimensat(AT_FDCWD, entry, old, 0) == 0);
    setenv("KILN_CACHE_MAX_MIB", "0", 1);
    CHECK(run_child("miss"));
    struct stat st;
    CHECK(stat(entry, &st) == 0 && st.st_mtim.tv_sec == 1000000000);
    /* Not a whole number: the default limit. */
    setenv("KILN_CACHE_MAX_MIB", "lots", 1);
    CHECK(run_child("hit"));
    remove_tree(temp_dir);
    return 0;
}

/* Child mode "pad FIRST COUNT ROUNDS": builds pad programs FIRST.. in rounds, any mix. */
static int child_pad(int first, int count, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < count; i++) {
            int hit;
            CHECK(build_pad(first + (i * 7 + r) % count, &hit) == 0);
        }
    }
    return 0;
}

static pid_t spawn_pad(int first, int count, int rounds)
{
    char a[16], b[16], c[16];
    snprintf(a, sizeof(a), "%d", first);
    snprintf(b, sizeof(b), "%d", count);
    snprintf(c, sizeof(c), "%d", rounds);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "kiln-cache-test", lib_path, "pad", a, b, c, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/*
 * Four writers of different programs and two readers of all of them, in a cache
 * that holds a third of what they build: every build right, and at the end the
 * directory within the limit, no temporary file, and every entry left intact.
 */
static int test_evict_concurrent(void)
{
    enum { WRITERS = 4, EACH = 8, READERS = 2 };
    pid_t pids[WRITERS + READERS];
    CHECK(fresh_cache() == 0);
    setenv("KILN_CACHE_MAX_MIB", "1", 1);
    for (int i = 0; i < WRITERS; i++)
        pids[i] = spawn_pad(i * EACH, EACH, 2);
    for (int i = 0; i < READERS; i++)
        pids[WRITERS + i] = spawn_pad(0, WRITERS * EACH, 1);
    bool all_ok = true;
    for (int i = 0; i < WRITERS + READERS; i++)
        all_ok = child_ok(pids[i]) && all_ok;
    CHECK(all_ok);
    struct listing l;
    CHECK(list_dir(temp_dir, &l) == 0);
    fprintf(stderr, "%d entries, %lld bytes left\n", l.entries, l.bytes);
    CHECK(l.bytes <= 1 << 20 && l.temps == 0 && l.others == 0 && l.entries >= 3);
    /* Every entry left is whole: each is a hit (a damaged one would be a miss). */
    setenv("KILN_CACHE_MAX_MIB", "1000", 1);
    int hits = 0;
    for (int id = 0; id < WRITERS * EACH; id++) {
        int hit;
        CHECK(build_pad(id, &hit) == 0);
        hits += hit;
    }
    CHECK(hits == l.entries);
    remove_tree(temp_dir);
    return 0;
}

/* A name that looks like a key, for files the tests plant. */
#define FAKE_KEY "abababababababababababababababababababababababababababababababab"

static int plant(const char *name, time_t age)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", temp_dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("planted\n", f);
    CHECK(fclose(f) == 0);
    struct timespec t[2];
    CHECK(clock_gettime(CLOCK_REALTIME, &t[0]) == 0);
    t[0].tv_sec -= age;
    t[1] = t[0];
    CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
    return 0;
}

static bool exists(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", temp_dir, name);
    return access(path, F_OK) == 0;
}

/*
 * A temporary file a writer left a while ago is removed by the next scan; one a
 * writer may still be writing, and files of other names, are not.
 */
static int test_stale_temp(void)
{
    CHECK(fresh_cache() == 0);
    CHECK(plant(FAKE_KEY ".tmp.99999.0", 3600) == 0);
    CHECK(plant(FAKE_KEY ".tmp.99999.1", 0) == 0);
    CHECK(plant("notes.txt", 3600) == 0);
    CHECK(plant(FAKE_KEY ".kiln.old", 3600) == 0);
    /* The first store finds no size estimate, so it scans. */
    CHECK(run_child("miss"));
    CHECK(!exists(FAKE_KEY ".tmp.99999.0"));
    CHECK(exists(FAKE_KEY ".tmp.99999.1"));
    CHECK(exists("notes.txt") && exists(FAKE_KEY ".kiln.old"));
    CHECK(run_child("hit"));
    remove_tree(temp_dir);
    return 0;
}

/* Runs the kiln-cache command; its output (up to `size` bytes) in `out`. */
static int run_tool(const char *tool, const char *cmd, char *out, size_t size)
{
    char line[1024];
    snprintf(line, sizeof(line), "'%s' %s", tool, cmd);
    FILE *f = popen(line, "r");
    CHECK(f);
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    int status = pclose(f);
    fprintf(stderr, "kiln-cache %s:\n%s", cmd, out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The number after `label` in the kiln-cache output. */
static long long field(const char *out, const char *label)
{
    const char *at = strstr(out, label);
    return at ? strtoll(at + strlen(label), NULL, 10) : -1;
}

static int test_tool(const char *tool)
{
    static struct lru r;
    char out[4096];
    CHECK(fresh_cache() == 0);
    /* A directory not made yet: an empty cache. */
    char missing[300];
    snprintf(missing, sizeof(missing), "%s/not-yet", temp_dir);
    setenv("KILN_CACHE_DIR", missing, 1);
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0 && field(out, "entries: ") == 0);
    CHECK(run_tool(tool, "clear", out, sizeof(out)) == 0);
    CHECK(run_tool(tool, "dir", out, sizeof(out)) == 0 &&
          strncmp(out, missing, strlen(missing)) == 0);
    setenv("KILN_CACHE_DIR", temp_dir, 1);
    unsetenv("KILN_CACHE_MAX_MIB");
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0);
    CHECK(field(out, "limit: ") == 256ll << 20);
    /* 15 programs under the default limit: all kept; size counts them. */
    for (int id = 0; id < 15; id++)
        CHECK(lru_build(&r, id, 256ll << 20) == 0);
    CHECK(lru_build(&r, 0, 256ll << 20) == 0); /* a hit: 0 is now the newest */
    struct listing l;
    CHECK(list_dir(temp_dir, &l) == 0 && l.entries == 15);
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0);
    CHECK(field(out, "entries: ") == 15 && field(out, "bytes: ") == l.bytes);
    /* trim to a lower limit: the least recently used go, 0 and 14 stay. */
    setenv("KILN_CACHE_MAX_MIB", "1", 1);
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0 && field(out, "limit: ") == 1 << 20);
    CHECK(run_tool(tool, "trim", out, sizeof(out)) == 0);
    CHECK(list_dir(temp_dir, &l) == 0 && l.bytes <= 1 << 20 && l.entries < 15);
    CHECK(lru_present(&r, 0) && lru_present(&r, 14) && !lru_present(&r, 1));
    CHECK(lru_build(&r, 14, 1 << 20) == 0); /* still a hit */
    /* clear: no entry left, other files kept, and the cache fills again. */
    CHECK(plant("notes.txt", 0) == 0);
    CHECK(run_tool(tool, "clear", out, sizeof(out)) == 0);
    CHECK(list_dir(temp_dir, &l) == 0 && l.entries == 0 && exists("notes.txt"));
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0 && field(out, "entries: ") == 0);
    unsetenv("KILN_CACHE_MAX_MIB");
    CHECK(run_child("miss"));
    CHECK(run_child("hit"));
    /* The same directory as the library finds without KILN_CACHE_DIR. */
    unsetenv("KILN_CACHE_DIR");
    setenv("XDG_CACHE_HOME", temp_dir, 1);
    CHECK(run_tool(tool, "dir", out, sizeof(out)) == 0);
    CHECK(strncmp(out, temp_dir, strlen(temp_dir)) == 0 && strstr(out, "/kiln\n"));
    CHECK(run_child("miss"));
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0 && field(out, "entries: ") == 1);
    CHECK(run_tool(tool, "clear", out, sizeof(out)) == 0);
    CHECK(run_child("miss"));
    /* Off: nothing to do, and not an error. */
    setenv("KILN_CACHE_DIR", "off", 1);
    CHECK(run_tool(tool, "size", out, sizeof(out)) == 0 && strstr(out, "off"));
    CHECK(run_tool(tool, "bogus", out, sizeof(out)) == 2);
    remove_tree(temp_dir);
    return 0;
}

/* FIPS 180-4 example values, and input fed in pieces of every awkward size. */
static int test_sha256(void)
{
    static const struct {
        const char *text;
        const char *hex;
    } known[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    uint8_t d[KILN_CC_HASH_SIZE], e[KILN_CC_HASH_SIZE];
    char hex[2 * KILN_CC_HASH_SIZE + 1];
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        kiln_cc_sha256(known[i].text, strlen(known[i].text), d);
        for (int j = 0; j < KILN_CC_HASH_SIZE; j++)
            sprintf(hex + 2 * j, "%02x", d[j]);
        CHECK(strcmp(hex, known[i].hex) == 0);
    }
    /* One million 'a', fed 1, 63, 64, 65, ... bytes at a time. */
    static char a[1000000];
    memset(a, 'a', sizeof(a));
    static const size_t steps[] = {1, 63, 64, 65, 55, 56, 1000};
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    for (size_t at = 0, k = 0; at < sizeof(a); k++) {
        size_t n = steps[k % 7] < sizeof(a) - at ? steps[k % 7] : sizeof(a) - at;
        kiln_cc_sha256_update(&s, a + at, n);
        at += n;
    }
    kiln_cc_sha256_final(&s, d);
    kiln_cc_sha256(a, sizeof(a), e);
    CHECK(memcmp(d, e, sizeof(d)) == 0);
    for (int j = 0; j < KILN_CC_HASH_SIZE; j++)
        sprintf(hex + 2 * j, "%02x", d[j]);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    return 0;
}

/* Loads `data`; expects KILN_CC_INVALID_BINARY with `reason` in the log. */
static int expect_invalid(const unsigned char *data, size_t size, const char *reason)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->load_binary(data, size, &p, &log);
    if (s != KILN_CC_INVALID_BINARY || !log || !strstr(log, reason))
        fprintf(stderr, "status %d, log: %s\n", (int)s, log ? log : "(none)");
    CHECK(s == KILN_CC_INVALID_BINARY && p == NULL);
    CHECK(log && strstr(log, reason));
    free(log);
    return 0;
}

static int test_binary(void)
{
    setenv("KILN_CACHE_DIR", "off", 1);
    struct kiln_cc_program *p = build(program, options);
    CHECK(p);
    size_t size = 0;
    const unsigned char *bin = cc->binary(p, &size);
    CHECK(bin && size > 104 && memcmp(bin, "KILNPROG", 8) == 0);
    unsigned char *copy = malloc(size);
    CHECK(copy);
    memcpy(copy, bin, size);

    struct kiln_cc_program *q = NULL;
    char *log = NULL;
    CHECK(cc->load_binary(copy, size, &q, &log) == KILN_CC_OK && q && log);
    free(log);
    CHECK(!cc->from_cache(q));
    CHECK(run_scale(q) == 0);
    CHECK(same_descriptions(q, p) == 0);
    size_t qsize = 0;
    const unsigned char *qbin = cc->binary(q, &qsize);
    CHECK(qsize == size && memcmp(qbin, bin, size) == 0);
    cc->destroy(q);

    CHECK(expect_invalid(copy, 50, "not a Kiln program binary") == 0);
    CHECK(expect_invalid(copy, size - 1, "its header says") == 0);
    copy[size / 2] ^= 1;
    CHECK(expect_invalid(copy, size, "checksum") == 0);
    copy[size / 2] ^= 1;
    copy[8] = 99; /* the format version */
    CHECK(expect_invalid(copy, size, "format 99") == 0);
    copy[8] = bin[8];
    /* Another CPU: the target names another CPU, and the checksum is right for it. */
    unsigned char *target = copy + 104;
    CHECK(memchr(target, ';', 64) != NULL);
    unsigned char *cpu = (unsigned char *)memchr(target, ';', 64) + 1;
    cpu[0] = cpu[0] == 'z' ? 'y' : 'z';
    struct kiln_cc_sha256 s;
    kiln_cc_sha256_init(&s);
    kiln_cc_sha256_update(&s, copy, 72);
    kiln_cc_sha256_update(&s, copy + 104, size - 104);
    kiln_cc_sha256_final(&s, copy + 72);
    CHECK(expect_invalid(copy, size, "another CPU") == 0);
    free(copy);
    cc->destroy(p);
    return 0;
}

struct test {
    const char *name;
    int (*run)(void);
};

/* The image kernel of image-variant-key, and the cl.h numbers of the formats it is keyed on. */
static const char image_program[] =
    "kernel void copy(read_only image2d_t in, write_only image2d_t out) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, c));\n"
    "}\n";
#define RGBA       0x10B5u
#define R          0x10B0u
#define UNORM_INT8 0x10D2u
#define FLOAT_TYPE 0x10DEu

/* A build_variant() of image_program: whether it came from the cache; -1 if it failed. */
static int image_variant_hit(const struct kiln_cc_variant *v)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->build_variant(image_program, "-cl-std=CL3.0", v, &p, &log);
    if (s != KILN_CC_OK)
        fprintf(stderr, "image variant build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
    free(log);
    int hit = s == KILN_CC_OK ? cc->from_cache(p) : -1;
    if (p)
        cc->destroy(p);
    return hit;
}

/*
 * Image-format variants have keys of their own: each set of formats (another format, the
 * same format on one argument only, none) is a cache entry apart, and each is found again.
 */
static int test_image_variant_key(void)
{
    struct kiln_cc_variant v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (struct kiln_cc_variant){"copy", {8, 2, 1}, true, 2, {{0}}};
    v[0].images[0] = v[0].images[1] = (struct kiln_cc_variant_image){0, RGBA, UNORM_INT8, 4, 4};
    v[0].images[1].arg = 1;
    v[1] = v[0];
    v[1].images[0] = (struct kiln_cc_variant_image){0, R, FLOAT_TYPE, 4, 1};
    v[1].images[1] = (struct kiln_cc_variant_image){1, R, FLOAT_TYPE, 4, 1};
    v[2] = v[0];
    v[2].num_images = 1;
    v[3] = v[0];
    v[3].num_images = 0;
    CHECK(fresh_cache() == 0);
    unsetenv("KILN_BARRIER_STRATEGY");
    for (int i = 0; i < 4; i++)
        CHECK(image_variant_hit(&v[i]) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(image_variant_hit(&v[i]) == 1);
    remove_tree(temp_dir);
    return 0;
}

static const struct test tests[] = {
    {"hit", test_hit},
    {"corrupt", test_corrupt},
    {"concurrent", test_concurrent},
    {"location", test_location},
    {"key", test_key},
    {"variant-key", test_variant_key},
    {"image-variant-key", test_image_variant_key},
    {"sha256", test_sha256},
    {"binary", test_binary},
    {"swapped", test_swapped},
    {"limit", test_limit},
    {"recency", test_recency},
    {"off", test_off},
    {"evict-concurrent", test_evict_concurrent},
    {"stale-temp", test_stale_temp},
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIBKILN_CC TEST\n", argv[0]);
        return 2;
    }
    lib_path = argv[1];
    if (strcmp(argv[2], "sha256") == 0)
        return test_sha256();
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    kiln_cc_interface_fn get = (kiln_cc_interface_fn)dlsym(lib, KILN_CC_INTERFACE_SYMBOL);
    cc = get ? get() : NULL;
    if (!cc || cc->abi_version != KILN_CC_ABI_VERSION) {
        fprintf(stderr, "no interface, or ABI version %u, expected %u\n", cc ? cc->abi_version : 0,
                KILN_CC_ABI_VERSION);
        return 1;
    }
    if (strcmp(argv[2], "child") == 0)
        return argc == 4 ? child(argv[3]) : 2;
    if (strcmp(argv[2], "child-variant") == 0)
        return argc == 4 ? child_variant(argv[3]) : 2;
    if (strcmp(argv[2], "pad") == 0)
        return argc == 6 ? child_pad(atoi(argv[3]), atoi(argv[4]), atoi(argv[5])) : 2;
    /* A limit from the caller's environment would change what every test expects. */
    unsetenv("KILN_CACHE_MAX_MIB");
    if (strcmp(argv[2], "tool") == 0)
        return argc == 4 ? test_tool(argv[3]) : 2;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(argv[2], tests[i].name) == 0)
            return tests[i].run();
    fprintf(stderr, "no test named %s\n", argv[2]);
    return 2;
}
