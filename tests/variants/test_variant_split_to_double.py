"""Split to Double Blackjack, § 633b.26 (seed, binding) and docs/rules.md §2.

Each test names the clause it checks. One seat: the shoe order is seat card, dealer up
card, seat card, hole card, then the seat's cards and the dealer's draws.
"""

from __future__ import annotations

import pytest
from variant_helpers import START, bet, conserved, deal, do, net, refused, variant_game

from etgcore.errors import ConfigError
from firmware.engine import (
    CloseBetting,
    CreditsIn,
    CreditsOut,
    Decision,
    Game,
    Wager,
    layout_for,
    load_rules,
)

V = "split-to-double"


def test_633b26_a_no_hitting_ever() -> None:
    """§ 633b.26(a): cards only by splitting or doubling down; hit is never legal."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "5S", "9H", "6D", "8C")
    e = t.expecting()
    assert "hit" not in e.legal
    assert "hit" in refused(t, Decision(1, 1, "hit"))
    do(t, 1, 1, "stand")  # an 11 stands: the dealer draws 17+ then settles
    deal(t, "2C")  # 9 + 8 + 2 = 19
    assert net(t) == -2000  # Blackjack wager and Blackjack or Bust wager both lost


def test_633b26_b_layout_betting_areas_inscriptions_paytables() -> None:
    """§ 633b.26(b)(2)-(6), baseline §6: areas, inscriptions word for word, paytables."""
    lay = layout_for(load_rules(V))
    assert lay["betting_areas"][:1] == ["blackjack"] and "blackjack_or_bust" in lay[
        "betting_areas"]
    assert lay["inscriptions"] == [
        "Blackjack pays 2 to 1",
        "Insurance pays 2 to 1",
        "Dealer shall draw to hard 17 and stand on all 18s",
        "Hitting is not available on a Split to Double Blackjack table",
    ]
    titles = [p["title"] for p in lay["paytables"]]
    assert titles == ["Blackjack wager", "Blackjack or Bust wager (Paytable 1)"]
    # (b)(5): no optional wager is offered, so no area beyond the two wagers and insurance
    assert set(lay["betting_areas"]) == {"blackjack", "blackjack_or_bust", "insurance"}


@pytest.mark.parametrize(("table", "rows"), [
    (1, ["20 to 1", "5 to 1", "2 to 1", "1 to 1"]),
    (2, ["20 to 1", "6 to 1", "2 to 1", "1 to 1"]),
    (3, ["25 to 1", "5 to 1", "2 to 1", "1 to 1"]),
])
def test_633b26_i_paytables_on_the_layout(table: int, rows: list[str]) -> None:
    """§ 633b.26(i) and (b)(6): the paytable in force, derived from the rules."""
    lay = layout_for(load_rules(V, {"paytable": table}))
    bob = lay["paytables"][1]
    assert bob["title"] == f"Blackjack or Bust wager (Paytable {table})"
    assert [r[0] for r in bob["rows"]] == [
        "Player Blackjack (ace of spades and jack of clubs or spades)",
        "Player Blackjack (suited)", "Player Blackjack", "Dealer busts",
    ]
    assert [r[1] for r in bob["rows"]] == rows


def test_633b26_c_at_least_six_decks() -> None:
    """§ 633b.26(c): at least six decks; fewer is refused naming the key."""
    assert load_rules(V).decks == 6
    assert load_rules(V, {"decks": 8}).decks == 8
    with pytest.raises(ConfigError, match=r"rules\.decks"):
        load_rules(V, {"decks": 4})


def test_633b26_d_both_wagers_in_equal_amounts() -> None:
    """§ 633b.26(d): the Blackjack or Bust wager is placed with, and equal to, the wager."""
    t = variant_game(V, seats=1)
    t.apply(Wager(1, 2500))
    s = t.seats[0]
    assert s.side == {"blackjack_or_bust": 2500}
    assert s.credits == START - 5000
    assert t.public_view()["seats"][0]["wagers"]["blackjack_or_bust"] == 2500
    t2 = variant_game(V, seats=1)
    t2.apply(CreditsOut(1, START - 1500))
    assert "need 2000" in refused(t2, Wager(1, 1000))  # 1,500 cents cannot cover both


def test_633b26_e_only_five_decisions() -> None:
    """§ 633b.26(e): split, double, stand, surrender, insurance, nothing else."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "8S", "AH", "3D", "9C")
    assert set(t.expecting().legal) == {"insurance", "no-insurance"}
    do(t, 1, 1, "no-insurance")
    assert set(t.expecting().legal) <= {"split", "double", "stand", "surrender"}


