/*
 * Diagnostics: KILN_DEBUG=err,warn,api,mem,sched,cc,pipe (or "all"), parsed once.
 * Messages go to stderr, one line each, with file and line.
 */
#include "rt_debug.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned mask;
static pthread_once_t mask_once = PTHREAD_ONCE_INIT;

static const struct {
    const char *name;
    unsigned bit;
} categories[] = {
    {"err", KILN_DBG_ERR},   {"warn", KILN_DBG_WARN},   {"api", KILN_DBG_API},
    {"mem", KILN_DBG_MEM},   {"sched", KILN_DBG_SCHED}, {"cc", KILN_DBG_CC},
    {"pipe", KILN_DBG_PIPE},
};

static void parse_mask(void)
{
    const char *env = getenv("KILN_DEBUG");
    if (!env)
        return;
    const char *p = env;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 3 && strncmp(p, "all", 3) == 0)
            mask = ~0u;
        for (size_t i = 0; i < sizeof(categories) / sizeof(categories[0]); i++)
            if (strlen(categories[i].name) == n && strncmp(p, categories[i].name, n) == 0)
                mask |= categories[i].bit;
        p += n;
        if (*p == ',')
            p++;
    }
}

unsigned kiln_rt_debug_mask(void)
{
    pthread_once(&mask_once, parse_mask);
    return mask;
}

static void vlog(const char *what, const char *file, int line, const char *fmt, va_list ap)
{
    const char *base = strrchr(file, '/');
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "kiln: %s: %s (%s:%d)\n", what, msg, base ? base + 1 : file, line);
}

void kiln_rt_log(unsigned cat, const char *file, int line, const char *fmt, ...)
{
    const char *what = "debug";
    for (size_t i = 0; i < sizeof(categories) / sizeof(categories[0]); i++)
        if (categories[i].bit == cat)
            what = categories[i].name;
    va_list ap;
    va_start(ap, fmt);
    vlog(what, file, line, fmt, ap);
    va_end(ap);
}

cl_int kiln_rt_err(cl_int code, const char *name, const char *file, int line, const char *fmt, ...)
{
    if (kiln_rt_debug_mask() & KILN_DBG_ERR) {
        char what[96];
        snprintf(what, sizeof(what), "error %s", name);
        va_list ap;
        va_start(ap, fmt);
        vlog(what, file, line, fmt, ap);
        va_end(ap);
    }
    return code;
}
