"""The strategy solve of one up card: passes until the decisions settle.

Each pass (:func:`solve_up`) values the initial hands with the decider of
:mod:`firmware.math.strategy.card_removal_solver` (decisions by total, weighted by the reach of the
last pass's strategy), plays the split hands with those decisions (:func:`play`: only the
hands they reach, laws where a hand stands), values every pair's split exactly
(:mod:`firmware.math.hands.split_card_removal`) and decides the splits and resplits by value. When
the decisions of a pass are those of the one before, the strategy is settled; the
resplit hands (more pair cards out) are then played too, so that the evaluation reads
every split exactly.

Apart from :mod:`~firmware.math.strategy.card_removal_solver` for the size cap of a
module, not by job: read the two as one (the solver holds the rankings, the decider and
the result types; this module the passes that use them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.hands.backward_pass import ACTIONS, NEG, PassResult, TableDecider, backward, best
from firmware.math.hands.forest import Instance
from firmware.math.hands.hand_value import HIT, SPLIT, STAND
from firmware.math.hands.split_card_removal import split_value
from firmware.math.hands.up_card import (
    UpCard,
    forward,
    hand_table,
    lane_weights,
    split_instances,
    up_card,
)
from firmware.math.ruleset import GameRules
from firmware.math.strategy.card_removal_solver import (
    PASSES,
    Ranking,
    Solver,
    UpStrategy,
    start_weights,
)


@dataclass
class Solved:
    """One up card's solve: its decisions and the forests they were played on."""

    strategy: UpStrategy
    #: (forest, pass) pairs: the initial hand (and Free Bet lammers), the split hands
    work: list[tuple[UpCard, PassResult]]


def solve_up(rules: GameRules, up: int) -> Solved:
    """The strategy against ``up`` (:class:`Solved`)."""
    full = rules.shoe.counts()
    assert full is not None
    c0 = list(full)
    c0[up - 1] -= 1
    lanes = len(lane_weights(rules))
    pairs = [p for p in range(1, 11) if c0[p - 1] >= 2 and rules.max_hands >= 2]
    lammers = [p for p in pairs if rules.free_split and p not in rules.real_split_values]
    # the hands the decisions are weighted over: the initial hand and, in Free Bet, a
    # lammer split hand; every law of theirs is computed
    uc0 = up_card(rules, up, (Instance(), *[Instance(p, 0, True) for p in lammers]))
    uc0.ensure(np.ones(uc0.forest.rows, dtype=bool))
    # real split hands: played with those decisions, laws where their play needs them
    ucs = up_card(rules, up, tuple(Instance(p, 0, False) for p in pairs)) if pairs else None
    w, p_up = start_weights(rules, up)
    f = uc0.forest
    # first weights: the textbook strategy's hit-or-stand (stiff hands stand against a
    # 2-6, hit below 17 against a 7-A; soft below 18 hits), every pair split
    stiff = 12 if 2 <= up <= 6 else 17
    plain = np.where(((~f.ace | (f.total > 11)) & (f.total < stiff))
                     | (f.ace & (f.hard <= 11) & (f.total < 18)), HIT, STAND)
    res0 = PassResult(np.zeros((f.rows, lanes)), np.repeat(plain[:, None], lanes, 1), [], [])
    split_now = {p: np.ones(lanes, dtype=bool) for p in range(1, 11)}
    prev: Any = None
    strat = UpStrategy(up)
    work: list[tuple[UpCard, PassResult]] = []
    for n in range(PASSES):
        pi, pi_dbl = forward(rules, uc0, res0, _roots(rules, uc0, w, split_now))
        solver = Solver(rules, uc0, w, p_up, pi, pi_dbl)
        res_n = backward(rules, f, uc0.pay, solver, masks=uc0.masks())
        sig = _signature(solver.out)
        strat.passes = n + 1
        if sig == prev:
            # the decisions of the last pass again: its splits (valued with the same
            # decisions) and everything else stand
            break
        prev, strat, res0 = sig, solver.out, res_n
        strat.passes = n + 1
        work = [(uc0, res0)] + ([play(rules, ucs, strat)] if ucs is not None else [])
        split_now = _splits(rules, work, strat, lanes)
    # resplits valued exactly: the split hands with more pair cards out of the shoe
    extra = []
    for p in pairs:
        may = rules.max_hands > 2 and (p != 1 or rules.resplit_aces)
        again = any(bool(np.any(v)) for (q, _), v in strat.resplit.items() if q == p)
        if may and again and bool(np.any(split_now.get(p, False))):
            extra += [i for i in split_instances(rules, p, c0[p - 1], True) if i.extra > 0]
    if extra:
        work.append(play(rules, up_card(rules, up, tuple(extra)), strat))
        _splits(rules, work, strat, lanes)
    return Solved(strat, work)


