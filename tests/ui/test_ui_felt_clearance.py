"""Nothing on the felt covers a card, a chip stack or the amount under it (issue 20 §11).

A hand's result badge, the BINGO! tag and a side wager's result tag (Split to Double's
Blackjack or Bust, Bingo's activator, Free Bet's Push 22) are drawn where nothing else is:
checked from the render model's rectangles in every frame of a real engine round, with
every stack as tall as a stack is drawn (four chips), at the three screen sizes; and, for
every seat count, from the table's geometry itself.
"""

from __future__ import annotations

import functools
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pygame
import pytest
from conftest import HOLDER, SIZES, engine_variants

from ui.geometry import build_geometry
from ui.layout_data import Layout
from ui.model import Drawn
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState

View = Mapping[str, Any]
IDS = [f"{w}x{h}" for w, h in SIZES]
TAGS = ("badge", "spot-tag")
#: what a tag must leave uncovered: everything a seat draws, and the printed labels
COVERABLE = ("card", "card-back", "chip", "lammer", "text", "line", "badge", "spot-tag")

#: A main wager per game whose chips, and the paired or optional wager's, stack four high:
#: $20 is four $5 chips; Bingo's activator on it is $4, four $1 chips.
TALL = 2000


def _standing_round(variant: str, name: str, shoe: list[str], wager: int,
                    first: str = "") -> str:
    """Every seat of the table wagers ``wager`` (Free Bet's Push 22 beside it too); each
    seat's ``first`` decision when given, then every seat stands."""
    seats = 6 if variant == "free-bet" else 7
    lines = [f'name = "{name}"', f'variant = "{variant}"']
    if variant == "free-bet":
        lines += ["[rules]", "push22 = true"]
    lines += ["[[round]]", f"shoe = {shoe!r}".replace("'", '"')]
    for s in range(1, seats + 1):
        lines += ["[[round.seat]]", f"seat = {s}", f"wager = {wager}"]
        if variant == "free-bet":
            lines.append(f"push22 = {TALL}")
    for do in (first, "stand") if first else ("stand",):
        for s in range(1, seats + 1):
            lines += ["[[round.action]]", f"seat = {s}", f'do = "{do}"']
    return "\n".join(lines) + "\n"


def _insurance_round(variant: str, dealer_blackjack: bool) -> str:
    """Seven seats against a dealer's ace, every seat insuring $20 (half of its $40)."""
    shoe = ["JD", "9C", "8S", "7H", "QH", "9D", "8C", "AS", "9H", "9S", "8D", "KS", "7C",
            "9D", "8H", "KD" if dealer_blackjack else "6C", "5S", "4S", "3S", "2S"]
    text = _standing_round(variant, "seven seats insure against an ace", shoe, 2 * TALL,
                           "insurance")
    if dealer_blackjack:  # the round ends on the dealer's blackjack: nobody stands
        text = text[:text.index('[[round.action]]\nseat = 1\ndo = "stand"')]
    return text


def _push22_won() -> str:
    """Free Bet: every seat stands on 18, the dealer makes 6, 6, then K: 22 (Push 22 won)."""
    shoe = ["JD", "QC", "KS", "JH", "QH", "KD", "6C", "8D", "8S", "8H", "8C", "8D", "8S",
            "6D", "KH", "5S", "4S"]
    return _standing_round("free-bet", "Push 22 wins at every seat", shoe, TALL)


def _tall_round(variant: str) -> str:
    """The variation's sample round (splits, doubles, lammers, a Bingo hit) with every
    wager $20, and Free Bet's Push 22 offered and placed at every seat."""
    from ui.readme_snapshots import scenario_for

    data = tomllib.loads(scenario_for(variant).read_text(encoding="utf-8"))
    lines = [f"name = {data['name'] + ', tall stacks'!r}", f'variant = "{variant}"']
    if variant == "free-bet":
        lines += ["[rules]", "push22 = true"]
    rnd = data["round"][0]
    lines += ["[[round]]", f"shoe = {rnd['shoe']!r}"]
    if "draws" in rnd:
        lines.append("draws = {" + ", ".join(f"{k} = {v}" for k, v in rnd["draws"].items())
                     + "}")
    for seat in rnd["seat"]:
        lines += ["[[round.seat]]", f"seat = {seat['seat']}", f"wager = {TALL}"]
        if variant == "free-bet":
            lines.append(f"push22 = {TALL}")
    for action in rnd["action"]:
        lines.append("[[round.action]]")
        lines += [f"{k} = {v!r}" for k, v in action.items()]
    return "\n".join(lines).replace("'", '"') + "\n"


