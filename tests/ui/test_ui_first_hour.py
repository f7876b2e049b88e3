"""The window demo's first hour (issue 45, findings 6 and 9): F2 picks the next game and
Esc leaves, both in F1's help; the pending 1x-4x double is shown while it is chosen; a
lone ace reads 11; the 800x480 insurance label is read at the smallest font."""

from __future__ import annotations

import pygame
import pytest
from conftest import layout_of, load_json

from drivers.panel.keyboard import KeyboardPanel
from ui.hands import total_text, total_words
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState
from ui.units import MIN_FONT_PX
from ui.window import UiInbox, UiWindow

PANEL = KeyboardPanel(7)
GAMES = [["blackjack", "Blackjack"], ["split-to-double", "Split to Double Blackjack"],
         ["bingo", "Bingo Blackjack"], ["free-bet", "Free Bet Blackjack"],
         ["spanish21", "Spanish 21"]]


def _window(demo: bool, current: str = "free-bet") -> tuple[UiWindow, pygame.Surface]:
    inbox = UiInbox()
    w = UiWindow(layout_of("blackjack"), inbox, (1280, 720), clock=lambda: 100.0)
    surf = new_surface((1280, 720))
    inbox.put_view(load_json("blackjack-betting"))
    inbox.put({"kind": "panel", "selected": 1, "keys": PANEL.button_keys(),
               "legend": [list(r) for r in PANEL.key_legend()]})
    if demo:
        inbox.put({"kind": "demo", "games": GAMES, "current": current})
    w.step(surf, 100.0)
    return w, surf


def _key(w: UiWindow, key: int) -> None:
    w.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key))


def test_finding_6_f2_picks_the_next_game_and_f1_says_so() -> None:
    w, surf = _window(demo=True, current="free-bet")
    caps = [k for k, _w in w.state.key_legend]
    assert caps[-2:] == ["F2", "Esc"]
    assert "Spanish 21" in dict(w.state.key_legend)["F2"]  # the game F2 goes to
    _key(w, pygame.K_F1)
    w.step(surf, 101.0)
    assert {"F2", "Esc"} <= {d.value for d in w.renderer.model.of_kind("key", "legend")}
    _key(w, pygame.K_F2)
    assert (w.chosen, w.running) == ("spanish21", False)
    w2, _s = _window(demo=True, current="spanish21")
    _key(w2, pygame.K_F2)
    assert w2.chosen == "blackjack"  # round the list


def test_finding_6_the_status_line_says_how_to_pick_a_game_and_leave() -> None:
    w, surf = _window(demo=True)
    w.step(surf, 101.0)
    texts = " ".join(w.renderer.model.texts())
    assert "F2: next game" in texts and "Esc: leave" in texts and "F1: keys" in texts


def test_finding_9_esc_closes_the_help_then_leaves_the_demo() -> None:
    w, _surf = _window(demo=True)
    _key(w, pygame.K_F1)
    assert w.state.legend_shown
    _key(w, pygame.K_ESCAPE)
    assert not w.state.legend_shown and w.running  # the help first
    _key(w, pygame.K_ESCAPE)
    assert not w.running and w.chosen is None  # then the demo; no game asked for


def test_finding_9_esc_never_closes_a_table_that_is_not_the_demo() -> None:
    w, _surf = _window(demo=False)
    _key(w, pygame.K_ESCAPE)
    _key(w, pygame.K_F2)
    assert w.running and w.chosen is None


def test_finding_9_the_pending_double_multiple_is_shown_while_chosen() -> None:
    view = load_json("blackjack-betting")
    r = Renderer((1280, 720), layout_of("blackjack"), animate=False)
    keys = tuple(sorted(PANEL.button_keys().items()))
    for times in (1, 2, 3, 4):
        state = ScreenState(panel_keys=keys,
                            pending_double={"seat": 2, "hand": 1, "times": times})
        r.render(new_surface((1280, 720)), view, state, 100.0)
        texts = " ".join(r.model.texts())
        assert f"Seat 2 hand 1: DOUBLE {times}x the wager" in texts
        assert "DOUBLE [D] again" in texts and "STAND [S] places it" in texts
    r.render(new_surface((1280, 720)), view, ScreenState(panel_keys=keys), 100.0)
    assert "DOUBLE 4x" not in " ".join(r.model.texts())


@pytest.mark.parametrize(("cards", "total", "soft", "shown"), [
    (["AS", "??"], 11, True, "11"),     # the dealer's ace up
    (["AH"], 11, True, "11"),           # a split ace waiting for its second card
    (["AH", "6D"], 17, True, "soft 17"),
    (["KS", "??"], 10, False, "10"),
])
def test_finding_9_a_lone_ace_reads_11_not_soft_11(cards: list[str], total: int, soft: bool,
                                                    shown: str) -> None:
    assert total_words(total, soft, cards) == shown
    if "??" not in cards:
        assert total_text({"cards": cards, "total": total, "soft": soft}) == shown


def test_finding_9_insurance_label_at_800x480_is_read_at_the_smallest_font() -> None:
    size = (800, 480)
    view = load_json("blackjack-betting")
    r = Renderer(size, layout_of("blackjack"), animate=False)
    r.render(new_surface(size), view, ScreenState(), 100.0)
    labels = [d for d in r.model if d.value == "INSURANCE" and d.region == "static"]
    assert labels
    for d in labels:
        height = d.rect[3]
        ref = r.painter.texts.font(MIN_FONT_PX).size("INSURANCE")[1]
        assert height >= ref - 1, (d, ref)
