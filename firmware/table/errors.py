"""The table's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class TableError(EtgError):
    """Base of the table's errors (a refused credit transfer, a stop while starting)."""
