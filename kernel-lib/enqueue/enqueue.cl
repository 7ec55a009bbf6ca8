/*
 * Device-side enqueue built-ins (OpenCL C 3.0 §6.15.15 "Enqueuing Kernels", with
 * __opencl_c_device_enqueue): enqueue_kernel in its four forms, enqueue_marker,
 * get_default_queue, ndrange_1D/2D/3D, the event functions and the kernel queries.
 *
 * Clang lowers enqueue_kernel to unmangled entry points (docs/compiler.md,
 * "Device-side enqueue"):
 *   int __enqueue_kernel_basic(queue, flags, ndrange_t byval, invoke, block)
 *   int __enqueue_kernel_basic_events(queue, flags, ndrange_t *, n, wait, ret, invoke, block)
 *   int __enqueue_kernel_varargs(queue, flags, ndrange_t *, invoke, block, nlocal, size_t *)
 *   int __enqueue_kernel_events_varargs(queue, flags, ndrange_t *, n, wait, ret, invoke,
 *                                       block, nlocal, size_t *)
 *   uint __get_kernel_*_impl([ndrange_t *,] invoke, block)
 * where `invoke` is the block's kernel: the compiler has replaced it by the kernel's
 * index in the program (kiln_enqueue.h). Everything else is a call through the
 * device's table of operations in ctx->enqueue, which the device fills for every
 * group of a kernel that can enqueue.
 */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

#include "kiln_enqueue.h"
#include "kiln_lib.h"

typedef int (*kiln_enq_fn)(void *site, const struct kiln_enq_call *call);
typedef int (*kiln_marker_fn)(void *site, queue_t q, uint n, const clk_event_t *events,
                              clk_event_t *ret);
typedef queue_t (*kiln_queue_fn)(void *site);
typedef void (*kiln_event_fn)(void *site, clk_event_t ev);
typedef clk_event_t (*kiln_user_event_fn)(void *site);
typedef void (*kiln_status_fn)(void *site, clk_event_t ev, int status);
typedef int (*kiln_valid_fn)(void *site, clk_event_t ev);
typedef void (*kiln_profile_fn)(void *site, clk_event_t ev, int name, __global ulong *value);
typedef size_t (*kiln_size_fn)(void *site, size_t kernel_index, int which);

static void *kiln_site(void)
{
    return (void *)__kiln_ctx()->enqueue;
}

static const struct kiln_enq_ops *kiln_ops(void *site)
{
    return (const struct kiln_enq_ops *)((const struct kiln_enq_site *)site)->ops;
}

/* Without -g every failure is CLK_ENQUEUE_FAILURE (OpenCL C 3.0 §6.15.15.2). */
static int kiln_status(void *site, int status)
{
    if (status == CLK_SUCCESS || ((const struct kiln_enq_site *)site)->debug)
        return status;
    return CLK_ENQUEUE_FAILURE;
}

static int kiln_enqueue(queue_t q, int flags, const ndrange_t *nd, void *invoke, void *block,
                        uint num_events, const clk_event_t *events, clk_event_t *ret,
                        uint num_local, const __private size_t *sizes)
{
    void *site = kiln_site();
    struct kiln_enq_call call;
    call.queue = __builtin_astype(q, ulong);
    call.ndrange = (ulong)nd;
    call.block = (ulong)block;
    call.events = (ulong)events;
    call.event_ret = (ulong)ret;
    call.local_sizes = (ulong)sizes;
    call.kernel_index = (ulong)invoke;
    call.flags = (uint)flags;
    call.num_events = num_events;
    call.num_local = num_local;
    call.pad = 0;
    return kiln_status(site, ((kiln_enq_fn)kiln_ops(site)->enqueue)(site, &call));
}

int __enqueue_kernel_basic(queue_t q, int flags, ndrange_t nd, void *invoke, void *block)
{
    return kiln_enqueue(q, flags, &nd, invoke, block, 0, 0, 0, 0, 0);
}

int __enqueue_kernel_basic_events(queue_t q, int flags, __private ndrange_t *nd, uint num_events,
                                  const clk_event_t *events, clk_event_t *ret, void *invoke,
                                  void *block)
{
    return kiln_enqueue(q, flags, nd, invoke, block, num_events, events, ret, 0, 0);
}

int __enqueue_kernel_varargs(queue_t q, int flags, __private ndrange_t *nd, void *invoke,
                             void *block, uint num_local, __private size_t *sizes)
{
    return kiln_enqueue(q, flags, nd, invoke, block, 0, 0, 0, num_local, sizes);
}

int __enqueue_kernel_events_varargs(queue_t q, int flags, __private ndrange_t *nd,
                                    uint num_events, const clk_event_t *events, clk_event_t *ret,
                                    void *invoke, void *block, uint num_local,
                                    __private size_t *sizes)
{
    return kiln_enqueue(q, flags, nd, invoke, block, num_events, events, ret, num_local, sizes);
}

uint __get_kernel_work_group_size_impl(void *invoke, void *block)
{
    void *site = kiln_site();
    return (uint)((kiln_size_fn)kiln_ops(site)->kernel_size)(site, (size_t)invoke, 0);
}

