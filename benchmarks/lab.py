"""`make bench` figures of lab-scale runs: the local Dask cluster against one core.

What is compared: the same seeded tasks run the same way, :func:`lab.tasks.run_tasks` on
an embedded ``LocalCluster`` of **one** worker process (one core) and of **every core**
(one worker process each), each timed from the first task submitted to the last result
folded, with the cluster started and every worker warm (numba's kernel, the strategy
tables, the battery and the RNG self-test loaded in each) — as a long run spends its
time. The ratio is cluster rounds (outcomes) per second over one worker's. Each runs
:data:`REPEATS` times, one worker and all cores taking turns, and the fastest run of
each is compared (as ``timeit`` takes the best: on a shared machine a neighbour's burst
only ever slows a run down); the median ratio and every run's time are printed beside.

Two figures say where a shortfall comes from, and load cannot fake them:

* **CPU per task** (``time.thread_time`` inside each task): the same work costs the same
  CPU on one worker and on two unless the cores themselves slow each other (shared cache,
  memory bandwidth, boost clock) — the hardware's part of the ratio.
* **cores got**: the worker processes' CPU seconds per wall second. On a shared machine
  two workers may be given little more CPU than one; the ratio is then the machine's
  share, not the cluster's scaling.
* **Dask's own CPU**: what the scheduler, nannies and client (this process) and the
  workers' event loops spent beside the tasks, as a share of the tasks' CPU. On one
  worker it runs on the idle second core; on two it takes from the tasks, so the ratio
  is at most about 2 / (1 + that share).
* **side by side**: the same tasks run in this process alone, then in two independent
  processes at once (no Dask at all): the throughput of two over one is the most any
  scheduler could get from these cores for this work.

Figures: ``etg rtp --fast`` rounds per second (blackjack, tasks of 4 x 10^6 rounds) and
``etg cert run --scaling batch`` outcomes per second (Bingo targets, multipliers and cards
drawn and tested, tasks of 2^20 draws, their csv lines handed back through a spool
directory and read by this process, as the run does on its embedded cluster); the
machine's load average beside each (the development machine is shared). Rerun:
``python -m benchmarks lab``; sizes (tasks per worker) ``ETG_LAB_BENCH_TASKS``.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    """One timed run: wall seconds and the CPU seconds its tasks spent, task by task;
    ``cores``: CPU seconds of the worker processes per wall second (what the machine gave
    the run: on a loaded machine two workers may get little more than one)."""

    seconds: float
    task_cpu: tuple[float, ...]
    cores: float = 0.0
    #: CPU of everything else the cluster ran (scheduler, nannies and client here, the
    #: workers' event loops, results in transit) over the tasks' own CPU
    overhead: float = 0.0

    @property
    def cpu_per_task(self) -> float:
        return sum(self.task_cpu) / max(1, len(self.task_cpu))


def clocked(func: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``func(*args)`` and the CPU seconds its thread spent on it (runs on a worker)."""
    t0 = time.thread_time()
    result = func(*args)
    return result, time.thread_time() - t0


def _timed(client: Any | None, func: Any, tasks: list[Any],
           take: Callable[[Any], Any] | None = None) -> Timing:
    """Seconds from the first task submitted to the last result folded (``take``: what
    the run does with a result besides merging it, e.g. reading a cert task's csv lines)."""
    from lab.tasks import Task, run_here, run_tasks

    cpu: list[float] = []

    def fold(_t: Any, r: tuple[Any, float]) -> None:
        if take is not None:
            take(r[0])
        cpu.append(r[1])

    wrapped = [Task(t.index, t.units, (func, *t.args)) for t in tasks]
    t0 = time.perf_counter()
    if client is None:
        run_here(clocked, wrapped, fold)
    else:
        run_tasks(client, clocked, wrapped, fold)
    return Timing(time.perf_counter() - t0, tuple(cpu))


def _rtp_tasks(rules: Any, count: int) -> tuple[Any, list[Any]]:
    from firmware.math.simulation.rtp import FAST_CHUNK, plan, play_task

    return play_task, plan(rules, count * FAST_CHUNK, 1, True)


