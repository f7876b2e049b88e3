"""Free Bet Blackjack: § 672a.10 (seed, binding), § 672a.2 (partial), docs/rules.md §4.

One seat: the shoe order is seat card, dealer up card, seat card, hole card, then the
seat's cards and the dealer's draws.
"""

from __future__ import annotations

from typing import Any

import pytest
from variant_helpers import START, bet, conserved, deal, do, net, refused, variant_game

from etgcore.errors import ConfigError, UserError
from firmware.engine import (
    CreditsOut,
    Decision,
    Game,
    SideWager,
    Wager,
    layout_for,
    load_rules,
)

V = "free-bet"


def fb(seats: int = 1, **rules: Any) -> Game:
    return variant_game(V, seats=seats, **rules)


def split_8s(t: Game) -> None:
    """Seat 1: 8S 8D against dealer 9H, hole 7C (16); split for a lammer."""
    bet(t, (1, 1000))
    deal(t, "8S", "9H", "8D", "7C")
    do(t, 1, 1, "split")


def test_672a2_a_six_seats_at_most() -> None:
    """§ 672a.2(a), baseline §1.1: no more than six betting positions."""
    assert Game(load_rules(V)).nseats == 6
    with pytest.raises(UserError, match="at most 6"):
        Game(load_rules(V), seats=7)
    assert layout_for(load_rules(V))["max_seats"] == 6


def test_672a2_b_layout_inscriptions_word_for_word() -> None:
    """§ 672a.2(b)(2), (b)(3)(i)-(v), baseline §6."""
    lay = layout_for(load_rules(V))
    assert lay["inscriptions"] == [
        "Blackjack pays 3 to 2",
        "Insurance pays 2 to 1",
        "Dealer shall draw to 16 and stand on all 17s",
        "Blackjack Wagers will push if the dealer's hand has a total point count of 22",
        "Surrender is not available on a Free Bet Blackjack table",
    ]
    assert lay["betting_areas"] == ["blackjack", "insurance"]
    rows = dict(r for p in lay["paytables"] for r in p["rows"])
    assert rows["Free double: hard 9, 10, 11 on two cards"].endswith("pays 1 to 1")
    assert "Free split: any pair except 10-value cards" in rows


def test_672a2_b4_push22_area_only_when_offered() -> None:
    """§ 672a.2(b)(4), (b)(5): the Push 22 area and its odds only when it is offered."""
    lay = layout_for(load_rules(V, {"push22": True, "push22_pays": "15:1"}))
    assert "push22" in lay["betting_areas"]
    assert {"title": "Push 22 wager", "rows": [["Dealer's hand totals 22", "15 to 1"]]} in lay[
        "paytables"]


def test_672a10_a_identical_value_pairs_split() -> None:
    """§ 672a.10(a): two 7s, or a king and a 10, may be split; a 7 and an 8 may not."""
    for cards, ok in ((("7S", "7D"), True), (("KS", "TD"), True), (("7S", "8D"), False)):
        t = fb()
        bet(t, (1, 1000))
        deal(t, cards[0], "9H", cards[1], "7C")
        assert ("split" in t.expecting().legal) is ok


def test_672a10_b1_ten_value_pair_needs_a_real_wager() -> None:
    """§ 672a.10(b)(1): a 10-value pair splits only with a wager equal to the original."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, "KS", "9H", "TD", "7C")
    do(t, 1, 1, "split")
    hands = t.seats[0].hands
    assert (hands[1].lammer, hands[1].wager) == (False, 1000)
    assert t.seats[0].credits == START - 2000
    t = fb()
    bet(t, (1, 1000))
    t.apply(CreditsOut(1, t.seats[0].credits))
    deal(t, "KS", "9H", "TD", "7C")
    assert "split" not in t.expecting().legal  # no money for the real wager


def test_672a10_b2_other_pairs_split_free_with_a_lammer() -> None:
    """§ 672a.10(b)(2)(i), (ii): the wager stays with hand 1, a lammer is hand 2's wager."""
    t = fb()
    split_8s(t)
    hands = t.seats[0].hands
    assert (hands[0].wager, hands[0].lammer) == (1000, False)
    assert (hands[1].wager, hands[1].lammer, hands[1].lammer_amount) == (0, True, 1000)
    assert t.seats[0].credits == START - 1000  # no new money
    pv = t.public_view()["seats"][0]["hands"]
    assert [(h["wager"], h["lammer"]) for h in pv] == [(1000, False), (1000, True)]


