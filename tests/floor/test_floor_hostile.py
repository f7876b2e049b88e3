"""A hostile or broken table against a real broker and floor service: mutated records from
one table never slow another; a floor whose database went back names the gap the table can
no longer fill and goes on; the retained acknowledgement carries the journal's position.

The "real" table here is the load tool's simulated table: the table's own journal, outbox
and floor link, with its latency measured on its own clock (journal commit to the floor's
acknowledgement, which the floor sends once its database holds the records).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from floor_rig import FloorRig, floor_rig, wait_for

from firmware.bench.floor_load import SimTable, make_tables
from firmware.floor.certs import ca_paths, identity
from firmware.floor.mqtt import make_client

pytest.importorskip("paho.mqtt.client")
if not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists():
    pytest.skip("mosquitto is not installed (make setup installs it)", allow_module_level=True)

FUZZER = textwrap.dedent("""
    import json, random, sys, time
    from pathlib import Path
    from firmware.floor.certs import ca_paths, identity
    from firmware.floor.mqtt import make_client
    floor, port, tid, seconds = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    me = identity(floor, tid)
    c = make_client(tid, ca_paths(floor).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", port, 10)
    c.loop_start()
    rng = random.Random(7)
    junk = [None, True, -1, 2**63, 2**70, "x" * 300, {"a": [1, {"b": None}]}, [1, 2], 1e308,
            "\\u0000", {}, [], "0" * 64]
    def record(n):
        kind = rng.choice(["event", "round", "meters", "chain", "gap", "oversize", "input"])
        r = {"kind": kind, "n": n, "seq": n + 5, "hash": "ab" * 32, "ts_ns": time.time_ns(),
             "code": 200, "round": 1, "body": {"x": 1}, "record": {"round": 1},
             "meters": {"wagered": 100, "paid": 50, "seats": []}, "head": "cd" * 32,
             "from_n": 1, "of": "event", "bytes": 10}
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(list(r))
            if rng.random() < 0.5:
                del r[key]
            else:
                r[key] = rng.choice(junk)
        return r
    sent, end, n = 0, time.monotonic() + seconds, 1
    while time.monotonic() < end:
        kind = rng.random()
        if kind < 0.7:
            payload = json.dumps([record(n + i) for i in range(rng.randint(1, 5))]).encode()
        elif kind < 0.8:
            payload = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))
        elif kind < 0.9:
            payload = json.dumps({"seq": rng.choice(junk), "phase": rng.choice(junk)}).encode()
        else:
            payload = json.dumps([record(n)] * 150).encode()
        topic = f"etg/table/{tid}/" + ("status" if payload[:1] == b"{" else "records")
        c.publish(topic, payload, qos=1)
        n, sent = n + 1, sent + 1
        if sent % 20 == 0:
            time.sleep(0.02)
    time.sleep(1)
    c.loop_stop()
    print(sent)
