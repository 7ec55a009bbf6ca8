/*
 * Trigonometric functions (OpenCL C 3.0 §6.15.2): sin, cos, tan, sincos, sinpi, cospi
 * and tanpi for float and double, scalar and every vector width.
 *
 * Reduction (double): |x| = M 2^E with M an integer below 2^53. x (2/pi) mod 4 is
 * M C_E, where C_E = (2^E 2/pi) mod 4 is read from a table of three doubles per E
 * (trig_table.h, made by kernel-lib/math/mathcoef.py) for E >= 0 and is 2/pi 2^E below.
 * The products are formed exactly (fma), multiples of 4 dropped, and the sum gives the
 * quadrant k and the fraction f, |f| <= 1/2, to about 2^-100; r = f pi/2 is kept as a
 * double-double. This is exact enough for every argument whose distance to a multiple of
 * pi/2 is above 2^-47 of it, that is all but a vanishing set of huge doubles, and for every
 * float. sin and cos of r are minimax polynomials (kernel-lib/math/mathcoef.py), corrected
 * to first order by the low part of r.
 *
 * Bounds (OpenCL C 3.0 §7.4, float and double): sin, cos, sincos, sinpi and cospi 4 ulp, tan
 * 5 ulp (4 in the test), tanpi 6 ulp; tests/api/math_exp.c checks them.
 *
 * sinpi, cospi and tanpi reduce x - n/2 exactly and multiply by pi as a double-double.
 *
 * float: each function is the double one rounded to float, which keeps the error below
 * 0.5 ulp plus a rounding of the double result.
 */
#include "kiln_math.h"
#include "trig_table.h"

/* Table rows by lane: a vector index is read lane by lane (a gather once vectorised). */
#define KILN_TRIG_LOAD_SCALAR(T, I)                                                                \
    KILN_INTERNAL T kiln_trig_row(I idx, int j)                                                    \
    {                                                                                              \
        return kiln_trig_table[idx * 3 + j];                                                       \
    }
#define KILN_TRIG_LOAD_VECTOR(T, I, N)                                                             \
    KILN_INTERNAL T kiln_trig_row(I idx, int j)                                                    \
    {                                                                                              \
        T v;                                                                                       \
        for (int i = 0; i < N; i++)                                                                \
            v[i] = kiln_trig_table[idx[i] * 3 + j];                                                \
        return v;                                                                                  \
    }