def test_672a10_b2_aces_split_free() -> None:
    t = fb()
    bet(t, (1, 1000))
    deal(t, "AS", "9H", "AD", "7C")
    do(t, 1, 1, "split")
    assert t.seats[0].hands[1].lammer


def test_672a10_c_first_hand_completed_before_the_second_gets_a_card() -> None:
    """§ 672a.10(c): the first split hand is dealt and completed before the second."""
    t = fb()
    split_8s(t)
    assert t.expecting().to == "seat 1 hand 1"
    deal(t, "2H")  # hand 1: 8 2
    assert (t.expecting().kind, t.expecting().hand) == ("decision", 1)
    assert len(t.seats[0].hands[1].cards) == 1
    do(t, 1, 1, "hit")
    deal(t, "5H")  # 15
    do(t, 1, 1, "stand")
    assert t.expecting().to == "seat 1 hand 2"


def test_672a10_c1_busted_hand_without_lammers_collected_at_once() -> None:
    """§ 672a.10(c)(1): no lammer: the losing wager is collected when the hand busts."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, "KS", "9H", "TD", "7C")
    do(t, 1, 1, "split")  # 10-values: a real wager, no lammer
    deal(t, "6H")  # hand 1: 16
    do(t, 1, 1, "hit")
    deal(t, "9S")  # 25: bust
    h0 = t.seats[0].hands[0]
    assert t.phase == "decisions"
    assert h0.status == "bust" and h0.result == "lose"
    assert t.public_view()["seats"][0]["hands"][0]["collected"] is True


def test_672a10_c2_busted_hand_with_a_lammer_tucked_until_settled() -> None:
    """§ 672a.10(c)(2): with a lammer the busted cards stay tucked until settlement."""
    t = fb()
    split_8s(t)
    deal(t, "6H")  # hand 1: 14
    do(t, 1, 1, "hit")
    deal(t, "TS")  # 24: bust
    h0 = t.seats[0].hands[0]
    assert h0.status == "bust" and h0.result is None
    assert t.public_view()["seats"][0]["hands"][0]["tucked"] is True
    deal(t, "KH")  # hand 2: 18 (lammer)
    do(t, 1, 2, "stand")
    deal(t, "TD")  # dealer 26: bust
    assert [h.result for h in t.seats[0].hands] == ["lose", "win"]
    assert net(t) == -1000 + 1000  # the lammer wins 1 to 1 in money
    assert t.public_view()["seats"][0]["hands"][0]["tucked"] is False


def test_672a10_c2_all_split_hands_bust_collected_together() -> None:
    """§ 672a.10(c)(2): 'until ... the split hand or hands bust as well'."""
    t = fb()
    split_8s(t)
    deal(t, "6H")
    do(t, 1, 1, "hit")
    deal(t, "TS")  # hand 1 busts: tucked
    deal(t, "5C")  # hand 2: 13
    do(t, 1, 2, "hit")
    deal(t, "KC")  # 23: bust as well
    hands = t.seats[0].hands
    assert [h.result for h in hands] == ["lose", "lose"]
    assert all(h.extra and h.extra["collected"] and not h.extra["tucked"] for h in hands)
    assert t.phase == "settled"
    assert net(t) == -1000  # the lammer cost nothing


def test_672a10_d_decisions_after_second_card_and_resplit_to_four() -> None:
    """§ 672a.10(d): stand, draw, double down or resplit; up to four hands in total."""
    t = fb()
    split_8s(t)
    deal(t, "8H")
    assert set(t.expecting().legal) == {"hit", "stand", "double", "split"}
    do(t, 1, 1, "split")
    deal(t, "8C")
    do(t, 1, 1, "split")
    deal(t, "2C")
    hands = t.seats[0].hands
    assert len(hands) == 4 and [h.lammer for h in hands] == [False, True, True, True]
    assert "split" not in t.expecting().legal
    with pytest.raises(ConfigError, match=r"rules\.max_hands"):
        load_rules(V, {"max_hands": 5})


def test_baseline_4_free_double_on_hard_9_10_11() -> None:
    """baseline §4: a hard 9, 10 or 11 on two cards doubles for a lammer."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, "6S", "9H", "4D", "7C")  # 10 against 16
    do(t, 1, 1, "double")
    h = t.seats[0].hands[0]
    assert (h.double, h.double_lammer) == (1000, True)
    assert t.seats[0].credits == START - 1000
    deal(t, "TD")  # 20
    deal(t, "5S")  # dealer 21
    assert net(t) == -1000  # the double lammer cost nothing
    t = fb()
    bet(t, (1, 1000))
    deal(t, "6S", "9H", "5D", "7C")
    do(t, 1, 1, "double")
    deal(t, "TD")  # 21
    deal(t, "TS")  # dealer busts
    assert net(t) == 2000  # wager 1:1 and the lammer 1:1 in money


