"""SP 800-22 section 4.2 over many sequences, as NIST's ``assess`` reports it, and the
verdict of ``etg cert bits``.

For each P-value column (a test, a template, a state) over the sequences it applied to:

* **Proportion passing** (4.2.1): sequences with P >= 0.01, against the range
  p^ +- 3 sqrt(p^ (1 - p^) / s), p^ = 0.99. As ``assess``, the range's ends are
  truncated to whole sequences and a count outside them is flagged.
* **Uniformity** (4.2.2): the P-values in ten bins [0, 0.1), ..., [0.9, 1], Pearson's
  chi-square against s/10 each, the "P-value of the P-values" Q(9/2, chi^2/2); flagged
  below 0.0001. As ``assess``, the bins and the pass count use each P-value as it prints
  it (six decimals, read back as a 32-bit float), and the expected count is s // 10, an
  integer: that is the figure the table shows.

The verdict (exit code) must not fail a perfect source for having many columns: 188 of
them at the reference's parameters, and under the literal rule "every proportion in its
range" a perfect source fails about one run in four at 1,000 sequences (one in two at
100: each column is out of its range with probability 0.0015, 0.0034). So by
default (``holm``) each column gives two second-level P-values, the binomial chance of at
least its number of failures and the uniformity of its P-values (the chi-square with the
exact expectation s/10 from 55 sequences, 4.2.2's minimum for the approximation; below
that, from 2 sequences, the exact multinomial probability of a chi-square at least as
large: :func:`uniformity_p`), and the family is judged by Holm's procedure at a
family-wise error rate of 1%, as the rest of the certification lab does
(:mod:`rng.cert.results`). The exact law matters for few sequences of a source that
repeats itself: ten sequences cut from a stream that repeats every 2^20 bits each look
random, but their P-values are nearly equal, all in one bin. With one sequence the family
is its own P-values. The rule ``nist`` applies assess's flags literally instead: any
proportion out of range or any uniformity P-value below 0.0001 (assess's, from 10
sequences) fails; with one sequence, any P-value below 0.01.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from rng.cert.nist.common import igamc
from rng.cert.nist.suite import Column
from rng.cert.results import holm

ALPHA = 0.01
UNIFORMITY_ALPHA = 0.0001
MIN_UNIFORMITY = 55  # 4.2.2: the chi-square approximation from 55 sequences
BINS = 10
RULES = ("holm", "nist")


def as_assess_reads(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each P-value as ``assess`` reads it back: printed to six decimals, a float."""
    return np.array([float(np.float32(f"{x:.6f}")) for x in p.tolist()], dtype=np.float64)


@dataclass(frozen=True)
class ColumnSummary:
    """The second-level figures of one P-value column."""

    column: Column
    tested: int  # sequences the test applied to
    passed: int
    histogram: tuple[int, ...]  # C1..C10
    uniformity: float | None  # assess's P-value of the P-values (None: s < 10)
    uniformity_exact: float | None  # the verdict's (None: fewer than 2 sequences)
    low: int  # assess's acceptance range, in sequences
    high: int
    proportion_p: float  # P(at least this many failures | each fails with 0.01)
    first_level: float | None  # the one P-value, when there is one sequence

    @property
    def proportion_flag(self) -> bool:
        return self.tested > 0 and (self.passed < self.low or self.passed > self.high)

    @property
    def uniformity_flag(self) -> bool:
        """assess's ``*`` beside the uniformity P-value."""
        return self.uniformity is not None and self.uniformity < UNIFORMITY_ALPHA

    def range_text(self) -> str:
        if not self.tested:
            return "-"
        half = 3.0 * math.sqrt(ALPHA * (1 - ALPHA) / self.tested)
        return f"{1 - ALPHA - half:.4f}-{min(1.0, 1 - ALPHA + half):.4f}"

    def to_json(self) -> dict[str, Any]:
        return {"test": self.column.name, "column": self.column.label,
                "parameters": self.column.params, "sequences_tested": self.tested,
                "passed": self.passed,
                "proportion": self.passed / self.tested if self.tested else None,
                "acceptance_range_sequences": [self.low, self.high],
                "acceptance_range": self.range_text(),
                "proportion_flagged": self.proportion_flag, "histogram": list(self.histogram),
                "uniformity_p": self.uniformity, "uniformity_flagged": self.uniformity_flag,
                "uniformity_p_for_the_verdict": self.uniformity_exact,
                "proportion_binomial_p": self.proportion_p}


