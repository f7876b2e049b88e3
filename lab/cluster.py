"""Where a run runs: an embedded Dask ``LocalCluster`` or an existing Dask cluster.

We never run a scheduler of our own: the default is Dask's ``LocalCluster`` with one
single-threaded worker process per core (the work is CPU-bound Python and numba, so
processes, not threads), and ``--scheduler tcp://HOST:PORT`` (or Dask's configuration
key ``scheduler-address``, e.g. ``DASK_SCHEDULER_ADDRESS`` or a YAML file in
``~/.config/dask/``) connects to a cluster started with ``dask scheduler`` and
``dask worker``. Workers of an existing cluster must have this package installed at the
same version (the tasks are functions of it).
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from etgcore.errors import UserError

INSTALL_HINT = "pip install 'etg-firmware[lab]'"
_ADDRESS = re.compile(r"^(tcp|tls|ws|wss)://[A-Za-z0-9.\-\[\]:]+:\d{1,5}$")


@dataclass(frozen=True)
class ClusterInfo:
    """What a report says about where the run ran."""

    scheduler: str  # the scheduler's address ("local" cluster addresses included)
    local: bool  # an embedded LocalCluster of this process
    workers: int  # worker processes when the run started
    threads: int  # task slots when the run started

    def describe(self) -> str:
        kind = "embedded local Dask cluster" if self.local else "Dask cluster"
        return f"{kind} at {self.scheduler}, {self.workers} worker(s), {self.threads} slot(s)"


def check_address(text: str) -> str:
    """``text`` as a scheduler address, or one line saying what one looks like."""
    address = text.strip()
    if not _ADDRESS.match(address):
        raise UserError(f"--scheduler {text!r}: expected a Dask scheduler address such as "
                        "tcp://HOST:8786")
    return address


def configured_scheduler() -> str | None:
    """Dask's own ``scheduler-address`` setting (environment or YAML), if any."""
    import dask

    value = dask.config.get("scheduler-address", None)
    return str(value) if value else None


#: Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (to hand freed
#: memory back to the system). Setting it also switches off glibc's sliding mmap
#: threshold, so every array over 128 KiB a task makes is a fresh mmap whose pages the
#: kernel faults in and zeroes: a cert task of 2^20 draws took ~1.7x the CPU (2.4x the
#: page faults) in a worker than in a plain process. Our tasks' memory is constant and
#: returns to the allocator each task, so the embedded cluster's workers keep glibc's
#: default (a lab's own ``dask worker`` processes: see docs/math.md).
_WORKER_ENVIRON = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}

#: Dask's servers (the scheduler and the nannies in this process, each worker in its own)
#: wake on timers for the dashboard's statistical profiler (100 stack samples a second in
#: every worker), an event-loop watchdog (50 ticks a second per server), system and
#: memory monitors and work stealing (10 a second). Idle, a cluster of two took ~16% of a
#: core in all; busy, each wakeup also takes the GIL from a task, and a cert task's
#: worker spent a further ~20% of the task's CPU on its event loop: on 2 cores that was
#: the gap between the cluster (1.69x) and two plain processes (2.01x). Nothing of ours
#: reads those figures (no dashboard is served), so the embedded cluster samples less
#: often: ~2% of a core idle. A lab's own workers: docs/math.md.
_QUIET_SERVERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing-interval": "1s",
    # every task the run submits (its window: three per worker) goes to a worker at once,
    # instead of the scheduler holding all but one per worker back ("queuing", for graphs
    # far larger than a worker's memory; ours is bounded by the window): a worker that
    # finishes a task starts its next without waiting for the scheduler's answer
    "distributed.scheduler.worker-saturation": float("inf"),
}


def _dask() -> Any:
    try:
        import dask.distributed as dd
    except ImportError as exc:
        raise UserError(f"running on a Dask cluster needs dask.distributed, not importable "
                        f"here (missing {exc.name or 'distributed'}): {INSTALL_HINT}, or "
                        "run with --jobs 1 (one process, no cluster)") from None
    return dd


def _is_dask_cancel_slip(record: logging.LogRecord) -> bool:
    """Dask's own ``sync`` cancel callback, run on its event loop after a Ctrl-C reached
    the waiting thread, reads a variable it never bound and logs the NameError through
    tornado. That is a slip inside Dask (the wait it cancels is gone anyway), not a fault
    of the run, and the event-loop thread may log it before or after this thread sees the
    interrupt; any other error from the loop is still logged."""
    exc = record.exc_info[1] if record.exc_info else None
    if not isinstance(exc, NameError):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    return bool(code and code.co_name == "cancel" and "distributed" in code.co_filename)


