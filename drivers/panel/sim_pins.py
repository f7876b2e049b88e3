"""Simulated pins: an electrical model of the panel wiring, for tests and the bench.

What is modelled, per the panel ICD:

* the key matrix: a closed switch joins its column to its row through a diode (anode
  on the column), so a column reads LOW only while a closed switch sits on a row that
  is *driven* LOW; a row driven HIGH or left as an input blocks it, and the diodes
  make ghost keys impossible;
* columns and console inputs read their pull resistor otherwise; an input with no
  pull and nothing driving it floats, which is reported as a fault (a real board would
  read noise);
* the 74HC595 chain, bit by bit: each CLOCK rising edge shifts DATA into the first
  register and every register's last bit into the next; each LATCH rising edge copies
  the shift registers to the lamp outputs.

It also watches the scan: it records the most rows driven LOW at once and counts column
reads made while more than one row was LOW (such a read cannot tell which seat a key is
on: a scanner bug; the idle panel drives every row LOW on purpose, but then it only
waits for an edge and reads no column), and can record every pin operation with the
injected clock's time, so tests can check order and settling.

Edges are modelled as GPIO interrupts are: ``wake_on_edges`` calls back on each level
change of a watched input, whether a switch closed or a row was driven.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, MAX_SEATS, button_index
from drivers.panel.pins import HIGH, LOW, Edge, PinError, Pins, Pull
from drivers.panel.settings import PinMap


class PinOp(NamedTuple):
    """One recorded pin operation: ``op`` is setup-out, setup-in, write or read."""

    t: float
    op: str
    pin: int
    level: int


class SimPins(Pins):
    """A simulated GPIO header wired as the panel ICD says (see module docstring)."""

    name = "sim"

    def __init__(
        self,
        pins: PinMap | None = None,
        clock: Callable[[], float] = time.monotonic,
        record: int = 0,
    ) -> None:
        """``record`` > 0 keeps the last ``record`` pin operations in :attr:`ops`."""
        self.map = pins or PinMap()
        self.clock = clock
        self._lock = threading.Condition(threading.RLock())
        self._row_index = {pin: i for i, pin in enumerate(self.map.rows)}
        self._col_index = {pin: i for i, pin in enumerate(self.map.columns)}
        self._console_pin = dict(zip(CONSOLE_BUTTONS, self._console_pins(), strict=True))
        self._console_of = {pin: name for name, pin in self._console_pin.items()}
        self.ops: deque[PinOp] = deque(maxlen=max(record, 1))
        self._record = record > 0
        self.reset()

    def start_recording(self, maxlen: int = 100_000) -> None:
        """Keep the last ``maxlen`` pin operations in :attr:`ops` from now on."""
        with self._lock:
            self.ops = deque(maxlen=maxlen)
            self._record = True

    def _console_pins(self) -> tuple[int, ...]:
        m = self.map
        return (m.deal, m.shuffle, m.void, m.recall)

    def reset(self) -> None:
        """Power-on state: every pin unconfigured, switches open, registers clear."""
        with self._lock:
            self._mode: dict[int, str] = {}
            self._pull: dict[int, Pull] = {}
            self._out: dict[int, int] = {}
            self._low_rows = 0  # bit i: row i driven LOW now
            self._closed = [0] * len(self.map.columns)  # per column: bit i = switch on row i
            self._console_closed: set[str] = set()
            self._shift = [0] * MAX_SEATS  # register k: k = 0 is first in the chain
            self._storage = [0] * MAX_SEATS
            self._watch: dict[int, Edge] = {}
            self._last_level: dict[int, int] = {}
            self._edge_latched: set[int] = set()
            self._wakers: dict[int, tuple[Edge, Callable[[], None]]] = {}
            self.max_rows_low = 0
            self.row_overlaps = 0
            self.latches = 0
            self.ops.clear()

    # ---- the Pins interface -------------------------------------------------------

    def setup_output(self, pin: int, initial: int) -> None:
        with self._lock:
            self._log("setup-out", pin, initial)
            self._mode[pin] = "out"
            self._out[pin] = initial  # no edge: the pin starts at its level
            self._row_level(pin, initial)
            self._changed()

    def setup_input(self, pin: int, pull: Pull = "up") -> None:
        with self._lock:
            self._log("setup-in", pin, HIGH if pull == "up" else LOW)
            if self._mode.get(pin) == "out":
                self._row_level(pin, HIGH)  # an input no longer sinks its row
            self._mode[pin] = "in"
            self._pull[pin] = pull
            self._changed()

    def write(self, pin: int, level: int) -> None:
        with self._lock:
            if self._mode.get(pin) != "out":
                raise PinError(f"BCM {pin} written but not set up as an output")
            self._log("write", pin, level)
            self._drive(pin, level)

    def read(self, pin: int) -> int:
        with self._lock:
            if self._mode.get(pin) != "in":
                raise PinError(f"BCM {pin} read but not set up as an input")
            level = self._level(pin)
            self._log("read", pin, level)
            if pin in self._col_index and self._low_rows & (self._low_rows - 1):
                self.row_overlaps += 1  # more than one row LOW: the seat is ambiguous
            return level

    def watch_edges(self, pin: int, edge: Edge) -> None:
        with self._lock:
            self._watch[pin] = edge
            self._last_level[pin] = self._level(pin)
            self._edge_latched.discard(pin)

    def edge_seen(self, pin: int) -> bool:
        with self._lock:
            seen = pin in self._edge_latched
            self._edge_latched.discard(pin)
            return seen

    def wait_for_edge(self, pin: int, edge: Edge, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._lock:
            if self._mode.get(pin) != "in":
                raise PinError(f"BCM {pin} watched but not set up as an input")
            before = self._watch.get(pin)
            self.watch_edges(pin, edge)
            try:
                while pin not in self._edge_latched:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._lock.wait(left)
                self._edge_latched.discard(pin)
                return True
            finally:
                if before is None:
                    self._watch.pop(pin, None)
                else:
                    self._watch[pin] = before

    def wake_on_edges(self, pins: Sequence[int], edge: Edge, wake: Callable[[], None]) -> None:
        """As a GPIO interrupt would: ``wake`` is called (on the thread that moved the
        level: a switch, a row write) for each edge; the level seen now is the start."""
        with self._lock:
            for pin in pins:
                if self._mode.get(pin) != "in":
                    raise PinError(f"BCM {pin} watched but not set up as an input")
                self._wakers[pin] = (edge, wake)
                self._last_level[pin] = self._level(pin)

    def stop_waking(self, pins: Sequence[int]) -> None:
        with self._lock:
            for pin in pins:
                self._wakers.pop(pin, None)

    def close(self) -> None:
        with self._lock:
            self._wakers.clear()
            for pin in list(self._mode):
                self._mode[pin] = "in"
                self._pull[pin] = "off"
            self._low_rows = 0

    # ---- bench API: the switches and the lamps ------------------------------------

    def press(self, seat: int, button: str | int) -> None:
        """Close the switch of ``button`` on ``seat``'s panel (1..7)."""
        self._set_switch(seat, button, True)

    def release(self, seat: int, button: str | int) -> None:
        self._set_switch(seat, button, False)

    def press_console(self, name: str) -> None:
        """Close a console input (DEAL, SHUFFLE, VOID, RECALL): it shorts to ground."""
        self._set_console(name, True)

    def release_console(self, name: str) -> None:
        self._set_console(name, False)

    def release_all(self) -> None:
        with self._lock:
            self._closed = [0] * len(self.map.columns)
            self._console_closed.clear()
            self._changed()

    def lamp_bytes(self) -> tuple[int, ...]:
        """The latched lamp outputs, one byte per seat 1..7 (bit n = column n)."""
        with self._lock:
            return tuple(self._storage)

    def lamps(self) -> dict[int, frozenset[str]]:
        """Lit lamps read back from the simulated registers: {seat: {button, ...}}."""
        out: dict[int, frozenset[str]] = {}
        for seat, byte in enumerate(self.lamp_bytes(), start=1):
            lit = frozenset(b for n, b in enumerate(BUTTONS) if byte >> n & 1)
            if lit:
                out[seat] = lit
        return out

    def probe(self, pin: int) -> int:
        """The level on any pin now, as a probe would measure it (not recorded)."""
        with self._lock:
            return self._level(pin)

    # ---- the model ----------------------------------------------------------------

    def _set_switch(self, seat: int, button: str | int, closed: bool) -> None:
        if not 1 <= seat <= len(self.map.rows):
            raise ValueError(f"seat {seat} has no row in the pin map (1..{len(self.map.rows)})")
        col = button if isinstance(button, int) else button_index(button)
        with self._lock:
            bit = 1 << (seat - 1)
            self._closed[col] = self._closed[col] | bit if closed else self._closed[col] & ~bit
            self._changed()

    def _set_console(self, name: str, closed: bool) -> None:
        key = name.upper()
        if key not in self._console_pin:
            raise ValueError(f"unknown console input {name!r} (known: {' '.join(CONSOLE_BUTTONS)})")
        with self._lock:
            if closed:
                self._console_closed.add(key)
            else:
                self._console_closed.discard(key)
            self._changed()

    def _log(self, op: str, pin: int, level: int) -> None:
        if self._record:
            self.ops.append(PinOp(self.clock(), op, pin, level))

    def _drive(self, pin: int, level: int) -> None:
        before = self._out[pin]
        self._out[pin] = level
        self._row_level(pin, level)
        if before == LOW and level == HIGH:
            if pin == self.map.lamp_clock:
                self._clock_edge()
            elif pin == self.map.lamp_latch:
                self._storage = list(self._shift)
                self.latches += 1
        self._changed()

    def _row_level(self, pin: int, level: int) -> None:
        row = self._row_index.get(pin)
        if row is None:
            return
        if level == LOW:
            self._low_rows |= 1 << row
        else:
            self._low_rows &= ~(1 << row)
        self.max_rows_low = max(self.max_rows_low, bin(self._low_rows).count("1"))

    def _clock_edge(self) -> None:
        if self._mode.get(self.map.lamp_data) != "out":
            raise PinError(f"CLOCK edge with DATA (BCM {self.map.lamp_data}) not an output")
        carry = self._out[self.map.lamp_data] & 1
        for k, reg in enumerate(self._shift):
            self._shift[k] = (reg << 1 | carry) & 0xFF
            carry = reg >> 7 & 1  # QH' feeds the next register's serial input

    def _level(self, pin: int) -> int:
        if self._mode.get(pin) == "out":
            return self._out[pin]
        col = self._col_index.get(pin)
        if col is not None and self._closed[col] & self._low_rows:
            return LOW
        name = self._console_of.get(pin)
        if name is not None and name in self._console_closed:
            return LOW
        pull = self._pull.get(pin, "off")
        if pull == "off":
            raise PinError(f"BCM {pin} floats: no pull resistor and nothing drives it")
        return HIGH if pull == "up" else LOW

    def _changed(self) -> None:
        """Latch edges on watched inputs, call edge wakers and wake edge waiters."""
        if not (self._watch or self._wakers):
            return
        for pin in self._watch.keys() | self._wakers.keys():
            try:
                now = self._level(pin)
            except PinError:  # a floating input picks up noise: edges, as on a real board
                if pin in self._wakers:
                    self._wakers[pin][1]()
                continue
            was = self._last_level.get(pin, now)
            self._last_level[pin] = now
            if was == now:
                continue
            if _is_edge(self._watch.get(pin), now):
                self._edge_latched.add(pin)
            waker = self._wakers.get(pin)
            if waker is not None and _is_edge(waker[0], now):
                waker[1]()
        self._lock.notify_all()

    def switch_states(self) -> Mapping[str, object]:
        """Which switches are closed now, for diagnostics."""
        with self._lock:
            seats = {
                seat: [BUTTONS[c] for c in range(len(self._closed))
                       if self._closed[c] >> (seat - 1) & 1]
                for seat in range(1, len(self.map.rows) + 1)
            }
            return {"seats": {s: b for s, b in seats.items() if b},
                    "console": sorted(self._console_closed)}


def _is_edge(edge: Edge | None, now: int) -> bool:
    """Whether a level change to ``now`` is an edge of kind ``edge`` (None: not watched)."""
    return edge == "both" or (edge == "rising" and now == HIGH) or (
        edge == "falling" and now == LOW)
