"""What the floor keeps in memory of each table between batches, and what one batch did.

:class:`TableState` mirrors the table's row in ``floor_tables`` (read back at start) plus
the little the checks need (recent bad messages, the clock's lags); :class:`Applied` is what
one committed batch changed, for the acknowledgements, the log and the live pit view.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from firmware.floor.db import Database
from firmware.floor.plausibility import ClockWatch

Work = list[tuple[str, tuple[Any, ...]]]
#: recent bad messages remembered per table (the quarantine threshold's upper bound)
MAX_BAD = 10_000
#: evidence rows one table may add per minute, and their bytes; log lines about it
EVIDENCE_ROWS_PER_MINUTE = 20
EVIDENCE_BYTES_PER_MINUTE = 256 * 1024
#: and their bytes in one day (UTC): what a table can add to the floor's disk at most, a
#: hostile one that stays under the minute's budget all day included (docs/floor.md)
EVIDENCE_BYTES_PER_DAY = 16 * 1024 * 1024
LOG_LINES_PER_MINUTE = 10


@dataclass
class Budget:
    """What one table may cost the floor's evidence and log in one minute: past it, rows
    and lines are counted, not written (the count and a sample go into one ``flood``
    alarm, and the excess counts toward quarantine)."""

    minute: int = -1
    rows: int = 0
    bytes: int = 0
    lines: int = 0
    excess: int = 0  # evidence rows not written this minute
    silenced: int = 0  # log lines not written this minute
    sample: str = ""
    day: int = -1
    day_bytes: int = 0

    def _roll(self, at: float) -> int:
        """A new minute starts afresh; returns the lines silenced in the one before."""
        m = int(at // 60)
        if m == self.minute:
            return 0
        was = self.silenced
        self.minute, self.rows, self.bytes, self.lines = m, 0, 0, 0
        self.excess, self.silenced, self.sample = 0, 0, ""
        return was

    def row(self, at: float, size: int) -> bool:
        self._roll(at)
        if int(at // 86400) != self.day:
            self.day, self.day_bytes = int(at // 86400), 0
        if self.rows >= EVIDENCE_ROWS_PER_MINUTE or \
                self.bytes + size > EVIDENCE_BYTES_PER_MINUTE or \
                self.day_bytes + size > EVIDENCE_BYTES_PER_DAY:
            self.excess += 1
            return False
        self.rows += 1
        self.bytes += size
        self.day_bytes += size
        return True

    def line(self, at: float) -> tuple[bool, int]:
        """(may this line be logged, lines silenced in the minute before)."""
        before = self._roll(at)
        if self.lines >= LOG_LINES_PER_MINUTE:
            self.silenced += 1
            return False, before
        self.lines += 1
        return True, before


class RowChanges:
    """The columns of each table's ``floor_tables`` row a batch sets, written as one
    UPDATE a table at the batch's end. Why: a statement for each thing that changed
    (status, meters, numbers, presence) wrote a row four times a batch, and on
    PostgreSQL every UPDATE writes the whole row again: most of the database's work at
    1,000 tables."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}

    def of(self, tid: str) -> dict[str, Any]:
        return self._rows.setdefault(tid, {})

    def seen(self, tid: str, at: float) -> None:
        row = self.of(tid)
        row["last_seen"] = max(at, row.get("last_seen") or 0.0)

    def work(self) -> Work:
        """One UPDATE a table (the column names are the ledger's own, never a table's)."""
        out: Work = []
        for tid, cols in self._rows.items():
            names = sorted(cols)
            out.append((f"UPDATE floor_tables SET {', '.join(f'{c} = ?' for c in names)}"
                        " WHERE table_id = ?", (*[cols[c] for c in names], tid)))
        self._rows = {}
        return out


