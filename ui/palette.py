"""The colours of the table, in one place so every layer agrees.

A casino felt is dark green with gold printing; red means a fault, amber a pause the
dealer must resolve. Cards are the usual two colours (red hearts and diamonds, black
spades and clubs) because that is what players read fastest from a distance.
"""

from __future__ import annotations

Color = tuple[int, int, int]

FELT = (12, 92, 52)
FELT_DARK = (6, 58, 32)
FELT_EDGE = (4, 36, 20)
RAIL = (58, 32, 18)
RAIL_LIGHT = (96, 58, 30)
GOLD = (226, 190, 92)
GOLD_DIM = (170, 140, 64)
CREAM = (244, 236, 214)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
INK = (22, 22, 28)
CARD_FACE = (252, 252, 248)
CARD_EDGE = (120, 120, 120)
CARD_RED = (200, 16, 32)
CARD_BLACK = (18, 18, 24)
CARD_BACK = (128, 18, 30)
CARD_BACK_LINE = (190, 60, 70)
PANEL = (8, 48, 28)
PANEL_EDGE = GOLD_DIM
TURN = (255, 214, 64)
SELECTED = (70, 170, 255)  # the seat the keyboard's letter keys act for
WIN = (64, 200, 96)
LOSE = (210, 60, 60)
PUSH = (150, 170, 190)
BINGO = (255, 120, 24)
BINGO_BALL = (250, 248, 240)
TILT = (200, 40, 40)
TILT_BG = (40, 10, 10)
AMBER = (240, 160, 32)
RECALL = (230, 110, 20)
RECALL_BG = (30, 22, 8)
LAMMER = (250, 214, 60)
LAMMER_TEXT = (70, 40, 0)
BUTTON = (30, 30, 36)
BUTTON_LIT = (250, 220, 90)
MUTED = (170, 200, 180)

#: Chip colours by denomination in cents, largest first (display convention only).
CHIPS: tuple[tuple[int, Color], ...] = (
    (100_000, (232, 196, 40)),
    (50_000, (120, 60, 160)),
    (10_000, (28, 28, 32)),
    (2_500, (30, 140, 70)),
    (500, (196, 30, 40)),
    (100, (236, 236, 236)),
)
