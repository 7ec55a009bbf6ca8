/*
 * Host facts for the CPU device (kiln_cpu_info_get): cores, threads, memory,
 * caches, model name and clock, read once from hwloc with /proc and sysconf as
 * fallbacks. The topology is loaded through kiln_sched_topology_load(), which
 * keeps hwloc's OpenCL and other I/O plugins out of the driver.
 */
#include "kiln_device.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln_sched.h"

static struct kiln_cpu_info info; /* written once under `once`, then read-only */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned cores_listed; /* entries of info.cores filled from hwloc */

/* Copy src into dst (of size n) without leading or trailing blanks. */
static void copy_trimmed(char *dst, size_t n, const char *src)
{
    while (*src == ' ' || *src == '\t')
        src++;
    size_t len = strlen(src);
    while (len && (src[len - 1] == ' ' || src[len - 1] == '\t' || src[len - 1] == '\n'))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/*
 * The value of the first /proc/cpuinfo line whose key is `key`, into dst.
 * Returns 1 when found.
 */
static int cpuinfo_field(const char *key, char *dst, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    size_t klen = strlen(key);
    int found = 0;

    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 ||
            (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':'))
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        copy_trimmed(dst, n, colon + 1);
        found = dst[0] != '\0';
    }
    fclose(f);
    return found;
}

/*
 * The highest clock in MHz: cpufreq's cpuinfo_max_freq when the kernel has a
 * frequency driver, else the largest "cpu MHz" in /proc/cpuinfo (a current
 * figure, the best there is inside most virtual machines), else 0.
 */
static unsigned max_clock_mhz(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    unsigned long khz = 0;
    double best = 0;
    char line[512];

    if (f) {
        int ok = fscanf(f, "%lu", &khz) == 1;
        fclose(f);
        if (ok && khz >= 1000)
            return (unsigned)(khz / 1000);
    }
    f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "cpu MHz", 7) != 0)
            continue;
        char *colon = strchr(line, ':');
        double mhz = colon ? strtod(colon + 1, NULL) : 0;
        if (mhz > best)
            best = mhz;
    }
    fclose(f);
    return (unsigned)(best + 0.5);
}

/* An info attribute from the first package, or the machine object. */
static const char *topo_info(hwloc_topology_t t, const char *name)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
    const char *v = pkg ? hwloc_obj_get_info_by_name(pkg, name) : NULL;
    if (!v || !*v)
        v = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), name);
    return v && *v ? v : NULL;
}

/* The first data (or unified) cache of `type`; NULL when hwloc has none. */
static hwloc_obj_t data_cache(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(t, type, (unsigned)i);
        if (c->attr && c->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION)
            return c;
    }
    return NULL;
}

/* The hwloc logical index of the object of `type` that holds `core`, or -1. */
static int holder(hwloc_topology_t t, hwloc_obj_t core, hwloc_obj_type_t type)
{
    if (type == HWLOC_OBJ_NUMANODE) {
        /* NUMA nodes hang off the tree as memory children: match by cpuset. */
        hwloc_obj_t node = NULL;
        while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)))
            if (node->cpuset && hwloc_bitmap_isincluded(core->cpuset, node->cpuset))
                return (int)node->logical_index;
        return -1;
    }
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, core);
    return a ? (int)a->logical_index : -1;
}

/* The core table: each core's first PU and the objects of each level that hold it. */
static void list_cores(hwloc_topology_t t)
{
    static const hwloc_obj_type_t types[KILN_CPU_LEVELS] = {
        [KILN_CPU_NUMA] = HWLOC_OBJ_NUMANODE, [KILN_CPU_L4] = HWLOC_OBJ_L4CACHE,
        [KILN_CPU_L3] = HWLOC_OBJ_L3CACHE,    [KILN_CPU_L2] = HWLOC_OBJ_L2CACHE,
        [KILN_CPU_L1] = HWLOC_OBJ_L1CACHE,
    };
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    unsigned made = 0;
    for (int i = 0; i < n && made < KILN_CPU_MAX_CORES; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)i);
        hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU, 0);
        if (!pu)
            continue;
        struct kiln_cpu_core *c = &info.cores[made++];
        c->pu = (int)pu->os_index;
        for (int l = 0; l < KILN_CPU_LEVELS; l++)
            c->domain[l] = holder(t, core, types[l]);
    }
    cores_listed = made;
}

