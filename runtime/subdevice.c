/*
 * Sub-devices (clCreateSubDevices, and the reference counting of clRetainDevice and
 * clReleaseDevice for them).
 *
 * A device's compute units are physical cores (kiln_cpu_info's core table). A
 * partition deals a device's cores out to new devices:
 *
 *   EQUALLY n             as many devices of n cores as fit, in core order;
 *   BY_COUNTS a, b, ...   one device per count, taking the next a, b, ... cores;
 *   BY_AFFINITY_DOMAIN d  one device per NUMA node or cache of level d that holds
 *                         some of the device's cores; a level is offered only when it
 *                         splits the device in two or more, and NEXT_PARTITIONABLE
 *                         picks the outermost level offered.
 *
 * A sub-device has its own worker pool, started on first use, with one worker pinned
 * on each of its cores, so commands on two sub-devices never share a core. Sub-devices
 * are reference counted like other objects: the application's count (clRetainDevice,
 * clReleaseDevice) and the internal holds of the contexts and queues that use it and of
 * its own sub-devices. The last of them stops its pool.
 */
#include "rt_device.h"
#include "rt_debug.h"
#include "rt_object.h"

#include "kiln_alloc.h"

#include <stdlib.h>
#include <string.h>

#include "kiln_device.h"

/* The most sub-devices one request may make: one per core of the largest machine. */
#define MAX_PARTS KILN_CPU_MAX_CORES

/* A partition plan: part i gets cores first[i] .. first[i] + count[i] - 1 of order[]. */
struct plan {
    unsigned num_parts;
    unsigned order[KILN_CPU_MAX_CORES]; /* the device's core indices, grouped */
    unsigned first[MAX_PARTS];
    unsigned count[MAX_PARTS];
    cl_device_affinity_domain domain; /* BY_AFFINITY_DOMAIN: the level used */
};

static const cl_device_affinity_domain level_domains[KILN_CPU_LEVELS] = {
    [KILN_CPU_NUMA] = CL_DEVICE_AFFINITY_DOMAIN_NUMA,
    [KILN_CPU_L4] = CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
    [KILN_CPU_L3] = CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
    [KILN_CPU_L2] = CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
    [KILN_CPU_L1] = CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
};

/*
 * How many objects of `level` hold the cores of `d`: 0 when some core sits in none (the
 * machine shows no such level).
 */
static unsigned level_groups(cl_device_id d, int level)
{
    const struct kiln_cpu_info *cpu = kiln_cpu_info_get();
    unsigned groups = 0;
    for (cl_uint i = 0; i < d->compute_units; i++) {
        int dom = cpu->cores[d->cores[i]].domain[level];
        if (dom < 0)
            return 0;
        bool seen = false;
        for (cl_uint j = 0; j < i && !seen; j++)
            seen = cpu->cores[d->cores[j]].domain[level] == dom;
        groups += !seen;
    }
    return groups;
}

/* A level is offered when it splits the device: one object holding every core would
 * make a sub-device equal to the device, and partitioning that again would never end. */
cl_device_affinity_domain kiln_rt_device_affinity_domains(cl_device_id d)
{
    cl_device_affinity_domain mask = 0;
    for (int l = 0; l < KILN_CPU_LEVELS; l++)
        if (level_groups(d, l) > 1)
            mask |= level_domains[l];
    return mask ? mask | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE : 0;
}

/* Group the device's cores by their object of `level`, in order of first appearance. */
static void plan_by_level(cl_device_id d, int level, struct plan *p)
{
    const struct kiln_cpu_info *cpu = kiln_cpu_info_get();
    bool *taken = kiln_calloc(d->compute_units, sizeof(*taken));
    unsigned n = 0;
    p->num_parts = 0;
    for (cl_uint i = 0; taken && i < d->compute_units; i++) {
        if (taken[i])
            continue;
        int dom = cpu->cores[d->cores[i]].domain[level];
        p->first[p->num_parts] = n;
        for (cl_uint j = i; j < d->compute_units; j++) {
            if (!taken[j] && cpu->cores[d->cores[j]].domain[level] == dom) {
                taken[j] = true;
                p->order[n++] = d->cores[j];
            }
        }
        p->count[p->num_parts] = n - p->first[p->num_parts];
        p->num_parts++;
    }
    free(taken);
    p->domain = level_domains[level];
}

