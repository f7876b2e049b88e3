"""``Rejected``: an input that does not fit the table's state (the state is unchanged).

It lives apart from :mod:`firmware.engine.game` so the table's parts (betting, tilts)
raise it without importing the table; the package exports it as
``firmware.engine.Rejected``.
"""

from __future__ import annotations

from etgcore.errors import UserError
from firmware.engine.errors import EngineError


class Rejected(EngineError, UserError):
    """An input that does not fit the table's state; the state is unchanged."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
