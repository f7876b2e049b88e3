"""Helpers for the engine tests: a table with a shoe in play, and terse ways to drive it."""

from __future__ import annotations

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
    load_rules,
)
from firmware.engine.inputs import Input, input_from_json
from firmware.engine.replay import replay
from firmware.engine.rules import rules_from_json

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
    rules = rules_from_json(json.loads(json.dumps(t.rules.to_json())))
    back = [input_from_json(json.loads(json.dumps(i.to_json()))) for i in inputs]
    return replay(rules, back, seats=t.nseats, bench=t.bench, shoe_in_play=shoe_in_play)


def new_game(seats: int | None = None, bench: bool = False, **overrides: Any) -> Game:
    t = Game(load_rules("blackjack", overrides), seats=seats, bench=bench, shoe_in_play=True)
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


def rules_with_game(overrides: dict[str, Any] | None = None, **game: Any) -> Any:
    """The blackjack Rules Submission with some [game] keys changed (test rule sets)."""
    import tomllib

    from firmware.engine.rules import Rules, parse_rules_data, rules_path

    data = tomllib.loads(rules_path("blackjack").read_text(encoding="utf-8"))
    data["game"].update(game)
    return Rules(parse_rules_data(data, f"test rules {game}"), overrides or {}, "")
