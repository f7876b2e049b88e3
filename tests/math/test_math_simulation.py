"""Monte Carlo through the engine and the fast path (issue 11 points 4, 5 and 7).

Kept small for the test budget: the tolerance is 3 standard errors of the run itself,
which at these sizes is about 2% of the wager for the engine and 0.4% for the fast path.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from firmware.math.games.house_edge import analyse
from firmware.math.ruleset import load
from firmware.math.simulation.engine_rounds import play_engine_rounds
from firmware.math.simulation.fast_path import play_fast_rounds
from firmware.math.simulation.rtp import run_rtp


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load("blackjack", {"decks": 6})


def test_engine_monte_carlo_agrees_with_calculation(rules) -> None:  # type: ignore[no-untyped-def]
    res = run_rtp(rules, 8000, jobs=1, seed=11)
    exact = analyse(rules).house_edge
    assert abs(res.house_edge - exact) < 3 * res.stderr


def test_fast_path_agrees_with_calculation(rules) -> None:  # type: ignore[no-untyped-def]
    res = run_rtp(rules, 300_000, jobs=1, seed=12, fast=True)
    exact = analyse(rules).house_edge
    assert abs(res.house_edge - exact) < 3 * res.stderr


def _binned(outcomes, edges):  # type: ignore[no-untyped-def]
    out = np.zeros(len(edges) + 1)
    for cents, n in outcomes.items():
        out[np.searchsorted(edges, cents / 1000, side="right")] += n
    return out


def test_fast_path_distribution_matches_engine_chi_square(rules) -> None:  # type: ignore[no-untyped-def]
    """The distribution of round results of both paths agrees (chi-square, 2 x k table)."""
    eng = play_engine_rounds(rules, 6000, np.random.SeedSequence(5))
    fast = play_fast_rounds(rules, 200_000, np.random.SeedSequence(6))
    edges = np.array([-2.5, -1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 1.75, 2.5])
    table = np.vstack([_binned(eng.outcomes, edges), _binned(fast.outcomes, edges)])
    table = table[:, table.min(axis=0) >= 5]
    _, p, _, _ = chi2_contingency(table)
    assert p > 0.001


def test_seeded_runs_repeat_whatever_the_jobs(rules) -> None:  # type: ignore[no-untyped-def]
    a = run_rtp(rules, 4000, jobs=1, seed=3)
    b = run_rtp(rules, 4000, jobs=2, seed=3)
    assert a.tally.total == b.tally.total and a.tally.rounds == b.tally.rounds == 4000


def test_fast_path_without_numba_is_one_clear_line(rules, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """numba is the optional `math` extra: without it --fast names what to install."""
    import sys

    from etgcore.errors import UserError

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "firmware.math.simulation.fast_path_kernel", raising=False)
    with pytest.raises(UserError, match=r"needs numba.*etg-firmware\[math\]"):
        play_fast_rounds(rules, 10, 1)


def test_fast_path_seeded_runs_repeat(rules) -> None:  # type: ignore[no-untyped-def]
    a = play_fast_rounds(rules, 20_000, np.random.SeedSequence(9))
    b = play_fast_rounds(rules, 20_000, np.random.SeedSequence(9))
    assert (a.total, a.outcomes) == (b.total, b.outcomes)
