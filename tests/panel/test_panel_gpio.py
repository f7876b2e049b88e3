"""The gpio backend against a recorded fake of the RPi.GPIO module.

The fake is put into sys.modules as ``RPi.GPIO``; it records every call and answers
``input()`` from the electrical simulator, so a press travels through the real
backend, scanner and debouncer.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from drivers.panel import MatrixPanel, open_panel
from drivers.panel.clock import ManualClock
from drivers.panel.gpio_pins import GpioPins
from drivers.panel.settings import PanelSettings, PinMap
from drivers.panel.sim_pins import SimPins
from etgcore.errors import UserError
from firmware.cli import main

M = PinMap()


class FakeGPIO(types.ModuleType):
    """RPi.GPIO's surface, recording calls; levels come from an electrical model."""

    BCM, BOARD = 11, 10
    OUT, IN = 0, 1
    LOW, HIGH = 0, 1
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
    RISING, FALLING, BOTH = 31, 32, 33

    def __init__(self) -> None:
        super().__init__("RPi.GPIO")
        self.calls: list[tuple[Any, ...]] = []
        self.model = SimPins(M)
        self.mode: int | None = None
        self.detected: set[int] = set()

    def setwarnings(self, flag: bool) -> None:
        self.calls.append(("setwarnings", flag))

    def setmode(self, mode: int) -> None:
        self.calls.append(("setmode", mode))
        self.mode = mode

    def setup(self, pin: int, direction: int, pull_up_down: int = 20, initial: int = -1) -> None:
        assert self.mode == self.BCM, "setup before setmode(BCM)"
        self.calls.append(("setup", pin, direction, pull_up_down, initial))
        if direction == self.OUT:
            self.model.setup_output(pin, initial if initial >= 0 else 0)
        else:
            pull = {20: "off", 21: "down", 22: "up"}[pull_up_down]
            self.model.setup_input(pin, pull)  # type: ignore[arg-type]

    def output(self, pin: int, level: int) -> None:
        self.calls.append(("output", pin, level))
        self.model.write(pin, level)

    def input(self, pin: int) -> int:
        self.calls.append(("input", pin))
        return self.model.read(pin)

    def add_event_detect(self, pin: int, edge: int, callback: Any = None) -> None:
        """With a callback, the model's edges call it, as RPi.GPIO's thread would."""
        self.calls.append(("add_event_detect", pin, edge))
        if callback is not None:
            kind = {self.RISING: "rising", self.FALLING: "falling", self.BOTH: "both"}[edge]
            self.model.wake_on_edges([pin], kind, lambda: callback(pin))  # type: ignore[arg-type]

    def remove_event_detect(self, pin: int) -> None:
        self.calls.append(("remove_event_detect", pin))
        self.model.stop_waking([pin])

    def event_detected(self, pin: int) -> bool:
        self.calls.append(("event_detected", pin))
        return pin in self.detected

    def wait_for_edge(self, pin: int, edge: int, timeout: int = -1) -> int | None:
        self.calls.append(("wait_for_edge", pin, edge, timeout))
        return pin if pin in self.detected else None

    def cleanup(self, pins: Any = None) -> None:
        self.calls.append(("cleanup", pins))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGPIO:
    module = FakeGPIO()
    package = types.ModuleType("RPi")
    package.GPIO = module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "RPi", package)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", module)
    return module


def gpio_panel() -> tuple[MatrixPanel, ManualClock]:
    clock = ManualClock()
    panel = open_panel(PanelSettings(), 7, "gpio", clock=clock.now, sleep=clock.sleep)
    assert isinstance(panel, MatrixPanel) and isinstance(panel.pins, GpioPins)
    return panel, clock


def test_setup_calls(fake: FakeGPIO) -> None:
    """BCM numbering; columns and console pulled up; rows idle HIGH; lamp pins LOW."""
    panel, _ = gpio_panel()
    panel.setup()
    assert fake.calls[:2] == [("setwarnings", False), ("setmode", fake.BCM)]
    setups = {c[1]: c[2:] for c in fake.calls if c[0] == "setup"}
    for col in M.columns:
        assert setups[col] == (fake.IN, fake.PUD_UP, -1)
    for pin in (M.deal, M.shuffle, M.void, M.recall):
        assert setups[pin] == (fake.IN, fake.PUD_UP, -1)
    for row in M.rows:
        assert setups[row] == (fake.OUT, 20, fake.HIGH)
    for pin in (M.lamp_data, M.lamp_clock, M.lamp_latch):
        assert setups[pin] == (fake.OUT, 20, fake.LOW)
    assert not {2, 3, 14, 15} & set(setups)


