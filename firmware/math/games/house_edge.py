"""The return of a game by calculation: every wager's expected value and the house edge.

One entry point, :func:`analyse`, for every variant: it solves the total-dependent
strategy (or takes the one given) and values it over every start of the round with exact
three-card weights (:mod:`firmware.math.games.hitting.round_value`,
:mod:`firmware.math.games.split_to_double.hand_values`).

Definitions (per round, one seat):

* ``house_edge``: expected loss per unit of the initial Blackjack wager, counting every
  wager the game requires (Blackjack or Bust in Split to Double, the Bingo activator).
* ``house_edge_total``: the same loss per unit of everything those required wagers put at
  stake at the start of the round (Blackjack wager + Blackjack or Bust, or + activator).
* Optional wagers (insurance, Push 22) are reported on their own, each per unit of its
  own stake, and are not in the two figures above.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from firmware.math.composition import initial_deals, probabilities, remove
from firmware.math.games.hitting.round_value import Table, game_value, lane_pairs, solve_strategy
from firmware.math.games.split_to_double.hand_values import (
    StdSolver,
    std_deal_value,
    std_solve_strategy,
)
from firmware.math.ruleset import GameRules
from firmware.math.wagers import BUST_PAYTABLE, PAIRED_STAKE, dealer_total_wagers, wager_key

METHOD = (
    "combinatorial analysis (infinite deck): exact weights of the player's two cards and "
    "the dealer's up card; exact dealer final-total law; every draw with the probabilities "
    "of one full deck, so nothing depends on the cards already dealt; split hands valued "
    "independently (exact without card removal); total-dependent basic strategy"
)
METHOD_REMOVAL = (
    "composition-dependent calculation, every card removed: exact weights of the player's "
    "two cards and the dealer's up card; every card the player draws comes from the shoe "
    "less every card seen in the round, and every hand's dealer law is the exact law of the "
    "shoe as that hand leaves it (one law per hand composition, float64); split hands "
    "played in the engine's order, valued exactly (later hands' cards and earlier hands' "
    "draws do not change a hand's value but through the pair cards; docs/math.md); the "
    "strategy of the automatic players (total-dependent basic strategy of the deck count, "
    "the player's own cards out of the shoe, two-card exceptions where they pay)"
)


@dataclass
class Analysis:
    rules: GameRules
    #: expected net of each wager per unit of the initial Blackjack wager
    wagers: dict[str, float]
    #: what each required wager puts at stake at the start, per unit of the Blackjack wager
    stakes: dict[str, float]
    #: optional wagers: expected net per unit of their own stake
    optional: dict[str, float] = field(default_factory=dict)
    #: Bingo: main wager value per (target, multiplier)
    by_lane: dict[tuple[int, int], float] | None = None
    p_dealer_22: float = 0.0
    #: further figures a lab needs (Spanish 21 super and envy bonus), named
    figures: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    method: str = METHOD

    @property
    def net(self) -> float:
        return sum(self.wagers.values())

    @property
    def house_edge(self) -> float:
        return -self.net

    @property
    def house_edge_total(self) -> float:
        return -self.net / sum(self.stakes.values())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variant": self.rules.variant,
            "house_edge": self.house_edge,
            "house_edge_total": self.house_edge_total,
            "return_to_player": 1 - self.house_edge_total,
            "wagers": self.wagers,
            "stakes": self.stakes,
            "optional_wagers": self.optional,
            "method": self.method,
            "figures": self.figures,
            "rules": self.rules.to_json(),
            "rules_hash": self.rules.rules_hash,
            "seconds": round(self.seconds, 3),
        }
        if self.by_lane is not None:
            out["bingo_by_target_multiplier"] = {
                f"{t}x{m}": v for (t, m), v in self.by_lane.items()
            }
        return out


def solve(rules: GameRules) -> Table:
    """The total-dependent strategy table of ``rules``."""
    if not rules.hitting:
        return std_solve_strategy(rules)
    return solve_strategy(rules)


def analyse(rules: GameRules, table: Table | None = None) -> Analysis:
    """Every wager's return for ``rules`` (with its own strategy: cached in memory)."""
    if table is None:
        return _analyse_cached(rules)
    return _analyse(rules, table)


@lru_cache(maxsize=16)
def _analyse_cached(rules: GameRules) -> Analysis:
    return _analyse(rules, None)


