/*
 * The scalar types and rounding-mode suffixes of the conversion tests (conversions.c,
 * half_conv.c), so that both name them alike.
 */
#ifndef KILN_TESTS_API_CONV_TYPES_H
#define KILN_TESTS_API_CONV_TYPES_H

#include <stddef.h>

/* The scalar types the conversion tests convert between, with their OpenCL C names. */
enum {
    T_CHAR,
    T_UCHAR,
    T_SHORT,
    T_USHORT,
    T_INT,
    T_UINT,
    T_LONG,
    T_ULONG,
    T_FLOAT,
    T_DOUBLE,
    T_HALF,
    NT
};

static const struct {
    const char *name;
    size_t size;
    int is_int, sgn;
} ty[NT] = {
    {"char", 1, 1, 1},  {"uchar", 1, 1, 0},  {"short", 2, 1, 1}, {"ushort", 2, 1, 0},
    {"int", 4, 1, 1},   {"uint", 4, 1, 0},   {"long", 8, 1, 1},  {"ulong", 8, 1, 0},
    {"float", 4, 0, 0}, {"double", 8, 0, 0}, {"half", 2, 0, 0},
};

/* The conversion suffix of each rounding mode, in enum ref_mode's order. */
static const char *const mode_sfx[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};

#endif