def test_scan_pass_calls_in_order(fake: FakeGPIO) -> None:
    """Per row: drive it LOW, read the 8 columns, raise it; then the console inputs."""
    panel, _ = gpio_panel()
    panel.setup()
    fake.calls.clear()
    panel.step()
    expected: list[tuple[Any, ...]] = []
    for row in M.rows:
        expected.append(("output", row, fake.LOW))
        expected += [("input", c) for c in M.columns]
        expected.append(("output", row, fake.HIGH))
    expected += [("input", p) for p in (M.deal, M.shuffle, M.void, M.recall)]
    assert fake.calls == expected


def test_press_travels_through_the_gpio_backend(fake: FakeGPIO) -> None:
    panel, _ = gpio_panel()
    panel.setup()
    fake.model.press(6, "SURRENDER")
    fake.model.press_console("DEAL")
    panel.run_for(0.05)
    got = {(e.kind, e.seat, e.button) for e in iter(lambda: panel.get_event(0), None)}
    assert got == {("press", 6, "SURRENDER"), ("press", None, "DEAL")}


def test_lamp_update_calls(fake: FakeGPIO) -> None:
    """56 x (DATA, CLOCK high, CLOCK low), then LATCH high, LATCH low; seat 7 MSB first."""
    panel, _ = gpio_panel()
    panel.setup()
    fake.calls.clear()
    panel.set_lamps({7: {"INSURANCE"}})
    assert len(fake.calls) == 56 * 3 + 2
    assert fake.calls[:3] == [
        ("output", M.lamp_data, 1), ("output", M.lamp_clock, 1), ("output", M.lamp_clock, 0),
    ]
    assert all(c[2] == 0 for c in fake.calls[3:56 * 3:3])
    assert fake.calls[-2:] == [("output", M.lamp_latch, 1), ("output", M.lamp_latch, 0)]
    assert fake.model.lamps() == {7: frozenset({"INSURANCE"})}


def test_stop_darkens_and_cleans_up_only_our_pins(fake: FakeGPIO) -> None:
    panel, _ = gpio_panel()
    panel.setup()
    panel.set_lamps({1: {"BET"}})
    panel.stop()
    cleanup = [c for c in fake.calls if c[0] == "cleanup"]
    assert len(cleanup) == 1 and cleanup[0][1] is not None
    assert set(cleanup[0][1]) == {*M.rows, *M.columns, M.lamp_data, M.lamp_clock,
                                  M.lamp_latch, M.deal, M.shuffle, M.void, M.recall}
    assert fake.model.lamps() == {}


def test_edges_map_to_event_detection(fake: FakeGPIO) -> None:
    pins = GpioPins()
    pins.setup_input(M.deal, "up")
    pins.watch_edges(M.deal, "falling")
    assert not pins.edge_seen(M.deal)
    fake.detected.add(M.deal)
    assert pins.edge_seen(M.deal)
    assert pins.wait_for_edge(M.deal, "both", 0.25)
    assert ("add_event_detect", M.deal, fake.FALLING) in fake.calls
    assert ("wait_for_edge", M.deal, fake.BOTH, 250) in fake.calls
    pins.close()
    assert ("remove_event_detect", M.deal) in fake.calls


def test_no_rpi_gpio_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    with pytest.raises(UserError, match=r"needs RPi\.GPIO"):
        open_panel(PanelSettings(), 7, "gpio")


def test_rpi_gpio_refusing_to_load_off_a_pi_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    real = importlib.import_module

    def refuse(name: str, *a: Any) -> Any:
        if name == "RPi.GPIO":
            raise RuntimeError("This module can only be run on a Raspberry Pi!")
        return real(name, *a)

    monkeypatch.setattr(importlib, "import_module", refuse)
    with pytest.raises(UserError, match="cannot run here"):
        GpioPins()


def test_cli_gpio_without_module_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    assert main(["panel", "test", "--backend", "gpio"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "RPi.GPIO" in err
