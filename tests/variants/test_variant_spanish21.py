"""Spanish 21: § 635a.10 (seed, binding), § 635a.12 (partial) and docs/rules.md §5.

One seat: the shoe order is seat card, dealer up card, seat card, hole card, then the
seat's cards and the dealer's draws. The decks hold no ten-spot cards (J, Q, K remain).
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from variant_helpers import bet, conserved, deal, do, net, refused, variant_game

from etgcore.errors import ConfigError
from firmware.engine import Decision, Game, layout_for, load_rules
from firmware.engine.rules import Rules, parse_rules_data, rules_path

V = "spanish21"


def sp(seats: int = 1, **rules: Any) -> Game:
    return variant_game(V, seats=seats, **rules)


def round1(cards: tuple[str, ...], *actions: tuple[int, str], wager: int = 1000,
           **rules: Any) -> Game:
    """One seat: deal the first four cards, then each (hand, action) and the rest."""
    t = sp(**rules)
    bet(t, (1, wager))
    deal(t, *cards[:4])
    rest = list(cards[4:])
    for hand, action in actions:
        t.apply(Decision(1, hand, action))
        while t.need == "card" and rest and t.phase == "decisions":
            deal(t, rest.pop(0))
    stand_on_21(t)
    deal(t, *rest)
    return t


def stand_on_21(t: Game) -> None:
    """§ 635a.10(a): a 21 that is not a Blackjack may still double, so the table asks
    (stand or double, never a hit); the player stands, as these tests' players do."""
    while t.phase == "decisions" and t.need == "decision":
        e = t.expecting()
        assert e.seat is not None and e.hand is not None
        if t.seats[e.seat - 1].hands[e.hand - 1].total != 21 or "rescue" in e.legal:
            return
        assert e.legal == ("stand", "double"), e.legal
        do(t, e.seat, e.hand, "stand")


def test_baseline_5_48_card_decks_ten_spot_tilts() -> None:
    """baseline §5: no ten-spot in a Spanish shoe: reading one tilts the round."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "9S", "TH")
    assert t.phase == "tilt" and t.tilt is not None and t.tilt.code == "BADCARD"
    assert "spanish" in t.tilt.causes[0]
    t = sp()
    assert sum(t.shoe.counts) == 48 * 6
    bet(t, (1, 1000))
    deal(t, "JS", "QH", "KD", "7C")  # jacks, queens and kings stay
    assert t.phase == "decisions"


def test_baseline_5_six_or_eight_decks() -> None:
    assert load_rules(V).decks == 6 and load_rules(V, {"decks": 8}).decks == 8
    with pytest.raises(ConfigError, match=r"rules\.decks"):
        load_rules(V, {"decks": 4})


def test_baseline_5_dealer_hits_soft_17_by_default_rs() -> None:
    """baseline §5 (RS dealer_hits_soft_17, default true)."""
    t = round1(("KS", "6H", "8D", "AC", "2D"), (1, "stand"))
    assert t.dealer.total == 19 and net(t) == -1000
    t = round1(("KS", "6H", "8D", "AC"), (1, "stand"), dealer_hits_soft_17=False)
    assert t.dealer.total == 17 and net(t) == 1000
    assert layout_for(load_rules(V))["inscriptions"][2] == "Dealer shall draw to 16 and hit soft 17"


def test_baseline_5_player_21_beats_dealer_21() -> None:
    """baseline §5: a player 21 beats a dealer 21 (1 to 1 for a plain 21). Seat 2's 18
    keeps the dealer drawing (baseline §1.10)."""
    t = sp(seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "5S", "KH", "9H", "6D", "8C", "5C")
    do(t, 1, 1, "hit")
    deal(t, "KD")  # seat 1: 5 6 K = 21
    stand_on_21(t)
    do(t, 2, 1, "stand")  # seat 2: K 8 = 18
    deal(t, "7H")  # dealer 9 5 7 = 21
    assert t.dealer.total == 21 and t.phase == "settled"
    assert t.seats[0].hands[0].result == "win" and net(t, 1) == 1000
    assert t.seats[1].hands[0].result == "lose" and net(t, 2) == -1000


def test_baseline_5_player_blackjack_beats_dealer_blackjack() -> None:
    """baseline §5: a player Blackjack beats a dealer Blackjack and is paid 3 to 2."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "AS", "KH", "QD", "AC")
    assert t.dealer_bj and t.phase == "settled"
    assert t.seats[0].hands[0].result == "blackjack" and net(t) == 1500


