"""Shuffle tests: card-by-position matrix, adjacent pairs, repeated shoes.

A shoe of n cards holds k card codes, code a m_a times (m_a = decks; a Spanish shoe has
48 codes). A fair shuffle makes every distinct order of the shoe equally likely. With S
shuffled shoes:

* **Card-by-position matrix** (§ 810a.5(c)(9) "adjacency criterion" and permutation
  tests; the standard lab check of a shuffle): counts O[a, t] of code a at position t,
  expected S m_a / n. Each shoe adds a (multiset) permutation matrix, whose covariance is
  (1/(n-1)) (diag(m) - m m^T / n) (x) (I - J/n); so Pearson's X^2 tends to
  n/(n-1) * chi2((k-1)(n-1)) (derivation in docs/cert.md), and X^2 (n-1)/n is referred
  to chi2((k-1)(n-1)). An off-by-one Fisher-Yates (Sattolo's algorithm, or j drawn from
  [0, i) instead of [0, i]) leaves cards away from their start positions and fails this
  at once.
* **Adjacent pairs**: counts of (code at t, code at t+1). Neighbouring pairs overlap and
  the composition of a shoe is fixed, so Pearson's X^2 is not chi-square; its asymptotic
  law is a weighted sum of chi2(1) whose first two moments follow exactly from the
  pair, triple and quadruple probabilities of sampling without replacement, and the
  p-value uses Satterthwaite's scaled chi-square with those moments.
* **Repeated shoes**: the number of shoes that equal an earlier one. There are
  n! / prod(m_a!) orders (about 10^1000 for eight decks), so under the null the expected
  number is ~0 and any repeat (a re-used seed) gives p ~ 0.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from rng.cert.results import TestResult
from rng.cert.stats import poisson_at_least, scaled_chi2_sf

IntArray = npt.NDArray[np.int64]


def pair_moments(m: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], float, float]:
    """Per-shoe mean of the pair counts and tr(M), tr(M^2) of the asymptotic form.

    ``m`` is the multiplicity of each code. Returns (mu (k x k), trace, trace_sq) where
    M = D^-1/2 Cov D^-1/2 over the cells with mu > 0.
    """
    mm = np.asarray(m, dtype=np.float64)
    k = mm.size
    n = float(mm.sum())
    eye = np.eye(k)
    p2 = mm[:, None] * (mm[None, :] - eye) / (n * (n - 1))
    mu = (n - 1) * p2
    ok = mu > 0
    inv_sqrt = np.zeros_like(mu)
    inv_sqrt[ok] = 1.0 / np.sqrt(mu[ok])
    trace = 0.0
    trace_sq = 0.0
    d = eye  # delta
    b_ = np.arange(k)
    for a in range(k):
        # arrays over (b, c, d) for this a
        dab = d[a][:, None, None]
        dac = d[a][None, :, None]
        dad = d[a][None, None, :]
        dbc = d[:, :, None]
        dbd = d[:, None, :]
        dcd = d[None, :, :]
        mb = mm[:, None, None]
        mc = mm[None, :, None]
        md = mm[None, None, :]
        p4 = (mm[a] * (mb - dab) * (mc - dac - dbc) * (md - dad - dbd - dcd)
              / (n * (n - 1) * (n - 2) * (n - 3)))
        # triples: (a, b, d) at t, t+1, t+2 when c == b; (c, a, b) when d == a
        p3_abd = mm[a] * (mb - dab) * (md - dad - dbd) / (n * (n - 1) * (n - 2))
        p3_cab = (mc * (mm[a] - dac) * (mb - dab - dbc)) / (n * (n - 1) * (n - 2))
        second = (n - 2) * (dbc * p3_abd + dad * p3_cab) + (n - 2) * (n - 3) * p4
        # the diagonal term (same pair at the same position): (a,b) == (c,d)
        same = dac * dbd
        second = second + (n - 1) * same * p2[a][:, None, None]
        cov = second - mu[a][:, None, None] * mu[None, :, :]
        scaled = cov * inv_sqrt[a][:, None, None] * inv_sqrt[None, :, :]
        trace += float(np.sum(scaled[b_, a, b_]))
        trace_sq += float(np.sum(scaled * scaled))
    return mu, trace, trace_sq


class ShuffleBattery:
    """Feed shoes (rows of code indexes, one composition), then :meth:`results`."""

    _TABLES = ("position", "pairs")  # counts by card and position, by card and next card

    def __init__(self, multiplicities: npt.ArrayLike, subject: str = "Shuffled shoes") -> None:
        self.m = np.asarray(multiplicities, dtype=np.int64)
        self.k = self.m.size
        self.n = int(self.m.sum())
        self.position = np.zeros((self.k, self.n), dtype=np.int64)
        self.pairs = np.zeros((self.k, self.k), dtype=np.int64)
        self.shoes = 0
        self.digests: set[bytes] = set()
        self.repeats = 0
        self.subject = subject

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with a table that counted nothing as its shape alone (a block of a
        run without shoes, or with fewer shoes than blocks: 173 KB of zeros)."""
        return {name: value.shape if name in self._TABLES and not value.any() else value
                for name, value in self.__dict__.items()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({name: np.zeros(value, dtype=np.int64)
                              if name in self._TABLES and isinstance(value, tuple) else value
                              for name, value in state.items()})

    def update(self, shoes: IntArray) -> None:
        rows = np.asarray(shoes, dtype=np.int64)
        if rows.ndim != 2 or rows.shape[1] != self.n:
            raise ValueError(f"each shoe must have {self.n} cards")
        s = rows.shape[0]
        flat = rows * self.n + np.arange(self.n)[None, :]
        self.position += np.bincount(flat.ravel(), minlength=self.k * self.n).reshape(
            self.k, self.n)
        pair = rows[:, :-1] * self.k + rows[:, 1:]
        self.pairs += np.bincount(pair.ravel(), minlength=self.k * self.k).reshape(
            self.k, self.k)
        packed = rows.astype(np.uint8 if self.k <= 256 else np.uint16)
        for row in packed:
            dig = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
            if dig in self.digests:
                self.repeats += 1
            else:
                self.digests.add(dig)
        self.shoes += s

    def merge(self, later: ShuffleBattery) -> None:
        """Add the shoes of another block (a shoe equal to an earlier one is a repeat)."""
        self.position += later.position
        self.pairs += later.pairs
        self.repeats += later.repeats
        for dig in later.digests:
            if dig in self.digests:
                self.repeats += 1
            else:
                self.digests.add(dig)
        self.shoes += later.shoes

    def results(self) -> list[TestResult]:
        return [self._position(), self._pairs(), self._repeats()]

    def _position(self) -> TestResult:
        s, n, k = self.shoes, self.n, self.k
        exp = s * self.m[:, None] / n
        x2 = float(np.sum((self.position - exp) ** 2 / exp)) if s else 0.0
        stat = x2 * (n - 1) / n
        df = (k - 1) * (n - 1)
        ok = s >= 2 and float(exp.min()) >= 1.0
        p = float(stats.chi2.sf(stat, df)) if ok else 1.0
        return TestResult(
            self.subject, "card-by-position matrix", stat, p, f"chi2({df})", s,
            f"{k} codes x {n} positions, expected {float(exp.min()):.1f} per cell; "
            "X^2 (n-1)/n", "Pearson chi-square with the permutation-matrix covariance "
            "(docs/cert.md)", applicable=ok)

    def _pairs(self) -> TestResult:
        mu, tr, tr2 = pair_moments(self.m)
        s = self.shoes
        exp = s * mu
        cells = mu > 0
        x2 = float(np.sum((self.pairs[cells] - exp[cells]) ** 2 / exp[cells])) if s else 0.0
        ok = s >= 2 and float(exp[cells].min()) >= 1.0
        p, c, nu = scaled_chi2_sf(x2, tr, tr2)
        return TestResult(
            self.subject, "adjacent-pair frequencies", x2, p if ok else 1.0,
            f"{c:.4f} x chi2({nu:.1f})", s,
            f"{int(cells.sum())} ordered pairs, expected {float(exp[cells].min()):.1f} per "
            "cell; Satterthwaite with exact moments", "Pearson chi-square; Satterthwaite 1946",
            applicable=ok)

    def _repeats(self) -> TestResult:
        s = self.shoes
        log_orders = math.lgamma(self.n + 1) - sum(math.lgamma(int(x) + 1) for x in self.m)
        log_pairs = math.log(s * (s - 1) / 2) if s >= 2 else -math.inf
        lam = math.exp(log_pairs - log_orders) if s >= 2 else 0.0
        p = poisson_at_least(self.repeats, lam) if self.repeats else 1.0
        return TestResult(
            self.subject, "repeated shoes", float(self.repeats), p, "Poisson", s,
            f"{s} shoes, 10^{log_orders / math.log(10):.0f} possible orders",
            "birthday bound", applicable=s >= 2, continuous=False)

    def plot_data(self) -> dict[str, object]:
        exp = self.shoes * self.m[:, None] / self.n
        resid = (self.position - exp) / np.sqrt(np.where(exp > 0, exp, 1.0))
        mu, _, _ = pair_moments(self.m) if self.k <= 64 else (None, 0, 0)
        pair_resid = None
        if mu is not None:
            e2 = self.shoes * mu
            pair_resid = np.where(e2 > 0, (self.pairs - e2) / np.sqrt(np.where(e2 > 0, e2, 1)),
                                  0.0)
        return {"position_residuals": resid, "pair_residuals": pair_resid}
