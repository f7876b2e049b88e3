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

One approximation remains, for time: the first :data:`DEPTH` further cards of a round
are removed exactly; the rarer later ones (a resplit, a second hand's double) are drawn
from the composition left after those, and the dealer's law counts them to first order:
each path group carries the expected number of such cards of each value (and its
product with the payoffs), and the law moves by the effect of removing one card of that
value. Its size is measured by running with more depth (``depth=99`` tracks every card:
exact, and minutes of CPU): see :data:`DEPTH`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
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
#: and double cards) come out of the shoe for every later draw and for the dealer. Later
#: ones (a resplit, a second hand's double) are drawn from the composition left then,
#: and the dealer's law takes them into account to first order (its change when one
#: card of that value is removed, times the expected number drawn). Measured against the
#: calculation with nothing frozen (docs/math.md): 0.00001% of the wager for the part of
#: the 6-deck return with a 10 up.
DEPTH = 3

METHOD_STD = (
    "composition-dependent calculation of the automatic players' strategy: exact weights "
    "of the player's two cards and the dealer's up card; every card of the round removed "
    f"(the player's first {DEPTH} further cards exactly; later ones drawn from the "
    "composition left then, and removed for the dealer to first order); split hands "
    "played in the engine's order (first-dealt card's hand first, a resplit's new hand "
    "last); the dealer's exact law for the composition the player's cards leave; float64"
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

    def leaf(self, removed: tuple[int, ...], acc: np.ndarray, alive: bool,
             base: tuple[int, ...]) -> None:
        """Add a path group's payoffs to the composition it ends on."""
        key = tuple(x + y for x, y in zip(base, removed, strict=True))
        mass, g, nx, gx = _parts(acc)
        bobv = self.bob_alive if alive else _BOB_DEAD
        main = np.concatenate([g - mass * _E_BJ, (gx - np.outer(nx, _E_BJ)).ravel()])
        bob = np.concatenate([mass * bobv, np.outer(nx, bobv).ravel()])
        got = self.leaves.get(key)
        if got is None:
            self.leaves[key] = [main, bob]
        else:
            got[0] += main
            got[1] += bob

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
                      action: tuple[str, int]) -> list[tuple[tuple[int, ...], bool, Step]]:
        """(removed after, busted, step) of a two-card hand's play.

        A double's card is one outcome per value while cards are tracked; once they are
        not, the outcomes that end on the same state are added together.
        """
        hard, ace = cards[0] + cards[1], 1 in cards
        if action[0] != "double":
            t = total_of(hard, ace)
            return [(removed, t > 21, Step(1.0, _PAY[t] if t <= 21 else _BUST))]
        key = (hard, ace, removed, action[1])
        got = self.outcomes.get(key)
        if got is None:
            got = self.outcomes[key] = self._doubled(hard, ace, removed, action[1])
        return got

    def _doubled(self, hard: int, ace: bool, removed: tuple[int, ...], k: int
                 ) -> list[tuple[tuple[int, ...], bool, Step]]:
        nrem = sum(removed)
        q = self.qvec(removed, nrem)
        bust_mask, pay = _double_table(hard, ace)
        if nrem >= self.depth:
            # not tracked: the outcomes that end on one state are added together, with
            # the first moments of the cards drawn (for the dealer's first-order term)
            out = []
            for busted in (True, False):
                sel = bust_mask if busted else ~bust_mask
                qs = np.where(sel, q, 0.0)
                if qs.sum() > 0:
                    f = (1 + k) * pay
                    out.append((removed, busted, Step(float(qs.sum()), qs @ f, qs,
                                                      qs[:, None] * f)))
            return out
        out = []
        for y in range(1, 11):
            p = float(q[y - 1])
            if p:
                ry = (*removed[:y - 1], removed[y - 1] + 1, *removed[y:])
                out.append((ry, bool(bust_mask[y - 1]), Step(p, (1 + k) * p * pay[y - 1])))
        return out

    def qvec(self, removed: tuple[int, ...], nrem: int) -> np.ndarray:
        return np.maximum(self.left - np.array(removed), 0) / (self.n_left - nrem)

    def play_split(self, first: int, second: int, base: tuple[int, ...], w: float) -> None:
        """Forward over the split hands in the engine's order, merging equal states."""
        r = self.r
        zero = (0,) * 10
        start = np.zeros(_ACC)
        start[0] = w
        states: dict[tuple[Any, ...], np.ndarray] = {(zero, (first, second), 2, True): start}
        while states:
            nxt: dict[tuple[Any, ...], np.ndarray] = {}
            for (removed, pending, n, alive), acc in states.items():
                if not pending:
                    self.leaf(removed, acc, alive, base)
                    continue
                c, rest = pending[0], pending[1:]
                nrem = sum(removed)
                tracked = nrem < self.depth
                for x in range(1, 11):
                    p = self.q(removed, nrem, x)
                    if not p:
                        continue
                    rx = self.more(removed, nrem, x)
                    drawn = _advance(acc, Step(p, _ZERO8, None if tracked else p * _EYE[x - 1]))
                    can = x == c and n < r.max_hands and (c != 1 or r.resplit_aces)
                    act = self.choice((c, x), True, can, alive)
                    if act[0] == "split":
                        _add(nxt, (rx, (c, *rest, c), n + 1, alive), drawn)
                        continue
                    for ry, bust, step in self.hand_outcomes((c, x), rx, act):
                        _add(nxt, (ry, rest, n, alive and not bust), _advance(drawn, step))
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
        start = np.zeros(_ACC)
        start[0] = w
        if act[0] == "surrender":
            pay = np.full(8, float(r.surrender_refund) - 1.0)
            pay[IBJ] = 0.0
            self.leaf(zero, _advance(start, Step(1.0, pay)), False, base)
            return
        for ry, bust, step in self.hand_outcomes((a, b), zero, act):
            self.leaf(ry, _advance(start, step), not bust, base)


@dataclass(frozen=True)
class Step:
    """One transition of a group of paths: its probability ``p``, the probability-
    weighted payoff vector ``f`` of the hand it finishes, and for cards no longer tracked
    the probability-weighted indicator ``e`` of the card values drawn (10) and ``ef``,
    their outer product with the payoffs (10 x 8)."""

    p: float
    f: np.ndarray
    e: np.ndarray | None = None
    ef: np.ndarray | None = None


#: accumulator of a group of paths: mass, sum of mass x payoff vector (8), first
#: moments of the untracked cards drawn (10), and of cards x payoffs (10 x 8)
_ACC = 1 + 8 + 10 + 80
_ZERO8 = np.zeros(8)
_EYE = np.eye(10)
_E_BJ = np.eye(8)[IBJ]


def _parts(acc: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    return float(acc[0]), acc[1:9], acc[9:19], acc[19:].reshape(10, 8)


def _advance(acc: np.ndarray, st: Step) -> np.ndarray:
    """The accumulator after ``st``: each path's payoff gains ``f``, its counts ``e``."""
    mass, g, nx, gx = _parts(acc)
    out = np.empty(_ACC)
    out[0] = st.p * mass
    out[1:9] = st.p * g + mass * st.f
    ngx = st.p * gx + np.outer(nx, st.f)
    nnx = st.p * nx
    if st.e is not None:
        nnx = nnx + mass * st.e
        ngx = ngx + np.outer(st.e, g)
        ef = st.ef if st.ef is not None else np.outer(st.e, st.f) / st.p
        ngx = ngx + mass * ef
    out[9:19] = nnx
    out[19:] = ngx.ravel()
    return out


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


def _add(states: dict[tuple[Any, ...], np.ndarray], key: tuple[Any, ...],
         acc: np.ndarray) -> None:
    got = states.get(key)
    if got is None:
        states[key] = acc
    else:
        states[key] = got + acc


def std_exact_value(rules: GameRules, strategy: Strategy, depth: int = DEPTH,
                    ups: tuple[int, ...] = tuple(range(1, 11))) -> tuple[float, float, int]:
    """(main, Blackjack or Bust) expected net per unit, and the dealer laws computed.

    ``ups``: only the part of the return from these up cards (measurements, tests).
    """
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
        if up in ups:
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
        gm = np.array([leaves[k][0] for k in keys])
        gb = np.array([leaves[k][1] for k in keys])
        xm, xb = gm[:, 8:].reshape(-1, 10, 8), gb[:, 8:].reshape(-1, 10, 8)
        # every composition needed: each leaf's, and for cards not tracked, the leaf's
        # less one card of each value drawn (first order): one batch, no duplicates
        index: dict[tuple[int, ...], int] = {k: i for i, k in enumerate(keys)}
        terms: list[tuple[int, int, int]] = []  # (leaf, value, composition index)
        used = np.abs(xm).sum(axis=2) + np.abs(xb).sum(axis=2) > 0
        for i, v in zip(*np.nonzero(used), strict=True):
            k = keys[i]
            kv = (*k[:v], k[v] + 1, *k[v + 1:])
            terms.append((int(i), int(v), index.setdefault(kv, len(index))))
        comps = np.maximum(cu[None, :] - np.array(list(index), dtype=np.int64), 0)
        dl = joint_laws(shoe.kind, comps, up, rules.dealer_hits_soft_17)
        n = len(keys)
        main += float((gm[:, :8] * dl[:n]).sum())
        bob += float((gb[:, :8] * dl[:n]).sum())
        if terms:
            li, vi, ci = (np.array(t) for t in zip(*terms, strict=True))
            delta = dl[ci] - dl[li]
            main += float((xm[li, vi] * delta).sum())
            bob += float((xb[li, vi] * delta).sum())
        laws += len(index)
    return main, bob, laws


def cached_std_exact_value(rules: GameRules, strategy: Strategy) -> tuple[float, float, int]:
    """:func:`std_exact_value`, kept on disk between runs (it takes tens of seconds).

    The key is the rules hash, the depth and a digest of every source file of
    ``firmware/math`` (so a change of the calculation or of the strategy recomputes);
    the file is in ``$ETG_CACHE_DIR`` or ``$XDG_CACHE_HOME/etg`` (``~/.cache/etg``).
    A cache that cannot be read or written is ignored: the figure is computed.
    """
    path = _cache_dir() / f"std-exact-{rules.rules_hash}-{DEPTH}-{_source_digest()}.json"
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


def _cache_dir() -> Path:
    if os.environ.get("ETG_CACHE_DIR"):
        return Path(os.environ["ETG_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "etg"


@lru_cache(maxsize=1)
def _source_digest() -> str:
    h = hashlib.sha256()
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]
