"""Errors that reach a user as one clear line instead of a traceback.

Every layer raises :class:`UserError` (or a subclass) for bad input: a configuration, a
scenario, a command-line value. The command line prints its message and exits 2; any
other exception is a bug and is shown as one line too unless ``--debug`` asks for the
traceback.
"""

from __future__ import annotations


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
