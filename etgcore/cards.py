"""The card alphabet of the shoe ICD: a card is rank then suit, ``TD`` the ten of diamonds.

The shoe sends these codes, the engine parses them, the RNG shuffles them and the screen
draws them; one definition keeps the four from disagreeing about what a card is.
"""

from __future__ import annotations

import re
from typing import Final

#: Ranks in order, ace to king (``T`` is the ten).
RANKS: Final = "A23456789TJQK"
#: Suits in the ICD's order: spades, hearts, diamonds, clubs.
SUITS: Final = "SHDC"
#: The rank a Spanish deck (§ 635a) leaves out: its 48 cards have no ten-spots.
SPANISH_REMOVED: Final = "T"

_CARD_RE: Final = re.compile(f"[{RANKS}][{SUITS}]")


def is_card(text: object) -> bool:
    """True for an ICD card code such as ``"AS"`` or ``"TD"`` (``"??"`` is not one)."""
    return isinstance(text, str) and _CARD_RE.fullmatch(text) is not None


def deck(*, spanish: bool = False) -> list[str]:
    """One unshuffled deck: spades A..K, then hearts, diamonds, clubs (48 cards if Spanish)."""
    return [r + s for s in SUITS for r in RANKS if not (spanish and r == SPANISH_REMOVED)]
