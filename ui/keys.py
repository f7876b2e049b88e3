"""The keyboard that stands in for the panels, on the screen: keys beside the prompts, and
the key help (F1).

Where a keyboard panel drives the table (the window demo), every prompt on the screen
that names a console input or a seat button says which key presses it ("press SHUFFLE
[F9]", "VOID [F10] (supervisor) the round"), as the lit decision buttons already show
their key caps; and one key, F1, shows every key of the map. The keys come from the
panel (``{"kind": "panel", "keys": ..., "legend": ...}``); with a real panel there are
none and the prompts are left as the table wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pygame

from ui import palette
from ui.painter import Painter

#: the buttons a prompt may name, written as the panel and the console label them (the
#: decision buttons are lit with their key caps instead, docs/ui.md)
PROMPTED = ("DEAL", "SHUFFLE", "VOID", "RECALL", "BET", "CLEAR")
_WORD = re.compile(r"\b(" + "|".join(PROMPTED) + r")\b(?! \[)")
#: the key that shows the help, and how the status line says so
HELP_KEY = "F1"
HELP_HINT = f"{HELP_KEY}: keys"
#: the window demo's own keys (`make run`): the next game, and leaving
GAME_KEY = "F2"
LEAVE_KEY = "Esc"
DEMO_HINT = f"{HELP_KEY}: keys  ·  {GAME_KEY}: next game  ·  {LEAVE_KEY}: leave"


def demo_legend(next_title: str) -> list[tuple[str, str]]:
    """The key help's rows for the window demo's own keys."""
    return [(GAME_KEY, f"play the next game ({next_title}); the round in play waits in its "
                       "game's journal, `make run VARIANT=free-bet` starts with a game"),
            (LEAVE_KEY, "leave the demo (with this help open: close the help)")]


def annotate(text: str, keys: Mapping[str, str]) -> str:
    """``text`` with the key of every button it names: "press SHUFFLE" -> "press SHUFFLE
    [F9]"; unchanged without keys (a real panel) or for a button without a key."""
    if not keys:
        return text
    return _WORD.sub(lambda m: f"{m.group(1)} [{keys[m.group(1)]}]"
                     if m.group(1) in keys else m.group(1), text)


def legend_rect(p: Painter) -> pygame.Rect:
    """Where the key help goes: over the middle of the table, clear of the status line."""
    return p.m.rect(300, 110, 1320, 820)


def paint_legend(p: Painter, surf: pygame.Surface, legend: Sequence[tuple[str, str]]
                 ) -> pygame.Rect:
    """The key help over the table: every key of the keyboard panel and what it does."""
    m = p.m
    rect = legend_rect(p)
    pygame.draw.rect(surf, palette.PANEL, rect)
    pygame.draw.rect(surf, palette.SELECTED, rect, m.s(5))
    inner = rect.inflate(-m.s(60), -m.s(40))
    head = p.text_fit(surf, "KEYBOARD PANEL", m.font(44), palette.SELECTED,
                      pygame.Rect(inner.left, inner.top, inner.width, 1), "midtop")
    p.text_fit(surf, f"{HELP_KEY} or {LEAVE_KEY} closes this help", m.font(22), palette.MUTED,
               pygame.Rect(inner.left, inner.bottom, inner.width, 1), "midbottom")
    body = pygame.Rect(inner.left, head.bottom + m.s(16), inner.width,
                       inner.bottom - head.bottom - m.s(56))
    px = m.font(26)
    while px > 10:
        line = p.texts.font(px).get_linesize()
        key_w = max(p.texts.width(k, px) for k, _w in legend) + m.s(36)
        lines = sum(len(p.texts.wrap(w, px, body.width - key_w)) for _k, w in legend)
        if lines * line <= body.height:
            break
        px -= 1
    y = body.top
    line = p.texts.font(px).get_linesize()
    for key, what in legend:
        cap = pygame.Rect(body.left, y, p.texts.width(key, px) + m.s(16), line)
        pygame.draw.rect(surf, palette.INK, cap, border_radius=m.s(4))
        p.text(surf, key, px, palette.BUTTON_LIT, cap.center, "center")
        p.model.add(p.region, "key", key, cap)
        box = pygame.Rect(body.left + key_w, y, body.width - key_w, line)
        y = p.paragraph(surf, what, px, palette.CREAM, box, y, "left", 1.0)
    return rect
