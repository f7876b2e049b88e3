"""The ledger's rules beyond "apply the next record": what a journal that went back, a
record number reused, a gap that can never be filled, a bad message, a status and the
pit's own actions do to a table's state.

Alarms (``floor_alarms``): one open alarm per table and kind — a new occurrence while it is
open is logged, not raised again; once a supervisor has acknowledged it, the next one is a
new alarm. The pit acknowledges, it never deletes: alarms and ``floor_evidence`` are what
an investigator reads.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any

import orjson

from firmware.floor import gaming_day, held, plausibility
from firmware.floor.escape import one_line
from firmware.floor.pit_text import when
from firmware.floor.software_check import overdue, record_answer
from firmware.floor.table_state import (
    EVIDENCE_BYTES_PER_DAY,
    EVIDENCE_BYTES_PER_MINUTE,
    EVIDENCE_ROWS_PER_MINUTE,
    LATCH_KINDS,
    Applied,
    RowChanges,
    TableState,
    Work,
    ack_of,
)
from firmware.floor.wire import WireRecord

if TYPE_CHECKING:
    from firmware.floor.db import Database

log = logging.getLogger("etg.floor.ledger")


class Incoming:
    """One thing a table sent (or the pit asked): ``kind`` is ``record`` (a
    :class:`WireRecord`), ``status``, ``online``, ``signature``, ``bad``, ``control``,
    ``acl`` (the broker refused the table: :mod:`firmware.floor.acl_watch`), or ``rate``
    (messages past the table's budget were dropped: :meth:`Ingest._over_budget`)."""

    __slots__ = ("kind", "payload", "received", "table_id")

    def __init__(self, table_id: str, kind: str, payload: Any, received: float) -> None:
        self.table_id, self.kind, self.payload, self.received = \
            table_id, kind, payload, received

#: bad messages from one table within this many seconds that quarantine it
QUARANTINE_WINDOW_S = 60.0
#: a record stamped this much (seconds) before one applied before it: the clock went back
BACK_S = 120.0
#: bad messages of one table kept as evidence within that window (the rest are counted)
EVIDENCE_PER_WINDOW = 10


class LedgerRules:
    db: Database
    tables: dict[str, TableState]
    day_start: int
    quarantine_after: int
    approved_name: str
    check_deadline_s: float
    rows: RowChanges

    # -- a journal that went back or was altered ----------------------------------------

    def duplicate(self, tid: str, r: WireRecord, work: Work, out: Applied) -> None:
        """A message number the floor holds: the same record again (a resend), or another
        one under a number already used — the table's journal was rolled back."""
        out.duplicates += 1
        row = held.message(self.db, tid, r.n, out)
        if row is not None and (row[0] != r.hash or row[1] != r.seq):
            self.alarm(tid, self.tables[tid], "rollback", (
                f"message {r.n} arrived again as journal record {r.seq} ({r.hash[:12]}), but "
                f"the floor holds it as record {row[1]} ({str(row[0])[:12]}): the table's "
                "journal was rolled back or altered"), work, out,
                evidence=(r.n, r.seq, r.hash, _version_of(r)))

    def sequence_checks(self, tid: str, r: WireRecord, st: TableState, work: Work,
                        out: Applied) -> None:
        """The next message, but its journal record goes back, or reuses a number."""
        if r.seq < st.last_seq:
            was = held.record_hash(self.db, tid, r.seq, out)
            if was is not None and was != r.hash:
                self.reused(tid, r, was, st, work, out)
            else:
                self.alarm(tid, st, "sequence", (
                    f"journal record {r.seq} after record {st.last_seq}: the sequence went "
                    "backwards (journal rolled back)"), work, out,
                    evidence=(r.n, r.seq, r.hash, _version_of(r)))
        elif r.seq == st.last_seq and (
                r.hash != st.last_hash
                or (r.kind in ("event", "round") and st.kinds_at_last & {"event", "round"})):
            self.reused(tid, r, st.last_hash or "", st, work, out)

    def reused(self, tid: str, r: WireRecord, held: str, st: TableState, work: Work,
               out: Applied) -> None:
        self.alarm(tid, st, "reuse", (
            f"journal record {r.seq} reported again with other content ({r.kind}, "
            f"{r.hash[:12]}; the floor holds {held[:12]}): both versions are kept"),
            work, out, evidence=(r.n, r.seq, r.hash, _version_of(r)))

    def gap(self, tid: str, g: WireRecord, st: TableState, work: Work, out: Applied) -> None:
        """The table no longer holds messages ``from_n..n`` (acknowledged before, and
        pruned): the floor can never get them, so it names the gap and goes on."""
        if g.n <= st.last_n:
            return
        if g.from_n > st.last_n + 1:
            out.gapped.add(tid)
            return
        first = st.last_n + 1
        self.alarm(tid, st, "gap", (
            f"messages {first}..{g.n} (after journal record {st.last_seq}) can never reach "
            "the floor: the table no longer holds them — they were acknowledged before, by "
            "a floor whose database has since lost them (a restored backup, a moved "
            "database?); the floor goes on from message "
            f"{g.n + 1}. The table's journal still holds the records."), work, out,
            evidence=(first, st.last_seq, None, json.dumps({"from_n": first, "to_n": g.n})))
        st.last_n = g.n
        out.acks[tid] = ack_of(st)
        out.changed.add(tid)

    # -- status and presence ------------------------------------------------------------

    def status(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """Shown when its journal sequence is the newest (the table's clock only breaks a
        tie); a lower sequence is an old status delivered late, unless it is newer by the
        table's own clock: then the journal went back."""
        p: dict[str, Any] = m.payload
        seq, ts = int(p["seq"]), min(float(p.get("ts") or 0.0), m.received)
        if p.get("sent") is not None and (
                problem := st.clock.problem(float(p["sent"]), m.received)) is not None:
            self.alarm(m.table_id, st, "clock", problem, work, out)
        elif p.get("ts") is not None and (ahead := plausibility.record_ahead(
                int(float(p["ts"]) * 1e9), m.received)) is not None:
            self.alarm(m.table_id, st, "clock", f"{ahead} (a status's time of issue)", work,
                       out)
        if seq < st.status_seq or (seq == st.status_seq and ts < st.status_ts):
            if seq < st.status_seq and ts > st.status_ts:
                self.alarm(m.table_id, st, "sequence", (
                    f"the table reports journal record {seq} as its last, but it reported "
                    f"record {st.status_seq} before: the journal went backwards (restored "
                    "from an older copy?)"), work, out)
            else:
                return  # an old status, re-delivered: what is shown is newer
        st.status_seq, st.status_ts = seq, ts
        self.rows.of(m.table_id)["status"] = orjson.dumps(
            p, option=orjson.OPT_SORT_KEYS).decode()
        out.changed.add(m.table_id)
        out.received.append(m.received)
        if p.get("ts") is not None:
            out.as_of[m.table_id] = max(out.as_of.get(m.table_id, 0.0), float(p["ts"]))

    def online(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        up = bool(m.payload)
        row = self.rows.of(m.table_id)
        if up != st.online:
            st.online = up
            row["online_changed"] = m.received
        row["online"] = 1 if up else 0
        if up:
            self.rows.seen(m.table_id, m.received)
        out.changed.add(m.table_id)

    # -- bad messages and the pit's actions ---------------------------------------------

    def bad(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """A message refused at the edge: alarmed, kept as evidence, and counted; a table
        that keeps sending them is quarantined until a supervisor clears it."""
        out.bad += 1
        p = m.payload
        # the first few of a burst are kept whole; the rest are counted (a flood of junk
        # must not become a flood of writes)
        kept = _recent(st, m.received) < EVIDENCE_PER_WINDOW
        self.alarm(m.table_id, st, "bad-message", f"{p['topic']}: {p['reason']}", work, out,
                   evidence=(None, None, None, p.get("sample", "")) if kept else None)
        self.count_bad(m.table_id, st, m.received, str(p["reason"]), work, out,
                       bool(p.get("quarantine")))

    def acl(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """The broker's ACL refused this table (publishes to topics not its own,
        subscriptions outside its own): an honest table never is, so an ``acl`` alarm on
        its tile, the first refusal as evidence, and each refusal a strike toward
        quarantine (at most a quarantine's worth a report)."""
        p = m.payload
        count = int(p["count"])
        detail = (f"the broker's ACL refused {count} of its requests "
                  f"({p['publishes']} publishes, {p['subscriptions']} subscriptions) "
                  f"outside its own topics; the first: {one_line(p['sample'])[:300]}")
        self.alarm(m.table_id, st, "acl", detail, work, out,
                   evidence=(None, None, None, str(p["sample"])[:300]))
        for _ in range(min(count, self.quarantine_after)):
            self.count_bad(m.table_id, st, m.received, "refused by the broker's ACL", work,
                           out)

    def over_budget(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """Messages past the table's budget were dropped (its sending rate): a ``rate``
        alarm with the count, each a strike toward quarantine (at most a quarantine's
        worth a report)."""
        count = int(m.payload["count"])
        self.alarm(m.table_id, st, "rate", (
            f"{count} messages past its budget dropped unacknowledged in a second (more "
            "than an honest table sends, also after an outage)"), work, out)
        for _ in range(min(count, self.quarantine_after)):
            self.count_bad(m.table_id, st, m.received, "messages past its budget", work, out)

    def count_bad(self, tid: str, st: TableState, at: float, reason: str, work: Work,
                  out: Applied, now: bool = False) -> None:
        """One more strike toward quarantine (a bad message, or evidence past its
        budget); ``now``: quarantine at once."""
        st.bad.append(at)
        recent = _recent(st, at)
        if st.quarantined is None and (recent >= self.quarantine_after or now):
            st.quarantined = (f"{recent} bad messages in {QUARANTINE_WINDOW_S:.0f} s, "
                              f"the last: {reason}")
            self.rows.of(tid).update(quarantined=st.quarantined, quarantined_at=at)
            self.alarm(tid, st, "quarantine", (
                f"quarantined: {st.quarantined}; its messages are dropped until a "
                "supervisor clears it"), work, out)
            out.quarantined.add(tid)
        out.changed.add(tid)

    def flood(self, tid: str, st: TableState, kind: str, detail: str, at: float,
              work: Work, out: Applied) -> None:
        """Evidence past the table's budget for this minute: not written, counted; one
        ``flood`` alarm carries the count and a sample; each counts toward quarantine."""
        b = st.budget
        if not b.sample:
            b.sample = f"{kind}: {detail[:300]}"
        out.flooded.add(tid)
        self.alarm(tid, st, "flood", self.flood_detail(st), work, out)
        self.count_bad(tid, st, at, f"more evidence than {EVIDENCE_ROWS_PER_MINUTE} rows a "
                       "minute", work, out)

    @staticmethod
    def flood_detail(st: TableState) -> str:
        b = st.budget
        return (f"{b.excess} evidence rows over the budget ({EVIDENCE_ROWS_PER_MINUTE} rows,"
                f" {EVIDENCE_BYTES_PER_MINUTE // 1024} KiB a minute, "
                f"{EVIDENCE_BYTES_PER_DAY // 2**20} MiB a day) not kept this minute; "
                f"the first: {b.sample}")

    def flood_counts(self, out: Applied, work: Work) -> None:
        """After a batch: each flooded table's open flood alarm says the count now."""
        for tid in out.flooded:
            st = self.tables[tid]
            work.append(("UPDATE floor_alarms SET detail = ? WHERE table_id = ? AND"
                         " kind = 'flood' AND ack_at IS NULL", (self.flood_detail(st), tid)))

    def control(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """The pit acknowledged an alarm or cleared a quarantine (its own connection wrote
        who and when): the in-memory state follows."""
        p = m.payload
        if p["action"] == "ack-alarm":
            st.alarmed.discard(str(p["kind"]))
            if str(p["kind"]) in LATCH_KINDS:  # cleared with a reason: acknowledged again
                out.acks[m.table_id] = ack_of(st)
        elif p["action"] == "clear-quarantine" and st.quarantined is not None:
            st.quarantined = None
            st.bad.clear()
            out.released.add(m.table_id)
            out.acks[m.table_id] = ack_of(st)  # so the table sends what waits again
        elif p["action"] == "cutoff-lost" and st.quarantined is not None:
            self.alarm(m.table_id, st, "cutoff", (
                "quarantined, but the broker did not hold its cut-off (Mosquitto's dynamic "
                "security plugin's file lost, corrupt or not saved, or its client changed): "
                "cut off again; its messages may have reached the floor meanwhile (dropped "
                "at the edge)"),
                work, out)
        out.changed.add(m.table_id)

    def signature(self, m: Incoming, st: TableState, work: Work, out: Applied) -> None:
        """A table's answer to a software check: judged, kept, a failure alarmed."""
        got = record_answer(self.db, m.table_id, m.payload, m.received, self.approved_name,
                            work, out)
        if got is None:  # an answer to nothing asked (or past its deadline): a bad message
            self.bad(type(m)(m.table_id, "bad", {
                "topic": f"etg/table/{m.table_id}/signature",
                "reason": f"a software signature nobody asked for (id {m.payload.get('id')!r}"
                          ", or answered after its deadline)",
                "sample": json.dumps(m.payload)[:2048]}, m.received), st, work, out)
            return
        if got[0] in ("mismatch", "no answer"):
            self.alarm(m.table_id, st, "software", f"software check: {got[0]}: {got[1]}",
                       work, out)
        out.changed.add(m.table_id)

    def overdue_checks(self, now: float, work: Work, out: Applied) -> None:
        """Software checks past their deadline: a table that does not answer is flagged
        (a tampered table need only ignore the request)."""
        for tid, detail in overdue(self.db, now, self.check_deadline_s, work, out):
            st = self.tables.get(tid)
            if st is not None:
                self.alarm(tid, st, "software", f"software check: no answer: {detail}",
                           work, out)
                out.changed.add(tid)

    def alarm(self, tid: str, st: TableState, kind: str, detail: str, work: Work,
              out: Applied, evidence: tuple[Any, Any, Any, str] | None = None) -> None:
        """Raise an alarm (once while one of its kind is open); keep the evidence always."""
        at = time.time()
        if evidence is not None:
            n, seq, digest, payload = evidence
            if st.budget.row(at, len(payload or "") + len(detail)):
                work.append(("INSERT INTO floor_evidence(table_id, at, kind, n, seq, hash,"
                             " detail, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (tid, at, kind, n, seq, digest, detail, payload)))
            elif kind != "flood":
                self.flood(tid, st, kind, detail, at, work, out)
        if kind in st.alarmed:
            may, silenced = st.budget.line(at)
            if silenced:
                log.warning("table %s: %d more lines in the last minute not logged", tid,
                            silenced)
            if may:
                log.warning("table %s: %s (again: %s)", tid, kind, one_line(detail[:500]))
            return
        st.alarmed.add(kind)
        work.append(("INSERT INTO floor_alarms(table_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                     (tid, at, kind, detail)))
        out.alarms.append({"table": tid, "at": at, "kind": kind, "detail": detail})
        out.changed.add(tid)

    def time_went_back(self, tid: str, r: WireRecord, st: TableState, work: Work,
                       out: Applied) -> None:
        """Within one journal, a record stamped more than :data:`BACK_S` before one applied
        before it: the table's clock went back (a `clock` alarm with both times)."""
        if r.ts_ns <= 0:
            return
        if st.last_ts_ns and r.ts_ns < st.last_ts_ns - int(BACK_S * 1e9):
            self.alarm(tid, st, "clock", (
                f"the table's journal time went back {(st.last_ts_ns - r.ts_ns) / 1e9:.0f} s: "
                f"record {r.seq} is stamped {when(r.ts_ns / 1e9)}, after one stamped "
                f"{when(st.last_ts_ns / 1e9)} (the gaming day keeps its place)"), work, out)
        st.last_ts_ns = max(st.last_ts_ns, r.ts_ns)

    # -- the gaming day -----------------------------------------------------------------

    def open_day(self, st: TableState, r: WireRecord, received: float, tid: str) -> int:
        """Before a meters record is applied: the gaming day it belongs to; returns its
        chart slot. A new day opens at the meters held before it — the last ones before
        any credit or wager of that day. The first meters the floor holds of a table
        open its first day at what came before them: zero, when the floor holds the
        table's journal from its first message (a new table, or one the floor first
        hears of mid-day: its outbox sends everything from message 1); only after a gap
        it cannot know (the floor's database lost the start) at those first meters
        themselves (docs/floor.md, "The gaming day")."""
        assert r.meters is not None
        day, slot = gaming_day.day_and_slot(min(r.ts_ns / 1e9, received), self.day_start)
        if st.day and day < st.day:  # journal time went back: never into an earlier day
            now_day, now_slot = gaming_day.day_and_slot(received, self.day_start)
            day, slot = st.day, now_slot if now_day == st.day else gaming_day.SLOTS - 1
        if day != st.day:
            st.day = day
            if st.meters is not None:
                st.day_open = gaming_day.opening_of(st.meters)
            elif st.from_start or self.db.one(
                    "SELECT 1 FROM floor_messages WHERE table_id = ? AND n = 1", (tid,)):
                st.day_open = gaming_day.opening_of(None)
            else:
                st.day_open = gaming_day.opening_of(r.meters)
        return slot

    def day_figures(self, tid: str, st: TableState, slots: dict[int, dict[str, Any]],
                    work: Work) -> None:
        """After a batch: a table's meters, its gaming day, and a chart point for each
        slot of the day the batch's meters fell in."""
        for slot, f in slots.items():
            work.append(("INSERT INTO floor_meter_points(table_id, day, slot, win_cents,"
                         " drop_cents) VALUES (?, ?, ?, ?, ?) ON CONFLICT(table_id, day, slot)"
                         " DO UPDATE SET win_cents = excluded.win_cents,"
                         " drop_cents = excluded.drop_cents",
                         (tid, f["day"], slot, f["win"], f["drop"])))
        self.rows.of(tid).update(meters=json.dumps(st.meters, sort_keys=True), day=st.day,
                                   day_open=json.dumps(st.day_open))


def _recent(st: TableState, at: float) -> int:
    """The table's strikes within the window before ``at``: the older ones are dropped
    from the front (they arrive in time order), so counting is not a pass over all of
    them — at a hostile table's thousands a batch, that pass was most of the batch."""
    while st.bad and st.bad[0] <= at - QUARANTINE_WINDOW_S:
        st.bad.popleft()
    return len(st.bad)


def _version_of(r: WireRecord) -> str:
    """The other version of a record, as evidence: what the table sent this time."""
    return json.dumps({"kind": r.kind, "n": r.n, "seq": r.seq, "hash": r.hash,
                       "ts_ns": r.ts_ns, "code": r.code, "round": r.round,
                       "content": r.text or r.head})
