"""The ledger's plausibility alarms and evidence: meters that fall or go negative, a
journal record reused with other content, a gap the table can never fill, a clock far
off, a record too large to send, and a table that keeps sending bad messages."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from firmware.floor import wire
from firmware.floor.db import Database
from firmware.floor.ledger import FloorLedger, Incoming
from firmware.floor.pit_data import tiles


@pytest.fixture
def ledger(tmp_path: Path) -> Any:
    db = Database(str(tmp_path / "floor.sqlite"))
    yield FloorLedger(db, quarantine_after=3)
    db.close()


def rec(tid: str, **f: Any) -> Incoming:
    base = {"hash": f"{f['seq']:064x}", "ts_ns": time.time_ns()}
    return Incoming(tid, "record", wire.record({**base, **f}), time.time())


def meters(tid: str, n: int, seq: int, **figures: int) -> Incoming:
    return rec(tid, kind="meters", n=n, seq=seq, meters=figures)


def evidence(db: Database, tid: str) -> list[tuple[str, Any]]:
    return [(k, json.loads(p) if p and p.startswith(("{", "[")) else p) for k, p in db.all(
        "SELECT kind, payload FROM floor_evidence WHERE table_id = ? ORDER BY id", (tid,))]


def test_meters_going_back_or_negative_are_alarmed(ledger: FloorLedger) -> None:
    ok = ledger.apply([meters("M", 1, 10, wagered=1000, paid=500, credits=100),
                       meters("M", 2, 20, wagered=2000, paid=900, credits=50)])
    assert not ok.alarms
    a = ledger.apply([meters("M", 3, 30, wagered=1500, paid=900, credits=-5)])
    (alarm,) = a.alarms
    assert alarm["kind"] == "meters"
    assert "table coin in (wagered) went back from $20.00 to $15.00" in alarm["detail"]
    assert "table credits on the seats is negative (-$0.05)" in alarm["detail"]
    assert ledger.tables["M"].last_n == 3  # stored as reported: it is evidence


def test_a_sequence_number_reused_with_other_content_keeps_both(ledger: FloorLedger) -> None:
    ledger.apply([rec("R", kind="event", n=1, seq=7, code=200, body={"first": 1})])
    a = ledger.apply([rec("R", kind="event", n=2, seq=7, code=200, body={"second": 2},
                          hash="c" * 64)])
    assert [al["kind"] for al in a.alarms] == ["reuse"]
    assert ledger.tables["R"].last_n == 2  # the floor goes on
    held = ledger.db.all("SELECT body FROM floor_events WHERE table_id = 'R'")
    assert held == [('{"first":1}',)]
    (kind, other), = evidence(ledger.db, "R")
    assert kind == "reuse" and other["hash"] == "c" * 64 and '"second":2' in other["content"]
    # a message number reused with another record: the rollback alarm, both kept
    a = ledger.apply([rec("R", kind="event", n=1, seq=3, code=200, body={"older": 1})])
    assert [al["kind"] for al in a.alarms] == ["rollback"]
    assert [k for k, _p in evidence(ledger.db, "R")] == ["reuse", "rollback"]


def test_a_gap_the_table_cannot_fill_is_named_and_passed(ledger: FloorLedger) -> None:
    ledger.apply([rec("G", kind="event", n=1, seq=4, code=200, body={})])
    stuck = ledger.apply([rec("G", kind="event", n=40, seq=90, code=200, body={})])
    assert stuck.gapped == {"G"} and ledger.tables["G"].last_n == 1
    a = ledger.apply([Incoming("G", "record", wire.record(
        {"kind": "gap", "n": 39, "from_n": 2}), time.time()),
        rec("G", kind="event", n=40, seq=90, code=200, body={})])
    assert [al["kind"] for al in a.alarms] == ["gap"]
    assert "messages 2..39" in a.alarms[0]["detail"]
    assert ledger.tables["G"].last_n == 40 and a.acks["G"]["n"] == 40
    assert evidence(ledger.db, "G") == [("gap", {"from_n": 2, "to_n": 39})]


def test_a_status_far_in_the_future_never_freezes_the_tile(ledger: FloorLedger) -> None:
    def status(seq: int, ts: float, sent: float | None = None, phase: str = "x") -> Incoming:
        return Incoming("C", "status", wire.status(json.dumps(
            {"seq": seq, "phase": phase, "ts": ts, "sent": sent or ts}).encode()), time.time())

    now = time.time()
    a = ledger.apply([status(10, now + 86400 * 300, phase="dealing")])
    assert [al["kind"] for al in a.alarms] == ["clock"]
    assert "ahead of the floor's" in a.alarms[0]["detail"]
    ledger.apply([status(11, now, phase="settled")])
    assert tiles(ledger.db, ["C"])[0]["phase"] == "settled"
    ledger.apply([status(11, now + 1, phase="betting")])  # same record, later: shown
    assert tiles(ledger.db, ["C"])[0]["phase"] == "betting"
    ledger.apply([status(10, now - 5, phase="old")])  # an old one delivered late: not shown
    assert tiles(ledger.db, ["C"])[0]["phase"] == "betting"


def test_a_clock_behind_is_judged_on_several_statuses() -> None:
    from firmware.floor.plausibility import ClockWatch

    w, now = ClockWatch(), 10_000.0
    assert w.problem(now - 600, now) is None  # one late message: maybe delivery
    assert w.problem(now - 590, now + 10) is None
    assert "behind" in str(w.problem(now - 580, now + 20))
    w2 = ClockWatch()
    for lag in (600, 590, 2, 650):  # queued while the floor was away, then current ones
        assert w2.problem(now - lag, now) is None


def test_an_oversize_stub_is_applied_and_alarmed(ledger: FloorLedger) -> None:
    a = ledger.apply([rec("O", kind="oversize", n=1, seq=8, of="event", bytes=9_000_000)])
    assert [al["kind"] for al in a.alarms] == ["oversize"] and a.acks["O"]["n"] == 1


def test_a_table_that_keeps_sending_bad_messages_is_quarantined(ledger: FloorLedger) -> None:
    def bad(i: int) -> Incoming:
        return Incoming("Q", "bad", {"topic": "etg/table/Q/records", "reason": f"no {i}",
                                     "sample": '"x"'}, time.time())

    a = ledger.apply([bad(1), bad(2)])
    assert a.bad == 2 and [al["kind"] for al in a.alarms] == ["bad-message"]
    a = ledger.apply([bad(3)])
    assert a.quarantined == {"Q"} and [al["kind"] for al in a.alarms] == ["quarantine"]
    assert "3 bad messages" in str(tiles(ledger.db, ["Q"])[0]["quarantined"])
    # the supervisor clears it (the web wrote the row): the ledger follows
    ledger.db.run([("UPDATE floor_tables SET quarantined = NULL WHERE table_id = 'Q'", ())])
    a = ledger.apply([Incoming("Q", "control", {"action": "clear-quarantine"}, time.time())])
    assert a.released == {"Q"} and ledger.tables["Q"].quarantined is None
    # a restarted floor still knows which alarms are open
    again = FloorLedger(ledger.db)
    assert again.tables["Q"].alarmed == {"bad-message", "quarantine"}


def test_one_table_the_store_refuses_never_stops_another(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A record the database refuses (not an outage) is that table's problem alone: the
    batch is applied table by table, the failing table quarantined; an outage, by
    contrast, keeps the whole batch and retries it."""
    from firmware.floor import ingest as ingest_mod
    from firmware.floor.certs import make_floor_certs
    from firmware.floor.errors import DatabaseAway
    from firmware.floor.health import Health

    class Picky(FloorLedger):
        def store(self, tid: str, *args: Any) -> None:
            if tid == "BAD":
                raise ValueError("the store cannot take this")
            super().store(tid, *args)

    make_floor_certs(tmp_path, [])
    db = Database(str(tmp_path / "floor.sqlite"))
    health = Health()
    ing = ingest_mod.Ingest(Picky(db), tmp_path, "127.0.0.1", 1, health=health)
    published: list[tuple[str, bytes]] = []
    monkeypatch.setattr(ing.client, "publish",
                        lambda topic, payload, **kw: published.append((topic, payload)))
    ing._apply([rec("BAD", kind="event", n=1, seq=1, code=1, body={}),
                rec("GOOD", kind="event", n=1, seq=1, code=1, body={})])
    assert ing.store.tables["GOOD"].last_n == 1 and ing.quarantined == {"BAD"}
    assert [t for t, _p in published if not t.startswith("$CONTROL/")] == ["etg/ack/GOOD"]
    assert [b"BAD" in p for t, p in published if t.startswith("$CONTROL/")] == [True]
    # the first news of a table since the floor connected (its retained status) is
    # answered with its acknowledgement: what it sent before the floor subscribed goes again
    ing._apply([Incoming("NEW", "status", wire.status(b'{"seq": 3}'), time.time())])
    assert published[-1] == ("etg/ack/NEW", b'{"n":0}')
    sent = len(published)
    ing._apply([Incoming("NEW", "status", wire.status(b'{"seq": 4}'), time.time())])
    assert len(published) == sent  # once per connection
    assert "could not store" in str(ing.store.tables["BAD"].quarantined)

    real, calls = db.run_grouped, []

    def away(work: Any) -> None:
        calls.append(1)
        if len(calls) < 3:
            raise DatabaseAway("floor database: connection refused")
        real(work)

    monkeypatch.setattr(db, "run_grouped", away)
    monkeypatch.setattr(ingest_mod.time, "sleep", lambda s: None)
    changes: list[bool] = []
    health.listeners.append(lambda h: changes.append(h["database"]))
    ing._apply([rec("GOOD", kind="event", n=2, seq=2, code=1, body={})])
    assert len(calls) == 3 and ing.store.tables["GOOD"].last_n == 2
    # the pit saw it away, then back (each change pushed once or more: the store's
    # failure banner is a change of its own)
    assert [c for i, c in enumerate(changes) if not i or changes[i - 1] != c] == [False, True]
    db.close()


