"""Lamps lit when, and only when, the press would be accepted (docs/table.md, panel
conventions), with the variations' paired wagers judged by the engine; and the auto-player's
Split to Double doubles of 1x-4x pressed as the strategy chose (§ 633b.26(e)(2)(i))."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_helpers import FakePanel, FakeShoe, card, press

from firmware.engine import load_rules
from firmware.journal import Journal
from firmware.table.controller import Controller
from firmware.table.recovery import open_table
from firmware.table.service.autoplay import AutoPlay


def betting_table(tmp_path: Path, variant: str, credits: int) -> Controller:
    rules = load_rules(variant)
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 1, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": credits})
    for h in press(None, "SHUFFLE"):
        ctl.handle(h)
    ctl.handle(card("2C"))  # the burn card
    assert ctl.game.phase == "betting"
    return ctl


@pytest.mark.parametrize(
    ("variant", "need"),
    [
        ("bingo", 600),  # § 633b.28: the minimum plus its 20% activator
        ("split-to-double", 1000),  # § 633b.26: the equal Blackjack or Bust wager
        ("blackjack", 500),
    ],
)
def test_bet_lamp_counts_the_paired_wager(tmp_path: Path, variant: str, need: int) -> None:
    """633b.28(g)(1) / 633b.26(c): a BET lamp is lit only when the seat covers the wager
    and its paired wager; a press on a dark lamp is not journaled."""
    ctl = betting_table(tmp_path, variant, need - 100)
    panel = ctl.panel
    assert isinstance(panel, FakePanel)
    assert "BET" not in panel.lit.get(1, set())
    before = ctl.journal.last_seq
    for h in press(1, "BET"):
        ctl.handle(h)
    assert ctl.journal.last_seq == before  # refused press: nothing journaled
    assert ctl.game.seats[0].staked == 0
    ctl.request("credits-in", {"seat": 1, "cents": 100})
    ctl.refresh()
    assert "BET" in panel.lit[1]
    for h in press(1, "BET"):
        ctl.handle(h)
    assert ctl.game.seats[0].staked == need
    assert "BET" not in panel.lit[1] and "CLEAR" in panel.lit[1]  # the next step is not covered


class RecordingSim:
    def __init__(self) -> None:
        self.presses: list[tuple[int, str]] = []

    def press(self, seat: int, button: str) -> None:
        self.presses.append((seat, button))

    def release(self, seat: int, button: str) -> None:
        pass


def pending_view(times: int) -> dict[str, Any]:
    return {
        "round": 4, "phase": "decisions", "expecting": {"kind": "decision", "seat": 1},
        "controller": {"pending_double": {"seat": 1, "hand": 1, "times": times},
                       "recall": False, "failure": None, "failure_kind": None, "closed": False,
                       "deal_resumes": False},
    }


@pytest.mark.parametrize("want", [1, 2, 3])
def test_autoplay_presses_double_as_many_times_as_the_strategy_says(want: int) -> None:
    """633b.26(e)(2)(i): a 1x-4x double; the auto-player raises the pending double with one
    DOUBLE press per step up to the strategy's multiple, then places it with STAND."""
    sim = RecordingSim()
    ap = AutoPlay(sim, load_rules("split-to-double"), [1])
    ap._double_times = {(4, 1, 1): want}
    for times in range(1, want + 1):
        ap._act(pending_view(times))
    assert [b for _, b in sim.presses] == ["DOUBLE"] * (want - 1) + ["STAND"]


def test_pending_double_reaches_the_multiple_pressed(tmp_path: Path) -> None:
    """633b.26(e)(2)(i): four DOUBLE presses place a 4x double at once."""
    rules = load_rules("split-to-double")
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 1, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    for h in [*press(None, "SHUFFLE"), *press(1, "BET"), *press(None, "DEAL")]:
        ctl.handle(h)
        if h.button == "SHUFFLE" and h.kind == "release":
            ctl.handle(card("2C"))  # the burn card
    for c in ("5S", "6H", "6D", "TC"):
        ctl.handle(card(c))
    assert ctl.game.expecting().kind == "decision"
    for _ in range(4):
        for h in press(1, "DOUBLE"):
            ctl.handle(h)
    assert ctl.doubles.pending is None
    assert ctl.game.seats[0].hands[0].double == 4 * 500
