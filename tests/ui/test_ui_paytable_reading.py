"""Regulated text reads in order at every supported size (issue 38, items 4 and 11).

Every game's paytables are rendered at 1920x1080, 1280x720 and 800x480, every page of
them, and read back from the render model (the project's own text layout: each line as
drawn, with its rectangle): each row's lines, read as a person reads (line by line from
the top, each line from the left), give the hand and then its odds, word for word; no
line breaks inside odds ("3 to 2") or between a word and its number ("Player 21",
"dealer 7"); every row is read under its own table's title; and on a table's large
screen no paytable line is smaller than a seat can read.

Spanish 21's "Player 21" rows used to read "Player 21 against a dealer player wins / 21".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pygame
import pytest
from conftest import SIZES, engine_variants, layout_of

from ui.model import Drawn
from ui.renderer import PAYTABLE_PAGE_S, Renderer, new_surface
from ui.snapshot import empty_table_view
from ui.state import ScreenState

#: phrases a line must never break inside, found in the regulated text itself
UNBROKEN = (re.compile(r"\d+ to \d+"), re.compile(r"(?<![\w$])[A-Za-z]+ \d+"))


def _rect(d: Drawn) -> pygame.Rect:
    assert d.rect is not None
    return pygame.Rect(d.rect)


def pages(variant: str, size: tuple[int, int]) -> Iterator[Renderer]:
    from firmware.engine.rules import load_rules

    view = empty_table_view(load_rules(variant, {}))
    r = Renderer(size, layout_of(variant), animate=True)
    surf = new_surface(size)
    r.render(surf, view, ScreenState("table"), 0.0)
    assert r._paytables is not None
    for k in range(len(r._paytables.pages)):
        r.render(surf, view, ScreenState("table"), k * PAYTABLE_PAGE_S + 1.0)
        yield r


def reading_order(lines: list[Drawn]) -> list[str]:
    """The lines' texts as read: by the line they sit on (tops within half a line), then
    from the left."""
    rows: list[list[Drawn]] = []
    for d in sorted(lines, key=lambda d: (_rect(d).top, _rect(d).left)):
        if rows and abs(_rect(rows[-1][0]).top - _rect(d).top) < _rect(d).height // 2:
            rows[-1].append(d)
        else:
            rows.append([d])
    return [d.value for row in rows for d in sorted(row, key=lambda d: _rect(d).left)]


def unbroken_phrases(text: str) -> list[str]:
    return [m.group(0) for pattern in UNBROKEN for m in pattern.finditer(text)]


CASES = [(v, s) for v in ["blackjack", "split-to-double", "bingo", "free-bet", "spanish21"]
         for s in SIZES]


@pytest.mark.parametrize(("variant", "size"), CASES,
                         ids=[f"{v}-{w}x{h}" for v, (w, h) in CASES])
def test_every_paytable_row_reads_in_order_under_its_title(
        variant: str, size: tuple[int, int]) -> None:
    if variant not in engine_variants():
        pytest.skip(f"no Rules Submission for {variant}")
    layout = layout_of(variant)
    table_of = {(hand, odds): t.title for t in layout.paytables for hand, odds in t.rows}
    titles = {t.title for t in layout.paytables}
    seen: set[tuple[str, str]] = set()
    for r in pages(variant, size):
        plan = r._paytables
        assert plan is not None
        boxes = [b.inflate(2, 2) for b in plan.boxes]
        lines = [d for d in r.model.of_kind("line") if any(b.contains(_rect(d)) for b in boxes)]
        heads = [d for d in r.model.of_kind("text") if d.value in titles
                 and any(b.contains(_rect(d)) for b in boxes)]
        for row in r.model.of_kind("row"):
            hand, odds = row.value.split("\t")
            area = _rect(row)
            mine = [d for d in lines if area.contains(_rect(d))]
            read = reading_order(mine)
            assert " ".join(read).split() == f"{hand} {odds}".split(), (size, read)
            for phrase in unbroken_phrases(f"{hand}\n{odds}"):
                assert any(phrase in line for line in read), (size, phrase, read)
            # the nearest title above the row, in its own box, is its table's
            box = next(b for b in boxes if b.collidepoint(area.topleft))
            above = [h for h in heads if box.contains(_rect(h)) and _rect(h).bottom <= area.top
                     and _rect(h).left <= area.left + 2]
            assert above, (size, hand, "a row read under no title")
            nearest = max(above, key=lambda h: _rect(h).top)
            assert nearest.value == table_of[hand, odds], (size, hand, nearest.value)
            seen.add((hand, odds))
    assert seen == set(table_of)  # every row of every table on some page


@pytest.mark.parametrize("variant", ["bingo", "spanish21"])
def test_paytables_on_a_large_screen_are_read_from_a_seat(variant: str) -> None:
    """At 1920x1080 (a table's large display) no paytable is smaller than 18 px: Bingo's
    fourteen-row table is paged rather than shrunk to 13-14 px."""
    from ui.paytables import PAYTABLE_SEAT_PX

    for r in pages(variant, (1920, 1080)):
        plan = r._paytables
        assert plan is not None
        assert all(px >= PAYTABLE_SEAT_PX for px, _boxes in plan.pages)
        line = r.painter.texts.font(PAYTABLE_SEAT_PX).get_height()
        boxes = [b.inflate(2, 2) for b in plan.boxes]
        drawn = [d for d in r.model.of_kind("line") if any(b.contains(_rect(d)) for b in boxes)]
        assert drawn and all(_rect(d).height >= line for d in drawn)


@pytest.mark.parametrize("variant", ["blackjack", "split-to-double", "bingo", "spanish21"])
def test_attract_slides_show_every_paytable_whole(variant: str) -> None:
    """Attract mode shows each paytable with its rows and odds, never its bare title (a
    long table over several slides, each under the title and "k/n"), read in order."""
    from firmware.engine.rules import load_rules
    from ui.screens import ATTRACT_SLIDE_S, attract_items

    if variant not in engine_variants():
        pytest.skip(f"no Rules Submission for {variant}")
    layout = layout_of(variant)
    view = empty_table_view(load_rules(variant, {}))
    r = Renderer((1920, 1080), layout, animate=True)
    surf = new_surface((1920, 1080))
    shown: list[tuple[str, str]] = []
    titles: set[str] = set()
    for k in range(len(attract_items(layout))):
        r.render(surf, view, ScreenState("attract"), k * ATTRACT_SLIDE_S + 0.5)
        rows = r.model.of_kind("row", "overlay")
        lines = r.model.of_kind("line", "overlay")
        for row in rows:
            hand, odds = row.value.split("\t")
            read = reading_order([d for d in lines if _rect(row).contains(_rect(d))])
            assert " ".join(read).split() == f"{hand} {odds}".split()
            shown.append((hand, odds))
        titles |= {re.sub(r" \(\d+/\d+\)$", "", d.value)
                   for d in r.model.of_kind("text", "overlay")}
    assert shown == [row for t in layout.paytables for row in t.rows]  # all, in order
    assert {t.title for t in layout.paytables} <= titles
