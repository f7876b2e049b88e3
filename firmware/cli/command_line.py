"""`etg`: the one command line of the firmware.

Subcommands are listed in one place, :data:`COMMANDS`: each entry names a module that
exposes ``register(subparsers, common)``, which adds its parser(s) and sets ``func`` (a
callable taking the parsed namespace and returning an exit code). Modules keep their heavy
imports (pygame, numpy) inside the functions, so ``etg --help`` stays fast.

This module composes; the commands never import it back. What they need of it (the
configuration loader, the version, the program's identity) reaches them as the
:class:`~etgcore.cli_context.CommandContext` in every parsed namespace
(:func:`etgcore.cli_context.context`).

Bad input never shows a traceback: :class:`~etgcore.errors.UserError` prints one line and
exits 2, as do argparse errors; anything else is a bug, shown as one line with a hint to
rerun with ``--debug`` for the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from etgcore.cli_context import CONTEXT_ATTR, CommandContext
from etgcore.errors import EtgError, exit_code
from firmware import __version__
from firmware.cli.logsetup import setup_logging, wants_json

#: (name, module) of every subcommand family, in the order `etg --help` lists them.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("run", "firmware.cli.run"),  # also `etg credits`
    ("recall", "firmware.cli.audit"),  # also `etg meters`, `etg events`, `etg audit`
    ("journal", "firmware.cli.journal"),
    ("config", "firmware.cli.config"),
    ("bench", "firmware.cli.bench"),
    ("shoe", "drivers.shoe.cli"),
    ("sas", "drivers.sas.cli"),
    ("panel", "drivers.panel.cli"),
    ("rng", "rng.cli"),
    ("cert", "rng.cert.cli"),
    ("release", "deploy.release_cli"),
    ("verify", "deploy.verify_cli"),
    ("strategy", "firmware.cli.strategy"),
    ("par", "firmware.cli.par"),
    ("rtp", "firmware.cli.rtp"),
    ("ui", "firmware.cli.ui"),
    ("floor", "firmware.cli.floor"),
    ("completion", "firmware.cli.completion"),
)

log = logging.getLogger("etg")


#: Where the deepest (sub)command parser that took part in a parse records its name, so
#: an unrecognized option is reported by the command it was given to.
_PROG_ATTR = "_etg_prog"


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2, and it names the
    (sub)command that rejected the input."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # What is required is checked here, after the options: argparse checks it first
        # and would call `etg --bogus` a missing COMMAND, the unknown option being the
        # real mistake. (Deciding by the text of argparse's message would be fragile.)
        required = [a for a in self._actions if a.required]
        for a in required:
            a.required = False
        try:
            ns, extras = super().parse_known_args(args, namespace)
        finally:
            for a in required:
                a.required = True
        missing = [a for a in required if getattr(ns, a.dest, None) is None]
        if missing and extras:
            self.fail(f"unrecognized arguments: {' '.join(extras)}")
        if missing:
            names = ", ".join("/".join(a.option_strings) or str(a.metavar or a.dest)
                              for a in missing)
            self.fail(f"the following arguments are required: {names}")
        if not hasattr(ns, _PROG_ATTR):
            setattr(ns, _PROG_ATTR, self.prog)  # the innermost parser finishes first
        return ns, extras

    def error(self, message: str) -> NoReturn:
        self.fail(message)

    def fail(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    """Options every command takes, before or after the subcommand name."""
    default: Any = argparse.SUPPRESS if suppress else None
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("common options")
    g.add_argument(
        "--config",
        metavar="FILE",
        default=default,
        help="table configuration (default: $ETG_CONFIG, else ./table.toml, else built-in)",
    )
    g.add_argument(
        "--set",
        dest="overrides",
        metavar="KEY=VALUE",
        action="append",
        default=default,
        help="override a configuration key, e.g. --set table.variant=bingo (repeatable)",
    )
    g.add_argument(
        "--log-json",
        action="store_true",
        default=default,
        help="log JSON lines to stderr, here and in the processes etg starts ($ETG_LOG_JSON=1)",
    )
    g.add_argument(
        "--log-level",
        default=default,
        choices=["debug", "info", "warning", "error"],
        help="logging threshold (default: info)",
    )
    g.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks of internal errors"
    )
    return p


#: global options that take a value in the next word (for :func:`_family`)
_VALUE_OPTIONS = ("--config", "--set", "--log-level")


def _family(argv: Sequence[str]) -> str | None:
    """The module of the command family the first command word names (``etg run ...``:
    the table's), so only it is imported: the table starts without loading the lab's,
    the bench's or the math's commands. None (import all) for anything else."""
    words = iter(argv)
    for word in words:
        if word in _VALUE_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            return dict(COMMANDS).get(word)
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="etg",
        description="Electronic table game firmware for dealer-assisted blackjack (58 Pa. Code).",
        parents=[_common_options(suppress=False)],
    )
    parser.add_argument("--version", action="version", version=f"etg {__version__}")
    parser.set_defaults(overrides=None, log_json=False, log_level=None, debug=False, config=None)
    parser.set_defaults(**{CONTEXT_ATTR: command_context()})
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    common = _common_options(suppress=True)
    only = _family(argv) if argv is not None else None
    for _name, module in COMMANDS:
        if only is None or module == only:
            importlib.import_module(module).register(sub, common)
    return parser


def load_table_config(args: argparse.Namespace) -> Any:
    """The configuration a command runs with: ``--config`` and every ``--set``."""
    from firmware.config import default_config_path, load_config

    path = args.config if args.config else default_config_path()
    return load_config(path, args.overrides or [])


def _rules_file(variant: str) -> Path:
    from firmware.engine.rules import rules_path

    return rules_path(variant)


def _program_files() -> tuple[list[tuple[str, str]], str]:
    """The release this program runs from (the tree holding every program package, as
    the release tooling finds it): each file's digest, and what the set is."""
    from deploy.manifest import installed_root
    from deploy.program import program_digests

    return program_digests(installed_root())


def _config_fingerprint(cfg: Any) -> str:
    from deploy.fingerprint import fingerprint

    return fingerprint(cfg, dict(cfg.rules)).table


def _decks_of(cfg: Any) -> int:
    from firmware.engine.rules import load_rules

    return int(load_rules(cfg.table.variant, dict(cfg.rules), cfg.source).decks)


def command_context() -> CommandContext:
    """What every subcommand receives (each service imported only when it is used)."""
    return CommandContext(
        version=__version__,
        # looked up at call time, so a test may stand in for the loader
        load_config=lambda args: load_table_config(args),
        rules_file=_rules_file,
        program_files=_program_files,
        config_fingerprint=_config_fingerprint,
        decks_of=_decks_of,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:
            # argparse would blame `etg`; the options were given to the subcommand.
            prog = str(getattr(args, _PROG_ATTR, parser.prog))
            OneLineParser(prog=prog).fail(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # --help, --version, or a usage error already reported
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    setup_logging(
        json_lines=wants_json(bool(args.log_json)),
        level=args.log_level or "info",
    )
    try:
        return int(args.func(args) or 0)
    except EtgError as exc:  # raised on purpose: one line, its kind's exit code
        sys.stderr.write(f"etg: error: {exc}\n")
        return exit_code(exc)
    except KeyboardInterrupt:
        sys.stderr.write("etg: interrupted\n")  # Ctrl-C: one line, the shell's 128 + SIGINT
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug, not bad input: one line unless --debug
        if args.debug:
            raise
        if isinstance(exc, OSError) and exc.filename is not None:
            # a path the user gave that the system refuses (exists, missing, not
            # writable): bad input, one line and exit 2 (exit 1 means only what a command
            # documents)
            sys.stderr.write(f"etg: error: {exc.filename}: {exc.strerror or exc}\n")
            return 2
        log.debug("internal error", exc_info=True)
        sys.stderr.write(
            f"etg: internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)\n"
        )
        return 1

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
