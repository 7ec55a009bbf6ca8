/*
 * The runtime's diagnostics (debug.c): KILN_DEBUG categories, KILN_ERR, which says why a
 * call failed, and KILN_LOG.
 */
#ifndef KILN_RUNTIME_RT_DEBUG_H
#define KILN_RUNTIME_RT_DEBUG_H

#include <CL/cl.h>

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

#endif
