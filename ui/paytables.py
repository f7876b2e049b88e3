"""Paytables on the felt: every paytable in force, as large as the panels allow.

A variation may bring a long paytable (Bingo Blackjack's target-and-multiplier odds run
to fourteen rows). Rather than shrink everything until it fits one panel, the tables are
packed into the available panels (each table whole, in its original order), a long table
may run in two columns, and the largest font size at which some packing fits wins.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pygame

from ui import palette
from ui.layout_data import Paytable
from ui.painter import Painter

ODDS_SHARE = 0.45  # odds wider than this share of a column go on lines under the hand
MIN_PX = 8


@dataclass(frozen=True)
class Placed:
    table: Paytable
    columns: int


def _row_lines(p: Painter, hand: str, odds: str, px: int, width: int
               ) -> tuple[list[str], list[str], bool]:
    """(hand lines, odds lines, stacked): odds beside the hand, or under it when long."""
    gap = p.m.s(12)
    odds_w = p.texts.width(odds, px)
    if odds_w <= width * ODDS_SHARE:
        return p.texts.wrap(hand, px, max(10, width - odds_w - gap)), [odds], False
    indent = p.m.s(24)
    return p.texts.wrap(hand, px, width), p.texts.wrap(odds, px, width - indent), True


def _row_height(hand_lines: list[str], odds_lines: list[str], stacked: bool) -> int:
    return len(hand_lines) + len(odds_lines) if stacked else max(len(hand_lines),
                                                                  len(odds_lines))


def _split(rows: tuple[tuple[str, str], ...], columns: int) -> list[tuple[tuple[str, str], ...]]:
    per = -(-len(rows) // columns)
    return [rows[i * per:(i + 1) * per] for i in range(columns)]


def table_height(p: Painter, pt: Paytable, px: int, width: int, columns: int) -> int:
    line = p.texts.font(px).get_linesize()
    head = p.texts.font(px + 2).get_linesize() + p.m.s(4)
    col_w = (width - p.m.s(24) * (columns - 1)) // columns
    body = 0
    for rows in _split(pt.rows, columns):
        h = 0
        for hand, odds in rows:
            h += line * _row_height(*_row_lines(p, hand, odds, px, col_w))
        body = max(body, h)
    return head + body + p.m.s(8)


def draw_table(p: Painter, surf: pygame.Surface, pt: Paytable, px: int, box: pygame.Rect,
               columns: int) -> int:
    """One paytable at the top of ``box``; returns the y below it."""
    m = p.m
    p.text_fit(surf, pt.title, px + 2, palette.GOLD, pygame.Rect(box.left, box.top, box.width, 1),
               "topleft", MIN_PX)
    top = box.top + p.texts.font(px + 2).get_linesize() + m.s(4)
    line = p.texts.font(px).get_linesize()
    gap = m.s(24)
    col_w = (box.width - gap * (columns - 1)) // columns
    bottom = top
    for c, rows in enumerate(_split(pt.rows, columns)):
        left = box.left + c * (col_w + gap)
        y = top
        for hand, odds in rows:
            hand_lines, odds_lines, stacked = _row_lines(p, hand, odds, px, col_w)
            for i, text in enumerate(hand_lines):
                surf.blit(p.texts.render(text, px, palette.CREAM), (left, y + i * line))
            first = y + len(hand_lines) * line if stacked else y
            for i, text in enumerate(odds_lines):
                img = p.texts.render(text, px, palette.MUTED if stacked else palette.CREAM)
                if stacked:
                    surf.blit(img, (left + m.s(24), first + i * line))
                else:
                    surf.blit(img, img.get_rect(topright=(left + col_w, first + i * line)))
            p.model.add(p.region, "text", hand)
            p.model.add(p.region, "text", odds)
            y += line * _row_height(hand_lines, odds_lines, stacked)
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
    it then shows them a page at a time (each table whole), as an electronic sign does.
    A table too long for the panels even alone gets a page at whatever size it fits.
    """
    if not tables:
        return [(base_px, [[] for _ in boxes])]
    whole = fit(p, tables, boxes, base_px, floor)
    if whole is not None:
        return [whole]
    pages: list[Page] = []
    current: list[Paytable] = []
    for table in tables:
        if current and fit(p, (*current, table), boxes, base_px, floor) is not None:
            current.append(table)
            continue
        if current:
            page = fit(p, tuple(current), boxes, base_px, floor)
            assert page is not None
            pages.append(page)
            current = []
        if fit(p, (table,), boxes, base_px, floor) is not None:
            current = [table]
        else:
            alone = fit(p, (table,), boxes, base_px, MIN_PX)
            pages.append(alone or (MIN_PX, [[Placed(table, 1)]] + [[] for _ in boxes[1:]]))
    if current:
        page = fit(p, tuple(current), boxes, base_px, floor)
        assert page is not None
        pages.append(page)
    return pages


def used_height(p: Painter, px: int, placed: list[Placed], width: int) -> int:
    return sum(table_height(p, pl.table, px, width, pl.columns) for pl in placed)


def draw_box(p: Painter, surf: pygame.Surface, box: pygame.Rect, px: int,
             placed: list[Placed]) -> None:
    top = box.top
    for pl in placed:
        top = draw_table(p, surf, pl.table, px,
                         pygame.Rect(box.left, top, box.width, box.bottom - top), pl.columns)
