"""The journal: every input, round, event and meter change, durable and hash-chained.

Why SQLite: one file, transactions, and a write-ahead log that with ``synchronous=FULL``
is fsynced at every commit, so a record is on the card before the input it describes takes
effect; ``kill -9`` or a power cut at any instant leaves either the whole record or none.

Why a hash chain: each record carries SHA-256 over its own content and the previous
record's hash, so ``etg audit verify`` proves that no record was changed, removed or
inserted after the fact (short of rewriting the whole tail, which the chain makes evident
against any exported copy).

Meters live in their own table but are changed only in the same transaction as the record
that justifies the change, so history and meters can never disagree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.errors import UserError

GENESIS = "0" * 64
#: 2: decision inputs number a seat's hands from 1 (they counted from 0 in schema 1, which
#: this engine would replay wrongly: such a journal is refused with the reason, not replayed)
SCHEMA_VERSION = 2

#: Record kinds. ``input``: an engine Input (replayed on restart); ``event``: the event log;
#: ``round``: a finished round's result (recall, history); ``meta``: the journal's own facts.
KINDS = ("input", "event", "round", "meta")


class JournalError(Exception):
    """The journal cannot be written or read: the table must stop taking inputs (tilt)."""


def canonical(body: Mapping[str, Any]) -> str:
    """The one JSON spelling of a body that the hash covers."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def record_hash(
    prev: str, seq: int, ts_ns: int, kind: str, code: int | None, round_no: int | None, body: str
) -> str:
    h = hashlib.sha256()
    h.update(bytes.fromhex(prev))
    h.update(
        f"{seq}|{ts_ns}|{kind}|{'' if code is None else code}|"
        f"{'' if round_no is None else round_no}|".encode("ascii")
    )
    h.update(body.encode("ascii"))
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    ts_ns: int
    kind: str
    code: int | None
    round_no: int | None
    body: dict[str, Any]
    prev: str
    hash: str


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    records: int
    first_bad: int | None = None
    problem: str = ""


@dataclass(frozen=True)
class Entry:
    """One record to append; several are written in one transaction by :meth:`Journal.append`."""

    kind: str
    body: Mapping[str, Any]
    round_no: int | None = None
    code: int | None = None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq      INTEGER PRIMARY KEY,
    ts_ns    INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    code     INTEGER,
    round_no INTEGER,
    body     TEXT    NOT NULL,
    prev     TEXT    NOT NULL,
    hash     TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
CREATE INDEX IF NOT EXISTS records_round ON records(round_no, seq);
CREATE TABLE IF NOT EXISTS meters (
    name  TEXT    NOT NULL,
    seat  INTEGER NOT NULL,   -- 0: the whole table
    wager TEXT    NOT NULL,   -- '' : all wager kinds
    value INTEGER NOT NULL,
    PRIMARY KEY (name, seat, wager)
);
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

MeterKey = tuple[str, int, str]

#: Called inside :meth:`Journal.append`'s transaction with the connection, the records just
#: written and the meter deltas: a reader of the journal (the floor link's outbox) writes
#: what it derives from them in the SAME transaction, so it can never miss or invent one.
Stager = Callable[[sqlite3.Connection, list[Record], Mapping[MeterKey, int]], None]


