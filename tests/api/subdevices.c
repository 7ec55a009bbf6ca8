/*
 * Sub-devices: the partition queries, clCreateSubDevices with EQUALLY, BY_COUNTS and
 * BY_AFFINITY_DOMAIN, nested partitions, reference counts, kernels run in one context
 * of sub-devices and their parent, each sub-device's workers pinned to its own cores,
 * and every refusal with outputs left untouched.
 *
 * The machine decides how many compute units there are; run with HWLOC_SYNTHETIC
 * (ctest does, see CMakeLists.txt) to see a larger machine with NUMA nodes and shared
 * caches. Workers are then not pinned (the topology is not this machine), so the
 * pinning check runs only on the real topology. KILN_TEST_DOMAINS, when set, holds the
 * number of root sub-devices expected by NUMA, L4, L3, L2 and L1 partitions ("2 0 4 8 8";
 * 0: the domain is not reported, as a level that does not split the device is not).
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>

#include "kiln_test.h"

static cl_uint uint_info(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    KT_EXPECT(clGetDeviceInfo(d, what, sizeof(v), &v, NULL), CL_SUCCESS);
    return v;
}

/* A request Kiln must refuse with `want`, writing nothing. */
static void expect_refused(cl_device_id dev, const cl_device_partition_property *props, cl_int want,
                           const char *what)
{
    cl_device_id out[64];
    for (int i = 0; i < 64; i++)
        out[i] = (cl_device_id)(uintptr_t)0x1234;
    cl_uint n = 12345;
    cl_int err = clCreateSubDevices(dev, props, 64, out, &n);
    KT_CHECK(err == want, "%s: got %d, want %d", what, err, want);
    KT_CHECK(n == 12345, "%s: num_devices_ret written (%u) on failure", what, n);
    KT_CHECK(out[0] == (cl_device_id)(uintptr_t)0x1234, "%s: out_devices written on failure", what);
    n = 12345;
    err = clCreateSubDevices(dev, props, 0, NULL, &n);
    KT_CHECK(err == want, "%s (count only): got %d, want %d", what, err, want);
    KT_CHECK(n == 12345, "%s: num_devices_ret written (%u) on failure", what, n);
}

/* Partition `dev`; returns the count made, the devices in out[]. */
static cl_uint partition(cl_device_id dev, const cl_device_partition_property *props,
                         cl_device_id *out, cl_uint cap, const char *what)
{
    cl_uint n = 0;
    cl_int err = clCreateSubDevices(dev, props, 0, NULL, &n);
    KT_REQUIRE(err == CL_SUCCESS, "%s: counting: %d", what, err);
    KT_REQUIRE(n >= 1 && n <= cap, "%s: %u sub-devices", what, n);
    cl_uint again = 0;
    err = clCreateSubDevices(dev, props, n, out, &again);
    KT_REQUIRE(err == CL_SUCCESS, "%s: %d", what, err);
    KT_CHECK(again == n, "%s: %u then %u", what, n, again);
    return n;
}

/* The sub-device answers for its parent and for how it was made. */
static void check_sub(cl_device_id sub, cl_device_id parent, const cl_device_partition_property *t,
                      size_t tlen, cl_uint want_cus, const char *what)
{
    cl_device_id p = NULL;
    KT_EXPECT(clGetDeviceInfo(sub, CL_DEVICE_PARENT_DEVICE, sizeof(p), &p, NULL), CL_SUCCESS);
    KT_CHECK(p == parent, "%s: parent %p, want %p", what, (void *)p, (void *)parent);
    cl_device_partition_property got[16];
    size_t size = 0;
    KT_EXPECT(clGetDeviceInfo(sub, CL_DEVICE_PARTITION_TYPE, sizeof(got), got, &size), CL_SUCCESS);
    KT_CHECK(size == tlen * sizeof(got[0]), "%s: partition type of %zu bytes, want %zu", what, size,
             tlen * sizeof(got[0]));
    for (size_t i = 0; i < tlen && i < 16 && size == tlen * sizeof(got[0]); i++)
        KT_CHECK(got[i] == t[i], "%s: partition type[%zu] 0x%lx, want 0x%lx", what, i, (long)got[i],
                 (long)t[i]);
    if (want_cus)
        KT_CHECK(uint_info(sub, CL_DEVICE_MAX_COMPUTE_UNITS) == want_cus,
                 "%s: %u compute units, want %u", what, uint_info(sub, CL_DEVICE_MAX_COMPUTE_UNITS),
                 want_cus);
    KT_CHECK(uint_info(sub, CL_DEVICE_REFERENCE_COUNT) == 1, "%s: reference count %u", what,
             uint_info(sub, CL_DEVICE_REFERENCE_COUNT));
    cl_platform_id plat = NULL;
    KT_EXPECT(clGetDeviceInfo(sub, CL_DEVICE_PLATFORM, sizeof(plat), &plat, NULL), CL_SUCCESS);
    KT_CHECK(plat == kt_kiln_platform(), "%s: platform", what);
}

