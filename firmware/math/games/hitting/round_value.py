"""Expected return of a whole round, by combinatorial analysis over the first three cards.

For every (player card a <= b, dealer up card u), with its exact probability, the
composition left is exact; the dealer's law is computed exactly from it (one card at a
time, :mod:`firmware.math.dealer.final_total`) and the player's further cards are drawn from it
(cards the player draws later are not removed again: the approximation of
:mod:`firmware.math.hands.split_value`, measured in the tests). Summing over the 550 starts gives
the return of a strategy; :func:`solve_strategy` makes the total-dependent strategy from the
shoe less the up card only, so that a decision depends on the hand's total (and, where
the game pays for it, its card count and 6-7-8 / 7-7-7 makeup), never on which cards
made it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from firmware.math.composition import Shoe, initial_deals, probabilities, remove
from firmware.math.dealer.final_total import I22, IBUST, blackjack_probability, dealer_distribution
from firmware.math.hands.hand_value import (
    MIXED_77,
    SPLIT,
    STAND,
    SUITED_77,
    SURRENDER,
    HandCtx,
    HandSolver,
    Value,
    total_of,
)
from firmware.math.hands.split_value import hand_start_tag, resplit_choice, split_value
from firmware.math.progress import each_up_card, stage
from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules

Table = dict[tuple[Any, ...], Any]


def bingo_lanes(rules: GameRules) -> tuple[int, list[Value]]:
    """Lanes (target, multiplier) and the main wager's win odds by final total."""
    if not rules.bingo:
        return 1, [1.0] * 22
    pairs = [(t, m) for t in BINGO_TARGETS for m in BINGO_MULTIPLIERS]
    lanes = len(pairs)
    wf = []
    for total in range(22):
        wf.append(np.array([float(m) if t == total else 1.0 for t, m in pairs]))
    return lanes, wf


def lane_pairs() -> list[tuple[int, int]]:
    return [(t, m) for t in BINGO_TARGETS for m in BINGO_MULTIPLIERS]


def spanish_suit_factors(rules: GameRules, up: int) -> tuple[float, float]:
    """Expected odds of a 3-card 6-7-8 and 7-7-7 21, over the suits the cards may have.

    Suits of cards of different ranks are independent and uniform in a fresh shoe; three
    7s are drawn without replacement from the 7s left (one fewer when the dealer shows a
    7, of a uniformly random suit). The super bonus is added for suited 7-7-7 against 7 up.
    """
    b = rules.spanish_bonuses
    if b is None:
        return 1.0, 1.0
    same = 1 / 16
    spade = 1 / 64
    f678 = float(b.spades_678) * spade + float(b.suited_678) * (same - spade)
    f678 += float(b.mixed_678) * (1 - same)
    d = rules.decks
    if d == 0:
        s_any, s_sp = 1 / 16, 1 / 64
    else:
        per_suit = [d] * 4
        if up == 7:
            # the up 7's suit is uniform: average over it
            s_any = 0.0
            s_sp = 0.0
            for up_suit in range(4):
                c = [d - (1 if s == up_suit else 0) for s in range(4)]
                n = sum(c)
                den = n * (n - 1) * (n - 2)
                probs = [ci * (ci - 1) * (ci - 2) / den for ci in c]
                s_any += sum(probs) / 4
                s_sp += probs[0] / 4
        else:
            n = sum(per_suit)
            den = n * (n - 1) * (n - 2)
            s_sp = d * (d - 1) * (d - 2) / den
            s_any = 4 * s_sp
    f777 = float(b.spades_777) * s_sp + float(b.suited_777) * (s_any - s_sp)
    f777 += float(b.mixed_777) * (1 - s_any)
    if up == 7:
        f777 += float(b.super_bonus_units) * s_any
    return f678, f777


def super_bonus_live(rules: GameRules, up: int) -> bool:
    """Whether a two-card 7-7's suits matter to the strategy (§ 635a.12(c))."""
    b = rules.spanish_bonuses
    return b is not None and up == 7 and b.super_bonus_units > 0


