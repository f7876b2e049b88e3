"""What a start reads is what its proof saw (issue 42, finding 2: nothing read before it
is proven).

A start proves the journal on a read-only connection (:mod:`firmware.journal.opening`),
then reads it — transfer ids, grants, the floor gate, the last stop, the fingerprint, the
SAS queue — through its writer. Our lock keeps another ``etg`` out, not a plain SQLite
client: something that commits between the proof and a reading would have the start
decide on records nobody proved. So:

1. SQLite's write lock is taken before the proof's snapshot begins and held until the
   writer has opened and taken its baseline (:class:`StartGuard`): nobody commits between
   the proof and that baseline.
2. The baseline is the writer connection's ``PRAGMA data_version``, which changes when,
   and only when, ANOTHER connection commits (the writer's own commits leave it alone),
   and the identity of the main database file (inode, size, change time: a raw write of
   its bytes changes the change time, which no user can set back). The writer's
   automatic checkpoints are off until the start is done, so the main file is ours
   untouched.
3. Every reading through the one gate (:mod:`firmware.journal.reader`) checks the
   baseline on the reading's own snapshot (after the statement's first step, while it
   still holds its read transaction, or after it ended: both mean "no foreign commit up
   to the snapshot it read"), and each record it yields is checked against its keyed
   hash and, for consecutive records, its link: a byte edit in the write-ahead log of a
   record the start reads is refused too.

A reading that finds the journal changed raises :class:`JournalChangedDuringStart`: the
start is refused (fail closed), nothing more is written into that journal, and a note
beside it, MACed with the table's secret, becomes an event on the next start that proves
it; a start that did not finish is named there too (:mod:`firmware.journal.refusal`).
:meth:`StartGuard.end` (the table is ready) restores the checkpoints;
from then on the table's own memory, not the file, decides.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Protocol

from firmware.journal.chain import RecordHasher, record_hash, record_hasher
from firmware.journal.errors import JournalRefused
from firmware.journal.refusal import note_path, note_refusal

__all__ = ["JournalChangedDuringStart", "StartGuard", "note_path"]


class Ends(Protocol):
    """The writer whose start this guards: where its journal ends now."""

    @property
    def last_seq(self) -> int: ...
    @property
    def head(self) -> str: ...


#: SQLite's default automatic checkpoint (pages of write-ahead log), restored at the end
AUTOCHECKPOINT = 1000


class JournalChangedDuringStart(JournalRefused):
    """Another program changed the journal between the start's proof and its reading."""


def data_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA data_version").fetchone()[0])


def file_identity(path: Path) -> tuple[int, int, int, int] | None:
    """The database file's device, inode, size and change time (None: missing)."""
    return _file_id(path)


def _file_id(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_ctime_ns


def _changed(was: tuple[int, int, int, int] | None,
             now: tuple[int, int, int, int] | None) -> str:
    if was is None or now is None:
        return "created" if was is None else "removed"
    names = ("device", "inode", "size", "change time")
    return ", ".join(f"{n} {a} -> {b}" for n, a, b in zip(names, was, now, strict=True)
                     if a != b)


def _unkeyed(prev: str, seq: int, ts_ns: int, kind: str, code: int | None,
             round_no: int | None, txn_last: int, body: str) -> str:
    return record_hash(prev, seq, ts_ns, kind, code, round_no, txn_last, body, None)


class StartGuard:
    """The writer's baseline from before the proof (see the module docstring)."""

    def __init__(self, db: sqlite3.Connection, path: Path, key: bytes | None,
                 writer: Ends | None = None) -> None:
        self.path = path
        self._writer = writer  # its end goes into the refusal note (firmware.journal.refusal)
        db.execute("PRAGMA wal_autocheckpoint=0")  # the main file stays as proven
        self.version = data_version(db)
        self.main = _file_id(path)
        self.hasher: RecordHasher = record_hasher(key) if key else _unkeyed
        self._key = key  # the refusal note's MAC (firmware.journal.refusal)
        self.tripped = ""

    def check(self, db: sqlite3.Connection) -> None:
        """Raise unless nobody but this connection committed since the baseline, and the
        main file is as it was; call it on (or after) the snapshot a reading uses."""
        if self.tripped:
            raise JournalChangedDuringStart(self.tripped)
        why = ""
        try:
            if data_version(db) != self.version:
                why = "another program committed to it"
            elif (now := _file_id(self.path)) != self.main:
                why = f"its file was written outside SQLite ({_changed(self.main, now)})"
        except (sqlite3.Error, OSError) as exc:
            why = f"it cannot be read again ({exc})"
        if why:
            self.trip(why)

    def since(self, before: tuple[int, int, int, int] | None) -> None:
        """The main file must be as it was ``before`` the proof (taken under the write
        lock): a raw write during the proof is refused too, not taken as the baseline."""
        if before != self.main:
            self.trip(f"its file was written outside SQLite during the proof "
                      f"({_changed(before, self.main)})")

    def trip(self, why: str) -> None:
        self.tripped = (f"{self.path}: the journal changed during the start's proof: {why} "
                        "between the proof and the start's reading; the start is refused "
                        "and writes nothing more into it (call a technician: etg audit "
                        "verify)")
        at = (self._writer.last_seq, self._writer.head) if self._writer is not None else (0, "")
        note_refusal(self.path, self.tripped, self._key, at)
        raise JournalChangedDuringStart(self.tripped)

    def check_record(self, seq: int, ts: int, kind: str, code: int | None,
                     rnd: int | None, body: str, prev: str, digest: str,
                     txn_last: int, before: tuple[int, str, str] | None) -> None:
        """One record a start reads: its keyed hash, and its link to the record read just
        before it (``before``: seq, prev, hash) when the two are neighbours."""
        if self.hasher(prev, seq, ts, kind, code, rnd, txn_last, body) != digest:
            self.trip(f"record {seq} does not verify")
        if before is not None:
            b_seq, b_prev, b_hash = before
            if (b_seq == seq - 1 and prev != b_hash) or (b_seq == seq + 1 and b_prev != digest):
                self.trip(f"record {seq} does not link to record {b_seq}")

    def end(self, db: sqlite3.Connection) -> None:
        with contextlib.suppress(sqlite3.Error):
            db.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT}")
