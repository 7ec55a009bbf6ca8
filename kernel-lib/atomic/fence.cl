/*
 * Fences (OpenCL C 3.0 §6.15.10, §6.15.11: mem_fence, read_mem_fence, write_mem_fence,
 * atomic_work_item_fence) and the address space qualifier functions (§6.15.9:
 * to_global, to_local, to_private, get_fence).
 *
 * Fences. Work-items of one group run on one thread and switch only at barriers, so a
 * fence that orders memory for the work-group (scope work_group or sub_group, or only
 * CLK_LOCAL_MEM_FENCE) needs no instruction: it becomes a compiler-only fence
 * (LLVM `fence syncscope("singlethread")`). A fence over global memory at device or
 * all_svm_devices scope is a real fence, which on x86 costs an instruction (mfence)
 * only at seq_cst. mem_fence, read_mem_fence and write_mem_fence are
 * atomic_work_item_fence at acq_rel, acquire and release; they take device scope, not
 * the work_group scope of §6.15.10, so that OpenCL 1.x kernels pairing
 * mem_fence(CLK_GLOBAL_MEM_FENCE) with atomics across work-groups keep working, at no
 * cost on x86. A relaxed order or empty flags fence nothing; an unknown order is
 * seq_cst.
 *
 * Address spaces. A generic pointer is local when it lies in this worker's __local
 * arena before the collectives' area ([ctx->local_mem, ctx->group_shared)), private
 * when it lies in the worker's scratch area (values kept across barriers, fiber
 * stacks) or on the worker thread's stack ([ctx->stack_lo, ctx->stack_hi)), and
 * global otherwise. Clang calls the unmangled __to_global, __to_local, __to_private.
 */
#include "kiln_lib.h"

/* A fence `F(order)` (F a __c11_atomic_*_fence builtin) at OpenCL order `o`. */
#define KILN_FENCE_ORDERED(F, o)                                                                   \
    ((o) == memory_order_acquire   ? F(__ATOMIC_ACQUIRE)                                           \
     : (o) == memory_order_release ? F(__ATOMIC_RELEASE)                                           \
     : (o) == memory_order_acq_rel ? F(__ATOMIC_ACQ_REL)                                           \
                                   : F(__ATOMIC_SEQ_CST))

void KILN_OVERLOAD atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order,
                                          memory_scope scope)
{
    const cl_mem_fence_flags all = CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE | CLK_IMAGE_MEM_FENCE;
    if (order == memory_order_relaxed || (flags & all) == 0)
        return;
    bool shared = (flags & (CLK_GLOBAL_MEM_FENCE | CLK_IMAGE_MEM_FENCE)) != 0 &&
                  scope != memory_scope_work_item && scope != memory_scope_work_group &&
                  scope != memory_scope_sub_group;
    if (shared)
        KILN_FENCE_ORDERED(__c11_atomic_thread_fence, order);
    else
        KILN_FENCE_ORDERED(__c11_atomic_signal_fence, order);
}

void KILN_OVERLOAD mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_acq_rel, memory_scope_device);
}

void KILN_OVERLOAD read_mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_acquire, memory_scope_device);
}

void KILN_OVERLOAD write_mem_fence(cl_mem_fence_flags flags)
{
    atomic_work_item_fence(flags, memory_order_release, memory_scope_device);
}

/* Whether address a lies in [lo, hi). */
static bool kiln_within(ulong a, ulong lo, ulong hi)
{
    return a - lo < hi - lo;
}

static bool kiln_is_local(const void *p)
{
    const struct kiln_wg_ctx *c = __kiln_ctx();
    return kiln_within((ulong)p, c->local_mem, c->group_shared);
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
    return kiln_is_local(p) || kiln_is_private(p) ? NULL : (__global void *)p;
}

__local void *__to_local(void *p)
{
    return kiln_is_local(p) ? (__local void *)p : NULL;
}

__private void *__to_private(void *p)
{
    return kiln_is_private(p) ? (__private void *)p : NULL;
}

cl_mem_fence_flags KILN_OVERLOAD get_fence(void *p)
{
    return kiln_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

cl_mem_fence_flags KILN_OVERLOAD get_fence(const void *p)
{
    return get_fence((void *)p);
}
