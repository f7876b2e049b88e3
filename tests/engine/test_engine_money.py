"""Money: integer cents, exact odds, rounding down with the remainder recorded (baseline
§1.12), the payout limitation (§ 633a.13(o), baseline §1.11) and § 633a.11(d)."""

from __future__ import annotations

from fractions import Fraction

from engine_helpers import START, bet, conserved, deal, do, net, new_game, rules_with_game

from firmware.engine import CreditsIn, Game
from firmware.engine.rules import Rules


def test_baseline_1_12_blackjack_payout_rounds_down_remainder_recorded() -> None:
    t = new_game(wager_unit=1, min_wager=1)
    bet(t, (1, 501))
    deal(t, "AS", "9D", "KC", "7H")
    assert net(t) == 751  # 501 x 3/2 = 751.5 -> 751
    assert ("remainder", 1, "blackjack", Fraction(1, 2)) in t.audit
    assert t.private_view()["private"]["audit"][0] == ["remainder", 1, "blackjack", "1/2"]
    assert conserved(t)


def test_baseline_1_12_surrender_half_rounds_down_remainder_recorded() -> None:
    t = new_game(wager_unit=1, min_wager=1)
    bet(t, (1, 501))
    deal(t, "TS", "9D", "6C", "7H")
    do(t, 1, 1, "surrender")
    assert net(t) == -251  # 250 of 250.5 returned
    assert ("remainder", 1, "surrender", Fraction(1, 2)) in t.audit


def test_baseline_1_12_six_to_five_exact() -> None:
    t = new_game(blackjack_pays="6:5", wager_unit=1, min_wager=1)
    bet(t, (1, 7))
    deal(t, "AS", "9D", "KC", "7H")
    assert net(t) == 8  # 7 x 6/5 = 8.4
    assert ("remainder", 1, "blackjack", Fraction(2, 5)) in t.audit


def test_633a_13_o_max_payout_per_round_caps_winnings_per_seat() -> None:
    t = new_game(max_payout_per_round=1000)
    bet(t, (1, 10000), (2, 500))
    deal(t, "AS", "9S", "9D", "KC", "TC", "9H")
    do(t, 2, 1, "stand")  # 19 against 18
    assert net(t, 1) == 1000  # 15000 won, capped at 1000
    assert net(t, 2) == 500
    assert ("payout-limit", 1, "withheld", 14000) in t.audit
    assert conserved(t)


def test_633a_13_o_payout_limit_none_by_default() -> None:
    t = new_game()
    bet(t, (1, 100000))
    deal(t, "AS", "9D", "KC", "7H")
    assert net(t) == 150000


def _no_check_rules() -> Rules:
    return rules_with_game(dealer_check=False)


def test_633a_11_d_dealer_blackjack_after_split_takes_only_original_wager() -> None:
    t = Game(_no_check_rules(), shoe_in_play=True)
    t.apply(CreditsIn(1, START))
    bet(t, (1, 1000))
    deal(t, "8S", "KD", "8C", "AH")  # dealer Blackjack, not checked under this rule set
    do(t, 1, 1, "split")
    deal(t, "3D")
    do(t, 1, 1, "double")  # 11: doubled
    deal(t, "9C")
    deal(t, "TH")
    do(t, 1, 2, "stand")
    assert t.phase == "settled" and t.dealer_bj
    assert net(t) == -1000  # only the original wager; split wager and double returned
    assert [h.result for h in t.seats[0].hands] == ["lose", "push"]


def test_635a_10_b_dealer_blackjack_after_double_takes_only_original() -> None:
    t = Game(_no_check_rules(), shoe_in_play=True)
    t.apply(CreditsIn(1, START))
    bet(t, (1, 1000))
    deal(t, "6S", "TD", "5C", "AH")
    do(t, 1, 1, "double")
    deal(t, "9C")
    assert net(t) == -1000


def test_money_is_integer_cents_everywhere() -> None:
    t = new_game()
    bet(t, (1, 1000), (2, 2500))
    deal(t, "AS", "9S", "9D", "KC", "9C", "7H")
    pv = t.public_view()
    for s in pv["seats"]:
        assert isinstance(s["credits"], int)
        for h in s["hands"]:
            assert isinstance(h["paid"], int) and isinstance(h["wager"], int)
