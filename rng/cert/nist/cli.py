"""``etg cert bits``: its options and what it prints (registered by :mod:`rng.cert.cli`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from etgcore.errors import UserError, output_dir
from etgcore.options import add_json, add_out, add_progress, count, print_json

#: the parameters a lab may change, as ``assess`` lets it: (option, field, help)
PARAMETERS = (
    ("--block-frequency-m", "block_frequency_m", "block frequency block length M (128)"),
    ("--template-m", "template_m", "non-overlapping template length m (9: 148 templates)"),
    ("--overlapping-m", "overlapping_m", "overlapping template length m (9)"),
    ("--apen-m", "apen_m", "approximate entropy block length m (10)"),
    ("--serial-m", "serial_m", "serial block length m (16)"),
    ("--linear-m", "linear_m", "linear complexity block length M (500)"),
)


def register(csub: Any, common: argparse.ArgumentParser) -> None:
    from lab.options import add_cluster_options

    p = csub.add_parser(
        "bits", parents=[common], help="all 15 NIST SP 800-22 tests on any bit source",
        description="NIST SP 800-22 Rev. 1a, all fifteen tests, on M sequences of N bits "
        "read from FILE (- for standard input), with the second-level analysis (proportion "
        "passing, uniformity of P-values) over the sequences. P-values equal NIST's "
        "reference implementation (sts 2.1.2). Exit 0 when the source passes, 1 when it "
        "fails, 2 for bad input. See docs/cert.md.")
    p.add_argument("file", metavar="FILE", help="the bits: a file, or - for standard input")
    p.add_argument("--format", choices=["ascii", "binary"], default=None,
                   help="ascii: the characters 0 and 1, whitespace ignored (NIST's sample "
                   "files); binary: bytes, most significant bit first (default: ascii for a "
                   "file of only 0, 1 and whitespace, else binary; binary for -)")
    p.add_argument("--length", type=count, default=1_000_000, metavar="N",
                   help="bits per sequence (default 10^6, the standard's recommendation)")
    p.add_argument("--streams", type=count, metavar="M",
                   help="sequences to test (default: every whole sequence FILE holds; "
                   "required with -)")
    p.add_argument("--skip", metavar="TEST,...", default="",
                   help="leave tests out (names as `--skip universal,rank`, NIST's names, "
                   "or assess's numbers 1-15)")
    for option, _field, text in PARAMETERS:
        p.add_argument(option, type=count, metavar="K", help=text)
    p.add_argument("--rule", choices=["holm", "nist"], default="holm",
                   help="the verdict: holm (default; family-wise 1%%) or nist (assess's flags "
                   "taken literally)")
    add_out(p, "also write report.html, report.md and results.json here")
    add_json(p, "one JSON object: verdict, every P-value of every sequence with its test "
             "and parameters, the second-level figures")
    add_progress(p)
    add_cluster_options(p)
    p.set_defaults(func=_bits)


def chosen_tests(skip: str) -> tuple[str, ...]:
    from rng.cert.nist.suite import KEYS, NAMES

    aliases = {k: k for k in KEYS}
    aliases.update({NAMES[k].lower(): k for k in KEYS})
    aliases.update({str(i + 1): k for i, k in enumerate(KEYS)})
    aliases.update({k.replace("-", "_"): k for k in KEYS})
    left = set(KEYS)
    for word in (w.strip().lower() for w in skip.split(",")):
        if not word:
            continue
        if word not in aliases:
            raise UserError(f"--skip: {word!r} is not a test (one of {', '.join(KEYS)})")
        left.discard(aliases[word])
    if not left:
        raise UserError("--skip leaves no test to run")
    return tuple(k for k in KEYS if k in left)


def _bits(args: argparse.Namespace) -> int:
    from rng.cert.nist import bits_report
    from rng.cert.nist.bits_run import BitsOptions, run_bits
    from rng.cert.nist.suite import SuiteParams

    given = {f: getattr(args, o[2:].replace("-", "_")) for o, f, _ in PARAMETERS}
    params = SuiteParams(args.length, tests=chosen_tests(args.skip),
                         **{k: v for k, v in given.items() if v is not None})
    out = output_dir(args.out) if args.out is not None else None
    from rng.cert.nist.source import detect_format

    fmt = args.format or detect_format(args.file)
    opts = BitsOptions(args.file, fmt, params, args.streams, args.jobs,
                       args.scheduler, args.checkpoint, args.progress, args.rule,
                       "etg " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "etg cert bits")
    run = run_bits(opts)
    _identify(run, args)
    if out is not None:
        bits_report.write(run, out)
    if args.json:
        print_json(bits_report.to_json(run))
    else:
        _print(run)
        if out is not None:
            print(f"wrote {out / 'report.md'} (report.html, results.json and "
                  "program-files.txt beside it)")
    return 0 if run.verdict.passed else 1


def _identify(run: Any, args: argparse.Namespace) -> None:
    """The software that computed the run, as `etg cert run` names it: the version and
    the program hash over the release's file set (each file's SHA-256 in
    program-files.txt), so a lab ties these P-values to a release."""
    from etgcore.cli_context import context
    from rng.cert.meta import program_hash

    ctx = context(args)
    files, kind = ctx.program_files()
    run.program_files = files
    run.software = {"version": f"etg {ctx.version}", "program_hash": program_hash(files),
                    "program_files": str(len(files)), "file_set": kind}


def _print(run: Any) -> None:
    from rng.cert.stats import fmt_p

    for s in run.summaries:
        if run.streams == 1:
            p = "n/a" if s.first_level is None else fmt_p(s.first_level)
            word = "n/a" if s.first_level is None else "pass" if s.first_level >= 0.01 else "low"
            print(f"{word:5} p={p:>11}  {s.column.title}")
        else:
            uni = "----" if s.uniformity is None else f"{s.uniformity:.6f}"
            flag = " *" if s.proportion_flag or s.uniformity_flag else ""
            print(f"{s.passed:>6}/{s.tested:<6} uniformity {uni:>8}{flag:2}  {s.column.title}")
    print(run.verdict.text)
