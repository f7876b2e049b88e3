"""`etg floor load`: its options and its report (the tool is firmware.bench.floor_load_run)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from etgcore.errors import UserError

MAX_TABLES = 5000


def add_load_options(ld: argparse.ArgumentParser, default_broker: str) -> None:
    ld.add_argument("--tables", type=int, default=10, metavar="N")
    ld.add_argument("--prefix", default="LOAD", metavar="TEXT",
                    help="table ids are PREFIX-0001.. (LOAD): give each load run its own "
                    "when several run at once")
    ld.add_argument("--processes", type=int, default=0, metavar="P",
                    help="worker processes (default: one per 50 tables)")
    ld.add_argument("--broker", default=default_broker, metavar="HOST:PORT")
    ld.add_argument("--rounds-per-s", type=float, default=1.0, metavar="R",
                    help="rounds per second per table (1.0)")
    ld.add_argument("--seconds", type=float, default=10.0, metavar="S", help="how long (10)")
    ld.add_argument("--journals", metavar="DIR",
                    help="where the simulated tables keep their journals (DIR/load)")
    ld.add_argument("--floor-pid", type=int, metavar="PID",
                    help="the floor service's process on this machine: report its CPU and "
                    "memory")
    ld.add_argument("--broker-pid", type=int, metavar="PID", help="the broker's, likewise")
    ld.add_argument("--db", metavar="URL",
                    help="the floor's database: check it holds each acknowledged message "
                    "once")
    ld.add_argument("--light", action="store_true",
                    help="light tables: the same traffic built in memory (no journal, "
                    "outbox or paho), so a small machine can offer the floor 1,000 tables")
    ld.add_argument("--nice", type=int, default=0, metavar="N",
                    help="run the simulated tables at this added niceness (on the floor's "
                    "machine: the floor under test before its load)")
    ld.add_argument("--json", action="store_true", help="print the result as JSON")
    ld.set_defaults(func=cmd_load)


def cmd_load(args: argparse.Namespace) -> int:
    from firmware.bench.floor_load import LoadOptions
    from firmware.bench.floor_load_run import run_load
    from firmware.floor.mqtt import parse_host_port

    if not 1 <= args.tables <= MAX_TABLES:
        raise UserError(f"--tables must be 1..{MAX_TABLES}")
    if args.rounds_per_s <= 0 or args.seconds <= 0:
        raise UserError("--rounds-per-s and --seconds must be positive")
    if not 0 <= args.nice <= 19:
        raise UserError("--nice must be 0..19")
    if args.processes < 0:
        raise UserError("--processes must be 0 (automatic) or more")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,40}", args.prefix):
        raise UserError(f"--prefix {args.prefix!r}: letters, digits, '.', '_', '-' "
                        "(at most 41)")
    host, port = parse_host_port(args.broker, "--broker")
    if not _listening(host, port):
        raise UserError(f"--broker {host}:{port}: no broker answers there (start the floor's "
                        "broker, or give --broker HOST:PORT)")
    opts = LoadOptions(Path(args.dir), host, port, args.tables, args.rounds_per_s,
                       args.seconds, prefix=args.prefix, processes=args.processes,
                       journals=Path(args.journals) if args.journals else None,
                       floor_pid=args.floor_pid, broker_pid=args.broker_pid, db_url=args.db,
                       light=args.light, nice=args.nice)
    res = run_load(opts, progress=not args.json)
    if args.json:
        print(json.dumps(res, sort_keys=True))
    else:
        for line in report(res):
            print(line)
    return 0 if res["ok"] else 1


def _listening(host: str, port: int) -> bool:
    import socket

    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except OSError:
        return False


def report(r: dict[str, Any]) -> list[str]:
    kind = "light tables" if r["light"] else "tables (journal, outbox, floor link)"
    lines = [f"{r['tables']} {kind} in {r['processes']} processes, {r['rounds']} rounds in "
             f"{r['seconds']:.1f} s: {r['journaled']} records journaled "
             f"({r['records_per_s']:,.0f}/s, in {r['mqtt_messages']} MQTT messages, "
             f"{r['mqtt_per_s']:,.0f}/s)",
             f"delivered {r['delivered']}, lost {r['lost']}, duplicated "
             f"{'not checked (give --db)' if r['duplicated'] is None else r['duplicated']}"
             + (f", acknowledged but missing in the database {r['missing_in_db']}"
                if r["missing_in_db"] else "")]
    lat = r["latency_ms"]
    if lat:
        lines.append(f"table -> floor (journal commit to the floor's acknowledgement): p50 "
                     f"{lat['p50']:.0f} ms, p99 {lat['p99']:.0f} ms, max {lat['max']:.0f} ms "
                     f"over {lat['count']} rounds")
    for who in ("floor", "broker"):
        w = r[who]
        if w:
            lines.append(f"{who}: {100 * w['core_share']:.0f}% of one core, memory "
                         f"{w['rss_mb']:.0f} MB (peak {w['peak_rss_mb']:.0f} MB)")
    lines.append(f"load generator: {r['load_cpu_s']:.0f} CPU-seconds")
    for e in r["errors"]:
        lines.append(f"worker failed: {e}")
    if not r["ok"]:
        lines.append("NOT everything was delivered")
    return lines
