/*
 * printf output: formats the records a launch's kernels left in its printf
 * buffer (include/kiln_abi.h, device-cpu/compiler/2-link/lower_printf.c) and
 * writes them to stdout when the launch ends, before the runtime's completion
 * callback runs (and so before the command's event completes).
 *
 * The format is OpenCL C's (OpenCL C 3.0 §6.15.14): C99's flags, width, precision
 * and conversions d i o u x X c s f F e E g G a A p %, the length modifiers hh, h, l
 * and, for vectors only, hl, and the vector specifier vN (N = 2, 3, 4, 8, 16) whose
 * elements are printed one by one with the same flags, width and precision and
 * separated by ','. Each conversion is handed to the host's snprintf, so the text
 * is exactly what C's printf gives for the same values, except that a NaN prints
 * without a sign.
 *
 * A record keeps every argument as the kernel passed it, with its kind and size
 * (float and half scalars arrive as double, char and short as int). The
 * conversion says how to read it: a scalar integer conversion reads the integer
 * and narrows it as the length modifier says; a vector conversion reads N elements
 * of the size the length modifier gives (hh 1, h 2, hl 4, l 8 bytes; for floating
 * point h is half, hl float, l double), or, without one, of the largest size that
 * fits N elements into the argument. A conversion the format does not spell
 * correctly is printed as it stands and takes no argument; a conversion with no
 * argument left is printed as it stands too.
 *
 * The output of one command goes out in one locked write followed by fflush, so
 * commands finishing on different threads never interleave their lines.
 */
#include "cpu_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_alloc.h"

/* A growing text; `failed` once an allocation failed (the rest is dropped). */
struct text {
    char *data;
    size_t len, cap;
    bool failed;
};

static bool text_room(struct text *t, size_t more)
{
    if (t->failed)
        return false;
    if (t->len + more + 1 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *grown = kiln_realloc(t->data, cap);
    if (!grown) {
        t->failed = true;
        return false;
    }
    t->data = grown;
    t->cap = cap;
    return true;
}

static void text_put(struct text *t, const char *s, size_t n)
{
    if (!text_room(t, n))
        return;
    memcpy(t->data + t->len, s, n);
    t->len += n;
}

static void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_printf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    if (!text_room(t, 64))
        return;
    /* Most conversions fit in what is left: one call; otherwise grow and format again. */
    va_start(ap, fmt);
    int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= t->cap - t->len) {
        if (!text_room(t, (size_t)n))
            return;
        va_start(ap, fmt);
        vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
}

