"""`etg panel test` (issue 7 point 7) and the panel's real-time scan thread."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE_S, Lines, stopped_at_exit, wait_for

from drivers.panel import MatrixPanel, PanelReport, open_panel
from drivers.panel.selftest import default_script, parse_script
from drivers.panel.settings import PanelSettings
from etgcore.errors import UserError
from firmware.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_sim_self_test_walks_every_lamp_and_prints_presses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["--set", "table.seats=3", "--set", "panel.stuck_key_s=1", "panel", "test",
                 "--lamp-step", "0", "--script", "2:BET+1200, 3:HIT, RECALL+100"])
    out = capsys.readouterr().out
    assert code == 0, out
    lamp_lines = [ln for ln in out.splitlines() if ln.startswith("lamp  seat")]
    assert len(lamp_lines) == 3 * 8 and all(ln.endswith("ok") for ln in lamp_lines)
    for line in ("press   seat 2 BET", "stuck   seat 2 BET", "release seat 2 BET",
                 "press   seat 3 HIT", "release seat 3 HIT",
                 "press   console RECALL", "release console RECALL"):
        assert line in out
    assert "self-test PASS: 3 press(es), 3 release(s), 1 stuck" in out


def test_script_parsing() -> None:
    steps = parse_script("1:bet, 7:INSURANCE+200; deal", 7)
    assert [(s.seat, s.button, s.hold_ms) for s in steps] == [
        (1, "BET", 80), (7, "INSURANCE", 200), (None, "DEAL", 80)]
    assert len(parse_script(default_script(7), 7)) == 11
    for bad in ("8:BET", "1:FOLD", "FOLD", "1:BET+x"):
        with pytest.raises(UserError):
            parse_script(bad, 7)


def test_ctrl_c_exits_0() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware", "panel", "test", "--lamp-step", "0",
         "--script", "1:BET", "--duration", "60"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    with stopped_at_exit(proc, signal.SIGKILL):
        assert proc.stdout is not None and proc.stderr is not None
        out, err = Lines(proc.stdout), Lines(proc.stderr)
        out.wait_for("the self-test to listen", lambda line: "release seat 1 BET" in line)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(DEADLINE_S) == 0, err.wait_closed()
        text = out.wait_closed()
    assert "stopped" in text and "self-test PASS" in text


def test_script_needs_the_sim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["panel", "test", "--backend", "gpio", "--script", "1:BET"]) == 2
    assert "--panel sim" in capsys.readouterr().err


def test_real_time_thread_delivers_without_blocking() -> None:
    """The scan thread in real time: a press reaches the queue (generous timeout)."""
    panel = open_panel(PanelSettings(), 7, "sim")
    assert isinstance(panel, MatrixPanel)
    with panel:
        panel.set_lamps({3: {"HIT"}})
        panel.sim.press(3, "HIT")
        ev = panel.get_event(timeout=DEADLINE_S)
        panel.sim.release(3, "HIT")
        ev2 = panel.get_event(timeout=DEADLINE_S)
        assert panel.sim.lamps() == {3: frozenset({"HIT"})}
    assert ev is not None and (ev.kind, ev.seat, ev.button) == ("press", 3, "HIT")
    assert ev2 is not None and ev2.kind == "release"
    assert panel.sim.lamps() == {}


def test_pin_fault_stops_the_scan_with_a_fault_event() -> None:
    """A hardware fault must reach the table (it tilts), not kill a thread silently."""
    got: list[PanelReport] = []
    panel = open_panel(PanelSettings(), 7, "sim", on_report=got.append)
    assert isinstance(panel, MatrixPanel)
    panel.start()
    panel.sim.setup_input(panel.settings.pins.deal, "off")  # a broken pull-up
    try:
        wait_for("the fault event", lambda: got)
    finally:
        panel.stop()
    assert got and got[0].kind == "fault" and "floats" in got[0].detail


@pytest.mark.parametrize("argv,problem", [
    (["--script", "DEAL+-5"], "0 or more milliseconds"),
    (["--script", ",,"], "no press given"),
    (["--script", "1:BET+5"], "shorter than the debounce"),
    (["--lamp-step", "-1"], "--lamp-step"),
    (["--duration", "-1"], "--duration"),
])
def test_bad_self_test_options_are_one_line(argv: list[str], problem: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["panel", "test", "--backend", "sim", *argv]) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1


def test_a_scan_fault_fails_the_self_test_and_ends_the_listening() -> None:
    """On the table a pin fault stops the scan: the technician must see FAIL, not a PASS
    after listening to a dead panel."""
    from drivers.panel.selftest import SelfTest

    lines: list[str] = []
    panel = open_panel(PanelSettings(), 7, "sim")
    assert isinstance(panel, MatrixPanel)
    test = SelfTest(panel, lines.append, 0.0)
    panel.start()
    panel.sim.setup_input(panel.settings.pins.deal, "off")  # a broken pull-up
    assert test.faulted.wait(DEADLINE_S)
    panel.stop()
    assert test.failures >= 1
    assert test.summary().startswith("self-test FAIL") and "scan fault" in test.summary()
    assert any("fault" in line and "SCAN" in line for line in lines)
