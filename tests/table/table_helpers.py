"""Fakes of the devices around the controller, recording what it commands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivers.shoe.reports import CardDealt, ShoeReport
from firmware.table.controller import PanelHappening, ShoeHappening


class FakeShoe:
    def __init__(self) -> None:
        self.sent: list[tuple[str, ...]] = []

    def lock(self) -> None:
        self.sent.append(("LCK",))

    def unlock(self) -> None:
        self.sent.append(("ULK",))

    def new(self, decks: int) -> None:
        self.sent.append(("NEW", str(decks)))

    def led(self, mode: str) -> None:
        self.sent.append(("LED", mode))

    def query(self) -> None:
        self.sent.append(("QRY",))

    @property
    def gate(self) -> str | None:
        gates = [s[0] for s in self.sent if s[0] in ("LCK", "ULK")]
        return gates[-1] if gates else None


class FakePanel:
    def __init__(self) -> None:
        self.lit: dict[int, set[str]] = {}
        self.updates = 0

    def set_lamps(self, lit: Mapping[int, Any]) -> bool:
        self.lit = {k: set(v) for k, v in lit.items()}
        self.updates += 1
        return True


class FakeDraw:
    def __init__(self, target: int, multiplier: int) -> None:
        self.target, self.multiplier = target, multiplier

    def to_json(self) -> dict[str, Any]:
        return {"kind": "bingo-draw", "target": {"value": self.target},
                "multiplier": {"value": self.multiplier}}


class FakeRng:
    def __init__(self, target: int = 17, multiplier: int = 10) -> None:
        self.calls = 0
        self.target, self.multiplier = target, multiplier

    def draw_bingo(self, round_no: int, tw: Any, mw: Any) -> FakeDraw:
        self.calls += 1
        return FakeDraw(self.target, self.multiplier)

    def weighted_choice(self, weights: Mapping[int, int]) -> int:
        return min(weights)


def card(code: str) -> ShoeHappening:
    return ShoeHappening(CardDealt(code, raw=f"$01,CRD,{code}*0000"))


def shoe(event: ShoeReport) -> ShoeHappening:
    return ShoeHappening(event)


def press(seat: int | None, button: str) -> list[PanelHappening]:
    return [PanelHappening("press", button, seat), PanelHappening("release", button, seat)]
