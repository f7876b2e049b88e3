"""`make bench` for the floor through a flood: one table floods, the honest tables' p99.

The red team's finding: one table sending thousands of messages a second delayed every
other table's ingest, and quarantine did not help, because a quarantined table's messages
still reached the floor's one network thread (dropped there, after their cost). Now the
broker refuses a quarantined table (:mod:`firmware.floor.cutoff`). Measured in one run,
on one floor service (``etg floor serve``, SQLite, its own process) and real Mosquitto:

1. no flood: :data:`TABLES` simulated tables (:mod:`firmware.bench.floor_load`) playing
   :data:`ROUNDS_PER_S` rounds a second each; each round's latency is its journal commit
   to the floor's acknowledgement (the tables' own clock);
2. flood, cut off: the same, while a flooder process (its own certificate) publishes
   junk records at up to :data:`FLOOD_PER_S` a second, is quarantined within its first
   20, cut off by the broker, reconnects and floods on;
3. flood, not cut off (the broker restarted without the dynamic security plugin: the
   floor drops the quarantined table's messages at its edge, as before this change).

For each: the honest rounds' p50/p99, the floor's and the broker's CPU a second, and the
floor's extra CPU per flood message sent (beyond phase 1's). ETG_FLOOR_FLOOD_S sets each
phase's seconds (default 20).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.floor import _cpu_s, _pct, free_port, wait_port

TABLES = 20
ROUNDS_PER_S = 2.0
FLOOD_PER_S = 4000

FLOODER = r"""
import sys, time
from pathlib import Path
from firmware.floor.certs import ca_paths, identity
from firmware.floor.mqtt import make_client
root, tid, port, rate, seconds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), \
    float(sys.argv[4]), float(sys.argv[5])
me = identity(root, tid)
c = make_client(tid, ca_paths(root).cert, me.cert, me.key, clean=True)
c.connect_async("127.0.0.1", port, 10)
c.loop_start()
while not c.is_connected():
    time.sleep(0.01)
sent, start = 0, time.monotonic()
end = start + seconds
while (now := time.monotonic()) < end:
    if sent > (now - start) * rate:
        time.sleep(0.002)
        continue
    if c.publish(f"etg/table/{tid}/records", b"junk %d" % sent, qos=0).rc == 0:
        sent += 1
    else:
        time.sleep(0.01)
print(sent, flush=True)
c.loop_stop()
"""


def _phase_s() -> float:
    return float(os.environ.get("ETG_FLOOR_FLOOD_S", "20"))


def floor_flood() -> Iterator[str]:
    from firmware.bench.floor_load import drive, load_ids, make_tables, wait_drained
    from firmware.floor.broker import dynsec_plugin, start_broker
    from firmware.floor.certs import make_floor_certs

    if dynsec_plugin() is None:
        yield "floor-flood: Mosquitto's dynamic security plugin is not installed (SKIPPED)"
        return
    seconds = _phase_s()
    with tempfile.TemporaryDirectory(prefix="etg-floor-flood-") as tmp:
        root = Path(tmp)
        floor_dir, jdir = root / "floor", root / "journals"
        jdir.mkdir()
        bport, hport = free_port(), free_port()
        ids = load_ids(TABLES, "HONEST")
        make_floor_certs(floor_dir, [*ids, "FLOOD-1", "FLOOD-2"])
        tables = make_tables(ids, floor_dir, jdir, "127.0.0.1", bport)
        log = open(root / "broker.log", "ab")  # noqa: SIM115 (closed below)
        box: dict[str, Any] = {"broker": start_broker(floor_dir, bport, log=log)}
        wait_port(bport)
        floor = subprocess.Popen(
            [sys.executable, "-m", "firmware", "floor", "serve", "--dir", str(floor_dir),
             "--broker", f"127.0.0.1:{bport}", "--http", f"127.0.0.1:{hport}"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_port(hport)
            for t in tables:
                t.link.start()
            wait_drained(tables, 60)
            yield (f"{TABLES} honest tables at {ROUNDS_PER_S:g} rounds/s each, {seconds:.0f} s "
                   f"a phase; a flooder at up to {FLOOD_PER_S:,}/s; load average at start "
                   f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

            def phase(name: str, flooder: str | None) -> dict[str, float]:
                for t in tables:
                    with t._lock:
                        t.latencies.clear()
                f0, b0 = _cpu_s(floor.pid), _cpu_s(box["broker"].pid)
                t0 = time.monotonic()
                proc = None if flooder is None else subprocess.Popen(
                    [sys.executable, "-c", FLOODER, str(floor_dir), flooder, str(bport),
                     str(FLOOD_PER_S), str(seconds)], stdout=subprocess.PIPE, text=True)
                drive(tables, ROUNDS_PER_S, seconds)
                sent = int(proc.communicate(timeout=60)[0].strip() or 0) if proc else 0
                wait_drained(tables, 60)
                dt = time.monotonic() - t0
                lat = [x for t in tables for x in t.latencies]
                return {"p50": _pct(lat, 50) * 1000, "p99": _pct(lat, 99) * 1000,
                        "n": len(lat), "floor": (_cpu_s(floor.pid) - f0) / dt,
                        "broker": (_cpu_s(box["broker"].pid) - b0) / dt, "sent": sent / dt,
                        "name": name}  # type: ignore[dict-item]

            base = phase("no flood", None)
            cut = phase("flood, cut off at the broker", "FLOOD-1")
            stop_broker(box["broker"])
            box["broker"] = start_broker(floor_dir, bport, log=log, cutoff=False)
            wait_port(bport)
            wait_drained(tables, 60)
            uncut = phase("flood, not cut off (no plugin: dropped at the floor's edge)",
                          "FLOOD-2")
            for r in (base, cut, uncut):
                extra = ""
                if r["sent"]:
                    per = (r["floor"] - base["floor"]) / r["sent"] * 1e6
                    extra = (f"; flood {r['sent']:,.0f} messages/s sent, the floor's extra "
                             f"CPU {per:.1f} us per flood message")
                yield (f"{r['name']}: honest rounds p50 {r['p50']:.0f} ms, p99 "
                       f"{r['p99']:.0f} ms ({r['n']:.0f} rounds); floor CPU "
                       f"{r['floor'] * 100:.0f}% of a core, broker {r['broker'] * 100:.0f}%"
                       f"{extra}")
            yield f"load average at end {os.getloadavg()[0]:.1f}"
        finally:
            for t in tables:
                t.close()
            floor.send_signal(signal.SIGTERM)
            floor.wait(20)
            stop_broker(box["broker"])
            log.close()


def stop_broker(p: subprocess.Popen[bytes]) -> None:
    if p.poll() is None:
        p.terminate()
        p.wait(10)


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    for line in floor_flood():
        print(line, flush=True)
