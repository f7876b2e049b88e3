"""The screens drawn over the table: attract, betting countdown, tilt, void, recall, failure.

Each screen is an opaque panel over part of the table (the table stays visible around
it, dimmed where the round is paused), except a failure, which closes the whole screen.
Texts that come from the rules (title, inscriptions, paytable names) are taken from the
layout data; what the dealer must do in a tilt comes from the public view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pygame

from etgcore.money import dollars
from etgcore.view import PublicView
from ui import palette, paytables
from ui.geometry import TableGeometry
from ui.keys import annotate
from ui.layout_data import Layout, Paytable
from ui.painter import Painter
from ui.state import OPAQUE_SCREENS, ScreenState
from ui.units import MIN_FONT_PX

DIM_SCREENS = frozenset({"attract", "tilt", "void"})
ATTRACT_SLIDE_S = 3.5


def overlay_rect(screen: str, g: TableGeometry) -> pygame.Rect | None:
    m = g.m
    if screen in ("attract", "betting"):
        # over the dealer's place, empty between rounds: the inscriptions stay in view
        return m.rect(566, 10, 788, 222)
    if screen in ("tilt", "void"):
        return m.rect(420, 232, 1080, 300)
    if screen == "recall":
        return m.rect(560, 238, 800, 196)
    if screen in OPAQUE_SCREENS:
        return pygame.Rect(0, 0, m.width, m.height)
    return None


#: rows of a paytable on one attract slide (a longer table takes several slides, in order)
SLIDE_ROWS = 3


def attract_items(layout: Layout) -> list[str | Paytable]:
    """What attract mode cycles through: the layout's own inscriptions, then each paytable
    whole (its title and every row with its odds, never the bare title), a long one
    over several slides of :data:`SLIDE_ROWS` rows, each under the title and "k/n"."""
    items: list[str | Paytable] = list(layout.inscriptions)
    for pt in layout.paytables:
        parts = [pt.rows[i:i + SLIDE_ROWS] for i in range(0, len(pt.rows), SLIDE_ROWS)]
        for k, rows in enumerate(parts):
            title = pt.title if len(parts) == 1 else f"{pt.title} ({k + 1}/{len(parts)})"
            items.append(Paytable(title, rows))
    return items


def overlay_key(screen: str, view: PublicView | None, layout: Layout,
                state: ScreenState, t: float, animate: bool) -> tuple[Any, ...]:
    """Everything the overlay's pixels depend on, quantized in time."""
    if screen == "attract":
        n = max(1, len(attract_items(layout)))
        slide = int(t / ATTRACT_SLIDE_S) % n if animate else 0
        pulse = int(t * 8) % 16 if animate else 0
        return (screen, slide, pulse)
    if screen == "betting":
        if state.betting_closes_at is None:
            return (screen, None, state.panel_keys)
        left = max(0.0, state.betting_closes_at - t)
        return (screen, math.ceil(left), round(left * 10))
    if screen == "tilt":
        return (screen, repr(view.get("tilt") if view else None), state.panel_keys)
    if screen == "void":
        return (screen, view.get("round") if view else None)
    if screen == "recall":
        return (screen, state.recall_index, len(state.recall))
    if screen == "failure":
        return (screen, repr(state.failure))
    if screen == "attendant":
        return (screen, state.attendant_page, repr(state.attendant_pages))
    return (screen,)


def _box(p: Painter, surf: pygame.Surface, rect: pygame.Rect, edge: palette.Color,
         fill: palette.Color = palette.PANEL) -> None:
    # square and opaque to the corners, so a redraw never leaves old pixels behind
    p.panel(surf, rect, fill, edge, radius=0, width=p.m.s(5))