def test_635a12_a_blackjack_3_to_2_else_1_to_1() -> None:
    """§ 635a.12(a): Blackjack 3 to 2; every other win 1 to 1."""
    t = round1(("AS", "9H", "KD", "7C"))
    assert net(t) == 1500
    t = round1(("KS", "9H", "QD", "7C", "KH"), (1, "stand"))
    assert net(t) == 1000


def test_635a10_a_double_on_three_cards_one_card_at_most_the_original() -> None:
    """§ 635a.10(a): double on two or more cards; one card; at most the original wager."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "2S", "9H", "3D", "7C")
    do(t, 1, 1, "hit")
    deal(t, "4H")  # 9 on three cards
    assert "double" in t.expecting().legal
    assert "not allowed" in refused(t, Decision(1, 1, "double", 2))  # more than the original
    do(t, 1, 1, "double")
    deal(t, "KD")  # 19: exactly one card, then stand or rescue
    assert t.expecting().legal == ("stand", "rescue")
    do(t, 1, 1, "stand")
    deal(t, "KC")  # dealer 16 + K: bust
    h = t.seats[0].hands[0]
    assert (len(h.cards), h.double) == (4, 1000)
    assert net(t) == 2000


def test_635a10_a_double_after_split() -> None:
    """§ 635a.10(a): two or more cards of any split pair may double."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "8S", "9H", "8D", "7C")
    do(t, 1, 1, "split")
    deal(t, "3H")  # hand 1: 11
    do(t, 1, 1, "double")
    deal(t, "9D")  # 20: stand or rescue
    do(t, 1, 1, "stand")
    assert t.seats[0].hands[0].double == 1000


def test_635a10_a_no_double_on_blackjack() -> None:
    """§ 635a.10(a): except when a player has Blackjack (it owes no decision)."""
    t = sp(seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "AS", "5H", "9D", "KD", "7C", "9C")
    assert t.expecting().seat == 2
    assert "double" in refused(t, Decision(1, 1, "double"))


def _no_check_rules() -> Rules:
    """Spanish 21 without the dealer's Blackjack check, so a double can precede it."""
    data = tomllib.loads(rules_path(V).read_text(encoding="utf-8"))
    data["game"]["dealer_check"] = False
    return Rules(parse_rules_data(data, "test: no check"), {}, "")


def test_635a10_b_dealer_blackjack_after_a_double_takes_only_the_original() -> None:
    """§ 635a.10(b): a dealer Blackjack after a Double Down wager collects only the
    original wager. The shipped rules check the hole card first (baseline §1.4), so no
    double can precede a dealer Blackjack there; this proves the rule on a no-check table."""
    from firmware.engine import CreditsIn

    t = Game(_no_check_rules(), seats=1, bench=True, shoe_in_play=True)
    t.apply(CreditsIn(1, 100_000))
    bet(t, (1, 1000))
    deal(t, "6S", "KH", "5D", "AC")  # dealer K A: Blackjack, unseen
    do(t, 1, 1, "double")
    deal(t, "9D")  # 20
    do(t, 1, 1, "stand")
    assert t.dealer_bj and t.phase == "settled"
    assert net(t) == -1000  # the Double Down wager came back


def test_635a10_c_double_down_paid_1_to_1_and_no_bonus() -> None:
    """§ 635a.10(c), § 635a.12(b): a doubled bonus hand is paid 1 to 1, wager and double."""
    # 2 3 4 5 then double: 14 + 7 = 21 on five cards (a 3 to 2 bonus hand undoubled)
    t = sp()
    bet(t, (1, 1000))
    deal(t, "2S", "9H", "3D", "7C")
    do(t, 1, 1, "hit")
    deal(t, "4H")
    do(t, 1, 1, "hit")
    deal(t, "5H")  # 14 on four cards
    do(t, 1, 1, "double")
    deal(t, "7D")  # 21 on five cards: stand or rescue (§ 635a.10(d)); the player stands
    assert t.expecting().legal == ("stand", "rescue")
    do(t, 1, 1, "stand")
    assert t.phase == "settled" and t.dealer.total == 16  # no draw (baseline §1.10)
    assert net(t) == 2000


