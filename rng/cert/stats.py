"""Small statistical building blocks shared by the battery.

Pearson's chi-square needs every expected count to be large enough for its chi-square
approximation (the usual rule, e.g. Knuth TAOCP vol. 2 §3.3.1, is at least 5); bins
below that are pooled with their neighbours *in their natural order* (gap lengths, run
lengths, collection times) so that a tail is pooled into a tail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special, stats

FloatArray = npt.NDArray[np.float64]
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    df: int
    p_value: float
    bins: int
    pooled: bool
    min_expected: float


def pool_bins(
    observed: npt.ArrayLike, expected: npt.ArrayLike, min_expected: float = MIN_EXPECTED
) -> tuple[FloatArray, FloatArray]:
    """Merge adjacent bins, left to right, until each expected count is >= min_expected.

    A short remainder at the end joins the last full bin. Observed and expected totals are
    preserved.
    """
    obs = np.asarray(observed, dtype=np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    out_o: list[float] = []
    out_e: list[float] = []
    acc_o = acc_e = 0.0
    for o, e in zip(obs, exp, strict=True):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            out_o.append(acc_o)
            out_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        if out_o:
            out_o[-1] += acc_o
            out_e[-1] += acc_e
        else:
            out_o.append(acc_o)
            out_e.append(acc_e)
    return np.array(out_o), np.array(out_e)


def chisquare(
    observed: npt.ArrayLike,
    probabilities: npt.ArrayLike,
    *,
    pool: bool = True,
    ddof: int = 0,
) -> ChiSquare:
    """Pearson's goodness of fit of counts against probabilities (normalized here).

    ``pool`` merges low-expectation bins (see :func:`pool_bins`); without it every bin is
    kept and ``min_expected`` tells the reader how far to trust the approximation.
    """
    obs = np.asarray(observed, dtype=np.float64)
    prob = np.asarray(probabilities, dtype=np.float64)
    prob = prob / prob.sum()
    total = obs.sum()
    exp = prob * total
    keep = exp > 0
    if np.any(obs[~keep] > 0):  # an outcome of probability 0 happened: certain failure
        return ChiSquare(math.inf, int(keep.sum()) - 1, 0.0, int(keep.sum()), False, 0.0)
    obs, exp = obs[keep], exp[keep]
    pooled = False
    if pool and exp.size and exp.min() < MIN_EXPECTED:
        obs, exp = pool_bins(obs, exp)
        pooled = True
    df = obs.size - 1 - ddof
    if df < 1 or total <= 0:
        return ChiSquare(0.0, max(df, 0), 1.0, obs.size, pooled, float(exp.min(initial=0)))
    stat = float(np.sum((obs - exp) ** 2 / exp))
    return ChiSquare(stat, df, float(stats.chi2.sf(stat, df)), obs.size, pooled, float(exp.min()))


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return float(special.erfc(abs(z) / math.sqrt(2.0)))


def poisson_at_least(count: int, lam: float) -> float:
    """P(X >= count) for X ~ Poisson(lam)."""
    if count <= 0:
        return 1.0
    return float(stats.poisson.sf(count - 1, lam))


def scaled_chi2_sf(x: float, trace: float, trace_sq: float) -> tuple[float, float, float]:
    """Tail of a quadratic form Q = sum(l_i Z_i^2) by Satterthwaite's two-moment match.

    Q has mean ``trace`` = sum(l_i) and variance 2 * ``trace_sq`` = 2 * sum(l_i^2); it is
    approximated by c * chi2(nu) with c = trace_sq / trace and nu = trace^2 / trace_sq
    (Satterthwaite 1946, Biometrics Bull. 2:110-114; Box 1954, Ann. Math. Statist.
    25:290-302). Exact when all non-zero l_i are equal. Returns (p, c, nu).
    """
    c = trace_sq / trace
    nu = trace * trace / trace_sq
    return float(stats.chi2.sf(x / c, nu)), c, nu


def fmt_p(p: float) -> str:
    """A p-value for a table: 6 significant figures, tiny ones in exponent form."""
    if math.isnan(p):
        return "n/a"
    if p == 0.0:
        return "< 1e-300"
    if p < 1e-4:
        return f"{p:.3e}"
    return f"{p:.6f}"