def _attract(p: Painter, surf: pygame.Surface, rect: pygame.Rect, layout: Layout,
             view: PublicView | None, t: float, animate: bool) -> None:
    m = p.m
    _box(p, surf, rect, palette.GOLD)
    inner = rect.inflate(-m.s(30), -m.s(20))
    items = attract_items(layout)
    idx = int(t / ATTRACT_SLIDE_S) % len(items) if items and animate else 0
    item = items[idx] if items else None
    limits: Mapping[str, Any] = (view.get("limits") if view else None) or {}
    lo, hi = limits.get("min_wager"), limits.get("max_wager")
    wagers = (f"Wagers {dollars(lo)} to {dollars(hi)}"
              if isinstance(lo, int) and isinstance(hi, int) else "")
    if isinstance(item, Paytable):
        # a paytable takes the whole slide under its own title; the game, the certificate
        # holder and the limits share one line at the foot (all on the felt's title panel)
        foot = "  ·  ".join(x for x in (layout.title, layout.certificate_holder, wagers) if x)
        f = p.text_fit(surf, foot, m.font(22), palette.MUTED,
                       pygame.Rect(inner.left, inner.bottom, inner.width, 1), "midbottom")
        box = pygame.Rect(inner.left + m.s(20), inner.top, inner.width - m.s(40),
                          f.top - m.s(6) - inner.top)
        clip = surf.get_clip()
        surf.set_clip(box.clip(clip) if clip else box)
        paytables.draw_table(p, surf, item, _slide_px(p, item, box), box, 1)
        surf.set_clip(clip)
        return
    r = p.text_fit(surf, layout.title, m.font(56), palette.GOLD,
                   pygame.Rect(inner.left, inner.top, inner.width, 1), "midtop")
    r = p.text_fit(surf, layout.certificate_holder, m.font(28), palette.CREAM,
                   pygame.Rect(inner.left, r.bottom + m.s(2), inner.width, 1), "midtop")
    if item is not None:
        pulse = (int(t * 8) % 16) / 15.0 if animate else 1.0
        k = 0.6 + 0.4 * abs(2 * pulse - 1)
        r_, g_, b_ = palette.GOLD
        color = (round(r_ * k), round(g_ * k), round(b_ * k))
        box = pygame.Rect(inner.left, r.bottom + m.s(12), inner.width, m.s(80))
        p.paragraph(surf, item, m.font(34), color, box, box.top)
    if wagers:
        p.text(surf, wagers, m.font(22), palette.MUTED, inner.midbottom, "midbottom")


def _slide_px(p: Painter, table: Paytable, box: pygame.Rect) -> int:
    """The largest size (up to the design's 34 px) at which ``table`` fits ``box``."""
    px = p.m.font(34)
    while px > MIN_FONT_PX and paytables.table_height(p, table, px, box.width, 1) > box.height:
        px -= 1
    return px


def _betting(p: Painter, surf: pygame.Surface, rect: pygame.Rect, state: ScreenState,
             t: float) -> None:
    keys = dict(state.panel_keys)
    m = p.m
    _box(p, surf, rect, palette.GOLD)
    text_box = rect.inflate(-m.s(30), -m.s(20))
    if state.betting_closes_at is not None:
        left = max(0.0, state.betting_closes_at - t)
        secs = math.ceil(left)
        radius = m.s(70)
        center = (rect.left + m.s(30) + radius, rect.centery)
        pygame.draw.circle(surf, palette.FELT_DARK, center, radius)
        opened = state.betting_opened_at
        span = state.betting_closes_at - opened if opened is not None else 0.0
        frac = min(1.0, round(left * 10) / 10 / span) if span > 0 else 1.0
        arc = pygame.Rect(0, 0, 2 * radius, 2 * radius)
        arc.center = center
        if left > 0:
            start = math.pi / 2
            pygame.draw.arc(surf, palette.GOLD, arc, start, start + 2 * math.pi * min(1.0, frac),
                            m.s(10))
        p.text(surf, str(secs), m.font(64), palette.CREAM, center, "center")
        text_box.left = center[0] + radius + m.s(24)
        text_box.width = rect.right - m.s(20) - text_box.left
        note = f"betting closes in {secs} s" if secs else "betting is closed"
    else:
        note = annotate("wagers close when the dealer presses DEAL", keys)
    if state.held:  # the table deals no new round (firmware.table.floor_gate holds)
        note = f"no new round: {state.held}"
    top = text_box.top + m.s(50 if not keys else 22)
    r = p.text_fit(surf, "PLACE YOUR WAGERS", m.font(52), palette.GOLD,
                   pygame.Rect(text_box.left, top, text_box.width, 1), "midtop")
    r = p.text_fit(surf, note, m.font(26), palette.CREAM,
                   pygame.Rect(text_box.left, r.bottom + m.s(16), text_box.width, 1), "midtop")
    if keys.get("BET"):  # a keyboard panel: how a seat places a wager
        how = annotate("a seat's key, then BET; CLEAR takes it back", keys)
        p.text_fit(surf, how, m.font(22), palette.MUTED,
                   pygame.Rect(text_box.left, r.bottom + m.s(10), text_box.width, 1), "midtop")


