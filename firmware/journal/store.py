"""The journal: every input, round, event and meter change, durable and chained.

SQLite with a write-ahead log fsynced at every commit (``synchronous=FULL``): a record is
on the card before the input it describes takes effect, and ``kill -9`` or a power cut
leaves a whole transaction or none. Each record carries HMAC-SHA256, keyed with the
table's secret (:mod:`firmware.journal.key`), over its content, its commit marker (the
last record of its transaction) and the previous record's value (:mod:`.chain`); the head
file names the last record (:mod:`.head`). An append reads back what it wrote before it
commits (:mod:`.landing`); meters change only with the record that justifies them;
checkpoints (:mod:`.checkpoint`) keep a start's replay short; other writers of the
transaction (the floor outbox) add rows through :meth:`Journal.add_stager`. Records are
read only through the one gate (:mod:`.reader`). docs/table.md says what this detects.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from firmware.journal import key as journal_key
from firmware.journal.chain import GENESIS, Entry, Record, canonical, record_hash, record_hasher
from firmware.journal.checkpoint import Checkpointer, checkpoint_body
from firmware.journal.clock import CODE as CLOCK_CODE
from firmware.journal.clock import clock_step
from firmware.journal.errors import JournalDamaged
from firmware.journal.files import JournalFileError, ReadOnlyOpen, connect_writer, is_new_journal
from firmware.journal.head import Head, HeadWriter, head_path, read_head
from firmware.journal.landing import (
    check_meters_landed,
    check_records_landed,
    check_schema_unchanged,
)
from firmware.journal.proven_index import ProvenIndex
from firmware.journal.reader import Gate, select
from firmware.journal.schema import (
    JournalError,
    check_schema,
    create_schema,
    foreign_objects,
    schema_cookie,
)
from firmware.journal.start_guard import StartGuard
from firmware.journal.store_info import InfoAndOutbox
from firmware.journal.verify import VerifyResult

#: Record kinds. ``input``: an engine Input (replayed on restart); ``event``: the event log;
#: ``round``: a finished round's result (recall, history); ``meta``: the journal's own facts.
KINDS = ("input", "event", "round", "meta")


class _Beside:
    """The default secret: the bench's own, beside the journal (created when missing)."""

    def __repr__(self) -> str:
        return "<the secret beside the journal>"


BESIDE = _Beside()
MeterKey = tuple[str, int, str]

#: Called inside :meth:`Journal.append`'s transaction with the connection, the records just
#: written and the meter deltas: a reader of the journal (the floor link's outbox) writes
#: what it derives from them in the SAME transaction, so it can never miss or invent one.
Stager = Callable[[sqlite3.Connection, list[Record], Mapping[MeterKey, int]], None]


