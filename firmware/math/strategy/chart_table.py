"""One table of the strategy chart and the labels both charts print.

Kept apart from :mod:`.chart` (the basic strategy's chart) so that the card-removal chart
(:mod:`.card_removal_chart`) builds the same tables without the two importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
#: the dealer's up cards as column heads
UP_HEADS = tuple("A" if u == 1 else str(u) for u in UPS)


@dataclass(frozen=True)
class ChartTable:
    """One table of the chart: a row per player hand, a column per dealer up card."""

    title: str
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    head: tuple[str, ...] = UP_HEADS

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "up_cards": list(self.head),
                "rows": [{"hand": label, "actions": list(cells)} for label, cells in self.rows]}


def card_label(v: int) -> str:
    """A point value as the chart prints it: A, 2..9, T."""
    return "A" if v == 1 else "T" if v == 10 else str(v)


__all__ = ["UPS", "UP_HEADS", "ChartTable", "card_label"]
