"""The one gate every reader of a journal passes (issue 42, finding 2).

Whatever the table, a recovery or an offline command reads from the journal — transfer
ids, the auto-play grant ledger, the floor gate's state, the last stop, the software
fingerprint, rounds, events — comes through :meth:`Journal.records`, and that yields only
records the journal's proof covered: a gated connection (the table's writer, every
read-only command's reader) reads nothing until its proof opened the gate, and a reader
never past the record the proof ended at. A new reader cannot touch an unproven record,
because there is no other way to the records than this one.

The gate is kept by :class:`Gate`; the SQL of a reading by :func:`select`.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.journal.chain import Record
from firmware.journal.errors import JournalError

if TYPE_CHECKING:
    from firmware.journal.start_guard import StartGuard

#: no record is proven yet (a gated connection before its proof)
SHUT = -1


class Gate:
    """Up to which record a connection may read: ``None`` everything (an ungated
    connection, or a writer whose whole journal was proven before it wrote: it holds the
    lock, and what it adds it wrote itself), else the last record its proof covered."""

    def __init__(self, path: Path, gated: bool) -> None:
        self.path = path
        self.upto: int | None = SHUT if gated else None

    @property
    def open(self) -> bool:
        return self.upto is None

    def limit(self, upto_seq: int | None) -> int | None:
        if self.upto == SHUT:
            raise JournalError(f"{self.path}: the journal is read only once it is proven "
                               "(firmware.journal.opening)")
        if self.upto is None:
            return upto_seq
        return self.upto if upto_seq is None else min(upto_seq, self.upto)


def select(db: sqlite3.Connection, path: Path, *, since_seq: int,
           kinds: Iterable[str] | None, since_ns: int | None, round_no: int | None,
           upto_seq: int | None, newest_first: bool,
           codes: Iterable[int] | None = None,
           guard: StartGuard | None = None) -> Iterator[Record]:
    """The records of one reading, in record order (or newest first); ``codes``: of
    events. ``guard`` (a start's writer, :mod:`firmware.journal.start_guard`): the
    reading's snapshot must be the proven journal, and each record verifies."""
    sql = ("SELECT seq, ts_ns, kind, code, round_no, body, prev, hash, txn_last"
           " FROM records WHERE seq > ?")
    args: list[Any] = [since_seq]
    for column, wanted in (("kind", kinds), ("code", codes)):
        if wanted is not None:
            args += (values := list(wanted))
            sql += f" AND {column} IN ({','.join('?' * len(values))})"
    if since_ns is not None:
        sql += " AND ts_ns >= ?"
        args.append(since_ns)
    if round_no is not None:
        sql += " AND round_no = ?"
        args.append(round_no)
    if upto_seq is not None:
        sql += " AND seq <= ?"
        args.append(upto_seq)
    sql += " ORDER BY seq DESC" if newest_first else " ORDER BY seq"
    try:
        rows = iter(db.execute(sql, args))
        first = next(rows, None)
        if guard is not None:  # on the statement's own snapshot (or after it ended)
            guard.check(db)
        before: tuple[int, str, str] | None = None
        for seq, ts, kind, code, rnd, body, prev, digest, txn_last in (
                () if first is None else itertools.chain((first,), rows)):
            if guard is not None:
                guard.check_record(seq, ts, kind, code, rnd, body, prev, digest, txn_last,
                                   before)
                before = (seq, prev, digest)
            yield Record(seq, ts, kind, code, rnd, json.loads(body), prev, digest, txn_last)
    except sqlite3.Error as exc:
        raise JournalError(f"{path}: journal read failed: {exc}") from exc
