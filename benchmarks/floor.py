"""`make bench` for the floor: 50 simulated tables against a real broker and floor service.

Measured, each on a fresh broker (Mosquitto, the generated TLS configuration) and floor
service (``etg floor serve``, SQLite, its own process), with the tables of
:mod:`firmware.bench.floor_load` (real journals, outboxes and floor links) in this process:

1. ingest: every table's outbox filled first, then all links started at once; records
   (outbox messages) per second from the start until the floor database holds every
   record (so it includes the TLS connects, QoS 1 and the tables' own publishing, which
   carries up to 100 records in one MQTT message);
2. latency: tables playing at a steady rate, a logged-in pit-view client on the live
   stream (connected from the start: the ingest figure is with the pit view open too);
   for each tile update, the time from the newest record or status it reflects (the
   table's clock) to its arrival at the client (same machine, same clock);
3. outage: the broker stopped for 60 s while the tables play on, then started; the time
   until the floor has acknowledged every table's whole outbox.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from firmware.bench.floor_load import SimTable, drive, load_ids, make_tables, wait_drained
from firmware.floor.auth import add_staff
from firmware.floor.broker import start_broker
from firmware.floor.certs import make_floor_certs
from firmware.floor.db import Database

TABLES = 50
PREFILL_ROUNDS = 100  # per table, for the ingest figure
OUTAGE_S = 60.0
STAFF, PASSWORD = "bench", "bench-password"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used (Linux /proc), 0.0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _floor_total(db_path: Path) -> int:
    db = sqlite3.connect(db_path, timeout=30)
    try:
        row = db.execute("SELECT COALESCE(SUM(last_n), 0) FROM floor_tables").fetchone()
        return int(row[0])
    finally:
        db.close()


class LiveClient:
    """A logged-in pit view on ``/live``: records each tile's age when it arrives."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.ages: list[float] = []
        self.recording = False
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        data = urllib.parse.urlencode({"name": STAFF, "password": PASSWORD}).encode()
        opener.open(f"http://127.0.0.1:{port}/login", data, timeout=30).read()
        self.cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/live", headers={"Cookie": self.cookie})
        resp = conn.getresponse()
        kind = ""
        while not self._stop:
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                kind = text[7:]
            elif text.startswith("data: ") and kind == "tile" and self.recording:
                tile = json.loads(text[6:])
                if tile.get("as_of"):
                    self.ages.append(time.time() - float(tile["as_of"]))

    def stop(self) -> None:
        self._stop = True


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) >= 2 else values[0]


