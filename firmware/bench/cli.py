"""`etg bench`: run scenario files against the engine (and, later, the real table)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

# Importing the engine registers its configuration validator (rules overrides, seats),
# so every `etg` command validates `[rules]` against the Rules Submission.
import firmware.engine  # noqa: F401


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "bench", help="run bench scenarios (engine or hardware-in-the-loop)", parents=[common],
        description="Bench tools: scenario files (shared/spec/scenario-format.md).",
    )
    bsub = p.add_subparsers(dest="bench_command", metavar="ACTION")
    bsub.required = True
    run = bsub.add_parser(
        "run", help="run scenario files and report PASS/FAIL", parents=[common],
        description="Run scenario files (or every *.toml under directories). Prints "
        "'PASS <file>: <name>' or 'FAIL <file>: <name>: <what differed>' per file and "
        "'N passed, M failed'; exits 0 only when nothing failed.",
    )
    run.add_argument("paths", nargs="+", metavar="FILE|DIR")
    run.add_argument("--mode", choices=["engine", "hil"], default="engine",
                     help="engine: in-process game engine; hil: the real table service")
    run.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report")
    run.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from firmware.bench.report import summary, write_junit
    from firmware.bench.runner import driver_for, run_one
    from firmware.bench.scenario import find_scenarios
    from firmware.cli import load_table_config

    if args.mode == "hil":
        from firmware.bench.hil import hil_factory

        factory = hil_factory(load_table_config(args))
    else:
        factory = driver_for(args.mode)
    if args.mode == "engine":
        # The configuration's mode decides the table's: production refuses forced draws.
        from functools import partial

        from firmware.bench.driver import EngineDriver

        factory = partial(EngineDriver, bench=load_table_config(args).bench)
    files = find_scenarios(args.paths)
    results = []
    for path in files:
        r = run_one(str(path), factory)
        results.append(r)
        print(r.line(), flush=True)
    print(summary(results))
    if args.junit:
        try:
            write_junit(args.junit, results, args.mode)
        except OSError as exc:
            sys.stderr.write(f"etg: error: cannot write {args.junit}: {exc}\n")
            return 2
    return 0 if all(r.passed for r in results) else 1
