"""Public views of a scenario's first round, played through the engine, for the screen.

The demo window, the README pictures, ``etg ui snapshot --scenario`` and the UI's speed
figures all draw real engine output, never hand-made views: the bench plays a scenario
(bench mode: a scenario may force the RNG's draws) and hands the views to :mod:`ui`,
which draws them and knows nothing of scenarios.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from etgcore.errors import UserError
from etgcore.view import PublicView
from firmware.bench.errors import BenchError
from firmware.bench.playback import play_scenario
from firmware.bench.scenario import load_scenario
from firmware.bench.target import EngineTarget


def recorded_round(scenario: str) -> list[PublicView]:
    """The public view after every accepted input of the scenario's first round."""
    views: list[PublicView] = []
    driver = EngineTarget(on_applied=lambda _inp: views.append(driver.view()))
    sc = load_scenario(scenario)
    problems = play_scenario(dataclasses.replace(sc, rounds=sc.rounds[:1]), driver)
    if problems:
        raise UserError(f"{scenario}: {problems[0]}")
    return views


class _Enough(BenchError):
    """Raised inside playback once the wanted number of cards has been dealt."""

    def __init__(self, view: PublicView) -> None:
        super().__init__("enough cards")
        self.view = view


class _StoppingDriver(EngineTarget):
    """An engine driver that stops the playback right after the ``limit``-th card."""

    def __init__(self, limit: int | None) -> None:
        super().__init__()
        self.limit = limit
        self.dealt = 0
        self.last: PublicView | None = None

    def card(self, code: str) -> str | None:
        if self.limit == 0:  # the state before the first card
            raise _Enough(self.view())
        why = super().card(code)
        if why is None:
            self.dealt += 1
            if self.dealt == self.limit:  # the state right after the K-th card
                raise _Enough(self.view())
        return why

    def stop(self) -> None:  # keep the table: its rules go with the view
        if self.game is not None:
            self.last = self.view()

    def rules(self) -> Any:
        assert self.game is not None, "start() first"
        return self.game.rules


def scenario_view(path: str, after_card: int | None) -> tuple[PublicView, Any]:
    """(public view, rules) of the scenario's first round after ``after_card`` cards.

    ``None`` plays the whole first round.
    """
    try:
        scenario = load_scenario(path)
    except UserError as exc:
        raise UserError(f"{path}: {exc}") from None
    if not scenario.rounds:
        raise UserError(f"{path}: the scenario has no round")
    first = dataclasses.replace(scenario, rounds=scenario.rounds[:1])
    driver = _StoppingDriver(after_card)
    try:
        problems = play_scenario(first, driver)
    except _Enough as enough:
        return enough.view, driver.rules()
    if problems:
        raise UserError(f"{path}: round 1 does not play: {problems[0]}")
    assert driver.last is not None
    if after_card is not None and driver.dealt < after_card:
        raise UserError(f"{path}: round 1 deals only {driver.dealt} cards, not {after_card}")
    return driver.last, driver.rules()
