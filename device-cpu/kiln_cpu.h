/*
 * The CPU device: what the runtime asks of the machine (device-cpu layer).
 */
#ifndef KILN_DEVICE_CPU_KILN_CPU_H
#define KILN_DEVICE_CPU_KILN_CPU_H

#include <stddef.h>
#include <stdint.h>

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
};

/* Fill *info; never fails (falls back to sysconf values). Thread-safe, cached. */
const struct kiln_cpu_info *kiln_cpu_info_get(void);

#endif
