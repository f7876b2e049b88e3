"""The bench's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class BenchError(EtgError):
    """Base of the bench's errors (a bad scenario, a service that would not start, a
    scenario that does not play as written)."""
