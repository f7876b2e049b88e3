"""The one command line, ``etg``: with :mod:`firmware.config`, the composition root.

:mod:`~firmware.cli.command_line` parses, dispatches and maps errors to exit codes; the
other modules here are the subcommand families that compose the packages (``etg run``,
``etg audit``, ``etg bench``, ``etg par``, ``etg floor``, ...). The leaf packages' own
families (``etg shoe``, ``etg panel``, ``etg rng``, ``etg cert``, ``etg release``) live in
those packages and receive what they need as a context, never importing this package.
"""

from __future__ import annotations

from firmware.cli.command_line import COMMANDS, build_parser, command_context, main

__all__ = ["COMMANDS", "build_parser", "command_context", "main"]
