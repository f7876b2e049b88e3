"""SP 800-22 2.9 Maurer's universal test, 2.11 serial and 2.12 approximate entropy.

Serial and approximate entropy count the overlapping m-bit patterns of the *circular*
sequence (the first m - 1 bits appended), as the text and the reference do. One table
of the circular L-bit pattern counts, L the longest pattern needed (serial m = 16,
approximate entropy m + 1 = 11 by default), gives every shorter table by summing over
the trailing bits: each circular position starts exactly one pattern of every length.

Maurer's test follows the reference: L from n by its thresholds (L = 7 at 10^6 bits,
L = 6 from 387,840 bits; below that the test does not apply), Q = 10 * 2^L initial
blocks, K = n // L - Q test blocks, the expected values and variances of its table and
Coron-Naccache's c(L, K). The distance back to a block's previous occurrence comes from
one stable sort of the block values, not from a loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from rng.cert.nist.common import Bits, Value, erfc, igamc
from rng.cert.sp80022 import pattern_counts

#: (minimum n, L) of the reference; L = 6 is the smallest it accepts
UNIVERSAL_L = ((1_059_061_760, 16), (496_435_200, 15), (231_669_760, 14), (107_560_960, 13),
               (49_643_520, 12), (22_753_280, 11), (10_342_400, 10), (4_654_080, 9),
               (2_068_480, 8), (904_960, 7), (387_840, 6))
UNIVERSAL_EXPECTED = {6: 5.2177052, 7: 6.1962507, 8: 7.1836656, 9: 8.1764248, 10: 9.1723243,
                      11: 10.170032, 12: 11.168765, 13: 12.168070, 14: 13.167693,
                      15: 14.167488, 16: 15.167379}
UNIVERSAL_VARIANCE = {6: 2.954, 7: 3.125, 8: 3.238, 9: 3.311, 10: 3.356, 11: 3.384, 12: 3.401,
                      13: 3.410, 14: 3.416, 15: 3.419, 16: 3.421}
Counts = Callable[[int], npt.NDArray[np.int64]]


def universal_l(n: int) -> int | None:
    """The reference's block length L for n bits (None: too short, the test does not apply)."""
    for least, length in UNIVERSAL_L:
        if n >= least:
            return length
    return None


def universal(bits: Bits) -> Value:
    """2.9: the mean log2 distance between repeated L-bit blocks, against its expectation."""
    n = bits.size
    length = universal_l(n)
    if length is None:
        raise ValueError(f"Maurer's universal test needs at least 387,840 bits, got {n}")
    q = 10 * (1 << length)
    k = n // length - q
    total = q + k
    weights = 1 << np.arange(length - 1, -1, -1, dtype=np.int64)
    values = bits[: total * length].reshape(total, length).astype(np.int64) @ weights
    order = np.argsort(values, kind="stable")  # block numbers 1..total, grouped by value
    number = order + 1
    same = np.zeros(total, dtype=bool)
    same[1:] = values[order[1:]] == values[order[:-1]]
    previous = np.where(same, np.concatenate([[0], number[:-1]]), 0)
    tested = number > q
    dist = (number - previous)[tested].astype(np.float64)
    fn = float(np.sum(np.log(dist) / math.log(2))) / k
    c = 0.7 - 0.8 / length + (4 + 32 / length) * k ** (-3 / length) / 15
    sigma = c * math.sqrt(UNIVERSAL_VARIANCE[length] / k)
    arg = abs(fn - UNIVERSAL_EXPECTED[length]) / (math.sqrt(2) * sigma)
    return Value(fn, erfc(arg))


def circular_counts(bits: Bits, length: int) -> Counts:
    """A function m -> the circular m-bit pattern counts, for every m <= ``length``."""
    wrapped = np.concatenate([bits, bits[: length - 1]])
    table = pattern_counts(wrapped, length)

    def counts(m: int) -> npt.NDArray[np.int64]:
        if m <= 0:
            return np.zeros(1, dtype=np.int64)
        return table.reshape(1 << m, -1).sum(axis=1)

    return counts


def _psi2(n: int, m: int, counts: Counts) -> float:
    if m <= 0:
        return 0.0
    nu = counts(m).astype(np.float64)
    return float(np.sum(nu ** 2) * 2.0 ** m / n - n)


def serial(n: int, m: int, counts: Counts) -> tuple[Value, Value]:
    """2.11: del psi^2_m and del^2 psi^2_m with their chi-square P-values."""
    p0, p1, p2 = (_psi2(n, m - j, counts) for j in (0, 1, 2))
    d1 = p0 - p1
    d2 = p0 - 2.0 * p1 + p2
    return (Value(d1, igamc(2.0 ** (m - 1) / 2, d1 / 2.0)),
            Value(d2, igamc(2.0 ** (m - 2) / 2, d2 / 2.0)))


def approximate_entropy(n: int, m: int, counts: Counts) -> Value:
    """2.12: ApEn(m) = phi(m) - phi(m+1); chi^2 = 2 n (ln 2 - ApEn)."""

    def phi(mm: int) -> float:
        if mm == 0:
            return 0.0
        nu = counts(mm)
        nu = nu[nu > 0].astype(np.float64)
        return float(np.sum(nu * np.log(nu / n))) / n

    apen = phi(m) - phi(m + 1)
    chi2 = 2.0 * n * (math.log(2) - apen)
    return Value(chi2, igamc(2.0 ** (m - 1), chi2 / 2.0))