def test_software_answers_are_judged_and_automatic_checks_ask_every_table() -> None:
    import threading

    from firmware.floor.software_check import AUTOMATIC, AutomaticChecks, judge

    assert judge("ab" * 32, {"hmac": "ab" * 32, "files": 3}, "etg-0.1")[0] == "match"
    assert judge("ab" * 32, {"hmac": "cd" * 32, "files": 3}, "etg-0.1")[0] == "mismatch"
    assert judge(None, {"hmac": "cd" * 32}, "")[0] == "not compared"
    assert judge("ab" * 32, {"error": "not an installed release"}, "x") == (
        "no answer", "the table could not compute its signature")
    asked: list[tuple[str, str]] = []
    both = threading.Event()

    class Checks:
        def request(self, tid: str, by: str) -> str:
            asked.append((tid, by))
            if len(asked) >= 2:
                both.set()
            return "id"

    auto = AutomaticChecks(Checks(), lambda: ["T1", "T2"], every_s=0.05)  # type: ignore[arg-type]
    auto.start()
    try:
        assert both.wait(30)
    finally:
        auto.stop()
    assert asked[:2] == [("T1", AUTOMATIC), ("T2", AUTOMATIC)]


def test_finding_4_a_rollback_latches_the_acknowledgement(ledger: FloorLedger) -> None:
    """Issue 42: after one `rollback` alarm the floor acknowledged the rolled-back journal,
    and the next start was witnessed as agreeing. Now nothing of that table is
    acknowledged until a supervisor clears the alarm (with a reason, in the pit)."""
    first = ledger.apply([rec("W", kind="event", n=1, seq=3, code=200, body={"a": 1}),
                          rec("W", kind="event", n=2, seq=4, code=200, body={"b": 1})])
    assert first.acks["W"] == {"n": 2, "seq": 4, "hash": f"{4:064x}"}
    back = ledger.apply([rec("W", kind="event", n=2, seq=3, code=200, body={"old": 1},
                             hash="d" * 64),
                         rec("Other", kind="event", n=1, seq=1, code=200, body={})])
    assert [al["kind"] for al in back.alarms] == ["rollback"]
    assert "W" not in back.acks and "Other" in back.acks
    on = ledger.apply([rec("W", kind="event", n=3, seq=5, code=200, body={"new": 1},
                           hash="e" * 64)])
    assert on.applied == 1 and "W" not in on.acks  # played on: still not acknowledged
    cleared = ledger.apply([Incoming("W", "control", {"action": "ack-alarm",
                                                      "kind": "rollback"}, time.time())])
    assert cleared.acks["W"]["n"] == 3