static cl_int plan_affinity(cl_device_id d, cl_device_partition_property prop, struct plan *p)
{
    cl_device_affinity_domain domain = (cl_device_affinity_domain)prop;
    cl_device_affinity_domain supported = kiln_rt_device_affinity_domains(d);
    if (domain == 0 || (domain & (domain - 1)) != 0 || !(domain & supported))
        return KILN_ERR(CL_INVALID_VALUE, "affinity domain 0x%lx is not one of 0x%lx",
                        (unsigned long)domain, (unsigned long)supported);
    /* NEXT_PARTITIONABLE: the outermost level offered. */
    int l = 0;
    while (!(supported & level_domains[l]) ||
           (domain != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE && domain != level_domains[l]))
        l++;
    plan_by_level(d, l, p);
    if (p->num_parts == 0)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "partition plan");
    return CL_SUCCESS;
}

static cl_int plan_counts(cl_device_id d, const cl_device_partition_property *counts,
                          struct plan *p)
{
    unsigned total = 0;
    p->num_parts = 0;
    for (size_t i = 0; counts[i] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END; i++) {
        cl_device_partition_property c = counts[i];
        if (c < 0)
            return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT, "count %zu is %ld", i, (long)c);
        if (p->num_parts >= d->compute_units)
            return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT, "more than %u sub-devices requested",
                            d->compute_units);
        if ((cl_ulong)c > d->compute_units - total)
            return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT,
                            "the counts ask for more than the %u compute units", d->compute_units);
        if (c == 0)
            return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT,
                            "count %zu is 0: a sub-device needs a compute unit", i);
        p->first[p->num_parts] = total;
        p->count[p->num_parts] = (unsigned)c;
        p->num_parts++;
        total += (unsigned)c;
    }
    if (p->num_parts == 0)
        return KILN_ERR(CL_INVALID_VALUE, "CL_DEVICE_PARTITION_BY_COUNTS lists no count");
    memcpy(p->order, d->cores, d->compute_units * sizeof(*d->cores));
    return CL_SUCCESS;
}

static cl_int plan_equally(cl_device_id d, cl_device_partition_property n, struct plan *p)
{
    if ((cl_ulong)n == d->compute_units)
        return KILN_ERR(CL_DEVICE_PARTITION_FAILED,
                        "EQUALLY %ld would make one sub-device as large as the device", (long)n);
    if (n <= 0 || (cl_ulong)n > d->compute_units)
        return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT,
                        "CL_DEVICE_PARTITION_EQUALLY %ld of %u compute units", (long)n,
                        d->compute_units);
    p->num_parts = d->compute_units / (unsigned)n;
    for (unsigned i = 0; i < p->num_parts; i++) {
        p->first[i] = i * (unsigned)n;
        p->count[i] = (unsigned)n;
    }
    memcpy(p->order, d->cores, d->compute_units * sizeof(*d->cores));
    return CL_SUCCESS;
}

/*
 * Check `props` and plan the partition. *len gets the number of entries of `props` up to
 * and including its terminating 0, for CL_DEVICE_PARTITION_TYPE.
 */
static cl_int plan_partition(cl_device_id d, const cl_device_partition_property *props,
                             struct plan *p, size_t *len)
{
    if (props == NULL)
        return KILN_ERR(CL_INVALID_VALUE, "properties is NULL");
    /* It reports no partition types (CL_DEVICE_PARTITION_PROPERTIES is {0}). */
    if (d->compute_units < 2)
        return KILN_ERR(CL_INVALID_VALUE, "a device of one compute unit cannot be partitioned");
    cl_int err;
    switch (props[0]) {
    case CL_DEVICE_PARTITION_EQUALLY:
        err = plan_equally(d, props[1], p);
        *len = 3;
        break;
    case CL_DEVICE_PARTITION_BY_COUNTS: {
        size_t n = 1;
        while (props[n] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END && n <= MAX_PARTS + 1)
            n++;
        if (props[n] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END)
            return KILN_ERR(CL_INVALID_DEVICE_PARTITION_COUNT,
                            "more than %u counts, or no CL_DEVICE_PARTITION_BY_COUNTS_LIST_END",
                            (unsigned)MAX_PARTS);
        err = plan_counts(d, props + 1, p);
        *len = n + 2;
        break;
    }
    case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN:
        err = plan_affinity(d, props[1], p);
        *len = 3;
        break;
    case 0:
        return KILN_ERR(CL_INVALID_VALUE, "properties names no partition type");
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown partition type 0x%lx", (long)props[0]);
    }
    if (err == CL_SUCCESS && props[*len - 1] != 0)
        err = KILN_ERR(CL_INVALID_VALUE, "properties has more than one partition type");
    return err;
}

static void device_destroy(struct kiln_object *obj);

