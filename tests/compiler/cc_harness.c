/*
 * The harness of the compiler tests (one file per stage, cc_<stage>_test.c): it opens
 * libkiln-cc.so as the runtime does, runs the test named on the command line, and holds
 * the helpers every stage's tests share (cc_harness.h).
 *
 * Usage: kiln-cc-<stage>-test LIBKILN_CC.so TEST
 */
#define _POSIX_C_SOURCE 200809L
#include "cc_harness.h"

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

const struct kiln_cc_interface *ct_cc;

/* Builds `source`; prints the log to stderr on failure. NULL unless KILN_CC_OK. */
struct kiln_cc_program *ct_build_ok(const char *source, const char *options)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = ct_cc->build(source, options, &p, &log);
    if (s != KILN_CC_OK) {
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
        p = NULL;
    }
    free(log);
    return p;
}

const struct kiln_cc_kernel *ct_find_kernel(const struct kiln_cc_program *p, const char *name)
{
    for (unsigned i = 0; i < ct_cc->num_kernels(p); i++)
        if (strcmp(ct_cc->kernel(p, i)->name, name) == 0)
            return ct_cc->kernel(p, i);
    return NULL;
}

/*
 * Runs an NDRange the way the runtime will: every group in turn, the last group in
 * a dimension smaller when local does not divide global.
 */
void ct_run_ndrange(const struct kiln_cc_kernel *k, void *const *args, unsigned dims,
                    const size_t *offset, const size_t *global, const size_t *local,
                    void *local_mem)
{
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = dims;
    c.local_mem = local_mem;
    size_t items = 1;
    for (unsigned d = 0; d < 3; d++) {
        c.global_offset[d] = d < dims ? offset[d] : 0;
        c.global_size[d] = d < dims ? global[d] : 1;
        c.enqueued_local_size[d] = d < dims ? local[d] : 1;
        c.num_groups[d] =
            (c.global_size[d] + c.enqueued_local_size[d] - 1) / c.enqueued_local_size[d];
        items *= c.enqueued_local_size[d];
    }
    /* The barrier scratch a kernel with barriers keeps its values across regions in. */
    unsigned char *scratch = NULL;
    if (k->scratch_fixed || k->scratch_per_item) {
        size_t bytes = k->scratch_fixed + k->scratch_per_item * items + KILN_SCRATCH_ALIGN;
        scratch = aligned_alloc(KILN_SCRATCH_ALIGN, (bytes + KILN_SCRATCH_ALIGN - 1) /
                                                        KILN_SCRATCH_ALIGN * KILN_SCRATCH_ALIGN);
        if (!scratch)
            abort();
        c.scratch = scratch;
        c.scratch_size = bytes;
    }
    for (size_t gz = 0; gz < c.num_groups[2]; gz++)
        for (size_t gy = 0; gy < c.num_groups[1]; gy++)
            for (size_t gx = 0; gx < c.num_groups[0]; gx++) {
                size_t g[3] = {gx, gy, gz};
                for (unsigned d = 0; d < 3; d++) {
                    c.group_id[d] = g[d];
                    size_t rest = c.global_size[d] - g[d] * c.enqueued_local_size[d];
                    c.local_size[d] =
                        rest < c.enqueued_local_size[d] ? rest : c.enqueued_local_size[d];
                }
                k->wg(args, &c);
            }
    free(scratch);
}

char *ct_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* build(), or build_variant() when `variant` is not NULL. */
static enum kiln_cc_status build_any(const char *src, const char *options,
                                     const struct kiln_cc_variant *variant,
                                     struct kiln_cc_program **out, char **log)
{
    return variant ? ct_cc->build_variant(src, options, variant, out, log)
                   : ct_cc->build(src, options, out, log);
}

