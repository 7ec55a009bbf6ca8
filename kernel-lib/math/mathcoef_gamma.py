#!/usr/bin/env python3
"""Minimax coefficients of lgamma near its zeros for kernel-lib/math/gamma.cl.

Uses the Remez exchange of mathcoef.py (python3-mpmath). lgamma(w) = (w-1)(w-2) R(w),
R analytic on w > 0; R is fitted (relative error) as a polynomial in w - centre on
[0.75, 1.5] (degree 20) and [1.5, 2.5] (degree 18, padded with zeros). Prints
KILN_LGAMMA_ROWS(X): row k is X(k, coefficient for the first interval, for the second),
highest degree first, and each fit's maximum relative error to stderr.
"""
import sys

import mpmath as mp

from mathcoef import powers, remez

mp.mp.dps = 60

PIECES = [("0.75", "1.5", 20), ("1.5", "2.5", 18)]
DEG = 20


def r_of(w):
    w = w + mp.mpf("1e-40")  # R is analytic; step off the removable points 1 and 2
    return mp.loggamma(w) / ((w - 1) * (w - 2))


def main():
    cols = []
    for a, b, deg in PIECES:
        a, b = mp.mpf(a), mp.mpf(b)
        m = (a + b) / 2
        g = lambda u: r_of(u + m)
        c, e = remez(g, lambda u: 1 / abs(g(u)), powers(range(deg + 1)), a - m, b - m, grid=200)
        print("lgamma [%s, %s]: 2^%.1f" % (a, b, float(mp.log(e, 2))), file=sys.stderr)
        cols.append([float(ci) for ci in c] + [0.0] * (DEG - deg))
        print("#define KILN_LGAMMA_CENTRE%d %s" % (len(cols) - 1, float(m).hex()))
    print("#define KILN_LGAMMA_ROWS(X) \\")
    print(" \\\n".join("    X(%d, %s, %s)" % (k, cols[0][k].hex(), cols[1][k].hex())
                      for k in reversed(range(DEG + 1))))


if __name__ == "__main__":
    main()
