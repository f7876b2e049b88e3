"""``etg audit verify`` and the power-up integrity check: the journal proven whole.

Three things are checked, in this order, and the first failure is reported:

1. the chain: every record's keyed hash recomputed from its content and the previous
   record's hash, sequence numbers without a gap — an edit, an insertion, a removal
   inside the journal or a swap of two records breaks it, and without the table's secret
   it cannot be recomputed;
2. the end: the head file (outside the database) names a record that is in the chain with
   the same hash — records removed from the end, the stored head deleted with them, or a
   lost write-ahead log leave the chain shorter than the head;
3. the meters (not chained themselves) equal what the chained round records and credit
   transfers add up to.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from firmware.journal.head import HeadFileError, read_head

if TYPE_CHECKING:
    from firmware.journal.store import Journal, VerifyResult


def verify(journal: Journal, db: sqlite3.Connection, key: bytes | None) -> VerifyResult:
    from firmware.journal.store import GENESIS, VerifyResult, record_hash

    chain = journal.info("chain")
    if chain == "hmac-sha256" and key is None:
        return VerifyResult(False, 0, None, journal.key_problem or (
            "the journal is keyed and its secret is not available here (run as the service "
            "user, or give --key)"))
    head, expected, n = GENESIS, 1, 0
    rows = db.execute(
        "SELECT seq, ts_ns, kind, code, round_no, body, prev, hash FROM records ORDER BY seq")
    for seq, ts, kind, code, rnd, body, prev, digest in rows:
        if seq != expected:
            return VerifyResult(False, n, expected, f"record {expected} is missing")
        if prev != head:
            return VerifyResult(False, n, seq, "does not chain to the previous record")
        if record_hash(prev, seq, ts, kind, code, rnd, body, key) != digest:
            return VerifyResult(False, n, seq, "content does not match its keyed hash")
        head, expected, n = digest, seq + 1, n + 1
    problem = _head_problem(journal, db, key, n)
    if problem is not None:
        return VerifyResult(False, n, n + 1, problem)
    return _meters(journal, n)


def _head_problem(journal: Journal, db: sqlite3.Connection, key: bytes | None,
                  last: int) -> str | None:
    try:
        recorded = read_head(journal.head_path, key)
    except HeadFileError as exc:
        return str(exc)
    if recorded is None:
        if last == 0:
            return None
        return (f"the head file {journal.head_path.name} is missing or empty: the end of "
                "the journal cannot be proven (records may have been removed)")
    if recorded.seq > last:
        return (f"the head file names record {recorded.seq} but the journal ends at record "
                f"{last}: records removed from the end, or a write-ahead log lost")
    if recorded.seq == 0:
        return None
    row = db.execute("SELECT hash FROM records WHERE seq = ?", (recorded.seq,)).fetchone()
    if row is None or row[0] != recorded.hash:
        return f"record {recorded.seq} is not the record the head file names"
    return None


def _meters(journal: Journal, n: int) -> VerifyResult:
    from firmware.journal.meters import history_meters
    from firmware.journal.store import VerifyResult

    have = {k: v for k, v in journal.meters().items() if v}
    want = history_meters(journal.records(kinds=["round", "event"]))
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
