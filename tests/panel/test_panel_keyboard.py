"""The keyboard backend: key map to (seat, button) and console, through pygame events."""

from __future__ import annotations

import pygame
import pytest

from drivers.panel import open_panel
from drivers.panel.keyboard import CONSOLE_KEYS, SEAT_KEYS, KeyboardPanel
from drivers.panel.settings import PanelSettings


@pytest.fixture
def kb() -> KeyboardPanel:
    panel = open_panel(PanelSettings(), 7, "keyboard")
    assert isinstance(panel, KeyboardPanel)
    panel.start()
    return panel


def drain(panel: KeyboardPanel) -> list[tuple[str, int | None, str]]:
    return [(e.kind, e.seat, e.button) for e in iter(lambda: panel.get_event(0), None)]


def test_map_covers_every_button_and_console_input() -> None:
    assert sorted(SEAT_KEYS.values()) == sorted(
        ["BET", "CLEAR", "HIT", "STAND", "DOUBLE", "SPLIT", "SURRENDER", "INSURANCE"])
    assert set(CONSOLE_KEYS.values()) == {"DEAL", "SHUFFLE", "VOID", "RECALL"}


def test_digit_selects_seat_letter_presses_its_button(kb: KeyboardPanel) -> None:
    assert kb.handle_key("3", True) and kb.handle_key("3", False)
    kb.handle_key("h", True)
    kb.handle_key("h", False)
    assert drain(kb) == [("press", 3, "HIT"), ("release", 3, "HIT")]


def test_auto_repeat_does_not_repeat_and_release_goes_to_the_pressing_seat(
    kb: KeyboardPanel,
) -> None:
    kb.handle_key("2", True)
    for _ in range(5):
        kb.handle_key("d", True)
    kb.handle_key("5", True)
    kb.handle_key("d", False)
    assert drain(kb) == [("press", 2, "DOUBLE"), ("release", 2, "DOUBLE")]
    assert kb.selected == 5


def test_pygame_events(kb: KeyboardPanel) -> None:
    kb.select_seat(7)
    assert kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_i))
    assert kb.handle_event(pygame.event.Event(pygame.KEYUP, key=pygame.K_i))
    assert kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN))
    assert kb.handle_event(pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN))
    assert kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F11))
    assert not kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_z))
    assert not kb.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1))
    assert drain(kb) == [("press", 7, "INSURANCE"), ("release", 7, "INSURANCE"),
                         ("press", None, "DEAL"), ("release", None, "DEAL"),
                         ("press", None, "RECALL")]


def test_stop_releases_held_keys_and_ignores_later_keys(kb: KeyboardPanel) -> None:
    kb.handle_key("f10", True)
    kb.stop()
    assert not kb.handle_key("b", True)
    assert drain(kb) == [("press", None, "VOID"), ("release", None, "VOID")]


def test_seats_beyond_the_table_cannot_be_selected() -> None:
    panel = open_panel(PanelSettings(), 4, "keyboard")
    assert isinstance(panel, KeyboardPanel)
    panel.start()
    panel.handle_key("6", True)
    assert panel.selected == 1
    with pytest.raises(ValueError):
        panel.select_seat(6)


def test_lamps_are_remembered_and_applied_only_on_change(kb: KeyboardPanel) -> None:
    assert kb.set_lamps({1: {"HIT", "STAND"}})
    assert not kb.set_lamps({1: {"STAND", "HIT"}})
    assert kb.lamps() == {1: frozenset({"HIT", "STAND"})}


def test_callback_delivery() -> None:
    got = []
    panel = open_panel(PanelSettings(), 7, "keyboard", on_report=got.append)
    panel.start()
    assert isinstance(panel, KeyboardPanel)
    panel.handle_key("b", True)
    assert [(e.kind, e.seat, e.button) for e in got] == [("press", 1, "BET")]
    assert panel.get_event(0) is None


def test_keypad_digits_and_enter(kb: KeyboardPanel) -> None:
    kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP4))
    kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s))
    kb.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_ENTER))
    assert drain(kb) == [("press", 4, "STAND"), ("press", None, "DEAL")]
