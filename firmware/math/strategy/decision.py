"""What a strategy answers: one decision, in the engine's action names.

Shared by the basic strategy (:mod:`.basic`) and the card-removal one
(:mod:`.card_removal`), so neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    action: str  # an engine action name: hit stand double split surrender rescue ...
    times: int = 1  # multiple of the initial wager for a double (Split to Double: 1..4)


def values_of(cards: Sequence[int]) -> tuple[int, ...]:
    """Point values of engine card codes (``rank * 4 + suit``)."""
    return tuple(min(c // 4 + 1, 10) for c in cards)


__all__ = ["Decision", "values_of"]
