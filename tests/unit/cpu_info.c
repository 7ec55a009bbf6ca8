/*
 * kiln_cpu_info_get() describes this machine sensibly and returns the same
 * cached answer every time.
 */
#include <unistd.h>

#include "kiln_cpu.h"
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
    printf("%s (%s): %u cores, %u threads, %llu MiB, L1d %llu KiB, L2 %llu KiB, L3 %llu KiB, "
           "line %u, %u MHz\n",
           i->name, i->vendor, i->physical_cores, i->hw_threads,
           (unsigned long long)(i->global_mem_size >> 20), (unsigned long long)(i->l1d_size >> 10),
           (unsigned long long)(i->l2_size >> 10), (unsigned long long)(i->l3_size >> 10),
           i->cacheline_size, i->max_clock_mhz);
    return 0;
}
