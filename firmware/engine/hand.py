"""A hand of cards with its wagers, and a seat with its credits and hands.

Both are mutable with ``__slots__``: the engine validates an input completely before it
changes anything, so it never needs to copy state to undo a rejected input.
"""

from __future__ import annotations

from typing import Any

from etgcore.view import CardsView
from firmware.engine.cards import CODE, IS_ACE, VALUE

# Hand status values (public view "status")
PLAYING = "playing"
STOOD = "stood"
BUST = "bust"
BLACKJACK = "blackjack"
DOUBLED = "doubled"
SURRENDERED = "surrendered"
RESCUED = "rescued"


class Hand:
    """Cards and the wagers riding on them.

    ``hard`` counts every ace as 1; the total adds 10 for one ace when that stays <= 21.
    ``wager`` is real money at stake; a Free Bet lammer is ``lammer_amount`` with no money.
    """

    __slots__ = (
        "aces", "cards", "double", "double_lammer", "double_times", "extra", "from_split",
        "hard", "lammer", "lammer_amount", "paid", "result", "split_ace", "status", "wager",
    )

    def __init__(self, wager: int = 0) -> None:
        self.cards: list[int] = []
        self.hard = 0
        self.aces = 0
        self.wager = wager
        self.lammer = False
        self.lammer_amount = 0
        self.double = 0
        self.double_times = 0
        self.double_lammer = False
        self.status = PLAYING
        self.from_split = False
        self.split_ace = False
        self.result: str | None = None
        self.paid = 0
        #: the mechanisms' notes: :class:`~etgcore.view.HandExtras`' keys and a side
        #: wager's result under the wager's declared name (on the seat's first hand)
        self.extra: dict[str, Any] | None = None

    def add(self, card: int) -> None:
        self.cards.append(card)
        self.hard += VALUE[card]
        if IS_ACE[card]:
            self.aces += 1

    @property
    def total(self) -> int:
        h = self.hard
        return h + 10 if self.aces and h <= 11 else h

    @property
    def soft(self) -> bool:
        return bool(self.aces) and self.hard <= 11

    @property
    def is_blackjack(self) -> bool:
        """An ace and a 10-value card as the first two cards of an unsplit hand."""
        return len(self.cards) == 2 and not self.from_split and self.aces == 1 and self.hard == 11

    def to_json(self, hide_second: bool = False) -> CardsView:
        cards = [CODE[c] for c in self.cards]
        if hide_second and len(cards) > 1:
            cards[1] = "??"
            shown = self.cards[:1] + self.cards[2:]
            hard = sum(VALUE[c] for c in shown)
            soft = any(IS_ACE[c] for c in shown) and hard <= 11
            total = hard + 10 if soft else hard
        else:
            total, soft = self.total, self.soft
        return {"cards": cards, "total": total, "soft": soft}


class Seat:
    """One player position: credits, the round's wagers and hands."""

    __slots__ = (
        "credits", "hands", "insurance", "insurance_decided", "net", "number", "returned",
        "returned_by_kind", "side", "staked", "staked_by_kind", "wager",
    )

    def __init__(self, number: int) -> None:
        self.number = number
        self.credits = 0
        self.wager = 0           # the Blackjack wager placed for this round
        self.side: dict[str, int] = {}   # paired and optional wagers by name
        self.insurance = 0
        self.insurance_decided = False
        self.hands: list[Hand] = []
        self.staked = 0          # every cent this seat put at stake this round
        #: the same, per wager kind (the meters): the Bank keeps both, so they always agree
        self.staked_by_kind: dict[str, int] = {}
        self.returned = 0        # every cent settlement gave back (stakes and wins)
        self.returned_by_kind: dict[str, int] = {}  # the same, per wager kind (meters)
        self.net: int | None = None

    def clear_round(self) -> None:
        self.wager = 0
        self.side = {}
        self.insurance = 0
        self.insurance_decided = False
        self.hands = []
        self.staked = 0
        self.staked_by_kind = {}
        self.returned = 0
        self.returned_by_kind = {}
        self.net = None
