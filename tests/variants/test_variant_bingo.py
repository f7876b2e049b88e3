"""Bingo Blackjack, § 633b.28 (seed, binding) and docs/rules.md §3.

One seat: the RNG draw comes first (after betting closes), then the shoe order is seat
card, dealer up card, seat card, hole card, then the seat's cards and the dealer's draws.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from variant_helpers import START, bet, deal, draw, net, refused, variant_game

from etgcore.errors import ConfigError
from firmware.engine import (
    Card,
    CloseBetting,
    CreditsIn,
    Decision,
    Draw,
    Game,
    Wager,
    layout_for,
    load_rules,
)
from firmware.engine.replay import replay

V = "bingo"


def play(target: int, mult: int, cards: tuple[str, ...], actions: tuple[tuple[int, str], ...]
         = (), wager: int = 1000, **rules: Any) -> Game:
    t = variant_game(V, seats=1, **rules)
    bet(t, (1, wager))
    draw(t, target, mult)
    deal(t, *cards[:4])
    rest = list(cards[4:])
    for hand, action in actions:
        t.apply(Decision(1, hand, action))
        while t.need == "card" and rest and t.phase != "dealer":
            deal(t, rest.pop(0))
    deal(t, *rest)
    return t


def test_633b28_a_follows_blackjack_otherwise() -> None:
    """§ 633b.28(a): hitting, standing, doubling, splitting as in Blackjack."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    draw(t, 12, 2)
    deal(t, "8S", "9H", "8D", "7C")
    assert set(t.expecting().legal) == {"hit", "stand", "double", "split", "surrender"}


def test_633b28_b_layout() -> None:
    """§ 633b.28(b)(2)-(7), baseline §6: areas, inscriptions word for word, paytables."""
    lay = layout_for(load_rules(V))
    assert lay["inscriptions"] == [
        "Blackjack pays 3 to 2",
        "Insurance pays 2 to 1",
        "Dealer shall draw to hard 16 and stand on all 17s",
    ]
    assert set(lay["betting_areas"]) == {"blackjack", "activator", "insurance"}  # (b)(2),(3),(5)
    rows = dict(r for p in lay["paytables"] for r in p["rows"])
    # (b)(6), (b)(7): the multiplied odds for every multiplier, derived from the rules
    assert rows["Winning hand on the Bingo target, 10x"] == "10 to 1"
    assert rows["Blackjack on Bingo target 21, 10x"] == "15 to 1"
    assert rows["Blackjack on Bingo target 21, 5x"] == "15 to 2"
    assert rows["Winning hand on the Bingo target, 100x"] == "100 to 1"
    assert rows["Double Down wager on the Bingo target"] == "1 to 1"
    assert rows["Bingo targets"] == "12, 13, 14, 15, 16, 17, 18, 19, 20, 21"


def test_633b28_b7_public_view_shows_target_and_multiplier() -> None:
    """§ 633b.28(b)(7): a means of indicating the target and the multiplier."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    assert t.public_view()["bingo"] == {"target": None, "multiplier": None}
    draw(t, 17, 25)
    assert t.public_view()["bingo"] == {"target": 17, "multiplier": 25}


def test_633b28_c_eight_decks() -> None:
    """§ 633b.28(c): eight decks; any other number is refused."""
    assert load_rules(V).decks == 8
    with pytest.raises(ConfigError, match=r"rules\.decks"):
        load_rules(V, {"decks": 6})


def test_633b28_d_activator_is_20_percent() -> None:
    """§ 633b.28(d): the activator is 20% of the Blackjack wager, placed with it."""
    t = variant_game(V, seats=1)
    t.apply(Wager(1, 2500))
    assert t.seats[0].side == {"activator": 500}
    assert t.seats[0].credits == START - 3000
    t = variant_game(V, seats=1, wager_unit=5, min_wager=5)
    t.apply(Wager(1, 505))
    assert t.seats[0].side == {"activator": 101}


@pytest.mark.parametrize("unit", [1, 2, 3, 50 + 1])
def test_633b28_d_wager_unit_must_make_the_activator_whole_cents(unit: int) -> None:
    """baseline §3: wager_unit must make 20% a whole number of cents (validated)."""
    with pytest.raises(ConfigError, match=r"rules\.wager_unit"):
        load_rules(V, {"wager_unit": unit, "min_wager": unit * 100, "max_wager": unit * 1000})


def test_633b28_d_activator_not_increased_by_splits_or_doubles() -> None:
    """baseline §3: splits and doubles leave the activator as it was."""
    t = play(20, 2, ("8S", "9H", "8D", "7C", "3H", "TD", "2C"), ((1, "split"), (1, "double")))
    assert t.seats[0].side == {"activator": 200}


def test_633b28_e_rng_draw_after_wagers_before_the_first_card() -> None:
    """§ 633b.28(e), (e)(1), (e)(2): the engine asks for the draw before any card."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    e = t.expecting()
    assert (t.phase, e.kind) == ("rng", "draw")
    assert e.draw == {"bingo_target": tuple(range(12, 22)),
                      "bingo_multiplier": (2, 5, 10, 25, 50, 100)}
    for bad in ({"bingo_target": 11, "bingo_multiplier": 2},
                {"bingo_target": 12, "bingo_multiplier": 3},
                {"bingo_target": 12}):
        refused(t, Draw(bad, forced=True))
    draw(t, 12, 2)
    assert t.expecting().kind == "card"