def _tilt(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
          view: PublicView | None, keys: Mapping[str, str]) -> None:
    m = p.m
    tilt: Mapping[str, Any] = (view.get("tilt") if view else None) or {}
    _box(p, surf, rect, palette.TILT, palette.TILT_BG)
    bar = pygame.Rect(rect.left, rect.top, rect.width, m.s(56))
    pygame.draw.rect(surf, palette.TILT, bar)
    code = str(tilt.get("code") or "")
    head = "TABLE PAUSED" + (f"  ·  {code}" if code else "")
    p.text_fit(surf, head, m.font(40), palette.WHITE, bar.inflate(-m.s(20), 0), "center")
    inner = rect.inflate(-m.s(40), 0)
    y = bar.bottom + m.s(12)
    cause = annotate(str(tilt.get("cause") or "a fault paused the round"), keys)
    y = p.paragraph(surf, cause, m.font(30), palette.CREAM, inner, y)
    y += m.s(8)
    p.text(surf, "DEALER:", m.font(24), palette.AMBER, (inner.left, y))
    resolve = annotate(str(tilt.get("resolve") or "call a supervisor"), keys)
    box = pygame.Rect(inner.left, y + p.texts.font(m.font(24)).get_linesize(), inner.width, 1)
    p.paragraph(surf, resolve, m.font(28), palette.WHITE, box, box.top, "left")


def _void(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
          view: PublicView | None) -> None:
    m = p.m
    _box(p, surf, rect, palette.AMBER, palette.TILT_BG)
    inner = rect.inflate(-m.s(40), -m.s(30))
    r = p.text_fit(surf, "ROUND VOID", m.font(64), palette.AMBER,
                   pygame.Rect(inner.left, inner.top + m.s(10), inner.width, 1), "midtop")
    rnd = view.get("round") if view else None
    what = f"Every wager of round {rnd} has been returned." if rnd is not None else \
        "Every wager of the round has been returned."
    y = p.paragraph(surf, what, m.font(32), palette.CREAM, inner, r.bottom + m.s(24))
    p.paragraph(surf, "A supervisor voided this round.", m.font(24), palette.MUTED, inner, y)


def _recall(p: Painter, surf: pygame.Surface, rect: pygame.Rect, g: TableGeometry,
            state: ScreenState) -> None:
    m = p.m
    _box(p, surf, rect, palette.RECALL, palette.RECALL_BG)
    inner = rect.inflate(-m.s(30), -m.s(16))
    r = p.text_fit(surf, "GAME RECALL", m.font(60), palette.RECALL,
                   pygame.Rect(inner.left, inner.top, inner.width, 1), "midtop")
    r = p.text_fit(surf, "NOT THE CURRENT GAME", m.font(30), palette.WHITE,
                   pygame.Rect(inner.left, r.bottom + m.s(4), inner.width, 1), "midtop")
    idx = max(0, min(state.recall_index, len(state.recall) - 1))
    entry = state.recall[idx]
    parts = [f"round {entry.view.get('round', '?')}"]
    if entry.ended:
        parts.append(f"ended {entry.ended}")
    parts.append(f"{idx + 1} of {len(state.recall)} (newest first)")
    p.text_fit(surf, "  ·  ".join(parts), m.font(24), palette.CREAM,
               pygame.Rect(inner.left, r.bottom + m.s(8), inner.width, 1), "midtop")


