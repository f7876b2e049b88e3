"""Test results and how a family of them is judged at the 99% level.

Every test of the battery yields one :class:`TestResult` with its statistic and p-value.
A certification run produces dozens of them, so "fail if any p < 0.01" would fail a
perfect generator most of the time (with 60 tests, 1 - 0.99^60 = 45%). The family is
therefore judged with **Holm's step-down procedure** at a family-wise error rate of 1%
(Holm 1979, "A simple sequentially rejective multiple test procedure", Scand. J.
Statist. 6:65-70): sort the m p-values, compare the i-th smallest with 0.01 / (m - i + 1),
and reject until the first one that passes. Holm controls the chance of *any* false
failure at 1% whatever the dependence between the tests (several tests read the same
sample), which a lab can check by hand.

Two second-level figures are reported as supporting evidence, not as the verdict: the
number of tests below 0.01 against its binomial expectation m * 0.01, and a
Kolmogorov-Smirnov test of the p-values against uniformity (the NIST SP 800-22 idea of
looking at the p-value distribution). Neither decides, because p-values computed from the
same sample are dependent, and the binomial and KS null distributions assume independence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

ALPHA = 0.01  # per-test and family-wise significance level: the 99% level


@dataclass(frozen=True)
class TestResult:
    """One test on one subject: its statistic, p-value and where the method comes from."""

    subject: str  # e.g. "Bingo targets"
    name: str  # e.g. "chi-square goodness of fit"
    statistic: float
    p_value: float
    df: str = ""  # degrees of freedom or the null distribution, as text
    n: int = 0  # sample size the test used (outcomes, gaps, shuffles, bits...)
    detail: str = ""
    reference: str = ""
    applicable: bool = True  # False: too little data; listed, not judged
    holm_reject: bool = False  # filled in by judge_family
    # False for tests whose p-value is discrete by design (a Poisson count with mean ~0
    # gives p = 1 or p ~ 0): they take part in Holm but not in the uniformity check
    continuous: bool = True

    __test__ = False  # not a pytest test class

    @property
    def passed_single(self) -> bool:
        """Verdict of this test alone at the 99% level."""
        return not self.applicable or self.p_value >= ALPHA

    @property
    def verdict(self) -> str:
        if not self.applicable:
            return "n/a"
        if self.holm_reject:
            return "FAIL"
        return "pass" if self.p_value >= ALPHA else "pass (Holm)"

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "test": self.name,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "n": self.n,
            "verdict": self.verdict,
            "below_0.01": self.applicable and self.p_value < ALPHA,
            "detail": self.detail,
            "reference": self.reference,
        }


@dataclass(frozen=True)
class FamilyVerdict:
    """The judgement of a whole family of tests."""

    results: tuple[TestResult, ...]
    alpha: float
    m: int  # tests judged (applicable ones)
    raw_failures: int  # p < alpha before correction
    expected_failures: float
    binomial_p: float  # P(at least raw_failures failures | all nulls true, independent)
    ks_statistic: float
    ks_p: float
    rejected: tuple[TestResult, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.rejected


def holm(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down rejections, in the input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    reject = [False] * m
    for rank, i in enumerate(order):
        if p_values[i] < alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject


def judge_family(results: Sequence[TestResult], alpha: float = ALPHA) -> FamilyVerdict:
    """Apply Holm at ``alpha`` to the applicable results; add the second-level figures."""
    from scipy import stats

    judged = [r for r in results if r.applicable]
    rejects = holm([r.p_value for r in judged], alpha)
    flag = {id(r): rej for r, rej in zip(judged, rejects, strict=True)}
    out = tuple(replace(r, holm_reject=flag.get(id(r), False)) for r in results)
    m = len(judged)
    raw = sum(1 for r in judged if r.p_value < alpha)
    binom_p = float(stats.binom.sf(raw - 1, m, alpha)) if m else 1.0
    smooth = [r.p_value for r in judged if r.continuous]
    if len(smooth) >= 2:
        ks = stats.kstest(smooth, "uniform")
        ks_stat, ks_p = float(ks.statistic), float(ks.pvalue)
    else:
        ks_stat, ks_p = math.nan, math.nan
    return FamilyVerdict(
        results=out,
        alpha=alpha,
        m=m,
        raw_failures=raw,
        expected_failures=m * alpha,
        binomial_p=binom_p,
        ks_statistic=ks_stat,
        ks_p=ks_p,
        rejected=tuple(r for r in out if r.holm_reject),
    )


METHOD_TEXT = (
    "Each test is computed at the 99% level (alpha = 0.01) and its p-value is listed. "
    "The run as a whole is judged with Holm's step-down procedure at a family-wise error "
    "rate of 1%: the i-th smallest of the m p-values is compared with 0.01/(m-i+1), and a "
    "test is failed only if it and every smaller p-value fall below their thresholds. "
    "Holm keeps the chance that a perfect generator fails the run at or below 1% whatever "
    "the dependence between tests. A single p-value below 0.01 that Holm does not reject "
    "is marked 'pass (Holm)': about m x 0.01 of those are expected from a perfect "
    "generator. As supporting evidence the report gives the count of p-values below 0.01 "
    "against its binomial expectation and a Kolmogorov-Smirnov test of the p-values "
    "against uniformity (leaving out the repeat tests, whose p-value is 1 unless something "
    "repeats); these do not decide the verdict because p-values from one sample are "
    "dependent."
)