def test_633b28_e_card_before_the_draw_tilts() -> None:
    """§ 633b.28(e)-(f): no card may leave the shoe before the target is revealed."""
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    t.apply(Card("AS"))
    assert t.phase == "tilt"


def test_forced_draw_refused_in_production() -> None:
    """issue 4 point 5: a forced draw is a bench power; production refuses it."""
    t = variant_game(V, seats=1, bench=False)
    bet(t, (1, 1000))
    why = refused(t, Draw({"bingo_target": 21, "bingo_multiplier": 100}, forced=True))
    assert "bench" in why and "production" in why
    t.apply(Draw({"bingo_target": 21, "bingo_multiplier": 100}, record={"rng": "ctr-drbg"}))
    assert t.expecting().kind == "card"


def test_633b28_g1_i_A_one_to_one_at_10x_pays_10_to_1() -> None:
    """§ 633b.28(g)(1)(i)(A): a 1 to 1 win on the target at 10x is paid 10 to 1."""
    t = play(19, 10, ("TS", "TH", "9D", "7C"), ((1, "stand"),))
    assert t.seats[0].hands[0].paid == 11_000
    assert net(t) == 10_000 - 200


def test_633b28_g1_i_B_blackjack_on_21_at_10x_pays_15_to_1() -> None:
    """§ 633b.28(g)(1)(i)(B): Blackjack on target 21 at 10x is paid 15 to 1 (30 to 2)."""
    t = play(21, 10, ("AS", "9H", "KD", "7C"))
    assert t.seats[0].hands[0].paid == 16_000
    assert net(t) == 15_000 - 200
    assert t.public_view()["seats"][0]["hands"][0]["bingo_hit"] is True


def test_633b28_g1_i_split_hands_count() -> None:
    """baseline §3: a split hand on the target is multiplied too."""
    # 8 8 split; hand 1: 8 T = 18 (target) stands; hand 2: 8 9 = 17 stands; dealer 9 7 = 16,
    # draws 2 = 18: hand 1 pushes on the target, hand 2 loses
    t = play(18, 5, ("8S", "9H", "8D", "7C", "TH", "9C", "2D"),
             ((1, "split"), (1, "stand"), (2, "stand")))
    assert [h.result for h in t.seats[0].hands] == ["push", "lose"]
    # now a split hand that wins on the target: dealer busts instead
    t = play(18, 5, ("8S", "9H", "8D", "7C", "TH", "9C", "TD"),
             ((1, "split"), (1, "stand"), (2, "stand")))
    assert [h.paid for h in t.seats[0].hands] == [6000, 2000]
    assert net(t) == 5000 + 1000 - 200


def test_633b28_g1_ii_activator_never_returned() -> None:
    """§ 633b.28(g)(1)(ii): the activator is not returned, win or lose."""
    t = play(12, 2, ("TS", "TH", "9D", "8C"), ((1, "stand"),))
    assert net(t) == 1000 - 200  # 19 beats 18 at 1 to 1, not on the target
    t = play(19, 100, ("TS", "TH", "9D", "KC"), ((1, "stand"),))
    assert net(t) == -1200


