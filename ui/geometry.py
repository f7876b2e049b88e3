"""Where everything sits on the table, for one screen size and one variation's layout.

Designed on 1920x1080 and mapped through :class:`~ui.units.Metrics`. The dealer is at the
top; the seats sit along the curved edge at the bottom, seat 1 farthest to the dealer's
left, which is the right-hand side of the screen (baseline §1.1). Each seat is a column
holding, top to bottom: its insurance spot, its hands, its betting areas, its credits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from ui.units import Metrics

#: Side wagers drawn as their own spot beside the main Blackjack circle.
SIDE_KINDS = ("blackjack_or_bust", "activator", "push22")
MAX_SEATS = 7


@dataclass
class SeatGeometry:
    seat: int
    rect: pygame.Rect          # the whole column: what a redraw of the seat covers
    insurance: pygame.Rect     # the insurance spot (empty rect when not offered)
    hands: pygame.Rect         # where the cards go
    spots: dict[str, tuple[tuple[int, int], int]] = field(default_factory=dict)
    credits: pygame.Rect = field(default_factory=lambda: pygame.Rect(0, 0, 0, 0))
    #: the insurance wager's chip, beside its spot (centre, radius) and the half-width its
    #: amount may take under the chip: never on the spot's printed label
    insurance_chip: tuple[tuple[int, int], int] = ((0, 0), 0)
    insurance_room: int = 0


@dataclass
class TableGeometry:
    m: Metrics
    left_panel: pygame.Rect
    right_panel: pygame.Rect
    bingo: pygame.Rect | None
    dealer: pygame.Rect
    center: pygame.Rect
    status: pygame.Rect
    seats: dict[int, SeatGeometry]
    seat_arc: list[tuple[int, int]]

    @property
    def size(self) -> tuple[int, int]:
        return self.m.width, self.m.height


def seat_top(col_center: float, width: float) -> float:
    """Design y of a seat's top: the seats follow the table's curved edge."""
    d = (col_center - 960.0) / (960.0 - width / 2)
    return 420.0 + 56.0 * (1.0 - d * d)


def build_geometry(m: Metrics, seats: int, betting_areas: list[str], bingo: bool) -> TableGeometry:
    """Every rectangle of the table for ``seats`` seats and the given betting areas."""
    seats = max(1, min(MAX_SEATS, seats))
    left_panel = m.rect(16, 14, 524, 392)
    right_panel = m.rect(1380, 14, 524, 392)
    bingo_rect = m.rect(1380, 14, 524, 172) if bingo else None
    dealer = m.rect(580, 8, 760, 224)
    center = m.rect(548, 236, 824, 200)
    status = m.rect(0, 1030, 1920, 50)
    sides = [k for k in SIDE_KINDS if k in betting_areas]
    has_insurance = "insurance" in betting_areas
    col_w = 1888.0 / seats
    out: dict[int, SeatGeometry] = {}
    arc: list[tuple[int, int]] = []
    height = 548.0
    for seat in range(1, seats + 1):
        col = seats - seat  # seat 1 on the right (the dealer's left)
        left = 16.0 + col * col_w
        cx = left + col_w / 2
        top = seat_top(cx, col_w)
        rect = m.rect(left + 4, top, col_w - 8, height)
        ins = m.rect(cx - 60, top + 2, 120, 46) if has_insurance else pygame.Rect(0, 0, 0, 0)
        hands = m.rect(left + 10, top + 52, col_w - 20, 250)
        spots: dict[str, tuple[tuple[int, int], int]] = {}
        spot_y = top + 372
        if sides:
            main_x = left + col_w * 0.36
            spots["blackjack"] = ((m.x(main_x), m.y(spot_y)), m.s(min(56, col_w * 0.2)))
            side_r = m.s(min(40, col_w * 0.14))
            n = len(sides)
            for i, kind in enumerate(sides):
                # raised a little, so its label sits above the main spot's label
                sy = spot_y - 34 + (i - (n - 1) / 2) * 88
                spots[kind] = ((m.x(left + col_w * 0.79), m.y(sy)), side_r)
        else:
            spots["blackjack"] = ((m.x(cx), m.y(spot_y)), m.s(min(58, col_w * 0.22)))
        credits = m.rect(left + 8, top + 478, col_w - 16, 68)
        chip_x = cx + 60 + 8 + 12  # right of the spot's ellipse
        room = min(left + col_w - 6 - chip_x, chip_x - (cx + 44))  # the label: ~76 wide
        out[seat] = SeatGeometry(seat, rect, ins, hands, spots, credits,
                                 ((m.x(chip_x), m.y(top + 16)), m.s(12)), m.s(room))
        arc.append((m.x(cx), m.y(top + 26)))
    return TableGeometry(m, left_panel, right_panel, bingo_rect, dealer, center, status, out,
                         sorted(arc))
