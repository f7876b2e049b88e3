"""`etg cert`: certification runs and outcome-file analysis for the RNG lab."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from etgcore.cli_context import context
from etgcore.errors import UserError, output_dir
from etgcore.options import (
    add_decks,
    add_json,
    add_out,
    add_progress,
    add_seed,
    configured_decks,
    count,
    print_json,
)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    from lab.options import add_cluster_options

    p = sub.add_parser(
        "cert", parents=[common], help="RNG certification lab: battery, runs, reports",
        description="Statistical certification of the RNG: a whole run with report "
        "(`run`) or the battery on a captured draw file (`analyze`). See docs/cert.md.")
    csub = p.add_subparsers(dest="cert_command", metavar="ACTION")
    csub.required = True

    run = csub.add_parser(
        "run", parents=[common], help="a whole certification run with its report",
        description="Power-up KATs; N Bingo draws, N card draws and full-shoe shuffles "
        "through the table's scaling code; the battery on each; a raw stream for the lab, "
        "with all 15 NIST SP 800-22 tests on its sequences of 10^6 bits; dieharder when "
        "installed; a report (HTML, Markdown, PNG) in DIR. Exit 0 when "
        "every test passes at the 99% level after Holm's correction, 1 otherwise.")
    run.add_argument("--draws", type=count, required=True, metavar="N",
                     help="Bingo draws and card draws (each): 1000000, 1e6 or 10^6")
    add_out(run, "report directory (created when missing)", required=True, type=Path)
    run.add_argument("--stream-bytes", type=count, default=10 << 20, metavar="B",
                     help="raw DRBG bytes to write and test (default 10 MiB)")
    run.add_argument("--shoes", type=count, metavar="S",
                     help="shoes to shuffle (default max(520, N/100), at most 20000)")
    add_decks(run)
    run.add_argument("--spanish", action="store_true",
                     help="48-card decks, no tens (default: when the game is spanish21)")
    add_seed(run, "bench only: fixed seed (hex) for a reproducible run; refused in "
             "production mode")
    run.add_argument("--scaling", choices=["table", "batch"], default="table",
                     help="table: the table's own draw calls (default); batch: the "
                     "vectorized etg rng draws path, for very large N")
    run.add_argument("--dieharder", nargs="?", const="all", default="quick",
                     metavar="quick|all|none|T,T,..",
                     help="dieharder on the live DRBG stream when installed: --dieharder "
                     "alone runs its whole battery (-a); default quick")
    run.add_argument("--target-weights", metavar="V:W,...",
                     help="Bingo target weights (default: the Rules Submission)")
    run.add_argument("--multiplier-weights", metavar="V:W,...",
                     help="Bingo multiplier weights (default: the Rules Submission)")
    add_progress(run)
    add_cluster_options(run)
    run.set_defaults(func=_run)

    an = csub.add_parser(
        "analyze", parents=[common], help="the battery on a draw file",
        description="The battery on a file of outcomes in the `etg rng draws --format csv` "
        "format (one outcome per line, cards as TD; shuffles one shoe per line). Exit 0 "
        "when every test passes at the 99% level after Holm's correction, 1 when one "
        "fails, 2 for a bad file.")
    an.add_argument("file", type=Path, metavar="FILE")
    an.add_argument("--what", required=True, choices=["target", "multiplier", "card",
                                                      "shuffle"])
    an.add_argument("--weights", metavar="V:W,...",
                    help="weights for target/multiplier (default: the Rules Submission)")
    an.add_argument("--pair", type=Path, metavar="FILE",
                    help="with --what target: the multipliers drawn with them, line by line "
                    "(adds the independence test); with --what multiplier: the targets")
    an.add_argument("--pair-weights", metavar="V:W,...", help="weights of the --pair file")
    an.add_argument("--spanish", action="store_true", help="cards from 48-card decks")
    add_out(an, "also write a full report here (created when missing)", type=Path)
    add_progress(an)
    add_json(an, "one JSON object: verdict, every test with statistic and p-value, the "
             "second-level figures (as the report's results.json)")
    an.set_defaults(func=_analyze)

    from rng.cert.nist.cli import register as register_bits

    register_bits(csub, common)

    from rng.cert.sp80090b.cli import register as register_entropy

    register_entropy(csub, common)


def _dieharder_tests(text: str) -> tuple[bool, tuple[int, ...] | None]:
    from rng.cert.dieharder import QUICK_TESTS

    t = text.strip().lower()
    if t == "none":
        return False, ()
    if t == "all":
        return True, None
    if t == "quick":
        return True, QUICK_TESTS
    try:
        return True, tuple(int(x) for x in t.split(",") if x.strip())
    except ValueError:
        raise UserError(f"--dieharder: expected quick, all, none or test numbers, got "
                        f"{text!r}") from None


def _tables(args: argparse.Namespace, cfg: Any) -> Any:
    from rng.cert.tables import configured_bingo_tables, parse_weights

    if args.target_weights or args.multiplier_weights:
        if not (args.target_weights and args.multiplier_weights):
            raise UserError("give both --target-weights and --multiplier-weights")
        return (parse_weights("target", args.target_weights),
                parse_weights("multiplier", args.multiplier_weights))
    tables = configured_bingo_tables(context(args).rules_file("bingo"), cfg.rules)
    if tables is None:
        raise UserError("no Bingo weights: firmware/rules/bingo.toml is missing; pass "
                        "--target-weights and --multiplier-weights")
    return tables


def _run(args: argparse.Namespace) -> int:
    from rng.cert.run import RunOptions, certification_run

    cfg = context(args).load_config(args)
    if args.seed and not cfg.bench:
        raise UserError("--seed is a bench power; production mode (table.mode = "
                        "production) refuses it")
    use_dh, tests = _dieharder_tests(args.dieharder)
    opts = RunOptions(
        draws=args.draws, out=args.out, stream_bytes=args.stream_bytes, shoes=args.shoes,
        decks=configured_decks(args, cfg, args.decks),
        spanish=args.spanish or cfg.table.variant == "spanish21", seed_hex=args.seed,
        scaling=args.scaling, dieharder_tests=tests, run_dieharder=use_dh,
        progress=args.progress, command="etg " + shlex.join(sys.argv[1:]) if sys.argv[1:]
        else "etg cert run", jobs=args.jobs, scheduler=args.scheduler,
        checkpoint=args.checkpoint)
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    tables = _tables(args, cfg)
    output_dir(args.out)  # last: a refused run leaves nothing behind
    rep = certification_run(cfg, opts, context(args), tables=tables)
    _print_summary(rep)
    print(f"wrote {args.out / 'report.html'} and {args.out / 'report.md'} (the report)")
    return 0 if rep.passed else 1


def _analyze(args: argparse.Namespace) -> int:
    from rng.cert import report as report_mod
    from rng.cert.analyze import analyze_outcomes, analyze_report, analyze_shoes
    from rng.cert.tables import card_table

    if not args.file.is_file():
        raise UserError(f"{args.file}: no such file")
    if args.out is not None:
        output_dir(args.out)
    if args.what == "shuffle":
        if args.weights or args.pair:
            raise UserError("--weights and --pair do not apply to --what shuffle")
        sections: Any = analyze_shoes(args.file, out_dir=args.out, progress=args.progress)
    elif args.what == "card":
        if args.weights or args.pair:
            raise UserError("--weights and --pair do not apply to --what card (uniform)")
        sections = analyze_outcomes(args.file, card_table(spanish=args.spanish),
                                    out_dir=args.out, progress=args.progress)
    else:
        table = _bingo_table(args, args.what, args.weights)
        pair = None
        if args.pair is not None:
            other = "multiplier" if args.what == "target" else "target"
            if not args.pair.is_file():
                raise UserError(f"{args.pair}: no such file")
            pair = (args.pair, _bingo_table(args, other, args.pair_weights))
        if pair is not None and args.what == "multiplier":
            sections = analyze_outcomes(pair[0], pair[1], pair=(args.file, table),
                                        out_dir=args.out, progress=args.progress)
        else:
            sections = analyze_outcomes(args.file, table, pair=pair, out_dir=args.out,
                                        progress=args.progress)
    rep = analyze_report(args.file, args.what, sections, "etg " + shlex.join(sys.argv[1:]),
                         context(args).version)
    if args.out is not None:
        report_mod.write(rep, args.out)
    if args.json:
        print_json(report_mod.to_json(rep))
        return 0 if rep.passed else 1
    _print_summary(rep)
    if args.out is not None:
        print(f"wrote {args.out / 'report.html'} and {args.out / 'report.md'} (the report)")
    return 0 if rep.passed else 1


def _bingo_table(args: argparse.Namespace, kind: str, weights: str | None) -> Any:
    from rng.cert.tables import configured_bingo_tables, parse_weights

    if weights:
        return parse_weights(kind, weights)
    ctx = context(args)
    tables = configured_bingo_tables(ctx.rules_file("bingo"), ctx.load_config(args).rules)
    if tables is None:
        raise UserError(f"no {kind} weights: firmware/rules/bingo.toml is missing; pass "
                        "--weights VALUE:WEIGHT,...")
    return tables[0] if kind == "target" else tables[1]


def _print_summary(rep: Any) -> None:
    from rng.cert.stats import fmt_p

    v = rep.verdict or rep.judge()
    for line in rep.selftest_failed:  # a worker's too (its lines start with its name)
        print(line)
    for r in v.results:
        print(f"{r.verdict:12} p={fmt_p(r.p_value) if r.applicable else 'n/a':>11}  "
              f"{r.subject}: {r.name}")
    word = "PASS" if rep.passed else "FAIL"
    print(f"{word}: {v.m} tests, {v.raw_failures} below 0.01 (expected "
          f"{v.expected_failures:.2f}), {len(v.rejected)} rejected by Holm at family-wise 1%"
          + ("" if rep.selftest_ok else "; power-up self-test FAILED"))