@cache
def _sum_of_squares_tail(s: int) -> npt.NDArray[np.float64]:
    """P(sum F_i^2 >= q), q = 0..s^2, for s values thrown into ten equally likely bins:
    the exact multinomial law, by adding one bin at a time (state: values placed so far,
    their sum of squares), each count f weighted (1/10)^f / f!, times s! at the end."""
    top = s * s
    law = np.zeros((s + 1, top + 1))
    law[0, 0] = 1.0
    weights = [0.1 ** f / math.factorial(f) for f in range(s + 1)]
    for _ in range(BINS):
        nxt = np.zeros_like(law)
        for f in range(s + 1):
            nxt[f:, f * f:] += law[: s + 1 - f, : top + 1 - f * f] * weights[f]
        law = nxt
    exact = law[s] * math.factorial(s)
    return np.cumsum(exact[::-1])[::-1]


def uniformity_p(hist: npt.NDArray[np.int64]) -> float:
    """The uniformity P-value of ten bin counts: below 55 values the exact probability of
    a chi-square at least as large (4.2.2's approximation needs 55), from 55 on the
    chi-square P-value Q(9/2, chi^2/2) with the expected count s/10."""
    s = int(hist.sum())
    if s >= MIN_UNIFORMITY:
        e = s / BINS
        return igamc(4.5, float(np.sum((hist - e) ** 2 / e)) / 2.0)
    squares = int(np.sum(hist.astype(np.int64) ** 2))  # chi^2 grows with it
    return float(min(1.0, _sum_of_squares_tail(s)[squares]))


def thresholds(s: int) -> tuple[int, int]:
    """assess's acceptance range for s sequences, truncated to whole sequences."""
    if s == 0:
        return 0, 0
    half = 3.0 * math.sqrt((1 - ALPHA) * ALPHA / s)
    return int((1 - ALPHA - half) * s), int((1 - ALPHA + half) * s)


