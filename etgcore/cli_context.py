"""What the command line hands each subcommand family, so none of them imports it back.

``etg`` composes the packages' command modules (each has ``register(subparsers, common)``)
and puts one :class:`CommandContext` into every parsed namespace. A command reads the
configuration, the version or the program's identity through :func:`context`; the leaf
packages (drivers, rng, ui, deploy) thus run under ``etg`` without knowing the firmware.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The namespace attribute the composing command line sets.
CONTEXT_ATTR = "etg_context"


@dataclass(frozen=True)
class CommandContext:
    """The services of the composing command line a subcommand may use."""

    #: the program's version, for reports and ``--version``
    version: str
    #: the table configuration a command runs with (``--config`` and every ``--set``)
    load_config: Callable[[argparse.Namespace], Any]
    #: the Rules Submission file of a variant (``bingo`` -> its TOML file)
    rules_file: Callable[[str], Path]
    #: (relative path, full sha256) of every file of the release the program runs from,
    #: in release order (the set ``etg release build`` packs and the floor checks), and
    #: what the set is; raises when there is none
    program_files: Callable[[], tuple[list[tuple[str, str]], str]]
    #: the fingerprint of a table configuration, as the journal records it at a start
    config_fingerprint: Callable[[Any], str]
    #: the decks per shoe of a configuration's game (its Rules Submission and overrides)
    decks_of: Callable[[Any], int]


def context(args: argparse.Namespace) -> CommandContext:
    """The context the command line put into ``args`` (a bug, not bad input, if missing)."""
    ctx = getattr(args, CONTEXT_ATTR, None)
    if not isinstance(ctx, CommandContext):
        raise RuntimeError("no command context: parse with the etg command line's parser")
    return ctx