def _analyse(rules: GameRules, table: Table | None) -> Analysis:
    t0 = time.perf_counter()
    if table is None and rules.hitting and not rules.shoe.infinite:
        res = _analyse_removal(rules)
        res.seconds = time.perf_counter() - t0
        return res
    if table is None:
        table = solve(rules)
    if not rules.hitting:
        res = _analyse_std(rules, table)
    else:
        gv = game_value(rules, table)
        wagers = {"blackjack": gv.main}
        stakes = {"blackjack": 1.0}
        if rules.bingo:
            paired = wager_key(rules, PAIRED_STAKE)
            wagers[paired] = gv.activator
            stakes[paired] = float(rules.activator)
        optional: dict[str, float] = {"insurance": insurance_edge(rules)}
        if gv.insurance:
            wagers["insurance"] = gv.insurance
        for w, odds in dealer_total_wagers(rules):
            optional[w.key] = w.value(odds, gv.p_dealer_22)
        by_lane = None
        if gv.by_lane is not None:
            by_lane = {
                tm: float(v) for tm, v in zip(lane_pairs(), np.asarray(gv.by_lane), strict=False)
            }
        res = Analysis(rules, wagers, stakes, optional, by_lane, gv.p_dealer_22)
        b = rules.spanish_bonuses
        if b is not None and b.super_bonus_units:
            from dataclasses import replace

            # The return is linear in the super bonus for a fixed strategy: value the same
            # table with half the bonus; the difference is half the bonus times its
            # probability (re-solving without the bonus would change the strategy too).
            half = rules.with_(
                spanish_bonuses=replace(b, super_bonus_units=b.super_bonus_units / 2))
            # (only the starts against a 7 pay it)
            sevens = game_value(rules, table, only_up=7).main
            p_super = 2 * (sevens - game_value(half, table, only_up=7).main) / float(
                b.super_bonus_units)
            contrib = p_super * float(b.super_bonus_units)
            res.figures["super_bonus_contribution"] = contrib
            res.figures["p_super_bonus_per_round"] = p_super
            res.figures["reference_wager_cents"] = float(rules.reference_wager)
            res.figures["envy_per_other_seat_per_round"] = (
                p_super * rules.envy_cents / rules.reference_wager)
    res.seconds = time.perf_counter() - t0
    return res


def _analyse_removal(rules: GameRules) -> Analysis:
    """A hitting game at a finite deck count: the exact card-removal calculation of the
    automatic players' strategy (:mod:`firmware.math.games.hitting.card_removal_return`)."""
    from firmware.math.games.hitting.card_removal_return import evaluate
    from firmware.math.hands.up_card import lane_weights
    from firmware.math.strategy.basic import strategy_for
    from firmware.math.strategy.dense_tables import build_tables

    s = strategy_for(rules)
    tables = build_tables(rules)
    g = evaluate(rules, tables, s.solved)
    lane_w = lane_weights(rules)
    wagers = {"blackjack": float(lane_w @ g.main)}
    stakes = {"blackjack": 1.0}
    if rules.bingo:
        paired = wager_key(rules, PAIRED_STAKE)
        wagers[paired] = -float(rules.activator)
        stakes[paired] = float(rules.activator)
    optional = {"insurance": float(g.insurance_edge)}
    for w, odds in dealer_total_wagers(rules):
        optional[w.key] = w.value(odds, g.p_dealer_22)
    by_lane = None
    if rules.bingo:
        by_lane = {tm: float(v) for tm, v in zip(lane_pairs(), g.main, strict=True)}
    res = Analysis(rules, wagers, stakes, optional, by_lane, g.p_dealer_22,
                   method=METHOD_REMOVAL)
    b = rules.spanish_bonuses
    if b is not None and b.super_bonus_units:
        from dataclasses import replace

        # the return is linear in the super bonus for a fixed strategy: the same tables
        # valued with half the bonus (only the rounds with a 7 up pay it)
        half = rules.with_(spanish_bonuses=replace(b, super_bonus_units=b.super_bonus_units / 2))
        sevens = float(lane_w @ g.by_up[7])
        p_super = 2 * (sevens - float(lane_w @ evaluate(half, tables, ups=(7,)).main)) / float(
            b.super_bonus_units)
        res.figures["super_bonus_contribution"] = p_super * float(b.super_bonus_units)
        res.figures["p_super_bonus_per_round"] = p_super
        res.figures["reference_wager_cents"] = float(rules.reference_wager)
        res.figures["envy_per_other_seat_per_round"] = (
            p_super * rules.envy_cents / rules.reference_wager)
    return res


