"""A consistent reading of a journal a table may be writing beside (issue 42, finding 3).

``etg audit verify`` runs beside a live table; a start holds the journal's lock, so
nobody writes beside it. Both read the journal in ONE read transaction and the head file
ONCE inside it, after the snapshot began — so the head can name a record committed after
the snapshot, never one before it that the snapshot lacks. A start (``live=False``) holds
that reading to the one-transaction rule exactly: a head file rewritten in place during the
check is read once, and that reading is judged. A live audit also accepts a head AHEAD of
its snapshot (the table committed meanwhile), and then verifies again, on a new snapshot,
that the records up to the one the head names chain on from the end it proved
(:func:`verify_ahead`): never a weaker rule than a start's.
"""

from __future__ import annotations

import sqlite3

from firmware.journal.chain import record_hasher
from firmware.journal.errors import JournalFileError
from firmware.journal.files import ReadOnlyOpen
from firmware.journal.head import Head
from firmware.journal.verify import (
    ProofReads,
    VerifyResult,
    _marker_problem,
    _Walk,
    head_now,
    verify,
)


def verify_reading(journal: ProofReads, db: sqlite3.Connection, *, full: bool,
                   until: int | None, live: bool, start_meters: bool = False
                   ) -> VerifyResult:
    """:meth:`Journal.verify`: see the module docstring."""
    with journal.reading():
        db.execute("SELECT MAX(seq) FROM records").fetchone()  # the snapshot begins
        seen = head_now(journal.head_path, journal.key)
        res = verify(journal, db, journal.key, full=full, until=until, head=seen, live=live,
                     start_meters=start_meters)
    if res.ahead is not None and journal.key is not None:
        last, last_hash, ahead = res.ahead
        problem = _verify_ahead_beside(journal, last, last_hash, ahead) if journal.held \
            else _verify_ahead_anew(journal, db, last, last_hash, ahead)
        if problem:
            return VerifyResult(False, res.records, last + 1, problem, res.unchecked,
                                res.since)
    return res


def _verify_ahead_anew(journal: ProofReads, db: sqlite3.Connection, last: int,
                      last_hash: str, ahead: Head) -> str | None:
    assert journal.key is not None
    with journal.reading():
        return verify_ahead(db, journal.key, last, last_hash, ahead)


def _verify_ahead_beside(journal: ProofReads, last: int, last_hash: str,
                         ahead: Head) -> str | None:
    """A reader holding its snapshot (issue 42, finding 2) keeps it, and so reads what
    was committed after it on a second connection: the records there after ``last``
    chain on from the end it proved; what it reads stays the snapshot it proved."""
    assert journal.key is not None
    try:
        beside = ReadOnlyOpen(journal.path)
    except (JournalFileError, sqlite3.Error) as exc:
        return f"the journal cannot be read again to check its head file: {exc}"
    try:
        beside.db.execute("BEGIN")
        return verify_ahead(beside.db, journal.key, last, last_hash, ahead)
    except sqlite3.Error as exc:
        return f"the journal cannot be read again to check its head file: {exc}"
    finally:
        beside.close()


def verify_ahead(db: sqlite3.Connection, key: bytes, last: int, last_hash: str,
                 head: Head) -> str | None:
    """A head file ahead of the snapshot a live audit verified (a table committed
    meanwhile): in a new read transaction, the records after ``last`` up to the one the
    head names must chain on from ``last_hash``, each with its keyed hash and commit
    marker, and the head must name that record's hash at the end of a transaction."""
    w = _Walk(expected=last + 1, head=last_hash)
    hasher = record_hasher(key)
    rows = db.execute("SELECT seq, ts_ns, kind, code, round_no, body, txn_last, prev, hash"
                      " FROM records WHERE seq > ? AND seq <= ? ORDER BY seq",
                      (last, head.seq))
    for seq, ts, kind, code, rnd, body, txn_last, prev, digest in rows:
        if seq != w.expected:
            break
        if prev != w.head or hasher(prev, seq, ts, kind, code, rnd, txn_last,
                                    body) != digest:
            return f"record {seq}, committed during the audit, does not chain or verify"
        why = _marker_problem(w.open_txn, seq, txn_last)
        if why:
            return f"record {seq}, committed during the audit: {why}"
        w.open_txn = None if txn_last == seq else txn_last
        w.head, w.expected = digest, seq + 1
    if w.expected != head.seq + 1:
        return (f"the head file names record {head.seq} but the journal ends at record "
                f"{w.expected - 1}: records removed from the end, or a write-ahead log lost")
    if w.head != head.hash or w.open_txn is not None:
        return (f"record {head.seq} is not the record the head file names, or does not "
                "end a transaction")
    return None
