"""Real engine output on the screen: every view of each variation's sample round.

The fixtures under fixtures/ are hand-written public views; these tests feed the engine's
own views (docs/interfaces.md, producer ``Game.public_view``) through the renderer at the
three sizes, and check that the fixtures have exactly the engine's shape.
"""

from __future__ import annotations

from typing import Any

import pygame
import pytest
from conftest import SIZES, VARIANTS, engine_round, layout_of, load_json

from ui.renderer import Renderer, new_surface
from ui.state import ScreenState


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_engine_view_of_a_round_renders(variant: str, size: tuple[int, int]) -> None:
    views = [pub for pub, _priv in engine_round(variant)]
    layout = layout_of(variant)
    live = Renderer(size, layout, animate=False)
    surf = new_surface(size)
    for i, view in enumerate(views):
        live.render(surf, view, ScreenState(), float(i))
    last = views[-1]
    assert last["phase"] == "settled"
    texts = live.model.texts()
    for seat in last["seats"]:
        for hand in seat["hands"]:
            assert any(t.startswith(str(hand["result"]).upper()) for t in texts), hand
    fresh = new_surface(size)
    Renderer(size, layout, animate=False).render(fresh, last, ScreenState(), 0.0)
    assert pygame.image.tobytes(surf, "RGB") == pygame.image.tobytes(fresh, "RGB")


def _shape(obj: Any) -> Any:
    """The keys of a view, recursively (lists by the shape of their first element; a
    seat's ``returned`` is keyed by the wager kinds that had something back: data)."""
    if isinstance(obj, dict):
        return {k: None if k == "returned" else _shape(v)
                for k, v in obj.items() if k not in ("bingo", "tilt")}
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        return [_shape(obj[0])]
    return None


@pytest.mark.parametrize("variant", VARIANTS)
def test_fixtures_have_exactly_the_engine_views_shape(variant: str) -> None:
    """docs/interfaces.md: the hand-written fixtures follow the public view exactly."""
    engine = {pub["phase"]: pub for pub, _ in engine_round(variant)}
    fixture = load_json(f"{variant}-settled")
    assert _shape(fixture) == _shape(engine["settled"])
    assert (fixture["bingo"] is None) == (engine["settled"]["bingo"] is None)


def test_the_bench_times_each_frame_that_adds_one_card() -> None:
    """`make bench`'s frame-alone figure (benchmarks.card_to_screen.frames_alone) times
    exactly the frames whose view shows one card more than the one before."""
    from itertools import pairwise

    from benchmarks.card_to_screen import _on_screen, frames_alone

    views = [pub for pub, _priv in engine_round("blackjack")]
    added = sum(1 for a, b in pairwise(views)
                if _on_screen(b) == _on_screen(a) + 1)
    assert added >= 4
    took = frames_alone(views, 0.0, passes=2)
    assert len(took) == 2 * added and all(t > 0 for t in took)
