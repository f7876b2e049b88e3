"""The estimators' compiled walks: the collision estimate's walk (90B 6.3.2) and the
compression estimate's sum G(z) (6.3.4), each a loop numpy cannot vectorise.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit


@njit
def collision_walk(s):
    i, n, two, three = 0, s.size, 0, 0
    while i + 1 < n:
        if s[i] == s[i + 1]:
            two += 1
            i += 2
        elif i + 2 < n:
            three += 1
            i += 3
        else:
            break
    return two, three


@njit
def compression_g(z, nb, d):
    """v G(z) of 90B 6.3.4 (v = nb - d), summed by u: z^2 (1-z)^(u-1) log2(u) for every
    t in [d+1, nb] with t > u, plus z (1-z)^(t-1) log2(t) for t in [d+1, nb]. The powers
    are carried by multiplication and renewed from exp every 256 terms (no drift); the
    sum stops where they underflow."""
    lq = np.log1p(-z) if z < 1.0 else -np.inf
    first = 0.0
    second = 0.0
    power = 1.0
    inv_ln2 = 1.0 / np.log(2.0)
    step = np.exp(lq) if z < 1.0 else 0.0
    for u in range(1, nb + 1):
        if (u - 1) & 255 == 0 and z < 1.0:
            power = np.exp((u - 1) * lq)
        if power < 1e-300:
            break
        lg = np.log(float(u)) * inv_ln2
        if u < nb:
            later = nb - (u if u > d else d)
            first += lg * later * power
        if u >= d + 1:
            second += lg * power
        power *= step
    return z * z * first + z * second


@njit
def proportions(s, k):
    """Each symbol's proportion, summed 1/n at a time as the reference sums it (so the
    chi-square and LRS figures agree with it to the last digits, not only to rounding)."""
    p = np.zeros(k, dtype=np.float64)
    inv = 1.0 / s.size
    for i in range(s.size):
        p[s[i]] += inv
    return p
