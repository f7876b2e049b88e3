"""The one vocabulary of `etg` options (in the leaf core, so every package's command
uses it): each notion has one name, one way to write its
value, one default meaning and one check, whatever command takes it.

- ``--out``: where a command writes (a file or a directory, as the command says);
- ``--seed HEX``: the bytes of a fixed seed, for a run that can be reproduced exactly
  (a bench power where the table's RNG is concerned);
- ``--variant``: one of the games, checked against the list of games
  (:func:`firmware.cli.variant.add_variant`: only the firmware knows the games);
- ``--decks D``: decks per shoe, 1 to 8; by default the decks of the configured game's
  Rules Submission (``table.variant``, ``--set rules.decks=D``);
- counts (``--draws``, ``--rounds``, ``--shoes``, ``--bytes``): a whole number as a lab
  writes it, ``1000000``, ``1e6`` or ``10^6``;
- ``--json``: one JSON document (or JSON lines, where the command streams) on stdout.

Old spellings a script may still use (``--output``/``-o``, ``--out-dir``, ``--seed-hex``,
``--n``, ``--backend``) stay accepted as hidden aliases: help, completion and the docs show
only the names above.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from etgcore.cli_context import context

_HEX = re.compile(r"^[0-9a-fA-F]+$")
_POWER = re.compile(r"^(\d+)\^(\d+)$")
MAX_SEED_BYTES = 64
#: the most any count may be (rounds, draws, shoes, bytes): far beyond every run, and
#: inside a 64-bit index, so a count never overflows where it is used
MAX_COUNT = 10**18


def count(text: str) -> int:
    """A whole number as a lab writes it: ``1000000``, ``1_000_000``, ``1e6`` or ``10^6``."""
    t = text.strip().replace("_", "").replace(",", "")
    m = _POWER.match(t)
    try:
        if m:
            if int(m.group(2)) > 30:
                raise ValueError
            value = int(m.group(1)) ** int(m.group(2))
        elif re.fullmatch(r"\d+", t):
            value = int(t)
        else:
            f = float(t)
            if not f.is_integer():
                raise ValueError
            value = int(f)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (e.g. 1000000, "
                                         "1e6 or 10^6)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    if value > MAX_COUNT:  # bounded where it enters: 1e99 would overflow an index later
        raise argparse.ArgumentTypeError(f"{text!r} is more than the most a count may be, "
                                         "10^18")
    return value


def seed_hex(text: str) -> str:
    """A seed as hexadecimal digits (an odd count gets a leading 0), up to 64 bytes."""
    t = text.strip().removeprefix("0x")
    if not t or not _HEX.match(t):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not hexadecimal digits (e.g. 5eed0001 or 7)")
    if len(t) % 2:
        t = "0" + t
    if len(t) // 2 > MAX_SEED_BYTES:
        raise argparse.ArgumentTypeError(f"at most {MAX_SEED_BYTES} bytes "
                                         f"({2 * MAX_SEED_BYTES} hex digits)")
    return t.lower()


def seed_int(hex_seed: str) -> int:
    """The integer a seed stands for, where a command seeds a plain generator."""
    return int(hex_seed, 16)


def decks(text: str) -> int:
    """Decks per shoe: 1 to 8 (a shoe of the shoe ICD and every Rules Submission)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= n <= 8:
        raise argparse.ArgumentTypeError(f"a shoe holds 1 to 8 decks, not {n}")
    return n


def add_out(p: argparse.ArgumentParser, help: str, *, metavar: str = "DIR",
            required: bool = False, default: Any = None, type: Any = None,
            aliases: tuple[str, ...] = ()) -> None:
    """``--out`` (and the hidden old spellings ``aliases``)."""
    kw: dict[str, Any] = {"metavar": metavar, "help": help, "dest": "out"}
    if type is not None:
        kw["type"] = type
    p.add_argument("--out", required=required, default=default, **kw)
    if aliases:
        kw["help"] = argparse.SUPPRESS
        p.add_argument(*aliases, default=argparse.SUPPRESS, **kw)


def add_seed(p: argparse.ArgumentParser, help: str, *, default: str | None = None,
             old: tuple[str, ...] = ("--seed-hex",)) -> None:
    """``--seed HEX`` (dest ``seed``), with the hidden old spelling ``--seed-hex``."""
    p.add_argument("--seed", type=seed_hex, metavar="HEX", default=default, help=help)
    if old:
        p.add_argument(*old, dest="seed", type=seed_hex, default=argparse.SUPPRESS,
                       help=argparse.SUPPRESS)


def add_decks(p: argparse.ArgumentParser, what: str = "decks per shoe") -> None:
    """``--decks D`` (default None: :func:`configured_decks`)."""
    p.add_argument("--decks", type=decks, default=None, metavar="D",
                   help=f"{what}, 1-8 (default: the configured game's Rules Submission)")


def add_json(p: argparse.ArgumentParser, what: str = "one JSON object on stdout") -> None:
    p.add_argument("--json", action="store_true", help=what)


def print_json(doc: Any) -> None:
    """The one JSON document of a command given ``--json`` (stdout, sorted keys, so two
    runs compare line by line; strict JSON: a NaN is a bug to fix, not output)."""
    print(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))


def add_progress(p: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress`` (default: shown on a terminal for a long job)."""
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress with the time left on stderr (default: on a terminal, "
                   "for a long job; --progress also elsewhere, a line every few seconds)")


def configured_decks(args: argparse.Namespace, cfg: Any, given: int | None) -> int:
    """``--decks`` when given, else the decks of the configured game's Rules Submission
    (which the command line knows: :attr:`~etgcore.cli_context.CommandContext.decks_of`)."""
    if given is not None:
        return given
    return context(args).decks_of(cfg)
