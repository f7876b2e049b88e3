"""Fonts and rendered text, cached.

Only pygame's bundled font (FreeSans Bold, GPL with font exception, shipped inside the
pygame wheel) is used, so nothing is downloaded and every machine draws the same glyphs.
Rendering text is the most expensive thing the UI does per change, so each rendered
string is kept in a bounded cache keyed by (text, size, colour).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict

import pygame

from ui.palette import Color

_FONT_FILE = os.path.join(os.path.dirname(pygame.__file__), pygame.font.get_default_font())

#: Where a line never breaks in regulated text: inside odds ("3 to 2"), and between a
#: word and the number it qualifies ("Player 21", "dealer 7", "draw to 16"): a line that
#: ends "3 to" or "against a dealer" and goes on "2" or "21" reads as another rule.
_KEEP = (re.compile(r"(?<=\d) (to) (?=\d)"), re.compile(r"(?<![\w$])([A-Za-z]+) (?=\d)"))
_NBSP = "\u00a0"


def keep_together(text: str) -> list[str]:
    """``text``'s words as the units a line may break between (:data:`_KEEP`)."""
    text = _KEEP[0].sub(f"{_NBSP}to{_NBSP}", text)
    text = _KEEP[1].sub(lambda m: m.group(1) + _NBSP, text)
    return [w.replace(_NBSP, " ") for w in re.split(r"[ \t\n]+", text.strip()) if w]


class TextCache:
    """Fonts by pixel size and rendered strings, least recently used dropped first."""

    def __init__(self, capacity: int = 2048) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._texts: OrderedDict[tuple[str, int, Color], pygame.Surface] = OrderedDict()
        self._capacity = capacity
        self._widths: dict[tuple[str, int], int] = {}

    def font(self, px: int) -> pygame.font.Font:
        f = self._fonts.get(px)
        if f is None:
            f = pygame.font.Font(_FONT_FILE, px)
            self._fonts[px] = f
        return f

    def render(self, text: str, px: int, color: Color) -> pygame.Surface:
        key = (text, px, color)
        surf = self._texts.get(key)
        if surf is not None:
            self._texts.move_to_end(key)
            return surf
        surf = self.font(px).render(text, True, color)
        self._texts[key] = surf
        if len(self._texts) > self._capacity:
            self._texts.popitem(last=False)
        return surf

    def width(self, text: str, px: int) -> int:
        """Measured once per (text, size): laying out the paytables measures the same
        words at many sizes and widths."""
        key = (text, px)
        w = self._widths.get(key)
        if w is None:
            if len(self._widths) >= 8 * self._capacity:
                self._widths.clear()
            w = self._widths[key] = self.font(px).size(text)[0]
        return w

    def fit(self, text: str, px: int, max_w: int, floor: int) -> int:
        """The largest size <= px at which ``text`` is at most ``max_w`` wide (>= floor)."""
        while px > floor and self.width(text, px) > max_w:
            px -= 1
        return px

    def wrap(self, text: str, px: int, max_w: int) -> list[str]:
        """Break ``text`` into lines no wider than ``max_w`` (a long word stays whole), never
        inside odds or between a word and its number (:func:`keep_together`)."""
        lines: list[str] = []
        line = ""
        for word in keep_together(text):
            trial = f"{line} {word}" if line else word
            if line and self.width(trial, px) > max_w:
                lines.append(line)
                line = word
            else:
                line = trial
        if line:
            lines.append(line)
        return lines or [""]
