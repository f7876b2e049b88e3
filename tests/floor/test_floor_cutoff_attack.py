"""The broker's cut-off of a quarantined table, attacked as an outsider would (issue 43):
with a real table certificate and docs/floor.md, nothing else.

(a) the quarantined certificate comes back every way MQTT allows — another client id, a
clean or a kept session, MQTT 3.1, 3.1.1 and 5, a will, retained messages, QoS 0/1/2 —
and nothing of it reaches the floor's edge or its store;
(b) a table forging another's client id or topics cannot get the honest one quarantined;
(c) a floor restart and a broker restart while quarantined keep the cut, and clearing
still lets the honest table's backlog in exactly once;
(d) the plugin's state file corrupt or unwritable is an alarm or a banner, never a silent
no-op (Mosquitto 2.0.11 says nothing of an unwritable file, one log line of a corrupt one).

A real Mosquitto on the floor's generated configuration, the floor's ingest in this
process; counts, not timing (the barrier is the floor's own ping through the broker)."""

from __future__ import annotations

import json
import shutil
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("paho.mqtt.client")
pytest.importorskip("msgspec")

import paho.mqtt.client as mqtt
from floor_rig import FloorRig
from test_floor_cutoff import (
    HAS_BROKER,
    _barrier,
    _floor,
    _floor_rounds,
    _quarantine,
    _reaches_floor,
)
from waiting import DEADLINE_S, wait_for

from firmware.floor import broker as broker_mod
from firmware.floor import cutoff as cutoff_mod
from firmware.floor.certs import ca_paths, identity

pytestmark = pytest.mark.skipif(not HAS_BROKER or broker_mod.dynsec_plugin() is None,
                                reason="mosquitto or its dynamic security plugin missing")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[FloorRig]:
    r = FloorRig(tmp_path, ["EVIL", "H1", "H2"])
    r.start_broker()
    try:
        yield r
    finally:
        r.close()


def _raw(rig: FloorRig, cert_of: str, *, client_id: str = "", protocol: int = mqtt.MQTTv311,
         clean: bool = True, will: tuple[str, bytes, bool] | None = None) -> Any:
    """A hostile client with ``cert_of``'s real certificate, every other choice its own."""
    me = identity(rig.dir, cert_of)
    kw: dict[str, Any] = {"client_id": client_id, "protocol": protocol}
    if protocol != mqtt.MQTTv5:
        kw["clean_session"] = clean
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, **kw)
    c.tls_set(ca_certs=str(ca_paths(rig.dir).cert), certfile=str(me.cert),
              keyfile=str(me.key), cert_reqs=ssl.CERT_REQUIRED,
              tls_version=ssl.PROTOCOL_TLS_CLIENT)
    if will is not None:
        c.will_set(will[0], will[1], qos=1, retain=will[2])
    return c


def _connect(c: Any, rig: FloorRig, protocol: int = mqtt.MQTTv311) -> bool:
    """Connected (True) or refused at CONNECT (False)."""
    done = threading.Event()
    ok: list[bool] = []

    def on_connect(*a: Any) -> None:
        ok.append(not a[3].is_failure)
        done.set()

    c.on_connect = on_connect
    if protocol == mqtt.MQTTv5:
        c.connect("127.0.0.1", rig.broker_port, 10, clean_start=False)
    else:
        c.connect("127.0.0.1", rig.broker_port, 10)
    c.loop_start()
    if not done.wait(DEADLINE_S):
        c.loop_stop()
        return False
    return ok[0]


def _drop(c: Any) -> None:
    """The connection cut without DISCONNECT: the broker sends the client's will."""
    c.loop_stop()
    sock = c.socket()
    if sock is not None:
        sock.close()


def _spray(c: Any, tid: str, tag: bytes) -> None:
    """Everything a table may publish, every QoS, retained and not; the last acknowledged."""
    last = None
    for kind in ("records", "status", "online", "signature"):
        for qos in (0, 1, 2):
            for retain in (False, True):
                payload = b"1" if kind == "online" else b"junk " + tag
                last = c.publish(f"etg/table/{tid}/{kind}", payload, qos=qos, retain=retain)
    assert last is not None
    last.wait_for_publish(DEADLINE_S)


