/* kiln-bench's program-build cases: what building a small program costs a user who starts a
 * program, builds its kernels and exits.
 *   build-cold: every repetition builds in a new process with a new, empty kernel cache
 *   build-warm: every repetition builds in a new process, reusing a cache that one build filled
 *               during setup
 * A repetition starts this executable again as `kiln-bench --build-child PLATFORM build`
 * (posix_spawn of /proc/self/exe) and waits for it to exit; the harness times the whole
 * repetition, so the figure is the child's wall time from spawn to exit: process start, the ICD
 * loader loading every driver it is offered, platform and device discovery, context creation,
 * clCreateProgramWithSource + clBuildProgram, and exit. The child finds its platform by the same
 * substring of its name as the parent's row ("Kiln", "Portable Computing Language"). It also
 * reports the time of clCreateProgramWithSource + clBuildProgram alone, and the check prints the
 * median of those, so that the build can be told apart from the rest of the process.
 *
 * The cache directories are set in the child's environment only: KILN_CACHE_DIR for Kiln,
 * POCL_CACHE_DIR for PoCL (with POCL_KERNEL_CACHE=1, so that a user's setting cannot turn
 * PoCL's cache off), both pointing at the same temporary directory; everything else, the ICD
 * loader's OCL_ICD_VENDORS included, is inherited.
 *
 * The check (not timed) proves that the measured builds did what their names say and that the
 * program works. build-cold: the last repetition's directory must hold at least one nonempty
 * file (the build stored its result). build-warm: the directory must hold as many nonempty files
 * as after the filling build (no timed build stored anything, so each was served from the
 * cache). Then one more child, `--build-child PLATFORM verify`, builds the program from that
 * directory, runs its three kernels on small inputs of integer-valued floats and compares every
 * result exactly with the same sums computed in C; it exits 0 only if all are right. There is
 * no plain-C row. */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Three kernels: a plain one, one with a scalar argument, and one with __local memory and
 * barriers, so that the build goes through every stage a real program needs. */
static const char *source =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n"
    "\n"
    "__kernel void saxpy(__global const float *x, __global float *y, float alpha)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] = alpha * x[i] + y[i];\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void group_sum(__global const float *in, __global float *partial, __local float *tmp)\n"
    "{\n"
    "    size_t l = get_local_id(0);\n"
    "    tmp[l] = in[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "        if (l < s)\n"
    "            tmp[l] += tmp[l + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0)\n"
    "        partial[get_group_id(0)] = tmp[0];\n"
    "}\n";

enum { NKERNELS = 3, VERIFY_N = 4096, VERIFY_GROUP = 64 };
static const float ALPHA = 2.0f;

/* The child's exit statuses. */
enum { CHILD_OK = 0, CHILD_WRONG = 1, CHILD_FAILED = 2 };

/* ---- the child process ---- */

static float verify_a(size_t i)
{
    return (float)(i % 17);
}

static float verify_b(size_t i)
{
    return (float)(i % 5) * 0.5f;
}

/* Runs the three kernels of `program` on VERIFY_N elements and compares every result with C.
 * The inputs are small multiples of 1/2, so every sum is exact in float. */
