"""Every variation: calculation, engine Monte Carlo and fast path agree (issue 11 point 7).

Moderate sizes keep this file under ~60 s on one core; the tolerance is 3 standard errors
of each run (engine runs are coarse, a few % of the wager; fast-path runs 0.2-0.5%).
Split to Double is checked here at the infinite deck, whose calculation takes a second;
its composition-dependent 6- and 8-deck figures take longer and are checked against
runs of 10^8 rounds by `etg par --check` (make bench, docs/math.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from firmware.engine.rules import available_variants
from firmware.math.games.house_edge import analyse
from firmware.math.ruleset import load
from firmware.math.simulation.engine_rounds import play_engine_rounds
from firmware.math.simulation.fast_path import play_fast_rounds
from firmware.math.simulation.rtp import run_rtp

VARIANTS = [v for v in ("split-to-double", "bingo", "free-bet", "spanish21")
            if v in available_variants()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_engine_monte_carlo_within_3_se(variant: str) -> None:
    rules = load(variant)
    if variant == "split-to-double":
        rules = rules.with_(decks=0)  # the 6- and 8-deck figures: etg par --check, make bench
    res = run_rtp(rules, 3000, jobs=1, seed=101)
    assert abs(res.house_edge - analyse(rules).house_edge) < 3 * res.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_fast_path_within_3_se(variant: str) -> None:
    rules = load(variant)
    if variant == "split-to-double":
        rules = rules.with_(decks=0)
    res = run_rtp(rules, 400_000, jobs=1, seed=102, fast=True)
    assert abs(res.house_edge - analyse(rules).house_edge) < 3 * res.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_fast_path_distribution_matches_engine(variant: str) -> None:
    rules = load(variant)
    eng = play_engine_rounds(rules, 3000, np.random.SeedSequence(103))
    fast = play_fast_rounds(rules, 150_000, np.random.SeedSequence(104))
    keys = sorted(set(eng.outcomes) | set(fast.outcomes))
    table = np.array([[eng.outcomes.get(k, 0) for k in keys],
                      [fast.outcomes.get(k, 0) for k in keys]], dtype=float)
    # pool sparse results into their neighbours so every column has an expected count >= 5
    cols: list[np.ndarray] = []
    acc = np.zeros(2)
    for j in range(table.shape[1]):
        acc = acc + table[:, j]
        if acc[0] >= 5 and acc[1] >= 5:
            cols.append(acc)
            acc = np.zeros(2)
    if cols:
        cols[-1] = cols[-1] + acc
    _, p, _, _ = chi2_contingency(np.array(cols).T)
    assert p > 0.001
