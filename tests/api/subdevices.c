/*
 * Device partitioning as Kiln offers it today: the CPU device reports no partition
 * types, so every clCreateSubDevices request is refused with CL_INVALID_VALUE (the
 * specification's answer for a partition type the device does not support), the
 * partition queries agree with that, and nothing is written to the outputs.
 */
#include "kiln_test.h"

static void expect_refused(cl_device_id dev, const cl_device_partition_property *props,
                           const char *what)
{
    cl_device_id out[4] = {NULL, NULL, NULL, NULL};
    cl_uint n = 12345;
    cl_int err = clCreateSubDevices(dev, props, 4, out, &n);
    KT_CHECK(err == CL_INVALID_VALUE, "%s: got %d, want CL_INVALID_VALUE", what, err);
    KT_CHECK(n == 12345, "%s: num_devices_ret written (%u) on failure", what, n);
    KT_CHECK(out[0] == NULL, "%s: out_devices written on failure", what);
}

int main(void)
{
    cl_platform_id platform = kt_kiln_platform();
    cl_device_id dev = NULL;
    KT_REQUIRE(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &dev, NULL) == CL_SUCCESS,
               "no CPU device");

    /* The partition queries describe a device that cannot be partitioned. */
    cl_device_partition_property props[8];
    size_t size = 0;
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props, &size),
              CL_SUCCESS);
    KT_CHECK(size == sizeof(cl_device_partition_property) && props[0] == 0,
             "partition properties: size %zu, first %ld", size, (long)props[0]);
    cl_uint max_sub = 99;
    KT_EXPECT(
        clGetDeviceInfo(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(max_sub), &max_sub, NULL),
        CL_SUCCESS);
    KT_CHECK(max_sub == 0, "max sub-devices %u", max_sub);
    cl_device_affinity_domain domains = 99;
    KT_EXPECT(
        clGetDeviceInfo(dev, CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof(domains), &domains, NULL),
        CL_SUCCESS);
    KT_CHECK(domains == 0, "affinity domains %lu", (unsigned long)domains);
    cl_device_id parent = dev;
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_PARENT_DEVICE, sizeof(parent), &parent, NULL),
              CL_SUCCESS);
    KT_CHECK(parent == NULL, "a root device has no parent");
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_TYPE, 0, NULL, &size), CL_SUCCESS);
    KT_CHECK(size == 0, "partition type of a root device: size %zu", size);

    /* Every request is refused. */
    KT_EXPECT(clCreateSubDevices(dev, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    const cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    expect_refused(dev, equally, "equally");
    const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1,
                                                   CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    expect_refused(dev, counts, "by counts");
    const cl_device_partition_property affinity[] = {
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
    expect_refused(dev, affinity, "by affinity domain");
    const cl_device_partition_property bogus[] = {0x7777, 0};
    expect_refused(dev, bogus, "unknown property");

    /* Retain and release of the root device succeed and change nothing. */
    KT_EXPECT(clRetainDevice(dev), CL_SUCCESS);
    KT_EXPECT(clReleaseDevice(dev), CL_SUCCESS);
    cl_uint refs = 0;
    KT_EXPECT(clGetDeviceInfo(dev, CL_DEVICE_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS);
    KT_CHECK(refs == 1, "root reference count %u", refs);
    return kt_finish("subdevices");
}
