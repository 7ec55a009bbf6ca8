#!/usr/bin/env python3
"""Minimax polynomial coefficients for the math builtins (kernel-lib/math/*.cl).

A discrete Remez exchange over a dense grid, in 60-digit arithmetic (python3-mpmath):
it fits g(t) ~ sum c_k b_k(t) minimising the maximum of w(t) |g(t) - sum c_k b_k(t)|.
Run `mathcoef.py NAME` to print the fit the library uses for NAME (see FITS below);
coefficients are printed as C hexadecimal literals with their maximum weighted error.
"""
import sys

import mpmath as mp

mp.mp.dps = 60


def remez(g, w, basis, a, b, iters=12, grid=801):
    n = len(basis)
    ref = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / n) for i in range(n + 1)]
    ts = [a + (b - a) * mp.mpf(i) / grid for i in range(grid + 1)]
    ts += [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / grid) for i in range(grid + 1)]
    ts = sorted(set(ts))
    gv = [g(t) for t in ts]
    wv = [w(t) for t in ts]
    bv = [[bf(t) for bf in basis] for t in ts]
    best = None
    for _ in range(iters):
        A = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for i, x in enumerate(ref):
            for k, bf in enumerate(basis):
                A[i, k] = bf(x)
            A[i, n] = (-1) ** i / w(x)
            rhs[i] = g(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[k] for k in range(n)]
        err = [wv[j] * (gv[j] - mp.fsum(c[k] * bv[j][k] for k in range(n))) for j in range(len(ts))]
        ext = []
        for j in range(len(ts)):
            e = abs(err[j])
            if (j == 0 or e >= abs(err[j - 1])) and (j + 1 == len(ts) or e >= abs(err[j + 1])):
                ext.append(j)
        alt = []
        for j in ext:
            if alt and mp.sign(err[alt[-1]]) == mp.sign(err[j]):
                if abs(err[j]) > abs(err[alt[-1]]):
                    alt[-1] = j
            else:
                alt.append(j)
        while len(alt) > n + 1:
            if abs(err[alt[0]]) < abs(err[alt[-1]]):
                alt.pop(0)
            else:
                alt.pop()
        best = (c, max(abs(e) for e in err))
        if len(alt) < n + 1:
            break
        ref = [ts[j] for j in alt]
    return best


def powers(ks):
    return [(lambda k: (lambda t: t ** k))(k) for k in ks]


H = mp.log(2) / 2 * mp.mpf("1.002")           # |r| after the exponential reduction
SMAX = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1) * mp.mpf("1.0001")  # |s| in the logarithms


def log_r(z):
    if z == 0:
        return mp.mpf(0)
    s = mp.sqrt(z)
    return mp.log((1 + s) / (1 - s)) / s - 2


def rel(f):
    return lambda t: 1 / abs(f(t)) if f(t) != 0 else 0


# name: (g, w, basis, a, b). e^r - 1 = r + r^2/2 + sum c_k r^k; log: R(z), z = s^2.
FITS = {
    "expm1_f": (lambda r: mp.expm1(r) - r - r * r / 2, rel(mp.expm1), powers(range(3, 8)), -H, H),
    "expm1_d": (lambda r: mp.expm1(r) - r - r * r / 2, rel(mp.expm1), powers(range(3, 13)), -H, H),
    "log_f": (log_r, lambda z: 1, powers(range(1, 4)), mp.mpf(0), SMAX ** 2),
    "log_d": (log_r, lambda z: 1, powers(range(1, 9)), mp.mpf(0), SMAX ** 2),
}


def main():
    names = sys.argv[1:] or sorted(FITS)
    for name in names:
        g, w, basis, a, b = FITS[name]
        c, e = remez(g, w, basis, a, b)
        print("%s: max weighted error %.3g (2^%.1f)" % (name, float(e), float(mp.log(e, 2))))
        for ci in c:
            print("    %s" % float(ci).hex())


if __name__ == "__main__":
    main()
