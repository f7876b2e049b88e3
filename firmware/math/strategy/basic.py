"""The computed basic strategy, as a fast per-decision oracle for automatic players.

``strategy_for(rules)`` returns a :class:`Strategy` for a Rules Submission (the engine's
``Rules``) or a :class:`~firmware.math.ruleset.GameRules`; it is cached in memory by the
rules hash, so every caller with the same rules shares one. ``Strategy.decide`` answers
one decision: it values each *legal* action of the hand from the total-dependent solver
of that up card (the shoe less the up card) and returns the best, memoised per state, so
after the first visit of a state a decision is one dict lookup.

Hands are given as point values (1 = ace, 10 = ten-value card); ``values_of`` converts
the engine's card codes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from firmware.math.composition import remove
from firmware.math.games.hitting.round_value import (
    Situation,
    lane_pairs,
    make_situation,
    super_bonus_live,
)
from firmware.math.games.split_to_double.hand_values import StdSolver, std_solve_strategy
from firmware.math.hands.hand_value import (
    ACTION_NAMES,
    DOUBLE,
    DOUBLE_MAX,
    HIT,
    MIXED_77,
    SPLIT,
    STAND,
    SUITED_77,
    SURRENDER,
    HandCtx,
    total_of,
)
from firmware.math.hands.split_value import hand_start_tag, split_value
from firmware.math.ruleset import GameRules
from firmware.math.strategy.decision import Decision, values_of


class Strategy:
    """Decisions of the computed total-dependent basic strategy for one rule set."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self._sits: dict[int, Situation] = {}
        self._std: dict[int, StdSolver] = {}
        self._std_table: dict[tuple[Any, ...], Any] | None = None
        self._memo: dict[tuple[Any, ...], Decision] = {}
        self._lanes = {tm: i for i, tm in enumerate(lane_pairs())} if rules.bingo else {}

    # -- solvers per up card ---------------------------------------------------------
    def _sit(self, up: int) -> Situation:
        s = self._sits.get(up)
        if s is None:
            s = make_situation(self.rules, remove(self.rules.shoe.counts(), up), up, None, None)
            self._sits[up] = s
        return s

    def _stdsolver(self, up: int) -> StdSolver:
        if self._std_table is None:
            self._std_table = std_solve_strategy(self.rules)
        s = self._std.get(up)
        if s is None:
            s = StdSolver(
                self.rules, remove(self.rules.shoe.counts(), up), up, self._std_table.get, None
            )
            self._std[up] = s
        return s

    # -- the oracle ------------------------------------------------------------------
    def insurance(self) -> bool:
        """Whether to take insurance (never, for every shoe these games deal)."""
        sit = self._sit(1)
        p = sit.p_dealer_bj
        return float(self.rules.insurance_pays) * p - (1 - p) > 0

    def decide(
        self,
        up: int,
        cards: Sequence[int],
        legal: Collection[str],
        *,
        split_hand: bool = False,
        lammer: bool = False,
        split_ace: bool = False,
        after_double: bool = False,
        bob_alive: bool = True,
        bingo: tuple[int, int] | None = None,
        suited: bool | None = None,
    ) -> Decision:
        """The best legal action for a hand of point values ``cards`` against ``up``.

        ``legal`` is the engine's list for this hand (``Game.legal_now``); the answer is
        always one of it. ``after_double``: the double's card is dealt and the engine
        offers ``rescue`` (Spanish 21). ``bob_alive``: Split to Double, no hand of the
        seat has busted yet. ``bingo``: the (target, multiplier) drawn this round.
        ``suited``: the two cards are of one suit (read only for Spanish 21's initial 7-7
        against a 7 while the super bonus is live, § 635a.12(c)).
        """
        if "insurance" in legal or "no-insurance" in legal:
            return Decision("insurance" if self.insurance() else "no-insurance")
        legal_t = tuple(sorted(legal))
        if not (suited is not None and not split_hand and len(cards) == 2
                and cards[0] == cards[1] == 7 and super_bonus_live(self.rules, up)):
            suited = None
        key = (
            up,
            tuple(sorted(cards)),
            legal_t,
            split_hand,
            lammer,
            split_ace,
            after_double,
            bob_alive,
            bingo,
            suited,
        )
        d = self._memo.get(key)
        if d is None:
            d = self._compute(
                up,
                tuple(cards),
                legal_t,
                split_hand,
                lammer,
                split_ace,
                after_double,
                bob_alive,
                bingo,
                suited,
            )
            self._memo[key] = d
        return d

    def _compute(
        self,
        up: int,
        cards: tuple[int, ...],
        legal: tuple[str, ...],
        split_hand: bool,
        lammer: bool,
        split_ace: bool,
        after_double: bool,
        bob_alive: bool,
        bingo: tuple[int, int] | None,
        suited: bool | None = None,
    ) -> Decision:
        if not self.rules.hitting:
            return self._compute_std(up, cards, legal, split_hand, bob_alive)
        lane = self._lanes.get(bingo) if bingo else None
        return self._options(up, cards, legal, split_hand, lammer, split_ace, after_double,
                             suited, lambda v: _lane(v, lane))

    def decide_lanes(
        self, up: int, cards: Sequence[int], legal: Collection[str], *,
        split_hand: bool = False, lammer: bool = False, split_ace: bool = False,
        after_double: bool = False,
    ) -> list[Decision]:
        """Bingo: :meth:`decide` for every (target, multiplier) lane at once, in
        :func:`~firmware.math.games.hitting.round_value.lane_pairs` order (the fast path's 60 tables
        are built from this: one valuation per state instead of one per lane)."""
        n = len(self._lanes) or 1
        vals = self._options(up, tuple(cards), tuple(sorted(legal)), split_hand, lammer,
                             split_ace, after_double, None,
                             lambda v: np.broadcast_to(np.asarray(v, dtype=float), (n,)))
        return list(vals) if isinstance(vals, list) else [vals] * n

    def _options(
        self,
        up: int,
        cards: tuple[int, ...],
        legal: tuple[str, ...],
        split_hand: bool,
        lammer: bool,
        split_ace: bool,
        after_double: bool,
        suited: bool | None,
        pick: Any,
    ) -> Any:
        """The best legal action, valued by ``pick`` (one lane: a Decision; all lanes:
        ``pick`` returns arrays and the answer is a list of Decisions, one per lane)."""
        sit = self._sit(up)
        hs = sit.solver

        hard = sum(cards)
        ace = 1 in cards
        nc = min(len(cards), hs.nc_cap)
        tag = hand_start_tag(hs, cards) if len(cards) <= 3 else None
        if suited is not None:
            tag = SUITED_77 if suited else MIXED_77
        ctx = HandCtx(split=split_hand, lammer=lammer, split_ace=split_ace)
        if after_double:
            if "rescue" in legal:
                stand = pick(hs.stand(hard, ace, nc, None, ctx, 1, False))
                if isinstance(stand, np.ndarray):
                    return [Decision("rescue" if x < -1.0 else "stand") for x in stand]
                if stand < -1.0:
                    return Decision("rescue")
            return Decision("stand")
        opts: list[tuple[Any, Decision]] = []
        if "stand" in legal:
            opts.append((pick(hs.stand(hard, ace, nc, tag, ctx)), Decision("stand")))
        if "hit" in legal and total_of(hard, ace) < 21:
            hit: Any = 0.0
            for v in range(1, 11):
                p = hs.q[v - 1]
                if p:
                    from firmware.math.hands.hand_value import next_tag

                    if hard + v > 21:
                        hit += p * pick(hs.stand(hard + v, False, nc + 1, None, ctx))
                    else:
                        hit += p * pick(
                            hs.value(hard + v, ace or v == 1, nc + 1, next_tag(tag, v), ctx)
                        )
            opts.append((hit, Decision("hit")))
        if "double" in legal:
            for _code, k, dlam in hs.double_kinds(hard, ace, nc, ctx):
                val = pick(hs.doubled(hard, ace, nc, tag, ctx, k, dlam))
                opts.append((val, Decision("double", k)))
            if not hs.double_kinds(hard, ace, nc, ctx):
                # the engine allows a double the solver's rules did not foresee: value it
                val = pick(hs.doubled(hard, ace, nc, tag, ctx, 1, False))
                opts.append((val, Decision("double", 1)))
        if "split" in legal and len(cards) == 2 and cards[0] == cards[1]:
            opts.append((pick(split_value(hs, cards[0], lammer)), Decision("split")))
        if "surrender" in legal:
            opts.append((-(1.0 - float(self.rules.surrender_refund)), Decision("surrender")))
        if not opts:
            return Decision(legal[0])
        arrays = [v for v, _ in opts if isinstance(v, np.ndarray) and v.shape]
        if arrays:
            n = arrays[0].shape[0]
            stack = np.stack([np.broadcast_to(np.asarray(v, dtype=float), (n,))
                              + (1e-12 if d.action == "stand" else 0.0) for v, d in opts])
            # the first of equal options, as max() picks
            return [opts[i][1] for i in np.argmax(stack, axis=0)]
        return max(opts, key=lambda o: o[0] + (1e-12 if o[1].action == "stand" else 0.0))[1]

    def _compute_std(
        self,
        up: int,
        cards: tuple[int, ...],
        legal: tuple[str, ...],
        split_hand: bool,
        bob_alive: bool,
    ) -> Decision:
        s = self._stdsolver(up)
        assert self._std_table is not None
        if len(cards) == 2 and not split_hand:
            a, b = sorted(cards)
            dec = self._std_table.get(("std-initial", up, a, b))
            if dec == SPLIT and "split" in legal:
                return Decision("split")
            if dec == SURRENDER and "surrender" in legal:
                return Decision("surrender")
            if dec in (DOUBLE, DOUBLE_MAX) and "double" in legal:
                times = self.rules.double_times
                return Decision("double", min(times) if dec == DOUBLE else max(times))
            if dec == STAND and self.rules.decks and "stand" in legal:
                return Decision("stand")
        pair = len(cards) == 2 and cards[0] == cards[1]
        if pair and split_hand and "split" in legal and s.resplits(cards[0], bob_alive):
            return Decision("split")
        hard, ace = sum(cards), 1 in cards
        s.hand(hard, ace, bob_alive)
        dec = self._std_table.get(("std-hand", up, hard, ace, bob_alive))
        if dec is None:
            rec: dict[tuple[Any, ...], Any] = {}
            StdSolver(self.rules, remove(self.rules.shoe.counts(), up), up, None, rec).hand(
                hard, ace, bob_alive
            )
            dec = rec.get(("std-hand", up, hard, ace, bob_alive), STAND)
        if dec in (DOUBLE, DOUBLE_MAX) and "double" in legal:
            k = min(self.rules.double_times) if dec == DOUBLE else max(self.rules.double_times)
            return Decision("double", k)
        return Decision("stand" if "stand" in legal else legal[0])

    # -- the printed table -----------------------------------------------------------
    def cell(self, up: int, cards: tuple[int, ...], **kw: Any) -> str:
        """Table letter for a two-card start: S H D(h/s) P R(h/s/p) D4, H/S after."""
        legal = ["stand", "double", "split", "surrender"]
        if self.rules.hitting:
            legal.append("hit")
        if cards[0] != cards[1] and not (not self.rules.hitting and self.rules.split_any_initial):
            legal.remove("split")
        if not self.rules.late_surrender:
            legal.remove("surrender")
        first = self.decide(up, cards, legal, **kw)
        letter = {"stand": "S", "hit": "H", "split": "P", "surrender": "R", "double": "D"}[
            first.action
        ]
        if first.action == "double" and first.times > 1:
            letter = f"D{first.times}"
        if first.action in ("double", "surrender") or (
            first.action == "split" and self.rules.hitting
        ):
            rest = [x for x in legal if x not in (first.action,) and x != "split"]
            if first.action != "double":
                rest = [x for x in rest if x != "double"] or rest
            second = self.decide(up, cards, rest, **kw)
            letter += {"stand": "s", "hit": "h", "double": "d", "surrender": "r"}.get(
                second.action, ""
            )
        return letter


def _lane(v: Any, lane: int | None) -> float:
    if isinstance(v, np.ndarray):
        return float(v[lane if lane is not None else 0]) if v.shape else float(v)
    return float(v)


@lru_cache(maxsize=32)
def _cached(rules: GameRules) -> Any:
    if rules.hitting and not rules.shoe.infinite:
        from firmware.math.strategy.card_removal import RemovalStrategy

        return RemovalStrategy(rules)
    return Strategy(rules)


def strategy_for(rules: Any) -> Any:
    """The :class:`Strategy` of ``rules`` (engine ``Rules`` or ``GameRules``), cached.

    A hitting game's decisions do not depend on what a Blackjack pays (it is no
    decision: the strategy never insures), so rule sets that differ only there share
    one solve (a PAR sheet's paytables)."""
    from fractions import Fraction

    from firmware.math.ruleset import as_game_rules

    r = as_game_rules(rules)
    if r.hitting and not r.shoe.infinite:
        r = r.with_(blackjack_pays=Fraction(3, 2))
    return _cached(r)


__all__ = ["ACTION_NAMES", "HIT", "Decision", "Strategy", "strategy_for", "values_of"]
