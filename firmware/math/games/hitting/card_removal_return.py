"""The exact return of a hitting game's strategy: every card of the round removed.

The strategy is read from the fast path's tables (:mod:`firmware.math.strategy.dense_tables`,
filled by :meth:`Strategy.decide` with the engine's legal actions), so the figure is the
return of exactly what the automatic players and the fast-path simulation do. For each
up card, every hand the round can hold is a row of a :class:`~firmware.math.hands.forest.Forest`
valued by :func:`~firmware.math.hands.backward_pass.backward` with the dealer's exact law of the
shoe as the hand leaves it; split pairs are valued by
:func:`~firmware.math.hands.split_card_removal.split_value`. Nothing is approximated but float64.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from firmware.math.composition import initial_deals
from firmware.math.games.hitting.round_value import (
    bingo_lanes,
    spanish_sevens,
    spanish_suit_factors,
    super_bonus_live,
)
from firmware.math.hands.backward_pass import PassResult, TableDecider, backward
from firmware.math.hands.forest import Instance
from firmware.math.hands.hand_value import DOUBLE, DOUBLE_MAX, HIT, SPLIT, STAND, SURRENDER
from firmware.math.hands.payoffs import hole_value
from firmware.math.hands.split_card_removal import split_value
from firmware.math.hands.up_card import (
    UpCard,
    hand_table,
    needed,
    row_options,
    split_instances,
    up_card,
)
from firmware.math.progress import stage
from firmware.math.ruleset import GameRules
from firmware.math.strategy.dense_tables import FastTables

#: fast-path action codes -> the pass's
FAST_TO_PASS = {0: STAND, 1: HIT, 2: DOUBLE, 3: SPLIT, 4: SURRENDER}


@dataclass
class GameFigures:
    """Expected values per unit of the initial wager, joint over the whole round."""

    main: np.ndarray  # (L,) the main wager's expected net per lane
    insurance_edge: float  # the insurance wager's expected net per unit insured
    p_dealer_22: float
    by_up: dict[int, np.ndarray] = field(default_factory=dict)


def row_actions(uc: UpCard, t: FastTables) -> tuple[np.ndarray, list[np.ndarray]]:
    """(R, L) the tables' action at every row, and per double kind the rescue flags."""
    r, f, up = uc.rules, uc.forest, uc.up
    lanes = uc.lanes
    act = np.full((f.rows, lanes), -1, dtype=np.int64)
    pair = np.array([i.pair for i in f.instances])[f.inst]
    lam = np.array([i.lammer for i in f.instances])[f.inst].astype(np.int64)
    values = np.repeat(np.arange(1, 11)[None, :], f.rows, axis=0)
    two = f.nc == 2
    # the two cards' values of a two-card row: the lower and the higher
    lo_v = np.argmax(f.comp > 0, axis=1) + 1
    hi_v = 10 - np.argmax(f.comp[:, ::-1] > 0, axis=1)
    del values
    lookup = np.array([FAST_TO_PASS.get(c, STAND) for c in range(8)])

    def codes(c: np.ndarray) -> np.ndarray:
        return lookup[c]
    times_hi = max(r.double_times) if r.double_times else 1
    init = two & (pair == 0)
    if init.any():
        got = t.init[:, up, lo_v[init], hi_v[init]].T
        tim = t.init_times[:, up, lo_v[init], hi_v[init]].T
        act[init] = _with_times(codes(got), tim, times_hi)
    sp = two & (pair > 0)
    if sp.any():
        other = np.where(lo_v == pair, hi_v, lo_v)[sp]
        got = t.split2[:, up, pair[sp], other, lam[sp], 0, 1].T
        tim = t.split2_times[:, up, pair[sp], other, lam[sp], 0, 1].T
        act[sp] = _with_times(codes(got), tim, times_hi)
    more = f.nc >= 3
    if more.any():
        got = t.more[:, up, f.hard[more], f.ace[more].astype(np.int64),
                     np.minimum(f.nc[more], 7), lam[more], (pair[more] > 0).astype(np.int64)].T
        act[more] = codes(got)
    rescue = []
    for _ in range(3):
        flags = np.zeros((f.rows, lanes), dtype=bool)
        if r.rescue:
            hv = np.minimum(f.hard, 31)
            flags = (t.rescue[:, up, hv, f.ace.astype(np.int64), lam].T == 5)
        rescue.append(flags)
    return act, rescue


