/*
 * The common object header: tags, API and internal reference counts (STYLE H4, H5).
 */
#include "rt_object.h"
#include "rt_callback.h"
#include "rt_command.h"
#include "rt_context.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_mem.h"
#include "rt_program.h"
#include "rt_queue.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <assert.h>
#include <stdlib.h>

_Static_assert(offsetof(struct kiln_object, dispatch) == 0, "the loader reads the dispatch first");
_Static_assert(offsetof(struct _cl_platform_id, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_device_id, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_context, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_command_queue, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_mem, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_program, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_kernel, obj) == 0, "object header first");
_Static_assert(offsetof(struct _cl_event, obj) == 0, "object header first");

const cl_icd_dispatch *kiln_rt_dispatch;

void kiln_rt_obj_init(struct kiln_object *obj, enum kiln_tag tag,
                      void (*destroy)(struct kiln_object *obj))
{
    obj->dispatch = kiln_rt_dispatch;
    obj->tag = tag;
    atomic_init(&obj->refs, 1);
    atomic_init(&obj->holds, 1);
    obj->destroy = destroy;
    obj->last_ref = NULL;
}

bool kiln_rt_obj_is(const void *p, enum kiln_tag tag)
{
    const struct kiln_object *obj = p;
    return obj && obj->tag == (uint32_t)tag;
}

cl_int kiln_rt_check_handle(const void *p, enum kiln_tag tag)
{
    if (kiln_rt_obj_is(p, tag))
        return CL_SUCCESS;
    switch (tag) {
    case KILN_TAG_DEVICE:
        return KILN_ERR(CL_INVALID_DEVICE, "%p is not a device", p);
    case KILN_TAG_CONTEXT:
        return KILN_ERR(CL_INVALID_CONTEXT, "%p is not a context", p);
    case KILN_TAG_QUEUE:
        return KILN_ERR(CL_INVALID_COMMAND_QUEUE, "%p is not a command queue", p);
    case KILN_TAG_MEM:
        return KILN_ERR(CL_INVALID_MEM_OBJECT, "%p is not a memory object", p);
    case KILN_TAG_PROGRAM:
        return KILN_ERR(CL_INVALID_PROGRAM, "%p is not a program", p);
    case KILN_TAG_KERNEL:
        return KILN_ERR(CL_INVALID_KERNEL, "%p is not a kernel", p);
    case KILN_TAG_EVENT:
        return KILN_ERR(CL_INVALID_EVENT, "%p is not an event", p);
    case KILN_TAG_SAMPLER:
        return KILN_ERR(CL_INVALID_SAMPLER, "%p is not a sampler", p);
    case KILN_TAG_PLATFORM:
        return KILN_ERR(CL_INVALID_PLATFORM, "%p is not a platform", p);
    case KILN_TAG_DEAD:
        break;
    }
    return KILN_ERR(CL_INVALID_VALUE, "%p is not a live object", p);
}

void kiln_rt_obj_retain(struct kiln_object *obj)
{
    unsigned old = atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
    assert(old > 0 && "retain of an object already released");
    (void)old;
}

void kiln_rt_obj_hold(struct kiln_object *obj)
{
    unsigned old = atomic_fetch_add_explicit(&obj->holds, 1, memory_order_relaxed);
    assert(old > 0);
    (void)old;
}

void kiln_rt_obj_drop(struct kiln_object *obj)
{
    /* acq_rel: every use by the dropping thread happens before destroy() */
    unsigned old = atomic_fetch_sub_explicit(&obj->holds, 1, memory_order_acq_rel);
    assert(old > 0 && "internal count underflow");
    if (old == 1) {
        obj->tag = KILN_TAG_DEAD;
        if (obj->destroy)
            obj->destroy(obj);
    }
}

void kiln_rt_obj_release(struct kiln_object *obj)
{
    unsigned old = atomic_fetch_sub_explicit(&obj->refs, 1, memory_order_acq_rel);
    assert(old > 0 && "release of an object already released");
    if (old == 1) {
        if (obj->last_ref)
            obj->last_ref(obj);
        kiln_rt_obj_drop(obj);
    }
}

cl_int kiln_rt_dtor_push(struct kiln_rt_callback **list, pthread_mutex_t *lock, void (*fn)(void),
                         void *user_data)
{
    struct kiln_rt_callback *cb = kiln_calloc(1, sizeof(*cb));
    if (!cb)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "callback record");
    cb->fn = fn;
    cb->user_data = user_data;
    pthread_mutex_lock(lock);
    cb->next = *list;
    *list = cb;
    pthread_mutex_unlock(lock);
    return CL_SUCCESS;
}