/* Builds with stdout and stderr redirected to a file; fails if anything was printed. */
static int build_quiet(const char *src, const char *options, const struct kiln_cc_variant *variant,
                       enum kiln_cc_status *status, char **log)
{
    struct kiln_cc_program *p = NULL;
    FILE *capture = tmpfile();
    CHECK(capture);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    CHECK(saved_out >= 0 && saved_err >= 0);
    dup2(fileno(capture), 1);
    dup2(fileno(capture), 2);
    *status = build_any(src, options, variant, &p, log);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    long printed = ftell(capture);
    fseek(capture, 0, SEEK_END);
    printed = ftell(capture);
    fclose(capture);
    if (p)
        ct_cc->destroy(p);
    CHECK(*log);
    fprintf(stderr, "build status %d, log:\n%s\n", (int)*status, *log);
    CHECK(printed == 0);
    return 0;
}

/* Builds `src` (a variant, unless NULL); the status must be `want`, the log hold every needle. */
int ct_expect_variant_failure(const char *src, const char *options,
                              const struct kiln_cc_variant *variant, enum kiln_cc_status want,
                              const char *const *needles)
{
    enum kiln_cc_status status;
    char *log = NULL;
    if (build_quiet(src, options, variant, &status, &log))
        return 1;
    CHECK(status == want);
    for (; *needles; needles++) {
        if (!strstr(log, *needles)) {
            fprintf(stderr, "log lacks \"%s\"\n", *needles);
            free(log);
            return 1;
        }
    }
    free(log);
    return 0;
}

int ct_expect_failure(const char *src, const char *options, enum kiln_cc_status want,
                      const char *const *needles)
{
    return ct_expect_variant_failure(src, options, NULL, want, needles);
}

/*
 * The number n of a dump file named kiln-<build>-<n>-<stage>.ll (backend.c's dump_stage), or -1
 * when `name` is not a dump of `stage`.
 */
static int dump_number(const char *name, const char *stage)
{
    unsigned build, n;
    int at = -1;
    if (sscanf(name, "kiln-%u-%u-%n", &build, &n, &at) != 2 || at < 0)
        return -1;
    size_t len = strlen(stage);
    if (strncmp(name + at, stage, len) != 0 || strcmp(name + at + len, ".ll") != 0)
        return -1;
    return (int)n;
}

char *ct_dump_read(const char *dir, const char *stage, int *number)
{
    char path[512];
    char *text = NULL;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && !text && (e = readdir(d));) {
        int n = dump_number(e->d_name, stage);
        if (n < 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        text = ct_read_text(path);
        if (number)
            *number = n;
    }
    if (d)
        closedir(d);
    return text;
}

void ct_dump_dir_remove(const char *dir)
{
    char path[512];
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d)
        closedir(d);
    remove(dir);
}

bool ct_temp_dir(char *dir, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(dir, size, "%s/kiln-cc-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return n > 0 && (size_t)n < size && mkdtemp(dir) != NULL;
}

char *ct_build_variant_dumped_ir(const char *src, const char *options,
                                 const struct kiln_cc_variant *variant, const char *stage,
                                 struct kiln_cc_program **out, char **log_out)
{
    char dir[4096];
    char *text = NULL;
    if (!ct_temp_dir(dir, sizeof(dir)))
        return NULL;
    setenv("KILN_DUMP_IR", dir, 1);
    enum kiln_cc_status s = build_any(src, options, variant, out, log_out);
    unsetenv("KILN_DUMP_IR");
    if (s == KILN_CC_OK)
        text = ct_dump_read(dir, stage, NULL);
    else
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, *log_out ? *log_out : "(no log)");
    if (s == KILN_CC_OK && !text)
        fprintf(stderr, "no dump of stage %s\n", stage);
    ct_dump_dir_remove(dir);
    return text;
}

char *ct_build_dumped_ir(const char *src, const char *options, const char *stage,
                         struct kiln_cc_program **out, char **log_out)
{
    return ct_build_variant_dumped_ir(src, options, NULL, stage, out, log_out);
}

