"""The automatic players' strategy for a hitting game at a finite deck count.

Solved by :mod:`firmware.math.strategy.card_removal_solver` (total-dependent basic strategy of the
deck count, the player's own cards out of the shoe, two-card exceptions where they pay) and
answered here, one decision at a time, from the solved rankings: the best *legal*
action of the hand's row. The same object feeds the fast path's tables, the engine's
auto-players and the exact evaluation (:mod:`firmware.math.games.hitting.card_removal_return`), so
all three play one strategy.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from firmware.math.games.hitting.round_value import (
    lane_pairs,
    spanish_sevens,
    spanish_suit_factors,
    super_bonus_live,
)
from firmware.math.hands.backward_pass import NEG
from firmware.math.hands.hand_value import (
    DOUBLE,
    DOUBLE_MAX,
    HIT,
    SPLIT,
    STAND,
    SURRENDER,
    total_of,
)
from firmware.math.progress import each_up_card
from firmware.math.ruleset import GameRules
from firmware.math.strategy.card_removal_solver import Exception_, UpStrategy, ncap
from firmware.math.strategy.card_removal_up_card import solve_up
from firmware.math.strategy.decision import Decision

ACTION_OF = {"stand": STAND, "hit": HIT, "split": SPLIT, "surrender": SURRENDER}


class RemovalStrategy:
    """Decisions of the basic strategy solved with card removal (one rule set)."""

    def __init__(self, rules: GameRules, ups: dict[int, UpStrategy] | None = None) -> None:
        """Solve ``rules``; or, given the ``ups`` rankings an earlier solve made, only
        answer from them (no ``solved`` work for the exact evaluation then)."""
        self.rules = rules
        self.ups: dict[int, UpStrategy] = {}
        self._lanes = {tm: i for i, tm in enumerate(lane_pairs())} if rules.bingo else {}
        self._memo: dict[tuple[Any, ...], Any] = {}
        self.solved: dict[int, Any] = {}
        if ups is not None:
            self.ups = dict(ups)
            return
        full = rules.shoe.counts()
        assert full is not None

        def solve(up: int) -> None:
            if full[up - 1]:
                got = solve_up(rules, up)
                if up == 7 and super_bonus_live(rules, 7):
                    _sevens(rules, got.strategy, got.work[0][0])
                self.ups[up] = got.strategy
                self.solved[up] = got

        each_up_card(solve)

    @property
    def exceptions(self) -> list[Exception_]:
        return [e for up in sorted(self.ups) for e in self.ups[up].exceptions]

    def insurance(self) -> bool:
        """Never: even with two non-tens out of a one-deck shoe, P(ten) = 16/49 < 1/3."""
        full = self.rules.shoe.counts()
        assert full is not None
        tens, n = full[9], sum(full) - 3  # the ace up and two cards that are not tens
        return float(self.rules.insurance_pays) * tens / n - (1 - tens / n) > 0

    def decide(self, up: int, cards: Sequence[int], legal: Collection[str], *,
               split_hand: bool = False, lammer: bool = False, split_ace: bool = False,
               after_double: bool = False, bob_alive: bool = True,
               bingo: tuple[int, int] | None = None, suited: bool | None = None) -> Any:
        if "insurance" in legal or "no-insurance" in legal:
            return Decision("insurance" if self.insurance() else "no-insurance")
        lane = self._lanes.get(bingo, 0) if bingo else 0
        key = (up, tuple(sorted(cards)), tuple(sorted(legal)), split_hand, lammer,
               after_double, lane, suited if self._sevens_matter(up, cards, split_hand)
               else None)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._answer(up, tuple(cards), legal, split_hand, lammer,
                                                 after_double, key[-1])
        return got[lane] if isinstance(got, list) else got

    def decide_lanes(self, up: int, cards: Sequence[int], legal: Collection[str], *,
                     split_hand: bool = False, lammer: bool = False, split_ace: bool = False,
                     after_double: bool = False) -> list[Any]:
        """Bingo: :meth:`decide` for every (target, multiplier) lane."""
        got = self._answer(up, tuple(cards), legal, split_hand, lammer, after_double, None)
        n = len(self._lanes) or 1
        return got if isinstance(got, list) else [got] * n

    # -- the answer -------------------------------------------------------------------
    def _sevens_matter(self, up: int, cards: Sequence[int], split_hand: bool) -> bool:
        return (not split_hand and len(cards) == 2 and cards[0] == cards[1] == 7
                and super_bonus_live(self.rules, up))

    def _answer(self, up: int, cards: tuple[int, ...], legal: Collection[str],
                split_hand: bool, lammer: bool, after_double: bool, suited: bool | None
                ) -> Any:
        s = self.ups[up]
        hard, ace = sum(cards), 1 in cards
        lanes = len(self._lanes) or 1
        if after_double:
            take = s.rescue.get((hard, ace, lammer))
            if "rescue" not in legal or take is None:
                return Decision("stand")
            return _per_lane([Decision("rescue" if t else "stand") for t in np.broadcast_to(
                take, (lanes,))])
        if total_of(hard, ace) >= 21 or (len(cards) < 2):
            return Decision("stand" if "stand" in legal else sorted(legal)[0])
        rank = self._ranking(s, cards, split_hand, lammer, suited)
        if rank is None:  # a hand the solve never met: a plain rule
            act = "hit" if "hit" in legal and total_of(hard, ace) < 17 else "stand"
            return Decision(act if act in legal else sorted(legal)[0])
        pair = len(cards) == 2 and cards[0] == cards[1]
        out = []
        lo, hi = (min(self.rules.double_times), max(self.rules.double_times)) \
            if self.rules.double_times else (1, 1)
        for ln in range(lanes):
            best: tuple[float, Any] | None = None
            for name in legal:
                if name == "double":
                    opts = [(DOUBLE, lo)] + ([(DOUBLE_MAX, hi)] if hi != lo else [])
                    for code, times in opts:
                        v = float(rank[code, ln])
                        if v > NEG / 2 and (best is None or v > best[0]):
                            best = (v, Decision("double", times))
                    continue
                if name == "split" and split_hand and pair:
                    again = s.resplit.get((cards[0], lammer))
                    if again is not None and bool(np.broadcast_to(again, (lanes,))[ln]):
                        best = (np.inf, Decision("split"))
                    continue
                code_of = ACTION_OF.get(name)
                if code_of is None:
                    continue
                v = float(rank[code_of, ln]) + (1e-12 if code_of == STAND else 0.0)
                if v > NEG / 2 and (best is None or v > best[0]):
                    best = (v, Decision(name))
            if best is None:
                best = (0.0, Decision("stand" if "stand" in legal else sorted(legal)[0]))
            out.append(best[1])
        return out[0] if lanes == 1 else _per_lane(out)

    def _ranking(self, s: UpStrategy, cards: tuple[int, ...], split_hand: bool, lammer: bool,
                 suited: bool | None) -> np.ndarray | None:
        hard, ace = sum(cards), 1 in cards
        if len(cards) == 2:
            if lammer:
                return s.lammer2.get((hard, ace))
            if suited is not None:
                return s.sevens[suited]
            rank = s.init.get((min(cards), max(cards)))
            if rank is not None and split_hand:
                rank = rank.copy()
                rank[SPLIT] = NEG
            return rank
        return s.more.get((hard, ace, ncap(self.rules, len(cards)), lammer))


def _per_lane(decisions: list[Any]) -> Any:
    return decisions[0] if len(decisions) == 1 else decisions


def _sevens(rules: GameRules, s: UpStrategy, uc: Any) -> None:
    """Spanish 21, an initial 7-7 against a 7 while the super bonus is live: suited and
    mixed pairs ranked apart, with their own 7-7-7 odds (§ 635a.12(c))."""
    f, pay = uc.forest, uc.pay
    row = f.row(0, (7, 7))
    third = f.child[row, 6]
    _, suited, mixed = spanish_sevens(rules)
    blind = spanish_suit_factors(rules, 7)[1]
    s.sevens = {}
    for flag, odds in ((True, suited), (False, mixed)):
        rank = s.init[(7, 7)].copy()
        if third >= 0 and rank[HIT, 0] > NEG / 2:
            rank[HIT] += f.q[row, 6] * pay.pw[third] * pay.plain[third] * (odds - blind)
        s.sevens[flag] = rank
