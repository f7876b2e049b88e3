"""Playing cards drawn by our own code: corner indices big enough to read across a table.

No image files: suits are polygons and circles drawn four times larger and smoothed down
(cheap anti-aliasing), ranks are the bundled font. A card's face is cached per (code,
width); the back is one pattern for every card, so a face-down card tells nothing.
"""

from __future__ import annotations

import pygame

from etgcore import cards
from ui import palette
from ui.fonts import TextCache

#: How each rank of the ICD alphabet is printed in a card's corner.
RANK_LABELS = {
    "A": "A", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7",
    "8": "8", "9": "9", "T": "10", "J": "J", "Q": "Q", "K": "K",
}
#: Card height over width (a poker-size card is 88 x 63 mm).
ASPECT = 1.4
_SS = 4  # supersampling factor for suit shapes


#: True for a face code such as ``"TD"``; ``"??"`` (a hidden hole card) is not one.
is_card = cards.is_card


def suit_color(suit: str) -> palette.Color:
    return palette.CARD_RED if suit in ("H", "D") else palette.CARD_BLACK


def _suit_shape(surf: pygame.Surface, suit: str, color: palette.Color) -> None:
    w, h = surf.get_size()

    def pt(x: float, y: float) -> tuple[float, float]:
        return (x * w, y * h)

    def circle(x: float, y: float, r: float) -> None:
        pygame.draw.circle(surf, color, pt(x, y), r * w)

    if suit == "D":
        pygame.draw.polygon(surf, color, [pt(0.5, 0.0), pt(0.9, 0.5), pt(0.5, 1.0), pt(0.1, 0.5)])
    elif suit == "H":
        circle(0.275, 0.3, 0.255)
        circle(0.725, 0.3, 0.255)
        pygame.draw.polygon(
            surf, color, [pt(0.035, 0.38), pt(0.5, 0.98), pt(0.965, 0.38), pt(0.5, 0.28)]
        )
    elif suit == "S":
        circle(0.28, 0.58, 0.235)
        circle(0.72, 0.58, 0.235)
        pygame.draw.polygon(
            surf, color, [pt(0.05, 0.56), pt(0.5, 0.0), pt(0.95, 0.56), pt(0.5, 0.72)]
        )
        pygame.draw.polygon(surf, color, [pt(0.5, 0.62), pt(0.3, 1.0), pt(0.7, 1.0)])
    else:  # clubs
        circle(0.5, 0.26, 0.22)
        circle(0.255, 0.58, 0.22)
        circle(0.745, 0.58, 0.22)
        circle(0.5, 0.52, 0.14)
        pygame.draw.polygon(surf, color, [pt(0.5, 0.5), pt(0.3, 1.0), pt(0.7, 1.0)])


