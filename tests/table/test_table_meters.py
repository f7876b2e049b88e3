"""Issue 34, finding 1: the meters always equal the game.

A round's stakes and returns per wager kind come from the engine's own ledger, so a void
before the deal (bet, a shoe fault, VOID) returns exactly what was staked, kind by kind,
and the seat's credits meter stays equal to the game's credits."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import FakePanel, FakeShoe, card, press, shoe

from drivers.shoe.reports import ShoeFault
from firmware.engine import load_rules
from firmware.journal import Journal
from firmware.journal.meters import summarize
from firmware.table.controller import Controller
from firmware.table.recovery import open_table

PAIRED = {"blackjack": {}, "split-to-double": {"blackjack_or_bust": 500}}


def make(tmp_path: Path, variant: str) -> Controller:
    rules = load_rules(variant, {})
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 2, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    ctl.request("credits-in", {"seat": 2, "cents": 100_000})
    for h in [*press(None, "SHUFFLE"), card("2C")]:
        ctl.handle(h)
    return ctl


def play(ctl: Controller, *happenings: object) -> None:
    for h in happenings:
        for x in h if isinstance(h, list) else [h]:
            ctl.handle(x)


def seat_meter(ctl: Controller, name: str, seat: int) -> int:
    return ctl.journal.meters().get((name, seat, ""), 0)


def assert_meters_equal_the_game(ctl: Controller) -> None:
    m = summarize(ctl.journal.meters())
    assert m["balanced"], m
    for s in ctl.game.seats:
        assert seat_meter(ctl, "credits", s.number) == s.credits + ctl.game.seat_stake(s)
        assert seat_meter(ctl, "credits", s.number) == (
            seat_meter(ctl, "credits_in", s.number) - seat_meter(ctl, "credits_out", s.number)
            - seat_meter(ctl, "wagered", s.number) + seat_meter(ctl, "paid", s.number))


@pytest.mark.parametrize("variant", sorted(PAIRED))
def test_a_void_before_the_deal_returns_each_stake_as_its_kind(tmp_path: Path,
                                                              variant: str) -> None:
    """Bet, a shoe fault, VOID: the round record books every stake by its kind and
    returns each one as that kind; the meters do not move and stay balanced."""
    ctl = make(tmp_path, variant)
    play(ctl, press(1, "BET"))
    play(ctl, shoe(ShoeFault("MISREAD", raw="$03,ERR,MISREAD*9DF2")))
    assert ctl.game.phase == "tilt"
    play(ctl, press(None, "VOID"))
    assert ctl.game.phase == "voided"
    rec = list(ctl.journal.records(kinds=["round"]))[-1].body
    want = {"blackjack": 500, **PAIRED[variant]}
    assert rec["state"] == "voided"
    assert rec["stakes"] == {"1": want}
    assert rec["returns"] == {"1": want}
    assert seat_meter(ctl, "credits", 1) == 100_000 == ctl.game.seats[0].credits
    assert_meters_equal_the_game(ctl)


def test_a_void_after_a_double_returns_the_double_as_a_double(tmp_path: Path) -> None:
    ctl = make(tmp_path, "blackjack")
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("5S"), card("6H"), card("4D"),
         card("TC"))
    play(ctl, press(1, "DOUBLE"))
    assert ctl.game.seats[0].staked == 1000
    play(ctl, shoe(ShoeFault("JAM", raw="$03,ERR,JAM*0000")), press(None, "VOID"))
    rec = list(ctl.journal.records(kinds=["round"]))[-1].body
    assert rec["stakes"] == rec["returns"] == {"1": {"blackjack": 500, "double": 500}}
    assert_meters_equal_the_game(ctl)


def test_a_settled_round_books_stakes_and_returns_by_kind(tmp_path: Path) -> None:
    ctl = make(tmp_path, "split-to-double")
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("TS"), card("6H"), card("9D"),
         card("TC"))
    play(ctl, press(1, "STAND"), card("KD"))  # dealer 6+10+10 busts
    assert ctl.game.phase == "settled"
    rec = list(ctl.journal.records(kinds=["round"]))[-1].body
    assert rec["stakes"] == {"1": {"blackjack": 500, "blackjack_or_bust": 500}}
    assert sum(rec["returns"]["1"].values()) == ctl.game.seats[0].returned
    assert_meters_equal_the_game(ctl)
