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
from ui.hands import RESULT_COLORS, hand_cells, paint_hand
from ui.painter import Painter

#: Hand results whose stake the dealer takes: the chip leaves the spot (a surrender's or
#: rescue's refund is in the credits, not on the felt).
TAKEN = frozenset({"lose", "surrender", "rescue"})


@dataclass(frozen=True)
class SeatContext:
    """What a seat's drawing needs from the rest of the view and from the panel."""

    expecting: Mapping[str, Any]
    dealer_blackjack: bool | None = None   # the public view's dealer.blackjack
    selected: bool = False                 # the keyboard panel's letter keys act for it
    closed: bool = False                   # its slot system disabled it (SAS shutdown)


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
    # once the seat is settled (``net`` set) every stake is either taken or already back
    # in the credits with its winnings: no chip stays in a circle
    settled = isinstance(seat.get("net"), int)
    for kind, (center, radius) in sg.spots.items():
        cents = int(wagers.get(kind) or 0)
        if cents and kind not in lost and not settled:
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


#: the words at the spot of a seat its slot system disabled (SAS shutdown, docs/sas.md)
CLOSED_WORD, CLOSED_BY = "CLOSED", "by the slot system"


def _closed_marker(p: Painter, surf: pygame.Surface, sg: SeatGeometry, playing: bool) -> None:
    """A seat its slot system disabled: CLOSED and who closed it, on its empty betting spot
    (it takes no wager there) or, while it still has a stake or hands of the round in
    play, at the top of its column under the insurance spot. Drawn before the seat's cards and
    chips, so that nothing of the round is ever hidden under it. Not only a dark BET
    lamp: a player sees why the seat takes nothing."""
    m = p.m
    (cx, cy), radius = sg.spots.get("blackjack", (sg.hands.midbottom, 0))
    px, small = m.font(22), m.font(14)
    height = p.badge_height(m.s(30), px)
    under = p.texts.font(small).get_linesize()
    # while playing: under the insurance spot (its printed label stays), over the hands'
    # top, where the round's cards are drawn over it
    head = sg.insurance.bottom if sg.insurance.width else sg.rect.top
    top = head + m.s(6) if playing else cy - (height + under) // 2
    x = sg.rect.centerx if playing else cx
    box = p.badge(surf, CLOSED_WORD, palette.AMBER, (x, top),
                  max(2 * radius, sg.rect.width * 2 // 3), height, px, kind="closed")
    line = pygame.Rect(sg.rect.left, box.bottom + m.s(2), sg.rect.width, 1)
    drawn = p.text_fit(surf, CLOSED_BY, small, palette.AMBER, line, "midtop", floor=8)
    p.model.add(p.region, "marker", "closed by the slot system", box.union(drawn))


def paint_seat(p: Painter, surf: pygame.Surface, sg: SeatGeometry, seat: Mapping[str, Any],
               ctx: SeatContext, frame: bool = True) -> None:
    """Draw ``seat`` (a public-view seat) into its column; the felt is already there.
    ``frame`` False leaves out the turn frame (the renderer draws it on its own)."""
    expecting = ctx.expecting
    turn = expecting.get("seat") == sg.seat and expecting.get("kind") == "decision"
    if ctx.selected:
        _selected_marker(p, surf, sg)
    if ctx.closed:  # first: a card, a chip or an amount of the round in play goes over it
        staked = any(isinstance(v, int) and v for v in (seat.get("wagers") or {}).values())
        _closed_marker(p, surf, sg, bool(seat.get("hands")) or staked)
    lost = lost_wagers(seat, ctx.dealer_blackjack)
    ins = int((seat.get("wagers") or {}).get("insurance") or 0)
    if ins and sg.insurance.width and "insurance" not in lost and not isinstance(
            seat.get("net"), int):  # settled: a won insurance is in the credits
        _insurance(p, surf, sg, ins)
    hands: Sequence[Mapping[str, Any]] = seat.get("hands") or []
    for i, (cell, hand) in enumerate(zip(hand_cells(sg.hands, len(hands)), hands,
                                         strict=False)):
        current = turn and expecting.get("hand") == i + 1  # hands count from 1
        paint_hand(p, surf, cell, hand, len(hands), current, i + 1)
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
