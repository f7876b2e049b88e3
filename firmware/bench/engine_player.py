"""A simple automatic player and dealer, for speed runs, soak runs and property tests.

:class:`EnginePlayer` plays rounds on a :class:`~firmware.engine.game.Game` through its one
entry point, ``apply``: it shuffles a shoe with a seeded ``random.Random`` (the engine
itself never draws), feeds the cut card at the penetration, places wagers and answers each
decision with the auto-players' one strategy (:func:`strategy_policy`: the computed basic
strategy its caller hands in, as the panel's auto-player plays, else a plain rule); any
callable with the same signature can stand in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from firmware.engine import phases as P
from firmware.engine.cards import DECKS
from firmware.engine.decisions import legal_now
from firmware.engine.game import Game
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
from firmware.table.service.autoplay import Policy, StrategyFor

#: a decision for a hand against the dealer's up card (an engine card code), always one of
#: the legal actions: ``(action, times)``, times being the double's multiple
HandPolicy = Callable[[Hand, int, Sequence[str]], tuple[str, int]]


def strategy_policy(rules: Any, strategy_for: StrategyFor | None = None) -> HandPolicy:
    """The auto-players' one strategy (:class:`firmware.table.service.autoplay.Policy`: the
    computed basic strategy) for hands of the engine, remembered per situation so a speed
    run measures the engine, not the strategy's lookup."""
    policy = Policy(rules, strategy_for)
    memo: dict[tuple[Any, ...], tuple[str, int]] = {}

    def choose(hand: Hand, up: int, legal: Sequence[str]) -> tuple[str, int]:
        cards = hand.cards
        # the strategy reads ranks, and suits only for two suited cards (Spanish 21)
        key = (up >> 2, tuple([c >> 2 for c in cards]),
               len(cards) == 2 and cards[0] & 3 == cards[1] & 3,
               hand.from_split, hand.split_ace, hand.lammer, tuple(legal))
        got = memo.get(key)
        if got is None:
            got = memo[key] = policy.decide_hand(
                up, hand.cards, legal, split_hand=hand.from_split, lammer=hand.lammer,
                split_ace=hand.split_ace)
        return got

    return choose


class EnginePlayer:
    """Plays whole rounds on ``table`` for ``seats`` seats, each wagering ``wager``."""

    def __init__(
        self, game: Game, seats: Sequence[int] = (1,), wager: int | None = None,
        seed: int = 1, policy: HandPolicy | None = None, penetration: float = 0.75,
        insurance: bool = False, apply: Callable[[Input], None] | None = None,
    ) -> None:
        self.game = game
        #: where inputs go (a recorder's apply keeps them for replay)
        self.apply = apply or game.apply
        self.rng = random.Random(seed)
        self.policy = policy or strategy_policy(game.rules)
        self.penetration = penetration
        self.insurance = insurance
        rules = game.rules
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
        # Each card sorted by its own uniform draw: a uniformly random order (two draws
        # tie with chance ~n^2 / 2^54), in a quarter of ``Random.shuffle``'s time (40 us a
        # six-deck shoe, not 150: one C-level sort instead of 311 bounded draws), which
        # was a fifth of the engine benchmark's round. The engine never shuffles: this is
        # the bench's shoe, and a seed still gives one order.
        draw = self.rng.random
        self.order = sorted(self.deck, key=lambda _card: draw())
        self.pos = 0
        self.cut_at = int(len(self.order) * self.penetration)
        self.cut_sent = False
        self.apply(NewShoe())

    def play(self, rounds: int) -> int:
        """Play until ``rounds`` more rounds have been settled; returns the rounds played."""
        t = self.game
        r = t.round  # read the round's state directly: this loop is the engine benchmark
        seats = t.seats
        apply = self.apply
        cards = self.cards
        policy = self.policy
        close = CloseBetting()
        # inputs are values the engine only reads: each decision made once and reused
        decisions: dict[tuple[int, int, str, int], Decision] = {}
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
                legal = legal_now(r, seat, h)
                act, times = policy(h, r.dealer.cards[0], legal)
                key = (seat.number, r.turn_hand + 1, act, times)
                d = decisions.get(key)
                if d is None:
                    d = decisions[key] = Decision(*key[:3], times=times)
                apply(d)
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

