/*
 * Host references shared by the conversion and vector-data tests: the value of a half,
 * and a value rounded to half in each rounding mode, written from the definition of the
 * format (long double holds every float, double and 64-bit integer exactly, and scaling
 * by powers of two is exact in it).
 */
#ifndef KILN_TESTS_API_CONV_REF_H
#define KILN_TESTS_API_CONV_REF_H

#include <math.h>
#include <stdint.h>

/* Rounding modes in the order the tests use them: default, _rte, _rtz, _rtp, _rtn. */
enum ref_mode { RM_DEF, RM_RTE, RM_RTZ, RM_RTP, RM_RTN };

static inline long double ref_half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    int m = h & 0x3ff;
    long double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpl(m, -24);
    else
        v = ldexpl(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static inline int ref_half_is_nan(uint16_t h)
{
    return (h & 0x7fff) > 0x7c00;
}

/* The half bits of an exactly representable magnitude r (0 <= r <= 65504). */
static inline uint16_t ref_half_encode(long double r)
{
    if (r < ldexpl(1, -14))
        return (uint16_t)(r * ldexpl(1, 24));
    int e;
    frexpl(r, &e); /* r = f * 2^e, 0.5 <= f < 1: the exponent of r is e - 1 */
    long double sig = r / ldexpl(1, e - 1 - 10);
    return (uint16_t)(((e - 1 + 15) << 10) | ((int)sig - 1024));
}

/* v rounded to half by mode (RM_DEF is round to nearest even); NaN gives a NaN. */
static inline uint16_t ref_to_half(long double v, enum ref_mode mode)
{
    if (isnan(v))
        return 0x7e00;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    long double a = fabsl(v);
    if (isinf(a))
        return sign | 0x7c00;
    /* Magnitudes: round down or up, "up" meaning away from zero. */
    int e = 0;
    if (a >= ldexpl(1, -14))
        frexpl(a, &e), e -= 1;
    else
        e = -14;
    long double ulp = ldexpl(1, e - 10);
    long double lo = floorl(a / ulp) * ulp, hi = lo + ulp;
    long double r;
    int away; /* round the magnitude up */
    if (lo == a) {
        away = 0;
    } else if (mode == RM_RTZ) {
        away = 0;
    } else if (mode == RM_RTP) {
        away = !sign;
    } else if (mode == RM_RTN) {
        away = sign != 0;
    } else {
        long double dl = a - lo, dh = hi - a;
        away = dh < dl || (dh == dl && fmodl(lo / ulp, 2) != 0);
    }
    r = away ? hi : lo;
    if (r > 65504) {
        /* Above HALF_MAX: infinity, except when the mode rounds the magnitude down. */
        return sign | (away || (lo > 65504 && mode != RM_RTZ && !(mode == RM_RTP && sign) &&
                                !(mode == RM_RTN && !sign))
                           ? 0x7c00
                           : 0x7bff);
    }
    return sign | ref_half_encode(r);
}

#endif