static int verify(const char *who, cl_context ctx, cl_device_id device, cl_program program)
{
    static float a[VERIFY_N], b[VERIFY_N], c[VERIFY_N], y[VERIFY_N];
    static float partial[VERIFY_N / VERIFY_GROUP];
    enum { NBUF = 5 };
    cl_mem buf[NBUF] = {NULL};
    cl_kernel kernel[NKERNELS] = {NULL};
    static const char *const names[NKERNELS] = {"vadd", "saxpy", "group_sum"};
    const size_t bytes = sizeof(a);
    int status = CHILD_FAILED;
    cl_int err = CL_SUCCESS;

    for (size_t i = 0; i < VERIFY_N; i++) {
        a[i] = verify_a(i);
        b[i] = verify_b(i);
    }
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clCreateCommandQueueWithProperties", err);
        return CHILD_FAILED;
    }
    /* a, b, c = a + b, y (b, then ALPHA * a + y in place), the partial sums of a. */
    const struct {
        size_t size;
        float *init; /* copied in, or NULL */
    } bufs[NBUF] = {{bytes, a}, {bytes, b}, {bytes, NULL}, {bytes, b}, {sizeof(partial), NULL}};
    for (int k = 0; k < NBUF && err == CL_SUCCESS; k++)
        buf[k] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (bufs[k].init ? CL_MEM_COPY_HOST_PTR : 0),
                                bufs[k].size, bufs[k].init, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clCreateBuffer", err);
        goto out;
    }
    for (int k = 0; k < NKERNELS && err == CL_SUCCESS; k++)
        kernel[k] = clCreateKernel(program, names[k], &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clCreateKernel", err);
        goto out;
    }
    /* vadd(a, b, c), saxpy(a, y, ALPHA), group_sum(a, partial, 64 floats). */
    const struct {
        int kernel, index;
        size_t size;
        const void *value;
    } args[] = {
        {0, 0, sizeof(cl_mem), &buf[0]},
        {0, 1, sizeof(cl_mem), &buf[1]},
        {0, 2, sizeof(cl_mem), &buf[2]},
        {1, 0, sizeof(cl_mem), &buf[0]},
        {1, 1, sizeof(cl_mem), &buf[3]},
        {1, 2, sizeof(float), &ALPHA},
        {2, 0, sizeof(cl_mem), &buf[0]},
        {2, 1, sizeof(cl_mem), &buf[4]},
        {2, 2, VERIFY_GROUP * sizeof(float), NULL},
    };
    for (size_t k = 0; k < sizeof(args) / sizeof(args[0]) && err == CL_SUCCESS; k++)
        err = clSetKernelArg(kernel[args[k].kernel], (cl_uint)args[k].index, args[k].size,
                             args[k].value);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clSetKernelArg", err);
        goto out;
    }
    size_t global = VERIFY_N, local = VERIFY_GROUP;
    for (int k = 0; k < NKERNELS && err == CL_SUCCESS; k++)
        err = clEnqueueNDRangeKernel(queue, kernel[k], 1, NULL, &global, k == 2 ? &local : NULL, 0,
                                     NULL, NULL);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clEnqueueNDRangeKernel", err);
        goto out;
    }
    err = clEnqueueReadBuffer(queue, buf[2], CL_FALSE, 0, bytes, c, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, buf[3], CL_FALSE, 0, bytes, y, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, buf[4], CL_FALSE, 0, sizeof(partial), partial, 0, NULL,
                                  NULL);
    if (err == CL_SUCCESS)
        err = clFinish(queue);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clEnqueueReadBuffer", err);
        goto out;
    }

    status = CHILD_WRONG;
    for (size_t i = 0; i < VERIFY_N; i++) {
        float want_c = verify_a(i) + verify_b(i), want_y = ALPHA * verify_a(i) + verify_b(i);
        if (c[i] != want_c || y[i] != want_y) {
            fprintf(stderr,
                    "%s: built program: wrong result at element %zu: vadd %g (expected "
                    "%g), saxpy %g (expected %g)\n",
                    who, i, (double)c[i], (double)want_c, (double)y[i], (double)want_y);
            goto out;
        }
    }
    for (size_t g = 0; g < VERIFY_N / VERIFY_GROUP; g++) {
        float want = 0.0f;
        for (size_t i = g * VERIFY_GROUP; i < (g + 1) * VERIFY_GROUP; i++)
            want += verify_a(i);
        if (partial[g] != want) {
            fprintf(stderr, "%s: built program: group_sum of group %zu is %g, expected %g\n", who,
                    g, (double)partial[g], (double)want);
            goto out;
        }
    }
    status = CHILD_OK;

out:
    for (int k = 0; k < NKERNELS; k++)
        if (kernel[k] != NULL)
            clReleaseKernel(kernel[k]);
    for (int k = 0; k < NBUF; k++)
        if (buf[k] != NULL)
            clReleaseMemObject(buf[k]);
    clReleaseCommandQueue(queue);
    return status;
}

/* `build` builds the program once and prints the seconds clCreateProgramWithSource +
 * clBuildProgram took on stdout (the parent reads them through a pipe); `verify` builds it and
 * runs it. Everything the child prints to stderr reaches the parent's stderr. */
