"""The floor's store applies each (table, message number) once, in order, on SQLite and on
PostgreSQL alike, and raises the alarm when a table's journal went backwards."""

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
from firmware.floor.pit_data import table_page, tiles


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        d = Database(str(tmp_path / "floor.sqlite"))
    else:
        url = request.getfixturevalue("postgres_url")
        d = Database(url)
        # one server for the module: each test its own tables
        prefix = uuid.uuid4().hex[:8]
        d.test_prefix = prefix  # type: ignore[attr-defined]
    yield d
    d.close()


def _tid(db: Database, name: str) -> str:
    return getattr(db, "test_prefix", "") + name


def record(tid: str, **fields: Any) -> Incoming:
    """An outbox record as the edge hands it on (checked by the schema first)."""
    return Incoming(tid, "record", wire.record(fields), time.time())


def event(tid: str, n: int, seq: int, code: int = 100, digest: str | None = None) -> Incoming:
    return record(tid, kind="event", n=n, seq=seq, hash=digest or f"{seq:064x}",
                  ts_ns=time.time_ns(), code=code, round=None, body={"n": n})


def status(tid: str, seq: int, phase: str = "betting", ts: float | None = None) -> Incoming:
    return Incoming(tid, "status", wire.status(json.dumps({
        "seq": seq, "phase": phase, "variant": "blackjack", "round": 1, "tilt": None,
        "closed": False, "ts": time.time() if ts is None else ts}).encode()), time.time())


def floor_events(db: Database, tid: str) -> list[tuple[int, dict[str, Any]]]:
    return [(int(s), json.loads(b)) for s, b in db.all(
        "SELECT seq, body FROM floor_events WHERE table_id = ? ORDER BY seq", (tid,))]


def test_each_message_applied_once_in_order(db: Database) -> None:
    t = _tid(db, "T1")
    store = FloorLedger(db)
    a = store.apply([event(t, 1, 5), event(t, 2, 9), event(t, 2, 9), event(t, 4, 20)])
    assert (a.applied, a.duplicates, a.gaps) == (2, 1, 1)
    assert a.acks == {t: {"n": 2, "seq": 9, "hash": f"{9:064x}"}}
    # the table sends again from the acknowledgement: 3 fills the gap, 4 follows
    a = store.apply([event(t, 2, 9), event(t, 3, 12), event(t, 4, 20)])
    assert (a.applied, a.duplicates) == (2, 1)
    assert [s for s, _b in floor_events(db, t)] == [5, 9, 12, 20]
    # a restarted floor service continues where the database is
    again = FloorLedger(db)
    a = again.apply([event(t, 4, 20), event(t, 5, 21)])
    assert (a.applied, a.duplicates) == (1, 1)
    assert a.acks == {t: {"n": 5, "seq": 21, "hash": f"{21:064x}"}}
    assert not tiles(db, [t])[0]["alarms"]


def test_a_message_number_reused_with_other_content_is_a_rollback_alarm(db: Database) -> None:
    t = _tid(db, "T2")
    store = FloorLedger(db)
    store.apply([event(t, 1, 5), event(t, 2, 9)])
    a = store.apply([event(t, 2, 7, digest="f" * 64)])
    assert [al["kind"] for al in a.alarms] == ["rollback"]
    assert "rolled back" in tiles(db, [t])[0]["alarms"][0]["detail"]
    assert [s for s, _b in floor_events(db, t)] == [5, 9]  # the floor's records stand


def test_a_status_going_backwards_is_a_sequence_alarm(db: Database) -> None:
    t = _tid(db, "T3")
    store = FloorLedger(db)
    assert not store.apply([status(t, 40), status(t, 40), status(t, 55)]).alarms
    # an old status delivered late (queued by the broker while the floor was down) is
    # stale, not a rollback
    assert not store.apply([status(t, 40, ts=time.time() - 60)]).alarms
    assert tiles(db, [t])[0]["phase"] == "betting"
    a = store.apply([status(t, 30)])
    assert [al["kind"] for al in a.alarms] == ["sequence"]
    # raised once, kept across a restart of the service
    assert not FloorLedger(db).apply([status(t, 20)]).alarms
    assert len(tiles(db, [t])[0]["alarms"]) == 1


