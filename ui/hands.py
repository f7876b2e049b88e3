"""One hand of a seat, top to bottom: its cards, its total (after its label on a split
seat), its tags (BINGO!, the result with what it won), its own wagers.

Draws exactly what the public view says; the only judgement made here is where things go
(:mod:`ui.seats` places the hands in the seat's column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pygame

from etgcore.money import dollars
from ui import palette
from ui.painter import Painter
from ui.units import MIN_FONT_PX

RESULT_COLORS = {
    "win": palette.WIN, "blackjack": palette.WIN, "lose": palette.LOSE,
    "push": palette.PUSH, "surrender": palette.PUSH,
}
STATUS_WORDS = {
    "bust": "BUST", "blackjack": "BLACKJACK", "surrendered": "SURRENDERED",
    "rescued": "RESCUED",
}


def hand_cells(area: pygame.Rect, n: int) -> list[pygame.Rect]:
    """Where each of ``n`` hands goes: one, two side by side, or a 2x2 grid; in the order
    they are read and numbered, hand 1 on the left (top left in the grid), as each is
    labelled "HAND 1", "HAND 2" (:func:`hand_label`)."""
    if n <= 1:
        return [area]
    if n == 2:
        w = area.width // 2
        return [pygame.Rect(area.left + i * w, area.top, w, area.height) for i in (0, 1)]
    w, h = area.width // 2, area.height // 2
    spots = [(0, 0), (1, 0), (0, 1), (1, 1)]
    return [pygame.Rect(area.left + c * w, area.top + r * h, w, h) for c, r in spots[:n]]


def hand_label(number: int, n_hands: int) -> str:
    """The label over a hand of a split seat (hands count from 1, as the status line and
    the panel say them); none over a seat's only hand."""
    return f"HAND {number}" if n_hands > 1 else ""


def _card_width(p: Painter, n_hands: int, n_cards: int, inner: pygame.Rect,
                text_h: int) -> int:
    """As large as the design size allows, smaller only if the hand and the ``text_h``
    pixels of lines and tags under it would not fit."""
    base = p.m.card({1: 84, 2: 70}.get(n_hands, 48))
    fit_w = inner.width / (1 + 0.42 * max(0, n_cards - 1))
    fit_h = (inner.height - p.m.s(8) - text_h) / 1.4
    return max(round(base * 0.6), min(base, round(fit_w), round(fit_h)))


def total_text(hand: Mapping[str, Any]) -> str:
    total = hand.get("total")
    if not isinstance(total, int) or not hand.get("cards"):
        return ""
    return total_words(total, bool(hand.get("soft")), hand.get("cards") or ())


def total_words(total: int, soft: bool, cards: Sequence[Any]) -> str:
    """A total as the felt writes it: "soft 17" for a soft hand of two cards or more; a
    lone card (a dealer's up card, a split hand waiting for its second card) is just its
    value, so a lone ace reads "11", not "soft 11"."""
    shown = [c for c in cards if c != "??"]
    return f"soft {total}" if soft and len(shown) > 1 else str(total)


def _words(hand: Mapping[str, Any], compact: bool) -> str:
    """The line under the cards: the total and what became of the hand (and, in the 2x2
    grid, its wager, to save a line)."""
    words = [total_text(hand)]
    status = STATUS_WORDS.get(str(hand.get("status")))
    if status == "BLACKJACK":
        words = ["BLACKJACK"]
    elif status:
        words.append(status)
    if compact and not hand.get("lammer") and hand.get("wager"):
        words.append(dollars(int(hand.get("wager") or 0)))
    return "  ".join(w for w in words if w)


