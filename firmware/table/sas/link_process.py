"""One line's SAS link as a process of its own (``sas.layout = "process"``), seen from
the table: spawned, fed snapshots, its requests read, restarted when it dies.

The table keeps what must outlive the process: a pty's two ends (the path a host opened
stays the same across a restart of the link), the marks file's fd (passed), the last
snapshot (sent first to a new process) and the last transfer results. A UART is opened
by the process itself and so closes with it.

Threads here (none is the controller's): a supervisor per line spawns the process, reads
its requests (JSON, checked field by field by :func:`firmware.table.sas.link_feed.handle`)
and starts it again when it ends; a sender per process writes the newest snapshot (a
slow process never blocks the controller: :meth:`LinkChild.feed` only replaces what the
sender sends next). The supervisor thread spawns, so the process's
``PR_SET_PDEATHSIG`` (which fires when the spawning *thread* ends) lasts while the table
runs; the pipe's EOF ends the process too.

A dead process (killed, crashed) is journaled (1104 SAS link restarted, with its exit
status) and started again at once, then at most every :data:`BACKOFF_S`: the table plays
on, since the link holds nothing of its own (what it answers is the journal's, the AFT
registration a host makes again); a host sees a silence shorter than one of its own
timeouts. Play is not stopped for it: a seat without its link is a seat whose host is
lost, and ``sas.disable_on_host_loss`` already says what the casino wants then.
"""

from __future__ import annotations

import contextlib
import json
import logging
import mmap
import os
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import drivers
from firmware.table.sas.pending import CommitTells

log = logging.getLogger("etg.sas")

#: a process that dies is started again after this long (then doubled, up to the most)
BACKOFF_S = 0.2
MOST_BACKOFF_S = 5.0
#: how long an answer to a request waits for its snapshot to reach the link's process
FLUSH_S = 0.25
#: a request from the process larger than this is not read (the schema's messages are
#: a few hundred bytes)
MAX_MESSAGE = 65_536
_ROOT = Path(drivers.__file__).resolve().parent.parent


class _Described:
    """The port of a line whose device the process opens (only its name here)."""

    has_wakeup = True

    def __init__(self, path: str) -> None:
        self.path = path
        self.description = f"uart {path}"

    def close(self) -> None:
        pass


Handler = Callable[["LinkChild", Mapping[str, Any]], None]