uint __get_kernel_preferred_work_group_size_multiple_impl(void *invoke, void *block)
{
    void *site = kiln_site();
    return (uint)((kiln_size_fn)kiln_ops(site)->kernel_size)(site, (size_t)invoke, 1);
}

/* Every sub-group is one work-item (workgroup/subgroup.cl). */
uint __get_kernel_sub_group_count_for_ndrange_impl(__private ndrange_t *nd, void *invoke,
                                                   void *block)
{
    size_t n = 1;
    for (uint d = 0; d < nd->workDimension && d < 3; d++)
        n *= nd->localWorkSize[d] ? nd->localWorkSize[d] : 1;
    return (uint)n;
}

uint __get_kernel_max_sub_group_size_for_ndrange_impl(__private ndrange_t *nd, void *invoke,
                                                      void *block)
{
    return 1;
}

int KILN_OVERLOAD enqueue_marker(queue_t q, uint num_events, const clk_event_t *events,
                                 clk_event_t *ret)
{
    void *site = kiln_site();
    int status = ((kiln_marker_fn)kiln_ops(site)->marker)(site, q, num_events, events, ret);
    return kiln_status(site, status);
}

queue_t KILN_OVERLOAD get_default_queue(void)
{
    void *site = kiln_site();
    return ((kiln_queue_fn)kiln_ops(site)->default_queue)(site);
}

void KILN_OVERLOAD retain_event(clk_event_t ev)
{
    void *site = kiln_site();
    ((kiln_event_fn)kiln_ops(site)->retain)(site, ev);
}

void KILN_OVERLOAD release_event(clk_event_t ev)
{
    void *site = kiln_site();
    ((kiln_event_fn)kiln_ops(site)->release)(site, ev);
}

clk_event_t KILN_OVERLOAD create_user_event(void)
{
    void *site = kiln_site();
    return ((kiln_user_event_fn)kiln_ops(site)->user_event)(site);
}

void KILN_OVERLOAD set_user_event_status(clk_event_t ev, int status)
{
    void *site = kiln_site();
    ((kiln_status_fn)kiln_ops(site)->set_status)(site, ev, status);
}

bool KILN_OVERLOAD is_valid_event(clk_event_t ev)
{
    void *site = kiln_site();
    return ((kiln_valid_fn)kiln_ops(site)->valid)(site, ev) != 0;
}

void KILN_OVERLOAD capture_event_profiling_info(clk_event_t ev, clk_profiling_info name,
                                                __global void *value)
{
    void *site = kiln_site();
    ((kiln_profile_fn)kiln_ops(site)->profile)(site, ev, (int)name, (__global ulong *)value);
}

/* ---- ndrange_1D/2D/3D: a local size of 0 lets the device choose ------------------- */

static ndrange_t kiln_ndrange(uint dim, const __private size_t *offset,
                              const __private size_t *size, const __private size_t *local_size)
{
    ndrange_t r;
    r.workDimension = dim;
    for (uint d = 0; d < 3; d++) {
        r.globalWorkOffset[d] = offset && d < dim ? offset[d] : 0;
        r.globalWorkSize[d] = d < dim ? size[d] : 1;
        r.localWorkSize[d] = local_size && d < dim ? local_size[d] : 0;
    }
    return r;
}

ndrange_t KILN_OVERLOAD ndrange_1D(size_t size)
{
    return kiln_ndrange(1, 0, &size, 0);
}

ndrange_t KILN_OVERLOAD ndrange_1D(size_t size, size_t local_size)
{
    return kiln_ndrange(1, 0, &size, &local_size);
}

ndrange_t KILN_OVERLOAD ndrange_1D(size_t offset, size_t size, size_t local_size)
{
    return kiln_ndrange(1, &offset, &size, &local_size);
}

ndrange_t KILN_OVERLOAD ndrange_2D(const __private size_t size[2])
{
    return kiln_ndrange(2, 0, size, 0);
}

ndrange_t KILN_OVERLOAD ndrange_2D(const __private size_t size[2],
                                   const __private size_t local_size[2])
{
    return kiln_ndrange(2, 0, size, local_size);
}

ndrange_t KILN_OVERLOAD ndrange_2D(const __private size_t offset[2],
                                   const __private size_t size[2],
                                   const __private size_t local_size[2])
{
    return kiln_ndrange(2, offset, size, local_size);
}

ndrange_t KILN_OVERLOAD ndrange_3D(const __private size_t size[3])
{
    return kiln_ndrange(3, 0, size, 0);
}

ndrange_t KILN_OVERLOAD ndrange_3D(const __private size_t size[3],
                                   const __private size_t local_size[3])
{
    return kiln_ndrange(3, 0, size, local_size);
}

ndrange_t KILN_OVERLOAD ndrange_3D(const __private size_t offset[3],
                                   const __private size_t size[3],
                                   const __private size_t local_size[3])
{
    return kiln_ndrange(3, offset, size, local_size);
}
