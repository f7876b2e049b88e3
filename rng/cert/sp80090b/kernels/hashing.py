"""Context keys for the MultiMMC and LZ78Y predictors: up to 16 symbols of 8 bits packed
into 128 bits, found in an open-addressing table (a dict per prediction would be far
too slow in a compiled loop).
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit


@njit
def mix(lo, hi, tag):
    h = lo ^ ((hi << np.uint64(29)) | (hi >> np.uint64(35))) ^ (tag * np.uint64(0x9E3779B97F4A7C15))
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit
def ctx_slot(klo, khi, ktag, kid, lo, hi, tag):
    """The slot of (lo, hi, tag) in the open-addressing table: its own or the empty one."""
    mask = np.uint64(klo.size - 1)
    j = mix(lo, hi, np.uint64(tag)) & mask
    while kid[j] >= 0:
        if klo[j] == lo and khi[j] == hi and ktag[j] == tag:
            return j
        j = (j + np.uint64(1)) & mask
    return j


@njit
def pair_slot(pkey, key):
    mask = np.uint64(pkey.size - 1)
    j = mix(np.uint64(key), np.uint64(0), np.uint64(7)) & mask
    while pkey[j] >= 0:
        if pkey[j] == key:
            return j
        j = (j + np.uint64(1)) & mask
    return j


def table_size(items: int) -> int:
    """A power of two at least twice ``items`` (load factor <= 1/2)."""
    size = 1024
    while size < 2 * items:
        size <<= 1
    return size


@njit
def put_symbol(symbol, pos, lo, hi):
    """Symbol at context position ``pos`` (0 = most recent) into the 128-bit key."""
    if pos < 8:
        lo |= np.uint64(symbol) << np.uint64(8 * pos)
    else:
        hi |= np.uint64(symbol) << np.uint64(8 * (pos - 8))
    return lo, hi