def test_633b28_g2_target_matching_push() -> None:
    """§ 633b.28(g)(2): on the target but equal to the dealer: push, activator lost."""
    t = play(20, 100, ("TS", "TH", "KD", "QC"), ((1, "stand"),))
    assert t.seats[0].hands[0].result == "push"
    assert net(t) == -200
    assert t.public_view()["seats"][0]["hands"][0]["bingo_hit"] is False


def test_633b28_g_losing_hand_on_target_is_lost() -> None:
    """§ 633b.28(g)(1): only a WINNING Blackjack wager is multiplied."""
    t = play(18, 100, ("TS", "TH", "8D", "9C"), ((1, "stand"),))
    assert net(t) == -1200


def test_633b28_h_exempt_from_payout_limitation() -> None:
    """§ 633b.28(h): max_payout_per_round does not cap the multiplied win."""
    t = play(20, 100, ("TS", "TH", "KD", "9C"), ((1, "stand"),), wager=1000,
             max_payout_per_round=5000)
    assert net(t) == 100_000 - 200


def test_baseline_3_double_down_paid_1_to_1_unless_multiplier_on_double() -> None:
    """baseline §3: the Double Down wager is not a Blackjack wager: 1 to 1 by default."""
    cards = ("6S", "9H", "5D", "8C", "9D")  # 11 doubles to 20; dealer 17
    t = play(20, 10, cards, ((1, "double"),))
    assert net(t) == 10_000 + 1000 - 200
    t = play(20, 10, cards, ((1, "double"),), multiplier_on_double=True)
    assert net(t) == 10_000 + 10_000 - 200
    rows = dict(r for p in layout_for(t.rules)["paytables"] for r in p["rows"])
    assert rows["Double Down wager on the Bingo target"] == "its odds x the multiplier"


def test_baseline_3_blackjack_not_on_target_pays_3_to_2() -> None:
    """§ 633b.28(b)(4)(i), (g): off the target a Blackjack pays 3 to 2."""
    t = play(20, 100, ("AS", "9H", "KD", "7C"))
    assert net(t) == 1500 - 200


def test_baseline_3_dealer_stands_on_soft_17() -> None:
    """§ 633b.28(b)(4)(iii), baseline §3: the dealer stands on all 17s, soft included."""
    t = play(12, 2, ("TS", "6H", "8D", "AC"), ((1, "stand"),))
    assert t.phase == "settled" and t.dealer.total == 17
    with pytest.raises(ConfigError, match="dealer_hits_soft_17"):
        load_rules(V, {"dealer_hits_soft_17": True})


def test_baseline_3_weights_are_integer_rs_settings_not_uniform() -> None:
    """baseline §3: integer weight tables, overridable, never uniform by default."""
    r = load_rules(V)
    tw, mw = r.settings["target_weights"], r.settings["multiplier_weights"]
    assert set(tw) == {str(t) for t in range(12, 22)} and all(isinstance(w, int) for w in
                                                                  tw.values())
    assert set(mw) == {"2", "5", "10", "25", "50", "100"}
    assert len(set(tw.values())) > 1 and len(set(mw.values())) > 1
    r2 = load_rules(V, {"multiplier_weights": {"2": 1, "100": 0}})
    assert r2.settings["multiplier_weights"]["100"] == 0
    with pytest.raises(ConfigError, match="multiplier_weights"):
        load_rules(V, {"multiplier_weights": {"3": 1}})
    with pytest.raises(ConfigError, match="target_weights"):
        load_rules(V, {"target_weights": {"12": 1.5}})


def test_baseline_3_draw_is_an_input_replayed_exactly() -> None:
    """§ 633b.28(e), principle 1: the draw is an input; replay gives the same round."""
    t = variant_game(V, seats=1)
    inputs = [CreditsIn(1, START), Wager(1, 1000), CloseBetting(),
              Draw({"bingo_target": 21, "bingo_multiplier": 50}, forced=True),
              *[Card(c) for c in ("AS", "9H", "KD", "7C")]]
    for inp in inputs[1:]:
        t.apply(inp)
    assert t.seats[0].hands[0].paid == 1000 + 75_000  # 3 to 2 x 50 = 75 to 1
    again = replay(t.rules, inputs, seats=1, bench=True, shoe_in_play=True)
    assert again.private_view() == t.private_view()


