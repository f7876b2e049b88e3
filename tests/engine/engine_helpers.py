"""Helpers for the engine tests: a table with a shoe in play, and terse ways to drive it."""

from __future__ import annotations

import copy
import json
from typing import Any

from firmware.engine import (
    Card,
    CloseBetting,
    CreditsIn,
    Decision,
    Game,
    Rejected,
    Wager,
)
from firmware.engine.inputs import Input, input_from_json
from firmware.engine.replay import replay
from firmware.engine.rules import Rules, parse_rules_data, rules_from_json

START = 1_000_000


class Recorder:
    """Applies inputs to a table and keeps every one of them, accepted or not, in order,
    as the controller journals each input before the engine sees it."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.inputs: list[Input] = []
        self.refused = 0

    def apply(self, inp: Input) -> None:
        self.inputs.append(inp)
        try:
            self.game.apply(inp)
        except Rejected:
            self.refused += 1
            raise


def replay_as_journaled(t: Game, inputs: list[Input], shoe_in_play: bool = False) -> Game:
    """Replay the way recovery does: the rules and every input through the JSON the
    journal stores them as (the epoch's rules, the input records), then the one replay
    path of the engine."""
    rules = rules_again(t.rules)
    back = [input_from_json(json.loads(json.dumps(i.to_json()))) for i in inputs]
    return replay(rules, back, seats=t.nseats, bench=t.bench, shoe_in_play=shoe_in_play)


#: The base game these tests play, written here and not read from firmware/rules: a wager
#: or a setting added to the shipped Blackjack Rules Submission changes the shipped game,
#: not the game the tests about the engine's base rules and other wagers were written for
#: (tests/engine/test_engine_rules.py tests the shipped file itself).
TOY_RULES: dict[str, Any] = {
    "game": {
        "variant": "blackjack", "title": "Blackjack", "regulation": "test rules",
        "max_seats": 7, "deck": "standard", "insurance_pays": "2:1", "mechanisms": [],
        "hitting": True, "double_times": [1], "double_cards": "two",
        "split_any_initial": False, "split_aces_one_card": True, "surrender_refund": "1:2",
        "dealer_check": True, "payout_limit_exempt": False,
    },
    "layout": {
        "dealer_stands_soft_17": "Dealer shall draw to 16 and stand on all 17s",
        "dealer_hits_soft_17": "Dealer shall draw to 16 and hit soft 17",
        "inscriptions": [],
    },
    "settings": {
        "decks": {"default": 6, "min": 1, "max": 8},
        "burn_cards": {"default": 1, "min": 0, "max": 5},
        "double_on": {"default": "any-two", "allowed": ["any-two", "9-11", "10-11"]},
        "double_after_split": {"default": True},
        "max_hands": {"default": 4, "min": 1, "max": 8},
        "resplit_aces": {"default": False},
        "late_surrender": {"default": True},
        "dealer_hits_soft_17": {"default": False},
        "blackjack_pays": {"default": "3:2", "type": "ratio",
                           "allowed": ["3:2", "6:5", "2:1"]},
        "max_payout_per_round": {"default": "none", "type": "cents-or-none"},
        "wager_unit": {"default": 100, "min": 1, "max": 100000},
        "min_wager": {"default": 500, "min": 1, "max": 100000000},
        "max_wager": {"default": 100000, "min": 1, "max": 100000000},
    },
}
TOY_SOURCE = "test rules"


def toy_rules(overrides: dict[str, Any] | None = None, **game: Any) -> Rules:
    """:data:`TOY_RULES` with ``overrides`` of its settings and ``game`` keys changed."""
    data = copy.deepcopy(TOY_RULES)
    data["game"].update(game)
    return Rules(parse_rules_data(data, f"{TOY_SOURCE} {game}" if game else TOY_SOURCE),
                 overrides or {}, "")


def rules_again(rules: Rules) -> Rules:
    """``rules`` rebuilt from their JSON as the journal keeps them (the epoch's record):
    the tests' own rules from :data:`TOY_RULES`, a shipped game's from its file."""
    data = json.loads(json.dumps(rules.to_json()))
    if rules.file.source.startswith(TOY_SOURCE):
        return Rules(rules.file, dict(data.get("overrides", {})), "recording")
    return rules_from_json(data)


def new_game(seats: int | None = None, bench: bool = False, **overrides: Any) -> Game:
    t = Game(toy_rules(overrides), seats=seats, bench=bench, shoe_in_play=True)
    for s in range(1, t.nseats + 1):
        t.apply(CreditsIn(s, START))
    return t


def bet(t: Game, *wagers: tuple[int, int], close: bool = True) -> None:
    for seat, amount in wagers:
        t.apply(Wager(seat, amount))
    if close:
        t.apply(CloseBetting())


def deal(t: Game, *cards: str) -> None:
    for c in cards:
        t.apply(Card(c))


def do(t: Game, seat: int, hand: int, action: str, times: int = 1) -> None:
    t.apply(Decision(seat, hand, action, times))


def refused(t: Game, inp: Any) -> str:
    """Apply an input that must be refused; return the reason, check nothing changed."""
    before = t.private_view()
    try:
        t.apply(inp)
    except Rejected as exc:
        assert t.private_view() == before
        return exc.reason
    raise AssertionError(f"{inp!r} was accepted")


def net(t: Game, seat: int = 1) -> int | None:
    return t.seats[seat - 1].net


def conserved(t: Game) -> bool:
    return sum(s.credits for s in t.seats) + t.at_stake() + t.house == t.funded


def rules_with_game(overrides: dict[str, Any] | None = None, **game: Any) -> Rules:
    """The tests' own base game (:data:`TOY_RULES`) with some [game] keys changed."""
    return toy_rules(overrides, **game)
