"""The distribution of a split round's net result, from a simulation of split rounds.

A round without a split holds one hand, so its result's distribution is exact from the
paytable lines (:mod:`firmware.math.cdpar`, :mod:`firmware.math.stdlines`). A split
round's hands are dependent (the dealer's one total, the cards they share), and its
distribution is taken from the fast path (:mod:`firmware.math.fastpath`) playing only
those rounds: each starts with one of the starts the strategy splits, drawn with its
exact probability (suits at random), and the rounds that do split are counted (in Bingo
a start splits for some targets and multipliers only). The probability of a split round
is exact; what is simulated is the shape of its results, with a stated number of rounds
and seed, so the sheet is reproducible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from firmware.math.ruleset import GameRules

#: split rounds simulated per configuration for the PAR sheet, and the seed
SPLIT_ROUNDS = 200_000
SPLIT_SEED = 20260301


@dataclass
class SplitRounds:
    """Net result (units of the Blackjack wager, every required wager) of split rounds."""

    probability: float  # P(a round splits), exact
    counted: int = 0  # split rounds simulated
    seed: int = SPLIT_SEED
    outcomes: dict[float, float] = field(default_factory=dict)  # net -> share of them
    mean: float = 0.0
    second: float = 0.0  # mean of net squared
    main_second: float = 0.0  # the main wager's alone
    side_second: float = 0.0  # the other required wager's (Blackjack or Bust)
    staked: float = 0.0  # mean amount wagered (every hand, doubles included)

    def stderr_of_mean(self) -> float:
        if self.counted < 2:
            return 0.0
        return math.sqrt(max(self.second - self.mean ** 2, 0.0) / self.counted)


def simulate_splits(rules: GameRules, starts: list[tuple[int, int, int, float]],
                    p_split: float, rounds: int = SPLIT_ROUNDS,
                    seed: int = SPLIT_SEED) -> SplitRounds:
    """``rounds`` split rounds of ``rules`` from ``starts`` ((a, b, up, weight))."""
    out = SplitRounds(p_split, seed=seed)
    if not starts or p_split <= 0:
        return out
    from firmware.math.fastpath import play_fast_rounds

    forced = [(a, up, b, w) for a, b, up, w in starts]
    got = play_fast_rounds(rules, rounds, np.random.SeedSequence(seed), starts=forced)
    n = got.rounds
    if n == 0:
        return out
    ref = float(rules.reference_wager)
    out.counted = n
    out.outcomes = {cents / ref: k / n for cents, k in sorted(got.outcomes.items())}
    out.mean = got.total / n
    out.second = got.total_sq / n
    out.main_second = got.squares.get("blackjack", 0.0) / n
    out.side_second = sum(v for k, v in got.squares.items() if k != "blackjack") / n
    out.staked = got.staked / n
    return out


__all__ = ["SPLIT_ROUNDS", "SPLIT_SEED", "SplitRounds", "simulate_splits"]