def test_635a10_d_rescue_returns_the_double_and_forfeits_the_original() -> None:
    """§ 635a.10(d): rescue after the double's card: double returned, original lost."""
    t = round1(("6S", "KH", "5D", "7C", "2H"), (1, "double"), (1, "rescue"))
    h = t.seats[0].hands[0]
    assert (h.status, h.result) == ("rescued", "rescue")
    assert net(t) == -1000
    assert t.public_view()["seats"][0]["hands"][0]["status"] == "rescued"


def test_635a10_d_no_rescue_over_21_or_without_a_double() -> None:
    """§ 635a.10(d): not when the card takes the hand over 21; not before a double."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "6S", "KH", "7D", "7C")
    assert "rescue" not in t.expecting().legal
    assert "rescue" in refused(t, Decision(1, 1, "rescue"))
    do(t, 1, 1, "double")
    deal(t, "QD")  # 23: bust, both wagers lost at once
    assert t.phase == "settled" and net(t) == -2000


@pytest.mark.parametrize(("cards", "odds"), [
    (("6H", "7D", "8C"), 1500),   # (b)(1) mixed 3 to 2
    (("6H", "7H", "8H"), 2000),   # (b)(2) suited 2 to 1
    (("6S", "7S", "8S"), 3000),   # (b)(2) spades 3 to 1
    (("7H", "7D", "7C"), 1500),   # (b)(3) mixed 3 to 2
    (("7D", "7D", "7D"), 2000),   # (b)(4) suited 2 to 1
    (("7S", "7S", "7S"), 3000),   # (b)(4) spades 3 to 1
])
def test_635a12_b1_to_b4_three_card_bonus_hands(cards: tuple[str, str, str], odds: int) -> None:
    """§ 635a.12(b)(1)-(4): 6-7-8 and 7-7-7 by suit (dealer 9 up: no super bonus)."""
    t = round1((cards[0], "9H", cards[1], "8C", cards[2]), (1, "hit"))
    assert net(t) == odds


def test_635a12_b5_five_card_21() -> None:
    """§ 635a.12(b)(5): five cards totaling 21 pay 3 to 2."""
    t = round1(("2S", "9H", "3D", "8C", "4H", "5H", "7D"), (1, "hit"), (1, "hit"), (1, "hit"))
    assert len(t.seats[0].hands[0].cards) == 5 and t.seats[0].hands[0].total == 21
    assert net(t) == 1500


def test_635a12_b6_b7_six_and_seven_card_21() -> None:
    """§ 635a.12(b)(6), (7): six cards 2 to 1; seven or more 3 to 1."""
    t = round1(("AS", "9H", "2D", "8C", "3H", "4H", "5D", "6D"),
               (1, "hit"), (1, "hit"), (1, "hit"), (1, "hit"))
    assert len(t.seats[0].hands[0].cards) == 6 and net(t) == 2000
    t = round1(("AS", "9H", "AD", "8C", "2H", "2D", "3C", "5S", "7S"),
               (1, "hit"), (1, "hit"), (1, "hit"), (1, "hit"), (1, "hit"))
    assert len(t.seats[0].hands[0].cards) == 7 and t.seats[0].hands[0].total == 21
    assert net(t) == 3000


def test_635a12_b_bonus_on_split_hands() -> None:
    """§ 635a.12(b), baseline §5: split hands are not excluded from the bonus odds."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "7S", "9H", "7H", "8C")  # dealer 17
    do(t, 1, 1, "split")
    deal(t, "6S")  # hand 1: 7 6
    do(t, 1, 1, "hit")
    deal(t, "8S")  # 7-6-8 of spades: 3 to 1
    stand_on_21(t)
    deal(t, "KH")  # hand 2: 17
    do(t, 1, 2, "stand")
    assert [h.paid for h in t.seats[0].hands] == [4000, 1000]


def test_635a12_c1_super_bonus_5_to_under_25() -> None:
    """§ 635a.12(c)(1): suited 7-7-7 with a dealer 7 up: $1,000 more ($5 to under $25)."""
    t = round1(("7D", "7H", "7D", "KC", "7D"), (1, "hit"), wager=2400)
    assert net(t) == 2 * 2400 + 100_000
    assert t.public_view()["seats"][0]["hands"][0]["super_bonus"] == 100_000


def test_635a12_c_super_bonus_25_or_more_rs() -> None:
    """§ 635a.12(c), baseline §5 (RS): $5,000 at $25 or more by default; settable."""
    t = round1(("7S", "7H", "7S", "KC", "7S"), (1, "hit"), wager=2500)
    assert net(t) == 3 * 2500 + 500_000  # spades 3 to 1 plus the super bonus
    t = round1(("7S", "7H", "7S", "KC", "7S"), (1, "hit"), wager=2500,
               super_bonus_25_or_more=250_000)
    assert net(t) == 3 * 2500 + 250_000


