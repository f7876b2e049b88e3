"""The idle panel sleeps: all rows LOW, wait for an edge, scan only while a key is down.

Panel ICD scan rules still hold while scanning (tests/panel/test_panel_matrix.py); these
tests check the sleeping between key presses, on the electrical simulator (whose edges
are modelled as GPIO interrupts) and on the gpio backend over a fake RPi.GPIO.
"""

from __future__ import annotations

import threading
import time

from panel_rig import make_rig, presses
from test_panel_gpio import FakeGPIO, fake  # noqa: F401 - the fixture is used by name

from drivers.panel import MatrixPanel, PanelEvent, open_panel
from drivers.panel.pins import HIGH, LOW
from drivers.panel.settings import PanelSettings, PinMap

M = PinMap()
DEADLINE_S = 10.0  # generous: a loaded machine may be slow, never wrong


def test_idle_wait_drives_every_row_low_and_times_out_without_an_edge() -> None:
    rig = make_rig()
    seen: list[list[int]] = []
    done = threading.Event()

    def probe() -> None:
        while not done.is_set():
            seen.append([rig.sim.probe(r) for r in M.rows])
            time.sleep(0.001)

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    woke = rig.panel.idle_wait(timeout_s=0.1)
    done.set()
    t.join()
    assert not woke
    assert [LOW] * 7 in seen  # while sleeping: every seat row driven
    assert [rig.sim.probe(r) for r in M.rows] == [HIGH] * 7  # back to idle HIGH
    assert rig.sim.row_overlaps == 0  # and no column was read meanwhile
    assert rig.panel.scans == 0


def test_a_key_held_before_the_sleep_wakes_it_at_once() -> None:
    """The edges are armed before the rows go LOW: a held key makes its column fall."""
    rig = make_rig()
    rig.sim.press(5, "DOUBLE")
    t0 = time.monotonic()
    assert rig.panel.idle_wait(timeout_s=DEADLINE_S)
    assert time.monotonic() - t0 < DEADLINE_S / 2


def test_a_console_input_held_before_the_sleep_wakes_it() -> None:
    rig = make_rig()
    rig.sim.press_console("RECALL")
    assert rig.panel.idle_wait(timeout_s=DEADLINE_S)


def test_a_press_during_the_sleep_wakes_it() -> None:
    rig = make_rig()
    threading.Timer(0.05, rig.sim.press, (2, "HIT")).start()
    assert rig.panel.idle_wait(timeout_s=DEADLINE_S)
    assert rig.panel.wakeups == 1


def test_a_press_on_an_absent_seat_does_not_wake_it() -> None:
    """Rows of seats the table does not have stay HIGH: their switches pull nothing."""
    rig = make_rig("table.seats=3")
    rig.sim.press(6, "HIT")
    assert not rig.panel.idle_wait(timeout_s=0.05)


def test_scanning_stops_when_every_key_is_released_and_settled() -> None:
    rig = make_rig()
    rig.sim.press(3, "STAND")
    rig.panel.run_for(5.0, until_settled=True)
    assert presses(rig.drain()) == [("press", 3, "STAND")]
    assert not rig.panel.settled()  # still held: it must go on scanning
    rig.sim.release(3, "STAND")
    t0 = rig.clock.now()
    rig.panel.run_for(5.0, until_settled=True)
    assert presses(rig.drain()) == [("release", 3, "STAND")]
    assert rig.panel.settled()
    assert rig.clock.now() - t0 < 0.05  # stopped right after the release was accepted


def test_a_glitch_too_short_to_count_is_ignored_and_scanning_stops() -> None:
    """Debouncer unchanged: one closed sample is not a press; then nothing is pending."""
    rig = make_rig()
    rig.sim.press(1, "BET")
    rig.scan()
    rig.sim.release(1, "BET")
    rig.panel.run_for(1.0, until_settled=True)
    assert rig.drain() == []
    assert rig.panel.settled()


def wait_for(pred, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + DEADLINE_S
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.002)


def sleeping(panel: MatrixPanel) -> bool:
    """The scan thread sits in idle_wait: every row LOW."""
    return all(panel.sim.probe(r) == LOW for r in M.rows) if panel.backend == "sim" else \
        all(panel.pins.gpio.model.probe(r) == LOW for r in M.rows)  # type: ignore[attr-defined]


def run_press_release(panel: MatrixPanel, press, release) -> list[PanelEvent]:  # type: ignore[no-untyped-def]
    got: list[PanelEvent] = []
    panel.on_event = got.append
    panel.start()
    try:
        wait_for(lambda: sleeping(panel), "the panel to sleep")
        scans = panel.scans
        time.sleep(0.05)
        assert panel.scans == scans == 0  # asleep: no scan passes at all
        press()
        wait_for(lambda: len(got) >= 1, "the press event")
        release()
        wait_for(lambda: len(got) >= 2, "the release event")
        wait_for(lambda: sleeping(panel), "the panel to sleep again")
        scans = panel.scans
        time.sleep(0.05)
        assert panel.scans == scans  # asleep again once released
    finally:
        panel.stop()
    return got


def test_the_scan_thread_sleeps_scans_on_a_press_and_sleeps_again() -> None:
    panel = open_panel(PanelSettings(), 7, "sim")
    assert isinstance(panel, MatrixPanel)
    got = run_press_release(panel, lambda: panel.sim.press(4, "SPLIT"),
                            lambda: panel.sim.release(4, "SPLIT"))
    assert [(e.kind, e.seat, e.button) for e in got] == [
        ("press", 4, "SPLIT"), ("release", 4, "SPLIT")]
    assert panel.wakeups >= 1


def test_the_gpio_backend_sleeps_on_rpi_gpio_edge_detection(fake: FakeGPIO) -> None:  # noqa: F811
    panel = open_panel(PanelSettings(), 7, "gpio")
    assert isinstance(panel, MatrixPanel)
    got = run_press_release(panel, lambda: fake.model.press_console("DEAL"),
                            lambda: fake.model.release_console("DEAL"))
    assert [(e.kind, e.seat, e.button) for e in got] == [
        ("press", None, "DEAL"), ("release", None, "DEAL")]
    armed = {c[1] for c in fake.calls if c[0] == "add_event_detect" and c[2] == fake.FALLING}
    assert armed == {*M.columns, M.deal, M.shuffle, M.void, M.recall}


def test_stop_wakes_a_sleeping_panel_at_once() -> None:
    panel = open_panel(PanelSettings(), 7, "sim")
    assert isinstance(panel, MatrixPanel)
    panel.start()
    wait_for(lambda: sleeping(panel), "the panel to sleep")
    t0 = time.monotonic()
    panel.stop()
    assert time.monotonic() - t0 < DEADLINE_S / 2
    assert panel._thread is None