def _tags(hand: Mapping[str, Any]) -> list[tuple[str, palette.Color]]:
    """The tags under the total: BINGO! on a hand the engine marks a hit, then its result
    with what it won ("WIN  +$5" on a $5 wager paid $10)."""
    tags: list[tuple[str, palette.Color]] = []
    if hand.get("bingo_hit"):
        tags.append(("BINGO!", palette.BINGO))
    result = hand.get("result")
    if isinstance(result, str):
        won = hand_winnings(hand)  # what the hand won, not what came back with its stake
        text = result.upper() + (f"  {dollars(won, sign=True)}" if won > 0 else "")
        tags.append((text, RESULT_COLORS.get(result, palette.PUSH)))
    return tags


def _wager_rows(hand: Mapping[str, Any], n_hands: int) -> list[tuple[str, int, bool]]:
    """The hand's own wagers, one per line: (label, cents, is a Free Bet lammer)."""
    rows: list[tuple[str, int, bool]] = []
    if n_hands == 2 or hand.get("lammer"):  # the 2x2 grid has it on the total's line
        rows.append(("", int(hand.get("wager") or 0), bool(hand.get("lammer"))))
    if hand.get("double") or hand.get("double_lammer"):
        times = hand.get("double_times") or 0
        label = f"DOUBLE x{times}" if isinstance(times, int) and times > 1 else "DOUBLE"
        rows.append((label, int(hand.get("double") or 0), bool(hand.get("double_lammer"))))
    return rows


