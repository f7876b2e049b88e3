"""The floor service's own health, as every pit page shows it: is the broker reachable,
is the database, and since when not; is every thread alive (the watchdog's ``fault``);
how far behind the tables the floor is (``lag_s``: the floor's receipt of a live status
minus the time the table sent it: each table's median over :data:`LAG_WINDOW_S`, the
median over tables); and how
old the newest message from any table is.

A lost broker must never look like every table died: while the floor cannot reach it,
what the tiles show is the last thing known, and the page says the broker is unreachable
and since when. The ingest reports changes here; the hub passes them to open pages.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from firmware.floor.supervise import PING_S

log = logging.getLogger("etg.floor")

#: lag samples older than this (seconds) no longer count
LAG_WINDOW_S = 30.0
#: the pages say the floor is behind from this lag on (seconds)
LAG_SHOWN_S = 10.0
#: how often the floor's lag is worked out again (a median over every table's samples is
#: far too dear for each of a 1,000-table floor's thousand statuses a second)
LAG_EVERY_S = 1.0
#: a thread's heartbeat older than this (seconds) is a warning on every page
BEAT_WARN_S = {"network": 3 * PING_S + 2, "store": 15.0, "event loop": 10.0}
#: no message from any table this long (seconds) while tables are online: a warning (each
#: repeats its status every 30 s)
QUIET_S = 90.0


class Health:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        now = time.time()
        #: broker reachable?, since when; the database the same
        self.broker: tuple[bool, float] = (False, now)
        self._ever_connected = False
        self.database: tuple[bool, float] = (True, now)
        self.database_error = ""
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self.fault: str | None = None
        #: per table, its recent lags: the floor's lag is the median over tables of each
        #: table's median (one table, one vote: a table sending many statuses stamped
        #: long ago cannot make the floor look behind, nor hide that it is)
        self._lags: dict[str, deque[tuple[float, float]]] = {}
        self.newest: float | None = None  # floor time of the newest message from a table
        self._lag_shown = False
        self._lag_at = -LAG_EVERY_S  # when lag_sample last worked the lag out
        #: the watched threads' heartbeat ages (the supervisor's), and whether any table is
        #: online (the ledger's): set by the service
        self.beats: Callable[[], dict[str, float]] = dict
        self.expecting: Callable[[], bool] = lambda: False
        self._warned: tuple[str, ...] = ()
        #: lasting troubles by name (the broker's cut-off of quarantined tables, the
        #: store's repeated failures): each a line of the banner while it lasts
        self.problems: dict[str, str] = {}

    def heard(self, at: float) -> None:
        self.newest = at

    def lag_sample(self, lag: float, table: str = "") -> None:
        """One live status's lag; the pages are told when the floor starts or stops
        being behind (not on every sample)."""
        now = time.time()
        with self._lock:
            q = self._lags.get(table)
            if q is None:
                if len(self._lags) >= 100_000:
                    self._lags.clear()
                q = self._lags[table] = deque(maxlen=50)
            q.append((now, lag))
        if now - self._lag_at < LAG_EVERY_S:  # the banner may be a second late
            return
        self._lag_at = now
        behind = (self.lag() or 0.0) >= LAG_SHOWN_S
        if behind != self._lag_shown:
            self._lag_shown = behind
            self._changed()

    def lag(self) -> float | None:
        """The floor's lag: the median over tables of each table's median (one table, one
        vote)."""
        now = time.time()
        with self._lock:
            tables = [list(q) for q in self._lags.values()]
        per_table = []
        for q in tables:
            recent = [v for t, v in q if t > now - LAG_WINDOW_S]
            if recent:
                per_table.append(statistics.median(recent))
        return round(statistics.median(per_table), 1) if per_table else None

    def faulted(self, why: str) -> None:
        with self._lock:
            self.fault = why
        self._changed()

    def warnings(self) -> dict[str, str]:
        """What is late now, by what (a thread's name, or ``quiet``): the banner's text."""
        out: dict[str, str] = {}
        with self._lock:
            broker_up, since = self.broker
        ages = self.beats()
        for name, age in ages.items():
            if name == "network" and not broker_up:
                continue  # not beating while away is the broker banner, not this one
            if age > BEAT_WARN_S.get(name, 30.0):
                what = ("the floor's heartbeat through the broker has not come back"
                        if name == "network" else f"the {name} thread has not beaten")
                out[name] = f"{what} for {age:.0f} s"
        out.update(self.problems)
        heard = self.newest if self.newest is not None else since
        quiet = time.time() - max(heard, since)
        if broker_up and quiet > QUIET_S and self.expecting():
            out["quiet"] = (f"no message from any table for {quiet:.0f} s although "
                            "tables are online")
        return out

    def review(self) -> None:
        """From the watchdog, every second: tell the pages when a warning comes or goes."""
        now = tuple(sorted(self.warnings()))
        if now != self._warned:
            self._warned = now
            if now:
                log.warning("floor health: %s", "; ".join(self.warnings().values()))
            self._changed()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            snap = {"broker": self.broker[0], "broker_since": self.broker[1],
                    "database": self.database[0], "database_since": self.database[1],
                    "database_error": self.database_error, "fault": self.fault}
        lag = self.lag()
        snap["lag_s"] = lag if lag is not None and lag >= LAG_SHOWN_S else None
        snap["newest_age_s"] = (round(time.time() - self.newest, 1)
                                if self.newest is not None else None)
        snap["threads"] = self.beats()
        snap["warnings"] = list(self.warnings().values())
        return snap

    def _changed(self) -> None:
        snap = self.snapshot()
        for f in list(self.listeners):
            f(snap)

    def broker_up(self, up: bool, where: str) -> None:
        with self._lock:
            was, since = self.broker
            if was == up:
                return
            self.broker = (up, time.time())
        if up:
            log.info("connected to the broker %s%s", where,
                     f" (unreachable for {time.time() - since:.0f} s)"
                     if self._ever_connected else "")
            self._ever_connected = True
        else:
            log.error("lost the broker %s: the pit view shows what it last knew; "
                      "reconnecting", where)
        self._changed()

    def problem(self, name: str, why: str | None) -> None:
        """A lasting trouble (``why``) begins, changes, or ends (None)."""
        with self._lock:
            if self.problems.get(name) == why:
                return
            was = self.problems.pop(name, None)
            if why is not None:
                self.problems[name] = why
        if why is not None:
            log.error("floor health: %s", why)
        elif was is not None:
            log.info("floor health: no longer: %s", was)
        self._changed()

    def cutoff_problem(self, why: str | None) -> None:
        """The broker's cut-off of quarantined tables fails (``why``), or works again."""
        self.problem("cutoff", why)

    def store_problem(self, why: str | None) -> None:
        """The store keeps failing (``why``), or works again."""
        self.problem("store", why)

    def database_up(self, up: bool, error: str = "") -> None:
        with self._lock:
            was, since = self.database
            if was == up:
                return
            self.database = (up, time.time())
            self.database_error = error
        if up:
            log.info("the floor database is back (unreachable for %.0f s); catching up",
                     time.time() - since)
        else:
            log.error("%s: the floor database is unreachable; what the tables send waits "
                      "(unacknowledged, so nothing is lost) until it is back", error)
        self._changed()