def _eval_roots(uc: UpCard, t: FastTables) -> np.ndarray:
    """(R, L) positive at the rows a round can start from: the two-card starts played as
    they are, the first card of every split hand."""
    f, up = uc.forest, uc.up
    roots = np.zeros((f.rows, uc.lanes))
    for i, ins in enumerate(f.instances):
        if ins.split:
            roots[f.row(i, (ins.pair,))] = 1.0
    start = (f.inst == 0) & (f.nc == 2)
    rows = np.nonzero(start)[0]
    a = np.argmax(f.comp[rows] > 0, axis=1) + 1
    b = 10 - np.argmax(f.comp[rows, ::-1] > 0, axis=1)
    played = t.init[:, up, a, b].T != 3
    roots[rows] = np.where(played, 1.0, 0.0)
    return roots


def _with_times(code: np.ndarray, times: np.ndarray, hi: int) -> np.ndarray:
    """A double of the largest multiple is the pass's DOUBLE_MAX."""
    return np.where((code == DOUBLE) & (times == hi) & (hi > 1), DOUBLE_MAX, code)


def evaluate(rules: GameRules, t: FastTables, solved: dict[int, Any] | None = None,
             ups: tuple[int, ...] = tuple(range(1, 11))) -> GameFigures:
    """The exact expected net of the main wager for the strategy in ``t``.

    ``solved``: the strategy solve's forests and passes per up card
    (:class:`~firmware.math.strategy.card_removal_solver.Solved`); a pass is reused where the
    tables' decisions are the solve's at every row (they are, the tables being filled from the
    same strategy), and played again with the tables' decisions where not.
    """
    lanes, wf = bingo_lanes(rules)
    full = rules.shoe.counts()
    if full is None:
        raise ValueError("the card-removal calculation needs a finite shoe")
    deals = initial_deals(rules.shoe)
    main = np.zeros(lanes)
    acc_side = {"ins_num": 0.0, "ins_den": 0.0, "p22": 0.0}
    by_up: dict[int, np.ndarray] = {}
    with stage(10, "up cards", "return") as advance:
        for up in range(1, 11):
            if full[up - 1] and up in ups:
                main += _up_value(rules, t, up, solved, deals, wf, lanes, by_up, acc_side)
            advance(1)
    return GameFigures(main, acc_side["ins_num"] / acc_side["ins_den"]
                       if acc_side["ins_den"] else 0.0, acc_side["p22"], by_up)


def _up_value(rules: GameRules, t: FastTables, up: int, solved: dict[int, Any] | None,
              deals: list[Any], wf: list[Any], lanes: int, by_up: dict[int, np.ndarray],
              side: dict[str, float]) -> np.ndarray:
    """The part of the main wager's value from the rounds with ``up`` up."""
    work = _work(rules, t, up, solved)
    (uc, res) = next((u, r) for u, r in work if Instance() in u.forest.instances)
    splits = {}
    for p in range(1, 11):
        if not any(i.pair == p and not i.lammer for u, _ in work
                   for i in u.forest.instances):
            continue
        lams = [False] + ([True] if rules.free_split and p not in rules.real_split_values
                          else [])
        resp = {lam: (t.split2[:, up, p, p, int(lam), 1, 1] == 3) for lam in lams}
        resp.setdefault(True, resp[False])
        splits[p] = split_value(rules, p, hand_table([(u, r.value) for u, r in work], p),
                                resp, lanes)
    acc = np.zeros(lanes)
    for a, b, u, w in deals:
        if u != up:
            continue
        fw = float(w)
        v, pbj, d22 = _start_value(rules, uc, res, t, a, b, splits, wf)
        acc += fw * v
        side["p22"] += fw * d22
        if up == 1:
            side["ins_num"] += fw * (float(rules.insurance_pays) * pbj - (1.0 - pbj))
            side["ins_den"] += fw
    by_up[up] = acc
    return acc


