"""The electrical model itself: what a column, a console input and the chain do."""

from __future__ import annotations

import threading

import pytest
from waiting import DEADLINE_S

from drivers.panel.pins import HIGH, LOW, PinError
from drivers.panel.settings import PinMap
from drivers.panel.sim_pins import SimPins

M = PinMap()


@pytest.fixture
def sim() -> SimPins:
    s = SimPins(M)
    for c in M.columns:
        s.setup_input(c, "up")
    for r in M.rows:
        s.setup_output(r, HIGH)
    return s


def test_column_low_only_with_pressed_switch_on_the_driven_row(sim: SimPins) -> None:
    """Panel ICD: a pressed switch on the driven row pulls its column low."""
    sim.press(2, "HIT")
    hit = M.columns[2]
    assert sim.read(hit) == HIGH  # rows idle high
    sim.write(M.rows[0], LOW)
    assert sim.read(hit) == HIGH  # another row driven
    sim.write(M.rows[0], HIGH)
    sim.write(M.rows[1], LOW)
    assert sim.read(hit) == LOW
    assert sim.read(M.columns[3]) == HIGH
    sim.release(2, "HIT")
    assert sim.read(hit) == HIGH


def test_a_row_left_as_input_does_not_sink(sim: SimPins) -> None:
    sim.press(1, "BET")
    sim.write(M.rows[0], LOW)
    sim.setup_input(M.rows[0], "off")
    assert sim.read(M.columns[0]) == HIGH


def test_floating_input_and_misuse_are_faults() -> None:
    s = SimPins(M)
    s.setup_input(M.deal, "off")
    with pytest.raises(PinError, match="floats"):
        s.read(M.deal)
    with pytest.raises(PinError, match="not set up as an output"):
        s.write(M.deal, LOW)
    with pytest.raises(PinError, match="not set up as an input"):
        s.read(M.rows[0])


def test_console_input_shorts_to_ground(sim: SimPins) -> None:
    sim.setup_input(M.void, "up")
    assert sim.read(M.void) == HIGH
    sim.press_console("void")
    assert sim.read(M.void) == LOW
    with pytest.raises(ValueError, match="unknown console input"):
        sim.press_console("FOLD")


def test_shift_on_clock_rising_edge_only_and_latch_copies(sim: SimPins) -> None:
    for p in (M.lamp_data, M.lamp_clock, M.lamp_latch):
        sim.setup_output(p, LOW)
    sim.write(M.lamp_data, HIGH)
    sim.write(M.lamp_clock, HIGH)  # rising: shifts a 1 into seat 1's register bit 0
    sim.write(M.lamp_data, LOW)
    sim.write(M.lamp_clock, HIGH)  # no edge: no shift
    assert sim.lamp_bytes() == (0,) * 7
    sim.write(M.lamp_latch, HIGH)
    assert sim.lamp_bytes() == (1, 0, 0, 0, 0, 0, 0)
    for _ in range(8):  # eight more clocks carry it into seat 2's register
        sim.write(M.lamp_clock, LOW)
        sim.write(M.lamp_clock, HIGH)
    sim.write(M.lamp_latch, LOW)
    sim.write(M.lamp_latch, HIGH)
    assert sim.lamp_bytes() == (0, 1, 0, 0, 0, 0, 0)


def test_edges_polled_and_waited(sim: SimPins) -> None:
    sim.setup_input(M.shuffle, "up")
    sim.watch_edges(M.shuffle, "falling")
    assert not sim.edge_seen(M.shuffle)
    sim.press_console("SHUFFLE")
    assert sim.edge_seen(M.shuffle)
    assert not sim.edge_seen(M.shuffle)  # the poll clears it
    sim.release_console("SHUFFLE")
    assert not sim.edge_seen(M.shuffle)  # rising edge, not watched
    assert not sim.wait_for_edge(M.shuffle, "both", 0.01)
    timer = threading.Timer(0.05, sim.press_console, args=("SHUFFLE",))
    timer.start()
    assert sim.wait_for_edge(M.shuffle, "falling", DEADLINE_S)  # True: the edge, not the time
    timer.join()


def test_reset_is_power_on() -> None:
    s = SimPins(M)
    s.setup_output(M.rows[0], LOW)
    s.press(1, "BET")
    s.reset()
    assert s.switch_states() == {"seats": {}, "console": []}
    with pytest.raises(PinError):
        s.write(M.rows[0], HIGH)
