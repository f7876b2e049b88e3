"""The felt read back from the pixels (issue 20 §11): what the render model says was drawn
where, confirmed by reading the frame itself.

Each test renders real engine output headless (SDL's dummy driver) onto an off-screen
surface and checks pixel regions: nothing covers a card, a lost wager's spot shows the
felt again, the insurance chip leaves its label alone, the keyboard's seat is marked and
its keys are on the lit buttons.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pygame
import pytest
from conftest import SIZES, engine_round, engine_variants, layout_of

from ui import palette
from ui.renderer import Renderer, new_surface
from ui.state import ScreenState

View = Mapping[str, Any]
IDS = [f"{w}x{h}" for w, h in SIZES]

#: Two seats against a dealer's ace: seat 1 insures, the dealer has no blackjack (soft 17,
#: stands), both hands win, so the insurance is the only wager lost.
INSURANCE_ROUND = """
name = "insurance lost, hands won"
variant = "blackjack"

[[round]]
shoe = ["TD", "9C", "AS", "9H", "9D", "6C", "2S", "3S", "4S", "5S"]

  [[round.seat]]
  seat = 1
  wager = 1000
  [[round.seat]]
  seat = 2
  wager = 1000

  [[round.action]]
  seat = 1
  do = "insurance"
  [[round.action]]
  seat = 2
  do = "no-insurance"
  [[round.action]]
  seat = 1
  do = "stand"
  [[round.action]]
  seat = 2
  do = "stand"