int bench_build_child(const char *platform_substring, const char *mode)
{
    const char *who = platform_substring;
    int do_verify = strcmp(mode, "verify") == 0;
    if (!do_verify && strcmp(mode, "build") != 0) {
        fprintf(stderr, "kiln-bench: --build-child: unknown mode '%s'\n", mode);
        return CHILD_FAILED;
    }
    cl_platform_id platform = bench_cl_find_platform(platform_substring);
    if (platform == NULL) {
        fprintf(stderr, "%s: platform not found in the build child\n", who);
        return CHILD_FAILED;
    }
    cl_device_id device;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clGetDeviceIDs", err);
        return CHILD_FAILED;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clCreateContext", err);
        return CHILD_FAILED;
    }

    int status = CHILD_FAILED;
    double start = bench_now();
    cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clCreateProgramWithSource", err);
        goto out_release_context;
    }
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    double seconds = bench_now() - start;
    if (err != CL_SUCCESS) {
        bench_cl_fail(who, "clBuildProgram", err);
        goto out_release_program;
    }
    /* A build that succeeds without the kernels would be timed as a build but is none. */
    size_t kernels = 0;
    err = clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof(kernels), &kernels, NULL);
    if (err != CL_SUCCESS || kernels != NKERNELS) {
        fprintf(stderr, "%s: the built program has %zu kernels (error %d), expected %d\n", who,
                kernels, (int)err, NKERNELS);
        goto out_release_program;
    }
    if (do_verify) {
        status = verify(who, ctx, device, program);
    } else {
        printf("%.9f\n", seconds);
        status = fflush(stdout) == 0 ? CHILD_OK : CHILD_FAILED;
    }

out_release_program:
    clReleaseProgram(program);
out_release_context:
    clReleaseContext(ctx);
    return status;
}

/* ---- the parent: one row ---- */

enum build_kind { BUILD_COLD, BUILD_WARM };

struct build {
    enum build_kind kind;
    const char *target;   /* row label */
    const char *platform; /* substring of the platform's name, passed to the child */
    const char *name;     /* the case's name, for messages */
    char root[PATH_MAX];  /* the temporary directory everything goes under */
    char cache[PATH_MAX]; /* the cache directory of the last child */
    unsigned runs;        /* children started by run() so far */
    size_t warm_files;    /* build-warm: files in the cache after the filling build */
    /* The child's environment: the parent's, less the three variables below, plus them. */
    char **envp;
    char kiln_var[PATH_MAX + 32], pocl_var[PATH_MAX + 32];
    /* The seconds each timed child reported for its build alone. */
    double *child_s;
    size_t child_count, child_cap;
};

/* Whether the environment entry `entry` ("NAME=value") sets the variable `name`. */
static int sets(const char *entry, const char *name)
{
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* The child's environment: pointers to the parent's entries (which the harness never changes
 * while the case runs) and to the state's own variables, which set_cache() rewrites. */
static int make_env(struct build *s)
{
    static char pocl_kernel_cache[] = "POCL_KERNEL_CACHE=1";
    size_t count = 0;
    for (char **e = environ; *e != NULL; e++)
        count++;
    s->envp = calloc(count + 4, sizeof(char *));
    if (s->envp == NULL)
        return -1;
    size_t k = 0;
    for (char **e = environ; *e != NULL; e++)
        if (!sets(*e, "KILN_CACHE_DIR") && !sets(*e, "POCL_CACHE_DIR") &&
            !sets(*e, "POCL_KERNEL_CACHE"))
            s->envp[k++] = *e;
    s->envp[k++] = s->kiln_var;
    s->envp[k++] = s->pocl_var;
    s->envp[k++] = pocl_kernel_cache;
    s->envp[k] = NULL;
    return 0;
}

/* Points the child's caches at `dir`. */
static void set_cache(struct build *s, const char *dir)
{
    snprintf(s->cache, sizeof(s->cache), "%s", dir);
    snprintf(s->kiln_var, sizeof(s->kiln_var), "KILN_CACHE_DIR=%s", dir);
    snprintf(s->pocl_var, sizeof(s->pocl_var), "POCL_CACHE_DIR=%s", dir);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 ? -1 : 0;
}

/* Deletes the directory `dir` and everything under it. */
static void remove_tree(const char *target, const char *dir)
{
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "%s: could not remove %s entirely: %s\n", target, dir, strerror(errno));
}

