"""The round of baseline §1, point by point (each test names its clause)."""

from __future__ import annotations

import pytest
from engine_helpers import START, bet, conserved, deal, do, net, new_game, refused

from firmware.engine import (
    Card,
    CloseBetting,
    Console,
    CreditsOut,
    Decision,
    Game,
    Wager,
    load_rules,
)


def test_baseline_1_1_seven_seats_seat_1_dealt_first() -> None:
    t = new_game()
    assert t.nseats == 7
    bet(t, (3, 1000), (1, 1000))
    e = t.expecting()
    assert (e.kind, e.seat, e.to) == ("card", 1, "seat 1 hand 1")
    with pytest.raises(Exception, match="at most 7"):
        Game(load_rules(), seats=8)


def test_baseline_1_2_dealing_order() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 1000))
    seen = []
    for c in ("2S", "3S", "4S", "5S", "6S", "7S"):
        seen.append(t.expecting().to)
        deal(t, c)
    assert seen == ["seat 1 hand 1", "seat 2 hand 1", "dealer", "seat 1 hand 1",
                    "seat 2 hand 1", "hole"]
    assert [t.seats[0].hands[0].cards, t.seats[1].hands[0].cards] == [[4, 16], [8, 20]]
    pv = t.public_view()
    assert pv["dealer"]["cards"] == ["4S", "??"]
    assert t.private_view()["dealer"]["cards"] == ["4S", "7S"]


def test_baseline_1_3_burn_after_new_shoe_then_betting() -> None:
    t = Game(load_rules())
    assert t.expecting().kind == "new-shoe"
    t.apply(Console("SHUFFLE"))
    e = t.expecting()
    assert (e.kind, e.to) == ("card", "burn")
    t.apply(Card("9H"))
    assert t.expecting().kind == "wagers"
    assert t.shoe.cards_dealt == 1
    assert ("burn", "9H") in t.audit


def test_baseline_1_3_burn_cards_setting() -> None:
    t = Game(load_rules("blackjack", {"burn_cards": 3}))
    t.apply(Console("SHUFFLE"))
    for c in ("2C", "3C", "4C"):
        assert t.expecting().to == "burn"
        t.apply(Card(c))
    assert t.expecting().kind == "wagers"
    t0 = Game(load_rules("blackjack", {"burn_cards": 0}))
    t0.apply(Console("SHUFFLE"))
    assert t0.expecting().kind == "wagers"


def test_baseline_1_3_cut_card_finishes_round_then_new_shoe() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H")
    t.apply(__import__("firmware.engine", fromlist=["Cut"]).Cut())
    deal(t, "9D", "KC")
    do(t, 1, 1, "stand")
    assert t.phase == "settled" and net(t) == 1000
    assert t.expecting().kind == "new-shoe"
    assert "new shoe" in refused(t, Wager(1, 1000))
    t.apply(Console("SHUFFLE"))
    assert t.expecting().to == "burn"


def test_baseline_1_4_dealer_blackjack_check_on_ten_up_ends_round() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 1000))
    deal(t, "9S", "AS", "KD", "8C", "KH", "AH")  # seat 2 Blackjack, dealer KD + AH
    assert t.phase == "settled"
    assert t.dealer_bj
    assert net(t, 1) == -1000
    assert net(t, 2) == 0  # a player Blackjack pushes against a dealer Blackjack
    assert t.seats[1].hands[0].result == "push"


def test_baseline_1_4_no_dealer_blackjack_play_continues_hole_stays_hidden() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "9S", "KD", "8C", "7H")
    assert t.expecting().kind == "decision"
    assert t.public_view()["dealer"]["cards"] == ["KD", "??"]
    assert t.public_view()["dealer"]["total"] == 10


def test_baseline_1_5_insurance_offered_on_ace_before_check_half_wager_pays_2_to_1() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 1000))
    deal(t, "9S", "8S", "AD", "9C", "7C", "KH")
    e = t.expecting()
    assert (e.kind, e.seat, e.legal) == ("decision", 1, ("insurance", "no-insurance"))
    assert t.public_view()["dealer"]["cards"] == ["AD", "??"]  # not checked yet
    do(t, 1, 1, "insurance")
    assert t.seats[0].insurance == 500  # exactly half
    do(t, 2, 1, "no-insurance")
    assert t.phase == "settled"
    assert net(t, 1) == -1000 - 500 + 1500  # wager lost, insurance 500 wins 1000
    assert net(t, 2) == -1000


def test_baseline_1_5_insurance_lost_without_dealer_blackjack() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "AD", "TC", "7C")
    do(t, 1, 1, "insurance")
    assert t.expecting().kind == "decision"  # checked, no Blackjack: play goes on
    do(t, 1, 1, "stand")
    assert net(t) == 1000 - 500  # 20 beats soft 18 (+1000); the insurance is lost (-500)
    assert t.seats[0].hands[0].result == "win"


