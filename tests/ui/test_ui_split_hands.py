"""A split seat's hands are labelled and read in order, and a side wager's result carries
its amount (issue 38, item 12): "HAND 1" on the left, "HAND 2" on its right (the 2x2 grid
reads left to right, top to bottom), and the Blackjack or Bust circle says "WIN +$40" or
"LOSE -$10", as a hand's result does."""

from __future__ import annotations

import pygame
import pytest
from conftest import SIZES, layout_of, load_json

from ui.renderer import Renderer, new_surface
from ui.state import ScreenState


def _render(variant: str, view: dict, size: tuple[int, int]) -> Renderer:
    r = Renderer(size, layout_of(variant), animate=False)
    r.render(new_surface(size), view, ScreenState("table"), 0.0)
    return r


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("hands", [2, 3, 4])
def test_split_hands_are_labelled_in_reading_order(size: tuple[int, int], hands: int) -> None:
    view = load_json("blackjack-settled")
    seat = view["seats"][0]
    first = seat["hands"][0]
    seat["hands"] = [{**first, "cards": [f"{n}S", "9D"], "total": n + 9}
                     for n in range(2, 2 + hands)]
    r = _render("blackjack", view, size)
    labels = r.model.of_kind("hand-label", "seat-1")
    assert [d.value for d in labels] == [f"HAND {n}" for n in range(1, hands + 1)]
    boxes = [pygame.Rect(d.rect) for d in labels]  # type: ignore[arg-type]
    # read as a page: the top row left to right, then the next
    reading = sorted(range(hands), key=lambda i: (boxes[i].top // 20, boxes[i].left))
    assert reading == list(range(hands))
    assert boxes[0].left < boxes[1].left
    cards = [d for d in r.model.of_kind("card", "seat-1")]
    left_of = {d.value: pygame.Rect(d.rect).left for d in cards}  # type: ignore[arg-type]
    assert left_of["2S"] < left_of["3S"]  # hand 1's cards left of hand 2's
    # every hand's total is still written (the label shares its line)
    firsts = [t.split()[0] for t in r.model.texts("seat-1") if t.split()]
    assert all(str(n + 9) in firsts for n in range(2, 2 + hands))


def test_a_single_hand_has_no_label() -> None:
    r = _render("blackjack", load_json("blackjack-settled"), (1280, 720))
    assert r.model.of_kind("hand-label", "seat-2") == []


def test_a_side_wager_result_carries_its_amount() -> None:
    view = load_json("split-to-double-settled")
    r = _render("split-to-double", view, (1920, 1080))
    tags = {d.region: d.value for d in r.model.of_kind("spot-tag")}
    assert tags["seat-6"] == "WIN  +$40"    # $20 at 2 to 1: $60 back, $40 won
    assert tags["seat-7"] == "LOSE  -$50"   # its stake
    assert all(t.startswith(("WIN  +$", "LOSE  -$")) for t in tags.values()), tags
