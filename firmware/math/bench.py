"""`make bench` figures of the game math: `etg par` time per variation, Monte Carlo speed."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from firmware.errors import UserError

VARIANTS = ("blackjack", "split-to-double", "bingo", "free-bet", "spanish21")


def run() -> Iterator[str]:
    from firmware.engine.rules import available_variants
    from firmware.math.analysis import analyse
    from firmware.math.fastpath import warm_up
    from firmware.math.rtp import run_rtp
    from firmware.math.ruleset import load

    have = set(available_variants())
    yield "etg par (calculation only, default rules of each Rules Submission; target < 30 s)"
    yield "  rerun: python -m firmware.benchmarks math   (or: time etg par --variant V)"
    for v in VARIANTS:
        if v not in have:
            yield f"  {v:<16} not measured: no firmware/rules/{v}.toml yet"
            continue
        rules = load(v)
        t0 = time.perf_counter()
        res = analyse(rules)
        dt = time.perf_counter() - t0
        yield (f"  {v:<16} {dt:6.2f} s   house edge {res.house_edge:.4%}, "
               f"per unit staked {res.house_edge_total:.4%}")
    rules = load("blackjack")
    n = 5000
    res_e = run_rtp(rules, n, jobs=1, seed=1)
    yield (f"Monte Carlo through the engine, blackjack, 1 seat, 1 core, {n} rounds: "
           f"{n / res_e.seconds:,.0f} rounds/s per core")
    try:
        warm_up(rules)  # numba compiles (or loads its cache) here, outside the timing
    except UserError as exc:
        yield f"Monte Carlo fast path: not measured ({exc})"
        return
    n = 10_000_000
    for v in VARIANTS:
        r = load(v)
        warm_up(r)
        res_f = run_rtp(r, n, jobs=1, seed=1, fast=True)
        yield (f"Monte Carlo fast path (numba), {v}, 1 core, {n:,} rounds: "
               f"{n / res_f.seconds:,.0f} rounds/s per core (target 2,000,000)")
    yield f"  machine load average while measuring: {_load()} (shared machine)"


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
