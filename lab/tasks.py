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
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


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


def run_tasks(
    client: Any,
    func: Callable[..., Any],
    tasks: Sequence[Task],
    fold: Callable[[Task, Any], None],
    *,
    skip: Iterable[int] = (),
    progress: Progress | None = None,
    window: int | None = None,
) -> int:
    """Run ``tasks`` (less ``skip``) and fold each result in index order; returns the count."""
    from dask.distributed import as_completed

    skipped = set(skip)
    todo = [t for t in sorted(tasks, key=lambda t: t.index) if t.index not in skipped]
    limit = window or window_for(client)
    run_id = uuid.uuid4().hex[:12]
    name = getattr(func, "__name__", "task")
    by_key: dict[str, Task] = {}
    ready: dict[int, Any] = {}
    next_submit = 0
    next_fold = 0
    pending = as_completed()

    def submit() -> None:
        nonlocal next_submit
        while next_submit < len(todo) and next_submit - next_fold < limit:
            t = todo[next_submit]
            key = f"etg-{name}-{run_id}-{t.index}"
            by_key[key] = t
            pending.add(client.submit(func, *t.args, key=key, pure=False))
            next_submit += 1

    submit()
    for fut in pending:
        task = by_key.pop(fut.key)
        result = fut.result()  # re-raises a task's exception
        fut.release()
        if progress is not None:
            progress.update(task.units)
        ready[task.index] = result
        while next_fold < len(todo) and todo[next_fold].index in ready:
            t = todo[next_fold]
            fold(t, ready.pop(t.index))
            next_fold += 1
        submit()
    return len(todo)


def run_here(func: Callable[..., Any], tasks: Sequence[Task], fold: Callable[[Task, Any], None],
             *, skip: Iterable[int] = (), progress: Progress | None = None) -> int:
    """The same run in this process, one task after another (no cluster, no Dask)."""
    skipped = set(skip)
    n = 0
    for t in sorted(tasks, key=lambda t: t.index):
        if t.index in skipped:
            continue
        result = func(*t.args)
        if progress is not None:
            progress.update(t.units)
        fold(t, result)
        n += 1
    return n
