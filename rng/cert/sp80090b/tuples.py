"""The t-tuple and longest repeated substring estimates (90B 6.3.5, 6.3.6).

Both need, for every length W, how often the most common W-tuple occurs and how many
pairs of positions hold equal W-tuples. Both come from one suffix array and its LCP
array: the suffixes starting with one W-tuple are a block of the suffix array where the
LCP stays >= W, so the lcp-interval tree gives every W at once (:func:`kernels.tuple_counts`).

The suffix array is built by prefix doubling on numpy sorts, starting from keys that pack
the first 64 bits' worth of symbols of each suffix; for data with no repeat longer than
that (any good source) the first sort already orders every suffix, and the LCP of two
neighbours is read from their keys' common leading bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rng.cert.sp80090b.entropic import Estimate, upper_bound

#: a tuple must occur at least this often to count for the t-tuple estimate (6.3.5 step 1)
TUPLE_CUTOFF = 35


@dataclass
class TupleStats:
    """Per tuple length W (index W; 0 unused): the most common W-tuple's count and the
    number of equal pairs of W-tuples; ``longest`` is the longest repeated substring."""

    maxcount: np.ndarray
    pairs: np.ndarray
    longest: int


def _initial_keys(s: np.ndarray, width: int) -> tuple[np.ndarray, int]:
    """Each suffix's first ``per`` symbols packed into a uint64 (``width`` bits each),
    symbols past the end as 0."""
    from rng.cert.sp80090b.compiled import kernel

    per = 64 // width
    return kernel("packed_keys")(np.ascontiguousarray(s, dtype=np.uint8), width, per), per


def suffix_array(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The suffix array of ``s`` (symbols 0..k-1), and the LCP array when the first
    sort already settled every suffix (else None: :func:`kernels.kasai` makes it)."""
    n = s.size
    width = max(1, (k - 1).bit_length())
    keys, per = _initial_keys(s, width)
    from rng.cert.sp80090b.compiled import kernel

    # int64 whatever the platform's intp (the AOT kernels take exactly their types)
    sa = kernel("radix_argsort")(keys) if n > 100_000 else np.argsort(keys).astype(np.int64)
    lcp, settled = kernel("neighbour_lcp")(np.ascontiguousarray(keys[sa]), sa, width, per, n)
    if settled:
        # neighbours differ within the packed symbols: the order and the LCP are final
        # (a suffix shorter than the packed symbols only matched padding zeros)
        return sa, lcp
    return _doubling(keys, per, n), None


def _doubling(keys: np.ndarray, per: int, n: int) -> np.ndarray:
    """Prefix doubling from ranks of the first ``per`` symbols (Manber and Myers)."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.concatenate(([0], np.cumsum(sk[1:] != sk[:-1])))
    h = per
    idx = np.arange(n, dtype=np.int64)
    while True:
        nxt = np.where(idx + h < n, rank[np.minimum(idx + h, n - 1)] + (n + 1),
                       n - (idx + h - n))  # past the end: shorter suffixes first
        key = rank * (2 * n + 2) + nxt
        order = np.argsort(key, kind="stable")
        sk = key[order]
        new = np.concatenate(([0], np.cumsum(sk[1:] != sk[:-1])))
        rank[order] = new
        if new[-1] == n - 1:
            return order
        h *= 2


def tuple_stats(s: np.ndarray, k: int) -> TupleStats:
    from rng.cert.sp80090b.compiled import kernel

    sa, lcp = suffix_array(s, k)
    if lcp is None:
        lcp = kernel("kasai")(s.astype(np.int64), np.ascontiguousarray(sa, dtype=np.int64))
    longest = int(lcp.max()) if lcp.size else 0
    maxc, pairs = kernel("tuple_counts")(np.ascontiguousarray(lcp, dtype=np.int64),
                                         max(longest, 1))
    return TupleStats(maxc, pairs, longest)


def t_tuple(st: TupleStats, n: int) -> tuple[Estimate, int]:
    """6.3.5: the most common t-tuple for every t whose most common tuple occurs at least
    35 times, as a per-symbol probability, bounded above at 99%. Also returns t."""
    t = 0
    while t + 1 < st.maxcount.size - 1 and st.maxcount[t + 1] >= TUPLE_CUTOFF \
            and t + 1 <= st.longest:
        t += 1
    if t == 0:
        return Estimate("t-Tuple", None, {}), 0
    p_max = 0.0
    for w in range(1, t + 1):
        p = (st.maxcount[w] / (n - w + 1)) ** (1.0 / w)
        p_max = max(p_max, p)
    p_u = upper_bound(p_max, n)
    return Estimate("t-Tuple", -math.log2(p_u), {"t": t, "p-hat_max": p_max, "p_u": p_u}), t


def lrs(st: TupleStats, n: int, t: int) -> Estimate:
    """6.3.6: the collision probability of W-tuples for W from u = t + 1 to the longest
    repeated substring v, as a per-symbol probability, bounded above at 99%."""
    u, v = t + 1, st.longest
    if u > v:
        return Estimate("LRS", None, {"u": u, "v": v})
    p_max = 0.0
    for w in range(u, v + 1):
        total = (n - w + 1) * (n - w) / 2.0
        p = (float(st.pairs[w]) / total) ** (1.0 / w)
        p_max = max(p_max, p)
    p_u = upper_bound(p_max, n)
    return Estimate("LRS", -math.log2(p_u), {"u": u, "v": v, "p-hat": p_max, "p_u": p_u})


def longest_repeat(s: np.ndarray, k: int) -> int:
    """The length of the longest substring that occurs twice (overlaps allowed)."""
    from rng.cert.sp80090b.compiled import kernel

    sa, lcp = suffix_array(s, k)
    if lcp is None:
        lcp = kernel("kasai")(s.astype(np.int64), np.ascontiguousarray(sa, dtype=np.int64))
    return int(lcp.max()) if lcp.size else 0
