"""Time for the scanner, injectable so tests and the bench drive scans without waiting."""

from __future__ import annotations

import threading


class ManualClock:
    """A clock that moves only when told: ``sleep`` advances it instead of waiting.

    Give a panel ``clock=c.now, sleep=c.sleep`` and every scan, settle and debounce
    interval happens in simulated time, exactly and instantly.
    """

    def __init__(self, start: float = 1000.0) -> None:
        self._t = start
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._t

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self._t += max(0.0, seconds)

    advance = sleep
