"""``etg cert entropy``: SP 800-90B entropy assessment (registered by :mod:`rng.cert.cli`)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from etgcore.options import add_json, add_progress, print_json


def _bits(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 1 to 8, got {text!r}") from None
    if not 1 <= v <= 8:
        raise argparse.ArgumentTypeError(f"expected 1 to 8, got {v}")
    return v


def _entropy(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected bits per sample, got {text!r}") from None
    if not 0 < v <= 8:
        raise argparse.ArgumentTypeError(f"expected more than 0 and at most 8, got {v}")
    return v


def register(csub: Any, common: argparse.ArgumentParser) -> None:
    from lab.options import add_cluster_options

    p = csub.add_parser(
        "entropy", parents=[common], help="SP 800-90B min-entropy of raw noise samples",
        description="NIST SP 800-90B entropy assessment of a file of raw samples (one "
        "sample per byte, its low N bits): the non-IID track (default; section 6.3's ten "
        "estimators on the samples and on their bitstring), the IID track (--iid: the "
        "permutation, chi-square and LRS tests, then the most common value estimate), or "
        "the restart tests (--restart). Figures equal NIST's reference tools (ea_non_iid, "
        "ea_iid, ea_restart). Exit 0 when assessed (IID: when the IID assumption holds; "
        "restart: when the tests pass), 1 when not, 2 for bad input. See docs/cert.md.")
    p.add_argument("file", nargs="*", type=Path, metavar="FILE",
                   help="samples file(s); several are assessed one by one (on --jobs "
                   "workers)")
    p.add_argument("--bits-per-symbol", type=_bits, metavar="N",
                   help="sample width, 1 to 8 (default: the highest bit set in the data)")
    p.add_argument("--iid", action="store_true", help="the IID track instead of non-IID")
    p.add_argument("--restart", type=Path, metavar="FILE",
                   help="the restart tests on FILE: 1000 restarts x 1000 samples, restart "
                   "after restart (etg rng capture --restarts 1000 --samples 1000)")
    p.add_argument("--h-initial", type=_entropy, metavar="H",
                   help="with --restart: the initial entropy estimate H_I per sample "
                   "(the assessed min-entropy of the sequential file)")
    p.add_argument("--truncate-bitstring", action="store_true",
                   help="the bitstring's estimators on its first 10^6 bits only (the "
                   "reference's -t); default all bits (-a)")
    p.add_argument("--out", type=Path, metavar="ASSESSMENT.json",
                   help="write the assessment file the table's claim is read from "
                   "([rng] assessment): the claim (source, width, min-entropy) and this "
                   "run's JSON; with --restart, add the restart tests to that file")
    p.add_argument("--source", choices=["hwrng", "os"],
                   help="with --out: the noise source the samples came from")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="every intermediate value (the reference's -vv lines)")
    add_json(p, "the reference tool's JSON document (-o) on stdout")
    add_progress(p)
    add_cluster_options(p, jobs_default=1)
    p.set_defaults(func=_run)


def _command() -> str:
    return "etg " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "etg cert entropy"


def _run(args: argparse.Namespace) -> int:
    from etgcore.cli_context import context

    version = context(args).version
    if args.restart is not None:
        if args.file:
            raise UserError("--restart takes its file as its value; give no other FILE")
        return _restart(args, version)
    if args.h_initial is not None:
        raise UserError("--h-initial applies to --restart only")
    if not args.file:
        raise UserError("name a samples FILE (or --restart FILE)")
    if args.out is not None and args.source is None:
        raise UserError("--out needs --source hwrng|os (the source the samples came from)")
    if len(args.file) > 1:
        from rng.cert.sp80090b.many import run_many

        if args.out is not None:
            raise UserError("--out writes one assessment: give one FILE")
        return run_many(args, version, _command())
    if args.iid:
        return _iid(args, version)
    return _noniid(args, version)


def _noniid(args: argparse.Namespace, version: str) -> int:
    from etgcore.progress import progress_for
    from rng.cert.sp80090b import noniid, report, samples

    path = args.file[0]
    s = samples.read(path, args.bits_per_symbol)
    prog = progress_for(args.progress, noniid.steps_for(s), "estimators",
                        "SP 800-90B non-IID", long=s.n >= 200_000)
    try:
        a = noniid.assess(s, step=lambda _w: prog.update(1),
                          bitstring_limit=1_000_000 if args.truncate_bitstring else None)
    finally:
        prog.close()
    doc = report.header(path, _command(), version, iid=False)
    doc["testCases"] = noniid.test_cases(a)
    if args.out is not None:
        from rng.cert.sp80090b.assessment_file import write_sequential

        write_sequential(args.out, doc, source=args.source, bits=s.bits, h=a.h_assessed,
                         track="non-IID", samples=s.n)
    if args.json:
        print_json(doc)
    else:
        for line in report.text(a, verbose=args.verbose):
            print(line)
    return 0


def _iid(args: argparse.Namespace, version: str) -> int:
    """The IID track: exit 0 when the IID assumption holds, 1 when it does not."""
    from etgcore.progress import progress_for
    from rng.cert.sp80090b import iid, iid_report, report, samples

    if args.truncate_bitstring:
        raise UserError("--truncate-bitstring applies to the non-IID track only")
    path = args.file[0]
    s = samples.read(path, args.bits_per_symbol)
    prog = progress_for(args.progress, iid.PERMUTATIONS, "shuffles",
                        "SP 800-90B IID permutation tests", long=s.n >= 100_000)
    done = 0

    def step(n: int) -> None:
        nonlocal done
        prog.update(n - done)
        done = n

    try:
        a = iid.assess(s, step=step)
    finally:
        prog.close()
    doc = report.header(path, _command(), version, iid=True)
    doc["testCases"] = [iid.test_case(a)]
    if args.out is not None and a.iid:
        from rng.cert.sp80090b.assessment_file import write_sequential

        write_sequential(args.out, doc, source=args.source, bits=s.bits, h=a.h_assessed,
                         track="IID", samples=s.n)
    if args.json:
        print_json(doc)
    else:
        for line in iid_report.text(a, verbose=args.verbose):
            print(line)
        if args.out is not None and not a.iid:
            print(f"not IID: no IID claim can be made, {args.out} not written (assess "
                  "with the non-IID track, without --iid)")
    return 0 if a.iid else 1


def _restart(args: argparse.Namespace, version: str) -> int:
    """The restart tests: exit 0 when the sanity check and the validation pass, else 1."""
    from etgcore.progress import progress_for
    from rng.cert.sp80090b import report, restart, samples

    if args.out is not None:
        from rng.cert.sp80090b.assessment_file import restart_h_initial

        args.h_initial = restart_h_initial(args.out, args.h_initial)
    if args.h_initial is None:
        raise UserError("--restart needs --h-initial H (the sequential file's assessed "
                        "min-entropy per sample)")
    if args.truncate_bitstring:
        raise UserError("--truncate-bitstring applies to the non-IID track only")
    path = args.restart
    s = samples.read(path, args.bits_per_symbol)
    restart.check_shape(s, args.h_initial)
    prog = progress_for(args.progress, restart.steps_for(s, args.iid), "estimators",
                        "SP 800-90B restart tests")
    try:
        a = restart.assess(s, args.h_initial, iid=args.iid, step=lambda _w: prog.update(1))
    finally:
        prog.close()
    doc = report.header(path, _command(), version, iid=args.iid, kind="Restart")
    # the reference writes null when the sanity check stopped it before any estimate
    # (and, with --iid, when the validation failed: its IID run has no case then)
    doc["testCases"] = (restart.test_cases(a) if a.sanity_passed else []) or None
    if not a.passed:
        doc["errorLevel"] = -1
        doc["errorMessage"] = ("Restart Sanity Check Failed." if not a.sanity_passed else
                               "min(H_r, H_c) < H_I/2, Validation Testing Failed.")
    if args.out is not None:
        from rng.cert.sp80090b.assessment_file import add_restart

        add_restart(args.out, doc, a)
    if args.json:
        print_json(doc)
    else:
        for line in report.restart_text(a):
            print(line)
        if args.out is not None:
            print(f"wrote the restart tests into {args.out}"
                  + ("" if a.passed else ": FAILED, the claim no longer stands"))
    return 0 if a.passed else 1


def load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not a JSON document ({exc})") from None