def test_baseline_4_other_doubles_are_real_wagers() -> None:
    """baseline §4: soft totals and other hard totals double with real money."""
    for cards in (("AS", "8D"), ("7S", "5D")):  # soft 19 (hard 9 with an ace), hard 12
        t = fb()
        bet(t, (1, 1000))
        deal(t, cards[0], "9H", cards[1], "7C")
        do(t, 1, 1, "double")
        h = t.seats[0].hands[0]
        assert (h.double, h.double_lammer) == (1000, False)
        assert t.seats[0].credits == START - 2000


def test_baseline_4_free_double_on_split_hands_and_setting() -> None:
    """baseline §4 (RS free_double_on): split hands included; the totals are a setting."""
    t = fb()
    split_8s(t)
    deal(t, "3H")  # hand 1: 11
    do(t, 1, 1, "double")
    assert t.seats[0].hands[0].double_lammer
    t = fb(free_double_on=[10, 11])
    bet(t, (1, 1000))
    deal(t, "5S", "9H", "4D", "7C")  # hard 9: now real
    do(t, 1, 1, "double")
    assert not t.seats[0].hands[0].double_lammer


def test_baseline_4_dealer_22_pushes_standing_wagers() -> None:
    """§ 672a.2(b)(3)(iv), baseline §4: dealer 22 pushes every main wager still standing."""
    t = fb()
    split_8s(t)
    deal(t, "3H")
    do(t, 1, 1, "double")  # free double
    deal(t, "KD")  # 21
    deal(t, "TC")  # hand 2: 18
    do(t, 1, 2, "stand")
    deal(t, "6D")  # dealer 22
    assert [h.result for h in t.seats[0].hands] == ["push", "push"]
    assert net(t) == 0
    assert conserved(t)


def test_baseline_4_player_blackjack_paid_before_dealer_22() -> None:
    """baseline §4: a player Blackjack has already been paid 3 to 2."""
    t = fb(seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "AS", "TS", "TD", "KD", "6H", "6C")  # seat 1 Blackjack; seat 2 16; dealer 16
    do(t, 2, 1, "stand")
    deal(t, "6D")  # dealer 22
    assert net(t, 1) == 1500 and net(t, 2) == 0