def _work(rules: GameRules, t: FastTables, up: int, solved: dict[int, Any] | None
          ) -> list[tuple[UpCard, PassResult]]:
    """The forests of ``up`` played with the tables' decisions."""
    full = rules.shoe.counts()
    assert full is not None
    if solved is not None and up in solved:
        forests = [uc for uc, _ in solved[up].work]
        before = [res for _, res in solved[up].work]
    else:
        c0_list = list(full)
        c0_list[up - 1] -= 1
        split_pairs = [p for p in range(1, 11) if c0_list[p - 1] >= 2 and (
            (t.init[:, up, p, p] == 3).any() or (p == up == 7 and t.suited_77 == 3))]
        instances = [Instance()]
        for p in split_pairs:
            resp = bool((t.split2[:, up, p, p, :, 1, 1] == 3).any())
            instances += split_instances(rules, p, c0_list[p - 1], resp)
        forests = [up_card(rules, up, tuple(instances))]
        before = [None]
    sevens = up == 7 and super_bonus_live(rules, 7) and full[6] >= 3
    out = []
    for uc, res in zip(forests, before, strict=True):
        act, resc = row_actions(uc, t)
        if res is None or not _same(uc, act, resc, res):
            uc.ensure(needed(rules, uc, act, _eval_roots(uc, t),
                             FAST_TO_PASS.get(t.suited_77, STAND) if sevens else None))
            res = backward(rules, uc.forest, uc.pay, TableDecider(act, resc),
                           masks=uc.masks())
        out.append((uc, res))
    return out


def _same(uc: UpCard, act: np.ndarray, resc: list[np.ndarray], res: PassResult) -> bool:
    """Whether the tables decide as the pass did wherever a decision is read (a pair the
    tables split is valued by the split, not by its row)."""
    legal, _ = uc.masks()
    read = legal.sum(axis=1) > 1
    same = (act == res.action) | ~read[:, None] | (act == SPLIT)
    if not bool(same.all()):
        return False
    return all(bool(np.array_equal(a, b)) for a, b in zip(resc, res.rescued, strict=False))


def _start_value(rules: GameRules, uc: UpCard, res: PassResult, t: FastTables, a: int,
                 b: int, splits: dict[int, np.ndarray], wf: list[Any]
                 ) -> tuple[np.ndarray, float, float]:
    """(L,) value of the start ``a, b`` against the up card, P(dealer BJ), P(dealer 22)."""
    f, up = uc.forest, uc.up
    c = f.c0.copy()
    c[a - 1] -= 1
    c[b - 1] -= 1
    hole = hole_value(up)
    pbj = c[hole - 1] / c.sum() if hole and rules.dealer_check else 0.0
    row = f.row(0, (a, b))
    if not uc.have[row]:  # a start that never stands: its law is read for Push 22 only
        uc.ensure(np.arange(f.rows) == row)
    # P(no dealer Blackjack, dealer 22) of the round: the dealer plays out while a Push 22
    # wager is on, and the player's draws are a stopping time, so the dealer's cards
    # have the law of the shoe less the three first cards (docs/math.md, section 3)
    d22 = float(uc.pay.laws[row, 5])
    if {a, b} == {1, 10}:
        bj = float(rules.blackjack_pays)
        on_bj = bj if rules.player_blackjack_wins else 0.0
        return pbj * on_bj + (1 - pbj) * bj * np.asarray(wf[21], dtype=float), pbj, d22
    v = res.value[row]
    if a == b and a in splits:
        split_lanes = t.init[:, up, a, b] == 3
        v = np.where(split_lanes, splits[a], v)
    if a == b == 7 and up == 7 and rules.spanish_bonuses is not None and \
            rules.spanish_bonuses.super_bonus_units > 0:
        v = _sevens(rules, uc, res, t, row, splits.get(7))
    return -pbj + v, pbj, d22


def _sevens(rules: GameRules, uc: UpCard, res: PassResult, t: FastTables, row: int,
            split: np.ndarray | None) -> np.ndarray:
    """An initial 7-7 against a 7 while the super bonus is live: suited and mixed pairs
    have their own decisions and 7-7-7 odds (§ 635a.12(c)); exact suit probabilities."""
    f, pay = uc.forest, uc.pay
    p_same, suited, mixed = spanish_sevens(rules)
    blind = spanish_suit_factors(rules, uc.up)[1]
    third = f.child[row, 6]
    out = np.zeros(uc.lanes)
    for share, odds, code in ((p_same, suited, t.suited_77), (1 - p_same, mixed,
                                                               int(t.init[0, 7, 7, 7]))):
        opts = row_options(uc, res, row)
        if third >= 0:
            opts[HIT] += f.q[row, 6] * pay.pw[third] * pay.plain[third] * (odds - blind)
        act = FAST_TO_PASS.get(int(code), STAND)
        v = split if act == SPLIT and split is not None else opts[act]
        out = out + share * v
    return out

__all__ = ["FAST_TO_PASS", "GameFigures", "evaluate", "row_actions"]
