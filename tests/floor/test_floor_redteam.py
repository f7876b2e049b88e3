"""The red team's findings against branch i43 (/work/wt/redteam/i43.md), one test each,
named for the finding: each failed on the branch as the red team found it."""

from __future__ import annotations

import json
import logging
import queue
import shutil
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from asgi_call import call

pytest.importorskip("starlette")
pytest.importorskip("msgspec")

from firmware.floor import auth
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity, make_floor_certs
from firmware.floor.db import Database
from firmware.floor.escape import one_line, one_line_logs
from firmware.floor.hub import Hub
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger, Incoming
from firmware.floor.web import make_app

HAS_BROKER = bool(shutil.which("mosquitto")) or Path("/usr/sbin/mosquitto").exists()


def test_redteam_f1_the_acl_grants_a_table_exactly_its_four_topics() -> None:
    from firmware.floor.broker import acl_text

    acl = acl_text()
    table = [line for line in acl.splitlines() if line.startswith("pattern write")]
    assert table == [f"pattern write etg/table/%u/{k}"
                     for k in ("status", "online", "records", "signature")]


@pytest.mark.skipif(not HAS_BROKER, reason="mosquitto is not installed (make setup)")
def test_redteam_f1_a_table_cannot_park_retained_data_on_other_topics(tmp_path: Path) -> None:
    """Against a running Mosquitto with the generated ACL: EVIL's retained junk under its
    own prefix is refused by the broker (and its log says so); nothing is retained."""
    from floor_rig import floor_rig, wait_for
    from waiting import DEADLINE_S

    from firmware.floor.mqtt import make_client

    with floor_rig(tmp_path, ["EVIL"]) as rig:
        rig.start_broker()

        def client(name: str) -> Any:
            me = identity(rig.dir, name)
            c = make_client(f"{name}-rt", ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
            c.connect("127.0.0.1", rig.broker_port, 10)
            c.loop_start()
            return c

        evil = client("EVIL")
        for topic in ("etg/table/EVIL/junk/1", "etg/table/EVIL/status/x",
                      "etg/table/EVIL/BJ-01/online", "etg/table/EVIL/junk"):
            evil.publish(topic, b"A" * 250_000, qos=1, retain=True).wait_for_publish(DEADLINE_S)
        evil.publish("etg/table/EVIL/status", b'{"seq": 1}', qos=1,
                     retain=True).wait_for_publish(DEADLINE_S)
        got: queue.Queue[str] = queue.Queue()
        floor = client(FLOOR_SERVICE)
        floor.on_message = lambda c, u, m: got.put(m.topic)
        floor.subscribe("etg/table/#", qos=1)
        assert got.get(timeout=DEADLINE_S) == "etg/table/EVIL/status"  # its own topic: kept
        time.sleep(1.0)
        assert got.empty()  # and nothing else was retained
        wait_for("the broker's refusal logged", lambda: "Denied PUBLISH from EVIL" in
                 rig.log_text("broker") and "etg/table/EVIL/junk/1" in rig.log_text("broker"))
        for c in (evil, floor):
            c.disconnect()
            c.loop_stop()


def test_redteam_f2_a_table_text_in_a_log_line_cannot_forge_another_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An unknown field named ``x\\n13:16:00 CRITICAL …`` was quoted raw by the refusal
    lines (the ingest's and the ledger's "again"): forged log lines. Now every message of
    the floor's loggers is one line, and the refusal's text itself is too."""
    make_floor_certs(tmp_path, ["EVIL"])
    store = FloorLedger(Database(str(tmp_path / "floor.sqlite")))
    ing = Ingest(store, tmp_path, "127.0.0.1", 1)
    one_line_logs()
    caplog.set_level(logging.INFO)
    forged = ("x\n13:16:00 CRITICAL etg.floor: FLOOR SERVICE FAULT: forged line\r\n"
              "13:16:00 INFO etg.floor: <script>\u2028\u2029\x1b[2J")
    for i in range(3):
        ing._message(None, None, SimpleNamespace(
            topic="etg/table/EVIL/status", payload=json.dumps({forged: i}).encode(),
            retain=False))
        ing._bad_logged.clear()  # (each refusal logged, not one in 10 s)
    items = [m for m in ing.take() if isinstance(m, Incoming)]
    a = store.apply(items)
    ing._after(a)
    assert "FLOOR SERVICE FAULT" in caplog.text  # the text is there, escaped
    for r in caplog.records:
        msg = r.getMessage()
        assert msg.isprintable(), msg
    assert all(m.payload["reason"].isprintable() for m in items)
    assert one_line("a\nb\u2028c") == "a\\nb\\u2028c"


def _app(tmp_path: Path) -> tuple[Any, Database, str, str]:
    db = Database(str(tmp_path / "floor.sqlite"))
    FloorLedger(db).apply([Incoming("EVIL", "online", True, time.time())])
    app = make_app(db, Hub(db), send_command=lambda *a, **k: "id")
    auth.add_staff(db, "pit", "pitpass123")
    _status, headers, _ = call(app, "POST", "/login", {"name": "pit", "password": "pitpass123"})
    cookie = headers["set-cookie"].split(";", 1)[0]
    s = auth.session(db, cookie.split("=", 1)[1])
    assert s is not None
    return app, db, cookie, s.csrf


def test_redteam_f3_an_alarm_id_beyond_64_bits_is_404_not_500(tmp_path: Path) -> None:
    app, _db, cookie, csrf = _app(tmp_path)
    for aid in ("99999999999999999999999", str(2**63), "0"):
        status, _h, body = call(app, "POST", f"/alarm/{aid}/acknowledge", {"csrf": csrf},
                                cookie=cookie)
        assert status == 404, (aid, body[:200])


def test_redteam_f4_clearing_a_quarantine_that_is_not_there_is_refused_and_not_recorded(
        tmp_path: Path) -> None:
    app, db, cookie, csrf = _app(tmp_path)
    status, _h, body = call(app, "POST", "/table/EVIL/clear-quarantine",
                            {"csrf": csrf, "reason": "x"}, cookie=cookie)
    assert status == 409 and b"not quarantined" in body
    assert db.one("SELECT COUNT(*) FROM floor_actions") == (0,)


@pytest.mark.parametrize("name", ["floor", "broker", "ca", "FLOOR", "Floor", "_x"])
def test_redteam_f13_the_floors_own_identities_are_never_a_table(tmp_path: Path,
                                                                 name: str) -> None:
    from firmware.cli import main

    d = str(tmp_path / "floor")
    assert main(["floor", "certs", "--dir", d, "--tables", "BJ-01"]) == 0
    assert main(["floor", "certs", "--dir", d, "--tables", name]) == 2
    assert main(["floor", "table-config", "--dir", d, name]) == 2
    assert not (tmp_path / "floor" / "tables" / f"{name}.pem").exists()
    assert main(["floor", "table-config", "--dir", d, "BJ-01"]) == 0


def test_redteam_f11_journal_time_going_back_is_a_clock_alarm_and_keeps_the_days_drop(
        tmp_path: Path) -> None:
    """Two $10,000 transfers today, the second stamped 05:00 (before the day began):
    bc5b817's rule took it as the day's opening (drop $0.00) with no alarm."""
    from firmware.floor import gaming_day, pit_data, wire

    db = Database(str(tmp_path / "floor.sqlite"))
    store = FloorLedger(db, day_start_minutes=360)
    today, _ = gaming_day.day_and_slot(time.time(), 360)
    d0 = gaming_day.day_start(today, 360)
    k = {"n": 0}

    def met(ci: int, at: float) -> Any:
        k["n"] += 1
        return wire.record({"kind": "meters", "n": k["n"], "seq": k["n"], "hash": "ab" * 32,
                            "ts_ns": int(at * 1e9), "meters": {"credits_in": ci}})

    now = time.time()
    store.apply([Incoming("EVIL5", "record", met(0, d0 - 18 * 3600), now)])
    store.apply([Incoming("EVIL5", "record", met(1_000_000, now - 1), now)])
    a = store.apply([Incoming("EVIL5", "record", met(2_000_000, d0 - 3600), now)])
    assert [x["kind"] for x in a.alarms] == ["clock"]
    assert "journal time went back" in a.alarms[0]["detail"]
    day = {t["table"]: t["day"] for t in pit_data.tiles(db, day_start_minutes=360)}["EVIL5"]
    assert day["drop"] == 2_000_000


def test_redteam_f6_the_brokers_log_lines_are_bounded_per_kind_and_in_all() -> None:
    """82,000 refused publishes in 10 s were 82,000 floor log lines; junk on the port
    780 a second. Now each kind has KIND_LINES_PER_MINUTE a minute, all kinds
    LINES_PER_MINUTE, and the minute's end says how many were not logged."""
    from firmware.floor.broker_process import (
        KIND_LINES_PER_MINUTE,
        LINES_PER_MINUTE,
        LineBudget,
        judge,
    )

    b, logged = LineBudget(), []
    for i in range(82_000):
        level, text = judge(f"1700000000: Denied PUBLISH from EVIL (d0, q0, r0, m{i}, "
                            f"'etg/table/BJ-01/records', ... (1 bytes))")
        logged += b.admit(level, text, 60.0)
    for i in range(3000):  # anyone on the port: OpenSSL errors and protocol errors
        for line in ("1700000000: OpenSSL Error[0]: error:0A0000F4:SSL routines::unexpected"
                     " message", f"1700000000: Client <unknown> disconnected: Protocol "
                     f"error. {i}", f"1700000000: junk {i}x{'y' * (i % 50)}"):
            level, text = judge(line)
            logged += b.admit(level, text, 61.0)
    assert len(logged) <= LINES_PER_MINUTE
    assert sum("Denied PUBLISH from EVIL" in t for _lv, t in logged) == KIND_LINES_PER_MINUTE
    after = b.admit(logging.INFO, "New client connected", 125.0)
    assert any("more lines like 'refused publishes from EVIL'" in t and
               f"{82_000 - KIND_LINES_PER_MINUTE} more" in t for _lv, t in after)
    assert after[-1] == (logging.INFO, "New client connected")


def test_redteam_f12_a_malformed_presence_message_is_a_bad_message(tmp_path: Path) -> None:
    from firmware.floor.ingest import ONLINE_BYTES
    from firmware.floor.rate import BURST_BYTES

    make_floor_certs(tmp_path, ["EVIL5"])
    ing = Ingest(FloorLedger(Database(str(tmp_path / "floor.sqlite"))), tmp_path, "127.0.0.1", 1)
    for payload in (b"{}", b"2", b"", b"1" * 200, b"<script>", b"\0", b"true"):
        ing._message(None, None, SimpleNamespace(topic="etg/table/EVIL5/online",
                                                 payload=payload, retain=False))
        got = [m for m in ing.take() if isinstance(m, Incoming)]
        assert [m.kind for m in got] == ["bad"], payload
    assert BURST_BYTES // ONLINE_BYTES <= 16_384  # the burst, counted in presence messages


def test_redteam_f10_a_nul_in_free_content_is_refused_at_the_edge() -> None:
    from firmware.floor import wire

    rec = {"kind": "event", "n": 1, "seq": 1, "hash": "ab" * 32, "ts_ns": 1, "code": 102,
           "body": {"t": "a\u0000b"}}
    for body in ({"t": "a\u0000b"}, {"k\u0000": 1}, {"x": [{"y": ["\u0000"]}]}):
        with pytest.raises(wire.BadMessage):
            wire.records(json.dumps([{**rec, "body": body}]).encode())
    assert wire.records(json.dumps([{**rec, "body": {"t": "a\tb\n"}}]).encode())


def test_redteam_f3b_a_500_carries_the_security_headers_and_pages_are_not_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.floor import pit_data

    app, _db, cookie, _csrf = _app(tmp_path)
    monkeypatch.setattr(pit_data, "tiles", lambda *a, **k: 1 / 0)
    status, headers, _ = call(app, "GET", "/api/tables", cookie=cookie)
    assert status == 500
    assert headers["x-frame-options"] == "DENY" and "content-security-policy" in headers
    assert call(app, "GET", "/api/alarms", cookie=cookie)[1]["cache-control"] == "no-store"
    assert "no-store" not in call(app, "GET", "/static/pit.js")[1].get("cache-control", "")


def test_redteam_f7_the_login_throttle_never_trusts_x_forwarded_for() -> None:
    import inspect

    from firmware.floor import serve

    assert "proxy_headers=False" in inspect.getsource(serve._serve)


def test_redteam_f8_a_table_saying_it_is_simulated_is_never_hidden_with_trouble(
        tmp_path: Path) -> None:
    from firmware.floor import pit_data, wire

    db = Database(str(tmp_path / "floor.sqlite"))
    now = time.time()
    st = {"seq": 1, "simulated": True, "tilt": {"cause": "door open", "code": "DOOR"},
          "failure": "RNG failure", "ts": now}
    FloorLedger(db).apply([
        Incoming("EVIL2", "status", wire.status(json.dumps(st).encode()), now),
        Incoming("LOAD-1", "status", wire.status(json.dumps({"seq": 1, "simulated": True,
                                                              "ts": now}).encode()), now)])
    tiles = {t["table"]: t for t in pit_data.tiles(db)}
    assert tiles["EVIL2"]["simulated"] is False and tiles["LOAD-1"]["simulated"] is True


def test_redteam_f5_one_table_cannot_own_the_floors_lag() -> None:
    from firmware.floor.health import Health

    h = Health()
    for t in ("BJ-01", "BJ-02", "BJ-03"):
        h.lag_sample(0.2, t)
    for _ in range(450):  # 30 statuses a second for 15 s, stamped 100 s ago
        h.lag_sample(100.0, "EVIL")
    assert h.lag() == 0.2
    h2 = Health()
    for t in ("BJ-01", "BJ-02", "BJ-03"):
        h2.lag_sample(60.0, t)  # the floor really is behind
    for _ in range(450):
        h2.lag_sample(-100.0, "EVIL")  # stamped ahead: cannot hide it
    assert h2.lag() == 60.0 and h2.snapshot()["lag_s"] == 60.0


def test_redteam_f9_meters_unbalanced_or_not_their_seats_sum_or_a_huge_step_are_alarms(
        tmp_path: Path) -> None:
    from firmware.floor import wire

    big = 10**15
    cases = [
        {"credits_in": 100, "credits": 100, "balanced": False},
        {"credits_in": big, "seats": [{"seat": 1, "credits_in": 500}]},
    ]
    for i, m in enumerate(cases):
        store = FloorLedger(Database(str(tmp_path / f"f{i}.sqlite")))
        a = store.apply([Incoming("EVIL2", "record", wire.record({
            "kind": "meters", "n": 1, "seq": 1, "hash": "ab" * 32, "ts_ns": time.time_ns(),
            "meters": m}), time.time())])
        assert [x["kind"] for x in a.alarms] == ["meters"], m
    store = FloorLedger(Database(str(tmp_path / "step.sqlite")))
    for n, ci in ((1, 0), (2, 10**12)):
        a = store.apply([Incoming("EVIL2", "record", wire.record({
            "kind": "meters", "n": n, "seq": n, "hash": "ab" * 32, "ts_ns": time.time_ns(),
            "meters": {"credits_in": ci, "credits": ci, "balanced": True}}), time.time())])
    assert [x["kind"] for x in a.alarms] == ["meters"] and "in one step" in a.alarms[0]["detail"]


def test_redteam_f10_a_key_written_twice_is_a_bad_message() -> None:
    """``{"cents": 100, "cents": 99999999}`` was stored as $999,999.99 (msgspec keeps the
    last key; another reader takes the first): a message with two readings is refused,
    wherever the key is repeated (free content, a typed record, a status, an answer)."""
    from firmware.floor import wire

    ev = ('{"kind":"event","n":1,"seq":1,"hash":"%s","ts_ns":1,"code":800,"round":null,'
          '"body":%s}')
    h = "ab" * 32
    refused = [
        ev % (h, '{"cents":100,"cents":99999999,"seat":1}'),
        ev % (h, '{"a":{"x":[{"k":1,"k":1}]}}'),  # deep in the content, even the same value
        '[{"kind":"meters","n":1,"seq":1,"hash":"H","ts_ns":1,"meters":{"credits_in":1,'
        '"credits_in":99}}]'.replace('"H"', f'"{h}"'),
        '[{"kind":"chain","n":1,"n":2,"seq":1,"hash":"H","ts_ns":1,"head":"H"}]'.replace(
            '"H"', f'"{h}"'),
    ]
    for text in refused:
        payload = (text if text.startswith("[") else f"[{text}]").encode()
        with pytest.raises(wire.BadMessage, match="twice in one object"):
            wire.records(payload)
    with pytest.raises(wire.BadMessage, match="twice"):
        wire.status(b'{"seq":1,"closed":false,"closed":true}')
    with pytest.raises(wire.BadMessage, match="twice"):
        wire.signature(b'{"id":"a","hmac":"%s","hmac":"%s"}' % (h.encode(), b"cd" * 32))
    # the same key in two objects is fine, and so is a key that only looks alike
    fine = ev % (h, '{"a":{"k":1},"b":{"k":2},"K":3}')
    got = wire.records(f"[{fine}]".encode())
    assert json.loads(got[0].text) == {"a": {"k": 1}, "b": {"k": 2}, "K": 3}


def test_redteam_f10_a_key_written_twice_reaches_the_ledger_as_a_bad_message(
        tmp_path: Path) -> None:
    """Through the ingest's own handler: evidence and a bad-message alarm, nothing stored."""
    make_floor_certs(tmp_path, ["EVIL2"])
    db = Database(str(tmp_path / "floor.sqlite"))
    store = FloorLedger(db)
    ing = Ingest(store, tmp_path, "127.0.0.1", 1)
    body = '{"cents":100,"cents":99999999,"seat":1}'
    payload = ('[{"kind":"event","n":1,"seq":1,"hash":"' + "ab" * 32 + '","ts_ns":1,'
               '"code":800,"round":null,"body":' + body + '}]').encode()
    ing._message(None, None, SimpleNamespace(topic="etg/table/EVIL2/records",
                                             payload=payload, retain=False))
    got = [m for m in ing.take() if isinstance(m, Incoming)]
    assert [m.kind for m in got] == ["bad"]
    a = store.apply(got)
    assert [x["kind"] for x in a.alarms] == ["bad-message"]
    assert db.one("SELECT COUNT(*) FROM floor_events") == (0,)


def _refusals(watch: Any, n: int, t0: float, client: str = "EVIL") -> None:
    from firmware.floor.broker_process import judge

    for i in range(n):
        _lv, text = judge(f"1700000000: Denied PUBLISH from {client} (d0, q0, r0, m{i}, "
                          "'etg/table/BJ-01/records', ... (1 bytes))")
        watch.saw(text, t0 + i * 1e-4)


def test_redteam_f6_a_table_the_acl_keeps_refusing_is_an_acl_alarm_and_quarantined(
        tmp_path: Path) -> None:
    """82,000 refused publishes were log lines only: no alarm on EVIL's tile, no count
    toward quarantine. Now the broker's refusals are counted per table and reported to
    the ledger (bounded: once a second per table with the count since), an ``acl`` alarm,
    each refusal a strike toward quarantine."""
    from firmware.floor import wire
    from firmware.floor.acl_watch import RefusalWatch
    from firmware.floor.broker_process import judge

    reports: list[tuple[str, dict[str, Any]]] = []
    w = RefusalWatch(lambda t, p: reports.append((t, p)))
    _refusals(w, 8000, 100.0)  # 0.8 s of a flood: one report (the first), the rest held
    _lv, sub = judge("1700000000: EVIL 0 etg/command/BJ-01")
    w.saw(sub, 100.9)
    _lv, floor_own = judge(f"1700000000: {FLOOR_SERVICE} 0 etg/zzz")
    w.saw(floor_own, 100.9)  # the floor's own: its bug, not a table's alarm
    w.saw("refused by the ACL: Denied PUBLISH from ../x (d0)", 100.9)  # not a table id
    assert [(t, p["count"]) for t, p in reports] == [("EVIL", 1)]
    w.flush(101.5)
    assert [(t, p["count"], p["subscriptions"]) for t, p in reports][1] == ("EVIL", 8000, 1)

    db = Database(str(tmp_path / "floor.sqlite"))
    store = FloorLedger(db)
    store.apply([Incoming("BJ-01", "status", wire.status(b'{"seq": 1}'), time.time())])
    got = store.apply([Incoming(t, "acl", p, time.time()) for t, p in reports[:1]])
    assert [(x["table"], x["kind"]) for x in got.alarms] == [("EVIL", "acl")]
    assert "refused 1 of its requests" in got.alarms[0]["detail"]
    assert not got.quarantined  # one refusal: a strike, not yet a quarantine
    got = store.apply([Incoming(t, "acl", p, time.time()) for t, p in reports[1:]])
    assert got.quarantined == {"EVIL"}
    assert store.tables["EVIL"].quarantined and not store.tables["BJ-01"].quarantined
    (kept,) = db.one("SELECT COUNT(*) FROM floor_evidence WHERE table_id = 'EVIL' AND "
                     "kind = 'acl'") or (0,)
    assert kept >= 1


def test_redteam_f6_the_brokers_refusals_reach_the_ledger_through_the_ingest(
        tmp_path: Path) -> None:
    """The supervisor's watch hands its reports to the ingest's inbox, in the ledger's
    order (what ``etg floor serve --start-broker`` wires up)."""
    from firmware.floor.broker_process import BrokerSupervisor

    make_floor_certs(tmp_path, ["EVIL"])
    store = FloorLedger(Database(str(tmp_path / "floor.sqlite")))
    ing = Ingest(store, tmp_path, "127.0.0.1", 1)
    sup = BrokerSupervisor(tmp_path, "127.0.0.1", 1)
    sup.watch.report = ing.broker_refused
    _refusals(sup.watch, 50, 10.0)
    sup.watch.flush(20.0)
    got = [m for m in ing.take() if isinstance(m, Incoming)]
    assert [(m.table_id, m.kind, m.payload["count"]) for m in got] == [
        ("EVIL", "acl", 1), ("EVIL", "acl", 49)]
    assert store.apply(got).quarantined == {"EVIL"}  # 50 refusals within the minute


def test_redteam_f9_a_tables_alarmed_meters_are_left_out_of_the_floor_summary(
        tmp_path: Path) -> None:
    """EVIL2's unbalanced $10 trillion went into the floor's drop; now its tile says its
    meters are unverified (an open meters alarm) and the summary leaves them out."""
    from firmware.floor import pit_data, wire
    from firmware.floor.pit_script import PIT_JS

    db = Database(str(tmp_path / "floor.sqlite"))
    store = FloorLedger(db)
    now = time.time()

    def meters(tid: str, m: dict[str, Any]) -> None:
        store.apply([Incoming(tid, "record", wire.record({
            "kind": "meters", "n": 1, "seq": 1, "hash": "ab" * 32, "ts_ns": time.time_ns(),
            "meters": m}), now)])

    meters("BJ-01", {"credits_in": 1000, "credits": 1000, "balanced": True,
                     "seats": [{"seat": 1, "credits_in": 1000, "credits": 1000}]})
    meters("EVIL2", {"credits_in": 10**15, "credits": 10**15, "balanced": False})
    tiles = {t["table"]: t for t in pit_data.tiles(db)}
    assert tiles["EVIL2"]["meters_unverified"] is True
    assert tiles["BJ-01"]["meters_unverified"] is False
    assert "if (t.meters_unverified) unverified++;" in PIT_JS
    (aid,) = [a["id"] for a in tiles["EVIL2"]["alarms"] if a["kind"] == "meters"]
    db.run([("UPDATE floor_alarms SET ack_by = 'pit', ack_at = ? WHERE id = ?", (now, aid))])
    assert pit_data.tiles(db, ["EVIL2"])[0]["meters_unverified"] is False


@pytest.mark.skipif(not HAS_BROKER, reason="mosquitto is not installed (make setup)")
def test_redteam_f6_refused_publishes_raise_the_tables_acl_alarm_end_to_end(
        tmp_path: Path) -> None:
    """`etg floor serve --start-broker`: EVIL publishing to BJ-01's topics (the broker
    refuses each) gets an acl alarm on its tile and is quarantined; BJ-01 is untouched."""
    import sqlite3

    from floor_rig import floor_rig, wait_for
    from waiting import DEADLINE_S

    from firmware.floor.mqtt import make_client

    with floor_rig(tmp_path, ["EVIL", "BJ-01"]) as rig:
        rig.start_floor("--start-broker")
        wait_for("the floor on its broker", lambda: "connected to the broker" in
                 rig.log_text("floor"))
        me = identity(rig.dir, "EVIL")
        c = make_client("EVIL", ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
        c.connect("127.0.0.1", rig.broker_port, 10)
        c.loop_start()
        try:
            for i in range(60):
                c.publish("etg/table/BJ-01/records", b"x%d" % i, qos=1).wait_for_publish(
                    DEADLINE_S)

            def alarms() -> list[tuple[str, str]]:
                db = sqlite3.connect(rig.db_url)
                try:
                    return list(db.execute("SELECT table_id, kind FROM floor_alarms"))
                finally:
                    db.close()

            wait_for("EVIL's acl alarm and quarantine", lambda: {
                ("EVIL", "acl"), ("EVIL", "quarantine")} <= set(alarms()))
            assert not [a for a in alarms() if a[0] == "BJ-01"]
        finally:
            c.loop_stop()
            c.disconnect()


def test_redteam_h43_f1_a_load_tables_clean_up_is_no_bad_message(tmp_path: Path) -> None:
    """`etg floor load`'s tables clear what they leave at the broker at the end: what
    they send for it must be what the floor takes (an empty presence was a bad message:
    an alarm and a strike on every load table after every run)."""
    from firmware.bench.floor_load import SimTable

    sent: list[tuple[str, bytes]] = []

    class Client:
        def publish(self, topic: str, payload: bytes, **_: Any) -> Any:
            sent.append((topic, payload))
            return SimpleNamespace(wait_for_publish=lambda timeout: True)

    SimTable.retire(SimpleNamespace(table_id="SQS-0001",  # type: ignore[arg-type]
                                    link=SimpleNamespace(connected=True, client=Client())))
    assert {t.rsplit("/", 1)[1] for t, _ in sent} == {"status", "online"}
    make_floor_certs(tmp_path, ["SQS-0001"])
    ing = Ingest(FloorLedger(Database(str(tmp_path / "floor.sqlite"))), tmp_path, "127.0.0.1", 1)
    for topic, payload in sent:
        ing._message(None, None, SimpleNamespace(topic=topic, payload=payload, retain=True))
    got = [m for m in ing.take() if isinstance(m, Incoming)]
    assert [m.kind for m in got] == ["online"] and got[0].payload is False


def test_redteam_h43_f4_a_table_flooding_past_its_budget_is_alarmed_and_quarantined(
        tmp_path: Path) -> None:
    """Valid 1-byte presence messages as fast as a table can send: past its budget they
    were dropped and nothing else — no alarm, no strike — while every other table's
    acknowledgement waited behind them. Now a flood's count reaches the ledger once a
    second: a `rate` alarm, and quarantine."""
    from firmware.floor.rate import FLOODING, TableRate

    make_floor_certs(tmp_path, ["H11"])
    ledger = FloorLedger(Database(str(tmp_path / "floor.sqlite")))
    ing = Ingest(ledger, tmp_path, "127.0.0.1", 1)
    ing.rate = TableRate(per_s=0.0, burst=4096)  # four presence messages, then nothing

    def flood(k: int) -> list[Incoming]:
        for _ in range(k):
            ing._message(None, None, SimpleNamespace(topic="etg/table/H11/online",
                                                     payload=b"1", retain=False))
        return [m for m in ing.take() if isinstance(m, Incoming)]

    first = flood(FLOODING * 4)
    # the burst; the rest dropped, and the flood reported the moment it is one (r43 F6)
    assert [m.kind for m in first] == ["online"] * 4 + ["rate"]
    assert first[-1].payload["count"] == FLOODING + 1
    time.sleep(1.05)
    got = flood(1)
    assert [m.kind for m in got] == ["rate"] and got[0].payload["count"] > FLOODING
    ledger.apply(first + got)
    st = ledger.tables["H11"]
    assert "rate" in st.alarmed and st.quarantined is not None


def test_redteam_h43_f4_an_honest_table_past_its_budget_is_not_struck() -> None:
    """A backlog past the burst (a long outage) is refused at an honest link's pace —
    a window of records messages, a few statuses a second: no report, no strike."""
    from firmware.floor.rate import FLOODING, REPORT_S, TableRate

    rate, t = TableRate(), 1000.0
    for k in range(600):  # ten refusals a second for a minute
        assert rate.over("BJ-01", t + k / 10) is None
    assert rate.over("BJ-02", t) is None  # (the first of a flood: nothing yet)
    for _ in range(FLOODING):
        assert rate.over("BJ-02", t + REPORT_S / 2) is None
    assert rate.over("BJ-02", t + REPORT_S) == FLOODING + 1


def test_redteam_h43_f5_a_real_tables_live_statuses_measure_the_lag(tmp_path: Path) -> None:
    """A real table's link publishes its status retained, and Mosquitto delivers live
    ones with the retained flag as published: the floor took none as a lag sample, so the
    lag of real tables was never measured. Only the first after the floor subscribes can
    be the broker's retained copy (an old ``sent``); the next ones are live."""
    make_floor_certs(tmp_path, ["BJ-01"])
    ing = Ingest(FloorLedger(Database(str(tmp_path / "floor.sqlite"))), tmp_path, "127.0.0.1", 1)

    def status(sent: float) -> None:
        body = {"seq": 1, "phase": "betting", "variant": "blackjack", "round": 1,
                "tilt": None, "closed": False, "ts": sent, "sent": sent}
        ing._message(None, None, SimpleNamespace(topic="etg/table/BJ-01/status",
                                                 payload=json.dumps(body).encode(),
                                                 retain=True))

    status(time.time() - 3600)  # the retained copy of an hour ago: not a lag
    assert ing.health.lag() is None
    status(time.time() - 15)  # the floor 15 s behind a live table
    lag = ing.health.lag()
    assert lag is not None and 14 < lag < 20


def test_redteam_h43_f7_a_subscription_filter_with_a_space_is_seen(tmp_path: Path) -> None:
    """Mosquitto logs a subscription as ``ID QOS FILTER`` and a filter may hold spaces:
    such a line was taken for an ordinary one (INFO, no `acl` alarm, no strike)."""
    from firmware.floor.acl_watch import refused
    from firmware.floor.broker_process import judge

    for topic in ("etg/command/BJ-01 x", "etg/x\u3000BJ-01 0 etg/command/BJ-02",
                  "etg/ack/H15 ", " etg/command/H15"):
        level, text = judge(f"1700000000: H15 0 {topic}")
        assert level == logging.WARNING and refused(text) == ("H15", "subscription", 1), topic
    assert judge("1700000000: H15 1 etg/command/H15")[0] == 0  # its own: nothing to say
    assert judge("1700000000: Opening ipv4 listen socket on port 8883.")[0] == logging.INFO


def test_redteam_h43_f3_meters_no_table_could_report_are_alarmed() -> None:
    """Coin in or coin out by $9 trillion in one step (balanced, seats consistent), and
    credits that are not the meters' own arithmetic while the table says balanced, were
    taken as they came: they set the floor's drop, win and hold."""
    from firmware.floor.plausibility import meter_problems

    base = {"games_played": 1, "games_voided": 0, "wagered": 1000, "paid": 0,
            "credits_in": 100_000, "credits_out": 0, "credits": 99_000, "balanced": True}
    assert meter_problems(None, base) == []
    honest = {**base, "games_played": 2, "wagered": 2000, "paid": 2500, "credits": 100_500}
    assert meter_problems(base, honest) == []
    out = {**base, "paid": 900_000_000_000_000, "credits": 900_000_000_099_000}
    assert any("coin out (paid) rose by" in p for p in meter_problems(base, out))
    wager = {**base, "wagered": 900_000_000_000_000}  # its credits left as they were
    assert any("the floor's own arithmetic" in p for p in meter_problems(base, wager))
    honest_wager = {**wager, "credits": 100_000 - 900_000_000_000_000}
    assert any("negative" in p for p in meter_problems(base, honest_wager))
    lie = {**base, "credits": 5}
    assert any("the floor's own arithmetic" in p for p in meter_problems(None, lie))


def test_redteam_h43_f2_light_tables_reconnect_and_send_again_after_an_outage(
        tmp_path: Path) -> None:
    """`etg floor load --light` tables never reconnected after the broker went away, and
    the tool counted what they could not send as lost: they now reconnect with the real
    link's back-off and send what the floor has not acknowledged again."""
    import asyncio

    from floor_rig import floor_rig

    from firmware.bench import floor_light

    with floor_rig(tmp_path, ["L1", "L2"]) as rig:
        rig.start_broker()
        rig.start_floor()

        async def play() -> tuple[int, list[int]]:
            tables = [floor_light.LightTable(t, tmp_path) for t in ("L1", "L2")]
            await floor_light.connect_all(tables, rig.dir, "127.0.0.1", rig.broker_port)
            keep = [asyncio.create_task(floor_light.keep_connected(
                t, rig.dir, "127.0.0.1", rig.broker_port)) for t in tables]
            try:
                await floor_light.drive(tables, 5.0, 1.0)
                await asyncio.get_running_loop().run_in_executor(None, rig.stop_broker)
                await floor_light.drive(tables, 5.0, 1.0)  # while it is away
                await asyncio.get_running_loop().run_in_executor(None, rig.start_broker)
                drained = await floor_light.drained(tables, 60.0)
                assert drained is not None, [(t.acked, t.n) for t in tables]
                return sum(t.n for t in tables), [t.acked for t in tables]
            finally:
                for k in keep:
                    k.cancel()
                for t in tables:
                    await t.client.close()

        total, acked = asyncio.run(play())
        assert sum(acked) == total
        db = Database(rig.db_url)
        try:
            held = db.all("SELECT table_id, last_n FROM floor_tables WHERE table_id IN"
                          " ('L1', 'L2') ORDER BY table_id")
        finally:
            db.close()
        assert [n for _t, n in held] == acked