/* Unsigned, so that the values, tripled over and over, wrap as defined (in C and OpenCL C). */
static const char *src = "__kernel void triple(__global uint *d) { d[get_global_id(0)] *= 3; }\n"
                         "__kernel void inc(__global uint *d) { d[get_global_id(0)] += 1; }\n";

/*
 * One context of `n` devices, a queue on each, one program built for all of them (or for
 * `build_for` only), and kernels alternating over the queues on one buffer: the result
 * must be the serial one.
 */
static void run_on(const cl_device_id *devs, cl_uint n, const cl_device_id *build_for,
                   const char *what)
{
    enum { N = 4096, ROUNDS = 3 };
    cl_int err;
    cl_context ctx = clCreateContext(NULL, n, devs, NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "%s: context: %d", what, err);
    cl_uint num = 0;
    KT_EXPECT(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof(num), &num, NULL), CL_SUCCESS);
    KT_CHECK(num == n, "%s: context has %u devices, want %u", what, num, n);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "%s: program: %d", what, err);
    KT_EXPECT(clBuildProgram(prog, build_for ? 1 : 0, build_for, NULL, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof(num), &num, NULL), CL_SUCCESS);
    KT_CHECK(num == n, "%s: program has %u devices, want %u", what, num, n);
    cl_kernel k[2] = {clCreateKernel(prog, "triple", &err), clCreateKernel(prog, "inc", &err)};
    KT_REQUIRE(k[0] && k[1], "%s: kernels", what);
    static cl_uint host[N], want[N];
    for (int i = 0; i < N; i++)
        host[i] = want[i] = (cl_uint)(i - N / 2);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
    KT_REQUIRE(err == CL_SUCCESS, "%s: buffer: %d", what, err);
    cl_command_queue q[64];
    for (cl_uint i = 0; i < n; i++) {
        q[i] = clCreateCommandQueueWithProperties(ctx, devs[i], NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "%s: queue %u: %d", what, i, err);
        cl_build_status st = CL_BUILD_NONE;
        KT_EXPECT(
            clGetProgramBuildInfo(prog, devs[i], CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL),
            CL_SUCCESS);
        KT_CHECK(st == CL_BUILD_SUCCESS, "%s: build status %d on device %u", what, st, i);
        size_t wg = 0;
        KT_EXPECT(clGetKernelWorkGroupInfo(k[0], devs[i], CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
                                           &wg, NULL),
                  CL_SUCCESS);
        KT_CHECK(wg >= 1, "%s: work-group size %zu", what, wg);
    }
    if (n > 1) {
        size_t wg = 0;
        KT_EXPECT(
            clGetKernelWorkGroupInfo(k[0], NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL),
            CL_INVALID_DEVICE);
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (cl_uint i = 0; i < n; i++) {
            int which = (int)((i + (cl_uint)r) % 2);
            KT_EXPECT(clSetKernelArg(k[which], 0, sizeof(buf), &buf), CL_SUCCESS);
            size_t g = N, l = 64;
            KT_EXPECT(clEnqueueNDRangeKernel(q[i], k[which], 1, NULL, &g, &l, 0, NULL, NULL),
                      CL_SUCCESS);
            KT_EXPECT(clFinish(q[i]), CL_SUCCESS);
            for (int j = 0; j < N; j++)
                want[j] = which ? want[j] + 1 : want[j] * 3;
        }
    }
    for (cl_uint i = 0; i < n; i++) {
        memset(host, 0, sizeof(host));
        KT_EXPECT(clEnqueueReadBuffer(q[i], buf, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL),
                  CL_SUCCESS);
        int bad = 0;
        for (int j = 0; j < N; j++)
            bad += host[j] != want[j];
        KT_CHECK(bad == 0, "%s: %d wrong values read through queue %u", what, bad, i);
    }
    for (cl_uint i = 0; i < n; i++)
        clReleaseCommandQueue(q[i]);
    clReleaseMemObject(buf);
    clReleaseKernel(k[0]);
    clReleaseKernel(k[1]);
    clReleaseProgram(prog);
    KT_EXPECT(clReleaseContext(ctx), CL_SUCCESS);
}

