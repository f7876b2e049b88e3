"""Coupon collector test (Knuth, TAOCP vol. 2 §3.3.2 E; § 810a.5(c)(6)), mergeable.

The sequence is cut into consecutive segments, each just long enough to contain every
value; the lengths are tested against their exact law (:func:`coupon_probabilities`).

The cut depends on the whole history, so a block of outcomes drawn elsewhere (one task
of a distributed run) cannot be cut on its own. What the block *can* say is bounded:
if a segment is open when the block starts and has seen the set S of values, it closes
at the block's position ``max{first[v] : v not in S}`` (``first[v]`` the first position
of ``v`` in the block), so it closes right after the first occurrence of some value, or
not at all. A :class:`CouponPiece` therefore records ``first`` and, for each of those at
most k restart points, the segments that follow it to the block's end: the chains from
different restarts meet after a few segments and then share their segments, so each is
kept only up to where it meets one kept before. :meth:`CouponCollector.absorb` folds a
piece into the running state (the lengths seen so far as a histogram, the open
segment's set of values and length), exactly as if the block had been read in line;
:meth:`CouponCollector.update` is ``absorb(CouponPiece.of(x))``, so a run split into
tasks and one read in a single pass cut identical segments. Memory: a histogram of
lengths, a k-value set, and for a piece about one chain's segment starts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rng.cert.patterns import KNUTH, MAX_SUBSET_K, coupon_probabilities
from rng.cert.results import TestResult
from rng.cert.stats import chisquare

MAX_CARRY = 20_000_000  # an unfinished segment longer than this: test not applicable


@dataclass
class _Chain:
    """Segments cut from one restart: lengths, then either a join or the open segment."""

    starts: list[int]
    lengths: list[int]
    join: tuple[int, int] | None = None  # (chain, step) this chain continues as
    open_from: int = 0  # start of the segment open at the block's end (join is None)


@dataclass
class CouponPiece:
    """What a block of outcomes does to any coupon-collector state entering it."""

    k: int
    n: int
    first: npt.NDArray[np.int64]  # first position of each value, -1 if absent
    chains: list[_Chain] = field(default_factory=list)
    restart: dict[int, int] = field(default_factory=dict)  # restart position -> chain
    open_seen: dict[int, npt.NDArray[np.bool_]] = field(default_factory=dict)  # by chain

    @classmethod
    def of(cls, x: npt.NDArray[np.integer], k: int) -> CouponPiece:
        data = np.asarray(x).astype(np.int16)
        n = data.size
        first = np.full(k, -1, dtype=np.int64)
        piece = cls(k, n, first)
        if n == 0:
            return piece
        order = np.argsort(data, kind="stable")
        sv = data[order]
        same = sv[1:] == sv[:-1]
        starts_of_group = np.r_[True, ~same]
        first[sv[starts_of_group]] = order[starts_of_group]
        ends_of_group = np.r_[~same, True]
        last_pos = np.full(k, -1, dtype=np.int64)
        last_pos[sv[ends_of_group]] = order[ends_of_group]
        # E(s) = max{ j : prev[j] < s } = the end of a segment starting at s
        prev = np.full(n, -1, dtype=np.int64)
        prev[order[1:][same]] = order[:-1][same]
        has_prev = prev >= 0
        slot = np.full(n + 1, -1, dtype=np.int64)
        slot[prev[has_prev] + 1] = np.flatnonzero(has_prev)
        firsts = np.flatnonzero(~has_prev)
        slot[0] = int(firsts.max())
        ends = np.maximum.accumulate(slot)
        # a segment starting after the last occurrence of some value cannot close here
        last_ok = int(last_pos.min()) if (first >= 0).all() else -1
        seen_at: dict[int, tuple[int, int]] = {}
        for r in sorted({int(f) + 1 for f in first[first >= 0]}):
            piece.restart[r] = piece._walk(r, ends, last_ok, seen_at, data)
        return piece

    def _walk(self, s: int, ends: npt.NDArray[np.int64], last_ok: int,
              seen_at: dict[int, tuple[int, int]], data: npt.NDArray[np.int16]) -> int:
        cid = len(self.chains)
        chain = _Chain([], [])
        self.chains.append(chain)
        while True:
            if s in seen_at:
                chain.join = seen_at[s]
                return cid
            seen_at[s] = (cid, len(chain.starts))
            if s > last_ok:
                chain.open_from = s
                mask = np.zeros(self.k, dtype=bool)
                mask[np.unique(data[s:])] = True
                self.open_seen[cid] = mask
                return cid
            e = int(ends[s])
            chain.starts.append(s)
            chain.lengths.append(e - s + 1)
            s = e + 1

    def follow(self, r: int) -> tuple[Counter[int], npt.NDArray[np.bool_], int]:
        """Lengths closed after restarting at ``r``, and the open segment's set and length."""
        hist: Counter[int] = Counter()
        cid, step = self.restart[r], 0
        while True:
            chain = self.chains[cid]
            hist.update(chain.lengths[step:])
            if chain.join is None:
                return hist, self.open_seen[cid], self.n - chain.open_from
            cid, step = chain.join