def spanish_sevens(rules: GameRules) -> tuple[float, float, float]:
    """Against a 7 up: P(two 7s are suited), and the expected 7-7-7 odds after a suited
    and after a mixed 7-7 (exact suit counts: the up 7's suit uniform, cards without
    replacement; the super bonus pays on any suited 7-7-7 against a 7)."""
    b = rules.spanish_bonuses
    assert b is not None
    d = rules.decks
    if d == 0:
        p_same, p_third = 1 / 4, 1 / 4
        suited = p_third * (float(b.spades_777) / 4 + float(b.suited_777) * 3 / 4
                            + float(b.super_bonus_units)) + (1 - p_third) * float(b.mixed_777)
        return p_same, suited, float(b.mixed_777)
    pair_w = 0.0
    pair_same = 0.0
    odds_sum = 0.0
    for up_suit in range(4):
        c = [d - (1 if s == up_suit else 0) for s in range(4)]
        n = sum(c)
        for s in range(4):
            w = c[s] * (c[s] - 1) / (n * (n - 1))
            third = (c[s] - 2) / (n - 2)
            odds = float(b.spades_777 if s == 0 else b.suited_777) + float(b.super_bonus_units)
            pair_same += w
            odds_sum += w * (third * odds + (1 - third) * float(b.mixed_777))
        pair_w += 1.0
    if pair_same == 0:  # one deck: no two 7s of a suit left beside a 7 up
        return 0.0, float(b.mixed_777), float(b.mixed_777)
    return pair_same / pair_w, odds_sum / pair_same, float(b.mixed_777)


@dataclass
class Situation:
    """One composition's solver and the round-level quantities around it."""

    solver: HandSolver
    p_dealer_bj: float
    dealer: tuple[float, ...]


def make_situation(
    rules: GameRules,
    counts: tuple[int, ...] | None,
    up: int,
    policy: Callable[[tuple[Any, ...]], Any] | None,
    record: Table | None,
) -> Situation:
    shoe = rules.shoe
    lanes, wf = bingo_lanes(rules)
    q = probabilities(shoe, counts)
    d = dealer_distribution(shoe, counts, up, rules.dealer_hits_soft_17)
    pbj = blackjack_probability(shoe, counts, up) if rules.dealer_check else 0.0
    hs = HandSolver(
        rules,
        q,
        d,
        up,
        wf,
        suit_factors=spanish_suit_factors(rules, up),
        suited_777=spanish_sevens(rules)[1:] if super_bonus_live(rules, up) else (1.0, 1.0),
        policy=policy,
        record=record,
        lanes=lanes,
    )
    return Situation(hs, float(pbj), tuple(float(x) for x in d))


def initial_options(
    sit: Situation, a: int, b: int, tag: Any = "auto"
) -> list[tuple[int, Value]]:
    """Decisions open to the initial two-card hand (no Blackjack), with values."""
    hs = sit.solver
    r = hs.r
    hard, ace = a + b, a == 1 or b == 1
    if tag == "auto":
        tag = hand_start_tag(hs, (a, b))
    opts: list[tuple[int, Value]] = [(STAND, hs.value(hard, ace, 2, tag, HandCtx()))]
    if a == b and r.max_hands >= 2:
        opts.append((SPLIT, split_value(hs, a)))
    if r.late_surrender:
        opts.append((SURRENDER, -(1.0 - float(r.surrender_refund))))
    return opts


def initial_key(up: int, a: int, b: int, hs: HandSolver, tag: Any = "auto") -> tuple[Any, ...]:
    if tag == "auto":
        tag = hand_start_tag(hs, (a, b))
    return ("initial", up, a + b, a == 1 or b == 1, a if a == b else 0, tag)


def suited_sevens_value(rules: GameRules, sit: Situation, up: int) -> Value:
    """A 7-7 against a 7 while the super bonus is live: the strategy sees the suits, so
    the start is valued as suited or mixed with their probabilities."""
    hs = sit.solver
    p_same = spanish_sevens(rules)[0]
    total: Value = 0.0
    for tag, p in ((SUITED_77, p_same), (MIXED_77, 1 - p_same)):
        total = total + p * hs._pick(initial_options(sit, 7, 7, tag),
                                     initial_key(up, 7, 7, hs, tag))
    return total


def deal_value(
    rules: GameRules, sit: Situation, a: int, b: int, up: int, insure: Any
) -> tuple[Value, Value]:
    """(main wager value, insurance value) of one start, dealer check included."""
    hs = sit.solver
    pbj = sit.p_dealer_bj
    bj_pays = float(rules.blackjack_pays)
    ins: Value = 0.0
    if up == 1 and insure:
        ins = 0.5 * (float(rules.insurance_pays) * pbj - (1 - pbj))
    if {a, b} == {1, 10}:
        on_bj = bj_pays if rules.player_blackjack_wins else 0.0
        return pbj * on_bj + (1 - pbj) * bj_pays * hs.win_factor[21], ins
    if a == b == 7 and super_bonus_live(rules, up):
        play = suited_sevens_value(rules, sit, up)
    else:
        play = hs._pick(initial_options(sit, a, b), initial_key(up, a, b, hs))
    return -pbj + (1 - pbj) * play, ins