def bingo_plain_return(rules: GameRules) -> float:
    """Bingo's return to a player who ignores the draw: the basic strategy of the same
    game without the target and multiplier, played whatever they are (the PAR sheet
    states it beside the adaptive player's return, which the house edge assumes)."""
    from dataclasses import replace
    from fractions import Fraction

    plain_rules = rules.with_(activator=Fraction(0), target_weights=(),
                              multiplier_weights=())
    if rules.shoe.infinite:
        plain = solve_strategy(plain_rules)
        gv = game_value(rules, plain)
        main = gv.main + gv.insurance
    else:
        from firmware.math.games.hitting.card_removal_return import evaluate
        from firmware.math.hands.up_card import lane_weights
        from firmware.math.strategy.dense_tables import build_tables

        t = build_tables(plain_rules)
        n = len(lane_pairs())
        def wide(a: np.ndarray) -> np.ndarray:
            return np.repeat(a, n, axis=0)

        t60 = replace(t, lanes=n, init=wide(t.init), init_times=wide(t.init_times),
                      split2=wide(t.split2), split2_times=wide(t.split2_times),
                      more=wide(t.more), rescue=wide(t.rescue))
        main = float(lane_weights(rules) @ evaluate(rules, t60).main)
    stake = 1.0 + float(rules.activator)
    return 1.0 + (main - float(rules.activator)) / stake


def insurance_edge(rules: GameRules) -> float:
    """The insurance wager's expected net per unit insured (it wins when the dealer's hole
    card is a ten under the ace): a ten's probability from the shoe less the player's two
    cards and the ace, averaged over the deals with an ace up (exact weights)."""
    odds = float(rules.insurance_pays)
    full = rules.shoe.counts()
    if full is None:
        p = probabilities(rules.shoe, None)[9]
        return odds * p - (1 - p)
    num = den = 0.0
    for a, b, up, w in initial_deals(rules.shoe):
        if up == 1:
            c = remove(full, a, b, up)
            assert c is not None
            p = c[9] / sum(c)
            num += float(w) * (odds * p - (1 - p))
            den += float(w)
    return num / den if den else 0.0


def _analyse_std(rules: GameRules, table: Table) -> Analysis:
    side = wager_key(rules, BUST_PAYTABLE)  # the declared side wager's name
    if not rules.shoe.infinite:
        from firmware.math.games.split_to_double.all_cards_return import (
            METHOD_STD,
            cached_std_exact_value,
        )
        from firmware.math.strategy.basic import strategy_for

        main, bob, _laws = cached_std_exact_value(rules, strategy_for(rules))
        return Analysis(
            rules,
            {"blackjack": main, side: bob},
            {"blackjack": 1.0, side: 1.0},
            {"insurance": insurance_edge(rules)},
            method=METHOD_STD,
        )
    # The infinite deck: no removal, so the hand-by-hand programme is exact.
    full = rules.shoe.counts()
    cache: dict[Any, StdSolver] = {}
    main = bob = 0.0
    for a, b, up, w in initial_deals(rules.shoe):
        counts = remove(full, a, b, up)
        s = cache.get((counts, up))
        if s is None:
            s = cache[(counts, up)] = StdSolver(rules, counts, up, table.get, None)
        m, x = std_deal_value(rules, s, a, b)
        main += float(w) * m
        bob += float(w) * x
    return Analysis(
        rules,
        {"blackjack": main, side: bob},
        {"blackjack": 1.0, side: 1.0},
        {"insurance": insurance_edge(rules)},
    )


def bingo_total_return(
    by_lane: Mapping[tuple[int, int], float],
    rules: GameRules,
    target_weights: tuple[int, ...],
    multiplier_weights: tuple[int, ...],
) -> float:
    """Return to player (fraction of the 1 + activator staked) for given weight tables."""
    from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS

    wt = np.array(target_weights, dtype=float)
    wm = np.array(multiplier_weights, dtype=float)
    ev = 0.0
    for i, t in enumerate(BINGO_TARGETS):
        for j, m in enumerate(BINGO_MULTIPLIERS):
            ev += wt[i] / wt.sum() * wm[j] / wm.sum() * by_lane[(t, m)]
    stake = 1.0 + float(rules.activator)
    return 1.0 + (ev - float(rules.activator)) / stake
