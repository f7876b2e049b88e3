"""A paytable line, the unit every game's PAR sheet lists its wagers in.

Shared by every game (the hitting games' card-removal lines, Split to Double's exact
lines, the PAR figures), so it lives beside the rules rather than in one game.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PaytableLine:
    """A paytable line: its wager, label, probability (expected count per round), net
    payout and amount wagered, units of the initial Blackjack wager."""

    wager: str
    label: str
    probability: float
    payout: float
    stake: float
    exact: bool = True

    @property
    def contribution(self) -> float:
        return self.probability * self.payout


__all__ = ["PaytableLine"]
