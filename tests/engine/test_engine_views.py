"""Inputs as JSON, the public and private views, expecting(), layout_for (issue 3 point 5;
docs/interfaces.md; baseline §6)."""

from __future__ import annotations

import json

import pytest
from engine_helpers import bet, deal, do, new_game, toy_rules

from firmware.engine import (
    Card,
    CloseBetting,
    Console,
    CreditsIn,
    CreditsOut,
    Cut,
    Decision,
    Draw,
    Empty,
    Fault,
    FaultCleared,
    Hello,
    NewShoe,
    SideWager,
    Wager,
    input_from_json,
    layout_for,
    load_rules,
)
from firmware.engine.inputs import InputError

EVERY_INPUT = [
    CreditsIn(1, 500), CreditsOut(2, 100), Wager(3, 1000), SideWager(1, "push22", 500),
    CloseBetting(), Card("TD"), Decision(1, 1, "hit"), Decision(1, 2, "double", 3),
    Decision(2, 1, "insurance", amount=250), Draw({"bingo_target": 17}, forced=True),
    Draw({"x": 1}, record={"bits": 12}), Console("VOID"), NewShoe(), NewShoe(8), Cut(),
    Empty(), Fault("MISREAD"), Fault("JAM", "detail"), FaultCleared("READY"),
    Hello("1", "ETG-SHOE-S1", "2.3.0", "SN004211"),
]


@pytest.mark.parametrize("inp", EVERY_INPUT, ids=lambda i: i.TYPE)
def test_inputs_round_trip_json(inp: object) -> None:
    data = json.loads(json.dumps(inp.to_json()))  # type: ignore[attr-defined]
    assert input_from_json(data) == inp


def test_card_input_json_uses_the_shoe_code() -> None:
    assert Card("TD").to_json() == {"type": "card", "card": "TD"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "JSON object"),
        ({"type": "teleport"}, "unknown input type"),
        ({"type": "wager", "seat": 1}, "missing field 'amount'"),
        ({"type": "wager", "seat": "1", "amount": 5}, "wrong type"),
        ({"type": "wager", "seat": True, "amount": 5}, "wrong type"),
        ({"type": "wager", "seat": 1, "amount": 5, "x": 1}, "unknown field"),
        ({"type": "card", "card": "ZZ"}, "not a card"),
    ],
)
def test_malformed_input_json(data: object, words: str) -> None:
    with pytest.raises(InputError, match=words):
        input_from_json(data)


def test_public_view_follows_interfaces_schema() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "AD", "7C", "KH")
    pv = json.loads(json.dumps(t.public_view()))
    assert set(pv) >= {"schema", "variant", "limits", "round", "phase", "expecting", "dealer",
                       "seats", "bingo", "tilt", "shoe"}
    assert pv["limits"] == {"seats": 7, "min_wager": 500, "max_wager": 100000,
                            "wager_unit": 100}
    assert pv["phase"] == "insurance"
    assert pv["expecting"] == {"kind": "decision", "seat": 1, "hand": 1,
                               "legal": ["insurance", "no-insurance"], "to": None,
                               "why": pv["expecting"]["why"]}
    assert pv["dealer"] == {"cards": ["AD", "??"], "total": 11, "soft": True,
                            "hole_revealed": False, "blackjack": None, "bust": False}
    seat = pv["seats"][0]
    assert seat["wagers"] == {"blackjack": 1000, "insurance": 0}
    hand = seat["hands"][0]
    assert set(hand) >= {"cards", "total", "soft", "wager", "lammer", "double", "double_times",
                         "double_lammer", "status", "result", "paid", "bingo_hit"}
    assert pv["shoe"] == {"decks": 6, "cards_dealt": 4, "cut_card_seen": False,
                          "needs_new_shoe": False}
    assert "KH" not in json.dumps(pv)


def test_private_view_shows_hole_card_and_internals() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "AD", "7C", "KH")
    pv = t.private_view()
    assert pv["dealer"]["cards"] == ["AD", "KH"]
    assert pv["private"]["hole_card"] == "KH"
    assert pv["private"]["shoe"]["remaining"]["KH"] == 5
    json.dumps(pv)


def test_hole_revealed_when_dealer_blackjack_and_at_dealer_play() -> None:
    t = new_game()
    bet(t, (1, 1000))
    deal(t, "TS", "AD", "7C", "KH")
    do(t, 1, 1, "no-insurance")
    pv = t.public_view()
    assert pv["dealer"]["cards"] == ["AD", "KH"] and pv["dealer"]["blackjack"] is True
    assert pv["seats"][0]["net"] == -1000 and pv["phase"] == "settled"


def test_expecting_each_kind() -> None:
    from firmware.engine import Game

    t = Game(load_rules())
    assert t.expecting().kind == "new-shoe"
    t.apply(NewShoe())
    assert t.expecting().to == "burn"
    t.apply(Card("2C"))
    assert t.expecting().kind == "wagers"
    t.apply(Fault("LID"))
    assert t.expecting().kind == "console" and "clear the fault" in t.expecting().why
    assert t.expecting().to_json()["kind"] == "console"


def test_baseline_6_layout_inscriptions_derived_from_rules() -> None:
    lay = layout_for(toy_rules())  # the tests' own base game: no wager of the shipped one
    assert lay["title"] == "Blackjack" and lay["max_seats"] == 7
    assert lay["inscriptions"][:3] == [
        "Blackjack pays 3 to 2", "Insurance pays 2 to 1",
        "Dealer shall draw to 16 and stand on all 17s",
    ]
    assert lay["betting_areas"] == ["blackjack", "insurance"]
    assert lay["paytables"][0]["rows"][0] == ["Blackjack", "3 to 2"]
    h17 = layout_for(toy_rules({"dealer_hits_soft_17": True, "blackjack_pays": "6:5",
                                "max_payout_per_round": 5000000}))
    assert h17["inscriptions"][0] == "Blackjack pays 6 to 5"
    assert h17["inscriptions"][2] == "Dealer shall draw to 16 and hit soft 17"
    assert h17["paytables"][0]["rows"][-1][1] == "$50,000.00"


def test_replay_through_the_journal_json_round_trip() -> None:
    from engine_helpers import Recorder, replay_as_journaled

    from firmware.engine import Game

    t = Game(load_rules(), shoe_in_play=True)
    rec = Recorder(t)
    for inp in (CreditsIn(1, 5000), Wager(1, 1000), CloseBetting(), Card("TS"), Card("8H"),
                Card("9D"), Card("KC"), Decision(1, 1, "stand")):
        rec.apply(inp)
    again = replay_as_journaled(t, rec.inputs, shoe_in_play=True)
    assert again.private_view() == t.private_view()
    assert again.seats[0].net == t.seats[0].net == 1000
