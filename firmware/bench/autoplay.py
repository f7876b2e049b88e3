"""A simple automatic player and dealer, for speed runs, soak runs and property tests.

:class:`AutoTable` plays rounds on a :class:`~firmware.engine.table.Table` through its one
entry point, ``apply``: it shuffles a shoe with a seeded ``random.Random`` (the engine
itself never draws), feeds the cut card at the penetration, places wagers and answers each
decision with a policy. :func:`basic_strategy` is a plain multi-deck basic strategy (a
later issue replaces it with a computed one); any callable with the same signature can
stand in (property tests use a random legal choice).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from firmware.engine import phases as P
from firmware.engine.cards import DECKS, VALUE
from firmware.engine.hand import Hand
from firmware.engine.inputs import (
    Card,
    CloseBetting,
    CreditsIn,
    Cut,
    Decision,
    Input,
    NewShoe,
    Wager,
)
from firmware.engine.table import Table

Policy = Callable[[Hand, int, Sequence[str]], str]

# Hard totals: the dealer up-card values (2..10, 1 = ace) on which to double / stand.
_DOUBLE_HARD = {9: {3, 4, 5, 6}, 10: set(range(2, 10)), 11: set(range(2, 11))}
_STAND_HARD = {12: {4, 5, 6}, 13: set(range(2, 7)), 14: set(range(2, 7)),
               15: set(range(2, 7)), 16: set(range(2, 7))}
_SURRENDER = {16: {9, 10, 1}, 15: {10}}
# Soft totals: double against these up cards.
_DOUBLE_SOFT = {13: {5, 6}, 14: {5, 6}, 15: {4, 5, 6}, 16: {4, 5, 6}, 17: {3, 4, 5, 6},
                18: {3, 4, 5, 6}}
# Pairs by card value: split against these up cards.
_SPLIT = {1: set(range(1, 11)), 8: set(range(1, 11)), 9: {2, 3, 4, 5, 6, 8, 9},
          7: set(range(2, 8)), 6: set(range(2, 7)), 4: {5, 6}, 3: set(range(2, 8)),
          2: set(range(2, 8))}


def basic_strategy(hand: Hand, up: int, legal: Sequence[str]) -> str:
    """A basic-strategy decision for ``hand`` against dealer up-card value ``up`` (1 = ace)."""
    cards = hand.cards
    if "split" in legal and VALUE[cards[0]] == VALUE[cards[1]] and up in _SPLIT.get(
        VALUE[cards[0]], ()
    ):
        return "split"
    total = hand.total
    if hand.soft:
        if "double" in legal and up in _DOUBLE_SOFT.get(total, ()):
            return "double"
        if total >= 19 or (total == 18 and up in (2, 3, 4, 5, 6, 7, 8)):
            return "stand"
        return "hit" if "hit" in legal else "stand"
    if "surrender" in legal and up in _SURRENDER.get(total, ()):
        return "surrender"
    if "double" in legal and up in _DOUBLE_HARD.get(total, ()):
        return "double"
    if total >= 17 or up in _STAND_HARD.get(total, ()):
        return "stand"
    return "hit" if "hit" in legal else "stand"


class AutoTable:
    """Plays whole rounds on ``table`` for ``seats`` seats, each wagering ``wager``."""

    def __init__(
        self, table: Table, seats: Sequence[int] = (1,), wager: int | None = None,
        seed: int = 1, policy: Policy = basic_strategy, penetration: float = 0.75,
        insurance: bool = False, apply: Callable[[Input], None] | None = None,
    ) -> None:
        self.table = table
        #: where inputs go (a recorder's apply keeps them for replay)
        self.apply = apply or table.apply
        self.rng = random.Random(seed)
        self.policy = policy
        self.penetration = penetration
        self.insurance = insurance
        rules = table.rules
        amount = wager if wager is not None else rules.min_wager
        self.wagers = [Wager(s, amount) for s in seats]
        self.seats = list(seats)
        self.cards = [Card(c) for c in range(52)]
        self.deck = list(DECKS[rules.deck_kind]) * rules.decks
        self.order: list[int] = []
        self.pos = 0
        self.cut_at = 0
        self.cut_sent = False
        self.topup = amount * 100
        self.rounds = 0

    def _new_shoe(self) -> None:
        self.order = self.deck[:]
        self.rng.shuffle(self.order)
        self.pos = 0
        self.cut_at = int(len(self.order) * self.penetration)
        self.cut_sent = False
        self.apply(NewShoe())

    def play(self, rounds: int) -> int:
        """Play until ``rounds`` more rounds have been settled; returns the rounds played."""
        t = self.table
        r = t.round  # read the round's state directly: this loop is the engine benchmark
        seats = t.seats
        apply = self.apply
        cards = self.cards
        policy = self.policy
        close = CloseBetting()
        target = self.rounds + rounds
        while True:
            need = r.need
            if need == P.CARD:
                if self.pos >= self.cut_at and not self.cut_sent:
                    self.cut_sent = True
                    apply(Cut())
                if self.pos >= len(self.order):  # shoe ran dry: void and reshuffle
                    apply(Cut())
                    raise RuntimeError("shoe exhausted")
                apply(cards[self.order[self.pos]])
                self.pos += 1
            elif need == P.DECISION:
                seat = r.players[r.turn_seat]
                if r.phase == P.INSURANCE:
                    act = "insurance" if self.insurance else "no-insurance"
                    apply(Decision(seat.number, 1, act))
                    continue
                h = seat.hands[r.turn_hand]
                legal = t.legal_now(seat, h)
                act = policy(h, VALUE[r.dealer.cards[0]], legal)
                apply(Decision(seat.number, r.turn_hand + 1, act))
            elif need == P.WAGERS:
                if r.phase == P.SETTLED or r.phase == P.VOIDED:
                    self.rounds += 1
                    if self.rounds >= target:
                        return rounds
                for w in self.wagers:
                    s = seats[w.seat - 1]
                    if s.credits < self.topup:
                        apply(CreditsIn(w.seat, self.topup * 10))
                    apply(w)
                apply(close)
            elif need == P.SHOE:
                if r.phase == P.SETTLED or r.phase == P.VOIDED:
                    self.rounds += 1
                    if self.rounds >= target:
                        return rounds
                self._new_shoe()
            else:
                raise RuntimeError(f"autoplay cannot serve {t.expecting().why}")


def random_policy(rng: random.Random) -> Policy:
    """A policy choosing uniformly among the legal decisions (for property tests)."""

    def choose(hand: Hand, up: int, legal: Sequence[str]) -> str:
        return rng.choice(list(legal))

    return choose
