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
    assert messages == [{"kind": "panel", "selected": 1, "keys": panel.button_keys()}]
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