@functools.cache
def recorded(variant: str, text: str) -> tuple[View, ...]:
    from firmware.bench.screen_views import recorded_round

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "round.toml"
        path.write_text(text, encoding="utf-8")
        return tuple(recorded_round(str(path)))


def rounds() -> Iterator[tuple[str, str, str]]:
    """(case, variant, scenario text): each game's tall round, and insurance twice."""
    for variant in engine_variants():
        yield variant, variant, _tall_round(variant)
    for variant in ("blackjack", "spanish21"):
        if variant in engine_variants():
            for bj in (False, True):
                yield (f"{variant}-insurance-{'dealer-bj' if bj else 'lost'}", variant,
                       _insurance_round(variant, bj))
    if "free-bet" in engine_variants():
        yield "free-bet-push22-won", "free-bet", _push22_won()


def layout(variant: str) -> Layout:
    """The layout the tall round is played under (Free Bet with Push 22 offered)."""
    from ui.layout_source import layout_for_variant

    return layout_for_variant(variant, HOLDER, {"push22": True} if variant == "free-bet"
                              else {})


def rect(d: Drawn) -> pygame.Rect:
    assert d.rect is not None, "the render model records where everything is drawn"
    return pygame.Rect(*d.rect)


def covered(r: Renderer) -> list[str]:
    """Each tag of the frame that covers something, or whose words spill off it."""
    assert r.geometry is not None
    problems: list[str] = []
    printed = [d for d in r.model if d.region == "static" and d.kind in ("text", "line")]
    for seat, sg in r.geometry.seats.items():
        items = [d for d in r.model if d.region == f"seat-{seat}"]
        labels = [d for d in printed if sg.rect.contains(rect(d))]
        for i, tag in enumerate(items):
            if tag.kind not in TAGS:
                continue
            words = items[i - 1]  # a tag's words are recorded just before the tag
            assert words.kind == "text" and words.value == tag.value
            box = rect(tag)
            if not box.contains(rect(words)):
                problems.append(f"seat {seat}: the words of {tag.value!r} spill off it")
            for other in items + labels:
                if other is tag or other is words or other.kind not in COVERABLE:
                    continue
                if box.colliderect(rect(other)):
                    problems.append(f"seat {seat}: {tag.kind} {tag.value!r} covers "
                                    f"{other.kind} {other.value!r}")
    return problems


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("case", [c for c, _v, _t in rounds()])
def test_no_tag_covers_a_card_a_chip_stack_or_its_amount(case: str,
                                                         size: tuple[int, int]) -> None:
    """In every frame of the round: a result badge, BINGO! or a side wager's tag meets no
    card, no chip stack (four chips tall), no amount or line a seat writes, no other tag
    and no printed label, and its own words stay on it."""
    variant, text = next((v, t) for c, v, t in rounds() if c == case)
    views = recorded(variant, text)
    r = Renderer(size, layout(variant), animate=False)
    surf = new_surface(size)
    tags = set()
    chips: set[str] = set()
    for view in views:
        r.render(surf, view, ScreenState("table"), 0.0)
        assert covered(r) == [], (case, size, view["phase"])
        tags |= {(d.region, d.kind, d.value) for d in r.model if d.kind in TAGS}
        chips |= {d.value for d in r.model.of_kind("chip")}
    kinds = {kind for _region, kind, _value in tags}
    assert "badge" in kinds  # the results were drawn
    if variant in ("split-to-double", "bingo", "free-bet"):
        assert layout(variant).side_areas
        assert "spot-tag" in kinds  # and each side wager's result
    # four chips high: $20 in $5 chips (the main wager, Blackjack or Bust, Push 22,
    # insurance), Bingo's $4 activator in $1 chips
    assert str(TALL) in chips and (variant != "bingo" or str(TALL // 5) in chips)


def tallest_stack(r: Renderer, center: tuple[int, int], radius: int) -> pygame.Rect:
    """Where a spot's tallest stack and its amount are drawn (drawn for real, measured)."""
    from ui.geometry import MAX_STACK
    from ui.seats import spot_wager

    scratch = new_surface((r.metrics.width, r.metrics.height))
    return spot_wager(r.painter, scratch, 500 * MAX_STACK, center, radius)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("variant", ["split-to-double", "bingo", "free-bet"])
def test_a_side_wagers_tag_has_its_own_place_at_every_seat_count(
        variant: str, size: tuple[int, int]) -> None:
    """For 1 to 7 seats: the place kept for a side wager's result tag lies in its seat's
    column, under the hands' area and over the side spot's tallest stack, clear of every
    spot's tallest stack with its amount; and the printed labels of a seat stay apart and
    inside its column (the side spot sits lower to make that room, so its label meets
    the main one's)."""
    if variant not in engine_variants():
        pytest.skip(f"no Rules Submission for {variant}")
    from ui.felt import build_static
    from ui.seats import spot_tag_height

    table = layout(variant)
    sides = list(table.side_areas)
    assert sides
    r = Renderer(size, table, animate=False)
    apart = r.metrics.s(8)
    for seats in range(1, 8):
        g = build_geometry(r.metrics, seats, list(table.betting_areas), variant == "bingo",
                           spot_tag_height(r.painter))
        build_static(r.painter, g, table, {})
        printed = [rect(d) for d in r.model if d.kind in ("text", "line")]
        for seat, sg in g.seats.items():
            # the spots' labels and the credits': everything printed under the hands' top
            labels = [b for b in printed if b.top >= sg.hands.top and sg.rect.colliderect(b)]
            assert all(sg.rect.contains(b) for b in labels), (seats, seat, "off its column")
            for i, a in enumerate(labels):  # a wrapped label's lines are one under another
                for b in labels[i + 1:]:
                    if not (a.contains(b) or b.contains(a)) and a.left != b.left:
                        assert not a.inflate(apart, 0).colliderect(b), (seats, seat, a, b)
            stacks = {k: tallest_stack(r, c, rad) for k, (c, rad) in sg.spots.items()}
            for kind in sides:
                place = sg.tags[kind]
                where = (seats, seat, kind)
                assert sg.rect.contains(place) and place.width > 0, where
                assert place.top >= sg.hands.bottom, where
                assert place.bottom <= stacks[kind].top, where
                assert not any(place.colliderect(s) for s in stacks.values()), where


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_keyboard_seats_mark_lies_inside_the_turn_frame(size: tuple[int, int]) -> None:
    """The seat the keyboard acts for is often the seat whose turn it is: its blue frame
    stays inside the yellow one (their edges lay on each other, blue corners showing
    past the yellow), and no blue is drawn anywhere else."""
    import numpy as np

    from ui import palette

    views = recorded("blackjack", _insurance_round("blackjack", False))
    view = next(v for v in views if v["expecting"].get("seat") == 3)
    r = Renderer(size, layout("blackjack"), animate=False)
    surf = new_surface(size)
    r.render(surf, view, ScreenState("table", selected_seat=3), 0.0)
    assert r.geometry is not None
    sg = r.geometry.seats[3]
    (mark,) = [rect(d) for d in r.model.of_kind("marker", "seat-3")]
    turn = r.metrics.s(4)  # the turn frame's line
    assert sg.rect.left + turn < mark.left and mark.right < sg.rect.right - turn
    assert mark.bottom <= sg.rect.bottom
    blue = (pygame.surfarray.array3d(surf) == np.array(palette.SELECTED)).all(axis=2)
    xs, ys = np.nonzero(blue)
    assert len(xs) and all(mark.collidepoint(x, y) for x, y in zip(xs, ys, strict=True))