def test_672a2_b3_v_no_surrender() -> None:
    """§ 672a.2(b)(3)(v), baseline §4: surrender is not available."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, "TS", "TH", "6D", "9C")
    assert "surrender" not in t.expecting().legal
    assert "surrender" in refused(t, Decision(1, 1, "surrender"))
    with pytest.raises(ConfigError, match="late_surrender"):
        load_rules(V, {"late_surrender": True})


def test_672a2_b3_ii_insurance_pays_2_to_1() -> None:
    t = fb()
    bet(t, (1, 1000))
    deal(t, "TS", "AH", "9D", "KC")
    do(t, 1, 1, "insurance")
    assert net(t) == 0  # wager -1000, insurance 500 at 2 to 1


def test_672a2_b3_iii_dealer_stands_on_soft_17() -> None:
    t = fb()
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "8D", "AC")
    do(t, 1, 1, "stand")
    assert t.phase == "settled" and t.dealer.total == 17
    with pytest.raises(ConfigError, match="dealer_hits_soft_17"):
        load_rules(V, {"dealer_hits_soft_17": True})


def test_baseline_4_six_or_eight_decks() -> None:
    assert load_rules(V).decks == 6 and load_rules(V, {"decks": 8}).decks == 8
    with pytest.raises(ConfigError, match=r"rules\.decks"):
        load_rules(V, {"decks": 7})


def test_baseline_4_push22_off_by_default() -> None:
    """baseline §4: the Push 22 wager is off by default."""
    t = fb()
    t.apply(Wager(1, 1000))
    assert "no optional wager" in refused(t, SideWager(1, "push22", 500))


def test_baseline_4_push22_pays_11_to_1_on_dealer_22() -> None:
    """baseline §4 (RS push22_pays 11:1): wins on a dealer 22; the dealer draws for it."""
    t = fb(push22=True)
    t.apply(Wager(1, 1000))
    t.apply(SideWager(1, "push22", 500))
    bet(t)
    deal(t, "TS", "6H", "6D", "TC")  # player 16, dealer 16
    do(t, 1, 1, "hit")
    deal(t, "KH")  # player busts: the dealer still draws for the Push 22 wager
    assert t.phase == "dealer"
    deal(t, "6C")  # dealer 22
    assert net(t) == -1000 + 5500


def test_baseline_4_push22_loses_otherwise() -> None:
    t = fb(push22=True, push22_pays="15:1")
    t.apply(Wager(1, 1000))
    t.apply(SideWager(1, "push22", 500))
    bet(t)
    deal(t, "TS", "6H", "9D", "TC")
    do(t, 1, 1, "stand")
    deal(t, "5C")  # dealer 21
    assert net(t) == -1500
    assert t.public_view()["seats"][0]["wagers"]["push22"] == 500


def test_baseline_4_lammer_never_costs_money() -> None:
    """baseline §4: a losing or pushing lammer costs nothing; a winning one pays 1 to 1."""
    t = fb()
    split_8s(t)
    deal(t, "TH")  # hand 1: 18
    do(t, 1, 1, "stand")
    deal(t, "9C")  # hand 2 (lammer): 17
    do(t, 1, 2, "stand")
    deal(t, "AD")  # dealer 16 + A = 17: hand 1 wins, hand 2 (lammer) pushes
    assert [h.result for h in t.seats[0].hands] == ["win", "push"]
    assert [h.paid for h in t.seats[0].hands] == [2000, 0]
    assert net(t) == 1000
    assert conserved(t)


@pytest.mark.parametrize(("pair", "lammer", "cost"), [
    (("KS", "TD"), False, 1000),   # (b)(1): 10-value cards, a real wager
    (("QS", "JD"), False, 1000),
    (("8S", "8D"), True, 0),       # (b)(2): any other pair, no new wager
    (("AS", "AD"), True, 0),
    (("2S", "2D"), True, 0),
])
def test_672a10_b_what_a_split_costs_depends_on_the_pair(
    pair: tuple[str, str], lammer: bool, cost: int
) -> None:
    """§ 672a.10(b): the wager on the second hand of a split by the pair split: a real
    wager equal to the original for 10-value cards, a Free Bet lammer for any other."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, pair[0], "9H", pair[1], "7C")
    before = t.seats[0].credits
    do(t, 1, 1, "split")
    second = t.seats[0].hands[1]
    assert (second.lammer, before - t.seats[0].credits) == (lammer, cost)
    assert (second.lammer_amount if lammer else second.wager) == 1000