def test_baseline_1_5_blackjack_may_take_insurance_and_amount_up_to_half() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "AS", "AD", "KC", "7C")
    assert "more than" not in refused(t, Decision(1, 1, "insurance", amount=501))
    t.apply(Decision(1, 1, "insurance", amount=200))
    assert t.seats[0].insurance == 200
    assert t.phase == "settled"  # no further decision on a Blackjack: dealer has 18
    assert net(t) == 1500 - 200


def test_baseline_1_6_decisions_in_seat_order_hand_by_hand_21_stands_bust_loses() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 1000))
    deal(t, "5S", "6S", "9D", "5C", "7S", "5H")
    assert "waits for seat 1" in refused(t, Decision(2, 1, "hit"))
    do(t, 1, 1, "hit")
    deal(t, "TH")  # 5+5+T = 20
    do(t, 1, 1, "hit")
    deal(t, "AC")  # 21: stands by itself
    e = t.expecting()
    assert (e.seat, e.hand) == (2, 1)
    do(t, 2, 1, "hit")
    deal(t, "KD")  # 6+7+K = 23 bust
    assert t.seats[1].hands[0].status == "bust"
    assert t.expecting().to == "dealer"


def test_baseline_1_7_double_one_card_equal_wager() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "6S", "9D", "5C", "6H")
    assert "double" in t.expecting().legal
    do(t, 1, 1, "double")
    assert t.seats[0].credits == START - 2000
    deal(t, "2C")  # 13: only one card, no decision follows
    assert t.expecting().to == "dealer"
    deal(t, "KS")  # dealer 25
    assert net(t) == 2000


@pytest.mark.parametrize(
    ("rule", "cards", "allowed"),
    [
        ("any-two", ("6S", "3D"), True),
        ("9-11", ("6S", "3D"), True),
        ("9-11", ("6S", "2D"), False),
        ("10-11", ("6S", "3D"), False),
        ("10-11", ("6S", "4D"), True),
        ("9-11", ("AS", "8D"), False),  # soft 19
    ],
)
def test_baseline_1_7_double_on_setting(rule: str, cards: tuple[str, str], allowed: bool) -> None:
    t = new_game(double_on=rule)
    bet(t, (1, 1000))
    deal(t, cards[0], "9D", cards[1], "8H")
    assert ("double" in t.expecting().legal) == allowed


@pytest.mark.parametrize("das", [True, False])
def test_baseline_1_7_double_after_split_setting(das: bool) -> None:
    t = new_game(double_after_split=das)
    bet(t, (1, 1000))
    deal(t, "8S", "9D", "8C", "7H")
    do(t, 1, 1, "split")
    deal(t, "3D")  # 8+3 = 11
    assert ("double" in t.expecting().legal) == das


def test_633a_11_a_split_identical_value_king_and_ten() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "KS", "9D", "TC", "7H")
    assert "split" in t.expecting().legal
    do(t, 1, 1, "split")
    assert t.seats[0].credits == START - 2000  # an equal wager on the second hand


def test_633a_11_b_first_hand_completed_before_second_gets_a_card() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "8S", "9D", "8C", "7H")
    do(t, 1, 1, "split")
    assert t.expecting().to == "seat 1 hand 1"
    deal(t, "2D")
    do(t, 1, 1, "hit")
    deal(t, "TD")  # 20
    do(t, 1, 1, "stand")
    assert t.expecting().to == "seat 1 hand 2"
    deal(t, "9H")
    assert (t.expecting().seat, t.expecting().hand) == (1, 2)


def test_633a_11_c_max_hands_setting() -> None:
    t = new_game(max_hands=3)
    bet(t, (1, 1000))
    deal(t, "8S", "9D", "8C", "7H")
    do(t, 1, 1, "split")
    deal(t, "8D")
    do(t, 1, 1, "split")  # three hands now
    deal(t, "8H")
    assert "split" not in t.expecting().legal
    assert len(t.seats[0].hands) == 3


def test_baseline_1_8_split_aces_one_card_each_no_hit() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "AS", "9D", "AC", "7H")
    do(t, 1, 1, "split")
    deal(t, "5D")  # first ace gets one card and stands
    assert t.seats[0].hands[0].status == "stood"
    deal(t, "KH")  # second ace: A+K = 21, not a Blackjack
    h = t.seats[0].hands[1]
    assert h.total == 21 and not h.is_blackjack
    assert t.expecting().to == "dealer"
    deal(t, "2C")  # dealer 9+7+2 = 18
    assert [x.result for x in t.seats[0].hands] == ["lose", "win"]
    assert net(t) == 0  # 21 after a split paid 1 to 1, not 3 to 2


@pytest.mark.parametrize("resplit", [False, True])
def test_baseline_1_8_resplit_aces_setting(resplit: bool) -> None:
    t = new_game(resplit_aces=resplit)
    bet(t, (1, 1000))
    deal(t, "AS", "9D", "AC", "7H")
    do(t, 1, 1, "split")
    deal(t, "AD")
    if resplit:
        assert t.expecting().legal == ("stand", "split")
        do(t, 1, 1, "split")
        assert len(t.seats[0].hands) == 3
    else:
        assert t.seats[0].hands[0].status == "stood"
        assert t.expecting().to == "seat 1 hand 2"


