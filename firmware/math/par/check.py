"""`etg par --check`: the calculated PAR figure beside a fast-path estimate of it.

A lab signs a figure it can reproduce two ways. For each deck count the Rules Submission
allows (:func:`deck_counts`: all of them, or 1, 2, 4, 6 and 8 for blackjack's 1-8), the
calculation (:func:`firmware.math.games.house_edge.analyse`) and a
seeded fast-path simulation (:mod:`firmware.math.simulation.fast_path`, the engine's game and the
automatic players' strategy) are printed side by side with the simulation's standard
error and the difference in standard errors. A figure the lab signs should be within 2
standard errors of a run of at least 10^8 rounds (`--check-rounds 100000000`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from firmware.math.ruleset import GameRules

CHECK_SEED = 20260219


@dataclass
class Check:
    rules: GameRules
    par: float  # house edge by calculation, per unit of the Blackjack wager
    sim: float  # fast-path house edge, same unit
    stderr: float
    rounds: int
    seconds: float
    method: str

    @property
    def z(self) -> float:
        return (self.par - self.sim) / self.stderr if self.stderr > 0 else math.inf

    def line(self) -> str:
        r = self.rules
        return (f"{r.variant:<16} {r.shoe.label():<22} PAR {self.par:8.4%}   fast path "
                f"{self.sim:8.4%} ± {self.stderr:.4%} ({self.rounds:,} rounds)   "
                f"difference {self.z:+.2f} s.e.")

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.rules.variant, "decks": self.rules.decks,
                "par_house_edge": self.par, "fast_path_house_edge": self.sim,
                "stderr": self.stderr, "rounds": self.rounds, "z": self.z,
                "seed": CHECK_SEED, "seconds": round(self.seconds, 1), "method": self.method}


#: deck counts checked when the Rules Submission allows more than three
CHECKED = (1, 2, 4, 6, 8)


def deck_counts(variant: str) -> tuple[int, ...]:
    """The deck counts a check covers: every one the Rules Submission allows when it
    allows three or fewer, else those of :data:`CHECKED` it allows; the default first."""
    from firmware.math.par.configurations import axis_values, default_values

    allowed = [int(x) for x in axis_values(variant, "decks")]
    default = int(default_values(variant).get("decks", allowed[0]))
    picked = allowed if len(allowed) <= 3 else [d for d in CHECKED if d in allowed]
    return (default, *[d for d in picked if d != default])


def check(rules: GameRules, rounds: int, *, jobs: int = 1, seed: int = CHECK_SEED) -> Check:
    """The calculation and a seeded fast-path run of ``rounds`` rounds for ``rules``."""
    import time

    from firmware.math.games.house_edge import analyse
    from firmware.math.simulation.rtp import run_rtp

    t0 = time.perf_counter()
    res = analyse(rules)
    sim = run_rtp(rules, rounds, jobs=jobs, seed=seed, fast=True)
    return Check(rules, res.house_edge, sim.house_edge, sim.stderr, sim.tally.rounds,
                 time.perf_counter() - t0, res.method)
