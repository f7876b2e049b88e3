"""Applying what tables report, exactly once, and noticing a journal that went back.

Every record message carries its table's outbox number ``n`` (contiguous), the journal
sequence number ``seq`` and the record's hash. The floor applies ``n`` only in order: the
next one is stored (with the table's new ``last_n``) in the same database transaction as
its content; one it already holds is dropped — after checking it is the same message,
byte for byte by hash; one beyond the next is a gap and waits for the table to send the
missing ones again (it does, from the floor's acknowledgement). So after any crash,
outage or resend the floor holds each table's events and rounds once, in journal order.

Alarms (``floor_alarms``, shown in red on the pit view): a message number held with a
different hash, a status whose journal sequence is lower than one already seen, or the
same sequence with another chain head — each means the table's journal was replaced by
an older copy (rolled back) or altered.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from firmware.floor.db import Database


def _text(value: Any) -> str:
    """Canonical JSON text of what a table reported, for the database (orjson: the floor
    re-serialises every record it stores, and the standard library's encoder was about a
    third of the floor's CPU per record)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


@dataclass
class TableState:
    last_n: int = 0
    last_seq: int = 0  # journal seq of the last record applied
    status_seq: int = 0  # journal seq of the latest status (its last record then)
    status_ts: float = 0.0  # when the table issued it (its clock)
    head: str | None = None
    alarmed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Incoming:
    table_id: str
    kind: str
    payload: dict[str, Any]
    received: float


@dataclass
class Applied:
    """What one batch changed: for acknowledgements and the live pit view."""

    acks: dict[str, int] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    events: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    alarms: list[dict[str, Any]] = field(default_factory=list)
    meters: list[dict[str, Any]] = field(default_factory=list)
    applied: int = 0
    duplicates: int = 0
    gaps: int = 0
    #: tables with a gap: their acknowledgement is repeated, so they send from it again
    gapped: set[str] = field(default_factory=set)
    received: list[float] = field(default_factory=list)
    #: per table: the newest table-side time (s) of what the batch applied — a record's
    #: journal time, a status's time of issue — so a page can tell how old its tile is
    as_of: dict[str, float] = field(default_factory=dict)


class FloorLedger:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.tables: dict[str, TableState] = {}
        self._saved: dict[str, TableState | None] = {}
        for tid, last_n, last_seq, head, status in db.all(
                "SELECT table_id, last_n, last_seq, head, status FROM floor_tables"):
            st = json.loads(status) if status else {}
            self.tables[tid] = TableState(int(last_n), int(last_seq), int(st.get("seq") or 0),
                                          float(st.get("ts") or 0.0), head)
        for tid, kind in db.all("SELECT DISTINCT table_id, kind FROM floor_alarms"):
            self.tables.setdefault(tid, TableState()).alarmed.add(kind)

    def _state(self, tid: str, new: list[tuple[str, tuple[Any, ...]]]) -> TableState:
        st = self.tables.get(tid)
        if st is None:
            self._saved.setdefault(tid, None)
            st = self.tables[tid] = TableState()
            new.append(("INSERT INTO floor_tables(table_id, updated) VALUES (?, ?)"
                        " ON CONFLICT(table_id) DO NOTHING", (tid, time.time())))
        if tid not in self._saved:  # first touch in this batch: keep it for a rollback
            self._saved[tid] = dataclasses.replace(st, alarmed=set(st.alarmed))
        return st

    def apply(self, batch: list[Incoming]) -> Applied:
        """One transaction; on a database error the in-memory state is as before."""
        self._saved = {}
        try:
            return self._apply(batch)
        except BaseException:
            for tid, was in self._saved.items():
                if was is None:
                    self.tables.pop(tid, None)
                else:
                    self.tables[tid] = was
            raise

    def _apply(self, batch: list[Incoming]) -> Applied:
        out = Applied()
        new: list[tuple[str, tuple[Any, ...]]] = []  # tables first seen: inserted first
        work: list[tuple[str, tuple[Any, ...]]] = []
        for m in batch:
            st = self._state(m.table_id, new)
            if m.kind == "status":
                self._status(m, st, work, out)
            elif m.kind == "online":
                work.append(("UPDATE floor_tables SET online = ? WHERE table_id = ?",
                             (1 if m.payload.get("online") else 0, m.table_id)))
                out.changed.add(m.table_id)
            else:
                self._record(m, st, work, out)
        for tid in out.changed:
            st = self.tables[tid]
            work.append(("UPDATE floor_tables SET last_n = ?, last_seq = ?, head = ?,"
                         " updated = ? WHERE table_id = ?",
                         (st.last_n, st.last_seq, st.head, time.time(), tid)))
        if new or work:
            # each statement below touches its own rows or columns (or appends): grouped
            # into one executemany per statement, in one transaction
            self.db.run_grouped(new + work)
        return out

    def _record(self, m: Incoming, st: TableState, work: list[tuple[str, tuple[Any, ...]]],
                out: Applied) -> None:
        p = m.payload
        n, seq, digest = int(p["n"]), int(p["seq"]), str(p["hash"])
        if n <= st.last_n:
            out.duplicates += 1
            row = self.db.one("SELECT hash, seq FROM floor_messages WHERE table_id = ? AND n = ?",
                              (m.table_id, n))
            if row is not None and (row[0] != digest or int(row[1]) != seq):
                self._alarm(m.table_id, st, "rollback", (
                    f"message {n} arrived again as journal record {seq} ({digest[:12]}), "
                    f"but the floor holds it as record {row[1]} ({str(row[0])[:12]}): the "
                    "table's journal was rolled back or altered"), work, out)
            return
        if n > st.last_n + 1:
            out.gaps += 1  # the table sends the missing ones again from the acknowledgement
            out.gapped.add(m.table_id)
            return
        if seq < st.last_seq:  # meters and chain share their round's seq: strictly lower
            self._alarm(m.table_id, st, "sequence", (
                f"journal record {seq} after record {st.last_seq}: the sequence went "
                "backwards (journal rolled back)"), work, out)
        st.last_n = n
        st.last_seq = max(st.last_seq, seq)
        work.append(("INSERT INTO floor_messages(table_id, n, seq, kind, hash)"
                     " VALUES (?, ?, ?, ?, ?)", (m.table_id, n, seq, m.kind, digest)))
        tid = m.table_id
        if m.kind == "event":
            work.append(("INSERT INTO floor_events(table_id, seq, code, round_no, ts_ns, body)"
                         " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         (tid, seq, p.get("code"), p.get("round"), int(p["ts_ns"]),
                          _text(p["body"]))))
            out.events.append({"table": tid, **p})
        elif m.kind == "round":
            work.append(("INSERT INTO floor_rounds(table_id, seq, round_no, ts_ns, record)"
                         " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         (tid, seq, p.get("round"), int(p["ts_ns"]),
                          _text(p["record"]))))
            out.rounds.append({"table": tid, **p})
        elif m.kind == "meters":
            work.append(("UPDATE floor_tables SET meters = ? WHERE table_id = ?",
                         (_text(p["meters"]), tid)))
            out.meters.append({"table": tid, **p["meters"]})
        elif m.kind == "chain":
            st.head = str(p["head"])
        out.acks[tid] = n
        out.changed.add(tid)
        out.applied += 1
        out.received.append(m.received)
        out.as_of[tid] = max(out.as_of.get(tid, 0.0), int(p["ts_ns"]) / 1e9)

    def _status(self, m: Incoming, st: TableState, work: list[tuple[str, tuple[Any, ...]]],
                out: Applied) -> None:
        p = m.payload
        seq = int(p.get("seq") or 0)
        ts = float(p["ts"]) if isinstance(p.get("ts"), int | float) else 0.0
        if ts < st.status_ts:
            # older than the status shown: the broker re-delivering a queued or retained
            # one (after a floor restart); a rolled-back table issues *new* statuses
            return
        st.status_ts = ts
        if seq < st.status_seq:
            self._alarm(m.table_id, st, "sequence", (
                f"the table reports journal record {seq} as its last, but it reported "
                f"record {st.status_seq} before: the journal went backwards (restored from "
                "an older copy?)"), work, out)
        st.status_seq = max(st.status_seq, seq)
        work.append(("UPDATE floor_tables SET status = ? WHERE table_id = ?",
                     (_text(p), m.table_id)))
        out.changed.add(m.table_id)
        out.received.append(m.received)
        if isinstance(p.get("ts"), int | float):
            out.as_of[m.table_id] = max(out.as_of.get(m.table_id, 0.0), float(p["ts"]))

    def _alarm(self, tid: str, st: TableState, kind: str, detail: str,
               work: list[tuple[str, tuple[Any, ...]]], out: Applied) -> None:
        """Raise an alarm once per table and kind (the pit clears nothing: it is evidence)."""
        if kind in st.alarmed:
            return
        st.alarmed.add(kind)
        at = time.time()
        work.append(("INSERT INTO floor_alarms(table_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                     (tid, at, kind, detail)))
        out.alarms.append({"table": tid, "at": at, "kind": kind, "detail": detail})
        out.changed.add(tid)
