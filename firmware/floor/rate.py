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

Bytes are not what a message costs the floor's one network thread: 16 MiB of valid JSON
written as thousands of tiny objects, not compact (the duplicate-key check's slow path),
held that thread 2.3 s and delayed every other table's acknowledgement as long (red team
r43 F1). So each table also has a budget of the edge's own CPU time, measured per message
(:meth:`TableRate.spent`): :data:`CPU_PER_S` a second, :data:`CPU_BURST_S` at once; past
it the table's messages are dropped unacknowledged like any past its budget. An honest
table costs the edge about 50 us a message, 0.2 ms a second at a round a second; a day's
backlog after an outage about 0.2 s.
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
#: the edge's CPU time one table may cost a second, and at once (seconds)
CPU_PER_S = 0.02
CPU_BURST_S = 0.25


class TableRate:
    def __init__(self, per_s: float = BYTES_PER_S, burst: float = BURST_BYTES,
                 cpu_per_s: float = CPU_PER_S, cpu_burst: float = CPU_BURST_S) -> None:
        self.per_s, self.burst = per_s, burst
        self.cpu_per_s, self.cpu_burst = cpu_per_s, cpu_burst
        self._left: dict[str, tuple[float, float]] = {}  # table: (bytes left, as of)
        self._cpu: dict[str, tuple[float, float]] = {}  # table: (CPU seconds left, as of)
        self._lock = threading.Lock()
        self.refused: dict[str, int] = {}  # messages refused per table, since the last log
        self._logged: dict[str, float] = {}
        #: (reported at, refused since, of which reported already)
        self._over: dict[str, tuple[float, int, int]] = {}

    def take(self, table_id: str, size: int, now: float) -> bool:
        """Spend ``size`` bytes of the table's budget; False (nothing spent) past it, or
        past its CPU budget."""
        with self._lock:
            left, at = self._left.get(table_id, (self.burst, now))
            left = min(self.burst, left + max(0.0, now - at) * self.per_s)
            cpu, cat = self._cpu.get(table_id, (self.cpu_burst, now))
            cpu = min(self.cpu_burst, cpu + max(0.0, now - cat) * self.cpu_per_s)
            self._cpu[table_id] = (cpu, now)
            if size > left or cpu <= 0.0:
                self._left[table_id] = (left, now)
                self.refused[table_id] = self.refused.get(table_id, 0) + 1
                self._log(table_id, now)
                return False
            self._left[table_id] = (left - size, now)
            return True

    def spent(self, table_id: str, cpu_s: float) -> None:
        """What handling one of the table's messages cost the edge (CPU seconds)."""
        with self._lock:
            cpu, at = self._cpu.get(table_id, (self.cpu_burst, 0.0))
            self._cpu[table_id] = (cpu - cpu_s, at)

    def _log(self, table_id: str, now: float) -> None:
        """At most a line a minute per table (under the lock)."""
        if now - self._logged.get(table_id, -60.0) >= 60.0:
            self._logged[table_id] = now
            log.warning("table %s sends faster than its budget (%d KiB a second, "
                        "%d MiB at once, %.0f ms of the edge's CPU a second, %.0f ms at "
                        "once): %d messages dropped unacknowledged (it sends them again)",
                        table_id, self.per_s // 1024, self.burst // 2**20,
                        self.cpu_per_s * 1e3, self.cpu_burst * 1e3,
                        self.refused.pop(table_id, 0))

    def over(self, table_id: str, now: float) -> int | None:
        """A message of the table refused (past its budget): the count to report to the
        ledger — at most once every :data:`REPORT_S` per table, and only a flood's (more
        than :data:`FLOODING` since the last report); None: nothing to report. A table
        flooding the floor (its presence, say) is not honest, and its flood delayed every
        other table's acknowledgement (red team h43 F4)."""
        with self._lock:
            last, count, told = self._over.get(table_id, (float("-inf"), 0, 0))
            if now - last < REPORT_S:
                count += 1
                # a flood is reported the moment it is one, not at its second's end (its
                # cut waited a second meanwhile: red team r43 F6), the rest at the end
                flood = count > FLOODING and not told
                self._over[table_id] = (last, count, count if flood else told)
                return count if flood else None
            self._over[table_id] = (now, 0, 0)
            rest = count + 1 - told
            return rest if count + 1 > FLOODING and rest > 1 else None