static uint64_t load_le(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The value of an IEEE half. */
static double half_value(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff;
    double v;
    if (exp == 0x1f)
        v = mant != 0 ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp(mant, -24);
    else
        v = ldexp(mant + 1024, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static double float_value(const unsigned char *p, unsigned bytes)
{
    uint64_t bits = load_le(p, bytes);
    if (bytes == 2)
        return half_value((uint16_t)bits);
    if (bytes == 4) {
        float f;
        uint32_t b32 = (uint32_t)bits;
        memcpy(&f, &b32, sizeof(f));
        return f;
    }
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
    if (bytes >= 8)
        return (int64_t)v;
    unsigned shift = 64 - 8 * bytes;
    return (int64_t)(v << shift) >> shift;
}

/* One argument of a record. */
struct arg {
    unsigned kind;
    unsigned size;
    const unsigned char *bytes;
};

/* The parts of one conversion specification. */
struct spec {
    char flags[8];
    char width[8];
    char precision[8]; /* "" when none; "." and digits otherwise */
    unsigned vector;   /* 0 for a scalar, else the element count */
    char length[3];    /* "", "hh", "h", "hl", "l" */
    char conv;
};

/* The element size the length modifier gives a vector conversion, 0 when it gives none. */
static unsigned modifier_bytes(const struct spec *s)
{
    if (strcmp(s->length, "hh") == 0)
        return 1;
    if (strcmp(s->length, "h") == 0)
        return 2;
    if (strcmp(s->length, "hl") == 0)
        return 4;
    if (strcmp(s->length, "l") == 0)
        return 8;
    return 0;
}

/* The host format for one value: "%" flags width precision, `host_len`, conversion. */
static void host_format(const struct spec *s, const char *host_len, char *out, size_t size)
{
    snprintf(out, size, "%%%s%s%s%s%c", s->flags, s->width, s->precision, host_len, s->conv);
}

static bool is_signed_conv(char c)
{
    return c == 'd' || c == 'i';
}

static bool is_int_conv(char c)
{
    return c && strchr("diouxX", c) != NULL;
}

static bool is_float_conv(char c)
{
    return c && strchr("fFeEgGaA", c) != NULL;
}

/* Prints one integer of `bytes` bytes (its value as read, before narrowing). */
static void put_int(struct text *t, const struct spec *s, uint64_t raw, unsigned bytes,
                    unsigned narrow)
{
    char fmt[40];
    host_format(s, "ll", fmt, sizeof(fmt));
    if (is_signed_conv(s->conv)) {
        int64_t v = sign_extend(raw, bytes < narrow || !narrow ? bytes : narrow);
        text_printf(t, fmt, (long long)v);
    } else {
        unsigned n = narrow && narrow < bytes ? narrow : bytes;
        uint64_t v = n >= 8 ? raw : raw & ((UINT64_C(1) << (8 * n)) - 1);
        text_printf(t, fmt, (unsigned long long)v);
    }
}

static void put_double(struct text *t, const struct spec *s, double v)
{
    char fmt[40];
    /* A NaN's sign means nothing in OpenCL C: every NaN prints as nan (NAN), never -nan. */
    if (isnan(v))
        v = fabs(v);
    host_format(s, "", fmt, sizeof(fmt));
    text_printf(t, fmt, v);
}

/* The narrowing a scalar integer conversion's length modifier asks for. */
static unsigned scalar_int_bytes(const struct spec *s)
{
    if (strcmp(s->length, "hh") == 0)
        return 1;
    if (strcmp(s->length, "h") == 0)
        return 2;
    if (strcmp(s->length, "l") == 0)
        return 8;
    return 4;
}

static void put_scalar(struct text *t, const struct spec *s, const struct arg *a)
{
    uint64_t raw = load_le(a->bytes, a->size < 8 ? a->size : 8);
    unsigned bytes = a->size < 8 ? a->size : 8;
    char fmt[40];
    switch (s->conv) {
    case 'c':
        host_format(s, "", fmt, sizeof(fmt));
        text_printf(t, fmt, (int)(unsigned char)raw);
        return;
    case 's': {
        const char *str = (const char *)(uintptr_t)raw;
        host_format(s, "", fmt, sizeof(fmt));
        text_printf(t, fmt, a->kind == KILN_PRINTF_KIND_POINTER && str ? str : "(null)");
        return;
    }
    case 'p':
        host_format(s, "", fmt, sizeof(fmt));
        text_printf(t, fmt, (void *)(uintptr_t)raw);
        return;
    default:
        break;
    }
    if (is_int_conv(s->conv)) {
        put_int(t, s, raw, bytes, scalar_int_bytes(s));
        return;
    }
    if (a->kind == KILN_PRINTF_KIND_FLOAT)
        put_double(t, s, float_value(a->bytes, bytes));
    else
        put_double(t, s, (double)sign_extend(raw, bytes));
}

static void put_vector(struct text *t, const struct spec *s, const struct arg *a)
{
    unsigned e = modifier_bytes(s);
    if (!e)
        for (e = 8; e > 1 && (size_t)s->vector * e > a->size; e /= 2)
            ;
    if (is_float_conv(s->conv) && e == 1)
        e = 2;
    for (unsigned i = 0; i < s->vector; i++) {
        if (i)
            text_put(t, ",", 1);
        unsigned char zero[8] = {0};
        const unsigned char *p = (size_t)(i + 1) * e <= a->size ? a->bytes + (size_t)i * e : zero;
        if (is_float_conv(s->conv))
            put_double(t, s, float_value(p, e));
        else
            put_int(t, s, load_le(p, e), e, 0);
    }
}

/*
 * Parses the conversion specification after a '%' at *p; on success *p is past it.
 * False for a specification OpenCL C does not allow.
 */
static bool parse_spec(const char **p, struct spec *s)
{
    const char *c = *p;
    size_t n = 0;
    memset(s, 0, sizeof(*s));
    while (*c && strchr("-+ #0", *c)) {
        if (n + 1 < sizeof(s->flags))
            s->flags[n++] = *c;
        c++;
    }
    for (n = 0; *c >= '0' && *c <= '9'; c++) {
        if (n + 1 >= sizeof(s->width))
            return false;
        s->width[n++] = *c;
    }
    if (*c == '.') {
        s->precision[0] = '.';
        c++;
        for (n = 1; *c >= '0' && *c <= '9'; c++) {
            if (n + 1 >= sizeof(s->precision))
                return false;
            s->precision[n++] = *c;
        }
    }
    if (*c == 'v') {
        char *end;
        unsigned long v = strtoul(c + 1, &end, 10);
        if (end == c + 1 || (v != 2 && v != 3 && v != 4 && v != 8 && v != 16))
            return false;
        s->vector = (unsigned)v;
        c = end;
    }
    if (c[0] == 'h' && (c[1] == 'h' || c[1] == 'l')) {
        s->length[0] = 'h';
        s->length[1] = c[1];
        c += 2;
    } else if (*c == 'h' || *c == 'l') {
        s->length[0] = *c++;
    }
    s->conv = *c;
    if (!s->conv || !strchr("diouxXcsfFeEgGaAp", s->conv))
        return false;
    c++;
    /* hl belongs to vectors; vectors take only numbers. */
    if (strcmp(s->length, "hl") == 0 && !s->vector)
        return false;
    if (s->vector && !is_int_conv(s->conv) && !is_float_conv(s->conv))
        return false;
    if (s->vector && is_float_conv(s->conv) && strcmp(s->length, "hh") == 0)
        return false;
    *p = c;
    return true;
}

/* Formats one record of `size` bytes at r (already checked to lie inside the buffer). */
static void format_record(struct text *t, const unsigned char *r, size_t size)
{
    unsigned nargs = (unsigned)load_le(r + 4, 4);
    const char *fmt = (const char *)(uintptr_t)load_le(r + 8, 8);
    const unsigned char *at = r + KILN_PRINTF_RECORD_HEAD, *end = r + size;
    if (!fmt)
        return;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *next = strchr(p, '%');
            size_t n = next ? (size_t)(next - p) : strlen(p);
            text_put(t, p, n);
            p += n;
            continue;
        }
        const char *start = p++;
        if (*p == '%') {
            text_put(t, "%", 1);
            p++;
            continue;
        }
        struct spec s;
        struct arg a = {0};
        bool have = false;
        if (parse_spec(&p, &s) && nargs > 0 && (size_t)(end - at) >= 4) {
            uint32_t desc = (uint32_t)load_le(at, 4);
            a.kind = desc >> 24;
            a.size = desc & KILN_PRINTF_SIZE_MASK;
            a.bytes = at + 4;
            have = a.size > 0 && (size_t)(end - at - 4) >= a.size;
        }
        if (!have) {
            /* Not a conversion Kiln can print: the text as it stands. */
            if (p == start + 1 && *p)
                p++;
            text_put(t, start, (size_t)(p - start));
            continue;
        }
        at += 4 + a.size;
        nargs--;
        if (s.vector)
            put_vector(t, &s, &a);
        else
            put_scalar(t, &s, &a);
    }
}

bool kiln_cpu_printf_flush(const struct kiln_printf_buffer *buf)
{
    const unsigned char *data = (const unsigned char *)buf + KILN_PRINTF_DATA;
    /* Every work-group has finished: the job's completion ordered their stores before this. */
    size_t limit = buf->used < buf->capacity ? buf->used : buf->capacity;
    struct text t = {0};
    for (size_t off = 0; limit - off >= KILN_PRINTF_RECORD_HEAD;) {
        size_t size = (size_t)load_le(data + off, 4);
        if (size < KILN_PRINTF_RECORD_HEAD || size % 8 || size > limit - off)
            break;
        format_record(&t, data + off, size);
        off += size;
    }
    if (t.len) {
        flockfile(stdout);
        fwrite(t.data, 1, t.len, stdout);
        fflush(stdout);
        funlockfile(stdout);
    }
    free(t.data);
    return !t.failed;
}

struct kiln_printf_buffer *kiln_cpu_printf_buffer_create(size_t capacity)
{
    struct kiln_printf_buffer *buf = kiln_calloc(1, KILN_PRINTF_DATA + capacity);
    if (buf)
        buf->capacity = capacity;
    return buf;
}