def _rows_of(rig: FloorRig, tid: str) -> int:
    """Every row the floor's store holds about ``tid`` (evidence, alarms, messages)."""
    import sqlite3

    con = sqlite3.connect(rig.db_url)
    try:
        n = 0
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({name})")]
            col = next((c for c in ("table_id", "tid", "table_name") if c in cols), None)
            if col is not None:
                n += con.execute(f"SELECT count(*) FROM {name} WHERE {col} = ?",
                                 (tid,)).fetchone()[0]
        return n
    finally:
        con.close()


def test_attack_a_quarantined_certificate_reconnecting_every_way_reaches_nothing(
        rig: FloorRig) -> None:
    """EVIL, quarantined, comes back with its real certificate as every kind of client:
    not one of its publishes, wills or retained messages reaches the floor's edge, and
    its store holds nothing more about EVIL; a new floor process subscribing afresh gets
    no retained message of EVIL's either."""
    ing = _floor(rig)
    # a will left with the broker before the quarantine: the disconnect at the cut must
    # not carry it to the floor
    early = _raw(rig, "EVIL", client_id="EVIL", will=("etg/table/EVIL/status", b"will", True))
    assert _connect(early, rig)
    _quarantine(ing, "EVIL")
    wait_for("the early connection cut", lambda: not early.is_connected())
    early.loop_stop()
    _barrier(ing)
    at_cut, rows = ing.received.get("EVIL", 0), _rows_of(rig, "EVIL")
    for i, (client_id, protocol, clean) in enumerate([
            ("EVIL", mqtt.MQTTv311, True), ("H1", mqtt.MQTTv311, False),
            ("", mqtt.MQTTv311, True), ("someone", mqtt.MQTTv31, False),
            ("EVIL", mqtt.MQTTv5, True), ("H2", mqtt.MQTTv5, False)]):
        for will_retain in (False, True):
            c = _raw(rig, "EVIL", client_id=client_id, protocol=protocol, clean=clean,
                     will=(f"etg/table/EVIL/{'online' if i % 2 else 'status'}",
                           b"0" if i % 2 else b"will junk", will_retain))
            if not _connect(c, rig, protocol):
                continue  # refused outright: nothing of it can reach the floor
            _spray(c, "EVIL", b"%d" % i)
            _drop(c)  # the will, if the broker were to send it
    _barrier(ing)
    assert ing.received.get("EVIL", 0) == at_cut
    assert _rows_of(rig, "EVIL") == rows
    ing.stop()
    ing = _floor(rig)  # subscribed afresh: the broker's retained messages come first
    _barrier(ing)
    assert ing.received.get("EVIL", 0) <= 1  # the will EVIL left before its quarantine
    assert _rows_of(rig, "EVIL") == rows
    ing.stop()


def test_attack_b_a_forger_cannot_get_an_honest_table_quarantined(tmp_path: Path) -> None:
    """EVIL forges H1: H1's client id (a takeover), H1's topics (records, status, a will,
    retained), H1's command and acknowledgement topics, thousands of each — on the floor
    as `etg floor serve --start-broker` runs it (the broker log's refusal watch counting
    toward quarantine). EVIL is what gets quarantined, never H1, whose messages still
    reach the floor."""
    from floor_rig import floor_rig

    with floor_rig(tmp_path, ["EVIL", "H1"]) as r:
        r.start_floor("--start-broker")
        r.log_in()
        for protocol in (mqtt.MQTTv311, mqtt.MQTTv5):
            c = _raw(r, "EVIL", client_id="H1", protocol=protocol,
                     will=("etg/table/H1/online", b"0", True))
            if not _connect(c, r, protocol):
                c = _raw(r, "EVIL", client_id="H1", protocol=protocol)
                assert _connect(c, r, protocol)
            c.subscribe([("etg/table/H1/#", 1), ("etg/ack/H1", 1), ("etg/command/H1", 1)])
            for k in range(600):
                for kind in ("records", "status", "online", "signature"):
                    c.publish(f"etg/table/H1/{kind}", b"forged %d" % k, qos=k % 2,
                              retain=k % 3 == 0)
                c.publish("etg/ack/H1", b'{"records": 999999}', qos=1, retain=True)
            c.publish("etg/table/H1/records", b"last", qos=1).wait_for_publish(DEADLINE_S)
            _drop(c)
        wait_for("EVIL quarantined for its refusals", lambda: r.tiles()["EVIL"]["quarantined"])
        h1 = _honest(r, "H1")
        h1.play_rounds(3)
        wait_for("H1's rounds acknowledged", h1.drained)
        h1.close()
        tile = r.tiles()["H1"]
        assert not tile["quarantined"], tile
        assert len(_floor_rounds(r, "H1")) == 3
        assert "forged" not in json.dumps(tile)


