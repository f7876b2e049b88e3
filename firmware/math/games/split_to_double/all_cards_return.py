"""Split to Double's return by a composition-dependent calculation: every card removed.

Why its own calculation: the game has no hitting, so a round is small (two cards, the
splits, one card per double), but its 4x doubles and any-two-card splits make the
usual analyser approximation (the player's further cards drawn from the three-card
composition, the dealer ignoring them) cost 0.16% of the wager at six decks. Here the
round is followed card by card for the strategy the automatic players use
(:class:`~firmware.math.strategy.basic.Strategy`, asked with the engine's legal actions, so the
figure is the return of the game as the engine deals and the players play it):

* every card a hand draws comes from the shoe less the up card, the two initial cards and
  every card drawn before it this round (the hole card is handled below);
* the hands of a split are played in the engine's order: the first-dealt card's hand
  first, a resplit's new hand last;
* the dealer's law is that of the composition all of the player's cards leave.

The hole card is dealt before the player's further cards, but the cards are exchangeable,
so the probability of a path of player draws and a dealer outcome is P(draws from the
shoe less the three cards) times the *joint* law of (no dealer Blackjack, outcome) from
what is left; a dealer Blackjack ends the round before any draw (main -1, Blackjack or
Bust -1) and appears as the joint law's Blackjack entry. The value of a round is linear
in that law, so paths that end on the same state are merged and only their total
probability and payoff vector are carried.

How it is fast (:mod:`firmware.math.games.split_to_double.card_rows`): every start of every up card
is one row of numpy arrays (up card, the removed multiset packed in an integer, the hand being
played, the hands waiting, hands made, Blackjack or Bust alive); one step draws the next
card for every row at once and rows that reach the same state are merged. The dealer's
laws come from a Newton series at the shoe less the up card
(:mod:`firmware.math.dealer.newton_series`): 286 exact laws per up card instead of one per
composition.

Approximations, for time, each measured (docs/math.md): the first :data:`DEPTH`
further cards of a round are removed exactly; the rarer later ones (a resplit, a second
hand's double) are drawn from the composition left after those, and the dealer's law
counts them to first order (the law moves by the effect of removing one card of that
value, times the expected number drawn). ``depth=99`` tracks every card and
``dealer="exact"`` computes every law exactly: together, the exact calculation.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import numpy as np

from firmware.math.cache import cache_dir, source_digest
from firmware.math.composition import initial_deals
from firmware.math.dealer.many_shoes import joint_laws
from firmware.math.dealer.newton_series import ORDER, NewtonLaws
from firmware.math.games.split_to_double.card_rows import Decider, Rows, start_rows
from firmware.math.games.split_to_double.hand_values import (
    bob_blackjack_value,
    bob_dealer_bust_odds,
)
from firmware.math.games.split_to_double.past_tracked_cards import play_rows
from firmware.math.ruleset import GameRules

if TYPE_CHECKING:
    from firmware.math.strategy.basic import Strategy

#: Cards a round removes exactly: the player's first ``DEPTH`` further cards (split cards
#: and double cards) come out of the shoe for every later draw and for the dealer. Later
#: ones (a resplit, a second hand's double) are drawn from the composition left then,
#: and the dealer's law takes them into account to first order.
DEPTH = 3

METHOD_STD = (
    "composition-dependent calculation of the automatic players' strategy: exact weights "
    "of the player's two cards and the dealer's up card; every card of the round removed "
    f"(the player's first {DEPTH} further cards exactly; later ones drawn from the "
    "composition left then, and removed for the dealer to first order); split hands "
    "played in the engine's order (first-dealt card's hand first, a resplit's new hand "
    "last); the dealer's law for the composition the player's cards leave (Newton series "
    f"of order {ORDER} at the shoe less the up card); float64"
)


class _Laws:
    """Dealer laws of ``shoe less up less t`` per up card, by series or exactly."""

    def __init__(self, rules: GameRules, full: np.ndarray, exact: bool) -> None:
        self.rules, self.full, self.exact = rules, full, exact
        self._series: dict[int, NewtonLaws] = {}
        self.computed = 0

    def cu(self, up: int) -> np.ndarray:
        return self.full - np.eye(10, dtype=np.int64)[up - 1]

    def __call__(self, up: int, removed: np.ndarray, steps: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(K, 8) laws of the shoe less ``up`` less ``removed`` (K, 10), and with
        ``steps`` (K, 10, 8) their change when one more card of each value is removed
        (zeros without)."""
        r = self.rules
        if self.exact:
            def law(t: np.ndarray) -> np.ndarray:
                self.computed += len(t)
                return joint_laws(r.shoe.kind, np.maximum(self.cu(up)[None, :] - t, 0), up,
                                  r.dealer_hits_soft_17)

            j = law(removed)
            if not steps:
                return j, np.zeros((len(removed), 10, 8))
            eye = np.eye(10, dtype=np.int64)
            return j, np.stack([law(removed + eye[v]) - j for v in range(10)], axis=1)
        s = self._series.get(up)
        if s is None:
            s = self._series[up] = NewtonLaws(r.shoe.kind, self.cu(up), up,
                                              r.dealer_hits_soft_17)
            self.computed += s.diffs.shape[0]
        if not steps:
            return s.laws(removed), np.zeros((len(removed), 10, 8))
        return s.laws_and_steps(removed)


