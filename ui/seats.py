"""One seat of the round: hands, wagers (doubles and Free Bet lammers), credits, results.

Draws exactly what the public view says. Totals, results and payouts are the engine's;
the only judgement made here is where things go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pygame

from etgcore.money import dollars
from ui import palette
from ui.geometry import SPOT_TAG_H, SPOT_TAG_PX, SeatGeometry, chip_radius, stack_center
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


def _cells(area: pygame.Rect, n: int) -> list[pygame.Rect]:
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
    return f"soft {total}" if hand.get("soft") else str(total)


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


def _hand(p: Painter, surf: pygame.Surface, cell: pygame.Rect, hand: Mapping[str, Any],
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


#: Hand results whose stake the dealer takes: the chip leaves the spot (a surrender's or
#: rescue's refund is in the credits, not on the felt).
TAKEN = frozenset({"lose", "surrender", "rescue"})


@dataclass(frozen=True)
class SeatContext:
    """What a seat's drawing needs from the rest of the view and from the panel."""

    expecting: Mapping[str, Any]
    dealer_blackjack: bool | None = None   # the public view's dealer.blackjack
    selected: bool = False                 # the keyboard panel's letter keys act for it


def lost_wagers(seat: Mapping[str, Any], dealer_blackjack: bool | None) -> set[str]:
    """Wager kinds the public view shows as lost, whose chips leave their spots.

    Nothing is decided here: the Blackjack wager is lost when the engine's result of every
    hand says so; a side wager when the engine reports "lose" on the first hand; the
    insurance wager once the seat is settled (``net`` set) against a dealer the view shows
    without a blackjack (§ the insurance pays only on a dealer blackjack).
    """
    hands: Sequence[Mapping[str, Any]] = seat.get("hands") or []
    lost: set[str] = set()
    if hands and all(h.get("result") in TAKEN for h in hands):
        lost.add("blackjack")
    for kind, outcome in (hands[0].items() if hands else ()):
        if outcome == "lose" and kind not in ("result", "status"):
            lost.add(kind)
    if isinstance(seat.get("net"), int) and dealer_blackjack is False:
        lost.add("insurance")
    return lost


def _insurance(p: Painter, surf: pygame.Surface, sg: SeatGeometry, cents: int) -> None:
    """The insurance wager beside its spot (chip over amount), never on the label."""
    (cx, cy), radius = sg.insurance_chip
    chip = p.chips(surf, cents, (cx, cy), radius)
    p.text_fit(surf, dollars(cents), p.m.font(14), palette.WHITE,
               pygame.Rect(cx - sg.insurance_room, chip.bottom, 2 * sg.insurance_room, 1),
               "midtop", floor=8)


def spot_wager(p: Painter, surf: pygame.Surface, cents: int, center: tuple[int, int],
               radius: int) -> pygame.Rect:
    """A betting circle's chips with the amount under them; where they were drawn."""
    return p.wager(surf, cents, stack_center(center, radius), chip_radius(radius),
                   p.m.font(18))


def spot_tag_height(p: Painter) -> int:
    """A side wager's result tag as drawn: the table's geometry keeps this much room."""
    return p.badge_height(p.m.s(SPOT_TAG_H), p.m.font(SPOT_TAG_PX))


def _spots(p: Painter, surf: pygame.Surface, sg: SeatGeometry, seat: Mapping[str, Any],
           lost: set[str]) -> None:
    """Each betting area's chips (gone once lost) and a side wager's result tag, in the
    place kept for it over the spot's chips (:attr:`SeatGeometry.tags`)."""
    m = p.m
    wagers: Mapping[str, Any] = seat.get("wagers") or {}
    hands: Sequence[Mapping[str, Any]] = seat.get("hands") or []
    for kind, (center, radius) in sg.spots.items():
        cents = int(wagers.get(kind) or 0)
        if cents and kind not in lost:
            spot_wager(p, surf, cents, center, radius)
        # a side wager's result, as the engine reports it on the seat's first hand: "lose",
        # "push", or the line it won on (Blackjack or Bust's "suited", ...), shown as WIN
        outcome = hands[0].get(kind) if hands and kind != "blackjack" else None
        place = sg.tags.get(kind)
        if isinstance(outcome, str) and place is not None:
            word = outcome if outcome in ("lose", "push") else "win"
            p.badge(surf, spot_tag_text(word, cents, seat, kind), RESULT_COLORS[word],
                    place.midtop, place.width, place.height, m.font(SPOT_TAG_PX),
                    kind="spot-tag")


def spot_tag_text(word: str, stake: int, seat: Mapping[str, Any], kind: str) -> str:
    """A side wager's result with its amount, as a hand's is: "WIN  +$50" (what it won:
    the engine's cents returned for it, less its stake), "LOSE  -$10" (its stake),
    "PUSH". A record without the amounts (written before rounds carried them) shows the
    word alone."""
    if word == "lose" and stake:
        return f"LOSE  {dollars(-stake, sign=True)}"
    returned = (seat.get("returned") or {}).get(kind)
    if word == "win" and isinstance(returned, int) and returned > stake:
        return f"WIN  {dollars(returned - stake, sign=True)}"
    return word.upper()


