"""Pattern tests on the value sequence: gap, poker and coupon collector.

Knuth (TAOCP vol. 2, 3rd ed., §3.3.2 C, D, E) states these for uniform digits; here each
is generalized *exactly* to values with unequal configured probabilities p_1..p_k, so the
Bingo tables are tested against their own weights without any approximation beyond
Pearson's chi-square (bins pooled to expected counts >= 5, see :mod:`rng.cert.stats`).

* **Gap test** (§3.3.2 D; § 810a.5(c)(3)): for an event A of probability p (a set of
  values), the numbers of non-A outcomes between consecutive A outcomes are i.i.d.
  geometric, P(gap = r) = p (1 - p)^r. Run for every value when there are at most 12
  values (a rare jackpot multiplier arriving in clusters is exactly what a player would
  notice), else for the lower half of the values.
* **Poker test** (§3.3.2 D "partition test"; § 810a.5(c)(5)): non-overlapping hands of
  5 outcomes classified by the number of distinct values r = 1..5. With unequal
  probabilities, P(r distinct) = 5! [t^5 u^r] prod_i (1 + u (e^{p_i t} - 1)), computed
  by multiplying truncated polynomials.
* **Coupon collector** (§3.3.2 E; § 810a.5(c)(6)): lengths of consecutive segments each
  just long enough to contain every value. The length distribution is computed exactly
  by a Markov chain on the set of values seen (2^k states, k <= 16) or, for equal
  probabilities, on the number seen. Segments are found in a vectorized pass: with
  prev[j] the previous position of the value at j, a segment starting at s ends at
  E(s) = max{ j : prev[j] < s } (the last value to appear for the first time).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from rng.cert.results import TestResult
from rng.cert.stats import chisquare

KNUTH = "Knuth, TAOCP vol. 2 (3rd ed.) §3.3.2"
GAP_CAP = 4096  # gap lengths >= this are counted together (their probability is tiny)
HAND = 5
MAX_SUBSET_K = 16


class GapTest:
    """Gap lengths between occurrences of an event (a set of values)."""

    def __init__(self, members: npt.ArrayLike, probabilities: npt.ArrayLike, subject: str,
                 label: str) -> None:
        p = np.asarray(probabilities, dtype=np.float64)
        self.mask = np.zeros(p.size, dtype=bool)
        self.mask[np.asarray(members, dtype=np.int64)] = True
        self.p_event = float(p[self.mask].sum() / p.sum())
        self.counts = np.zeros(GAP_CAP + 1, dtype=np.int64)
        self.run = 0  # non-events since the last event
        self.first: int | None = None  # the first gap counted (from the block's start)
        self.subject = subject
        self.label = label

    def update(self, x: npt.NDArray[np.integer]) -> None:
        hits = np.flatnonzero(self.mask[x])
        if hits.size == 0:
            self.run += x.size
            return
        gaps = np.empty(hits.size, dtype=np.int64)
        gaps[0] = hits[0] + self.run
        gaps[1:] = np.diff(hits) - 1
        if self.first is None:
            self.first = int(gaps[0])
        self.counts += np.bincount(np.minimum(gaps, GAP_CAP), minlength=GAP_CAP + 1)
        self.run = x.size - 1 - int(hits[-1])

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a task's result on its way back, a checkpoint) with the counts cut
        after the longest gap counted: a block fills a few hundred of the 4,097."""
        return {**self.__dict__, "counts": np.trim_zeros(self.counts, "b").copy()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        counts = np.zeros(GAP_CAP + 1, dtype=np.int64)
        counts[:state["counts"].size] = state["counts"]
        self.__dict__.update(state, counts=counts)

    def merge(self, later: GapTest) -> None:
        """Continue with the gaps of the block that follows: its first gap started here."""
        if later.first is None:
            self.run += later.run
            return
        self.counts += later.counts
        self.counts[min(later.first, GAP_CAP)] -= 1
        joined = self.run + later.first
        self.counts[min(joined, GAP_CAP)] += 1
        if self.first is None:
            self.first = joined
        self.run = later.run

    def results(self) -> list[TestResult]:
        p = self.p_event
        total = int(self.counts.sum())
        # lengths whose expected count in the whole sample is below 1e-3 join one tail bin
        cap = GAP_CAP
        if 0 < p < 1 and total:
            cap = int(min(GAP_CAP, max(1, math.ceil(math.log(1e-3 / total) / math.log(1 - p)))))
        r = np.arange(cap)
        probs = np.append(p * (1 - p) ** r, (1 - p) ** cap)
        counts = np.append(self.counts[:cap], self.counts[cap:].sum())
        cs = chisquare(counts, probs, pool=True)
        ok = total >= 20 and cs.df >= 1 and 0 < p < 1
        return [TestResult(
            self.subject, f"gap test ({self.label})", cs.statistic, cs.p_value if ok else 1.0,
            f"chi2({cs.df})", total, f"event probability {p:.4f}, {cs.bins} length classes",
            f"{KNUTH} D", applicable=ok)]


def poker_probabilities(p: npt.ArrayLike, hand: int = HAND) -> npt.NDArray[np.float64]:
    """P(r distinct values among ``hand`` i.i.d. draws), r = 1..hand."""
    probs = np.asarray(p, dtype=np.float64)
    probs = probs / probs.sum()
    # poly[u, t]: coefficient of u^u t^t; each factor is 1 + u * sum_{j>=1} (p t)^j / j!
    poly = np.zeros((hand + 1, hand + 1))
    poly[0, 0] = 1.0
    fact = np.array([math.factorial(j) for j in range(hand + 1)], dtype=np.float64)
    for pi in probs:
        series = np.array([0.0] + [pi**j / fact[j] for j in range(1, hand + 1)])
        new = poly.copy()
        for u in range(hand):
            # multiply row u by the series (truncated at t^hand) into row u + 1
            new[u + 1] += np.convolve(poly[u], series)[: hand + 1]
        poly = new
    return np.array([poly[r, hand] * fact[hand] for r in range(1, hand + 1)])


class PokerTest:
    """Distinct values in non-overlapping hands of five."""

    def __init__(self, probabilities: npt.ArrayLike, subject: str, offset: int = 0) -> None:
        self.probs = poker_probabilities(probabilities)
        self.counts = np.zeros(HAND, dtype=np.int64)
        self.carry = np.zeros(0, dtype=np.int64)
        # a block starting at ``offset`` first completes the hand the blocks before began
        self.skip = (-offset) % HAND
        self.head = np.zeros(0, dtype=np.int64)
        self.subject = subject

    def update(self, x: npt.NDArray[np.integer]) -> None:
        if self.skip:
            take = np.asarray(x[: self.skip], dtype=np.int64)
            self.head = np.concatenate([self.head, take])
            self.skip -= take.size
            x = x[take.size :]
            if x.size == 0:
                return
        data = np.concatenate([self.carry, x.astype(np.int64)]) if self.carry.size else x
        hands = data.size // HAND
        if hands:
            h = np.sort(np.asarray(data[: hands * HAND]).reshape(hands, HAND), axis=1)
            distinct = 1 + np.count_nonzero(h[:, 1:] != h[:, :-1], axis=1)
            self.counts += np.bincount(distinct - 1, minlength=HAND)
        self.carry = np.asarray(data[hands * HAND :], dtype=np.int64).copy()

    def merge(self, later: PokerTest) -> None:
        """Continue with the block that follows; its head completes this carry's hand."""
        if self.skip:
            raise ValueError("poker test blocks merge in order from the start of the run")
        join = np.concatenate([self.carry, later.head])
        if join.size == HAND:
            self.counts[np.unique(join).size - 1] += 1
            self.carry = later.carry
        else:
            self.carry = np.concatenate([join, later.carry])
        self.counts += later.counts

    def results(self) -> list[TestResult]:
        total = int(self.counts.sum())
        cs = chisquare(self.counts, self.probs, pool=True)
        ok = total >= 20 and cs.df >= 1
        return [TestResult(
            self.subject, "poker test (hands of 5)", cs.statistic, cs.p_value if ok else 1.0,
            f"chi2({cs.df})", total, f"hands by distinct values 1..5: {self.counts.tolist()}",
            f"{KNUTH} D (partition test)", applicable=ok)]


def coupon_probabilities(p: npt.ArrayLike, max_len: int) -> npt.NDArray[np.float64]:
    """P(segment length = r) for r = 0..max_len-1, and P(length >= max_len) last."""
    probs = np.asarray(p, dtype=np.float64)
    probs = probs / probs.sum()
    k = probs.size
    out = np.zeros(max_len + 1)
    if np.allclose(probs, probs[0]):
        state = np.zeros(k + 1)
        state[0] = 1.0
        new_p = (k - np.arange(k + 1)) / k
        for r in range(1, max_len):
            nxt = state * (1 - new_p)
            nxt[1:] += state[:-1] * new_p[:-1]
            out[r] = nxt[k]
            nxt[k] = 0.0
            state = nxt
    else:
        if k > MAX_SUBSET_K:
            raise ValueError("coupon collector: too many unequal values")
        full = (1 << k) - 1
        masks = np.arange(1 << k)
        member = (masks[:, None] >> np.arange(k)) & 1
        stay = member @ probs  # probability the next value was already seen
        without = [masks[member[:, i] == 0] for i in range(k)]
        state = np.zeros(1 << k)
        state[0] = 1.0
        for r in range(1, max_len):
            nxt = state * stay
            for i in range(k):
                nxt[without[i] | (1 << i)] += state[without[i]] * probs[i]
            out[r] = nxt[full]
            nxt[full] = 0.0
            state = nxt
            if state.sum() < 1e-17:
                break
    out[max_len] = max(0.0, 1.0 - out[:max_len].sum())
    return out
