"""The recall screen shows a round as it was: the seats that played in their places on a
table of its size, its real wager limits, and when it ended (PA § 605a: game recall)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from table_helpers import FakePanel, FakeShoe, card, press

from firmware.engine import load_rules
from firmware.engine.layout import layout_for
from firmware.journal import Journal
from firmware.table.controller import Controller
from firmware.table.recall import ended_text, recall_view, recent_rounds
from firmware.table.recovery import open_table


def _round_of_seats_3_5_7(tmp_path: Path) -> tuple[Journal, object]:
    rules = load_rules("blackjack", {})
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 7, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    for seat in (3, 5, 7):
        ctl.request("credits-in", {"seat": seat, "cents": 100_000})
    steps = [*press(None, "SHUFFLE"), card("2C")]
    for seat in (3, 5, 7):
        steps += press(seat, "BET")
    steps += press(None, "DEAL")
    # seats 3, 5, 7, dealer up, seats 3, 5, 7, hole: the dealer stands on 17
    steps += [card(c) for c in ("TS", "9D", "8H", "TC", "9S", "9C", "QH", "7S")]
    for seat in (3, 5, 7):
        steps += press(seat, "STAND")
    for h in steps:
        ctl.handle(h)
    assert ctl.game.phase == "settled", ctl.game.phase
    return journal, rules


def test_the_recall_view_keeps_the_table_size_limits_and_seat_numbers(tmp_path: Path) -> None:
    journal, rules = _round_of_seats_3_5_7(tmp_path)
    (record,) = recent_rounds(journal, 10)
    view = recall_view(record)
    assert view["limits"]["seats"] == 7
    assert view["limits"]["min_wager"] == rules.min_wager > 0  # type: ignore[attr-defined]
    assert view["limits"]["max_wager"] == rules.max_wager  # type: ignore[attr-defined]
    assert [s["seat"] for s in view["seats"]] == [3, 5, 7]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", ended_text(record))


def test_the_recall_screen_draws_seats_3_5_7_in_their_places(tmp_path: Path) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from etgcore.money import dollars
    from ui.layout_data import parse_layout
    from ui.renderer import Renderer, new_surface
    from ui.state import RecallEntry, ScreenState

    pygame.display.init()
    pygame.font.init()
    journal, rules = _round_of_seats_3_5_7(tmp_path)
    (record,) = recent_rounds(journal, 10)
    view = recall_view(record)
    ended = ended_text(record)
    r = Renderer((1280, 720), parse_layout(layout_for(rules), "Holder"), animate=False)
    surf = new_surface((1280, 720))
    state = ScreenState("recall", recall=(RecallEntry(view, ended),))
    r.render(surf, view, state, 10.0)
    regions = r.model.regions()
    for seat in (3, 5, 7):
        assert f"seat-{seat}" in regions, regions
        assert r.model.cards(f"seat-{seat}"), f"seat {seat} shows no cards"
    for seat in (1, 2, 4, 6):  # did not play: no cards, and saying so (issue 38, item 9)
        assert not r.model.cards(f"seat-{seat}")
        assert r.model.texts(f"seat-{seat}") == ["did not play"]
    texts = r.model.texts()
    lo, hi = dollars(rules.min_wager), dollars(rules.max_wager)  # type: ignore[attr-defined]
    assert any(f"Wagers {lo} to {hi}" in t for t in texts) or not any(
        t.startswith("Wagers") for t in texts), texts
    assert not any("Wagers $0 to $0" in t for t in texts)
    assert any(f"ended {ended}" in t for t in texts), texts
