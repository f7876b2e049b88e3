"""`etg rtp`: the return by Monte Carlo, through the real engine or the fast path."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "rtp", parents=[common], help="return to player by Monte Carlo simulation",
        description="Play rounds with the computed strategy through the real engine (or the "
        "compiled fast path, numba) on a Dask cluster (by default a local one on every core); "
        "print the house edge, its standard error, a 95 percent interval and each wager's return.",
    )
    from etgcore.options import count
    from firmware.cli.math_options import add_rules_options
    from lab.options import add_cluster_options

    add_rules_options(p)
    p.add_argument("--rounds", type=count, required=True, metavar="N",
                   help="rounds to play (1000000, 1e6 or 10^6)")
    add_cluster_options(p)
    from etgcore.options import add_seed

    add_seed(p, "fixed seed (hex) for a reproducible run (default: fresh entropy)", old=())
    p.add_argument("--fast", action="store_true",
                   help="use the compiled fast path (numba) instead of the engine")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from etgcore.options import add_progress

    add_progress(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from etgcore.errors import UserError
    from firmware.cli.math_options import rules_from_args
    from firmware.math.simulation.rtp import run_rtp

    if args.rounds < 1:
        raise UserError("--rounds must be at least 1")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    rules = rules_from_args(args)
    from etgcore.options import seed_int

    seed = None if args.seed is None else seed_int(args.seed)
    res = run_rtp(rules, args.rounds, jobs=args.jobs, seed=seed, fast=args.fast,
                  scheduler=args.scheduler, checkpoint=args.checkpoint, show=args.progress)
    cert = _certified(rules)
    if args.json:
        doc = res.to_json()
        if cert is not None:
            doc["certified"] = {"house_edge": cert.house_edge, "wagers": cert.wagers,
                                "standard_errors_apart": (res.house_edge - cert.house_edge)
                                / res.stderr if res.stderr else None}
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        print(res.report(cert))
    return 0


def _certified(rules: Any) -> Any:
    """The exact analysis of the same rules (the PAR sheet's figures), or None where
    there is none (an infinite deck)."""
    from firmware.math.games.house_edge import analyse

    if rules.shoe.counts() is None:
        return None
    return analyse(rules)