def _credits(p: Painter, surf: pygame.Surface, box: pygame.Rect,
             seat: Mapping[str, Any]) -> None:
    """Credits and, once settled, the round's net on one line, shrunk together to fit."""
    m = p.m
    credits = seat.get("credits")
    if not isinstance(credits, int):
        return
    net = seat.get("net")
    parts = [(dollars(credits), palette.CREAM)]
    if isinstance(net, int) and seat.get("hands"):
        color = palette.WIN if net > 0 else palette.LOSE if net < 0 else palette.PUSH
        parts.append((dollars(net, sign=True), color))
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


#: where a seat's credits go when the view has no such seat (a recalled round it sat out)
DID_NOT_PLAY = "did not play"


def paint_absent_seat(p: Painter, surf: pygame.Surface, sg: SeatGeometry) -> None:
    """A seat the view does not hold (game recall of a round it did not play): its felt
    label stays, and where its credits would be, that it did not play, not an amount
    left out as if it were missing."""
    p.text_fit(surf, DID_NOT_PLAY, p.m.font(22), palette.MUTED, sg.credits, "midbottom",
               floor=8)


def credits_label(seat: int) -> str:
    return f"SEAT {seat}  ·  CREDITS"


def _selected_marker(p: Painter, surf: pygame.Surface, sg: SeatGeometry) -> None:
    """The seat the keyboard's letter keys act for: its label on a blue tab and a blue
    frame round its credits, unlike the yellow of the seat whose turn it is."""
    m = p.m
    px = m.font(16)
    label = credits_label(sg.seat)
    tab = pygame.Rect(0, 0, p.texts.width(label, px) + m.s(16), p.texts.font(px).get_linesize())
    tab.midtop = sg.credits.midtop
    # inside the yellow turn frame (the selected seat is often the one whose turn it is)
    inside = sg.rect.inflate(-2 * (_frame_size(p)[0] + m.s(2)), 0)
    frame = sg.credits.union(tab).inflate(m.s(6), m.s(6)).clip(inside)
    pygame.draw.rect(surf, palette.SELECTED, frame, m.s(3), border_radius=m.s(10))
    pygame.draw.rect(surf, palette.SELECTED, tab, border_radius=tab.height // 2)
    p.text(surf, label, px, palette.INK, sg.credits.midtop, "midtop")
    p.model.add(p.region, "marker", "keyboard", frame)


def paint_seat(p: Painter, surf: pygame.Surface, sg: SeatGeometry, seat: Mapping[str, Any],
               ctx: SeatContext, frame: bool = True) -> None:
    """Draw ``seat`` (a public-view seat) into its column; the felt is already there.
    ``frame`` False leaves out the turn frame (the renderer draws it on its own)."""
    expecting = ctx.expecting
    turn = expecting.get("seat") == sg.seat and expecting.get("kind") == "decision"
    if ctx.selected:
        _selected_marker(p, surf, sg)
    lost = lost_wagers(seat, ctx.dealer_blackjack)
    ins = int((seat.get("wagers") or {}).get("insurance") or 0)
    if ins and sg.insurance.width and "insurance" not in lost:
        _insurance(p, surf, sg, ins)
    hands: Sequence[Mapping[str, Any]] = seat.get("hands") or []
    for i, (cell, hand) in enumerate(zip(_cells(sg.hands, len(hands)), hands, strict=False)):
        current = turn and expecting.get("hand") == i + 1  # hands count from 1
        _hand(p, surf, cell, hand, len(hands), current, i + 1)
    _spots(p, surf, sg, seat, lost)
    _credits(p, surf, sg.credits, seat)
    if expecting.get("seat") == sg.seat and frame:
        paint_turn_frame(p, surf, sg)


def _frame_size(p: Painter) -> tuple[int, int]:
    """The turn frame's line width and corner radius."""
    return p.m.s(4), p.m.s(18)


def paint_turn_frame(p: Painter, surf: pygame.Surface, sg: SeatGeometry) -> None:
    """The yellow frame round the column of the seat the table waits for (a card or a
    decision). Drawn last, over the seat, so that it can come and go on its own: only
    :func:`turn_frame_ring` changes with it (the renderer's cheap redraw)."""
    width, radius = _frame_size(p)
    pygame.draw.rect(surf, palette.TURN, sg.rect, width, border_radius=radius)


def turn_frame_ring(p: Painter, sg: SeatGeometry) -> list[pygame.Rect]:
    """Rectangles holding every pixel the turn frame may draw: a square as big as the
    corner radius at each corner (a rounded corner's arc stays inside it) and, between
    them, each edge as deep as the frame's line."""
    width, radius = _frame_size(p)
    r = sg.rect
    c = min(max(width, radius), r.width // 2, r.height // 2)
    w = min(width, c)
    return [pygame.Rect(r.left, r.top, c, c), pygame.Rect(r.right - c, r.top, c, c),
            pygame.Rect(r.left, r.bottom - c, c, c), pygame.Rect(r.right - c, r.bottom - c, c, c),
            pygame.Rect(r.left + c, r.top, r.width - 2 * c, w),
            pygame.Rect(r.left + c, r.bottom - w, r.width - 2 * c, w),
            pygame.Rect(r.left, r.top + c, w, r.height - 2 * c),
            pygame.Rect(r.right - w, r.top + c, w, r.height - 2 * c)]