static void from_topology(hwloc_topology_t t)
{
    int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    hwloc_obj_t c;
    const char *v;

    if (pus > 0)
        info.hw_threads = (unsigned)pus;
    if (cores > 0)
        info.physical_cores = (unsigned)cores;
    else if (pus > 0)
        info.physical_cores = (unsigned)pus;
    info.global_mem_size = hwloc_get_root_obj(t)->total_memory;
    list_cores(t);
    if ((c = data_cache(t, HWLOC_OBJ_L1CACHE))) {
        info.l1d_size = c->attr->cache.size;
        info.cacheline_size = c->attr->cache.linesize;
    }
    if ((c = data_cache(t, HWLOC_OBJ_L2CACHE)))
        info.l2_size = c->attr->cache.size;
    if ((c = data_cache(t, HWLOC_OBJ_L3CACHE)))
        info.l3_size = c->attr->cache.size;
    if ((v = topo_info(t, "CPUModel")))
        copy_trimmed(info.name, sizeof info.name, v);
    if ((v = topo_info(t, "CPUVendor")))
        copy_trimmed(info.vendor, sizeof info.vendor, v);
}

/* The vector registers the CPU and its operating system enable, as the compiler targets them
 * (it enables the host's features). */
static void vector_bytes(void)
{
    info.float_vector_bytes = info.int_vector_bytes = 16;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        info.float_vector_bytes = info.int_vector_bytes = 64;
    } else {
        if (__builtin_cpu_supports("avx"))
            info.float_vector_bytes = 32;
        if (__builtin_cpu_supports("avx2"))
            info.int_vector_bytes = 32;
    }
#endif
}

static void fill(void)
{
    struct hwloc_topology *t;

    if (kiln_sched_topology_load(&t) == 0) {
        from_topology(t);
        hwloc_topology_destroy(t);
    }
    if (!info.hw_threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        info.hw_threads = n > 0 ? (unsigned)n : 1;
    }
    if (!info.physical_cores)
        info.physical_cores = info.hw_threads;
    if (info.physical_cores > KILN_CPU_MAX_CORES)
        info.physical_cores = KILN_CPU_MAX_CORES;
    if (info.hw_threads < info.physical_cores)
        info.hw_threads = info.physical_cores;
    if (cores_listed) {
        info.physical_cores = cores_listed;
    } else {
        /* No core table from hwloc: one core per CPU, in no known domain. */
        for (unsigned i = 0; i < info.physical_cores; i++) {
            info.cores[i].pu = (int)i;
            for (int l = 0; l < KILN_CPU_LEVELS; l++)
                info.cores[i].domain[l] = -1;
        }
    }
    if (!info.global_mem_size) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            info.global_mem_size = (uint64_t)pages * (uint64_t)page;
    }
    if (!info.l1d_size) {
        long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        info.l1d_size = v > 0 ? (uint64_t)v : 0;
    }
    if (!info.l2_size) {
        long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        info.l2_size = v > 0 ? (uint64_t)v : 0;
    }
    if (!info.l3_size) {
        long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
        info.l3_size = v > 0 ? (uint64_t)v : 0;
    }
    if (!info.cacheline_size) {
        long v = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
        info.cacheline_size = v > 0 ? (unsigned)v : 64;
    }
    if (!info.name[0] && !cpuinfo_field("model name", info.name, sizeof info.name))
        snprintf(info.name, sizeof info.name, "Unknown CPU");
    if (!info.vendor[0] && !cpuinfo_field("vendor_id", info.vendor, sizeof info.vendor))
        snprintf(info.vendor, sizeof info.vendor, "Unknown");
    info.max_clock_mhz = max_clock_mhz();
    vector_bytes();
}

const struct kiln_cpu_info *kiln_cpu_info_get(void)
{
    if (pthread_once(&once, fill) != 0)
        abort();
    return &info;
}