class CouponCollector:
    """Segment lengths until every value has appeared."""

    def __init__(self, probabilities: npt.ArrayLike, subject: str) -> None:
        self.p = np.asarray(probabilities, dtype=np.float64)
        self.p = self.p / self.p.sum()
        self.k = self.p.size
        self.hist: Counter[int] = Counter()
        self.seen = np.zeros(self.k, dtype=bool)  # values of the open segment
        self.open_len = 0
        self.gave_up = False
        self.subject = subject
        usable = self.k <= MAX_SUBSET_K or np.allclose(self.p, self.p[0])
        self.usable = usable and bool((self.p > 0).all())

    def piece(self, x: npt.NDArray[np.integer]) -> CouponPiece | None:
        """The piece of a block drawn elsewhere (None when the test does not apply)."""
        return CouponPiece.of(x, self.k) if self.usable else None

    def update(self, x: npt.NDArray[np.integer]) -> None:
        if self.usable and not self.gave_up:
            self.absorb(CouponPiece.of(x, self.k))

    def absorb(self, piece: CouponPiece | None) -> None:
        """Continue the sequence with the block ``piece`` describes."""
        if piece is None or not self.usable or self.gave_up or piece.n == 0:
            return
        missing = ~self.seen
        firsts = piece.first[missing]
        if (firsts < 0).any():  # some missing value never comes: the segment stays open
            self.seen |= piece.first >= 0
            self.open_len += piece.n
        else:
            e = int(firsts.max())
            self.hist[self.open_len + e + 1] += 1
            more, self.seen, self.open_len = piece.follow(e + 1)
            self.seen = self.seen.copy()
            self.hist.update(more)
        if self.open_len > MAX_CARRY:
            self.gave_up = True

    def merge(self, later: CouponPiece | None) -> None:
        self.absorb(later)

    def results(self) -> list[TestResult]:
        name = "coupon collector"
        ref = f"{KNUTH} E"
        if not self.usable:
            return [TestResult(self.subject, name, 0.0, 1.0, "", 0,
                               "not applicable: a value of probability 0, or more than "
                               f"{MAX_SUBSET_K} unequal values", ref, applicable=False)]
        total = sum(self.hist.values())
        lengths = np.array(sorted(self.hist), dtype=np.int64)
        times = np.array([self.hist[int(v)] for v in lengths], dtype=np.int64)
        equal = np.allclose(self.p, self.p[0])
        mean = float(np.sum(1.0 / np.arange(1, self.k + 1))) * self.k if equal else None
        max_len = int(lengths.max()) + 1 if total else self.k + 1
        max_len = min(max(max_len, self.k + 1), 200_000)
        probs = coupon_probabilities(self.p, max_len)
        counts = np.zeros(max_len + 1, dtype=np.int64)
        np.add.at(counts, np.minimum(lengths, max_len), times)
        ok = total >= 20 and not self.gave_up
        cs = chisquare(counts, probs, pool=True)
        detail = f"{total} complete segments, {cs.bins} length classes"
        if mean is not None:
            observed = float(np.dot(lengths, times)) / total if total else 0.0
            detail += f", mean length {observed:.1f} (expected {mean:.1f})"
        return [TestResult(self.subject, name, cs.statistic, cs.p_value if ok else 1.0,
                           f"chi2({cs.df})", total, detail, ref, applicable=ok)]
