"""`etg rtp`: Monte Carlo return on every core, with standard error and a 95% interval.

Rounds are cut into chunks of :data:`CHUNK`; chunk ``i`` is seeded from
``SeedSequence(seed).spawn`` so a run with ``--seed`` gives the same figures whatever
``--jobs`` is. The progress bar (tqdm) goes to stderr and only when it is a terminal.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from firmware.math.enginesim import Tally, play_engine_rounds
from firmware.math.ruleset import GameRules

CHUNK = 2000
FAST_CHUNK = 1_000_000


@dataclass
class RtpResult:
    rules: GameRules
    tally: Tally
    seconds: float
    jobs: int
    fast: bool

    @property
    def mean(self) -> float:
        return self.tally.total / self.tally.rounds

    @property
    def stderr(self) -> float:
        n = self.tally.rounds
        if n < 2:
            return float("nan")
        var = (self.tally.total_sq - n * self.mean**2) / (n - 1)
        return math.sqrt(max(var, 0.0) / n)

    @property
    def stdev(self) -> float:
        return self.stderr * math.sqrt(self.tally.rounds)

    @property
    def house_edge(self) -> float:
        return -self.mean

    @property
    def house_edge_total(self) -> float:
        return -self.tally.total / self.tally.staked

    def to_json(self) -> dict[str, Any]:
        n = self.tally.rounds
        return {
            "variant": self.rules.variant,
            "rounds": n,
            "house_edge": self.house_edge,
            "stderr": self.stderr,
            "ci95": [self.house_edge - 1.96 * self.stderr, self.house_edge + 1.96 * self.stderr],
            "house_edge_total": self.house_edge_total,
            "stdev_per_round": self.stdev,
            "wagers": {k: v / n for k, v in self.tally.wagers.items()},
            "path": "fast" if self.fast else "engine",
            "jobs": self.jobs,
            "seconds": round(self.seconds, 3),
            "rounds_per_second": n / self.seconds if self.seconds else None,
            "rules_hash": self.rules.rules_hash,
        }

    def report(self) -> str:
        j = self.to_json()
        lo, hi = j["ci95"]
        lines = [
            f"{self.rules.variant}: {j['rounds']:,} rounds through the "
            f"{'fast path' if self.fast else 'engine'} on {self.jobs} process(es) in "
            f"{self.seconds:.1f} s ({j['rounds_per_second']:,.0f} rounds/s)",
            f"  house edge   {self.house_edge:+.5%}  (standard error {self.stderr:.5%}; "
            f"95% interval {lo:+.5%} .. {hi:+.5%})",
            f"  house edge per unit staked {self.house_edge_total:+.5%}; "
            f"standard deviation per round {self.stdev:.4f}",
        ]
        for k, v in j["wagers"].items():
            lines.append(f"  {k:<24} {v:+.6f} per unit of the Blackjack wager")
        return "\n".join(lines)


def _work(args: tuple[GameRules, int, Any, bool]) -> Tally:
    rules, n, seed, fast = args
    if fast:
        from firmware.math.fastpath import play_fast_rounds

        return play_fast_rounds(rules, n, seed)
    return play_engine_rounds(rules, n, seed)


def run_rtp(
    rules: GameRules, rounds: int, *, jobs: int = 1, seed: int | None = None, fast: bool = False
) -> RtpResult:
    chunk = FAST_CHUNK if fast else CHUNK
    sizes = [chunk] * (rounds // chunk) + ([rounds % chunk] if rounds % chunk else [])
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    tasks = [(rules, n, s, fast) for n, s in zip(sizes, seeds, strict=True)]
    total = Tally()
    t0 = time.perf_counter()
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=rounds, unit="round", file=sys.stderr, smoothing=0.1)
    if jobs == 1 or len(tasks) == 1:
        for t in tasks:
            part = _work(t)
            total.add(part)
            if bar:
                bar.update(part.rounds)
    else:
        ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
        with ctx.Pool(min(jobs, len(tasks))) as pool:
            for part in pool.imap_unordered(_work, tasks):
                total.add(part)
                if bar:
                    bar.update(part.rounds)
    if bar:
        bar.close()
    return RtpResult(rules, total, time.perf_counter() - t0, jobs, fast)
