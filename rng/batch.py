"""Batch scaling with numpy: millions of unbiased outcomes per second for labs and tests.

Same methods as :mod:`rng.scaling`, vectorized: each attempt takes one whole word (the
smallest of 8/16/32/64 bits that holds ``k = bit_length(n - 1)`` bits, read big-endian),
keeps its low ``k`` bits and rejects values >= n. Every word is uniform, so its low k
bits are uniform and the accepted values are exactly uniform on [0, n); words are never
reused. Integer arithmetic only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

ByteSource = Callable[[int], bytes]
IntArray = npt.NDArray[np.int64]


def word_dtype(k: int) -> np.dtype[np.unsignedinteger]:
    """The smallest big-endian unsigned word holding k bits."""
    for bits, name in ((8, "u1"), (16, ">u2"), (32, ">u4"), (64, ">u8")):
        if k <= bits:
            return np.dtype(name)
    raise ValueError(f"{k} bits is more than a 64-bit word")


def accept(words: npt.NDArray[np.unsignedinteger], n: int) -> IntArray:
    """The accepted outcomes of one batch of words: low k bits, values < n kept."""
    k = (n - 1).bit_length()
    mask = np.array((1 << k) - 1, dtype=words.dtype.newbyteorder("="))
    vals = words.astype(words.dtype.newbyteorder("="), copy=False) & mask
    return vals[vals < n].astype(np.int64)


def randbelow_batch(read: ByteSource, n: int, count: int) -> IntArray:
    """``count`` independent uniform integers in [0, n) (n <= 2^63)."""
    if not 1 <= n <= 1 << 63:
        raise ValueError(f"batch randbelow needs 1 <= n <= 2^63, got {n}")
    if n == 1:
        return np.zeros(count, dtype=np.int64)
    k = (n - 1).bit_length()
    dt = word_dtype(k)
    p_accept_num, p_accept_den = n, 1 << k
    out: list[IntArray] = []
    have = 0
    while have < count:
        need = count - have
        words = need * p_accept_den // p_accept_num + 64 + need // 64
        got = accept(np.frombuffer(read(words * dt.itemsize), dtype=dt), n)
        out.append(got[:need])
        have += len(out[-1])
    return np.concatenate(out) if len(out) != 1 else out[0]


def weighted_batch(read: ByteSource, weights: Sequence[int], count: int) -> IntArray:
    """``count`` indexes i, each with probability weights[i] / sum(weights), exactly."""
    # The total is checked in Python integers first: an int64 cumsum would wrap silently
    # and skew the draws.
    total = sum(int(x) for x in weights)
    if any(int(x) < 0 for x in weights) or total <= 0:
        raise ValueError("weights must be non-negative with a positive total")
    if total >= 1 << 63:
        raise ValueError(f"weights total {total} is not below 2^63")
    cum = np.cumsum(np.asarray(weights, dtype=np.int64))
    r = randbelow_batch(read, int(cum[-1]), count)
    return np.searchsorted(cum, r, side="right").astype(np.int64)


def shuffle_batch(read: ByteSource, base: Sequence[int] | IntArray, count: int) -> IntArray:
    """``count`` independent Fisher–Yates shuffles of ``base``, one per row."""
    arr = np.tile(np.asarray(base, dtype=np.int64), (count, 1))
    rows = np.arange(count)
    for i in range(arr.shape[1] - 1, 0, -1):
        j = randbelow_batch(read, i + 1, count)
        tmp = arr[rows, j]
        arr[rows, j] = arr[:, i]
        arr[:, i] = tmp
    return arr
