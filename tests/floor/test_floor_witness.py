"""Issue 34: the floor as a witness off the box, table side, against a real Mosquitto.

The floor's acknowledgement (retained on ``etg/ack/<table>``: ``{"n", "seq", "hash"}``) is
published here as the floor service would; the table asks for it at start, before it
writes anything, and refuses a journal that is behind it or disagrees with it — the
rollback nothing on the box can see (test_table_journal_evidence.py: a consistent
rollback). Without an answer within the deadline the table plays on and says so."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from floor_rig import free_port
from waiting import DEADLINE_S, stop_process, wait_for

sys.path.insert(0, str(Path(__file__).parents[1] / "table"))

from journal_rig import copy_journal, play, table_on

from firmware.cli.floor import table_settings
from firmware.floor.broker import start_broker
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity, make_floor_certs
from firmware.floor.mqtt import make_client
from firmware.floor.settings import FloorSettings
from firmware.floor.topics import ack_topic, command_topic
from firmware.floor.witness_read import read_witness
from firmware.journal import EventCode, Journal
from firmware.journal.opening import JournalRefused, init_journal, open_for_table
from firmware.journal.witness import Witness, WitnessRead
from firmware.table.meter_proof import start_proof
from firmware.table.service.floor_witness import check_witness, journal_witness

TID = "BJ-07"
pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
    reason="mosquitto is not installed (make setup installs it)")


class Broker:
    def __init__(self, root: Path) -> None:
        self.dir = root / "floor"
        make_floor_certs(self.dir, [TID])
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.settings = FloorSettings(**table_settings(self.dir, TID, f"127.0.0.1:{self.port}"))

    def start(self) -> None:
        started = threading.Event()

        def run() -> None:  # the broker lives as long as the thread that started it
            self.proc = start_broker(self.dir, self.port)
            started.set()
            self.proc.wait()

        threading.Thread(target=run, daemon=True).start()
        started.wait(DEADLINE_S)
        wait_for("the broker to answer", lambda: _connects(self.settings))

    def client(self, name: str, on_message: Any = None, **kw: Any) -> Any:
        me = identity(self.dir, name)
        c = make_client(name, ca_paths(self.dir).cert, me.cert, me.key, **kw)
        c.on_message = on_message  # before connecting: a resumed session delivers at once
        c.connect("127.0.0.1", self.port)
        c.loop_start()
        return c

    def publish(self, topic: str, payload: dict[str, Any], retain: bool = True) -> None:
        floor = self.client(FLOOR_SERVICE, clean=True)
        floor.publish(topic, json.dumps(payload).encode(), qos=1, retain=retain
                      ).wait_for_publish(DEADLINE_S)
        floor.disconnect()
        floor.loop_stop()

    def ack(self, n: int, seq: int | None = None, digest: str | None = None) -> None:
        body: dict[str, Any] = {"n": n}
        if seq is not None:
            body.update(seq=seq, hash=digest)
        self.publish(ack_topic(TID), body)

    def read(self, deadline: float = DEADLINE_S) -> WitnessRead:
        """The witness as a start reads it (an answer ends the wait at once; the short
        deadlines are for the tests that expect none)."""
        return read_witness(self.settings, TID, deadline)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


def _connects(settings: FloorSettings) -> bool:
    import socket

    host, port = settings.broker.rsplit(":", 1)
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, int(port))) == 0


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path)
    b.start()
    try:
        yield b
    finally:
        b.stop()


def _journal(where: Path, rounds: int = 3) -> Path:
    path = where / "j.sqlite"
    ctl = table_on(path)
    play(ctl, rounds)
    ctl.journal.close()
    return path


def _last(path: Path) -> tuple[int, str, int]:
    j = Journal(path, readonly=True)
    try:
        return j.last_seq, j.head, j.outbox_last_n()
    finally:
        j.close()


def _start(path: Path, broker: Broker) -> WitnessRead | None:
    """What a start does with the journal and the floor: verify, ask, refuse or go on."""
    j = open_for_table(path, "", bench=False, prove=start_proof)
    try:
        got = check_witness(j, broker.read)
        journal_witness(j, got)
        return got
    finally:
        j.close()


def test_a_journal_the_floor_agrees_with_starts(broker: Broker, tmp_path: Path) -> None:
    path = _journal(tmp_path)
    seq, head, n = _last(path)
    broker.ack(n, seq, head)
    got = _start(path, broker)
    assert got is not None and got.witness == Witness(n, seq, head)
    j = Journal(path, readonly=True)
    last = list(j.records(kinds=["event"]))[-1]
    assert last.code == EventCode.JOURNAL_WITNESSED and last.body["seq"] == seq
    j.close()


def test_without_an_acknowledgement_the_table_plays_and_says_so(broker: Broker,
                                                               tmp_path: Path) -> None:
    path = _journal(tmp_path)
    j = open_for_table(path, "", bench=False, prove=start_proof)
    got = check_witness(j, lambda: broker.read(1.0))
    journal_witness(j, got)
    j.close()
    assert got is not None and got.witness is None and "no acknowledgement" in got.why
    j = Journal(path, readonly=True)
    assert list(j.records(kinds=["event"]))[-1].code == EventCode.JOURNAL_UNWITNESSED
    j.close()


def test_without_a_broker_the_table_plays_and_says_so(tmp_path: Path) -> None:
    b = Broker(tmp_path)  # never started: nothing listens
    got = b.read(1.0)
    assert got.witness is None and "did not answer within 1 s" in got.why


def _rolled_back(tmp_path: Path) -> tuple[Path, tuple[int, str, int]]:
    """The finding-2 rollback: old copies of the journal and its head put back after the
    table played on and the floor acknowledged it. Returns the old copy and the newest
    state (what the floor holds)."""
    path = tmp_path / "live" / "j.sqlite"
    path.parent.mkdir()
    ctl = table_on(path)
    play(ctl, 3)
    ctl.journal.close()
    old = copy_journal(path, tmp_path / "old")
    ctl = table_on(path)
    play(ctl, 2, seed=2)
    assert ctl.request("credits-out", {"seat": 1, "cents": 700, "id": "OUT-7"})[0]
    ctl.journal.close()
    return old, _last(path)


def test_a_journal_behind_the_floor_is_refused(broker: Broker, tmp_path: Path) -> None:
    old, (seq, head, n) = _rolled_back(tmp_path)
    assert _start(copy_journal(old, tmp_path / "check"), broker) is not None  # alone: ok
    broker.ack(n, seq, head)
    before = {p.name: p.read_bytes() for p in old.parent.iterdir() if p.is_file()}
    with pytest.raises(JournalRefused, match="behind the floor"):
        _start(old, broker)
    after = {p.name: p.read_bytes() for p in old.parent.iterdir() if p.is_file()
             and not p.name.endswith(".lock")}
    assert after == {k: v for k, v in before.items() if not k.endswith(".lock")}


def test_a_journal_rolled_back_and_played_on_disagrees_with_the_floor(broker: Broker,
                                                                     tmp_path: Path) -> None:
    old, (seq, head, n) = _rolled_back(tmp_path)
    ctl = table_on(old)  # the rolled-back copy plays on past the floor's record
    play(ctl, 4, seed=3)
    ctl.journal.close()
    assert _last(old)[0] > seq
    broker.ack(n, seq, head)
    with pytest.raises(JournalRefused, match="disagrees with the floor"):
        _start(old, broker)


def test_an_outbox_behind_the_floor_is_refused(broker: Broker, tmp_path: Path) -> None:
    path = _journal(tmp_path)
    broker.ack(40)  # the floor holds 40 messages of this table; no record named
    with pytest.raises(JournalRefused, match="outbox numbered only 0"):
        _start(path, broker)


def test_a_malformed_acknowledgement_is_no_witness(broker: Broker, tmp_path: Path) -> None:
    broker.publish(ack_topic(TID), {"n": 1, "seq": "7", "hash": "zz"})
    got = broker.read()
    assert got.witness is None and "malformed" in got.why


def test_a_journal_begun_anew_follows_the_one_it_replaced(broker: Broker,
                                                         tmp_path: Path) -> None:
    """`etg journal init --archive`: the new journal names the old one's end, which the
    floor still holds as this table's newest record; its outbox numbers go on from there."""
    path = _journal(tmp_path)
    seq, head, _n = _last(path)
    broker.ack(25, seq, head)
    new, kept = init_journal(path, "", "new SD card", bench=True, archive=True,
                             witness=broker.read().witness)
    assert kept is not None
    assert new.outbox_last_n() >= 0
    new.close()
    assert _start(path, broker) is not None
    j = Journal(path, readonly=True)
    assert j.outbox_last_n() == 25  # the outbox numbering continues after the floor's
    follows = j.record(1).body["journal"]["follows"]  # type: ignore[union-attr]
    assert {"seq": seq, "hash": head} in [{"seq": f["seq"], "hash": f["hash"]}
                                           for f in follows]
    j.close()


