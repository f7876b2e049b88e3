"""The strategy of a deck count and its exact return, every card removed (issue 36).

Facts used here, each from outside our code:

* the one-deck basic strategy cells (dealer stands on soft 17, double after split, no
  surrender) that a one-deck game differs from a shoe game by: Wizard of Odds, "Blackjack
  Basic Strategy" (single deck, S17, DAS) and Appendix 3A (composition-dependent
  exceptions, single deck, S17);
* the one-deck expected returns of Wizard of Odds, Blackjack Appendix 9, pages 1ds17r4
  and 1dh17r4 ("Player may double after split": +0.001839 and -0.000072, for
  composition-dependent play; a total-dependent strategy is worth a little less);
* the insurance wager's return: the hole card under an ace is a ten with probability
  (tens in the shoe) / (cards less the ace), whatever the player holds (exchangeability).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from firmware.math.games.house_edge import analyse
from firmware.math.ruleset import load
from firmware.math.strategy.basic import strategy_for

FULL = ["hit", "stand", "double", "split"]


@pytest.fixture(scope="module")
def one_deck():  # type: ignore[no-untyped-def]
    return strategy_for(load("blackjack", {"decks": 1, "late_surrender": False}))


@pytest.mark.parametrize("up,hands,want", [
    (5, [(5, 3), (6, 2)], "double"),  # 8 v 5-6 doubles at one deck (hits in a shoe)
    (6, [(5, 3), (6, 2)], "double"),
    (2, [(7, 2), (6, 3), (5, 4)], "double"),  # 9 v 2
    (1, [(9, 2), (8, 3), (7, 4), (6, 5)], "double"),  # 11 v A
    (4, [(1, 2)], "double"),  # A,2 v 4
    (4, [(1, 3)], "double"),  # A,3 v 4
    (2, [(1, 6)], "double"),  # A,6 v 2
    (1, [(1, 7)], "stand"),  # A,7 v A
    (6, [(1, 8)], "double"),  # A,8 v 6
    (5, [(1, 8)], "stand"),  # ... but not v 5
    (8, [(3, 3)], "split"),
    (4, [(4, 4)], "split"),
    (7, [(6, 6)], "split"),
    (8, [(7, 7)], "split"),
    (10, [(7, 7)], "stand"),  # 7,7 v 10 stands (a hard 14 hits)
    (10, [(9, 5), (8, 6)], "hit"),
    (4, [(9, 3), (8, 4), (7, 5)], "stand"),  # 12 v 4 stands ...
    (4, [(10, 2)], "hit"),  # ... but 10,2 hits (composition-dependent exception)
])
def test_one_deck_s17_das_basic_strategy_cells(one_deck, up, hands, want) -> None:  # type: ignore[no-untyped-def]
    for cards in hands:
        legal = [a for a in FULL if a != "split" or cards[0] == cards[1]]
        assert one_deck.decide(up, cards, legal).action == want, (up, cards)


def test_one_deck_exceptions_are_published_ones_and_worth_it(one_deck) -> None:  # type: ignore[no-untyped-def]
    """Every two-card exception the solve keeps is in the published one-deck list, and
    adds at least the threshold; 6,2 against a 5 or 6 (published, worth less) is not."""
    published = {((3, 10), 2), ((2, 10), 4), ((2, 10), 6), ((5, 7), 3), ((4, 8), 3),
                 ((2, 6), 5), ((2, 6), 6)}
    got = {(e.cards, e.up) for e in one_deck.exceptions}
    assert got and got <= published
    assert all(e.gain >= 1e-5 for e in one_deck.exceptions)
    assert ((2, 6), 5) not in got


def test_shoe_keeps_the_shoe_plays() -> None:
    """At six decks 8 v 5 hits, 11 v A hits (S17) and 7,7 v 10 hits: the shoe strategy."""
    s = strategy_for(load("blackjack", {"late_surrender": False}))
    assert s.decide(5, (5, 3), FULL[:3]).action == "hit"
    assert s.decide(1, (6, 5), FULL[:3]).action == "hit"
    assert s.decide(10, (7, 7), FULL).action == "hit"


@pytest.mark.parametrize("h17,published", [(False, 0.001839), (True, -0.000072)])
def test_one_deck_return_against_the_published_composition_dependent_one(
        h17: bool, published: float) -> None:
    """Total-dependent play with its exceptions is worth a little less than
    composition-dependent play (Wizard of Odds, Appendix 9), never more."""
    rules = load("blackjack", {"decks": 1, "late_surrender": False,
                               "dealer_hits_soft_17": h17})
    net = analyse(rules).net
    assert published - 0.0003 < net < published + 0.00002


def test_insurance_wager_edge_is_its_own_exact_figure() -> None:
    """Insurance pays 2 to 1 on a ten under an ace: 3 x 96/311 - 1 at six decks."""
    for variant in ("blackjack", "split-to-double", "free-bet"):
        res = analyse(load(variant))
        assert res.optional["insurance"] == pytest.approx(
            float(3 * Fraction(96, 311) - 1), abs=1e-12), variant
    # the infinite deck: a ten is 4/13 of every draw
    inf = analyse(load("split-to-double").with_(decks=0))
    assert inf.optional["insurance"] == pytest.approx(3 * 4 / 13 - 1, abs=1e-12)


def _brute_split(rules, up: int, pair: int, hit_below: int) -> float:  # type: ignore[no-untyped-def]
    """Every card sequence of a split (a pair card as a hand's second card splits again
    while allowed; each hand then hits below ``hit_below`` and stands), the dealer's
    exact law of what is left at the end: the joint value of the split, enumerated."""
    import numpy as np

    from firmware.math.dealer.many_shoes import joint_laws
    from firmware.math.hands.hand_value import total_of

    full = list(rules.shoe.counts())
    full[up - 1] -= 1
    full[pair - 1] -= 2
    ends: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}

    def play(c: tuple[int, ...], p: float, hard: int, ace: bool, pending: int, n: int,
             totals: tuple[int, ...]) -> None:
        t = total_of(hard, ace)
        if hard > 21 or t >= hit_below:
            rec(c, p, pending - 1, n, (*totals, t if hard <= 21 else 99))
            return
        for y in range(1, 11):
            if c[y - 1]:
                c2 = list(c)
                c2[y - 1] -= 1
                play(tuple(c2), p * c[y - 1] / sum(c), hard + y, ace or y == 1, pending, n,
                     totals)

    def rec(c: tuple[int, ...], p: float, pending: int, n: int,
            totals: tuple[int, ...]) -> None:
        if pending == 0:
            key = (c, tuple(sorted(totals)))
            ends[key] = ends.get(key, 0.0) + p
            return
        for x in range(1, 11):
            if not c[x - 1]:
                continue
            c2 = list(c)
            c2[x - 1] -= 1
            px = p * c[x - 1] / sum(c)
            if x == pair and n < rules.max_hands:
                # a new hand (first card x) goes last; this hand draws again
                rec(tuple(c2), px, pending + 1, n + 1, totals)
            else:
                play(tuple(c2), px, pair + x, pair == 1 or x == 1, pending, n, totals)

    rec(tuple(full), 1.0, 2, 2, ())
    comps = sorted({c for c, _ in ends})
    laws = dict(zip(comps, joint_laws(rules.shoe.kind, np.array(comps), up, False),
                    strict=True))

    def pay(t: int, law: np.ndarray) -> float:
        if t > 21:
            return -float(1 - law[7])
        win = law[5] + law[6] + sum(law[i] for i, d in enumerate(range(17, 22)) if t > d)
        lose = sum(law[i] for i, d in enumerate(range(17, 22)) if t < d)
        return float(win - lose)

    return sum(p * sum(pay(t, laws[c]) for t in totals) for (c, totals), p in ends.items())


@pytest.mark.parametrize("up,pair,hit_below", [(6, 8, 0), (1, 9, 0), (10, 9, 12)])
def test_split_recursion_is_the_enumeration_of_every_card(up: int, pair: int,
                                                          hit_below: int) -> None:
    """The split value of :mod:`firmware.math.hands.split_card_removal` (each hand valued alone, the
    other hands' drawn cards never removed but through the pair cards) equals the
    enumeration of every card sequence of the split with its own dealer law, at one deck
    (where card removal is strongest), resplits to four hands, with and without hits."""
    import numpy as np

    from firmware.math.hands.backward_pass import TableDecider, backward
    from firmware.math.hands.hand_value import HIT, STAND
    from firmware.math.hands.split_card_removal import split_value
    from firmware.math.hands.up_card import hand_table, split_instances, up_card

    rules = load("blackjack", {"decks": 1, "late_surrender": False, "max_hands": 4})
    c0 = rules.shoe.counts()[pair - 1] - (pair == up)
    uc = up_card(rules, up, tuple(split_instances(rules, pair, c0, True)))
    f = uc.forest
    uc.ensure(np.ones(f.rows, dtype=bool))
    act = np.where((f.nc >= 2)[:, None], np.where((f.total < hit_below)[:, None], HIT, STAND),
                   -1)
    res = backward(rules, f, uc.pay, TableDecider(act), masks=uc.masks())
    got = split_value(rules, pair, hand_table([(uc, res.value)], pair),
                      {False: np.ones(1, dtype=bool), True: np.ones(1, dtype=bool)}, 1)
    assert float(got[0]) == pytest.approx(_brute_split(rules, up, pair, hit_below), abs=1e-12)


@pytest.mark.parametrize("decks", [6, 8])
def test_635a10_d_the_strategy_never_rescues_a_doubled_21(decks: int) -> None:
    """§ 635a.10(d) lets a doubled 21 be rescued and the table asks; a player 21 wins in
    Spanish 21, so the rescue could only forfeit the original wager: the strategy stands,
    against every up card (hard, soft and five-card 21s). It still rescues where that pays
    (a doubled hard 14-16 against a 10), so the question is answered by value."""
    s = strategy_for(load("spanish21", {"decks": decks}))
    asked = ("rescue", "stand")
    for up in range(1, 11):
        for cards in ((6, 5, 10), (1, 5, 5), (2, 3, 4, 5, 7), (9, 2, 10)):
            d = s.decide(up, cards, asked, after_double=True)
            assert d.action == "stand", (up, cards)
    taken = [s.decide(10, (2, t - 12, 10), asked, after_double=True).action
             for t in range(14, 17)]
    assert taken == ["rescue"] * 3


def test_push22_wager_is_the_dealer_22_of_the_shoe_less_the_first_three_cards() -> None:
    """Free Bet's Push 22 (§ 672a.2(b)(4)): the dealer plays out while it is on, and the
    player's draws stop by a rule on the player's own cards, so the dealer's cards have
    the law of the shoe less the three first cards whatever the player drew: P(dealer 22)
    is the sum over every start (a player Blackjack included) of its probability times
    that law (the dealer's recursion of dealer/many_shoes.py here, not the evaluation's kernel)."""
    from firmware.math.composition import initial_deals, remove
    from firmware.math.dealer.final_total import I22, dealer_distribution

    rules = load("free-bet", {"decks": 6, "push22": True})
    counts = rules.shoe.counts()
    p22 = 0.0
    for a, b, up, w in initial_deals(rules.shoe):
        law = dealer_distribution(rules.shoe, remove(counts, a, b, up), up,
                                  rules.dealer_hits_soft_17, no_blackjack=False)
        p22 += float(w) * law[I22]
    want = float(rules.push22_pays) * p22 - (1 - p22)
    assert analyse(rules).optional["push22"] == pytest.approx(want, abs=1e-12)
