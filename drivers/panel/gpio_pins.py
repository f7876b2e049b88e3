"""Real pins through ``RPi.GPIO`` (on a Raspberry Pi 5, the ``rpi-lgpio`` drop-in).

The module is imported only when this backend is constructed, so every other part of
the firmware, and every test, runs where ``RPi.GPIO`` cannot be imported. A missing
module (or one that refuses to load off a Pi) is bad configuration for this machine:
one clear line, not a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from drivers.panel.pins import Edge, PinError, Pins, Pull
from etgcore.errors import UserError

INSTALL_HINT = (
    "panel backend 'gpio' needs RPi.GPIO (pip install RPi.GPIO; on a Raspberry Pi 5 "
    "pip install rpi-lgpio); on a desktop use the simulated or keyboard panel "
    "(etg run --panel sim or keyboard, etg panel test --panel sim)"
)


def load_gpio_module() -> ModuleType:
    """Import ``RPi.GPIO`` now, or raise a :class:`UserError` saying how to get it."""
    try:
        return importlib.import_module("RPi.GPIO")
    except ImportError as exc:
        raise UserError(f"{INSTALL_HINT} ({exc})") from None
    except RuntimeError as exc:  # RPi.GPIO raises this when imported off a Pi
        raise UserError(f"RPi.GPIO cannot run here: {exc}; {INSTALL_HINT}") from None


class GpioPins(Pins):
    """:class:`Pins` on the Raspberry Pi header, BCM numbering."""

    name = "gpio"

    def __init__(self, module: ModuleType | None = None) -> None:
        self.gpio: Any = module if module is not None else load_gpio_module()
        self.gpio.setwarnings(False)  # pins left configured by a killed run are ours
        self.gpio.setmode(self.gpio.BCM)
        self._used: list[int] = []
        self._watched: set[int] = set()
        self._waking: set[int] = set()

    def _edge(self, edge: Edge) -> Any:
        g = self.gpio
        return {"rising": g.RISING, "falling": g.FALLING, "both": g.BOTH}[edge]

    def _claim(self, pin: int) -> None:
        if pin not in self._used:
            self._used.append(pin)

    def setup_output(self, pin: int, initial: int) -> None:
        g = self.gpio
        g.setup(pin, g.OUT, initial=g.HIGH if initial else g.LOW)
        self._claim(pin)

    def setup_input(self, pin: int, pull: Pull = "up") -> None:
        g = self.gpio
        pud = {"up": g.PUD_UP, "down": g.PUD_DOWN, "off": g.PUD_OFF}[pull]
        g.setup(pin, g.IN, pull_up_down=pud)
        self._claim(pin)

    def write(self, pin: int, level: int) -> None:
        self.gpio.output(pin, self.gpio.HIGH if level else self.gpio.LOW)

    def read(self, pin: int) -> int:
        return 1 if self.gpio.input(pin) else 0

    def watch_edges(self, pin: int, edge: Edge) -> None:
        if pin in self._watched:
            self.gpio.remove_event_detect(pin)
        self.gpio.add_event_detect(pin, self._edge(edge))
        self._watched.add(pin)

    def edge_seen(self, pin: int) -> bool:
        if pin not in self._watched:
            raise PinError(f"BCM {pin}: edge polled but not watched")
        return bool(self.gpio.event_detected(pin))

    def wait_for_edge(self, pin: int, edge: Edge, timeout_s: float) -> bool:
        got = self.gpio.wait_for_edge(pin, self._edge(edge), timeout=max(1, int(timeout_s * 1000)))
        return got is not None

    def wake_on_edges(self, pins: Sequence[int], edge: Edge, wake: Callable[[], None]) -> None:
        """RPi.GPIO's edge detection (the kernel's GPIO interrupts): ``wake`` runs on
        RPi.GPIO's own callback thread, once per edge."""
        g = self.gpio
        for pin in pins:
            if pin in self._watched or pin in self._waking:
                g.remove_event_detect(pin)
                self._watched.discard(pin)
            g.add_event_detect(pin, self._edge(edge), callback=lambda _channel: wake())
            self._waking.add(pin)

    def stop_waking(self, pins: Sequence[int]) -> None:
        for pin in pins:
            if pin in self._waking:
                self.gpio.remove_event_detect(pin)
                self._waking.discard(pin)

    def close(self) -> None:
        self.stop_waking(sorted(self._waking))
        for pin in sorted(self._watched):
            self.gpio.remove_event_detect(pin)
        self._watched.clear()
        if self._used:
            self.gpio.cleanup(list(self._used))  # only our pins: others may own the rest
            self._used.clear()
