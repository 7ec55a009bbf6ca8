/*
 * Fences (OpenCL C 3.0 §6.15.10, §6.15.11: mem_fence, read_mem_fence, write_mem_fence,
 * atomic_work_item_fence) and the address space qualifier functions (§6.15.9:
 * to_global, to_local, to_private, get_fence).
 *
 * Fences. Work-items of one group run on one thread and switch only at barriers
 * (region transform or fibers), and any synchronisation between them without a
 * barrier goes through an atomic operation, which keeps the work-item loop serial:
 * a fence that orders memory for the work-group only (scope work_item, work_group or
 * sub_group, or only CLK_LOCAL_MEM_FENCE) has nothing to order and compiles to
 * nothing, so a loop containing it still vectorises. A fence over global or image
 * memory at a wider scope (device, all_svm_devices, an unknown value) is a real LLVM fence, an
 * instruction on x86 (mfence) only at seq_cst. mem_fence, read_mem_fence and write_mem_fence are
 * atomic_work_item_fence at acq_rel, acquire and release with work_group scope
 * (§6.15.10), so they compile to nothing; OpenCL 1.x kernels that publish results to
 * other work-groups pair them with the 1.x atomics, which are seq_cst and order the
 * surrounding accesses themselves. A relaxed order or empty flags fence nothing; an
 * unknown order is seq_cst.
 *
 * Address spaces. A generic pointer is local when it lies in this worker's __local
 * arena before the collectives' area ([ctx->local_mem, ctx->group_shared)), private
 * when it lies in the worker's scratch area (values kept across barriers, fiber
 * stacks) or on the worker thread's stack ([ctx->stack_lo, ctx->stack_hi)), and
 * global otherwise. Clang calls the unmangled __to_global, __to_local, __to_private.
 */
#include "kiln_arena.h"

/* A fence at OpenCL order `o`; acquire, release, acq_rel, else seq_cst. */
#define KILN_FENCE_ORDERED(o)                                                                      \
    ((o) == memory_order_acquire   ? __c11_atomic_thread_fence(__ATOMIC_ACQUIRE)                   \
     : (o) == memory_order_release ? __c11_atomic_thread_fence(__ATOMIC_RELEASE)                   \
     : (o) == memory_order_acq_rel ? __c11_atomic_thread_fence(__ATOMIC_ACQ_REL)                   \
                                   : __c11_atomic_thread_fence(__ATOMIC_SEQ_CST))

/* memory_scope_sub_group (OpenCL C 3.0 §6.15.12.4), declared only with sub-groups. */
#define KILN_SCOPE_SUB_GROUP 4

void KILN_OVERLOAD atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order,
                                          memory_scope scope)
{
    bool shared = (flags & (CLK_GLOBAL_MEM_FENCE | CLK_IMAGE_MEM_FENCE)) != 0 &&
                  scope != memory_scope_work_item && scope != memory_scope_work_group &&
                  scope != KILN_SCOPE_SUB_GROUP;
    if (shared && order != memory_order_relaxed)
        KILN_FENCE_ORDERED(order);
}

void KILN_OVERLOAD mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_acq_rel, memory_scope_work_group);
}

void KILN_OVERLOAD read_mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_acquire, memory_scope_work_group);
}

void KILN_OVERLOAD write_mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_release, memory_scope_work_group);
}

static bool kiln_is_private(const void *p)
{
    const struct kiln_wg_ctx *c = __kiln_ctx();
    ulong a = (ulong)p;
    return kiln_within(a, c->scratch, c->scratch + c->scratch_size) ||
           kiln_within(a, c->stack_lo, c->stack_hi);
}

__global void *__to_global(void *p)
{
    return kiln_in_local_arena(p) || kiln_is_private(p) ? NULL : (__global void *)p;
}

__local void *__to_local(void *p)
{
    return kiln_in_local_arena(p) ? (__local void *)p : NULL;
}

__private void *__to_private(void *p)
{
    return kiln_is_private(p) ? (__private void *)p : NULL;
}

cl_mem_fence_flags KILN_OVERLOAD get_fence(void *p)
{
    return kiln_in_local_arena(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

cl_mem_fence_flags KILN_OVERLOAD get_fence(const void *p)
{
    return get_fence((void *)p);
}