def test_633b26_e1_i_initial_hand_splits_regardless_of_value() -> None:
    """§ 633b.26(e)(1)(i): a 9 and a 5 split."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "9S", "7H", "5D", "TC")
    assert "split" in t.expecting().legal
    do(t, 1, 1, "split")
    deal(t, "KD")  # hand 1: 9 K = 19
    assert [len(h.cards) for h in t.seats[0].hands] == [2, 1]
    assert t.seats[0].staked == 3000


def test_633b26_e1_ii_later_hands_split_only_when_identical_in_value() -> None:
    """§ 633b.26(e)(1)(ii), (iii): a split hand splits only a pair; else stand or double."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "9S", "7H", "5D", "TC")
    do(t, 1, 1, "split")
    deal(t, "9H")  # hand 1: 9 9, a pair
    assert "split" in t.expecting().legal
    do(t, 1, 1, "split")
    deal(t, "2C")  # hand 1: 9 2, not a pair
    assert t.expecting().legal == ("stand", "double")
    assert "split" in refused(t, Decision(1, 1, "split"))


def test_633b26_e1_max_hands() -> None:
    """baseline §2: splits up to max_hands (default 4)."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "8S", "7H", "8D", "TC")
    for card in ("8H", "8C", "8S"):
        do(t, 1, 1, "split")
        deal(t, card)
    assert len(t.seats[0].hands) == 4
    assert "split" not in t.expecting().legal


@pytest.mark.parametrize("times", [1, 2, 3, 4])
def test_633b26_e2_i_double_one_to_four_times_the_initial_wager(times: int) -> None:
    """§ 633b.26(e)(2)(i): the Double Down wager is 1x to 4x the initial Blackjack wager."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "6S", "9H", "5D", "7C")
    do(t, 1, 1, "double", times)
    deal(t, "TD")  # 21 for one card; dealer 16 draws
    deal(t, "TH")  # dealer busts
    h = t.seats[0].hands[0]
    assert (h.double, h.double_times) == (1000 * times, times)
    # wager 1:1, double 1:1, Blackjack or Bust 1:1 on the dealer's bust
    assert net(t) == 1000 + 1000 * times + 1000


def test_633b26_e2_i_five_times_refused() -> None:
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "6S", "9H", "5D", "7C")
    assert "not allowed" in refused(t, Decision(1, 1, "double", 5))


def test_633b26_e2_double_on_split_hands_uses_the_initial_wager() -> None:
    """§ 633b.26(e)(2), (e)(1)(iii): a split hand doubles 1x-4x of the INITIAL wager."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "5S", "9H", "6D", "7C")
    do(t, 1, 1, "split")
    deal(t, "5H")  # hand 1: 5 5
    do(t, 1, 1, "double", 3)
    deal(t, "KD")  # hand 1: 20, one card only
    deal(t, "4C")  # hand 2: 6 4
    do(t, 1, 2, "double", 2)
    deal(t, "AD")  # hand 2: 21
    deal(t, "TS")  # dealer 16 + 10: bust
    hands = t.seats[0].hands
    assert [h.double for h in hands] == [3000, 2000]
    assert net(t) == (1000 + 3000) + (1000 + 2000) + 1000
    assert conserved(t)


def test_633b26_e2_no_double_on_blackjack() -> None:
    """§ 633b.26(e)(2): a Blackjack never doubles (it owes no decision)."""
    t = variant_game(V, seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "AS", "5H", "9D", "KD", "7C", "9C")  # seat 1 A K Blackjack; seat 2 5 7
    e = t.expecting()
    assert (e.seat, e.kind) == (2, "decision")
    assert "double" in refused(t, Decision(1, 1, "double"))


def test_633b26_e2_ii_double_down_one_card() -> None:
    """§ 633b.26(e)(2)(ii) via § 633a.10: exactly one card; the hand is then complete."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "2S", "9H", "3D", "7C")
    do(t, 1, 1, "double")
    deal(t, "4D")  # 9: stands after one card
    assert t.seats[0].hands[0].status == "doubled"
    assert t.phase == "dealer" or t.phase == "settled"


