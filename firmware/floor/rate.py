"""What one table may send the floor per second: a byte budget per table (a token bucket).

Every valid record the floor takes is stored for good, so a hostile table sending valid
records as fast as its link allows would fill the floor's disk at its own pace (and valid
statuses, its store thread's time). Each table has :data:`BYTES_PER_S` of messages
(records, statuses, software answers) a second, with :data:`BURST_BYTES` to spend at
once (a backlog after a long outage: a day of play at 80 rounds an hour is about 3 MB).
A message past the budget is dropped unacknowledged — nothing is lost: the table keeps
it in its outbox and sends it again when the floor reports the gap — so an honest table
is slowed only while it drains more than the burst, and a hostile one adds at most
:data:`BYTES_PER_S` a second (docs/floor.md, "Bounded by design").
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("etg.floor")

#: a table's sustained records budget (bytes a second): ten times a table dealing a round
#: a second (about 1.7 KB a round with its meters and chain)
BYTES_PER_S = 16 * 1024
#: messages past the budget are reported to the ledger at most this often (seconds),
#: when more than :data:`FLOODING` of them were refused since the last report: an honest
#: link past its budget (a long outage's backlog) sends a window of 16 records messages
#: every 30 s and a status at most five times a second, so fewer than ten a second
REPORT_S = 1.0
FLOODING = 50
#: what it may send at once
BURST_BYTES = 16 * 1024 * 1024


class TableRate:
    def __init__(self, per_s: float = BYTES_PER_S, burst: float = BURST_BYTES) -> None:
        self.per_s, self.burst = per_s, burst
        self._left: dict[str, tuple[float, float]] = {}  # table: (bytes left, as of)
        self._lock = threading.Lock()
        self.refused: dict[str, int] = {}  # messages refused per table, since the last log
        self._logged: dict[str, float] = {}
        self._over: dict[str, tuple[float, int]] = {}  # (reported at, refused since)

    def take(self, table_id: str, size: int, now: float) -> bool:
        """Spend ``size`` bytes of the table's budget; False (nothing spent) past it."""
        with self._lock:
            left, at = self._left.get(table_id, (self.burst, now))
            left = min(self.burst, left + max(0.0, now - at) * self.per_s)
            if size > left:
                self._left[table_id] = (left, now)
                self.refused[table_id] = self.refused.get(table_id, 0) + 1
                self._log(table_id, now)
                return False
            self._left[table_id] = (left - size, now)
            return True

    def _log(self, table_id: str, now: float) -> None:
        """At most a line a minute per table (under the lock)."""
        if now - self._logged.get(table_id, -60.0) >= 60.0:
            self._logged[table_id] = now
            log.warning("table %s sends faster than its budget (%d KiB a second, "
                        "%d MiB at once): %d messages dropped unacknowledged (it sends them "
                        "again)", table_id, self.per_s // 1024, self.burst // 2**20,
                        self.refused.pop(table_id, 0))

    def over(self, table_id: str, now: float) -> int | None:
        """A message of the table refused (past its budget): the count to report to the
        ledger — at most once every :data:`REPORT_S` per table, and only a flood's (more
        than :data:`FLOODING` since the last report); None: nothing to report. A table
        flooding the floor (its presence, say) is not honest, and its flood delayed every
        other table's acknowledgement (red team h43 F4)."""
        with self._lock:
            last, count = self._over.get(table_id, (float("-inf"), 0))
            if now - last < REPORT_S:
                self._over[table_id] = (last, count + 1)
                return None
            self._over[table_id] = (now, 0)
            return count + 1 if count + 1 > FLOODING else None
