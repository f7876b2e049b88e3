"""`make bench`, floor at scale: 1,000 tables at one round a second, on SQLite and on
PostgreSQL.

Each run: a fresh broker (Mosquitto, the generated TLS configuration and ACL) and floor
service (``etg floor serve``, its own process), 1,000 light simulated tables
(:mod:`firmware.bench.floor_light`: a real table's traffic, each table its own TLS
connection and certificate, built in memory) sharded over two processes by
`etg floor load`'s coordinator, niced by 10 (the floor under test comes first), all
connected before any plays. Reported: records and MQTT
messages a second, table-to-floor latency (a round's commit to the floor's
acknowledgement arriving back: the floor sends it once its database holds the round;
target p99 <= 250 ms), everything delivered, the floor's CPU (share of one core) and memory
(peak resident set), the broker's and the database server's CPU.

Light tables, because a table's own floor link (journal, outbox, paho: about 2 ms of CPU a
round) at 1,000 rounds a second needs two cores by itself: on a 2-core machine the
generator would starve what it measures. `etg floor load` without ``--light`` runs the
real table code; the figures of the ``floor`` benchmark are measured with it.

By default each database gets 60 s of play (make bench stays a few minutes); the full
size, five minutes each: ``ETG_FLOOR_SCALE_S=300 python -m benchmarks floor-scale``; one
database only: ``ETG_FLOOR_SCALE_DB=sqlite`` (or ``postgresql``).

The wall-clock latency measures the machine as much as the floor (the run shares two
cores with its own load generator, broker and database server), so each run also states
the load average at its start and end and what is load-independent: the floor's CPU per
round (a round: two statuses and a records message of about three records), and as a
ratio to the broker's CPU per round in the same run (Mosquitto handles every message
too: the yardstick), and the p99 as a share of its 250 ms target.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from benchmarks.floor import free_port, wait_port
from benchmarks.postgres import server_pids, temporary_postgres
from firmware.bench.floor_load import LoadOptions, load_ids
from firmware.bench.floor_load_run import proc_cpu_s, run_load
from firmware.cli.floor_load import report
from firmware.floor.broker import start_broker
from firmware.floor.certs import make_floor_certs

TABLES = 1000
SECONDS = float(os.environ.get("ETG_FLOOR_SCALE_S", "60"))
DATABASES = {d.strip().lower() for d in
             os.environ.get("ETG_FLOOR_SCALE_DB", "sqlite,postgresql").split(",")}
TARGET_P99_MS = 250.0


def floor_scale() -> Iterator[str]:
    yield (f"{TABLES} light tables at 1 round/s each for {SECONDS:.0f} s per database "
           f"(ETG_FLOOR_SCALE_S=300 for the full five minutes); load average at start "
           f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="etg-floor-scale-") as tmp:
        floor_dir = Path(tmp) / "floor"
        t0 = time.monotonic()
        make_floor_certs(floor_dir, load_ids(TABLES, "SCALE"))
        yield f"certificates for {TABLES} tables in {time.monotonic() - t0:.1f} s"
        if "sqlite" in DATABASES:
            yield from _one(floor_dir, Path(tmp), "SQLite", str(floor_dir / "floor.sqlite"))
        if "postgresql" not in DATABASES:
            return
        with temporary_postgres() as url:
            if url is None:
                yield "PostgreSQL: not installed (make setup installs Debian's package)"
            else:
                yield from _one(floor_dir, Path(tmp), "PostgreSQL", url)


def _one(certs: Path, tmp: Path, name: str, db_url: str) -> Iterator[str]:
    """One database's run, on a floor directory of its own (the broker's persistence and
    retained messages start empty)."""
    import shutil

    floor_dir = tmp / f"floor-{name}"
    shutil.copytree(certs, floor_dir)
    if not db_url.startswith("postgresql"):
        db_url = str(floor_dir / "floor.sqlite")
    bport, hport = free_port(), free_port()
    load0 = os.getloadavg()[0]
    with open(tmp / f"{name}.log", "ab") as log, _running(floor_dir, bport, hport, db_url,
                                                          log) as (floor, broker):
        db_pids = server_pids(db_url) if db_url.startswith("postgresql") else []
        db0 = sum(proc_cpu_s(p) or 0.0 for p in db_pids)
        opts = LoadOptions(floor_dir, "127.0.0.1", bport, TABLES, 1.0, SECONDS,
                           prefix="SCALE", journals=_state_dir(tmp, name), floor_pid=floor.pid,
                           broker_pid=broker.pid, db_url=db_url, light=True, nice=10)
        r = run_load(opts)
        db_cpu = sum(proc_cpu_s(p) or 0.0 for p in db_pids) - db0
    yield f"{name} (load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end):"
    for line in report(r):
        yield "  " + line
    rounds = max(int(r["rounds"]), 1)
    if db_pids:
        yield (f"  database server: {100 * db_cpu / r['wall_s']:.0f}% of one core, "
               f"{db_cpu / rounds * 1e6:.0f} us a round")
    yield from _per_round(r, rounds)
    lat = r["latency_ms"]
    if lat:
        yield (f"  p99 {lat['p99']:.0f} ms = {lat['p99'] / TARGET_P99_MS:.2f} of the "
               f"{TARGET_P99_MS:.0f} ms target"
               + (" (OVER the target)" if lat["p99"] > TARGET_P99_MS else ""))


def _per_round(r: dict[str, Any], rounds: int) -> Iterator[str]:
    """The floor's CPU a round, and as a ratio to the broker's in the same run."""
    floor, broker = r["floor"], r["broker"]
    if not floor:
        return
    per = floor["cpu_s"] / rounds * 1e6
    line = f"  floor service CPU: {per:.0f} us a round ({per / 3:.0f} us an MQTT message)"
    if broker and broker["cpu_s"] > 0:
        line += (f", {floor['cpu_s'] / broker['cpu_s']:.1f}x the broker's "
                 f"({broker['cpu_s'] / rounds * 1e6:.0f} us a round: the yardstick)")
    yield line


def _state_dir(tmp: Path, name: str) -> Path:
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="etg-floor-scale-", dir=shm)) if shm.is_dir() \
        else tmp
    return base / name


@contextlib.contextmanager
def _running(floor_dir: Path, bport: int, hport: int, db_url: str,
             log: IO[bytes]) -> Iterator[tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]]:
    broker = start_broker(floor_dir, bport, log=log)
    floor = subprocess.Popen(
        [sys.executable, "-m", "firmware", "floor", "serve", "--dir", str(floor_dir),
         "--broker", f"127.0.0.1:{bport}", "--http", f"127.0.0.1:{hport}", "--db", db_url],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(bport)
        wait_port(hport)
        time.sleep(1.0)  # its subscription made (the tables' first records arrive)
        yield floor, broker
    finally:
        for p in (floor, broker):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