def _honest(rig: FloorRig, tid: str) -> Any:
    from firmware.bench.floor_load import make_tables

    (t,) = make_tables([tid], rig.dir, rig.root / "journals", "127.0.0.1", rig.broker_port)
    t.link.start()
    return t


def test_attack_c_restarts_while_quarantined_keep_the_cut_and_the_backlog_arrives_once(
        rig: FloorRig) -> None:
    """H1, honest, quarantined by mistake, plays on; the floor stops, the broker restarts,
    H1 plays on, the floor starts: H1 is still refused at every step (the plugin's file,
    then the floor's listing). Cleared: every round H1 played arrives, none twice."""
    ing = _floor(rig)
    h1 = _honest(rig, "H1")
    h1.play_rounds(3)
    wait_for("H1's first rounds acknowledged", h1.drained)
    _quarantine(ing, "H1")
    _barrier(ing)
    at_cut = ing.received.get("H1", 0)
    h1.play_rounds(4)
    wait_for("H1 sent its rounds", lambda: not h1.link._flying)
    _barrier(ing)
    assert ing.received.get("H1", 0) == at_cut
    ing.stop()
    rig.stop_broker()
    h1.play_round()  # while the broker is away: kept in H1's outbox
    rig.start_broker()
    wait_for("H1 back on the broker", h1.link.client.is_connected)
    h1.play_round()
    wait_for("H1 sent its rounds", lambda: not h1.link._flying)
    ing = _floor(rig)
    assert ing.quarantined == {"H1"} and ing.cutoff.cut == {"H1"}
    _barrier(ing)
    assert ing.received.get("H1", 0) <= 1  # its status retained from before the cut
    assert len(_floor_rounds(rig, "H1")) == 3
    ing.pit_action("H1", {"action": "clear-quarantine", "by": "pit", "reason": "mistake"})
    wait_for("H1's backlog after the clearing", h1.drained)
    got = _floor_rounds(rig, "H1")
    assert got == sorted(set(got)) and len(got) == 3 + 4 + 2
    assert ing.cutoff.cut == set() or "H1" not in ing.cutoff.wanted
    h1.close()
    ing.stop()


def _broker_log(rig: FloorRig) -> str:
    p = rig.root / "broker.log"
    return p.read_text(errors="replace") if p.exists() else ""


def _banner(ing: Any) -> str:
    ing.tick()
    return str(ing.health.warnings().get("cutoff", ""))


def test_attack_d_a_corrupt_plugin_file_is_a_banner_and_the_floor_cuts_off_again(
        tmp_path: Path) -> None:
    """The plugin's file made junk while the broker is down: Mosquitto 2.0.11 runs on
    without the plugin's state (it says so in its log only). The floor's first look at the
    plugin must not be a silent no-op: either the plugin answers and the floor puts its
    quarantines back (the table refused again), or the banner says the cut-off fails."""
    r = FloorRig(tmp_path, ["EVIL", "H1"])
    r.start_broker()
    try:
        ing = _floor(r)
        _quarantine(ing, "EVIL")
        ing.stop()
        r.stop_broker()
        (r.dir / broker_mod.DYNSEC_FILE).write_text("{ not json")
        r.start_broker()
        ing = _floor_any(r)
        wait_for("EVIL's cutoff alarm: the broker had lost its cut",
                 lambda: "cutoff" in ing.store.tables["EVIL"].alarmed)
        wait_for("EVIL cut off again", lambda: ing.cutoff.cut == {"EVIL"}
                 and not ing.cutoff._pending and ing.cutoff.state() is None)
        assert _reaches_floor(r, ing, "EVIL") == 0
        assert _reaches_floor(r, ing, "H1") == 50
        assert "H1" not in ing.store.tables or "cutoff" not in ing.store.tables["H1"].alarmed
        ing.stop()
    finally:
        r.close()


