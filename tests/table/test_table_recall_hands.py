"""Game recall names a seat's hands as a person counts them, from 1 like seats: the
recall text and the decision inputs it lists (issue 16; scenario format `hand`)."""

from __future__ import annotations

from pathlib import Path

from table_helpers import FakePanel, FakeShoe, card, press

from firmware.engine import load_rules
from firmware.journal import Journal
from firmware.table.controller import Controller
from firmware.table.recall import format_round, last_rounds
from firmware.table.recovery import open_table


def test_recall_numbers_split_hands_from_1(tmp_path: Path) -> None:
    rules = load_rules("blackjack", {})
    journal = Journal(tmp_path / "j.sqlite")
    ctl = Controller(open_table(journal, rules, 7, True).game, journal, shoe=FakeShoe(),
                     panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    steps = [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET"), *press(None, "DEAL")]
    steps += [card(c) for c in ("8S", "9D", "8C", "7H")]  # 8 8 against 9 7
    steps += [*press(1, "SPLIT"), card("TD"), *press(1, "STAND"), card("KH"),
              *press(1, "STAND"), card("TS")]  # hands 18 and 18; the dealer busts
    for h in steps:
        ctl.handle(h)
    assert ctl.game.phase == "settled", ctl.game.phase
    (rec,) = last_rounds(journal, 1)
    text = "\n".join(format_round(rec))
    assert "    hand 1: 8S TD (18)" in text and "    hand 2: 8C KH (18)" in text
    assert "hand 0" not in text
    decided = [x["input"]["hand"] for x in rec["inputs"] if x["input"]["type"] == "decision"]
    assert decided == [1, 1, 2]
