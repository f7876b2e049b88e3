"""`etg rtp` and `etg cert run` on a real two-worker Dask cluster, one worker killed.

A ``LocalCluster`` of two worker processes (with their nannies, as `dask worker`
starts them) stands in for a lab's cluster; the runs reach it by its address, exactly as
``--scheduler tcp://HOST:PORT`` does. When the first task result arrives, the worker
that is busy with a task is killed with SIGKILL; the scheduler reruns its task
elsewhere, and the run must give exactly the figures of the same seeded run in one
process: nothing lost, nothing counted twice. Resuming from a checkpoint is shown on a
run interrupted in one process.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from firmware.cli import command_context  # noqa: E402
from firmware.config import default_config_path, load_config  # noqa: E402
from firmware.math.rtp import run_rtp  # noqa: E402
from firmware.math.ruleset import load  # noqa: E402
from rng.cert.run import RunOptions, certification_run  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Any:
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=":0") as lc,
        distributed.Client(lc) as client,
    ):
        client.wait_for_workers(2, timeout=120)
        yield lc.scheduler_address, client


class KillOneWorker:
    """A progress display that kills a busy worker once a task is done: at the first
    task result that finds one busy (tiny tasks may all be done by the first)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.killed: str | None = None
        self.units = 0

    def update(self, n: int) -> None:
        self.units += n
        busy = [w for w, keys in self.client.processing().items() if keys]
        if self.killed is None and busy:
            pids = self.client.run(os.getpid, workers=busy[:1])
            self.killed = busy[0]
            os.kill(pids[busy[0]], signal.SIGKILL)

    def set_description(self, _text: str) -> None:
        pass

    def close(self) -> None:
        pass


class StopAfter:
    """A progress display that interrupts the run after ``n`` finished tasks."""

    def __init__(self, n: int) -> None:
        self.left = n

    def update(self, _n: int) -> None:
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt

    set_description = KillOneWorker.set_description
    close = KillOneWorker.close


def _figures(res: Any) -> tuple[Any, ...]:
    t = res.tally
    return t.rounds, t.total, t.total_sq, dict(t.outcomes), t.wagers


def test_rtp_survives_a_killed_worker_and_resumes(cluster: Any, tmp_path: Path) -> None:
    address, client = cluster
    rules = load("blackjack")
    one = run_rtp(rules, 12_000, jobs=1, seed=23)
    killer = KillOneWorker(client)
    res = run_rtp(rules, 12_000, seed=23, scheduler=address, progress=killer)
    assert killer.killed is not None
    assert killer.units == 12_000  # each task counted once
    assert _figures(res) == _figures(one)
    assert "Dask cluster" in res.cluster and res.tasks == 6
    ck = tmp_path / "rtp.ckpt"
    with pytest.raises(KeyboardInterrupt):
        run_rtp(rules, 12_000, jobs=1, seed=23, checkpoint=ck, progress=StopAfter(2))
    resumed = run_rtp(rules, 12_000, jobs=1, checkpoint=ck)  # the seed comes from the file
    assert resumed.resumed_tasks == 2
    assert _figures(resumed) == _figures(one)


def _cert(out: Path, **kw: Any) -> dict[str, Any]:
    cfg = load_config(default_config_path(), ["table.mode=bench", "table.variant=bingo"])
    opts = RunOptions(draws=24_000, out=out, stream_bytes=4096, shoes=48, decks=1,
                      seed_hex="2323", run_dieharder=False, progress=False, task_draws=2000,
                      scaling="batch",
                      **{k: v for k, v in kw.items() if k != "progress"})
    certification_run(cfg, opts, command_context(), progress=kw.get("progress"))
    return json.loads((out / "results.json").read_text())


def _stats(results: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(t["subject"], t["test"], t["statistic"], t["p_value"]) for t in results["tests"]]


def test_cert_run_survives_a_killed_worker_and_resumes(cluster: Any, tmp_path: Path) -> None:
    address, client = cluster
    ck = tmp_path / "cert.ckpt"
    with pytest.raises(KeyboardInterrupt):  # one process, interrupted after two tasks
        _cert(tmp_path / "one", jobs=1, checkpoint=ck, progress=StopAfter(2))
    one = _cert(tmp_path / "one", jobs=1, checkpoint=ck)  # ... and resumed
    assert "read from the checkpoint" in (tmp_path / "one" / "report.md").read_text()
    killer = KillOneWorker(client)
    many = _cert(tmp_path / "many", scheduler=address, progress=killer)
    assert killer.killed is not None
    assert _stats(many) == _stats(one)
    for name in ("targets.csv", "multipliers.csv", "cards.csv", "shuffles.csv"):
        assert (tmp_path / "many" / "draws" / name).read_bytes() == (
            tmp_path / "one" / "draws" / name).read_bytes(), name
    md = (tmp_path / "many" / "report.md").read_text()
    assert "Dask cluster" in md and "12 of 2,000" in md


def test_production_run_records_each_workers_selftest(cluster: Any, tmp_path: Path) -> None:
    """Production mode: no seed; each worker draws from its own entropy source after its
    own power-up self-test, and the report lists every worker that drew a task."""
    address, _client = cluster
    cfg = load_config(default_config_path(), [
        "table.mode=production", "table.variant=bingo", "shoe.port=/dev/etg-shoe",
        "panel.backend=gpio"])
    out = tmp_path / "prod"
    opts = RunOptions(draws=12_000, out=out, stream_bytes=4096, shoes=48, decks=1,
                      run_dieharder=False, progress=False, task_draws=2000, scaling="batch",
                      scheduler=address)
    certification_run(cfg, opts, command_context())
    md = (out / "report.md").read_text()
    assert "each worker's own DRBG from its own entropy source" in md
    workers = {line.split(" (")[0] for line in md.splitlines() if line.startswith("worker tcp://")}
    assert workers and all(f"{w} (" in md and "known-answer tests" in md for w in workers)
