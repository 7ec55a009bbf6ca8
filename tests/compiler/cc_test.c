/*
 * Tests of libkiln-cc.so through its interface table, without the runtime: each
 * test builds a kernel, calls its work-group function directly with a hand-made
 * struct kiln_wg_ctx for every group of a small NDRange, and checks the results.
 *
 * Usage: kiln-cc-test LIBKILN_CC.so TEST
 */
#include "kiln_abi.h"
#include "kiln_cc.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kiln_cc_interface *cc;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Builds `source`; prints the log to stderr on failure. NULL unless KILN_CC_OK. */
static struct kiln_cc_program *build_ok(const char *source, const char *options)
{
    struct kiln_cc_program *p = NULL;
    char *log = NULL;
    enum kiln_cc_status s = cc->build(source, options, &p, &log);
    if (s != KILN_CC_OK) {
        fprintf(stderr, "build failed (%d):\n%s\n", (int)s, log ? log : "(no log)");
        p = NULL;
    }
    free(log);
    return p;
}

static const struct kiln_cc_kernel *find_kernel(const struct kiln_cc_program *p, const char *name)
{
    for (unsigned i = 0; i < cc->num_kernels(p); i++)
        if (strcmp(cc->kernel(p, i)->name, name) == 0)
            return cc->kernel(p, i);
    return NULL;
}

/*
 * Runs an NDRange the way the runtime will: every group in turn, the last group in
 * a dimension smaller when local does not divide global.
 */
static void run_ndrange(const struct kiln_cc_kernel *k, void *const *args, unsigned dims,
                        const size_t *offset, const size_t *global, const size_t *local,
                        void *local_mem)
{
    struct kiln_wg_ctx c;
    memset(&c, 0, sizeof(c));
    c.work_dim = dims;
    c.local_mem = local_mem;
    for (unsigned d = 0; d < 3; d++) {
        c.global_offset[d] = d < dims ? offset[d] : 0;
        c.global_size[d] = d < dims ? global[d] : 1;
        c.enqueued_local_size[d] = d < dims ? local[d] : 1;
        c.num_groups[d] =
            (c.global_size[d] + c.enqueued_local_size[d] - 1) / c.enqueued_local_size[d];
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
}

static int test_vector_add(void)
{
    static const char src[] =
        "kernel void vadd(global const float *a, global const float *b, global float *c)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    c[i] = a[i] + b[i];\n"
        "}\n";
    enum { N = 1000, OFF = 7 };
    static float a[N + OFF], b[N + OFF], c[N + OFF];
    struct kiln_cc_program *p = build_ok(src, NULL);
    CHECK(p);
    const struct kiln_cc_kernel *k = find_kernel(p, "vadd");
    CHECK(k && k->num_args == 3);
    for (unsigned i = 0; i < 3; i++) {
        CHECK(k->args[i].kind == KILN_CC_ARG_GLOBAL_PTR);
        CHECK(k->args[i].size == 8);
    }
    CHECK(strcmp(k->args[0].name, "a") == 0 && strcmp(k->args[0].type_name, "float*") == 0);
    CHECK(strcmp(k->args[0].type_qual, "const") == 0);
    for (int i = 0; i < N + OFF; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
        c[i] = -1.0f;
    }
    float *pa = a, *pb = b, *pc = c;
    void *args[] = {&pa, &pb, &pc};
    /* 1000 work-items from offset 7 in groups of 64: 16 groups, the last of 40. */
    size_t off = OFF, gs = N, ls = 64;
    run_ndrange(k, args, 1, &off, &gs, &ls, NULL);
    for (int i = 0; i < N + OFF; i++)
        CHECK(c[i] == (i < OFF ? -1.0f : 3.0f * (float)i));
    cc->destroy(p);
    return 0;
}

struct test {
    const char *name;
    int (*run)(void);
};

static const struct test tests[] = {
    {"vector_add", test_vector_add},
};

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
    cc = get();
    if (cc->abi_version != KILN_CC_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, expected %u\n", cc->abi_version, KILN_CC_ABI_VERSION);
        return 1;
    }
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(argv[2], tests[i].name) == 0)
            return tests[i].run();
    fprintf(stderr, "no test named %s\n", argv[2]);
    return 2;
}