class Journal:
    """An append-only, hash-chained record store with meters, safe across ``kill -9``."""

    def __init__(self, path: str | Path, *, clock_ns: Any = time.time_ns) -> None:
        self.path = Path(path)
        self._clock_ns = clock_ns
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=30
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM info WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO info(key, value) VALUES('schema', ?)", (str(SCHEMA_VERSION),)
                )
            elif int(row[0]) != SCHEMA_VERSION:
                raise JournalError(
                    f"{self.path}: journal schema {row[0]}, expected {SCHEMA_VERSION}"
                )
            last = self._db.execute(
                "SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from exc
        self._seq: int = int(last[0]) if last else 0
        self._head: str = str(last[1]) if last else GENESIS
        self.created = last is None
        self._stagers: list[Stager] = []
        self._committed: list[Callable[[], None]] = []

    def add_stager(
        self, schema: str, stager: Stager, committed: Callable[[], None] | None = None
    ) -> None:
        """Create ``schema`` (idempotent DDL) beside the records and call ``stager`` in
        every later append transaction (see :data:`Stager`), ``committed`` after it."""
        with self._lock:
            try:
                self._db.executescript(schema)
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot extend the journal: {exc}") from exc
            self._stagers.append(stager)
            if committed is not None:
                self._committed.append(committed)

    # -- writing -----------------------------------------------------------------------

    def append(
        self, entries: Iterable[Entry], meters: Mapping[MeterKey, int] | None = None
    ) -> list[Record]:
        """Write entries and meter deltas in one durable transaction; return the records."""
        written: list[Record] = []
        with self._lock:
            seq, head = self._seq, self._head
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for e in entries:
                    if e.kind not in KINDS:
                        raise ValueError(f"unknown record kind {e.kind!r}")
                    seq += 1
                    ts = int(self._clock_ns())
                    body = canonical(e.body)
                    digest = record_hash(head, seq, ts, e.kind, e.code, e.round_no, body)
                    self._db.execute(
                        "INSERT INTO records(seq, ts_ns, kind, code, round_no, body, prev, hash)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (seq, ts, e.kind, e.code, e.round_no, body, head, digest),
                    )
                    written.append(
                        Record(seq, ts, e.kind, e.code, e.round_no, json.loads(body), head, digest)
                    )
                    head = digest
                # the head beside the chain: removing records from the end is evident too
                self._db.execute(
                    "INSERT INTO info(key, value) VALUES ('head', ?)"
                    " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (f"{seq}:{head}",),
                )
                for (name, seat, wager), delta in (meters or {}).items():
                    if delta:
                        self._db.execute(
                            "INSERT INTO meters(name, seat, wager, value) VALUES (?, ?, ?, ?)"
                            " ON CONFLICT(name, seat, wager) DO UPDATE SET value = value + ?",
                            (name, seat, wager, delta, delta),
                        )
                for stage in self._stagers:
                    stage(self._db, written, meters or {})
                self._db.execute("COMMIT")
            except (sqlite3.Error, OSError) as exc:
                self._rollback()
                raise JournalError(f"{self.path}: journal write failed: {exc}") from exc
            except BaseException:
                self._rollback()
                raise
            self._seq, self._head = seq, head
        for done in self._committed:
            done()
        return written

    def append_one(
        self,
        kind: str,
        body: Mapping[str, Any],
        *,
        round_no: int | None = None,
        code: int | None = None,
        meters: Mapping[MeterKey, int] | None = None,
    ) -> Record:
        return self.append([Entry(kind, body, round_no, code)], meters)[0]

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")

    # -- reading -----------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def head(self) -> str:
        """The hash of the last record (the chain head)."""
        return self._head

    def records(
        self,
        *,
        since_seq: int = 0,
        kinds: Iterable[str] | None = None,
        since_ns: int | None = None,
        round_no: int | None = None,
    ) -> Iterator[Record]:
        sql = "SELECT seq, ts_ns, kind, code, round_no, body, prev, hash FROM records WHERE seq > ?"
        args: list[Any] = [since_seq]
        if kinds is not None:
            ks = list(kinds)
            sql += f" AND kind IN ({','.join('?' * len(ks))})"
            args += ks
        if since_ns is not None:
            sql += " AND ts_ns >= ?"
            args.append(since_ns)
        if round_no is not None:
            sql += " AND round_no = ?"
            args.append(round_no)
        sql += " ORDER BY seq"
        try:
            cur = self._db.execute(sql, args)
            for seq, ts, kind, code, rnd, body, prev, digest in cur:
                yield Record(seq, ts, kind, code, rnd, json.loads(body), prev, digest)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: journal read failed: {exc}") from exc

    def meters(self) -> dict[MeterKey, int]:
        try:
            rows = self._db.execute("SELECT name, seat, wager, value FROM meters").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: journal read failed: {exc}") from exc
        return {(n, s, w): v for n, s, w, v in rows}

    def info(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_info(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO info(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def verify(self) -> VerifyResult:
        """Walk the chain from the first record: every hash recomputed, no gap in seq, the
        last record the journal's recorded head, and the meters equal to what the chained
        round records and credit transfers add up to (the meters table is not chained).
        One read transaction: a table writing beside the audit does not disturb it."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                return self._verify()
            finally:
                self._rollback()

    def _verify(self) -> VerifyResult:
        from firmware.table.meters import history_meters

        head, expected, n = GENESIS, 1, 0
        for r in self._raw_rows():
            seq, ts, kind, code, rnd, body, prev, digest = r
            if seq != expected:
                return VerifyResult(False, n, expected, f"record {expected} is missing")
            if prev != head:
                return VerifyResult(False, n, seq, "does not chain to the previous record")
            if record_hash(prev, seq, ts, kind, code, rnd, body) != digest:
                return VerifyResult(False, n, seq, "content does not match its hash")
            head, expected, n = digest, seq + 1, n + 1
        recorded = self.info("head")
        if recorded is not None:
            last_seq, _, last_hash = recorded.partition(":")
            if int(last_seq) != n or last_hash != head:
                return VerifyResult(
                    False, n, n + 1 if int(last_seq) > n else int(last_seq),
                    f"the journal's head is record {last_seq} but the chain ends at record "
                    f"{n}: records removed from the end or the head altered",
                )
        have = {k: v for k, v in self.meters().items() if v}
        want = history_meters(self.records(kinds=["round", "event"]))
        if have != want:
            (name, seat, wager) = min(k for k in set(have) | set(want)
                                      if have.get(k, 0) != want.get(k, 0))
            where = f"seat {seat}" if seat else "table"
            return VerifyResult(
                False, n, None,
                f"meter {name} ({where}{', ' + wager if wager else ''}) is "
                f"{have.get((name, seat, wager), 0)} but the chained records add up to "
                f"{want.get((name, seat, wager), 0)}",
            )
        return VerifyResult(True, n)

    def _raw_rows(self) -> Iterator[tuple[Any, ...]]:
        yield from self._db.execute(
            "SELECT seq, ts_ns, kind, code, round_no, body, prev, hash FROM records ORDER BY seq"
        )

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()


def open_existing(path: str | Path) -> Journal:
    """Open a journal an attendant command reads; a missing file is a clear user error."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{p}: no journal here (give --journal PATH or run the table first)")
    try:
        return Journal(p)
    except JournalError as exc:
        raise UserError(str(exc)) from None