/* The same, for a test that needs neither the program nor the log. */
char *ct_dumped_ir(const char *src, const char *options, const char *stage)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    char *text = ct_build_dumped_ir(src, options, stage, &p, &log);
    if (p)
        ct_cc->destroy(p);
    free(log);
    return text;
}

/* Whether a line of `text` holds both `a` and `b`. */
bool ct_line_with(const char *text, const char *a, const char *b)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, a);
        if (hit && hit < line + len) {
            const char *other = strstr(line, b);
            if (other && other < line + len)
                return true;
        }
        line = end ? end + 1 : NULL;
    }
    return false;
}

/* The text of work-group function `kernel` in `ir`, malloc()ed, or NULL. */
char *ct_wg_function(const char *ir, const char *kernel)
{
    char head[128];
    snprintf(head, sizeof(head), "define void @kiln.wg.%s(", kernel);
    const char *start = strstr(ir, head);
    const char *end = start ? strstr(start, "\n}\n") : NULL;
    return end ? strndup(start, (size_t)(end - start)) : NULL;
}

/* The widest "phi <N x TYPE>" in fn (a vector accumulator or induction), 0 if none. */
unsigned ct_widest_vector_phi(const char *fn, const char *type)
{
    unsigned widest = 0;
    char tail[32];
    snprintf(tail, sizeof(tail), " x %s>", type);
    for (const char *p = strstr(fn, "phi <"); p; p = strstr(p + 1, "phi <")) {
        char *rest;
        unsigned long n = strtoul(p + 5, &rest, 10);
        if (strncmp(rest, tail, strlen(tail)) == 0 && n > widest)
            widest = (unsigned)n;
    }
    return widest;
}

size_t ct_count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBKILN_CC TEST\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    kiln_cc_interface_fn get = (kiln_cc_interface_fn)dlsym(lib, KILN_CC_INTERFACE_SYMBOL);
    if (!get) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    ct_cc = get();
    if (ct_cc->abi_version != KILN_CC_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, expected %u\n", ct_cc->abi_version, KILN_CC_ABI_VERSION);
        return 1;
    }
    /* Kernels see what Kiln's CPU device reports (runtime/device.c), as in a program:
     * cl_khr_fp16 unless KILN_FP16=0, the image extensions and features unless
     * KILN_IMAGES=0. */
    const char *fp16 = getenv("KILN_FP16");
    bool half = !(fp16 && strcmp(fp16, "0") == 0);
    const char *images_env = getenv("KILN_IMAGES");
    bool images = !(images_env && strcmp(images_env, "0") == 0);
    char extensions[1024], features[1024];
    snprintf(extensions, sizeof extensions, "%s%s%s",
             "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics "
             "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "
             "cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics "
             "cl_khr_int64_extended_atomics cl_khr_fp64",
             half ? " cl_khr_fp16" : "",
             images ? " cl_khr_3d_image_writes cl_khr_depth_images" : "");
    snprintf(features, sizeof features, "%s%s",
             "__opencl_c_int64 __opencl_c_fp64 __opencl_c_generic_address_space "
             "__opencl_c_program_scope_global_variables "
             "__opencl_c_work_group_collective_functions "
             "__opencl_c_atomic_order_acq_rel __opencl_c_atomic_order_seq_cst "
             "__opencl_c_atomic_scope_device __opencl_c_atomic_scope_all_devices "
             "__opencl_c_pipes __opencl_c_subgroups",
             images ? " __opencl_c_images __opencl_c_read_write_images __opencl_c_3d_image_writes"
                    : "");
    if (ct_cc->set_language(extensions, features) != KILN_CC_OK) {
        fprintf(stderr, "set_language failed\n");
        return 1;
    }
    for (size_t i = 0; i < ct_num_tests; i++)
        if (strcmp(argv[2], ct_tests[i].name) == 0)
            return ct_tests[i].run();
    fprintf(stderr, "no test named %s\n", argv[2]);
    return 2;
}
