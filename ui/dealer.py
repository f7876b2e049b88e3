"""The dealer's hand, with the hole card face down until the rules reveal it.

The public view already carries an unrevealed hole card as ``"??"``. As a second line of
defence (principle 8), the second card is drawn face down whenever ``hole_revealed`` is
false, whatever string arrives in its place.
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from etgcore.view import DealerView
from ui import palette
from ui.hands import total_words
from ui.painter import Painter

HOLE_INDEX = 1  # baseline §1.2: the dealer's second card is the hole card


def paint_dealer(p: Painter, surf: pygame.Surface, rect: pygame.Rect,
                 dealer: DealerView | None) -> None:
    if not dealer:
        return
    m = p.m
    cards: Sequence[str] = dealer.get("cards") or []
    revealed = bool(dealer.get("hole_revealed"))
    cw = m.card(96)
    ch = round(cw * 1.4)
    dx = round(cw * 0.5)
    n = max(1, len(cards))
    if cw + dx * (n - 1) > rect.width - m.s(20):
        dx = max(m.s(10), (rect.width - m.s(20) - cw) // (n - 1))
    x0 = rect.centerx - (cw + dx * (n - 1)) // 2
    y0 = rect.top + m.s(38)
    for i, code in enumerate(cards):
        hidden = i == HOLE_INDEX and not revealed
        p.card(surf, str(code), (x0 + i * dx, y0), cw, face_down=hidden)
    words: list[str] = []
    if dealer.get("blackjack"):
        words.append("BLACKJACK")
    elif dealer.get("bust"):
        words.append("BUST")
    total = dealer.get("total")
    if cards and isinstance(total, int) and not words:
        words.append(total_words(total, bool(dealer.get("soft")), cards))
    if words:
        color = palette.LOSE if dealer.get("bust") else palette.WHITE
        p.text(surf, "  ".join(words), m.font(30), color, (rect.centerx, y0 + ch + m.s(8)),
               "midtop")
