"""`make bench`: every speed and memory figure of the firmware, printed, never asserted.

Each package registers a benchmark here as ``(name, "module:function")``; the function
runs its measurement and returns lines of text saying what was measured, on what, and the
figures. Run one with ``python -m firmware.benchmarks NAME`` (several names allowed).

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
    ("rng", "rng.speed:run"),
    ("cert", "rng.cert.speed:run"),
    ("panel", "drivers.panel.speed:panel_benchmark"),
    ("shoe", "drivers.shoe.speed:shoe_benchmark"),
    ("engine", "firmware.bench.speed:engine_benchmark"),
    ("bench", "firmware.bench.hil_speed:hil_benchmark"),
    ("table", "firmware.table.speed:table_benchmark"),
    ("ui", "firmware.bench.screen_views:ui_speed"),
    ("release", "deploy.speed:release"),
    ("math", "firmware.math.speed:run"),
    ("floor", "firmware.floor.speed:floor_benchmark"),
    ("lab", "firmware.lab_speed:run"),
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


def run(names: Iterable[str] = ()) -> int:
    wanted = set(names)
    unknown = wanted - {n for n, _ in BENCHMARKS}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    print(f"# etg benchmarks on {_machine()}")
    print(f"# started {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print("# rerun one: python -m firmware.benchmarks NAME")
    chosen = [name for name, _target in BENCHMARKS if not wanted or name in wanted]
    failed = 0
    for name in chosen:
        print(f"\n## {name}", flush=True)
        t0 = time.perf_counter()
        if len(chosen) == 1:
            failed += _section(name)
        else:  # a fresh process each (see the module's docstring)
            failed += subprocess.run([sys.executable, "-m", "firmware.benchmarks", _SECTION,
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


if __name__ == "__main__":
    if sys.argv[1:2] == [_SECTION] and len(sys.argv) == 3 and sys.argv[2] in dict(BENCHMARKS):
        raise SystemExit(_section(sys.argv[2]))
    raise SystemExit(run(sys.argv[1:]))
