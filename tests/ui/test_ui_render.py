"""Every variation and screen renders at 1920x1080, 1280x720 and 800x480 (issue 8 §1, §4, §5)."""

from __future__ import annotations

import itertools
from typing import Any

import pygame
import pytest
from conftest import SIZES, VARIANTS, layout_of, load_json

from ui.renderer import Renderer, new_surface
from ui.state import RecallEntry, ScreenState, resolve_screen
from ui.units import MIN_FONT_PX, Metrics

STATES = ["idle", "betting", "decisions", "settled"]


def _render(variant: str, view: Any, size: tuple[int, int],
            state: ScreenState | None = None) -> tuple[Renderer, pygame.Surface]:
    r = Renderer(size, layout_of(variant), animate=False)
    surf = new_surface(size)
    r.render(surf, view, state or ScreenState(), 50.0)
    return r, surf


def _colours(surf: pygame.Surface) -> int:
    small = pygame.transform.scale(surf, (96, 54))
    return len({tuple(small.get_at((x, y))) for x in range(96) for y in range(54)})


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variation_renders_each_round_state(variant: str, size: tuple[int, int]) -> None:
    for state in STATES:
        view = load_json(f"{variant}-{state}")
        r, surf = _render(variant, view, size)
        assert surf.get_size() == size
        assert _colours(surf) > 20, f"{variant} {state}: the frame is nearly blank"
        texts = r.model.texts()
        for seat in view["seats"]:  # credits of every seat are on the table
            dollars = f"${seat['credits'] // 100:,}"
            assert any(t.startswith(dollars) for t in texts), (variant, state, seat["seat"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_screen_renders(size: tuple[int, int]) -> None:
    settled = load_json("bingo-settled")
    cases: list[tuple[str, Any, ScreenState, str]] = [
        ("blackjack", load_json("blackjack-idle"), ScreenState(), "Blackjack"),
        ("bingo", load_json("bingo-betting"),
         ScreenState(betting_closes_at=62.0, betting_opened_at=40.0), "PLACE YOUR WAGERS"),
        ("split-to-double", load_json("split-to-double-tilt"), ScreenState(), "TABLE PAUSED"),
        ("free-bet", load_json("free-bet-voided"), ScreenState(), "ROUND VOID"),
        ("bingo", settled, ScreenState("recall", recall=(RecallEntry(settled, "14:02"),)),
         "GAME RECALL"),
        ("bingo", settled, ScreenState(failure={"kind": "journal", "message": "disk full"}),
         "JOURNAL FAILURE"),
    ]
    for variant, view, state, expect in cases:
        r, surf = _render(variant, view, size, state)
        assert _colours(surf) > 5
        assert any(expect in t for t in r.model.texts()), (variant, expect, size)


def test_fonts_never_shrink_below_the_floor_at_800x480() -> None:
    """Resolution independence: sizes scale by one layout unit; text keeps a floor."""
    m = Metrics(800, 480)
    assert m.font(14) >= MIN_FONT_PX
    assert m.font(30) > m.font(14)
    assert Metrics(1920, 1080).font(30) == 30
    assert m.card(84) > m.s(84)  # cards shrink more slowly than the screen


def test_incremental_frames_equal_a_full_redraw() -> None:
    """Dirty-rect redraws leave exactly the pixels a fresh full redraw gives (engine views)."""
    from firmware.bench.screen_views import recorded_round
    from ui.layout_source import layout_for_variant
    from ui.readme_snapshots import scenario_for

    views = recorded_round(str(scenario_for("blackjack")))
    layout = layout_for_variant("blackjack", "Test Casino")
    size = (960, 540)
    live = Renderer(size, layout, animate=False)
    surf = new_surface(size)
    framed = 0
    for i, view in enumerate(views):
        before = live.frame_redraws
        live.render(surf, view, ScreenState(), float(i))
        framed += live.frame_redraws > before
        if i % 6 == 5 or i == len(views) - 1 or live.frame_redraws > before:
            fresh = new_surface(size)
            Renderer(size, layout, animate=False).render(fresh, view, ScreenState(), float(i))
            assert pygame.image.tobytes(surf, "RGB") == pygame.image.tobytes(fresh, "RGB"), i
    screens = [resolve_screen(v, ScreenState()) for v in views]
    changes = 1 + sum(a != b for a, b in itertools.pairwise(screens))
    assert live.full_redraws == changes  # full redraws only when the screen changes
    assert framed >= 5  # the next seat's turn frame alone, while dealing: compared above


def test_only_changed_regions_are_redrawn() -> None:
    view = load_json("blackjack-decisions")
    r = Renderer((1280, 720), layout_of("blackjack"), animate=False)
    surf = new_surface((1280, 720))
    assert r.render(surf, view, ScreenState(), 0.0) == [surf.get_rect()]
    assert r.render(surf, view, ScreenState(), 1.0) == []  # nothing changed: nothing drawn
    nxt = load_json("blackjack-decisions")
    nxt["seats"][2]["hands"][0]["cards"].append("2D")
    nxt["seats"][2]["hands"][0]["total"] = 13
    dirty = r.render(surf, nxt, ScreenState(), 2.0)
    assert dirty == [r.geometry.seats[3].rect]  # type: ignore[union-attr]


def test_a_turn_frame_alone_is_redrawn_in_its_ring_with_a_full_redraws_pixels() -> None:
    """The frame round the seat the table waits for moves from seat to seat while the
    cards are dealt; a seat whose column is otherwise unchanged has only the frame's ring
    redrawn (the card's latency), and the pixels are those of a full redraw, the frame
    coming and going, on the table and dimmed behind a tilt."""
    base = load_json("blackjack-decisions")
    size = (1280, 720)
    for phase in ("dealing", "tilt"):
        live = Renderer(size, layout_of("blackjack"), animate=False)
        surf = new_surface(size)
        seats = (3, 4, 3, None, 5)
        for i, seat in enumerate(seats):
            view = {**base, "phase": phase,
                    "expecting": {"kind": "card", "seat": seat, "hand": 1 if seat else None}}
            if phase == "tilt":
                view["tilt"] = {"code": "SHOE", "cause": "misread", "action": "re-scan"}
            before = live.frame_redraws
            dirty = live.render(surf, view, ScreenState(), float(i))
            fresh = new_surface(size)
            Renderer(size, layout_of("blackjack"), animate=False).render(
                fresh, view, ScreenState(), float(i))
            assert pygame.image.tobytes(surf, "RGB") == pygame.image.tobytes(fresh, "RGB"), \
                (phase, i)
            if i:
                moved = (seats[i - 1] is not None) + (seat is not None)
                assert live.frame_redraws - before == moved, (phase, i)
                g = live.geometry
                assert g is not None
                assert all(d != g.seats[s].rect for d in dirty for s in g.seats)


def test_seat_one_is_on_the_dealers_left() -> None:
    """baseline §1.1: seat 1 is farthest to the dealer's left (the right of the screen)."""
    r, _ = _render("blackjack", load_json("blackjack-decisions"), (1280, 720))
    g = r.geometry
    assert g is not None
    xs = [g.seats[s].rect.centerx for s in sorted(g.seats)]
    assert xs == sorted(xs, reverse=True)
