"""How the scenario playback talks to a table: one small protocol, one driver per depth.

:class:`EngineTarget` drives the game engine in-process; the hil driver
(:mod:`firmware.bench.hil_target`) implements the same methods against the table service
process (shoe simulator on a pseudo-terminal, simulated GPIO panels), so
:mod:`firmware.bench.playback`, the outcome comparison and the reports are shared by both
depths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from etgcore.view import ExpectingView, PublicView
from firmware.bench.frames import frame_inputs
from firmware.bench.scenario import Scenario
from firmware.engine.game import Game
from firmware.engine.inputs import (
    Card,
    CloseBetting,
    Console,
    CreditsIn,
    CreditsOut,
    Decision,
    Draw,
    Input,
    SideWager,
    Wager,
)
from firmware.engine.rejected import Rejected
from firmware.engine.rules import load_rules


class TableTarget(Protocol):
    """Each action returns None when the table accepted it, else the reason it refused."""

    def start(self, scenario: Scenario) -> None:
        """A table of the scenario's variant and rules, shoe in play; UserError if not."""

    def expecting(self) -> ExpectingView:
        """The table's ``expecting`` (public view JSON)."""

    def view(self) -> PublicView:
        """The table's public view."""

    def set_credits(self, seat: int, cents: int) -> str | None: ...
    def wager(self, seat: int, amount: int) -> str | None: ...
    # Optional: ``side_wager(seat, name, amount) -> str | None`` places an optional wager
    # (``push22``, our format extension); playback reports a depth without it clearly.
    def close_betting(self) -> str | None: ...
    def card(self, code: str) -> str | None: ...
    def decide(self, seat: int, hand: int, do: str, times: int) -> str | None: ...
    def draw(self, values: dict[str, int]) -> str | None: ...
    def shoe_frame(self, body: str) -> str | None: ...
    def console(self, press: str) -> str | None: ...
    def stop(self) -> None: ...


class EngineTarget:
    """The scenario against :class:`~firmware.engine.game.Game`.

    ``bench`` comes from the table configuration's mode: a production configuration
    builds a production table, which refuses a scenario's forced ``draws`` (principle 7).
    """

    def __init__(self, bench: bool = True,
                 on_applied: Callable[[Input], None] | None = None) -> None:
        self.bench = bench
        self.game: Game | None = None
        self.inputs: list[Input] = []
        #: called after each input the engine accepted (the screen tools record views)
        self.on_applied = on_applied

    def start(self, scenario: Scenario) -> None:
        rules = load_rules(scenario.variant, scenario.rules, source=f"{scenario.path}")
        self.game = Game(rules, bench=self.bench, shoe_in_play=True)
        self.inputs = []

    def _t(self) -> Game:
        assert self.game is not None, "start() first"
        return self.game

    def _send(self, inp: Input) -> str | None:
        try:
            self._t().apply(inp)
        except Rejected as exc:
            return exc.reason
        self.inputs.append(inp)
        if self.on_applied is not None:
            self.on_applied(inp)
        return None

    def expecting(self) -> ExpectingView:
        return self._t().expecting().to_json()

    def view(self) -> PublicView:
        return self._t().public_view()

    def set_credits(self, seat: int, cents: int) -> str | None:
        t = self._t()
        if not 1 <= seat <= t.nseats:
            return f"no seat {seat} at this table (seats 1..{t.nseats})"
        have = t.seats[seat - 1].credits
        if cents > have:
            return self._send(CreditsIn(seat, cents - have))
        if cents < have:
            return self._send(CreditsOut(seat, have - cents))
        return None

    def wager(self, seat: int, amount: int) -> str | None:
        return self._send(Wager(seat, amount))

    def side_wager(self, seat: int, name: str, amount: int) -> str | None:
        return self._send(SideWager(seat, name, amount))

    def close_betting(self) -> str | None:
        return self._send(CloseBetting())

    def card(self, code: str) -> str | None:
        return self._send(Card(code))

    def decide(self, seat: int, hand: int, do: str, times: int) -> str | None:
        return self._send(Decision(seat, hand, do, times))

    def draw(self, values: dict[str, int]) -> str | None:
        return self._send(Draw(values, forced=True))

    def shoe_frame(self, body: str) -> str | None:
        for inp in frame_inputs(body):  # what the controller makes of it (maybe nothing)
            why = self._send(inp)
            if why:
                return why
        return None

    def console(self, press: str) -> str | None:
        return self._send(Console(press))

    def stop(self) -> None:
        self.game = None
