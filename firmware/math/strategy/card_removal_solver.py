"""The basic strategy of a deck count, solved with the player's own cards out of the shoe.

For each up card the hands are valued by the backward pass of
:mod:`firmware.math.hands.backward_pass`, every card removed, and the decisions are made *by
total* (the standard total-dependent basic strategy), each weighted by how often the
hands that share the total are met:

* a two-card hard total (the hard rows of the chart) takes the action worth most over
  its two-card hands, each weighted by its deal probability; soft hands and pairs are one
  composition each, so their rows are their own (a pair not split is played as that pair:
  7-7 against a 10 stands at one deck while a hard 14 hits);
* a two-card hand whose own best action differs from its row's is an *exception* when
  following it adds at least :data:`EXCEPTION_MIN` of the initial wager per round (its
  probability times the gain): the composition-dependent exceptions worth having,
  listed on the chart and the PAR sheet;
* a hand of three or more cards takes its total's action (and, in Spanish 21, its card
  count's: the 5-, 6- and 7-card 21 bonuses), weighted by the probability of reaching
  each composition with this strategy. The weights depend on the decisions below the
  total, so the solve is repeated from the last strategy's weights until the decisions
  stop changing (two or three passes);
* a split hand's two cards are played as the chart's row for them; a Free Bet lammer has
  rows of its own (it risks nothing); a split's value is the exact one of
  :mod:`firmware.math.hands.split_card_removal`; a Spanish 21 rescue is decided by total.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from firmware.math.composition import initial_deals
from firmware.math.hands.backward_pass import ACTIONS, NEG, add_rows, best
from firmware.math.hands.hand_value import STAND
from firmware.math.hands.up_card import UpCard, lane_weights
from firmware.math.ruleset import GameRules

#: smallest gain (units of the initial wager per round) that makes a two-card hand an
#: exception to its row
EXCEPTION_MIN = 1e-5


#: most solve passes per up card
PASSES = 4


Ranking = np.ndarray  # (ACTIONS, L) value of each action (NEG: not an option)


@dataclass
class Exception_:
    """A two-card hand played against its row (composition-dependent), and its worth."""

    up: int
    cards: tuple[int, int]
    row_action: int
    action: int
    gain: float  # units of the initial wager per round


@dataclass
class UpStrategy:
    """The solved decisions against one up card, as rankings of the actions."""

    up: int
    init: dict[tuple[int, int], Ranking] = field(default_factory=dict)
    rows: dict[tuple[int, bool], Ranking] = field(default_factory=dict)  # (hard, soft) TD
    more: dict[tuple[int, bool, int, bool], Ranking] = field(default_factory=dict)
    lammer2: dict[tuple[int, bool], Ranking] = field(default_factory=dict)
    rescue: dict[tuple[int, bool, bool], np.ndarray] = field(default_factory=dict)
    resplit: dict[tuple[int, bool], np.ndarray] = field(default_factory=dict)
    exceptions: list[Exception_] = field(default_factory=list)
    #: Spanish 21's initial 7-7 against a 7 with the super bonus live: suited / mixed
    sevens: dict[bool, Ranking] = field(default_factory=dict)
    passes: int = 0


def ncap(rules: GameRules, nc: int) -> int:
    """The card count a decision of three or more cards depends on."""
    return min(nc, 7) if rules.spanish_bonuses is not None else 3


class Solver:
    """The decider of the solve passes of one up card."""

    def __init__(self, rules: GameRules, uc: UpCard, start_w: dict[tuple[int, int], float],
                 p_up: float, pi: np.ndarray, pi_dbl: list[np.ndarray]) -> None:
        self.r, self.uc, self.f = rules, uc, uc.forest
        self.w, self.p_up = start_w, p_up
        self.pi, self.pi_dbl = pi, pi_dbl
        f = self.f
        self.lam = np.array([i.lammer for i in f.instances])[f.inst]
        self.lo = np.argmax(f.comp > 0, axis=1) + 1
        self.hi = 10 - np.argmax(f.comp[:, ::-1] > 0, axis=1)
        self.ncap = np.minimum(f.nc, 7) if rules.spanish_bonuses is not None else \
            np.minimum(f.nc, 3)
        self.out = UpStrategy(uc.up)
        self.lanes = uc.lanes
        self.lane_w = lane_weights(rules)

    # -- the pass's questions ---------------------------------------------------------
    def decide(self, rows: np.ndarray, values: np.ndarray, legal: np.ndarray) -> np.ndarray:
        f = self.f
        act = np.zeros((len(rows), self.lanes), dtype=np.int64)
        nc = f.nc[rows]
        lam = self.lam[rows]
        init = (nc == 2) & (f.inst[rows] == 0)
        if init.any():
            self._initial(rows[init], values[init])
        hard, ace = f.hard[rows], f.ace[rows].astype(np.int64)
        choice = legal.sum(axis=1) > 1
        real2 = (nc == 2) & ~lam & choice
        if real2.any():
            keys = [(int(a), int(b)) for a, b in zip(self.lo[rows[real2]], self.hi[rows[real2]],
                                                     strict=True)]
            ranks = np.stack([self.out.init[k] for k in keys])
            act[real2] = best(ranks, legal[real2])
        more = (nc >= 3) & choice
        if more.any():
            code = ((hard * 2 + ace) * 8 + self.ncap[rows]) * 2 + lam
            act[more] = self._by_total(rows[more], values[more], legal[more], code[more],
                                       self.out.more,
                                       lambda c: (c // 32, bool(c // 16 % 2), c // 2 % 8,
                                                  bool(c % 2)))
        lam2 = (nc == 2) & lam & choice
        if lam2.any():
            code = hard * 2 + ace
            act[lam2] = self._by_total(rows[lam2], values[lam2], legal[lam2], code[lam2],
                                       self.out.lammer2, lambda c: (c // 2, bool(c % 2)))
        return act

    def rescue(self, rows: np.ndarray, kind: int, stand: np.ndarray, rescue: np.ndarray
               ) -> np.ndarray:
        f = self.f
        code = (f.hard[rows] * 2 + f.ace[rows]) * 2 + self.lam[rows]
        uniq, inv = np.unique(code, return_inverse=True)
        if kind == 0:
            # a hand doubled into a row holds three cards or more: fewer never rescue
            gain = (rescue - stand) * (self.pi_dbl[kind][rows] + 1e-15)
            gain[f.nc[rows] < 3] = 0.0
            tot = np.zeros((len(uniq), self.lanes))
            add_rows(tot, inv, gain)
            for j, c in enumerate(uniq):
                self.out.rescue[(int(c) // 4, bool(c // 2 % 2), bool(c % 2))] = tot[j] > 0
        return np.stack([self.out.rescue[(int(c) // 4, bool(c // 2 % 2), bool(c % 2))]
                         for c in uniq])[inv]

    # -- decisions by total -------------------------------------------------------------
    def _by_total(self, rows: np.ndarray, values: np.ndarray, legal: np.ndarray,
                  code: np.ndarray, table: dict[Any, Ranking], key_of: Any) -> np.ndarray:
        """Each key's ranking: its rows' action values weighted by their reach."""
        uniq, inv = np.unique(code, return_inverse=True)
        wt = self.pi[rows] + 1e-12
        sums = np.zeros((len(uniq), ACTIONS, self.lanes))
        add_rows(sums, inv, np.where(legal[:, :, None], values, 0.0) * wt[:, None, :])
        wsum = np.zeros((len(uniq), self.lanes))
        add_rows(wsum, inv, wt)
        ok = np.zeros((len(uniq), ACTIONS))
        add_rows(ok, inv, legal.astype(float))
        ranks = np.where(ok[:, :, None] > 0, sums / wsum[:, None, :], NEG)
        for j, c in enumerate(uniq):
            table[key_of(int(c))] = ranks[j]
        return best(ranks[inv], legal)

    def _initial(self, rows: np.ndarray, values: np.ndarray) -> None:
        """The chart's two-card rows at this hard total, and the exceptions to them."""
        members: list[tuple[int, int, np.ndarray]] = []
        for k, i in enumerate(rows):
            a, b = int(self.lo[i]), int(self.hi[i])
            if {a, b} == {1, 10}:
                continue
            if a == b or a == 1:  # a pair or a soft hand: a row of its own
                self.out.init[(a, b)] = values[k].copy()
                continue
            members.append((a, b, values[k]))
        if not members:
            return
        hard = members[0][0] + members[0][1]
        wsum = sum(self.w[(a, b)] for a, b, _ in members)
        avg = sum(self.w[(a, b)] * np.where(v > NEG / 2, v, 0.0) for a, b, v in members)
        ok = np.any([v > NEG / 2 for _, _, v in members], axis=0)
        rank = np.where(ok, avg / wsum, NEG)
        self.out.rows[(hard, False)] = rank
        lanes = np.arange(self.lanes)
        row_best = _argbest(rank)
        for a, b, v in members:
            own = _argbest(v)
            gain = self.p_up * self.w[(a, b)] * (v[own, lanes] - v[row_best, lanes])
            gain = gain * self.lane_w
            if np.any(gain >= EXCEPTION_MIN):
                self.out.init[(a, b)] = v.copy()
                ln = int(np.argmax(gain))
                self.out.exceptions.append(Exception_(self.uc.up, (a, b), int(row_best[ln]),
                                                      int(own[ln]), float(gain.sum())))
            else:
                self.out.init[(a, b)] = rank.copy()


def _argbest(rank: Ranking) -> np.ndarray:
    """(L,) the best action of a ranking (standing wins a tie)."""
    return np.argmax(rank + 1e-12 * (np.arange(ACTIONS) == STAND)[:, None], axis=0)


def start_weights(rules: GameRules, up: int) -> tuple[dict[tuple[int, int], float], float]:
    """P(a, b | up) of every two-card start, and P(up)."""
    full = rules.shoe.counts()
    assert full is not None
    w: dict[tuple[int, int], float] = {}
    tot = 0.0
    for a, b, u, p in initial_deals(rules.shoe):
        if u == up:
            w[(a, b)] = float(p)
            tot += float(p)
    return {k: v / tot for k, v in w.items()}, tot

__all__ = ["EXCEPTION_MIN", "Exception_", "Solver", "UpStrategy", "ncap", "start_weights"]
