"""The math's base error."""

from __future__ import annotations

from etgcore.errors import EtgError


class MathError(EtgError):
    """Base of the math's errors: a calculation asked of a shoe or a rule it cannot take."""


class ShoeExhausted(MathError, ValueError):
    """A draw asked of a composition that holds no card of that value."""


class FiguresDisagree(MathError):
    """A PAR sheet whose figure for a wager is not the certified one (two computations of
    one figure that do not agree): no sheet is written with it."""
