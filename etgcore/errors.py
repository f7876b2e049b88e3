"""Errors that reach a user as one clear line instead of a traceback.

Every layer raises :class:`UserError` (or a subclass) for bad input: a configuration, a
scenario, a command-line value. The command line prints its message and exits 2; any
other exception is a bug and is shown as one line too unless ``--debug`` asks for the
traceback.
"""

from __future__ import annotations

import os
from pathlib import Path


class UserError(Exception):
    """Bad input from a person or a file; the message names the problem and the fix."""

    exit_code = 2


#: The ``key`` of a problem with the file as a whole (missing, unreadable, not TOML).
WHOLE_FILE = "-"


class ConfigError(UserError):
    """A table configuration (or an override of it) that does not validate.

    The message names the file, the dotted key and what is allowed; a problem with the
    file as a whole (``key`` :data:`WHOLE_FILE`) names only the file.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        where = source if key in ("", WHOLE_FILE) else f"{source}: {key}"
        super().__init__(f"{where}: {problem}")


def output_dir(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """The directory a command writes its report into, made ready: created with its
    parents when missing; an existing file (or an unwritable place) is bad input, one
    line and exit 2, never an internal error."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise UserError(f"{option} {d}: exists and is not a directory (give a directory; "
                        "it is created when missing)")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{option} {d}: cannot create the directory: "
                        f"{exc.strerror or exc}") from None
    if not os.access(d, os.W_OK | os.X_OK):
        raise UserError(f"{option} {d}: the directory is not writable")
    return d


def output_file(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """A file a command writes, its directory created when missing; a directory in its
    place, or a parent that cannot be made, is one line and exit 2."""
    f = Path(path)
    if f.is_dir():
        raise UserError(f"{option} {f}: is a directory (give a file name)")
    output_dir(f.parent, option=f"{option} {f}: directory")
    return f
