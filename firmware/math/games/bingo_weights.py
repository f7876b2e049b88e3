"""Choosing Bingo's default weight tables from the computed return (§ 633b.28(e)).

The return of Bingo Blackjack is linear in the draw probabilities: with ``R(t, m)`` the
main wager's value when target ``t`` and multiplier ``m`` are drawn (the strategy adapts
to every pair; :func:`firmware.math.games.house_edge.analyse` computes all 60), the return to
player per unit staked (Blackjack wager + 20% activator) is

    RTP = 1 + (sum_t sum_m p_t q_m R(t, m) - 0.2) / 1.2.

The rule used for the defaults (reproducible with ``etg par --variant bingo --choose-weights``):

* target weights inversely proportional to how often a target pays: with
  ``W_t = (R(t, 5) - R(t, 2)) / 3``, the main wager's gain per unit of multiplier on
  target ``t``, the weight of ``t`` is ``TARGET_SCALE * max(W) / W_t`` rounded, so every
  target adds the same to the return (a target that only a dealer bust pays, 12-16, is
  drawn more often than 20 or 21, and none dominates the game's return);
* multiplier weights proportional to ``m ** -alpha``: each step up the multiplier ladder
  is rarer in a fixed proportion, so 100x stays a rare jackpot;
* ``alpha`` is found by bisection so that the return is :data:`TARGET_RTP` (the middle of
  the 95%-99% band the baseline asks for), then the weights are scaled so that 2x weighs
  :data:`SCALE` and rounded to integers; the return of the rounded integer tables is the
  one reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from firmware.math.ruleset import BINGO_MULTIPLIERS, BINGO_TARGETS, GameRules

TARGET_RTP = 0.97
SCALE = 10_000
TARGET_SCALE = 10


@dataclass(frozen=True)
class WeightChoice:
    target_weights: tuple[int, ...]
    multiplier_weights: tuple[int, ...]
    alpha: float
    rtp: float


def total_return(by_lane: Mapping[tuple[int, int], float], rules: GameRules,
                 tw: tuple[float, ...], mw: tuple[float, ...]) -> float:
    st, sm = sum(tw), sum(mw)
    ev = sum(tw[i] / st * mw[j] / sm * by_lane[(t, m)]
             for i, t in enumerate(BINGO_TARGETS) for j, m in enumerate(BINGO_MULTIPLIERS))
    act = float(rules.activator)
    return 1.0 + (ev - act) / (1.0 + act)


def choose_weights(by_lane: Mapping[tuple[int, int], float], rules: GameRules,
                   target_rtp: float = TARGET_RTP) -> WeightChoice:
    gain = [(by_lane[(t, 5)] - by_lane[(t, 2)]) / 3 for t in BINGO_TARGETS]
    tw = tuple(max(1, round(TARGET_SCALE * max(gain) / g)) for g in gain)

    def mw_of(alpha: float) -> tuple[float, ...]:
        return tuple((m / BINGO_MULTIPLIERS[0]) ** -alpha for m in BINGO_MULTIPLIERS)

    lo, hi = 0.0, 6.0  # return falls as alpha grows
    for _ in range(100):
        mid = (lo + hi) / 2
        if total_return(by_lane, rules, tw, mw_of(mid)) > target_rtp:
            lo = mid
        else:
            hi = mid
    alpha = (lo + hi) / 2
    mw = tuple(max(1, round(SCALE * w)) for w in mw_of(alpha))
    return WeightChoice(tw, mw, alpha, total_return(by_lane, rules, tw, mw))
