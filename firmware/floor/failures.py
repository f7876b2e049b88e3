"""Repeated failures, logged as a technician can read them: one traceback, then counts.

A store that keeps failing (a disk full, a database refusing every write) fails on every
batch and every retry: a traceback each time was thousands a minute, burying the first —
the only one that says why. Here the first failure of each kind (exception type and
where) is logged with its traceback; the same kind again is counted, and a summary line
with the count and the last message is logged at most every :data:`SUMMARY_S` seconds;
while any failure lasts the floor's health says so on every page; the first success after
failures is logged once, with how many there were and for how long.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from firmware.floor.escape import one_line

#: seconds between two summary lines of one kind of failure
SUMMARY_S = 60.0
#: kinds of failure remembered at once (past it, new kinds share one count)
MAX_KINDS = 64


@dataclass
class _Kind:
    count: int  # failures not yet in a summary
    at: float  # time of its last line
    last: str  # the last one's message


class Failures:
    """``what``: what fails, as the log says it ("the floor's store"); ``on_change(text |
    None)``: told when failing starts (its text) and when it ends (None)."""

    def __init__(self, logger: logging.Logger, what: str,
                 on_change: Callable[[str | None], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log = logger
        self.what = what
        self.on_change = on_change or (lambda text: None)
        self.clock = clock
        self._lock = threading.Lock()
        self._kinds: dict[str, _Kind] = {}
        self.total = 0  # failures since the last success
        self._since = 0.0

    def failed(self, exc: BaseException, where: str = "", about: str = "") -> None:
        """``where``: part of its kind; ``about``: what it concerned this time (a table),
        in its message only."""
        kind = f"{type(exc).__name__}{' in ' + where if where else ''}"
        text = one_line(exc)[:300] or type(exc).__name__
        if about:
            text = f"{about}: {text}"
        now = self.clock()
        with self._lock:
            self.total += 1
            first_ever = self.total == 1
            if first_ever:
                self._since = now
            if kind not in self._kinds and len(self._kinds) >= MAX_KINDS:
                kind = "other failures"
            k = self._kinds.get(kind)
            new = due = False
            count = 0
            if k is None:
                self._kinds[kind] = _Kind(0, now, text)
                new = True
            else:
                k.count += 1
                k.last = text
                if now - k.at >= SUMMARY_S:
                    due, count, k.count, k.at = True, k.count, 0, now
        if new:
            self.log.error("%s failed (%s): %s", self.what, kind, text, exc_info=exc)
        elif due:
            self.log.error("%s: %d more failures like it (%s) in the last %.0f s, the last: "
                           "%s", self.what, count, kind, SUMMARY_S, text)
        if first_ever:
            self.on_change(f"{self.what} is failing ({kind}: {text[:160]})")

    def ok(self) -> None:
        """A success: if failures came before, the recovery is logged once."""
        if not self.total:
            return
        with self._lock:
            total, since, kinds = self.total, self._since, sorted(self._kinds)
            self.total, self._kinds = 0, {}
        self.log.warning("%s works again after %d failures over %.0f s (%s)", self.what,
                         total, self.clock() - since, ", ".join(kinds)[:300])
        self.on_change(None)
