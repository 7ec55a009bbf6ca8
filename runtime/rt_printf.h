/*
 * printf output of kernels (printf.c): each NDRange command's buffer and its flush.
 */
#ifndef KILN_RUNTIME_RT_PRINTF_H
#define KILN_RUNTIME_RT_PRINTF_H

#include <stddef.h>

struct kiln_printf_buffer;

/* CL_DEVICE_PRINTF_BUFFER_SIZE: the record bytes of each command's printf buffer. */
#define KILN_RT_PRINTF_BUFFER_SIZE ((size_t)1 << 20)

/* A zeroed printf buffer with room for `capacity` bytes of records, or NULL. */
struct kiln_printf_buffer *kiln_rt_printf_buffer_create(size_t capacity);
/* Formats the buffer's records in order to stdout and flushes it. */
void kiln_rt_printf_flush(const struct kiln_printf_buffer *buf);

#endif
