"""`etg rng`: known-answer tests, self-test, raw stream and scaled draws for the lab."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from etgcore.cli_context import context
from etgcore.errors import UserError, output_file
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
from etgcore.progress import progress_for

_PIPE_BYTES = 1 << 20  # the pipe size `etg rng stream` asks for


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "rng",
        help="the certified RNG: KATs, self-test, raw stream, scaled draws",
        description="SP 800-90A DRBG of the table: known-answer tests, power-up self-test, "
        "raw output for statistical batteries and scaled outcomes (see docs/rng.md).",
        parents=[common],
    )
    rsub = p.add_subparsers(dest="rng_command", metavar="ACTION")
    rsub.required = True

    kat = rsub.add_parser(
        "kat", parents=[common], help="run NIST CAVP known-answer vectors",
        description="Run every case of every group we implement from CAVP .rsp files "
        "(default: the vectors shipped in the package); list skipped groups; end with "
        "'N passed, M failed'. Exit 0 only when nothing failed.",
    )
    kat.add_argument("--vectors", metavar="FILE.rsp", nargs="+", type=Path,
                     help="vector files to run instead of the shipped ones")
    kat.add_argument("--quiet", action="store_true", help="print only skips, failures, total")
    add_json(kat, "one JSON object: ok, passed, failed, every group with its status")
    kat.set_defaults(func=_kat)

    st = rsub.add_parser(
        "selftest", parents=[common], help="run the power-up self-test",
        description="The power-up self-test of the configured mechanism (or --all), "
        "then open the configured entropy source (start-up health tests).",
    )
    st.add_argument("--all", action="store_true", help="test every mechanism")
    add_json(st, "one JSON object: ok and every check (mechanism, name, ok, detail)")
    st.set_defaults(func=_selftest)

    stream = rsub.add_parser(
        "stream", parents=[common], help="write raw DRBG output to stdout",
        description="Raw output of the configured DRBG on stdout, for dieharder, ent, "
        "rngtest: `etg rng stream | dieharder -g 200 -a`. Without --bytes it runs until "
        "the reader closes the pipe, then exits 0.",
    )
    stream.add_argument("--bytes", type=count, metavar="N", help="stop after N bytes")
    add_out(stream, "file to write (default: stdout)", metavar="FILE", type=Path)
    _seed_option(stream)
    stream.set_defaults(func=_stream)

    draws = rsub.add_parser(
        "draws", parents=[common], help="write scaled outcomes (targets, cards, shoes)",
        description="Scaled outcomes from the configured DRBG: csv has one outcome per line "
        "(cards as codes like TD; shuffle: one shoe per line, codes comma-separated); bin "
        "has one byte per outcome (value, or card index 0..51 in A..K of S, H, D, C).",
    )
    draws.add_argument("--what", required=True, choices=["target", "multiplier", "card",
                                                         "shuffle"])
    draws.add_argument("--draws", type=count, metavar="N",
                       help="how many outcomes (shoes, for --what shuffle): 1000000, 1e6, 10^6")
    draws.add_argument("--n", dest="draws", type=count, default=argparse.SUPPRESS,
                       help=argparse.SUPPRESS)
    draws.add_argument("--format", default="csv", choices=["csv", "bin"])
    draws.add_argument("--weights", metavar="V:W,...",
                       help="weight table for target/multiplier, e.g. 2:50,5:30,10:12 "
                       "(default: the Bingo Rules Submission, firmware/rules/bingo.toml)")
    add_decks(draws, "decks per shoe for --what shuffle")
    draws.add_argument("--spanish", action="store_true",
                       help="48-card decks, no tens (default: when the game is spanish21)")
    add_out(draws, "file to write (default: stdout)", metavar="FILE", type=Path,
            aliases=("--output", "-o"))
    _seed_option(draws)
    add_progress(draws)
    draws.set_defaults(func=_draws)

    from rng.capture_cli import register as register_capture

    register_capture(rsub, common)


def _seed_option(p: argparse.ArgumentParser) -> None:
    add_seed(p, "bench only: fixed seed (hex) for a reproducible run; refused in "
             "production mode")


def _open(args: argparse.Namespace) -> Any:
    """The table RNG of the configuration, without cycling, honouring a bench seed."""
    from rng import RngUnavailable, open_table_rng
    cfg = context(args).load_config(args)
    settings = cfg.rng
    seed = getattr(args, "seed", None)
    if seed is not None:
        if not cfg.bench:
            raise UserError(
                "--seed is a bench power; production mode (table.mode = production) "
                "refuses it"
            )
        settings = dataclasses.replace(settings, seed_hex=seed)
    settings = dataclasses.replace(settings, cycle_hz=0.0)
    try:
        return open_table_rng(settings, bench=cfg.bench)
    except RngUnavailable as exc:
        raise UserError(exc.cause) from None


def _kat_groups(path: Path) -> list[dict[str, Any]]:
    """Every group of one CAVP file: pass, fail or skip (a mechanism we do not implement)."""
    from rng.cavp import run_file

    try:
        results = list(run_file(path))
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not a CAVP .rsp file: {exc}") from None
    if not results:
        raise UserError(f"{path}: not a CAVP .rsp file: no test group in it")
    label = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    out = []
    for r in results:
        g: dict[str, Any] = {"file": label, "group": r.group.title,
                             "cases": len(r.group.cases)}
        if r.mechanism is None:
            g.update(status="skip", reason=r.skip_reason)
        else:
            g.update(status="fail" if r.failed else "pass", mechanism=r.mechanism,
                     passed=r.passed, failed=r.failed,
                     failed_counts=list(r.failed_counts) if r.failed else [])
        out.append(g)
    return out


def _kat(args: argparse.Namespace) -> int:
    from rng.cavp import shipped_vectors

    groups = [g for path in (args.vectors or shipped_vectors()) for g in _kat_groups(path)]
    passed = sum(g.get("passed", 0) for g in groups)
    failed = sum(g.get("failed", 0) for g in groups)
    skipped = sum(g["status"] == "skip" for g in groups)
    ok = failed == 0 and passed > 0
    if args.json:
        print_json({"ok": ok, "passed": passed, "failed": failed, "skipped_groups": skipped,
                    "groups": groups})
        return 0 if ok else 1
    quiet_skips: dict[tuple[str, str], int] = {}
    for g in groups:
        if g["status"] == "skip":
            if args.quiet:
                key = (g["file"], g["reason"])
                quiet_skips[key] = quiet_skips.get(key, 0) + 1
            else:
                print(f"SKIP  {g['file']} {g['group']} ({g['cases']} cases): {g['reason']}")
        elif g["failed"]:
            print(f"FAIL  {g['file']} {g['group']}: {g['failed']} of "
                  f"{g['passed'] + g['failed']} cases failed (COUNT {g['failed_counts']})")
        elif not args.quiet:
            print(f"PASS  {g['file']} {g['group']}: {g['passed']} cases")
    for (label, reason), n in quiet_skips.items():
        print(f"SKIP  {label}: {n} groups: {reason}")
    if skipped:
        print(f"skipped {skipped} groups (mechanisms not implemented)")
    print(f"{passed} passed, {failed} failed")
    return 0 if ok else 1


def _selftest(args: argparse.Namespace) -> int:
    from rng.claim import claim_for
    from rng.entropy import open_source, resolve
    from rng.errors import RngError
    from rng.mechanisms import MECHANISMS
    from rng.selftest import Check, power_up_selftest

    cfg = context(args).load_config(args)
    mechs = list(MECHANISMS) if args.all else [cfg.rng.mechanism]
    checks = [(mech, check) for mech in mechs for check in power_up_selftest(mech)]
    try:
        source = open_source(cfg.rng.entropy, claim=claim_for(
            resolve(cfg.rng.entropy), cfg.rng.assessment or None))
        source.get_entropy(48)
        claim = getattr(source, "claim", None)
        checks.append(("", Check(f"entropy source {source.name}", True,
                                 "start-up health tests passed"
                                 + (f"; {claim.describe()}" if claim else ""))))
    except RngError as exc:
        checks.append(("", Check(f"entropy source {cfg.rng.entropy}", False, str(exc))))
    ok = all(c.ok for _, c in checks)
    if args.json:
        print_json({"ok": ok, "checks": [
            {"mechanism": m or None, "name": c.name, "ok": c.ok, "detail": c.detail}
            for m, c in checks]})
    else:
        for _, check in checks:
            print(check.line())
        print("self-test passed" if ok else "self-test FAILED: the RNG is unavailable")
    return 0 if ok else 1


def _quiet_exit() -> int:
    """The reader closed the pipe: silence stdout so Python's exit flush cannot complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