@dataclass
class TableState:
    last_n: int = 0
    last_seq: int = 0  # journal seq of the newest record applied
    last_hash: str | None = None  # and its hash
    kinds_at_last: set[str] = field(default_factory=set)  # kinds applied at last_seq
    status_seq: int = 0  # journal seq of the status shown
    status_ts: float = 0.0  # its time of issue (the table's clock, never ahead of the floor's)
    head: str | None = None
    online: bool = False
    alarmed: set[str] = field(default_factory=set)  # kinds with an unacknowledged alarm
    meters: dict[str, Any] | None = None  # the last meters applied
    day: str = ""  # the gaming day of day_open
    day_open: dict[str, int] | None = None
    quarantined: str | None = None  # why, while quarantined
    bad: deque[float] = field(default_factory=lambda: deque(maxlen=MAX_BAD))
    clock: ClockWatch = field(default_factory=ClockWatch)
    budget: Budget = field(default_factory=Budget)
    #: the table's first record the floor applied was its journal's first message (n 1):
    #: the meters before it were all zero (the gaming day's opening, docs/floor.md)
    from_start: bool = False
    #: the newest journal time (ns) of its records the floor applied (in memory)
    last_ts_ns: int = 0

    def copy(self) -> TableState:
        """A copy to restore if the batch's transaction fails."""
        out = TableState(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        out.kinds_at_last, out.alarmed = set(self.kinds_at_last), set(self.alarmed)
        out.bad = deque(self.bad, maxlen=MAX_BAD)
        out.budget = Budget(**vars(self.budget))
        return out


def load_states(db: Database) -> dict[str, TableState]:
    """Every table's state as the database holds it (a restarted floor goes on from it)."""
    tables: dict[str, TableState] = {}
    for (tid, last_n, last_seq, last_hash, head, status, online, meters, day, day_open,
         quarantined) in db.all(
            "SELECT table_id, last_n, last_seq, last_hash, head, status, online, meters, day,"
            " day_open, quarantined FROM floor_tables"):
        st = json.loads(status) if status else {}
        tables[tid] = TableState(
            last_n=int(last_n), last_seq=int(last_seq), last_hash=last_hash,
            status_seq=int(st.get("seq") or 0), status_ts=float(st.get("ts") or 0.0),
            head=head, online=bool(online), meters=json.loads(meters) if meters else None,
            day=day or "", day_open=json.loads(day_open) if day_open else None,
            quarantined=quarantined)
    for tid, kind in db.all("SELECT DISTINCT table_id, kind FROM floor_alarms"
                            " WHERE ack_at IS NULL"):
        tables.setdefault(tid, TableState()).alarmed.add(kind)
    return tables


@dataclass
class Applied:
    """What one batch changed: for acknowledgements, the log and the live pit view."""

    #: per table, the acknowledgement to publish: ``{"n": N, "seq": S, "hash": H}``
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    events: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    alarms: list[dict[str, Any]] = field(default_factory=list)
    meters: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)  # software checks answered
    applied: int = 0
    duplicates: int = 0
    gaps: int = 0
    bad: int = 0
    #: tables with a gap: their acknowledgement is repeated, so they send from it again
    gapped: set[str] = field(default_factory=set)
    #: tables whose evidence went over its budget in this batch (the flood alarm's count)
    flooded: set[str] = field(default_factory=set)
    #: tables quarantined or released by this batch (the edge's gate follows)
    quarantined: set[str] = field(default_factory=set)
    released: set[str] = field(default_factory=set)
    received: list[float] = field(default_factory=list)
    #: per table: the newest table-side time (s) of what the batch applied — a record's
    #: journal time, a status's time of issue — so a page can tell how old its tile is
    as_of: dict[str, float] = field(default_factory=dict)
    #: per table, the messages the floor holds (n -> (hash, seq), None: not held) read
    #: once for the batch's resends: a table that sends again after a slow
    #: acknowledgement sends hundreds, and one query each fell further behind
    held: dict[str, dict[int, tuple[str, int] | None]] = field(default_factory=dict)
    #: and per table, journal record -> its hash (None: not held), for records going back
    held_seq: dict[str, dict[int, str | None]] = field(default_factory=dict)

    def merge(self, a: Applied) -> None:
        """Add another batch's doings to this one's (a batch applied table by table)."""
        for name in ("acks", "as_of"):
            getattr(self, name).update(getattr(a, name))
        for name in ("changed", "gapped", "quarantined", "released", "flooded"):
            getattr(self, name).update(getattr(a, name))
        for name in ("events", "rounds", "alarms", "meters", "checks", "received"):
            getattr(self, name).extend(getattr(a, name))
        for name in ("applied", "duplicates", "gaps", "bad"):
            setattr(self, name, getattr(self, name) + getattr(a, name))


#: alarms that say the table's journal went back: while one is open (not cleared by a
#: supervisor with a reason) the floor acknowledges nothing of that table, so its retained
#: acknowledgement keeps naming what it held before, and a rolled-back journal is never
#: witnessed as agreeing (issue 42, finding 4)
LATCH_KINDS = frozenset({"rollback", "sequence", "reuse"})


def latched(st: TableState) -> str | None:
    """The open alarm that latches the table's acknowledgement, or None."""
    return next(iter(sorted(LATCH_KINDS & st.alarmed)), None)


def ack_of(st: TableState) -> dict[str, Any]:
    """The acknowledgement payload: the outbox number held up to, and the journal record
    (sequence number and chain hash) of the newest record held, once there is one."""
    if st.last_seq and st.last_hash:
        return {"n": st.last_n, "seq": st.last_seq, "hash": st.last_hash}
    return {"n": st.last_n}
