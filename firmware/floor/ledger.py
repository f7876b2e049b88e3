"""Applying what tables report, exactly once, each table on its own.

Every record carries its table's outbox number ``n`` (contiguous), the journal sequence
number ``seq`` and the record's hash. The floor applies ``n`` only in order: the next one
is stored (with the table's new ``last_n``) in the same database transaction as its
content; one it already holds is dropped — after checking it is the same record by hash;
one beyond the next is a gap and waits for the table to send the missing ones again (it
does, from the floor's acknowledgement). A gap the table says it can never fill (it no
longer holds those messages) is alarmed, marked in the evidence and passed over.

What reaches the ledger was checked at the edge (:mod:`firmware.floor.wire`); what the
ledger finds wrong with it is an alarm (``floor_alarms``), never an exception, and the
other version of anything that disagrees with what the floor holds is kept beside it
(``floor_evidence``): the floor's records are evidence and are never overwritten.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from firmware.floor import gaming_day, plausibility, topics
from firmware.floor.db import Database
from firmware.floor.errors import DatabaseAway
from firmware.floor.failures import Failures
from firmware.floor.ledger_rules import Incoming, LedgerRules
from firmware.floor.table_state import (
    Applied,
    RowChanges,
    TableState,
    Work,
    ack_of,
    latched,
    load_states,
)
from firmware.floor.wire import WireRecord

log = logging.getLogger("etg.floor.ingest")  # (the store thread's failures, as before)


class FloorLedger(LedgerRules):
    def __init__(self, db: Database, *, day_start_minutes: int = 360,
                 quarantine_after: int = 20, approved_name: str = "",
                 check_deadline_s: float = 120.0) -> None:
        """``quarantine_after``: bad messages within a minute that quarantine a table;
        ``approved_name``: the approved release software checks compare with;
        ``check_deadline_s``: a software check unanswered this long is an alarm."""
        self.db = db
        self.day_start = day_start_minutes
        self.quarantine_after = quarantine_after
        self.approved_name = approved_name
        self.check_deadline_s = check_deadline_s
        self.tables: dict[str, TableState] = load_states(db)
        self._saved: dict[str, TableState | None] = {}
        self.rows = RowChanges()
        #: a failure to store is logged with its traceback once a kind, then counted
        #: (the ingest hands in its own, shared with the store thread's)
        self.failures = Failures(log, "the floor's store")

    def state(self, tid: str, new: Work) -> TableState:
        st = self.tables.get(tid)
        if st is None:
            self._saved.setdefault(tid, None)
            st = self.tables[tid] = TableState()
            new.append(("INSERT INTO floor_tables(table_id, updated) VALUES (?, ?)"
                        " ON CONFLICT(table_id) DO NOTHING", (tid, time.time())))
        if tid not in self._saved:  # first touch in this batch: kept for a rollback
            self._saved[tid] = st.copy()
        return st

    def apply(self, batch: list[Incoming]) -> Applied:
        """One transaction; on a database error the in-memory state is as before."""
        self._saved = {}
        self.rows = RowChanges()
        try:
            return self._apply(batch)
        except BaseException:
            self.restore()
            raise

    def restore(self) -> None:
        for tid, was in self._saved.items():
            if was is None:
                self.tables.pop(tid, None)
            else:
                self.tables[tid] = was
        self._saved = {}

    def _apply(self, batch: list[Incoming]) -> Applied:
        out = Applied()
        new: Work = []  # tables first seen: inserted first
        work: Work = []
        seen: dict[str, float] = {}
        meters: dict[str, dict[int, dict[str, Any]]] = {}  # per table, per chart slot
        for m in batch:
            if m.kind == "control" and not m.table_id:  # the floor's own: deadlines
                self.overdue_checks(m.received, work, out)
                continue
            st = self.state(m.table_id, new)
            if m.kind == "record":
                self.record(m, st, work, out, meters)
            elif m.kind == "status":
                self.status(m, st, work, out)
            elif m.kind == "online":
                self.online(m, st, work, out)
            elif m.kind == "bad":
                self.bad(m, st, work, out)
            elif m.kind == "control":
                self.control(m, st, work, out)
            elif m.kind == "signature":
                self.signature(m, st, work, out)
            elif m.kind == "acl":
                self.acl(m, st, work, out)
            elif m.kind == "rate":
                self.over_budget(m, st, work, out)
            if m.kind not in ("online", "control", "acl", "rate"):
                seen[m.table_id] = max(seen.get(m.table_id, 0.0), m.received)
        for tid, slots in meters.items():
            self.day_figures(tid, self.tables[tid], slots, work)
        self.flood_counts(out, work)
        now = time.time()
        for tid in out.changed:
            st = self.tables[tid]
            self.rows.of(tid).update(last_n=st.last_n, last_seq=st.last_seq,
                                       last_hash=st.last_hash, head=st.head, updated=now)
        for tid, at in seen.items():
            self.rows.seen(tid, at)
        work += self.rows.work()
        if new or work:
            # each statement below touches its own rows (one UPDATE a table) or appends:
            # grouped into one run per statement, in one transaction
            self.db.run_grouped(new + work)
        for tid in [t for t in out.acks if latched(self.tables[t])]:
            del out.acks[tid]  # the rollback latch (table_state.LATCH_KINDS)
        return out

    def apply_each(self, batch: list[Incoming]) -> Applied | None:
        """The batch again, one table at a time; a table whose messages cannot be stored
        is quarantined (None: the database went away meanwhile — retry everything)."""
        merged = Applied()
        for tid in dict.fromkeys(m.table_id for m in batch):
            mine = [m for m in batch if m.table_id == tid]
            try:
                got = self.apply(mine)
            except DatabaseAway:
                return None
            except Exception as exc:
                self.failures.failed(exc, "storing a table's messages", about=f"table {tid}")
                why = f"the floor could not store it ({type(exc).__name__}: {exc})"
                try:
                    got = self.apply([Incoming(tid, "bad", {
                        "topic": topics.table_topic(tid, topics.RECORDS), "reason": why,
                        "sample": "", "quarantine": True}, time.time())])
                except DatabaseAway:
                    return None
            merged.merge(got)
        return merged

    # -- records ------------------------------------------------------------------------

    def record(self, m: Incoming, st: TableState, work: Work, out: Applied,
               meters: dict[str, dict[int, dict[str, Any]]]) -> None:
        r: WireRecord = m.payload
        tid = m.table_id
        if r.kind == "gap":
            self.gap(tid, r, st, work, out)
            return
        if r.n <= st.last_n:
            self.duplicate(tid, r, work, out)
            return
        if r.n > st.last_n + 1:
            out.gaps += 1  # the table sends the missing ones again from the acknowledgement
            out.gapped.add(tid)
            return
        if r.n == 1:
            st.from_start = True
        self.sequence_checks(tid, r, st, work, out)
        if (ahead := plausibility.record_ahead(r.ts_ns, m.received)) is not None:
            self.alarm(tid, st, "clock", ahead, work, out)
        self.time_went_back(tid, r, st, work, out)
        if st.last_seq != r.seq:
            st.kinds_at_last = set()
        st.kinds_at_last.add(r.kind)
        st.last_n = r.n
        if r.seq >= st.last_seq:
            st.last_seq, st.last_hash = r.seq, r.hash
        work.append(("INSERT INTO floor_messages(table_id, n, seq, kind, hash)"
                     " VALUES (?, ?, ?, ?, ?)", (tid, r.n, r.seq, r.kind, r.hash)))
        slot = self.open_day(st, r, m.received, tid) if r.kind == "meters" else None
        self.store(tid, r, st, work, out)
        if slot is not None:  # the chart: the slot's latest figures
            meters.setdefault(tid, {})[slot] = {"day": st.day, **gaming_day.figures(
                st.meters, st.day_open)}
        out.acks[tid] = ack_of(st)
        out.changed.add(tid)
        out.applied += 1
        out.received.append(m.received)
        out.as_of[tid] = max(out.as_of.get(tid, 0.0), r.ts_ns / 1e9)

    def store(self, tid: str, r: WireRecord, st: TableState, work: Work,
              out: Applied) -> None:
        """A record's content into its table (events, rounds, meters, the chain head)."""
        if r.kind == "event":
            work.append(("INSERT INTO floor_events(table_id, seq, code, round_no, ts_ns, body)"
                         " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         (tid, r.seq, r.code, r.round, r.ts_ns, r.text)))
            out.events.append({"table": tid, "seq": r.seq, "code": r.code, "round": r.round,
                               "ts_ns": r.ts_ns, "body": r.text})
        elif r.kind == "round":
            work.append(("INSERT INTO floor_rounds(table_id, seq, round_no, ts_ns, record)"
                         " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         (tid, r.seq, r.round, r.ts_ns, r.text)))
            out.rounds.append({"table": tid, "seq": r.seq, "round": r.round,
                               "ts_ns": r.ts_ns, "record": r.text})
        elif r.kind == "meters":
            assert r.meters is not None
            problems = plausibility.meter_problems(st.meters, r.meters)
            if problems:
                self.alarm(tid, st, "meters", (
                    f"journal record {r.seq}: " + "; ".join(problems[:4])
                    + (f" and {len(problems) - 4} more" if len(problems) > 4 else "")),
                    work, out)
            st.meters = r.meters
            out.meters.append({"table": tid, **r.meters})
        elif r.kind == "chain":
            st.head = r.head
        elif r.kind == "oversize":
            self.alarm(tid, st, "oversize", (
                f"journal record {r.seq} ({r.text}) was too large to send: the table's "
                "journal holds it, the floor only its number and hash"), work, out,
                evidence=(r.n, r.seq, r.hash, r.text))
