"""The hil bench's shoe and the service behaviours the hil bench relies on.

- The bench shoe deals exactly the cards handed to it, only while the controller's gate
  is open, over the ICD on a real pty; it never sends CUT or EMP by itself; a sticky
  fault frame leaves it in FAULT (QRY answers STA,FAULT) until STA,READY.
- shoe ICD §5/§6: a shoe still in FAULT refuses ULK (NAK,STATE); the table must not wait
  forever for the card: the round tilts and resumes once the shoe reports itself clear.
"""

from __future__ import annotations

import queue
import time

from waiting import DEADLINE_S, wait_for

from drivers.shoe.driver import ShoeDriver
from drivers.shoe.reports import ShoeReport
from firmware.bench.hil_shoe import bench_shoe
from firmware.bench.hil_target import HilTarget
from firmware.bench.scenario import parse_scenario


def _until(driver: ShoeDriver, kind: str,
           timeout: float = DEADLINE_S) -> tuple[list[ShoeReport], ShoeReport]:
    """Every event before the next one of ``kind``, and that one."""
    before: list[ShoeReport] = []
    deadline = time.monotonic() + timeout
    while True:
        try:
            ev = driver.reports.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no {kind} event within {timeout:g} s; got "
                                 f"{[e.kind for e in before]}") from None
        if ev.kind == kind:
            return before, ev
        before.append(ev)


def _quiet_until_status(driver: ShoeDriver) -> ShoeReport:
    """Ask the shoe for its status and return the answer, checking that nothing was dealt,
    cut or emptied before it. The shoe answers QRY in the same loop that deals, after the
    bench's last instruction: its answer proves the shoe went past the point where a
    wrong card would have left (no quiet interval that a slow machine makes vacuous)."""
    driver.query()
    before, status = _until(driver, "status")
    assert not [e for e in before if e.kind in ("card", "cut", "empty")], before
    return status


def test_hil_bench_shoe_deals_only_handed_cards_when_unlocked() -> None:
    sim = bench_shoe(6)
    drv = ShoeDriver(sim.path)
    try:
        drv.start()
        _until(drv, "hello")
        sim.load_cards(["AS", "KD"])
        status = _quiet_until_status(drv)  # gate locked: nothing leaves the shoe
        assert (status.state, status.count) == ("LOCKED", 0)
        assert sim.status()["count"] == 0
        drv.unlock()
        first = _until(drv, "card")[1]
        second = _until(drv, "card")[1]
        assert [first.card, second.card] == ["AS", "KD"]
        status = _quiet_until_status(drv)  # nothing more, no CUT, no EMP
        assert (status.state, status.count) == ("READY", 2)
        sim.send_frame("ERR,JAM")
        assert _until(drv, "fault")[1].code == "JAM"
        drv.query()
        assert _until(drv, "status")[1].state == "FAULT"
        sim.send_frame("STA,READY,2")
        assert _until(drv, "status")[1].state == "READY"
        drv.query()
        assert _until(drv, "status")[1].state in ("READY", "LOCKED")
    finally:
        drv.stop()
        sim.stop()


SCENARIO = {"name": "gate refused", "variant": "blackjack",
            "round": [{"shoe": ["TS", "9H", "8D", "8C"], "seat": [{"seat": 1, "wager": 500}]}]}


def test_hil_refused_gate_tilts_then_resumes() -> None:
    """shoe ICD §5/§6: NAK,STATE to ULK while a card is due pauses the round (no endless
    wait); STA,READY clears it and DEAL resumes: the cards then come."""
    d = HilTarget()
    d.start(parse_scenario(SCENARIO, "gate-refused"))
    try:
        assert d.set_credits(1, 100_000) is None
        with d.shoe._lock:  # the shoe is still jammed, but has not said so again
            d.shoe.machine.fault_code = "JAM"
        assert d.wager(1, 500) is None
        assert d.close_betting() is None
        wait_for("the refused gate to pause the round",
                 lambda: d.expecting()["kind"] == "console")
        v = d.view()
        assert v["phase"] == "tilt" and "refused to open its gate" in v["tilt"]["cause"]
        assert d.shoe_frame("STA,READY,0") is None
        assert d.console("DEAL") is None
        for card in ("TS", "9H", "8D", "8C"):
            assert d.expecting()["kind"] == "card"
            assert d.card(card) is None
        assert d.expecting()["kind"] == "decision"
    finally:
        d.stop()