"""


def render(variant: str, view: View, size: tuple[int, int],
           state: ScreenState | None = None) -> tuple[Renderer, pygame.Surface]:
    r = Renderer(size, layout_of(variant), animate=False)
    surf = new_surface(size)
    r.render(surf, view, state or ScreenState("table"), 0.0)
    return r, surf


def rect(box: Sequence[int] | None) -> pygame.Rect:
    assert box is not None, "the render model records where everything is drawn"
    return pygame.Rect(*box)


def pixels(surf: pygame.Surface, area: pygame.Rect) -> np.ndarray:
    """The RGB pixels of ``area`` as an (x, y, 3) array (a copy)."""
    area = area.clip(surf.get_rect())
    return pygame.surfarray.array3d(surf.subsurface(area)).copy()


def felt_under(r: Renderer, area: pygame.Rect) -> np.ndarray:
    """What the static layer (felt, printed areas, labels) has in ``area``."""
    assert r._static is not None
    return pixels(r._static, area)


@functools.cache
def insurance_views() -> tuple[View, View]:
    """(seat 1 insured, waiting on seat 2's answer; the round settled) from the engine."""
    import tempfile

    from firmware.bench.screen_views import recorded_round

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "insurance.toml"
        path.write_text(INSURANCE_ROUND, encoding="utf-8")
        views = recorded_round(str(path))
    asked = next(v for v in views if v["seats"][0]["wagers"]["insurance"]
                 and v["expecting"].get("seat") == 2)
    return asked, views[-1]


def final_views() -> Iterator[tuple[str, View]]:
    for variant in engine_variants():
        yield variant, engine_round(variant)[-1][0]
        hits = [pub for pub, _ in engine_round(variant)
                if any(h.get("bingo_hit") for s in pub["seats"] for h in s["hands"])]
        if hits:
            yield variant, hits[0]  # a Bingo hit before its result: BINGO! alone


# -- badges never cover the cards ---------------------------------------------------------

def visible_card_pixels_match(r: Renderer, surf: pygame.Surface, region: str) -> int:
    """Compare every card's visible part with the card's own image; the pixels compared.

    A fanned card is covered on its right by the next card of its hand, and nothing
    else may be on it: where the card's image is opaque the frame must be exactly it.
    """
    drawn = [d for d in r.model if d.region == region and d.kind in ("card", "card-back")]
    clip = {f"seat-{s}": g.rect for s, g in r.geometry.seats.items()}.get(region)  # type: ignore[union-attr]
    compared = 0
    for i, d in enumerate(drawn):
        box = rect(d.rect)
        art = r.painter.cards
        img = art.back(box.width) if d.kind == "card-back" else art.face(d.value, box.width)
        alpha = pygame.surfarray.array_alpha(img) == 255
        want = pygame.surfarray.array3d(img)
        mask = alpha.copy()
        for later in drawn[i + 1:]:  # the cards dealt after it lie on top
            over = rect(later.rect).clip(box)
            if over.width and over.height:
                mask[over.left - box.left:over.right - box.left,
                     over.top - box.top:over.bottom - box.top] = False
        seen = box.clip(clip) if clip is not None else box.clip(surf.get_rect())
        inside = np.zeros_like(mask)
        inside[seen.left - box.left:seen.right - box.left,
               seen.top - box.top:seen.bottom - box.top] = True
        mask &= inside
        got = pygame.surfarray.array3d(surf.subsurface(box.clip(surf.get_rect())))
        w, h = got.shape[:2]
        m = mask[:w, :h]
        assert (got[m] == want[:w, :h][m]).all(), f"{region}: something is drawn on {d.value}"
        compared += int(m.sum())
    return compared


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_result_badges_never_cover_the_cards(size: tuple[int, int]) -> None:
    """Issue 20 §11: WIN/LOSE badges and the BINGO! tag sit under the cards, not on them
    (layout: no badge rectangle meets a card's, and a hand's cards, tags and lammers stay
    in its area above the betting circles; pixels: every card is exactly its art)."""
    badges = 0
    for variant, view in final_views():
        r, surf = render(variant, view, size)
        for seat, sg in r.geometry.seats.items():  # type: ignore[union-attr]
            region = f"seat-{seat}"
            cards = [rect(d.rect) for d in r.model if d.region == region
                     and d.kind in ("card", "card-back")]
            for badge in r.model.of_kind("badge", region):
                badges += 1
                b = rect(badge.rect)
                assert not any(b.colliderect(c) for c in cards), (variant, region, badge.value)
                assert sg.rect.contains(b), (variant, region, badge.value, "outside the seat")
            for d in r.model:  # and a hand stays clear of the betting areas under it
                if d.region == region and d.kind in ("card", "card-back", "badge", "lammer"):
                    assert sg.hands.contains(rect(d.rect)), (variant, region, d.kind, d.value)
            if cards:
                assert visible_card_pixels_match(r, surf, region) > 0
    assert badges >= 10  # results of every variation, and BINGO! tags


def test_the_bingo_tag_is_its_own_badge_above_the_result() -> None:
    view = engine_round("bingo")[-1][0]
    r, _surf = render("bingo", view, (1280, 720))
    for seat in view["seats"]:
        region = f"seat-{seat['seat']}"
        tags = [d.value for d in r.model.of_kind("badge", region)]
        for hand in seat["hands"]:
            if hand.get("bingo_hit"):
                assert tags[0] == "BINGO!" and tags[1].startswith(("WIN", "BLACKJACK"))


# -- a lost wager's chip leaves the spot --------------------------------------------------

def chip_area(center: tuple[int, int], radius: int) -> pygame.Rect:
    """The inside of a betting circle, where its chips stand."""
    half = max(2, radius * 2 // 3)
    return pygame.Rect(center[0] - half, center[1] - half, 2 * half, 2 * half)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_finding_9_every_chip_leaves_the_spot_once_settled(size: tuple[int, int]) -> None:
    """Issue 20 §11, issue 45 finding 9: once the engine reports a wager lost its spot
    shows the felt again, and once the seat is settled a winning or pushed wager's chip
    leaves too: its stake and winnings are in the credits already."""
    emptied = kept = 0
    for variant in engine_variants():
        view = engine_round(variant)[-1][0]
        assert view["phase"] == "settled"
        r, surf = render(variant, view, size)
        for seat in view["seats"]:
            hands = seat["hands"]
            if not hands:
                continue
            sg = r.geometry.seats[seat["seat"]]  # type: ignore[union-attr]
            for kind, (center, radius) in sg.spots.items():
                if not seat["wagers"].get(kind):
                    continue
                if kind == "blackjack":
                    lost = all(h["result"] in ("lose", "surrender", "rescue") for h in hands)
                else:
                    lost = hands[0].get(kind) == "lose"
                area = chip_area(center, radius)
                same = (pixels(surf, area) == felt_under(r, area)).all()
                if lost:
                    emptied += 1
                    assert same, (variant, seat["seat"], kind, "a lost wager's chip stayed")
                    # and the felt there is the betting circle's cloth
                    assert tuple(surf.get_at(center))[:3] == palette.FELT_DARK
                else:
                    kept += 1
                    assert seat["net"] is not None
                    assert same, (variant, seat["seat"], kind, "a paid wager's chip stayed")
    assert emptied >= 5 and kept >= 5


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_insurance_chip_sits_beside_its_label_and_leaves_when_lost(
        size: tuple[int, int]) -> None:
    """Issue 20 §11: the insurance wager is drawn beside the INSURANCE spot, the label's
    pixels untouched; once the round settles against a dealer without blackjack the chip
    is gone, and so is the hand's own chip, which won: both are in the credits."""
    asked, settled = insurance_views()
    assert asked["seats"][0]["wagers"]["insurance"] == 500
    r, surf = render("blackjack", asked, size)
    label = next(d for d in r.model if d.region == "static" and d.value == "INSURANCE"
                 and r.geometry.seats[1].insurance.colliderect(rect(d.rect)))  # type: ignore[union-attr]
    chips = r.model.of_kind("chip", "seat-1")
    ins_chip = next(c for c in chips if c.value == "500")
    amount = next(d for d in r.model.of_kind("text", "seat-1") if d.value == "$5")
    for drawn in (ins_chip, amount):
        assert not rect(drawn.rect).colliderect(rect(label.rect)), (size, drawn)
        assert r.geometry.seats[1].rect.contains(rect(drawn.rect))  # type: ignore[union-attr]
    assert (pixels(surf, rect(label.rect)) == felt_under(r, rect(label.rect))).all()
    assert not (pixels(surf, rect(ins_chip.rect)) == felt_under(r, rect(ins_chip.rect))).all()

    assert settled["dealer"]["blackjack"] is False and settled["seats"][0]["net"] > 0
    r2, surf2 = render("blackjack", settled, size)
    assert [c.value for c in r2.model.of_kind("chip", "seat-1")] == []
    where = rect(ins_chip.rect)
    assert (pixels(surf2, where) == felt_under(r2, where)).all()


# -- the keyboard panel's seat and keys ---------------------------------------------------

def colour_count(surf: pygame.Surface, area: pygame.Rect, colour: palette.Color) -> int:
    px = pixels(surf, area)
    return int((px == np.array(colour)).all(axis=2).sum())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_keyboard_panels_seat_is_marked(size: tuple[int, int]) -> None:
    """Issue 20 §11: the seat the keyboard's letter keys act for is marked in its own
    colour (not the yellow of the seat whose turn it is), and only that seat."""
    view = engine_round("blackjack")[-1][0]
    for selected in (1, 4):
        r, surf = render("blackjack", view, size, ScreenState("table", selected_seat=selected))
        markers = r.model.of_kind("marker")
        assert [m.region for m in markers] == [f"seat-{selected}"]
        for seat, sg in r.geometry.seats.items():  # type: ignore[union-attr]
            n = colour_count(surf, sg.rect, palette.SELECTED)
            if seat == selected:
                assert n > sg.credits.width, (size, seat, "the mark is not on the screen")
            else:
                assert n == 0, (size, seat)
    from ui.state import RecallEntry

    recall = ScreenState("recall", recall=(RecallEntry(view, "12:00"),), selected_seat=1)
    r, surf = render("blackjack", view, size, recall)  # a past round: not marked
    assert not r.model.of_kind("marker")
    r, surf = render("blackjack", view, size)  # no keyboard panel: no mark
    assert not r.model.of_kind("marker")
    assert colour_count(surf, surf.get_rect(), palette.SELECTED) == 0


def test_the_runner_takes_the_keyboard_seat_from_a_panel_message() -> None:
    from ui.window import UiInbox, UiWindow

    inbox = UiInbox()
    runner = UiWindow(layout_of("blackjack"), inbox, size=(800, 480))
    inbox.put_view(engine_round("blackjack")[-1][0])
    inbox.put({"kind": "panel", "selected": 3, "keys": {"STAND": "S"}})
    inbox.put({"kind": "betting", "closes_in": None})  # other messages keep the seat
    surf = new_surface((800, 480))
    runner.step(surf, 1.0)
    assert [m.region for m in runner.renderer.model.of_kind("marker")] == ["seat-3"]
    assert runner.state.panel_keys == (("STAND", "S"),)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_lit_buttons_show_their_keys_no_insurance_included(size: tuple[int, int]) -> None:
    """Issue 20 §11: with the keyboard standing in for the panel, NO INSURANCE shows S
    (the STAND key, which the table reads as no insurance while insurance is offered)."""
    from drivers.panel.keyboard import KeyboardPanel

    keys = KeyboardPanel(7).button_keys()
    assert keys["STAND"] == "S" and keys["INSURANCE"] == "I"
    asked, _ = insurance_views()
    state = ScreenState("table", selected_seat=2, panel_keys=tuple(sorted(keys.items())))
    r, surf = render("blackjack", asked, size, state)
    caps = {d.value: rect(d.rect) for d in r.model.of_kind("key", "status")}
    assert set(caps) == {"INSURANCE=I", "NO INSURANCE=S"}
    for (b, _seat, decision), cap in zip(sorted(r.buttons, key=lambda t: t[0].left),
                                         sorted(caps.values(), key=lambda c: c.left),
                                         strict=True):
        assert b.contains(cap), decision
        # the cap is a dark key on the lit button, with its letter in the button colour
        assert colour_count(surf, cap, palette.INK) > cap.width
        assert colour_count(surf, cap, palette.BUTTON_LIT) > 0


# -- every paytable line readable, no panel left blank ------------------------------------

def ink_height(surf: pygame.Surface, area: pygame.Rect, ground: palette.Color) -> int:
    """Rows of ``area`` holding any pixel that is not the ``ground`` colour."""
    px = pixels(surf, area)
    return int((px != np.array(ground)).any(axis=2).any(axis=0).sum())


@functools.cache
def reference_ink(text: str, px: int) -> int:
    """How tall ``text`` is at ``px`` of the table's font, drawn on the panel colour."""
    from ui.fonts import TextCache

    img = TextCache().render(text, px, palette.CREAM)
    ground = pygame.Surface(img.get_size())
    ground.fill(palette.PANEL)
    ground.blit(img, (0, 0))
    return ink_height(ground, ground.get_rect(), palette.PANEL)


def paytable_pages(variant: str, size: tuple[int, int]) -> Iterator[tuple[Renderer,
                                                                         pygame.Surface]]:
    """The frame of each paytable page in turn (one frame when nothing is paged)."""
    from ui.renderer import PAYTABLE_PAGE_S

    view = dict(engine_round(variant)[-1][0])
    if view.get("bingo"):  # before the draw the pages rotate (after it the drawn one stays)
        view["bingo"] = {"target": None, "multiplier": None}
    r = Renderer(size, layout_of(variant), animate=True)
    surf = new_surface(size)
    r.render(surf, view, ScreenState("table"), 0.0)
    assert r._paytables is not None
    for k in range(len(r._paytables.pages)):
        r.render(surf, view, ScreenState("table"), k * PAYTABLE_PAGE_S + 2.0)
        yield r, surf


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("variant", ["bingo", "blackjack", "spanish21"])
def test_every_paytable_line_is_readable_and_no_panel_is_blank(
        variant: str, size: tuple[int, int]) -> None:
    """Issue 20 §11: every paytable line (titles, hands, odds) on every page is at least as
    tall, measured in the frame's pixels, as the same words at PAYTABLE_MIN_PX (14 px: the
    Bingo tables were about 7 px tall at 800x480), and every paytable panel of every page
    holds something (none left a flat colour)."""
    from ui.paytables import PAYTABLE_MIN_PX

    if variant not in engine_variants():
        pytest.skip(f"no Rules Submission for {variant}")
    layout = layout_of(variant)
    words = {t.title for t in layout.paytables} | {
        s for t in layout.paytables for row in t.rows for s in row}
    seen: set[str] = set()
    pages = lines = 0
    for r, surf in paytable_pages(variant, size):
        pages += 1
        plan = r._paytables
        assert plan is not None
        where = [b.inflate(2, 2) for b in plan.boxes]
        seen |= {d.value for d in r.model.of_kind("text") if d.value in words and any(
            b.contains(rect(d.rect)) for b in where)}
        for d in r.model.of_kind("line"):
            if not any(b.contains(rect(d.rect)) for b in where):
                continue  # not a paytable (the title block, the inscriptions)
            lines += 1
            got = ink_height(surf, rect(d.rect), palette.PANEL)
            assert got >= reference_ink(d.value, PAYTABLE_MIN_PX), (size, d.value, got)
        for box, placed in zip(plan.boxes, plan.pages[0][1] if not plan.paged else
                               plan.pages[(pages - 1) % len(plan.pages)][1], strict=True):
            if not placed and not plan.paged:
                continue  # an unused panel is not drawn at all (no empty frame)
            area = box.clip(surf.get_rect())
            inked = (pixels(surf, area) != np.array(palette.PANEL)).any(axis=2).mean()
            assert inked > 0.02, (size, pages, box, "a paytable panel is left blank")
    assert {w for w in words if w} <= seen  # and every line was on some page
    assert lines >= len(words)
    if variant == "bingo" and size == (800, 480):
        assert pages <= 6  # an electronic sign's cycle a player can wait for (36 s)
