"""Repeated-subsequence (overlaps) test: does a stretch of outcomes ever come back?

A generator re-seeded with the same seed (a constant seed, a seed from a clock with
coarse resolution, a state restored after a power cycle) replays whole stretches of
outcomes. No frequency or correlation test sees that, so the battery looks for it
directly (§ 810a.5(c)(4) "overlaps test", (c)(11) "patterns of occurrences should not be
recurrent"; the idea is Marsaglia's overlapping/birthday tests, here with an exact null).

Method: every window of w consecutive outcomes gets a 64-bit polynomial hash. The
windows starting at every s-th position are *sampled* and kept (sorted) in memory; every
window j of the sequence is looked up among the sampled windows at positions i <= j - w
(disjoint windows, hence independent under the null). If the outcomes are i.i.d. with
probabilities p_c, two disjoint windows are equal with probability q^w, q = sum p_c^2,
so the number of matches is approximately Poisson with mean
lambda = (q^w + 2^-64) * (number of compared pairs), the second term covering hash
collisions (Chen-Stein; the sampling stride s >= w keeps matches from clumping).
w is chosen so that lambda is about 0.001 at the planned length; a replay of any stretch
longer than w + s outcomes is then found with p-value ~ 0. Memory is N/s hashes.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rng.cert.results import TestResult
from rng.cert.stats import poisson_at_least

_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd multiplier of the polynomial hash
STRIDE = 64
TARGET_LAMBDA = 1e-3
MAX_W = 512
_MAX_BITMAP_BITS = 24


def window_length(q: float, planned_n: int, stride: int = STRIDE) -> int:
    """Smallest w with q^w * N^2 / (2 stride) <= TARGET_LAMBDA (at least 8, at most 512)."""
    pairs = max(planned_n, 1000) ** 2 / (2 * stride)
    if q >= 1.0:
        return MAX_W
    w = math.ceil(math.log(TARGET_LAMBDA / pairs) / math.log(q))
    return int(min(MAX_W, max(8, w)))


class RepeatTest:
    """Streams outcomes; counts windows that repeat an earlier sampled window."""

    def __init__(self, probabilities: npt.ArrayLike, subject: str, planned_n: int,
                 stride: int = STRIDE, offset: int = 0) -> None:
        p = np.asarray(probabilities, dtype=np.float64)
        p = p / p.sum()
        self.q = float(np.sum(p * p))
        self.stride = stride
        self.w = window_length(self.q, planned_n, stride)
        self.keys = np.zeros(0, dtype=np.uint64)  # sorted unique sampled hashes
        self.first = np.zeros(0, dtype=np.int64)  # earliest position of each
        self.carry = np.zeros(0, dtype=np.int64)
        self.pos = offset  # global position of carry[0]
        self.start = offset
        self.sampled = 0  # sampled windows kept (before removing equal ones)
        self.across = 0  # matches found by merge() between blocks
        self.matches = 0
        self.pairs = 0.0  # compared (sampled i, window j) pairs with i <= j - w
        self.subject = subject
        self.example: tuple[int, int] | None = None
        # about 16 bitmap slots per kept key, so most lookups end at the bitmap
        bits = min(_MAX_BITMAP_BITS, max(12, (max(planned_n, 1) // stride).bit_length() + 4))
        self.bitmap_bits = bits
        self.bitmap = np.zeros(1 << bits, dtype=bool)
        self.low = np.uint64((1 << bits) - 1)

    def _hashes(self, data: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
        nwin = data.size - self.w + 1
        h = np.zeros(nwin, dtype=np.uint64)
        vals = (data + 1).astype(np.uint64)
        for t in range(self.w):
            h *= _BASE
            h += vals[t : t + nwin]
        return h

    def update(self, x: npt.NDArray[np.integer]) -> None:
        data = np.concatenate([self.carry, x.astype(np.int64)]) if self.carry.size else (
            x.astype(np.int64))
        if data.size < self.w:
            self.carry = data
            return
        h = self._hashes(data)
        starts = self.pos + np.arange(h.size, dtype=np.int64)
        sampled = (starts % self.stride) == 0
        self._add_keys(h[sampled], starts[sampled])
        # look every window up among sampled windows that end before it starts; a bitmap
        # of the keys' low bits lets most windows skip the binary search
        cand = np.flatnonzero(self.bitmap[(h & self.low).astype(np.int64)])
        hc = h[cand]
        idx = np.minimum(np.searchsorted(self.keys, hc), self.keys.size - 1)
        hit = (self.keys[idx] == hc) & (self.first[idx] <= starts[cand] - self.w)
        n_hit = int(np.count_nonzero(hit))
        if n_hit and self.example is None:
            j = int(np.flatnonzero(hit)[0])
            self.example = (int(self.first[idx[j]]), int(starts[cand[j]]))
        self.matches += n_hit
        # sampled positions i <= j - w for each window j: floor((j - w) / s) + 1 if j >= w
        eligible = starts[starts >= self.w] - self.w
        self.pairs += float(np.sum(eligible // self.stride + 1))
        keep = self.w - 1
        self.carry = data[data.size - keep :].copy() if keep else np.zeros(0, dtype=np.int64)
        self.pos += data.size - keep

    def _add_keys(self, h: npt.NDArray[np.uint64], pos: npt.NDArray[np.int64]) -> None:
        if h.size == 0:
            return
        self.sampled += h.size
        keys = np.concatenate([self.keys, h])
        first = np.concatenate([self.first, pos])
        order = np.lexsort((first, keys))  # by hash, then earliest position first
        keys, first = keys[order], first[order]
        uniq = np.r_[True, keys[1:] != keys[:-1]]
        self.keys, self.first = keys[uniq], first[uniq]
        self.bitmap[(h & self.low).astype(np.int64)] = True

    def drop_lookup(self) -> None:
        """Free the lookup bitmap (megabytes) of a block that only travels to be merged."""
        self.bitmap = np.zeros(0, dtype=bool)

    def merge(self, later: RepeatTest) -> None:
        """Add a block tested on its own elsewhere: its sampled windows are looked up among
        this one's (windows across the seam are not formed; both blocks' own counts stay)."""
        if self.bitmap.size == 0:  # a travelled block that is now the run's first
            self.bitmap = np.zeros(1 << self.bitmap_bits, dtype=bool)
            self.bitmap[(self.keys & self.low).astype(np.int64)] = True
        if later.keys.size and self.keys.size:
            idx = np.minimum(np.searchsorted(self.keys, later.keys), self.keys.size - 1)
            hit = self.keys[idx] == later.keys
            n_hit = int(np.count_nonzero(hit))
            if n_hit and self.example is None:
                j = int(np.flatnonzero(hit)[0])
                self.example = (int(self.first[idx[j]]), int(later.first[j]))
            self.across += n_hit
            self.matches += n_hit
        self.pairs += later.pairs + float(self.sampled) * float(later.sampled)
        self.matches += later.matches
        if self.example is None:
            self.example = later.example
        sampled = self.sampled + later.sampled
        self._add_keys(later.keys, later.first)
        self.sampled = sampled
        self.pos = later.pos
        self.carry = later.carry

    def results(self) -> list[TestResult]:
        lam = (self.q**self.w + 2.0**-64) * self.pairs
        p = poisson_at_least(self.matches, lam)
        detail = (f"window {self.w}, stride {self.stride}, {self.pairs:.3g} pairs compared, "
                  f"expected matches {lam:.2e}")
        if self.example:
            detail += f"; first repeat: window at {self.example[1]} equals the one at " \
                      f"{self.example[0]}"
        ok = self.pairs > 0
        return [TestResult(self.subject, "repeated subsequences (overlaps)", float(self.matches),
                           p if ok else 1.0, f"Poisson({lam:.2e})",
                           self.pos + self.carry.size - self.start,
                           detail, "Marsaglia birthday/overlap tests; Chen-Stein Poisson "
                           "approximation", applicable=ok, continuous=False)]
