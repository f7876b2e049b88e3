"""The lab's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class LabError(EtgError):
    """Base of the lab runs' errors."""