class CardArt:
    """Card faces, backs and suit symbols at any size, cached."""

    def __init__(self, text: TextCache) -> None:
        self._text = text
        self._suits: dict[tuple[str, int, palette.Color], pygame.Surface] = {}
        self._faces: dict[tuple[str, int], pygame.Surface] = {}
        self._backs: dict[int, pygame.Surface] = {}

    def suit(self, suit: str, size: int, color: palette.Color | None = None) -> pygame.Surface:
        color = color or suit_color(suit)
        key = (suit, size, color)
        img = self._suits.get(key)
        if img is None:
            big = pygame.Surface((size * _SS, size * _SS), pygame.SRCALPHA)
            _suit_shape(big, suit, color)
            img = pygame.transform.smoothscale(big, (size, size))
            self._suits[key] = img
        return img

    @staticmethod
    def size_for(width: int) -> tuple[int, int]:
        return width, round(width * ASPECT)

    def _blank(self, width: int, fill: palette.Color) -> pygame.Surface:
        w, h = self.size_for(width)
        surf = pygame.Surface((w, h), pygame.SRCALPHA)
        radius = max(2, w // 12)
        pygame.draw.rect(surf, fill, surf.get_rect(), border_radius=radius)
        pygame.draw.rect(surf, palette.CARD_EDGE, surf.get_rect(), 1, border_radius=radius)
        return surf

    def face(self, code: str, width: int) -> pygame.Surface:
        """The face of ``code`` (e.g. ``"QH"``) ``width`` pixels wide."""
        key = (code, width)
        img = self._faces.get(key)
        if img is None:
            img = self._draw_face(code, width)
            self._faces[key] = img
        return img

    def _index(self, rank: str, suit: str, width: int) -> pygame.Surface:
        """The corner index: the rank over the suit, as large as the corner allows."""
        color = suit_color(suit)
        px = max(8, round(width * 0.44))
        label = self._text.render(rank, px, color)
        max_w = round(width * 0.36)
        if label.get_width() > max_w:  # "10": squeeze horizontally, keep the height
            label = pygame.transform.smoothscale(label, (max_w, label.get_height()))
        pip = self.suit(suit, max(5, round(width * 0.24)))
        h = label.get_height() + pip.get_height()
        w = max(label.get_width(), pip.get_width())
        out = pygame.Surface((w, h), pygame.SRCALPHA)
        out.blit(label, ((w - label.get_width()) // 2, 0))
        out.blit(pip, ((w - pip.get_width()) // 2, label.get_height() - round(width * 0.04)))
        return out

    def _draw_face(self, code: str, width: int) -> pygame.Surface:
        rank, suit = RANK_LABELS[code[0]], code[1]
        surf = self._blank(width, palette.CARD_FACE)
        w, h = surf.get_size()
        index = self._index(rank, suit, width)
        pad = max(1, round(w * 0.04))
        surf.blit(index, (pad, pad))
        surf.blit(pygame.transform.rotate(index, 180), (w - index.get_width() - pad,
                                                          h - index.get_height() - pad))
        color = suit_color(suit)
        if rank in ("J", "Q", "K"):
            frame = pygame.Rect(0, 0, round(w * 0.5), round(h * 0.56))
            frame.center = (round(w * 0.56), round(h * 0.52))
            pygame.draw.rect(surf, (236, 226, 196), frame, border_radius=max(1, w // 20))
            pygame.draw.rect(surf, color, frame, max(1, w // 40), border_radius=max(1, w // 20))
            letter = self._text.render(rank, round(w * 0.42), color)
            surf.blit(letter, letter.get_rect(center=(frame.centerx, frame.centery - h * 0.05)))
            pip = self.suit(suit, round(w * 0.18))
            surf.blit(pip, pip.get_rect(center=(frame.centerx, frame.bottom - h * 0.1)))
        else:
            size = round(w * (0.56 if rank == "A" else 0.42))
            pip = self.suit(suit, size)
            surf.blit(pip, pip.get_rect(center=(round(w * 0.56), round(h * 0.54))))
        return surf

    def back(self, width: int) -> pygame.Surface:
        """The one card back: a lattice, identical for every card."""
        img = self._backs.get(width)
        if img is None:
            img = self._blank(width, palette.CARD_FACE)
            w, h = img.get_size()
            inner = img.get_rect().inflate(-max(2, w // 10), -max(2, w // 10))
            pygame.draw.rect(img, palette.CARD_BACK, inner, border_radius=max(1, w // 16))
            step = max(4, w // 7)
            clip = img.get_clip()
            img.set_clip(inner)
            for k in range(-h, w + h, step):
                pygame.draw.line(img, palette.CARD_BACK_LINE, (inner.left + k, inner.top),
                                 (inner.left + k + h, inner.bottom), 1)
                pygame.draw.line(img, palette.CARD_BACK_LINE, (inner.left + k, inner.bottom),
                                 (inner.left + k + h, inner.top), 1)
            img.set_clip(clip)
            pygame.draw.rect(img, palette.CREAM, inner, max(1, w // 40),
                             border_radius=max(1, w // 16))
            self._backs[width] = img
        return img
