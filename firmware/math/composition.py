"""Shoe compositions by point value, the unit every probability here is computed on.

A composition is a tuple of ten counts, index ``v - 1`` for point value ``v`` (1 = ace,
10 = every ten-value card). Suits and ranks within a value matter only for a few bonus
payouts, which the callers handle; the dealer and the player's totals only see values.

``decks = 0`` is the infinite deck of the literature: every draw has the probabilities of
one full deck, whatever was dealt before. It is represented by ``None`` counts and the
per-deck counts as weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from firmware.math.errors import ShoeExhausted

#: Cards of each value in one 52-card deck (ace .. nine: 4, ten-value: 16).
STANDARD_DECK: tuple[int, ...] = (4, 4, 4, 4, 4, 4, 4, 4, 4, 16)
#: One 48-card Spanish deck (Chapter 635a): the four ten-spots removed, J Q K kept.
SPANISH_DECK: tuple[int, ...] = (4, 4, 4, 4, 4, 4, 4, 4, 4, 12)
DECK_KINDS: dict[str, tuple[int, ...]] = {"standard": STANDARD_DECK, "spanish": SPANISH_DECK}

VALUES: tuple[int, ...] = tuple(range(1, 11))


@dataclass(frozen=True)
class Shoe:
    """A shoe of ``decks`` decks of one kind; ``decks == 0`` is the infinite deck."""

    decks: int
    kind: str = "standard"

    @property
    def per_deck(self) -> tuple[int, ...]:
        return DECK_KINDS[self.kind]

    @property
    def infinite(self) -> bool:
        return self.decks == 0

    def counts(self) -> tuple[int, ...] | None:
        """Counts of a full shoe, or None for the infinite deck."""
        if self.infinite:
            return None
        return tuple(n * self.decks for n in self.per_deck)

    def label(self) -> str:
        size = sum(self.per_deck)
        return "infinite deck" if self.infinite else f"{self.decks} x {size}-card decks"


def probabilities(shoe: Shoe, counts: tuple[int, ...] | None) -> tuple[float, ...]:
    """Draw probability of each value from ``counts`` (or the infinite deck)."""
    base = shoe.per_deck if counts is None else counts
    n = sum(base)
    return tuple(c / n for c in base)


def exact_probabilities(shoe: Shoe, counts: tuple[int, ...] | None) -> tuple[Fraction, ...]:
    base = shoe.per_deck if counts is None else counts
    n = sum(base)
    return tuple(Fraction(c, n) for c in base)


def remove(counts: tuple[int, ...] | None, *values: int) -> tuple[int, ...] | None:
    """``counts`` less one card of each value (the infinite deck is unchanged)."""
    if counts is None:
        return None
    out = list(counts)
    for v in values:
        out[v - 1] -= 1
        if out[v - 1] < 0:
            raise ShoeExhausted(f"no card of value {v} left in the shoe")
    return tuple(out)


def initial_deals(shoe: Shoe) -> list[tuple[int, int, int, Fraction]]:
    """Every (player card a <= b, dealer up card u) with its exact probability.

    Dealing order (baseline §1.2: player, dealer up, player) does not matter for the
    joint law of the three cards, which is exchangeable.
    """
    counts = shoe.counts()
    out: list[tuple[int, int, int, Fraction]] = []
    for a in VALUES:
        for b in range(a, 11):
            for u in VALUES:
                # numerator and denominator as integers, one Fraction per deal (the
                # same exact value as the product of the three draws' fractions)
                num = den = 1
                c = counts
                for v in (a, b, u):
                    base = shoe.per_deck if c is None else c
                    num *= base[v - 1]
                    den *= sum(base)
                    if num == 0:
                        break
                    c = remove(c, v)
                if num == 0:
                    continue
                p = Fraction(num, den)
                if a != b:
                    p *= 2
                out.append((a, b, u, p))
    return out
