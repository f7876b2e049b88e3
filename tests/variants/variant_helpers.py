"""Helpers for the variation tests: a table of any variant, reusing the engine's helpers.

The terse drivers (``bet``, ``deal``, ``do``, ``refused``, ``net``, ``conserved``) and the
random-play ``session`` of the property tests are the engine tests' own (tests/engine);
only building a table of a variant and the Bingo draw shortcut are added here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from engine_helpers import START, bet, conserved, deal, do, net, refused
from test_engine_properties import session

from firmware.engine import CreditsIn, Draw, Game, load_rules

__all__ = [
    "START",
    "bet",
    "conserved",
    "deal",
    "do",
    "draw",
    "net",
    "refused",
    "session",
    "variant_game",
]


def variant_game(
    variant: str, seats: int | None = None, bench: bool = True, **overrides: Any
) -> Game:
    """A ``variant`` table, shoe in play, every seat holding START cents."""
    t = Game(load_rules(variant, overrides), seats=seats, bench=bench, shoe_in_play=True)
    for s in range(1, t.nseats + 1):
        t.apply(CreditsIn(s, START))
    return t


def draw(t: Game, target: int, multiplier: int) -> None:
    """Force the Bingo draw (a bench power)."""
    t.apply(Draw({"bingo_target": target, "bingo_multiplier": multiplier}, forced=True))
