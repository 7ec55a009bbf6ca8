/*
 * Powers and roots (OpenCL C 3.0 §6.15.2): pow, pown, powr, rootn, rsqrt and cbrt
 * for float and double, scalar and every vector width.
 *
 * float: |x|^y = 2^(y log2|x|) computed in double (log2 and exp2 of exp_log.cl), which
 * leaves an error far below one float ulp before the final rounding; pown and rootn
 * take their integer in double exactly.
 *
 * double: log|x| is computed as a double-double (hi + lo, about 2^-64 relative): the
 * terms 2s and (2/3)s^3 of log((1+s)/(1-s)) are carried with their rounding errors,
 * the rest is small enough for one double. y log|x| is formed with its product error
 * (fma), and e^(hi + lo) corrects the reduced argument by lo.
 *
 * Bounds (OpenCL C 3.0 §7.4, float and double): pow, pown, powr and rootn 16 ulp, rsqrt and
 * cbrt 2 ulp; tests/api/math_exp.c checks them.
 *
 * The special cases follow C99 Annex F for pow and pown and OpenCL C §7.5.1 for powr
 * and rootn; they are applied with selects after the main computation.
 */
#include "exp_log_core.h"

/*
 * The Annex F cases of pow, given |x|^y for finite non-zero |x| and finite y in `mag`
 * and masks describing y (negative, zero, infinite, integer, odd integer, NaN).
 */
#define KILN_POW_FINISH(T, I, ONE)                                                                 \
    KILN_INTERNAL T kiln_pow_finish(T x, T mag, I yneg, I yzero, I yinf, I yint, I yodd, I ynan)   \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        T inf = (T)INFINITY, zero = (T)(ONE * 0);                                                  \
        mag = a == zero ? (yneg ? inf : zero) : mag;                                               \
        mag = a == inf ? (yneg ? zero : inf) : mag;                                                \
        mag = yinf ? (a == (T)ONE ? (T)ONE : (((a < (T)ONE) ^ yneg) ? zero : inf)) : mag;          \
        T res = ((KILN_AS(I, x) < 0) & yodd) ? -mag : mag;                                         \
        res = ((x < zero) & (x != -inf) & !yint & !yinf) ? (T)NAN : res;                           \
        res = ((x != x) | ynan) ? (T)NAN : res;                                                    \
        return ((x == (T)ONE) | yzero) ? (T)ONE : res;                                             \
    }

/* ---- float ---- */

