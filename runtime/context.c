/*
 * Contexts (clCreateContext, clCreateContextFromType, clRetain/ReleaseContext,
 * clGetContextInfo, clSetContextDestructorCallback). A context holds the CPU device, its
 * sub-devices, or both; every one of them runs the same compiled programs.
 */
#include "rt_context.h"
#include "rt_callback.h"
#include "rt_debug.h"
#include "rt_device.h"
#include "rt_info.h"
#include "rt_object.h"
#include "rt_svm.h"

#include "kiln_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

cl_int kiln_rt_context_has_device(cl_context c, cl_device_id d)
{
    for (cl_uint i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return CL_SUCCESS;
    return KILN_ERR(CL_INVALID_DEVICE, "device %p is not in context %p", (void *)d, (void *)c);
}

static void context_destroy(struct kiln_object *obj)
{
    cl_context c = (cl_context)obj;
    /* OpenCL 3.0 §4.4: the callbacks run in reverse order of registration, once every
     * object of the context is gone. Nothing else sees the context now: no lock. */
    while (c->dtors) {
        struct kiln_rt_callback *cb = c->dtors;
        c->dtors = cb->next;
        ((void(CL_CALLBACK *)(cl_context, void *))cb->fn)(c, cb->user_data);
        free(cb);
    }
    kiln_rt_svm_free_all(c);
    pthread_mutex_destroy(&c->lock);
    for (cl_uint i = 0; i < c->num_devices; i++)
        kiln_rt_device_drop(c->devices[i]);
    free(c->devices);
    free(c->props);
    free(c);
}

/* Validate a properties list: only CL_CONTEXT_PLATFORM (Kiln's) and
 * CL_CONTEXT_INTEROP_USER_SYNC, each at most once. Returns the entry count
 * including the terminating 0 in *count. */
static cl_int check_props(const cl_context_properties *props, size_t *count)
{
    *count = 0;
    if (!props)
        return CL_SUCCESS;
    bool seen_platform = false, seen_sync = false;
    size_t i = 0;
    for (; props[i] != 0; i += 2) {
        switch (props[i]) {
        case CL_CONTEXT_PLATFORM:
            if (seen_platform)
                return KILN_ERR(CL_INVALID_PROPERTY, "CL_CONTEXT_PLATFORM given twice");
            seen_platform = true;
            if (props[i + 1] != (cl_context_properties)&kiln_rt_platform)
                return KILN_ERR(CL_INVALID_PLATFORM, "CL_CONTEXT_PLATFORM is not Kiln's platform");
            break;
        case CL_CONTEXT_INTEROP_USER_SYNC:
            if (seen_sync)
                return KILN_ERR(CL_INVALID_PROPERTY, "CL_CONTEXT_INTEROP_USER_SYNC given twice");
            if (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)
                return KILN_ERR(CL_INVALID_PROPERTY,
                                "CL_CONTEXT_INTEROP_USER_SYNC is %ld, not CL_TRUE or CL_FALSE",
                                (long)props[i + 1]);
            seen_sync = true;
            break;
        default:
            return KILN_ERR(CL_INVALID_PROPERTY, "unknown context property 0x%lx", (long)props[i]);
        }
    }
    *count = i + 1;
    return CL_SUCCESS;
}

/* `devices` are checked; a device listed twice is taken once (OpenCL 3.0 §4.4). */
static cl_int context_create(const cl_context_properties *props, size_t num_props,
                             cl_uint num_devices, const cl_device_id *devices,
                             void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                             void *user_data, cl_context *out)
{
    cl_context c = kiln_calloc(1, sizeof(*c));
    if (!c)
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "context");
    c->devices = kiln_malloc(num_devices * sizeof(*devices));
    if (!c->devices) {
        free(c);
        return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "context device list");
    }
    for (cl_uint i = 0; i < num_devices; i++) {
        bool seen = false;
        for (cl_uint j = 0; j < c->num_devices; j++)
            seen |= c->devices[j] == devices[i];
        if (!seen)
            c->devices[c->num_devices++] = devices[i];
    }
    if (num_props) {
        c->props = kiln_malloc(num_props * sizeof(*props));
        if (!c->props) {
            free(c->devices);
            free(c);
            return KILN_ERR(CL_OUT_OF_HOST_MEMORY, "context properties");
        }
        memcpy(c->props, props, num_props * sizeof(*props));
        c->num_props = num_props;
    }
    pthread_mutex_init(&c->lock, NULL);
    kiln_rt_obj_init(&c->obj, KILN_TAG_CONTEXT, context_destroy);
    for (cl_uint i = 0; i < c->num_devices; i++)
        kiln_rt_device_hold(c->devices[i]);
    c->device = c->devices[0];
    c->notify = notify;
    c->notify_data = user_data;
    *out = c;
    return CL_SUCCESS;
}

