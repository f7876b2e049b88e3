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


def _dask() -> Any:
    try:
        import dask.distributed as dd
    except ImportError as exc:
        raise UserError(f"running on a Dask cluster needs dask.distributed, not importable "
                        f"here (missing {exc.name or 'distributed'}): {INSTALL_HINT}, or "
                        "run with --jobs 1 (one process, no cluster)") from None
    return dd


@contextlib.contextmanager
def open_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A connected ``dask.distributed.Client``; a local cluster of ``workers`` by default."""
    dd = _dask()
    import dask

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
    with _ctrl_c_to_this_process_only(), dask.config.set(_WORKER_ENVIRON):
        cluster = dd.LocalCluster(n_workers=max(1, workers), threads_per_worker=1,
                                  processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR)
    with cluster, dd.Client(cluster) as client:
        try:
            yield client
        except KeyboardInterrupt:
            # Ctrl-C: the cluster is torn down mid-task; the command line says so in one
            # line, without Dask's notes about the workers it had to kill
            for name in [n for n in logging.root.manager.loggerDict if
                         n == "distributed" or n.startswith("distributed.")]:
                logging.getLogger(name).setLevel(logging.CRITICAL)
            raise


@contextlib.contextmanager
def _ctrl_c_to_this_process_only() -> Iterator[None]:
    """Start the local workers with SIGINT ignored (a spawned Python keeps an ignored
    SIGINT ignored): Ctrl-C at a terminal signals the whole process group, and each worker
    would print its own KeyboardInterrupt traceback. This process alone takes it and
    closes the cluster."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def describe(client: Any) -> ClusterInfo:
    """Address, workers and task slots of the cluster ``client`` is connected to."""
    info = client.scheduler_info()
    ws = info.get("workers", {})
    threads = sum(int(w.get("nthreads", 1)) for w in ws.values())
    local = type(getattr(client, "cluster", None)).__name__ == "LocalCluster"
    return ClusterInfo(str(info.get("address", client.scheduler.address)), local, len(ws),
                       threads)
