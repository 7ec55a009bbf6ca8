/*
 * The kernel ABI: what a compiled work-group function receives from the runtime.
 *
 * This header is read by C (runtime, scheduler callers, compiler) and by OpenCL C
 * (kernel-lib). Every field is 64 bits wide or explicitly padded so that both
 * languages lay the struct out the same way on x86-64.
 *
 * A work-group function has the C type
 *
 *     void wg(void *const *args, struct kiln_wg_ctx *ctx);
 *
 * args[i] points at the value of kernel argument i:
 *   - __global / __constant pointer: args[i] points at a `void *` holding the data
 *     pointer (NULL allowed);
 *   - __local pointer: args[i] points at a `size_t` byte offset into ctx->local_mem,
 *     aligned by the runtime to KILN_LOCAL_ALIGN;
 *   - by-value argument: args[i] points at the argument's bytes.
 * The args array and what it points at stay valid and unchanged for the whole
 * command and are shared by all workers; ctx is private to one worker.
 *
 * Kernel-scope __local variables occupy the first local_mem_static bytes of the
 * arena (struct kiln_cc_kernel says how many); __local arguments follow them.
 * ctx->scratch is this worker's private area of ctx->scratch_size bytes, at least
 * what the kernel asked for (scratch_fixed + scratch_per_item * work-items in the
 * group), KILN_SCRATCH_ALIGN aligned, for what a work-group function keeps per
 * work-item across barriers; NULL when the kernel asked for none.
 *
 * ctx->group_shared points at KILN_GROUP_SHARED_SIZE bytes of this worker that no
 * user __local object overlaps (they lie past the device's CL_DEVICE_LOCAL_MEM_SIZE
 * bytes of the arena): the kernel library's work-group collectives exchange values
 * there. It holds one 8-byte slot per work-item of the largest group
 * (KILN_GROUP_SHARED_SLOTS) and a result area after them.
 *
 * ctx->printf_buffer points at the command's printf buffer (struct
 * kiln_printf_buffer) when the kernel calls printf, and is NULL otherwise. The
 * compiler turns each printf call into one record appended to it
 * (device-cpu/compiler/2-link/lower_printf.c); the device prints the records when the
 * command's work-groups have finished (device-cpu/printf.c). docs/printf.md
 * describes the format.
 *
 * ctx->stack_lo and ctx->stack_hi bound the stack of the thread that runs the
 * work-group function: with ctx->scratch they are where private variables live, which
 * is how the kernel library's to_private and to_global tell private pointers from
 * global ones.
 *
 * ctx->enqueue is the device's device-side enqueue state for this group (struct
 * kiln_enq_site, kiln_enqueue.h) when the kernel can enqueue kernels, NULL otherwise.
 *
 * ctx->combine points at KILN_COMBINE_SIZE bytes of this worker, zero when first
 * allocated, where a work-group function sums the global atomic adds it combines
 * (device-cpu/compiler/4-loops/atomic_combine.c, docs/compiler.md): KILN_COMBINE_TABLES
 * tables that are empty (keys and count zero) whenever no chunk is running. ctx->chunk_more
 * is nonzero when the same thread calls the same work-group function for another group
 * of the same command next, with the same ctx->combine: the function may then keep its
 * sums for that group; on 0 it applies them before it returns. A caller that knows
 * neither leaves both 0 (ctx->combine NULL: the function sums in its own frame).
 */
#ifndef KILN_INCLUDE_KILN_ABI_H
#define KILN_INCLUDE_KILN_ABI_H

#if defined(__OPENCL_C_VERSION__)
typedef ulong kiln_abi_size;
typedef ulong kiln_abi_ptr; /* a host pointer, opaque to kernels */
typedef uint kiln_abi_u32;
#else
#include <stddef.h>
#include <stdint.h>
typedef size_t kiln_abi_size;
typedef void *kiln_abi_ptr;
typedef uint32_t kiln_abi_u32;
#endif

