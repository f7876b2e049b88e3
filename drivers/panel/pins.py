"""The pin layer: the few GPIO operations the panel needs, behind one small interface.

Scanner, lamps and console speak only to :class:`Pins`, never to ``RPi.GPIO``; a
backend is chosen by configuration (``panel.backend``). The simulated backend is a
real backend in its own right (an electrical model of the wiring), so the same
scanning, debouncing and shifting code runs on the bench and on the table.

Levels are ints (``LOW`` = 0, ``HIGH`` = 1) and pins are BCM numbers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Literal

from drivers.errors import DeviceError

LOW = 0
HIGH = 1

Pull = Literal["up", "down", "off"]
Edge = Literal["rising", "falling", "both"]


class PinError(DeviceError, RuntimeError):
    """A pin used in a way its mode does not allow (a wiring or programming fault)."""


class Pins(ABC):
    """One GPIO header. Every method is safe to call from one thread at a time; the
    panel serialises access with its own lock."""

    name = "pins"

    @abstractmethod
    def setup_output(self, pin: int, initial: int) -> None:
        """Make ``pin`` an output driving ``initial`` from the first instant."""

    @abstractmethod
    def setup_input(self, pin: int, pull: Pull = "up") -> None:
        """Make ``pin`` an input with the given internal pull resistor."""

    @abstractmethod
    def write(self, pin: int, level: int) -> None:
        """Drive an output pin ``LOW`` or ``HIGH``."""

    @abstractmethod
    def read(self, pin: int) -> int:
        """The level on an input pin now."""

    @abstractmethod
    def watch_edges(self, pin: int, edge: Edge) -> None:
        """Start latching edges of ``edge`` kind on an input, for :meth:`edge_seen`."""

    @abstractmethod
    def edge_seen(self, pin: int) -> bool:
        """Poll: has a watched edge happened since the last poll? (clears the latch)"""

    @abstractmethod
    def wait_for_edge(self, pin: int, edge: Edge, timeout_s: float) -> bool:
        """Block until an edge on an input pin, or ``timeout_s``; True if one came."""

    @abstractmethod
    def wake_on_edges(self, pins: Sequence[int], edge: Edge, wake: Callable[[], None]) -> None:
        """Call ``wake()`` (from any thread, and quickly) on every ``edge`` on any of these
        inputs, until :meth:`stop_waking`. The idle panel sleeps on this instead of
        scanning: the hardware watches the pins, no Python runs until a key moves."""

    @abstractmethod
    def stop_waking(self, pins: Sequence[int]) -> None:
        """Undo :meth:`wake_on_edges` for these pins."""

    @abstractmethod
    def close(self) -> None:
        """Return every pin this object set up to a safe input state."""