def test_baseline_1_9_late_surrender_half_returned_after_check() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "9D", "6C", "7H")
    assert "surrender" in t.expecting().legal
    do(t, 1, 1, "surrender")
    assert t.phase == "settled"  # nothing depends on the dealer
    assert net(t) == -500
    assert t.seats[0].hands[0].result == "surrender"


def test_baseline_1_9_surrender_only_first_two_cards_and_setting() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "5S", "9D", "3C", "7H")
    do(t, 1, 1, "hit")
    deal(t, "4D")
    assert "surrender" not in t.expecting().legal
    t2 = new_game(late_surrender=False)
    bet(t2, (1, 1000))
    deal(t2, "TS", "9D", "6C", "7H")
    assert "surrender" not in t2.expecting().legal


def test_baseline_1_10_dealer_draws_only_while_a_wager_depends() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "5D", "6C", "7H")
    do(t, 1, 1, "hit")
    deal(t, "KD")  # bust
    assert t.phase == "settled"  # dealer 12 does not draw
    assert t.public_view()["dealer"]["hole_revealed"] is True
    assert len(t.dealer.cards) == 2


@pytest.mark.parametrize(("h17", "draws"), [(False, False), (True, True)])
def test_baseline_1_10_soft_17_setting(h17: bool, draws: bool) -> None:
    t = new_game(dealer_hits_soft_17=h17)
    bet(t, (1, 1000))
    deal(t, "TS", "AD", "9C", "6H")  # dealer A6 = soft 17
    do(t, 1, 1, "no-insurance")
    do(t, 1, 1, "stand")
    assert (t.expecting().to == "dealer") == draws
    if not draws:
        assert t.dealer.total == 17 and net(t) == 1000


def test_baseline_1_10_dealer_stands_hard_17_draws_16() -> None:
    t = new_game(dealer_hits_soft_17=True)
    bet(t, (1, 1000))
    deal(t, "TS", "TD", "9C", "6H")
    do(t, 1, 1, "stand")
    assert t.expecting().to == "dealer"
    deal(t, "AH")  # 17 hard (T+6+A)
    assert t.phase == "settled" and t.dealer.total == 17


@pytest.mark.parametrize(("pays", "wager", "won"), [("3:2", 1000, 1500), ("6:5", 1000, 1200),
                                                   ("2:1", 1000, 2000)])
def test_baseline_1_11_blackjack_pays_setting(pays: str, wager: int, won: int) -> None:
    t = new_game(blackjack_pays=pays)
    bet(t, (1, wager))
    deal(t, "AS", "9D", "KC", "7H")
    assert t.phase == "settled" and net(t) == won
    assert t.seats[0].hands[0].result == "blackjack"


def test_baseline_1_12_wager_unit_min_max_and_credits() -> None:
    t = new_game()
    assert "multiple" in refused(t, Wager(1, 550))
    assert "limits" in refused(t, Wager(1, 400))
    assert "limits" in refused(t, Wager(1, 100100))
    t.apply(CreditsOut(1, START - 600))
    assert "need 700" in refused(t, Wager(1, 700))
    t.apply(Wager(1, 600))
    assert t.seats[0].credits == 0
    t.apply(Wager(1, 500))  # changing the wager gives the difference back
    assert t.seats[0].credits == 100
    t.apply(Wager(1, 0))
    assert t.seats[0].credits == 600
    assert "no wagers" in refused(t, CloseBetting())


def test_baseline_1_12_double_and_split_need_credits() -> None:
    t = new_game()
    t.apply(CreditsOut(1, START - 1000))
    bet(t, (1, 1000))
    deal(t, "8S", "9D", "8C", "7H")
    assert t.expecting().legal == ("hit", "stand", "surrender")


def test_baseline_1_13_void_returns_every_wager() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 2000))
    deal(t, "8S", "8D", "9D", "8C", "3C", "7H")
    do(t, 1, 1, "double")
    deal(t, "KC")  # seat 1 19 after a double
    t.apply(Console("VOID"))
    assert t.phase == "voided"
    assert [s.credits for s in t.seats[:2]] == [START, START]
    assert net(t, 1) == 0 and net(t, 2) == 0
    assert conserved(t)
    assert "no round" in refused(t, Console("VOID"))


def test_void_in_betting_returns_wagers() -> None:
    t = new_game()
    bet(t, (1, 1000), close=False)
    t.apply(Console("VOID"))
    assert t.seats[0].credits == START and t.phase == "voided"


def test_next_round_after_settlement_starts_with_a_wager() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H", "9D", "KC")
    do(t, 1, 1, "stand")
    assert t.round_no == 1
    bet(t, (1, 1000))
    assert t.round_no == 2
    assert t.seats[0].hands[0].cards == [] and t.dealer.cards == []
    assert conserved(t)