def play(rules: GameRules, uc: UpCard, strat: UpStrategy) -> tuple[UpCard, PassResult]:
    """A forest of split hands played by the solved decisions: only the hands those
    decisions can reach are kept and valued (laws where a hand stands)."""
    from firmware.math.hands.up_card import reach

    act, resc = actions_of(rules, uc, strat)
    f = uc.forest
    firsts = np.repeat(np.where((f.nc == 1)[:, None], 1.0, 0.0), uc.lanes, axis=1)
    need, seen = reach(rules, uc, act, firsts)
    uc.ensure(need)
    keep = seen | (f.nc == 1)
    sub = uc.pruned(keep)
    rows = np.nonzero(keep)[0]
    res = backward(rules, sub.forest, sub.pay, TableDecider(act[rows], [r[rows] for r in resc]),
                   masks=sub.masks())
    return sub, res


def actions_of(rules: GameRules, uc: UpCard, strat: UpStrategy
               ) -> tuple[np.ndarray, list[np.ndarray]]:
    """(R, L) the solved decision at every row of ``uc`` (the best legal action of its
    ranking), and the rescue flags per double kind."""
    f = uc.forest
    legal, kinds = uc.masks()
    lam = np.array([i.lammer for i in f.instances])[f.inst]
    lo = np.argmax(f.comp > 0, axis=1) + 1
    hi = 10 - np.argmax(f.comp[:, ::-1] > 0, axis=1)
    ncap_ = np.minimum(f.nc, 7 if rules.spanish_bonuses is not None else 3)
    ace = f.ace.astype(np.int64)
    chosen = (f.nc >= 2) & (legal.sum(axis=1) > 1)
    # one integer per ranking: 1 (two cards, by cards), 2 (lammer, two cards, by total),
    # 3 (three cards or more, by total and count)
    code = np.where((f.nc == 2) & ~lam, 1_000_000 + lo * 100 + hi,
                    np.where(f.nc == 2, 2_000_000 + f.hard * 10 + ace,
                             3_000_000 + ((f.hard * 2 + ace) * 8 + ncap_) * 2 + lam))
    act = np.full((f.rows, uc.lanes), -1, dtype=np.int64)
    rows = np.nonzero(chosen)[0]
    if len(rows):
        uniq, inv = np.unique(code[rows], return_inverse=True)
        stack = np.stack([_without_split(_ranking_of(strat, int(c))) for c in uniq])
        act[rows] = best(stack[inv], legal[rows])
    act[legal.sum(axis=1) == 1] = STAND
    resc = []
    flags = np.zeros((f.rows, uc.lanes), dtype=bool)
    if rules.rescue and strat.rescue:
        rc = (f.hard * 2 + ace) * 2 + lam
        uniq, inv = np.unique(rc, return_inverse=True)
        zero = np.zeros(uc.lanes, dtype=bool)
        stack = np.stack([np.broadcast_to(strat.rescue.get(
            (int(c) // 4, bool(c // 2 % 2), bool(c % 2)), zero), (uc.lanes,)) for c in uniq])
        flags = stack[inv]
    for _ in kinds.kinds:
        resc.append(flags.copy())
    return act, resc


def _ranking_of(strat: UpStrategy, code: int) -> Ranking:
    cat, rest = divmod(code, 1_000_000)
    if cat == 1:
        return strat.init[(rest // 100, rest % 100)]
    if cat == 2:
        return strat.lammer2[(rest // 10, bool(rest % 10))]
    lam, rest = rest % 2, rest // 2
    n, rest = rest % 8, rest // 8
    return strat.more[(rest // 2, bool(rest % 2), n, bool(lam))]


def _without_split(rank: Ranking) -> Ranking:
    out = rank.copy()
    out[SPLIT] = NEG
    return out


def _roots(rules: GameRules, uc: UpCard, w: dict[tuple[int, int], float],
           split_now: dict[int, np.ndarray]) -> np.ndarray:
    """(R, L) where the hands start: each two-card start by its probability (a pair that
    splits as its split hands' first cards instead)."""
    f = uc.forest
    roots = np.zeros((f.rows, uc.lanes))
    for (a, b), p in w.items():
        if {a, b} == {1, 10}:
            continue
        i = f.row(0, (a, b))
        roots[i] = p * (~split_now[a] if a == b else 1.0)
    for ins_i, ins in enumerate(f.instances):
        if not ins.split:
            continue
        p = ins.pair
        both_real = not (rules.free_split and p not in rules.real_split_values)
        hands = 1.0 if ins.lammer or not both_real else 2.0
        roots[f.row(ins_i, (p,))] = w.get((p, p), 0.0) * split_now[p] * hands
    return roots


def _splits(rules: GameRules, work: list[tuple[UpCard, PassResult]], strat: UpStrategy,
            lanes: int) -> dict[int, np.ndarray]:
    """Each pair's split value (resplits decided by value) into the init rankings; which
    lanes split each pair."""
    out = {}
    split_ok = rules.max_hands >= 2
    for p in range(1, 11):
        rank = strat.init.get((p, p))
        if rank is None:
            continue
        if not split_ok or not any(i.pair == p and not i.lammer for uc, _ in work
                                   for i in uc.forest.instances):
            out[p] = np.zeros(lanes, dtype=bool)
            continue
        hands = hand_table([(u, r.value) for u, r in work], p)
        lams = [False, True] if (rules.free_split and p not in rules.real_split_values) \
            else [False]
        best_v = None
        best_r: dict[bool, np.ndarray] = {}
        for combo in _resplit_choices(lams, rules.max_hands > 2 and
                                      (p != 1 or rules.resplit_aces)):
            v = split_value(rules, p, hands, combo, lanes)
            if best_v is None:
                best_v, best_r = v, {k: np.asarray(x).copy() for k, x in combo.items()}
            else:
                better = v > best_v + 1e-12
                best_v = np.where(better, v, best_v)
                for k in best_r:
                    best_r[k] = np.where(better, combo[k], best_r[k])
        assert best_v is not None
        for lam in lams:
            strat.resplit[(p, lam)] = np.broadcast_to(best_r[lam], (lanes,)).copy()
        strat.init[(p, p)] = rank.copy()
        strat.init[(p, p)][SPLIT] = best_v
        nonsplit = np.max(np.where(np.arange(ACTIONS)[:, None] == SPLIT, NEG, rank), axis=0)
        out[p] = best_v > nonsplit + 1e-12
    return out


def _resplit_choices(lams: list[bool], possible: bool) -> list[dict[bool, np.ndarray]]:
    if not possible:
        return [{lam: np.zeros(1, dtype=bool) for lam in (False, True)}]
    out = []
    for real in (False, True):
        for lam in ((False, True) if len(lams) > 1 else (real,)):
            out.append({False: np.array([real]), True: np.array([lam])})
    return out


def _signature(s: UpStrategy) -> Any:
    """The decisions of a pass by total and by two cards (the splits are valued from
    them, so equal decisions mean equal splits)."""
    def dec(rank: Ranking) -> tuple[int, ...]:
        return tuple(int(x) for x in np.argmax(_without_split(rank), axis=0))

    return (tuple(sorted((k, dec(v)) for k, v in s.more.items())),
            tuple(sorted((k, dec(v)) for k, v in s.init.items())),
            tuple(sorted((k, dec(v)) for k, v in s.lammer2.items())),
            tuple(sorted((k, tuple(bool(x) for x in np.atleast_1d(v)))
                         for k, v in s.rescue.items())))

__all__ = ["Solved", "actions_of", "play", "solve_up"]
