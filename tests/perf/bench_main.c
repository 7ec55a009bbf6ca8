/* kiln-bench: runs each case of the `cases` table on every OpenCL platform of interest that the
 * ICD loader offers (Kiln and PoCL, side by side) and as plain C on all CPUs (the ceiling), then
 * prints the median time, the rate and the ratios between them.
 *
 * It is a benchmark, not a test: its exit status says only whether every result was correct
 * (0), a result was wrong or a run failed (1), or the command line was bad (2). A platform that
 * is absent is reported and skipped. docs/benchmarks.md says how to run and read it. */
#include "bench.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Every case the harness knows; --case picks one by name. */
static const struct bench_case *const cases[] = {
    &bench_case_copy,         &bench_case_triad,          &bench_case_reduce,
    &bench_case_wg_reduce,    &bench_case_local_reduce,   &bench_case_sgemm,
    &bench_case_launch,       &bench_case_burst,          &bench_case_copybuf,
    &bench_case_fillbuf,      &bench_case_histogram,      &bench_case_transcendental,
    &bench_case_nbody,        &bench_case_pipe4,          &bench_case_pipe64,
    &bench_case_pipe4_item,   &bench_case_barrier_loop,   &bench_case_async_copy,
    &bench_case_build_cold,   &bench_case_build_warm,     &bench_case_device_enqueue,
    &bench_case_fanout,       &bench_case_fanout_flat,    &bench_case_fma_float,
    &bench_case_fma_half,     &bench_case_trans_half,     &bench_case_atomic_hist,
    &bench_case_atomic_hist4, &bench_case_image_conv,     &bench_case_image_resize,
    &bench_case_conv_buffer,  &bench_case_first_launches, &bench_case_hash,
    &bench_case_hash4,        &bench_case_reduce_tree,
};
enum { NCASES = sizeof(cases) / sizeof(cases[0]) };

/* The rows of the table: OpenCL platforms found by a substring of their name, then the host. */
struct target {
    const char *label;
    const char *platform_substring; /* NULL: the plain-C ceiling */
};
static const struct target targets[] = {
    {"Kiln", "Kiln"},
    {"PoCL", "Portable Computing Language"},
    {"C", NULL},
};
enum { NTARGETS = sizeof(targets) / sizeof(targets[0]) };
enum { T_KILN, T_POCL, T_HOST };

/* ROW_UNSUPPORTED: the platform lacks a feature the case needs (pipes on PoCL); not a failure. */
enum row_status { ROW_ABSENT, ROW_OK, ROW_WRONG, ROW_FAILED, ROW_UNSUPPORTED };

struct row {
    enum row_status status;
    double median_s, min_s, rate;
};

struct options {
    const char *case_name; /* NULL: all */
    unsigned reps;
    unsigned size_mib;
    unsigned threads;
    unsigned required; /* bit t: target t must be present (--require) */
};

static void usage(FILE *to)
{
    fprintf(to, "usage: kiln-bench [--case NAME|all] [--reps N] [--size-mib N] [--threads N]"
                " [--require TARGET] [--list]\n"
                "  --case      the case to run, or a comma-separated list (default all; --list\n"
                "              shows them)\n"
                "  --reps      timed repetitions after one warm-up (default 11)\n"
                "  --size-mib  size of each array in MiB (default 64)\n"
                "  --threads   threads of the plain-C ceiling (default: online CPUs)\n"
                "  --require   fail when TARGET (Kiln or PoCL) is not found; may be repeated\n");
}

/* Parses a positive integer option value; 0 on error. */
static unsigned positive(const char *opt, const char *text)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = text != NULL ? strtoul(text, &end, 10) : 0;
    if (text == NULL || *end != '\0' || errno != 0 || v == 0 || v > 1u << 20) {
        fprintf(stderr, "kiln-bench: %s needs a positive integer\n", opt);
        return 0;
    }
    return (unsigned)v;
}

