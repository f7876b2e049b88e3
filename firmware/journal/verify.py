"""``etg audit verify`` and the power-up integrity check: the journal proven whole.

Checked, in this order, the first failure reported:

1. **the schema**: exactly our tables and indexes, no trigger, no view, no changed table
   (:func:`~firmware.journal.schema.foreign_objects`);
2. **the journal's facts**: it says it is keyed with this table's secret (its id), so a
   journal downgraded to an unkeyed chain or another table's is named as such;
3. **the chain**: every record's keyed hash recomputed from its content and the previous
   record's hash, sequence numbers without a gap, and the commit markers: each record
   names the last record of its transaction, so every transaction is whole — an edit, an
   insertion, a removal, a swap, a record cut from a transaction breaks it, and without
   the secret nothing can be recomputed;
4. **the end**: the head file (outside the database) names a record that is in the chain
   with the same hash, and the database is ahead of it by at most ONE whole transaction
   (a power cut between the commit and the head write), checked exactly with the commit
   markers — records removed from the end, a lost write-ahead log, an older head file put
   back over a longer journal are each named;
5. **the meters** (not chained themselves): they equal what the chained round records and
   credit transfers add up to, and balance for every seat and the table (credits = in -
   out - wagered + paid). Every checkpoint on the way holds the meters the records before
   it add up to;
6. **money moved once** (:mod:`firmware.journal.once`; checked during the walk of (3),
   on the keyed content of every transfer from record 1): no transfer id applied twice,
   no seat granted its auto-play credits twice.

A start walks the whole chain from record 1 and counts the meters from the last
checkpoint (``start_meters``); ``full=False`` walks from the last checkpoint instead (its
window alone is held to (6)); the table's meter proof (the engine replay) comes after.

Without the secret, (3) checks sequence, links and commit markers but no hash, and (4) is
not done: the result lists what was not checked (:attr:`VerifyResult.unchecked`) and never
claims it.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from firmware.journal import key as journal_key
from firmware.journal.chain import GENESIS, record_hasher
from firmware.journal.checkpoint import checkpoint_meters, is_checkpoint, last_checkpoint
from firmware.journal.head import Head, HeadFileError, read_head
from firmware.journal.meters import (
    MeterKey,
    add_deltas,
    balance_problem,
    justifies_meters,
    meters_difference,
    record_deltas,
)
from firmware.journal.once import TRANSFER_CODES, OnceRules
from firmware.journal.outbox_mac import outbox_problem
from firmware.journal.proven_index import ProvenIndex
from firmware.journal.reader import select
from firmware.journal.schema import foreign_objects

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from contextlib import AbstractContextManager

    from firmware.journal.chain import Record


class ProofReads(Protocol):
    """What a proof reads of a journal (:class:`firmware.journal.store.Journal` satisfies
    it). The store offers ``Journal.verify`` and so sits above the proof; the proof names
    only this, never the store."""

    path: Path
    key: bytes | None
    held: bool

    @property
    def head_path(self) -> Path: ...
    def records(self, *, since_seq: int = 0, kinds: Iterable[str] | None = None,
                since_ns: int | None = None, round_no: int | None = None,
                upto_seq: int | None = None, newest_first: bool = False,
                codes: Iterable[int] | None = None) -> Iterator[Record]: ...
    def record(self, seq: int) -> Record | None: ...
    def meters(self) -> dict[MeterKey, int]: ...
    def info(self, key: str) -> str | None: ...
    def reading(self) -> AbstractContextManager[None]: ...

#: what a verification without the secret cannot check (and therefore never claims)
WITHOUT_SECRET = (
    "each record's keyed hash (an edited record, or a chain recomputed without the secret)",
    "the head file (its keyed MAC): records cut from the end of the journal",
)


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    records: int
    first_bad: int | None = None
    problem: str = ""
    #: what could not be checked (without the secret): never claimed by ``ok``
    unchecked: tuple[str, ...] = ()
    #: the record the walk began at: 1, or the last checkpoint (a start)
    since: int = 1
    #: a live audit's head file ahead of its snapshot: (last, its hash, the head), which
    #: :meth:`Journal.verify` verifies again (:func:`verify_ahead`)
    ahead: tuple[int, str, Head] | None = None
    #: a whole walk's note of each record (:mod:`firmware.journal.proven_index`): what
    #: every reading after the proof picks its records by
    index: ProvenIndex | None = field(default=None, compare=False, repr=False)

    @property
    def complete(self) -> bool:
        """Everything was checked and held."""
        return self.ok and not self.unchecked


@dataclass
class _Walk:
    """Where a chain walk stands."""

    expected: int = 1
    head: str = GENESIS
    open_txn: int | None = None  # the txn_last of a transaction not yet ended
    meters: dict[MeterKey, int] = field(default_factory=dict)
    problem: str = ""
    first_bad: int | None = None


def head_now(path: Path, key: bytes | None) -> Head | HeadFileError | None:
    """The head file as it reads now (its error, rather than raising)."""
    try:
        return read_head(path, key)
    except HeadFileError as exc:
        return exc


def verify(journal: ProofReads, db: sqlite3.Connection, key: bytes | None, *,
           full: bool = True, until: int | None = None,
           head: Head | HeadFileError | None = None, live: bool = False,
           start_meters: bool = False) -> VerifyResult:
    """See the module docstring. ``head``: the head file as read ONCE, inside the read
    transaction, after its snapshot began (``last`` is read first for that): a start
    holding the journal's lock (``live=False``) checks the one-transaction rule against it
    exactly; ``live`` (``etg audit verify``, a table may be writing beside it) also
    accepts a head AHEAD of the snapshot, which the caller then verifies again
    (:attr:`VerifyResult.ahead`). Never a weaker rule. ``start_meters`` (a start's
    walk of the whole chain): the meters are counted from the last checkpoint, whose
    meters the chain proves; that every checkpoint holds what the records before it add
    up to is proven beside the table, with the engine's replay of that history
    (``etg audit verify --until``, firmware.table.service.prefix_audit)."""
    last = int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()[0])
    problem = (foreign_objects(db) or _rows_problem(db, last)
               or _facts_problem(journal, key))
    if problem:
        return VerifyResult(False, last, None, problem)
    unchecked = WITHOUT_SECRET if key is None else ()
    start = None if full and not start_meters else last_checkpoint(
        journal.records(kinds=["meta"], newest_first=True))
    index = ProvenIndex() if full and until is None else None
    w = _walk(db, key, None if full else start, until, count_from=start, index=index)
    counted_from_1 = start is None  # else a meter row at 0 is in no checkpoint: not judged
    counted_from = start
    start = None if full else start
    since = start.seq if start else 1
    if w.problem:
        return VerifyResult(False, last, w.first_bad, w.problem, unchecked, since)
    if index is not None and start_meters and (problem := _hidden_checkpoint(
            journal, db, index, key, counted_from)):
        return VerifyResult(False, last, None, problem, unchecked, since)
    if until is not None:
        return _prefix_end(journal, until, w, unchecked)
    ahead = None
    if key is not None:
        if live and isinstance(head, Head) and head.seq > last:
            ahead = (last, w.head, head)  # committed after the snapshot: verified again
        else:
            problem = _head_problem(journal, db, last, head)
            if problem is not None:
                return VerifyResult(False, last, last + 1, problem, unchecked, since)
    rows = journal.meters()
    have = {k: v for k, v in rows.items() if v}
    want = {k: v for k, v in w.meters.items() if v}
    foreign = sorted(set(rows) - set(w.meters)) if counted_from_1 and until is None else []
    problem = (meters_difference(have, want, "the chained records add up to")
               or (f"meter {foreign[0]} is a row no record made (red team F12: foreign rows, "
                   "even at 0, are not this journal's)" if foreign else None)
               or balance_problem(have)
               or (outbox_problem(db, key) if key is not None and until is None else None))
    return VerifyResult(not problem, last, None, problem or "", unchecked, since,
                        ahead=ahead, index=index)  # ahead even when not ok: a cut tail first


def _hidden_checkpoint(journal: ProofReads, db: sqlite3.Connection, index: ProvenIndex,
                       key: bytes | None, found: Record | None) -> str | None:
    """The checkpoint the meters were counted from was found by a reading before the
    walk: it must be the last one the walk saw (a filtered read can be made to miss
    one; the walk cannot)."""
    hasher = record_hasher(key) if key is not None else None
    last = last_checkpoint(select(db, journal.path, since_seq=0, kinds=["meta"],
                                  since_ns=None, round_no=None, upto_seq=None,
                                  newest_first=True, proven=index, hasher=hasher))
    if (last.seq if last else None) != (found.seq if found else None):
        return (f"the last checkpoint is record {last.seq if last else None}, but a reading "
                f"before the walk found record {found.seq if found else None}: the file "
                "outside the keyed records (an index or a column) was edited")
    return None


def _rows_problem(db: sqlite3.Connection, last: int) -> str | None:
    """Only the journal's own rows: numbered 1..last, each once (a row numbered 0 or
    below is read by nothing, and would sit in the evidence as if it were intact)."""
    low = db.execute("SELECT MIN(seq) FROM records").fetchone()[0]
    if low is not None and int(low) < 1:
        return (f"the records table holds a row numbered {int(low)}: not a record of this "
                "journal (its records are numbered from 1)")
    return None  # a gap or a row out of order: the chain walk names it


def _prefix_end(journal: ProofReads, until: int, w: _Walk,
                unchecked: tuple[str, ...]) -> VerifyResult:
    """A walk of records 1..``until`` only (the part a start did not prove: it ends at the
    checkpoint the start began from, which the walk compared with the records before)."""
    rec = journal.record(until)
    if rec is None or not is_checkpoint(rec) or w.expected != until + 1:
        return VerifyResult(False, until, until, f"record {until} is not a checkpoint the "
                            "journal reaches", unchecked)
    return VerifyResult(True, until, None, "", unchecked)


def _facts_problem(journal: ProofReads, key: bytes | None) -> str | None:
    """With the secret: the journal must say it is keyed with it."""
    chain, kid = journal.info("chain"), journal.info("key_id")
    if key is None:
        return None
    if chain != "hmac-sha256" or kid != journal_key.key_id(key):
        return (f"the journal says its chain is {chain or 'unnamed'!r} with secret "
                f"{kid or 'none'!r}, not keyed with this table's secret "
                f"({journal_key.key_id(key)}): a journal downgraded to an unkeyed chain, "
                "or another table's")
    return None


def _walk(db: sqlite3.Connection, key: bytes | None, start: Record | None,
          until: int | None = None, *, count_from: Record | None = None,
          index: ProvenIndex | None = None) -> _Walk:
    """Walk the chain from record 1, or from the checkpoint ``start``, to the end or to
    record ``until``; the meters are counted from the checkpoint ``count_from`` (its
    meters are where the count starts; None: from record 1). The first problem stops
    the walk. ``index`` (a walk from record 1): each record noted in it, from its hashed
    content (:mod:`firmware.journal.proven_index`)."""
    w = _Walk()
    once = OnceRules()  # a walk from a checkpoint holds its window to the rules
    note = index.adder() if index is not None else None
    count_seq = count_from.seq if count_from is not None else 0
    hasher = record_hasher(key) if key is not None else None
    if start is not None and start.seq > 1:
        before = db.execute("SELECT hash, txn_last FROM records WHERE seq = ?",
                            (start.seq - 1,)).fetchone()
        if before is None:
            return _bad(w, start.seq - 1, f"record {start.seq - 1} is missing")
        w.expected, w.head = start.seq, str(before[0])
        w.open_txn = None if int(before[1]) == start.seq - 1 else int(before[1])
    rows = db.execute("SELECT seq, ts_ns, kind, code, round_no, body, txn_last, prev, hash"
                      " FROM records NOT INDEXED WHERE seq >= ? AND seq <= ? ORDER BY seq",
                      (w.expected, until if until is not None else 2**62))
    # the loop keeps its state in locals (2 million records at a start: attribute access
    # and a call per record were a fifth of the walk); ``w`` is brought up to date when it
    # ends or stops at a problem
    expected, head, open_txn = w.expected, w.head, w.open_txn
    for seq, ts, kind, code, rnd, body, txn_last, prev, digest in rows:
        problem = ""
        if seq != expected:
            seq, problem = expected, f"record {expected} is missing"
        elif prev != head:
            problem = "does not chain to the previous record"
        elif hasher is not None and hasher(prev, seq, ts, kind, code, rnd, txn_last,
                                           body) != digest:
            problem = "content does not match its keyed hash"
        elif txn_last != (seq if open_txn is None else open_txn) and (
                why := _marker_problem(open_txn, seq, txn_last)):
            problem = why
        if problem:
            w.expected, w.head, w.open_txn = expected, head, open_txn
            return _bad(w, seq, problem)
        open_txn = None if txn_last == seq else txn_last
        parsed = None
        if kind == "event" and code in TRANSFER_CODES:
            parsed = json.loads(body)  # every transfer from record 1: money moves once
            if why := once.take(seq, code, parsed):
                w.expected, w.head, w.open_txn = expected, head, open_txn
                return _bad(w, seq, why)
        if seq >= count_seq and (kind == "meta" or justifies_meters(kind, code)):
            w.open_txn = open_txn
            why = _count(w, seq, kind, code, json.loads(body) if parsed is None else parsed,
                         count_from)
            if why:
                return _bad(w, seq, why)
        if note is not None:
            note(kind, code, digest)
        head, expected = digest, seq + 1
    w.expected, w.head, w.open_txn = expected, head, open_txn
    if w.open_txn is not None:
        return _bad(w, w.expected, (
            f"the journal's last transaction ends at record {w.open_txn} but the journal "
            f"ends at record {w.expected - 1}: records removed from the end"))
    return w


def _marker_problem(open_txn: int | None, seq: int, txn_last: int) -> str | None:
    if open_txn is None and txn_last < seq:
        return f"its commit marker names record {txn_last}, before it"
    if open_txn is not None and txn_last != open_txn:
        return (f"its commit marker names record {txn_last}, but the transaction it is in "
                f"ends at record {open_txn}")
    return None


def _count(w: _Walk, seq: int, kind: str, code: int | None, body: dict[str, object],
           start: Record | None) -> str | None:
    """Add a record's meter changes; at a checkpoint, compare (or start from) its meters."""
    from firmware.journal.chain import Record

    if kind != "meta":
        add_deltas(w.meters, record_deltas(kind, code, body))
        return None
    rec = Record(seq, 0, kind, code, None, body, "", "", seq)
    if not is_checkpoint(rec):
        return None
    held = checkpoint_meters(rec)
    if start is not None and seq == start.seq:
        w.meters = dict(held)
        return None
    have = {k: v for k, v in w.meters.items() if v}
    return meters_difference(held, have, "the records before this checkpoint add up to")


