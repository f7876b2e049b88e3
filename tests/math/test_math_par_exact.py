"""PAR figures a lab can sign: the batched dealer law, Split to Double's composition-
dependent calculation, the Free Bet, Spanish 21 and Bingo strategy points (issue 19).

Everything here is fast (seconds): the Split to Double checks use strategies that stand
or double on every start, whose exact return a direct enumeration gives independently.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from firmware.math.composition import Shoe, initial_deals, remove
from firmware.math.dealer.final_total import IBJ, blackjack_probability, dealer_distribution
from firmware.math.dealer.many_shoes import joint_laws
from firmware.math.dealer.newton_series import NewtonLaws
from firmware.math.games.split_to_double.all_cards_return import std_exact_value
from firmware.math.ruleset import load
from firmware.math.strategy.basic import Decision, strategy_for
from firmware.math.strategy.dense_tables import legal_for


@pytest.mark.parametrize("kind,decks,up,h17", [("standard", 6, 10, True),
                                               ("spanish", 8, 1, False),
                                               ("standard", 1, 6, True)])
def test_joint_law_is_the_exact_unconditioned_law(kind: str, decks: int, up: int,
                                                  h17: bool) -> None:
    shoe = Shoe(decks, kind)
    counts = remove(shoe.counts(), up, 10, 5)
    exact = dealer_distribution(shoe, counts, up, h17, no_blackjack=False, exact=True)
    got = joint_laws(kind, np.array([counts]), up, h17)[0]
    assert np.abs(got - np.array([float(x) for x in exact])).max() < 1e-13
    assert got[IBJ] == pytest.approx(float(blackjack_probability(shoe, counts, up)), abs=1e-15)


def test_dealer_newton_series_is_exact_near_the_shoe_and_close_further() -> None:
    """The series at the shoe less the up card reproduces every law within three cards
    removed, and is within 1e-7 six cards away; its first-order steps are the series'
    own differences."""
    shoe = Shoe(6, "standard")
    cu = np.array(remove(shoe.counts(), 6))
    series = NewtonLaws("standard", cu, 6, True)
    rng = np.random.default_rng(19)
    for size, tol in ((1, 1e-13), (3, 1e-13), (6, 1e-7)):
        t = np.zeros((40, 10), dtype=np.int64)
        for row in t:
            np.add.at(row, rng.integers(0, 10, size), 1)
        exact = joint_laws("standard", cu[None, :] - t, 6, True)
        assert np.abs(series.laws(t) - exact).max() < tol
        law, steps = series.laws_and_steps(t)
        for v in range(10):
            moved = series.laws(t + np.eye(10, dtype=np.int64)[v]) - law
            assert np.abs(steps[:, v] - moved).max() < 1e-15


class _Fixed:
    """A strategy that plays one action on every start and stands on every split hand."""

    def __init__(self, action: str, times: int = 1) -> None:
        self.action, self.times = action, times

    def decide(self, up: int, cards: tuple[int, ...], legal: list[str], **kw: object
               ) -> Decision:
        if kw.get("split_hand"):
            return Decision("stand")
        return Decision(self.action, self.times) if self.action in legal else Decision("stand")


def _direct(rules, action: str, times: int, ups: tuple[int, ...]) -> float:  # type: ignore[no-untyped-def]
    """House edge of a fixed start action by direct enumeration, every card removed."""
    shoe = rules.shoe
    full = shoe.counts()
    total = 0.0
    rows: dict[int, list[tuple[float, tuple[int, ...], list[tuple[int, bool, int]]]]] = {}
    for a, b, up, w in initial_deals(shoe):
        if up not in ups:
            continue
        left = remove(full, a, b, up)
        if {a, b} == {1, 10}:
            pbj = float(blackjack_probability(shoe, left, up))
            total += float(w) * ((1 - pbj) * 2.0 + 47 / 64 * 2 + 15 / 64 * 5 + 2 / 64 * 20)
            continue
        n = sum(left)
        out = rows.setdefault(up, [])
        if action == "stand":
            out.append((float(w), left, [(a + b, a == 1 or b == 1, 1)]))
        elif action == "double":
            out += [(float(w) * left[y - 1] / n, remove(left, y),
                     [(a + b + y, 1 in (a, b, y), 1 + times)]) for y in range(1, 11)]
        else:  # split both, one card each, stand
            for x in range(1, 11):
                for z in range(1, 11):
                    lz = remove(left, x)
                    if left[x - 1] and lz[z - 1]:
                        p = left[x - 1] / n * lz[z - 1] / (n - 1)
                        out.append((float(w) * p, remove(lz, z),
                                    [(a + x, 1 in (a, x), 1), (b + z, 1 in (b, z), 1)]))
    for up, paths in rows.items():
        laws = joint_laws(shoe.kind, np.array([c for _, c, _ in paths]), up, True)
        pay = np.array([sum(_pay(h) for h in hands) for _, _, hands in paths])
        busted = np.array([any(_pay(h)[7] for h in hands) for _, _, hands in paths])
        wp = np.array([x for x, _, _ in paths])
        main = (pay[:, :7] * laws[:, :7]).sum(axis=1) - laws[:, IBJ]
        dbust = laws[:, 5] + laws[:, 6]
        bob = np.where(busted, -1.0, dbust - (1 - dbust))
        total += float((wp * (main + bob)).sum())
    return -total


@cache
def _pay(hand: tuple[int, bool, int]) -> np.ndarray:
    """Main wager net against each dealer outcome (entry 7: the hand busted)."""
    hard, ace, k = hand
    t = hard + 10 if ace and hard <= 11 else hard
    if t > 21:
        return np.array([-k] * 7 + [1.0])
    out = [k * (1 if t > dt else 0 if t == dt else -1) for dt in (17, 18, 19, 20, 21)]
    return np.array([*out, k, k, 0.0])


@pytest.mark.parametrize("action,times,ups", [("stand", 1, tuple(range(1, 11))),
                                              ("double", 4, tuple(range(1, 11))),
                                              ("split", 1, (1, 6))])
def test_split_to_double_exact_calculation_matches_direct_enumeration(
        action: str, times: int, ups: tuple[int, ...]) -> None:
    rules = load("split-to-double").with_(max_hands=2)
    direct = _direct(rules, action, times, ups)
    main, bob, _ = std_exact_value(rules, _Fixed(action, times), ups=ups,  # type: ignore[arg-type]
                                 dealer="exact")
    assert -(main + bob) == pytest.approx(direct, abs=1e-12)
    # the dealer's Newton series (order 3) is exact for up to three cards removed and
    # within a few 1e-11 here (four cards: the two initial ones and two split cards)
    main, bob, _ = std_exact_value(rules, _Fixed(action, times), ups=ups)  # type: ignore[arg-type]
    assert -(main + bob) == pytest.approx(direct, abs=1e-9)


def test_split_to_double_resplits_by_value() -> None:
    """A split 8-8 against a 10 resplits though the initial 8-8 is not split; a split
    10-10 against a 6 stands (issue 19)."""
    s = strategy_for(load("split-to-double"))
    rules = s.rules
    legal = legal_for(rules, (8, 8), split_hand=True, split_ace=False, can_split=True,
                      first=False)
    assert s.decide(10, (8, 8), legal, split_hand=True, bob_alive=True).action == "split"
    first = legal_for(rules, (8, 8), split_hand=False, split_ace=False, can_split=True,
                      first=True)
    assert s.decide(10, (8, 8), first).action != "split"
    # a split 10-10 against a 6 stands: with the pair's tens out of the shoe, resplitting
    # is worth less than the 20 (the initial 10-10 still splits)
    tens = legal_for(rules, (10, 10), split_hand=True, split_ace=False, can_split=True,
                     first=False)
    assert s.decide(6, (10, 10), tens, split_hand=True, bob_alive=True).action == "stand"


def test_free_bet_lammer_hand_resplits_a_pair() -> None:
    """The second hand of a free split risks nothing: where a real hand's pair is split
    again, a lammer hand's is too (it used to hit 4-4 against a 10, issue 19)."""
    s = strategy_for(load("free-bet"))
    for up in range(1, 11):
        for c in range(1, 10):
            legal = legal_for(s.rules, (c, c), split_hand=True, split_ace=c == 1,
                              can_split=True, first=False)
            kw = {"split_hand": True, "split_ace": c == 1}
            if s.decide(up, (c, c), legal, lammer=False, **kw).action == "split":
                assert s.decide(up, (c, c), legal, lammer=True, **kw).action == "split"
    legal = legal_for(s.rules, (4, 4), split_hand=True, split_ace=False, can_split=True,
                      first=False)
    assert s.decide(10, (4, 4), legal, split_hand=True, lammer=True).action == "split"