def _grow_pipe(fd: int) -> None:
    """Let a pipe on ``fd`` hold 1 MiB (Linux; 64 KiB by default): the reader then takes
    16 requests per read, and the two processes switch 16 times less often."""
    import fcntl

    with contextlib.suppress(OSError, AttributeError):  # not a pipe, not Linux, capped
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def _stdout_fd() -> int | None:
    """Standard output's descriptor (its pipe grown), or None where it is not a file
    (captured in-process)."""
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is OSError
        return None
    _grow_pipe(fd)
    return fd


def _stream(args: argparse.Namespace) -> int:
    """Raw DRBG output: generated straight into pages lent to a pipe, or into shared
    slots written by a second process (rng.stream); no copy in Python, no buffering."""
    from rng.stream import SLOT_BYTES, stream_to_fd

    out = output_file(args.out) if args.out else None
    try:
        sink = open(out, "wb") if out else None  # noqa: SIM115
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write: {exc.strerror or exc}") from None
    try:
        fd = sink.fileno() if sink is not None else _stdout_fd()
        if fd is not None:
            stream_to_fd(lambda: _open(args), fd, args.bytes)
            if out:  # (to stdout the bytes are the output: nothing else is printed)
                print(f"wrote {out} ({args.bytes:,} bytes)")
            return 0
        rng = _open(args)  # standard output captured in-process: its binary stream
        try:
            buf = memoryview(bytearray(SLOT_BYTES))
            left = args.bytes
            while left is None or left > 0:
                n = SLOT_BYTES if left is None else min(left, SLOT_BYTES)
                rng.stream_into(buf[:n])
                sys.stdout.buffer.write(buf[:n])
                if left is not None:
                    left -= n
            sys.stdout.buffer.flush()
        finally:
            rng.close()
    except BrokenPipeError:
        return _quiet_exit()
    finally:
        if sink is not None:
            sink.close()
    return 0


