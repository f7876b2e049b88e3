"""Every append checks that it wrote exactly what it meant to, before it commits.

SQLite reports success for an insert that a trigger ignored (``RAISE(IGNORE)``), for one
that an ``ON CONFLICT IGNORE`` table definition dropped, and for an update of a row that
another process changed underneath. A record that did not land must never be a silent
loss: the table would tell the attendant "applied, record N" and play on with evidence
missing. So inside the write transaction, after the inserts and before ``COMMIT``:

- the schema cookie is compared with the one the journal was verified with; when it
  moved (someone created a trigger, a view, an index or altered a table while the table
  runs) the schema is checked again (:func:`~firmware.journal.schema.foreign_objects`);
- the records after the previous head are read back and must be exactly the ones just
  written, column for column (none missing, none altered, none added), and the previous
  head must still be there with its hash;
- when meters changed, the whole meters table is read back and must equal what the
  journal held plus the deltas.

Any difference raises :class:`~firmware.journal.schema.JournalError`: the transaction is
rolled back and the table stops taking inputs (a journal failure, a tilt), exactly as for
a failed write. The cost is a few indexed reads per commit, next to its ``fsync``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

from firmware.journal.chain import Record, canonical
from firmware.journal.schema import JournalError, foreign_objects, schema_cookie

MeterKey = tuple[str, int, str]


def check_schema_unchanged(db: sqlite3.Connection, path: Path, cookie: int) -> int:
    """The schema cookie now; refuse (JournalError) when it moved to a foreign schema."""
    now = schema_cookie(db)
    if now != cookie:
        problem = foreign_objects(db)
        if problem is not None:
            raise JournalError(f"{path}: {problem}; nothing more is written")
    return now


def check_records_landed(db: sqlite3.Connection, path: Path, before_seq: int,
                         before_head: str, written: Sequence[Record]) -> None:
    """The records after ``before_seq`` are exactly ``written`` (and ``before_seq`` still
    holds ``before_head``)."""
    if before_seq:
        row = db.execute("SELECT hash FROM records WHERE seq = ?", (before_seq,)).fetchone()
        if row is None or row[0] != before_head:
            raise JournalError(f"{path}: record {before_seq}, the last one written, is no "
                               "longer in the journal as written; nothing more is written")
    got = db.execute(
        "SELECT seq, ts_ns, kind, code, round_no, body, txn_last, prev, hash FROM records"
        " WHERE seq > ? ORDER BY seq", (before_seq,)).fetchall()
    want = [(r.seq, r.ts_ns, r.kind, r.code, r.round_no, canonical(r.body), r.txn_last,
             r.prev, r.hash) for r in written]
    if got != want:
        seqs = [r.seq for r in written]
        raise JournalError(
            f"{path}: the write of record(s) {seqs[0]}..{seqs[-1]} did not land as written "
            f"(the journal holds {len(got)} record(s) after {before_seq}, "
            f"{'altered' if len(got) == len(want) else 'not the ones written'}): the "
            "database is not doing what it is told; nothing more is written")


def check_meters_landed(db: sqlite3.Connection, path: Path,
                        want: Mapping[MeterKey, int]) -> None:
    """The meters table holds exactly ``want`` (zero meters may be absent)."""
    got = {(str(n), int(s), str(w)): int(v) for n, s, w, v in
           db.execute("SELECT name, seat, wager, value FROM meters")}
    if {k: v for k, v in got.items() if v} != {k: v for k, v in want.items() if v}:
        bad = sorted(k for k in set(got) | set(want) if got.get(k, 0) != want.get(k, 0))
        name, seat, wager = bad[0]
        raise JournalError(
            f"{path}: meter {name} (seat {seat}{', ' + wager if wager else ''}) reads "
            f"{got.get(bad[0], 0)} after the write, not {want.get(bad[0], 0)}: the meters "
            "were changed outside the table, or the write did not land; nothing more is "
            "written")
