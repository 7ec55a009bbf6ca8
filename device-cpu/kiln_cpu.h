/*
 * The CPU device: what the runtime asks of the machine (device-cpu layer).
 */
#ifndef KILN_DEVICE_CPU_KILN_CPU_H
#define KILN_DEVICE_CPU_KILN_CPU_H

#include <stddef.h>
#include <stdint.h>

/*
 * The levels of the memory hierarchy a device can be partitioned by
 * (CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN), outermost first.
 */
enum kiln_cpu_level {
    KILN_CPU_NUMA,
    KILN_CPU_L4,
    KILN_CPU_L3,
    KILN_CPU_L2,
    KILN_CPU_L1,
    KILN_CPU_LEVELS
};

#define KILN_CPU_MAX_CORES 1024

/* One physical core: one compute unit of the device. */
struct kiln_cpu_core {
    int pu; /* OS index of its first hardware thread, where its worker is pinned */
    /*
     * Which NUMA node, L4, L3, L2 and L1 data cache holds it: hwloc's logical index of that
     * object, so two cores with equal entries share it; -1 when the machine shows no such level.
     */
    int domain[KILN_CPU_LEVELS];
};

/* Facts about the host read from hwloc once (hwloc's OpenCL/CUDA plugins off). */
struct kiln_cpu_info {
    char name[128];                      /* CPU model name, e.g. "AMD EPYC" */
    char vendor[64];                     /* e.g. "AuthenticAMD" */
    unsigned physical_cores;             /* hwloc cores, >= 1 */
    unsigned hw_threads;                 /* hwloc PUs, >= physical_cores */
    uint64_t global_mem_size;            /* bytes of RAM */
    uint64_t l1d_size, l2_size, l3_size; /* bytes, 0 when unknown */
    unsigned cacheline_size;             /* bytes */
    unsigned max_clock_mhz;              /* 0 when unknown */
    /* The cores in hwloc's logical order, physical_cores of them (at most KILN_CPU_MAX_CORES). */
    struct kiln_cpu_core cores[KILN_CPU_MAX_CORES];
};

/* Fill *info; never fails (falls back to sysconf values). Thread-safe, cached. */
const struct kiln_cpu_info *kiln_cpu_info_get(void);

#endif
