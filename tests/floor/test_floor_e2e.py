"""End to end: a real broker with the generated TLS/ACL configuration, the floor service
and three real ``etg run`` tables. The floor's records must equal each table's journal
after a broker outage, a table kill -9 and a floor restart; a journal restored from an
older copy is refused at start by the floor's witness (issue 34); a table's identity
cannot write another table's topics; the
table refuses and journals a floor command that is not for it or not signed by the floor.
"""

from __future__ import annotations

import json
import queue
import shutil
import signal
import sqlite3
import ssl
from pathlib import Path

import pytest
from floor_rig import FloorRig, floor_rig, wait_for
from waiting import DEADLINE_S

from firmware.floor import topics
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity
from firmware.floor.command_auth import new_command
from firmware.journal import EventCode

pytest.importorskip("paho.mqtt.client")
if not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists():
    pytest.skip("mosquitto is not installed (make setup installs it)", allow_module_level=True)

TABLES = ["T1", "T2", "T3"]
#: the test's identities: T4 (a table certificate no table uses) and a command tester
TESTER_ACL = "user tester\ntopic write etg/command/#"


def _rounds_on_floor(rig: FloorRig, tid: str) -> int:
    return len(rig.floor_records(tid)["rounds"]) if rig.floor is not None else 0


def _journal_events(rig: FloorRig, tid: str, code: int) -> list[dict]:
    return [b for _s, c, b in rig.journal_records(tid)["events"] if c == code]


def _client(rig: FloorRig, name: str, client_id: str):  # type: ignore[no-untyped-def]
    from firmware.floor.mqtt import make_client

    me = identity(rig.dir, name)
    c = make_client(client_id, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", rig.broker_port, 10)
    c.loop_start()
    return c


def _acl_holds(rig: FloorRig) -> None:
    """T4's certificate (no table runs with it) may write only T4's topics, and cannot
    take over another client's session: connecting as the floor service's client id (or
    a table's), it is still T4 to the broker, and the floor goes on ingesting."""
    t4 = _client(rig, "T4", FLOOR_SERVICE)  # asks for the floor service's client id
    forged = {"n": 10**9, "seq": 10**9, "hash": "0" * 64, "ts_ns": 1, "code": 1,
              "round": None, "body": {"mark": "forged-by-T4"}}
    for topic in ("etg/table/T2/records", "etg/table/T2/status", "etg/command/T2",
                  "etg/ack/T2"):
        t4.publish(topic, json.dumps([forged]), qos=1).wait_for_publish(DEADLINE_S)
    # one connection's messages reach the floor in order: had the broker passed on any
    # forged message, it would have arrived before this status, published last
    probe = {"seq": 1, "phase": "probe-by-T4", "ts": 1.0}
    t4.publish("etg/table/T4/status", json.dumps(probe), qos=1).wait_for_publish(DEADLINE_S)
    wait_for("T4's own status on the floor", lambda: rig.tiles().get("T4", {}).get("phase")
             == "probe-by-T4")
    assert "forged-by-T4" not in json.dumps(rig.floor_records("T2"))
    assert rig.tiles()["T2"]["phase"] != "probe-by-T4"
    before = _rounds_on_floor(rig, "T1")
    wait_for("the floor to go on ingesting", lambda: _rounds_on_floor(rig, "T1") > before + 1)
    log = rig.log_text("broker")
    assert "as T4 (" in log and "Denied PUBLISH from T4" in log
    assert "lost the broker" not in rig.log_text("floor")
    # and a client without a certificate of the floor CA is not let in at all
    import paho.mqtt.client as mqtt

    anon = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="anon")
    anon.tls_set(ca_certs=str(ca_paths(rig.dir).cert), cert_reqs=ssl.CERT_REQUIRED)
    assert _anonymous_outcome(anon, rig.broker_port) != "connected"
    t4.loop_stop()
    t4.disconnect()


def _anonymous_outcome(anon, port: int) -> str:  # type: ignore[no-untyped-def]
    """How the broker answered a client without a floor certificate: "refused" by the TLS
    handshake itself, "disconnected" or "connect failed" once the client's loop read the
    broker's answer, or "connected". Waits for that answer, not for a quiet interval."""
    outcome: queue.Queue[str] = queue.Queue()
    anon.on_connect = lambda _c, _u, _f, rc, _p: outcome.put(
        "connect failed" if rc.is_failure else "connected")
    anon.on_disconnect = lambda *_args: outcome.put("disconnected")
    anon.on_connect_fail = lambda *_args: outcome.put("connect failed")
    anon.connect_timeout = DEADLINE_S  # a slow handshake is not a refusal
    try:
        anon.connect("127.0.0.1", port, 5)  # keepalive 5 s
    except TimeoutError:
        raise AssertionError("the broker did not answer the anonymous client") from None
    except (ssl.SSLError, OSError):
        return "refused"
    anon.loop_start()
    try:
        return outcome.get(timeout=DEADLINE_S)
    finally:
        anon.loop_stop()
        anon.disconnect()


