"""The extension points issue 4 builds on, each exercised by a toy mechanism or a [game] key.

These toys are NOT the variations; they only prove that a paired wager, an RNG draw
phase, lammers, a dealer rule, bonus odds, rescue, 1x-4x doubles, no hitting, splits of
any two cards, a 48-card deck and optional side wagers need only rules data and small
mechanism classes (docs/engine.md, "Extension points").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from engine_helpers import START, bet, conserved, deal, do, net, refused, rules_with_game

from firmware.engine import (
    CreditsIn,
    Draw,
    DrawRequest,
    Game,
    Mechanism,
    RoundView,
    SideWager,
    Wager,
    WagerSpec,
    layout_for,
    register_mechanism,
)
from firmware.engine.hand import RESCUED, Hand, Seat
from firmware.engine.settle import Ledger


@register_mechanism
class BustBet(Mechanism):
    name = "test-bust-bet"
    wagers = (WagerSpec("bust_bet", "BUST BET"),)

    def paired_wagers(self, view: RoundView, seat: Seat, amount: int) -> dict[str, int]:
        return {"bust_bet": amount}

    def dealer_needed(self, view: RoundView) -> bool:
        return True

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        stake = seat.side["bust_bet"]
        if view.dealer.total > 21:
            ledger.win("bust_bet", stake, Fraction(1))
        else:
            ledger.lose("bust_bet", stake)

    def paytables(self, rules: Any) -> list[dict[str, Any]]:
        return [{"title": "Bust bet", "rows": [["Dealer busts", "1 to 1"]]}]


@register_mechanism
class TargetDraw(Mechanism):
    name = "test-draw"

    def draw_request(self, view: RoundView) -> DrawRequest:
        return DrawRequest({"target": tuple(range(12, 22)), "multiplier": (2, 5, 10)},
                           "draw the target")

    def apply_draw(self, view: RoundView, values: dict[str, int]) -> dict[str, Any]:
        return {"target": values["target"]}

    def public_fields(self, view: RoundView) -> dict[str, Any]:
        return {"bingo": {"target": view.notes.get("target"), "multiplier": None}}


@register_mechanism
class FreeSplit(Mechanism):
    name = "test-free-split"

    def split_stake(self, view: RoundView, seat: Seat, hand: Hand) -> tuple[int, bool]:
        return (seat.wager, True)

    def double_stake(self, view: RoundView, seat: Seat, hand: Hand, times: int) -> tuple[int, bool]:
        return (seat.wager * times, True)


@register_mechanism
class Dealer22Pushes(Mechanism):
    name = "test-dealer-22"

    def hand_result(self, view: RoundView, seat: Seat, hand: Hand, result: str) -> str:
        return "push" if view.dealer.total == 22 else result


@register_mechanism
class FiveCard21(Mechanism):
    name = "test-five-card-21"

    def hand_odds(
        self, view: RoundView, seat: Seat, hand: Hand, part: str, odds: Fraction
    ) -> Fraction:
        if part == "wager" and len(hand.cards) == 5 and hand.total == 21 and not hand.double:
            return Fraction(3, 2)
        return odds


@register_mechanism
class Rescue(Mechanism):
    name = "test-rescue"

    def keeps_turn_after_double(self, view: RoundView, seat: Seat, hand: Hand) -> bool:
        return True

    def adjust_legal(self, view: RoundView, seat: Seat, hand: Hand, legal: list[str]) -> None:
        if view.post_double:
            legal.append("rescue")

    def custom_action(self, view: RoundView, seat: Seat, hand: Hand, action: str) -> bool:
        if action == "rescue":
            hand.status = RESCUED
            return True
        return False


@register_mechanism
class Push22Side(Mechanism):
    name = "test-side"
    wagers = (WagerSpec("side22", "SIDE 22", optional=True),)

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        stake = seat.side.get("side22", 0)
        if stake and view.dealer.total == 22:
            ledger.win("side22", stake, Fraction(11))


def make(bench: bool = False, seats: int | None = None, **game: Any) -> Game:
    t = Game(rules_with_game(**game), seats=seats, bench=bench, shoe_in_play=True)
    for s in range(1, t.nseats + 1):
        t.apply(CreditsIn(s, START))
    return t


def test_paired_wager_placed_with_main_settled_and_voided() -> None:
    t = make(mechanisms=["test-bust-bet"])
    t.apply(Wager(1, 1000))
    assert t.seats[0].credits == START - 2000
    assert t.public_view()["seats"][0]["wagers"]["bust_bet"] == 1000
    bet(t, close=True)
    deal(t, "TS", "6H", "8D", "TC")
    do(t, 1, 1, "stand")
    deal(t, "9S")  # dealer 25
    assert net(t) == 2000 and conserved(t)
    assert "bust_bet" in layout_for(t.rules)["betting_areas"]
    assert layout_for(t.rules)["paytables"][-1]["title"] == "Bust bet"


def test_dealer_needed_hook_keeps_dealer_drawing_after_all_bust() -> None:
    t = make(mechanisms=["test-bust-bet"])
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "8D", "TC")
    do(t, 1, 1, "hit")
    deal(t, "KD")  # player busts; the paired wager still depends on the dealer
    assert t.expecting().to == "dealer"


def test_rng_draw_phase_forced_only_in_bench_mode() -> None:
    prod = make(mechanisms=["test-draw"])
    bet(prod, (1, 1000))
    e = prod.expecting()
    assert e.kind == "draw" and e.draw["target"] == tuple(range(12, 22))
    assert prod.phase == "rng"
    assert "bench power" in refused(prod, Draw({"target": 17, "multiplier": 5}, forced=True))
    assert "not one of" in refused(prod, Draw({"target": 30, "multiplier": 5}))
    assert "must give" in refused(prod, Draw({"target": 17}))
    prod.apply(Draw({"target": 17, "multiplier": 5}, record={"bits": 64}))
    assert prod.public_view()["bingo"]["target"] == 17
    assert prod.expecting().to == "seat 1 hand 1"
    bench = make(bench=True, mechanisms=["test-draw"])
    bet(bench, (1, 1000))
    bench.apply(Draw({"target": 21, "multiplier": 10}, forced=True))
    assert bench.phase == "dealing"


def test_lammer_split_and_free_double_cost_nothing() -> None:
    t = make(mechanisms=["test-free-split"])
    bet(t, (1, 1000))
    deal(t, "8S", "9D", "8C", "7H")
    do(t, 1, 1, "split")
    assert t.seats[0].credits == START - 1000
    deal(t, "3D")
    do(t, 1, 1, "double")  # free double: a lammer
    deal(t, "TC")  # 21
    deal(t, "TH")  # second hand 18
    do(t, 1, 2, "stand")
    deal(t, "8H")  # dealer 24
    pv = t.public_view()["seats"][0]["hands"]
    assert pv[1]["lammer"] is True and pv[0]["double_lammer"] is True
    assert net(t) == 1000 + 1000 + 1000  # wager, lammer double and lammer hand each win 1:1
    assert conserved(t)


def test_dealer_rule_mechanism_22_pushes() -> None:
    t = make(mechanisms=["test-dealer-22"])
    bet(t, (1, 1000))
    deal(t, "TS", "6H", "9D", "TC")
    do(t, 1, 1, "stand")
    deal(t, "6S")  # dealer 22
    assert net(t) == 0 and t.seats[0].hands[0].result == "push"


def test_bonus_odds_mechanism() -> None:
    t = make(mechanisms=["test-five-card-21"])
    bet(t, (1, 1000))
    deal(t, "2S", "TH", "3D", "8C")
    for c in ("4S", "5S"):
        do(t, 1, 1, "hit")
        deal(t, c)
    do(t, 1, 1, "hit")
    deal(t, "7C")  # 2+3+4+5+7 = 21 in five cards, stands by itself
    assert net(t) == 1500


def test_rescue_custom_action_after_double() -> None:
    t = make(mechanisms=["test-rescue"])
    bet(t, (1, 1000))
    deal(t, "6S", "TH", "5D", "8C")
    do(t, 1, 1, "double")
    deal(t, "2C")  # 13 after the double: the player may rescue
    assert t.expecting().legal == ("stand", "rescue")
    do(t, 1, 1, "rescue")
    assert t.phase == "settled"
    assert net(t) == -1000  # double returned, original lost
    assert t.seats[0].hands[0].result == "rescue"


def test_doubles_1x_to_4x_of_initial_wager() -> None:
    t = make(double_times=[1, 2, 3, 4])
    bet(t, (1, 1000))
    deal(t, "6S", "TH", "5D", "7C")
    assert "not allowed" in refused(t, __import__("firmware.engine", fromlist=["Decision"])
                                    .Decision(1, 1, "double", 5))
    do(t, 1, 1, "double", times=3)
    assert t.seats[0].hands[0].double == 3000
    deal(t, "TC")  # 21
    deal(t, "5H")  # dealer 22
    assert net(t) == 4000


def test_no_hitting_and_split_any_initial_two_cards() -> None:
    t = make(hitting=False, split_any_initial=True)
    bet(t, (1, 1000))
    deal(t, "9S", "TH", "5D", "7C")
    legal = t.expecting().legal
    assert "hit" not in legal and "split" in legal
    do(t, 1, 1, "split")
    deal(t, "9D")  # 9,9 made by a split: identical value, may split again
    assert "split" in t.expecting().legal
    do(t, 1, 1, "stand")
    deal(t, "6C")  # 5,6 after a split: not identical, no split
    assert "split" not in t.expecting().legal


def test_split_aces_play_on_and_double_on_any_number_of_cards() -> None:
    t = make(split_aces_one_card=False, double_cards="any")
    bet(t, (1, 1000))
    deal(t, "AS", "TH", "AD", "7C")
    do(t, 1, 1, "split")
    deal(t, "2C")
    assert "hit" in t.expecting().legal
    do(t, 1, 1, "hit")
    deal(t, "2D")  # A,2,2: three cards
    assert "double" in t.expecting().legal


def test_optional_side_wager() -> None:
    t = make(mechanisms=["test-side"])
    assert "place the Blackjack wager first" in refused(t, SideWager(1, "side22", 500))
    t.apply(Wager(1, 1000))
    assert "offers no optional wager" in refused(t, SideWager(1, "lucky", 500))
    t.apply(SideWager(1, "side22", 500))
    t.apply(Wager(1, 2000))  # changing the main wager keeps the optional one
    assert t.seats[0].side == {"side22": 500} and t.seats[0].credits == START - 2500
    bet(t)
    deal(t, "TS", "6H", "9D", "TC")
    do(t, 1, 1, "stand")
    deal(t, "6S")  # dealer 22: main wins 2000, side22 pays 11 to 1
    assert net(t) == 2000 + 5500


def test_max_seats_from_rules() -> None:
    with pytest.raises(Exception, match="at most 6"):
        make(max_seats=6, seats=7)
    assert make(max_seats=6).nseats == 6
