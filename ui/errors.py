"""The UI's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class UiError(EtgError):
    """Base of the UI's errors (a view it must not draw)."""
