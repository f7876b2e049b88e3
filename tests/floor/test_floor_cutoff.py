"""A quarantined table cut off at the broker (issue 43, the red team's flood finding):
once quarantined, nothing it sends reaches the floor; clearing the quarantine lets it in
again and its backlog arrives; a quarantine survives a floor restart; a broker without
Mosquitto's dynamic security plugin is a banner, never a silent no-op.

Each test runs a real Mosquitto on the floor's generated configuration and the floor's
ingest in this process (its per-table counter of messages reaching the edge is what a
cut-off must stop). Counts, not timing: a barrier is the floor's own ping through the
broker, which the broker delivers after everything it routed to the floor before it."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("paho.mqtt.client")
pytest.importorskip("msgspec")

from floor_rig import FloorRig
from waiting import DEADLINE_S, wait_for

from firmware.floor import broker as broker_mod
from firmware.floor import cutoff as cutoff_mod
from firmware.floor.certs import ca_paths, identity
from firmware.floor.db import Database
from firmware.floor.ingest import Ingest
from firmware.floor.ledger import FloorLedger
from firmware.floor.mqtt import make_client
from firmware.floor.supervise import PING_TOPIC

HAS_BROKER = bool(shutil.which("mosquitto")) or Path("/usr/sbin/mosquitto").exists()
pytestmark = pytest.mark.skipif(not HAS_BROKER or broker_mod.dynsec_plugin() is None,
                                reason="mosquitto or its dynamic security plugin missing")

HONEST = ["H1", "H2", "H3"]


def _floor(rig: FloorRig) -> Ingest:
    ing = Ingest(FloorLedger(Database(rig.db_url), quarantine_after=20), rig.dir,
                 "127.0.0.1", rig.broker_port).start()
    wait_for("the floor on the broker and the plugin's answer",
             lambda: ing.connected.is_set() and ing.cutoff.answers >= 1
             and not ing.cutoff._pending)
    return ing


def _barrier(ing: Ingest) -> None:
    """Everything the broker routed to the floor before now has reached its edge."""
    seen = threading.Event()
    old = ing.supervisor.beat

    def beat(name: str) -> None:
        old(name)
        if name == "network":
            seen.set()

    ing.supervisor.beat = beat  # type: ignore[method-assign]
    try:
        ing.client.publish(PING_TOPIC, b"barrier", qos=1)
        assert seen.wait(DEADLINE_S), "the floor's ping never came back"
    finally:
        ing.supervisor.beat = old  # type: ignore[method-assign]
    time.sleep(0.05)  # the edge's handling of what came just before the ping


class Flooder:
    """A hostile table: bad records as fast as paho sends them, reconnecting when kicked
    (paho's own loop), counting what the broker accepted (QoS 1 acknowledged)."""

    def __init__(self, rig: FloorRig, tid: str) -> None:
        me = identity(rig.dir, tid)
        self.tid = tid
        self.c = make_client(tid, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
        self.connects = 0
        self.disconnects = 0
        self.c.on_connect = lambda *a: setattr(self, "connects", self.connects + 1)
        self.c.on_disconnect = lambda *a: setattr(self, "disconnects", self.disconnects + 1)
        self.c.reconnect_delay_set(min_delay=1, max_delay=1)
        self.c.connect_async("127.0.0.1", rig.broker_port, 10)
        self.c.loop_start()
        self.sent = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Flooder:
        wait_for("the flooder connected", lambda: self.connects >= 1)
        self.thread.start()
        return self

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1
            info = self.c.publish(f"etg/table/{self.tid}/records", b"junk %d" % n, qos=0)
            if info.rc == 0:
                self.sent += 1
            if n % 200 == 0:
                time.sleep(0.01)  # thousands a second, not all the machine's CPU

    def send_acknowledged(self, k: int) -> None:
        """``k`` more publishes the broker has taken (QoS 1: the broker acknowledged each
        one, refused or not), on whatever connection the flooder now has."""
        last: Any = None
        for i in range(k):
            last = self.c.publish(f"etg/table/{self.tid}/records", b"more %d" % i, qos=1)
        assert last is not None
        last.wait_for_publish(DEADLINE_S)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)
        self.c.loop_stop()
        self.c.disconnect()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[FloorRig]:
    r = FloorRig(tmp_path, ["FLOOD", *HONEST])
    r.start_broker()
    try:
        yield r
    finally:
        r.close()


def _honest_tables(rig: FloorRig) -> list[Any]:
    from firmware.bench.floor_load import make_tables

    tables = make_tables(HONEST, rig.dir, rig.root / "journals", "127.0.0.1", rig.broker_port)
    for t in tables:
        t.link.start()
    return tables


def _floor_rounds(rig: FloorRig, tid: str) -> list[int]:
    return [s for s, _r in rig.floor_records(tid)["rounds"]]


def test_finding_flood_quarantined_table_is_cut_off(rig: FloorRig) -> None:
    """One table floods thousands of bad messages a second while three honest tables
    play. Before: quarantine dropped its messages at the floor's edge, but every one still
    reached (and cost) the floor's network thread — 3,000 more after the quarantine were
    3,000 more at the edge. Now the broker refuses the quarantined table: after its cut
    the floor's count of its messages stops, though the flooder reconnects and sends on;
    every honest round arrives, none twice."""
    ing = _floor(rig)
    tables = _honest_tables(rig)
    stop = threading.Event()

    def play() -> None:
        while not stop.is_set():
            for t in tables:
                t.play_round()
            time.sleep(0.05)

    player = threading.Thread(target=play, daemon=True)
    player.start()
    flood = Flooder(rig, "FLOOD").start()
    try:
        wait_for("FLOOD quarantined", lambda: "FLOOD" in ing.quarantined)
        wait_for("the broker's cut-off answered", lambda: not ing.cutoff._pending
                 and ing.cutoff.state() is None)
        _barrier(ing)
        at_cut = ing.received.get("FLOOD", 0)
        # it flooded and the floor saw it; the cut may come before or after the floor has
        # read all it sent so far (the flood is cut at its 51st refusal in a second)
        assert at_cut >= 20 and flood.sent >= at_cut
        wait_for("FLOOD connected (kicked, its certificate connects again)",
                 flood.c.is_connected)
        sent_before = flood.sent
        flood.send_acknowledged(3000)
        wait_for("FLOOD flooding on", lambda: flood.sent > sent_before + 1000)
        _barrier(ing)
        assert ing.received.get("FLOOD", 0) == at_cut  # not one more message reached it
        assert flood.disconnects >= 1 and flood.connects >= 2  # the broker disconnected it
        assert "FLOOD" in ing.cutoff.cut or ing.cutoff.wanted == {"FLOOD"}
    finally:
        stop.set()
        player.join(10)
        flood.stop()
    wait_for("every honest round acknowledged", lambda: all(t.drained() for t in tables))
    for t in tables:
        got = _floor_rounds(rig, t.table_id)
        assert got == sorted(set(got)) and len(got) == t.rounds, t.table_id
        assert not ing.store.tables[t.table_id].quarantined
        t.close()
    ing.stop()


def test_clearing_the_cut_off_lets_a_mistaken_table_back_with_its_backlog(
        rig: FloorRig) -> None:
    """An honest table quarantined by mistake plays on while cut off (the broker refuses
    its records); the quarantine survives a floor restart (re-applied at the broker); a
    supervisor clears it, the broker lets it in, and every round it played arrives once."""
    from firmware.floor.ledger import Incoming

    ing = _floor(rig)
    (h1, *_rest) = tables = _honest_tables(rig)
    for t in tables:
        t.play_rounds(3)
    wait_for("the first rounds acknowledged", lambda: all(t.drained() for t in tables))
    ing._put([Incoming("H1", "bad", {"topic": "etg/table/H1/records", "reason": "test",
                                     "sample": "", "quarantine": True}, time.time())], 0)
    wait_for("H1 quarantined and cut off", lambda: "H1" in ing.quarantined
             and not ing.cutoff._pending and ing.cutoff.state() is None)
    _barrier(ing)
    at_cut = ing.received.get("H1", 0)
    for _ in range(5):
        h1.play_round()
    wait_for("H1 sent its rounds (the broker acknowledged them)",
             lambda: h1.link.outbox.last_n() > 0 and not h1.link._flying)
    _barrier(ing)
    assert ing.received.get("H1", 0) == at_cut and len(_floor_rounds(rig, "H1")) == 3
    ing.stop()

    # a floor restart: the broker still refuses H1 (its own file), and the floor's listing
    # agrees with its database
    ing = _floor(rig)
    assert ing.quarantined == {"H1"} and ing.cutoff.cut == {"H1"}
    _barrier(ing)
    retained = ing.received.get("H1", 0)  # its status retained from before the cut, only
    assert retained <= 1
    h1.play_round()
    wait_for("H1 sent its round", lambda: not h1.link._flying)
    _barrier(ing)
    assert ing.received.get("H1", 0) == retained and len(_floor_rounds(rig, "H1")) == 3

    ing.pit_action("H1", {"action": "clear-quarantine", "by": "pit", "reason": "mistake"})
    wait_for("H1's backlog after the clearing", lambda: h1.drained())
    got = _floor_rounds(rig, "H1")
    assert got == sorted(set(got)) and len(got) == 3 + 5 + 1
    assert "H1" not in ing.quarantined and not ing.cutoff._pending
    for t in tables:
        t.close()
    ing.stop()


def test_a_broker_without_the_plugin_is_a_banner_not_a_silent_no_op(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The broker configured without the dynamic security plugin: the floor's first
    question goes unanswered, and the health says so (every page's banner, the log)."""
    monkeypatch.setattr(broker_mod, "dynsec_plugin", lambda: None)
    monkeypatch.setattr(cutoff_mod, "ANSWER_S", 1.0)
    r = FloorRig(tmp_path, ["FLOOD"])
    r.start_broker()
    try:
        ing = Ingest(FloorLedger(Database(r.db_url)), r.dir, "127.0.0.1",
                     r.broker_port).start()
        wait_for("the floor on the broker", ing.connected.is_set)

        def banner() -> str:
            ing.tick()
            return str(ing.health.warnings().get("cutoff", ""))

        wait_for("the cut-off banner", lambda: "dynamic security plugin" in banner())
        ing.stop()
    finally:
        r.close()


def _quarantine(ing: Ingest, tid: str) -> None:
    from firmware.floor.ledger import Incoming

    ing._put([Incoming(tid, "bad", {"topic": f"etg/table/{tid}/records", "reason": "test",
                                    "sample": "", "quarantine": True}, time.time())], 0)
    wait_for(f"{tid} quarantined and cut off", lambda: tid in ing.quarantined
             and not ing.cutoff._pending and ing.cutoff.state() is None)


def _reaches_floor(rig: FloorRig, ing: Ingest, tid: str, k: int = 50) -> int:
    """How many of ``k`` status messages of ``tid`` reach the floor's edge."""
    me = identity(rig.dir, tid)
    c = make_client(tid, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", rig.broker_port, 10)
    c.loop_start()
    try:
        _barrier(ing)
        before = ing.received.get(tid, 0)
        infos = [c.publish(f"etg/table/{tid}/status", b"{}", qos=1) for _ in range(k)]
        infos[-1].wait_for_publish(DEADLINE_S)
        _barrier(ing)
        return ing.received.get(tid, 0) - before
    finally:
        c.loop_stop()
        c.disconnect()


def test_a_table_cannot_command_the_plugin(rig: FloorRig) -> None:
    """The plugin's control topic is the floor's alone: a quarantined table asking it to
    let itself in (and to grant everything by default), or another table asking it to cut
    an honest one off, is refused by the broker's ACL — nothing changes."""
    import orjson

    ing = _floor(rig)
    _quarantine(ing, "FLOOD")
    for attacker, commands in (
            ("FLOOD", [{"command": "deleteClient", "username": "FLOOD"},
                       {"command": "setDefaultACLAccess", "acls": [
                           {"acltype": k, "allow": True}
                           for k in cutoff_mod.DEFAULT_ACCESS]}]),
            ("H1", cutoff_mod.cut_commands("H2"))):
        me = identity(rig.dir, attacker)
        c = make_client(attacker, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
        c.connect("127.0.0.1", rig.broker_port, 10)
        c.loop_start()
        try:
            c.subscribe(cutoff_mod.RESPONSE_TOPIC, 1)
            c.publish(cutoff_mod.CONTROL_TOPIC, orjson.dumps({"commands": commands}),
                      qos=1).wait_for_publish(DEADLINE_S)
        finally:
            c.loop_stop()
            c.disconnect()
    assert _reaches_floor(rig, ing, "FLOOD") == 0
    assert _reaches_floor(rig, ing, "H2") == 50
    ing.cutoff.connected(ing.quarantined)  # the plugin's list, asked again
    wait_for("the plugin's listing", lambda: not ing.cutoff._pending)
    assert ing.cutoff.cut == {"FLOOD"} and ing.cutoff.state() is None
    ing.stop()


def test_a_broker_restart_keeps_the_cut(rig: FloorRig) -> None:
    """The plugin's own file holds the cut: the broker stopped and started again still
    refuses the quarantined table, before the floor has said anything."""
    ing = _floor(rig)
    _quarantine(ing, "FLOOD")
    ing.stop()
    rig.stop_broker()
    rig.start_broker()
    assert "etg-quarantined" in (rig.dir / broker_mod.DYNSEC_FILE).read_text()
    ing = Ingest(FloorLedger(Database(rig.db_url)), rig.dir, "127.0.0.1",
                 rig.broker_port)
    ing.cutoff.connected = lambda quarantined: None  # type: ignore[method-assign]
    ing.start()
    wait_for("the floor on the broker", ing.connected.is_set)
    assert _reaches_floor(rig, ing, "FLOOD") == 0
    assert _reaches_floor(rig, ing, "H1") == 50
    ing.stop()


def test_a_cut_off_tables_flood_costs_the_floor_no_log_line() -> None:
    """The broker's debug log (the refusals the ACL counts) passes through a sieve before
    the floor reads it: a cut-off table's refused publishes on its own topics are dropped
    there (thousands a second, each a line the floor would read); any client's other
    refusals, its subscriptions and its connection lines (reconnecting in a loop) at most
    DENIED_PER_S a second each, the rest one count —
    which the refusal watch still counts in full."""
    import subprocess

    from firmware.floor.acl_watch import RefusalWatch
    from firmware.floor.broker_process import DENIED_PER_S, SIEVE, judge

    awk = shutil.which("mawk") or shutil.which("awk")
    if awk is None:
        pytest.skip("no awk")
    lines = [f"1700000000: Denied PUBLISH from FLOOD (d0, q0, r0, m0, "
             f"'etg/table/FLOOD/{k}', ... (9 bytes))"
             for _ in range(1000) for k in ("records", "status", "online", "signature")]
    lines += ["1700000000: Denied PUBLISH from EVIL (d0, q1, r0, m3, "
              "'etg/table/BJ-01/records', ... (9 bytes))"] * 5000
    lines += ["1700000000: EVIL 0 etg/command/BJ-01"] * 3000
    lines += ["1700000000: New client connected from 127.0.0.1:4242 as EVIL (p2, c0, k10, "
              "u'EVIL').", "1700000000: Client EVIL closed its connection."] * 500
    lines += ["1700000001: Denied PUBLISH from EVIL (d0, q1, r0, m3, "
              "'etg/table/BJ-01/records', ... (9 bytes))", "1700000001: the end"]
    out = subprocess.run([awk, SIEVE], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert not [x for x in out if "FLOOD" in x]
    assert len(out) == 3 * DENIED_PER_S + 3 + 2  # 20 and a count of each, the second's two
    assert "Connection lines of EVIL: 980 more" in "\n".join(out)
    reports: list[tuple[str, dict[str, Any]]] = []
    watch = RefusalWatch(lambda tid, p: reports.append((tid, p)), every_s=1e9)
    for x in out:
        watch.saw(judge(x)[1], 0.0)
    watch.flush(2e9)
    publishes = sum(p["publishes"] for t, p in reports if t == "EVIL")
    assert publishes == 5001


def test_the_served_floor_cuts_a_flood_off_and_the_pit_lets_it_in_again(
        tmp_path: Path) -> None:
    """`etg floor serve --start-broker` as a property runs it: a flooding table is
    quarantined and cut off (the broker disconnects it, the plugin says it disabled it);
    a supervisor clears the quarantine on its page; the broker lets it in again — and,
    flooding on, it is quarantined and cut off once more."""
    from floor_rig import floor_rig

    with floor_rig(tmp_path, ["FLOOD", "H1"]) as rig:
        rig.start_floor("--start-broker")
        rig.log_in()
        flood = Flooder(rig, "FLOOD").start()
        try:
            def disabled() -> int:
                return rig.log_text("floor").count("disableClient | username=FLOOD")

            wait_for("FLOOD cut off by the served floor's broker", lambda: disabled() >= 1
                     and flood.disconnects >= 1)
            assert rig.tiles()["FLOOD"]["quarantined"]
            wait_for("FLOOD connected again", flood.c.is_connected)
            rig.post("/table/FLOOD/clear-quarantine", reason="reflashed, watching it")
            wait_for("the broker told to let FLOOD in", lambda: "deleteClient | username="
                     "FLOOD" in rig.log_text("floor"))
            wait_for("FLOOD, flooding on, cut off again", lambda: disabled() >= 2)
            assert "did not answer the floor's cut-off" not in rig.log_text("floor")
        finally:
            flood.stop()
