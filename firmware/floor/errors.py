"""The floor's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class FloorError(EtgError):
    """Base of the floor's errors: what a table sent that the floor will not apply."""


class BadMessage(FloorError):
    """A message from a table that breaks the schema: why, in words a supervisor can act
    on (firmware.floor.wire)."""


class DatabaseAway(FloorError):
    """The floor database could not be reached or written (not: the data was wrong)."""