def _bad(w: _Walk, seq: int, problem: str) -> _Walk:
    w.first_bad, w.problem = seq, problem
    return w


def _head_problem(journal: ProofReads, db: sqlite3.Connection, last: int,
                  recorded: Head | HeadFileError | None) -> str | None:
    """The end of the journal against its head file, as read once (see :func:`verify`):
    the head names a record of the chain, with its hash, at the end of a transaction, and
    the journal is ahead of it by at most ONE whole transaction. The same rule whoever
    asks: a head that changes while it is read is read once, and that reading is held to
    the rule (issue 42, finding 3)."""
    if isinstance(recorded, HeadFileError):
        return str(recorded)
    if recorded is None:
        if last == 0:
            return None
        return (f"the head file {journal.head_path.name} is missing or empty: the end of "
                "the journal cannot be proven (records may have been removed)")
    if recorded.seq > last:
        return (f"the head file names record {recorded.seq} but the journal ends at record "
                f"{last}: records removed from the end, or a write-ahead log lost")
    if recorded.seq > 0:
        row = db.execute("SELECT hash, txn_last FROM records WHERE seq = ?",
                         (recorded.seq,)).fetchone()
        if row is None or row[0] != recorded.hash:
            return f"record {recorded.seq} is not the record the head file names"
        if int(row[1]) != recorded.seq:
            return (f"the head file names record {recorded.seq}, which does not end a "
                    "transaction: the head file was not written by this journal's table")
    if recorded.seq == last:
        if recorded.seq > 0 and recorded.other != "previous":
            return (f"the head file names record {recorded.seq}, the journal's end, but its "
                    f"other slot is {recorded.other}: the newest head was removed from it "
                    "(a torn head write only ever follows a commit that is in the "
                    "journal): records after it removed")
        return None
    nxt = db.execute("SELECT txn_last FROM records WHERE seq = ?",
                     (recorded.seq + 1,)).fetchone()
    if nxt is None or int(nxt[0]) != last:
        ahead = "" if nxt is None else f" (the first transaction after it ends at {nxt[0]})"
        return (f"the journal ends at record {last}, more than one transaction after record "
                f"{recorded.seq} that the head file names{ahead}: an older head file was "
                "put back (records may have been removed after it, and the journal rolled "
                "back)")
    return None