def std_exact_value(rules: GameRules, strategy: Strategy, depth: int = DEPTH,
                    ups: tuple[int, ...] = tuple(range(1, 11)), dealer: str = "series"
                    ) -> tuple[float, float, int]:
    """(main, Blackjack or Bust) expected net per unit, and the exact dealer laws computed.

    ``ups``: only the part of the return from these up cards (measurements, tests).
    ``dealer``: ``"series"`` (the Newton series, the shipped figure) or ``"exact"`` (one
    exact law per composition; with ``depth=99``, the all-cards calculation).
    """
    full = rules.shoe.counts()
    if full is None:
        raise ValueError("the composition-dependent calculation needs a finite shoe")
    if dealer not in ("series", "exact"):
        raise ValueError(f"dealer must be 'series' or 'exact', not {dealer!r}")
    laws = _Laws(rules, np.array(full, dtype=np.int64), dealer == "exact")
    decider = Decider(rules, strategy)
    bj_pays = float(rules.blackjack_pays)
    bob_bj = float(bob_blackjack_value(rules))
    main = bob = 0.0
    starts: list[tuple[int, int, int, float]] = []
    for a, b, up, wf in initial_deals(rules.shoe):
        if up not in ups:
            continue
        w = float(wf)
        if {a, b} == {1, 10}:
            left = np.array(full) - np.eye(10, dtype=np.int64)[[a - 1, b - 1, up - 1]].sum(0)
            hole = 10 if up == 1 else 1 if up == 10 else None
            pbj = float(left[hole - 1]) / float(left.sum()) if hole else 0.0
            main += w * (1 - pbj) * bj_pays
            bob += w * bob_bj
            continue
        starts.append((a, b, up, w))
    rows: Rows = start_rows(rules, decider, starts)
    odds = bob_dealer_bust_odds(rules)
    bob_alive = np.array([-1.0] * 5 + [odds, odds, -1.0])
    m, x = play_rows(rules, decider, rows, laws, depth, bob_alive)
    return main + m, bob + x, laws.computed


def cached_std_exact_value(rules: GameRules, strategy: Strategy) -> tuple[float, float, int]:
    """:func:`std_exact_value`, kept on disk between runs (about a second to compute).

    The key is the rules hash, the depth and a digest of every source file of
    ``firmware/math`` (so a change of the calculation or of the strategy recomputes);
    the file is in ``$ETG_CACHE_DIR`` or ``$XDG_CACHE_HOME/etg`` (``~/.cache/etg``).
    A cache that cannot be read or written is ignored: the figure is computed.
    ``ETG_NO_CACHE=1`` skips the cache (``make bench`` measures the computation so).
    """
    if os.environ.get("ETG_NO_CACHE"):
        return std_exact_value(rules, strategy)
    path = cache_dir() / f"std-exact-{rules.rules_hash}-{DEPTH}-{source_digest()}.json"
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        return float(got["main"]), float(got["bob"]), int(got["laws"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    main, bob, laws = std_exact_value(rules, strategy)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"main": main, "bob": bob, "laws": laws,
                                   "rules": rules.to_json()}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return main, bob, laws


__all__ = ["DEPTH", "METHOD_STD", "cached_std_exact_value", "std_exact_value"]
