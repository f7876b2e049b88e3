"""The lamp chain: seven 74HC595 registers bit-banged on DATA, CLOCK and LATCH.

Per the ICD, bit *n* of a seat's byte lights the lamp of column *n*, seat 7's
register is last in the chain, and a full update shifts 56 bits, seat 7's byte first,
most significant bit first, then latches. Shifting is the only way to change one
lamp, so the chain is written only when the wanted lamps differ from what it shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from drivers.panel.buttons import BUTTONS, MAX_SEATS, button_index
from drivers.panel.pins import HIGH, LOW, Pins

LampState = tuple[int, ...]  # one byte per seat 1..7
ALL_OFF: LampState = (0,) * MAX_SEATS


def encode(lit: Mapping[int, Iterable[str]], seats: int = MAX_SEATS) -> LampState:
    """``{seat: {button, ...}}`` to one byte per seat; unknown seats or buttons raise."""
    out = [0] * MAX_SEATS
    for seat, buttons in lit.items():
        if not 1 <= seat <= seats:
            raise ValueError(f"lamps for seat {seat}: this table has seats 1..{seats}")
        for name in buttons:
            out[seat - 1] |= 1 << button_index(name)
    return tuple(out)


def decode(state: LampState) -> dict[int, frozenset[str]]:
    """The inverse of :func:`encode`, leaving out seats with no lamp lit."""
    return {
        seat: frozenset(b for n, b in enumerate(BUTTONS) if byte >> n & 1)
        for seat, byte in enumerate(state, start=1)
        if byte
    }


def bit_sequence(state: LampState) -> list[int]:
    """The 56 DATA levels in the order they are clocked out."""
    return [byte >> n & 1 for byte in reversed(state) for n in range(7, -1, -1)]


class LampChain:
    """Writes lamp states to the registers; remembers what they show."""

    def __init__(self, pins: Pins, data: int, clock: int, latch: int) -> None:
        self.pins = pins
        self.data, self.clock, self.latch = data, clock, latch
        self.shown: LampState | None = None  # unknown until the first full update
        self.updates = 0

    def setup(self) -> None:
        for pin in (self.data, self.clock, self.latch):
            self.pins.setup_output(pin, LOW)
        self.apply(ALL_OFF)  # the 74HC595 powers up with random outputs

    def apply(self, state: LampState) -> bool:
        """Show ``state``; shifts and latches only when it differs. True if it did."""
        if state == self.shown:
            return False
        p = self.pins
        for bit in bit_sequence(state):
            p.write(self.data, bit)
            p.write(self.clock, HIGH)
            p.write(self.clock, LOW)
        p.write(self.latch, HIGH)
        p.write(self.latch, LOW)
        self.shown = state
        self.updates += 1
        return True
