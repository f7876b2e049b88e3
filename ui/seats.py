"""One seat of the round: hands, wagers (doubles and Free Bet lammers), credits, results.

Draws exactly what the public view says. Totals, results and payouts are the engine's;
the only judgement made here is where things go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pygame

from ui import palette
from ui.geometry import SeatGeometry
from ui.money import dollars
from ui.painter import Painter

RESULT_COLORS = {
    "win": palette.WIN, "blackjack": palette.WIN, "lose": palette.LOSE,
    "push": palette.PUSH, "surrender": palette.PUSH,
}
STATUS_WORDS = {
    "bust": "BUST", "blackjack": "BLACKJACK", "surrendered": "SURRENDERED",
    "rescued": "RESCUED",
}


def _cells(area: pygame.Rect, n: int) -> list[pygame.Rect]:
    """Where each of ``n`` hands goes: one, two side by side, or a 2x2 grid."""
    if n <= 1:
        return [area]
    if n == 2:
        w = area.width // 2
        return [pygame.Rect(area.left + i * w, area.top, w, area.height) for i in (1, 0)]
    w, h = area.width // 2, area.height // 2
    # hands are played right to left like the seats: hand 1 top right
    spots = [(1, 0), (0, 0), (1, 1), (0, 1)]
    return [pygame.Rect(area.left + c * w, area.top + r * h, w, h) for c, r in spots[:n]]


def _card_width(p: Painter, n_hands: int, n_cards: int, inner: pygame.Rect,
                text_lines: int) -> int:
    """As large as the design size allows, smaller only if the hand would not fit."""
    base = p.m.card({1: 84, 2: 70}.get(n_hands, 48))
    fit_w = inner.width / (1 + 0.42 * max(0, n_cards - 1))
    line = p.texts.font(p.m.font(18)).get_linesize()
    fit_h = (inner.height - p.m.s(8) - text_lines * line) / 1.4
    return max(round(base * 0.7), min(base, round(fit_w), round(fit_h)))


def total_text(hand: Mapping[str, Any]) -> str:
    total = hand.get("total")
    if not isinstance(total, int) or not hand.get("cards"):
        return ""
    return f"soft {total}" if hand.get("soft") else str(total)


def _hand(p: Painter, surf: pygame.Surface, cell: pygame.Rect, hand: Mapping[str, Any],
          n_hands: int, current: bool, bingo_target: int | None) -> None:
    m = p.m
    cards: Sequence[str] = hand.get("cards") or []
    pad = m.s(6)
    inner = cell.inflate(-2 * pad, -2 * pad)
    count = max(1, len(cards))
    compact = n_hands > 2
    lines = 1 + (0 if compact else int(n_hands > 1)) + int(bool(hand.get("double")))
    cw = _card_width(p, n_hands, count, inner, lines)
    ch = round(cw * 1.4)
    dx = round(cw * 0.42)
    if count > 1 and cw + dx * (count - 1) > inner.width:
        dx = max(m.s(8), (inner.width - cw) // (count - 1))
    fan_w = cw + dx * (count - 1)
    x0 = inner.centerx - fan_w // 2
    y0 = inner.top + m.s(4)
    fan = pygame.Rect(x0, y0, fan_w, ch)
    if hand.get("bingo_hit"):
        pygame.draw.rect(surf, palette.BINGO, fan.inflate(m.s(16), m.s(16)), m.s(5),
                         border_radius=m.s(10))
    elif current:
        pygame.draw.rect(surf, palette.TURN, fan.inflate(m.s(14), m.s(14)), m.s(4),
                         border_radius=m.s(10))
    for i, code in enumerate(cards):
        p.card(surf, str(code), (x0 + i * dx, y0), cw)
    y = fan.bottom + m.s(2 if n_hands > 2 else 6)
    px = m.font(26 if n_hands <= 2 else 18)
    small = m.font(16)
    words = [total_text(hand)]
    status = STATUS_WORDS.get(str(hand.get("status")))
    if status and status != "BLACKJACK":
        words.append(status)
    elif status == "BLACKJACK":
        words = ["BLACKJACK"]
    if compact and not hand.get("lammer") and hand.get("wager"):
        words.append(dollars(int(hand.get("wager") or 0)))  # one line: total and wager
    line = "  ".join(w for w in words if w)
    color = palette.LOSE if hand.get("status") == "bust" else palette.WHITE
    if line:
        r = p.text_fit(surf, line, px, color, pygame.Rect(inner.left, y, inner.width, 1),
                       "midtop")
        y = r.bottom + m.s(2)
    # the hand's own wagers, one per line: money as an amount, a Free Bet lammer as a lammer
    rows: list[tuple[str, int, bool]] = []
    if (n_hands > 1 and not compact) or hand.get("lammer"):
        rows.append(("", int(hand.get("wager") or 0), bool(hand.get("lammer"))))
    if hand.get("double") or hand.get("double_lammer"):
        times = hand.get("double_times") or 0
        label = f"DOUBLE x{times}" if isinstance(times, int) and times > 1 else "DOUBLE"
        rows.append((label, int(hand.get("double") or 0), bool(hand.get("double_lammer"))))
    lam_w = min(inner.width * 6 // 10, m.s(96))
    text_h = p.texts.font(small).get_linesize()
    lam_h = lam_w * 9 // 20 + m.s(4)
    for label, cents, lammer in rows:
        line_h = max(text_h, lam_h) if lammer else text_h
        row = pygame.Rect(inner.left, y, inner.width, line_h)
        if lammer and label:
            gap = m.s(8)
            total = p.texts.width(label, small) + gap + lam_w
            if total <= inner.width:  # "DOUBLE [FREE BET]" on one line
                r = p.text(surf, label, small, palette.MUTED,
                           (row.centerx - total // 2, row.centery), "midleft")
                p.lammer(surf, (r.right + gap + lam_w // 2, row.centery), lam_w)
            else:  # too narrow: the label over its lammer
                p.text(surf, label, small, palette.MUTED, row.midtop, "midtop")
                p.lammer(surf, (row.centerx, row.top + text_h + lam_h // 2), lam_w)
                line_h = text_h + lam_h
        elif lammer:
            p.lammer(surf, row.center, lam_w)
        elif cents:
            text = f"{label} {dollars(cents)}" if label else dollars(cents)
            p.text_fit(surf, text, small, palette.CREAM, row, "center", floor=8)
        y += line_h + m.s(2)
    result = hand.get("result")
    if isinstance(result, str):
        color = RESULT_COLORS.get(result, palette.PUSH)
        badge = pygame.Rect(0, 0, min(fan.width + m.s(20), inner.width), m.s(34))
        badge.midbottom = (fan.centerx, fan.bottom - m.s(4))
        pygame.draw.rect(surf, palette.INK, badge.move(0, m.s(2)), border_radius=m.s(8))
        pygame.draw.rect(surf, color, badge, border_radius=m.s(8))
        won = hand_winnings(hand)  # what the hand won, not what came back with its stake
        text = result.upper() + (f"  {dollars(won, sign=True)}" if won > 0 else "")
        p.text_fit(surf, text, m.font(20), palette.INK, badge.inflate(-m.s(8), 0), "center")
    if hand.get("bingo_hit"):
        tag = pygame.Rect(0, 0, m.s(92), m.s(28))
        tag.midtop = (fan.centerx, fan.top - m.s(12))
        pygame.draw.rect(surf, palette.BINGO, tag, border_radius=m.s(14))
        p.text_fit(surf, "BINGO!", m.font(20), palette.INK, tag, "center")
    del bingo_target  # the engine decides a hit (bingo_hit); the target is not compared here


def hand_winnings(hand: Mapping[str, Any]) -> int:
    """Cents a hand won: its payout less the real money staked on it (a Free Bet lammer
    stakes nothing), so "WIN +$5" on a $5 wager paid $10."""
    staked = (0 if hand.get("lammer") else int(hand.get("wager") or 0)) + (
        0 if hand.get("double_lammer") else int(hand.get("double") or 0))
    return int(hand.get("paid") or 0) - staked


def paint_seat(p: Painter, surf: pygame.Surface, sg: SeatGeometry, seat: Mapping[str, Any],
               expecting: Mapping[str, Any], bingo_target: int | None) -> None:
    """Draw ``seat`` (a public-view seat) into its column; the felt is already there."""
    m = p.m
    turn = expecting.get("seat") == sg.seat and expecting.get("kind") == "decision"
    asked = expecting.get("seat") == sg.seat
    if turn or asked:
        pygame.draw.rect(surf, palette.TURN, sg.rect, m.s(4), border_radius=m.s(18))
    wagers: Mapping[str, Any] = seat.get("wagers") or {}
    hands: Sequence[Mapping[str, Any]] = seat.get("hands") or []
    ins = int(wagers.get("insurance") or 0)
    if ins and sg.insurance.width:
        p.wager(surf, ins, (sg.insurance.centerx, sg.insurance.centery - m.s(6)), m.s(14),
                m.font(14))
    cells = _cells(sg.hands, len(hands))
    for i, (cell, hand) in enumerate(zip(cells, hands, strict=False)):
        current = turn and expecting.get("hand") == i + 1  # hands count from 1
        _hand(p, surf, cell, hand, len(hands), current, bingo_target)
    for kind, (center, radius) in sg.spots.items():
        cents = int(wagers.get(kind) or 0)
        if cents:
            p.wager(surf, cents, (center[0], center[1] - radius // 4), max(4, radius * 5 // 9),
                    m.font(18))
        # a side wager's result, as the engine reports it on the seat's first hand
        outcome = hands[0].get(kind) if hands and kind != "blackjack" else None
        if isinstance(outcome, str):
            color = RESULT_COLORS.get(outcome, palette.PUSH)
            tag = pygame.Rect(0, 0, radius * 2, m.s(24))
            tag.center = (center[0], center[1] - radius)
            pygame.draw.rect(surf, color, tag, border_radius=tag.height // 2)
            p.text_fit(surf, outcome.upper(), m.font(16), palette.INK, tag, "center", 7)
    box = sg.credits
    credits = seat.get("credits")
    if not isinstance(credits, int):
        return
    net = seat.get("net")
    parts = [(dollars(credits), palette.CREAM)]
    if isinstance(net, int) and hands:
        color = palette.WIN if net > 0 else palette.LOSE if net < 0 else palette.PUSH
        parts.append((dollars(net, sign=True), color))
    # credits and, once settled, the round's net on one line, shrunk together to fit
    px, gap = m.font(28), m.s(12)
    while px > 9 and sum(p.texts.width(t, px) for t, _c in parts) + gap * (len(parts) - 1) \
            > box.width:
        px -= 1
    widths = [p.texts.width(t, px) for t, _c in parts]
    x = box.centerx - (sum(widths) + gap * (len(parts) - 1)) // 2
    for (text, color), w in zip(parts, widths, strict=True):
        size = px if color == palette.CREAM else max(9, px * 3 // 4)
        p.text(surf, text, size, color, (x + (w - p.texts.width(text, size)) // 2,
                                         box.bottom), "bottomleft")
        x += w + gap
