"""`make bench`: every speed and memory figure of the firmware, printed, never asserted.

Each package registers a benchmark here as ``(name, "module:function")``; the function
runs its measurement and returns lines of text saying what was measured, on what, and the
figures. Run one with ``python -m firmware.benchmarks NAME`` (several names allowed).
"""

from __future__ import annotations

import importlib
import os
import platform
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


def run(names: Iterable[str] = ()) -> int:
    wanted = set(names)
    print(f"# etg benchmarks on {_machine()}")
    print(f"# started {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print("# rerun one: python -m firmware.benchmarks NAME")
    failed = 0
    for name, target in BENCHMARKS:
        if wanted and name not in wanted:
            continue
        module, func_name = target.split(":")
        func: Callable[[], Iterable[str]] = getattr(importlib.import_module(module), func_name)
        print(f"\n## {name}")
        t0 = time.perf_counter()
        try:
            for line in func():
                print(line, flush=True)
        except Exception as exc:  # one broken benchmark must not hide the others
            failed += 1
            print(f"benchmark {name} failed: {type(exc).__name__}: {exc}")
        print(f"({name}: {time.perf_counter() - t0:.1f} s)")
    unknown = wanted - {n for n, _ in BENCHMARKS}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