def solve_strategy(rules: GameRules) -> Table:
    """The total-dependent basic strategy: best decisions from the shoe less the up card."""
    shoe = rules.shoe
    table: Table = {}
    full = shoe.counts()
    each_up_card(lambda up: _solve_up(rules, table, full, up))
    return table


def _solve_up(rules: GameRules, table: Table, full: tuple[int, ...] | None, up: int) -> None:
    """:func:`solve_strategy`'s entries for one up card, into ``table``."""
    counts = remove(full, up)
    # resplit choices first, by the comparison the automatic players make
    plain = make_situation(rules, counts, up, None, None).solver
    resplits: Table = {}
    if rules.max_hands > 2:
        for pair in range(1, 11):
            if pair == 1 and not rules.resplit_aces:
                continue
            for lam in (False, True) if rules.free_split else (False,):
                resplits[("resplit", up, pair, lam)] = resplit_choice(plain, pair, lam)
    table.update(resplits)
    sit = make_situation(rules, counts, up, resplits.get, table)
    for a in range(1, 11):
        for b in range(a, 11):
            if {a, b} == {1, 10}:
                continue
            hs = sit.solver
            if a == b == 7 and super_bonus_live(rules, up):
                suited_sevens_value(rules, sit, up)
                continue
            hs._pick(initial_options(sit, a, b), initial_key(up, a, b, hs))
            # Every hard and soft total, also those no two cards make, for the table.
    for hard in range(4, 21):
        for ace in (False, True):
            if ace and hard > 11:
                continue
            for nc in (2, 3):
                for ctx in _contexts(rules):
                    sit.solver.value(
                        hard, ace, nc, None, ctx
                    )
    if up == 1:
        pbj = sit.p_dealer_bj
        table[("insurance", 1)] = float(rules.insurance_pays) * pbj - (1 - pbj) > 0


def _contexts(rules: GameRules) -> list[HandCtx]:
    out = [HandCtx(), HandCtx(split=True)]
    if rules.free_split:
        out.append(HandCtx(split=True, lammer=True))
    return out


@dataclass
class GameValue:
    main: float
    insurance: float
    activator: float
    by_lane: Any = None  # Bingo: main value per (target, multiplier) lane
    p_dealer_22: float = 0.0


def game_value(rules: GameRules, table: Table, only_up: int | None = None) -> GameValue:
    """Return of the strategy ``table`` over every start (exact three-card weights);
    ``only_up``: the part of it from the starts with that up card."""
    shoe = rules.shoe
    policy = table.get
    lanes, _ = bingo_lanes(rules)
    main: Value = np.zeros(lanes) if lanes > 1 else 0.0
    ins = 0.0
    p22 = 0.0
    insure = table.get(("insurance", 1), False)
    cache: dict[tuple[Any, ...], Situation] = {}
    full = shoe.counts()
    deals = [d for d in initial_deals(shoe) if only_up is None or d[2] == only_up]
    with stage(len(deals), "starts", "return") as advance:
        for a, b, up, w in deals:
            counts = remove(full, a, b, up)
            key = (counts, up) if counts is not None else (None, up)
            sit = cache.get(key)
            if sit is None:
                sit = make_situation(rules, counts, up, policy, None)
                cache[key] = sit
            m, i = deal_value(rules, sit, a, b, up, insure)
            fw = float(w)
            main = main + fw * m
            ins += fw * float(i)
            p22 += fw * (1 - sit.p_dealer_bj) * sit.dealer[I22]
            advance(1)
    by_lane = None
    total_main: float
    if lanes > 1:
        by_lane = main
        wt = np.array(rules.target_weights or [1] * 10, dtype=float)
        wm = np.array(rules.multiplier_weights or [1] * 6, dtype=float)
        lane_w = (wt[:, None] / wt.sum() * (wm[None, :] / wm.sum())).ravel()
        total_main = float(np.dot(lane_w, main))
    else:
        total_main = float(main)
    return GameValue(total_main, ins, -float(rules.activator), by_lane, p22)


def dealer_bust(d: tuple[float, ...]) -> float:
    return d[I22] + d[IBUST]


__all__ = ["Fraction", "Shoe", "game_value", "solve_strategy", "total_of"]