def _draws(args: argparse.Namespace) -> int:
    from rng.lab import bingo_weights, outcomes, parse_weights, render

    if args.draws is None:
        raise UserError("--draws N is required: how many outcomes to write")
    cfg = context(args).load_config(args)
    weights = None
    if args.what in ("target", "multiplier"):
        if args.weights:
            weights = parse_weights(args.weights)
            _bingo_values(args.what, weights)
        else:
            weights = bingo_weights(args.what, cfg.rules, context(args).rules_file("bingo"))
    elif args.weights:
        raise UserError("--weights applies to --what target or multiplier only")
    decks = configured_decks(args, cfg, args.decks)
    spanish = args.spanish or cfg.table.variant == "spanish21"
    out = output_file(args.out) if args.out else None
    rng = _open(args)
    try:
        sink: BinaryIO = open(out, "wb") if out else sys.stdout.buffer  # noqa: SIM115
    except OSError as exc:
        rng.close()
        raise UserError(f"--out {out}: cannot write: {exc.strerror or exc}") from None
    try:
        with progress_for(args.progress, args.draws,
                          "shoes" if args.what == "shuffle" else args.what + "s", "rng draws",
                          long=args.what == "shuffle" and args.draws >= 2000) as bar:
            for batch in outcomes(rng.random_bytes, args.what, args.draws, weights=weights,
                                  decks=decks, spanish=spanish):
                sink.write(render(batch, args.what, args.format, spanish=spanish))
                bar.advance(len(batch))
        sink.flush()
    except BrokenPipeError:
        return _quiet_exit()
    finally:
        rng.close()
        if out:
            sink.close()
    if out:
        unit = "shoes" if args.what == "shuffle" else args.what + "s"
        print(f"wrote {out} ({args.draws:,} {unit}, {args.format})")
    return 0


def _bingo_values(what: str, weights: dict[int, int]) -> None:
    """Every value of a --weights table must be a Bingo target (12-21) or multiplier
    (2, 5, 10, 25, 50, 100) of § 633b.28(e): a draw of anything else could never happen."""
    from rng.cert.tables import MULTIPLIERS, TARGETS

    allowed = TARGETS if what == "target" else MULTIPLIERS
    extra = sorted(set(weights) - set(allowed))
    if extra:
        raise UserError(f"--weights: {extra[0]} is not a Bingo {what} (allowed: "
                        f"{', '.join(map(str, allowed))})")
