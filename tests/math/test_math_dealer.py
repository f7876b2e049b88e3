"""Exact dealer final-total probabilities (issue 11 point 1)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from firmware.math.composition import Shoe, initial_deals, remove
from firmware.math.dealer.final_total import I22, IBJ, IBUST, dealer_distribution, dealer_stands

# Wizard of Odds, "Dealer Probabilities in Blackjack" (Blackjack Appendix 2B), table
# "1 Deck - Dealer Stands on Soft 17": full deck less the up card, before the peek.
# Columns 17, 18, 19, 20, 21, BJ, bust.
WOO_1D_S17 = {
    1: (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    2: (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0.0, 0.352973),
    6: (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0.0, 0.420823),
}


@pytest.mark.parametrize("up", sorted(WOO_1D_S17))
def test_one_deck_s17_matches_published_table(up: int) -> None:
    shoe = Shoe(1)
    d = dealer_distribution(shoe, remove(shoe.counts(), up), up, False, no_blackjack=False)
    ours = (*d[:5], d[IBJ], d[I22] + d[IBUST])
    for got, want in zip(ours, WOO_1D_S17[up], strict=True):
        assert got == pytest.approx(want, abs=2e-6)


@pytest.mark.parametrize("decks,kind", [(1, "standard"), (6, "standard"), (0, "standard"),
                                         (6, "spanish"), (0, "spanish")])
@pytest.mark.parametrize("h17", [False, True])
def test_exact_fractions_sum_to_one_and_floats_agree(decks: int, kind: str, h17: bool) -> None:
    """The float path stays within 1e-12 of exact rational arithmetic (docs/math.md)."""
    shoe = Shoe(decks, kind)
    for up in (1, 6, 10):
        counts = remove(shoe.counts(), up)
        exact = dealer_distribution(shoe, counts, up, h17, exact=True)
        assert all(isinstance(x, Fraction) for x in exact)
        assert sum(exact) == 1
        approx = dealer_distribution(shoe, counts, up, h17)
        for e, f in zip(exact, approx, strict=True):
            assert abs(float(e) - f) < 1e-12


def test_peek_conditioning_is_bayes() -> None:
    """baseline §1.4: after the check found no Blackjack, P(x | no BJ) = P(x) / (1 - P(BJ))."""
    shoe = Shoe(6)
    counts = remove(shoe.counts(), 10)
    raw = dealer_distribution(shoe, counts, 10, False, no_blackjack=False, exact=True)
    cond = dealer_distribution(shoe, counts, 10, False, exact=True)
    assert cond[IBJ] == 0
    for i in range(7):
        assert cond[i] == raw[i] / (1 - raw[IBJ])


def test_split_to_double_rule_is_hit_soft_17() -> None:
    """baseline §2: 'draw to hard 17, stand on all 18s' draws on soft 17, stands on hard 17."""
    assert not dealer_stands(7, True, True)  # soft 17, draws
    assert dealer_stands(17, False, True)  # hard 17 stands
    assert dealer_stands(8, True, True)  # soft 18 stands
    assert dealer_stands(7, True, False)  # S17 games stand on soft 17


def test_probability_of_22_free_bet_and_spanish() -> None:
    """baseline §4: a dealer 22 is its own outcome; 48-card shoes have fewer ten-values."""
    std = Shoe(6)
    spa = Shoe(6, "spanish")
    p22 = dealer_distribution(std, remove(std.counts(), 6), 6, False)[I22]
    p22s = dealer_distribution(spa, remove(spa.counts(), 6), 6, False)[I22]
    assert 0.07 < p22 < 0.10
    assert 0.07 < p22s < 0.10
    assert p22s != p22  # the composition, not a constant, decides


def test_initial_deal_weights_sum_to_one() -> None:
    for shoe in (Shoe(1), Shoe(6, "spanish"), Shoe(0)):
        assert sum(w for *_, w in initial_deals(shoe)) == 1