/* nftw() passes no argument to its callback; the harness runs one case at a time. */
static size_t files_counted;

static int count_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (flag == FTW_F && st->st_size > 0)
        files_counted++;
    return 0;
}

/* The number of nonempty plain files under dir, or 0 when it cannot be read. Empty files are
 * left out because PoCL, which the ICD loader loads into every child whatever its platform,
 * leaves an empty temporary file in its cache directory in every process. */
static size_t count_files(const char *dir)
{
    files_counted = 0;
    if (nftw(dir, count_entry, 16, FTW_PHYS) != 0)
        return 0;
    return files_counted;
}

/* Starts `kiln-bench --build-child PLATFORM mode` with the state's environment and waits for it.
 * Returns its exit status, or -1 after printing why when it could not be started or was killed.
 * In `build` mode, *build_s gets the seconds the child printed. */
static int run_child(struct build *s, const char *mode, double *build_s)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "%s: %s: pipe: %s\n", s->target, s->name, strerror(errno));
        return -1;
    }
    /* dup2 onto the child's stdout clears O_CLOEXEC there; both pipe ends close on exec. */
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    char *argv[] = {"kiln-bench", "--build-child", (char *)s->platform, (char *)mode, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, argv, s->envp);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        fprintf(stderr, "%s: %s: posix_spawn: %s\n", s->target, s->name, strerror(err));
        return -1;
    }
    /* The child writes one short line and exits; the pipe reads empty once it has exited. */
    char out[64];
    size_t len = 0;
    for (;;) {
        ssize_t got = read(fds[0], out + len, sizeof(out) - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len == sizeof(out) - 1)
            break;
    }
    out[len] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "%s: %s: waitpid: %s\n", s->target, s->name, strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status)) {
        fprintf(stderr, "%s: %s: the child was killed by signal %d\n", s->target, s->name,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return -1;
    }
    if (build_s != NULL && WEXITSTATUS(status) == CHILD_OK) {
        char *end = NULL;
        *build_s = strtod(out, &end);
        if (end == out || *build_s <= 0.0) {
            fprintf(stderr, "%s: %s: the child printed '%s', not a time\n", s->target, s->name,
                    out);
            return -1;
        }
    }
    return WEXITSTATUS(status);
}

/* One build in a child: 0, or -1 after printing why. Records the time the child reported. */
static int child_build(struct build *s)
{
    double seconds = 0.0;
    int status = run_child(s, "build", &seconds);
    if (status < 0)
        return -1;
    if (status != CHILD_OK) {
        fprintf(stderr, "%s: %s: the build child failed (exit status %d)\n", s->target, s->name,
                status);
        return -1;
    }
    if (s->child_count == s->child_cap) {
        size_t cap = s->child_cap ? 2 * s->child_cap : 16;
        double *grown = realloc(s->child_s, cap * sizeof(double));
        if (grown == NULL)
            return -1;
        s->child_s = grown;
        s->child_cap = cap;
    }
    s->child_s[s->child_count++] = seconds;
    return 0;
}

static void build_free(struct build *s)
{
    if (s->root[0] != '\0')
        remove_tree(s->target, s->root);
    free(s->child_s);
    free(s->envp);
    free(s);
}

