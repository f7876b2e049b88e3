"""A shoe that is not there is a link-down from the start, not silence.

Two ways a shoe can be missing when the table starts: its port does not exist (unplugged
USB, a typo in ``shoe.port``) or the port opens and nothing answers (a cable to nothing).
Both must be reported at once as ``link-down`` — the table tilts on it and logs it — and
reported once per outage, while the driver keeps retrying with backoff.
"""

from __future__ import annotations

import os
import pty
import time

from shoe_support import FAST, plain_shoe
from test_shoe_driver import SCRIPT, Consumer
from waiting import wait_for

from drivers.shoe.driver import ShoeDriver
from drivers.shoe.session import ControllerSession
from drivers.shoe.sim_machine import SimSettings
from drivers.shoe.simulator import ShoeSimulator


def test_a_port_that_does_not_exist_is_link_down_at_once_then_up_when_plugged(
        tmp_path, open_attempts) -> None:
    link = str(tmp_path / "etg-shoe")
    d = ShoeDriver(link, timing=FAST, backoff=(0.05, 0.2)).start()
    sim = None
    try:
        c = Consumer(d)
        down = c.next("link-down")
        assert "cannot open shoe port" in (down.detail or "") and "retrying" in (down.detail or "")
        # once per outage: three more failed attempts (each one's report, had it made one,
        # is delivered before the next attempt begins) and no second link-down
        tried = len(open_attempts)
        wait_for("three more attempts to open the port", lambda: len(open_attempts) >= tried + 3)
        assert [e.kind for e in c.drain()].count("link-down") == 0
        sim = ShoeSimulator.on_pty(SimSettings(cards=SCRIPT, pace_s=0.0, cut_after=99,
                                               timing=FAST), link=link,
                                   shuffler=plain_shoe).start()
        c.next("link-up")
        c.next("hello")
    finally:
        d.stop()
        if sim is not None:
            sim.stop()


def test_a_port_that_opens_but_never_speaks_is_link_down_after_the_silence_limit() -> None:
    master, slave = pty.openpty()
    try:
        d = ShoeDriver(os.ttyname(slave), timing=FAST, backoff=(0.05, 0.2)).start()
        try:
            t0 = time.monotonic()
            down = Consumer(d).next("link-down")
            assert "since the port opened" in (down.detail or "")
            assert down.at - t0 >= FAST.link_down_s * 0.9
        finally:
            d.stop()
    finally:
        os.close(master)
        os.close(slave)


def test_session_silence_from_open_is_one_link_down_and_cancelled_by_a_frame() -> None:
    s = ControllerSession(FAST)
    s.port_opened(100.0)
    assert s.next_deadline() is not None and s.next_deadline() <= 100.0 + FAST.link_down_s
    assert s.poll(100.0 + FAST.link_down_s / 2) == []
    assert [e.kind for e in s.poll(100.0 + FAST.link_down_s + 0.001)] == ["link-down"]
    assert s.poll(100.0 + 3 * FAST.link_down_s) == []  # reported once
    s2 = ControllerSession(FAST)
    s2.port_opened(0.0)
    from drivers.shoe.framing import encode

    kinds = [e.kind for e in s2.feed(encode(0, "HEL", "1", "X", "1", "SN"), 0.1)]
    assert "link-up" in kinds
    assert all(e.kind != "link-down" for e in s2.poll(FAST.link_down_s + 0.05))