def test_633b26_e3_stand() -> None:
    """§ 633b.26(e)(3): a player may stand and receives no additional cards."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "9D", "TC")
    do(t, 1, 1, "stand")
    assert len(t.seats[0].hands[0].cards) == 2
    deal(t, "5S")  # dealer 21
    assert net(t) == -2000


def test_633b26_e4_surrender_pushes_the_wager_and_loses_blackjack_or_bust() -> None:
    """§ 633b.26(e)(4)(i), (ii): surrender: Blackjack wager returned, Blackjack or Bust lost."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "TH", "6D", "9C")
    do(t, 1, 1, "surrender")
    assert t.phase == "settled"
    assert t.seats[0].hands[0].result == "surrender"
    assert net(t) == -1000


def test_633b26_e4_surrender_only_the_initial_hand() -> None:
    """§ 633b.26(e)(4): only the initial two-card hand; a split hand cannot surrender."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "9H", "6D", "9C")
    do(t, 1, 1, "split")
    deal(t, "5H")
    assert "surrender" not in t.expecting().legal


def test_633b26_e4_no_surrender_when_dealer_has_blackjack() -> None:
    """§ 633b.26(e)(4): the dealer's Blackjack ends the round before any surrender."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "KH", "6D", "AC")
    assert t.phase == "settled"
    assert net(t) == -2000


def test_633b26_e5_h_insurance_pays_2_to_1() -> None:
    """§ 633b.26(e)(5), (h): insurance pays 2 to 1 on a dealer Blackjack."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "AH", "9D", "KC")
    do(t, 1, 1, "insurance")
    assert t.phase == "settled"
    # Blackjack wager -1000, Blackjack or Bust -1000, insurance +1000 (500 at 2 to 1)
    assert net(t) == -1000


def test_633b26_f1_blackjack_or_bust_wins_on_dealer_bust() -> None:
    """§ 633b.26(f)(1): the dealer busts: Blackjack or Bust wins 1 to 1."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "4D", "TC")
    do(t, 1, 1, "stand")  # player 14 stands
    deal(t, "8H")  # dealer 16 + 8: bust
    assert net(t) == 2000


def test_633b26_f2_blackjack_or_bust_loses_when_a_hand_busts_even_if_dealer_busts() -> None:
    """§ 633b.26(f)(2), baseline §2: ANY busted hand loses it, whatever the dealer does."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "9S", "6H", "9D", "TC")
    do(t, 1, 1, "split")
    deal(t, "5H")  # hand 1: 9 5
    do(t, 1, 1, "double")
    deal(t, "KD")  # hand 1: 24, bust
    deal(t, "2C")  # hand 2: 9 2
    do(t, 1, 2, "stand")
    deal(t, "8D")  # dealer 16 + 8 = 24, bust
    hands = t.seats[0].hands
    assert [h.status for h in hands] == ["bust", "stood"]
    # hand 1 -2000 (wager and double), hand 2 +1000, Blackjack or Bust -1000
    assert net(t) == -2000 + 1000 - 1000
    assert hands[0].extra == {"blackjack_or_bust": "lose"}


def test_633b26_g_blackjack_pays_2_to_1_and_wins_1_to_1() -> None:
    """§ 633b.26(g): Blackjack 2 to 1 (and the Blackjack or Bust 'Player Blackjack' line)."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AH", "9H", "KD", "7C")  # mixed suits: plain Blackjack line, 2 to 1
    assert net(t) == 2000 + 2000
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "9H", "9D", "8C")
    do(t, 1, 1, "stand")
    assert net(t) == 1000 - 1000  # 19 beats 17 at 1 to 1; no dealer bust