def test_635a12_c_no_super_bonus_below_5_or_not_dealer_7_or_with_double() -> None:
    """§ 635a.12(c): only from $5; only with a dealer 7 up; not with a Double Down wager."""
    t = round1(("7D", "7H", "7D", "KC", "7D"), (1, "hit"), wager=400, min_wager=100)
    assert net(t) == 800
    t = round1(("7D", "8H", "7D", "KC", "7D"), (1, "hit"))
    assert net(t) == 2000
    t = sp()
    bet(t, (1, 1000))
    deal(t, "7D", "7H", "7D", "KC")
    do(t, 1, 1, "double")
    deal(t, "7D")  # 21: stand or rescue (§ 635a.10(d)); the player stands
    do(t, 1, 1, "stand")
    assert net(t) == 2000  # wager and double at 1 to 1, no bonus, no super bonus


def test_635a12_c_envy_bonus_to_every_other_seat() -> None:
    """baseline §5 (RS envy_bonus, default on): $50 to every other seat with a wager."""
    t = sp(seats=3)
    bet(t, (1, 1000), (2, 1000), (3, 500))
    # seat 1 7D, seat 2 KS, seat 3 9S, dealer 7H; seat 1 7D, seat 2 QS, seat 3 5S, hole KC
    deal(t, "7D", "KS", "9S", "7H", "7D", "QS", "5S", "KC")
    do(t, 1, 1, "hit")
    deal(t, "7D")  # seat 1: suited 7-7-7 (21)
    stand_on_21(t)
    do(t, 2, 1, "stand")
    do(t, 3, 1, "stand")  # 14 against 17: loses, still gets the envy bonus
    assert net(t, 1) == 2000 + 100_000
    assert net(t, 2) == 1000 + 5000
    assert net(t, 3) == -500 + 5000
    assert conserved(t)
    t = sp(seats=2, envy_bonus=False)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "7D", "KS", "7H", "7D", "QS", "KC")
    do(t, 1, 1, "hit")
    deal(t, "7D")
    stand_on_21(t)
    do(t, 2, 1, "stand")
    assert net(t, 2) == 1000


def test_baseline_5_late_surrender() -> None:
    """baseline §5: late surrender on the first two cards returns half."""
    t = round1(("KS", "KH", "6D", "9C"), (1, "surrender"))
    assert t.seats[0].hands[0].result == "surrender" and net(t) == -500


