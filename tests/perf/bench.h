/* kiln-bench's interface between the harness (bench_main.c) and its cases.
 *
 * A case is a table entry with two sets of callbacks: `cl` runs it on an OpenCL platform, `host`
 * runs the same work as plain C on a pool of threads, the machine's ceiling. The harness owns
 * the platforms, the timing, the statistics and the table; a case only sets up, runs once,
 * checks and tears down. Adding a case is one file defining a `struct bench_case`, one line in
 * the `cases` table of bench_main.c and one line in CMakeLists.txt. */
#ifndef KILN_PERF_BENCH_H
#define KILN_PERF_BENCH_H

#include <CL/cl.h>
#include <stddef.h>

struct bench_pool;

/* What a case's callbacks are given. Owned by the harness; valid from setup to teardown. */
struct bench_env {
    const char *target;      /* row label: "Kiln", "PoCL" or "C" */
    const char *platform;    /* OpenCL targets only: the substring of the platform's name the
                              * harness found it by (bench_cl_find_platform), else NULL */
    cl_context ctx;          /* OpenCL targets only, else NULL */
    cl_device_id device;     /* OpenCL targets only */
    cl_command_queue queue;  /* OpenCL targets only; in-order */
    struct bench_pool *pool; /* host target only, else NULL */
    size_t size_bytes;       /* --size-mib, the size of one array */
};

struct bench_ops {
    /* Allocates the state and fills the inputs; not timed. Returns 0, 1 when the platform lacks
     * a feature the case needs (the row reads "unsupported", which is no failure), or -1 after
     * printing why (the row is then reported as failed). On 1 or -1 the state is not torn down. */
    int (*setup)(const struct bench_env *env, void **state);
    /* One repetition, timed by the harness: returns only once the work is complete (for OpenCL,
     * after clFinish). Returns 0, or -1 after printing why. */
    int (*run)(void *state);
    /* Verifies the result of the last repetition: 0 when every element is right, else -1 after
     * printing the first wrong one. Not timed. */
    int (*check)(void *state);
    /* Frees everything setup allocated. */
    void (*teardown)(void *state);
};

struct bench_case {
    const char *name;    /* what --case selects */
    const char *summary; /* one line for --list */
    struct bench_ops cl;
    struct bench_ops host; /* host.setup == NULL: no ceiling row for this case */
    /* The figure of merit of one repetition that took `seconds`, in rate_unit (e.g. GB/s). */
    double (*rate)(const struct bench_env *env, double seconds);
    const char *rate_unit;
};

extern const struct bench_case bench_case_copy;
extern const struct bench_case bench_case_triad;
extern const struct bench_case bench_case_reduce;
extern const struct bench_case bench_case_reduce_tree;
extern const struct bench_case bench_case_wg_reduce;
extern const struct bench_case bench_case_local_reduce;
extern const struct bench_case bench_case_sgemm;
extern const struct bench_case bench_case_launch;
extern const struct bench_case bench_case_burst;
extern const struct bench_case bench_case_copybuf;
extern const struct bench_case bench_case_fillbuf;
extern const struct bench_case bench_case_histogram;
extern const struct bench_case bench_case_atomic_hist;
extern const struct bench_case bench_case_atomic_hist4;
extern const struct bench_case bench_case_transcendental;
extern const struct bench_case bench_case_fma_float;
extern const struct bench_case bench_case_fma_half;
extern const struct bench_case bench_case_trans_half;
extern const struct bench_case bench_case_nbody;
extern const struct bench_case bench_case_pipe4;
extern const struct bench_case bench_case_pipe64;
extern const struct bench_case bench_case_pipe4_item;
extern const struct bench_case bench_case_barrier_loop;
extern const struct bench_case bench_case_async_copy;
extern const struct bench_case bench_case_build_cold;
extern const struct bench_case bench_case_build_warm;
extern const struct bench_case bench_case_device_enqueue;
extern const struct bench_case bench_case_fanout;
extern const struct bench_case bench_case_fanout_flat;
extern const struct bench_case bench_case_first_launches;
extern const struct bench_case bench_case_image_conv;
extern const struct bench_case bench_case_image_resize;
extern const struct bench_case bench_case_conv_buffer;
extern const struct bench_case bench_case_hash;
extern const struct bench_case bench_case_hash4;

/* case_build.c: the child process of build-cold and build-warm, which kiln-bench runs as
 * `kiln-bench --build-child PLATFORM_SUBSTRING build|verify` (not shown by --help). Returns the
 * process's exit status. */
int bench_build_child(const char *platform_substring, const char *mode);

/* bench_pool.c: a fixed set of named worker threads that run one function at a time. */

/* Starts `count` workers named "kiln-bench-<i>". Returns 0 and writes *pool, or -1 when a
 * thread or an allocation failed (no thread is left running). */
int bench_pool_create(unsigned count, struct bench_pool **pool);
/* Runs fn(arg, i, count) on every worker i and returns when all have returned. */
void bench_pool_run(struct bench_pool *pool, void (*fn)(void *arg, unsigned i, unsigned count),
                    void *arg);
unsigned bench_pool_size(const struct bench_pool *pool);
/* Stops and joins every worker; aborts if a join fails. */
void bench_pool_destroy(struct bench_pool *pool);

/* bench_main.c: timing helpers shared by the harness and the cases. */

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/* The median of v[0..n), n > 0; sorts v. */
double bench_median(double *v, size_t n);

/* bench_cl.c: OpenCL helpers shared by the harness and the cases. */

/* The first platform whose name contains substring, or NULL. */
cl_platform_id bench_cl_find_platform(const char *substring);
/* A platform's info string, malloc'ed (the caller frees it), or NULL. */
char *bench_cl_platform_string(cl_platform_id p, cl_platform_info what);

/* Builds `source` for env->device and creates the kernel `name`. On failure prints the call,
 * the code and the build log, and returns -1 with nothing to release. */
int bench_cl_kernel_build(const struct bench_env *env, const char *source, const char *name,
                          cl_program *program, cl_kernel *kernel);
/* The same with build options (e.g. "-cl-std=CL3.0"). */
int bench_cl_kernel_build_opts(const struct bench_env *env, const char *source, const char *options,
                               const char *name, cl_program *program, cl_kernel *kernel);
/* Prints "<target>: <what> failed: <CL_NAME> (<code>)" to stderr and returns -1. */
int bench_cl_fail(const char *target, const char *what, cl_int err);

#endif
