"""Equivalence of the two depths: the same scenario file, engine and hil, compared.

Both runs go through the shared playback; :class:`RecordingTarget` keeps what the
playback observed at every look at the table (the starting seats, each seat's credits
before its wager, each round's outcome), reduced by the shared
:func:`~firmware.bench.compare.observe` to state, credits, first-hand results and the
dealer. The depths agree when their PASS/FAIL verdicts are the same and every
observation matches — a stronger check than both passing, since a scenario need not
state every expectation.
"""

from __future__ import annotations

from dataclasses import dataclass

from etgcore.view import ExpectingView, PublicView
from firmware.bench.compare import Observed, observe
from firmware.bench.report import Result
from firmware.bench.runner import run_one
from firmware.bench.scenario import Scenario
from firmware.bench.target import EngineTarget, TableTarget


class RecordingTarget:
    """A :class:`TableTarget` passing everything to ``inner`` and recording each view."""

    def __init__(self, inner: TableTarget) -> None:
        self.inner = inner
        self.seen: list[Observed] = []

    def start(self, scenario: Scenario) -> None:
        self.inner.start(scenario)

    def expecting(self) -> ExpectingView:
        return self.inner.expecting()

    def view(self) -> PublicView:
        v = self.inner.view()
        self.seen.append(observe(v, {s["seat"]: 0 for s in v["seats"]}))
        return v

    def set_credits(self, seat: int, cents: int) -> str | None:
        return self.inner.set_credits(seat, cents)

    def wager(self, seat: int, amount: int) -> str | None:
        return self.inner.wager(seat, amount)

    def side_wager(self, seat: int, name: str, amount: int) -> str | None:
        place = getattr(self.inner, "side_wager", None)  # optional in TableTarget
        if place is None:
            return "this depth places no side wager"
        why: str | None = place(seat, name, amount)
        return why

    def close_betting(self) -> str | None:
        return self.inner.close_betting()

    def card(self, code: str) -> str | None:
        return self.inner.card(code)

    def decide(self, seat: int, hand: int, do: str, times: int) -> str | None:
        return self.inner.decide(seat, hand, do, times)

    def draw(self, values: dict[str, int]) -> str | None:
        return self.inner.draw(values)

    def shoe_frame(self, body: str) -> str | None:
        return self.inner.shoe_frame(body)

    def console(self, press: str) -> str | None:
        return self.inner.console(press)

    def stop(self) -> None:
        self.inner.stop()


@dataclass(frozen=True)
class Comparison:
    engine: Result
    hil: Result
    differences: tuple[str, ...]

    @property
    def same(self) -> bool:
        return not self.differences


def compare_depths(path: str) -> Comparison:
    """Run ``path`` at both depths and list every way they differ."""
    from firmware.bench.hil_target import HilTarget

    eng = RecordingTarget(EngineTarget())
    hil = RecordingTarget(HilTarget())
    re = run_one(path, lambda: eng)
    rh = run_one(path, lambda: hil)
    diffs: list[str] = []
    if re.passed != rh.passed:
        diffs.append(f"engine {'PASS' if re.passed else 'FAIL'}, hil "
                     f"{'PASS' if rh.passed else 'FAIL'}: "
                     f"{'; '.join(re.problems or rh.problems)}")
    for i, (a, b) in enumerate(zip(eng.seen, hil.seen, strict=False)):
        if a != b:
            diffs.append(f"observation {i + 1}: engine {_show(a)}; hil {_show(b)}")
    if len(eng.seen) != len(hil.seen) and re.passed == rh.passed:
        diffs.append(f"engine looked {len(eng.seen)} times, hil {len(hil.seen)} times")
    return Comparison(re, rh, tuple(diffs))


def _show(o: Observed) -> str:
    seats = ", ".join(f"seat {s} {o.nets[s]} {o.results[s] or '-'}" for s in sorted(o.nets))
    return f"{o.state}, dealer {o.dealer}, {seats}"