def floor_benchmark() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="etg-floor-bench-") as tmp:
        root = Path(tmp)
        floor_dir, jdir = root / "floor", root / "journals"
        jdir.mkdir()
        bport, hport = free_port(), free_port()
        t0 = time.monotonic()
        ids = load_ids(TABLES, "BENCH")
        make_floor_certs(floor_dir, ids)
        tables = make_tables(ids, floor_dir, jdir, "127.0.0.1", bport)
        db_path = floor_dir / "floor.sqlite"
        staff_db = Database(str(db_path))
        add_staff(staff_db, STAFF, PASSWORD)
        staff_db.close()
        log = open(root / "broker.log", "ab")  # noqa: SIM115 (the broker's, closed below)
        broker = start_broker(floor_dir, bport, log=log)
        wait_port(bport)
        floor = subprocess.Popen(
            [sys.executable, "-m", "firmware", "floor", "serve", "--dir", str(floor_dir),
             "--broker", f"127.0.0.1:{bport}", "--http", f"127.0.0.1:{hport}"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_port(hport)
            yield (f"{TABLES} simulated tables (firmware.bench.floor_load: real journals, "
                   "outboxes, floor links, one client certificate each) in this process; Mosquitto "
                   "and `etg floor serve` (SQLite) in their own")
            yield (f"setup {time.monotonic() - t0:.1f} s; load average at start "
                   f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (figures scale with it)")
            client = LiveClient(hport)  # the pit view is open throughout, as on a floor
            yield from _ingest(tables, db_path, floor.pid, broker.pid)
            yield from _latency(tables, client)
            yield from _outage(tables, floor_dir, bport, log, broker)
        finally:
            for t in tables:
                t.close()
            floor.send_signal(signal.SIGTERM)
            floor.wait(20)
            for p in (broker,):
                p.terminate()
                p.wait(10)
            log.close()


def _ingest(tables: list[SimTable], db_path: Path, floor_pid: int,
            broker_pid: int) -> Iterator[str]:
    t0 = time.monotonic()
    for t in tables:
        for _ in range(PREFILL_ROUNDS // 10):
            t.play_rounds(10)
    total = sum(t.link.outbox.last_n() for t in tables)
    yield (f"ingest: {total} records waiting in {len(tables)} outboxes (a record = one "
           f"outbox message: an event, round, meters or chain; filled in "
           f"{time.monotonic() - t0:.1f} s)")
    cpu0 = _cpu_s(floor_pid), _cpu_s(broker_pid), time.process_time()
    publishes0 = sum(t.link.publishes for t in tables)
    t0 = time.monotonic()
    for t in tables:
        t.link.start()
    connected: tuple[float, int] | None = None  # when every link was connected, and held
    while (held := _floor_total(db_path)) < total:
        if connected is None and all(t.link.connected for t in tables):
            connected = time.monotonic(), held
        time.sleep(0.02)
    t1 = time.monotonic()
    dt = t1 - t0
    cpu = (_cpu_s(floor_pid) - cpu0[0], _cpu_s(broker_pid) - cpu0[1],
           time.process_time() - cpu0[2])
    publishes = sum(t.link.publishes for t in tables) - publishes0
    yield (f"ingest: {total / dt:,.0f} records/s from full outboxes to the floor database "
           f"({total} in {dt:.2f} s from the links' start, their {len(tables)} TLS connects "
           f"included; target >= 5,000/s), in {publishes} MQTT messages "
           f"({total / max(publishes, 1):.0f} records each)")
    if connected is not None and t1 - connected[0] > 0.05:
        yield (f"ingest: {(total - connected[1]) / (t1 - connected[0]):,.0f} records/s once "
               f"every link was connected")
    if cpu[0] > 0:
        yield (f"ingest: CPU per record: floor service {cpu[0] / total * 1e6:.0f} us "
               f"(= {total / cpu[0]:,.0f} records per CPU-second), broker "
               f"{cpu[1] / total * 1e6:.0f} us, the {len(tables)} tables' links "
               f"{cpu[2] / total * 1e6:.0f} us: what a less loaded machine turns into "
               "throughput")
    wait_drained(tables, 30)


def _latency(tables: list[SimTable], client: LiveClient) -> Iterator[str]:
    client.recording = True
    t0 = time.monotonic()
    rounds = drive(tables, 2.0, 10.0)
    rate = rounds / (time.monotonic() - t0) / len(tables)
    time.sleep(1.0)
    client.recording = False
    client.stop()
    ages = client.ages
    if not ages:
        yield "latency: no tile updates arrived (FAILED)"
        return
    yield (f"latency: table -> pit view (live tile) p50 {_pct(ages, 50) * 1000:.0f} ms, "
           f"p99 {_pct(ages, 99) * 1000:.0f} ms, max {max(ages) * 1000:.0f} ms over "
           f"{len(ages)} tile updates, the tables playing {rate:.1f} rounds/s each (asked 2) "
           "(target p99 <= 500 ms)")


def _outage(tables: list[SimTable], floor_dir: Path, bport: int, log: object,
            broker: subprocess.Popen[bytes]) -> Iterator[str]:
    broker.send_signal(signal.SIGTERM)
    broker.wait(10)
    before = sum(t.link.outbox.last_n() for t in tables)
    t0 = time.monotonic()
    rounds = drive(tables, 1.0, OUTAGE_S)
    rate = rounds / (time.monotonic() - t0) / len(tables)
    backlog = sum(t.link.outbox.last_n() for t in tables) - before
    t0 = time.monotonic()
    new = start_broker(floor_dir, bport, log=log)
    broker.__dict__.update(new.__dict__)  # so the caller stops the new one
    drained = wait_drained(tables, 120.0)
    if drained is None:
        yield f"outage: outboxes NOT drained 120 s after a {OUTAGE_S:.0f} s outage (FAILED)"
        return
    dt = time.monotonic() - t0
    yield (f"outage: {backlog} records journaled during a {OUTAGE_S:.0f} s broker outage "
           f"({rate:.2f} rounds/s per table); every outbox drained and acknowledged "
           f"{dt:.1f} s after the broker was back (includes the clients' reconnect back-off, "
           "<= 2 s)")


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    for line in floor_benchmark():
        print(line, flush=True)
