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

import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from lab_runs import KillOneWorker, StopAfter, cert_run, stats  # noqa: E402

import lab.cluster  # noqa: E402
import rng.cert.run  # noqa: E402
from benchmarks.lab import _cert_spec  # noqa: E402
from firmware.cli import command_context  # noqa: E402
from firmware.config import default_config_path, load_config  # noqa: E402
from firmware.math.ruleset import load  # noqa: E402
from firmware.math.simulation.rtp import CHUNK, plan, play_task, run_rtp  # noqa: E402
from rng.cert.run import RunOptions, certification_run  # noqa: E402
from rng.cert.tasks import Block, draw_task, take_lines  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Any:
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=":0") as lc,
        distributed.Client(lc) as client,
    ):
        client.wait_for_workers(2, timeout=120)
        yield lc.scheduler_address, client


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


def test_cert_run_survives_a_killed_worker_and_resumes(cluster: Any, tmp_path: Path) -> None:
    address, client = cluster
    ck = tmp_path / "cert.ckpt"
    with pytest.raises(KeyboardInterrupt):  # one process, interrupted after two tasks
        cert_run(tmp_path / "one", jobs=1, checkpoint=ck, progress=StopAfter(2))
    one = cert_run(tmp_path / "one", jobs=1, checkpoint=ck)  # ... and resumed
    assert "read from the checkpoint" in (tmp_path / "one" / "report.md").read_text()
    killer = KillOneWorker(client)
    many = cert_run(tmp_path / "many", scheduler=address, progress=killer)
    assert killer.killed is not None
    assert stats(many) == stats(one)
    for name in ("targets.csv", "multipliers.csv", "cards.csv", "shuffles.csv"):
        assert (tmp_path / "many" / "draws" / name).read_bytes() == (
            tmp_path / "one" / "draws" / name).read_bytes(), name
    md = (tmp_path / "many" / "report.md").read_text()
    assert "Dask cluster" in md and "12 of 2,000" in md


class _Gone:
    """A closed cluster's stand-in: nothing busy."""

    def processing(self) -> dict[str, Any]:
        return {}


def test_cert_run_on_its_own_local_cluster_spools_the_lines(
        cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`etg cert run --jobs 2`: the embedded cluster's workers hand their csv lines over
    through files in draws/.spool, not through Dask; with a worker killed mid-run the
    files and figures are those of one process, and no spooled file is left behind.
    The module's own cluster stays up meanwhile: a second client in one process, as a
    lab's notebook may have (its futures must not wait on the other client's loop)."""
    # small tasks, many of them: some are still running when the first result is in
    one = cert_run(tmp_path / "one", jobs=1, task_draws=400)
    killer = KillOneWorker(None)
    opened = lab.cluster.open_client

    @contextlib.contextmanager
    def open_client(scheduler: Any, workers: int) -> Any:
        with opened(scheduler, workers) as client:
            killer.client = client  # the run's own cluster, to kill one of its workers
            yield client
        killer.client = _Gone()  # the raw stream's progress comes after the cluster

    monkeypatch.setattr(lab.cluster, "open_client", open_client)
    spooled: list[bool] = []
    take = rng.cert.run.take_lines

    def take_noting(r: Any) -> dict[str, bytes]:
        spooled.append(r.spooled is not None)
        return take(r)

    monkeypatch.setattr(rng.cert.run, "take_lines", take_noting)
    local = cert_run(tmp_path / "local", jobs=2, task_draws=400, progress=killer)
    assert killer.killed is not None
    assert stats(local) == stats(one)
    for name in ("targets.csv", "multipliers.csv", "cards.csv", "shuffles.csv"):
        assert (tmp_path / "local" / "draws" / name).read_bytes() == (
            tmp_path / "one" / "draws" / name).read_bytes(), name
    assert "embedded local Dask cluster" in (tmp_path / "local" / "report.md").read_text()
    assert spooled and all(spooled)  # every result named its files in the spool
    assert not (tmp_path / "local" / "draws" / ".spool").exists()


def test_a_spooled_result_names_whole_files_of_its_own(tmp_path: Path) -> None:
    """Two attempts at one task (Dask may start a task again while the first still
    runs) write files of their own; each result reads back its own lines, and removes
    them."""
    spec = dataclasses.replace(_cert_spec(4000), spool=str(tmp_path))
    block = Block(3, 3000, 4000, 0, 2)
    first, second = draw_task(spec, block), draw_task(spec, block)
    assert first.csv is None and first.spooled is not None and second.spooled is not None
    assert set(first.spooled.values()).isdisjoint(second.spooled.values())
    inline = draw_task(dataclasses.replace(spec, spool=""), block)
    assert inline.spooled is None
    assert take_lines(first) == take_lines(second) == inline.csv
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="dropped"):
        take_lines(first.without_outcomes())


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


@pytest.mark.parametrize("group", [3, None])
def test_grouped_tasks_fold_once_each_in_order_with_a_worker_killed(
        cluster: Any, group: int | None) -> None:
    """Several of our tasks to one Dask task (3: the last group short; None: as many
    as :func:`lab.tasks.group_for` gives a run of this size, 2): a busy worker killed,
    every task folded exactly once, in order, with the figures of the same tasks run
    one by one in this process."""
    from lab.tasks import group_for, run_here, run_tasks

    _address, client = cluster
    rules = load("blackjack")
    tasks = plan(rules, 17 * CHUNK, 5, False)
    assert group is not None or group_for(len(tasks), 6) == 2

    def folding(into: list[Any]) -> Any:
        return lambda t, tally: into.append((t.index, tally.rounds, tally.total,
                                             dict(tally.outcomes)))

    here: list[Any] = []
    run_here(play_task, tasks, folding(here))
    there: list[Any] = []
    killer = KillOneWorker(client)
    run_tasks(client, play_task, tasks, folding(there), group=group, progress=killer)
    assert killer.killed is not None
    assert killer.units == 17 * CHUNK
    assert there == here and [i for i, *_ in there] == list(range(17))
