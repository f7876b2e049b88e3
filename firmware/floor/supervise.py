"""Supervised threads: each of the floor service's threads beats a heartbeat; a watchdog
judges the beats, and a dead or stuck thread ends the service for systemd to restart.

The audit's floor kept saying "broker up" with every tile open while its MQTT thread had
died: health was what the threads last *said*, not whether they still ran. Here health
is measured: the network thread proves itself by receiving the floor's own heartbeat
through the broker (:data:`PING_TOPIC`, every :data:`PING_S`), the store thread beats at
every pass of its loop (at least once a second, also while it retries a database that is
away), the event loop that serves the pages beats from a task. A thread that ended, or
whose beat is older than its limit, is a fault: a red banner on every page ("floor
service fault: …; restarting"), a CRITICAL log line, then the process stops with exit
status :data:`EXIT_FAULT` — ``Restart=on-failure`` brings up a fresh one, which picks up
from the database and the broker's persistent session (nothing acknowledged is lost, and
nothing unacknowledged was kept).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("etg.floor")

#: the floor's own heartbeat through the broker: a topic only the floor may write or read
#: (``etg/ack/#`` is the floor's; a table id cannot start with ``_``)
PING_TOPIC = "etg/ack/_floor-heartbeat"
PING_S = 5.0
#: a thread whose last beat is older than this (seconds) is stuck
NETWORK_STUCK_S = 60.0
STORE_STUCK_S = 120.0
LOOP_STUCK_S = 30.0
#: the exit status of a service ended by a fault (EX_SOFTWARE): systemd restarts it
EXIT_FAULT = 70
#: seconds between the banner going up and the process stopping (pages see why)
GRACE_S = 3.0


@dataclass
class _Watched:
    limit_s: float
    last: float
    thread: threading.Thread | None
    #: only judged while this says so (the network thread: while connected)
    active: Callable[[], bool] | None = None


class Supervisor:
    def __init__(self, on_fault: Callable[[str], None], clock: Callable[[], float] =
                 time.monotonic) -> None:
        """``on_fault(why)``: called once, from the watchdog thread, on the first fault."""
        self.on_fault = on_fault
        self.clock = clock
        self._watched: dict[str, _Watched] = {}
        self._lock = threading.Lock()
        self.fault: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="floor-watchdog", daemon=True)
        self.tick: Callable[[], None] = lambda: None  # run by the watchdog each pass

    def watch(self, name: str, limit_s: float, thread: threading.Thread | None = None,
              active: Callable[[], bool] | None = None) -> None:
        with self._lock:
            self._watched[name] = _Watched(limit_s, self.clock(), thread, active)

    def beat(self, name: str) -> None:
        w = self._watched.get(name)
        if w is not None:
            w.last = self.clock()

    def ages(self) -> dict[str, float]:
        now = self.clock()
        with self._lock:
            return {k: round(now - w.last, 1) for k, w in self._watched.items()}

    def problems(self) -> list[str]:
        now = self.clock()
        out = []
        with self._lock:
            items = list(self._watched.items())
        for name, w in items:
            if w.thread is not None and not w.thread.is_alive():
                out.append(f"the {name} thread has stopped")
            elif w.active is not None and not w.active():
                w.last = now  # not judged while inactive (a broker away is not a fault)
            elif now - w.last > w.limit_s:
                out.append(f"the {name} thread is stuck (no heartbeat for "
                           f"{now - w.last:.0f} s)")
        return out

    def check(self) -> str | None:
        """One judgement; the first fault is reported once."""
        found = self.problems()
        if found and self.fault is None:
            self.fault = "; ".join(found)
            log.critical("floor service fault: %s: the service stops for systemd to "
                         "restart it", self.fault)
            self.on_fault(self.fault)
        return self.fault

    def start(self) -> Supervisor:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.tick()
                self.check()
            except Exception:  # the watchdog itself never dies of a bug
                log.exception("the floor's watchdog")
