"""The static layer: felt, printed inscriptions, paytables, betting areas.

Everything here changes only when the variation, its Rules Submission, the seat count or
the screen size changes, so it is drawn once into a cached surface and every frame
restores regions from it. Every inscription and paytable comes from the layout data
(:mod:`ui.layout_data`), never from text typed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pygame

from etgcore.money import dollars
from ui import palette, paytables
from ui.geometry import SeatGeometry, TableGeometry, seat_top
from ui.layout_data import Layout
from ui.painter import Painter
from ui.seats import credits_label
from ui.units import MIN_FONT_PX


def _felt(surf: pygame.Surface, g: TableGeometry) -> None:
    """Dark green cloth, lighter under the dealer's lamp, with the printed table arcs."""
    m = g.m
    surf.fill(palette.FELT_EDGE)
    steps = 36
    for i in range(steps):
        k = i / (steps - 1)
        color = tuple(
            round(a + (b - a) * k) for a, b in zip(palette.FELT_DARK, palette.FELT, strict=True)
        )
        w = m.x(2600 - 1500 * k)
        h = m.y(2000 - 1300 * k)
        rect = pygame.Rect(0, 0, w, h)
        rect.center = (m.x(960), m.y(330))
        pygame.draw.ellipse(surf, color, rect)
    n = len(g.seats)
    col_w = 1888.0 / n
    for offset, width in ((-14.0, 3), (-18.0, 1)):
        pts = [(m.x(x), m.y(seat_top(x, col_w) + offset)) for x in range(0, 1921, 24)]
        pygame.draw.lines(surf, palette.GOLD_DIM, False, pts, max(1, m.s(width)))
    # the rail: padded wood along the players' edge, under the status line
    pygame.draw.rect(surf, palette.RAIL, g.status)
    pygame.draw.line(surf, palette.RAIL_LIGHT, g.status.topleft, g.status.topright, m.s(3))


def _title_block(p: Painter, surf: pygame.Surface | None, box: pygame.Rect, layout: Layout,
                 limits: Mapping[str, Any]) -> int:
    """Title, certificate holder (§ 633b.26(b)(1)) and limits; returns the y below them.

    With ``surf`` None it only measures (the panel is sized before it is drawn).
    """
    m = p.m
    lines: list[tuple[str, int, palette.Color]] = [
        (layout.title, m.font(40), palette.GOLD),
        (layout.certificate_holder, m.font(26), palette.CREAM),
    ]
    lo, hi = limits.get("min_wager"), limits.get("max_wager")
    if isinstance(lo, int) and isinstance(hi, int):
        lines.append((f"Wagers {dollars(lo)} to {dollars(hi)}", m.font(22), palette.MUTED))
    y = box.top
    for text, px, color in lines:
        px = p.texts.fit(text, px, box.width, 9)
        if surf is not None:
            p.text(surf, text, px, color, (box.centerx, y), "midtop")
        y += p.texts.font(px).get_linesize() + m.s(2)
    return y


@dataclass
class PaytablePlan:
    """Where the paytables go: one page drawn into the static layer, or pages in turn."""

    boxes: list[pygame.Rect]
    pages: list[paytables.Page]

    @property
    def paged(self) -> bool:
        return len(self.pages) > 1


def _panels(p: Painter, surf: pygame.Surface, g: TableGeometry, layout: Layout,
            limits: Mapping[str, Any]) -> PaytablePlan:
    """Title block on the left; paytables on the right (or under the title with Bingo)."""
    m = g.m
    pad = m.s(14)
    inner = g.left_panel.inflate(-2 * pad, -2 * pad)
    title_bottom = _title_block(p, None, inner, layout, limits)
    rule_y = title_bottom + m.s(8)
    left_box = pygame.Rect(inner.left, rule_y + m.s(12), inner.width,
                           inner.bottom - rule_y - m.s(12))
    right = g.right_panel
    if g.bingo is not None:
        right = pygame.Rect(right.left, g.bingo.bottom + m.s(8), right.width,
                            right.bottom - g.bingo.bottom - m.s(8))
    right_box = right.inflate(-2 * pad, -2 * pad)
    # the roomier right panel first, unless the Bingo display took most of it
    boxes = [left_box, right_box] if g.bingo is not None else [right_box, left_box]
    floor = paytables.paytable_floor(p)
    base = max(m.font(24), floor)
    pages = paytables.plan_pages(p, layout.paytables, boxes, base, floor)
    if len(pages) > 1:  # keep a line at the bottom of the first box for "page k/n"
        boxes[0].height -= p.texts.font(m.font(16)).get_linesize()
        pages = paytables.plan_pages(p, layout.paytables, boxes, base, floor)
    plan = PaytablePlan(boxes, pages)
    px, placed = pages[0]
    by_box = dict(zip((id(b) for b in boxes), placed, strict=True))
    left_used = plan.paged or bool(by_box[id(left_box)])
    right_used = plan.paged or bool(by_box[id(right_box)])
    left = g.left_panel.copy()
    if not left_used:  # the panel hugs the title block
        left.height = title_bottom + pad - left.top
    p.panel(surf, left, palette.PANEL, palette.PANEL_EDGE)
    _title_block(p, surf, inner, layout, limits)
    if left_used:
        pygame.draw.line(surf, palette.GOLD_DIM, (inner.left, rule_y), (inner.right, rule_y),
                         m.s(2))
    if right_used:
        if not plan.paged:
            used = paytables.used_height(p, px, by_box[id(right_box)], right_box.width)
            right.height = min(right.height, used + 2 * pad)
        p.panel(surf, right, palette.PANEL, palette.PANEL_EDGE)
    if not plan.paged:
        for box, col in zip(boxes, placed, strict=True):
            paytables.draw_box(p, surf, box, px, col)
    return plan