#define KILN_POW_F(T, I, D)                                                                        \
    KILN_POW_FINISH(T, I, 1.0f)                                                                    \
    /* |x|^y in double, rounded to float. */                                                       \
    KILN_INTERNAL T kiln_powmag(T x, D y)                                                          \
    {                                                                                              \
        D a = kiln_cvt_##D(__builtin_elementwise_abs(x));                                          \
        return kiln_cvt_##T(exp2(y * log2(a)));                                                    \
    }                                                                                              \
    T KILN_OVERLOAD pow(T x, T y)                                                                  \
    {                                                                                              \
        T mag = kiln_powmag(x, kiln_cvt_##D(y));                                                   \
        T yr = __builtin_elementwise_rint(y);                                                      \
        T yh = y * 0.5f;                                                                           \
        I yint = yr == y;                                                                          \
        I yodd = yint & (__builtin_elementwise_rint(yh) != yh);                                    \
        return kiln_pow_finish(x, mag, y < 0.0f, y == 0.0f,                                        \
                               __builtin_elementwise_abs(y) == INFINITY, yint, yodd, y != y);      \
    }                                                                                              \
    T KILN_OVERLOAD pown(T x, I n)                                                                 \
    {                                                                                              \
        T mag = kiln_powmag(x, kiln_cvt_##D(n));                                                   \
        I no = n != n;                                                                             \
        return kiln_pow_finish(x, mag, n < 0, n == 0, no, n == n, (n & 1) != 0, no);               \
    }                                                                                              \
    T KILN_OVERLOAD powr(T x, T y)                                                                 \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        I yinf = __builtin_elementwise_abs(y) == INFINITY;                                         \
        T mag = kiln_powmag(x, kiln_cvt_##D(y));                                                   \
        I none = y != y;                                                                           \
        /* As pow for x >= 0 (with -0 as +0), then the cases powr leaves undefined. */             \
        T res = kiln_pow_finish(a, mag, y < 0.0f, y == 0.0f, yinf, yinf, none, none);              \
        I bad = (x < 0.0f) | ((a == 0.0f) & (y == 0.0f)) | ((a == INFINITY) & (y == 0.0f)) |       \
                ((x == 1.0f) & yinf) | (x != x) | (y != y);                                        \
        return bad ? (T)NAN : res;                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD rootn(T x, I n)                                                                \
    {                                                                                              \
        D a = kiln_cvt_##D(__builtin_elementwise_abs(x));                                          \
        T mag = kiln_cvt_##T(exp2(log2(a) / kiln_cvt_##D(n)));                                     \
        I odd = (n & 1) != 0;                                                                      \
        T res = ((KILN_AS(I, x) < 0) & odd) ? -mag : mag;                                          \
        return (((x < 0.0f) & !odd) | (n == 0)) ? (T)NAN : res;                                    \
    }                                                                                              \
    T KILN_OVERLOAD rsqrt(T x)                                                                     \
    {                                                                                              \
        return 1.0f / __builtin_elementwise_sqrt(x);                                               \
    }                                                                                              \
    T KILN_OVERLOAD cbrt(T x)                                                                      \
    {                                                                                              \
        D a = kiln_cvt_##D(__builtin_elementwise_abs(x));                                          \
        T mag = kiln_cvt_##T(kiln_cbrt_pos(a));                                                    \
        T res = __builtin_elementwise_copysign(mag, x);                                            \
        return ((x == 0.0f) | (__builtin_elementwise_abs(x) == INFINITY) | (x != x)) ? x : res;    \
    }

/* ---- double ---- */

#define KILN_POW_D(T, I, N)                                                                        \
    KILN_POW_FINISH(T, I, 1.0)                                                                     \
    /* log x as hi + lo, for x > 0 finite. */                                                      \
    KILN_INTERNAL T kiln_log_dd(T x, T *lo)                                                        \
    {                                                                                              \
        T bias;                                                                                    \
        T xn = kiln_log_normal(x, &bias);                                                          \
        I ix = KILN_AS(I, xn) - 0x3fe6a09e667f3bcdL;                                               \
        T e = kiln_cvt_##T(ix >> 52) - bias;                                                       \
        T f = KILN_AS(T, (ix & 0x000fffffffffffffL) + 0x3fe6a09e667f3bcdL) - 1.0;                  \
        /* s = f / (2 + f) as s + sl. */                                                           \
        T d = 2.0 + f;                                                                             \
        T de = (2.0 - d) + f;                                                                      \
        T s = f / d;                                                                               \
        T sl = (KILN_FMA(-s, d, f) - s * de) / d;                                                  \
        /* (2/3) s^3 as t3 + t3l. */                                                               \
        T z = s * s;                                                                               \
        T zl = KILN_FMA(s, s, -z) + 2.0 * s * sl;                                                  \
        T s3 = s * z;                                                                              \
        T s3l = KILN_FMA(s, z, -s3) + s * zl + sl * z;                                             \
        T t3 = 0x1.5555555555555p-1 * s3;                                                          \
        T t3l = KILN_FMA((T)0x1.5555555555555p-1, s3, -t3) + 0x1.5555555555555p-1 * s3l +          \
                0x1.5555555555555p-55 * s3;                                                        \
        /* The rest of s R(z): s z^2 (c2 + c3 z + ...). */                                         \
        T q = KILN_FMA(z, (T)0x1.0fa071b066196p-3, (T)0x1.0f588a6295c67p-3);                       \
        q = KILN_FMA(z, q, (T)0x1.3b20b63c8d8aap-3);                                               \
        q = KILN_FMA(z, q, (T)0x1.745cdf1c0dd7fp-3);                                               \
        q = KILN_FMA(z, q, (T)0x1.c71c725128d4bp-3);                                               \
        q = KILN_FMA(z, q, (T)0x1.2492492437b49p-2);                                               \
        q = KILN_FMA(z, q, (T)0x1.9999999999cf7p-2);                                               \
        T rest = s * z * z * q;                                                                    \
        /* log(1 + f) = 2s + t3 + rest, then + e ln2. */                                           \
        T h = 2.0 * s;                                                                             \
        T l = h + t3;                                                                              \
        T ll = ((h - l) + t3) + (2.0 * sl + t3l + rest);                                           \
        T a = e * 0x1.62e42fefa39efp-1;                                                            \
        T al = KILN_FMA(e, (T)0x1.62e42fefa39efp-1, -a) + e * 0x1.abc9e3b39803fp-56;               \
        T r = a + l;                                                                               \
        T bb = r - a;                                                                              \
        T rl = ((a - (r - bb)) + (l - bb)) + (al + ll);                                            \
        T hi = r + rl;                                                                             \
        *lo = rl - (hi - r);                                                                       \
        return hi;                                                                                 \
    }                                                                                              \
    /* e^(hi + lo), |lo| tiny beside hi. */                                                        \
    KILN_INTERNAL T kiln_exp_dd(T hi, T lo)                                                        \
    {                                                                                              \
        I n;                                                                                       \
        T hc = hi > 710.0 ? (T)710.0 : hi;                                                         \
        hc = hc < -746.0 ? (T)-746.0 : hc;                                                         \
        lo = hc == hi ? lo : (T)0.0;                                                               \
        T nf = kiln_rint_i(hc * 0x1.71547652b82fep+0, &n);                                         \
        T r = KILN_FMA(-nf, (T)0x1.62e42fefa39efp-1, hc);                                          \
        T c = KILN_FMA(-nf, (T)0x1.abc9e3b39803fp-56, lo);                                         \
        return kiln_scale(kiln_exp_small(r, c), n);                                                \
    }                                                                                              \
    /* |x|^(yh + yl) for finite non-zero x, as far as the exponential's range goes. */             \
    KILN_INTERNAL T kiln_powmag(T x, T yh, T yl)                                                   \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        /* Any positive finite stand-in keeps 0, inf and NaN out of the arithmetic. */             \
        a = ((a == 0.0) | (a == INFINITY) | (a != a)) ? (T)2.0 : a;                                \
        T ll;                                                                                      \
        T lh = kiln_log_dd(a, &ll);                                                                \
        T th = yh * lh;                                                                            \
        T tl = KILN_FMA(yh, lh, -th) + (yh * ll + yl * lh);                                        \
        return kiln_exp_dd(th, tl);                                                                \
    }                                                                                              \
    T KILN_OVERLOAD pow(T x, T y)                                                                  \
    {                                                                                              \
        T mag = kiln_powmag(x, y, (T)0.0);                                                         \
        T yr = __builtin_elementwise_rint(y);                                                      \
        T yh = y * 0.5;                                                                            \
        I yint = yr == y;                                                                          \
        I yodd = yint & (__builtin_elementwise_rint(yh) != yh);                                    \
        return kiln_pow_finish(x, mag, y < 0.0, y == 0.0,                                          \
                               __builtin_elementwise_abs(y) == INFINITY, yint, yodd, y != y);      \
    }                                                                                              \
    T KILN_OVERLOAD pown(T x, N n)                                                                 \
    {                                                                                              \
        T y = kiln_cvt_##T(n);                                                                     \
        T mag = kiln_powmag(x, y, (T)0.0);                                                         \
        T yh = y * 0.5;                                                                            \
        I no = y != y;                                                                             \
        return kiln_pow_finish(x, mag, y < 0.0, y == 0.0, no, y == y,                              \
                               __builtin_elementwise_rint(yh) != yh, no);                          \
    }                                                                                              \
    T KILN_OVERLOAD rootn(T x, N n)                                                                \
    {                                                                                              \
        T y = kiln_cvt_##T(n);                                                                     \
        /* 1/n as yh + yl. */                                                                      \
        T yh = 1.0 / y;                                                                            \
        T yl = KILN_FMA(-yh, y, (T)1.0) / y;                                                       \
        T a = __builtin_elementwise_abs(x);                                                        \
        T mag = kiln_powmag(x, yh, yl);                                                            \
        mag = a == 0.0 ? (y < 0.0 ? (T)INFINITY : (T)0.0) : mag;                                   \
        mag = a == INFINITY ? (y < 0.0 ? (T)0.0 : (T)INFINITY) : mag;                              \
        T yh2 = y * 0.5;                                                                           \
        I odd = __builtin_elementwise_rint(yh2) != yh2;                                            \
        T res = ((KILN_AS(I, x) < 0) & odd) ? -mag : mag;                                          \
        return (((x < 0.0) & !odd) | (y == 0.0) | (x != x)) ? (T)NAN : res;                        \
    }                                                                                              \
    T KILN_OVERLOAD powr(T x, T y)                                                                 \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        I yinf = __builtin_elementwise_abs(y) == INFINITY;                                         \
        T mag = kiln_powmag(x, y, (T)0.0);                                                         \
        I none = y != y;                                                                           \
        T res = kiln_pow_finish(a, mag, y < 0.0, y == 0.0, yinf, yinf, none, none);                \
        I bad = (x < 0.0) | ((a == 0.0) & (y == 0.0)) | ((a == INFINITY) & (y == 0.0)) |           \
                ((x == 1.0) & yinf) | (x != x) | (y != y);                                         \
        return bad ? (T)NAN : res;                                                                 \
    }                                                                                              \
    T KILN_OVERLOAD rsqrt(T x)                                                                     \
    {                                                                                              \
        return 1.0 / __builtin_elementwise_sqrt(x);                                                \
    }                                                                                              \
    T KILN_OVERLOAD cbrt(T x)                                                                      \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        T y = kiln_cbrt_pos(((a == 0.0) | (a == INFINITY) | (a != a)) ? (T)1.0 : a);               \
        /* One Newton step with the residual a - y^3 computed exactly. */                          \
        T sub = a < 0x1p-1022 ? (T)0x1p54 : (T)1.0;                                                \
        T v = a * sub;                                                                             \
        T ys = y * (a < 0x1p-1022 ? (T)0x1p18 : (T)1.0);                                           \
        T y2 = ys * ys;                                                                            \
        T y2e = KILN_FMA(ys, ys, -y2);                                                             \
        T y3 = y2 * ys;                                                                            \
        T y3e = KILN_FMA(y2, ys, -y3) + y2e * ys;                                                  \
        ys = KILN_FMA((v - y3) - y3e, 1.0 / (3.0 * y2), ys);                                       \
        y = ys * (a < 0x1p-1022 ? (T)0x1p-18 : (T)1.0);                                            \
        T res = __builtin_elementwise_copysign(y, x);                                              \
        return ((x == 0.0) | (a == INFINITY) | (x != x)) ? x : res;                                \
    }