def test_asking_the_floor_loses_no_queued_command(broker: Broker) -> None:
    """The witness is read under the table's own persistent session and acknowledges
    nothing: a floor command queued for the stopped table still reaches the link."""
    got: list[bytes] = []
    arrived = threading.Event()

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic == command_topic(TID):
            got.append(msg.payload)
            arrived.set()

    subscribed = threading.Event()
    session = broker.client(TID, clean=False)
    session.on_subscribe = lambda *a: subscribed.set()
    session.subscribe(command_topic(TID), 1)
    assert subscribed.wait(DEADLINE_S)
    session.disconnect()
    session.loop_stop()
    broker.publish(command_topic(TID), {"id": "C-1", "action": "disable"}, retain=False)
    broker.ack(3)
    # the session resumed delivers the queued command first, then the retained
    # acknowledgement answers the subscription: the reader saw the command and let it be
    assert broker.read().witness == Witness(3)
    table = broker.client(TID, on_message, clean=False)
    table.subscribe(command_topic(TID), 1)
    assert arrived.wait(DEADLINE_S) and json.loads(got[0])["id"] == "C-1"
    table.disconnect()
    table.loop_stop()


def test_etg_run_refuses_a_journal_behind_the_floor_in_one_line(broker: Broker,
                                                                tmp_path: Path) -> None:
    old, (seq, head, n) = _rolled_back(tmp_path)
    broker.ack(n, seq, head)
    sets = [f"table.table_id={TID}", f"journal.path={old}",
            *(f"floor.{k}={v}" for k, v in table_settings(
                broker.dir, TID, f"127.0.0.1:{broker.port}").items())]
    db = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
    records = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    db.close()
    out = subprocess.run(
        [sys.executable, "-m", "firmware", *[a for s in sets for a in ("--set", s)], "run",
         "--headless"], capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "behind the floor" in lines[0], out.stderr
    db = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
    assert db.execute("SELECT COUNT(*) FROM records").fetchone()[0] == records
    db.close()