def _row_shape(p: Painter, inner: pygame.Rect, label: str, lammer: bool
               ) -> tuple[int, int, int, bool]:
    """(height, text height, lammer width, label over lammer) of one wager row."""
    m = p.m
    small = m.font(16)
    lam_w = min(inner.width * 6 // 10, m.s(96))
    text_h = p.texts.font(small).get_linesize()
    lam_h = lam_w * 9 // 20 + m.s(4)
    if not lammer:
        return text_h, text_h, lam_w, False
    if label and p.texts.width(label, small) + m.s(8) + lam_w > inner.width:
        return text_h + lam_h, text_h, lam_w, True
    return max(text_h, lam_h), text_h, lam_w, False


def _rows_height(p: Painter, inner: pygame.Rect, rows: list[tuple[str, int, bool]]) -> int:
    return sum(_row_shape(p, inner, label, lammer)[0] + p.m.s(2) for label, _c, lammer in rows)


def _paint_rows(p: Painter, surf: pygame.Surface, inner: pygame.Rect, y: int,
                rows: list[tuple[str, int, bool]]) -> int:
    """Draw the wager rows from ``y``; returns the y below them."""
    m = p.m
    small = m.font(16)
    for label, cents, lammer in rows:
        line_h, text_h, lam_w, stacked = _row_shape(p, inner, label, lammer)
        row = pygame.Rect(inner.left, y, inner.width, line_h)
        if lammer and stacked:  # too narrow: the label over its lammer
            p.text(surf, label, small, palette.MUTED, row.midtop, "midtop")
            p.lammer(surf, (row.centerx, row.top + text_h + (line_h - text_h) // 2), lam_w)
        elif lammer and label:  # "DOUBLE [FREE BET]" on one line
            gap = m.s(8)
            total = p.texts.width(label, small) + gap + lam_w
            r = p.text(surf, label, small, palette.MUTED,
                       (row.centerx - total // 2, row.centery), "midleft")
            p.lammer(surf, (r.right + gap + lam_w // 2, row.centery), lam_w)
        elif lammer:
            p.lammer(surf, row.center, lam_w)
        elif cents:
            text = f"{label} {dollars(cents)}" if label else dollars(cents)
            p.text_fit(surf, text, small, palette.CREAM, row, "center", floor=8)
        y += line_h + m.s(2)
    return y


def paint_hand(p: Painter, surf: pygame.Surface, cell: pygame.Rect, hand: Mapping[str, Any],
          n_hands: int, current: bool, number: int = 1) -> None:
    """One hand in its cell, top to bottom: the cards, the total (after the hand's label
    on a split seat: "HAND 2  19"), the tags (BINGO!, the result), the hand's own wagers.
    Nothing is drawn over the cards."""
    m = p.m
    cards: Sequence[str] = hand.get("cards") or []
    pad = m.s(6)
    inner = cell.inflate(-2 * pad, -2 * pad)
    count = max(1, len(cards))
    compact = n_hands > 2
    px = m.font(26 if n_hands <= 2 else 18)
    tag_px = m.font(20 if not compact else 16)
    tag_h = p.badge_height(m.s(24 if compact else 30), tag_px)
    gap = m.s(2 if compact else 4)
    line, tags = _words(hand, compact), _tags(hand)
    rows = _wager_rows(hand, n_hands)
    below = (p.texts.font(px).get_linesize() + gap if line else 0) \
        + len(tags) * (tag_h + gap) + _rows_height(p, inner, rows) \
        + m.s(8 if hand.get("bingo_hit") or current else 4)
    cw = _card_width(p, n_hands, count, inner, below)
    dx = round(cw * 0.42)
    if count > 1 and cw + dx * (count - 1) > inner.width:
        dx = max(m.s(8), (inner.width - cw) // (count - 1))
    fan = pygame.Rect(0, inner.top + m.s(4), cw + dx * (count - 1), round(cw * 1.4))
    fan.centerx = inner.centerx
    if hand.get("bingo_hit"):
        pygame.draw.rect(surf, palette.BINGO, fan.inflate(m.s(16), m.s(16)), m.s(5),
                         border_radius=m.s(10))
    elif current:
        pygame.draw.rect(surf, palette.TURN, fan.inflate(m.s(14), m.s(14)), m.s(4),
                         border_radius=m.s(10))
    for i, code in enumerate(cards):
        p.card(surf, str(code), (fan.left + i * dx, fan.top), cw)
    # below the frame drawn round a current or Bingo hand, never on the cards
    y = fan.bottom + m.s(8 if hand.get("bingo_hit") or current else 4)
    label = hand_label(number, n_hands)
    if line or label:
        color = palette.LOSE if hand.get("status") == "bust" else palette.WHITE
        r = _total_line(p, surf, label, line, px, color,
                        pygame.Rect(inner.left, y, inner.width, 1))
        y = r.bottom + gap
    for text, color in tags:
        y = p.badge(surf, text, color, (fan.centerx, y), inner.width, tag_h, tag_px
                    ).bottom + gap
    _paint_rows(p, surf, inner, y, rows)


def _total_line(p: Painter, surf: pygame.Surface, label: str, line: str, px: int,
                color: palette.Color, box: pygame.Rect) -> pygame.Rect:
    """The hand's label (small, muted) and its total on one line at ``box``'s top,
    shrunk together to its width; the label takes no line of its own, so a split seat's
    cards keep their size. Returns the rectangle of the line."""
    if not label:
        return p.text_fit(surf, line, px, color, box, "midtop")
    gap = p.m.s(8)
    size = px
    while True:
        small = max(MIN_FONT_PX, size * 3 // 5)
        width = p.texts.width(label, small) + (gap + p.texts.width(line, size) if line else 0)
        if width <= box.width or size <= MIN_FONT_PX:
            break
        size -= 1
    x = box.centerx - width // 2
    height = p.texts.font(size).get_linesize() if line else p.texts.font(small).get_linesize()
    base = box.top + height
    r = p.text(surf, label, small, palette.MUTED, (x, base), "bottomleft")
    p.model.add(p.region, "hand-label", label, r)
    if line:
        r = r.union(p.text(surf, line, size, color, (r.right + gap, base), "bottomleft"))
    return r


def hand_winnings(hand: Mapping[str, Any]) -> int:
    """Cents a hand won: its payout less the real money staked on it (a Free Bet lammer
    stakes nothing), so "WIN +$5" on a $5 wager paid $10."""
    staked = (0 if hand.get("lammer") else int(hand.get("wager") or 0)) + (
        0 if hand.get("double_lammer") else int(hand.get("double") or 0))
    return int(hand.get("paid") or 0) - staked