def _bad_commands(rig: FloorRig) -> None:
    """Floor commands T1 must refuse (and journal): for another table, signed by another key
    (sent by the test's own identity, which the test's ACL lets write commands)."""
    floor = _client(rig, "tester", "tester")
    key = identity(rig.dir, FLOOR_SERVICE).key.read_bytes()
    wrong_table = new_command("T2", "disable", "test", key)
    forged = new_command("T1", "disable", "test", identity(rig.dir, "T3").key.read_bytes())
    for cmd in (wrong_table, forged):
        sent = floor.publish(topics.command_topic("T1"), json.dumps(cmd), qos=1)
        sent.wait_for_publish(DEADLINE_S)
    floor.loop_stop()
    floor.disconnect()
    refused = wait_for("T1 to journal two refusals", lambda: (
        r if len(r := _journal_events(rig, "T1", EventCode.FLOOR_COMMAND_REFUSED)) >= 2
        else None))
    reasons = " | ".join(r["reason"] for r in refused)
    assert "addressed to table 'T2'" in reasons and "bad signature" in reasons
    assert _journal_events(rig, "T1", EventCode.TABLE_CLOSED) == []


def _equal(rig: FloorRig, tid: str) -> bool:
    f, j = rig.floor_records(tid), rig.journal_records(tid)
    return f == j


def test_floor_records_equal_journals_through_outage_kill_and_restart(tmp_path: Path) -> None:
    with floor_rig(tmp_path, [*TABLES, "T4", "tester"]) as rig:
        rig.extra_acl = TESTER_ACL
        rig.start_broker()
        rig.start_floor()
        for t in TABLES:
            rig.start_table(t)
        for t in TABLES:
            wait_for(f"rounds of {t} on the floor", lambda t=t: _rounds_on_floor(rig, t) >= 1)
        rig.log_in()
        _acl_holds(rig)
        _bad_commands(rig)

        # a broker outage: the tables play on, journaling into their outboxes
        before = {t: len(rig.journal_records(t)["rounds"]) for t in TABLES}
        rig.stop_broker()
        wait_for("rounds during the outage", lambda: all(
            len(rig.journal_records(t)["rounds"]) > before[t] for t in TABLES))
        rig.start_broker()
        # a table killed mid-play, restarted from its journal
        rig.stop_table("T2", signal.SIGKILL)
        rig.start_table("T2")
        # the floor service restarted while the tables publish
        rig.stop_floor()
        mid = {t: len(rig.journal_records(t)["rounds"]) for t in TABLES}
        wait_for("rounds while the floor is down", lambda: all(
            len(rig.journal_records(t)["rounds"]) > mid[t] for t in TABLES))
        rig.start_floor()
        backup = tmp_path / "T3-old.sqlite"
        src = sqlite3.connect(rig.journal(TABLES[2]))
        dst = sqlite3.connect(backup)
        src.backup(dst)
        src.close()
        dst.close()
        last = {t: len(rig.journal_records(t)["rounds"]) for t in TABLES}
        wait_for("a few more rounds", lambda: all(
            len(rig.journal_records(t)["rounds"]) >= last[t] + 2 for t in TABLES))
        for t in TABLES:
            rig.stop_table(t)
        for t in TABLES:
            wait_for(f"the floor to hold {t}'s journal", lambda t=t: _equal(rig, t))
            f = rig.floor_records(t)
            assert len(f["rounds"]) >= 5 and f["meters"]["balanced"]
            assert [s for s, _c, _b in f["events"]] == sorted({s for s, _c, _b in f["events"]})
        rig.log_in()
        assert {t: tile["alarms"] for t, tile in rig.tiles().items() if tile["alarms"]} == {}

        # T3 restored from the older copy, with a head file as old as the copy (the table
        # itself refuses a journal shorter than its head file: only a consistent older
        # copy of both gets past the box). The floor alone can tell it went back: its
        # acknowledgement, read at start before anything is written, is the witness.
        shutil.copy(backup, rig.journal("T3"))
        for suffix in ("-wal", "-shm"):
            Path(str(rig.journal("T3")) + suffix).unlink(missing_ok=True)
        _head_for(rig.journal("T3"))
        before = rig.journal("T3").read_bytes()
        rig.start_table("T3")
        assert rig.procs["T3"].wait(DEADLINE_S) == 2
        log = (rig.root / "T3.log").read_text()
        assert "journal refused by the floor's witness" in log and "behind the floor" in log
        assert rig.journal("T3").read_bytes() == before  # nothing written
        rig.procs.pop("T3")
        assert not rig.tiles()["T1"]["alarms"] and not rig.tiles()["T2"]["alarms"]


def _head_for(journal: Path) -> None:
    """Write the head file that names the last record of ``journal`` (bench secret)."""
    from firmware.journal.head import Head, HeadWriter, head_path
    from firmware.journal.key import beside, load

    db = sqlite3.connect(journal)
    seq, digest = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    path = head_path(journal)
    path.unlink(missing_ok=True)
    writer = HeadWriter(path, load(beside(journal)))
    writer.write(Head(0, "0" * 64))  # both slots valid, as a table leaves them
    writer.write(Head(seq, digest))
    writer.close()
