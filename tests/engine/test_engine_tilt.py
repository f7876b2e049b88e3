"""Faults, impossible cards, shoe restarts and the console (shoe ICD §6, baseline §1.13)."""

from __future__ import annotations

import pytest
from engine_helpers import START, bet, conserved, deal, do, net, new_game, refused, rules_with_game

from firmware.engine import (
    Card,
    Console,
    CreditsIn,
    CreditsOut,
    Decision,
    Empty,
    Fault,
    FaultCleared,
    Game,
    Hello,
    NewShoe,
    Wager,
    load_rules,
)


def test_shoe_icd_6_misread_tilts_nothing_settles_deal_resumes() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H", "9D")
    t.apply(Fault("MISREAD"))
    assert t.phase == "tilt"
    e = t.expecting()
    assert e.kind == "console"
    pv = t.public_view()
    assert pv["tilt"]["code"] == "MISREAD" and "DEAL" in pv["tilt"]["resolve"]
    assert "tilted" in refused(t, CreditsOut(1, 10))
    assert "no decision" in refused(t, Decision(1, 1, "stand"))
    t.apply(Console("DEAL"))
    assert t.expecting().to == "hole"
    deal(t, "KC")
    do(t, 1, 1, "stand")
    assert net(t) == 1000


def test_shoe_icd_6_card_while_tilted_is_not_dealt() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS")
    t.apply(Fault("DOUBLE"))
    t.apply(Card("2C"))
    assert len(t.tilt.causes) == 2 if t.tilt else False
    assert t.dealer.cards == []
    t.apply(Console("DEAL"))
    assert t.expecting().to == "dealer"


@pytest.mark.parametrize("code", ["JAM", "LID", "SENSOR", "LINK"])
def test_shoe_icd_6_persistent_fault_must_clear_before_resume(code: str) -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H")
    t.apply(Fault(code))
    assert "still active" in refused(t, Console("DEAL"))
    t.apply(FaultCleared())
    t.apply(Console("DEAL"))
    assert t.phase == "dealing"


def test_shoe_icd_6_hello_mid_round_tilts_cards_stay() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H")
    t.apply(Hello("1", "ETG-SHOE", "2.3.0", "SN1"))
    assert t.phase == "tilt" and t.tilt is not None and t.tilt.code == "HEL"
    assert t.seats[0].hands[0].cards and t.dealer.cards
    t.apply(Console("DEAL"))
    deal(t, "9D", "KC")
    assert t.expecting().kind == "decision"


def test_hello_between_rounds_is_no_tilt() -> None:
    t = new_game()
    t.apply(Hello())
    assert t.phase == "betting"


def test_shoe_icd_6_card_when_none_due_tilts() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "8H", "9D", "KC")
    t.apply(Card("2S"))  # a decision is due, not a card
    assert t.phase == "tilt" and t.tilt is not None and t.tilt.code == "UNEXPECTED"
    t.apply(Console("DEAL"))
    assert t.expecting().kind == "decision"


def test_issue3_impossible_card_tilts_more_copies_than_shoe_holds() -> None:
    t = Game(load_rules("blackjack", {"decks": 1}), shoe_in_play=True)
    t.apply(CreditsIn(1, START))
    bet(t, (1, 1000))
    deal(t, "AS", "AS")
    assert t.phase == "tilt" and t.tilt is not None and t.tilt.code == "BADCARD"
    assert "already read" in t.public_view()["tilt"]["cause"]
    assert t.dealer.cards == []
    t.apply(Console("VOID"))
    assert t.seats[0].credits == START


def test_issue3_card_that_cannot_be_in_a_spanish_shoe_tilts() -> None:
    t = Game(rules_with_game(deck="spanish"), shoe_in_play=True)
    t.apply(CreditsIn(1, START))
    bet(t, (1, 1000))
    deal(t, "TD")
    assert t.tilt is not None and "cannot be in a spanish shoe" in t.tilt.causes[0]


def test_tilt_then_void_returns_all_wagers_including_double_and_insurance() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "6S", "AH", "5C", "7D")
    do(t, 1, 1, "insurance")
    do(t, 1, 1, "double")
    t.apply(Fault("JAM"))
    assert t.at_stake() == 2500
    t.apply(Console("VOID"))
    assert t.seats[0].credits == START and net(t) == 0 and conserved(t)


def test_empty_shoe_tilts_and_needs_a_new_shoe_after() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS")
    t.apply(Empty())
    assert t.phase == "tilt"
    t.apply(Console("VOID"))
    assert t.expecting().kind == "new-shoe"


def test_new_shoe_only_between_rounds_with_rules_decks() -> None:
    t = new_game()
    bet(t, (1, 1000))
    assert "between rounds" in refused(t, Console("SHUFFLE"))
    t2 = new_game()
    assert "6 decks" in refused(t2, NewShoe(4))
    t2.apply(NewShoe(6))
    assert t2.expecting().to == "burn"


def test_console_deal_closes_betting() -> None:
    t = new_game()
    t.apply(Wager(1, 1000))
    t.apply(Console("DEAL"))
    assert t.phase == "dealing"
    assert "unknown console" in refused(t, Console("RECALL"))


def test_empty_shoe_between_rounds_waits_for_new_shoe_keeping_wagers() -> None:
    t = new_game()
    t.apply(Wager(1, 1000))
    t.apply(Empty())
    assert t.expecting().kind == "new-shoe"
    assert "new shoe" in refused(t, Console("DEAL"))
    t.apply(Console("SHUFFLE"))
    deal(t, "5C")  # burn
    assert t.seats[0].wager == 1000
    t.apply(Console("DEAL"))
    assert t.phase == "dealing"