static int build_setup(enum build_kind kind, const struct bench_env *env, void **state)
{
    struct build *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -1;
    s->kind = kind;
    s->target = env->target;
    s->platform = env->platform;
    s->name = kind == BUILD_COLD ? "build-cold" : "build-warm";
    const char *tmp = getenv("TMPDIR");
    int len = snprintf(s->root, sizeof(s->root), "%s/kiln-bench-build.XXXXXX",
                       tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (len < 0 || (size_t)len >= sizeof(s->root) || mkdtemp(s->root) == NULL) {
        fprintf(stderr, "%s: %s: cannot make a temporary directory %s: %s\n", s->target, s->name,
                s->root, strerror(errno));
        s->root[0] = '\0';
        goto out_free;
    }
    if (make_env(s) != 0)
        goto out_free;
    set_cache(s, s->root);
    if (kind == BUILD_WARM) {
        if (child_build(s) != 0)
            goto out_free;
        s->child_count = 0; /* not a timed build */
        s->warm_files = count_files(s->root);
        if (s->warm_files == 0) {
            fprintf(stderr,
                    "%s: %s: the first build stored nothing in %s, so no build can be "
                    "warm (is the cache turned off?)\n",
                    s->target, s->name, s->root);
            goto out_free;
        }
    }
    *state = s;
    return 0;

out_free:
    build_free(s);
    return -1;
}

static int setup_cold(const struct bench_env *env, void **state)
{
    return build_setup(BUILD_COLD, env, state);
}

static int setup_warm(const struct bench_env *env, void **state)
{
    return build_setup(BUILD_WARM, env, state);
}

/* One repetition. build-cold first replaces the last repetition's cache directory with a new,
 * empty one (root/<n>); deleting a few small files and making a directory take well under a
 * millisecond, against builds of tens to hundreds of milliseconds. */
static int build_run(void *state)
{
    struct build *s = state;
    if (s->kind == BUILD_COLD) {
        char dir[PATH_MAX];
        if (s->runs > 0)
            remove_tree(s->target, s->cache);
        int len = snprintf(dir, sizeof(dir), "%s/%u", s->root, s->runs);
        if (len < 0 || (size_t)len >= sizeof(dir) || mkdir(dir, 0700) != 0) {
            fprintf(stderr, "%s: %s: cannot make %s: %s\n", s->target, s->name, dir,
                    strerror(errno));
            return -1;
        }
        set_cache(s, dir);
    }
    s->runs++;
    return child_build(s);
}

static int build_check(void *state)
{
    struct build *s = state;
    size_t files = count_files(s->cache);
    if (s->kind == BUILD_COLD && files == 0) {
        fprintf(stderr,
                "%s: %s: the build stored nothing in %s, so the next one would be as "
                "cold: is the cache turned off?\n",
                s->target, s->name, s->cache);
        return -1;
    }
    if (s->kind == BUILD_WARM && files != s->warm_files) {
        fprintf(stderr,
                "%s: %s: %s held %zu files after the first build and %zu after the "
                "timed ones: they were not served from the cache\n",
                s->target, s->name, s->cache, s->warm_files, files);
        return -1;
    }
    int status = run_child(s, "verify", NULL);
    if (status != CHILD_OK) {
        if (status > 0)
            fprintf(stderr, "%s: %s: the verifying child %s (exit status %d)\n", s->target, s->name,
                    status == CHILD_WRONG ? "found a wrong result" : "failed", status);
        return -1;
    }
    /* The first child of run() is the harness's untimed warm-up; the rest match the table. */
    if (s->child_count > 1) {
        size_t n = s->child_count - 1;
        double *t = s->child_s + 1;
        double median = bench_median(t, n);
        printf("%s: %s: clCreateProgramWithSource + clBuildProgram alone, inside the child: "
               "median %.3f ms\n",
               s->target, s->name, median * 1e3);
    }
    return 0;
}

static void build_teardown(void *state)
{
    build_free(state);
}

/* Builds per second: a new process, a build, an exit. */
static double build_rate(const struct bench_env *env, double seconds)
{
    (void)env;
    return 1.0 / seconds;
}

const struct bench_case bench_case_build_cold = {
    .name = "build-cold",
    .summary = "a new process builds a 3-kernel program with an empty kernel cache; "
               "builds/s, spawn to exit",
    .cl = {setup_cold, build_run, build_check, build_teardown},
    .host = {NULL, NULL, NULL, NULL},
    .rate = build_rate,
    .rate_unit = "builds/s",
};

const struct bench_case bench_case_build_warm = {
    .name = "build-warm",
    .summary = "a new process builds the same program from a kernel cache filled before; "
               "builds/s, spawn to exit",
    .cl = {setup_warm, build_run, build_check, build_teardown},
    .host = {NULL, NULL, NULL, NULL},
    .rate = build_rate,
    .rate_unit = "builds/s",
};
