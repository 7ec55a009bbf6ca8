/*
 * The CPU device's worker pools: one per device, the whole machine's for the root
 * device and one over its own cores for each sub-device, started by the first launch
 * that needs it and stopped when a sub-device goes.
 */
#include "cpu_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "kiln_alloc.h"
#include "kiln_device.h"

/* Guards the start of every pool (rare: once per device). */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

cl_int kiln_cpu_pool_get(struct kiln_dev *dev, struct kiln_sched **out, const char **why)
{
    /* acquire: pairs with the release below, so the pool is seen fully started */
    *out = atomic_load_explicit(&dev->sched_ready, memory_order_acquire);
    if (*out)
        return CL_SUCCESS;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    if (!dev->sched) {
        struct kiln_sched_config cfg = {
            .num_threads = -1,
            /* The collectives' area and the combining tables follow what the device
             * reports (kiln_abi.h). */
            .local_mem_size = dev->local_mem_size + KILN_GROUP_SHARED_SIZE + KILN_COMBINE_SIZE,
            /* A sub-device runs one worker on each of its cores and nowhere else. */
            .name = dev->cpus ? "kiln-sub" : "kiln-wg",
            .cpus = dev->cpus,
            .num_cpus = dev->num_cpus,
        };
        int rc = kiln_sched_create(&cfg, &dev->sched);
        if (rc == ENOMEM) {
            err = CL_OUT_OF_HOST_MEMORY;
            *why = "the worker pool: out of memory";
        } else if (rc != 0) {
            err = CL_OUT_OF_RESOURCES;
            *why = "the worker pool could not start its threads";
        }
    }
    *out = dev->sched;
    if (dev->sched)
        atomic_store_explicit(&dev->sched_ready, dev->sched, memory_order_release);
    pthread_mutex_unlock(&pool_lock);
    return err;
}

struct kiln_dev *kiln_cpu_pool_root(size_t local_mem_size)
{
    static struct kiln_dev root;
    root.local_mem_size = local_mem_size;
    return &root;
}

cl_int kiln_cpu_pool_create(const struct kiln_dev_config *cfg, struct kiln_dev **out)
{
    struct kiln_dev *dev = kiln_calloc(1, sizeof(*dev));
    if (!dev)
        return CL_OUT_OF_HOST_MEMORY;
    dev->cpus = kiln_malloc(cfg->num_cores * sizeof(*dev->cpus));
    if (!dev->cpus) {
        free(dev);
        return CL_OUT_OF_HOST_MEMORY;
    }
    const struct kiln_cpu_info *cpu = kiln_cpu_info_get();
    for (unsigned i = 0; i < cfg->num_cores; i++)
        dev->cpus[i] = cpu->cores[cfg->cores[i]].pu;
    dev->num_cpus = cfg->num_cores;
    dev->local_mem_size = cfg->local_mem_size;
    *out = dev;
    return CL_SUCCESS;
}

static void dev_free(struct kiln_dev *dev)
{
    kiln_cpu_enq_pool_free(dev);
    free(dev->cpus);
    free(dev);
}

static void *stop_pool(void *arg)
{
    struct kiln_dev *dev = arg;
    kiln_sched_destroy(dev->sched);
    dev_free(dev);
    return NULL;
}

cl_int kiln_cpu_pool_release(struct kiln_dev *dev)
{
    if (!dev->sched) {
        dev_free(dev);
        return CL_SUCCESS;
    }
    /*
     * The last hold may be dropped on one of this device's own workers (a command that
     * completes there releases its queue), and a pool cannot join itself: stop it from
     * a thread of its own.
     */
    pthread_t t;
    pthread_attr_t attr;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&t, &attr, stop_pool, dev) == 0;
        pthread_attr_destroy(&attr);
    }
    return started ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
}

size_t kiln_cpu_pool_help(struct kiln_dev *dev)
{
    /* No pool yet: nothing of this device can be queued. */
    struct kiln_sched *s = atomic_load_explicit(&dev->sched_ready, memory_order_acquire);
    return s ? kiln_sched_help(s, NULL) : 0;
}