@pytest.mark.parametrize(("cards", "table", "bob"), [
    (("AS", "JC"), 1, 20_000), (("AS", "JS"), 1, 20_000), (("AS", "JC"), 3, 25_000),
    (("AS", "QS"), 1, 5000), (("KH", "AH"), 2, 6000), (("AD", "JS"), 1, 2000),
    (("AC", "JC"), 3, 5000),
])
def test_633b26_i_blackjack_or_bust_best_line_only(
    cards: tuple[str, str], table: int, bob: int
) -> None:
    """§ 633b.26(i), baseline §2: a Blackjack pays only its best paytable line."""
    t = variant_game(V, seats=1, paytable=table)
    bet(t, (1, 1000))
    deal(t, cards[0], "9H", cards[1], "7C")
    assert net(t) == 2000 + bob


def test_633b26_f1_blackjack_or_bust_wins_on_blackjack_against_dealer_blackjack() -> None:
    """baseline §2: a player Blackjack wins Blackjack or Bust even on a dealer Blackjack."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AS", "AH", "JC", "KC")
    do(t, 1, 1, "no-insurance")
    assert t.dealer_bj
    assert t.seats[0].hands[0].result == "push"
    assert net(t) == 20_000  # Blackjack wager pushes; Blackjack or Bust 20 to 1


def test_633b26_j_exempt_from_the_payout_limitation() -> None:
    """§ 633b.26(j): max_payout_per_round does not cap this game."""
    t = variant_game(V, seats=1, max_payout_per_round=1000, paytable=3)
    bet(t, (1, 10_000))
    deal(t, "AS", "9H", "JC", "7C")
    assert net(t) == 20_000 + 250_000
    assert not any(a[0] == "payout-limit" for a in t.audit)
    assert all("Most paid" not in r[0] for p in layout_for(t.rules)["paytables"]
               for r in p["rows"])


def test_baseline_2_dealer_hits_soft_17_stands_on_soft_18() -> None:
    """baseline §2: 'draw to hard 17 and stand on all 18s' = hits soft 17, stands on 18s."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "9D", "AC")  # dealer soft 17
    do(t, 1, 1, "stand")
    assert t.need == "card" and t.phase == "dealer"
    deal(t, "AD")  # soft 18: stands
    assert t.phase == "settled" and t.dealer.total == 18
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "TS", "TH", "9D", "7C")  # hard 17 stands
    do(t, 1, 1, "stand")
    assert t.phase == "settled"
    with pytest.raises(ConfigError, match="dealer_hits_soft_17"):
        load_rules(V, {"dealer_hits_soft_17": False})


def test_baseline_2_split_aces_resplit_and_double() -> None:
    """baseline §2: the base game's split-ace limits do not apply."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AS", "7H", "AD", "TC")
    do(t, 1, 1, "split")
    deal(t, "AH")  # hand 1: A A again
    assert "split" in t.expecting().legal
    do(t, 1, 1, "split")
    deal(t, "5C")  # hand 1: A 5, soft 16
    assert "double" in t.expecting().legal
    do(t, 1, 1, "double", 2)
    deal(t, "5D")  # soft 21
    assert t.seats[0].hands[0].total == 21
    with pytest.raises(ConfigError, match="resplit_aces"):
        load_rules(V, {"resplit_aces": False})


def test_baseline_2_split_ace_and_ten_is_21_not_blackjack() -> None:
    """baseline §1.8 kept in §2: an ace and a 10 after a split is 21, not a Blackjack."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AS", "7H", "AD", "TC")
    do(t, 1, 1, "split")
    deal(t, "KH")  # hand 1: A K = 21, not a Blackjack: the player decides (e)(1)(iii)
    do(t, 1, 1, "stand")
    deal(t, "9C")  # hand 2: A 9
    do(t, 1, 2, "stand")
    assert t.seats[0].hands[0].status == "stood"
    # both beat 17 at 1 to 1; no Blackjack or Bust line (no Blackjack, no dealer bust)
    assert net(t) == 2000 - 1000


