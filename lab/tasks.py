"""Run numbered tasks on a Dask client and fold their results back in task order.

A run is a list of :class:`Task` (index, progress units, arguments of one function).
:func:`run_tasks` keeps a bounded window of them submitted, so neither the client nor
the scheduler holds more than a few results whatever the run's size, and hands each
result to ``fold`` in task order (a reorder buffer at most the window long), so a run's
figures never depend on which worker finished first. Tasks already finished by an
earlier attempt (``skip``) are not submitted again.

Faults are Dask's: a worker that dies has its tasks rerun elsewhere by the scheduler
(its ``allowed-failures`` setting bounds how often one task may take a worker down).
Each task is one future with its own key, gathered once, so a rerun task is still
folded exactly once. An exception raised by a task is re-raised here and stops the run.

A run never waits forever: when the cluster has had no worker at all for a minute (all
of them died and none came back, or a scheduler nobody started workers for), or no task
has finished for half an hour while workers are there, the run stops with
:class:`ClusterStalled`: one line, exit code 3. What was folded until then is in the
run's checkpoint (``--checkpoint``), so the same command resumes it. A lab sets other
limits in its Dask configuration: ``etg.no-worker-timeout`` and ``etg.stall-timeout``
(seconds, or Dask's ``"2 minutes"``; e.g. ``DASK_ETG__NO_WORKER_TIMEOUT=300``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from etgcore.errors import Unavailable, UserError
from lab.errors import LabError

#: how long a cluster may have no worker at all before the run gives up (a nanny restarts
#: a killed worker in a few seconds; a lab's workers may take a minute to come back)
NO_WORKER_S = 60.0
#: how long a run waits for the next task while the cluster has workers (a task is a few
#: seconds; a hundred times that on a loaded machine is still far below this)
STALL_S = 1800.0
_LIMITS = {"etg.no-worker-timeout": NO_WORKER_S, "etg.stall-timeout": STALL_S}
#: how often a run that is waiting asks the scheduler how many workers it has
POLL_S = 2.0
#: how often it looks for finished tasks (a task takes a few tenths of a second at least;
#: three per worker are in flight, so this never leaves a worker idle)
_NAP_S = 0.02


class ClusterStalled(LabError, Unavailable):
    """The cluster stopped returning tasks: no worker left, or none finishing any."""


class Progress(Protocol):
    """What a progress display takes: units done (:class:`etgcore.progress.Progress` is one)."""

    def update(self, n: int) -> Any: ...


@dataclass(frozen=True)
class Task:
    """One unit of a run: ``func(*args)`` on some worker, worth ``units`` of progress."""

    index: int
    units: int
    args: tuple[Any, ...]


def window_for(client: Any) -> int:
    """Tasks kept in flight: three per task slot, enough to keep every worker busy."""
    ws = client.scheduler_info().get("workers", {})
    slots = sum(int(w.get("nthreads", 1)) for w in ws.values()) or 1
    return max(4, 3 * slots)


#: the most of our tasks one Dask task runs (see :func:`group_for`)
MAX_GROUP = 4


def group_for(tasks: int, window: int) -> int:
    """Our tasks per Dask task: up to :data:`MAX_GROUP`, while the run still has at least
    four Dask tasks per worker slot (the window is three per slot).

    WHY: each Dask task costs the cluster about 15-25 ms of CPU beside the work (the
    scheduler, the client's event loop, the worker's, the result's pickling), a few
    percent of a task of half a second, taken from the cores the tasks need; a group
    shares it. Grouping changes nothing a task computes (each keeps its own index and
    seed, and its result is folded alone), only how many go to a worker at once; a
    worker that dies has its whole group rerun, still folded once."""
    slots = max(1, window // 3)
    return max(1, min(MAX_GROUP, tasks // (4 * slots)))


def run_group(func: Callable[..., Any], args: list[tuple[Any, ...]]) -> list[Any]:
    """``func(*a)`` for each ``a`` in turn (one Dask task on a worker)."""
    return [func(*a) for a in args]


def run_tasks(
    client: Any,
    func: Callable[..., Any],
    tasks: Sequence[Task],
    fold: Callable[[Task, Any], None],
    *,
    skip: Iterable[int] = (),
    progress: Progress | None = None,
    window: int | None = None,
    group: int | None = None,
    no_worker_s: float | None = None,
    stall_s: float | None = None,
    load: Callable[[Task], tuple[Any, ...]] | None = None,
) -> int:
    """Run ``tasks`` (less ``skip``) and fold each result in index order; returns the count.
    ``window``: Dask tasks in flight (default :func:`window_for`); ``group``: our tasks
    per Dask task (default :func:`group_for`); ``no_worker_s``, ``stall_s``: the limits
    (default: the Dask configuration's, else :data:`NO_WORKER_S`, :data:`STALL_S`);
    ``load``: a task's arguments, made when it is submitted (in index order) instead of
    ``task.args``, so a run's input is read as it goes and never held whole."""
    skipped = set(skip)
    todo = [t for t in sorted(tasks, key=lambda t: t.index) if t.index not in skipped]
    limit = window or window_for(client)
    size = group or group_for(len(todo), limit)
    run_id = uuid.uuid4().hex[:12]
    name = getattr(func, "__name__", "task")
    in_flight: dict[Any, list[Task]] = {}
    ready: dict[int, Any] = {}
    next_submit = 0
    next_fold = 0
    watch = _Watch(client, _limit("etg.no-worker-timeout", no_worker_s),
                   _limit("etg.stall-timeout", stall_s), len(todo))

    def submit() -> None:
        nonlocal next_submit
        while next_submit < len(todo) and next_submit - next_fold < limit * size:
            chunk = todo[next_submit:next_submit + size]
            fut = client.submit(run_group, func, [_args(t, load) for t in chunk],
                                key=f"etg-{name}-{run_id}-{chunk[0].index}", pure=False)
            in_flight[fut] = chunk
            watch.add(fut)
            next_submit += len(chunk)

    submit()
    while in_flight:
        for fut in watch.finished(next_fold):
            chunk = in_flight.pop(fut)
            results = fut.result()  # re-raises a task's exception
            fut.release()
            for task, result in zip(chunk, results, strict=True):
                if progress is not None:
                    progress.update(task.units)
                ready[task.index] = result
        while next_fold < len(todo) and todo[next_fold].index in ready:
            t = todo[next_fold]
            fold(t, ready.pop(t.index))
            next_fold += 1
        submit()
    return len(todo)


def _limit(key: str, given: float | None) -> float:
    """A run's limit in seconds: given, else Dask's configuration, else ours."""
    if given is not None:
        return float(given)
    import dask
    from dask.utils import parse_timedelta

    value = dask.config.get(key, None)
    if value is None:
        return _LIMITS[key]
    try:
        seconds = parse_timedelta(value, default="seconds")
    except (ValueError, KeyError, TypeError):
        raise UserError(f"Dask configuration {key}: {value!r} is not a time (give seconds, "
                        "or e.g. '2 minutes')") from None
    if seconds is None or seconds <= 0:
        raise UserError(f"Dask configuration {key}: {value!r} must be above zero")
    return float(seconds)


@dataclass
class _Watch:
    """Collects finished tasks with their results, and says so when none will come.

    This thread looks at what Dask's ``as_completed`` has seen finish, in short sleeps,
    and gathers each result itself. (Waiting inside Dask's ``sync`` instead, e.g.
    ``distributed.wait``, has a Ctrl-C arriving there log a NameError traceback from
    Dask's own cancel callback; ``as_completed(with_results=True)`` logs the gathers a
    closing cluster cuts short.)"""

    client: Any
    no_worker_s: float
    stall_s: float
    total: int
    last_result: float = field(default_factory=time.monotonic)
    workerless_since: float | None = None
    pending: Any = None

    def add(self, future: Any) -> None:
        if self.pending is None:
            from dask.distributed import as_completed

            # on this client's event loop: made empty, as_completed would take the
            # process's default client's, and a second client in the process (a lab's
            # notebook, a test's cluster) leaves its futures' events on another loop
            self.pending = as_completed(loop=self.client.loop)
        self.pending.add(future)

    def finished(self, folded: int) -> list[Any]:
        """The futures of the tasks done, once at least one is (else
        :class:`ClusterStalled`)."""
        asked = time.monotonic()
        while True:
            batch = self.pending.next_batch(block=False)
            now = time.monotonic()
            if batch:
                self.last_result, self.workerless_since = now, None
                return list(batch)
            if now - asked >= POLL_S:
                self._check(now, folded)
                asked = now
            time.sleep(_NAP_S)

    def _check(self, now: float, folded: int) -> None:
        workers = len(self.client.nthreads())
        if workers:
            self.workerless_since = None
        elif self.workerless_since is None:
            self.workerless_since = now
        where = f"the Dask cluster at {self.client.scheduler.address}"
        if self.workerless_since is not None and now - self.workerless_since >= self.no_worker_s:
            why = f"{where} has had no worker for {self.no_worker_s:.0f} s"
        elif now - self.last_result >= self.stall_s:
            why = (f"no task finished for {self.stall_s:.0f} s on {where} "
                   f"({workers} worker(s))")
        else:
            return
        raise ClusterStalled(
            f"{why}; {folded} of {self.total} task(s) of this attempt were done (kept in "
            "the --checkpoint file if the run has one: start workers and run the same "
            "command again to resume)")


def _args(task: Task, load: Callable[[Task], tuple[Any, ...]] | None) -> tuple[Any, ...]:
    return load(task) if load is not None else task.args


def run_here(func: Callable[..., Any], tasks: Sequence[Task], fold: Callable[[Task, Any], None],
             *, skip: Iterable[int] = (), progress: Progress | None = None,
             load: Callable[[Task], tuple[Any, ...]] | None = None) -> int:
    """The same run in this process, one task after another (no cluster, no Dask)."""
    skipped = set(skip)
    n = 0
    for t in sorted(tasks, key=lambda t: t.index):
        if t.index in skipped:
            continue
        result = func(*_args(t, load))
        if progress is not None:
            progress.update(t.units)
        fold(t, result)
        n += 1
    return n
