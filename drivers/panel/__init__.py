"""Player button panels, lamps and dealer console (panel ICD), on GPIO or simulated.

Use :func:`open_panel` with the panel's settings (:mod:`drivers.panel.settings`) and the
seat count; see docs/panel.md. Importing this package is cheap (no pygame, no RPi.GPIO).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from drivers.panel import pinmap as _pinmap
from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, PanelReport
from drivers.panel.panel import MatrixPanel, Panel, ReportSink
from drivers.panel.pins import Pins
from drivers.panel.settings import PanelBackend, PanelSettings
from drivers.panel.sim_pins import SimPins
from etgcore.errors import UserError

__all__ = [
    "BUTTONS",
    "CONSOLE_BUTTONS",
    "MatrixPanel",
    "Panel",
    "PanelReport",
    "ReportSink",
    "SimPins",
    "check_backend",
    "open_panel",
]


def check_backend(backend: PanelBackend) -> None:
    """Raise the :class:`UserError` :func:`open_panel` would raise for ``backend`` on this
    machine (``gpio`` without RPi.GPIO), without opening anything: a command checks it
    with its other options, before it creates a file."""
    if backend == "gpio":
        from drivers.panel.gpio_pins import load_gpio_module

        load_gpio_module()
    elif backend not in ("sim", "keyboard"):
        raise UserError(f"panel backend {backend!r} unknown (allowed: gpio, sim, keyboard)")


def open_panel(
    settings: PanelSettings,
    seats: int,
    backend: PanelBackend | None = None,
    on_report: ReportSink | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Panel:
    """The panel ``settings`` describe (or of ``backend``) for ``seats`` seats, not started.

    ``gpio`` imports RPi.GPIO now (a clear :class:`UserError` if it cannot); ``sim``
    builds the electrical simulator (reach it as ``panel.sim``); ``keyboard`` returns a
    :class:`~drivers.panel.keyboard.KeyboardPanel` fed by the UI's key events.
    """
    _pinmap.check_pin_map(settings, seats, "panel settings")  # also if built by hand
    name = backend or settings.backend
    clock = clock or time.monotonic
    if name == "keyboard":
        from drivers.panel.keyboard import KeyboardPanel

        return KeyboardPanel(seats, on_report=on_report, clock=clock)
    pins: Pins
    if name == "sim":
        pins = SimPins(settings.pins, clock=clock)
    elif name == "gpio":
        from drivers.panel.gpio_pins import GpioPins  # not on a bench's simulated panel

        pins = GpioPins()
    else:
        raise UserError(f"panel backend {name!r} unknown (allowed: gpio, sim, keyboard)")
    return MatrixPanel(pins, settings, seats, on_report, clock=clock, sleep=sleep or time.sleep)