class _DaskCancelSlip(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _is_dask_cancel_slip(record)


@contextlib.contextmanager
def _cancel_slip_hidden() -> Iterator[None]:
    """While a client lives, the loop's logger drops :func:`_is_dask_cancel_slip`."""
    logger, slip = logging.getLogger("tornado.application"), _DaskCancelSlip()
    logger.addFilter(slip)
    try:
        yield
    finally:
        logger.removeFilter(slip)


@contextlib.contextmanager
def open_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A connected ``dask.distributed.Client``; a local cluster of ``workers`` by default."""
    with _cancel_slip_hidden():
        yield from _open_client(scheduler, workers)


def _open_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    dd = _dask()
    # the run's own progress and report say what happened; Dask's INFO lines would bury them
    logging.getLogger("distributed").setLevel(logging.WARNING)
    # a worker slow to exit when the cluster closes (a loaded machine) is killed: not news
    logging.getLogger("distributed.nanny").setLevel(logging.ERROR)
    address = check_address(scheduler) if scheduler else configured_scheduler()
    if address:
        try:
            client = dd.Client(address, timeout="15s")
        except (OSError, TimeoutError) as exc:
            raise UserError(f"--scheduler {address}: no Dask scheduler answered "
                            f"({type(exc).__name__}); start one with `dask scheduler` and "
                            "`dask worker ADDRESS`") from None
        with client:
            yield client
        return
    with _local_client(dd, workers) as client:
        yield client


@contextlib.contextmanager
def _local_client(dd: Any, workers: int) -> Iterator[Any]:
    """A client of an embedded ``LocalCluster``, closed however the run ends."""
    import dask

    cluster = client = None
    interrupted: list[bool] = []
    try:
        with _ctrl_c_held(interrupted), dask.config.set({**_WORKER_ENVIRON, **_QUIET_SERVERS}):
            cluster = dd.LocalCluster(n_workers=max(1, workers), threads_per_worker=1,
                                      processes=True, dashboard_address=":0",
                                      # a worker's own ERROR lines are the gathers an
                                      # interrupted run cuts short; a task's failure
                                      # reaches the client as its exception
                                      silence_logs=logging.CRITICAL)
            client = dd.Client(cluster)
        if interrupted:
            raise KeyboardInterrupt  # pressed while the cluster started: now it can close
        yield client
    except KeyboardInterrupt:
        # Ctrl-C: the cluster is torn down mid-task; the command line says so in one
        # line, without Dask's notes about the workers it had to kill
        # (nor the traceback Dask's own cancel callback of an interrupted ``sync`` logs
        # through tornado: a NameError inside Dask, not a fault of the run)
        for name in [n for n in logging.root.manager.loggerDict if
                     n in ("distributed", "tornado") or n.startswith(("distributed.",
                                                                      "tornado."))]:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        logging.getLogger("tornado.application").setLevel(logging.CRITICAL)
        raise
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def _ctrl_c_held(pressed: list[bool]) -> Iterator[None]:
    """Ctrl-C while the local cluster starts: noted in ``pressed``, acted on once it has.

    At a terminal Ctrl-C signals the whole process group, workers included, and a Dask
    cluster interrupted half-way through its start leaves threads and processes that
    print their own tracebacks. So while it starts, SIGINT is *blocked* in this thread:
    Dask's event-loop thread, created now, inherits the mask, and so does every thread
    it makes and every worker process those spawn (a signal mask survives fork and
    exec) — the workers never take Ctrl-C, whoever presses it, for as long as they live
    (a worker the nanny restarts later too); the cluster closes them. A Ctrl-C that
    reaches this process meanwhile waits, pending (or, taken by some other thread of
    ours, runs the handler here that only notes it), and is consumed at the end. After
    the start this thread takes Ctrl-C again at once, as before."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # multiprocessing unblocks SIGINT in the thread that first starts its resource
    # tracker (Dask's event loop, making the first worker's queues): start it here first
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    before = signal.signal(signal.SIGINT, lambda _sig, _frame: pressed.append(True))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if signal.SIGINT in signal.sigpending():
            signal.sigwait({signal.SIGINT})
            pressed.append(True)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def describe(client: Any) -> ClusterInfo:
    """Address, workers and task slots of the cluster ``client`` is connected to."""
    info = client.scheduler_info()
    ws = info.get("workers", {})
    threads = sum(int(w.get("nthreads", 1)) for w in ws.values())
    local = type(getattr(client, "cluster", None)).__name__ == "LocalCluster"
    return ClusterInfo(str(info.get("address", client.scheduler.address)), local, len(ws),
                       threads)