class Journal(InfoAndOutbox):
    """An append-only, keyed-chain record store with meters, safe across ``kill -9``.

    ``key``: the table's secret (bytes), :data:`BESIDE` for the bench's own beside the
    journal (created with a new journal, never beside an existing one), or None for the
    unkeyed chain. ``readonly``: open an existing journal for reading only (creates and
    changes nothing; see :mod:`firmware.journal.files`). ``head_file``: keep the head
    outside the database (always, except in the benchmark's "before" measurement).
    ``checked``: an existing journal, checked and made private before any connection of
    this process opened it (:func:`firmware.journal.files.make_writable_private`: no
    plain descriptor of its files is opened and closed beside a live connection).
    """

    def __init__(
        self, path: str | Path, key: bytes | _Beside | None = BESIDE, *,
        clock_ns: Any = time.time_ns, readonly: bool = False, head_file: bool = True,
        gated: bool = False, checked: bool = False,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._clock_ns = clock_ns
        self._lock = threading.RLock()  # reentrant: a proof reads inside its reading
        #: the one gate (issue 42): records are read only once proven (:meth:`mark_proven`)
        self._gate = Gate(self.path, gated)
        self.refused = ""  #: the table found it broken: nothing more is written into it
        self._ro: ReadOnlyOpen | None = None
        self._head_writer: HeadWriter | None = None
        self._use_head = head_file
        #: True: the head is written by :meth:`sync_head` or before the next commit
        self.defer_head = False
        self.key_problem = ""
        #: the secret's path (beside it: the register of archived journals, .succession)
        self.key_path: Path | None = (journal_key.beside(self.path)
                                      if isinstance(key, _Beside) else None)
        #: set by open_for_table: the record the engine's replay began at (1: all of it)
        self.proven_from = 0
        self.held = False  #: a reader's snapshot is held (:meth:`hold_snapshot`)
        #: a gated writer's baseline until the start is done (:mod:`.start_guard`)
        self._guard: StartGuard | None = None
        #: the proof walk's note of every record: what a reading picks records by
        self._proven: ProvenIndex | None = None
        self._seq, self._head, self._last_ts = 0, GENESIS, 0  # the end: :meth:`_read_end`
        try:
            if readonly:
                self._ro = ReadOnlyOpen(self.path, snapshot=gated, checked=checked)
                self._db = self._ro.db
                self.key = self._resolve_key(key, new=False)
            else:
                new = not checked and is_new_journal(self.path)
                self._db = connect_writer(self.path, private=not checked)
                self.key = self._resolve_key(key, new=new)
                if gated and not new:  # first: the proof's snapshot begins after it
                    self._guard = StartGuard(self._db, self.path, self.key)
                create_schema(self._db, self.key)
            check_schema(self._db, self.path)
            if not readonly:
                problem = foreign_objects(self._db)
                if problem is not None:
                    raise JournalError(f"{self.path}: {problem}; nothing is written")
            self._cookie = schema_cookie(self._db)
            last = self._read_end()
            self._meters: dict[MeterKey, int] = {} if readonly else self.meters()
        except JournalFileError as exc:
            raise JournalError(str(exc)) from None
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            raise JournalDamaged(f"{self.path}: cannot open the journal: {exc}") from exc
        except BaseException:
            self._close_quietly()
            raise
        self.created = last is None
        self._stagers: list[Stager] = []
        self._committed: list[Callable[[], None]] = []

    def add_stager(self, stager: Stager, committed: Callable[[], None] | None = None) -> None:
        """Call ``stager`` in every later append transaction (see :data:`Stager`) and
        ``committed`` after it; what it writes lives in the journal's own schema."""
        with self._lock:
            self._stagers.append(stager)
            if committed is not None:
                self._committed.append(committed)

    def _resolve_key(self, key: bytes | _Beside | None, *, new: bool) -> bytes | None:
        if not isinstance(key, _Beside):
            return key
        found, self.key_problem = journal_key.beside_key(self.path, self.readonly, new)
        return found

    @property
    def head_path(self) -> Path:
        return head_path(self.path)

    # -- writing -----------------------------------------------------------------------

    def _head_file(self) -> HeadWriter | None:
        """The head file's writer, created at the first append: a valid head is on the
        storage before the first record commits (a power cut in between must not look
        like records removed)."""
        if not self._use_head:
            return None
        if self._head_writer is None:
            existing = read_head(self.head_path, self.key) if self._seq else None
            self._head_writer = HeadWriter(self.head_path, self.key)
            if existing is None:
                self._head_writer.write(Head(self._seq, self._head))
        return self._head_writer.synced()

    def append(
        self, entries: Iterable[Entry], meters: Mapping[MeterKey, int] | None = None, *,
        checkpoint: Checkpointer | None = None,
    ) -> list[Record]:
        """Write entries and meter deltas (and what the stagers derive from them) in one
        durable transaction, then the head file; return the records. ``checkpoint``: add
        a checkpoint record as the transaction's last (its body: the meters after this
        transaction and what ``checkpoint(records written)`` returns; see
        :mod:`firmware.journal.checkpoint`)."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        if self.refused:
            raise JournalError(f"{self.path}: found broken ({self.refused}): nothing more "
                               "is written into it")
        if not self._gate.open:
            raise JournalError(f"{self.path}: not proven yet: nothing is written before")
        todo = list(entries)
        if (step := clock_step(self._last_ts, int(self._clock_ns()))) is not None:
            todo.append(Entry("event", step, None, CLOCK_CODE))  # last: append_one's [0]
        for e in todo:
            if e.kind not in KINDS:
                raise ValueError(f"unknown record kind {e.kind!r}")
        deltas = {k: v for k, v in (meters or {}).items() if v}
        with self._lock:
            after = dict(self._meters)
            for k, v in deltas.items():
                after[k] = after.get(k, 0) + v
            try:
                head_file = self._head_file()
                self._db.execute("BEGIN IMMEDIATE")
                if self._guard is not None:  # the write's snapshot: the newest
                    self._guard.check(self._db)
                self._cookie = check_schema_unchanged(self._db, self.path, self._cookie)
                written = self._insert(todo, self._seq + len(todo) + bool(checkpoint))
                if checkpoint is not None:
                    body = checkpoint_body(after, checkpoint(list(written)))
                    written += self._insert([Entry("meta", body)], written[-1].txn_last,
                                            after=written[-1])
                for (name, seat, wager), delta in deltas.items():
                    self._db.execute(
                        "INSERT INTO meters(name, seat, wager, value) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT(name, seat, wager) DO UPDATE SET value = value + ?",
                        (name, seat, wager, delta, delta))
                check_records_landed(self._db, self.path, self._seq, self._head, written)
                if deltas:
                    check_meters_landed(self._db, self.path, after)
                for stage in self._stagers:
                    stage(self._db, written, deltas)
                self._db.execute("COMMIT")
            except (sqlite3.Error, OSError) as exc:
                self._rollback()
                raise JournalError(f"{self.path}: journal write failed: {exc}") from exc
            except BaseException:
                self._rollback()
                raise
            if written:
                for r in written if self._proven is not None else ():
                    self._proven.add(r.seq, r.kind, r.code, r.hash)  # type: ignore[union-attr]
                self._seq, self._head = written[-1].seq, written[-1].hash
                self._last_ts = max(r.ts_ns for r in written)
            self._meters = after
            if head_file is not None:
                head_file.write(Head(self._seq, self._head), later=self.defer_head)
        for done in self._committed:
            done()
        return written

    def _insert(self, entries: list[Entry], txn_last: int,
                after: Record | None = None) -> list[Record]:
        """Insert ``entries`` after ``after`` (default: the last committed record), all
        marked as ending at ``txn_last``."""
        seq, head = (after.seq, after.hash) if after else (self._seq, self._head)
        out: list[Record] = []
        for e in entries:
            seq += 1
            ts = int(self._clock_ns())
            body = canonical(e.body)
            digest = record_hash(head, seq, ts, e.kind, e.code, e.round_no, txn_last, body,
                                 self.key)
            self._db.execute(
                "INSERT INTO records(seq, ts_ns, kind, code, round_no, body, txn_last, prev,"
                " hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, e.kind, e.code, e.round_no, body, txn_last, head, digest))
            out.append(Record(seq, ts, e.kind, e.code, e.round_no, json.loads(body), head,
                              digest, txn_last))
            head = digest
        return out

    def append_one(self, kind: str, body: Mapping[str, Any], *, round_no: int | None = None,
                   code: int | None = None, meters: Mapping[MeterKey, int] | None = None
                   ) -> Record:
        return self.append([Entry(kind, body, round_no, code)], meters)[0]

    def sync_head(self) -> None:
        """Write the head of the last commit if it waits (:attr:`defer_head`). A failing
        write is not lost: it is tried again before the next commit, which fails with it."""
        with self._lock, contextlib.suppress(OSError):
            if self._head_writer is not None:
                self._head_writer.sync()

    # -- reading -----------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def head(self) -> str:  # the hash of the last record (the chain head)
        return self._head

    def records(self, *, since_seq: int = 0, kinds: Iterable[str] | None = None,
                since_ns: int | None = None, round_no: int | None = None,
                upto_seq: int | None = None, newest_first: bool = False,
                codes: Iterable[int] | None = None) -> Iterator[Record]:
        """Proven records only (:mod:`firmware.journal.reader`: the one gate)."""
        return select(self._db, self.path, since_seq=since_seq, kinds=kinds, codes=codes,
                      since_ns=since_ns, round_no=round_no,
                      upto_seq=self._gate.limit(upto_seq), newest_first=newest_first,
                      guard=self._guard, proven=self._proven,
                      hasher=record_hasher(self.key) if self.key else None)

    def record(self, seq: int) -> Record | None:  # record ``seq``, or None
        return next(self.records(since_seq=seq - 1, upto_seq=seq), None)

    def meters(self) -> dict[MeterKey, int]:
        try:
            rows = self._db.execute("SELECT name, seat, wager, value FROM meters").fetchall()
            if self._guard is not None:
                self._guard.check(self._db)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: journal read failed: {exc}") from exc
        return {(n, s, w): v for n, s, w, v in rows}

    def verify(self, *, full: bool = True, until: int | None = None,
               live: bool = True, start_meters: bool = False) -> VerifyResult:
        """Prove the journal whole (:func:`firmware.journal.verify.verify`): the schema,
        the keyed chain and its commit markers, the head file, the meters. ``full``: from
        record 1; else the chain from the last checkpoint. ``until``: only records
        1..until, which must end at a checkpoint. One consistent reading
        (:mod:`firmware.journal.consistent`); ``live``: a table may be writing beside it
        (``etg audit verify``); without (a start, holding the lock), nobody writes.
        ``start_meters``: the meters counted from the last checkpoint (a start's whole
        walk: :func:`firmware.journal.verify.verify`)."""
        from firmware.journal.consistent import verify_reading

        res = verify_reading(self, self._db, full=full, until=until, live=live,
                             start_meters=start_meters)
        self._proven = res.index if res.ok and res.index else self._proven  # read by it
        return res

    def mark_proven(self, last_seq: int, last_hash: str,
                    meters: Mapping[MeterKey, int] | None = None,
                    index: ProvenIndex | None = None) -> None:
        """Open the gate: the journal was proven up to ``last_seq`` (``last_hash``). A
        writer (``meters`` given: what the proof found) must see exactly that journal (a
        file swapped or changed between the proof and the opening is refused) and may
        then read and write it whole; a reader reads up to ``last_seq``. ``index``: the
        proof's note of the records (:mod:`.proven_index`): readings pick records by it."""
        self._proven = index if index is not None else (
            ProvenIndex() if last_seq == 0 and meters is not None else self._proven)
        if meters is None:
            self._gate.upto = last_seq
            return
        have = {k: v for k, v in self.meters().items() if v}
        if (self._seq, self._head) != (last_seq, last_hash) or have != {
                k: v for k, v in meters.items() if v}:
            raise JournalError(f"{self.path}: the journal changed between its proof "
                               f"(record {last_seq}) and its opening (record {self._seq})")
        self._gate.upto = None

    @property
    def start_guard(self) -> StartGuard | None:  # the start's baseline while it lasts
        return self._guard

    def start_done(self) -> None:
        """The start read what it needed (:mod:`.start_guard`): the baseline ends."""
        with self._lock:
            if self._guard is not None:
                self._guard.end(self._db)
                self._guard = None

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same journal, whatever a table
        writing beside it commits meanwhile (nested: the outer one's)."""
        with self._lock:
            if self._db.in_transaction:
                yield
                return
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                self._rollback()

    def _read_end(self) -> Any:  # the last record as this connection reads it now
        last = self._db.execute(
            "SELECT seq, hash, ts_ns FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self._seq, self._head, self._last_ts = (
            (int(last[0]), str(last[1]), int(last[2])) if last else (0, GENESIS, 0))
        return last

    def hold_snapshot(self) -> None:  # one read transaction: proof and reads see one journal
        with self._lock:
            self._db.execute("BEGIN")
            self._read_end()  # the snapshot begins
            self.held = True

    def close(self) -> None:
        with self._lock:
            self._close_quietly()

    def _close_quietly(self) -> None:
        if self._head_writer is not None:
            self._head_writer.close()
            self._head_writer = None
        if self._ro is not None:
            self._ro.close()
        else:
            with contextlib.suppress(sqlite3.Error, AttributeError):
                self._db.close()
