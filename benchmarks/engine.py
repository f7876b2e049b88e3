"""`make bench` figure for the engine: full regulated rounds per second, auto-played."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from firmware.bench.engine_player import EnginePlayer, strategy_policy
from firmware.engine.game import Game
from firmware.engine.inputs import Input
from firmware.engine.rules import load_rules
from firmware.math.strategy.basic import strategy_for


def measure(seats: int, rounds: int, seed: int = 7) -> tuple[float, float]:
    """(rounds per CPU second, rounds per wall second), best of 3 runs after a warm-up.

    CPU time (``time.process_time``) is what the engine costs; wall time also counts
    whatever else the machine runs, so both are printed.
    """
    rules = load_rules("blackjack")
    table = Game(rules, seats=7, shoe_in_play=False)
    auto = EnginePlayer(table, seats=range(1, seats + 1), seed=seed,
                        policy=strategy_policy(rules, strategy_for))
    auto.play(200)  # warm-up: the first shoe, caches
    best_cpu = best_wall = 0.0
    for _ in range(3):
        c0, w0 = time.process_time(), time.perf_counter()
        auto.play(rounds)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        best_cpu = max(best_cpu, rounds / max(cpu, 1e-9))
        best_wall = max(best_wall, rounds / wall)
    return best_cpu, best_wall


def measure_replay(seats: int, rounds: int, seed: int = 7) -> float:
    """Rounds per CPU second of the engine alone: the inputs of ``rounds`` auto-played
    rounds are recorded once (untimed), then applied to a fresh table, best of 3.

    The auto-player's own decisions (its strategy) are not in this figure, so it moves
    only when the engine's cost does."""
    rules = load_rules("blackjack")
    inputs: list[Input] = []
    live = Game(rules, seats=7)

    def record(inp: Input) -> None:
        inputs.append(inp)
        live.apply(inp)

    EnginePlayer(live, seats=range(1, seats + 1), seed=seed, apply=record,
                 policy=strategy_policy(rules, strategy_for)).play(rounds)
    best = 0.0
    for _ in range(3):
        table = Game(rules, seats=7)
        apply = table.apply
        c0 = time.process_time()
        for inp in inputs:
            apply(inp)
        best = max(best, rounds / max(time.process_time() - c0, 1e-9))
        if table.private_view() != live.private_view():  # untimed: the figure is of exact replay
            raise RuntimeError("replaying the recorded inputs did not give the live table")
    return best


def measure_rtp(rounds: int, seed: int = 7) -> tuple[float, float]:
    """(rounds per CPU second, per wall second) of `etg rtp`'s task through the engine
    (:func:`firmware.math.simulation.engine_rounds.play_engine_rounds`: blackjack, a fresh shuffled
    six-deck shoe each round, the strategy's decisions), best of 3 after a warm-up."""
    import numpy as np

    from firmware.math.ruleset import load
    from firmware.math.simulation.engine_rounds import play_engine_rounds

    rules = load("blackjack")
    play_engine_rounds(rules, 200, np.random.SeedSequence(seed))  # the strategy, caches
    best_cpu = best_wall = 0.0
    for i in range(3):
        c0, w0 = time.process_time(), time.perf_counter()
        play_engine_rounds(rules, rounds, np.random.SeedSequence(seed, spawn_key=(i,)))
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        best_cpu = max(best_cpu, rounds / max(cpu, 1e-9))
        best_wall = max(best_wall, rounds / wall)
    return best_cpu, best_wall


def engine_benchmark() -> Iterator[str]:
    """Rounds per second of the engine alone, one seat and seven seats."""
    yield "what: complete Blackjack rounds through Game.apply (wager, close, deal, insurance"
    yield "      offer, dealer check, basic-strategy decisions, dealer play, settlement,"
    yield "      6-deck shoe composition, cut card, new shoe and burn), default Rules Submission"
    yield "how:  firmware.bench.engine_player.EnginePlayer, seeded shuffle, best of 3 timed runs;"
    yield "      per CPU second (time.process_time) and per wall second"
    yield "rerun: python -m benchmarks engine   (target: >= 25,000 rounds/s, 1 seat)"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield f"machine load average (1 min) at start: {load:.2f} on {os.cpu_count()} cores"
    full = 0.0
    for seats, rounds in ((1, 40_000), (7, 8_000)):
        cpu, wall = measure(seats, rounds)
        full = full or cpu
        label = f"{seats} seat{'s' if seats > 1 else ' '}"
        yield (f"{label}: {cpu:>9,.0f} rounds/CPU-s ({1e6 / cpu:.1f} us/round)   "
               f"{wall:>9,.0f} rounds/wall-s  ({rounds:,} rounds per run)"
               + ("   (issue 49's target: >= 100,000 rounds/CPU-s)" if seats == 1 else ""))
    cpu, wall = measure_rtp(20_000)
    yield (f"etg rtp through the engine (enginesim, blackjack, a fresh shoe each round, the "
           f"strategy's decisions): {cpu:,.0f} rounds/CPU-s ({1e6 / cpu:.1f} us/round), "
           f"{wall:,.0f} rounds/wall-s = {cpu / full:.2f} of the 1-seat full round above "
           f"(CPU; target >= 50,000 rounds/s per core; load {os.getloadavg()[0]:.2f})")
    yield "engine alone: the same kind of rounds recorded once, their inputs applied to a fresh"
    yield "      table (Game.apply only, no auto-player decisions), best of 3, per CPU second"
    for seats, rounds in ((1, 20_000), (7, 4_000)):
        cpu = measure_replay(seats, rounds)
        label = f"{seats} seat{'s' if seats > 1 else ' '}"
        yield f"{label}: {cpu:>9,.0f} rounds/CPU-s ({1e6 / cpu:.1f} us/round), engine alone"
