"""The hil bench's shoe and the service behaviours the hil bench relies on.

- The bench shoe deals exactly the cards handed to it, only while the controller's gate
  is open, over the ICD on a real pty; it never sends CUT or EMP by itself; a sticky
  fault frame leaves it in FAULT (QRY answers STA,FAULT) until STA,READY.
- shoe ICD §5/§6: a shoe still in FAULT refuses ULK (NAK,STATE); the table must not wait
  forever for the card: the round tilts and resumes once the shoe reports itself clear.
"""

from __future__ import annotations

import time
from typing import Any

from drivers.shoe.driver import ShoeDriver
from firmware.bench.hil_driver import HilDriver
from firmware.bench.hil_shoe import bench_shoe
from firmware.bench.scenario import parse_scenario


def _events(driver: ShoeDriver, kind: str, n: int, timeout: float = 20.0) -> list[Any]:
    got: list[Any] = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        try:
            ev = driver.events.get(timeout=0.1)
        except Exception:
            continue
        if ev.kind == kind:
            got.append(ev)
    return got


def test_hil_bench_shoe_deals_only_handed_cards_when_unlocked() -> None:
    sim = bench_shoe(6)
    drv = ShoeDriver(sim.path)
    try:
        drv.start()
        assert _events(drv, "hello", 1)
        sim.load_cards(["AS", "KD"])
        time.sleep(0.3)
        assert sim.status()["count"] == 0  # gate locked: nothing leaves the shoe
        drv.unlock()
        cards = _events(drv, "card", 2)
        assert [c.card for c in cards] == ["AS", "KD"]
        time.sleep(0.3)
        kinds = set()
        while not drv.events.empty():
            kinds.add(drv.events.get().kind)
        assert not kinds & {"card", "cut", "empty"}  # nothing more, no CUT, no EMP
        sim.send_frame("ERR,JAM")
        assert _events(drv, "fault", 1)[0].code == "JAM"
        drv.query()
        assert _events(drv, "status", 1)[0].state == "FAULT"
        sim.send_frame("STA,READY,2")
        assert _events(drv, "status", 1)[0].state == "READY"
        drv.query()
        assert _events(drv, "status", 1)[0].state in ("READY", "LOCKED")
    finally:
        drv.stop()
        sim.stop()


SCENARIO = {"name": "gate refused", "variant": "blackjack",
            "round": [{"shoe": ["TS", "9H", "8D", "8C"], "seat": [{"seat": 1, "wager": 500}]}]}


def test_hil_refused_gate_tilts_then_resumes() -> None:
    """shoe ICD §5/§6: NAK,STATE to ULK while a card is due pauses the round (no endless
    wait); STA,READY clears it and DEAL resumes: the cards then come."""
    d = HilDriver()
    d.start(parse_scenario(SCENARIO, "gate-refused"))
    try:
        assert d.set_credits(1, 100_000) is None
        with d.shoe._lock:  # the shoe is still jammed, but has not said so again
            d.shoe.machine.fault_code = "JAM"
        assert d.wager(1, 500) is None
        assert d.close_betting() is None
        end = time.monotonic() + 20
        while d.expecting()["kind"] != "console" and time.monotonic() < end:
            time.sleep(0.05)
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
