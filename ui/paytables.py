"""Paytables on the felt: every paytable in force, as large as the panels allow.

A variation may bring a long paytable (Bingo Blackjack's target-and-multiplier odds run
to fourteen rows). Rather than shrink everything until it fits one panel, the tables are
packed into the available panels (each table whole, in its original order), a long table
may run in two columns, and the largest font size at which some packing fits wins.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pygame

from ui import palette
from ui.layout_data import Paytable
from ui.painter import Painter

ODDS_SHARE = 0.45  # odds wider than this share of a column go on lines under the hand
#: No paytable line is drawn smaller than this (pixels of font size): 14 px is read from a
#: seat at 800x480 on the Raspberry Pi's 7" screen; below it the tables are paged instead.
PAYTABLE_MIN_PX = 14
#: ... and on a larger screen no smaller than this design size (18 px at 1920x1080, where
#: 14 px is a quarter of an inch on a table's 43" display, too small from a seat): a long
#: table is paged there too rather than shrunk (``ui.felt``).
PAYTABLE_SEAT_PX = 18


def paytable_floor(p: Painter) -> int:
    """The smallest font size a paytable line may have on this screen."""
    return max(PAYTABLE_MIN_PX, p.m.font(PAYTABLE_SEAT_PX))


@dataclass(frozen=True)
class Placed:
    """A table (or the part of one) in a box; ``title_step`` px more for its title than
    its rows: 2 where the table starts, 0 where it goes on at the top of a later page, and
    a part continuing in the next box of the same page carries no title."""

    table: Paytable
    columns: int
    title_step: int = 2


def _row_lines(p: Painter, hand: str, odds: str, px: int, width: int
               ) -> tuple[list[str], list[str], bool]:
    """(hand lines, odds lines, stacked): the odds beside the hand's *last* line when they
    fit there, else on lines under the hand. Either way a row reads in order, line by line
    from the left: the whole hand, then its odds (never "Player 21 against a dealer
    player wins / 21"), and no line breaks inside odds or a hand's number
    (:func:`ui.fonts.keep_together`)."""
    gap = p.m.s(12)
    odds_w = p.texts.width(odds, px)
    hand_lines = p.texts.wrap(hand, px, width)
    if odds_w <= width * ODDS_SHARE:
        if p.texts.width(hand_lines[-1], px) + gap + odds_w <= width:
            return hand_lines, [odds], False
        # the last line is full: narrower lines leave room beside the last one, unless
        # they take more lines than the odds on a line of their own
        narrow = p.texts.wrap(hand, px, max(10, width - odds_w - gap))
        if len(narrow) <= len(hand_lines) + 1:
            return narrow, [odds], False
    indent = p.m.s(24)
    return hand_lines, p.texts.wrap(odds, px, width - indent), True


def _row_height(hand_lines: list[str], odds_lines: list[str], stacked: bool) -> int:
    return len(hand_lines) + len(odds_lines) if stacked else len(hand_lines)


def _split(rows: tuple[tuple[str, str], ...], columns: int) -> list[tuple[tuple[str, str], ...]]:
    per = -(-len(rows) // columns)
    return [rows[i * per:(i + 1) * per] for i in range(columns)]


def title_height(p: Painter, title: str, px: int, width: int) -> int:
    """A title of ``px`` wraps rather than shrink (an empty title takes no room)."""
    if not title:
        return 0
    lines = len(p.texts.wrap(title, px, width))
    return lines * p.texts.font(px).get_linesize() + p.m.s(4)


def row_height(p: Painter, row: tuple[str, str], px: int, width: int) -> int:
    return p.texts.font(px).get_linesize() * _row_height(*_row_lines(p, row[0], row[1], px,
                                                                     width))


def table_height(p: Painter, pt: Paytable, px: int, width: int, columns: int,
                 title_step: int = 2) -> int:
    line = p.texts.font(px).get_linesize()
    head = title_height(p, pt.title, px + title_step, width)
    col_w = (width - p.m.s(24) * (columns - 1)) // columns
    body = 0
    for rows in _split(pt.rows, columns):
        h = 0
        for hand, odds in rows:
            h += line * _row_height(*_row_lines(p, hand, odds, px, col_w))
        body = max(body, h)
    return head + body + p.m.s(8)


def draw_table(p: Painter, surf: pygame.Surface, pt: Paytable, px: int, box: pygame.Rect,
               columns: int, title_step: int = 2) -> int:
    """One paytable at the top of ``box``; returns the y below it."""
    m = p.m
    if pt.title:
        p.paragraph(surf, pt.title, px + title_step, palette.GOLD, box, box.top, "left", 1.0)
    top = box.top + title_height(p, pt.title, px + title_step, box.width)
    line = p.texts.font(px).get_linesize()
    gap = m.s(24)
    col_w = (box.width - gap * (columns - 1)) // columns
    bottom = top
    for c, rows in enumerate(_split(pt.rows, columns)):
        left = box.left + c * (col_w + gap)
        y = top
        for hand, odds in rows:
            hand_lines, odds_lines, stacked = _row_lines(p, hand, odds, px, col_w)
            drawn: list[pygame.Rect] = []
            for i, text in enumerate(hand_lines):
                img = p.texts.render(text, px, palette.CREAM)
                drawn.append(surf.blit(img, (left, y + i * line)))
                p.model.add(p.region, "line", text, drawn[-1])
            # stacked: under the hand; beside: on the hand's last line
            first = y + len(hand_lines) * line if stacked else y + (len(hand_lines) - 1) * line
            for i, text in enumerate(odds_lines):
                img = p.texts.render(text, px, palette.MUTED if stacked else palette.CREAM)
                if stacked:
                    at = img.get_rect(topleft=(left + m.s(24), first + i * line))
                else:
                    at = img.get_rect(topright=(left + col_w, first + i * line))
                drawn.append(surf.blit(img, at))
                p.model.add(p.region, "line", text, drawn[-1])
            # each string once, at its first line (what a test measures the size of)
            p.model.add(p.region, "text", hand, drawn[0])
            p.model.add(p.region, "text", odds, drawn[len(hand_lines)])
            height = line * _row_height(hand_lines, odds_lines, stacked)
            # the row as a whole: its lines are read in order within this rectangle
            p.model.add(p.region, "row", f"{hand}\t{odds}",
                        pygame.Rect(left, y, col_w, height))
            y += height
        bottom = max(bottom, y)
    return bottom + m.s(8)


Page = tuple[int, list[list[Placed]]]  # font size, and the tables of each box


def fit(p: Painter, tables: tuple[Paytable, ...], boxes: list[pygame.Rect], base_px: int,
        floor: int) -> Page | None:
    """The largest size >= ``floor`` at which every table fits some packing, or None."""
    for px in range(base_px, floor - 1, -1):
        # the cheapest shape of each table in each box at this size
        shape: dict[tuple[int, int], tuple[int, int]] = {}
        for t, table in enumerate(tables):
            for b, box in enumerate(boxes):
                options = [1]
                if len(table.rows) >= 6 and box.width >= p.m.s(440):
                    options.append(2)
                shape[t, b] = min((table_height(p, table, px, box.width, c), c)
                                  for c in options)
        best: tuple[float, tuple[int, ...]] | None = None
        for choice in itertools.product(range(len(boxes)), repeat=len(tables)):
            used = [0] * len(boxes)
            for t, b in enumerate(choice):
                used[b] += shape[t, b][0]
            if all(u <= box.height for u, box in zip(used, boxes, strict=True)):
                # of the packings that fit, the most even one (no panel crammed, none empty)
                fill = max(u / max(1, box.height) for u, box in zip(used, boxes, strict=True))
                if best is None or fill < best[0]:
                    best = (fill, choice)
        if best is not None:
            out: list[list[Placed]] = [[] for _ in boxes]
            for t, b in enumerate(best[1]):
                out[b].append(Placed(tables[t], shape[t, b][1]))
            return px, out
    return None


def plan_pages(p: Painter, tables: tuple[Paytable, ...], boxes: list[pygame.Rect],
               base_px: int, floor: int) -> list[Page]:
    """One page when everything fits at ``floor`` or more; else pages shown in turn.

    A small screen cannot show a long set of paytables at a readable size all at once;
    it then shows them a page at a time, as an electronic sign does, a long table running
    on from one panel (and page) to the next.
    """
    if not tables:
        return [(base_px, [[] for _ in boxes])]
    whole = fit(p, tables, boxes, base_px, floor)
    if whole is not None:
        return [whole]
    return flow_pages(p, tables, boxes, base_px, floor)


Sizes = dict[tuple[Any, ...], int]  # measured heights, kept while one plan is made


def _measured(p: Painter, sizes: Sizes, row: tuple[str, str] | str, px: int,
              width: int) -> int:
    key = (row, px, width)
    if key not in sizes:
        sizes[key] = (title_height(p, row, px, width) if isinstance(row, str)
                      else row_height(p, row, px, width))
    return sizes[key]


def _flow(p: Painter, tables: tuple[Paytable, ...], boxes: list[pygame.Rect], px: int,
          fill: float, sizes: Sizes) -> list[Page]:
    """Pages of the tables' rows poured, in order, into the boxes (filled to ``fill`` of
    their height). A table that does not fit the rest of a box goes on in the next box
    under its title again: the boxes are not always read in the order they are filled
    (the roomier right panel first), and a row must never be read under another table's
    title, or under none. A title never ends a box."""
    pages: list[Page] = []
    page: list[list[Placed]] = [[] for _ in boxes]
    b, used, gap = 0, 0, p.m.s(8)
    for table in tables:
        rows, i = table.rows, 0
        while i < len(rows):
            step = 2 if i == 0 else 0
            title = table.title  # over every part: a row is read under its own title
            width, room = boxes[b].width, int(boxes[b].height * fill) - used
            h = _measured(p, sizes, title, px + step, width)
            n = 0
            while i + n < len(rows) and h + _measured(p, sizes, rows[i + n], px, width) <= room:
                h += _measured(p, sizes, rows[i + n], px, width)
                n += 1
            if n == 0 and used == 0:  # one row taller than a whole box: it still goes
                n, h = 1, h + _measured(p, sizes, rows[i], px, width)
            if n == 0:  # on to the next box, or the next page
                b, used = b + 1, 0
                if b == len(boxes):
                    pages.append((px, page))
                    page, b = [[] for _ in boxes], 0
                continue
            page[b].append(Placed(Paytable(title, rows[i:i + n]), 1, step))
            used += h + gap
            i += n
    if any(page):
        pages.append((px, page))
    return pages


def flow_pages(p: Painter, tables: tuple[Paytable, ...], boxes: list[pygame.Rect],
               base_px: int, floor: int) -> list[Page]:
    """Pages for tables too long for the panels at ``floor`` px: as few pages as at the
    floor, at the largest size that needs no more, and the rows spread as evenly as that
    number of pages allows (each box filled less, until one more page would be needed),
    so the last page's panels are not left empty."""
    sizes: Sizes = {}
    fewest = len(_flow(p, tables, boxes, floor, 1.0, sizes))
    px = next(size for size in range(max(base_px, floor), floor - 1, -1)
              if len(_flow(p, tables, boxes, size, 1.0, sizes)) == fewest)
    best = _flow(p, tables, boxes, px, 1.0, sizes)
    for step in range(19, 5, -1):
        trial = _flow(p, tables, boxes, px, step / 20, sizes)
        if len(trial) != fewest:
            break
        best = trial
    return best


def used_height(p: Painter, px: int, placed: list[Placed], width: int) -> int:
    return sum(table_height(p, pl.table, px, width, pl.columns, pl.title_step)
               for pl in placed)


def draw_box(p: Painter, surf: pygame.Surface, box: pygame.Rect, px: int,
             placed: list[Placed]) -> None:
    top = box.top
    for pl in placed:
        top = draw_table(p, surf, pl.table, px,
                         pygame.Rect(box.left, top, box.width, box.bottom - top), pl.columns,
                         pl.title_step)


def page_showing_draw(pages: list[Page], view: Mapping[str, Any] | None, otherwise: int) -> int:
    """Bingo: the first page with the row of the multiplier just drawn (a line "..., 25x"),
    so the paytable's rotation never hides what the round pays; ``otherwise`` before the
    draw, in other games, or when no page has that row."""
    bingo = view.get("bingo") if view else None
    m = bingo.get("multiplier") if isinstance(bingo, Mapping) else None
    if not isinstance(m, int):
        return otherwise
    ending = f", {m}x"
    for i, (_px, boxes) in enumerate(pages):
        if any(hand.endswith(ending) for box in boxes for pl in box
               for hand, _odds in pl.table.rows):
            return i
    return otherwise
