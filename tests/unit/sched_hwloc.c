/*
 * Loading the topology keeps hwloc's I/O plugins out: their names join a
 * blacklist the user already set, and no OpenCL ICD loader ends up mapped in
 * the process (hwloc's OpenCL plugin would bring one).
 */
#include <hwloc.h>

#include "sched_test.h"

int main(void)
{
    static const char *const plugins[] = {"hwloc_opencl", "hwloc_cuda",      "hwloc_nvml",
                                          "hwloc_rsmi",   "hwloc_levelzero", "hwloc_gl"};
    struct hwloc_topology *t;
    char line[1024];

    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci", 1);
    CHECK(kiln_sched_topology_load(&t) == 0);
    CHECK(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) >= 1);
    CHECK(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_OS_DEVICE) == 0);
    CHECK(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PCI_DEVICE) == 0);
    hwloc_topology_destroy(t);

    const char *list = getenv("HWLOC_PLUGINS_BLACKLIST");
    CHECK(list && strncmp(list, "hwloc_pci,", 10) == 0);
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++)
        CHECK(strstr(list, plugins[i]));

    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps);
    while (fgets(line, sizeof line, maps))
        CHECK(!strstr(line, "libOpenCL"));
    fclose(maps);
    return 0;
}
