"""The status line on the rail: what the table waits for, whose turn, the legal buttons.

The legal buttons are exactly ``expecting.legal`` of the public view, lit like the seat
panel's lamps. Their rectangles are kept so a touch on the screen can become a press.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pygame

from etgcore.view import PublicView
from ui import palette
from ui.keys import annotate
from ui.painter import Painter

#: Decisions of the public view -> the seat panel button that makes them. The ICD has no
#: "no insurance" or "rescue" button; the table's panel conventions
#: (firmware/table/devices/translate.py) give STAND and SURRENDER those meanings when offered.
DECISION_BUTTONS = {
    "hit": "HIT", "stand": "STAND", "double": "DOUBLE", "split": "SPLIT",
    "surrender": "SURRENDER", "rescue": "SURRENDER", "insurance": "INSURANCE",
    "no-insurance": "STAND",
}


def decision_label(decision: str) -> str:
    return decision.replace("-", " ").replace("_", " ").upper()


def key_of(decision: str, keys: Mapping[str, str]) -> str:
    """The keyboard key that makes ``decision`` (``keys``: panel button -> key), or ""."""
    return keys.get(DECISION_BUTTONS.get(decision, ""), "")


def pending_double_text(pending: Mapping[str, int], keys: Mapping[str, str]) -> str:
    """The status line while a 1x-4x double is sized: the multiple chosen so far and how
    to change or place it (firmware.table.pending_double's press-again convention)."""
    d, s = keys.get("DOUBLE"), keys.get("STAND")
    again = f"DOUBLE [{d}]" if d else "DOUBLE"
    place = f"STAND [{s}]" if s else "STAND"
    return (f"Seat {pending.get('seat')} hand {pending.get('hand')}: DOUBLE "
            f"{pending.get('times')}x the wager  -  {again} again for more, {place} places it")


def paint_status(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
                 view: PublicView, keys: Mapping[str, str] | None = None,
                 hint: str = "", pending: Mapping[str, int] | None = None
                 ) -> list[tuple[pygame.Rect, int, str]]:
    """Draw the status line; returns the lit buttons as (rect, seat, decision).

    With a keyboard panel (``keys``: panel button or console input -> key) each lit
    button shows the key that presses it (NO INSURANCE shows S, the STAND key, as the
    panel conventions say), the prompt the key of every input it names ("press SHUFFLE
    [F9]"), and ``hint`` (how to get the key help) goes at the right end."""
    keys = keys or {}
    m = p.m
    expecting: Mapping[str, Any] = view.get("expecting") or {}
    why = annotate(str(expecting.get("why") or view.get("phase") or ""), keys)
    if pending:  # the size being chosen, before STAND (or the pause) places it
        why = pending_double_text(pending, keys)
    px = m.font(22)
    buttons: list[tuple[pygame.Rect, int, str]] = []
    right_text = f"ROUND {view.get('round', '')}"
    shoe = view.get("shoe") or {}
    if shoe.get("needs_new_shoe"):
        right_text += "  ·  NEW SHOE"
    if hint:
        right_text += f"  ·  {hint}"
    r_info = p.text(surf, right_text, m.font(20), palette.MUTED,
                    (rect.right - m.s(16), rect.centery), "midright")
    legal = list(expecting.get("legal") or []) if expecting.get("kind") == "decision" else []
    seat = expecting.get("seat")
    gap = m.s(10)
    bh = rect.height - m.s(12)
    # A button is as wide as its label needs (fonts shrink less than lengths on a small
    # screen, so a fixed width would clip SURRENDER or NO INSURANCE at 800x480).
    labels = [decision_label(str(d)) for d in legal]
    caps = [key_of(str(d), keys) for d in legal]
    label_font = p.texts.font(m.font(20))
    widths = [max(m.s(150), label_font.size(label)[0] + bh + m.s(8)
                  + (p.key_cap_width(cap, m.font(16)) + m.s(6) if cap else 0))
              for label, cap in zip(labels, caps, strict=True)]
    total_w = sum(w + gap for w in widths)
    x = r_info.left - m.s(24) - total_w
    for decision, label, cap, bw in zip(legal, labels, caps, widths, strict=True):
        b = pygame.Rect(x, rect.top + m.s(6), bw, bh)
        p.button(surf, label, b, m.font(20), cap, m.font(16))
        if isinstance(seat, int):
            buttons.append((b, seat, str(decision)))
        x += bw + gap
    limit = (r_info.left - m.s(24) - total_w) - rect.left - m.s(32)
    p.text_fit(surf, why, px, palette.CREAM,
               pygame.Rect(rect.left + m.s(16), rect.top, max(10, limit), rect.height),
               "midleft")
    return buttons
