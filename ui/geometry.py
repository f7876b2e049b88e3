"""Where everything sits on the table, for one screen size and one variation's layout.

Designed on 1920x1080 and mapped through :class:`~ui.units.Metrics`. The dealer is at the
top; the seats sit along the curved edge at the bottom, seat 1 farthest to the dealer's
left, which is the right-hand side of the screen (baseline §1.1). Each seat is a column
holding, top to bottom: its insurance spot, its hands, its betting areas, its credits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from ui.layout_data import BASE_AREAS
from ui.units import Metrics

MAX_SEATS = 7
#: A stack of chips shows at most this many (its amount is written under it).
MAX_STACK = 4
#: Design height and font size of a side wager's result tag (WIN, PUSH, LOSE).
SPOT_TAG_H = 24
SPOT_TAG_PX = 16


def chip_radius(spot_radius: int) -> int:
    """The radius of the chips standing in a betting circle of ``spot_radius``."""
    return max(4, spot_radius * 5 // 9)


def chip_lift(radius: int) -> int:
    """How much higher each chip of a stack stands than the one under it."""
    return max(2, radius // 4)


def stack_center(center: tuple[int, int], spot_radius: int) -> tuple[int, int]:
    """Where a spot's chips stand: a little above its centre, leaving room for the amount."""
    return center[0], center[1] - spot_radius // 4


def stack_rise(spot_radius: int) -> int:
    """How far above a spot's centre its tallest stack reaches (pixels, as drawn by
    :meth:`ui.painter.Painter.chips`): a tag kept above this never meets a chip."""
    r = chip_radius(spot_radius)
    return spot_radius // 4 + r + chip_lift(r) * (MAX_STACK - 1)


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
    #: where each side wager's result tag goes: under the hands, over its tallest stack
    tags: dict[str, pygame.Rect] = field(default_factory=dict)


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


def _side_spots(m: Metrics, sides: list[str], column: pygame.Rect, hands: pygame.Rect,
                main_right: int, x: int, radius: int, design_y: int, tag_h: int,
                tags: dict[str, pygame.Rect]) -> dict[str, tuple[tuple[int, int], int]]:
    """The side wagers' spots right of the main circle, each with the place of its result
    tag (filled into ``tags``) between the hands' area and the spot's tallest stack, so
    the tag covers neither a card nor a chip. A spot sits lower than its design place
    when its tag needs the room; the next one (no variation has two yet) goes under it."""
    gap, shadow = m.s(3), m.s(2)
    half = min(column.right - gap - x, x - main_right - gap)
    spots: dict[str, tuple[tuple[int, int], int]] = {}
    y = hands.bottom + gap
    for kind in sides:
        tag = pygame.Rect(x - half, y, 2 * half, tag_h)
        # under the tag: its shadow, a gap, then the stack's top
        cy = max(design_y, tag.bottom + shadow + gap + stack_rise(radius))
        tag.bottom = cy - stack_rise(radius) - gap - shadow
        spots[kind], tags[kind] = ((x, cy), radius), tag
        y = cy + radius + m.s(48)  # under this spot and its printed label
    return spots


def build_geometry(m: Metrics, seats: int, betting_areas: list[str], bingo: bool,
                   tag_height: int | None = None) -> TableGeometry:
    """Every rectangle of the table for ``seats`` seats and the given betting areas;
    ``tag_height``: a side wager's result tag as drawn (its words may be taller than
    SPOT_TAG_H at the smallest screens), by default the design's."""
    tag_h = m.s(SPOT_TAG_H) if tag_height is None else tag_height
    seats = max(1, min(MAX_SEATS, seats))
    left_panel = m.rect(16, 14, 524, 392)
    right_panel = m.rect(1380, 14, 524, 392)
    bingo_rect = m.rect(1380, 14, 524, 172) if bingo else None
    dealer = m.rect(580, 8, 760, 224)
    center = m.rect(548, 236, 824, 200)
    status = m.rect(0, 1030, 1920, 50)
    # every side wager the layout declares gets its own spot beside the main circle
    sides = [k for k in betting_areas if k not in BASE_AREAS]
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
        # the insurance oval: 120 wide by design, at least 80 px on a small screen so its
        # label is read at the smallest font (800x480: 80 px, not 50)
        ins_w = min(max(120.0, 80 / m.u), col_w - 110)
        ins = (m.rect(cx - ins_w / 2, top + 2, ins_w, 46) if has_insurance
               else pygame.Rect(0, 0, 0, 0))
        hands = m.rect(left + 10, top + 52, col_w - 20, 250)
        spot_y = top + 372
        spots: dict[str, tuple[tuple[int, int], int]] = {}
        tags: dict[str, pygame.Rect] = {}
        if sides:
            main_x = left + col_w * 0.33
            main_r = m.s(min(56, col_w * 0.2))
            spots["blackjack"] = ((m.x(main_x), m.y(spot_y)), main_r)
            spots.update(_side_spots(m, sides, rect, hands, m.x(main_x) + main_r,
                                     m.x(left + col_w * 0.82), m.s(min(40, col_w * 0.14)),
                                     m.y(spot_y - 34), tag_h, tags))
        else:
            spots["blackjack"] = ((m.x(cx), m.y(spot_y)), m.s(min(58, col_w * 0.22)))
        credits = m.rect(left + 8, top + 478, col_w - 16, 68)
        chip_x = cx + ins_w / 2 + 8 + 12  # right of the spot's ellipse
        room = min(left + col_w - 6 - chip_x, chip_x - (cx + 44))  # the label: ~76 wide
        out[seat] = SeatGeometry(seat, rect, ins, hands, spots, credits,
                                 ((m.x(chip_x), m.y(top + 16)), m.s(12)), m.s(room), tags)
        arc.append((m.x(cx), m.y(top + 26)))
    return TableGeometry(m, left_panel, right_panel, bingo_rect, dealer, center, status, out,
                         sorted(arc))
