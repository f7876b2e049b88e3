"""Hardware happenings to engine inputs (docs/table.md, panel conventions)."""

from __future__ import annotations

from typing import Any

from drivers.shoe.reports import (
    CardDealt,
    CommandAcked,
    CutCardReached,
    LinkDown,
    LinkUp,
    ProtocolFault,
    ShoeFault,
    ShoeHello,
    ShoeStatus,
    shoe_error,
)
from firmware.engine.inputs import Card, Console, Cut, Decision, Fault, FaultCleared, Hello, Wager
from firmware.table.devices import translate


def view(kind: str, phase: str = "betting", **exp: Any) -> dict[str, Any]:
    return {
        "phase": phase,
        "limits": {"min_wager": 500, "max_wager": 1000, "wager_unit": 100, "seats": 2},
        "expecting": {"kind": kind, "seat": exp.get("seat"), "hand": exp.get("hand"),
                      "legal": exp.get("legal", [])},
        "seats": [
            {"seat": 1, "credits": 10000, "wagers": {"blackjack": exp.get("bj", 0)}},
            {"seat": 2, "credits": 300, "wagers": {"blackjack": 0}},
        ],
    }


def test_shoe_events_become_inputs() -> None:
    assert translate.shoe_inputs(CardDealt("TD")) == [Card.of("TD")]
    assert translate.shoe_inputs(CutCardReached()) == [Cut()]
    assert translate.shoe_inputs(ShoeFault("JAM")) == [Fault("JAM", "")]
    assert translate.shoe_inputs(LinkDown("x"))[0] == Fault("LINK", "x")
    assert translate.shoe_inputs(LinkUp()) == [FaultCleared("LINK")]
    assert isinstance(translate.shoe_inputs(ShoeHello("1", "M", "1.0", "SN1"))[0], Hello)
    assert translate.shoe_inputs(ShoeStatus("READY", 3)) == [
        FaultCleared("READY")]
    assert translate.shoe_inputs(ShoeStatus("FAULT", 0)) == []
    assert translate.shoe_inputs(CommandAcked("ULK")) == []


def test_an_err_code_the_icd_does_not_name_is_a_protocol_fault() -> None:
    """The kind of a shoe error is decided once, where the frame is read (the class),
    never by matching its text downstream."""
    named = shoe_error("JAM", "gate", raw="$05,ERR,JAM,gate*0000")
    assert isinstance(named, ShoeFault) and (named.code, named.detail) == ("JAM", "gate")
    odd = shoe_error("BOO", None, raw="$05,ERR,BOO*0000")
    assert isinstance(odd, ProtocolFault) and odd.code == "BOO"
    assert translate.shoe_inputs(odd) == [
        Fault("PROTOCOL", "unknown shoe error BOO ($05,ERR,BOO*0000)")]
    refused = ProtocolFault("unknown frame type XYZ", raw="$06,XYZ*0000")
    assert refused.code == "PROTOCOL" and refused.to_dict()["event"] == "fault"
    assert translate.shoe_inputs(refused) == [
        Fault("PROTOCOL", "unknown frame type XYZ ($06,XYZ*0000)")]


def test_bet_places_minimum_then_units() -> None:
    v = view("wagers")
    assert translate.press_input("BET", 1, v) == Wager(1, 500)
    v = view("wagers", bj=500)
    assert translate.press_input("BET", 1, v) == Wager(1, 600)
    assert translate.press_input("CLEAR", 1, v) == Wager(1, 0)
    assert translate.press_input("BET", 1, view("wagers", bj=1000)) is None  # at the maximum


def test_last_rounds_wager_does_not_count_after_settlement() -> None:
    v = view("wagers", phase="settled", bj=700)
    assert translate.press_input("BET", 1, v) == Wager(1, 500)
    assert translate.press_input("CLEAR", 1, v) is None


def test_lamps_lit_only_when_accepted() -> None:
    lamps = translate.lamps_for(view("wagers"))
    assert lamps[1] == {"BET"}
    assert lamps[2] == set()  # 300 cents cannot cover the 500 minimum
    lamps = translate.lamps_for(view("decision", phase="decisions", seat=1, hand=1,
                                     legal=["hit", "stand", "double"]))
    assert lamps == {1: {"HIT", "STAND", "DOUBLE"}, 2: set()}
    lamps = translate.lamps_for(view("decision", phase="insurance", seat=2, hand=1,
                                     legal=["insurance", "no-insurance"]))
    assert lamps[2] == {"INSURANCE", "STAND"}


def test_decision_presses() -> None:
    v = view("decision", phase="decisions", seat=1, hand=2, legal=["hit", "stand"])
    assert translate.press_input("HIT", 1, v) == Decision(1, 2, "hit")
    assert translate.press_input("HIT", 2, v) is None  # not this seat's turn
    assert translate.press_input("SPLIT", 1, v) is None  # not legal now
    ins = view("decision", phase="insurance", seat=1, hand=1, legal=["insurance", "no-insurance"])
    assert translate.press_input("INSURANCE", 1, ins) == Decision(1, 1, "insurance")
    assert translate.press_input("STAND", 1, ins) == Decision(1, 1, "no-insurance")
    res = view("decision", phase="decisions", seat=1, hand=1, legal=["stand", "rescue"])
    assert translate.press_input("SURRENDER", 1, res) == Decision(1, 1, "rescue")


def test_double_sizes() -> None:
    v = view("decision", phase="decisions", seat=1, hand=1, legal=["double", "stand"])
    assert translate.press_input("DOUBLE", 1, v) == Decision(1, 1, "double", times=1)
    assert translate.press_input("DOUBLE", 1, v, double_times=(1, 2, 3, 4)) == "pending-double"


def test_console_presses_only_when_they_would_be_taken() -> None:
    assert translate.console_input("DEAL", view("wagers")) is None  # no wager yet
    assert translate.console_input("DEAL", view("wagers", bj=500)) == Console("DEAL")
    assert translate.console_input("DEAL", view("console", phase="tilt")) == Console("DEAL")
    assert translate.console_input("VOID", view("card", phase="dealing")) == Console("VOID")
    assert translate.console_input("VOID", view("wagers", phase="settled")) is None
    assert translate.console_input("SHUFFLE", view("new-shoe", phase="new-shoe")) == Console(
        "SHUFFLE")
    assert translate.console_input("SHUFFLE", view("card", phase="dealing")) is None
    assert translate.console_input("RECALL", view("wagers")) is None
