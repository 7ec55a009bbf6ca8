/*
 * Programs and kernels (program.c, kernel.c) and the compiler library they are built
 * with (compiler.c). Lock order: docs/locking.md.
 */
#ifndef KILN_RUNTIME_RT_PROGRAM_H
#define KILN_RUNTIME_RT_PROGRAM_H

#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_object.h"

struct kiln_cc_interface;
struct kiln_cc_kernel;
struct kiln_cc_program;
struct kiln_rt_variant;

/* Built (or compiled, for part of it) with -cl-uniform-work-group-size; p->lock held. */
bool kiln_rt_program_uniform(cl_program p);

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
    /* The device's view of `built`'s kernel table for device-side enqueue (devenqueue.c),
     * made under the lock by the first launch that needs it; freed with `built`. */
    struct kiln_dev_kernel *dev_kernels;
};

struct kiln_rt_arg {
    bool set;
    size_t size; /* local: bytes requested; value: bytes stored */
    cl_mem mem;  /* buffer, pipe and image args */
    void *svm;   /* pointer args set by clSetKernelArgSVMPointer (mem is NULL) */
    /* queue_t args: a device queue of the kernel's context, not held (as buffers are not) */
    cl_command_queue queue;
    unsigned char *value; /* by-value bytes (malloc), or NULL */
    /* sampler_t args: the sampler's KILN_SAMPLER_* bits, copied at clSetKernelArg (the
     * object is not held: §5.9.2, "A kernel object does not update the reference count") */
    uint32_t sampler_bits;
};

struct _cl_kernel {
    struct kiln_object obj;
    cl_program program; /* held */
    const struct kiln_cc_kernel *cc;
    unsigned index;       /* cc is kernel `index` of the program's executable */
    pthread_mutex_t lock; /* guards args against concurrent clSetKernelArg */
    struct kiln_rt_arg *args;
    unsigned num_image_args; /* arguments of kind KILN_CC_ARG_IMAGE, counted at creation */
    /* The settled local-size variant entry of the last launch without image formats
     * (variant.c), or NULL: the next launch of the same key takes it without a scan. */
    _Atomic(const struct kiln_rt_variant *) last_variant;
};

/* The program's devices: the one a binary was given for, else every device of its context. */
const cl_device_id *kiln_rt_program_devices(cl_program p, cl_uint *n);
/* CL_SUCCESS when `d` is one of them, else CL_INVALID_DEVICE with a message. */
cl_int kiln_rt_program_has_device(cl_program p, cl_device_id d);
/* The compiler library's function table, loaded on first use. */
cl_int kiln_rt_compiler(const struct kiln_cc_interface **out);

#endif
