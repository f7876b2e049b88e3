"""`make bench`: every speed and memory figure of the firmware, printed, never asserted.

Every benchmark lives in this package (product code never imports it) and is listed here
as ``(name, "module:function")``; the function runs its measurement and returns lines of
text saying what was measured, on what, and the figures. Run one with
``python -m benchmarks NAME`` (several names allowed).

Each benchmark runs in a process of its own when more than one is run (``make bench``):
the table's card-to-screen figure measured in the process that had just played the
engine benchmark's 40,000 rounds came out at p50 3.0 ms and p99 8.0 ms, against 2.5 ms
and 4.9 ms in a fresh one, minutes apart; a table runs in its own process, and no
benchmark should time what an earlier one left in the heap.
"""

from __future__ import annotations

import importlib
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable

#: Every benchmark, in the order `make bench` runs them.
BENCHMARKS: tuple[tuple[str, str], ...] = (
    ("rng", "benchmarks.rng:run"),
    ("cert", "benchmarks.cert:run"),
    ("sp80022", "benchmarks.sp80022:run"),
    ("sp80090b", "benchmarks.sp80090b:run"),
    ("panel", "benchmarks.panel:panel_benchmark"),
    ("shoe", "benchmarks.shoe:shoe_benchmark"),
    ("sas", "benchmarks.sas:sas_benchmark"),
    ("engine", "benchmarks.engine:engine_benchmark"),
    ("bench", "benchmarks.hil:hil_benchmark"),
    ("table", "benchmarks.table:table_benchmark"),
    ("journal", "benchmarks.journal_start:journal_benchmark"),
    ("ui", "benchmarks.ui:ui_speed"),
    ("release", "benchmarks.release:release"),
    ("math", "benchmarks.math:run"),
    ("montecarlo", "benchmarks.math:fast_path_rates"),
    ("par", "benchmarks.math:par"),
    ("floor-edge", "benchmarks.floor_edge:floor_edge"),
    ("floor", "benchmarks.floor:floor_benchmark"),
    ("floor-store", "benchmarks.floor_store:floor_store"),
    ("floor-ingest", "benchmarks.floor_ingest:floor_ingest"),
    ("floor-scale", "benchmarks.floor_scale:floor_scale"),
    ("floor-flood", "benchmarks.floor_flood:floor_flood"),
    ("lab", "benchmarks.lab:run"),
)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


#: The argument a child process gets: run this one benchmark, no header.
_SECTION = ":section"


USAGE = """usage: python -m benchmarks [NAME ...]

Every speed and memory figure of the firmware, printed (make bench runs them all, each in
a process of its own). Give names to run only those. Benchmarks: {names}.

Environment: ETG_FLOOR_SCALE_S=SECONDS (floor-scale: play per database, default 60;
300 is the full five minutes); ETG_FLOOR_SCALE_DB=sqlite|postgresql (floor-scale: one
database only); ETG_BASE_TREE=DIR (floor-ingest: the same ingest path of another tree
of the project beside this one's, in the same run);
ETG_FLOOR_FLOOD_S=SECONDS (floor-flood: each phase, default 20);
ETG_SAS_SQUEEZE=N[,M] (sas: also measure with the table
pinned to one core shared with N busy loops, default 3; empty: not);
ETG_SAS_BENCH_S=SECONDS (sas: play per leg and layout, default 20)."""


def run(names: Iterable[str] = ()) -> int:
    wanted = set(names)
    if wanted & {"-h", "--help"}:
        print(USAGE.format(names=", ".join(n for n, _ in BENCHMARKS)))
        return 0
    options = sorted(n for n in wanted if n.startswith("-"))
    if options:
        print(f"unknown option {options[0]} (python -m benchmarks --help)", file=sys.stderr)
        return 2
    unknown = wanted - {n for n, _ in BENCHMARKS}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))} "
              "(python -m benchmarks --help lists them)", file=sys.stderr)
        return 2
    print(f"# etg benchmarks on {_machine()}")
    print(f"# started {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print("# rerun one: python -m benchmarks NAME")
    chosen = [name for name, _target in BENCHMARKS if not wanted or name in wanted]
    failed = 0
    for name in chosen:
        print(f"\n## {name}", flush=True)
        t0 = time.perf_counter()
        if len(chosen) == 1:
            failed += _section(name)
        else:  # a fresh process each (see the module's docstring)
            failed += subprocess.run([sys.executable, "-m", "benchmarks", _SECTION,
                                      name], check=False).returncode != 0
        print(f"({name}: {time.perf_counter() - t0:.1f} s)", flush=True)
    return 1 if failed else 0


def _section(name: str) -> int:
    """Run one benchmark here, printing its lines; 1 if it failed."""
    target = dict(BENCHMARKS)[name]
    module, func_name = target.split(":")
    func: Callable[[], Iterable[str]] = getattr(importlib.import_module(module), func_name)
    try:
        for line in func():
            print(line, flush=True)
    except Exception as exc:  # one broken benchmark must not hide the others
        print(f"benchmark {name} failed: {type(exc).__name__}: {exc}", flush=True)
        return 1
    return 0



def main(argv: list[str]) -> int:
    """``python -m benchmarks [NAME ...]``, or one section in a child process."""
    if argv[:1] == [_SECTION] and len(argv) == 2 and argv[1] in dict(BENCHMARKS):
        return _section(argv[1])
    return run(argv)
