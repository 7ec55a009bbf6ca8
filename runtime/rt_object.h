/*
 * The header every runtime object starts with, and its reference counts (object.c).
 *
 * Every handle starts with the dispatch pointer the ICD loader reads, followed by
 * the common header (STYLE H4). Objects carry two counts:
 *   refs  - the API reference count (the clRetain and clRelease calls);
 *   holds - internal references, plus one held collectively while refs > 0.
 * When refs reaches zero that collective hold is dropped; the object is destroyed
 * when holds reaches zero. This is the deferred deletion of OpenCL 3.0 §5.4.1 and
 * §5.9: "the memory object is deleted once ... commands queued ... that use it have
 * finished".
 */
#ifndef KILN_RUNTIME_RT_OBJECT_H
#define KILN_RUNTIME_RT_OBJECT_H

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

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
/*
 * CL_SUCCESS when `p` is a live object of kind `tag`, else the specification's error for
 * that kind of handle (CL_INVALID_CONTEXT, CL_INVALID_COMMAND_QUEUE, ...), with the reason
 * under KILN_DEBUG=err. Every entry point checks its handles through these.
 */
cl_int kiln_rt_check_handle(const void *p, enum kiln_tag tag);
static inline cl_int kiln_rt_check_device(cl_device_id d)
{
    return kiln_rt_check_handle(d, KILN_TAG_DEVICE);
}
static inline cl_int kiln_rt_check_context(cl_context c)
{
    return kiln_rt_check_handle(c, KILN_TAG_CONTEXT);
}
/* Any live command queue, host or device: for the calls that manage the queue object
 * itself (retain, release, info, clSetDefaultDeviceCommandQueue). */
static inline cl_int kiln_rt_check_any_queue(cl_command_queue q)
{
    return kiln_rt_check_handle(q, KILN_TAG_QUEUE);
}
/* A live host queue: what every clEnqueue*, clFlush and clFinish needs. A device queue
 * (CL_QUEUE_ON_DEVICE) is CL_INVALID_COMMAND_QUEUE here: the host cannot enqueue to it
 * (queue.c). */
cl_int kiln_rt_check_queue(cl_command_queue q);
static inline cl_int kiln_rt_check_mem(cl_mem m)
{
    return kiln_rt_check_handle(m, KILN_TAG_MEM);
}
static inline cl_int kiln_rt_check_program(cl_program p)
{
    return kiln_rt_check_handle(p, KILN_TAG_PROGRAM);
}
static inline cl_int kiln_rt_check_kernel(cl_kernel k)
{
    return kiln_rt_check_handle(k, KILN_TAG_KERNEL);
}
static inline cl_int kiln_rt_check_event(cl_event e)
{
    return kiln_rt_check_handle(e, KILN_TAG_EVENT);
}
void kiln_rt_obj_retain(struct kiln_object *obj);
void kiln_rt_obj_release(struct kiln_object *obj);
void kiln_rt_obj_hold(struct kiln_object *obj);
void kiln_rt_obj_drop(struct kiln_object *obj);
#define KILN_OBJ(p) (&(p)->obj)

/* The dispatch table every object points at; set once by kiln_rt_init(). */
extern const cl_icd_dispatch *kiln_rt_dispatch;

#endif
