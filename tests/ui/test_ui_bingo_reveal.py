"""The Bingo reveal stays in its box (issue 38, item 11): the rings that spread out of the
balls as they are revealed never cross the panel's border, the BINGO heading or the
TARGET and MULTIPLIER captions, at any moment of the animation and any size. Checked on
the render model and on the pixels: the captions and the border look the same in every
frame of the reveal as after it."""

from __future__ import annotations

import pygame
import pytest
from conftest import SIZES, layout_of, load_json

from ui.bingo import REVEAL_S
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState


def _rect(d: object) -> pygame.Rect:
    return pygame.Rect(d.rect)  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_reveal_rings_stay_off_the_captions_and_the_border(size: tuple[int, int]) -> None:
    view = load_json("bingo-decisions")
    assert view["bingo"]["target"] is not None
    r = Renderer(size, layout_of("bingo"), animate=True)
    surf = new_surface(size)
    r.render(surf, view, ScreenState("table"), 0.0)  # the draw is seen: the reveal starts
    box = r.geometry.bingo  # type: ignore[union-attr]
    assert box is not None
    labels = [_rect(d) for d in r.model.of_kind("text", "bingo")
              if d.value in ("BINGO", "TARGET", "MULTIPLIER")]
    assert len(labels) == 3
    border = r.painter.m.s(6)
    edges = [pygame.Rect(box.left, box.top, box.width, border),
             pygame.Rect(box.left, box.bottom - border, box.width, border),
             pygame.Rect(box.left, box.top, border, box.height),
             pygame.Rect(box.right - border, box.top, border, box.height)]
    frames = []
    rings = 0
    for k in range(1, 12):
        r.render(surf, view, ScreenState("table"), REVEAL_S * k / 12)
        for d in r.model.of_kind("ring", "bingo"):
            rings += 1
            ring = _rect(d)
            assert box.inflate(-2 * border, -2 * border).contains(ring), (k, ring, box)
            assert not any(ring.colliderect(label) for label in labels), (k, ring)
        frames.append([pygame.image.tobytes(surf.subsurface(a), "RGB")
                       for a in labels + edges])
    r.render(surf, view, ScreenState("table"), REVEAL_S * 2)  # at rest
    assert not r.model.of_kind("ring", "bingo")
    rest = [pygame.image.tobytes(surf.subsurface(a), "RGB") for a in labels + edges]
    assert rings >= 10
    assert all(f == rest for f in frames)