cl_context CL_API_CALL clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                                       const cl_device_id *devices,
                                       void(CL_CALLBACK *pfn_notify)(const char *, const void *,
                                                                     size_t, void *),
                                       void *user_data, cl_int *errcode_ret)
{
    cl_context ctx = NULL;
    size_t num_props = 0;
    cl_int err = check_props(properties, &num_props);
    if (err == CL_SUCCESS && (num_devices == 0 || devices == NULL))
        err =
            KILN_ERR(CL_INVALID_VALUE, "num_devices %u, devices %p", num_devices, (void *)devices);
    if (err == CL_SUCCESS && pfn_notify == NULL && user_data != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "user_data without pfn_notify");
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++)
        err = kiln_rt_check_device(devices[i]);
    if (err == CL_SUCCESS)
        err = context_create(properties, num_props, num_devices, devices, pfn_notify, user_data,
                             &ctx);
    kiln_set_errcode(errcode_ret, err);
    return ctx;
}

cl_context CL_API_CALL
clCreateContextFromType(const cl_context_properties *properties, cl_device_type device_type,
                        void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
                        void *user_data, cl_int *errcode_ret)
{
    cl_context ctx = NULL;
    size_t num_props = 0;
    cl_int err = check_props(properties, &num_props);
    if (err == CL_SUCCESS && pfn_notify == NULL && user_data != NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "user_data without pfn_notify");
    if (err == CL_SUCCESS)
        err = kiln_rt_check_device_type(device_type);
    cl_device_id root = &kiln_rt_device;
    if (err == CL_SUCCESS)
        err = context_create(properties, num_props, 1, &root, pfn_notify, user_data, &ctx);
    kiln_set_errcode(errcode_ret, err);
    return ctx;
}

cl_int CL_API_CALL clRetainContext(cl_context context)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        kiln_rt_obj_retain(&context->obj);
    return err;
}

cl_int CL_API_CALL clReleaseContext(cl_context context)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS)
        kiln_rt_obj_release(&context->obj);
    return err;
}

cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret)
{
    cl_int err = kiln_rt_check_context(context);
    if (err != CL_SUCCESS)
        return err;
    cl_uint u;
    switch (param_name) {
    case CL_CONTEXT_REFERENCE_COUNT:
        u = atomic_load_explicit(&context->obj.refs, memory_order_relaxed);
        return kiln_rt_info(&u, sizeof(u), param_value_size, param_value, param_value_size_ret);
    case CL_CONTEXT_NUM_DEVICES:
        return kiln_rt_info(&context->num_devices, sizeof(cl_uint), param_value_size, param_value,
                            param_value_size_ret);
    case CL_CONTEXT_DEVICES:
        return kiln_rt_info(context->devices, context->num_devices * sizeof(cl_device_id),
                            param_value_size, param_value, param_value_size_ret);
    case CL_CONTEXT_PROPERTIES:
        return kiln_rt_info(context->props, context->num_props * sizeof(cl_context_properties),
                            param_value_size, param_value, param_value_size_ret);
    default:
        return KILN_ERR(CL_INVALID_VALUE, "unknown context query 0x%x", param_name);
    }
}

cl_int CL_API_CALL clSetContextDestructorCallback(cl_context context,
                                                  void(CL_CALLBACK *fn)(cl_context, void *),
                                                  void *user_data)
{
    cl_int err = kiln_rt_check_context(context);
    if (err == CL_SUCCESS && fn == NULL)
        err = KILN_ERR(CL_INVALID_VALUE, "pfn_notify is NULL");
    if (err == CL_SUCCESS)
        err = kiln_rt_dtor_push(&context->dtors, &context->lock, (void (*)(void))fn, user_data);
    return err;
}