def _cert_spec(draws: int, spool: str = "") -> Any:
    from firmware.config import default_config_path, load_config
    from firmware.engine.rules import rules_path
    from rng.cert.tables import card_table, configured_bingo_tables
    from rng.cert.tasks import DrawSpec

    cfg = load_config(default_config_path(), ["table.mode=bench", "table.variant=bingo"])
    tables = configured_bingo_tables(rules_path("bingo"), cfg.rules)
    assert tables is not None
    return DrawSpec(cfg.rng, True, "1e23", "batch", tables[0], tables[1], card_table(), 8,
                    draws, spool)


def _cert_tasks(count: int, spool: str = "") -> tuple[Any, list[Any]]:
    from lab.tasks import Task
    from rng.cert.tasks import TASK_DRAWS, draw_task, plan

    draws = count * TASK_DRAWS["batch"]
    spec = _cert_spec(draws, spool)
    return draw_task, [Task(b.index, 3 * (b.hi - b.lo), (spec, b))
                       for b in plan(draws, 0, TASK_DRAWS["batch"])]


def warm(kind: str) -> None:
    """Load what a task needs in this process (kernel, tables, battery, self-test)."""
    from firmware.math.ruleset import load
    from firmware.math.simulation.fast_path import warm_up

    if kind == "rtp":
        warm_up(load("blackjack"))
        return
    from rng.cert.tasks import Block, draw_task

    draw_task(_cert_spec(1000), Block(0, 0, 1000, 0, 1))


def _tasks(kind: str, count: int, spool: str = "") -> tuple[Any, list[Any]]:
    from firmware.math.ruleset import load

    return (_rtp_tasks(load("blackjack"), count) if kind == "rtp"
            else _cert_tasks(count, spool))


def _solo(kind: str, count: int, start: Any, out: Any) -> None:
    """One independent process of the side-by-side probe: warm, wait, run, report."""
    warm(kind)
    func, tasks = _tasks(kind, count)
    start.wait()
    out.put(_timed(None, func, tasks))


def side_by_side(kind: str, count: int, procs: int) -> list[Timing]:
    """``procs`` independent processes (no Dask) each running ``count`` tasks at once."""
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(procs)
    out = ctx.Queue()
    ps = [ctx.Process(target=_solo, args=(kind, count, start, out)) for _ in range(procs)]
    for p in ps:
        p.start()
    timings = [out.get(timeout=1800) for _ in ps]
    for p in ps:
        p.join()
    return timings


def process_cpu() -> float:
    """CPU seconds this process has used (all its threads)."""
    return time.process_time()


def _cluster(kind: str, count: int, workers: int) -> Timing:
    import tempfile

    from lab.cluster import open_client
    from rng.cert.tasks import take_lines

    with tempfile.TemporaryDirectory(prefix="etg-lab-bench-") as spool, \
            open_client(None, workers) as client:
        # as `etg cert run` on its local cluster: the csv lines through a spool, read back
        func, tasks = _tasks(kind, count, spool)
        client.run(warm, kind)
        before, here = client.run(process_cpu), process_cpu()
        t = _timed(client, func, tasks, take_lines if kind == "cert" else None)
        after, here = client.run(process_cpu), process_cpu() - here
    used = sum(after[w] - before.get(w, 0.0) for w in after)
    own = sum(t.task_cpu)
    return Timing(t.seconds, t.task_cpu, used / t.seconds, (used + here - own) / own)


#: Each configuration runs this many times, one worker and all cores taking turns: the
#: shared development machine's own speed drifts by a fifth within a minute (three runs
#: of the same one-worker cert tasks took 3.84, 3.44 and 3.12 s), so three were too few
#: to catch each configuration at the machine's best.
REPEATS = 5


def _best(timings: list[Timing]) -> Timing:
    return min(timings, key=lambda t: t.seconds)


