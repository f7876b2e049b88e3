"""Split to Double's return by a composition-dependent calculation: every card removed.

Why its own calculation: the game has no hitting, so a round is small (two cards, the
splits, one card per double), but its 4x doubles and any-two-card splits make the
usual analyser approximation (the player's further cards drawn from the three-card
composition, the dealer ignoring them) cost 0.16% of the wager at six decks. Here the
round is followed card by card for the strategy the automatic players use
(:class:`~firmware.math.strategy.Strategy`, asked with the engine's legal actions, so the
figure is the return of the game as the engine deals and the players play it):

* every card a hand draws comes from the shoe less the up card, the two initial cards and
  every card drawn before it this round (the hole card is handled below);
* the hands of a split are played in the engine's order: the first-dealt card's hand
  first, a resplit's new hand last;
* the dealer's law is computed for the exact composition left after all of the
  player's cards (:mod:`firmware.math.dealerlaw`).

The hole card is dealt before the player's further cards, but the cards are exchangeable,
so the probability of a path of player draws and a dealer outcome is P(draws from the
shoe less the three cards) times the *joint* law of (no dealer Blackjack, outcome) from
what is left; a dealer Blackjack ends the round before any draw (main -1, Blackjack or
Bust -1) and appears as the joint law's Blackjack entry.

The value of a round is linear in the dealer's joint law, so each path only adds its
probability times a payoff vector (one entry per dealer outcome) to the composition it
ends on; paths ending on the same removed multiset share one dealer law, and the laws of
all those multisets are computed in numpy batches. Probabilities of the initial three
cards are the exact ones of :func:`firmware.math.composition.initial_deals`.

One approximation remains, for time: the first :data:`DEPTH` further cards of a round are
removed exactly; the rare later ones (a resplit, or three hands doubling) are drawn
from the composition left after those and are not removed for the dealer. Its size is
measured by running with more depth (``std_exact_value(..., depth=99)`` is exact and
takes minutes): see :data:`DEPTH`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from firmware.math.composition import initial_deals
from firmware.math.dealer import IBJ
from firmware.math.dealerlaw import joint_laws
from firmware.math.fasttables import legal_for
from firmware.math.handcalc import total_of
from firmware.math.ruleset import GameRules
from firmware.math.std import bob_blackjack_value, bob_dealer_bust_odds
from firmware.math.strategy import Strategy

#: Cards a round removes exactly: the player's first ``DEPTH`` further cards (split cards
#: and double cards) come out of the shoe for every later draw and for the dealer; later
#: ones are drawn from the composition left at that point. Measured (docs/math.md): at
#: 6 decks the figure moves by 0.0015% of the wager from depth 2 to 3 and the up-10 part,
#: computed with nothing frozen, differs from depth 3 by 0.0004%.
DEPTH = 3

METHOD_STD = (
    "composition-dependent calculation of the automatic players' strategy: exact weights "
    "of the player's two cards and the dealer's up card; every card of the round removed "
    f"(the player's first {DEPTH} further cards exactly, later ones drawn from the "
    "composition left then); split hands played in the engine's order (first-dealt "
    "card's hand first, a resplit's new hand last); the dealer's exact law for the "
    "composition the player's cards leave; float64"
)

#: dealer outcome totals, in the order of the joint law's first five entries
_DEALER_TOTALS = (17, 18, 19, 20, 21)


def _payoff(t: int) -> np.ndarray:
    """Main wager net per unit for a standing total ``t`` against each dealer outcome."""
    f = np.zeros(8)
    for i, dt in enumerate(_DEALER_TOTALS):
        f[i] = 1.0 if t > dt else 0.0 if t == dt else -1.0
    f[5] = f[6] = 1.0  # dealer busts
    return f


_PAY = [_payoff(t) for t in range(22)]
_BUST = np.array([-1.0] * 7 + [0.0])
_BOB_DEAD = np.array([-1.0] * 8)


class _Round:
    """The paths of one start (a, b) against one up card, added to ``leaves``."""

    def __init__(self, rules: GameRules, decide: Callable[..., Any], up: int,
                 left: np.ndarray, leaves: dict[tuple[int, ...], list[np.ndarray]],
                 bob_alive: np.ndarray, depth: int,
                 choices: dict[tuple[Any, ...], tuple[str, int]]) -> None:
        self.r = rules
        self.decide = decide
        self.up = up
        self.left = left  # composition after the up card and the two initial cards
        self.n_left = float(left.sum())
        self.leaves = leaves
        self.bob_alive = bob_alive
        self.depth = depth
        self.choices = choices  # decisions of this up card, shared by its starts
        self.outcomes: dict[tuple[Any, ...], list[Any]] = {}

    def leaf(self, removed: tuple[int, ...], mass: float, g: np.ndarray, alive: bool,
             base: tuple[int, ...]) -> None:
        key = tuple(x + y for x, y in zip(base, removed, strict=True))
        acc = self.leaves.get(key)
        main = g.copy()
        main[IBJ] -= mass
        bob = mass * (self.bob_alive if alive else _BOB_DEAD)
        if acc is None:
            self.leaves[key] = [main, bob]
        else:
            acc[0] += main
            acc[1] += bob

    def more(self, removed: tuple[int, ...], nrem: int, v: int) -> tuple[int, ...]:
        """``removed`` and one card ``v``, while fewer than ``depth`` cards are tracked."""
        if nrem >= self.depth:
            return removed
        return (*removed[:v - 1], removed[v - 1] + 1, *removed[v:])

    def q(self, removed: tuple[int, ...], n_removed: int, v: int) -> float:
        c = self.left[v - 1] - removed[v - 1]
        return float(c) / (self.n_left - n_removed) if c > 0 else 0.0

    def choice(self, cards: tuple[int, int], split_hand: bool, can: bool, alive: bool,
               first: bool = False) -> tuple[str, int]:
        """The automatic player's (action, double multiple), asked once per state."""
        key = (cards, split_hand, can, alive, first)
        got = self.choices.get(key)
        if got is None:
            legal = legal_for(self.r, cards, split_hand=split_hand,
                              split_ace=split_hand and cards[0] == 1, can_split=can,
                              first=first)
            d = self.decide(self.up, cards, legal, split_hand=split_hand, bob_alive=alive,
                            split_ace=split_hand and cards[0] == 1)
            got = self.choices[key] = (d.action, d.times)
        return got

    def hand_outcomes(self, cards: tuple[int, int], removed: tuple[int, ...],
                      action: tuple[str, int]
                      ) -> list[tuple[float, tuple[int, ...], np.ndarray, bool]]:
        """(prob, removed after, probability-weighted payoff, busted) of a hand's play.

        A double's card is one outcome per value while cards are tracked; once they are
        not, the outcomes that end on the same state are added together.
        """
        hard, ace = cards[0] + cards[1], 1 in cards
        if action[0] != "double":
            t = total_of(hard, ace)
            return [(1.0, removed, _PAY[t] if t <= 21 else _BUST, t > 21)]
        key = (hard, ace, removed, action[1])
        got = self.outcomes.get(key)
        if got is None:
            got = self.outcomes[key] = self._doubled(hard, ace, removed, action[1])
        return got

    def _doubled(self, hard: int, ace: bool, removed: tuple[int, ...], k: int
                 ) -> list[tuple[float, tuple[int, ...], np.ndarray, bool]]:
        nrem = sum(removed)
        if nrem >= self.depth:
            q = self.qvec(removed, nrem)
            bust_mask, pay = _double_table(hard, ace)
            pb = float(q[bust_mask].sum())
            fsum = (1 + k) * (q @ pay)
            out = []
            if pb > 0:
                out.append((pb, removed, (1 + k) * _BUST * pb, True))
            if pb < 1:
                out.append((1 - pb, removed, fsum - (1 + k) * _BUST * pb, False))
            return out
        out = []
        for y in range(1, 11):
            p = self.q(removed, nrem, y)
            if p:
                t = total_of(hard + y, ace or y == 1)
                ry = (*removed[:y - 1], removed[y - 1] + 1, *removed[y:])
                f = _BUST if t > 21 else _PAY[t]
                out.append((p, ry, (1 + k) * p * f, t > 21))
        return out

    def qvec(self, removed: tuple[int, ...], nrem: int) -> np.ndarray:
        return np.maximum(self.left - np.array(removed), 0) / (self.n_left - nrem)

    def play_split(self, first: int, second: int, base: tuple[int, ...], w: float) -> None:
        """Forward over the split hands in the engine's order, merging equal states."""
        r = self.r
        zero = (0,) * 10
        states: dict[tuple[Any, ...], list[Any]] = {
            (zero, (first, second), 2, True): [w, np.zeros(8)]}
        while states:
            nxt: dict[tuple[Any, ...], list[Any]] = {}
            for (removed, pending, n, alive), (mass, g) in states.items():
                if not pending:
                    self.leaf(removed, mass, g, alive, base)
                    continue
                c, rest = pending[0], pending[1:]
                nrem = sum(removed)
                for x in range(1, 11):
                    p = self.q(removed, nrem, x)
                    if not p:
                        continue
                    rx = self.more(removed, nrem, x)
                    can = x == c and n < r.max_hands and (c != 1 or r.resplit_aces)
                    act = self.choice((c, x), True, can, alive)
                    if act[0] == "split":
                        _add(nxt, (rx, (c, *rest, c), n + 1, alive), mass * p, g * p)
                        continue
                    for p2, ry, fw, bust in self.hand_outcomes((c, x), rx, act):
                        m = mass * p * p2
                        _add(nxt, (ry, rest, n, alive and not bust), m,
                             g * (p * p2) + (mass * p) * fw)
            states = nxt

    def play(self, a: int, b: int, base: tuple[int, ...], w: float) -> None:
        """Every path of the start (a, b) with weight ``w`` (no player Blackjack)."""
        r = self.r
        can = r.max_hands >= 2 and (a == b or r.split_any_initial)
        act = self.choice((a, b), False, can, True, first=True)
        zero = (0,) * 10
        if act[0] == "split":
            # either card is the first dealt with the same probability
            if a == b:
                self.play_split(a, b, base, w)
            else:
                self.play_split(a, b, base, w / 2)
                self.play_split(b, a, base, w / 2)
            return
        if act[0] == "surrender":
            main = np.full(8, float(r.surrender_refund) - 1.0) * w
            main[IBJ] = 0.0
            self.leaf(zero, w, main, False, base)
            return
        for p, ry, fw, bust in self.hand_outcomes((a, b), zero, act):
            self.leaf(ry, w * p, w * fw, not bust, base)


