"""The hole card's face never reaches the screen before the rules reveal it.

Principle 8 and baseline §1.4: the controller knows the hole card (the shoe reads it),
but no display may show it until it is revealed. Checked on the render model (every
card face drawn is recorded) and on pixels, with real engine views.
"""

from __future__ import annotations

import pygame
import pytest
from conftest import VARIANTS, engine_round, layout_of, load_json

from ui.dealer import HOLE_INDEX
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState
from ui.window import PrivateViewError, UiInbox, check_public


@pytest.mark.parametrize("variant", VARIANTS)
def test_baseline_1_4_hole_card_face_is_never_drawn_before_reveal(variant: str) -> None:
    pairs = engine_round(variant)
    r = Renderer((1280, 720), layout_of(variant), animate=False)
    surf = new_surface((1280, 720))
    checked = revealed = 0
    for i, (public, private) in enumerate(pairs):
        r.render(surf, public, ScreenState(), float(i))
        dealer_private = private["dealer"]["cards"]
        if len(dealer_private) < 2:
            continue
        hole = dealer_private[HOLE_INDEX]
        drawn = r.model.cards("dealer")
        if public["dealer"]["hole_revealed"]:
            assert hole in drawn
            revealed += 1
            continue
        checked += 1
        assert drawn[HOLE_INDEX] == "back"
        # the face appears only as often as the public view shows that card elsewhere
        # (a multi-deck shoe can hold the same card at a seat or as the up card)
        visible = [c for s in public["seats"] for h in s["hands"] for c in h["cards"]]
        visible += public["dealer"]["cards"]
        assert r.model.cards().count(hole) == visible.count(hole)
        assert hole not in " ".join(r.model.texts())
    assert checked > 5 and revealed > 0


def test_principle_8_a_leaked_hole_card_is_still_drawn_face_down() -> None:
    """Defence in depth: a view carrying the face with hole_revealed false shows a back."""
    view = load_json("blackjack-decisions")
    leaked = load_json("blackjack-decisions")
    leaked["dealer"]["cards"] = ["9H", "AS"]
    size = (1280, 720)
    pictures = []
    for v in (view, leaked):
        r = Renderer(size, layout_of("blackjack"), animate=False)
        surf = new_surface(size)
        r.render(surf, v, ScreenState(), 0.0)
        assert "AS" not in r.model.cards("dealer")
        assert r.model.cards("dealer") == ["9H", "back"]
        pictures.append(pygame.image.tobytes(surf.subsurface(r.geometry.dealer),  # type: ignore[union-attr]
                                             "RGB"))
    assert pictures[0] == pictures[1]  # pixel for pixel the same as the "??" view


def test_principle_8_the_ui_refuses_a_private_view() -> None:
    pairs = engine_round("blackjack")
    public, private = next((p, q) for p, q in pairs if not p["dealer"]["hole_revealed"]
                           and len(p["dealer"]["cards"]) == 2)
    check_public(public)
    inbox = UiInbox()
    with pytest.raises(PrivateViewError):
        inbox.put_view(private)
    hidden = dict(public, dealer=dict(public["dealer"], cards=private["dealer"]["cards"]))
    with pytest.raises(PrivateViewError):
        inbox.put_view(hidden)
    assert inbox.take() == (None, [])
