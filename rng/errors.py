"""The ways the RNG refuses to produce a number.

Each is an exception with a message a technician can act on. None of them carries DRBG
state or entropy bytes: an error message may reach a log a player can see.
"""

from __future__ import annotations

from etgcore.errors import EtgError, UserError


class RngError(EtgError):
    """Base of every RNG failure."""


class DrbgError(RngError):
    """A DRBG function was called against SP 800-90A's rules (too many bits, bad lengths,
    prediction resistance not instantiated, used after uninstantiate)."""


class EntropyError(RngError):
    """The entropy source could not deliver, or a health test failed: its output is never
    used after that, and the DRBG that asked for it cannot (re)seed."""


class RngUnavailable(RngError):
    """The table's RNG cannot be used (self-test or entropy failure): the table tilts.

    ``cause`` is one human line for the tilt screen and the journal.
    """

    def __init__(self, cause: str) -> None:
        self.cause = cause
        super().__init__(cause)


class SeedRefused(RngUnavailable, UserError):
    """A fixed seed was asked for outside bench mode (a bench power; production refuses).

    Both a configuration error (one line, exit 2 on the command line) and a reason the
    table's RNG is unavailable (the table tilts rather than run with a known seed).
    """
