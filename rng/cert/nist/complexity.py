"""SP 800-22 2.10 linear complexity: Berlekamp-Massey on every block at once.

The sequence is cut into N = n // M blocks (M = 500 by default: 2,000 blocks at 10^6
bits). Berlekamp-Massey runs on all of them together, step t for every block in one
set of numpy operations on polynomials packed 64 coefficients to a word:

* ``window`` holds s_t, s_{t-1}, ..., s_0 (bit i = s_{t-i}), so the discrepancy
  d = s_t + sum c_i s_{t-i} is the parity of ``connection & window``;
* ``shifted`` is B(x) x^(t-m), the correction the algorithm adds when d = 1. Every step
  it moves up by one (x^(t+1-m)), and when the length changes it restarts from the old
  connection polynomial shifted once (m = t): so it is only ever shifted by one bit, the
  same shift for every block, and the per-block state is the polynomials, L and d.

The classes and probabilities follow the reference: T = (-1)^M (L - mu) + 2/9, mu =
M/2 + (9 + (-1)^(M+1))/36 - (M/3 + 2/9)/2^M, and its pi_0 = 0.01047 (the text has
0.010417; the reference's value is what its p-values are computed with).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rng.cert.nist.common import Bits, Value, igamc

Words = npt.NDArray[np.uint64]
#: the reference's class probabilities (pi_0 as it has it: 0.01047)
LINEAR_PI = (0.01047, 0.03125, 0.12500, 0.50000, 0.25000, 0.06250, 0.020833)
LINEAR_K = 6


def _shift_up(a: Words) -> None:
    """Multiply every row's polynomial by x (shift left by one bit across its words)."""
    carry = a >> np.uint64(63)
    a <<= np.uint64(1)
    a[:, 1:] |= carry[:, :-1]


def _parity(a: Words) -> npt.NDArray[np.bool_]:
    """The parity of each row's bits."""
    x = np.bitwise_xor.reduce(a, axis=1)
    if hasattr(np, "bitwise_count"):
        return (np.bitwise_count(x) & 1).astype(bool)
    for s in (32, 16, 8, 4, 2, 1):
        x ^= x >> np.uint64(s)
    return (x & np.uint64(1)).astype(bool)


def linear_complexities(blocks: Bits) -> npt.NDArray[np.int64]:
    """The linear complexity of each row of ``blocks`` (N x M bits)."""
    count, m = blocks.shape
    words = (m + 1) // 64 + 2  # polynomials of degree up to M, and the window of M bits
    connection = np.zeros((count, words), dtype=np.uint64)
    connection[:, 0] = 1
    shifted = np.zeros((count, words), dtype=np.uint64)
    shifted[:, 0] = 2  # B(x) x^(t - m) at t = 0: B = 1, m = -1
    window = np.zeros((count, words), dtype=np.uint64)
    length = np.zeros(count, dtype=np.int64)
    for t in range(m):
        _shift_up(window)
        window[:, 0] |= blocks[:, t]
        d = _parity(np.bitwise_and(connection, window))
        change = d & (length <= t // 2)
        old = connection[change]
        connection[d] ^= shifted[d]
        length[change] = t + 1 - length[change]
        shifted[change] = old
        _shift_up(shifted)
    return length


def linear_mean(m: int) -> float:
    sign = -1.0 if (m + 1) % 2 == 0 else 1.0
    return m / 2.0 + (9.0 + sign) / 36.0 - 1.0 / 2.0 ** m * (m / 3.0 + 2.0 / 9.0)


def linear_complexity(bits: Bits, m: int) -> Value:
    """2.10: the blocks' linear complexities in seven classes, chi-square with 6 df."""
    count = bits.size // m
    lengths = linear_complexities(bits[: count * m].reshape(count, m))
    sign = 1.0 if m % 2 == 0 else -1.0
    t = sign * (lengths - linear_mean(m)) + 2.0 / 9.0
    edges = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    nu = np.bincount(np.searchsorted(edges, t, side="left"), minlength=LINEAR_K + 1)
    expected = count * np.asarray(LINEAR_PI)
    chi2 = float(np.sum((nu - expected) ** 2 / expected))
    return Value(chi2, igamc(LINEAR_K / 2.0, chi2 / 2.0))