def _inscriptions(p: Painter, surf: pygame.Surface, g: TableGeometry, layout: Layout) -> None:
    """The regulated inscriptions, word for word, centred in gold across the felt."""
    box = g.center.inflate(-g.m.s(10), -g.m.s(8))
    if not layout.inscriptions:
        return
    base = g.m.font(34)
    px = base
    # shrink a little to keep each inscription on one line; wrap only past that
    while px > base * 3 // 4 and any(p.texts.width(s, px) > box.width
                                     for s in layout.inscriptions):
        px -= 1
    while True:
        line = p.texts.font(px).get_linesize()
        total = sum(len(p.texts.wrap(s, px, box.width)) for s in layout.inscriptions) * line
        if total <= box.height or px <= 8:
            break
        px -= 1
    y = box.top + max(0, (box.height - total) // 2)
    for text in layout.inscriptions:
        y = p.paragraph(surf, text, px, palette.GOLD, box, y, "center", 1.0)


#: A betting area's name is never printed smaller (the seat columns of 800x480 need it).
LABEL_FLOOR_PX = 8


@dataclass
class _SpotLabel:
    """A betting area's printed name as it will be drawn: its lines at ``px``, ``width``
    the widest line's, ``left`` where they are centred over, ``top`` under its circle."""

    text: str
    centerx: int
    top: int
    px: int = 0
    lines: tuple[str, ...] = ()
    width: int = 0
    left: int = 0


def _wrap_label(p: Painter, label: _SpotLabel, px: int, share: int) -> None:
    """Two lines at full size read better than one squeezed line: shrink until the name
    is at most two lines of at most ``share`` pixels."""
    while True:
        lines = p.texts.wrap(label.text, px, share)
        widest = max(p.texts.width(line, px) for line in lines)
        if (len(lines) <= 2 and widest <= share) or px <= LABEL_FLOOR_PX:
            break
        px -= 1
    label.px, label.lines, label.width = px, tuple(lines), widest


def _pack(labels: list[_SpotLabel], left: int, right: int, apart: int) -> bool:
    """Place the labels left to right, each as near its circle's centre as it may be,
    ``apart`` pixels from the next and inside ``left``..``right``; False if they do not
    fit side by side."""
    x = left
    for label in labels:
        label.left = max(label.centerx - label.width // 2, x)
        x = label.left + label.width + apart
    x = right
    for label in reversed(labels):
        label.left = min(label.left, x - label.width)
        x = label.left - apart
    return labels[0].left >= left


def _spot_labels(p: Painter, sg: SeatGeometry, layout: Layout) -> list[_SpotLabel]:
    """Each betting area's name under its circle, inside the seat's column; a side spot's
    label lies beside the main one's, so they are packed side by side with a gap (their
    size shrinks a step at a time until they fit)."""
    m = p.m
    share = round(sg.rect.width * (0.5 if len(sg.spots) > 1 else 0.9))
    labels = [_SpotLabel(layout.label(kind), c[0], c[1] + r + m.s(3))
              for kind, (c, r) in sorted(sg.spots.items(), key=lambda s: s[1][0][0])]
    px = m.font(15)
    for label in labels:
        _wrap_label(p, label, px, share)
    edge = m.s(4)
    while not _pack(labels, sg.rect.left + edge, sg.rect.right - edge, m.s(10)):
        px = max(label.px for label in labels) - 1
        if px < LABEL_FLOOR_PX:  # the smallest print the felt has: slid apart as it is
            break
        for label in labels:
            _wrap_label(p, label, min(px, label.px), share)
    return labels


def _seat_areas(p: Painter, surf: pygame.Surface, g: TableGeometry, layout: Layout) -> None:
    m = g.m
    for seat, sg in g.seats.items():
        if sg.insurance.width:
            pygame.draw.ellipse(surf, palette.GOLD_DIM, sg.insurance, m.s(2))
            # never under the smallest size a seat reads (800x480: 10 px, was 7)
            p.text_fit(surf, layout.label("insurance"), max(m.font(14), MIN_FONT_PX),
                       palette.GOLD_DIM, sg.insurance.inflate(-m.s(6), 0), "center",
                       floor=MIN_FONT_PX)
        for center, radius in sg.spots.values():
            pygame.draw.circle(surf, palette.FELT_DARK, center, radius)
            pygame.draw.circle(surf, palette.GOLD, center, radius, m.s(3))
        for label in _spot_labels(p, sg, layout):
            box = pygame.Rect(label.left, label.top, label.width, 1)
            if len(label.lines) == 1:
                p.text(surf, label.text, label.px, palette.GOLD, box.midtop, "midtop")
            else:
                p.paragraph(surf, label.text, label.px, palette.GOLD, box, box.top, "center",
                            0.9)
        p.text(surf, credits_label(seat), m.font(16), palette.MUTED,
               (sg.credits.centerx, sg.credits.top), "midtop")


def build_static(p: Painter, g: TableGeometry, layout: Layout,
                 limits: Mapping[str, Any]) -> tuple[pygame.Surface, PaytablePlan]:
    """The cached background of every frame for this layout and size, and the paytables'
    plan (when they are paged, the renderer draws them as a region of their own)."""
    surf = pygame.Surface(g.size).convert() if pygame.display.get_init() and \
        pygame.display.get_surface() is not None else pygame.Surface(g.size)
    p.region = "static"
    p.model.reset("static")
    _felt(surf, g)
    plan = _panels(p, surf, g, layout, limits)
    _inscriptions(p, surf, g, layout)
    _seat_areas(p, surf, g, layout)
    p.text(surf, "DEALER", g.m.font(20), palette.MUTED, (g.dealer.centerx, g.dealer.top + g.m.s(4)),
           "midtop")
    return surf, plan