/* Returns 0 to run, 1 to exit successfully (--list, --help), 2 on a usage error. */
static int parse(int argc, char **argv, struct options *o)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->case_name = NULL;
    o->reps = 11;
    o->size_mib = 64;
    o->threads = cpus > 0 ? (unsigned)cpus : 1;
    o->required = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--case") == 0 && val != NULL) {
            o->case_name = strcmp(val, "all") == 0 ? NULL : val;
            i++;
        } else if (strcmp(arg, "--reps") == 0) {
            if ((o->reps = positive(arg, val)) == 0)
                return 2;
            i++;
        } else if (strcmp(arg, "--size-mib") == 0) {
            if ((o->size_mib = positive(arg, val)) == 0)
                return 2;
            i++;
        } else if (strcmp(arg, "--threads") == 0) {
            if ((o->threads = positive(arg, val)) == 0)
                return 2;
            i++;
        } else if (strcmp(arg, "--require") == 0 && val != NULL) {
            int t = 0;
            while (t < NTARGETS && (targets[t].platform_substring == NULL ||
                                    strcasecmp(targets[t].label, val) != 0))
                t++;
            if (t == NTARGETS) {
                fprintf(stderr, "kiln-bench: --require takes Kiln or PoCL, not '%s'\n", val);
                return 2;
            }
            o->required |= 1u << t;
            i++;
        } else if (strcmp(arg, "--list") == 0) {
            for (int c = 0; c < NCASES; c++)
                printf("%-8s %s\n", cases[c]->name, cases[c]->summary);
            return 1;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 1;
        } else {
            fprintf(stderr, "kiln-bench: unknown or incomplete option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
    }
    /* Every name of the list must be a case's. */
    for (const char *n = o->case_name; n != NULL; n = strchr(n, ',') ? strchr(n, ',') + 1 : NULL) {
        size_t len = strcspn(n, ",");
        int found = 0;
        for (int c = 0; c < NCASES; c++)
            found |= strlen(cases[c]->name) == len && strncmp(cases[c]->name, n, len) == 0;
        if (!found) {
            fprintf(stderr, "kiln-bench: no case named '%.*s' (try --list)\n", (int)len, n);
            return 2;
        }
    }
    return 0;
}

/* Is case c one of --case's comma-separated names (or is every case run)? */
static int selected(const struct options *o, const struct bench_case *c)
{
    if (o->case_name == NULL)
        return 1;
    size_t len = strlen(c->name);
    for (const char *n = o->case_name; n != NULL; n = strchr(n, ',') ? strchr(n, ',') + 1 : NULL)
        if (strcspn(n, ",") == len && strncmp(c->name, n, len) == 0)
            return 1;
    return 0;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs one case on one target: setup, one warm-up, `reps` timed repetitions, check, teardown. */
static void measure(const struct bench_case *c, const struct bench_ops *ops,
                    const struct bench_env *env, unsigned reps, struct row *row)
{
    void *state = NULL;
    double *times = calloc(reps, sizeof(double));
    row->status = ROW_FAILED;
    if (times == NULL)
        goto out;
    int set = ops->setup(env, &state);
    if (set == 1)
        row->status = ROW_UNSUPPORTED;
    if (set != 0)
        goto out_free_times;
    if (ops->run(state) != 0)
        goto out_teardown;
    for (unsigned r = 0; r < reps; r++) {
        double start = bench_now();
        if (ops->run(state) != 0)
            goto out_teardown;
        times[r] = bench_now() - start;
    }
    if (ops->check(state) != 0) {
        row->status = ROW_WRONG;
        goto out_teardown;
    }
    row->median_s = bench_median(times, reps);
    row->min_s = times[0];
    row->rate = c->rate(env, row->median_s);
    row->status = ROW_OK;

out_teardown:
    ops->teardown(state);
out_free_times:
    free(times);
out:
    return;
}

/* Runs every selected case on the OpenCL platform of target t, filling rows[case]. A platform
 * that is absent leaves the rows ROW_ABSENT; one that cannot give a context and a queue marks
 * them ROW_FAILED. Returns whether the platform was found. */
static bool run_platform(int t, const struct options *o, struct row rows[NCASES])
{
    const char *label = targets[t].label;
    cl_platform_id platform = bench_cl_find_platform(targets[t].platform_substring);
    if (platform == NULL) {
        printf("%s: not found\n", label);
        return false;
    }
    for (int c = 0; c < NCASES; c++)
        if (selected(o, cases[c]))
            rows[c].status = ROW_FAILED;

    struct bench_env env = {.target = label,
                            .platform = targets[t].platform_substring,
                            .size_bytes = (size_t)o->size_mib << 20};
    char *name = bench_cl_platform_string(platform, CL_PLATFORM_NAME);
    char *version = bench_cl_platform_string(platform, CL_PLATFORM_VERSION);
    printf("%s: %s, %s\n", label, name ? name : "?", version ? version : "?");
    free(version);
    free(name);

    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &env.device, NULL);
    if (err != CL_SUCCESS) {
        bench_cl_fail(label, "clGetDeviceIDs", err);
        goto out;
    }
    char device[256] = "?";
    clGetDeviceInfo(env.device, CL_DEVICE_NAME, sizeof(device), device, NULL);
    printf("%s: device %s\n", label, device);

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    env.ctx = clCreateContext(props, 1, &env.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(label, "clCreateContext", err);
        goto out;
    }
    env.queue = clCreateCommandQueueWithProperties(env.ctx, env.device, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(label, "clCreateCommandQueueWithProperties", err);
        goto out_release_context;
    }

    for (int c = 0; c < NCASES; c++)
        if (selected(o, cases[c]))
            measure(cases[c], &cases[c]->cl, &env, o->reps, &rows[c]);

    clReleaseCommandQueue(env.queue);
out_release_context:
    clReleaseContext(env.ctx);
out:
    return true;
}

