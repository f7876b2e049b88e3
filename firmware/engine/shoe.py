"""What the shoe can still contain: N decks of one kind, minus every card read so far.

The engine never shuffles or draws; it only accounts. A card read that the shoe cannot
hold (a ten-spot from a Spanish shoe, a fifth ace of spades from a four-deck shoe) proves
the reader, the shoe or the cards are wrong, so the table tilts instead of dealing it.
"""

from __future__ import annotations

from firmware.engine.cards import CODE, DECKS

#: how a refusal names a deck kind, so the dealer and a bench file see why a card is wrong
DECK_WORDS = {
    "standard": "of 52 cards",
    "spanish": "of 48 cards: Spanish 21 removes the ten-spot cards, baseline §5",
}


class Shoe:
    """Remaining count of each card code in the shoe in play."""

    __slots__ = ("cards_dealt", "counts", "cut_card_seen", "deck_kind", "decks", "in_play")

    def __init__(self, decks: int, deck_kind: str = "standard") -> None:
        self.decks = decks
        self.deck_kind = deck_kind
        self.counts = [0] * 52
        self.cards_dealt = 0
        self.cut_card_seen = False
        self.in_play = False

    def load(self, decks: int) -> None:
        """A freshly shuffled shoe of ``decks`` decks is in the shoe."""
        self.decks = decks
        self.counts = _full(self.deck_kind, decks).copy()
        self.cards_dealt = 0
        self.cut_card_seen = False
        self.in_play = True

    def refusal(self, card: int) -> str | None:
        """Why ``card`` cannot have come out of this shoe, or None when it can."""
        if self.counts[card]:
            return None
        if not self.in_play:
            return f"card {CODE[card]} read but no shoe is loaded"
        if card not in DECKS[self.deck_kind]:
            what = DECK_WORDS.get(self.deck_kind, "")
            return (f"card {CODE[card]} cannot be in a {self.deck_kind} shoe "
                    f"({self.decks} decks {what})")
        return f"card {CODE[card]}: all {self.decks} of it in this shoe were already read"

    def take(self, card: int) -> None:
        self.counts[card] -= 1
        self.cards_dealt += 1

    @property
    def remaining(self) -> int:
        return sum(self.counts)

    def to_json(self) -> dict[str, object]:
        return {
            "decks": self.decks,
            "deck_kind": self.deck_kind,
            "in_play": self.in_play,
            "cards_dealt": self.cards_dealt,
            "cut_card_seen": self.cut_card_seen,
            "remaining": {CODE[c]: n for c, n in enumerate(self.counts) if n},
        }


#: (deck kind, decks) -> the counts of that full shoe (see :func:`_full`)
_FULL: dict[tuple[str, int], list[int]] = {}


def _full(deck_kind: str, decks: int) -> list[int]:
    """The counts of a full shoe, made once per kind and size and copied at each load
    (WHY: the Monte Carlo loads a shoe every round; a copy is a tenth of the loop)."""
    got = _FULL.get((deck_kind, decks))
    if got is None:
        got = _FULL[deck_kind, decks] = [0] * 52
        for c in DECKS[deck_kind]:
            got[c] = decks
    return got