class LinkChild:
    """The process of one line (``port``: a :class:`~drivers.sas.ports.PtyPort` the table
    holds, or None for a device path the process opens)."""

    def __init__(self, spec: str, port: Any, addresses: set[int], *, interbyte_s: float,
                 host_lost_s: float, marks_fd: int, handle: Handler, priority: str,
                 on_death: Callable[[LinkChild, int | None], None]) -> None:
        self.spec = spec
        self.port = port if port is not None else _Described(spec)
        self.addresses = frozenset(addresses)
        self._cfg = {"addresses": sorted(addresses), "interbyte_s": interbyte_s,
                     "host_lost_s": host_lost_s, "marks_fd": marks_fd, "priority": priority}
        self.granted = "not started"
        self.handle = handle
        self.on_death = on_death
        self.counts: Counter[str] = Counter()
        self.splitter = SimpleNamespace(counts=Counter())
        self._stats: dict[str, Any] = {}
        self.latencies: list[float] = []
        self.restarts = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self._cv = threading.Condition()
        self._snap: dict[int, Any] | None = None
        self._snap_gen = 0
        self._snap_tag = 0
        # the commits told pending (before their COMMIT) in a page the process reads
        # before it answers a meter (firmware.table.sas.pending, docs/sas.md)
        self._pend_fd = os.memfd_create("etg-sas-pending", os.MFD_CLOEXEC)
        os.ftruncate(self._pend_fd, 8)
        self.tells = CommitTells(mmap.mmap(self._pend_fd, 8))
        self._sent_gen = 0  # the newest snapshot the sender has written to the process
        self._tells: deque[tuple[Any, ...]] = deque()
        self.results: deque[tuple[Any, ...]] = deque(maxlen=64)
        self._stopping = False
        self._supervisor: threading.Thread | None = None
        self.started = threading.Event()
        self._ping = 0
        self._pong = 0

    # -- from the table --------------------------------------------------------------------

    def feed(self, snaps: dict[int, Any], tag: int = 0) -> None:
        """The newest snapshots of this line's machines (the controller's thread);
        ``tag``: :meth:`CommitTells.resolved` read before they were built."""
        with self._cv:
            self._snap, self._snap_tag = snaps, tag
            self._snap_gen += 1
            self._cv.notify_all()

    def flush(self, timeout: float = FLUSH_S) -> bool:
        """Wait (the controller's thread, before it answers a request) until the newest
        snapshot is in the process's pipe: the process reads its pipe before it answers
        a poll, so a host that polls after the answer reads what the answer says. Not
        while no process runs (a restart sends the newest snapshot first anyway)."""
        with self._cv:
            gen = self._snap_gen
            return self._cv.wait_for(lambda: self._sent_gen >= gen or not self._alive(),
                                     timeout)

    def _alive(self) -> bool:
        proc = self.proc
        return proc is not None and proc.poll() is None and self.started.is_set()

    def offered(self, address: int) -> set[int]:
        """The exceptions (journal records) the newest snapshot offers ``address``: the
        only ones its process may say a host took."""
        with self._cv:
            snap = (self._snap or {}).get(address)
        return {seq for seq, _code in getattr(snap, "exceptions", ())}

    def tell(self, msg: tuple[Any, ...]) -> None:
        with self._cv:
            if msg[0] == "result":
                self.results.append(msg)
            self._tells.append(msg)
            self._cv.notify_all()

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until every request the process sent before now has been handled here
        (put into the inbox): a ping it answers behind them. For tests and the bench."""
        with self._cv:
            self._ping += 1
            n = self._ping
            self._tells.append(("ping", n))
            self._cv.notify_all()
            return self._cv.wait_for(lambda: self._pong >= n, timeout)

    # -- life ------------------------------------------------------------------------------

    def start(self) -> LinkChild:
        self._supervisor = threading.Thread(target=self._supervise, daemon=True,
                                            name=f"sas-link-{min(self.addresses)}")
        self._supervisor.start()
        if not self.started.wait(60):
            log.warning("SAS link process of %s not ready after 60 s", self.port.description)
        # the table's snapshot in the process before the line counts as open: a host's
        # first poll is answered, not met by silence (the ping goes behind the snapshot)
        elif self._snap is not None and not self.sync(30):
            log.warning("SAS link process of %s has no snapshot after 30 s",
                        self.port.description)
        return self

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            self._tells.append(("stop",))
            self._cv.notify_all()
        if self._supervisor is not None:
            self._supervisor.join(5)
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)
        self.port.close()
        with contextlib.suppress(OSError):  # the page stays: a late stager writes it
            os.close(self._pend_fd)

    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def _supervise(self) -> None:
        backoff = BACKOFF_S
        while not self._stopping:
            t0 = time.monotonic()
            try:
                self._one_life()
            except Exception:
                log.exception("SAS link process of %s", self.port.description)
            if self._stopping:
                return
            rc = self.proc.wait() if self.proc is not None else None
            self.restarts += 1
            log.warning("SAS link process of %s ended (exit %s): started again",
                        self.port.description, rc)
            with contextlib.suppress(Exception):
                self.on_death(self, rc)
            backoff = BACKOFF_S if time.monotonic() - t0 > 10 else min(backoff * 2,
                                                                        MOST_BACKOFF_S)
            time.sleep(backoff if self.restarts > 1 else 0.0)

    def _spawn(self) -> tuple[Connection, Connection]:
        snap_r, snap_w = os.pipe()
        req_r, req_w = os.pipe()
        cfg: dict[str, Any] = {**self._cfg, "parent": os.getpid(), "snap_fd": snap_r,
                               "req_fd": req_w, "pending_fd": self._pend_fd}
        fds = [snap_r, req_w, self._pend_fd]
        if cfg["marks_fd"] >= 0:
            fds.append(cfg["marks_fd"])
        if isinstance(self.port, _Described):
            cfg["port"] = {"kind": "uart", "path": self.spec}
        else:
            cfg["port"] = {"kind": "pty", "master": self.port.master,
                           "slave": self.port._slave, "path": self.port.path}
            fds += [self.port.master, self.port._slave]
        # a clean environment: nothing of the table's (keys, paths, settings) reaches it
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(_ROOT),
               "LANG": "C.UTF-8"}
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "drivers.sas.process"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, pass_fds=fds, env=env, cwd="/")
        finally:
            os.close(snap_r)
            os.close(req_w)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cfg).encode() + b"\n")
        self.proc.stdin.close()
        # "ready" and the priority granted (or EOF: it died; the reader sees EOF)
        ready = self.proc.stdout.readline().decode(errors="replace").split(None, 1)
        if ready and ready[0] == "ready":
            self.granted = ready[1].strip() if len(ready) > 1 else "normal"
            # every life, not only the first: a technician finds the process by this
            # line, which must not name a dead pid after a restart (red team r46 F2)
            log.info("SAS link process %d of %s: priority %s", self.proc.pid,
                     self.port.description, self.granted)
        return Connection(snap_w, readable=False), Connection(req_r, writable=False)

    def _one_life(self) -> None:
        out, inp = self._spawn()
        with self._cv:  # a new process: the newest snapshot first, then the results
            self._tells = deque(m for m in self._tells if m[0] == "stop")
            self._tells.extendleft(reversed(self.results))
            gen = [self._snap_gen - 1]
        sender = threading.Thread(target=self._send_loop, args=(out, gen), daemon=True,
                                  name=f"sas-feed-{min(self.addresses)}")
        sender.start()
        self.started.set()
        try:
            while True:
                try:
                    raw = inp.recv_bytes(MAX_MESSAGE)
                except (EOFError, OSError):
                    return
                try:
                    msg = json.loads(raw)
                except ValueError:
                    self.counts["bad_request"] += 1
                    continue
                if not isinstance(msg, dict):
                    self.counts["bad_request"] += 1
                elif msg.get("op") == "stats":
                    self._take_stats(msg)
                elif msg.get("op") == "pong":
                    with self._cv:
                        self._pong = max(self._pong, int(msg.get("n") or 0))
                        self._cv.notify_all()
                else:
                    self.handle(self, msg)
        finally:
            inp.close()
            with self._cv:
                self._cv.notify_all()
            sender.join(2)
            out.close()

    def _send_loop(self, out: Connection, gen: list[int]) -> None:
        proc = self.proc
        while True:
            with self._cv:
                while (self._snap is None or self._snap_gen == gen[0]) and not self._tells:
                    if proc is None or proc.poll() is not None:
                        return
                    self._cv.wait(0.5)
                snap = None
                if self._snap is not None and self._snap_gen != gen[0]:
                    snap, tag, gen[0] = self._snap, self._snap_tag, self._snap_gen
                tells = list(self._tells)
                self._tells.clear()
            try:
                if snap is not None:
                    out.send(("snap", snap, tag))
                    with self._cv:
                        self._sent_gen = max(self._sent_gen, gen[0])
                        self._cv.notify_all()
                for t in tells:
                    out.send(t)
            except (OSError, ValueError):
                return
            if any(t[0] == "stop" for t in tells):
                return

    def _take_stats(self, msg: Mapping[str, Any]) -> None:
        st = msg.get("stats")
        if not isinstance(st, dict):
            return
        self._stats = st
        for k, v in st.items():
            if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool):
                if k.startswith("dropped_"):
                    self.splitter.counts[k[len("dropped_"):]] = v
                else:
                    self.counts[k] = v
        lat = msg.get("latencies")
        if isinstance(lat, list) and lat:
            self.latencies = [float(x) for x in lat if isinstance(x, (int, float))]

    def stats(self) -> dict[str, object]:
        """The process's own figures, as it last sent them (its final ones after stop)."""
        return {**self._stats, "restarts": self.restarts}
