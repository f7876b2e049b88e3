"""The root of the firmware's errors, their kinds, and the exit code of each kind.

One tree: every error the firmware raises on purpose derives from :class:`EtgError`. Each
package has one base class under it (``EngineError``, ``JournalError``, ``TableError``,
``FloorError``, ``BenchError``, ``MathError``, ``DeviceError``, ``RngError``, ``UiError``,
``DeployError``, ``LabError``: each in its package's ``errors`` module), and a kind says
what the command line does with an error, in one place (:data:`EXIT_CODES`):

- :class:`UserError`: bad input (a configuration, a scenario, an option, a file): one
  line, exit 2. A package's error that is bad input derives from both.
- :class:`CheckFailed`: a check ran and the evidence failed it (a journal whose chain or
  meters do not verify, software that is not what was signed): one line, exit 1. The
  journal's base, ``JournalError``, is one.
- :class:`Unavailable`: what the command needs went away (a lab cluster left without
  workers): one line, exit 3.

Any other exception is a bug: one line too, exit 1, and ``--debug`` shows the traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class EtgError(Exception):
    """The root of every error the firmware raises on purpose."""


class UserError(EtgError):
    """Bad input from a person or a file; the message names the problem and the fix."""


class CheckFailed(EtgError):
    """A check ran and found the evidence wrong (integrity, authenticity)."""


class Unavailable(EtgError):
    """Something a command needs is not there any more (a cluster's workers)."""


#: The exit code of each kind, the first matching class deciding (bad input first: a
#: journal refused for bad input is still bad input).
EXIT_CODES: tuple[tuple[type[EtgError], int], ...] = (
    (UserError, 2),
    (Unavailable, 3),
    (CheckFailed, 1),
    (EtgError, 1),
)


def exit_code(exc: EtgError) -> int:
    """The command line's exit code for ``exc`` (:data:`EXIT_CODES`)."""
    return next(code for kind, code in EXIT_CODES if isinstance(exc, kind))


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
    parents when missing, which is said in one line on stderr (``etg: --out: created the
    folder out/par``), the same for every ``--out`` of every command; an existing file
    (or an unwritable place) is bad input, one line and exit 2, never an internal error."""
    return _ready(Path(path), option, option)


def _ready(d: Path, option: str, where: str) -> Path:
    """``d`` made ready (``where``: how a problem names it, e.g. "--out x.csv: directory")."""
    if d.exists() and not d.is_dir():
        raise UserError(f"{where} {d}: exists and is not a directory (give a directory; "
                        "it is created when missing)")
    missing = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{where} {d}: cannot create the directory: "
                        f"{exc.strerror or exc}") from None
    if missing:
        sys.stderr.write(f"etg: {option}: created the folder {d}\n")
    if not os.access(d, os.W_OK | os.X_OK):
        raise UserError(f"{where} {d}: the directory is not writable")
    return d


def output_file(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """A file a command writes, its directory created when missing (and said, as
    :func:`output_dir` does); a directory in its place, or a parent that cannot be made,
    is one line and exit 2."""
    f = Path(path)
    if f.is_dir():
        raise UserError(f"{option} {f}: is a directory (give a file name)")
    _ready(f.parent, option, f"{option} {f}: directory")
    return f