def test_633b28_f_after_the_reveal_the_round_follows_633a7() -> None:
    """§ 633b.28(f): once the target and multiplier are revealed, dealing follows the base
    procedure (baseline §1.2): seat, dealer up, seat, hole; then decisions in seat order."""
    t = variant_game(V, seats=2)
    bet(t, (1, 1000), (2, 1000))
    draw(t, 15, 5)
    seen = []
    for c in ("2S", "3S", "4S", "5S", "6S", "KD"):
        seen.append(t.expecting().to)
        deal(t, c)
    assert seen == ["seat 1 hand 1", "seat 2 hand 1", "dealer", "seat 1 hand 1",
                    "seat 2 hand 1", "hole"]
    assert (t.expecting().kind, t.expecting().seat) == ("decision", 1)


def test_633b28_b3_separate_activator_betting_area() -> None:
    """§ 633b.28(b)(3): a separate betting area for each player's Bingo activator wager."""
    assert "activator" in layout_for(load_rules(V))["betting_areas"]
    t = variant_game(V)
    bet(t, (1, 1000), (5, 2500), close=False)
    wagers = {s["seat"]: s["wagers"] for s in t.public_view()["seats"]}
    assert all("activator" in w for w in wagers.values())
    assert (wagers[1]["activator"], wagers[5]["activator"]) == (200, 500)


def test_633b28_b4_inscriptions_word_for_word() -> None:
    """§ 633b.28(b)(4), (b)(4)(i), (b)(4)(iii): the inscriptions, each from the rule in force
    (Blackjack 3 to 2; the dealer stands on all 17s, the only value allowed)."""
    rules = load_rules(V)
    assert (rules.blackjack_pays, rules.dealer_hits_soft_17) == (Fraction(3, 2), False)
    assert layout_for(rules)["inscriptions"] == [
        "Blackjack pays 3 to 2",
        "Insurance pays 2 to 1",
        "Dealer shall draw to hard 16 and stand on all 17s",
    ]


def test_633b28_b4_ii_insurance_pays_2_to_1() -> None:
    """§ 633b.28(b)(4)(ii): "Insurance pays 2 to 1" is inscribed and paid."""
    assert layout_for(load_rules(V))["inscriptions"][1] == "Insurance pays 2 to 1"
    t = variant_game(V, seats=1)
    bet(t, (1, 1000))
    draw(t, 19, 5)
    deal(t, "9S", "AH", "8D", "KC")
    t.apply(Decision(1, 1, "insurance"))  # 500
    assert t.phase == "settled" and t.dealer_bj
    # wager -1000, activator -200, insurance +1000 (2 to 1)
    assert net(t) == -200


def test_633b28_b5_no_optional_wager_no_extra_area() -> None:
    """§ 633b.28(b)(5): an area per optional wager offered; none is, so none is drawn."""
    rules = load_rules(V)
    assert [n for m in rules.mechanisms for n in m.optional_wagers] == []
    assert sorted(layout_for(rules)["betting_areas"]) == ["activator", "blackjack", "insurance"]


def test_633b28_b6_payout_odds_of_every_permissible_wager() -> None:
    """§ 633b.28(b)(6): the layout advises the odds of the Blackjack wager, insurance, the
    activator (never returned) and every multiplied payout, derived from the rules."""
    lay = layout_for(load_rules(V, {"multiplier_on_double": True}))
    tables = {p["title"]: dict(p["rows"]) for p in lay["paytables"]}
    assert tables["Blackjack wager"] == {
        "Blackjack": "3 to 2", "Winning hand": "1 to 1", "Insurance": "2 to 1"}
    assert "never returned" in tables["Bingo activator wager"][
        "Placed with every Blackjack wager"]
    bingo = tables["Bingo target and multiplier"]
    for m in (2, 5, 10, 25, 50, 100):
        assert bingo[f"Winning hand on the Bingo target, {m}x"] == f"{m} to 1"
        bj = Fraction(3, 2) * m
        assert bingo[f"Blackjack on Bingo target 21, {m}x"] == (
            f"{bj.numerator} to {bj.denominator}")
    assert bingo["Double Down wager on the Bingo target"] == "its odds x the multiplier"
