"""The math's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class MathError(EtgError):
    """Base of the math's errors: a calculation asked of a shoe or a rule it cannot take."""


class ShoeExhausted(MathError, ValueError):
    """A draw asked of a composition that holds no card of that value."""
