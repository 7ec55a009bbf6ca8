/*
 * kiln_cpu_info_get() describes this machine sensibly and returns the same
 * cached answer every time.
 */
#include <unistd.h>

#include "kiln_device.h"
#include "sched_test.h"

int main(void)
{
    const struct kiln_cpu_info *i = kiln_cpu_info_get();

    CHECK(i == kiln_cpu_info_get());
    CHECK(i->physical_cores >= 1);
    CHECK(i->hw_threads >= i->physical_cores);
    CHECK(i->hw_threads <= (unsigned)sysconf(_SC_NPROCESSORS_CONF));
    CHECK(i->global_mem_size > 0);
    CHECK(i->name[0] != '\0' && i->vendor[0] != '\0');
    CHECK(i->cacheline_size >= 16 && (i->cacheline_size & (i->cacheline_size - 1)) == 0);
    CHECK(i->l2_size == 0 || i->l2_size >= i->l1d_size);
    /* The core table: distinct first threads, and cache levels that nest (two cores sharing
     * an inner cache share every outer one; NUMA nodes may sit either side of a cache). */
    CHECK(i->physical_cores <= KILN_CPU_MAX_CORES);
    for (unsigned a = 0; a < i->physical_cores; a++) {
        CHECK(i->cores[a].pu >= 0 && i->cores[a].pu < (int)sysconf(_SC_NPROCESSORS_CONF));
        for (unsigned b = a + 1; b < i->physical_cores; b++) {
            CHECK(i->cores[a].pu != i->cores[b].pu);
            for (int inner = KILN_CPU_LEVELS - 1; inner > KILN_CPU_L4; inner--) {
                if (i->cores[a].domain[inner] < 0 ||
                    i->cores[a].domain[inner] != i->cores[b].domain[inner])
                    continue;
                for (int outer = KILN_CPU_L4; outer < inner; outer++)
                    CHECK(i->cores[a].domain[outer] == i->cores[b].domain[outer]);
            }
        }
    }
    printf("%s (%s): %u cores, %u threads, %llu MiB, L1d %llu KiB, L2 %llu KiB, L3 %llu KiB, "
           "line %u, %u MHz\n",
           i->name, i->vendor, i->physical_cores, i->hw_threads,
           (unsigned long long)(i->global_mem_size >> 20), (unsigned long long)(i->l1d_size >> 10),
           (unsigned long long)(i->l2_size >> 10), (unsigned long long)(i->l3_size >> 10),
           i->cacheline_size, i->max_clock_mhz);
    return 0;
}
