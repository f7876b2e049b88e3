"""The permutation tests' shuffles (90B 5.1), compiled: Fisher-Yates over the symbols
and the raw samples together, drawn from xoshiro256** seeded by the operating system.

numpy's own shuffle costs about 30 ns a sample (10^6 samples, up to 10,000 times per
assessment); this loop a few. xoshiro256** is what the reference shuffles with too
(Blackman and Vigna's generator: 256 bits of state, passes BigCrush; a statistical
test's shuffles need no more). Each index is drawn without bias: the top bits of a
64-bit output, as many as the bound needs, redrawn when above it.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit


@njit
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit
def next_u64(s):
    """One output of xoshiro256** (the state ``s``, 4 words, advanced in place)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit
def shuffle_together(data, raw, state):
    """The same uniform random permutation applied to ``data`` and ``raw`` in place."""
    n = data.size
    bits = 0
    while (1 << bits) <= n - 1:
        bits += 1  # the bit length of n - 1, kept as i falls
    for i in range(n - 1, 0, -1):
        if i < (1 << (bits - 1)):
            bits -= 1
        shift = np.uint64(64 - bits)
        while True:
            r = np.int64(next_u64(state) >> shift)
            if r <= i:
                break
        data[i], data[r] = data[r], data[i]
        raw[i], raw[r] = raw[r], raw[i]


@njit
def shuffle_one(data, state):
    """A uniform random permutation of ``data`` in place (when the symbols are the raw
    samples themselves: half the memory traffic of :func:`shuffle_together`)."""
    n = data.size
    bits = 0
    while (1 << bits) <= n - 1:
        bits += 1  # the bit length of n - 1, kept as i falls
    for i in range(n - 1, 0, -1):
        if i < (1 << (bits - 1)):
            bits -= 1
        shift = np.uint64(64 - bits)
        while True:
            r = np.int64(next_u64(state) >> shift)
            if r <= i:
                break
        data[i], data[r] = data[r], data[i]
