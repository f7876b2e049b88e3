"""`etg bench`: run scenario files against the engine (and, later, the real table)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from etgcore.cli_context import context
from etgcore.errors import UserError
from etgcore.options import add_json, add_progress, add_seed, count, print_json, seed_int
from etgcore.progress import progress_for
from firmware.cli.variant import add_variant


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "bench", help="run bench scenarios (engine or hardware-in-the-loop)", parents=[common],
        description="Bench tools: scenario files (docs/scenario-format.md).",
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
    run.add_argument("--sas-host", action="store_true",
                     help="--mode hil only: the table's SAS link on a pty and a host polling "
                     "every seat at a real host's pace; a scenario also fails when the "
                     "answers miss 20 ms at p99, a meter differs from etg meters, an "
                     "exception repeats or a transfer is not applied once (docs/sas.md)")
    run.add_argument("--kill-every", type=int, default=0, metavar="N",
                     help="with --sas-host: kill -9 and restart the table before every N-th "
                     "round of a scenario, a host transfer in flight (default 0: never)")
    run.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report")
    add_json(run, "one JSON object: mode, passed, failed, every file's result")
    add_progress(run)
    run.set_defaults(func=_run)
    soak = bsub.add_parser(
        "soak", help="long auto-played run with shoe faults, panel bounce and kill -9 restarts",
        parents=[common],
        description="Run the table service with auto-players for N rounds while injecting "
        "random shoe faults, panel bounce and service restarts (kill -9), comparing the "
        "meters with an engine replay of the journal after every restart, then check the "
        "journal: the audit chain verifies, no journal gap, the engine's replay gives "
        "every round record and meter, every round settled or voided exactly once, meters "
        "balance, history equals meters. Exits 1 on any violation.",
    )
    add_variant(soak, "the game (default: the configuration's table.variant, as par and "
                "rtp)")
    soak.add_argument("--rounds", type=count, required=True, metavar="N",
                      help="rounds to play (settled or voided)")
    soak.add_argument("--faults", type=float, default=0.2, metavar="RATE",
                      help="disturbances per round, on average (default 0.2)")
    add_seed(soak, "fixed seed (hex) of the disturbances and of the shoe's shuffles "
             "(default 1)", default="01", old=())
    soak.add_argument("--seats", type=int, default=3, metavar="K",
                      help="auto-played seats (default 3)")
    soak.add_argument("--kill-every", type=int, default=0, metavar="N",
                      help="also kill -9 and restart the table after every N-th round "
                      "(default 0: only the random restarts of --faults)")
    soak.add_argument("--sas-host", action="store_true",
                      help="with the SAS link on a pty and a host polling every seat, "
                      "sending transfers (docs/sas.md)")
    soak.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report")
    soak.add_argument("--keep", metavar="DIR",
                      help="keep the journal and the logs of the run in DIR")
    add_json(soak, "one JSON object: ok, rounds, seconds, injected disturbances, every "
             "invariant checked")
    add_progress(soak)
    soak.set_defaults(func=_soak)


def _run(args: argparse.Namespace) -> int:
    from firmware.bench.report import summary, write_junit
    from firmware.bench.runner import driver_for
    from firmware.bench.scenario import find_scenarios

    if args.sas_host and args.mode != "hil":
        raise UserError("--sas-host needs --mode hil (the engine mode has no SAS link)")
    if args.kill_every and not args.sas_host:
        raise UserError("--kill-every on bench run needs --sas-host (the kills are the host's "
                        "test; etg bench soak kills without one)")
    if args.kill_every < 0:
        raise UserError("--kill-every must be 0 (never) or more rounds")
    if args.mode == "hil":
        from firmware.bench.hil import hil_factory

        cfg = context(args).load_config(args)  # --config, --set: the table's own
        if args.sas_host:
            from firmware.bench.hil_sas import SasHilTarget

            factory = hil_factory(cfg, SasHilTarget, kill_every=args.kill_every)
        else:
            factory = hil_factory(cfg)
    else:
        factory = driver_for(args.mode)
    if args.mode == "engine":
        # The configuration's mode decides the table's: production refuses forced draws.
        from functools import partial

        from firmware.bench.target import EngineTarget

        factory = partial(EngineTarget, bench=context(args).load_config(args).bench)
    files = find_scenarios(args.paths)
    results = []
    # the engine plays a file in milliseconds; the real table takes seconds per file
    with progress_for(args.progress, len(files), "scenarios", f"bench run ({args.mode})",
                      long=args.mode == "hil") as progress:
        for path in files:
            r = _run_file(str(path), factory, args.sas_host)
            results.append(r)
            if not args.json:
                progress.print(r.line())
            progress.advance()
    if args.json:
        passed = sum(r.passed for r in results)
        print_json({"mode": args.mode, "passed": passed, "failed": len(results) - passed,
                    "results": [r.to_json() for r in results]})
    else:
        print(summary(results))
    if args.junit:
        try:
            write_junit(args.junit, results, args.mode)
        except OSError as exc:
            sys.stderr.write(f"etg: error: cannot write {args.junit}: {exc}\n")
            return 2
    return 0 if all(r.passed for r in results) else 1


def _run_file(path: str, factory: Any, sas_host: bool) -> Any:
    """One scenario file; with ``sas_host`` on the HIL bench with a host polling (the
    factory's :class:`~firmware.bench.hil_sas.SasHilTarget`)."""
    from firmware.bench.runner import run_one

    if sas_host:
        from firmware.bench.hil_sas import run_one_with_host

        return run_one_with_host(path, factory)
    return run_one(path, factory)


def _soak(args: argparse.Namespace) -> int:
    from firmware.bench.hil import hil_factory
    from firmware.bench.soak import Soak
    from firmware.bench.soak_report import write_soak_junit

    cfg = context(args).load_config(args)
    hil_factory(cfg)  # production refuses the bench's powers
    if not 1 <= args.seats <= 7:
        raise UserError("--seats must be 1..7")
    from pathlib import Path

    variant = args.variant or cfg.table.variant
    keep = Path(args.keep) if args.keep else None
    soak = Soak(variant, args.rounds, args.faults, seed_int(args.seed), args.seats,
                kill_every=args.kill_every, sas_host=args.sas_host)
    with progress_for(args.progress, args.rounds, "rounds", f"bench soak {variant}"
                      ) as progress:
        result = soak.run(keep, progress)
    if args.json:
        print_json(result.to_json())
    else:
        for line in result.lines():
            print(line, flush=True)
    if args.junit:
        try:
            write_soak_junit(args.junit, result)
        except OSError as exc:
            sys.stderr.write(f"etg: error: cannot write {args.junit}: {exc}\n")
            return 2
    return 0 if result.ok else 1