def test_baseline_5_split_aces_hit_double_resplit() -> None:
    """baseline §5: aces split to max_hands; split aces may be hit and doubled."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "AS", "9H", "AD", "8C")
    do(t, 1, 1, "split")
    deal(t, "AH")
    assert "split" in t.expecting().legal
    do(t, 1, 1, "split")
    deal(t, "3C")  # hand 1: A 3
    assert set(t.expecting().legal) >= {"hit", "double"}
    do(t, 1, 1, "hit")
    deal(t, "2C")  # A 3 2 = soft 16
    do(t, 1, 1, "double")
    deal(t, "5C")  # soft 21: stand or rescue (§ 635a.10(d)); kept, play moves to hand 2
    do(t, 1, 1, "stand")
    assert t.expecting().hand == 2
    assert t.seats[0].hands[0].total == 21 and len(t.seats[0].hands) == 3


def test_baseline_6_layout_paytables_derived_from_the_rules() -> None:
    """baseline §6: every paytable in force, from the rules file (never typed twice)."""
    lay = layout_for(load_rules(V, {"super_bonus_25_or_more": 250_000, "envy_bonus": False}))
    assert lay["inscriptions"] == ["Blackjack pays 3 to 2", "Insurance pays 2 to 1",
                                   "Dealer shall draw to 16 and hit soft 17"]
    rows = dict(r for p in lay["paytables"] for r in p["rows"])
    assert rows["6-7-8 of spades"] == "3 to 1" and rows["Five cards totaling 21"] == "3 to 2"
    assert rows["Suited 7-7-7 against a dealer 7, wager $5 to under $25"] == "$1,000 more"
    assert rows["Suited 7-7-7 against a dealer 7, wager $25 or more"] == "$2,500 more"
    assert not any(k.startswith("Envy") for k in rows)
    assert "Envy bonus: every other player with a wager" in dict(
        r for p in layout_for(load_rules(V))["paytables"] for r in p["rows"])


def test_635a10_d_a_doubled_21_may_be_rescued() -> None:
    """§ 635a.10(d): the rescue is allowed "as long as the additional card does not result
    in the hand having a total point count in excess of 21", so a doubled 21 is asked too
    (the regulation prevails over baseline §1.6's hand standing by itself at 21)."""
    t = sp(seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "6S", "KC", "9H", "5D", "8C", "7C")  # seat 1: 11; seat 2: 18; dealer 9 7
    do(t, 1, 1, "double")
    deal(t, "KD")  # 21
    e = t.expecting()
    assert (e.kind, e.seat, e.hand, e.legal) == ("decision", 1, 1, ("stand", "rescue"))
    do(t, 1, 1, "rescue")
    assert t.seats[0].hands[0].status == "rescued"
    assert t.expecting().seat == 2
    do(t, 2, 1, "stand")
    deal(t, "2D")  # the dealer's 16 draws to 18 for seat 2's standing 18
    assert net(t, 1) == -1000  # the Double Down wager back, the original wager forfeited
    assert conserved(t)


def test_635a10_d_a_doubled_21_kept_wins_both_wagers() -> None:
    """§ 635a.10(d): standing on the doubled 21 keeps the double (a player 21 wins)."""
    t = round1(("6S", "KC", "5D", "7C", "KD"), (1, "double"), (1, "stand"))
    assert t.seats[0].hands[0].status == "doubled" and net(t) == 2000


def test_baseline_1_10_every_standing_hand_21_the_dealer_only_reveals() -> None:
    """baseline §1.10, §5: a player 21 wins whatever the dealer makes, so when every hand
    still standing is a 21 (the rest busted, surrendered or rescued) the hole card is only
    revealed and the cards the dealer would have drawn stay in the shoe."""
    t = sp(seats=3)
    bet(t, (1, 1000), (2, 1000), (3, 1000))
    # seat 1 5S 6D, seat 2 KC 6H, seat 3 6S 5C; dealer 9H 7C (16)
    deal(t, "5S", "KC", "6S", "9H", "6D", "6H", "5C", "7C")
    do(t, 1, 1, "hit")
    deal(t, "KD")  # seat 1: 21
    stand_on_21(t)
    do(t, 2, 1, "surrender")
    do(t, 3, 1, "double")
    deal(t, "2H")  # seat 3: 13
    do(t, 3, 1, "rescue")
    assert t.phase == "settled" and t.expecting().kind == "wagers"
    assert t.hole_revealed and len(t.dealer.cards) == 2 and t.dealer.total == 16
    assert t.shoe.cards_dealt == 10
    assert [net(t, s) for s in (1, 2, 3)] == [1000, -500, -1000]
    assert conserved(t)


def test_baseline_1_10_a_21_beside_a_standing_18_the_dealer_draws() -> None:
    """baseline §1.10: one hand that still depends on the dealer is enough."""
    t = sp(seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "5S", "KH", "9H", "6D", "8C", "5C")
    do(t, 1, 1, "hit")
    deal(t, "KD")  # seat 1: 21
    stand_on_21(t)
    do(t, 2, 1, "stand")  # seat 2: 18
    assert (t.phase, t.expecting().to) == ("dealer", "dealer")


def test_finding_3_635a10a_split_21_doubles_never_hits() -> None:
    """§ 635a.10(a): "Except when a player has Blackjack, a player may ... double down ...
    on two or more cards of any split pair": a split A-K is 21, not a Blackjack, so the
    table asks stand or double (never a hit, baseline §1.6), and a double takes one card."""
    t = sp()
    bet(t, (1, 1000))
    deal(t, "AS", "9H", "AD", "7C")  # dealer 16
    do(t, 1, 1, "split")
    deal(t, "KH")  # hand 1: A K = 21
    assert t.expecting().legal == ("stand", "double")
    assert "not legal" in refused(t, Decision(1, 1, "hit"))
    do(t, 1, 1, "double")
    deal(t, "9C")  # hard 20: stand or rescue
    do(t, 1, 1, "stand")
    deal(t, "6S")  # hand 2: A 6 soft 17
    do(t, 1, 2, "stand")
    deal(t, "8S")  # dealer 24
    h = t.seats[0].hands[0]
    assert (h.total, h.double) == (20, 1000)
    assert net(t) == 3000 and conserved(t)
