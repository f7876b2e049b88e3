"""`etg rtp`: Monte Carlo return on a Dask cluster, with standard error and a 95% interval.

Rounds are cut into tasks of :data:`CHUNK` (engine) or :data:`FAST_CHUNK` (fast path)
rounds; task ``i`` plays from ``SeedSequence(seed, spawn_key=(i,))`` (the ``i``-th child
of ``SeedSequence(seed).spawn``), and the tallies are folded in task order, so a seeded
run gives the same figures on one core or a hundred. Without ``--seed`` the seed is
fresh entropy, and it is reported so the run can be repeated. The tasks run on an
embedded Dask ``LocalCluster`` of ``--jobs`` processes, or on an existing cluster
(``--scheduler``; :mod:`lab.cluster`); ``--jobs 1`` without a scheduler plays them in
this process. ``--checkpoint FILE`` records every finished task's tally
(:mod:`lab.checkpoint`) and a rerun with the same file plays only the rest. The progress
line on stderr (:mod:`etgcore.progress`) counts the rounds of the whole run.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from etgcore.progress import Progress, wanted
from firmware.math.ruleset import GameRules
from firmware.math.simulation.engine_rounds import Tally, play_engine_rounds

CHUNK = 2000
#: About a second of one core per task: Dask spends a few milliseconds on each task (the
#: scheduler, the worker's event loop, the result's way back) beside the task's CPU, and
#: on a machine whose every core runs a worker that time is taken from the tasks. With
#: 10^6 rounds (a quarter of a second) the 2-core local cluster ran 1.4-1.7x one worker;
#: with 4 x 10^6, 1.8-2.1x (``make bench`` lab, docs/math.md).
FAST_CHUNK = 4_000_000
#: the stream each task's seed drives (docs/math.md: a lab reproducing a seeded run needs
#: it; the fast path's changed from numba's MT19937 with issue 49)
FAST_GENERATOR = ("xoshiro256** in the kernel, Lemire's bounded draw; state: the task "
                  "seed's generate_state(4, uint64)")
ENGINE_GENERATOR = "numpy default_rng (PCG64) of the task seed"


@dataclass
class RtpResult:
    rules: GameRules
    tally: Tally
    seconds: float
    jobs: int
    fast: bool
    seed: int = 0
    played: int = 0  # rounds played by this attempt (the others came from a checkpoint)
    tasks: int = 0
    task_rounds: int = 0  # rounds of each task but the last
    last_task_rounds: int = 0  # the last task's (the remainder: fewer, or the same)
    resumed_tasks: int = 0
    cluster: str = "this process"
    notes: list[str] = field(default_factory=list)

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
            "seed": f"{self.seed:x}",
            "tasks": self.tasks,
            "task_rounds": self.task_rounds,
            "last_task_rounds": self.last_task_rounds,
            "task_seed": "SeedSequence(seed, spawn_key=(task,))",
            "generator": FAST_GENERATOR if self.fast else ENGINE_GENERATOR,
            "resumed_tasks": self.resumed_tasks,
            "cluster": self.cluster,
            "seconds": round(self.seconds, 3),
            "rounds_per_second": self.played / self.seconds if self.seconds else None,
            "rules_hash": self.rules.rules_hash,
            "rules_sha256": self.rules.rules_sha256,
        }

    def report(self, certified: Any = None) -> str:
        """The run's figures, each once and labelled; ``certified`` (the exact
        :class:`~firmware.math.games.house_edge.Analysis` of the same rules): each figure beside
        the certified one, with how many standard errors apart."""
        j = self.to_json()
        lo, hi = j["ci95"]
        lines = [
            f"{self.rules.variant}: {j['rounds']:,} rounds through the "
            f"{'fast path' if self.fast else 'engine'} on {self.cluster} in "
            f"{self.seconds:.1f} s ({j['rounds_per_second']:,.0f} rounds/s)",
            f"  seed {self.seed:x} (hex, as --seed takes it); "
            f"{tasks_text(self.tasks, self.task_rounds, self.last_task_rounds)}, task i "
            "seeded by SeedSequence(seed, spawn_key=(i,))"
            + (f"; {_count(self.resumed_tasks, 'task')} read from the checkpoint"
               if self.resumed_tasks else ""),
            f"  house edge   {self.house_edge:+.5%}  (standard error {self.stderr:.5%}; "
            f"95% interval {lo:+.5%} .. {hi:+.5%})",
        ]
        if certified is not None:
            lines.append(f"  certified    {certified.house_edge:+.5%}  (etg par, exact): "
                         + self._apart(self.house_edge - certified.house_edge))
        lines.append(f"  house edge per unit staked {self.house_edge_total:+.5%}; "
                     f"standard deviation per round {self.stdev:.4f}")
        if len(j["wagers"]) > 1:  # one wager: its net is minus the house edge above
            lines.append("  expected net of each wager for the player, per unit of the "
                         "Blackjack wager (they add up to minus the house edge):")
            for k, v in j["wagers"].items():
                cert = (certified.wagers.get(k) if certified is not None else None)
                lines.append(f"    {k:<22} {v:+.6f}" + (
                    f"  (certified {cert:+.6f})" if cert is not None else ""))
        return "\n".join(lines)

    def _apart(self, diff: float) -> str:
        if not self.stderr or self.stderr != self.stderr:
            return "no standard error to compare with"
        z = diff / self.stderr
        return (f"the simulation is {abs(z):.2f} standard errors "
                f"{'above' if z > 0 else 'below'} it"
                + (" (beyond 3: look into it)" if abs(z) > 3 else ""))


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" + ("" if n == 1 else "s")


def tasks_text(tasks: int, rounds: int, last: int) -> str:
    """How a run was cut, as it was: ``1 task of 1,000,000 rounds``, ``3 tasks of
    4,000,000 rounds``, ``3 tasks: 2 of 4,000,000 rounds and the last of 1,500,000``."""
    if tasks <= 1 or last == rounds:
        return f"{_count(tasks, 'task')} of {_count(last if tasks == 1 else rounds, 'round')}"
    return (f"{tasks:,} tasks: {tasks - 1:,} of {_count(rounds, 'round')} and the last of "
            f"{last:,}")


def play_task(rules: GameRules, n: int, seed: Any, fast: bool) -> Tally:
    """One task: ``n`` rounds from ``seed`` (runs on a Dask worker or in this process)."""
    if fast:
        from firmware.math.simulation.fast_path import play_fast_rounds

        return play_fast_rounds(rules, n, seed)
    return play_engine_rounds(rules, n, seed)


def plan(rules: GameRules, rounds: int, seed: int, fast: bool) -> list[Any]:
    """The run's tasks: sizes from the chunk of its path, seeds from (seed, index)."""
    from lab.tasks import Task

    chunk = FAST_CHUNK if fast else CHUNK
    sizes = [chunk] * (rounds // chunk) + ([rounds % chunk] if rounds % chunk else [])
    return [Task(i, n, (rules, n, np.random.SeedSequence(seed, spawn_key=(i,)), fast))
            for i, n in enumerate(sizes)]


def run_rtp(
    rules: GameRules, rounds: int, *, jobs: int = 1, seed: int | None = None,
    fast: bool = False, scheduler: str | None = None, checkpoint: Path | None = None,
    progress: Any = None, show: bool | None = None, label: str = "rtp",
) -> RtpResult:
    """Play ``rounds`` rounds; ``progress``: an object told of the rounds done
    (:class:`lab.tasks.Progress`), else the progress line on stderr, shown as ``show``
    says (``--progress``/``--no-progress``; None: on a terminal), named ``label``."""
    from lab.checkpoint import Checkpoint
    from lab.tasks import run_here, run_tasks

    if seed is None and not (checkpoint and checkpoint.exists() and checkpoint.stat().st_size):
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    identity = {"command": "etg rtp", "rules_hash": rules.rules_hash, "rounds": rounds,
                "fast": fast, "seed": seed}
    ck = Checkpoint(checkpoint, identity) if checkpoint else None
    if ck is not None:
        seed = ck.open(adopt=("seed",))["seed"]
    assert seed is not None
    tasks = plan(rules, rounds, seed, fast)
    total = Tally()
    done: dict[int, Tally] = dict(ck.done) if ck else {}
    for t in tasks:  # what an earlier attempt finished, folded in task order first
        if t.index in done:
            total.add(done[t.index])
    bar = progress
    own_bar = None
    if bar is None:
        own_bar = bar = Progress(rounds, "rounds", label, enabled=wanted(show),
                                 initial=total.rounds)

    def fold(task: Any, part: Tally) -> None:
        total.add(part)
        if ck is not None:
            ck.append(task.index, part)

    t0 = time.perf_counter()
    where = "this process"
    try:
        if (jobs == 1 or len(tasks) - len(done) <= 1) and scheduler is None:
            run_here(play_task, tasks, fold, skip=done, progress=bar)
        else:
            from lab.cluster import describe, open_client

            with open_client(scheduler, jobs) as client:
                where = describe(client).describe()
                run_tasks(client, play_task, tasks, fold, skip=done, progress=bar)
    finally:
        if own_bar is not None:
            own_bar.close()  # after Ctrl-C no last line: the command line's one line only
        if ck is not None:
            ck.close()
    return RtpResult(rules, total, time.perf_counter() - t0, jobs, fast, seed=seed,
                     tasks=len(tasks), task_rounds=tasks[0].units if tasks else 0,
                     last_task_rounds=tasks[-1].units if tasks else 0,
                     resumed_tasks=len(done), cluster=where,
                     played=total.rounds - sum(d.rounds for d in done.values()))