def test_633b26_e1_iii_split_21_does_not_stand_by_itself() -> None:
    """§ 633b.26(e)(1)(iii): a two-card hand made by a split, not splittable again, has the
    decisions of (e)(2) and (e)(3): an ace and a 10 (21, not a Blackjack) may double or
    stand; it does not stand by itself as baseline §1.6 has it for the other games."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AS", "7H", "5D", "TC")
    do(t, 1, 1, "split")  # any two cards split (e)(1)(i)
    deal(t, "KH")  # hand 1: A K = 21
    e = t.expecting()
    assert (e.seat, e.hand) == (1, 1)
    assert list(e.legal) == ["stand", "double"]
    assert t.seats[0].hands[0].status == "playing"


@pytest.mark.parametrize("times", [1, 4])
def test_633b26_e2_split_21_doubles_one_to_four_times(times: int) -> None:
    """§ 633b.26(e)(2): "except when they have a Blackjack": a split A+T is not one, so it
    doubles 1x-4x the initial wager; the ace then counts 1 (hard 11 + the card)."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "AS", "7H", "5D", "TC")  # dealer 17
    do(t, 1, 1, "split")
    deal(t, "KH")  # hand 1: A K = 21 (soft)
    do(t, 1, 1, "double", times)
    deal(t, "9C")  # hand 1: A K 9 = 20
    deal(t, "AC")  # hand 2: 5 A = 16
    do(t, 1, 2, "stand")
    h0 = t.seats[0].hands[0]
    assert (h0.total, h0.double, h0.status) == (20, 1000 * times, "doubled")
    # hand 1 beats 17 (wager and double 1:1), hand 2 loses; Blackjack or Bust lost
    assert net(t) == (1000 + 1000 * times) - 1000 - 1000
    assert conserved(t)


def test_baseline_1_6_other_games_still_stand_on_21() -> None:
    """baseline §1.6: a hand reaching 21 stands by itself except where a complete section
    lets a 21 that is not a Blackjack double (§ 633b.26(e)(2), § 635a.10(a))."""
    for variant in ("blackjack", "bingo", "free-bet"):
        assert load_rules(variant).auto_stand_21 is True, variant
    assert load_rules(V).auto_stand_21 is False
    assert load_rules("spanish21").auto_stand_21 is False


def test_baseline_2_betting_paired_wager_follows_the_wager() -> None:
    """§ 633b.26(d): changing the wager during betting changes the paired wager with it."""
    t = variant_game(V, seats=1)
    t.apply(Wager(1, 1000))
    t.apply(Wager(1, 3000))
    assert t.seats[0].side == {"blackjack_or_bust": 3000}
    assert t.seats[0].credits == START - 6000
    t.apply(Wager(1, 0))
    assert t.seats[0].credits == START
    t.apply(Wager(1, 500))
    t.apply(CloseBetting())
    assert t.seats[0].staked == 1000


def test_633b26_b1_certificate_holder_name_from_the_table_configuration() -> None:
    """§ 633b.26(b)(1), § 633b.28(b)(1): the name comes from `table.certificate_holder`
    (docs/interfaces.md), never from the rules; the layout data does not repeat it."""
    from firmware.config import load_config

    cfg = load_config(None, ["table.certificate_holder=Keystone Casino"])
    assert cfg.table.certificate_holder == "Keystone Casino"
    assert "Keystone Casino" not in str(layout_for(load_rules(V)))


