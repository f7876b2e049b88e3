"""The window demo explains its keys (issue 38, item 2): with a keyboard panel every
prompt on the screen that names a console input or a seat button shows its key, as the
lit decision buttons do, and F1 brings up (and takes away) the help listing every key.
Without a keyboard (a real panel) the prompts read as the table wrote them."""

from __future__ import annotations

import pygame
import pytest
from conftest import layout_of, load_json

from drivers.panel.keyboard import KeyboardPanel
from ui.keys import annotate
from ui.renderer import Renderer, new_surface
from ui.snapshot import empty_table_view
from ui.state import ScreenState
from ui.window import UiInbox, UiWindow

PANEL = KeyboardPanel(7)
KEYS = tuple(sorted(PANEL.button_keys().items()))
LEGEND = tuple(PANEL.key_legend())


def test_a_prompt_names_the_key_of_every_input_it_names() -> None:
    keys = dict(KEYS)
    assert annotate("load a freshly shuffled shoe, then press SHUFFLE", keys) == \
        "load a freshly shuffled shoe, then press SHUFFLE [F9]"
    assert annotate("VOID (supervisor) the round, then load a new shoe (SHUFFLE)", keys) == \
        "VOID [F10] (supervisor) the round, then load a new shoe (SHUFFLE [F9])"
    assert annotate("place wagers, then DEAL", keys) == "place wagers, then DEAL [Return]"
    assert annotate("press DEAL [Return]", keys) == "press DEAL [Return]"  # once only
    assert annotate("the shoe reports 0 cards dealt (LOCKED)", keys) == \
        "the shoe reports 0 cards dealt (LOCKED)"  # not a button; "dealt" is not DEAL
    assert annotate("place wagers, then DEAL", {}) == "place wagers, then DEAL"


def _texts(view: dict, state: ScreenState, size: tuple[int, int] = (1280, 720)) -> list[str]:
    r = Renderer(size, layout_of(view["variant"]), animate=False)
    r.render(new_surface(size), view, state, 100.0)
    return r.model.texts()


@pytest.mark.parametrize("keyboard", [True, False])
def test_the_screens_show_the_keys_of_a_keyboard_panel(keyboard: bool) -> None:
    from firmware.engine import load_rules

    state = ScreenState(panel_keys=KEYS if keyboard else (),
                        key_legend=LEGEND if keyboard else ())
    shoe = empty_table_view(load_rules("blackjack", {}))
    shoe["expecting"] = {**shoe["expecting"], "kind": "new-shoe",
                         "why": "load a freshly shuffled shoe, then press SHUFFLE"}
    status = _texts(shoe, state)
    assert ("load a freshly shuffled shoe, then press SHUFFLE [F9]" in status) == keyboard
    assert any("F1: keys" in t for t in status) == keyboard  # the help is one key away
    betting = _texts(load_json("blackjack-betting"), ScreenState(
        "betting", panel_keys=state.panel_keys))
    assert ("wagers close when the dealer presses DEAL [Return]" in betting) == keyboard
    assert ("a seat's key, then BET [B]; CLEAR [C] takes it back" in betting) == keyboard
    tilt = empty_table_view(load_rules("blackjack", {}), tilt=True)
    shown = _texts(tilt, ScreenState("tilt", panel_keys=state.panel_keys))
    resolve = str(tilt["tilt"]["resolve"])  # type: ignore[index]
    assert "DEAL" in resolve
    assert (annotate(resolve, dict(KEYS)) in shown) == keyboard
    assert (resolve in shown) != keyboard


def test_f1_brings_up_the_key_help_and_takes_it_away() -> None:
    inbox = UiInbox()
    runner = UiWindow(layout_of("blackjack"), inbox, (1280, 720), clock=lambda: 100.0)
    surf = new_surface((1280, 720))
    inbox.put_view(load_json("blackjack-betting"))
    f1 = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1)
    runner.handle_event(f1)  # no keyboard panel yet: nothing to explain
    assert not runner.state.legend_shown
    inbox.put({"kind": "panel", "selected": 1, "keys": dict(KEYS),
               "legend": [list(row) for row in LEGEND]})
    runner.step(surf, 100.0)
    inbox.put({"kind": "panel", "selected": 3, "keys": dict(KEYS)})  # the legend stays
    runner.step(surf, 100.5)
    assert runner.state.key_legend == LEGEND
    runner.handle_event(f1)
    runner.step(surf, 101.0)
    shown = runner.renderer.model.texts("legend")
    assert "KEYBOARD PANEL" in shown
    caps = [d.value for d in runner.renderer.model.of_kind("key", "legend")]
    assert caps == [k for k, _what in LEGEND]  # every key of the map, in its order
    assert {"F9", "F10", "F11", "Return", "B", "S"} <= set(caps)
    runner.handle_event(f1)
    runner.step(surf, 101.5)
    assert runner.renderer.model.texts("legend") == []