/* Part `i` of plan `p` as a new device, with one API reference; NULL when out of memory. */
static cl_device_id make_sub_device(cl_device_id parent, const struct plan *p, unsigned i,
                                    const cl_device_partition_property *props, size_t len)
{
    cl_device_id d = kiln_calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->cores = kiln_malloc(p->count[i] * sizeof(*d->cores));
    d->partition = kiln_malloc(len * sizeof(*props));
    if (!d->cores || !d->partition) {
        free(d->cores);
        free(d->partition);
        free(d);
        return NULL;
    }
    memcpy(d->cores, p->order + p->first[i], p->count[i] * sizeof(*d->cores));
    /* Its own worker pool over its cores, started by its first command. */
    const struct kiln_dev_config cfg = {
        .local_mem_size = (size_t)parent->local_mem_size,
        .cores = d->cores,
        .num_cores = p->count[i],
    };
    d->ops = parent->ops;
    if (d->ops->create(&cfg, &d->dev) != CL_SUCCESS) {
        free(d->cores);
        free(d->partition);
        free(d);
        return NULL;
    }
    memcpy(d->partition, props, len * sizeof(*props));
    d->partition_len = len;
    if (props[0] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN)
        d->partition[1] = (cl_device_partition_property)p->domain; /* NEXT_PARTITIONABLE resolved */
    d->compute_units = p->count[i];
    d->platform = parent->platform;
    d->global_mem_size = parent->global_mem_size;
    d->max_alloc = parent->max_alloc;
    d->local_mem_size = parent->local_mem_size;
    d->max_wg_size = parent->max_wg_size;
    memcpy(d->name, parent->name, sizeof(d->name));
    memcpy(d->vendor, parent->vendor, sizeof(d->vendor));
    d->parent = parent;
    kiln_rt_device_hold(parent);
    kiln_rt_obj_init(&d->obj, KILN_TAG_DEVICE, device_destroy);
    return d;
}

cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                      const cl_device_partition_property *properties,
                                      cl_uint num_devices, cl_device_id *out_devices,
                                      cl_uint *num_devices_ret)
{
    cl_int err = kiln_rt_check_device(in_device);
    if (err != CL_SUCCESS)
        return err;
    struct plan *p = kiln_malloc(sizeof(*p));
    if (!p)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "partition plan");
    size_t len = 0;
    err = plan_partition(in_device, properties, p, &len);
    if (err == CL_SUCCESS && out_devices && num_devices < p->num_parts)
        err = KILN_ERR(CL_INVALID_VALUE, "num_devices %u, but the partition makes %u devices",
                       num_devices, p->num_parts);
    cl_uint made = 0;
    if (err == CL_SUCCESS && out_devices) {
        cl_device_id *tmp = kiln_calloc(p->num_parts, sizeof(*tmp));
        for (; tmp && made < p->num_parts; made++) {
            tmp[made] = make_sub_device(in_device, p, made, properties, len);
            if (!tmp[made])
                break;
        }
        if (!tmp || made < p->num_parts) {
            for (cl_uint i = 0; tmp && i < made; i++)
                kiln_rt_obj_release(&tmp[i]->obj);
            err = KILN_ERR(CL_OUT_OF_HOST_MEMORY, "sub-device");
        } else {
            memcpy(out_devices, tmp, made * sizeof(*tmp));
        }
        free(tmp);
    }
    if (err == CL_SUCCESS && num_devices_ret)
        *num_devices_ret = p->num_parts;
    free(p);
    return err;
}

/* ---- reference counting --------------------------------------------------------- */

static void device_destroy(struct kiln_object *obj)
{
    cl_device_id d = (cl_device_id)obj;
    /* This may run on one of the device's own workers: the device layer stops the pool
     * from a thread of its own. */
    if (d->ops->release(d->dev) != CL_SUCCESS)
        KILN_ERR(CL_OUT_OF_RESOURCES, "could not stop the pool of sub-device %p: it stays",
                 (void *)d);
    kiln_rt_device_drop(d->parent);
    free(d->cores);
    free(d->partition);
    free(d);
}

void kiln_rt_device_hold(cl_device_id d)
{
    if (d->parent)
        kiln_rt_obj_hold(&d->obj);
}

void kiln_rt_device_drop(cl_device_id d)
{
    if (d->parent)
        kiln_rt_obj_drop(&d->obj);
}

cl_int CL_API_CALL clRetainDevice(cl_device_id device)
{
    cl_int err = kiln_rt_check_device(device);
    /* Root devices are not reference counted (OpenCL 3.0 §4.4). */
    if (err == CL_SUCCESS && device->parent)
        kiln_rt_obj_retain(&device->obj);
    return err;
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id device)
{
    cl_int err = kiln_rt_check_device(device);
    if (err == CL_SUCCESS && device->parent)
        kiln_rt_obj_release(&device->obj);
    return err;
}
