"""The table's state: every attribute of :class:`~firmware.engine.table.Table`, declared once.

``Table`` is put together from parts that each hold one job (:mod:`~firmware.engine.play`,
:mod:`~firmware.engine.betting`, :mod:`~firmware.engine.tilts`); :class:`TableState` is
their common base and the only class with non-empty ``__slots__``, so a table has no
``__dict__`` and every part sees the attributes typed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.engine.hand import Hand

if TYPE_CHECKING:
    from firmware.engine.hand import Seat
    from firmware.engine.mechanism import DrawRequest, Hooks
    from firmware.engine.rules import Rules
    from firmware.engine.shoe import Shoe
    from firmware.engine.tilts import Tilt


class TableState:
    """The attributes of a table (values are set by ``Table.__init__``) and the reset of
    the round's part of them."""

    __slots__ = (
        "_dispatch",
        "audit",
        "bench",
        "burn_left",
        "card_to",
        "deal_order",
        "deal_pos",
        "dealer",
        "dealer_bj",
        "doubling",
        "draw_request",
        "draws",
        "extra",
        "funded",
        "hole_revealed",
        "hooks",
        "house",
        "need",
        "nseats",
        "phase",
        "players",
        "post_double",
        "round_no",
        "rules",
        "seats",
        "shoe",
        "tilt",
        "turn_hand",
        "turn_seat",
    )
    rules: Rules
    hooks: Hooks
    shoe: Shoe
    seats: list[Seat]
    players: list[Seat]
    dealer: Hand
    phase: str
    need: str
    deal_order: list[Hand]
    deal_pos: int
    turn_seat: int
    turn_hand: int
    card_to: Hand | None
    doubling: bool
    post_double: bool
    hole_revealed: bool
    dealer_bj: bool
    draw_request: DrawRequest | None
    extra: dict[str, Any]
    audit: list[tuple[Any, ...]]
    draws: dict[str, int]
    bench: bool
    nseats: int
    round_no: int
    house: int
    funded: int
    tilt: Tilt | None
    burn_left: int
    _dispatch: dict[type, Callable[[Any], None]]

    def _reset_round(self) -> None:
        """An empty round: no players, no dealer cards, nothing drawn or audited."""
        self.players = []
        self.dealer = Hand()
        self.hole_revealed = False
        self.dealer_bj = False
        self.deal_order = []
        self.deal_pos = 0
        self.turn_seat = 0
        self.turn_hand = 0
        self.card_to = None
        self.doubling = False
        self.post_double = False
        self.draw_request = None
        self.draws = {}
        self.extra = {}
        self.audit = []
