#!/usr/bin/env python3
"""Minimax coefficients of erf and erfc for kernel-lib/math/erf.cl.

Uses the Remez exchange of mathcoef.py (python3-mpmath). Prints the two tables that
erf.cl holds, as C macros:
  KILN_ERF_SMALL(X): erf(x) / x = sum c_k z^k, z = x^2 <= 1 (relative error);
  KILN_ERFC_ROWS(X): G(x) = erfc(x) e^(x^2) on the intervals of ERFC_CUTS, each a
    polynomial in x - centre of degree 14, and beyond the last cut G(x) x as a
    polynomial in s = 1/x^2 of degree 10; row k is X(k, one coefficient per interval).
Run it with no argument; it prints each fit's maximum relative error to stderr.
"""
import sys

import mpmath as mp

from mathcoef import powers, remez

mp.mp.dps = 60

ERFC_CUTS = ["0.5", "1", "1.5", "2.25", "3.25", "4.5", "6", "28"]
DEG = 14
TAIL_DEG = 10


def g_erfc(x):
    return mp.erfc(x) * mp.exp(x * x)


def fit(g, a, b, deg):
    c, e = remez(g, lambda t: 1 / abs(g(t)), powers(range(deg + 1)), a, b, grid=300)
    return [float(ci) for ci in c], e


def main():
    small = lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else 2 / mp.sqrt(mp.pi)
    cs, e = fit(small, mp.mpf(0), mp.mpf(1), 12)
    print("erf small: 2^%.1f" % float(mp.log(e, 2)), file=sys.stderr)
    print("#define KILN_ERF_SMALL(X) \\")
    print(" \\\n".join("    X(%s)" % c.hex() for c in reversed(cs)))
    rows = [[] for _ in range(DEG + 1)]
    centres = []
    cuts = [mp.mpf(c) for c in ERFC_CUTS]
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        if i < len(cuts) - 2:
            m = (a + b) / 2
            cs, e = fit(lambda u: g_erfc(u + m), a - m, b - m, DEG)
            centres.append(float(m))
        else:
            h = lambda s: g_erfc(1 / mp.sqrt(s)) / mp.sqrt(s)
            cs, e = fit(h, 1 / (b * b), 1 / (a * a), TAIL_DEG)
            cs += [0.0] * (DEG - TAIL_DEG)
        print("erfc [%s, %s]: 2^%.1f" % (a, b, float(mp.log(e, 2))), file=sys.stderr)
        for k in range(DEG + 1):
            rows[k].append(cs[k])
    for i, c in enumerate(centres):
        print("#define KILN_ERFC_CENTRE%d %s" % (i, c.hex()))
    print("#define KILN_ERFC_ROWS(X) \\")
    print(" \\\n".join("    X(%d, %s)" % (k, ", ".join(c.hex() for c in rows[k]))
                      for k in reversed(range(DEG + 1))))


if __name__ == "__main__":
    main()
