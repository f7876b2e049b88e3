"""Issue 44 findings 2 and 3: a PAR sheet's figures that rest on the split rounds'
simulation agree with the exact figures within their stated standard errors, and every
wager's lines total its certified figure (two computations, one figure)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from firmware.math.errors import FiguresDisagree
from firmware.math.par import split_distribution as parsplits
from firmware.math.par.configurations import configurations
from firmware.math.par.figures import AGREE, par_figures, reconcile
from firmware.math.ruleset import load

#: Bingo's s.d. per round by the project's 10^9-round fast-path run (docs/math.md), and
#: an independent card-removal simulation of 6 x 10^6 split rounds: 2.529 +- 0.002
BINGO_SD_LONG_RUN = 2.5282


@pytest.mark.slow
def test_finding_2_bingo_sd_is_the_long_runs_within_its_stated_error() -> None:
    """The sheet's s.d. (2.5549 on bc5b817, from 55,659 split rounds) agrees with the
    10^9-round run within three of its stated standard errors, that error is within the
    sheet's precision target, and the sheet's two s.d. fields are one figure."""
    fig = par_figures(load("bingo"))
    se = fig.sd_round_se()
    assert 0 < se <= parsplits.SD_REL_SE * fig.sd_round  # type: ignore[operator]
    assert abs(fig.sd_round - BINGO_SD_LONG_RUN) <= 3 * se + 2e-4
    assert abs(fig.sd_round - 2.529) <= 0.002 + 3 * se
    assert fig.sd_by_wager["blackjack"] == pytest.approx(fig.sd_round, abs=1e-12)
    s = fig.split
    assert s.counted >= parsplits.SPLIT_ROUNDS and s.strata == 60
    assert s.played < 1.3 * s.counted  # rounds played per lane: P(split | that lane)
    # the simulation is honest: its own mean is the exact one within its error
    assert abs(s.raw_mean - s.mean) <= 4 * s.se_raw_mean
    mean = sum(x * q for x, q in fig.distribution)
    assert mean == pytest.approx(-fig.house_edge, abs=1e-9)


@pytest.mark.parametrize("decks", [6, 8])
def test_finding_3_split_to_double_distribution_mean_is_the_certified_edge(
        decks: int) -> None:
    """Every paytable: the distribution's mean (0.52% against the certified 1.43% at 6
    decks on bc5b817) is minus the certified house edge, and the simulation's own mean
    agrees with the exact one within its stated error."""
    confs = configurations("split-to-double", {"decks": decks})
    assert len({c.overrides().get("paytable") for c in confs}) >= 3
    for c in confs:
        fig = par_figures(load("split-to-double", c.overrides()), split_rounds=40_000)
        mean = sum(x * q for x, q in fig.distribution)
        assert mean == pytest.approx(-fig.house_edge, abs=1e-9)
        s = fig.split
        assert s.calibrated and s.tilt < 0.2
        assert abs(s.raw_mean - s.mean) <= 4 * s.se_raw_mean
        assert sum(q for _, q in fig.distribution) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("variant,pinned", [("free-bet", {}), ("spanish21", {}),
                                            ("split-to-double", {"decks": 6}),
                                            ("blackjack", {"decks": 6})])
def test_every_configurations_lines_total_the_certified_figures(variant: str,
                                                                pinned: dict) -> None:
    """Two computations, one figure: every wager's paytable lines add up to its certified
    figure within AGREE (par_figures refuses a sheet where they do not)."""
    for c in configurations(variant, pinned):
        fig = par_figures(load(variant, {**pinned, **c.overrides()}), split_rounds=2_000)
        for wager, (lines, certified) in reconcile(fig).items():
            assert abs(lines - certified) <= AGREE, (c.label(), wager)


def test_a_sheet_whose_lines_miss_the_certified_figure_is_refused() -> None:
    fig = par_figures(load("free-bet", {"decks": 6, "push22": True}), split_rounds=2_000)
    i = next(i for i, x in enumerate(fig.lines) if x.wager == "push22")
    x = fig.lines[i]
    fig.lines[i] = dataclasses.replace(x, probability=x.probability + 1e-6)
    with pytest.raises(FiguresDisagree, match="push22"):
        reconcile(fig)
    fig.lines[i] = x
    reconcile(fig)
    (net, q), *rest = fig.distribution
    fig.distribution = [(net - 0.5, q), *rest]
    with pytest.raises(FiguresDisagree, match="distribution's mean"):
        reconcile(fig)
    fig.lines = [x for x in fig.lines if x.wager != "push22"]
    with pytest.raises(FiguresDisagree, match="certified figures for"):
        reconcile(fig)


def test_tilt_reaches_the_exact_mean_and_leaves_an_impossible_one() -> None:
    x = np.array([-2.0, -1.0, 0.0, 1.0, 3.0])
    q = np.array([0.1, 0.4, 0.2, 0.2, 0.1])
    t = parsplits.tilt_to(x, q, -0.1)
    assert float(t @ x) == pytest.approx(-0.1, abs=1e-12)
    assert float(t.sum()) == pytest.approx(1.0) and (t > 0).all()
    assert parsplits.tilt_to(x, q, 5.0) is q  # no distribution on x has it


def test_more_rounds_for_a_finer_precision() -> None:
    s = parsplits.SplitRounds(0.05, counted=100_000, second=40.0, se_second=0.4)
    now = parsplits.sd_rel_se(s, 1.2, -0.03)
    assert parsplits.rounds_for_precision(s, 1.2, -0.03, now * 2) == 100_000
    need = parsplits.rounds_for_precision(s, 1.2, -0.03, now / 2)
    assert 4 * 100_000 <= need <= 4.5 * 100_000
