/*
 * The runtime's objects and internal functions (never leaves runtime/).
 *
 * Every handle starts with the dispatch pointer the ICD loader reads, followed by
 * the common header (STYLE H4). Objects carry two counts:
 *   refs  - the API reference count (the clRetain and clRelease calls);
 *   holds - internal references, plus one held collectively while refs > 0.
 * When refs reaches zero that collective hold is dropped; the object is destroyed
 * when holds reaches zero. This is the deferred deletion of OpenCL 3.0 §5.4.1 and
 * §5.9: "the memory object is deleted once ... commands queued ... that use it have
 * finished".
 *
 * Lock order (docs/locking.md): queue->lock, then event->lock; program->lock alone.
 * No callback runs with a Kiln lock held.
 */
#ifndef KILN_RUNTIME_RT_INTERNAL_H
#define KILN_RUNTIME_RT_INTERNAL_H

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln_abi.h"
#include "kiln_alloc.h"
#include "kiln_rt.h"
#include "kiln_cc.h"
#include "kiln_device.h"

/* ---- diagnostics (debug.c) ---------------------------------------------------- */

enum kiln_dbg {
    KILN_DBG_ERR = 1u << 0,
    KILN_DBG_WARN = 1u << 1,
    KILN_DBG_API = 1u << 2,
    KILN_DBG_MEM = 1u << 3,
    KILN_DBG_SCHED = 1u << 4,
    KILN_DBG_CC = 1u << 5,
    KILN_DBG_PIPE = 1u << 6,
};

