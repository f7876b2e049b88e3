"""``etg rng capture``: raw noise samples for ``etg cert entropy`` and the lab."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from etgcore.errors import UserError, output_file
from etgcore.options import add_json, add_progress, count, print_json


def register(rsub: Any, common: argparse.ArgumentParser) -> None:
    cap = rsub.add_parser(
        "capture", parents=[common], help="raw noise samples for an SP 800-90B assessment",
        description="Raw samples of the noise source, before any conditioning and before "
        "the health tests, one per byte (8 bits wide), for `etg cert entropy`: "
        "--samples N from one opening of the source, or --restarts R --samples S "
        "(R fresh openings, S samples each, restart after restart: the restart test's "
        "1000 x 1000). Writes FILE and FILE.json (what the samples are). See "
        "docs/cert.md for the procedure on a Pi.")
    cap.add_argument("--source", required=True, choices=["hwrng", "os"],
                     help="hwrng: the hardware RNG (raw noise); os: the kernel's "
                     "getrandom (conditioned output)")
    cap.add_argument("--samples", required=True, type=count, metavar="N",
                     help="samples (per restart with --restarts): 1000000, 1e6, 10^6")
    cap.add_argument("--restarts", type=count, default=0, metavar="R",
                     help="R restarts of the source, each a fresh open (90B 3.1.4: 1000)")
    cap.add_argument("--device", default=None, metavar="PATH",
                     help="with --source hwrng: the device (default /dev/hwrng)")
    cap.add_argument("--out", required=True, type=Path, metavar="FILE",
                     help="the samples file (FILE.json is written beside it)")
    add_json(cap, "the capture's record (FILE.json) on stdout")
    add_progress(cap)
    cap.set_defaults(func=_capture)


def _capture(args: argparse.Namespace) -> int:
    from etgcore.cli_context import context
    from etgcore.progress import progress_for
    from rng.capture import MAX_SAMPLES, WIDTH, CapturePlan, write_capture
    from rng.entropy import HWRNG_PATH
    from rng.errors import EntropyError

    if args.samples < 1:
        raise UserError("--samples must be at least 1")
    if args.device is not None and args.source != "hwrng":
        raise UserError("--device applies to --source hwrng only")
    plan = CapturePlan(args.source, args.samples, args.restarts, args.device or HWRNG_PATH)
    if plan.total > MAX_SAMPLES:
        raise UserError(f"{plan.total} samples: at most {MAX_SAMPLES} in one capture")
    out = output_file(args.out)
    version = context(args).version
    prog = progress_for(args.progress, plan.total, "samples", "rng capture",
                        long=plan.total >= 10_000_000 or plan.restarts > 0)
    try:
        doc = write_capture(plan, out, version, step=prog.update)
    except EntropyError as exc:
        raise UserError(str(exc)) from None
    finally:
        prog.close()
    if args.json:
        print_json(doc)
    else:
        shape = (f"{plan.restarts} restarts x {plan.samples} samples" if plan.restarts
                 else f"{plan.samples} samples")
        print(f"wrote {out}: {shape} of {WIDTH} bits from {doc['device']}"
              f"{' (conditioned)' if doc['conditioned'] else ' (raw)'}, sha256 "
              f"{doc['sha256']}; record {out}.json")
        hint = (f"etg cert entropy --restart {out} --bits-per-symbol {WIDTH} --h-initial H"
                if plan.restarts else f"etg cert entropy {out} --bits-per-symbol {WIDTH}")
        print(f"assess: {hint}")
    return 0
