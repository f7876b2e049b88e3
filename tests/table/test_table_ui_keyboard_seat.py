"""The keyboard panel's chosen seat reaches the screen (issue 20 §11): the table's UI
bridge tells the UI on attach and whenever a digit key chooses another seat, and the
frame then marks that seat."""

from __future__ import annotations

import os
from typing import Any

import pytest


def _key(name: str) -> Any:
    import pygame

    return pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name))


def test_the_chosen_seat_and_the_keys_go_to_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from drivers.panel.keyboard import KeyboardPanel
    from firmware.config import load_config
    from firmware.engine import Game, load_rules
    from firmware.table.service import ui_bridge
    from ui.renderer import new_surface

    pygame.display.init()
    pygame.font.init()
    monkeypatch.setattr(ui_bridge, "display_available", lambda: True)
    cfg = load_config(None, ["display.enabled=true", "display.width=800",
                             "display.height=480", "table.seats=5"])
    rules = load_rules("blackjack", {})
    bridge = ui_bridge.UiBridge(cfg, rules, headless=False)
    panel = KeyboardPanel(5)
    panel.start()
    bridge.attach_panel(panel)
    runner = bridge._runner
    _view, messages = bridge._inbox.take()
    assert messages == [{"kind": "panel", "selected": 1, "keys": panel.button_keys(),
                         "legend": panel.key_legend()}]  # the key help (F1), sent once
    assert messages[0]["keys"]["STAND"] == "S"   # NO INSURANCE's key on the screen

    bridge.publish(Game(rules, seats=5, bench=True, shoe_in_play=True).public_view())
    view, messages = bridge._inbox.take()
    assert messages == []                         # nothing changed: nothing sent again
    assert view is not None
    bridge._inbox.put_view(view)                  # (take() consumed it; give it back)

    assert runner.on_key(_key("4")) is True       # the digit key chooses seat 4 ...
    assert panel.selected == 4
    surf = new_surface((800, 480))
    runner.step(surf, 1.0)                        # ... and the next frame marks it
    assert [m.region for m in runner.renderer.model.of_kind("marker")] == ["seat-4"]
    assert runner.state.selected_seat == 4
    runner.on_key(_key("9"))                      # not a seat of this table: no change
    assert panel.selected == 4
    assert bridge._inbox.take()[1] == []


def test_the_keyboard_follows_the_seat_whose_decision_is_expected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38, item 1: `make run`, F9, `1 b 2 b 3 b`, Return: the keyboard was left on
    seat 3 while the table waited for seat 1, and S did nothing. The keyboard now moves to
    the seat whose turn comes; a digit key still chooses another seat (until the next turn
    comes), and while betting the keys stay where the player put them."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from drivers.panel.buttons import PanelReport
    from drivers.panel.keyboard import KeyboardPanel
    from firmware.config import load_config
    from firmware.engine import Card, CloseBetting, CreditsIn, Decision, Game, Wager, load_rules
    from firmware.table.service import ui_bridge

    monkeypatch.setattr(ui_bridge, "display_available", lambda: True)
    cfg = load_config(None, ["display.enabled=true", "display.width=800",
                             "display.height=480", "table.seats=3"])
    rules = load_rules("blackjack", {})
    bridge = ui_bridge.UiBridge(cfg, rules, headless=False)
    pressed: list[PanelReport] = []
    panel = KeyboardPanel(3, on_report=pressed.append)
    panel.start()
    bridge.attach_panel(panel)
    game = Game(rules, seats=3, bench=True, shoe_in_play=True)

    def show() -> None:
        bridge.publish(game.public_view())

    for seat in (1, 2, 3):
        game.apply(CreditsIn(seat, 100_000))
    for seat in (1, 2, 3):  # 1 b 2 b 3 b: the player walks the keyboard to each seat
        assert panel.handle_key(str(seat), True)
        panel.handle_key(str(seat), False)
        game.apply(Wager(seat, 500))
        show()
        assert panel.selected == seat  # betting: the keyboard stays where it was put
    game.apply(CloseBetting())
    for card in ("TS", "9H", "8C", "6D", "TC", "7S", "5H", "QD"):  # no ace up: no insurance
        game.apply(Card(card))
        show()
    assert game.expecting().kind == "decision" and game.expecting().seat == 1
    show()
    assert panel.selected == 1  # the table waits for seat 1: S is seat 1's STAND
    panel.handle_key("s", True)
    panel.handle_key("s", False)
    assert [(e.kind, e.button, e.seat) for e in pressed][-2:] == [
        ("press", "STAND", 1), ("release", "STAND", 1)]
    panel.handle_key("3", True)  # the player looks at seat 3 meanwhile: allowed
    show()
    assert panel.selected == 3  # the same turn: not taken back
    game.apply(Decision(1, 1, "stand"))
    show()
    assert game.expecting().seat == 2 and panel.selected == 2  # seat 2's turn: there
    messages = bridge._inbox.take()[1]
    assert messages[-1]["selected"] == 2  # and the screen marks it
