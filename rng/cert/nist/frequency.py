"""SP 800-22 2.1 frequency, 2.2 block frequency, 2.3 runs, 2.4 longest run of ones and
2.13 cumulative sums, on one sequence.

Where the reference (sts 2.1.2) and the text differ, the reference wins: the runs test's
frequency pre-test fails only when |pi - 1/2| is strictly above 2/sqrt(n) (p-value 0,
as the text says for a failed pre-test); the longest-run class probabilities for blocks of
8 and 128 bits are the reference's exact values (0.21484375, ... and 0.1174035788, ...),
not the text's four-decimal table; the cumulative sums' summation bounds use C's integer
division, truncated toward zero.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from rng.cert.nist.common import Bits, Value, erfc, igamc

#: 2.4 as the reference chooses it from n: (minimum n, block M, class values V, pi_i)
LONGEST_RUN = (
    (750_000, 10_000, (10, 11, 12, 13, 14, 15, 16),
     (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
    (6272, 128, (4, 5, 6, 7, 8, 9),
     (0.1174035788, 0.242955959, 0.249363483, 0.17517706, 0.102701071, 0.112398847)),
    (128, 8, (1, 2, 3, 4), (0.21484375, 0.3671875, 0.23046875, 0.1875)),
)


def frequency(bits: Bits) -> Value:
    """2.1: |S_n| / sqrt(n), S_n the sum of the +-1 steps; P = erfc(s_obs / sqrt 2)."""
    n = bits.size
    s = 2 * int(np.count_nonzero(bits)) - n
    s_obs = abs(s) / math.sqrt(n)
    return Value(s_obs, erfc(s_obs / math.sqrt(2.0)))


def block_frequency(bits: Bits, m: int) -> Value:
    """2.2: chi^2 = 4 M sum (pi_i - 1/2)^2 over N = n // M blocks; P = Q(N/2, chi^2/2)."""
    blocks = bits.size // m
    ones = bits[: blocks * m].reshape(blocks, m).sum(axis=1, dtype=np.int64)
    chi2 = 4.0 * m * float(np.sum((ones / m - 0.5) ** 2))
    return Value(chi2, igamc(blocks / 2.0, chi2 / 2.0))


def runs(bits: Bits) -> Value:
    """2.3: the number of runs V_n against 2 n pi (1 - pi)."""
    n = bits.size
    pi = int(np.count_nonzero(bits)) / n
    if abs(pi - 0.5) > 2.0 / math.sqrt(n):
        return Value(math.nan, 0.0)  # the frequency pre-test failed: P = 0 (2.3.4 (2))
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    arg = abs(v - 2.0 * n * pi * (1 - pi)) / (2.0 * pi * (1 - pi) * math.sqrt(2 * n))
    return Value(float(v), erfc(arg))



def longest_run_plan(n: int) -> tuple[int, tuple[int, ...], tuple[float, ...]]:
    """The block length, class values and probabilities the reference uses for n bits."""
    for least, m, values, probs in LONGEST_RUN:
        if n >= least:
            return m, values, probs
    raise ValueError(f"the longest-run test needs at least 128 bits, got {n}")


def longest_run(bits: Bits) -> Value:
    """2.4: the longest run of ones in each block, counted in classes, chi-square."""
    m, values, probs = longest_run_plan(bits.size)
    blocks = bits.size // m
    rows = bits[: blocks * m].reshape(blocks, m)
    ones = np.cumsum(rows, axis=1, dtype=np.int32)
    # ones up to the last zero at or before each position: a run is the difference
    at_zero = np.maximum.accumulate(np.where(rows == 0, ones, 0), axis=1)
    longest = (ones - at_zero).max(axis=1)
    cls = np.clip(longest, values[0], values[-1]) - values[0]
    nu = np.bincount(cls, minlength=len(values))
    expected = blocks * np.asarray(probs)
    chi2 = float(np.sum((nu - expected) ** 2 / expected))
    return Value(chi2, igamc((len(values) - 1) / 2.0, chi2 / 2.0))


def cumulative_sums(bits: Bits) -> tuple[Value, Value]:
    """2.13 forward and reverse: the largest excursion z of the +-1 walk from 0."""
    n = bits.size
    walk = np.cumsum(bits.astype(np.int32) * 2 - 1, dtype=np.int64)
    total = int(walk[-1])
    sup = max(0, int(walk.max()))
    inf = min(0, int(walk.min()))
    z = max(sup, -inf)
    zrev = max(sup - total, total - inf)
    return Value(float(z), cusum_p(n, z)), Value(float(zrev), cusum_p(n, zrev))


def _tdiv(a: int, b: int) -> int:
    """C's integer division (truncated toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def cusum_p(n: int, z: int) -> float:
    """2.13.4's P-value for a largest excursion z of a walk of n steps."""
    if z <= 0:
        return 1.0
    sq = math.sqrt(n)
    nz = _tdiv(n, z)
    k1 = np.arange(_tdiv(-nz + 1, 4), _tdiv(nz - 1, 4) + 1)
    k2 = np.arange(_tdiv(-nz - 3, 4), _tdiv(nz - 1, 4) + 1)
    nd = special.ndtr
    s1 = float(np.sum(nd((4 * k1 + 1) * z / sq) - nd((4 * k1 - 1) * z / sq)))
    s2 = float(np.sum(nd((4 * k2 + 3) * z / sq) - nd((4 * k2 + 1) * z / sq)))
    return 1.0 - s1 + s2