def test_spanish_suited_sevens_hit_against_a_seven_for_the_super_bonus() -> None:
    rules = load("spanish21")
    s = strategy_for(rules)
    legal = ["hit", "stand", "double", "split", "surrender"]
    assert s.decide(7, (7, 7), legal, suited=True).action == "hit"
    assert s.decide(7, (7, 7), legal, suited=False).action == "split"
    # suits change nothing against another up card
    assert s.decide(6, (7, 7), legal, suited=True) == s.decide(6, (7, 7), legal)
    from firmware.math.games.house_edge import analyse

    fig = analyse(rules).figures
    # P(up 7) P(7-7 suited) P(a third 7 of the suit) is about 1.5e-6; split hands add more
    assert 1.4e-6 < fig["p_super_bonus_per_round"] < 1.9e-6
    assert fig["envy_per_other_seat_per_round"] == pytest.approx(
        fig["p_super_bonus_per_round"] * 5000 / 1000)


def test_bingo_lanes_decided_at_once_match_one_at_a_time() -> None:
    from firmware.math.games.hitting.round_value import lane_pairs

    s = strategy_for(load("bingo"))
    for up, cards in ((10, (10, 6)), (6, (1, 7)), (1, (8, 8)), (2, (10, 2))):
        legal = ["hit", "stand", "double", "split", "surrender"]
        if cards[0] != cards[1]:
            legal.remove("split")
        lanes = s.decide_lanes(up, cards, legal)
        assert lanes == [s.decide(up, cards, legal, bingo=tm) for tm in lane_pairs()]


def test_bingo_par_states_the_plain_basic_strategy_return() -> None:
    from firmware.math.games.house_edge import analyse, bingo_plain_return

    rules = load("bingo")
    plain = bingo_plain_return(rules)
    assert plain == pytest.approx(0.912, abs=0.002)
    assert 1 - analyse(rules).house_edge_total > plain


def test_the_all_cards_comparison_reruns_by_up_card(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m firmware.math.games.split_to_double.all_cards_by_up_card` (docs/math.md, the PAR
    sheet's residual): against a 10 up the shipped figure is within 1e-6 of the all-cards one, as
    measured (-1.1e-7 at 8 decks), and not equal to it (the frozen cards are an approximation)."""
    import json

    from firmware.math.games.split_to_double.all_cards_by_up_card import main

    assert main(["--decks", "8", "--up", "10", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["up"] == 10 and got["decks"] == 8
    assert got["shipped"] - got["all_cards"] == pytest.approx(got["shipped_minus_all_cards"])
    assert 1e-9 < abs(got["shipped_minus_all_cards"]) < 1e-6
    assert got["all_cards"] == pytest.approx(-0.1699828640, abs=1e-9)
