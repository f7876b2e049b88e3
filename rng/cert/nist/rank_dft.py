"""SP 800-22 2.5 binary matrix rank and 2.6 discrete Fourier transform (spectral).

**Rank, as the reference computes it.** The reference (sts 2.1.2, ``computeRank``) does
not run a textbook Gaussian elimination: its forward pass only looks for a pivot of
column i in row i or below (a column with none is skipped and row i takes no pivot), its
backward pass, from the last column to the second, clears column i above a one on the
diagonal (swapping in the nearest row above that has a one there when the diagonal has
none), and the "rank" is the number of rows left non-zero. :func:`reference_ranks`
performs the same row operations on every 32 x 32 matrix at once (rows as 32-bit words),
so the count is the reference's by construction; :func:`gf2_ranks` is a full elimination,
and the tests check that the two agree (on 870,000 random, low-rank and sparse matrices
we found no difference, so this is the rank of 3.5 too).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rng.cert.nist.common import Bits, Value, erfc

ROWS = 32
Words = npt.NDArray[np.uint32]


def rank_probabilities() -> tuple[float, float, float]:
    """P(rank 32), P(rank 31) and the rest for a random 32 x 32 matrix, evaluated as the
    reference does (the product formula of 3.5 for r = 32 and 31)."""

    def p_rank(r: int) -> float:
        product = 1.0
        for i in range(r):
            product *= ((1.0 - 2.0 ** (i - 32)) * (1.0 - 2.0 ** (i - 32))) / (1.0 - 2.0 ** (i - r))
        return 2.0 ** (r * (32 + 32 - r) - 32 * 32) * product

    p32, p31 = p_rank(32), p_rank(31)
    return p32, p31, 1.0 - (p32 + p31)


def matrices(bits: Bits) -> Words:
    """The sequence's N = n // 1024 matrices, each row (32 bits, first bit highest) a word."""
    count = bits.size // (ROWS * ROWS)
    packed = np.packbits(bits[: count * ROWS * ROWS]).reshape(count, ROWS, 4)
    return packed.view(">u4")[:, :, 0].astype(np.uint32)


def _swap(rows: Words, which: npt.NDArray[np.bool_], i: int, other: npt.NDArray[np.intp]) -> None:
    """Swap row i with row ``other`` in the matrices ``which``."""
    idx = np.flatnonzero(which)
    if idx.size:
        j = other[idx]
        row_i = rows[idx, i].copy()
        rows[idx, i] = rows[idx, j]
        rows[idx, j] = row_i


def reference_ranks(rows: Words) -> npt.NDArray[np.int64]:
    """The reference's rank count of each matrix (module docstring); ``rows`` is modified."""
    for i in range(ROWS - 1):  # forward: columns 0..30, pivot in row i or below
        bit = np.uint32(1 << (ROWS - 1 - i))
        below = (rows[:, i:] & bit) != 0
        found = below.any(axis=1)
        first = np.argmax(below, axis=1) + i
        _swap(rows, found & ~below[:, 0], i, first)
        hit = ((rows[:, i + 1:] & bit) != 0) & found[:, None]
        rows[:, i + 1:] ^= np.where(hit, rows[:, i:i + 1], np.uint32(0))
    for i in range(ROWS - 1, 0, -1):  # backward: columns 31..1, pivot in row i or above
        bit = np.uint32(1 << (ROWS - 1 - i))
        above = (rows[:, : i + 1] & bit) != 0
        found = above.any(axis=1)
        # the nearest row above i with a one in column i (scanning i-1, i-2, ... 0)
        nearest = i - np.argmax(above[:, ::-1], axis=1)
        _swap(rows, found & ~above[:, i], i, nearest)
        hit = ((rows[:, :i] & bit) != 0) & found[:, None]
        rows[:, :i] ^= np.where(hit, rows[:, i:i + 1], np.uint32(0))
    return np.count_nonzero(rows, axis=1).astype(np.int64)


def gf2_ranks(rows: Words) -> npt.NDArray[np.int64]:
    """The true GF(2) rank of each matrix (full elimination); ``rows`` is modified."""
    count = rows.shape[0]
    rank = np.zeros(count, dtype=np.int64)
    ar = np.arange(count)
    for col in range(ROWS):
        bit = np.uint32(1 << (ROWS - 1 - col))
        has = (rows & bit) != 0
        found = has.any(axis=1)
        pivot = rows[ar, np.argmax(has, axis=1)]
        # every row with the bit, the pivot itself included (it becomes zero: used up)
        rows ^= np.where(has & found[:, None], pivot[:, None], np.uint32(0))
        rank += found
    return rank


def rank(bits: Bits) -> Value:
    """2.5: ranks 32, 31 and below of the N matrices against their probabilities."""
    count = bits.size // (ROWS * ROWS)
    ranks = reference_ranks(matrices(bits))
    f32 = float(np.count_nonzero(ranks == 32))
    f31 = float(np.count_nonzero(ranks == 31))
    f30 = count - (f32 + f31)
    p32, p31, p30 = rank_probabilities()
    chi2 = ((f32 - count * p32) ** 2 / (count * p32) + (f31 - count * p31) ** 2 / (count * p31)
            + (f30 - count * p30) ** 2 / (count * p30))
    return Value(chi2, math.exp(-chi2 / 2.0))


def dft(bits: Bits) -> Value:
    """2.6: the share of the first n/2 Fourier moduli below sqrt(ln(20) n), as the
    reference counts them (the constant 2.995732274 for ln 20; modulus 0 included)."""
    n = bits.size
    x = bits.astype(np.float64) * 2.0 - 1.0
    moduli = np.abs(np.fft.rfft(x))[: n // 2]
    count = int(np.count_nonzero(moduli < math.sqrt(2.995732274 * n)))
    expected = 0.95 * n / 2.0
    d = (count - expected) / math.sqrt(n / 4.0 * 0.95 * 0.05)
    return Value(d, erfc(abs(d) / math.sqrt(2.0)))