def test_672a10_b2_ii_original_wager_with_first_hand_lammer_for_second() -> None:
    """§ 672a.10(b)(2)(ii): the original Blackjack wager moves with the first split hand and
    the Free Bet lammer is the second hand's wager: both win, the money wager is paid
    1 to 1 with its stake back, the lammer 1 to 1 in money only."""
    t = fb()
    split_8s(t)
    deal(t, "TH")  # hand 1: 18
    do(t, 1, 1, "stand")
    deal(t, "QH")  # hand 2: 18
    do(t, 1, 2, "stand")
    deal(t, "TD")  # dealer 16 + 10 = 26
    h0, h1 = t.seats[0].hands
    assert (h0.wager, h0.lammer, h0.result, h0.paid) == (1000, False, "win", 2000)
    assert (h1.wager, h1.lammer, h1.result, h1.paid) == (0, True, "win", 1000)
    assert net(t) == 2000 and conserved(t)


def test_baseline_1_10_a_lammer_hand_keeps_the_dealer_drawing() -> None:
    """baseline §1.10, § 672a.10(b)(2)(ii): the lammer is the second hand's wager and is
    paid 1 to 1 in money when it wins, so a standing lammer hand depends on the dealer's
    final total even after the first hand busted (tucked, § 672a.10(c)(2))."""
    t = fb()
    split_8s(t)
    deal(t, "6H")  # hand 1: 8 6
    do(t, 1, 1, "hit")
    deal(t, "TS")  # 24: busts, tucked
    deal(t, "KH")  # hand 2 (lammer): 18
    do(t, 1, 2, "stand")
    assert (t.phase, t.expecting().to) == ("dealer", "dealer")
    deal(t, "TD")  # dealer 16 + T: bust
    assert net(t) == 0  # hand 1 -1000, the lammer +1000 in money


@pytest.mark.parametrize(("key", "value"), [
    ("double_after_split", False), ("max_hands", 2), ("max_hands", 3),
    ("resplit_aces", False),
])
def test_finding_2_672a10d_settings_the_section_fixes_are_refused(key: str, value: Any) -> None:
    """§ 672a.10(d) grants "stand, draw, double down or resplit" after each split pair's
    second card and resplits "for a total of up to four hands": each setting it fixes is
    declared with its only allowed value, so an override names the reason."""
    rules = load_rules(V)
    assert (rules.double_after_split, rules.max_hands, rules.resplit_aces) == (True, 4, True)
    fixed = rf"rules\.{key}: must be .*the only value allowed.*§ 672a\.10\(d\)"
    with pytest.raises(ConfigError, match=fixed):
        load_rules(V, {key: value})


def test_finding_1_672a10d_split_aces_take_every_decision() -> None:
    """§ 672a.10(d): a split ace's hand may stand, draw, double down or resplit (no
    exception for aces; baseline §1.8's one card yields to the complete section)."""
    t = fb()
    bet(t, (1, 1000))
    deal(t, "AS", "9H", "AD", "7C")
    do(t, 1, 1, "split")
    deal(t, "AH")  # hand 1: A A
    assert set(t.expecting().legal) == {"hit", "stand", "double", "split"}
    do(t, 1, 1, "split")  # a third hand, for a lammer
    deal(t, "5D")  # hand 1: A 5 soft 16
    assert set(t.expecting().legal) == {"hit", "stand", "double"}
    do(t, 1, 1, "hit")
    deal(t, "3C")  # soft 19
    do(t, 1, 1, "stand")
    deal(t, "9S")  # hand 2: A 9 soft 20
    do(t, 1, 2, "stand")
    deal(t, "KD")  # hand 3: A K = 21, not a Blackjack: stands by itself (baseline §1.6)
    deal(t, "8C")  # dealer 16 + 8 busts
    assert [len(h.cards) for h in t.seats[0].hands] == [3, 2, 2]
    assert [h.lammer for h in t.seats[0].hands] == [False, True, True]
    assert t.phase == "settled" and net(t) == 3000 and conserved(t)
