/*
 * The one helper every clGet*Info query copies its answer through (STYLE H3).
 */
#include "rt_info.h"
#include "rt_debug.h"

#include <string.h>

cl_int kiln_rt_info(const void *value, size_t size, size_t param_value_size, void *param_value,
                    size_t *param_value_size_ret)
{
    if (param_value) {
        if (param_value_size < size)
            return KILN_ERR(CL_INVALID_VALUE,
                            "param_value_size %zu is less than the %zu bytes needed",
                            param_value_size, size);
        if (size)
            memcpy(param_value, value, size);
    }
    if (param_value_size_ret)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

cl_int kiln_rt_info_str(const char *s, size_t param_value_size, void *param_value,
                        size_t *param_value_size_ret)
{
    return kiln_rt_info(s, strlen(s) + 1, param_value_size, param_value, param_value_size_ret);
}