def _pit_server(db_path: Path, ledger: FloorLedger) -> tuple[Any, Any, Database, int]:
    """The floor's web app (firmware.floor.web.make_app) on a free loopback port, in this
    process: its acknowledgements go into ``ledger`` as the ingest's ``pit_action`` puts
    them (a control message in the ledger's order)."""
    import threading

    import uvicorn
    from floor_rig import free_port

    from firmware.floor.hub import Hub
    from firmware.floor.web import make_app

    web_db = Database(str(db_path))

    def pit_action(tid: str, action: dict[str, Any]) -> None:
        ledger.apply([Incoming(tid, "control", action, time.time())])

    app = make_app(web_db, Hub(web_db), lambda *a, **k: "no-command", pit_action=pit_action)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the pit view did not start"
        time.sleep(0.02)
    return server, thread, web_db, port


def test_finding_4_the_pit_clears_a_rollback_only_with_a_reason(tmp_path: Path) -> None:
    """Issue 42: clearing (acknowledging) a rollback/sequence/reuse alarm in the pit needs
    a reason. Through the pit view's HTTP form, as a logged-in supervisor: without a reason
    (or a blank one) it is refused (400) and the latch holds (the table still not
    acknowledged); with one, the reason is kept in floor_actions, the alarm carries who
    acknowledged it, and the table is acknowledged again."""
    import http.cookiejar
    import re
    import urllib.error
    import urllib.parse
    import urllib.request

    from floor_rig import PASSWORD, STAFF

    from firmware.floor.auth import add_staff

    db_path = tmp_path / "floor.sqlite"
    db = Database(str(db_path))
    ledger = FloorLedger(db, quarantine_after=3)
    ledger.apply([rec("W", kind="event", n=1, seq=3, code=200, body={"a": 1}),
                  rec("W", kind="event", n=2, seq=4, code=200, body={"b": 1})])
    back = ledger.apply([rec("W", kind="event", n=2, seq=3, code=200, body={"old": 1},
                             hash="d" * 64)])
    assert [al["kind"] for al in back.alarms] == ["rollback"]
    aid = db.one("SELECT id FROM floor_alarms WHERE table_id = 'W' AND kind = 'rollback'",
                 ())[0]
    add_staff(db, STAFF, PASSWORD)
    server, thread, web_db, port = _pit_server(db_path, ledger)
    http = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    url = f"http://127.0.0.1:{port}"
    try:
        http.open(f"{url}/login", urllib.parse.urlencode(
            {"name": STAFF, "password": PASSWORD}).encode(), timeout=30).read()
        page = http.open(f"{url}/", timeout=30).read().decode()
        found = re.search(r"name=.csrf. value=.([^'\"]+)", page)
        assert found, "no CSRF token on the page: not logged in"
        csrf = found.group(1)

        def acknowledge(**form: str) -> int:
            data = urllib.parse.urlencode({"csrf": csrf, **form}).encode()
            try:
                with http.open(f"{url}/alarm/{aid}/acknowledge", data, timeout=30) as r:
                    return int(r.status)
            except urllib.error.HTTPError as exc:
                assert "needs a reason" in exc.read().decode()
                return int(exc.code)

        for form in ({}, {"reason": "   "}, {"reason": "x" * 201}, {"reason": "a\x07b"}):
            assert acknowledge(**form) == 400, form
        assert db.one("SELECT ack_at FROM floor_alarms WHERE id = ?", (aid,))[0] is None
        assert db.all("SELECT * FROM floor_actions WHERE table_id = 'W'", ()) == []
        held = ledger.apply([rec("W", kind="event", n=3, seq=5, code=200, body={"c": 1},
                                 hash="e" * 64)])
        assert held.applied == 1 and "W" not in held.acks  # the latch holds
        assert acknowledge(reason="journal restored by tech 7, ticket 42") == 200
        assert db.all("SELECT action, by_name, detail FROM floor_actions WHERE table_id = 'W'",
                      ()) == [("clear-rollback", STAFF, "journal restored by tech 7, ticket 42")]
        assert db.one("SELECT ack_by FROM floor_alarms WHERE id = ?", (aid,))[0] == STAFF
        lifted = ledger.apply([rec("W", kind="event", n=4, seq=6, code=200, body={"d": 1},
                                   hash="f" * 64)])
        assert lifted.acks["W"]["n"] == 4  # the latch lifted: the table is acknowledged
    finally:
        server.should_exit = True
        thread.join(30)
        web_db.close()
        db.close()
