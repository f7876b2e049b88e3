"""The IID track (90B 5 and 6.1): are the samples independent and identically
distributed, and if so their min-entropy by the most common value estimate.

Three groups of tests, every one of which must pass for the IID assumption to hold: the
permutation tests (5.1: 19 statistics of the data against the same statistics of up to
10,000 random shuffles of it; a statistic fails when the original ranks among the
extreme 0.1% of its shuffles, i.e. when at most 5 shuffles reach it on one side), the
chi-square tests and the LRS test (5.2, :mod:`rng.cert.sp80090b.chisquare`).

The shuffles are Fisher-Yates from xoshiro256** (as the reference's), seeded from the
operating system, a fresh seed each run: the reference seeds its generator from
/dev/urandom, so its counters, like ours, differ from run to run while the verdicts
agree. As the reference does, a
statistic stops being computed once it is settled (more than 5 shuffles on each side of
it, counting ties on both), and the shuffling stops once all 19 are.
"""

from __future__ import annotations

import bz2
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rng.cert.sp80090b import chisquare, entropic
from rng.cert.sp80090b.chisquare import ChiSquare, LrsTest
from rng.cert.sp80090b.entropic import Estimate
from rng.cert.sp80090b.kernels.shuffled import NAMES
from rng.cert.sp80090b.samples import Samples

#: the number of shuffles (90B 5.1)
PERMUTATIONS = 10_000
#: a statistic is settled (and passes) once more than this many shuffles lie on each side
SETTLED = 5
#: bzip2 block size of the compression statistic (the reference's level 5)
BZ2_LEVEL = 5
_DIGITS = np.zeros((256, 4), dtype=np.uint8)
for _v in range(256):
    _b = f"{_v} ".encode()
    _DIGITS[_v, :len(_b)] = np.frombuffer(_b, dtype=np.uint8)


def compressed_length(raw: np.ndarray) -> int:
    """5.1.11: the bzip2 length of the samples written in decimal, one space apart."""
    text = _DIGITS[raw].reshape(-1)
    text = text[text != 0][:-1]
    return len(bz2.compress(text.tobytes(), BZ2_LEVEL))


@dataclass
class Permutations:
    """The counters of the permutation tests: per statistic, the shuffles above, equal
    to and below the original (the reference's C[i][0..2])."""

    original: np.ndarray
    counts: np.ndarray = field(default_factory=lambda: np.zeros((len(NAMES), 3), np.int64))
    shuffles: int = 0

    @property
    def failed(self) -> list[str]:
        c = self.counts
        bad = (c[:, 0] + c[:, 1] <= SETTLED) | (c[:, 1] + c[:, 2] <= SETTLED)
        return [NAMES[i] for i in np.flatnonzero(bad)]

    @property
    def passed(self) -> bool:
        return not self.failed


class _Stats:
    """The 19 statistics of a sequence, as the permutation tests recompute them."""

    def __init__(self, s: Samples) -> None:
        self.binary = s.k == 2
        self.k = s.k
        self.mean = float(np.sum(s.raw, dtype=np.int64)) / s.n
        self.median = 0.5 if self.binary else _median(s.symbols)

    def __call__(self, data: np.ndarray, raw: np.ndarray, active: np.ndarray,
                 out: np.ndarray) -> None:
        from rng.cert.sp80090b.kernels.shuffled import statistics

        statistics(data, raw, self.binary, self.k, self.median, self.mean, active, out)
        if active[18]:
            out[18] = compressed_length(raw)


def _median(symbols: np.ndarray) -> float:
    v = np.sort(symbols)
    half = v.size // 2
    return float(v[half]) if v.size % 2 else (int(v[half]) + int(v[half - 1])) / 2.0


def _seed(rng: np.random.Generator | None) -> np.ndarray:
    """xoshiro256**'s state: from ``rng`` (a test's fixed seed) or the operating system."""
    source = rng if rng is not None else np.random.default_rng()
    state = source.integers(0, 1 << 63, size=4, dtype=np.int64).astype(np.uint64) * \
        np.uint64(2) + source.integers(0, 2, size=4).astype(np.uint64)
    if not state.any():
        state[0] = np.uint64(1)  # the one state xoshiro cannot leave
    return state


