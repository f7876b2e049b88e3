"""The floor's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class FloorError(EtgError):
    """Base of the floor's errors: what a table sent that the floor will not apply."""
