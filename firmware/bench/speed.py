"""`make bench` figure for the engine: full regulated rounds per second, auto-played."""

from __future__ import annotations

import time
from collections.abc import Iterator

from firmware.bench.autoplay import AutoTable
from firmware.engine.rules import load_rules
from firmware.engine.table import Table


def measure(seats: int, rounds: int, seed: int = 7) -> tuple[float, int]:
    """(rounds per second, rounds) over ``rounds`` rounds after a warm-up."""
    rules = load_rules("blackjack")
    table = Table(rules, seats=7, shoe_in_play=False)
    auto = AutoTable(table, seats=range(1, seats + 1), seed=seed)
    auto.play(200)  # warm-up: the first shoe, caches
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        auto.play(rounds)
        dt = time.perf_counter() - t0
        best = max(best, rounds / dt)
    return best, rounds


def engine_benchmark() -> Iterator[str]:
    """Rounds per second of the engine alone, one seat and seven seats."""
    yield "what: complete Blackjack rounds through Table.apply (wager, close, deal, insurance"
    yield "      offer, dealer check, basic-strategy decisions, dealer play, settlement,"
    yield "      6-deck shoe composition, cut card, new shoe and burn), default Rules Submission"
    yield "how:  firmware.bench.autoplay.AutoTable, seeded shuffle, best of 3 timed runs"
    yield "rerun: python -m firmware.benchmarks engine   (target: >= 25,000 rounds/s, 1 seat)"
    for seats, rounds in ((1, 40_000), (7, 8_000)):
        rate, n = measure(seats, rounds)
        per = 1e6 / rate
        label = f"{seats} seat{'s' if seats > 1 else ' '}"
        yield f"{label}: {rate:>9,.0f} rounds/s  ({per:.1f} us/round, {n:,} rounds per run)"
