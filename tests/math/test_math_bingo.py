"""Bingo weight tables chosen from the computed return (issue 11 point 6, baseline §3)."""

from __future__ import annotations

from firmware.math.games.bingo_weights import choose_weights, total_return
from firmware.math.games.house_edge import analyse
from firmware.math.ruleset import load


def test_baseline_3_default_weights_are_the_computed_ones_and_return_95_to_99() -> None:
    """baseline §3: defaults come from `etg par`, reproducibly, with a 95%-99% total return."""
    rules = load("bingo")
    res = analyse(rules)
    assert res.by_lane is not None
    ch = choose_weights(res.by_lane, rules)
    assert (ch.target_weights, ch.multiplier_weights) == (
        rules.target_weights, rules.multiplier_weights)
    rtp = 1 - res.house_edge_total
    assert 0.95 <= rtp <= 0.99
    assert abs(rtp - total_return(res.by_lane, rules, rules.target_weights,
                                  rules.multiplier_weights)) < 1e-12


def test_baseline_3_uniform_weights_would_pay_over_100_percent() -> None:
    rules = load("bingo")
    res = analyse(rules)
    assert res.by_lane is not None
    assert total_return(res.by_lane, rules, (1,) * 10, (1,) * 6) > 1.0