/* Runs every selected case that has a host version on the thread pool. */
static void run_host(const struct options *o, struct row rows[NCASES])
{
    struct bench_env env = {.target = "C", .size_bytes = (size_t)o->size_mib << 20};
    if (bench_pool_create(o->threads, &env.pool) != 0) {
        for (int c = 0; c < NCASES; c++)
            if (selected(o, cases[c]) && cases[c]->host.setup != NULL)
                rows[c].status = ROW_FAILED;
        return;
    }
    printf("C: plain loops on %u thread%s\n", o->threads, o->threads == 1 ? "" : "s");
    for (int c = 0; c < NCASES; c++)
        if (selected(o, cases[c]) && cases[c]->host.setup != NULL)
            measure(cases[c], &cases[c]->host, &env, o->reps, &rows[c]);
    bench_pool_destroy(env.pool);
}

static const char *status_text(enum row_status s)
{
    switch (s) {
    case ROW_OK:
        return "ok";
    case ROW_WRONG:
        return "WRONG";
    case ROW_FAILED:
        return "FAILED";
    case ROW_UNSUPPORTED:
        return "unsupported";
    default:
        return "-";
    }
}

/* Prints "   x.xx" for rows[a].rate / rows[b].rate, or a dash when either is missing. */
static void print_ratio(const struct row *a, const struct row *b)
{
    if (a->status == ROW_OK && b->status == ROW_OK && b->rate > 0)
        printf(" %10.2f", a->rate / b->rate);
    else
        printf(" %10s", "-");
}

/* Says when the arrays of a bandwidth case (three at most) fit in the last-level cache, where
 * the figures measure the cache rather than memory. */
static void print_cache_note(const struct options *o)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    double set_mib = 3.0 * o->size_mib;
    if (llc > 0 && set_mib * 1048576.0 <= 2.0 * (double)llc)
        printf("note: up to %.0f MiB of arrays against a %.0f MiB last-level cache: the figures "
               "are cache bandwidth; pass a larger --size-mib for memory bandwidth\n",
               set_mib, (double)llc / 1048576.0);
}

int main(int argc, char **argv)
{
    /* The build cases time a build in a new process: this one, started again (case_build.c). */
    if (argc == 4 && strcmp(argv[1], "--build-child") == 0)
        return bench_build_child(argv[2], argv[3]);

    struct options o;
    int parsed = parse(argc, argv, &o);
    if (parsed != 0)
        return parsed == 1 ? EXIT_SUCCESS : 2;
    setvbuf(stdout, NULL, _IOLBF, 0);

    printf("kiln-bench: %u MiB per array, 1 warm-up + %u timed repetitions\n", o.size_mib, o.reps);
    print_cache_note(&o);
    static struct row rows[NTARGETS][NCASES];
    int status = EXIT_SUCCESS;
    for (int t = 0; t < NTARGETS; t++) {
        if (targets[t].platform_substring == NULL) {
            run_host(&o, rows[t]);
        } else if (!run_platform(t, &o, rows[t]) && (o.required & 1u << t)) {
            printf("kiln-bench: %s is required (--require) but was not found\n", targets[t].label);
            status = EXIT_FAILURE;
        }
    }

    printf("\n%-8s %-6s %11s %11s %10s  %s\n", "case", "target", "median ms", "min ms", "rate",
           "result");
    for (int c = 0; c < NCASES; c++) {
        if (!selected(&o, cases[c]))
            continue;
        for (int t = 0; t < NTARGETS; t++) {
            const struct row *r = &rows[t][c];
            if (r->status == ROW_ABSENT)
                continue;
            if (r->status != ROW_OK) {
                if (r->status != ROW_UNSUPPORTED)
                    status = EXIT_FAILURE;
                printf("%-8s %-6s %11s %11s %10s  %s\n", cases[c]->name, targets[t].label, "-", "-",
                       "-", status_text(r->status));
                continue;
            }
            printf("%-8s %-6s %11.3f %11.3f %7.1f %-7s  %s\n", cases[c]->name, targets[t].label,
                   r->median_s * 1e3, r->min_s * 1e3, r->rate, cases[c]->rate_unit,
                   status_text(r->status));
        }
    }

    printf("\nratios of rates at the median (above 1: the first is faster)\n");
    printf("%-8s %10s %10s %10s\n", "case", "Kiln/PoCL", "Kiln/C", "PoCL/C");
    for (int c = 0; c < NCASES; c++) {
        if (!selected(&o, cases[c]))
            continue;
        printf("%-8s", cases[c]->name);
        print_ratio(&rows[T_KILN][c], &rows[T_POCL][c]);
        print_ratio(&rows[T_KILN][c], &rows[T_HOST][c]);
        print_ratio(&rows[T_POCL][c], &rows[T_HOST][c]);
        printf("\n");
    }
    if (status != EXIT_SUCCESS)
        printf("\nkiln-bench: some results were wrong or some runs failed (see above)\n");
    return status;
}
