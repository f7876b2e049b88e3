"""`etg floor load`: many simulated tables against a running floor, counted honestly.

The tables (:mod:`firmware.bench.floor_load`) are sharded over worker processes
(:mod:`firmware.bench.floor_load_worker`); every table connects before any plays, then all
play for the same seconds. What is counted is what the floor *acknowledged* — it does
only once its database holds the records:

- delivered: records journaled during the run that the floor acknowledged;
- lost: journaled and never acknowledged, after up to a minute of draining;
- duplicated: with ``--db``, rows the floor database holds twice for one message, and
  records acknowledged but missing from it (either would be a floor bug);
- latency: per round, from its journal commit to the acknowledgement's arrival at the
  table (p50, p99, max), all on the load machine's clock;
- the floor's CPU (share of one core over the run) and memory (peak resident set), read
  from ``/proc`` when it runs on this machine (``--floor-pid``).

The result is a failure (exit 1) when anything was not delivered or a worker failed.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from firmware.bench.floor_load import LoadOptions, load_ids
from firmware.floor.certs import make_floor_certs

#: tables per worker process: each holds ~9 descriptors; paho's select() stops at 1024
TABLES_PER_PROCESS = 50
#: light tables per process (one descriptor each, an event loop on epoll): CPU decides
LIGHT_PER_PROCESS = 500


def proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), None when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid: int, key: str = "VmRSS") -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class ProcessWatch:
    """CPU and peak memory of a process over a run, sampled each second."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.cpu0 = proc_cpu_s(pid) if pid else None
        self.t0 = time.monotonic()
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        if pid:
            self._thread.start()

    def _sample(self) -> None:
        assert self.pid is not None
        while not self._stop.wait(1.0):
            self.peak_mb = max(self.peak_mb, proc_rss_mb(self.pid) or 0.0)

    def result(self) -> dict[str, Any] | None:
        self._stop.set()
        if not self.pid or self.cpu0 is None:
            return None
        cpu1 = proc_cpu_s(self.pid)
        if cpu1 is None:
            return None
        elapsed = time.monotonic() - self.t0
        return {"cpu_s": cpu1 - self.cpu0, "core_share": (cpu1 - self.cpu0) / elapsed,
                "rss_mb": proc_rss_mb(self.pid), "peak_rss_mb": self.peak_mb}


def _start(opts: LoadOptions, ids: list[str], journals: Path, log: IO[bytes]) -> Any:
    p = subprocess.Popen([sys.executable, "-m", "firmware.bench.floor_load_worker"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    assert p.stdin is not None
    p.stdin.write(json.dumps({"ids": ids, "floor_dir": str(opts.floor_dir),
                              "journals": str(journals), "host": opts.host,
                              "port": opts.port, "rounds_per_s": opts.rounds_per_s,
                              "seconds": opts.seconds, "light": opts.light,
                              "nice": opts.nice}) + "\n")
    p.stdin.flush()
    return p


def _answer(p: Any) -> dict[str, Any]:
    line = p.stdout.readline()
    if not line:
        return {"error": f"worker ended (exit {p.wait()})"}
    return dict(json.loads(line))


def run_load(opts: LoadOptions, progress: bool = False) -> dict[str, Any]:
    ids = load_ids(opts.tables, opts.prefix)
    make_floor_certs(opts.floor_dir, ids)
    journals = opts.journals or opts.floor_dir / "load"
    journals.mkdir(parents=True, exist_ok=True)
    per = LIGHT_PER_PROCESS if opts.light else TABLES_PER_PROCESS
    procs = opts.processes or math.ceil(len(ids) / per)
    shards = [ids[i::procs] for i in range(procs)]

    def say(text: str) -> None:
        if progress:
            print(text, file=sys.stderr, flush=True)

    with open(journals / "workers.log", "ab") as log:
        workers = [_start(opts, shard, journals, log) for shard in shards if shard]
        say(f"{len(ids)} simulated tables in {len(workers)} processes: connecting ...")
        ready = [_answer(p) for p in workers]
        failed = [r["error"] for r in ready if "error" in r]
        if failed:
            for p in workers:
                p.kill()
            raise RuntimeError(f"load workers failed to start: {failed[0]}")
        say(f"connected in {max(r['connect_s'] for r in ready):.1f} s; playing "
            f"{opts.rounds_per_s:g} rounds/s per table for {opts.seconds:.0f} s ...")
        floor, broker = ProcessWatch(opts.floor_pid), ProcessWatch(opts.broker_pid)
        t0 = time.monotonic()
        for p in workers:
            p.stdin.write("go\n")
            p.stdin.flush()
        answers = [_answer(p) for p in workers]
        for p in workers:
            p.wait(30)
        wall = time.monotonic() - t0
    return summarize(opts, answers, wall, floor.result(), broker.result())


def summarize(opts: LoadOptions, answers: list[dict[str, Any]], wall: float,
              floor: dict[str, Any] | None, broker: dict[str, Any] | None) -> dict[str, Any]:
    errors = [a["error"] for a in answers if "error" in a]
    results = [a["result"] for a in answers if "result" in a]
    per_table = [t for r in results for t in r["per_table"]]
    journaled = sum(t["last"] - t["first"] for t in per_table)
    delivered = sum(max(0, min(t["acked"], t["last"]) - t["first"]) for t in per_table)
    lat = sorted(x for r in results for x in r["latencies_ms"])
    played = max((r["played_s"] for r in results), default=0.0)
    out: dict[str, Any] = {
        "tables": opts.tables, "processes": len(answers), "errors": errors,
        "rounds": sum(r["rounds"] for r in results), "seconds": played, "wall_s": wall,
        "journaled": journaled, "delivered": delivered, "lost": journaled - delivered,
        "records_per_s": journaled / played if played else 0.0,
        "mqtt_messages": sum(r["publishes"] for r in results),
        "latency_ms": _quantiles(lat), "floor": floor, "broker": broker,
        "load_cpu_s": sum(r["cpu_s"] for r in results),
        "drain_s": max((r["drain_s"] or math.inf for r in results), default=None),
        "duplicated": None, "missing_in_db": None, "light": opts.light,
    }
    out["mqtt_per_s"] = out["mqtt_messages"] / played if played else 0.0
    if opts.db_url:
        out["duplicated"], out["missing_in_db"] = check_database(opts.db_url, per_table)
    out["ok"] = (not errors and out["lost"] == 0 and not out["duplicated"]
                 and not out["missing_in_db"])
    return out


def _quantiles(lat: list[float]) -> dict[str, float] | None:
    if len(lat) < 2:
        return None
    q = statistics.quantiles(lat, n=100)
    return {"count": len(lat), "p50": q[49], "p99": q[98], "max": lat[-1]}


def check_database(url: str, per_table: list[dict[str, Any]]) -> tuple[int, int]:
    """(rows held twice, acknowledged messages missing) in the floor database."""
    from firmware.floor.db import Database

    db = Database(url)
    dup = missing = 0
    try:
        for t in per_table:
            rows, distinct = db.one("SELECT COUNT(*), COUNT(DISTINCT n) FROM floor_messages"
                                    " WHERE table_id = ? AND n > ? AND n <= ?",
                                    (t["table"], t["first"], t["acked"])) or (0, 0)
            dup += int(rows) - int(distinct)
            missing += max(0, min(t["acked"], t["last"]) - t["first"] - int(distinct))
    finally:
        db.close()
    return dup, missing
