"""What a batch costs the database does not grow with what is in it: one UPDATE of each
table's row a batch, the statements sent as one statement each over arrays on
PostgreSQL, and no query a record for a journal going back (one for a run) — on SQLite
and PostgreSQL alike, with numbers up to the schema's largest."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from firmware.floor import wire
from firmware.floor.db import Database
from firmware.floor.ledger import FloorLedger, Incoming

MAX = wire.MAX_INT


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        d = Database(str(tmp_path / "floor.sqlite"))
        d.test_prefix = ""  # type: ignore[attr-defined]
    else:
        d = Database(request.getfixturevalue("postgres_url"))
        d.test_prefix = uuid.uuid4().hex[:8]  # type: ignore[attr-defined]
    yield d
    d.close()


class Spy:
    """The ledger's database, counting what it is asked."""

    def __init__(self, db: Database) -> None:
        self.db, self.batches, self.queries = db, [], 0

    def run_grouped(self, work: Any) -> None:
        work = list(work)
        self.batches.append(work)
        self.db.run_grouped(work)

    def all(self, sql: str, args: Any = ()) -> Any:
        self.queries += 1
        return self.db.all(sql, args)

    def one(self, sql: str, args: Any = ()) -> Any:
        self.queries += 1
        return self.db.one(sql, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def _rec(tid: str, n: int, seq: int, kind: str = "event", digest: str = "ab" * 32,
         **more: Any) -> Incoming:
    fields: dict[str, Any] = {"kind": kind, "n": n, "seq": seq, "hash": digest,
                              "ts_ns": time.time_ns()}
    if kind == "event":
        fields.update(code=100, round=None, body={"n": n})
    fields.update(more)
    return Incoming(tid, "record", wire.record(fields), time.time())


def _status(tid: str, seq: int) -> Incoming:
    return Incoming(tid, "status", wire.status(json.dumps({
        "seq": seq, "phase": "betting", "variant": "blackjack", "round": 1, "tilt": None,
        "closed": False, "ts": time.time(), "sent": time.time()}).encode()), time.time())


METERS = {"games_played": 1, "games_voided": 0, "wagered": 500, "paid": 0,
          "credits_in": 1000, "credits_out": 0, "credits": 500}


def test_a_batch_writes_each_tables_row_once(db: Database) -> None:
    p = db.test_prefix  # type: ignore[attr-defined]
    spy = Spy(db)
    ledger = FloorLedger(spy)  # type: ignore[arg-type]
    tids = [f"{p}C{i}" for i in range(5)]
    batch = []
    for t in tids:  # presence, two statuses, an event, meters, a chain: one row update
        batch += [Incoming(t, "online", True, time.time()), _status(t, 1),
                  _rec(t, 1, 1), _rec(t, 2, 1, "meters", meters=METERS),
                  _rec(t, 3, 1, "chain", head="cd" * 32), _status(t, 2)]
    ledger.apply(batch)
    work = spy.batches[-1]
    updates = [args[-1] for sql, args in work if sql.startswith("UPDATE floor_tables")]
    assert sorted(updates) == sorted(tids)
    rows = db.all("SELECT table_id, online, last_n, status, meters, last_seen FROM"
                  " floor_tables WHERE table_id LIKE ? ORDER BY table_id", (p + "C%",))
    assert [(r[0], r[1], r[2]) for r in rows] == [(t, 1, 3) for t in sorted(tids)]
    assert all(json.loads(r[3])["seq"] == 2 and json.loads(r[4])["credits"] == 500
               and r[5] for r in rows)


def test_a_journal_going_back_costs_a_query_a_run_not_a_record(db: Database) -> None:
    p = db.test_prefix  # type: ignore[attr-defined]
    spy = Spy(db)
    ledger = FloorLedger(spy)  # type: ignore[arg-type]
    t = f"{p}B1"
    ledger.apply([_rec(t, n, n, digest=f"{n:064x}") for n in range(1, 301)])
    ledger.apply([_rec(t, 301, 100_000)])
    spy.queries = 0
    # 300 records, each a journal record lower than the last: one query for the run
    ledger.apply([_rec(t, 301 + k, 300 - k, digest=f"{300 - k:064x}") for k in range(1, 300)])
    assert spy.queries <= 2
    assert ledger.tables[t].alarmed >= {"sequence"}
    assert "reuse" not in ledger.tables[t].alarmed  # the same records: not another content
    ledger.apply([_rec(t, 601, 5, digest="ef" * 32)])  # record 5 with other content
    assert "reuse" in ledger.tables[t].alarmed


def test_numbers_at_the_schemas_largest_are_checked_not_failed(db: Database) -> None:
    p = db.test_prefix  # type: ignore[attr-defined]
    ledger = FloorLedger(db)
    t = f"{p}X1"
    ledger.apply([_rec(t, 1, MAX - 1)])
    got = ledger.apply([_rec(t, 2, MAX)])
    assert got.applied == 1
    got = ledger.apply([_rec(t, 3, MAX - 2, digest="ef" * 32)])  # back, near the top
    assert got.applied == 1 and "sequence" in ledger.tables[t].alarmed
    g = Incoming(t, "record", wire.record({"kind": "gap", "n": MAX - 1, "from_n": 4}),
                 time.time())
    ledger.apply([g])
    assert ledger.tables[t].last_n == MAX - 1
    ledger.apply([_rec(t, MAX, 7)])
    got = ledger.apply([_rec(t, MAX, 8, digest="ef" * 32)])  # the last number again
    assert got.duplicates == 1 and "rollback" in ledger.tables[t].alarmed


def test_a_tables_strikes_are_counted_within_the_window_only(tmp_path: Path) -> None:
    """Counting a table's bad messages toward quarantine keeps only the window's (a
    hostile table's thousands were counted by a pass over all of them, per message)."""
    ledger = FloorLedger(Database(str(tmp_path / "floor.sqlite")), quarantine_after=20)
    t0 = time.time() - 3600

    def bad(at: float) -> Incoming:
        return Incoming("S1", "bad", {"topic": "t", "reason": "r", "sample": ""}, at)

    ledger.apply([bad(t0 + k) for k in range(19)])  # 19 in the window: not yet
    assert ledger.tables["S1"].quarantined is None
    ledger.apply([bad(t0 + 200)])  # the 19 are past the window: one strike, not 20
    st = ledger.tables["S1"]
    assert st.quarantined is None and len(st.bad) == 1
    ledger.apply([bad(t0 + 200 + k / 100) for k in range(1, 20)])  # 20 within a minute
    assert ledger.tables["S1"].quarantined is not None


def test_redteam_h43_f6_a_read_only_postgresql_is_the_database_away(
        postgres_url: str) -> None:
    """A server refusing writes (a standby after a fail-over, read-only by setting) is an
    outage — the batch kept and retried, the pages' 503 — never "a record this floor
    cannot hold", which stored every table one by one and would quarantine them all."""
    from firmware.floor.errors import DatabaseAway

    d = Database(postgres_url)
    try:
        ledger = FloorLedger(d)
        t = uuid.uuid4().hex[:8] + "RO"
        ledger.apply([_rec(t, 1, 1)])
        d.run([("SET SESSION default_transaction_read_only = on", ())])
        with pytest.raises(DatabaseAway):
            ledger.apply([_rec(t, 2, 2)])
        assert ledger.tables[t].last_n == 1  # as before the batch
        with pytest.raises(DatabaseAway):
            d.one("INSERT INTO floor_staff(name, pwhash) VALUES (?, ?) RETURNING name",
                  (t, "x"))
        d.run([("SET SESSION default_transaction_read_only = off", ())])
        assert ledger.apply([_rec(t, 2, 2)]).applied == 1
    finally:
        d.close()