/* Alignment of every __local argument inside the work-group arena (widest vector). */
#define KILN_LOCAL_ALIGN 128
/* Alignment of the per-worker scratch area. */
#define KILN_SCRATCH_ALIGN 128
/* The collectives' area: one 8-byte slot per work-item, then a 128-byte result area. */
#define KILN_GROUP_SHARED_SLOTS 4096
#define KILN_GROUP_SHARED_SIZE  (KILN_GROUP_SHARED_SLOTS * 8 + 128)
/* The combining tables: slots of one table, its size (a multiple of KILN_LOCAL_ALIGN:
 * 8-byte keys and 8-byte sums per slot, 4-byte slot list, a 4-byte count) and how many. */
#define KILN_COMBINE_SLOTS      256
#define KILN_COMBINE_TABLE_SIZE 5248
#define KILN_COMBINE_TABLES     4
#define KILN_COMBINE_SIZE       (KILN_COMBINE_TABLES * KILN_COMBINE_TABLE_SIZE)

struct kiln_wg_ctx {
    kiln_abi_size global_offset[3];
    kiln_abi_size global_size[3];
    kiln_abi_size enqueued_local_size[3]; /* local size given at enqueue (uniform groups) */
    kiln_abi_size local_size[3];          /* this group's size: smaller for a last partial group */
    kiln_abi_size num_groups[3];
    kiln_abi_size group_id[3];
    kiln_abi_ptr local_mem; /* this worker's arena, KILN_LOCAL_ALIGN aligned */
    kiln_abi_u32 work_dim;
    kiln_abi_u32 chunk_more;    /* another group of this command follows on this thread */
    kiln_abi_ptr scratch;       /* this worker's scratch area, or NULL */
    kiln_abi_size scratch_size; /* its size in bytes */
    kiln_abi_ptr group_shared;  /* this worker's collectives area, KILN_LOCAL_ALIGN aligned */
    kiln_abi_ptr printf_buffer; /* the command's struct kiln_printf_buffer, or NULL */
    kiln_abi_ptr stack_lo;      /* the running thread's stack, [stack_lo, stack_hi) (ABI 6), */
    kiln_abi_ptr stack_hi;      /* where to_private finds private variables; 0, 0 if unknown */
    kiln_abi_ptr enqueue;       /* struct kiln_enq_site (kiln_enqueue.h), or NULL (ABI 11) */
    kiln_abi_ptr combine;       /* this worker's combining tables, or NULL */
};

/*
 * The printf buffer: this header, then `capacity` bytes of records. A printf call
 * reserves its record's bytes by an atomic add on `used`; a reservation that ends
 * past `capacity` is dropped (printf returns -1), and `used` may then exceed it.
 * The runtime zeroes the data, so a record size of 0 marks the end.
 *
 * A record, 8-byte aligned, integers little-endian:
 *   u32 record size in bytes (a multiple of 8, header included)
 *   u32 number of arguments
 *   u64 address of the format string (__constant, in the program's code object)
 *   per argument: u32 descriptor, then the argument's bytes (descriptor's size)
 * then padding to 8 bytes. A descriptor is KILN_PRINTF_KIND_* << 24 | size: the
 * argument as Clang passed it (char and short promoted to int, float and half to
 * double, small vectors coerced to one integer or double, see docs/printf.md).
 */
#define KILN_PRINTF_DATA         16 /* offset of the first record */
#define KILN_PRINTF_RECORD_HEAD  16 /* bytes of a record before its arguments */
#define KILN_PRINTF_KIND_INT     1u /* integer or integer vector */
#define KILN_PRINTF_KIND_FLOAT   2u /* floating point scalar or vector */
#define KILN_PRINTF_KIND_POINTER 3u /* a pointer of any address space */
#define KILN_PRINTF_SIZE_MASK    0xffffffu

struct kiln_printf_buffer {
    kiln_abi_size used;     /* bytes of records reserved so far (atomic) */
    kiln_abi_size capacity; /* bytes of records the buffer holds */
};

#if !defined(__OPENCL_C_VERSION__)
/* A compiled work-group function, as the compiler hands it over and the device calls it. */
typedef void (*kiln_wg_fn)(void *const *args, struct kiln_wg_ctx *ctx);
#endif

#endif
