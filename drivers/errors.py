"""The drivers' base error: a device (the shoe, the panels) that cannot be used."""

from __future__ import annotations

from etgcore.errors import EtgError


class DeviceError(EtgError):
    """Base of the shoe's and the panels' errors."""
