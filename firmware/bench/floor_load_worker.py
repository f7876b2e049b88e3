"""One process of `etg floor load`: its share of the simulated tables.

paho's network loop uses ``select()``, which refuses file descriptors from 1024 on, and
each simulated table holds several (its journal, the outbox's reader, the head file, its
TLS connection, paho's wake-up pipe): so tables are sharded over processes, each well
under that limit, and this one refuses to run if it would reach it.

It speaks JSON lines with the coordinator (:mod:`firmware.bench.floor_load_run`): reads
its spec, connects its tables and says ``ready``; plays when told ``go``; then waits until
the floor acknowledged everything (or a deadline) and reports what it counted.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from firmware.bench.floor_load import SimTable, drive, make_tables, wait_drained

#: the highest descriptor paho's select() takes, with a margin
FD_LIMIT = 1000
DRAIN_S = 60.0


def _max_fd() -> int:
    try:
        return max(int(f) for f in os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        return 0


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _say(msg: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def _connect(tables: list[SimTable], timeout: float) -> float:
    t0 = time.monotonic()
    for i, t in enumerate(tables):
        t.link.start()
        if i % 10 == 9:
            time.sleep(0.05)  # spread the TLS handshakes a little
    while time.monotonic() - t0 < timeout:
        if all(t.link.connected for t in tables):
            return time.monotonic() - t0
        time.sleep(0.05)
    raise RuntimeError(f"{sum(not t.link.connected for t in tables)} of {len(tables)} "
                       f"tables not connected after {timeout:.0f} s")


def run(spec: dict[str, Any]) -> dict[str, Any]:
    tables = make_tables(spec["ids"], Path(spec["floor_dir"]), Path(spec["journals"]),
                         spec["host"], int(spec["port"]))
    first = {t.table_id: t.link.outbox.last_n() for t in tables}
    try:
        connect_s = _connect(tables, 120.0)
        if _max_fd() >= FD_LIMIT:
            raise RuntimeError(f"descriptor {_max_fd()} in use: paho's select() cannot take "
                               f"it; run fewer tables per process (--processes)")
        _say({"ready": True, "connect_s": connect_s})
        if sys.stdin.readline().strip() != "go":
            raise RuntimeError("the coordinator did not say go")
        cpu0, t0 = _cpu_s(), time.monotonic()
        rounds = drive(tables, float(spec["rounds_per_s"]), float(spec["seconds"]))
        played_s = time.monotonic() - t0
        drain_s = wait_drained(tables, DRAIN_S)
        per_table = [{"table": t.table_id, "first": first[t.table_id],
                      "last": t.link.outbox.last_n(), "acked": t.link.acked}
                     for t in tables]
        return {"tables": len(tables), "rounds": rounds, "played_s": played_s,
                "drain_s": drain_s, "connect_s": connect_s, "cpu_s": _cpu_s() - cpu0,
                "publishes": sum(t.link.publishes for t in tables), "max_fd": _max_fd(),
                "latencies_ms": [round(x * 1000, 2) for t in tables for x in t.latencies],
                "per_table": per_table}
    finally:
        for t in tables:
            try:
                t.retire()
            finally:
                t.close()


async def run_light(spec: dict[str, Any]) -> dict[str, Any]:
    """The same protocol with light tables (:mod:`firmware.bench.floor_light`)."""
    import asyncio

    from firmware.bench import floor_light

    state = Path(spec["journals"])
    tables = [floor_light.LightTable(t, state) for t in spec["ids"]]
    t0 = time.monotonic()
    await floor_light.connect_all(tables, Path(spec["floor_dir"]), spec["host"],
                                  int(spec["port"]))
    connect_s = time.monotonic() - t0
    _say({"ready": True, "connect_s": connect_s})
    loop = asyncio.get_running_loop()
    if (await loop.run_in_executor(None, sys.stdin.readline)).strip() != "go":
        raise RuntimeError("the coordinator did not say go")
    cpu0, t0 = _cpu_s(), time.monotonic()
    first = {t.table_id: t.n for t in tables}
    keepers = [asyncio.create_task(floor_light.keep_connected(
        t, Path(spec["floor_dir"]), spec["host"], int(spec["port"]))) for t in tables]
    await floor_light.drive(tables, float(spec["rounds_per_s"]), float(spec["seconds"]))
    played_s = time.monotonic() - t0
    drain_s = await floor_light.drained(tables, DRAIN_S)
    for k in keepers:
        k.cancel()
    result = {"tables": len(tables), "rounds": sum(t.rounds for t in tables),
              "played_s": played_s, "drain_s": drain_s, "connect_s": connect_s,
              "cpu_s": _cpu_s() - cpu0, "publishes": sum(t.publishes for t in tables),
              "max_fd": _max_fd(),
              "latencies_ms": [round(x * 1000, 2) for t in tables for x in t.latencies],
              "per_table": [{"table": t.table_id, "first": first[t.table_id], "last": t.n,
                             "acked": min(t.acked, t.n)} for t in tables]}
    for t in tables:
        t.save()
        t.client.publish(f"etg/table/{t.table_id}/status", b"", retain=True)
        t.client.publish(f"etg/table/{t.table_id}/online", b"0", retain=True)
        await t.client.close()
    return result


def main() -> int:
    spec = json.loads(sys.stdin.readline())
    if spec.get("nice"):
        os.nice(int(spec["nice"]))
    try:
        if spec.get("light"):
            import asyncio

            _say({"result": asyncio.run(run_light(spec))})
            return 0
        _say({"result": run(spec)})
        return 0
    except Exception as exc:
        _say({"error": f"{type(exc).__name__}: {exc}"})
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
