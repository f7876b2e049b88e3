"""A run on a cluster that stops returning tasks ends with one line and exit code 3.

A real Dask scheduler with no worker of its own stands in for a lab's: a run sent there
before any worker is started, and a run whose only worker (a `dask worker --no-nanny`
process, so nobody brings it back) is SIGKILLed when its first task result arrives, must
both end after the configured limit (``etg.no-worker-timeout`` in Dask's configuration,
shortened here) instead of waiting forever; what was finished is in the checkpoint and
the same command resumes it to the figures of a one-process run. A task that never
returns while its worker lives ends the run after ``etg.stall-timeout``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from etgcore.errors import exit_code

distributed = pytest.importorskip("distributed")

import dask  # noqa: E402

from firmware.cli import main  # noqa: E402
from firmware.math.ruleset import load  # noqa: E402
from firmware.math.simulation.rtp import run_rtp  # noqa: E402
from lab.tasks import ClusterStalled, Task, run_tasks  # noqa: E402


@pytest.fixture(scope="module")
def scheduler() -> Iterator[tuple[str, Any]]:
    with (
        distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as lc,
        distributed.Client(lc) as client,
    ):
        yield lc.scheduler_address, client


@pytest.fixture()
def solo_worker(scheduler: tuple[str, Any]) -> Iterator[subprocess.Popen[bytes]]:
    """One `dask worker` without a nanny: killed, it stays dead."""
    address, client = scheduler
    proc = subprocess.Popen(
        [sys.executable, "-m", "dask", "worker", address, "--no-nanny", "--nthreads", "1",
         "--name", "solo", "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client.wait_for_workers(1, timeout=120)
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=60)
        deadline = time.monotonic() + 60
        while client.nthreads() and time.monotonic() < deadline:
            time.sleep(0.2)  # the scheduler forgets it before the next test asks


def test_a_scheduler_without_workers_is_one_line_and_exit_3(
        scheduler: tuple[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    address, _client = scheduler
    with dask.config.set({"etg.no-worker-timeout": 2}):
        code = main(["rtp", "--rounds", "6000", "--seed", "23", "--scheduler", address,
                     "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert len(err) == 1, err
    assert err[0].startswith(f"etg: error: the Dask cluster at {address} has had no worker "
                             "for 2 s; 0 of 3 task(s)")
    assert "resume" in err[0]


class KillWorkerAtFirstResult:
    """A progress display that SIGKILLs the only worker when the first task is done."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.units = 0

    def update(self, n: int) -> None:
        self.units += n
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=60)

    def set_description(self, _text: str) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_run_whose_workers_are_all_gone_stops_and_resumes(
        scheduler: tuple[str, Any], solo_worker: subprocess.Popen[bytes],
        tmp_path: Path) -> None:
    address, _client = scheduler
    rules = load("blackjack")
    one = run_rtp(rules, 8_000, jobs=1, seed=23)
    ck = tmp_path / "rtp.ckpt"
    killer = KillWorkerAtFirstResult(solo_worker)
    with dask.config.set({"etg.no-worker-timeout": 2}), \
            pytest.raises(ClusterStalled, match="has had no worker for 2 s") as stalled:
        run_rtp(rules, 8_000, seed=23, scheduler=address, checkpoint=ck, progress=killer)
    assert exit_code(stalled.value) == 3
    assert solo_worker.poll() is not None
    resumed = run_rtp(rules, 8_000, jobs=1, checkpoint=ck)  # the seed comes from the file
    assert resumed.resumed_tasks >= 1
    t, u = resumed.tally, one.tally
    assert (t.rounds, t.total, t.total_sq, dict(t.outcomes)) == \
        (u.rounds, u.total, u.total_sq, dict(u.outcomes))


def test_a_task_that_never_returns_ends_the_run_after_the_stall_limit(
        scheduler: tuple[str, Any], solo_worker: subprocess.Popen[bytes]) -> None:
    _address, client = scheduler
    folded: list[int] = []
    with pytest.raises(ClusterStalled, match=r"no task finished for 2 s .*\(1 worker"):
        # the task: time.sleep (a function every worker can import; a test module's the
        # worker could not unpickle)
        run_tasks(client, time.sleep, [Task(0, 1, (600.0,))],
                  lambda t, _r: folded.append(t.index), stall_s=2)
    assert folded == []