def test_633b26_b3_separate_blackjack_or_bust_betting_area() -> None:
    """§ 633b.26(b)(3): a separate betting area for each player's Blackjack or Bust wager."""
    assert "blackjack_or_bust" in layout_for(load_rules(V))["betting_areas"]
    t = variant_game(V)
    bet(t, (1, 1000), (4, 500), close=False)
    wagers = {s["seat"]: s["wagers"] for s in t.public_view()["seats"]}
    assert all("blackjack_or_bust" in w for w in wagers.values())  # every seat has the area
    assert (wagers[1]["blackjack_or_bust"], wagers[4]["blackjack_or_bust"]) == (1000, 500)


def test_633b26_b4_i_inscription_blackjack_pays_2_to_1() -> None:
    """§ 633b.26(b)(4), (b)(4)(i): "Blackjack pays 2 to 1", from the odds the engine pays."""
    rules = load_rules(V)
    assert rules.blackjack_pays == 2
    assert layout_for(rules)["inscriptions"][0] == "Blackjack pays 2 to 1"


def test_633b26_b4_ii_inscription_insurance_pays_2_to_1() -> None:
    """§ 633b.26(b)(4)(ii): "Insurance pays 2 to 1", from the odds the engine pays."""
    rules = load_rules(V)
    assert rules.insurance_pays == 2
    assert layout_for(rules)["inscriptions"][1] == "Insurance pays 2 to 1"


def test_633b26_b4_iii_inscription_dealer_rule() -> None:
    """§ 633b.26(b)(4)(iii): the dealer-rule inscription word for word, with the rule it
    names (hits soft 17, baseline §2) as the only one the Rules Submission allows."""
    rules = load_rules(V)
    assert rules.dealer_hits_soft_17 is True
    assert layout_for(rules)["inscriptions"][2] == (
        "Dealer shall draw to hard 17 and stand on all 18s")
    with pytest.raises(ConfigError, match=r"rules\.dealer_hits_soft_17"):
        load_rules(V, {"dealer_hits_soft_17": False})


def test_633b26_b4_iv_inscription_hitting_not_available() -> None:
    """§ 633b.26(b)(4)(iv): the regulation's sentence on the layout (so no sign is needed),
    and the engine indeed offers no hit."""
    rules = load_rules(V)
    assert rules.hitting is False
    assert layout_for(rules)["inscriptions"][3] == (
        "Hitting is not available on a Split to Double Blackjack table")


def test_633b26_b5_no_optional_wager_no_extra_area() -> None:
    """§ 633b.26(b)(5): an area per optional wager offered; none is, so none is drawn."""
    rules = load_rules(V)
    assert [n for m in rules.mechanisms for n in m.optional_wagers] == []
    assert layout_for(rules)["betting_areas"] == ["blackjack", "insurance", "blackjack_or_bust"]


def test_633b26_b6_payout_odds_of_every_permissible_wager() -> None:
    """§ 633b.26(b)(6): the layout advises the odds of every wager: Blackjack (2 to 1,
    winning hand 1 to 1), insurance 2 to 1 and the Blackjack or Bust paytable in force."""
    lay = layout_for(load_rules(V, {"paytable": 2}))
    tables = {p["title"]: dict(p["rows"]) for p in lay["paytables"]}
    assert tables["Blackjack wager"] == {
        "Blackjack": "2 to 1", "Winning hand": "1 to 1", "Insurance": "2 to 1"}
    assert tables["Blackjack or Bust wager (Paytable 2)"]["Player Blackjack (suited)"] == "6 to 1"
    assert set(lay["betting_areas"]) <= {"blackjack", "insurance", "blackjack_or_bust"}


def test_633b26_e4_ii_surrender_blackjack_wager_pushes() -> None:
    """§ 633b.26(e)(4)(ii): on surrender the Blackjack wager pushes: all of it comes back
    (not half, as in the base game's late surrender)."""
    t = variant_game(V, seats=1)
    bet(t, (1, 2500))
    deal(t, "TS", "9H", "6D", "8C")
    do(t, 1, 1, "surrender")
    h = t.seats[0].hands[0]
    assert (h.result, h.paid) == ("surrender", 2500)
    assert t.seats[0].returned_by_kind == {"blackjack": 2500}  # (e)(4)(i): BoB not back
    assert net(t) == -2500 and conserved(t)


