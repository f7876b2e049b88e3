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

from firmware.journal.chain import Record, RecordHasher
from firmware.journal.errors import JournalDamaged, JournalError

if TYPE_CHECKING:
    from firmware.journal.proven_index import ProvenIndex
    from firmware.journal.start_guard import StartGuard

_COLUMNS = "seq, ts_ns, kind, code, round_no, body, prev, hash, txn_last"
#: rows fetched by number in one statement (the first few smaller: one record is cheap)
_CHUNKS = (8, 500)

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
           guard: StartGuard | None = None, proven: ProvenIndex | None = None,
           hasher: RecordHasher | None = None) -> Iterator[Record]:
    """The records of one reading, in record order (or newest first); ``codes``: of
    events. ``guard`` (a start's writer, :mod:`firmware.journal.start_guard`): the
    reading's snapshot must be the proven journal, and each record verifies.
    ``proven`` (every proven connection): which records are read is decided by the
    proof's walk, never by a column or an index of the file
    (:mod:`firmware.journal.proven_index`); ``hasher``: each verifies too."""
    if proven is not None:
        yield from _by_number(db, path, proven, guard, hasher, since_seq=since_seq,
                              kinds=kinds, codes=codes, since_ns=since_ns,
                              round_no=round_no, upto_seq=upto_seq,
                              newest_first=newest_first)
        return
    sql = f"SELECT {_COLUMNS} FROM records WHERE seq > ?"
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


def _by_number(db: sqlite3.Connection, path: Path, proven: ProvenIndex,
               guard: StartGuard | None, hasher: RecordHasher | None, *, since_seq: int,
               kinds: Iterable[str] | None, codes: Iterable[int] | None,
               since_ns: int | None, round_no: int | None, upto_seq: int | None,
               newest_first: bool) -> Iterator[Record]:
    """A reading of a proven journal: the sequence numbers from the proof's walk, the
    rows fetched by number (the table's b-tree, never an index), each the row the proof
    saw (kind, code, hash fingerprint; its keyed hash with ``hasher`` or ``guard``)."""
    hi = proven.last if upto_seq is None else min(upto_seq, proven.last)
    codes = None if codes is None else set(codes)
    wanted = proven.seqs(since_seq + 1, hi, kinds, codes, newest_first)
    order = " DESC" if newest_first else ""
    before: tuple[int, str, str] | None = None
    size = _CHUNKS[0]
    try:
        while chunk := list(itertools.islice(wanted, size)):
            size = _CHUNKS[1]
            rows = db.execute(f"SELECT {_COLUMNS} FROM records NOT INDEXED WHERE seq IN "
                              f"({','.join('?' * len(chunk))}) ORDER BY seq{order}",
                              chunk).fetchall()
            if guard is not None:  # on the statement's own snapshot (it ended)
                guard.check(db)
            got = [int(r[0]) for r in rows]
            if got != chunk:
                missing = sorted(set(chunk) - set(got)) or chunk
                _changed(path, guard, f"record {missing[0]} is not in it")
            for seq, ts, kind, code, rnd, body, prev, digest, txn_last in rows:
                if not proven.agrees(seq, kind, code, digest) or (
                        guard is None and hasher is not None
                        and hasher(prev, seq, ts, kind, code, rnd, txn_last, body) != digest):
                    _changed(path, guard, f"record {seq} is not the record its proof saw")
                if guard is not None:
                    guard.check_record(seq, ts, kind, code, rnd, body, prev, digest,
                                       txn_last, before)
                    before = (seq, prev, digest)
                if (since_ns is not None and ts < since_ns) or (
                        round_no is not None and rnd != round_no) or (
                        codes is not None and code not in codes):
                    continue
                yield Record(seq, ts, kind, code, rnd, json.loads(body), prev, digest,
                             txn_last)
    except sqlite3.Error as exc:
        raise JournalError(f"{path}: journal read failed: {exc}") from exc


def _changed(path: Path, guard: StartGuard | None, why: str) -> None:
    """A proven journal read back otherwise than its proof saw it: refused (a start's
    guard notes the refusal for the next proven start's event 715)."""
    if guard is not None:
        guard.trip(why)
    raise JournalDamaged(f"{path}: the journal changed after its proof: {why} (nothing "
                         "more is read from it; call a technician: etg audit verify)")