""")


def _play(table: SimTable, rounds: int, every_s: float) -> list[float]:
    """Rounds at a steady pace; the latencies (s) of these rounds, once all acknowledged."""
    before = len(table.latencies)
    for _ in range(rounds):
        table.play_round()
        time.sleep(every_s)
    wait_for("the floor to acknowledge every round", lambda: len(table.latencies)
             >= before + rounds)
    return table.latencies[before:]


def test_mutated_records_from_one_table_never_slow_another(tmp_path: Path) -> None:
    with floor_rig(tmp_path, ["REAL", "FUZZ"]) as rig:
        rig.start_broker()
        rig.start_floor("--quarantine-after", "10000")  # keep the checks under fire
        (real,) = make_tables(["REAL"], rig.dir, tmp_path / "journals", "127.0.0.1",
                              rig.broker_port)
        real.link.start()
        try:
            wait_for("the real table connected", lambda: real.link.connected)
            _play(real, 5, 0.05)  # warmed up
            quiet = _play(real, 30, 0.05)
            fuzz = subprocess.Popen([sys.executable, "-c", FUZZER, str(rig.dir),
                                     str(rig.broker_port), "FUZZ", "5"],
                                    stdout=subprocess.PIPE, text=True)
            rig.log_in()
            wait_for("the fuzz to reach the floor", lambda: rig.tiles().get("FUZZ"))
            under_fire = _play(real, 30, 0.05)
            sent = int(fuzz.communicate(timeout=120)[0].strip())
        finally:
            real.close()
        q50, f50 = statistics.median(quiet), statistics.median(under_fire)
        q90 = statistics.quantiles(quiet, n=10)[8]
        f90 = statistics.quantiles(under_fire, n=10)[8]
        print(f"the real table's latency, quiet: p50 {q50 * 1000:.0f} ms, p90 {q90 * 1000:.0f}"
              f" ms; during {sent} mutated messages: p50 {f50 * 1000:.0f} ms, p90 "
              f"{f90 * 1000:.0f} ms")
        assert sent > 200
        # unchanged within what a shared 2-core machine varies by (before the edge, one bad
        # record stopped every table: latency without end)
        assert f50 <= max(3 * q50, q50 + 0.25), (q50, f50)
        tiles = rig.tiles()
        assert tiles["REAL"]["alarms"] == [] and tiles["REAL"]["last_n"] == \
            real.link.outbox.newest
        assert {a["kind"] for a in tiles["FUZZ"]["alarms"]} >= {"bad-message"}
        assert "table FUZZ: bad message on etg/table/FUZZ/" in rig.log_text("floor")


def _ack_of(rig: FloorRig, tid: str) -> dict:
    """The retained acknowledgement, as the tester identity reads it."""
    got: list[dict] = []
    me = identity(rig.dir, "tester")
    c = make_client("tester", ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
    c.on_message = lambda _c, _u, msg: got.append(json.loads(msg.payload))
    c.connect("127.0.0.1", rig.broker_port, 10)
    c.subscribe(f"etg/ack/{tid}", qos=1)
    c.loop_start()
    try:
        return wait_for("the retained acknowledgement", lambda: got and got[-1])
    finally:
        c.loop_stop()
        c.disconnect()


def test_a_floor_database_gone_back_names_the_gap_and_goes_on(tmp_path: Path) -> None:
    with floor_rig(tmp_path, ["GAPT", "tester"]) as rig:
        rig.extra_acl = "user tester\ntopic read etg/ack/#"
        rig.start_broker()
        rig.start_floor()
        (t,) = make_tables(["GAPT"], rig.dir, tmp_path / "journals", "127.0.0.1",
                           rig.broker_port)
        t.link.start()
        try:
            wait_for("connected", lambda: t.link.connected)
            _play(t, 3, 0.01)
            ack = _ack_of(rig, "GAPT")
            last = t.journal.last_seq
            assert ack == {"n": t.link.outbox.newest, "seq": last,
                           "hash": next(iter(t.journal.records(since_seq=last - 1))).hash}
            backup = tmp_path / "floor-backup.sqlite"
            with sqlite3.connect(rig.db_url) as src, sqlite3.connect(backup) as dst:
                src.backup(dst)
            held_then = ack["n"]
            _play(t, 4, 0.01)
            wait_for("the acknowledged rows pruned", lambda: t.link.outbox.count() == 0)
            rig.stop_floor()
            shutil.copy(backup, rig.db_url)
            for suffix in ("-wal", "-shm"):
                Path(rig.db_url + suffix).unlink(missing_ok=True)
            rig.start_floor()
            rig.log_in()
            _play(t, 1, 0.01)  # past the gap: the floor asks again, the table names it
            alarms = wait_for("the gap alarm", lambda: [
                a for a in rig.tiles()["GAPT"]["alarms"] if a["kind"] == "gap"])
            assert f"messages {held_then + 1}.." in alarms[0]["detail"]
            wait_for("the floor to go on", lambda: rig.tiles()["GAPT"]["last_n"]
                     == t.link.outbox.newest)
            _play(t, 2, 0.01)
            assert rig.tiles()["GAPT"]["last_n"] == t.link.outbox.newest
        finally:
            t.close()
