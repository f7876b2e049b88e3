"""Cards as small integers, with the tables the hot path reads instead of computing.

A card is ``rank * 4 + suit`` (0..51): ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (index 0..12),
suits ``S H D C`` (index 0..3). Integers keep a hand's arithmetic to list lookups, which is
what lets the engine run the full regulated round tens of thousands of times a second.
The printed form is the shoe ICD's two-letter code (``TD`` is the ten of diamonds).
"""

from __future__ import annotations

from typing import Final

from etgcore.cards import RANKS, SUITS

SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")

#: Every card code, 0..51.
ALL_CARDS: Final = tuple(range(52))
#: The printed code of each card ("AS", "TD", ...).
CODE: Final = tuple(r + s for r in RANKS for s in SUITS)
_PARSE: Final = {c: i for i, c in enumerate(CODE)}
#: Point value with an ace counted as 1 (jack, queen, king and ten are 10).
VALUE: Final = tuple(min(i // 4 + 1, 10) for i in range(52))
#: Rank index (0 = ace .. 12 = king) and suit index (0 = spades .. 3 = clubs).
RANK: Final = tuple(i // 4 for i in range(52))
SUIT: Final = tuple(i % 4 for i in range(52))
IS_ACE: Final = tuple(i < 4 for i in range(52))
IS_TEN_VALUE: Final = tuple(v == 10 for v in VALUE)

#: Deck kinds a Rules Submission may name: the cards of one deck, each once.
#: ``spanish`` is the 48-card deck of Chapter 635a: the four ten-spot cards removed,
#: jacks, queens and kings kept.
DECKS: Final[dict[str, tuple[int, ...]]] = {
    "standard": ALL_CARDS,
    "spanish": tuple(c for c in ALL_CARDS if RANKS[RANK[c]] != "T"),
}


def parse_card(text: str) -> int:
    """The card code for ``TD``-style text; ValueError names what is wrong."""
    try:
        return _PARSE[text.strip().upper()]
    except (KeyError, AttributeError):
        raise ValueError(
            f"{text!r} is not a card (rank A 2-9 T J Q K, then suit S H D C, e.g. 'TD')"
        ) from None
