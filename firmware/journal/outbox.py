"""The floor outbox: messages for the floor, written in the journal's own transactions.

:class:`Outbox` registers a stager with the journal (:meth:`Journal.add_stager`): in the
transaction that appends an event it also inserts that event's message; with a round
record, the round, the meters after it and the chain head. So a message exists exactly
when the record it reports does — a ``kill -9`` at any instant leaves both or neither.

Each row gets the next outbox number ``n`` (contiguous per journal, never reused by the
same journal) and carries the journal sequence number ``seq`` and hash of its record. The
floor applies ``n`` in order, once, and acknowledges the highest it holds; rows up to the
acknowledgement are then deleted here (the records themselves stay in the journal).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from firmware.journal import messages
from firmware.journal.errors import JournalError
from firmware.journal.outbox_mac import opened, sealed
from firmware.journal.store import Journal, Record

MeterKey = tuple[str, int, str]
log = logging.getLogger("etg.floor.outbox")

#: the outbox's table is part of the journal's schema (firmware.journal.schema.SCHEMA)


@dataclass(frozen=True, slots=True)
class OutMessage:
    n: int
    seq: int
    kind: str
    payload: str  # JSON object without "n"

    def wire(self) -> str:
        """The record as published: the payload with its kind and outbox number in front
        (string work only: the payload was serialised once, when it was staged)."""
        return f'{{"kind":"{self.kind}","n":{self.n},' + self.payload[1:]


def records_wire(batch: list[OutMessage]) -> bytes:
    """One MQTT message for consecutive outbox records: a JSON array, in ``n`` order."""
    return ("[" + ",".join(m.wire() for m in batch) + "]").encode("ascii")


def stage_messages(
    records: list[Record], meters: Mapping[MeterKey, int], db: sqlite3.Connection
) -> list[tuple[int, str, str]]:
    """(seq, kind, payload) of what ``records`` report; meters read inside the transaction."""
    out: list[tuple[int, str, str]] = []
    for r in records:
        if r.kind == "event":
            out.append((r.seq, "event", messages.dumps(messages.event_message(r))))
            if r.body.keys() >= {"seat", "cents"} and meters:
                out.append((r.seq, "meters", _meters(r, db)))
        elif r.kind == "round":
            out.append((r.seq, "round", messages.dumps(messages.round_message(r))))
            out.append((r.seq, "meters", _meters(r, db)))
            out.append((r.seq, "chain", messages.dumps(messages.chain_message(r))))
    return out


#: info key: the last journal seq whose records were considered for the outbox
REPORTED = "floor_reported_seq"


def _set_reported(db: sqlite3.Connection, seq: int) -> None:
    db.execute(
        "INSERT INTO info(key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (REPORTED, str(seq)))


def _meters(r: Record, db: sqlite3.Connection) -> str:
    rows = db.execute("SELECT name, seat, wager, value FROM meters").fetchall()
    return messages.dumps(messages.meters_message(r, {(a, b, c): v for a, b, c, v in rows}))


class Outbox:
    """The table side of the outbox: staging (in the journal's thread) and draining (in the
    publisher's thread, on its own connection to the same file)."""

    def __init__(self, journal: Journal, on_commit: Callable[[], None] | None = None) -> None:
        self.path = Path(journal.path)
        self._journal = journal  #: its connection commits what the outbox changes
        self._key = journal.key
        #: the first row found forged (its n): nothing from there on is sent
        self.forged: int | None = None
        self._on_commit = on_commit or (lambda: None)
        self._staged = False
        self._staging: int | None = None  # the last n of the transaction in progress
        journal.add_stager(self._stage, self._committed)
        self._read: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        #: the highest outbox number committed, kept in memory: the publisher asks it after
        #: every wake-up, and a query each time was most of an idle link's work
        self.newest = self.last_n()

    def _stage(
        self, db: sqlite3.Connection, records: list[Record], meters: Mapping[MeterKey, int]
    ) -> None:
        rows = self._seal(stage_messages(records, meters, db))
        self._staging = None
        if rows:
            db.executemany("INSERT INTO floor_outbox(seq, kind, payload) VALUES (?, ?, ?)", rows)
            self._staged = True
            self._staging = int(db.execute("SELECT last_insert_rowid()").fetchone()[0])
        if records:
            _set_reported(db, records[-1].seq)

    def _seal(self, rows: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
        return [(s, k, sealed(self._key, s, k, p)) for s, k, p in rows]

    def catch_up(self) -> int:
        """Stage what was journaled while no outbox was attached (a journal older than the
        floor link, an offline credit transfer): one transaction; returns messages added.
        Called before the table writes anything else."""
        with self._journal.beside() as db:
            row = db.execute(f"SELECT value FROM info WHERE key = '{REPORTED}'").fetchone()
            since = int(row[0]) if row else 0
            recs = [
                Record(int(q), int(t), str(k), c, rn, json.loads(b), str(p), str(h),
                       int(x))
                for q, t, k, c, rn, b, p, h, x in db.execute(
                    "SELECT seq, ts_ns, kind, code, round_no, body, prev, hash, txn_last"
                    " FROM records WHERE seq > ? AND kind IN ('event', 'round')"
                    " ORDER BY seq", (since,)
                )
            ]
            rows = [m for r in recs for m in stage_messages([r], {}, db)
                    if m[1] != "meters"]
            if any(r.kind == "round" or r.body.keys() >= {"seat", "cents"} for r in recs):
                rows.append((recs[-1].seq, "meters", _meters(recs[-1], db)))
            db.executemany(
                "INSERT INTO floor_outbox(seq, kind, payload) VALUES (?, ?, ?)",
                self._seal(rows))
            last = db.execute("SELECT MAX(seq) FROM records").fetchone()[0]
            _set_reported(db, int(last or 0))
        self.newest = self.last_n()
        return len(rows)

    def _committed(self) -> None:
        if self._staging is not None:
            self.newest = max(self.newest, self._staging)
            self._staging = None
        if self._staged:
            self._staged = False
            self._on_commit()

    # -- the publisher's side -----------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._read is None:
            self._read = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=30
            )
        return self._read

    def pending(self, after: int, limit: int = 500) -> list[OutMessage]:
        with self._read_lock:
            rows = self._conn().execute(
                "SELECT n, seq, kind, payload FROM floor_outbox WHERE n > ? ORDER BY n LIMIT ?",
                (after, limit),
            ).fetchall()
        out: list[OutMessage] = []
        for n, s, k, p in rows:
            payload = opened(self._key, int(s), str(k), str(p))
            if payload is None:  # never reported off the box: the link stops here
                if self.forged != int(n):
                    log.error("%s: floor outbox message %s (record %s) is not what the table "
                              "staged: nothing from it on is sent to the floor", self.path,
                              n, s)
                self.forged = int(n)
                break
            out.append(OutMessage(int(n), int(s), str(k), payload))
        return out

    def last_n(self) -> int:
        with self._read_lock:
            row = self._conn().execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'floor_outbox'"
            ).fetchone()
        return int(row[0]) if row else 0

    def count(self) -> int:
        with self._read_lock:
            return int(self._conn().execute("SELECT COUNT(*) FROM floor_outbox").fetchone()[0])

    def acknowledged(self, n: int) -> None:
        """The floor holds every message up to ``n``: forget them here."""
        try:  # on the table's connection: never a foreign commit to a start's baseline
            self._journal.write_beside("DELETE FROM floor_outbox WHERE n <= ?", (n,))
        except JournalError as exc:  # only a prune: what stays is sent again, dropped
            log.warning("%s: acknowledged floor outbox rows not removed: %s", self.path, exc)

    def close(self) -> None:
        with self._read_lock:
            if self._read is not None:
                self._read.close()
                self._read = None
