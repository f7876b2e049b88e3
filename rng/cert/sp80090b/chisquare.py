"""The IID track's chi-square tests (90B 5.2.1-5.2.4) and its LRS test (5.2.5).

Independence: for non-binary data, pairs of successive samples against the product of
their proportions, bins of expectation at least 5 formed from the least likely pairs up
(5.2.1); for binary data, m-bit blocks (the largest m <= 11 whose least likely block is
expected 5 times) against the binomial law (5.2.3). Goodness of fit: ten sub-sequences
against the whole (5.2.2, 5.2.4). A test fails when its p-value is below 0.001. The LRS
test (5.2.5) fails when the longest repeated substring is too long for an IID source:
Pr(X >= 1) < 1/1000 for the number of collisions of that length.

The binning follows the reference exactly (sort by expectation then tuple; a last bin
under 5 joins the one before) so that the degrees of freedom, and so the p-values, agree.
The p-value is the regularised upper incomplete gamma function (scipy's, the Cephes
algorithm the reference carries too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: a chi-square test fails below this p-value (90B 5.2)
ALPHA = 0.001
#: a bin's least expectation
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class ChiSquare:
    """One chi-square test: statistic, degrees of freedom, p-value."""

    name: str
    t: float
    df: int
    p: float

    @property
    def passed(self) -> bool:
        return self.p >= ALPHA


def p_value(t: float, df: int) -> float:
    """Pr(chi-square with ``df`` degrees of freedom > t)."""
    from scipy.special import gammaincc

    if df <= 0 or t <= 0:
        return 1.0
    return float(gammaincc(df / 2.0, t / 2.0))


def _proportions(s: np.ndarray, k: int) -> np.ndarray:
    from rng.cert.sp80090b.kernels.counts import proportions

    return proportions(np.ascontiguousarray(s, dtype=np.uint8), k)


def bins(expected: list[float]) -> tuple[np.ndarray, list[float]]:
    """Each cell's bin and the bins' expectations: cells in order of expectation (then
    index), a bin closed once it reaches 5, a short last bin merged into the one before."""
    order = sorted(range(len(expected)), key=lambda i: (expected[i], i))
    cell_bin = np.full(len(expected), -1, dtype=np.int64)
    sums: list[float] = []
    current, acc = 0, 0.0
    for i in order:
        if acc >= MIN_EXPECTED:
            sums.append(acc)
            current += 1
            acc = 0.0
        cell_bin[i] = current
        acc += expected[i]
    if current != 0 and acc < MIN_EXPECTED:
        cell_bin[cell_bin == current] = current - 1
        sums[current - 1] += acc
    else:
        sums.append(acc)
    return cell_bin, sums


def _t(observed: np.ndarray, expected: list[float]) -> float:
    t = 0.0
    for o, e in zip(observed.tolist(), expected, strict=True):
        t += (o - e) ** 2 / e
    return t


def independence(s: np.ndarray, k: int) -> ChiSquare:
    """5.2.1: successive pairs (s[0], s[1]), (s[2], s[3]), ... against p_i p_j."""
    p = _proportions(s, k).tolist()
    half = math.floor(s.size * 0.5)
    expected = [p[i] * p[j] * half for i in range(k) for j in range(k)]
    cell_bin, sums = bins(expected)
    m = s.size - (s.size % 2)
    pairs = s[0:m:2].astype(np.int64) * k + s[1:m:2]
    observed = np.bincount(cell_bin[pairs], minlength=len(sums))
    t = _t(observed, sums)
    df = len(sums) - k
    return ChiSquare("Chi square independence", t, df, p_value(t, df))


def goodness_of_fit(s: np.ndarray, k: int) -> ChiSquare:
    """5.2.2: each tenth of the data against the whole's proportions."""
    p = _proportions(s, k).tolist()
    tenth = math.floor(s.size / 10.0)
    cell_bin, sums = bins([p[j] * tenth for j in range(k)])
    block = s.size // 10
    t = 0.0
    for j in range(10):
        part = s[j * block:(j + 1) * block]
        t += _t(np.bincount(cell_bin[part], minlength=len(sums)), sums)
    df = 9 * (len(sums) - 1)
    return ChiSquare("Chi square goodness of fit", t, df, p_value(t, df))


def binary_independence(s: np.ndarray) -> ChiSquare:
    """5.2.3: non-overlapping m-bit blocks against the binomial law of their weight."""
    n = s.size
    p1 = float(np.count_nonzero(s)) / n
    p0 = 1.0 - p1
    low = min(p0, p1)
    m = 11
    while m > 1 and low ** m * (n // m) < 5:
        m -= 1
    if m < 2:
        return ChiSquare("Chi square independence", 0.0, 0, p_value(0.0, 0))
    blocks = n // m
    weights = 1 << np.arange(m - 1, -1, -1)
    words = s[:blocks * m].reshape(blocks, m).astype(np.int64) @ weights
    occ = np.bincount(words, minlength=1 << m).tolist()
    t = 0.0
    for i, o in enumerate(occ):
        w = i.bit_count()
        e = p1 ** w * p0 ** (m - w) * blocks
        t += (o - e) ** 2 / e
    df = (1 << m) - 2
    return ChiSquare("Chi square independence", t, df, p_value(t, df))


def binary_goodness_of_fit(s: np.ndarray) -> ChiSquare:
    """5.2.4: the ones in each tenth against the whole's proportion."""
    n = s.size
    sub = n // 10
    p = int(np.count_nonzero(s)) / n
    e0, e1 = (1.0 - p) * sub, p * sub
    t = 0.0
    for i in range(10):
        o1 = int(np.count_nonzero(s[i * sub:(i + 1) * sub]))
        o0 = sub - o1
        t += (o0 - e0) ** 2 / e0 + (o1 - e1) ** 2 / e1
    return ChiSquare("Chi square goodness of fit", t, 9, p_value(t, 9))


def tests(s: np.ndarray, k: int) -> list[ChiSquare]:
    """The two chi-square tests that apply to symbols ``s`` (0..k-1)."""
    if k == 2:
        return [binary_independence(s), binary_goodness_of_fit(s)]
    return [independence(s, k), goodness_of_fit(s, k)]


@dataclass(frozen=True)
class LrsTest:
    """5.2.5: the longest repeated substring's length W and Pr(X >= 1) of a W-collision."""

    p_col: float
    w: int
    pr_at_least_one: float
    passed: bool


def lrs_test(s: np.ndarray, k: int) -> LrsTest:
    """Computed in extended precision (numpy's longdouble, the reference's long double):
    p_col^W is tiny and (1 - p_col^W)^N needs log1p."""
    from rng.cert.sp80090b.tuples import longest_repeat

    p = _proportions(s, k).astype(np.longdouble)
    p_col = np.longdouble(0)
    for v in p:
        p_col += v * v
    if p_col > 1 - np.finfo(np.longdouble).eps:
        return LrsTest(1.0, 0, 1.0, True)
    w = longest_repeat(s, k)
    log_none = np.log1p(-(p_col ** np.longdouble(w)))
    pairs = (s.size - w + 1) * (s.size - w) // 2
    total = np.longdouble(pairs) * log_none
    return LrsTest(float(p_col), w, float(1 - np.exp(total)),
                   bool(np.log(np.longdouble(0.999)) >= total))