/* Categories enabled by KILN_DEBUG, parsed once. */
unsigned kiln_rt_debug_mask(void);
void kiln_rt_log(unsigned cat, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
cl_int kiln_rt_err(cl_int code, const char *name, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* An expression: logs why under KILN_DEBUG=err and yields `code`. */
#define KILN_ERR(code, ...) kiln_rt_err((code), #code, __FILE__, __LINE__, __VA_ARGS__)
#define KILN_LOG(cat, ...)                                                                         \
    do {                                                                                           \
        if (kiln_rt_debug_mask() & (cat))                                                          \
            kiln_rt_log((cat), __FILE__, __LINE__, __VA_ARGS__);                                   \
    } while (0)

static inline void kiln_set_errcode(cl_int *errcode_ret, cl_int err)
{
    if (errcode_ret)
        *errcode_ret = err;
}

/* ---- objects (object.c) --------------------------------------------------------- */

enum kiln_tag {
    KILN_TAG_DEAD = 0,
    KILN_TAG_PLATFORM = 0x4b4c0001,
    KILN_TAG_DEVICE,
    KILN_TAG_CONTEXT,
    KILN_TAG_QUEUE,
    KILN_TAG_MEM,
    KILN_TAG_PROGRAM,
    KILN_TAG_KERNEL,
    KILN_TAG_EVENT,
    KILN_TAG_SAMPLER,
};

struct kiln_object {
    const cl_icd_dispatch *dispatch; /* first: the ICD loader reads it */
    uint32_t tag;                    /* enum kiln_tag; KILN_TAG_DEAD once destroyed */
    atomic_uint refs;                /* API count */
    atomic_uint holds;               /* internal count, +1 while refs > 0 */
    void (*destroy)(struct kiln_object *obj);
    /* Optional: called when refs reaches zero, before the collective hold is
     * dropped, to break internal cycles (a queue holds its newest event, which
     * holds the queue). */
    void (*last_ref)(struct kiln_object *obj);
};

void kiln_rt_obj_init(struct kiln_object *obj, enum kiln_tag tag,
                      void (*destroy)(struct kiln_object *obj));
/* True when `p` is a live object of kind `tag`. */
bool kiln_rt_obj_is(const void *p, enum kiln_tag tag);
void kiln_rt_obj_retain(struct kiln_object *obj);
void kiln_rt_obj_release(struct kiln_object *obj);
void kiln_rt_obj_hold(struct kiln_object *obj);
void kiln_rt_obj_drop(struct kiln_object *obj);
#define KILN_OBJ(p) (&(p)->obj)

/* The dispatch table every object points at; set once by kiln_rt_init(). */
extern const cl_icd_dispatch *kiln_rt_dispatch;

/* ---- info queries (info.c) ------------------------------------------------------ */

/*
 * Copy `size` bytes of `value` to the caller of a clGet*Info query: checks
 * param_value_size (CL_INVALID_VALUE when too small and param_value != NULL) and
 * writes *size_ret.
 */
cl_int kiln_rt_info(const void *value, size_t size, size_t param_value_size, void *param_value,
                    size_t *param_value_size_ret);
cl_int kiln_rt_info_str(const char *s, size_t param_value_size, void *param_value,
                        size_t *param_value_size_ret);

/* ---- platform and device (platform.c, device.c) --------------------------------- */

struct _cl_platform_id {
    struct kiln_object obj;
};

struct _cl_device_id {
    struct kiln_object obj;
    cl_platform_id platform;
    const struct kiln_dev_ops *ops; /* what runs its commands (kiln_device.h) */
    struct kiln_dev *dev;           /* the device layer's state for it: its worker pool */
    cl_uint compute_units;
    /*
     * Its compute units: indices into kiln_cpu_info's core table, compute_units of them.
     * A sub-device's pool runs one worker on each of these cores and nowhere else
     * (given to ops->create).
     */
    unsigned *cores;
    cl_device_id parent; /* held; NULL for the root device */
    /* How it was made (CL_DEVICE_PARTITION_TYPE), 0-terminated; NULL for the root device. */
    cl_device_partition_property *partition;
    size_t partition_len; /* entries, the terminator included */
    cl_ulong global_mem_size;
    cl_ulong max_alloc;
    cl_ulong local_mem_size;
    size_t max_wg_size;
    char name[160];
    char vendor[64];
};

extern struct _cl_platform_id kiln_rt_platform;
extern struct _cl_device_id kiln_rt_device;

/*
 * Kernel argument limits the device reports, enforced at enqueue (kernel.c) with
 * CL_OUT_OF_RESOURCES. Nothing in a CPU needs them smaller; they are the values reported,
 * and a kernel that goes past one fails as it would on a device where it matters:
 * CL_DEVICE_MAX_CONSTANT_ARGS, __constant pointer arguments of one kernel;
 * CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, the bytes behind each __constant argument (1 MiB, so
 * that a 1 MiB table works; the specification's minimum is 64 KiB);
 * CL_DEVICE_MAX_PARAMETER_SIZE, the sum of the argument sizes of one kernel (each
 * pointer, pipe and __local argument counted as 8 bytes, each by-value argument as its size).
 */
#define KILN_RT_MAX_CONSTANT_ARGS        8u
#define KILN_RT_MAX_CONSTANT_BUFFER_SIZE ((cl_ulong)1 << 20)
#define KILN_RT_MAX_PARAMETER_SIZE       ((size_t)1024)

cl_int kiln_rt_check_platform(cl_platform_id p);
cl_int kiln_rt_check_device(cl_device_id d);
/* The affinity domains `d` can be partitioned by (CL_DEVICE_PARTITION_AFFINITY_DOMAIN). */
cl_device_affinity_domain kiln_rt_device_affinity_domains(cl_device_id d);
/* Internal references to a device: counted for sub-devices, nothing for the root device. */
void kiln_rt_device_hold(cl_device_id d);
void kiln_rt_device_drop(cl_device_id d);
/* CL_SUCCESS when `type` selects Kiln's device, else CL_INVALID_DEVICE_TYPE or CL_DEVICE_NOT_FOUND.
 */
cl_int kiln_rt_check_device_type(cl_device_type type);
cl_ulong kiln_rt_now_ns(void);

/* ---- callbacks (event.c, mem.c, context.c) ------------------------------------- */

/*
 * One registered application callback. The runtime detaches a list of these under
 * the owner's lock and calls them after dropping it (docs/locking.md): no callback
 * runs with a Kiln lock held.
 */
struct kiln_rt_callback {
    void (*fn)(void); /* cast back to the registered type before the call */
    void *user_data;
    cl_int type; /* events: the status it waits for */
    struct kiln_rt_callback *next;
};

/*
 * Registers a destructor callback (memory objects, contexts): pushes it on `list`,
 * newest first as the owner's destroy runs them, under `lock`. `fn` must not be NULL.
 */
cl_int kiln_rt_dtor_push(struct kiln_rt_callback **list, pthread_mutex_t *lock, void (*fn)(void),
                         void *user_data);

/* ---- context (context.c) ------------------------------------------------------- */

struct _cl_context {
    struct kiln_object obj;
    cl_device_id device;   /* devices[0] */
    cl_device_id *devices; /* held, without duplicates */
    cl_uint num_devices;
    cl_context_properties *props; /* copy, 0-terminated, NULL when none given */
    size_t num_props;             /* entries in props including the terminator */
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
    pthread_mutex_t lock;           /* leaf: guards dtors and svm */
    struct kiln_rt_callback *dtors; /* under lock: destructor callbacks, newest first */
    struct kiln_rt_svm *svm;        /* under lock: clSVMAlloc allocations, newest first */
};

cl_int kiln_rt_check_context(cl_context c);
/* CL_SUCCESS when `d` is a device of `c`, else CL_INVALID_DEVICE with a message. */
cl_int kiln_rt_context_has_device(cl_context c, cl_device_id d);

/* ---- events and commands (event.c, command.c) --------------------------------- */

struct kiln_rt_command;

/* ---- block free lists (recycle.c) ------------------------------------------------ */

struct kiln_rt_block;

/* A free list of blocks of one size, filled by any thread, emptied by takers. */
struct kiln_rt_recycler {
    _Atomic(struct kiln_rt_block *) shared; /* pushed with compare-and-swap */
    atomic_size_t count;                    /* relaxed: blocks kept, roughly */
    pthread_mutex_t lock;                   /* takers only */
    struct kiln_rt_block *taken;            /* under lock */
    size_t size;
};

void kiln_rt_recycler_init(struct kiln_rt_recycler *r, size_t size);
/* Free every kept block; no other thread may use r any more. */
void kiln_rt_recycler_fini(struct kiln_rt_recycler *r);
/* A zeroed block of r->size bytes (malloc alignment), or NULL when out of memory. */
void *kiln_rt_recycle_get(struct kiln_rt_recycler *r);
/* Give a block from kiln_rt_recycle_get back; any thread. NULL is ignored. */
void kiln_rt_recycle_put(struct kiln_rt_recycler *r, void *p);

struct _cl_event {
    struct kiln_object obj;
    cl_context context;     /* held by a user event, through the queue by a command's */
    cl_command_queue queue; /* held; NULL for user events */
    cl_command_type type;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_int status;           /* written under lock; read anywhere with acquire */
    struct kiln_rt_dep *waiters; /* under lock: commands waiting on this event */
    struct kiln_rt_callback *callbacks, **callbacks_tail; /* under lock, in registration order */
    bool profiled;             /* its queue has CL_QUEUE_PROFILING_ENABLE: the t_* are read */
    atomic_bool has_callbacks; /* set (seq_cst) before the first clSetEventCallback locks */
    cl_ulong t_queued, t_submit, t_start, t_end; /* under lock once complete */
};

cl_int kiln_rt_check_event(cl_event e);
cl_int kiln_rt_event_create(cl_context ctx, cl_command_queue q, cl_command_type type,
                            cl_event *out);
/* Set a terminal (CL_COMPLETE or negative) status and release the waiters; false
 * when the event had already ended (nothing changes then). */
bool kiln_rt_event_finish(cl_event e, cl_int status);
/* Set CL_SUBMITTED, then CL_RUNNING, with their timestamps, as a command starts. */
void kiln_rt_event_start(cl_event e);
/* Block until the event is complete or failed; returns its final status. */
cl_int kiln_rt_event_wait(cl_event e);

enum kiln_rt_cmd_kind {
    KILN_CMD_NDRANGE,
    KILN_CMD_READ,  /* buffer -> host */
    KILN_CMD_WRITE, /* host -> buffer */
    KILN_CMD_COPY,  /* buffer -> buffer */
    KILN_CMD_FILL,
    KILN_CMD_MAP,
    KILN_CMD_UNMAP,
    KILN_CMD_MARKER,  /* markers and barriers: nothing to run */
    KILN_CMD_RECT,    /* rectangular read, write or copy */
    KILN_CMD_MIGRATE, /* one device with host memory: nothing to move */
    KILN_CMD_SVM_FREE,
    KILN_CMD_NATIVE, /* clEnqueueNativeKernel: a host function on a worker */
};

/* An NDRange: what the device runs, and what the runtime holds for it. */
struct kiln_rt_ndrange {
    struct kiln_dev_ndrange work;
    cl_kernel kernel; /* held */
    unsigned char *arg_store;
    size_t local_bytes; /* arena bytes the __local arguments need */
    cl_mem *held;       /* buffer arguments, held until completion */
    unsigned num_held;
};

/* clEnqueueSVMFree: the application's callback, or clSVMFree of each pointer. */
struct kiln_rt_svm_free {
    void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *);
    void *user_data;
    void **ptrs; /* a copy, malloc'd */
    cl_uint num;
};

/* clEnqueueNativeKernel: what the device runs, and the memory objects named. */
struct kiln_rt_native {
    struct kiln_dev_native work; /* args: malloc'd copy, or NULL */
    cl_mem *held;                /* the memory objects named, held until completion */
    cl_uint num_held;
};

/* One edge of the command graph: `cmd` waits for the event whose list holds this. */
struct kiln_rt_dep {
    struct kiln_rt_command *cmd;
    bool propagate_failure; /* explicit wait-list entries pass a failure on; queue order does not */
    struct kiln_rt_dep *next; /* under the awaited event's lock */
};

/* Dependencies and argument bytes a command holds without an allocation of its own. */
#define KILN_RT_INLINE_DEPS 2
#define KILN_RT_INLINE_ARGS 256

struct kiln_rt_command {
    enum kiln_rt_cmd_kind kind;
    cl_event event; /* held until the command is freed */
    cl_command_queue queue;
    atomic_int pending;       /* unmet dependencies, plus one until submission ends */
    atomic_int dep_fail;      /* a dependency ended with a negative status */
    struct kiln_rt_dep *deps; /* num_deps edges: inline_deps, or owned */
    size_t num_deps;
    struct kiln_rt_dep inline_deps[KILN_RT_INLINE_DEPS];
    struct kiln_rt_command *next_ready; /* thread-local ready list */
    cl_mem mems[2];                     /* held until completion (copy: src, dst) */
    struct kiln_dev_launch launch;      /* the device's record of the running command */
    union {
        struct kiln_rt_ndrange nd;
        struct kiln_dev_bytes copy; /* READ, WRITE, COPY, FILL */
        struct kiln_dev_rect rect;
        struct kiln_rt_svm_free svm_free;
        struct kiln_rt_native native;
    } u;
    /* A kernel's argument block (u.nd.work.args) when it fits. */
    _Alignas(16) unsigned char inline_args[KILN_RT_INLINE_ARGS];
};

/*
 * Allocate a command of `kind` on queue `q` with its event. The caller fills the
 * payload, then calls kiln_rt_command_submit().
 */
cl_int kiln_rt_command_create(cl_command_queue q, enum kiln_rt_cmd_kind kind, cl_command_type type,
                              struct kiln_rt_command **out);
void kiln_rt_command_free(struct kiln_rt_command *cmd);
/* Free a command that was never submitted, with its event. */
void kiln_rt_command_discard(struct kiln_rt_command *cmd);
/*
 * Make the command depend on the wait list and on the queue's order, and start it
 * once they are met. Takes ownership of cmd. On success, *event_ret (if not NULL)
 * gets a new API reference to the command's event.
 */
cl_int kiln_rt_command_submit(struct kiln_rt_command *cmd, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event_ret, bool blocking);
cl_int kiln_rt_check_wait_list(cl_command_queue q, cl_uint num_events, const cl_event *wait_list);
/*
 * Submit a byte command (KILN_CMD_READ, WRITE, COPY, FILL) of `size` bytes from src to
 * dst (fill: `pattern` of pattern_size bytes, copied), holding mem_a and mem_b (either
 * may be NULL) until it completes.
 */
cl_int kiln_rt_submit_bytes(cl_command_queue q, enum kiln_rt_cmd_kind kind, cl_command_type type,
                            void *dst, const void *src, size_t size, cl_mem mem_a, cl_mem mem_b,
                            const void *pattern, size_t pattern_size, cl_bool blocking, cl_uint n,
                            const cl_event *list, cl_event *event);

/* ---- shared virtual memory (svm.c) ---------------------------------------------- */

struct kiln_rt_svm;
/* Run a clEnqueueSVMFree command: the callback or clSVMFree of each pointer. */
void kiln_rt_svm_free_run(struct kiln_rt_command *cmd);
/* Free what clSVMAlloc gave out in `c` and clSVMFree did not take back (c is dying). */
void kiln_rt_svm_free_all(cl_context c);
/* When `p` lies inside one of c's SVM allocations, the bytes from p to its end; else 0. */
size_t kiln_rt_svm_extent(cl_context c, const void *p);

/* ---- command queue (queue.c) ---------------------------------------------------- */

struct _cl_command_queue {
    struct kiln_object obj;
    cl_context context; /* held */
    cl_device_id device;
    cl_command_queue_properties props;
    cl_queue_properties *prop_list; /* as given to ...WithProperties, or NULL */
    size_t num_prop_list;
    pthread_mutex_t lock;
    /* under lock: in-order, the newest command's event; out-of-order, the newest
     * barrier's event, which every later command waits for (held), or NULL */
    cl_event last;
    /* out-of-order only, under lock: events of commands enqueued since the last
     * barrier that waited for everything (held); completed ones are pruned at
     * each enqueue */
    cl_event *outstanding;
    size_t num_outstanding, cap_outstanding;
    /* Blocks of this queue's commands and of their events (recycle.c). */
    struct kiln_rt_recycler cmd_blocks, event_blocks;
};

/* Wait for every command enqueued so far in q (clFinish). */
cl_int kiln_rt_queue_finish(cl_command_queue q);

cl_int kiln_rt_check_queue(cl_command_queue q);

/* ---- memory (mem.c) ------------------------------------------------------------- */

struct kiln_rt_mapping {
    void *ptr;
    size_t offset, size;
    cl_map_flags flags;
    struct kiln_rt_mapping *next;
};

struct _cl_mem {
    struct kiln_object obj;
    cl_context context; /* held */
    cl_mem_object_type type;
    cl_mem_flags flags;
    size_t size;
    void *host_ptr; /* as given with CL_MEM_USE_HOST_PTR, else NULL */
    unsigned char *data;
    bool owns_data;
    bool has_props; /* made by clCreateBufferWithProperties with a (necessarily empty) list */
    cl_mem parent;  /* sub-buffers: the buffer they view (held); else NULL */
    size_t offset;  /* sub-buffers: origin in the parent */
    pthread_mutex_t lock;
    struct kiln_rt_mapping *maps; /* under lock */
    atomic_uint map_count;
    struct kiln_rt_callback *dtors; /* under lock: destructor callbacks, newest first */
};

cl_int kiln_rt_check_mem(cl_mem m);
/*
 * A memory object of `type` (buffer or pipe) and `size` bytes over the caller's
 * host_ptr (CL_MEM_USE_HOST_PTR) or a new allocation, 128-byte aligned. Flags
 * and size are valid. Returns CL_OUT_OF_HOST_MEMORY or
 * CL_MEM_OBJECT_ALLOCATION_FAILURE on failure.
 */
cl_int kiln_rt_mem_create(cl_context ctx, cl_mem_object_type type, cl_mem_flags flags, size_t size,
                          void *host_ptr, cl_mem *out);

/* ---- programs and kernels (program.c, kernel.c, compiler.c) --------------------- */

/* Built (or compiled, for part of it) with -cl-uniform-work-group-size; p->lock held. */
bool kiln_rt_program_uniform(cl_program p);

/* ---- local-size variants (variant.c) -------------------------------------------- */

/* Variants kept per program kernel; the launch count that builds one, unless KILN_VARIANTS. */
#define KILN_RT_VARIANTS         4
#define KILN_RT_VARIANT_LAUNCHES 4

enum kiln_rt_variant_state {
    KILN_VARIANT_FREE = 0,
    KILN_VARIANT_COUNTING, /* launches counted; not built yet */
    KILN_VARIANT_BUILDING, /* one thread builds it, without the program's lock */
    KILN_VARIANT_READY,    /* built: cc is the kernel to launch */
    KILN_VARIANT_FAILED, /* the generic function for good: the build failed or would add nothing */
};

/*
 * One (local size, offset is zero) pair of one program kernel. Its fields change under the
 * program's lock only, and never once it is READY or FAILED: a launch that reads `state`
 * (acquire) as one of those may read the rest without the lock (variant.c).
 */
struct kiln_rt_variant {
    size_t local[3];
    bool zero_offset;
    _Atomic int state; /* enum kiln_rt_variant_state */
    unsigned launches;
    struct kiln_cc_program *built;   /* READY: the variant's program, owned */
    const struct kiln_cc_kernel *cc; /* READY: its one kernel */
};

/*
 * The kernel description to launch k with for this range: a variant's when one is built (or
 * is built now, synchronously, on the launch that reaches the count), else k->cc. local is
 * the local size the launch uses (given or chosen). Valid while k's program lives.
 */
const struct kiln_cc_kernel *kiln_rt_variant_for(cl_kernel k, cl_uint dim, const size_t *offset,
                                                 const size_t *global, const size_t *local);
/* Destroys the variants' programs of a table of `rows` kernels and frees it. */
void kiln_rt_variants_free(struct kiln_rt_variant *table, unsigned rows);

struct _cl_program {
    struct kiln_object obj;
    cl_context context; /* held */
    char *source;
    pthread_mutex_t lock;
    cl_build_status status;        /* under lock */
    char *options;                 /* under lock */
    char *log;                     /* under lock */
    struct kiln_cc_program *built; /* under lock; immutable once set */
    atomic_uint num_kernel_objs;   /* live kernel objects: a rebuild is refused while > 0 */
    /* Made by clCreateProgramWithBinary: `built` is the loaded binary from the start,
     * and clBuildProgram only makes it the program's executable. */
    bool from_binary;
    cl_device_id binary_device; /* from_binary: the device the binary was given for */
    /* Local-size variants of `built`'s kernels (variant.c): KILN_RT_VARIANTS entries per
     * kernel, allocated on the first launch that may use one; freed with `built`. Set once
     * under the lock, rows first; a launch may read them without it. */
    _Atomic(struct kiln_rt_variant *) variants;
    unsigned variant_rows;
};

struct kiln_rt_arg {
    bool set;
    size_t size;          /* local: bytes requested; value: bytes stored */
    cl_mem mem;           /* buffer args */
    void *svm;            /* pointer args set by clSetKernelArgSVMPointer (mem is NULL) */
    unsigned char *value; /* by-value bytes (malloc), or NULL */
};

struct _cl_kernel {
    struct kiln_object obj;
    cl_program program; /* held */
    const struct kiln_cc_kernel *cc;
    unsigned index;       /* cc is kernel `index` of the program's executable */
    pthread_mutex_t lock; /* guards args against concurrent clSetKernelArg */
    struct kiln_rt_arg *args;
};

cl_int kiln_rt_check_program(cl_program p);
/* Make `arg` argument `index` of the kernel (under its lock), freeing the old value. */
void kiln_rt_kernel_store_arg(cl_kernel kernel, cl_uint index, struct kiln_rt_arg arg);
/* The program's devices: the one a binary was given for, else every device of its context. */
const cl_device_id *kiln_rt_program_devices(cl_program p, cl_uint *n);
/* CL_SUCCESS when `d` is one of them, else CL_INVALID_DEVICE with a message. */
cl_int kiln_rt_program_has_device(cl_program p, cl_device_id d);
cl_int kiln_rt_check_kernel(cl_kernel k);
/* The compiler library's function table, loaded on first use. */
cl_int kiln_rt_compiler(const struct kiln_cc_interface **out);

#endif