/*
 * Cube root of a positive finite double a (normal or subnormal): cbrt(m 2^(3q + k)) =
 * cbrt(m 2^k) 2^q, with a cubic first guess (0.5%) and two Halley iterations (about 2^-60 before
 * rounding).
 */
#define KILN_CBRT_CORE(T, I)                                                                       \
    KILN_INTERNAL T kiln_cbrt_pos(T a)                                                             \
    {                                                                                              \
        I sub = a < 0x1p-1022;                                                                     \
        a = sub ? a * 0x1p54 : a;                                                                  \
        I bits = KILN_AS(I, a);                                                                    \
        T ef = kiln_cvt_##T((bits >> 52) - 1023) - (sub ? (T)54.0 : (T)0.0);                       \
        T m = KILN_AS(T, (bits & 0x000fffffffffffffL) | 0x3ff0000000000000L);                      \
        T q = __builtin_elementwise_floor((ef + 0.5) * (1.0 / 3.0));                               \
        T k = ef - 3.0 * q;                                                                        \
        T v = m * (k == 0.0 ? (T)1.0 : (k == 1.0 ? (T)2.0 : (T)4.0));                              \
        T y = KILN_FMA(v, (T)0x1.2f32ec8cbcd5ep-9, (T)-0x1.62cc009d17b3fp-5);                      \
        y = KILN_FMA(v, y, (T)0x1.7546e7d8b7ac4p-2);                                               \
        y = KILN_FMA(v, y, (T)0x1.5d05a869cb5dap-1);                                               \
        T y3 = y * y * y;                                                                          \
        y = y * (y3 + 2.0 * v) / (2.0 * y3 + v);                                                   \
        y3 = y * y * y;                                                                            \
        y = y * (y3 + 2.0 * v) / (2.0 * y3 + v);                                                   \
        I qi;                                                                                      \
        kiln_rint_i(q, &qi);                                                                       \
        return y * kiln_pow2i(qi);                                                                 \
    }

KILN_FOR_DOUBLE_LONG(KILN_EXPLOG_CORE_D)
KILN_FOR_DOUBLE_LONG(KILN_CBRT_CORE)
KILN_FOR_DOUBLE_LONG_INT(KILN_POW_D)
KILN_FOR_FLOAT_INT_DOUBLE(KILN_POW_F)