def _section(kind: str, per_worker: int, cores: int) -> Iterator[str]:
    from benchmarks.math import load_average
    from firmware.math.simulation.rtp import FAST_CHUNK
    from rng.cert.tasks import TASK_DRAWS

    unit, per = (("rounds", FAST_CHUNK) if kind == "rtp" else
                 ("outcomes", 3 * TASK_DRAWS["batch"]))
    name = (f"etg rtp --fast, blackjack, tasks of {FAST_CHUNK:,} rounds" if kind == "rtp"
            else f"etg cert run --scaling batch, tasks of 2^{TASK_DRAWS['batch'].bit_length() - 1}"
                 " Bingo and card draws")
    n_one, n_many = per_worker, per_worker * cores
    yield f"  {name} ({per_worker} tasks per worker, {REPEATS} runs of each, taking turns):"
    ones: list[Timing] = []
    manys: list[Timing] = []
    for _ in range(REPEATS):
        ones.append(_cluster(kind, n_one, 1))
        manys.append(_cluster(kind, n_many, cores))
    one, many = _best(ones), _best(manys)
    yield (f"    one worker:  {n_one * per / one.seconds:>12,.0f} {unit}/s best  "
           f"(CPU {one.cpu_per_task:.3f} s/task; got {one.cores:.2f} cores; "
           f"runs {', '.join(f'{t.seconds:.2f}' for t in ones)} s)")
    yield (f"    {cores} workers:   {n_many * per / many.seconds:>12,.0f} {unit}/s best  "
           f"(CPU {many.cpu_per_task:.3f} s/task; got {many.cores:.2f} cores; "
           f"runs {', '.join(f'{t.seconds:.2f}' for t in manys)} s; load {load_average()})")
    ratio = (n_many / many.seconds) / (n_one / one.seconds)
    median = ((n_many / statistics.median(t.seconds for t in manys))
              / (n_one / statistics.median(t.seconds for t in ones)))
    cpu = many.cpu_per_task / one.cpu_per_task
    yield (f"    cluster / one worker: {ratio:.2f}x best against best (target 1.8x), "
           f"{median:.2f}x median against median; CPU per task on {cores} workers / on "
           f"one: x{cpu:.2f} (above 1: the busy cores slow each other)")
    yield (f"    Dask's own CPU beside the tasks': {one.overhead:+.1%} on one worker, "
           f"{many.overhead:+.1%} on {cores} (scheduler, nannies, event loops, results)")
    alone = side_by_side(kind, per_worker, 1)[0]
    pair = side_by_side(kind, per_worker, cores)
    both = cores * per_worker / max(t.seconds for t in pair)
    yield (f"    no Dask, plain processes: one alone {per_worker * per / alone.seconds:,.0f} "
           f"{unit}/s; {cores} side by side {both * per:,.0f} {unit}/s together = "
           f"{both / (per_worker / alone.seconds):.2f}x (CPU per task x"
           f"{sum(t.cpu_per_task for t in pair) / cores / alone.cpu_per_task:.2f}; "
           f"load {load_average()})")


def run() -> Iterator[str]:
    from etgcore.errors import UserError

    cores = os.cpu_count() or 1
    per_worker = int(os.environ.get("ETG_LAB_BENCH_TASKS", 0))
    try:
        warm("rtp")
    except UserError as exc:
        yield f"lab runs: not measured ({exc})"
        return
    yield (f"lab-scale runs: lab.tasks.run_tasks on an embedded local Dask cluster of one "
           f"worker process against one of {cores} (one per core), warm workers, first task "
           f"submitted to last result folded, the best of {REPEATS} runs of each taking "
           f"turns (target: at least 1.8x on 2 cores)")
    yield "  rerun: python -m benchmarks lab  (tasks per worker: ETG_LAB_BENCH_TASKS)"
    # enough tasks that the last one's tail (one core idle while the other finishes) is a
    # small part of a run, as in a lab's runs of hundreds of tasks
    yield from _section("rtp", per_worker or 10, cores)
    yield from _section("cert", per_worker or 10, cores)
