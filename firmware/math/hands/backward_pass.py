"""The backward pass over a forest: every hand's value, hard total 21 first.

Each hard total's rows are valued at once: standing from the row's own dealer law;
hitting and doubling as the average over the next card (drawn from the shoe less the
up card and every card the hand holds) of the hand it becomes, already valued since a
card raises the hard total. What the player does at a row comes from a *decider*: the
fixed strategy being evaluated (:class:`TableDecider`), or the strategy solve
(:mod:`firmware.math.strategy.card_removal_solver`), which sees each level's action values and
chooses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from firmware.math.hands.forest import Forest
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, SPLIT, STAND, SURRENDER
from firmware.math.hands.payoffs import Payoffs, rescue_value, stand_value
from firmware.math.ruleset import GameRules

#: actions of the pass, indexed by their handcalc code
ACTIONS = 6
NEG = -1e9


class Decider(Protocol):
    def decide(self, rows: np.ndarray, values: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """(n, L) action codes for ``rows`` from their (n, ACTIONS, L) values."""

    def rescue(self, rows: np.ndarray, kind: int, stand: np.ndarray, rescue: np.ndarray
               ) -> np.ndarray:
        """(n, L) True where a hand doubled by ``kind`` rescues at ``rows``."""


@dataclass
class Kinds:
    """The doubles a rule set has: (multiple, free) per kind; kind 0 is DOUBLE."""

    kinds: list[tuple[int, bool]]
    #: (R, ACTIONS) kind index of the row's DOUBLE and DOUBLE_MAX (-1: none)
    of_row: np.ndarray


def legal_mask(rules: GameRules, f: Forest) -> tuple[np.ndarray, Kinds]:
    """(R, ACTIONS) the actions the engine allows at each row (split excluded: a split is
    valued by :mod:`firmware.math.hands.split_card_removal`), and which double each is."""
    split = np.array([i.split for i in f.instances])[f.inst]
    first = np.array([i.pair for i in f.instances])[f.inst]
    one_card = split & (first == 1) & rules.split_aces_one_card
    live = (f.total < 21) & (f.nc >= 2)
    legal = np.zeros((f.rows, ACTIONS), dtype=bool)
    legal[:, STAND] = f.nc >= 2
    legal[:, HIT] = live & rules.hitting & ~one_card
    free = (f.nc == 2) & ~f.ace & np.isin(f.hard, list(rules.free_double_on))
    totals = {"any-two": None, "9-11": (9, 10, 11), "10-11": (10, 11)}[rules.double_on]
    by_total = np.ones(f.rows, dtype=bool) if totals is None else (
        (f.nc == 2) & np.isin(f.total, list(totals)))
    cards_ok = (f.nc == 2) | ((rules.double_cards == "any") & (f.nc >= 2))
    dbl = (live & ~one_card & cards_ok & (rules.double_after_split | ~split)
           & (free | by_total) & bool(rules.double_times))
    legal[:, DOUBLE] = dbl
    lo, hi = (min(rules.double_times), max(rules.double_times)) if rules.double_times else (1, 1)
    kinds = [(lo, False), (1, True)]
    of_row = np.full((f.rows, ACTIONS), -1, dtype=np.int64)
    of_row[dbl, DOUBLE] = 0
    of_row[dbl & free, DOUBLE] = 1
    if hi != lo:
        kinds.append((hi, False))
        legal[:, DOUBLE_MAX] = dbl & ~free
        of_row[dbl & ~free, DOUBLE_MAX] = 2
    legal[:, SURRENDER] = (~split & (f.nc == 2) & rules.late_surrender & rules.dealer_check
                           & (f.total < 21))
    return legal, Kinds(kinds, of_row)


@dataclass
class PassResult:
    value: np.ndarray  # (R, L) each row's value under the decisions taken
    action: np.ndarray  # (R, L) the action taken (-1: none, e.g. a 21 standing by itself)
    doubled: list[np.ndarray]  # per double kind: (R, L) value of a hand doubled into the row
    rescued: list[np.ndarray]  # per double kind: (R, L) True where that hand rescues
    options: np.ndarray | None = None  # (R, ACTIONS, L) every action's value, when kept
    legal: np.ndarray = field(default_factory=lambda: np.zeros(0))


def backward(rules: GameRules, f: Forest, pay: Payoffs, decider: Decider,
             keep_options: bool = False,
             masks: tuple[np.ndarray, Kinds] | None = None) -> PassResult:
    """Value every row of ``f`` with the decisions of ``decider``."""
    lanes = pay.win.shape[1]
    legal, kinds = masks if masks is not None else legal_mask(rules, f)
    value = np.zeros((f.rows, lanes))
    action = np.full((f.rows, lanes), -1, dtype=np.int64)
    doubled = [np.zeros((f.rows, lanes)) for _ in kinds.kinds]
    rescued = [np.zeros((f.rows, lanes), dtype=bool) for _ in kinds.kinds]
    options = np.full((f.rows, ACTIONS, lanes), NEG) if keep_options else None
    refund = float(rules.surrender_refund)
    any_legal: np.ndarray = np.asarray(legal.any(axis=1))
    for lo, hi in f.levels:
        sl = slice(lo, hi)
        rows = np.arange(lo, hi)
        for i, (k, free) in enumerate(kinds.kinds):
            sv = stand_value(pay, sl, k, free)
            if rules.rescue:
                rv = np.broadcast_to(rescue_value(pay, sl), sv.shape)
                take = decider.rescue(rows, i, sv, rv)
                rescued[i][sl] = take
                sv = np.where(take, rv, sv)
            doubled[i][sl] = sv
        lg = legal[sl]
        n = hi - lo
        opts = np.full((n, ACTIONS, lanes), NEG)
        opts[:, STAND] = stand_value(pay, sl)
        ch = f.child[sl]
        ok = ch >= 0
        safe = np.where(ok, ch, 0)
        q = f.q[sl]
        stake = pay.stake[sl][:, None]
        bust = pay.bust_notbj[sl]
        if lg[:, HIT].any():
            after = np.where(ok[:, :, None], value[safe], (-stake * bust)[:, :, None])
            opts[:, HIT] = np.einsum("nv,nvl->nl", q, after)
        if lg[:, DOUBLE].any():
            for code in (DOUBLE, DOUBLE_MAX):
                kind_of = kinds.of_row[sl, code]
                for i, (k, free) in enumerate(kinds.kinds):
                    sel = kind_of == i
                    if not sel.any():
                        continue
                    lost = stake[sel] + (0.0 if free else float(k))
                    after = np.where(ok[sel][:, :, None], doubled[i][safe[sel]],
                                     (-lost * bust[sel])[:, :, None])
                    opts[sel, code] = np.einsum("nv,nvl->nl", q[sel], after)
        if lg[:, SURRENDER].any():
            opts[:, SURRENDER] = -(1.0 - refund) * pay.notbj[sl][:, None]
        opts = np.where(lg[:, :, None], opts, NEG)
        if options is not None:
            options[sl] = opts
        act = decider.decide(rows, opts, lg)
        decided = any_legal[sl]
        act = np.where(decided[:, None], act, -1)
        # a hand that reached 21 (or a split ace given its one card) stands by itself
        auto = decided & (lg.sum(axis=1) == 1)
        act[auto] = STAND
        action[sl] = act
        value[sl] = np.where(act >= 0, np.take_along_axis(
            opts, np.maximum(act, 0)[:, None, :], axis=1)[:, 0, :], 0.0)
    return PassResult(value, action, doubled, rescued, options, legal)


class TableDecider:
    """A fixed strategy: an action per row (and rescue flags per double kind)."""

    def __init__(self, action: np.ndarray, rescue: list[np.ndarray] | None = None) -> None:
        self.action, self.resc = action, rescue

    def decide(self, rows: np.ndarray, values: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return self.action[rows]

    def rescue(self, rows: np.ndarray, kind: int, stand: np.ndarray, rescue: np.ndarray
               ) -> np.ndarray:
        if self.resc is None:
            return np.zeros(stand.shape, dtype=bool)
        return self.resc[kind][rows]


def best(values: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """(n, L) the best legal action of each row and lane (standing wins a tie)."""
    v = np.where(legal[:, :, None], values, NEG)
    v[:, STAND] += 1e-12
    return np.argmax(v, axis=1)


def add_rows(target: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``target[rows] += values`` with repeated rows added up (``np.add.at``, by a
    bincount over the rows touched: many times faster for wide rows)."""
    if len(rows) == 0:
        return
    lo, hi = int(rows.min()), int(rows.max()) + 1
    width = int(np.prod(target.shape[1:], dtype=np.int64))
    flat = (rows - lo)[:, None] * width + np.arange(width)[None, :]
    got = np.bincount(flat.ravel(), weights=values.reshape(len(rows), width).ravel(),
                      minlength=(hi - lo) * width)
    target[lo:hi] += got.reshape((hi - lo, *target.shape[1:]))


__all__ = ["ACTIONS", "SPLIT", "Decider", "PassResult", "TableDecider", "backward", "best",
           "legal_mask"]