def _floor_any(rig: FloorRig) -> Any:
    """The floor on the broker, whatever the plugin answers."""
    from firmware.floor.db import Database
    from firmware.floor.ingest import Ingest
    from firmware.floor.ledger import FloorLedger

    ing = Ingest(FloorLedger(Database(rig.db_url), quarantine_after=20), rig.dir,
                 "127.0.0.1", rig.broker_port).start()
    wait_for("the floor on the broker", ing.connected.is_set)
    return ing


def _immutable(path: Path, on: bool) -> bool:
    """``chattr +i``/``-i``: a file even root cannot write or replace (False: not here)."""
    import subprocess

    chattr = shutil.which("chattr")
    return chattr is not None and subprocess.run(
        [chattr, "+i" if on else "-i", str(path)], capture_output=True).returncode == 0


def test_attack_d_an_unwritable_plugin_file_is_a_banner(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """The plugin cannot save its file (here: made immutable): Mosquitto 2.0.11 answers
    every command as done and says nothing, the cut holding in the broker's memory only —
    gone at the broker's next start. The floor reads the file and says so on every page;
    the banner ends when the file holds the cut again; a file that is not the plugin's is
    the banner too."""
    monkeypatch.setattr(cutoff_mod, "FILE_CHECK_S", 0.2)
    r = FloorRig(tmp_path, ["EVIL", "H1"])
    r.start_broker()
    state = r.dir / broker_mod.DYNSEC_FILE
    try:
        ing = _floor(r)
        # as `etg floor serve --start-broker` sets it: the broker runs on this directory
        ing.cutoff.state_file = broker_mod.local_plugin_file(r.dir, "127.0.0.1")
        assert ing.cutoff.state_file == state
        if not _immutable(state, True):
            pytest.skip("chattr +i is not possible here")
        _quarantine(ing, "EVIL")  # the broker holds it cut off: it answered so
        assert "EVIL" not in state.read_text()
        wait_for("the banner: the plugin's file not saved", lambda: "did not save the "
                 "cut-off of EVIL" in _banner(ing))
        _immutable(state, False)
        ing.cutoff.release("EVIL")  # a change the plugin can save again: the banner ends
        ing.cutoff.quarantine("EVIL")
        wait_for("the banner gone once the file holds the cut", lambda: _banner(ing) == "")
        assert "EVIL" in state.read_text()
        state.write_text("[]")
        wait_for("a file not the plugin's: the banner",
                 lambda: "cannot be read as the plugin's" in _banner(ing))
        ing.stop()
    finally:
        _immutable(state, False)
        r.close()


def test_the_plugin_file_is_read_only_where_it_is_this_machines(tmp_path: Path) -> None:
    """The floor reads the plugin's file only where the broker's configuration in the
    floor directory names it and the broker is on this machine (a property's broker
    elsewhere: a stale copy here would be a false banner)."""
    from firmware.floor.broker import local_plugin_file

    assert local_plugin_file(tmp_path, "127.0.0.1") is None  # no configuration here
    (tmp_path / "mosquitto.conf").write_text(
        f"plugin_opt_config_file {tmp_path / broker_mod.DYNSEC_FILE}\n")
    assert local_plugin_file(tmp_path, "127.0.0.1") == tmp_path / broker_mod.DYNSEC_FILE
    assert local_plugin_file(tmp_path, "localhost") == tmp_path / broker_mod.DYNSEC_FILE
    assert local_plugin_file(tmp_path, "10.1.2.3") is None
    assert local_plugin_file(tmp_path, "broker.casino.example") is None
