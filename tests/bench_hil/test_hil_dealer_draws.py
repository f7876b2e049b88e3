"""baseline §1.6 and §1.10 at both depths: what the table asks, not only what it pays.

A scenario's outcome cannot tell "the table asked and the bench kept the double" from "the
table did not ask", nor "the dealer did not draw" from "the dealer drew and it made no
difference". So this test plays ``spanish21/19-all-21s-dealer-only-reveals.toml`` through
a driver that records every ``expecting()`` at each depth and checks that in round 1:

- the doubled 21 was offered the rescue (§ 635a.10(d): "not in excess of 21"), and the
  file scripting no answer kept the double;
- no card was asked for the dealer after the deal (baseline §1.10): every standing hand
  is a 21.

At hil depth the shoe is stacked the way a real one is: the moment round 1 is settled,
the card the dealer would have drawn is already handed to the bench shoe. It may only
leave when the controller opens the gate for round 2's first card (shoe ICD §5: the gate
stays locked whenever no card is due); had the table opened the gate for a dealer draw
the rules skip, the card would leave during betting and the table would tilt on a card
nobody asked for, failing round 2.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from firmware.bench.hil_compare import RecordingTarget
from firmware.bench.hil_service import ACT_TIMEOUT_S, ServiceError
from firmware.bench.playback import play_scenario
from firmware.bench.scenario import load_scenario
from firmware.bench.target import EngineTarget, TableTarget

SCENARIO = (Path(__file__).resolve().parents[1] / "scenarios" / "spanish21"
            / "19-all-21s-dealer-only-reveals.toml")


class Spy(RecordingTarget):
    """Records each ``expecting()`` with the number of rounds finished before it; at hil,
    stacks the next card in the shoe as soon as a round is settled."""

    def __init__(self, inner: TableTarget, stack: bool) -> None:
        super().__init__(inner)
        self.asked: list[tuple[int, dict[str, Any]]] = []
        self.finished = 0
        self.stack = stack
        self.leftover: list[str] = []
        self._stacked: tuple[str, int, int] | None = None  # card, shoe:card, accepted

    def expecting(self) -> dict[str, Any]:
        exp = self.inner.expecting()
        self.asked.append((self.finished, exp))
        return exp

    def view(self) -> dict[str, Any]:
        v = super().view()
        if v["phase"] == "settled" and v["round"] > self.finished:
            self.finished = v["round"]
            if self.stack and self.leftover:
                self._stack(self.leftover.pop(0))
        return v

    def _stack(self, code: str) -> None:
        hil: Any = self.inner
        # the LCK that followed the round's last card may still be on the line: stack the
        # card once the shoe itself reports the gate locked (a generous deadline, no guess)
        deadline = time.monotonic() + ACT_TIMEOUT_S
        while hil.shoe.status()["gate"] != "locked":
            if time.monotonic() > deadline:
                raise ServiceError("round settled, but the shoe's gate stayed unlocked")
            time.sleep(0.005)
        st = hil._status()
        handled = st["handled"]
        self._stacked = (code, int(handled.get("shoe:card", 0)),
                         int(handled.get("input:accepted:shoe", 0)))
        hil.shoe.load_cards([code], append=True)

    def card(self, code: str) -> str | None:
        if self._stacked is None:
            return self.inner.card(code)
        stacked, dealt, accepted = self._stacked
        self._stacked = None
        assert code == stacked, f"the shoe holds {stacked}, the scenario deals {code}"
        hil: Any = self.inner
        reply = hil._check(hil._svc().control(
            "wait", handled={"shoe:card": dealt + 1}, timeout_s=ACT_TIMEOUT_S), "stacked card")
        if not reply.get("waited"):
            raise ServiceError(f"the stacked {code} never left the shoe")
        if int(reply["handled"].get("input:accepted:shoe", 0)) <= accepted:
            return f"the table refused the stacked card {code}"
        return None


@pytest.mark.parametrize("mode", ["engine", "hil"])
def test_baseline_1_10_spanish21_all_21s_no_dealer_card_asked_gate_stays_locked(
    mode: str,
) -> None:
    scenario = load_scenario(SCENARIO)
    if mode == "engine":
        spy = Spy(EngineTarget(), stack=False)
    else:
        from firmware.bench.hil_target import HilTarget

        spy = Spy(HilTarget(), stack=True)
        spy.leftover = ["QS"]  # round 1's last card, which the dealer does not draw
    assert play_scenario(scenario, spy) == []
    round1 = [e for done, e in spy.asked if done == 0]
    assert any(e["kind"] == "decision" and e["seat"] == 2 for e in round1)
    asked = [e for e in round1 if "rescue" in e["legal"]]
    assert [(e["seat"], tuple(e["legal"])) for e in asked] == [(2, ("stand", "rescue"))]
    # every card round 1 asked for, in order (hands numbered from 1 at both depths): the
    # deal, seat 1's hit, seat 2's double; the dealer's up card, then never a dealer draw
    assert [e["to"] for e in round1 if e["kind"] == "card"] == [
        "seat 1 hand 1", "seat 2 hand 1", "dealer", "seat 1 hand 1", "seat 2 hand 1", "hole",
        "seat 1 hand 1", "seat 2 hand 1"]
    assert spy.finished == 2
    if mode == "hil":
        assert spy._stacked is None  # round 2 took the stacked card as its first
