"""Power: the battery catches bad generators, and passes a good one at the expected rate.

Fixed seeds keep every test deterministic. "Catches" means the family verdict (Holm at
family-wise 1%) fails, and the test built for the defect is among the rejected ones.
"""

from __future__ import annotations

import numpy as np
from cert_fakes import (
    MULTIPLIERS,
    TARGETS,
    dependent_pairs,
    fisher_yates,
    good,
    lcg_low_bits_cards,
    modulo_biased_cards,
    off_by_one_cumulative,
    repeated_seed,
    wrong_weight_order,
)

from rng.cert.battery import OutcomeBattery
from rng.cert.frequency import IndependenceCounter
from rng.cert.results import judge_family
from rng.cert.shuffles import ShuffleBattery
from rng.cert.tables import OutcomeTable, card_table

CARDS = card_table()


def _battery(table: OutcomeTable, x: np.ndarray) -> list:
    bat = OutcomeBattery(table, x.size)
    for chunk in np.array_split(x, 3):
        bat.update(chunk)
    return bat.results()


def _rejected(results: list) -> set[str]:
    verdict = judge_family(results)
    assert not verdict.passed
    return {r.name for r in verdict.rejected}


def test_modulo_biased_scaling_fails_goodness_of_fit() -> None:
    """§ 810a.5(d): scaling must preserve the distribution; byte % 52 does not."""
    names = _rejected(_battery(CARDS, modulo_biased_cards(40_000, 1)))
    assert "chi-square goodness of fit to the weights" in names


def test_short_period_low_bits_fail_independence_tests() -> None:
    """An LCG's low bits cycle with period 4; x % 52 keeps them: serial tests see it."""
    names = _rejected(_battery(CARDS, lcg_low_bits_cards(20_000, 7)))
    assert any(n.startswith("serial correlation") for n in names) or (
        "poker test (hands of 5)" in names)


def test_repeated_seed_fails_overlaps_test() -> None:
    """Re-seeding with the same seed replays outcomes: the overlaps test finds the replay."""
    names = _rejected(_battery(TARGETS, repeated_seed(TARGETS, 20_000, 3, every=2_500)))
    assert "repeated subsequences (overlaps)" in names


def test_weight_table_in_wrong_order_fails_goodness_of_fit() -> None:
    names = _rejected(_battery(MULTIPLIERS, wrong_weight_order(MULTIPLIERS, 5_000, 4)))
    assert "chi-square goodness of fit to the weights" in names


def test_weight_lookup_off_by_one_fails_goodness_of_fit() -> None:
    names = _rejected(_battery(TARGETS, off_by_one_cumulative(TARGETS, 200_000, 5)))
    assert "chi-square goodness of fit to the weights" in names


def test_dependent_target_and_multiplier_fail_independence() -> None:
    """§ 633b.28(e): target and multiplier are selected independently."""
    t, m = dependent_pairs(5_000, 6)
    ind = IndependenceCounter(TARGETS.k, MULTIPLIERS.k, "pairs")
    ind.update(t, m)
    assert ind.results()[0].p_value < 1e-10


def _shoe_results(rows: np.ndarray, m: np.ndarray) -> list:
    bat = ShuffleBattery(m)
    bat.update(rows)
    return bat.results()


def test_off_by_one_fisher_yates_fails_position_matrix() -> None:
    base = np.arange(52)
    rows = fisher_yates(base, 400, 8, off_by_one=True)
    names = _rejected(_shoe_results(rows, np.ones(52, dtype=np.int64)))
    assert "card-by-position matrix" in names


def test_repeated_seed_shoes_fail_repeated_shoes_test() -> None:
    base = np.tile(np.arange(52), 2)
    rows = np.concatenate([fisher_yates(base, 100, 9, off_by_one=False)] * 3)
    names = _rejected(_shoe_results(rows, np.full(52, 2, dtype=np.int64)))
    assert "repeated shoes" in names


def test_good_shuffle_passes() -> None:
    base = np.tile(np.arange(52), 2)
    rows = fisher_yates(base, 400, 10, off_by_one=False)
    assert judge_family(_shoe_results(rows, np.full(52, 2, dtype=np.int64))).passed


def test_good_generator_fails_single_tests_at_the_expected_rate() -> None:
    """Over 120 seeds each test's p-value falls below 0.01 about 1% of the time.

    With 120 seeds x ~25 tests = ~3000 p-values the count below 0.01 is ~30; the bounds
    are 99.99% binomial limits. Each test alone stays within its own 99.99% limit over the
    120 seeds, and the family verdict (Holm, family-wise 1%) fails within its 99.99% limit.
    """
    from scipy import stats

    seeds = 120
    below = 0
    total = 0
    per_test: dict[str, int] = {}
    family_fails = 0
    for seed in range(seeds):
        results = _battery(TARGETS, good(TARGETS, 2_000, 1000 + seed))
        judged = [r for r in results if r.applicable]
        total += len(judged)
        for r in judged:
            if r.p_value < 0.01:
                below += 1
                per_test[r.name] = per_test.get(r.name, 0) + 1
        family_fails += not judge_family(results).passed
    lo, hi = stats.binom.ppf([0.00005, 0.99995], total, 0.01)
    assert lo <= below <= hi, (below, total)
    single_hi = stats.binom.ppf(0.99995, seeds, 0.01)
    assert max(per_test.values(), default=0) <= single_hi, per_test
    assert family_fails <= single_hi