def test_round_and_meters_reach_the_table_page(db: Database) -> None:
    t = _tid(db, "T4")
    store = FloorLedger(db)
    now = time.time_ns()
    meters = {"wagered": 1000, "paid": 900, "games_played": 1, "seats": [], "balanced": True}
    store.apply([
        record(t, kind="round", n=1, seq=10, hash="a" * 64, ts_ns=now, round=1,
               record={"round": 1, "state": "settled", "seats": []}),
        record(t, kind="meters", n=2, seq=10, hash="a" * 64, ts_ns=now, meters=meters),
        status(t, 10, "settled"),
    ])
    page = table_page(db, t)
    assert page is not None
    assert page["tile"]["hold"] == 10.0 and page["tile"]["phase"] == "settled"
    assert page["meters"]["wagered"] == 1000 and "round 1 · settled" in page["rounds"][0]


def test_a_failed_transaction_leaves_the_floor_as_it_was(db: Database) -> None:
    t = _tid(db, "T5")
    store = FloorLedger(db)
    store.apply([event(t, 1, 5)])
    real = db.run_grouped

    def fail(work: Any) -> None:
        raise RuntimeError("database away")

    db.run_grouped = fail  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        store.apply([event(t, 2, 9), event(_tid(db, "T6"), 1, 3)])
    db.run_grouped = real  # type: ignore[method-assign]
    assert store.tables[t].last_n == 1 and _tid(db, "T6") not in store.tables
    assert store.apply([event(t, 2, 9)]).applied == 1  # the retry applies it once


def test_a_records_message_is_checked_record_by_record(tmp_path: Path) -> None:
    """One MQTT message carries several records; one that breaks the schema makes the
    whole message a bad one (alarmed, counted), and nothing of it is applied: the table
    sends it all again from the acknowledgement."""
    from types import SimpleNamespace

    from firmware.floor.certs import make_floor_certs
    from firmware.floor.ingest import Ingest

    make_floor_certs(tmp_path, ["T9"])
    store = FloorLedger(Database(str(tmp_path / "floor.sqlite")))
    ing = Ingest(store, tmp_path, "127.0.0.1", 1)
    recs = [{"kind": "event", "n": n, "seq": 10 + n, "hash": f"{n:064x}",
             "ts_ns": time.time_ns(), "code": 100, "round": None, "body": {}}
            for n in (1, 2, 3)]
    recs[1]["kind"] = "bogus"

    def deliver(topic: str, payload: Any) -> list[Incoming]:
        ing._message(None, None, SimpleNamespace(topic=topic, payload=payload, retain=False))
        return [m for m in ing.take() if isinstance(m, Incoming)]

    got = deliver("etg/table/T9/records", json.dumps(recs).encode())
    assert [m.kind for m in got] == ["bad"] and "$[1].kind" in got[0].payload["reason"]
    a = store.apply(got)
    assert (a.applied, a.bad) == (0, 1) and [al["kind"] for al in a.alarms] == ["bad-message"]
    recs[1]["kind"] = "event"
    a = store.apply(deliver("etg/table/T9/records", json.dumps(recs).encode()))
    assert (a.applied, a.acks["T9"]["n"]) == (3, 3)
    assert [m.kind for m in deliver("etg/table/T9/records", b'{"not": "a list"}')] == ["bad"]
    assert [m.kind for m in deliver("etg/table/T9/event", json.dumps(recs[0]).encode())] \
        == ["bad"]
    assert [m.kind for m in deliver("etg/table/T9/status", b'{"seq": 1}')] == ["status"]
    store.db.close()
