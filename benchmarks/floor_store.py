"""`make bench`, the floor's store alone: what 1,000 tables' messages cost the floor
service's store thread and its database, per MQTT message, on SQLite and PostgreSQL.

The traffic is the light tables' of ``floor-scale`` (:mod:`firmware.bench.floor_light`:
statuses, rounds, meters, chains and events, as a real table's outbox numbers and chains
them), built in memory and checked by the edge (:mod:`firmware.floor.wire`), then applied
by the ledger in batches of :data:`BATCH` messages (what the store thread takes in a pass
at 1,000 tables when it keeps up) — no broker, no TLS, no threads: CPU-seconds of this
process and of the database server, which depend little on what else runs on the machine
(the load average is stated beside them), where the wall-clock figures of ``floor-scale``
depend on it a lot.

The yardstick, in the same run: PostgreSQL with each batch's rows sent one statement a
row (``executemany``: how the floor stored a batch before :mod:`firmware.floor.db_bulk`).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.postgres import server_pids, temporary_postgres
from firmware.bench.floor_light import LightTable
from firmware.bench.floor_load_run import proc_cpu_s
from firmware.floor import wire
from firmware.floor.db import Database
from firmware.floor.ledger import FloorLedger, Incoming

TABLES = 1000
ROUNDS = int(os.environ.get("ETG_FLOOR_STORE_ROUNDS", "6"))  # per table
BATCH = 150  # MQTT messages a store pass


class _Capture:
    """A light table's client that keeps what it would publish."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []
        self.connected = threading.Event()  # always: the light table publishes at once
        self.connected.set()

    def publish(self, topic: str, payload: bytes, **_: Any) -> None:
        self.sent.append((topic, payload))


def traffic(state_dir: Path) -> list[tuple[str, bytes]]:
    """Every table's start and ``ROUNDS`` rounds, interleaved a round at a time as the
    tables play side by side."""
    tables = [LightTable(f"STORE-{i:04d}", state_dir) for i in range(TABLES)]
    caps = [_Capture() for _ in tables]
    for t, c in zip(tables, caps, strict=True):
        t.client = c  # type: ignore[assignment]
        t.start()
    out = [m for c in caps for m in c.sent]
    for c in caps:
        c.sent.clear()
    for _ in range(ROUNDS):
        for t in tables:
            t.play_round()
        out += [m for c in caps for m in c.sent]
        for c in caps:
            c.sent.clear()
    return out


def _edge(topic: str, payload: bytes) -> list[Incoming]:
    tid, kind = topic.split("/")[2:4]
    now = time.time()
    if kind == "records":
        return [Incoming(tid, "record", r, now) for r in wire.records(payload)]
    if kind == "status":
        return [Incoming(tid, "status", wire.status(payload), now)]
    return []


def _batches(messages: list[tuple[str, bytes]]) -> tuple[list[list[Incoming]], float]:
    """The messages through the edge, in store passes; the edge's CPU a message (s)."""
    t0 = time.process_time()
    out = [[i for m in messages[k:k + BATCH] for i in _edge(*m)]
           for k in range(0, len(messages), BATCH)]
    return out, (time.process_time() - t0) / max(len(messages), 1)


def _store(url: str, messages: list[tuple[str, bytes]], bulk: bool = True) -> dict[str, float]:
    db = Database(url)
    db.bulk = bulk
    try:
        ledger = FloorLedger(db)
        first, rest = messages[:TABLES], messages[TABLES:]  # each table's start
        for b in _batches(first)[0]:
            ledger.apply(b)
        batches, edge = _batches(rest)
        pids = server_pids(url) if db.postgres else []
        db0 = sum(proc_cpu_s(p) or 0.0 for p in pids)
        c0, w0 = time.process_time(), time.monotonic()
        for b in batches:
            ledger.apply(b)
        n = max(len(rest), 1)
        return {"store": (time.process_time() - c0) / n, "wall": (time.monotonic() - w0) / n,
                "server": (sum(proc_cpu_s(p) or 0.0 for p in pids) - db0) / n, "edge": edge,
                "messages": n}
    finally:
        db.close()


def _line(name: str, r: dict[str, float]) -> str:
    server = f", database server {r['server'] * 1e6:.0f} us" if r["server"] else ""
    return (f"{name}: store {r['store'] * 1e6:.0f} us CPU a message{server} "
            f"(wall {r['wall'] * 1e6:.0f} us; load average {os.getloadavg()[0]:.1f})")


def floor_store() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="etg-floor-store-") as tmp:
        messages = traffic(Path(tmp))
        yield (f"{TABLES} light tables' starts and {ROUNDS} rounds each: {len(messages)} MQTT "
               f"messages, applied {BATCH} a batch; load average at start "
               f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        lite = _store(str(Path(tmp) / "floor.sqlite"), messages)
        yield f"edge (schema, duplicate keys): {lite['edge'] * 1e6:.0f} us CPU a message"
        yield _line("SQLite", lite)
        with temporary_postgres() as url:
            if url is None:
                yield "PostgreSQL: not installed (make setup installs Debian's package)"
                return
            pg = _store(url, messages)
        with temporary_postgres() as url:
            assert url is not None
            one = _store(url, messages, bulk=False)
        yield _line("PostgreSQL", pg)
        yield _line("PostgreSQL, one statement a row (the yardstick)", one)
        yield (f"PostgreSQL's store: {one['store'] / pg['store']:.1f}x less CPU than the "
               f"yardstick in the floor, "
               f"{one['server'] / max(pg['server'], 1e-9):.1f}x less in the database server; "
               f"{pg['store'] / lite['store']:.2f}x SQLite's")
