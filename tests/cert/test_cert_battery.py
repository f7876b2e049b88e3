"""The outcome and shuffle batteries: exact null distributions, streaming, the family."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from cert_fakes import MULTIPLIERS, TARGETS, good

from rng.cert.battery import OutcomeBattery
from rng.cert.patterns import coupon_probabilities, poker_probabilities
from rng.cert.results import TestResult, holm, judge_family
from rng.cert.serial import SerialCorrelation
from rng.cert.shuffles import ShuffleBattery, pair_moments
from rng.cert.stats import chisquare, pool_bins
from rng.cert.tables import card_table


def _stirling2(n: int, k: int) -> int:
    total = sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1))
    return total // math.factorial(k)


def test_poker_probabilities_match_knuth_for_equal_values() -> None:
    """Knuth §3.3.2 D: P(r) = d(d-1)...(d-r+1) / d^5 * S(5, r)."""
    d = 10
    expected = [math.perm(d, r) * _stirling2(5, r) / d**5 for r in range(1, 6)]
    assert poker_probabilities([1] * d) == pytest.approx(expected, abs=1e-14)


def test_poker_probabilities_for_unequal_values_by_enumeration() -> None:
    p = np.array([0.5, 0.3, 0.2])
    exact = np.zeros(5)
    for hand in itertools.product(range(3), repeat=5):
        exact[len(set(hand)) - 1] += np.prod(p[list(hand)])
    assert poker_probabilities(p) == pytest.approx(exact, abs=1e-14)


def test_coupon_probabilities_equal_values_match_knuth() -> None:
    """Knuth §3.3.2 E: P(r) = d!/d^r * S(r-1, d-1)."""
    d = 5
    probs = coupon_probabilities([1] * d, 40)
    for r in range(d, 40):
        assert probs[r] == pytest.approx(
            math.factorial(d) / d**r * _stirling2(r - 1, d - 1), abs=1e-13)
    # the subset chain for unequal probabilities agrees in the equal limit
    near = coupon_probabilities([1, 1, 1, 1, 1 + 1e-9], 40)
    assert near[:40] == pytest.approx(probs[:40], abs=1e-8)
    assert coupon_probabilities([0.5, 0.3, 0.2], 500).sum() == pytest.approx(1.0)


def test_pooling_keeps_totals_and_minimum() -> None:
    o, e = pool_bins([1, 2, 3, 50, 1, 0], [1.0, 2.0, 3.0, 48.0, 2.0, 1.0])
    assert o.sum() == 57 and e.sum() == pytest.approx(57.0) and e.min() >= 5
    cs = chisquare([10, 0], [1.0, 0.0])
    assert cs.df == 0 and cs.p_value == 1.0
    assert chisquare([10, 1], [1.0, 0.0]).p_value == 0.0  # an impossible value happened


def test_serial_correlation_is_exact_under_chunking() -> None:
    x = good(TARGETS, 10_007, 1)
    one = SerialCorrelation("x")
    one.update(x)
    many = SerialCorrelation("x")
    for c in np.array_split(x, 13):
        many.update(c)
    assert one.lagged == many.lagged and one.correlations() == many.correlations()
    v = x.astype(float)
    ref = [np.sum((v[:-k] - v.mean()) * (v[k:] - v.mean())) / np.sum((v - v.mean()) ** 2)
           for k in range(1, 11)]
    assert one.correlations() == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("table", [TARGETS, MULTIPLIERS, card_table()], ids=lambda t: t.kind)
def test_battery_results_do_not_depend_on_chunking(table) -> None:
    x = good(table, 30_000, 2)
    a = OutcomeBattery(table, x.size)
    a.update(x)
    b = OutcomeBattery(table, x.size)
    for c in np.array_split(x, 17):
        b.update(c)
    for ra, rb in zip(a.results(), b.results(), strict=True):
        assert ra.name == rb.name
        assert ra.statistic == pytest.approx(rb.statistic, rel=1e-9, abs=1e-12), ra.name
        assert ra.p_value == pytest.approx(rb.p_value, rel=1e-9, abs=1e-12), ra.name


def test_coupon_segments_are_found_exactly() -> None:
    from rng.cert.coupon import CouponCollector

    x = np.array([0, 1, 1, 2, 0, 0, 2, 1, 2, 2, 2, 1, 0, 2], dtype=np.uint8)
    cc = CouponCollector([1, 1, 1], "x")
    cc.update(x[:5])
    cc.update(x[5:])
    # [0 1 1 2] [0 0 2 1] [2 2 2 1 0]; "2" left over
    assert cc.hist == {4: 2, 5: 1} and cc.open_len == 1


def _enumerate_pairs(m: list[int]) -> tuple[np.ndarray, np.ndarray]:
    base = [c for c, k in enumerate(m) for _ in range(k)]
    kk = len(m)
    ys = []
    for perm in set(itertools.permutations(base)):
        y = np.zeros((kk, kk))
        for a, b in itertools.pairwise(perm):
            y[a, b] += 1
        ys.append(y.ravel())
    arr = np.array(ys)
    return arr.mean(axis=0), np.cov(arr.T, bias=True)


@pytest.mark.parametrize("m", [[1, 1, 1, 1], [2, 2, 1], [2, 2, 2]])
def test_pair_moments_match_exact_enumeration(m: list[int]) -> None:
    mu, tr, tr2 = pair_moments(m)
    mean, cov = _enumerate_pairs(m)
    assert mu.ravel() == pytest.approx(mean, abs=1e-12)
    ok = mean > 0
    scale = 1 / np.sqrt(mean[ok])
    mm = cov[np.ix_(ok, ok)] * scale[:, None] * scale[None, :]
    assert tr == pytest.approx(np.trace(mm), rel=1e-10)
    assert tr2 == pytest.approx(np.sum(mm * mm), rel=1e-10)


def test_position_matrix_statistic_has_the_stated_mean() -> None:
    """E[X^2] over one shoe is n (k - 1), i.e. X^2 (n-1)/n has mean (k-1)(n-1)."""
    m = [2, 2, 1]
    base = [c for c, k in enumerate(m) for _ in range(k)]
    perms = np.array(sorted(set(itertools.permutations(base))))
    bat = ShuffleBattery(m)
    n, k = 5, 3
    vals = []
    for row in perms:
        b = ShuffleBattery(m)
        b.update(row[None, :])
        exp = np.array(m)[:, None] / n
        vals.append(float(np.sum((b.position - exp) ** 2 / exp)))
    assert np.mean(vals) == pytest.approx(n * (k - 1))
    bat.update(perms)
    assert bat.repeats == 0


def test_holm_step_down() -> None:
    assert holm([0.001, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.03, 0.5], 0.05) == [True, True, False, False]
    assert holm([0.02, 0.02], 0.01) == [False, False]


def test_family_verdict_marks_single_failures() -> None:
    rs = [TestResult("s", f"t{i}", 0.0, p) for i, p in enumerate([0.005, 0.5, 0.9, 1e-9])]
    v = judge_family(rs)
    verdicts = [r.verdict for r in v.results]
    assert verdicts == ["pass (Holm)", "pass", "pass", "FAIL"]
    assert not v.passed and v.raw_failures == 2
    na = TestResult("s", "n/a", 0.0, 0.0, applicable=False)
    assert judge_family([na]).passed and judge_family([na]).m == 0
