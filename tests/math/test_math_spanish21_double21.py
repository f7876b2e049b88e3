"""Why the math may value a Spanish 21 split 21 as standing (firmware/math/ruleset.py).

§ 635a.10(a) lets a split A-K (21, not a Blackjack) double. After the dealer's check a
player 21 wins whatever the dealer makes (§ 635a), so standing wins exactly one unit. A
double risks two units on one more card: a ten-value card makes 21 again (two units), any
other card makes a hard 12-20 that must stand against the dealer (or be rescued for the
original wager, -1/2 per doubled unit). The bound below gives every such hand its best
case and shows the double's value stays under the stand's one unit for every up card.
A hard 21 (any 21 of three or more cards without a soft ace) busts on any card.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from firmware.math.composition import Shoe, exact_probabilities, remove
from firmware.math.dealer.final_total import I22, IBUST, dealer_distribution


def _edge(total: int, law: tuple[Fraction, ...]) -> Fraction:
    """Win less loss of a standing hard ``total`` (12..20) against the dealer's law."""
    finals = {17 + i: law[i] for i in range(5)}
    win = law[I22] + law[IBUST] + sum((p for t, p in finals.items() if t < total), Fraction(0))
    lose = sum((p for t, p in finals.items() if t > total), Fraction(0))
    return win - lose


@pytest.mark.parametrize("decks", [0, 6])
@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_635a10a_doubling_a_21_never_pays(decks: int, hits_soft_17: bool) -> None:
    shoe = Shoe(decks, "spanish")
    for up in range(1, 11):
        counts = remove(shoe.counts(), 1, 10, up)  # the split A-K and the up card
        law = dealer_distribution(shoe, counts, up, hits_soft_17, exact=True)
        double = Fraction(0)
        for v, p in enumerate(exact_probabilities(shoe, counts), start=1):
            total = 11 + v  # a soft 21 (ace as 1: hard 11) plus the double's one card
            if total == 21:
                double += p * 2  # 21 again: the most a doubled hand can win
            else:
                double += p * max(2 * _edge(total, law), Fraction(-1))  # stand or rescue
        assert double < 1, (up, float(double))  # standing: +1 for certain
