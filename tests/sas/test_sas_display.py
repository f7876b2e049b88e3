"""Issue 46 point 5: a seat its slot system disabled is shown on the table's display, not
only by a dark BET lamp. The whole path, headless (SDL's dummy video driver): the floor
gate's per-seat disable -> the controller's view (``closed_seats``) -> the UI bridge's
message -> the window's state -> the seat drawn with CLOSED at its spot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _closed_marks(runner: object) -> list[str]:
    model = runner.renderer.model  # type: ignore[attr-defined]
    return [m.region for m in model.of_kind("marker") if m.value == "closed by the slot system"]


def test_point_5_a_seat_closed_by_the_slot_system_is_shown_on_the_display(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame
    from table_helpers import FakePanel, FakeShoe, card, press

    from firmware.config import load_config
    from firmware.engine import load_rules
    from firmware.journal import Journal
    from firmware.table.controller import Controller
    from firmware.table.recovery import open_table
    from firmware.table.service import ui_bridge
    from ui.renderer import new_surface

    pygame.display.init()
    pygame.font.init()
    monkeypatch.setattr(ui_bridge, "display_available", lambda: True)
    cfg = load_config(None, ["display.enabled=true", "display.width=800",
                             "display.height=480", "table.seats=2"])
    rules = load_rules("blackjack", {})
    bridge = ui_bridge.UiBridge(cfg, rules, headless=False)
    runner = bridge._runner
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 2, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel(),
                     publish=bridge.publish)  # type: ignore[arg-type]
    try:
        for seat in (1, 2):
            assert ctl.request("credits-in", {"seat": seat, "cents": 5000})[0]
        for h in press(None, "SHUFFLE"):
            ctl.handle(h)
        ctl.handle(card("2C"))  # the burn card: betting
        surf = new_surface((800, 480))
        runner.step(surf, 1.0)
        assert _closed_marks(runner) == []           # both seats open: nothing marked

        assert ctl.floor_gate._seat({"seat": 1, "action": "disable"})  # the slot system's
        ctl.refresh()
        runner.step(surf, 2.0)
        assert runner.state.closed_seats == (1,)
        assert _closed_marks(runner) == ["seat-1"]    # marked at seat 1, not at seat 2
        closed = [b for b in runner.renderer.model.of_kind("closed") if b.region == "seat-1"]
        assert [b.value for b in closed] == ["CLOSED"]
        assert "by the slot system" in runner.renderer.model.texts("seat-1")
        (cx, cy), _r = runner.renderer.geometry.seats[1].spots["blackjack"]
        (mark,) = [m for m in runner.renderer.model.of_kind("marker") if m.region == "seat-1"]
        assert pygame.Rect(mark.rect).collidepoint(cx, cy)  # on the seat's (empty) spot

        for h in press(2, "BET"):  # seat 2 stakes a wager, then its slot system closes it
            ctl.handle(h)
        assert ctl.floor_gate._seat({"seat": 2, "action": "disable"})
        ctl.refresh()
        runner.step(surf, 2.5)
        assert sorted(_closed_marks(runner)) == ["seat-1", "seat-2"]
        g2 = runner.renderer.geometry.seats[2]
        (mark2,) = [m for m in runner.renderer.model.of_kind("marker") if m.region == "seat-2"]
        assert mark2.rect[1] < g2.hands.top + g2.hands.height // 4  # above, off its stake
        assert runner.renderer.model.of_kind("chip", "seat-2")  # the stake is still shown

        for seat in (1, 2):
            assert ctl.floor_gate._seat({"seat": seat, "action": "enable"})
        ctl.refresh()
        runner.step(surf, 3.0)
        assert runner.state.closed_seats == ()
        assert _closed_marks(runner) == []           # enabled again: the marks are gone
    finally:
        journal.close()


def test_the_window_takes_only_seat_numbers_as_closed_seats() -> None:
    """The message is plain data that could cross a process: anything but a seat number
    in it is left out (never a crash of the UI loop)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from ui.layout_source import layout_for_variant
    from ui.window import UiInbox, UiWindow

    window = UiWindow(layout_for_variant("blackjack", "x"), UiInbox(), size=(800, 480))
    window._apply({"kind": "seats", "closed": [3, "2", True, None, 1, 3]}, 0.0)
    assert window.state.closed_seats == (1, 3)
    window._apply({"kind": "seats", "closed": None}, 0.0)
    assert window.state.closed_seats == ()