def test_633b26_f_blackjack_or_bust_settled_with_the_round() -> None:
    """§ 633b.26(f): the Blackjack or Bust wager is settled with the round's settlement
    (§ 633a.7(o)), not when a hand busts: until then it stays on the layout."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    deal(t, "9S", "6H", "9D", "TC")
    do(t, 1, 1, "split")
    deal(t, "5H")
    do(t, 1, 1, "double")
    deal(t, "KD")  # hand 1 busts: the Blackjack or Bust wager is lost, but not yet settled
    s = t.seats[0]
    assert s.side == {"blackjack_or_bust": 1000} and s.net is None
    assert s.hands[0].extra is None
    assert t.public_view()["seats"][0]["wagers"]["blackjack_or_bust"] == 1000
    deal(t, "2C")
    do(t, 1, 2, "stand")
    deal(t, "8D")  # dealer busts; the round settles, the wager with it
    assert t.phase == "settled" and s.net is not None
    assert s.hands[0].extra == {"blackjack_or_bust": "lose"}


def _std_with_player_21_wins() -> Game:
    """Split to Double composed with the Spanish 21 mechanism that makes a player 21 win
    whatever the dealer makes: only the Blackjack or Bust wager can keep the dealer
    drawing then, which isolates that wager's own dependence on a dealer bust."""
    import tomllib

    from firmware.engine.rules import Rules, parse_rules_data, rules_path

    data = tomllib.loads(rules_path(V).read_text(encoding="utf-8"))
    data["game"]["mechanisms"] = [*data["game"]["mechanisms"], "player-21-wins"]
    data["game"]["player_21_wins"] = True
    t = Game(Rules(parse_rules_data(data, "test: std + player-21-wins"), {}, ""), seats=1,
              bench=True, shoe_in_play=True)
    t.apply(CreditsIn(1, 1_000_000))
    return t


def test_baseline_1_10_633b26_f1_blackjack_or_bust_keeps_the_dealer_drawing() -> None:
    """baseline §1.10, § 633b.26(f)(1): the Blackjack or Bust wager wins on a dealer bust,
    so while it is alive the dealer draws even when no main wager depends on the dealer;
    once a hand busts it has lost and the dealer only reveals."""
    t = _std_with_player_21_wins()
    bet(t, (1, 1000))
    deal(t, "5S", "9H", "6D", "7C")  # 11 against 9 7
    do(t, 1, 1, "double")
    deal(t, "KD")  # 21: the main wagers win whatever the dealer makes
    assert (t.phase, t.expecting().to) == ("dealer", "dealer")
    deal(t, "TS")  # 26: the dealer busts
    assert net(t) == 1000 + 1000 + 1000  # wager, double, Blackjack or Bust
    t = _std_with_player_21_wins()
    bet(t, (1, 1000))
    deal(t, "9S", "9H", "9D", "7C")
    do(t, 1, 1, "split")
    deal(t, "5H")  # hand 1: 9 5
    do(t, 1, 1, "double")
    deal(t, "KD")  # 24: busts, the Blackjack or Bust wager is lost
    deal(t, "2C")  # hand 2: 9 2
    do(t, 1, 2, "double")
    deal(t, "KH")  # 21
    assert t.phase == "settled" and len(t.dealer.cards) == 2


def test_baseline_1_10_blackjack_or_bust_needs_no_dealer_after_a_blackjack() -> None:
    """§ 633b.26(f)(1), (i): a player Blackjack already won the wager's best line (2 to 1
    or more against 1 to 1 for a dealer bust): it does not keep the dealer drawing."""
    t = variant_game(V, seats=2)
    bet(t, (1, 1000), (2, 1000))
    deal(t, "AS", "9C", "9H", "KD", "5D", "7C")  # seat 1 Blackjack; seat 2 9 5
    do(t, 2, 1, "double")
    deal(t, "KH")  # seat 2: 24, bust
    assert t.phase == "settled" and len(t.dealer.cards) == 2
