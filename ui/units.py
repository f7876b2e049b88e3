"""Resolution independence: every position and size comes from one layout unit.

The table is designed on a 1920x1080 canvas. Positions scale with the screen on each
axis (so the felt fills a 5:3 touchscreen as well as a 16:9 monitor); sizes (fonts,
cards, chips) scale with the smaller axis through :attr:`Metrics.u`, and fonts shrink
more slowly than the screen so that 800x480 stays readable.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

DESIGN_W = 1920
DESIGN_H = 1080
#: Fonts shrink as u ** FONT_EXPONENT: at 800x480 a 24 px design font becomes 12 px, not 10.
FONT_EXPONENT = 0.8
#: Cards shrink as u ** CARD_EXPONENT, for the same reason.
CARD_EXPONENT = 0.85
#: No text is drawn smaller than this many pixels.
MIN_FONT_PX = 10


@dataclass(frozen=True)
class Metrics:
    """Maps design coordinates (1920x1080) onto a surface of ``width`` x ``height``."""

    width: int
    height: int

    @property
    def sx(self) -> float:
        return self.width / DESIGN_W

    @property
    def sy(self) -> float:
        return self.height / DESIGN_H

    @property
    def u(self) -> float:
        """The layout unit: one design pixel of size (not position)."""
        return min(self.sx, self.sy)

    def x(self, v: float) -> int:
        return round(v * self.sx)

    def y(self, v: float) -> int:
        return round(v * self.sy)

    def s(self, v: float) -> int:
        """A size (radius, card width, line) in design pixels, at least one pixel."""
        return max(1, round(v * self.u))

    def card(self, v: float) -> int:
        """A card width in design pixels: shrinks a little slower than the screen."""
        return max(12, round(v * self.u**CARD_EXPONENT))

    def font(self, v: float) -> int:
        """A font size in design pixels, shrunk gently and never below MIN_FONT_PX."""
        return max(MIN_FONT_PX, round(v * self.u**FONT_EXPONENT))

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        """A rectangle given in design coordinates, edges rounded so neighbours touch."""
        left, top = self.x(x), self.y(y)
        return pygame.Rect(left, top, self.x(x + w) - left, self.y(y + h) - top)


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); raises ValueError with the expected form."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size must be WIDTHxHEIGHT in pixels, e.g. 1280x720, got {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise ValueError(f"size {w}x{h} is out of range (320x240 to 7680x4320)")
    return w, h
