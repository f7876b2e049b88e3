"""The idle panel sleeps: all rows LOW, wait for an edge, scan only while a key is down.

Panel ICD scan rules still hold while scanning (tests/panel/test_panel_matrix.py); these
tests check the sleeping between key presses, on the electrical simulator (whose edges
are modelled as GPIO interrupts) and on the gpio backend over a fake RPi.GPIO.
"""

from __future__ import annotations

import threading

from panel_rig import make_rig, presses
from test_panel_gpio import FakeGPIO, fake  # noqa: F401 - the fixture is used by name
from waiting import DEADLINE_S, wait_for

from drivers.panel import MatrixPanel, PanelReport, open_panel
from drivers.panel.pins import HIGH, LOW
from drivers.panel.settings import PanelSettings, PinMap

M = PinMap()


def test_idle_wait_drives_every_row_low_and_times_out_without_an_edge() -> None:
    rig = make_rig()
    assert not rig.panel.idle_wait(timeout_s=0.05)  # no edge: the time runs out
    assert [rig.sim.probe(r) for r in M.rows] == [HIGH] * 7  # back to idle HIGH
    assert rig.panel.scans == 0 and rig.panel.wakeups == 0


def test_while_idle_every_row_is_low_and_no_column_is_read() -> None:
    """Asleep in idle_wait (no time limit): every seat row driven LOW, no column read, no
    scan; a press ends the sleep, after which the rows are HIGH again."""
    rig = make_rig()
    result: list[bool] = []
    sleeper = threading.Thread(target=lambda: result.append(rig.panel.idle_wait()))
    sleeper.start()
    try:
        wait_for("every row LOW", lambda: [rig.sim.probe(r) for r in M.rows] == [LOW] * 7)
        assert rig.sim.row_overlaps == 0 and rig.panel.scans == 0
    finally:
        rig.sim.press(2, "HIT")  # the edge that ends the sleep
        sleeper.join(DEADLINE_S)
    assert result == [True]
    assert [rig.sim.probe(r) for r in M.rows] == [HIGH] * 7
    assert rig.panel.scans == 0 and rig.sim.row_overlaps == 0


def test_a_key_held_before_the_sleep_wakes_it_at_once() -> None:
    """The edges are armed before the rows go LOW: a held key makes its column fall."""
    rig = make_rig()
    rig.sim.press(5, "DOUBLE")
    assert rig.panel.idle_wait(timeout_s=DEADLINE_S)  # woken (a time-out returns False)


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


def sleeping(panel: MatrixPanel) -> bool:
    """The scan thread sits in idle_wait: every row LOW."""
    return all(panel.sim.probe(r) == LOW for r in M.rows) if panel.backend == "sim" else \
        all(panel.pins.gpio.model.probe(r) == LOW for r in M.rows)  # type: ignore[attr-defined]


def run_press_release(panel: MatrixPanel, press, release) -> list[PanelReport]:  # type: ignore[no-untyped-def]
    """Asleep, one press and release, asleep again, then stop(). The thread scans only
    after idle_wait returns woken, which counts a wakeup: exactly one wakeup at the end
    proves it slept from the start to the press and from the release to stop() (stop is
    the event that ends the last sleep), with no scan pass in either sleep; and the
    thread went scanning once, for that wakeup (a thread that scans on a timer too,
    woken or not, fails here without any waiting)."""
    got: list[PanelReport] = []
    panel.on_report = got.append
    scanning: list[float] = []  # every time the thread went scanning
    scan = panel.run_for

    def counted(seconds: float, **kw: bool) -> None:
        scanning.append(seconds)
        scan(seconds, **kw)

    panel.run_for = counted  # type: ignore[method-assign]
    panel.start()
    try:
        wait_for("the panel to sleep", lambda: sleeping(panel))
        assert panel.scans == 0 and panel.wakeups == 0  # asleep: no scan passes at all
        press()
        wait_for("the press event", lambda: len(got) >= 1)
        release()
        wait_for("the release event", lambda: len(got) >= 2)
        wait_for("the panel to sleep again", lambda: sleeping(panel))
        scans = panel.scans
    finally:
        panel.stop()
    assert panel.wakeups == 1 and panel.scans == scans  # asleep again once released
    assert len(scanning) == 1  # it went scanning for the one wakeup only
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
    wait_for("the panel to sleep", lambda: sleeping(panel))
    thread = panel._thread
    assert thread is not None
    panel.stop()  # idle_wait has no time limit here: only the wake-up can end it
    assert not thread.is_alive() and panel._thread is None