#define KILN_TRIG_D(T, I)                                                                          \
    KILN_INTERNAL T kiln_pow2i(I n)                                                                \
    {                                                                                              \
        return KILN_AS(T, (n + 1023) << 52);                                                       \
    }                                                                                              \
    /* sin(r + rl) for |r| <= pi/4 (a little more), |rl| tiny. */                                  \
    KILN_INTERNAL T kiln_sin_k(T r, T rl)                                                          \
    {                                                                                              \
        T z = r * r;                                                                               \
        T p = KILN_FMA(z, (T)-0x1.ab655bcf0ee50p-41, (T)0x1.6122164fda1aep-33);                    \
        p = KILN_FMA(z, p, (T)-0x1.ae6454ec2efd2p-26);                                             \
        p = KILN_FMA(z, p, (T)0x1.71de3a54ecba7p-19);                                              \
        p = KILN_FMA(z, p, (T)-0x1.a01a01a019e1bp-13);                                             \
        p = KILN_FMA(z, p, (T)0x1.1111111111111p-7);                                               \
        p = KILN_FMA(z, p, (T)-0x1.5555555555555p-3);                                              \
        return r + KILN_FMA(r * z, p, rl * KILN_FMA((T)-0.5, z, (T)1.0));                          \
    }                                                                                              \
    /* cos(r + rl): 1 - z/2 with its rounding error kept. */                                       \
    KILN_INTERNAL T kiln_cos_k(T r, T rl)                                                          \
    {                                                                                              \
        T z = r * r;                                                                               \
        T p = KILN_FMA(z, (T)0x1.abbd50b4e24c7p-45, (T)-0x1.93954098815e7p-37);                    \
        p = KILN_FMA(z, p, (T)0x1.1eed8e4c4840ep-29);                                              \
        p = KILN_FMA(z, p, (T)-0x1.27e4fb775129cp-22);                                             \
        p = KILN_FMA(z, p, (T)0x1.a01a01a019f37p-16);                                              \
        p = KILN_FMA(z, p, (T)-0x1.6c16c16c16c17p-10);                                             \
        p = KILN_FMA(z, p, (T)0x1.5555555555555p-5);                                               \
        T hz = 0.5 * z;                                                                            \
        T w = 1.0 - hz;                                                                            \
        return w + ((((T)1.0 - w) - hz) + KILN_FMA(z * z, p, -r * rl));                            \
    }                                                                                              \
    /* |x| = (k + f) pi/2: returns r = f pi/2 as r + *rl and the quadrant k mod 4. */              \
    KILN_INTERNAL T kiln_trig_reduce(T x, T *rl, T *quad)                                          \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        I be = KILN_AS(I, a) >> 52;                                                                \
        I e = (be > 0 ? be : (I)1) - 1075;                                                         \
        e = e < -100 ? (I)-100 : e;                                                                \
        e = e > 971 ? (I)971 : e;                                                                  \
        T m = a * kiln_pow2i(-e);                                                                  \
        I idx = e < 0 ? (I)0 : e;                                                                  \
        T sc = kiln_pow2i(e < 0 ? e : (I)0);                                                       \
        T c0 = kiln_trig_row(idx, 0) * sc;                                                         \
        T c1 = kiln_trig_row(idx, 1) * sc;                                                         \
        T c2 = kiln_trig_row(idx, 2) * sc;                                                         \
        T p0 = m * c0;                                                                             \
        T e0 = KILN_FMA(m, c0, -p0);                                                               \
        T p1 = m * c1;                                                                             \
        T e1 = KILN_FMA(m, c1, -p1);                                                               \
        T r0 = p0 - 4.0 * __builtin_elementwise_floor(p0 * 0.25);                                  \
        T s = r0 + e0;                                                                             \
        T bb = s - r0;                                                                             \
        T se = (r0 - (s - bb)) + (e0 - bb);                                                        \
        T s2 = s + p1;                                                                             \
        bb = s2 - s;                                                                               \
        se += ((s - (s2 - bb)) + (p1 - bb)) + (e1 + m * c2);                                       \
        T k = __builtin_elementwise_rint(s2);                                                      \
        T f0 = s2 - k;                                                                             \
        T fh = f0 + se;                                                                            \
        T fl = se - (fh - f0);                                                                     \
        *quad = k - 4.0 * __builtin_elementwise_floor(k * 0.25);                                   \
        T rh = fh * 0x1.921fb54442d18p+0;                                                          \
        *rl = KILN_FMA(fh, (T)0x1.921fb54442d18p+0, -rh) +                                         \
              KILN_FMA(fh, (T)0x1.1a62633145c07p-54, fl * 0x1.921fb54442d18p+0);                   \
        return rh;                                                                                 \
    }                                                                                              \
    /* Quadrant selection: q = 0, 1, 2, 3 gives a, b, -a, -b. */                                   \
    KILN_INTERNAL T kiln_quad(T q, T a, T b)                                                       \
    {                                                                                              \
        T v = (q == 1.0 | q == 3.0) ? b : a;                                                       \
        return q >= 2.0 ? -v : v;                                                                  \
    }                                                                                              \
    KILN_INTERNAL T kiln_sincos_d(T x, T *cosval, T *tanval)                                       \
    {                                                                                              \
        T rl, q;                                                                                   \
        T r = kiln_trig_reduce(x, &rl, &q);                                                        \
        T s = kiln_sin_k(r, rl), c = kiln_cos_k(r, rl);                                            \
        T a = __builtin_elementwise_abs(x);                                                        \
        I neg = KILN_AS(I, x) < 0;                                                                 \
        I tiny = a < 0x1p-26;                                                                      \
        I bad = (a == INFINITY) | (x != x);                                                        \
        T sv = kiln_quad(q, s, c);                                                                 \
        sv = neg ? -sv : sv;                                                                       \
        T cv = kiln_quad(q, c, -s);                                                                \
        T tv = (q == 1.0 | q == 3.0) ? -c / s : s / c;                                             \
        tv = neg ? -tv : tv;                                                                       \
        *cosval = bad ? (T)NAN : (tiny ? (T)1.0 : cv);                                             \
        *tanval = bad ? (T)NAN : (tiny ? x : tv);                                                  \
        return bad ? (T)NAN : (tiny ? x : sv);                                                     \
    }                                                                                              \
    /*                                                                                             \
     * sin, cos and tan of a float argument (held exactly in a double), for a float result:        \
     * |x| = M 2^E with M below 2^24, so two table columns give x 2/pi mod 4 to about 2^-80,       \
     * and the polynomials stop at r^11 and r^12 (truncation below 2^-36).                         \
     */                                                                                            \
    KILN_INTERNAL T kiln_sincos_fk(T x, T *cosval, T *tanval)                                      \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        I e = (KILN_AS(I, a) >> 52) - 1046;                                                        \
        e = e < -200 ? (I)-200 : e;                                                                \
        e = e > 104 ? (I)104 : e;                                                                  \
        T m = a * kiln_pow2i(-e);                                                                  \
        I idx = e < 0 ? (I)0 : e;                                                                  \
        T sc = kiln_pow2i(e < 0 ? e : (I)0);                                                       \
        T c0 = kiln_trig_row(idx, 0) * sc;                                                         \
        T c1 = kiln_trig_row(idx, 1) * sc;                                                         \
        T p0 = m * c0;                                                                             \
        T e0 = KILN_FMA(m, c0, -p0);                                                               \
        T r0 = p0 - 4.0 * __builtin_elementwise_floor(p0 * 0.25);                                  \
        T s = r0 + e0;                                                                             \
        T bb = s - r0;                                                                             \
        T se = ((r0 - (s - bb)) + (e0 - bb)) + m * c1;                                             \
        T k = __builtin_elementwise_rint(s);                                                       \
        T q = k - 4.0 * __builtin_elementwise_floor(k * 0.25);                                     \
        T r = ((s - k) + se) * 0x1.921fb54442d18p+0;                                               \
        T z = r * r;                                                                               \
        T ps = KILN_FMA(z, (T)0x1.6122164fda1aep-33, (T)-0x1.ae6454ec2efd2p-26);                   \
        ps = KILN_FMA(z, ps, (T)0x1.71de3a54ecba7p-19);                                            \
        ps = KILN_FMA(z, ps, (T)-0x1.a01a01a019e1bp-13);                                           \
        ps = KILN_FMA(z, ps, (T)0x1.1111111111111p-7);                                             \
        ps = KILN_FMA(z, ps, (T)-0x1.5555555555555p-3);                                            \
        T sn = KILN_FMA(r * z, ps, r);                                                             \
        T pc = KILN_FMA(z, (T)0x1.1eed8e4c4840ep-29, (T)-0x1.27e4fb775129cp-22);                   \
        pc = KILN_FMA(z, pc, (T)0x1.a01a01a019f37p-16);                                            \
        pc = KILN_FMA(z, pc, (T)-0x1.6c16c16c16c17p-10);                                           \
        pc = KILN_FMA(z, pc, (T)0x1.5555555555555p-5);                                             \
        T cs = KILN_FMA(z * z, pc, KILN_FMA((T)-0.5, z, (T)1.0));                                  \
        /*                                                                                         \
         * No special case needs a select (which the optimiser may turn into a branch that         \
         * stops vectorisation): tiny arguments come out right (r = x), and an infinity or         \
         * a NaN makes r a NaN.                                                                    \
         */                                                                                        \
        I neg = KILN_AS(I, x) < 0;                                                                 \
        T sv = kiln_quad(q, sn, cs);                                                               \
        T tv = (q == 1.0 | q == 3.0) ? -cs / sn : sn / cs;                                         \
        *cosval = kiln_quad(q, cs, -sn);                                                           \
        *tanval = neg ? -tv : tv;                                                                  \
        return neg ? -sv : sv;                                                                     \
    }                                                                                              \
    /* sin(pi x), cos(pi x), tan(pi x): x = n/2 + r exactly, |r| <= 1/4. */                        \
    KILN_INTERNAL T kiln_sincospi_d(T x, T *cosval, T *tanval)                                     \
    {                                                                                              \
        T a = __builtin_elementwise_abs(x);                                                        \
        /* From 2^53 on every double is an even integer. */                                        \
        T ac = a >= 0x1p53 ? (T)0.0 : a;                                                           \
        T n = __builtin_elementwise_rint(ac * 2.0);                                                \
        T r = KILN_FMA(n, (T)-0.5, ac);                                                            \
        T q = n - 4.0 * __builtin_elementwise_floor(n * 0.25);                                     \
        T th = r * 0x1.921fb54442d18p+1;                                                           \
        T tl = KILN_FMA(r, (T)0x1.921fb54442d18p+1, -th) + r * 0x1.1a62633145c07p-53;              \
        T s = kiln_sin_k(th, tl), c = kiln_cos_k(th, tl);                                          \
        I neg = KILN_AS(I, x) < 0;                                                                 \
        I bad = (a == INFINITY) | (x != x);                                                        \
        I zero = r == 0.0;                                                                         \
        I odd = q == 1.0 | q == 3.0;                                                               \
        T sz = neg ? (T)-0.0 : (T)0.0;                                                             \
        T sv = kiln_quad(q, s, c);                                                                 \
        sv = neg ? -sv : sv;                                                                       \
        sv = (zero & !odd) ? sz : sv;                                                              \
        T cv = kiln_quad(q, c, -s);                                                                \
        cv = (zero & odd) ? (T)0.0 : cv;                                                           \
        T tv = odd ? -c / s : s / c;                                                               \
        tv = zero                                                                                  \
                 ? (odd ? (q == 1.0 ? (T)INFINITY : (T)-INFINITY) : (q == 2.0 ? (T)-0.0 : (T)0.0)) \
                 : tv;                                                                             \
        /* tan(pi/4) is exactly 1 (the two polynomials may differ in the last bit). */             \
        T one = __builtin_elementwise_copysign((T)1.0, r);                                         \
        tv = __builtin_elementwise_abs(r) == 0.25 ? (odd ? -one : one) : tv;                       \
        tv = neg ? -tv : tv;                                                                       \
        *cosval = bad ? (T)NAN : cv;                                                               \
        *tanval = bad ? (T)NAN : tv;                                                               \
        return bad ? (T)NAN : sv;                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD sin(T x)                                                                       \
    {                                                                                              \
        T c, t;                                                                                    \
        return kiln_sincos_d(x, &c, &t);                                                           \
    }                                                                                              \
    T KILN_OVERLOAD cos(T x)                                                                       \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_sincos_d(x, &c, &t);                                                                  \
        return c;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD tan(T x)                                                                       \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_sincos_d(x, &c, &t);                                                                  \
        return t;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD sinpi(T x)                                                                     \
    {                                                                                              \
        T c, t;                                                                                    \
        return kiln_sincospi_d(x, &c, &t);                                                         \
    }                                                                                              \
    T KILN_OVERLOAD cospi(T x)                                                                     \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_sincospi_d(x, &c, &t);                                                                \
        return c;                                                                                  \
    }                                                                                              \
    T KILN_OVERLOAD tanpi(T x)                                                                     \
    {                                                                                              \
        T c, t;                                                                                    \
        kiln_sincospi_d(x, &c, &t);                                                                \
        return t;                                                                                  \
    }

