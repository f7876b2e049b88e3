"""Drawing primitives that also write the render model.

Every string, card, chip and lammer the UI puts on the screen goes through a
:class:`Painter`, which draws it and records it under the region being painted. That is
what lets a test assert, without reading pixels, that a hole card's face was never drawn.
"""

from __future__ import annotations

import pygame

from etgcore.money import dollars
from ui import palette
from ui.cards import CardArt, is_card
from ui.fonts import TextCache
from ui.geometry import MAX_STACK, chip_lift
from ui.model import RenderModel
from ui.units import MIN_FONT_PX, Metrics

Anchor = str  # a pygame.Rect attribute name: topleft, center, midtop, midright, ...


class Painter:
    """Draws onto a surface in one region at a time, recording what it drew."""

    def __init__(self, metrics: Metrics, text: TextCache, cards: CardArt,
                 model: RenderModel) -> None:
        self.m = metrics
        self.texts = text
        self.cards = cards
        self.model = model
        self.region = "static"
        self._chips: dict[tuple[tuple[palette.Color, ...], int], pygame.Surface] = {}

    # -- text ---------------------------------------------------------------------------
    def text(self, surf: pygame.Surface, s: str, px: int, color: palette.Color,
             pos: tuple[int, int], anchor: Anchor = "topleft") -> pygame.Rect:
        img = self.texts.render(s, px, color)
        rect = img.get_rect(**{anchor: pos})
        surf.blit(img, rect)
        self.model.add(self.region, "text", s, rect)
        return rect

    def text_fit(self, surf: pygame.Surface, s: str, px: int, color: palette.Color,
                 box: pygame.Rect, anchor: Anchor = "center",
                 floor: int = MIN_FONT_PX) -> pygame.Rect:
        """One line, shrunk until it fits ``box``'s width, placed at ``box``'s anchor."""
        px = self.texts.fit(s, px, box.width, floor)
        return self.text(surf, s, px, color, getattr(box, anchor), anchor)

    def paragraph(self, surf: pygame.Surface, s: str, px: int, color: palette.Color,
                  box: pygame.Rect, top: int, align: str = "center",
                  line_gap: float = 1.05) -> int:
        """Word-wrapped lines inside ``box`` from ``top``; returns the y below the last line.

        Wrapped lines are recorded as the whole string once (the model holds what is
        written), so a test finds an inscription word for word, and each line as drawn
        (kind ``line``), so a test can measure it.
        """
        lines = self.texts.wrap(s, px, box.width)
        y = top
        step = round(self.texts.font(px).get_linesize() * line_gap)
        first: pygame.Rect | None = None
        for line in lines:
            img = self.texts.render(line, px, color)
            if align == "center":
                rect = img.get_rect(midtop=(box.centerx, y))
            else:
                rect = img.get_rect(topleft=(box.left, y))
            surf.blit(img, rect)
            self.model.add(self.region, "line", line, rect)
            first = first or rect
            y += step
        self.model.add(self.region, "text", s, first)  # at its first line
        return y

    # -- cards, chips, lammers ----------------------------------------------------------
    def card(self, surf: pygame.Surface, code: str, topleft: tuple[int, int], width: int,
             face_down: bool = False) -> pygame.Rect:
        """A card; anything that is not a known face code (``"??"``) is drawn as a back."""
        if face_down or not is_card(code):
            img, kind, value = self.cards.back(width), "card-back", "back"
        else:
            img, kind, value = self.cards.face(code, width), "card", code
        rect = img.get_rect(topleft=topleft)
        surf.blit(img, rect)
        self.model.add(self.region, kind, value, rect)
        return rect

    def chips(self, surf: pygame.Surface, cents: int, center: tuple[int, int],
              radius: int) -> pygame.Rect:
        """A small stack of chips for an amount (at most MAX_STACK drawn) with no label."""
        stack: list[palette.Color] = []
        rest = cents
        for value, color in palette.CHIPS:
            while rest >= value and len(stack) < MAX_STACK:
                stack.append(color)
                rest -= value
        if not stack:
            stack.append(palette.CHIPS[-1][1])
        key = (tuple(stack), radius)
        img = self._chips.get(key)
        lift = chip_lift(radius)
        if img is None:  # drawn once per stack and size: circles are not cheap
            height = 2 * radius + 2 + lift * (len(stack) - 1)
            img = pygame.Surface((2 * radius + 1, height), pygame.SRCALPHA)
            base = height - radius - 2
            for i, color in enumerate(reversed(stack)):
                y = base - i * lift
                pygame.draw.circle(img, (20, 20, 20), (radius, y + 1), radius)
                pygame.draw.circle(img, color, (radius, y), radius)
                stripe = (250, 250, 250) if color != (236, 236, 236) else (60, 60, 160)
                pygame.draw.circle(img, stripe, (radius, y), radius, max(1, radius // 5))
                pygame.draw.circle(img, color, (radius, y), max(1, radius * 2 // 3))
            self._chips[key] = img
        cx, cy = center
        rect = img.get_rect(bottomleft=(cx - radius, cy + radius + 2))
        surf.blit(img, rect)
        self.model.add(self.region, "chip", str(cents), rect)
        return rect

    def lammer(self, surf: pygame.Surface, center: tuple[int, int], width: int) -> pygame.Rect:
        """A Free Bet lammer: a marker standing for a wager, deliberately unlike a chip."""
        h = max(8, width * 9 // 20)
        rect = pygame.Rect(0, 0, width, h)
        rect.center = center
        pygame.draw.rect(surf, (60, 40, 0), rect.move(1, 2), border_radius=h // 2)
        pygame.draw.rect(surf, palette.LAMMER, rect, border_radius=h // 2)
        pygame.draw.rect(surf, palette.LAMMER_TEXT, rect, max(1, h // 10), border_radius=h // 2)
        px = self.texts.fit("FREE BET", max(MIN_FONT_PX - 2, h * 6 // 10), width - h // 2, 6)
        img = self.texts.render("FREE BET", px, palette.LAMMER_TEXT)
        surf.blit(img, img.get_rect(center=rect.center))
        self.model.add(self.region, "lammer", "FREE BET", rect)
        return rect

    def wager(self, surf: pygame.Surface, cents: int, center: tuple[int, int], radius: int,
              px: int, color: palette.Color = palette.WHITE) -> pygame.Rect:
        """Chips with the amount written under them."""
        r = self.chips(surf, cents, center, radius)
        t = self.text(surf, dollars(cents), px, color, (center[0], center[1] + radius + 1),
                      "midtop")
        return r.union(t)

    def badge_height(self, height: int, px: int) -> int:
        """A tag's height: ``height``, or its words' height when that is more (at the
        smallest screens the font's floor is taller than the design's tag)."""
        return max(height, self.texts.font(px).get_height())

    def badge(self, surf: pygame.Surface, s: str, color: palette.Color,
              midtop: tuple[int, int], max_w: int, height: int, px: int,
              kind: str = "badge") -> pygame.Rect:
        """A tag (a hand's result, BINGO!, a side wager's result: ``kind`` spot-tag): a
        rounded pill as wide as its text needs, at most ``max_w``, with a shadow.

        Its words always stay on it: shrunk to fit down to the smallest font, then with
        single spaces, and only past that is the pill wider than ``max_w``.
        """
        pad, edge = self.m.s(12), self.m.s(4)
        size = self.texts.fit(s, px, max_w - 2 * edge, MIN_FONT_PX)
        if self.texts.width(s, size) > max_w - 2 * edge and "  " in s:
            s = " ".join(s.split())
            size = self.texts.fit(s, px, max_w - 2 * edge, MIN_FONT_PX)
        words = self.texts.width(s, size)
        rect = pygame.Rect(0, 0, max(min(max_w, words + 2 * pad), words + 2 * edge),
                           self.badge_height(height, size))
        rect.midtop = midtop
        radius = self.m.s(8)
        pygame.draw.rect(surf, palette.INK, rect.move(0, self.m.s(2)), border_radius=radius)
        pygame.draw.rect(surf, color, rect, border_radius=radius)
        self.text(surf, s, size, palette.INK, rect.center, "center")
        self.model.add(self.region, kind, s, rect.union(rect.move(0, self.m.s(2))))
        return rect

    # -- panels and buttons -------------------------------------------------------------
    def panel(self, surf: pygame.Surface, rect: pygame.Rect, fill: palette.Color,
              edge: palette.Color | None = None, radius: int | None = None,
              width: int | None = None) -> None:
        r = self.m.s(14) if radius is None else radius
        pygame.draw.rect(surf, fill, rect, border_radius=r)
        if edge is not None:
            pygame.draw.rect(surf, edge, rect, width or self.m.s(3), border_radius=r)

    def key_cap_width(self, key: str, px: int) -> int:
        return self.texts.width(key, px) + self.m.s(12)

    def button(self, surf: pygame.Surface, label: str, rect: pygame.Rect, px: int,
               key: str = "", key_px: int = MIN_FONT_PX) -> None:
        """A lit button of the seat panel: a legal decision now; ``key``, when a keyboard
        stands in for the panel, is drawn as a key cap at its right end."""
        r = rect.height // 2
        pygame.draw.rect(surf, (40, 30, 0), rect.move(0, self.m.s(3)), border_radius=r)
        pygame.draw.rect(surf, palette.BUTTON_LIT, rect, border_radius=r)
        pygame.draw.rect(surf, palette.INK, rect, self.m.s(2), border_radius=r)
        box = rect.inflate(-r, 0)
        if key:
            cap = pygame.Rect(0, 0, self.key_cap_width(key, key_px), rect.height - self.m.s(12))
            cap.midright = (box.right, rect.centery)
            pygame.draw.rect(surf, palette.INK, cap, border_radius=self.m.s(4))
            self.text(surf, key, key_px, palette.BUTTON_LIT, cap.center, "center")
            self.model.add(self.region, "key", f"{label}={key}", cap)
            box.width -= cap.width + self.m.s(6)
        self.text_fit(surf, label, px, palette.INK, box, "center")
