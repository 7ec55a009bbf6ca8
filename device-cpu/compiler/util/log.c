/*
 * The build log: text that ends up in CL_PROGRAM_BUILD_LOG.
 *
 * Appending never fails loudly; on out of memory the log stops growing and remembers
 * it, so a stage can report its real error and the driver turns the lost text into
 * KILN_CC_OUT_OF_MEMORY only where that matters.
 */
#include "cc_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kiln_cc_log_init(struct kiln_cc_log *log)
{
    log->text = NULL;
    log->len = 0;
    log->cap = 0;
    log->out_of_memory = false;
}

static bool reserve(struct kiln_cc_log *log, size_t more)
{
    if (log->len + more + 1 <= log->cap)
        return true;
    size_t cap = log->cap ? log->cap : 256;
    while (cap < log->len + more + 1)
        cap *= 2;
    char *text = realloc(log->text, cap);
    if (!text) {
        log->out_of_memory = true;
        return false;
    }
    log->text = text;
    log->cap = cap;
    return true;
}

void kiln_cc_log_append(struct kiln_cc_log *log, const char *text)
{
    size_t n = strlen(text);
    if (!reserve(log, n))
        return;
    memcpy(log->text + log->len, text, n + 1);
    log->len += n;
}

void kiln_cc_log_printf(struct kiln_cc_log *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(log, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(log->text + log->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    log->len += (size_t)n;
}

char *kiln_cc_log_take(struct kiln_cc_log *log)
{
    char *text = log->text;
    if (!text)
        text = calloc(1, 1);
    kiln_cc_log_init(log);
    return text;
}
