"""The Bingo display (§ 633b.28(b)(7)): the target and the multiplier of the round.

Before the draw it shows empty balls; while the RNG draws it says so; once the view
carries the draw the two balls are revealed with a short animation (they pop in and a
ring spreads out), then stay for the rest of the round. When the engine marks a hand
``bingo_hit`` the panel lights up.
"""

from __future__ import annotations

import math

import pygame

from etgcore.view import BingoView
from ui import palette
from ui.painter import Painter

REVEAL_S = 1.2  # length of the reveal animation


def reveal_scale(progress: float) -> float:
    """Ball size over the reveal: grows with a little overshoot, settles at 1."""
    if progress >= 1.0:
        return 1.0
    k = max(0.0, progress)
    return min(1.15, 1.0 - math.cos(k * math.pi * 1.5) * (1.0 - k)) if k > 0 else 0.0


def _ball(p: Painter, surf: pygame.Surface, center: tuple[int, int], radius: int,
          text: str, caption: str, scale: float, lit: bool) -> None:
    m = p.m
    p.text(surf, caption, m.font(18), palette.MUTED, (center[0], center[1] - radius - m.s(4)),
           "midbottom")
    r = round(radius * scale)
    if r <= 0:
        return
    pygame.draw.circle(surf, palette.INK, (center[0], center[1] + m.s(3)), r)
    pygame.draw.circle(surf, palette.BINGO if lit else palette.BINGO_BALL, center, r)
    pygame.draw.circle(surf, palette.BINGO, center, r, max(1, r // 8))
    if text:
        px = max(8, round(m.font(58) * scale))
        px = p.texts.fit(text, px, int(r * 1.6), 8)
        p.text(surf, text, px, palette.INK, center, "center")


def ring_room(p: Painter, rect: pygame.Rect, centers: tuple[tuple[int, int], ...],
              radius: int) -> tuple[pygame.Rect, int]:
    """Where the reveal's rings may spread: inside the panel's border and under the
    TARGET and MULTIPLIER captions (never over the border, the captions or the BINGO
    heading), and the largest ring radius that keeps every ring whole in there."""
    m = p.m
    edge = m.s(8)
    top = min(c[1] for c in centers) - radius - m.s(2)  # the captions end above this
    room = pygame.Rect(rect.left + edge, top, rect.width - 2 * edge, rect.bottom - edge - top)
    width = max(1, m.s(4))
    biggest = min(min(x - room.left, room.right - x, room.bottom - y) for x, y in centers)
    return room, max(radius, biggest - width)


def _rings(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
           centers: tuple[tuple[int, int], ...], radius: int, progress: float) -> None:
    """A ring spreading out of each ball as it is revealed, fading, within
    :func:`ring_room`."""
    room, biggest = ring_room(p, rect, centers, radius)
    ring = round(radius + (biggest - radius) * progress)
    shade = tuple(round(c * (1 - progress)) for c in palette.BINGO)
    width = max(1, p.m.s(4))
    clip = surf.get_clip()
    surf.set_clip(room.clip(clip))
    for c in centers:
        drawn = pygame.draw.circle(surf, shade, c, ring, width)
        p.model.add(p.region, "ring", "reveal", drawn)
    surf.set_clip(clip)


def paint_bingo(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
                bingo: BingoView | None, phase: str, progress: float,
                hit: bool) -> None:
    """``progress`` runs 0..1 over the reveal (1 when not animating)."""
    m = p.m
    lit = hit
    p.panel(surf, rect, palette.PANEL, palette.BINGO if lit else palette.PANEL_EDGE,
            width=m.s(6 if lit else 3))
    head = p.text(surf, "BINGO", m.font(30), palette.BINGO,
                  (rect.left + m.s(20), rect.top + m.s(12)))
    side = pygame.Rect(head.left, head.bottom + m.s(10), rect.width * 27 // 100 - m.s(20), 1)
    target = bingo.get("target") if bingo else None
    mult = bingo.get("multiplier") if bingo else None
    drawn = isinstance(target, int) and isinstance(mult, int)
    radius = m.s(50)
    cy = rect.top + m.s(104)
    left = (rect.left + rect.width * 2 // 5, cy)
    right = (rect.left + rect.width * 4 // 5, cy)
    if drawn:
        # the pop's overshoot stops short of the captions over the balls
        scale = min(reveal_scale(progress), (radius + m.s(2)) / radius)
        if progress < 1.0:
            _rings(p, surf, rect, (left, right), radius, progress)
        _ball(p, surf, left, radius, str(target), "TARGET", scale, lit)
        _ball(p, surf, right, radius, f"{mult}x", "MULTIPLIER", scale, lit)
        if lit:
            p.paragraph(surf, "HIT!", m.font(30), palette.BINGO, side, side.top, "left")
    else:
        _ball(p, surf, left, radius, "", "TARGET", 1.0, False)
        _ball(p, surf, right, radius, "", "MULTIPLIER", 1.0, False)
        note = "drawing..." if phase == "rng" else "drawn when wagers close"
        p.paragraph(surf, note, m.font(18), palette.MUTED, side, side.top, "left")
