"""Distribution tests: goodness of fit to the configured weights, and independence.

* **Chi-square goodness of fit** (Pearson 1900; Knuth, TAOCP vol. 2, 3rd ed., §3.3.1 B):
  the counts of the k values against N * weight / total weight, k - 1 degrees of freedom.
  This is the § 810a.5(c)(1)-(2) chi-square / equi-distribution test with the configured
  weights as the null; it catches a biased scaling (modulo bias) and a weight table
  applied wrongly.
* **Target x multiplier independence** (Pearson's contingency chi-square, e.g. Agresti,
  *Categorical Data Analysis*, §3.2): § 633b.28(e) has the RNG select the target and the
  multiplier *independently*; the k1 x k2 table of pairs is tested against the product of
  its margins, (k1 - 1)(k2 - 1) degrees of freedom.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy import stats

from rng.cert.results import TestResult
from rng.cert.stats import chisquare

KNUTH = "Knuth, TAOCP vol. 2 (3rd ed.)"


class FrequencyCounter:
    """Counts of each value; the goodness-of-fit test against the configured weights."""

    def __init__(self, probabilities: npt.ArrayLike, subject: str) -> None:
        self.p = np.asarray(probabilities, dtype=np.float64)
        self.counts = np.zeros(self.p.size, dtype=np.int64)
        self.subject = subject

    def update(self, x: npt.NDArray[np.integer]) -> None:
        self.counts += np.bincount(x, minlength=self.p.size)[: self.p.size]

    def merge(self, later: FrequencyCounter) -> None:
        self.counts += later.counts

    def results(self) -> list[TestResult]:
        n = int(self.counts.sum())
        cs = chisquare(self.counts, self.p, pool=True)
        detail = f"min expected count {cs.min_expected:.1f}"
        if cs.pooled:
            detail += "; rare values pooled with neighbours to keep expected counts >= 5"
        return [TestResult(self.subject, "chi-square goodness of fit to the weights",
                           cs.statistic, cs.p_value, f"chi2({cs.df})", n, detail,
                           f"Pearson 1900; {KNUTH} §3.3.1 B")]


class IndependenceCounter:
    """The contingency table of (a, b) pairs drawn together."""

    def __init__(self, ka: int, kb: int, subject: str) -> None:
        self.ka, self.kb = ka, kb
        self.table = np.zeros((ka, kb), dtype=np.int64)
        self.subject = subject

    def update(self, a: npt.NDArray[np.integer], b: npt.NDArray[np.integer]) -> None:
        if a.shape != b.shape:
            raise ValueError("independence test needs pairs: both sequences of equal length")
        flat = a.astype(np.int64) * self.kb + b
        self.table += np.bincount(flat, minlength=self.ka * self.kb).reshape(self.ka, self.kb)

    def merge(self, later: IndependenceCounter) -> None:
        self.table += later.table

    def results(self) -> list[TestResult]:
        t = self.table
        n = int(t.sum())
        rows, cols = t.sum(axis=1), t.sum(axis=0)
        keep_r, keep_c = rows > 0, cols > 0
        sub = t[np.ix_(keep_r, keep_c)].astype(np.float64)
        df = (sub.shape[0] - 1) * (sub.shape[1] - 1)
        name = "target x multiplier independence (contingency chi-square)"
        ref = "Pearson contingency chi-square; Agresti, Categorical Data Analysis §3.2"
        if df < 1:
            return [TestResult(self.subject, name, 0.0, 1.0, "chi2(0)", n,
                               "fewer than two values observed on one side", ref,
                               applicable=False)]
        exp = np.outer(sub.sum(axis=1), sub.sum(axis=0)) / n
        stat = float(np.sum((sub - exp) ** 2 / exp))
        p = float(stats.chi2.sf(stat, df))
        detail = f"{sub.shape[0]}x{sub.shape[1]} table, min expected count {exp.min():.1f}"
        if exp.min() < 5:
            detail += " (below 5: the chi-square approximation is rough for rare pairs)"
        return [TestResult(self.subject, name, stat, p, f"chi2({df})", n, detail, ref)]
