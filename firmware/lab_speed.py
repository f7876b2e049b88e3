"""`make bench` figures of lab-scale runs: the local Dask cluster against one core.

The same seeded runs, once in one process (``--jobs 1``) and once on the embedded local
cluster of every core, timed from the first task to the last with the cluster already
started and its workers warm (numba's kernel and the strategy tables loaded in each), as
a long run spends its time. Figures: ``etg rtp --fast`` rounds per second (blackjack,
20 tasks of 10^6 rounds) and ``etg cert run --scaling batch`` outcomes per second
(Bingo targets, multipliers and cards drawn and tested, 8 tasks of 2^20 draws). The
machine's load average is printed beside them: the development machine is shared.
Rerun: ``python -m firmware.benchmarks lab``; sizes: ``ETG_LAB_BENCH_ROUNDS``,
``ETG_LAB_BENCH_DRAWS``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any


def _timed(client: Any | None, func: Any, tasks: list[Any]) -> float:
    """Seconds from the first task submitted to the last result folded."""
    from lab.tasks import run_here, run_tasks

    t0 = time.perf_counter()
    if client is None:
        run_here(func, tasks, lambda _t, _r: None)
    else:
        run_tasks(client, func, tasks, lambda _t, _r: None)
    return time.perf_counter() - t0


def _timed_rtp(client: Any | None, rules: Any, rounds: int) -> float:
    from firmware.math.rtp import plan, play_task

    return _timed(client, play_task, plan(rules, rounds, 1, True))


def _cert_spec(draws: int) -> Any:
    from firmware.config import default_config_path, load_config
    from rng.cert.tables import card_table, configured_bingo_tables
    from rng.cert.tasks import DrawSpec

    cfg = load_config(default_config_path(), ["table.mode=bench", "table.variant=bingo"])
    from firmware.engine.rules import rules_path

    tables = configured_bingo_tables(rules_path("bingo"), cfg.rules)
    assert tables is not None
    return DrawSpec(cfg.rng, True, "1e23", "batch", tables[0], tables[1], card_table(), 8,
                    draws)


def _warm_cert(spec: Any) -> None:
    """Import the battery and run the self-test in this worker, outside the timing."""
    from rng.cert.tasks import Block, draw_task

    draw_task(spec, Block(0, 0, 1000, 0, 1))


def _timed_cert(client: Any | None, draws: int) -> float:
    from lab.tasks import Task
    from rng.cert.tasks import TASK_DRAWS, draw_task, plan

    spec = _cert_spec(draws)
    blocks = plan(draws, 0, TASK_DRAWS["batch"])
    return _timed(client, draw_task, [Task(b.index, 3 * (b.hi - b.lo), (spec, b))
                                      for b in blocks])


def run() -> Iterator[str]:
    from etgcore.errors import UserError
    from firmware.math.fastpath import warm_up
    from firmware.math.ruleset import load
    from firmware.math.speed import load_average
    from lab.cluster import describe, open_client

    rounds = int(os.environ.get("ETG_LAB_BENCH_ROUNDS", 20_000_000))
    draws = int(os.environ.get("ETG_LAB_BENCH_DRAWS", 8 << 20))
    rules = load("blackjack")
    try:
        warm_up(rules)
    except UserError as exc:
        yield f"lab runs: not measured ({exc})"
        return
    workers = os.cpu_count() or 1
    yield (f"lab-scale runs: one process against the embedded local Dask cluster of "
           f"{workers} worker processes (target: at least 1.8x on 2 cores)")
    yield "  rerun: python -m firmware.benchmarks lab"
    one_rtp = _timed_rtp(None, rules, rounds)
    _warm_cert(_cert_spec(draws))
    one_cert = _timed_cert(None, draws)
    load_before = load_average()
    with open_client(None, workers) as client:
        client.run(warm_up, rules)  # each worker loads the kernel and builds the tables
        client.run(_warm_cert, _cert_spec(draws))
        info = describe(client)
        many_rtp = _timed_rtp(client, rules, rounds)
        many_cert = _timed_cert(client, draws)
    yield f"  cluster: {info.describe()}"
    yield (f"  etg rtp --fast, blackjack, {rounds:,} rounds: one core {rounds / one_rtp:,.0f} "
           f"rounds/s; cluster {rounds / many_rtp:,.0f} rounds/s; {one_rtp / many_rtp:.2f}x")
    outcomes = 3 * draws
    yield (f"  etg cert run --scaling batch, {draws:,} Bingo and card draws ({outcomes:,} "
           f"outcomes drawn and tested): one core {outcomes / one_cert:,.0f} outcomes/s; "
           f"cluster {outcomes / many_cert:,.0f} outcomes/s; {one_cert / many_cert:.2f}x")
    yield (f"  machine load average before / after the cluster runs: {load_before} / "
           f"{load_average()}")

