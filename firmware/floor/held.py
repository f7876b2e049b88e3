"""What the floor holds of a table's messages, read for a batch's checks in runs.

A table that sends again (after a slow acknowledgement) sends hundreds of messages the
floor holds, and a journal that went back sends runs of records it holds: one query each
let one table slow every table's batches. Each read here fetches a run of
:data:`HELD_READ` around the one asked for and keeps it for the batch (in
:class:`~firmware.floor.table_state.Applied`), within BIGINT's range (a number past it
fails the query, on SQLite as an overflow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.floor.table_state import Applied
from firmware.floor.wire import MAX_INT

if TYPE_CHECKING:
    from firmware.floor.db import Database

#: messages (or journal records) read at once
HELD_READ = 256


def message(db: Database, tid: str, n: int, out: Applied) -> tuple[str, int] | None:
    """Message ``n`` as the floor holds it: (hash, journal record), None: not held."""
    got = out.held.setdefault(tid, {})
    if n not in got:
        end = min(n + HELD_READ, MAX_INT)
        rows = db.all("SELECT n, hash, seq FROM floor_messages WHERE table_id = ?"
                      " AND n >= ? AND n <= ?", (tid, n, end))
        got.update(dict.fromkeys(range(n, end + 1)))
        got.update((int(m), (str(h), int(s))) for m, h, s in rows)
    return got[n]


def record_hash(db: Database, tid: str, seq: int, out: Applied) -> str | None:
    """The hash of journal record ``seq`` as the floor holds it (None: not held)."""
    got = out.held_seq.setdefault(tid, {})
    if seq not in got:
        lo, hi = max(seq - HELD_READ, 0), min(seq + HELD_READ, MAX_INT)
        rows = db.all("SELECT seq, hash FROM floor_messages WHERE table_id = ?"
                      " AND seq >= ? AND seq <= ?", (tid, lo, hi))
        got.update(dict.fromkeys(range(lo, hi + 1)))
        for s, h in rows:  # a journal record's messages share its hash: any one
            got[int(s)] = got.get(int(s)) or str(h)
    return got[seq]
