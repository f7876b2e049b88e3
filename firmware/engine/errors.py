"""The engine's base error: an input the game refuses, or one that cannot be read."""

from __future__ import annotations

from etgcore.errors import EtgError


class EngineError(EtgError):
    """Base of the engine's errors (:class:`~firmware.engine.rejected.Rejected`,
    :class:`~firmware.engine.inputs.InputError`)."""