/*
 * The CPUs the threads named `prefix`<digits> may run on, as one bit each (CPUs < 64);
 * returns the number of such threads, each of which must be pinned to exactly one CPU.
 */
static int pinned_threads(const char *prefix, uint64_t *cpus)
{
    *cpus = 0;
    int count = 0;
    DIR *dir = opendir("/proc/self/task");
    KT_REQUIRE(dir, "cannot list /proc/self/task");
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        bool ours = false;
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "Name:\t", 6) == 0)
                ours = strncmp(line + 6, prefix, strlen(prefix)) == 0;
            if (ours && strncmp(line, "Cpus_allowed_list:\t", 19) == 0) {
                unsigned cpu = 0;
                char rest[8] = "";
                int got = sscanf(line + 19, "%u%7s", &cpu, rest);
                KT_CHECK(got == 1, "thread %s pinned to %s", e->d_name, line + 19);
                if (got == 1 && cpu < 64)
                    *cpus |= UINT64_C(1) << cpu;
                count++;
            }
        }
        fclose(f);
    }
    closedir(dir);
    return count;
}

static void errors(cl_device_id root, cl_uint cus)
{
    const cl_device_partition_property zero[] = {CL_DEVICE_PARTITION_EQUALLY, 0, 0};
    expect_refused(root, zero, CL_INVALID_DEVICE_PARTITION_COUNT, "equally 0");
    const cl_device_partition_property whole[] = {CL_DEVICE_PARTITION_EQUALLY, cus, 0};
    expect_refused(root, whole, CL_DEVICE_PARTITION_FAILED, "equally cus: one sub-device");
    const cl_device_partition_property toomany[] = {CL_DEVICE_PARTITION_EQUALLY, cus + 1, 0};
    expect_refused(root, toomany, CL_INVALID_DEVICE_PARTITION_COUNT, "equally cus+1");
    const cl_device_partition_property over[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, cus,
                                                 CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    expect_refused(root, over, CL_INVALID_DEVICE_PARTITION_COUNT, "counts over the total");
    const cl_device_partition_property neg[] = {CL_DEVICE_PARTITION_BY_COUNTS, -1,
                                                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    expect_refused(root, neg, CL_INVALID_DEVICE_PARTITION_COUNT, "negative count");
    const cl_device_partition_property nothing[] = {CL_DEVICE_PARTITION_BY_COUNTS,
                                                    CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    expect_refused(root, nothing, CL_INVALID_VALUE, "empty count list");
    const cl_device_partition_property bogus[] = {0x7777, 0};
    expect_refused(root, bogus, CL_INVALID_VALUE, "unknown partition type");
    const cl_device_partition_property empty[] = {0};
    expect_refused(root, empty, CL_INVALID_VALUE, "no partition type");
    const cl_device_partition_property two[] = {CL_DEVICE_PARTITION_EQUALLY, 1,
                                                CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    expect_refused(root, two, CL_INVALID_VALUE, "two partition types");
    const cl_device_partition_property dom[] = {
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
        CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE | CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, 0};
    expect_refused(root, dom, CL_INVALID_VALUE, "two affinity domains");
    KT_EXPECT(clCreateSubDevices(root, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    KT_EXPECT(clCreateSubDevices(NULL, zero, 0, NULL, NULL), CL_INVALID_DEVICE);

    /* Room for fewer devices than the partition makes. */
    const cl_device_partition_property one[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_device_id out[2] = {NULL, NULL};
    cl_uint n = 99;
    KT_EXPECT(clCreateSubDevices(root, one, cus - 1, out, &n), CL_INVALID_VALUE);
    KT_CHECK(n == 99 && out[0] == NULL, "outputs written on failure");
    KT_EXPECT(clRetainDevice(NULL), CL_INVALID_DEVICE);
    KT_EXPECT(clReleaseDevice(NULL), CL_INVALID_DEVICE);
}

/* Partition by every affinity domain the device reports, and check each result. */
static void affinity(cl_device_id dev, cl_uint cus, const int *expect, const char *what)
{
    cl_device_affinity_domain doms = 0;
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof(doms), &doms, NULL),
              CL_SUCCESS);
    static const cl_device_affinity_domain all[] = {
        CL_DEVICE_AFFINITY_DOMAIN_NUMA,     CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        cl_device_partition_property props[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                                (cl_device_partition_property)all[i], 0};
        if (expect && i < 5)
            KT_CHECK(!!(doms & all[i]) == (expect[i] != 0), "%s: domain 0x%lx reported: %d", what,
                     (unsigned long)all[i], !!(doms & all[i]));
        if (!(doms & all[i])) {
            expect_refused(dev, props, CL_INVALID_VALUE, "an affinity domain not reported");
            continue;
        }
        cl_uint n = 0;
        cl_int err = clCreateSubDevices(dev, props, 0, NULL, &n);
        if (expect && i < 5)
            KT_CHECK(expect[i] == 1 ? err == CL_DEVICE_PARTITION_FAILED
                                    : err == CL_SUCCESS && n == (cl_uint)expect[i],
                     "%s: domain 0x%lx: %d, %u sub-devices, want %d", what, (unsigned long)all[i],
                     err, n, expect[i]);
        if (err == CL_DEVICE_PARTITION_FAILED)
            continue; /* the whole device shares that level */
        KT_REQUIRE(err == CL_SUCCESS, "%s: affinity 0x%lx: %d", what, (unsigned long)all[i], err);
        cl_device_id subs[64];
        n = partition(dev, props, subs, 64, what);
        KT_CHECK(n >= 2, "%s: affinity 0x%lx made %u device(s)", what, (unsigned long)all[i], n);
        cl_uint total = 0;
        for (cl_uint s = 0; s < n; s++) {
            cl_device_partition_property t[3] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                                 (cl_device_partition_property)all[i], 0};
            if (all[i] == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE) {
                /* NEXT_PARTITIONABLE is reported as the level it chose. */
                cl_device_partition_property got[3] = {0};
                clGetDeviceInfo(subs[s], CL_DEVICE_PARTITION_TYPE, sizeof(got), got, NULL);
                KT_CHECK(got[1] != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE &&
                             (got[1] & (got[1] - 1)) == 0 && (got[1] & (long)doms),
                         "%s: next partitionable reported as 0x%lx", what, (long)got[1]);
                t[1] = got[1];
            }
            check_sub(subs[s], dev, t, 3, 0, what);
            total += uint_info(subs[s], CL_DEVICE_MAX_COMPUTE_UNITS);
        }
        KT_CHECK(total == cus, "%s: affinity sub-devices hold %u of %u compute units", what, total,
                 cus);
        for (cl_uint s = 0; s < n; s++)
            KT_EXPECT(clReleaseDevice(subs[s]), CL_SUCCESS);
    }
}

int main(void)
{
    cl_platform_id platform = kt_kiln_platform();
    cl_device_id root = NULL;
    KT_REQUIRE(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &root, NULL) == CL_SUCCESS,
               "no CPU device");
    const bool synthetic = getenv("HWLOC_SYNTHETIC") != NULL;
    const cl_uint cus = uint_info(root, CL_DEVICE_MAX_COMPUTE_UNITS);
    printf("%u compute units%s\n", cus, synthetic ? " (synthetic topology)" : "");

    /* A root device: no parent, no partition type, reference count 1 whatever is done. */
    cl_device_id parent = root;
    KT_EXPECT(clGetDeviceInfo(root, CL_DEVICE_PARENT_DEVICE, sizeof(parent), &parent, NULL),
              CL_SUCCESS);
    KT_CHECK(parent == NULL, "a root device has no parent");
    size_t size = 99;
    KT_EXPECT(clGetDeviceInfo(root, CL_DEVICE_PARTITION_TYPE, 0, NULL, &size), CL_SUCCESS);
    KT_CHECK(size == 0, "partition type of a root device: size %zu", size);
    KT_EXPECT(clRetainDevice(root), CL_SUCCESS);
    KT_EXPECT(clReleaseDevice(root), CL_SUCCESS);
    KT_EXPECT(clReleaseDevice(root), CL_SUCCESS);
    KT_CHECK(uint_info(root, CL_DEVICE_REFERENCE_COUNT) == 1, "root reference count");

    cl_device_partition_property props[8];
    KT_EXPECT(clGetDeviceInfo(root, CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props, &size),
              CL_SUCCESS);
    if (cus < 2) {
        KT_CHECK(size == sizeof(props[0]) && props[0] == 0, "one compute unit: no partition types");
        const cl_device_partition_property one[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
        expect_refused(root, one, CL_INVALID_VALUE, "a device of one compute unit");
        return kt_finish("subdevices");
    }
    KT_CHECK(size == 4 * sizeof(props[0]) && props[0] == CL_DEVICE_PARTITION_EQUALLY &&
                 props[1] == CL_DEVICE_PARTITION_BY_COUNTS &&
                 props[2] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN && props[3] == 0,
             "partition properties (%zu bytes)", size);
    KT_CHECK(uint_info(root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == cus, "max sub-devices %u",
             uint_info(root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES));
    errors(root, cus);

    /* EQUALLY 1: one sub-device per compute unit, each with its own pinned worker. */
    cl_device_id subs[65];
    const cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_uint n = partition(root, eq1, subs, 64, "equally 1");
    KT_CHECK(n == cus, "equally 1 made %u of %u", n, cus);
    for (cl_uint i = 0; i < n; i++) {
        check_sub(subs[i], root, eq1, 3, 1, "equally 1");
        cl_uint none = 99;
        KT_EXPECT(clGetDeviceInfo(subs[i], CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(none), &none,
                                  NULL),
                  CL_SUCCESS);
        KT_CHECK(none == 0, "a one-unit sub-device offers %u sub-devices", none);
        expect_refused(subs[i], eq1, CL_INVALID_VALUE, "partitioning one compute unit");
    }
    KT_EXPECT(clRetainDevice(subs[0]), CL_SUCCESS);
    KT_CHECK(uint_info(subs[0], CL_DEVICE_REFERENCE_COUNT) == 2, "retained sub-device count");
    KT_EXPECT(clReleaseDevice(subs[0]), CL_SUCCESS);
    run_on(subs, n, NULL, "equally 1");
    if (!synthetic && cus <= 64) {
        uint64_t cpus = 0;
        int threads = pinned_threads("kiln-sub", &cpus);
        KT_CHECK(threads == (int)n, "%d sub-device workers, want %u", threads, n);
        KT_CHECK((cl_uint)__builtin_popcountll(cpus) == n,
                 "the sub-devices' workers share CPUs (mask 0x%llx)", (unsigned long long)cpus);
    }
    /* The sub-devices and their parent in one context, built for the parent only. */
    subs[n] = root;
    run_on(subs, n + 1, &root, "sub-devices and parent");
    /* A context and a queue keep a released sub-device alive. */
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &subs[0], NULL, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, subs[0], NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    cl_command_queue outside = clCreateCommandQueueWithProperties(ctx, subs[1], NULL, &err);
    KT_CHECK(outside == NULL && err == CL_INVALID_DEVICE,
             "queue on a device outside the context: %d", err);
    for (cl_uint i = 0; i < n; i++)
        KT_EXPECT(clReleaseDevice(subs[i]), CL_SUCCESS);
    cl_device_id in_ctx = NULL;
    KT_EXPECT(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof(in_ctx), &in_ctx, NULL), CL_SUCCESS);
    KT_CHECK(in_ctx == subs[0], "context device");
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "program: %d", err);
    KT_REQUIRE_OK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "inc", &err);
    KT_REQUIRE(err == CL_SUCCESS, "kernel: %d", err);
    int val[64] = {0};
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(val), val, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
    size_t g = 64;
    KT_EXPECT(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(val), val, 0, NULL, NULL), CL_SUCCESS);
    KT_CHECK(val[0] == 1 && val[63] == 1, "kernel on a released sub-device: %d %d", val[0],
             val[63]);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);

    /* BY_COUNTS 1, cus - 1, and a nested partition of the larger part when it can split. */
    const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, cus - 1,
                                                   CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    n = partition(root, counts, subs, 64, "by counts");
    KT_CHECK(n == 2, "by counts made %u", n);
    check_sub(subs[0], root, counts, 5, 1, "by counts [0]");
    check_sub(subs[1], root, counts, 5, cus - 1, "by counts [1]");
    if (cus - 1 >= 2) {
        cl_device_id inner[64];
        const cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
        cl_uint m = partition(subs[1], eq, inner, 64, "nested");
        KT_CHECK(m == cus - 1, "nested made %u", m);
        for (cl_uint i = 0; i < m; i++)
            check_sub(inner[i], subs[1], eq, 3, 1, "nested");
        run_on(inner, m, NULL, "nested");
        affinity(subs[1], cus - 1, NULL, "affinity of a sub-device");
        for (cl_uint i = 0; i < m; i++)
            KT_EXPECT(clReleaseDevice(inner[i]), CL_SUCCESS);
    }
    run_on(subs, 2, NULL, "by counts");
    KT_EXPECT(clReleaseDevice(subs[0]), CL_SUCCESS);
    KT_EXPECT(clReleaseDevice(subs[1]), CL_SUCCESS);

    int expect[5];
    const char *e = getenv("KILN_TEST_DOMAINS");
    bool have = e && sscanf(e, "%d %d %d %d %d", &expect[0], &expect[1], &expect[2], &expect[3],
                            &expect[4]) == 5;
    KT_REQUIRE(!e || have, "KILN_TEST_DOMAINS=\"%s\" is not five counts", e);
    affinity(root, cus, have ? expect : NULL, "affinity");
    return kt_finish("subdevices");
}