def summarize(col: Column, p: npt.NDArray[np.float64]) -> ColumnSummary:
    """Second-level figures of one column's P-values (NaN: the test did not apply)."""
    applied = p[~np.isnan(p)]
    read = as_assess_reads(applied)
    s = int(read.size)
    passed = int(np.count_nonzero(read >= ALPHA))
    pos = np.minimum(np.floor(read * 10).astype(np.int64), 9)
    hist = np.bincount(pos, minlength=10)
    uniformity = None
    if s // 10:
        chi2 = float(np.sum((hist - s // 10) ** 2 / (s // 10)))
        uniformity = igamc(4.5, chi2 / 2.0)
    exact = uniformity_p(hist) if s >= 2 else None
    low, high = thresholds(s)
    failures = s - passed
    prop_p = float(stats.binom.sf(failures - 1, s, ALPHA)) if s else 1.0
    first = float(applied[0]) if p.size == 1 and s == 1 else None
    return ColumnSummary(col, s, passed, tuple(int(x) for x in hist), uniformity, exact,
                         low, high, prop_p, first)


def assess_cycle_cap(n: int) -> int:
    """Returns to zero past which NIST's assess (sts 2.1.2) stops a sequence's random
    excursions test without writing any P-value (an array of its own, max(1000, n/100))."""
    return max(1000, n // 100)


def assess_view(cols: list[Column], p: npt.NDArray[np.float64],
                returns: npt.NDArray[np.int64] | None, n: int) -> npt.NDArray[np.float64]:
    """The P-value table as ``assess`` reads it: in both random excursions tests a P-value
    that prints as 0.000000 is left out (the reference writes 0 for a sequence the test
    does not apply to, and assess drops every 0, a real failure below 5e-7 with it), and
    the random excursions test has no value for a sequence whose walk returns to zero
    more than :func:`assess_cycle_cap` times (``returns``: each sequence's count; None
    or -1: not known)."""
    out = p.copy()
    for i, c in enumerate(cols):
        if not c.key.startswith("random-excursions"):
            continue
        col = out[:, i]
        have = ~np.isnan(col)
        zero = np.zeros_like(have)
        zero[have] = as_assess_reads(col[have]) == 0.0
        col[zero] = np.nan
        if c.key == "random-excursions" and returns is not None:
            col[returns > assess_cycle_cap(n)] = np.nan
    return out


def flag_list(summaries: list[ColumnSummary]) -> tuple[str, ...]:
    """The columns flagged (``*``), with which figure: proportion, uniformity or both."""
    return tuple(f"{s.column.title}: " + ", ".join(
        w for w, f in (("proportion", s.proportion_flag), ("uniformity", s.uniformity_flag))
        if f) for s in summaries if s.proportion_flag or s.uniformity_flag)


def assess_flagged(cols: list[Column], p: npt.NDArray[np.float64],
                   returns: npt.NDArray[np.int64] | None, n: int) -> tuple[str, ...]:
    """What NIST's assess flags on this table: :func:`flag_list` over the second-level
    figures of :func:`assess_view`."""
    view = assess_view(cols, p, returns, n)
    return flag_list([summarize(c, view[:, i]) for i, c in enumerate(cols)])


@dataclass(frozen=True)
class Judged:
    """A family member: which column, which figure, its P-value, Holm's decision."""

    column: Column
    figure: str  # "P-value", "proportion", "uniformity"
    p_value: float
    rejected: bool


@dataclass(frozen=True)
class Verdict:
    passed: bool
    rule: str
    judged: tuple[Judged, ...]
    #: the columns flagged (proportion or uniformity) over every sequence each test
    #: applied to; what assess itself flags: :func:`assess_flagged`
    flagged: tuple[str, ...]
    text: str


def verdict(summaries: list[ColumnSummary], streams: int, rule: str = "holm") -> Verdict:
    """Pass or fail, by ``rule`` (module docstring)."""
    family: list[tuple[Column, str, float]] = []
    for s in summaries:
        if s.tested == 0:
            continue
        if streams == 1:
            if s.first_level is not None:
                family.append((s.column, "P-value", s.first_level))
            continue
        family.append((s.column, "proportion", s.proportion_p))
        uni = s.uniformity if rule == "nist" else s.uniformity_exact
        if uni is not None:
            family.append((s.column, "uniformity", uni))
    flagged = flag_list(summaries)
    if rule == "nist":
        if streams == 1:
            rejects = [p < ALPHA for _, _, p in family]
        else:
            rejects = [(fig == "proportion" and col_flag(summaries, c, "proportion"))
                       or (fig == "uniformity" and col_flag(summaries, c, "uniformity"))
                       for c, fig, _ in family]
    else:
        rejects = holm([p for _, _, p in family], ALPHA)
    judged = tuple(Judged(c, f, p, r) for (c, f, p), r in zip(family, rejects, strict=True))
    failed = [j for j in judged if j.rejected]
    ok = not failed and bool(judged)
    word = "PASS" if ok else "FAIL"
    how = ("Holm at family-wise 1% over " if rule == "holm" else "NIST's flags literally over ")
    what = "P-values" if streams == 1 else "second-level P-values"
    text = f"{word}: {how}{len(judged)} {what} of {streams:,} sequence(s)"
    if failed:
        text += "; rejected: " + "; ".join(f"{j.column.title} ({j.figure}, p = {j.p_value:.3g})"
                                           for j in failed[:6])
        if len(failed) > 6:
            text += f"; and {len(failed) - 6} more"
    elif not judged:
        text += " (no test applied)"
    return Verdict(ok, rule, judged, flagged, text)


def col_flag(summaries: list[ColumnSummary], col: Column, figure: str) -> bool:
    for s in summaries:
        if s.column is col:
            return s.proportion_flag if figure == "proportion" else s.uniformity_flag
    return False