def paint_recall_frame(p: Painter, surf: pygame.Surface, g: TableGeometry,
                       state: ScreenState) -> None:
    """The recall frame around the whole screen and the list of rounds on the rail."""
    m = p.m
    pygame.draw.rect(surf, palette.RECALL, surf.get_rect(), m.s(8))
    bar = g.status
    pygame.draw.rect(surf, palette.RECALL_BG, bar)
    p.text(surf, "RECALL", m.font(22), palette.RECALL, (bar.left + m.s(16), bar.centery),
           "midleft")
    n = len(state.recall)
    cell_w = (bar.width - m.s(160)) // max(1, n)
    for i, entry in enumerate(state.recall):
        cell = pygame.Rect(bar.left + m.s(140) + i * cell_w, bar.top + m.s(6),
                           cell_w - m.s(8), bar.height - m.s(12))
        selected = i == state.recall_index
        pygame.draw.rect(surf, palette.RECALL if selected else palette.PANEL, cell,
                         border_radius=m.s(8))
        p.text_fit(surf, f"R{entry.view.get('round', '?')}", m.font(20),
                   palette.INK if selected else palette.CREAM, cell, "center")


def _failure(p: Painter, surf: pygame.Surface, rect: pygame.Rect, layout: Layout,
             state: ScreenState) -> None:
    m = p.m
    fail: Mapping[str, Any] = state.failure or {}
    surf.fill(palette.TILT_BG, rect)
    pygame.draw.rect(surf, palette.TILT, rect, m.s(16))
    inner = rect.inflate(-m.s(160), -m.s(120))
    kind = str(fail.get("kind") or "").upper()
    head = f"{kind} FAILURE" if kind else "FAILURE"
    if kind == "FLOOR":  # not a failure: the casino floor disabled the table
        head = "CLOSED BY THE FLOOR"
    r = p.text_fit(surf, "TABLE CLOSED", m.font(96), palette.TILT,
                   pygame.Rect(inner.left, inner.top, inner.width, 1), "midtop")
    r = p.text_fit(surf, head, m.font(64), palette.WHITE,
                   pygame.Rect(inner.left, r.bottom + m.s(20), inner.width, 1), "midtop")
    y = p.paragraph(surf, str(fail.get("message") or ""), m.font(34), palette.CREAM, inner,
                    r.bottom + m.s(30))
    p.paragraph(surf, "No wagers are accepted. Call a supervisor.", m.font(34), palette.AMBER,
                inner, y + m.s(30))
    p.text_fit(surf, f"{layout.title}  ·  {layout.certificate_holder}", m.font(24),
               palette.MUTED, pygame.Rect(inner.left, inner.bottom, inner.width, 1),
               "midbottom")


def paint_overlay(p: Painter, surf: pygame.Surface, screen: str, g: TableGeometry,
                  view: PublicView | None, layout: Layout, state: ScreenState,
                  t: float, animate: bool) -> None:
    rect = overlay_rect(screen, g)
    if rect is None:
        return
    if screen == "attract":
        _attract(p, surf, rect, layout, view, t, animate)
    elif screen == "betting":
        _betting(p, surf, rect, state, t)
    elif screen == "tilt":
        _tilt(p, surf, rect, view, dict(state.panel_keys))
    elif screen == "void":
        _void(p, surf, rect, view)
    elif screen == "recall":
        _recall(p, surf, rect, g, state)
    elif screen == "failure":
        _failure(p, surf, rect, layout, state)
    elif screen == "attendant":
        from ui.attendant import paint_attendant

        paint_attendant(p, surf, rect, state.attendant_pages, state.attendant_page)