/* float: computed in double (sin, cos and tan by the shorter float-argument path), rounded once. */
#define KILN_TRIG_F(T, I, D)                                                                       \
    T KILN_OVERLOAD sin(T x)                                                                       \
    {                                                                                              \
        D c, t;                                                                                    \
        return kiln_cvt_##T(kiln_sincos_fk(kiln_cvt_##D(x), &c, &t));                              \
    }                                                                                              \
    T KILN_OVERLOAD cos(T x)                                                                       \
    {                                                                                              \
        D c, t;                                                                                    \
        kiln_sincos_fk(kiln_cvt_##D(x), &c, &t);                                                   \
        return kiln_cvt_##T(c);                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD tan(T x)                                                                       \
    {                                                                                              \
        D c, t;                                                                                    \
        kiln_sincos_fk(kiln_cvt_##D(x), &c, &t);                                                   \
        return kiln_cvt_##T(t);                                                                    \
    }                                                                                              \
    T KILN_OVERLOAD sinpi(T x)                                                                     \
    {                                                                                              \
        return kiln_cvt_##T(sinpi(kiln_cvt_##D(x)));                                               \
    }                                                                                              \
    T KILN_OVERLOAD cospi(T x)                                                                     \
    {                                                                                              \
        return kiln_cvt_##T(cospi(kiln_cvt_##D(x)));                                               \
    }                                                                                              \
    T KILN_OVERLOAD tanpi(T x)                                                                     \
    {                                                                                              \
        return kiln_cvt_##T(tanpi(kiln_cvt_##D(x)));                                               \
    }                                                                                              \
    KILN_INTERNAL T kiln_sincos_f(T x, T *cosval)                                                  \
    {                                                                                              \
        D c, t;                                                                                    \
        D s = kiln_sincos_fk(kiln_cvt_##D(x), &c, &t);                                             \
        *cosval = kiln_cvt_##T(c);                                                                 \
        return kiln_cvt_##T(s);                                                                    \
    }

/* sincos for every address space a kernel may pass (generic, global, local, private). */
#define KILN_SINCOS_AS(T, AS, IMPL)                                                                \
    T KILN_OVERLOAD sincos(T x, AS T *cosval)                                                      \
    {                                                                                              \
        T c;                                                                                       \
        T s = IMPL(x, &c);                                                                         \
        *cosval = c;                                                                               \
        return s;                                                                                  \
    }
#define KILN_SINCOS_ALL(T, IMPL)                                                                   \
    KILN_SINCOS_AS(T, , IMPL)                                                                      \
    KILN_SINCOS_AS(T, __global, IMPL)                                                              \
    KILN_SINCOS_AS(T, __local, IMPL)                                                               \
    KILN_SINCOS_AS(T, __private, IMPL)

#define KILN_SINCOS_IMPL_D(T, I)                                                                   \
    KILN_INTERNAL T kiln_sincos_only(T x, T *cosval)                                               \
    {                                                                                              \
        T t;                                                                                       \
        return kiln_sincos_d(x, cosval, &t);                                                       \
    }                                                                                              \
    KILN_SINCOS_ALL(T, kiln_sincos_only)
#define KILN_SINCOS_IMPL_F(T, I, D) KILN_SINCOS_ALL(T, kiln_sincos_f)

KILN_TRIG_LOAD_SCALAR(double, long)
KILN_TRIG_LOAD_VECTOR(double2, long2, 2)
KILN_TRIG_LOAD_VECTOR(double3, long3, 3)
KILN_TRIG_LOAD_VECTOR(double4, long4, 4)
KILN_TRIG_LOAD_VECTOR(double8, long8, 8)
KILN_TRIG_LOAD_VECTOR(double16, long16, 16)
KILN_FOR_DOUBLE_LONG(KILN_TRIG_D)
KILN_FOR_DOUBLE_LONG(KILN_SINCOS_IMPL_D)
KILN_FOR_FLOAT_INT_DOUBLE(KILN_TRIG_F)
KILN_FOR_FLOAT_INT_DOUBLE(KILN_SINCOS_IMPL_F)
