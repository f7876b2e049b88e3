"""The floor service's own health, as every pit page shows it: is the broker reachable,
is the database, and since when not.

A lost broker must never look like every table died: while the floor cannot reach it,
what the tiles show is the last thing known, and the page says the broker is unreachable
and since when. The ingest reports changes here; the hub passes them to open pages.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("etg.floor")


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

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"broker": self.broker[0], "broker_since": self.broker[1],
                    "database": self.database[0], "database_since": self.database[1],
                    "database_error": self.database_error}

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
