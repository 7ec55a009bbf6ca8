/*
 * Events and the commands behind them (event.c, command.c): the command graph's nodes and
 * edges, and the payload of each kind of command. Lock order: docs/locking.md.
 */
#ifndef KILN_RUNTIME_RT_COMMAND_H
#define KILN_RUNTIME_RT_COMMAND_H

#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kiln_abi.h"
#include "kiln_cc.h"
#include "kiln_device.h"
#include "rt_object.h"

struct kiln_rt_callback;
struct kiln_rt_command;

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
    /* A kernel that can enqueue kernels (devenqueue.c): what its tree of launches may use,
     * and the device queues it holds until completion. */
    struct kiln_dev_enqueue enq;
    cl_command_queue *held_queues; /* malloc'd, num_held_queues of them; NULL when none */
    unsigned num_held_queues;
};

/*
 * A launch of a kernel that can enqueue (devenqueue.c): its program's table of kernels the
 * device may launch, the default device queue and those of its queue_t arguments (held),
 * in nd->work.enq. Called after the arguments' snapshot; CL_OUT_OF_HOST_MEMORY.
 */
cl_int kiln_rt_enqueue_prepare(cl_command_queue q, cl_kernel k, struct kiln_rt_ndrange *nd);
/* Drops what kiln_rt_enqueue_prepare took (the command is being freed). */
void kiln_rt_enqueue_release(struct kiln_rt_ndrange *nd);

/* clEnqueueSVMFree: the application's callback, or svm.c's, which clSVMFree's each pointer. */
struct kiln_rt_svm_free {
    void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *); /* never NULL */
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
    void *owned;                        /* malloc'd, freed with it: an image fill's row */
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
/* The command holds mem_a and mem_b (either may be NULL) until it completes. */
void kiln_rt_command_hold(struct kiln_rt_command *cmd, cl_mem mem_a, cl_mem mem_b);
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
/* One dependency of a command is met (event.c calls it as the awaited event ends). */
void kiln_rt_command_dep_met(struct kiln_rt_dep *dep, cl_int status);

#endif