def _threads() -> int:
    """Shuffling threads: the reference uses every core (OpenMP); so do we, up to 4 (the
    compiled statistics and bzip2 release the GIL)."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def permutation_tests(s: Samples, *, step: Callable[[int], None] | None = None,
                      rng: np.random.Generator | None = None,
                      limit: int = PERMUTATIONS, threads: int | None = None) -> Permutations:
    """5.1: the original statistics, then shuffles until every statistic is settled.

    Each thread shuffles its own copy with its own generator; their statistics are
    folded in a fixed order (round by round, thread by thread), each counted only for
    the statistics still unsettled when it is folded, as the reference counts under its
    lock. A fixed ``rng`` therefore gives a fixed result for a given thread count."""
    from concurrent.futures import ThreadPoolExecutor

    from rng.cert.sp80090b.kernels.fisher_yates import shuffle_one, shuffle_together

    stats = _Stats(s)
    active = np.ones(len(NAMES), dtype=np.bool_)
    t = np.zeros(len(NAMES))
    stats(np.ascontiguousarray(s.symbols), np.ascontiguousarray(s.raw), active, t)
    res = Permutations(t)
    workers = threads or _threads()
    same = bool(np.array_equal(s.symbols, s.raw))  # binary 0/1 samples: one array
    copies = []
    for _ in range(workers):
        data = np.array(s.symbols, dtype=np.uint8)
        copies.append((data, data if same else np.array(s.raw, dtype=np.uint8),
                       _seed(rng)))

    def one(w: int, mask: np.ndarray) -> np.ndarray:
        data, raw, state = copies[w]
        if same:
            shuffle_one(data, state)
        else:
            shuffle_together(data, raw, state)
        out = np.zeros(len(NAMES))
        stats(data, raw, mask, out)
        return out

    c = res.counts
    with ThreadPoolExecutor(workers) as pool:
        while res.shuffles < limit and active.any():
            mask = active.copy()
            n = min(workers, limit - res.shuffles)
            for fut in [pool.submit(one, w, mask) for w in range(n)]:
                tp = fut.result()
                idx = np.flatnonzero(active & mask)
                c[idx, 0] += tp[idx] > t[idx]
                c[idx, 1] += tp[idx] == t[idx]
                c[idx, 2] += tp[idx] < t[idx]
                active &= ~((c[:, 0] + c[:, 1] > SETTLED) & (c[:, 1] + c[:, 2] > SETTLED))
                res.shuffles += 1
            if step is not None:
                step(res.shuffles)
    return res


@dataclass
class IidAssessment:
    """The IID track of one file."""

    samples: Samples
    h_original: Estimate
    h_bitstring: Estimate | None
    chi_square: list[ChiSquare]
    lrs: LrsTest
    permutations: Permutations

    @property
    def iid(self) -> bool:
        return self.chi_square_passed and self.lrs.passed and self.permutations.passed

    @property
    def chi_square_passed(self) -> bool:
        return all(c.passed for c in self.chi_square)

    @property
    def h_assessed(self) -> float:
        """min(width, H_original, width x H_bitstring): the reference's with -vv (without
        it, its JSON states the width; ours always states this)."""
        bits = float(self.samples.bits)
        h = min(bits, self.h_original.h or bits)
        if self.h_bitstring is not None and self.h_bitstring.h is not None:
            h = min(h, bits * self.h_bitstring.h)
        return h


def assess(s: Samples, *, step: Callable[[int], None] | None = None,
           rng: np.random.Generator | None = None,
           limit: int = PERMUTATIONS) -> IidAssessment:
    """The IID track on ``s``."""
    h_orig = entropic.most_common_value(s.symbols, s.k)
    h_bit = None if s.k <= 2 else entropic.most_common_value(s.bitstring(), 2)
    chi = chisquare.tests(s.symbols, s.k)
    lrs = chisquare.lrs_test(s.symbols, s.k)
    perm = permutation_tests(s, step=step, rng=rng, limit=limit)
    return IidAssessment(s, h_orig, h_bit, chi, lrs, perm)


_RESULT_KEYS = ("excursion", "numDirectionalRuns", "lenDirectionalRuns",
                "numIncreasesDecreases", "numRunsMedian", "lenRunsMedian", "avgCollision",
                "maxCollision", "periodicity1", "periodicity2", "periodicity8",
                "periodicity16", "periodicity32", "covariance1", "covariance2",
                "covariance8", "covariance16", "covariance32", "compression")


def test_case(a: IidAssessment) -> dict[str, Any]:
    """The reference's one IID ``testCases`` entry (ea_iid ``-o``), hAssessed the assessed
    value (see :attr:`IidAssessment.h_assessed`)."""
    s = a.samples
    stats = _Stats(s)
    case: dict[str, Any] = {
        "testCaseDesc": "", "hOriginal": a.h_original.h, "hAssessed": a.h_assessed,
        "hBitstring": a.h_bitstring.h if a.h_bitstring is not None else 1.0,
        "mean": stats.mean, "median": stats.median,
        "passedChiSquareTests": a.chi_square_passed,
        "passedLongestRepeatedSubstringTest": a.lrs.passed,
        "passedIidPermutationTests": a.permutations.passed,
    }
    if s.k == 2:
        case["binary"] = True
    case["permutationTestResults"] = permutation_results(a.permutations)
    return case


def permutation_results(p: Permutations) -> list[dict[str, Any]]:
    """The reference's ``permutationTestResults``: per iteration 0, 1, 2 (the counters
    C[i][0..2]: shuffled above, equal to, below the original) every statistic's count."""
    return [{"iteration": it, **{key: float(p.counts[i, it])
                                 for i, key in enumerate(_RESULT_KEYS)}}
            for it in range(3)]


def statistics_of(s: Samples) -> _Stats:
    """The mean and median (and the rest) the permutation tests use on ``s``."""
    return _Stats(s)
