/*
 * The one helper every clGet*Info query answers through (info.c, STYLE H3).
 */
#ifndef KILN_RUNTIME_RT_INFO_H
#define KILN_RUNTIME_RT_INFO_H

#include <CL/cl.h>
#include <stddef.h>

/*
 * Copy `size` bytes of `value` to the caller of a clGet*Info query: checks
 * param_value_size (CL_INVALID_VALUE when too small and param_value != NULL) and
 * writes *size_ret.
 */
cl_int kiln_rt_info(const void *value, size_t size, size_t param_value_size, void *param_value,
                    size_t *param_value_size_ret);
cl_int kiln_rt_info_str(const char *s, size_t param_value_size, void *param_value,
                        size_t *param_value_size_ret);

#endif
