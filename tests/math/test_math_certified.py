"""The certified figure of every game at every deck count checked, beside a simulation of
the same strategy with real card removal (the fast path deals each round from a full
shoe); the paytable lines adding up to the return; the PAR sheet's items (issue 36).

The sizes here are what CI affords (a few hundred thousand rounds: a standard error of
about 0.2% of the wager); `make bench` (benchmarks/math.py, ``par``) runs the same
comparisons at 10^9 rounds and docs/math.md lists the figures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware.math.games.house_edge import analyse
from firmware.math.par.check import deck_counts
from firmware.math.ruleset import load
from firmware.math.simulation.rtp import run_rtp

VARIANTS = ("blackjack", "split-to-double", "bingo", "free-bet", "spanish21")
CASES = [(v, d) for v in VARIANTS for d in deck_counts(v)]


@pytest.mark.parametrize("variant,decks", CASES)
def test_certified_figure_within_3_se_of_a_card_removal_simulation(variant: str,
                                                                    decks: int) -> None:
    rules = load(variant, {"decks": decks})
    sim = run_rtp(rules, 300_000, jobs=1, seed=3600 + decks, fast=True)
    assert abs(sim.house_edge - analyse(rules).house_edge) < 3 * sim.stderr


@pytest.mark.parametrize("variant,decks", [("blackjack", 2), ("free-bet", 6),
                                           ("spanish21", 8), ("split-to-double", 6)])
def test_paytable_lines_add_up_to_the_return(variant: str, decks: int) -> None:
    """Every wager's lines (probability x payout) sum to its certified expected net."""
    from firmware.math.par.figures import par_figures

    fig = par_figures(load(variant, {"decks": decks}), split_rounds=2000)
    for wager, value in fig.analysis.wagers.items():
        total = sum(x.contribution for x in fig.lines if x.wager == wager)
        assert total == pytest.approx(value, abs=1e-12)
    assert sum(p for _, p in fig.distribution) == pytest.approx(1.0, abs=1e-9)
    assert 0 < fig.element_of_risk < fig.house_edge
    win, p = fig.max_win_unsplit()  # exact: one of the lines' own amounts
    assert p > 0
    if variant != "split-to-double":  # its lines are per wager, its round two wagers
        assert any(x.payout == pytest.approx(win) for x in fig.lines)


def test_the_sheet_holds_every_configuration_and_the_lab_items(tmp_path: Path) -> None:
    """One game, pinned to one deck count: the document control, every configuration
    (paytables x dealer rule), and each configuration's items, in Markdown, HTML and
    JSON."""
    from firmware.math.par import split_distribution as parsplits
    from firmware.math.par.sheet import write_sheet

    old = parsplits.SPLIT_ROUNDS, parsplits.SD_REL_SE
    parsplits.SPLIT_ROUNDS, parsplits.SD_REL_SE = 2000, None
    try:
        md = write_sheet("spanish21", str(tmp_path), {"decks": 6})
    finally:
        parsplits.SPLIT_ROUNDS, parsplits.SD_REL_SE = old
    text = md.read_text(encoding="utf-8")
    for item in ("Document control", "software", "generated", "Every allowed configuration",
                 "6 decks, H17", "6 decks, S17", "Paytable lines", "21 with 5 cards (3:2)",
                 "Insurance wager", "Element of risk", "hit frequency", "95% range",
                 "Rounds after which the house is ahead",
                 "Largest win of a round without a split", "Largest win of a split round",
                 "Standard deviation per round", "Composition-dependent exceptions",
                 "Rescue after a double's card"):
        assert item in text, item
    assert "<table>" in (tmp_path / "par-spanish21.html").read_text(encoding="utf-8")
    sheet = json.loads((tmp_path / "par-spanish21.json").read_text(encoding="utf-8"))
    assert len(sheet["configurations"]) == 2
    first = sheet["configurations"][0]
    assert first["insurance"]["expected_net"] < -0.2  # Spanish decks: few tens
    assert {"element_of_risk", "hit_frequency", "ranges", "rounds_for_house_ahead",
            "max_win", "lines", "sd_by_wager"} <= set(first)
