"""The attendant screen: the pages behind the attendant key, drawn over the whole display.

While the attendant key (the console's RECALL) is held, page 1 is the game recall (the
recall screen) and DEAL steps on to the pages the table sends as plain rows of text
(``{"kind": "attendant", "pages": [{"title", "columns", "rows", "note"}], "page": k}``):
the meters of the table and of each seat under § 605a.5's names, the last events, the
configuration in force (``etgcore.view.AttendantPage``; the table service builds them in
``firmware/table/service/attendant.py``). The UI only lays the rows out; it computes
nothing, and it gets nothing secret to show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pygame

from ui import palette
from ui.painter import Painter
from ui.units import MIN_FONT_PX


def attendant_index(pages: Sequence[Any], page: int) -> int:
    """Which page is up: 0 the game recall, 1.. the table's pages (DEAL goes round)."""
    return page % (len(pages) + 1) if pages else 0


def _widths(p: Painter, columns: Sequence[str], rows: Sequence[Sequence[str]], px: int,
            width: int) -> list[int]:
    """Column widths in proportion to their widest cell, the last one taking the rest."""
    gap = p.m.s(24)
    need = [max([p.texts.width(str(c), px)] + [p.texts.width(str(r[i]), px) for r in rows
                                               if i < len(r)]) + gap
            for i, c in enumerate(columns)]
    total = sum(need) or 1
    if total <= width:
        need[-1] += width - total
        return need
    return [max(p.m.s(40), n * width // total) for n in need]


def paint_attendant(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
                    pages: Sequence[Mapping[str, Any]], page: int) -> None:
    """One of the table's pages (``page`` >= 1) with its heading and how to page on."""
    m = p.m
    n = len(pages) + 1
    k = attendant_index(pages, page)
    data = pages[k - 1]
    surf.fill(palette.RECALL_BG, rect)
    pygame.draw.rect(surf, palette.RECALL, rect, m.s(12))
    inner = rect.inflate(-m.s(80), -m.s(60))
    head = p.text_fit(surf, f"ATTENDANT  ·  {data.get('title', '')}", m.font(48),
                      palette.RECALL, pygame.Rect(inner.left, inner.top, inner.width, 1),
                      "midtop")
    foot = p.text_fit(surf, f"page {k + 1} of {n}  ·  DEAL: next page  ·  release the "
                      "attendant key to return to the game", m.font(22), palette.MUTED,
                      pygame.Rect(inner.left, inner.bottom, inner.width, 1), "midbottom")
    note = str(data.get("note") or "")
    bottom = foot.top - m.s(10)
    if note:  # word-wrapped above the foot line
        npx = m.font(20)
        step = round(p.texts.font(npx).get_linesize() * 1.05)
        top = bottom - step * len(p.texts.wrap(note, npx, inner.width))
        p.paragraph(surf, note, npx, palette.MUTED, inner, top)
        bottom = top - m.s(8)
    columns = [str(c) for c in data.get("columns") or []]
    rows = [[str(c) for c in r] for r in data.get("rows") or []]
    body = pygame.Rect(inner.left, head.bottom + m.s(20), inner.width,
                       bottom - head.bottom - m.s(20))
    px = m.font(26)
    while px > MIN_FONT_PX and (len(rows) + 1) * p.texts.font(px).get_linesize() > body.height:
        px -= 1
    line = p.texts.font(px).get_linesize()
    widths = _widths(p, columns, rows, px, body.width)
    y = body.top
    for r, cells in enumerate([columns, *rows]):
        if y + line > body.bottom:
            break
        x = body.left
        color = palette.GOLD if r == 0 else palette.CREAM
        for i, w in enumerate(widths):
            text = cells[i] if i < len(cells) else ""
            cell = pygame.Rect(x, y, w - m.s(12), line)
            clip = surf.get_clip()
            surf.set_clip(cell.clip(clip))  # a cell too long at the smallest size is cut
            p.text_fit(surf, text, px, color, cell, "midleft", floor=MIN_FONT_PX)
            surf.set_clip(clip)
            x += w
        if r == 0:
            pygame.draw.line(surf, palette.GOLD_DIM, (body.left, y + line),
                             (body.right, y + line), m.s(2))
        y += line