@cache
def _double_table(hard: int, ace: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each double card: does it bust the hand, and the payoff vector (10 x 8)."""
    bust = np.zeros(10, dtype=bool)
    pay = np.zeros((10, 8))
    for y in range(1, 11):
        t = total_of(hard + y, ace or y == 1)
        bust[y - 1] = t > 21
        pay[y - 1] = _BUST if t > 21 else _PAY[t]
    return bust, pay


def _add(states: dict[tuple[Any, ...], list[Any]], key: tuple[Any, ...], mass: float,
         g: np.ndarray) -> None:
    got = states.get(key)
    if got is None:
        states[key] = [mass, g]
    else:
        got[0] += mass
        got[1] = got[1] + g


def std_exact_value(rules: GameRules, strategy: Strategy, depth: int = DEPTH
                    ) -> tuple[float, float, int]:
    """(main, Blackjack or Bust) expected net per unit, and the dealer laws computed."""
    shoe = rules.shoe
    full = shoe.counts()
    if full is None:
        raise ValueError("the composition-dependent calculation needs a finite shoe")
    odds = bob_dealer_bust_odds(rules)
    bob_alive = np.array([-1.0] * 5 + [odds, odds, -1.0])
    bj_pays = float(rules.blackjack_pays)
    bob_bj = float(bob_blackjack_value(rules))
    by_up: dict[int, list[tuple[int, int, float]]] = {}
    for a, b, up, wf in initial_deals(shoe):
        by_up.setdefault(up, []).append((a, b, float(wf)))
    main = bob = 0.0
    laws = 0
    for up, starts in by_up.items():
        cu = np.array(full) - np.eye(10, dtype=np.int64)[up - 1]
        leaves: dict[tuple[int, ...], list[np.ndarray]] = {}
        choices: dict[tuple[Any, ...], tuple[str, int]] = {}
        for a, b, wt in starts:
            w = float(wt)
            base = tuple(int(x) for x in (np.eye(10, dtype=np.int64)[a - 1]
                                          + np.eye(10, dtype=np.int64)[b - 1]))
            left = cu - np.array(base)
            if {a, b} == {1, 10}:
                hole = 10 if up == 1 else 1 if up == 10 else None
                pbj = float(left[hole - 1]) / float(left.sum()) if hole else 0.0
                main += w * (1 - pbj) * bj_pays
                bob += w * bob_bj
                continue
            _Round(rules, strategy.decide, up, left, leaves, bob_alive, depth,
                   choices).play(a, b, base, w)
        keys = list(leaves)
        comps = cu[None, :] - np.array(keys, dtype=np.int64)
        dl = joint_laws(shoe.kind, comps, up, rules.dealer_hits_soft_17)
        gm = np.array([leaves[k][0] for k in keys])
        gb = np.array([leaves[k][1] for k in keys])
        main += float((gm * dl).sum())
        bob += float((gb * dl).sum())
        laws += len(keys)
    return main, bob, laws
