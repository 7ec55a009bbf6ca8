/*
 * Application callbacks as the runtime keeps them: event callbacks (event.c) and the
 * destructor callbacks of memory objects and contexts (object.c, mem.c, context.c).
 */
#ifndef KILN_RUNTIME_RT_CALLBACK_H
#define KILN_RUNTIME_RT_CALLBACK_H

#include <CL/cl.h>
#include <pthread.h>

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

#endif
